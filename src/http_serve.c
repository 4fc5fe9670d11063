// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics HTTP server of http_serve.h. A fixed pool of HTTP_CLIENTS client states, all in
 * one epoll set with the listening socket, keeps the memory bounded (a request buffer of
 * HTTP_REQ_MAX bytes per slot; an exposition's buffer, bounded too, only while its response is
 * being written) and lets the caller's loop watch one descriptor. Clients are served side by
 * side: every step is non-blocking and a large response goes out a slice per call, so no
 * client waits for another. The listening socket stays in the set, so a connection never waits
 * behind a busy client; when every slot is taken, the oldest client without a request (idle,
 * or still sending it) makes room. A scraper sends its request as soon as it connects, so only
 * a connection kept idle loses its slot this way, and the request head has a short deadline
 * besides.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "src/http_serve.h"
#include "src/cli.h"
#include "src/clock.h"

/* epoll data: a slot's index, or this for the listening socket. */
#define EP_LISTEN HTTP_CLIENTS

static void format_bound(struct http_serve *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];

	if (getsockname(h->lfd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(h->bound, sizeof(h->bound), "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(h->bound, sizeof(h->bound), "%s:%u", host, ntohs(a->sin_port));
	}
}

static void arm(struct http_serve *h, struct http_client *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)(c - h->c) };

	epoll_ctl(h->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

int http_serve_open(struct http_serve *h, const char *addr, http_render_fn render, void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EP_LISTEN };
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, err;

	memset(h, 0, sizeof(*h));
	h->lfd = h->epfd = -1;
	for (int i = 0; i < HTTP_CLIENTS; i++)
		h->c[i].fd = -1;
	h->head_timeout = HTTP_HEAD_TIMEOUT;
	h->timeout = HTTP_CLIENT_TIMEOUT;
	h->body_max = HTTP_BODY_MAX;
	h->render = render;
	h->arg = arg;
	if (cli_parse_listen(addr, &ss, &len, h->error, sizeof(h->error)))
		return -EINVAL;
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0)
		goto fail;
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A backlog for bursts between two calls; the pool takes them at the next. */
	if (bind(h->lfd, (struct sockaddr *)&ss, len) || listen(h->lfd, 64))
		goto fail;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0 || epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->lfd, &ev))
		goto fail;
	format_bound(h);
	return 0;
fail:
	err = -errno;
	snprintf(h->error, sizeof(h->error), "cannot listen on %s: %s", addr, strerror(errno));
	http_serve_close(h);
	return err;
}

static void drop_client(struct http_serve *h, struct http_client *c)
{
	if (c->state == HTTP_FREE)
		return;
	epoll_ctl(h->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	metrics_free(&c->m);
	c->fd = -1;
	c->state = HTTP_FREE;
	h->nclients--;
}

void http_serve_close(struct http_serve *h)
{
	for (int i = 0; i < HTTP_CLIENTS; i++)
		drop_client(h, &h->c[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->epfd >= 0)
		close(h->epfd);
	h->lfd = h->epfd = -1;
}

double http_serve_deadline(const struct http_serve *h)
{
	double dl = 0;

	for (int i = 0; i < HTTP_CLIENTS; i++)
		if (h->c[i].state != HTTP_FREE && (!dl || h->c[i].deadline < dl))
			dl = h->c[i].deadline;
	return dl;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

/* Queue the response: @body of @len bytes (sent unless @head_only) with @type. */
static void respond(struct http_serve *h, struct http_client *c, int status, const char *type,
		    const char *body, size_t len, bool head_only)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n", status, reason(status), type, len,
			 status == 405 ? "Allow: GET, HEAD\r\n" : "");

	c->head_len = n < (int)sizeof(c->head) ? (size_t)n : sizeof(c->head) - 1;
	c->body = body;
	c->body_len = head_only ? 0 : len;
	c->sent = 0;
	h->responses[status / 100]++;
	c->state = HTTP_WRITING;
	c->deadline = c->accepted + h->timeout;
	arm(h, c, EPOLLOUT);
}

static void respond_error(struct http_serve *h, struct http_client *c, int status,
			  const char *text)
{
	respond(h, c, status, "text/plain; charset=utf-8", text, strlen(text), false);
}

/* RFC 9110 token characters, for the method and header names. */
static bool is_token(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("!#$%&'*+-.^_`|~", s[i])))
			return false;
	return true;
}

