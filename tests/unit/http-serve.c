// SPDX-License-Identifier: GPL-2.0
/*
 * http-serve: the metrics HTTP server (src/http_serve.c) over loopback sockets, driven the
 * way the tools drive it (poll its fd, call http_serve_ready). Every status it can answer,
 * content negotiation, requests in pieces, a response larger than the socket buffers,
 * silent clients dropped at the head's deadline while others are served, the pool: idle
 * connections, slow readers and stalled writers never keep a scrape waiting; the textfile
 * writer (src/metrics_textfile.c) and --listen's parser (src/cli.c). No kernel, no BPF:
 * host-safe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "src/http_serve.h"
#include "src/metrics_textfile.h"
#include "tests/unit/test.h"
#include "src/cli.h"
#include "src/clock.h"

/*
 * The bound on a scrape's time while other clients hold connections: idle ones, slow
 * readers, stalled writers. It tests a mechanism, not speed: a server that makes the scrape
 * wait for any other client's deadline (the head's, HTTP_HEAD_TIMEOUT = 2 s, or the
 * exchange's) takes at least that long, while one that serves clients side by side answers
 * in milliseconds even on a loaded 2-core host, so 1 s tells the two apart with room to spare.
 */
#define SCRAPE_BOUND 1.0
#define MAX_FDS 32

static struct http_serve h;
static int samples = 1;

static void render(void *arg, struct metrics *m)
{
	metrics_family(m, "bareatom_test_value", METRICS_GAUGE, NULL, "A test gauge.");
	for (int i = 0; i < samples; i++)
		metrics_u64(m, NULL, 0, 42);
}

static int connect_to(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];
	int fd;

	if (cli_parse_listen(addr, &ss, &len, why, sizeof(why)))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len))
		return -1;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
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

/* One client sends @req (@len bytes) and reads the whole response. */
static char *exchange(const char *req, size_t len)
{
	struct reply r = { .buf = strdup("") };
	int fd = connect_to(h.bound);

	if (fd < 0)
		return r.buf;
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return r.buf;
	drive(&fd, &r, 1);
	close(fd);
	return r.buf;
}

static char *get(const char *req)
{
	return exchange(req, strlen(req));
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

static void test_parse(void)
{
	static const char *const good[] = { "127.0.0.1:9100", "0.0.0.0:0", ":9100", "[::1]:9100",
					    "[::]:65535", "localhost:9100" };
	static const char *const bad[] = { "127.0.0.1", "127.0.0.1:65536",
					   "127.0.0.1:-1", "127.0.0.1:", "[::1]9100", "[::1:80",
					   "::1:80", "127.0.0.1:9x", "1.2.3:80", "127.0.0.1:123456" };
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160], name[200];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(name, sizeof(name), "--listen %s is accepted", good[i]);
		ASSERT_EQ(cli_parse_listen(good[i], &ss, &len, why, sizeof(why)), 0, name);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "--listen %s is refused", bad[i]);
		ASSERT_EQ(cli_parse_listen(bad[i], &ss, &len, why, sizeof(why)), -1, name);
	}
	/* A host name is resolved: localhost is 127.0.0.1 or ::1, and keeps its port. */
	ASSERT_EQ(cli_parse_listen("localhost:9100", &ss, &len, why, sizeof(why)), 0,
		  "--listen localhost:9100 is accepted (resolved)");
	ASSERT_EQ(ss.ss_family == AF_INET ?
		  ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
		  ((struct sockaddr_in *)&ss)->sin_port == htons(9100) :
		  IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr) &&
		  ((struct sockaddr_in6 *)&ss)->sin6_port == htons(9100), 1,
		  "localhost:9100 is a loopback address, port 9100");
	ASSERT_EQ(cli_parse_listen("no-such-host.invalid:9100", &ss, &len, why, sizeof(why)), -1,
		  "--listen of a name that does not resolve is refused");
	ASSERT_STRSTR(why, "cannot resolve 'no-such-host.invalid': ", "and says it cannot resolve it");
	cli_parse_listen("[::1]9100", &ss, &len, why, sizeof(why));
	ASSERT_STREQ(why, "'[::1]9100' is not ADDR:PORT (an IPv4 address, [IPv6] or a host name, "
		     "then :PORT)", "a bad IPv6 form: named as given");
	cli_parse_listen("[::g]:80", &ss, &len, why, sizeof(why));
	ASSERT_STREQ(why, "'[::g]:80' is not ADDR:PORT (an IPv4 address, [IPv6] or a host name, "
		     "then :PORT)", "a bad IPv6 address: named as given");
	cli_parse_listen("127.0.0.1:65536", &ss, &len, why, sizeof(why));
	ASSERT_STREQ(why, "port '65536' is not a number from 0 to 65535", "a port out of range: says so");
}

