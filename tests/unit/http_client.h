/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics HTTP server under test (src/http_serve.c) and the clients that drive it as
 * the tools' loops do (poll its fd, call http_serve_ready), over loopback: shared by
 * tests/unit/http-serve.c and http-pool.c, like test.h's static helpers.
 */
#ifndef __BAREATOM_TESTS_HTTP_CLIENT_H
#define __BAREATOM_TESTS_HTTP_CLIENT_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include "src/http_serve.h"
#include "src/cli.h"
#include "tests/unit/test.h"

#define MAX_FDS 32

static struct http_serve h;
static int samples = 1;

static void render(void *arg, struct metrics *m)
{
	metrics_family(m, "bareatom_test_value", METRICS_GAUGE, NULL, "A test gauge.");
	for (int i = 0; i < samples; i++)
		metrics_u64(m, NULL, 0, 42);
}

/*
 * A nonblocking connection to @addr, with a receive buffer of @rcvbuf bytes when not 0 (set
 * before connect: it sets the window, and a small one makes a slow reader); with @wait,
 * connected when it returns, else perhaps still connecting. -1 on failure.
 */
static int connect_with(const char *addr, int rcvbuf, bool wait)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];
	int fd;

	if (cli_parse_listen(addr, &ss, &len, why, sizeof(why)))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (wait ? 0 : SOCK_NONBLOCK), 0);
	if (fd >= 0 && rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len) && (wait || errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	if (fd >= 0 && wait)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static int connect_to(const char *addr)
{
	return connect_with(addr, 0, true);
}

struct reply {
	char *buf;
	size_t len;
	bool eof;
};

/*
 * Run the server as a tool's loop does until every client of @fds has seen the end of its
 * response (or 10 s passed: a hang fails the test instead of blocking it).
 */
static void drive(int *fds, struct reply *r, int n)
{
	for (int round = 0; round < 10000; round++) {
		struct pollfd p[MAX_FDS + 1] = { { .fd = http_serve_fd(&h), .events = POLLIN } };
		int open = 0;

		for (int i = 0; i < n; i++) {
			p[i + 1] = (struct pollfd){ .fd = r[i].eof ? -1 : fds[i], .events = POLLIN };
			open += !r[i].eof;
		}
		if (!open)
			return;
		poll(p, n + 1, 1);
		http_serve_ready(&h);
		for (int i = 0; i < n; i++) {
			char buf[65536];
			ssize_t got = -1;

			while (!r[i].eof && (got = recv(fds[i], buf, sizeof(buf), 0)) != 0) {
				if (got < 0) {
					if (errno != EAGAIN)
						r[i].eof = true;
					break;
				}
				r[i].buf = realloc(r[i].buf, r[i].len + got + 1);
				memcpy(r[i].buf + r[i].len, buf, got);
				r[i].len += got;
				r[i].buf[r[i].len] = '\0';
			}
			if (got == 0)
				r[i].eof = true;
		}
	}
}

/* The body of the response @resp, after its head. */
static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

#endif /* __BAREATOM_TESTS_HTTP_CLIENT_H */
