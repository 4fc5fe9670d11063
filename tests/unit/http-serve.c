// SPDX-License-Identifier: GPL-2.0
/*
 * http-serve: the metrics HTTP server (src/http_serve.c) over loopback sockets, driven the
 * way the tools drive it (tests/unit/http_client.h). Every status it can answer, content
 * negotiation, requests in pieces, a response larger than the socket buffers, silent
 * clients dropped at the head's deadline while others are served, IPv6; the textfile writer
 * (src/metrics_textfile.c) and --listen's parser (src/cli.c). The pool (idle connections,
 * slow readers, stalled writers) is tests/unit/http-pool.c. No kernel, no BPF: host-safe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>
#include "tests/unit/http_client.h"
#include "src/metrics_textfile.h"
#include "src/clock.h"

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
	test_ipv6();
	ASSERT_EQ(http_serve_open(&(struct http_serve){}, h.bound, render, NULL), -EADDRINUSE,
		  "a port in use: -EADDRINUSE");
	http_serve_close(&h);
	test_textfile();
	return test_done();
}
