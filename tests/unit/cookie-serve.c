// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-serve: cookie-gend's socket server, its run loop and its metrics on their own,
 * with a fake daemon behind struct cookie_gend_ops (a counter in memory). That this links
 * without cookie-gend.o is the point: the socket, the loop and the metrics reach the daemon
 * only through the ops, never its globals. Then GET, STATS, the metrics page over HTTP and
 * the textfile through the ops, the daemon's tick from the loop, the rate limit as this
 * test's uid sees it (root unlimited, any other uid stopped after the burst), and the loop
 * ending with status 0 on SIGTERM (the textfile's last write) and on SIGHUP (TAP).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_loop.h"
#include "src/cookie_metrics.h"
#include "src/cookie_serve.h"
#include "src/metrics_export.h"
#include "tests/unit/test.h"

static __u64 fake_next = COOKIE_NODE_BASE(7) + 1, fake_ticks;

static int fake_draw(void *arg, __u64 n, __u64 *first)
{
	*first = fake_next;
	fake_next += n;
	return 0;
}

static void fake_tick(void *arg)
{
	fake_ticks++;
}

static void fake_snapshot(void *arg, struct cookie_gend_snapshot *g)
{
	*g = (struct cookie_gend_snapshot){ .next = fake_next, .limit = COOKIE_NODE_BASE(7) + (1 << 30),
					    .highwater = 1 << 30, .node = 7, .state_errors = 3,
					    .extensions = fake_ticks };	/* STATS shows the ticks */
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

/* The body of GET /metrics from the server bound at @bound ("127.0.0.1:PORT"), in @buf. */
static int scrape(const char *bound, char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const char *req = "GET /metrics HTTP/1.0\r\n\r\n", *port = strrchr(bound, ':');
	size_t off = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t r;

	a.sin_port = htons(atoi(port + 1));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (off + 1 < len && (r = recv(fd, buf + off, len - off - 1, 0)) > 0)
		off += r;
	buf[off] = '\0';
	close(fd);
	return 0;
}

/* The value of " KEY=" in a STATS line. */
static unsigned long long stat_of(const char *line, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(line, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : ~0ULL;
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/cookie-serve.XXXXXX", path[128], prom[128], buf[16384], req[512] = "";
	char want[128], c;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct metrics_export mx;
	unsigned long long served;
	int ready[2], fd, status;
	pid_t pid;

	if (!mkdtemp(dir) || pipe(ready))
		return 1;
	snprintf(path, sizeof(path), "%s/sock", dir);
	snprintf(prom, sizeof(prom), "%s/cookie.prom", dir);
	server = (struct cookie_server){ .socket = path, .task_fd = -1, .ops = &ops };
	/* 1 cookie/s: nothing refills while the test runs, so the counts are exact. */
	cookie_rate_init(&server.rate, 1, COOKIE_BURST_DEFAULT);
	/* The textfile every hour: written when the loop starts and at its end, no more. */
	ASSERT_EQ(metrics_export_open(&mx, "cookie-serve", "127.0.0.1:0", prom, 3600,
				      cookie_metrics_render, &server), 0,
		  "the metrics listen on 127.0.0.1, port 0");
	ASSERT_EQ(cookie_serve_open(&server), 0, "cookie_serve_open on a temporary socket");
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(cookie_loop_run(&server, &mx, ready[1]) ? 1 : 0);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1, "the loop says it serves");
	close(ready[0]);

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
	ASSERT_TRUE(stat_of(buf, "extensions") >= 1, "the daemon ticked after the GET's batch");
	/* The loop's own tick: every TICK_MS (20 ms), so 0.5 s gives it 25 chances for 5. */
	usleep(500000);
	ask(fd, "STATS\n", buf, sizeof(buf), 1);
	ASSERT_TRUE(stat_of(buf, "extensions") >= 5 && stat_of(buf, "extensions") != ~0ULL,
		    "the loop ticks the daemon while nothing happens");

	ASSERT_EQ(scrape(mx.http.bound, buf, sizeof(buf)), 0, "GET /metrics from the loop's metrics server");
	ASSERT_STRSTR(buf, "HTTP/1.1 200 OK", "answered 200");
	ASSERT_STRSTR(buf, "\nbareatom_cookie_served_total{source=\"socket\"} 3\n",
		      "served{source=socket} is the GET's 3 cookies");
	ASSERT_STRSTR(buf, "\nbareatom_cookie_highwater{node=\"7\"} 1073741824\n",
		      "highwater is the snapshot's, labelled with its node");
	ASSERT_STRSTR(buf, "\nbareatom_cookie_state_errors_total 3\n", "state_errors is the snapshot's");
	ASSERT_STRSTR(buf, "\nbareatom_cookie_clients 1\n", "clients: this test's one connection");
	ASSERT_EQ(read_file(prom, buf, sizeof(buf)), 0, "the textfile was written when the loop began");
	ASSERT_STRSTR(buf, "\nbareatom_cookie_served_total{source=\"socket\"} 0\n",
		      "before any GET: served 0");

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
	ask(fd, "STATS\n", buf, sizeof(buf), 1);
	served = stat_of(buf, "served");
	close(fd);

	kill(pid, SIGTERM);
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "the loop stops on SIGTERM");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "with status 0");
	read_file(prom, buf, sizeof(buf));
	snprintf(want, sizeof(want), "\nbareatom_cookie_served_total{source=\"socket\"} %llu\n", served);
	ASSERT_STRSTR(buf, want, "the textfile's last write has the final served count");

	/* Again, without metrics: SIGHUP stops it as cleanly. */
	cookie_serve_close(&server);
	unlink(path);
	ASSERT_EQ(cookie_serve_open(&server), 0, "the server opens again");
	if (pipe(ready))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(cookie_loop_run(&server, NULL, ready[1]) ? 1 : 0);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1, "the loop without metrics serves");
	kill(pid, SIGHUP);
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "the loop stops on SIGHUP");
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "with status 0");

	cookie_serve_close(&server);
	unlink(path);
	unlink(prom);
	rmdir(dir);
	return test_done();
}
