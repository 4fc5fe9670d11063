// SPDX-License-Identifier: GPL-2.0
/*
 * libcookie-timeout: every wait on cookie-gend's socket is bounded. A peer that never
 * answers (a daemon stopped with SIGSTOP: the connection is open, nobody reads), one that
 * answers half a line, and a listener whose backlog is full all give -ETIMEDOUT within the
 * bound; the bound's parser and $COOKIE_TIMEOUT; a rate-limited GET is -EAGAIN (TAP).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "src/libcookie.h"
#include "tests/unit/test.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void timeout_case(const char *s, int want)
{
	int ms = -1, ret = cookie_parse_timeout(s, &ms);
	char name[128];

	snprintf(name, sizeof(name), "timeout '%s' %s", s, want < 0 ? "is refused" : "parses");
	if (want < 0)
		test_report(ret == -EINVAL, name);
	else if (!test_report(!ret && ms == want, name))
		printf("#   got %d ms (ret %d), want %d\n", ms, ret, want);
}

/* A listener that never accepts, its backlog filled: connects must wait, then give up. */
static int full_listener(const char *path, int *held, int nheld)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(addr.sun_path, path);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 0))
		return -1;
	/* Fill the backlog with non-blocking connects: they stop at EAGAIN. */
	for (int i = 0; i < nheld; i++) {
		held[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(held[i], (struct sockaddr *)&addr, sizeof(addr)) && errno == EAGAIN)
			break;
	}
	return lfd;
}

int main(void)
{
	char reply[256], path[] = "/tmp/libcookie-timeout.XXXXXX", sock[128];
	int sv[2], fd, lfd, held[8], ret;
	uint64_t first;
	double t0, took;

	timeout_case("5", 5000);
	timeout_case("0.25", 250);
	timeout_case("0.001", 1);
	timeout_case("3600", 3600000);
	timeout_case("1.5", 1500);
	timeout_case("0", -1);
	timeout_case("0.000", -1);
	timeout_case("0.0001", -1);
	timeout_case("3600.001", -1);
	timeout_case("", -1);
	timeout_case("-1", -1);
	timeout_case("1.", -1);
	timeout_case(".5", -1);
	timeout_case("1s", -1);
	timeout_case("1e3", -1);
	timeout_case("99999999999999999999", -1);

	/* A peer that never reads nor answers: the daemon under SIGSTOP. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	ASSERT_EQ(cookie_set_timeout(sv[0], 300), 0, "cookie_set_timeout 300 ms");
	ASSERT_EQ(cookie_set_timeout(sv[0], 0), -EINVAL, "cookie_set_timeout 0 is refused");
	t0 = now();
	ret = cookie_request(sv[0], "GET 1", reply, sizeof(reply));
	took = now() - t0;
	ASSERT_EQ(ret, -ETIMEDOUT, "no answer: cookie_request gives -ETIMEDOUT");
	if (!ASSERT_TRUE(took >= 0.29 && took < 1.0, "after the bound of 0.3 s"))
		printf("#   took %.3f s\n", took);
	t0 = now();
	ret = cookie_get(sv[0], 5, &first);
	took = now() - t0;
	ASSERT_EQ(ret, -ETIMEDOUT, "no answer: cookie_get gives -ETIMEDOUT");
	ASSERT_TRUE(took >= 0.29 && took < 1.0, "cookie_get waited the bound too");

	/* Half a line, then nothing: the bound is on the whole reply, not on each byte. */
	if (write(sv[1], "OK 12", 5) != 5)
		return 1;
	t0 = now();
	ret = cookie_request(sv[0], "GET 1", reply, sizeof(reply));
	took = now() - t0;
	ASSERT_EQ(ret, -ETIMEDOUT, "half a reply line: -ETIMEDOUT");
	ASSERT_TRUE(took >= 0.29 && took < 1.0, "within the bound");
	close(sv[0]);
	close(sv[1]);

	/* An answer in time still works; ERR rate limited is -EAGAIN, another ERR -EPROTO. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	cookie_set_timeout(sv[0], 300);
	if (write(sv[1], "OK 77 5\n", 8) != 8)
		return 1;
	ASSERT_EQ(cookie_get(sv[0], 5, &first), 0, "a reply within the bound is read");
	ASSERT_EQ_U64(first, 77, "and parsed");
	strcpy(reply, "ERR rate limited: uid 1000 may draw 16384 cookies/s (burst 1048576); retry in 4.0 s\n");
	if (write(sv[1], reply, strlen(reply)) != (ssize_t)strlen(reply))
		return 1;
	ASSERT_EQ(cookie_get(sv[0], 5, &first), -EAGAIN, "ERR rate limited: cookie_get gives -EAGAIN");
	if (write(sv[1], "ERR too many words\n", 19) != 19)
		return 1;
	ASSERT_EQ(cookie_get(sv[0], 5, &first), -EPROTO, "another ERR: -EPROTO");
	close(sv[0]);
	close(sv[1]);

	/* A full backlog: connect itself is bounded. */
	if (!mkdtemp(path))
		return 1;
	snprintf(sock, sizeof(sock), "%s/sock", path);
	lfd = full_listener(sock, held, 8);
	ASSERT_TRUE(lfd >= 0, "a listener that never accepts");
	t0 = now();
	fd = cookie_connect_timeout(sock, 200);
	took = now() - t0;
	ASSERT_EQ(fd, -ETIMEDOUT, "its backlog is full: cookie_connect_timeout gives -ETIMEDOUT");
	if (!ASSERT_TRUE(took >= 0.19 && took < 1.0, "after the bound of 0.2 s"))
		printf("#   took %.3f s\n", took);
	setenv("COOKIE_TIMEOUT", "0.2", 1);
	t0 = now();
	fd = cookie_connect(sock);
	took = now() - t0;
	ASSERT_EQ(fd, -ETIMEDOUT, "COOKIE_TIMEOUT=0.2: cookie_connect gives -ETIMEDOUT");
	ASSERT_TRUE(took >= 0.19 && took < 1.0, "after 0.2 s");
	setenv("COOKIE_TIMEOUT", "soon", 1);
	ASSERT_EQ(cookie_connect(sock), -EINVAL, "COOKIE_TIMEOUT=soon: cookie_connect gives -EINVAL");
	unsetenv("COOKIE_TIMEOUT");
	ASSERT_EQ(cookie_connect_timeout(sock, 0), -EINVAL, "a bound of 0 is refused");
	close(lfd);
	unlink(sock);
	rmdir(path);
	return test_done();
}
