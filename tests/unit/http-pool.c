// SPDX-License-Identifier: GPL-2.0
/*
 * http-pool: the metrics HTTP server's pool of clients (src/http_serve.c) over loopback:
 * idle connections, slow readers and stalled writers never keep a scrape waiting, and each
 * is dropped or evicted as its deadline says (tests/unit/http_client.h drives the server).
 * No kernel, no BPF: host-safe.
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include "tests/unit/http_client.h"
#include "src/clock.h"

/*
 * The bound on a scrape's time while other clients hold connections: idle ones, slow
 * readers, stalled writers. It tests a mechanism, not speed: a server that makes the scrape
 * wait for any other client's deadline (the head's, HTTP_HEAD_TIMEOUT = 2 s, or the
 * exchange's) takes at least that long, while one that serves clients side by side answers
 * in milliseconds even on a loaded 2-core host, so 1 s tells the two apart with room to spare.
 */
#define SCRAPE_BOUND 1.0
/* A connection that sends nothing; connect() does not wait for the server to accept it. */
static int connect_idle(const char *addr, int rcvbuf)
{
	return connect_with(addr, rcvbuf, false);
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

int main(void)
{
	ASSERT_EQ(http_serve_open(&h, "127.0.0.1:0", render, NULL), 0, "listen on 127.0.0.1:0");
	test_idle_pool();
	test_slow_reader();
	test_stalled_writers();
	http_serve_close(&h);
	return test_done();
}