/* The next line of the head at *@p (up to @end), without its CRLF or LF; NULL at the end. */
static char *next_line(char **p, char *end)
{
	char *line = *p, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', end - line);
	if (!nl)
		nl = end;
	*p = nl + 1;
	if (nl > line && nl[-1] == '\r')
		nl--;
	*nl = '\0';
	return line;
}

/*
 * Why the head in @req (@len bytes, its blank line excluded) is refused: a status and the
 * text to send, or 0 for a request of the metrics. *@fmt and *@head_only say how.
 */
static int check_request(char *req, size_t len, const char **text, enum metrics_format *fmt,
			 bool *head_only)
{
	char *p = req, *end = req + len, *line, *sp1, *sp2;

	*fmt = METRICS_PROMETHEUS;
	/* No NUL and no control bytes but CR, LF and tab anywhere in the head. */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = req[i];

		if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f) {
			*text = "400 bad request: control bytes in the request\n";
			return 400;
		}
	}
	line = next_line(&p, end);
	sp1 = line ? strchr(line, ' ') : NULL;
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp2 || strchr(sp2 + 1, ' ') || !is_token(line, sp1 - line) || sp1[1] != '/' ||
	    strncmp(sp2 + 1, "HTTP/", 5)) {
		*text = "400 bad request: want 'GET /metrics HTTP/1.1'\n";
		return 400;
	}
	*sp1 = *sp2 = '\0';
	if (strcmp(sp2 + 1, "HTTP/1.0") && strcmp(sp2 + 1, "HTTP/1.1")) {
		*text = "505 only HTTP/1.0 and HTTP/1.1 are served\n";
		return 505;
	}
	while ((line = next_line(&p, end))) {
		char *colon = strchr(line, ':');

		if (!colon || !is_token(line, colon - line)) {
			*text = "400 bad request: a header line is not 'Name: value'\n";
			return 400;
		}
		*colon = '\0';
		if (!strcasecmp(line, "accept") && strcasestr(colon + 1, "application/openmetrics-text"))
			*fmt = METRICS_OPENMETRICS;
	}
	*head_only = !strcmp(req, "HEAD");
	if (strcmp(req, "GET") && !*head_only) {
		*text = "405 method not allowed: only GET and HEAD\n";
		return 405;
	}
	if (strcmp(sp1 + 1, "/metrics") && strncmp(sp1 + 1, "/metrics?", 9)) {
		*text = "404 not found: metrics are at /metrics\n";
		return 404;
	}
	return 0;
}

static void handle_request(struct http_serve *h, struct http_client *c, size_t len)
{
	enum metrics_format fmt;
	bool head_only = false;
	const char *text;
	int status;

	h->requests++;
	status = check_request(c->req, len, &text, &fmt, &head_only);
	if (status) {
		respond_error(h, c, status, text);
		return;
	}
	/* The client's own buffer: another client may still be sending an earlier exposition. */
	metrics_init(&c->m, h->body_max);
	metrics_begin(&c->m, fmt);
	h->render(h->arg, &c->m);
	metrics_end(&c->m);
	if (c->m.err) {
		respond_error(h, c, 500, c->m.err == -E2BIG ?
			      "500 the exposition is larger than its bound\n" :
			      "500 the exposition could not be written\n");
		return;
	}
	respond(h, c, 200, metrics_content_type(fmt), c->m.buf, c->m.len, head_only);
}

/* The end of the head (its blank line) in the @len bytes read: the head's length, or -1. */
static ssize_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 1;
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return i + 1;
	}
	return -1;
}

static void read_request(struct http_serve *h, struct http_client *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->req + c->req_len, HTTP_REQ_MAX - c->req_len, 0), end;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {	/* gone, or reset, before the request ended */
			drop_client(h, c);
			return;
		}
		c->req_len += n;
		end = head_end(c->req, c->req_len);
		if (end >= 0) {
			handle_request(h, c, end);
			return;
		}
		if (c->req_len == HTTP_REQ_MAX) {
			respond_error(h, c, 431, "431 the request is larger than 8 KiB\n");
			return;
		}
	}
}