static void test_statuses(void)
{
	static const char oversize_head[] = "GET /metrics HTTP/1.1\r\nX-Pad: ";
	char *r, big[9000];

	r = get("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	ASSERT_STREQ(r, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
		     "Content-Length: 97\r\nConnection: close\r\n\r\n"
		     "# HELP bareatom_test_value A test gauge.\n# TYPE bareatom_test_value gauge\n"
		     "bareatom_test_value 42\n", "GET /metrics: 200, 0.0.4 text, exact response");
	free(r);
	r = get("GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n");
	ASSERT_TRUE(strstr(r, "\r\nContent-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"),
		    "Prometheus' Accept header: OpenMetrics 1.0.0 content type");
	ASSERT_STREQ(body_of(r), "# HELP bareatom_test_value A test gauge.\n# TYPE bareatom_test_value gauge\n"
		     "bareatom_test_value 42\n# EOF\n", "and an OpenMetrics body ending in # EOF");
	free(r);
	r = get("GET /metrics HTTP/1.0\r\naccept: text/plain\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17) &&
		    strstr(r, "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
		    "HTTP/1.0 with Accept: text/plain: 0.0.4");
	free(r);
	r = get("HEAD /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17) && strstr(r, "Content-Length: 97\r\n") &&
		    !*body_of(r), "HEAD: 200, the length, no body");
	free(r);
	r = get("GET /metrics?name[]=x HTTP/1.1\n\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "a query string and bare LF line ends: 200");
	free(r);
	r = get("GET / HTTP/1.1\r\n\r\n");
	ASSERT_STREQ(r, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
		     "Content-Length: 39\r\nConnection: close\r\n\r\n404 not found: metrics are at /metrics\n",
		     "GET /: 404, exact response");
	free(r);
	r = get("GET /metricsx HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 404 ", 13), "GET /metricsx: 404");
	free(r);
	r = get("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 405 Method Not Allowed\r\n", 33) && strstr(r, "\r\nAllow: GET, HEAD\r\n"),
		    "POST: 405 with Allow: GET, HEAD");
	free(r);
	r = get("garbage\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26), "a request line without spaces: 400");
	free(r);
	r = get("GET  /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "two spaces after the method: 400");
	free(r);
	r = get("GET metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "a target not starting with /: 400");
	free(r);
	r = get("GET /metrics HTTP/1.1\r\nNoColonHere\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "a header line without a colon: 400");
	free(r);
	r = get("GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "a header name with a space: 400");
	free(r);
	r = exchange("GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n", 33);
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "a NUL byte in a header: 400");
	free(r);
	r = get("GET /metrics HTTP/2.0\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 505 ", 13), "HTTP/2.0: 505");
	free(r);
	r = get("GET /metrics FTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 400 ", 13), "not HTTP: 400");
	free(r);
	memcpy(big, oversize_head, sizeof(oversize_head) - 1);
	memset(big + sizeof(oversize_head) - 1, 'a', sizeof(big) - sizeof(oversize_head) + 1);
	r = exchange(big, sizeof(big));
	ASSERT_STREQ(r, "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; "
		     "charset=utf-8\r\nContent-Length: 37\r\nConnection: close\r\n\r\n"
		     "431 the request is larger than 8 KiB\n",
		     "9000 bytes without an end: 431, and the client reads it whole");
	free(r);
	/* Exactly HTTP_REQ_MAX bytes with the blank line at the end still fits. */
	memset(big, 'a', sizeof(big));
	memcpy(big, oversize_head, sizeof(oversize_head) - 1);
	memcpy(big + HTTP_REQ_MAX - 4, "\r\n\r\n", 4);
	r = exchange(big, HTTP_REQ_MAX);
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "a request of exactly 8 KiB: 200");
	free(r);
}

/* A request in three pieces, with server calls in between. */
static void test_pieces(void)
{
	static const char *const parts[] = { "GE", "T /metrics HTTP/1.1\r\nAcc", "ept: x\r\n\r\n" };
	struct reply r = { .buf = strdup("") };
	int fd = connect_to(h.bound);

	for (int i = 0; i < 3; i++) {
		send(fd, parts[i], strlen(parts[i]), MSG_NOSIGNAL);
		usleep(20000);
		http_serve_ready(&h);
	}
	drive(&fd, &r, 1);
	ASSERT_TRUE(!strncmp(r.buf, "HTTP/1.1 200 OK\r\n", 17), "a request in three pieces: 200");
	close(fd);
	free(r.buf);
}

/*
 * Clients that send nothing, or half a request, get 408 at the head's deadline; the one
 * connected after them is served meanwhile.
 */
static void test_slow_client(void)
{
	struct reply r[3] = { { .buf = strdup("") }, { .buf = strdup("") }, { .buf = strdup("") } };
	int fds[3];
	uint64_t dropped = h.dropped;

	h.head_timeout = 0.3;
	fds[0] = connect_to(h.bound);
	fds[1] = connect_to(h.bound);
	send(fds[1], "GET /met", 8, MSG_NOSIGNAL);	/* and stalls */
	fds[2] = connect_to(h.bound);
	send(fds[2], "GET /metrics HTTP/1.1\r\n\r\n", 25, MSG_NOSIGNAL);
	drive(fds, r, 3);
	ASSERT_STREQ(r[0].buf, "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		     "a silent client gets 408 at its deadline");
	ASSERT_TRUE(!strncmp(r[1].buf, "HTTP/1.1 408 ", 13), "a stalled partial request gets 408");
	ASSERT_TRUE(!strncmp(r[2].buf, "HTTP/1.1 200 OK\r\n", 17), "and the next client is served");
	ASSERT_EQ_U64(h.dropped - dropped, 2, "two clients dropped");
	for (int i = 0; i < 3; i++) {
		close(fds[i]);
		free(r[i].buf);
	}
	h.head_timeout = HTTP_HEAD_TIMEOUT;
}

/* A client that leaves in the middle of its request does not stop the server. */
static void test_gone_client(void)
{
	int fd = connect_to(h.bound);
	char *r;

	send(fd, "GET /metrics HT", 15, MSG_NOSIGNAL);
	http_serve_ready(&h);
	close(fd);
	r = get("GET /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "after a client left mid-request, the next is served");
	free(r);
}

static void test_big_and_bounded(void)
{
	char *r, want[64];
	size_t max = h.body_max;

	samples = 100000;	/* 2.3 MB: many rounds of EAGAIN on the way */
	r = get("GET /metrics HTTP/1.1\r\n\r\n");
	snprintf(want, sizeof(want), "Content-Length: %d\r\n", 74 + 23 * samples);
	ASSERT_TRUE(strstr(r, want), "a 2.3 MB exposition: its length announced");
	ASSERT_EQ(strlen(body_of(r)), 74 + 23 * samples, "and all of it received");
	free(r);
	h.body_max = 100000;
	r = get("GET /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 500 ", 13) && strstr(r, "larger than its bound"),
		    "an exposition past its bound: 500, said why");
	free(r);
	h.body_max = max;
	samples = 1;
}

/* A connection that sends nothing; connect() does not wait for the server to accept it. */
static int connect_idle(const char *addr, int rcvbuf)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];
	int fd;

	if (cli_parse_listen(addr, &ss, &len, why, sizeof(why)))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* A small receive buffer (before connect: it sets the window) makes a slow reader. */
	if (fd >= 0 && rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Run the server's loop for @secs, or until no client is left when @secs is 0 (at most 5 s). */
static void run_server(double secs)
{
	double end = clock_now() + (secs ? secs : 5);

	while (clock_now() < end && (secs || h.nclients)) {
		struct pollfd p = { .fd = http_serve_fd(&h), .events = POLLIN };

		poll(&p, 1, 5);
		http_serve_ready(&h);
	}
}

/* A scrape while other clients hold connections: its seconds, its response in @r. */
static double timed_scrape(struct reply *r)
{
	double t0 = clock_now();
	int fd = connect_to(h.bound);

	*r = (struct reply){ .buf = strdup("") };
	if (fd < 0 || send(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25, MSG_NOSIGNAL) != 25)
		return 1e9;
	drive(&fd, r, 1);
	close(fd);
	return clock_now() - t0;
}

/* Everything @fd has to read now: bytes into @r, eof when the server closed or reset it. */
static void read_now(int fd, struct reply *r)
{
	char buf[65536];
	ssize_t got;

	while ((got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		r->buf = realloc(r->buf, r->len + got + 1);
		memcpy(r->buf + r->len, buf, got);
		r->len += got;
		r->buf[r->len] = '\0';
	}
	if (got == 0 || (got < 0 && errno != EAGAIN))
		r->eof = true;
}

static const char timeout408[] = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/*
 * 20 connections that send nothing, opened while the server runs: the pool holds the
 * newest HTTP_CLIENTS, each newcomer taking the oldest idle one's slot (408), and a scrape
 * is answered at once instead of after the idle clients' deadlines.
 */
static void test_idle_pool(void)
{
	struct reply idle[20] = {}, r;
	uint64_t evicted = h.evicted, r4 = h.responses[4];
	int fds[20], cut = 0, quiet = 0;
	double took;

	for (int i = 0; i < 20; i++) {
		fds[i] = connect_idle(h.bound, 0);
		idle[i].buf = strdup("");
		run_server(0.002);	/* the tool's loop runs meanwhile */
	}
	took = timed_scrape(&r);
	printf("# with 20 idle connections, the scrape took %.4f s\n", took);
	ASSERT_TRUE(!strncmp(r.buf, "HTTP/1.1 200 OK\r\n", 17) && took < SCRAPE_BOUND,
		    "with 20 idle connections open, a scrape is answered within 1 s");
	ASSERT_EQ_U64(h.evicted - evicted, 20 + 1 - HTTP_CLIENTS,
		      "each connection past the pool's 8 took the oldest idle client's slot");
	ASSERT_EQ_U64(h.responses[4] - r4, 20 + 1 - HTTP_CLIENTS, "and each of those got a 408");
	for (int i = 0; i < 20; i++) {
		read_now(fds[i], &idle[i]);
		if (i < 20 + 1 - HTTP_CLIENTS)
			cut += idle[i].eof && !strcmp(idle[i].buf, timeout408);
		else
			quiet += !idle[i].eof && !idle[i].len;
	}
	ASSERT_EQ(cut, 20 + 1 - HTTP_CLIENTS, "the oldest 13: a 408, then closed");
	ASSERT_EQ(quiet, HTTP_CLIENTS - 1, "the newest 7: still open, nothing sent");
	for (int i = 0; i < 20; i++) {
		close(fds[i]);
		free(idle[i].buf);
	}
	free(r.buf);
	run_server(0);
	ASSERT_EQ(h.nclients, 0, "every slot free once the clients closed");
}

/* The slot of the client in @state accepted last, or NULL. */
static struct http_client *newest(enum http_client_state state)
{
	struct http_client *c = NULL;

	for (int i = 0; i < HTTP_CLIENTS; i++)
		if (h.c[i].state == state && (!c || h.c[i].seq > c->seq))
			c = &h.c[i];
	return c;
}

/*
 * A client that asks for 4.6 MB and reads none of it (its window is 4 KiB): a scrape is
 * answered meanwhile, and the slow reader, past the head's deadline now, still gets all of
 * its response when it reads: that deadline is for the request only.
 */
static void test_slow_reader(void)
{
	struct reply slow = { .buf = strdup("") }, r;
	struct http_client *c;
	char want[64];
	double took;
	int fd;

	samples = 200000;
	h.head_timeout = 0.2;
	fd = connect_idle(h.bound, 4096);
	run_server(0.05);
	send(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25, MSG_NOSIGNAL);
	run_server(0.1);
	c = newest(HTTP_WRITING);
	ASSERT_TRUE(c && c->sent < c->head_len + c->body_len,
		    "a slow reader of 4.6 MB: its response waits for room in its socket");
	samples = 1;
	took = timed_scrape(&r);
	printf("# with a slow reader, the scrape took %.4f s\n", took);
	ASSERT_TRUE(!strncmp(r.buf, "HTTP/1.1 200 OK\r\n", 17) && took < SCRAPE_BOUND,
		    "a client that reads its response slowly does not hold a scrape");
	free(r.buf);
	usleep(300000);
	drive(&fd, &slow, 1);
	snprintf(want, sizeof(want), "Content-Length: %d\r\n", 74 + 23 * 200000);
	ASSERT_TRUE(strstr(slow.buf, want) && strlen(body_of(slow.buf)) == 74 + 23 * 200000,
		    "the slow reader gets all of it, past the head's deadline");
	close(fd);
	free(slow.buf);
	h.head_timeout = HTTP_HEAD_TIMEOUT;
	run_server(0);
}

/*
 * Every slot a client that asked for 4.6 MB and reads none of it: a scrape takes the oldest
 * one's slot (its response cut), and the others still get theirs. A client that reads
 * nothing until the exchange's deadline is dropped there, and its memory goes with it.
 */
static void test_stalled_writers(void)
{
	struct reply rs[HTTP_CLIENTS] = {}, r;
	uint64_t evicted = h.evicted, dropped = h.dropped;
	int fds[HTTP_CLIENTS], whole = 0;
	double took;

	samples = 200000;
	for (int i = 0; i < HTTP_CLIENTS; i++) {
		fds[i] = connect_idle(h.bound, 4096);
		rs[i].buf = strdup("");
		run_server(0.02);
		send(fds[i], "GET /metrics HTTP/1.1\r\n\r\n", 25, MSG_NOSIGNAL);
		run_server(0.02);
	}
	ASSERT_EQ(h.nclients, HTTP_CLIENTS, "8 slow readers fill the pool");
	samples = 1;
	took = timed_scrape(&r);
	printf("# with the pool full of slow readers, the scrape took %.4f s\n", took);
	ASSERT_TRUE(!strncmp(r.buf, "HTTP/1.1 200 OK\r\n", 17) && took < SCRAPE_BOUND,
		    "with every slot a slow reader, a scrape is still answered within 1 s");
	ASSERT_EQ_U64(h.evicted - evicted, 1, "one slow reader made room");
	free(r.buf);
	drive(fds, rs, HTTP_CLIENTS);
	for (int i = 1; i < HTTP_CLIENTS; i++)
		whole += strlen(body_of(rs[i].buf)) == 74 + 23 * 200000;
	ASSERT_TRUE(strlen(body_of(rs[0].buf)) < 74 + 23 * 200000, "the oldest's response was cut");
	ASSERT_EQ(whole, HTTP_CLIENTS - 1, "the other 7 read theirs whole");
	for (int i = 0; i < HTTP_CLIENTS; i++) {
		close(fds[i]);
		free(rs[i].buf);
	}
	run_server(0);

	h.timeout = 0.3;
	samples = 200000;
	fds[0] = connect_idle(h.bound, 4096);
	run_server(0.02);
	send(fds[0], "GET /metrics HTTP/1.1\r\n\r\n", 25, MSG_NOSIGNAL);
	run_server(0.02);
	ASSERT_TRUE(newest(HTTP_WRITING) && http_serve_deadline(&h) <= newest(HTTP_WRITING)->accepted + 0.3,
		    "http_serve_deadline(): the writer's deadline");
	run_server(0.4);
	ASSERT_TRUE(h.dropped - dropped == 1 && h.nclients == 0,
		    "a client reading nothing is dropped at the exchange's deadline");
	close(fds[0]);
	h.timeout = HTTP_CLIENT_TIMEOUT;
	samples = 1;
}

static void test_ipv6(void)
{
	struct http_serve h4 = h;
	char *r;

	if (http_serve_open(&h, "[::1]:0", render, NULL)) {
		TEST_SKIP("no IPv6 loopback here: %s", h.error);
		h = h4;
		return;
	}
	ASSERT_TRUE(!strncmp(h.bound, "[::1]:", 6) && strcmp(h.bound, "[::1]:0"), "[::1]:0 binds a real port");
	r = get("GET /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "served over IPv6");
	free(r);
	http_serve_close(&h);
	h = h4;
}

static void test_textfile(void)
{
	char dir[] = "/tmp/http-serve.XXXXXX", path[64], buf[64] = "";
	struct dirent *e;
	struct stat st;
	int fd, n = 0;
	DIR *d;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/bareatom.prom", dir);
	ASSERT_EQ(metrics_write_textfile(path, "first\n", 6), 0, "textfile: written");
	ASSERT_EQ(metrics_write_textfile(path, "second\n", 7), 0, "textfile: rewritten");
	fd = open(path, O_RDONLY);
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	ASSERT_STREQ(buf, "second\n", "textfile: holds the last text");
	stat(path, &st);
	ASSERT_EQ(st.st_mode & 0777, 0644, "textfile: mode 0644");
	d = opendir(dir);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	closedir(d);
	ASSERT_EQ(n, 1, "textfile: no temporary file left behind");
	snprintf(path, sizeof(path), "%s/missing/bareatom.prom", dir);
	ASSERT_EQ(metrics_write_textfile(path, "x", 1), -ENOENT, "textfile in a missing directory: -ENOENT");
	snprintf(path, sizeof(path), "%s/bareatom.prom", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	char *r;

	test_parse();
	ASSERT_EQ(http_serve_open(&h, "127.0.0.1:0", render, NULL), 0, "listen on 127.0.0.1:0");
	ASSERT_TRUE(!strncmp(h.bound, "127.0.0.1:", 10) && strcmp(h.bound, "127.0.0.1:0"),
		    "port 0 resolved to the bound port");
	http_serve_ready(&h);
	ASSERT_EQ(h.nclients, 0, "nothing pending: http_serve_ready returns at once");
	test_statuses();
	test_pieces();
	test_slow_client();
	test_gone_client();
	test_big_and_bounded();
	ASSERT_EQ_U64(h.responses[4], 13, "4xx responses counted (408s included)");
	ASSERT_EQ_U64(h.responses[5], 2, "5xx responses counted");
	r = get("GET /metrics HTTP/1.1\r\n\r\n");
	ASSERT_TRUE(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "still serving after all of that");
	free(r);
	test_idle_pool();
	test_slow_reader();
	test_stalled_writers();
	test_ipv6();
	ASSERT_EQ(http_serve_open(&(struct http_serve){}, h.bound, render, NULL), -EADDRINUSE,
		  "a port in use: -EADDRINUSE");
	http_serve_close(&h);
	test_textfile();
	return test_done();
}
