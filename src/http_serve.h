/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, bounded HTTP/1.x server for `GET /metrics`, driven by the caller's loop: up to
 * HTTP_CLIENTS connections served at once, each with a deadline for its request head
 * (HTTP_HEAD_TIMEOUT) and one for its whole exchange (HTTP_CLIENT_TIMEOUT), requests of at
 * most HTTP_REQ_MAX bytes, responses rendered on demand into a bounded buffer per client,
 * `Connection: close` after each. It keeps accepting: a connection that finds the pool full
 * takes the slot of the oldest client that has not sent its request yet, so idle or slow
 * clients cannot keep a scrape out. Nothing here ever blocks: the caller polls
 * http_serve_fd() (one epoll fd standing for the listening socket and every client) and
 * calls http_serve_ready() when it is readable, and at least by http_serve_deadline().
 *
 *	struct http_serve h;
 *
 *	if (http_serve_open(&h, "127.0.0.1:9100", render, arg))	(render writes the families)
 *		...h.error says why...
 *	fprintf(stderr, "serving on http://%s/metrics\n", h.bound);
 *	...poll(http_serve_fd(&h)) in the loop; on readable or a tick: http_serve_ready(&h)...
 *	http_serve_close(&h);
 *
 * Answers: GET or HEAD /metrics (a query string allowed) 200, with OpenMetrics 1.0.0 when
 * the Accept header names application/openmetrics-text, else Prometheus text 0.0.4; other
 * paths 404; other methods 405; a malformed request 400; over HTTP_REQ_MAX 431; the head's
 * deadline passed, or its slot taken while it was idle, 408; an exposition past its bound 500.
 */
#ifndef __BAREATOM_HTTP_SERVE_H
#define __BAREATOM_HTTP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "src/metrics.h"

#define HTTP_REQ_MAX		8192		/* request line and headers */
#define HTTP_CLIENTS		8		/* connections served at once */
#define HTTP_HEAD_TIMEOUT	2.0		/* seconds from accept to the request's blank line */
#define HTTP_CLIENT_TIMEOUT	10.0		/* seconds from accept to the response sent */
#define HTTP_DRAIN_MIN		0.5		/* reading what a client still sends after it */
#define HTTP_BODY_MAX		(16 << 20)	/* the exposition's bound */
#define HTTP_WRITE_SLICE	(256 << 10)	/* bytes sent to one client per call: the others' turn */

/* Write the families of the exposition (the server begins and ends it). */
typedef void (*http_render_fn)(void *arg, struct metrics *m);

/* HTTP_FREE: the slot has no client. */
enum http_client_state { HTTP_FREE, HTTP_READING, HTTP_WRITING, HTTP_DRAINING };

struct http_client {
	int fd;
	enum http_client_state state;
	uint64_t seq;			/* accept order: the lowest is the oldest */
	double accepted, deadline;	/* CLOCK_MONOTONIC seconds; deadline: of the current state */
	char req[HTTP_REQ_MAX + 1];
	size_t req_len;
	char head[512];			/* the response's status line and headers */
	size_t head_len, sent;		/* sent: bytes of head + body written so far */
	const char *body;		/* m.buf for a 200, else a short static text */
	size_t body_len;
	struct metrics m;		/* this client's exposition, freed with the slot */
};

struct http_serve {
	int lfd, epfd;
	int nclients;			/* slots in use */
	uint64_t accepts;
	double head_timeout;		/* HTTP_HEAD_TIMEOUT unless changed after open */
	double timeout;			/* HTTP_CLIENT_TIMEOUT unless changed after open */
	size_t body_max;		/* HTTP_BODY_MAX unless changed after open */
	http_render_fn render;
	void *arg;
	char bound[64];			/* "127.0.0.1:41234", "[::1]:9100": port 0 resolved */
	char error[160];		/* why http_serve_open failed */
	uint64_t requests, responses[6];	/* by class: [2] 2xx, [4] 4xx, [5] 5xx */
	uint64_t dropped;		/* clients dropped at a deadline */
	uint64_t evicted;		/* clients dropped to make room for a new connection */
	struct http_client c[HTTP_CLIENTS];
};

/* Listen on @addr (cli_parse_listen's syntax, cli.h). Returns 0, or a negative errno with h->error. */
int http_serve_open(struct http_serve *h, const char *addr, http_render_fn render, void *arg);
void http_serve_close(struct http_serve *h);

static inline int http_serve_fd(const struct http_serve *h)
{
	return h->epfd;
}

/* When http_serve_ready() must run at the latest (CLOCK_MONOTONIC seconds), 0 for never. */
double http_serve_deadline(const struct http_serve *h);

/*
 * Accept, read, answer and drop as far as can be done without blocking, in bounded work
 * per call (HTTP_CLIENTS accepts, HTTP_WRITE_SLICE bytes per client): the epoll fd stays
 * readable while there is more.
 */
void http_serve_ready(struct http_serve *h);

#endif /* __BAREATOM_HTTP_SERVE_H */