static void write_response(struct http_serve *h, struct http_client *c, double now)
{
	size_t slice = 0;

	while (c->sent < c->head_len + c->body_len) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t n;

		/* A slice per call: a large response to a fast reader does not hold the others. */
		if (slice >= HTTP_WRITE_SLICE)
			return;
		if (c->sent < c->head_len) {
			iov[0] = (struct iovec){ c->head + c->sent, c->head_len - c->sent };
			iov[1] = (struct iovec){ (void *)c->body, c->body_len };
			msg.msg_iovlen = 2;
		} else {
			iov[0] = (struct iovec){ (void *)(c->body + c->sent - c->head_len),
						 c->body_len - (c->sent - c->head_len) };
			msg.msg_iovlen = 1;
		}
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			drop_client(h, c);
			return;
		}
		c->sent += n;
		slice += n;
	}
	/*
	 * All written: end our side and read what the client may still send until it closes
	 * (within its deadline, and at least HTTP_DRAIN_MIN), so that unread input does not
	 * make close() reset the connection, which would discard the response before the
	 * client read it (a 431 is answered while the client is still sending). The
	 * exposition is not needed any more: its memory goes now.
	 */
	metrics_free(&c->m);
	c->body = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = HTTP_DRAINING;
	if (c->deadline < now + HTTP_DRAIN_MIN)
		c->deadline = now + HTTP_DRAIN_MIN;
	arm(h, c, EPOLLIN);
}

static void drain(struct http_serve *h, struct http_client *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		drop_client(h, c);	/* the client closed (0) or is gone */
		return;
	}
}

/* End a client before its response: 408 to one whose request never came. */
static void cut(struct http_serve *h, struct http_client *c)
{
	static const char timeout[] = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n"
				      "Connection: close\r\n\r\n";

	if (c->state == HTTP_READING) {
		send(c->fd, timeout, sizeof(timeout) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		h->responses[4]++;
	}
	drop_client(h, c);
}

static void step(struct http_serve *h, struct http_client *c, double now)
{
	if (c->state != HTTP_FREE && now >= c->deadline) {
		if (c->state != HTTP_DRAINING)
			h->dropped++;
		cut(h, c);
		return;
	}
	if (c->state == HTTP_READING)
		read_request(h, c);
	if (c->state == HTTP_WRITING)
		write_response(h, c, now);
	if (c->state == HTTP_DRAINING)
		drain(h, c);
}

/*
 * A slot for a new connection: a free one, or else the oldest client that has been
 * answered (draining), then the oldest that has not sent its request, then the oldest
 * still being answered: the newcomer always gets in, so no set of clients holds the pool.
 */
static struct http_client *free_slot(struct http_serve *h)
{
	static const enum http_client_state order[] = { HTTP_FREE, HTTP_DRAINING, HTTP_READING,
							HTTP_WRITING };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		struct http_client *oldest = NULL;

		for (int i = 0; i < HTTP_CLIENTS; i++) {
			struct http_client *c = &h->c[i];

			if (c->state == order[k] && (!oldest || c->seq < oldest->seq))
				oldest = c;
		}
		if (!oldest)
			continue;
		if (oldest->state != HTTP_FREE) {
			if (oldest->state != HTTP_DRAINING)
				h->evicted++;
			cut(h, oldest);
		}
		return oldest;
	}
	return NULL;	/* not reached: every slot is in one of the states */
}

static bool accept_client(struct http_serve *h, double now)
{
	int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };
	struct http_client *c;

	if (fd < 0)
		return false;
	c = free_slot(h);
	ev.data.u32 = (uint32_t)(c - h->c);
	if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		return true;	/* this one is lost; the next may fare better */
	}
	*c = (struct http_client){ .fd = fd, .state = HTTP_READING, .seq = ++h->accepts,
				   .accepted = now };
	c->deadline = now + (h->head_timeout < h->timeout ? h->head_timeout : h->timeout);
	h->nclients++;
	/* Its request is often there already. */
	step(h, c, now);
	return true;
}

void http_serve_ready(struct http_serve *h)
{
	struct epoll_event evs[HTTP_CLIENTS + 1];
	double now = clock_now();
	bool listen_ready = false;
	int n;

	if (h->lfd < 0)
		return;
	/* Level-triggered: what is not done now is reported again on the next poll. */
	n = epoll_wait(h->epfd, evs, HTTP_CLIENTS + 1, 0);
	for (int i = 0; i < n; i++) {
		if (evs[i].data.u32 == EP_LISTEN)
			listen_ready = true;
		else if (evs[i].data.u32 < HTTP_CLIENTS)
			step(h, &h->c[evs[i].data.u32], now);
	}
	/* Deadlines, whether or not the client stirred. */
	for (int i = 0; i < HTTP_CLIENTS; i++)
		if (h->c[i].state != HTTP_FREE && now >= h->c[i].deadline)
			step(h, &h->c[i], now);
	/* After the clients, so that their events above cannot be for a slot reused since. */
	for (int i = 0; listen_ready && i < HTTP_CLIENTS; i++)
		if (!accept_client(h, now))
			break;
}
