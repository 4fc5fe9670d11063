// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-serve: cookie-gend's socket server and metrics on their own, with a fake daemon
 * behind struct cookie_gend_ops (a counter in memory). That this links without
 * cookie-gend.o is the point: the socket and the metrics reach the daemon only through the
 * ops, never its globals. Then GET, STATS and the metrics page through the ops, and the
 * rate limit as this test's uid sees it: root unlimited, any other uid stopped after the
 * burst (TAP).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/types.h>
#include "cookie.h"
#include "cookie_metrics.h"
#include "cookie_serve.h"
#include "test.h"

static __u64 fake_next = COOKIE_NODE_BASE(7) + 1;

static int fake_draw(void *arg, __u64 n, __u64 *first)
{
	*first = fake_next;
	fake_next += n;
	return 0;
}

static void fake_tick(void *arg)
{
}

static void fake_snapshot(void *arg, struct cookie_gend_snapshot *g)
{
	*g = (struct cookie_gend_snapshot){ .next = fake_next, .limit = COOKIE_NODE_BASE(7) + (1 << 30),
					    .highwater = 1 << 30, .node = 7, .state_errors = 3 };
}

static void fake_log(int prio, const char *fmt, ...)
{
}

static void fake_notify(const char *msg)
{
}

static const struct cookie_gend_ops ops = {
	.draw = fake_draw, .tick = fake_tick, .snapshot = fake_snapshot,
	.log = fake_log, .notify = fake_notify,
};

static struct cookie_server server;

/* Send @req, read @lines reply lines into @buf. */
static int ask(int fd, const char *req, char *buf, size_t len, int lines)
{
	size_t off = 0;

	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		return -1;
	while (lines > 0 && off + 1 < len) {
		ssize_t r = recv(fd, buf + off, len - off - 1, 0);

		if (r <= 0)
			return -1;
		for (ssize_t i = 0; i < r; i++)
			lines -= buf[off + i] == '\n';
		off += r;
	}
	buf[off] = '\0';
	return 0;
}

static int count_prefix(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

int main(void)
{
	char dir[] = "/tmp/cookie-serve.XXXXXX", path[128], buf[8192], req[512] = "", c;
	struct cookie_metrics metrics = { .listen = "127.0.0.1:0", .ops = &ops, .serve = &server.stats };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int ready[2], lfd, fd, status;
	pid_t pid;

	if (!mkdtemp(dir) || pipe(ready))
		return 1;
	snprintf(path, sizeof(path), "%s/sock", dir);
	server = (struct cookie_server){ .socket = path, .task_fd = -1, .ops = &ops, .metrics = &metrics };
	/* 1 cookie/s: nothing refills while the test runs, so the counts are exact. */
	cookie_rate_init(&server.rate, 1, COOKIE_BURST_DEFAULT);
	ASSERT_EQ(cookie_metrics_open(&metrics), 0, "the metrics listen on 127.0.0.1, port 0");
	lfd = cookie_serve_listen(&server);
	ASSERT_TRUE(lfd >= 0, "cookie_serve_listen on a temporary socket");
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(cookie_serve(&server, lfd, ready[1]) ? 1 : 0);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1, "the server says it serves");

	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0, "a client connects");
	ask(fd, "GET 3\n", buf, sizeof(buf), 1);
	ASSERT_STREQ(buf, "OK 1970324836974593 3\n", "GET 3 draws through the ops: node 7's first cookies");
	ask(fd, "STATS\n", buf, sizeof(buf), 1);
	ASSERT_STRSTR(buf, " highwater=1970325910716416 ", "STATS highwater is the snapshot's, with node 7");
	ASSERT_STRSTR(buf, " state_errors=3 ", "STATS state_errors is the snapshot's");
	ASSERT_STRSTR(buf, " served=3 ", "STATS served counts the GET");
	ASSERT_STRSTR(buf, " node=7 rate_limited=0 rate_limit=1\n", "STATS ends with node, rate_limited, rate_limit");

	/* 20 pipelined GET 65536: root is not limited; anyone else has 2^20 - 3 left: 15 GETs. */
	for (int i = 0; i < 20; i++)
		strcat(req, "GET 65536\n");
	ask(fd, req, buf, sizeof(buf), 20);
	if (geteuid() == 0) {
		ASSERT_EQ(count_prefix(buf, "OK "), 20, "as root: 20 x GET 65536 all served");
	} else {
		ASSERT_EQ(count_prefix(buf, "OK "), 15, "not root: what is left of the burst, 15 x GET 65536, served");
		ASSERT_EQ(count_prefix(buf, "ERR rate limited: uid "), 5, "and 5 refused");
		ask(fd, "GET 65533\n", buf, sizeof(buf), 1);
		ASSERT_STRSTR(buf, "OK ", "a refusal took nothing: the last 65533 are still there");
		ask(fd, "STATS\n", buf, sizeof(buf), 1);
		ASSERT_STRSTR(buf, " rate_limited=5 ", "STATS rate_limited=5");
	}
	close(fd);

	kill(pid, SIGTERM);
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "the server stops on SIGTERM");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "with status 0");
	cookie_metrics_close(&metrics);
	unlink(path);
	rmdir(dir);
	return test_done();
}
