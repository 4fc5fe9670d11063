// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics HTTP server of http_serve.h, and the textfile writer. One client at a time
 * keeps it small and its memory fixed: the request buffer is HTTP_REQ_MAX bytes, the
 * response the exposition's bounded buffer. While a client is served the listening
 * socket is left out of the epoll set, so the next connection waits in the backlog
 * instead of making the caller's loop spin; the deadline bounds how long that can be.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "http_serve.h"
#include "util.h"

enum { EP_LISTEN, EP_CLIENT };

int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
		      char *why, size_t whylen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *arg = s, *port, *end;
	unsigned long p = 0;
	size_t hlen;
	bool v6 = s[0] == '[';

	if (v6) {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			goto bad;
		hlen = end - s - 1;
		s++;
		port = end + 2;
	} else {
		port = strrchr(s, ':');
		if (!port)
			goto bad;
		hlen = port - s;
		port++;
	}
	if (hlen >= sizeof(host))
		goto bad;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (!*port || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port) ||
	    (p = strtoul(port, NULL, 10)) > 65535) {
		snprintf(why, whylen, "port '%s' is not a number from 0 to 65535", port);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(p);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(p);
		if (*host && inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	}
	return 0;
bad:
	snprintf(why, whylen, "'%s' is not ADDR:PORT (an IPv4 address, or [IPv6], then :PORT; "
		 "names are not resolved)", arg);
	return -1;
}

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

static void arm(struct http_serve *h, int fd, int id, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = id };

	epoll_ctl(h->epfd, EPOLL_CTL_MOD, fd, &ev);
}

int http_serve_open(struct http_serve *h, const char *addr, http_render_fn render, void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EP_LISTEN };
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, err;

	memset(h, 0, sizeof(*h));
	h->lfd = h->cfd = h->epfd = -1;
	h->timeout = HTTP_CLIENT_TIMEOUT;
	h->render = render;
	h->arg = arg;
	metrics_init(&h->m, HTTP_BODY_MAX);
	if (http_parse_listen(addr, &ss, &len, h->error, sizeof(h->error)))
		return -EINVAL;
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0)
		goto fail;
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->lfd, (struct sockaddr *)&ss, len) || listen(h->lfd, 16))
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

static void drop_client(struct http_serve *h)
{
	if (h->cfd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->cfd, NULL);
		close(h->cfd);
	}
	h->cfd = -1;
	h->state = HTTP_IDLE;
	arm(h, h->lfd, EP_LISTEN, EPOLLIN);
}

void http_serve_close(struct http_serve *h)
{
	if (h->cfd >= 0)
		close(h->cfd);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->epfd >= 0)
		close(h->epfd);
	h->cfd = h->lfd = h->epfd = -1;
	metrics_free(&h->m);
}

double http_serve_deadline(const struct http_serve *h)
{
	return h->state == HTTP_IDLE ? 0 : h->deadline;
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
static void respond(struct http_serve *h, int status, const char *type, const char *body,
		    size_t len, bool head_only)
{
	int n = snprintf(h->head, sizeof(h->head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n", status, reason(status), type, len,
			 status == 405 ? "Allow: GET, HEAD\r\n" : "");

	h->head_len = n < (int)sizeof(h->head) ? (size_t)n : sizeof(h->head) - 1;
	h->body = body;
	h->body_len = head_only ? 0 : len;
	h->sent = 0;
	h->responses[status / 100]++;
	h->state = HTTP_WRITING;
	arm(h, h->cfd, EP_CLIENT, EPOLLOUT);
}

static void respond_error(struct http_serve *h, int status, const char *text)
{
	respond(h, status, "text/plain; charset=utf-8", text, strlen(text), false);
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
 * Why the head in h->req (@len bytes, its blank line excluded) is refused: a status and
 * the text to send, or 0 for a request of the metrics. *@fmt and *@head_only say how.
 */
static int check_request(struct http_serve *h, size_t len, const char **text,
			 enum metrics_format *fmt, bool *head_only)
{
	char *p = h->req, *end = h->req + len, *line, *sp1, *sp2;

	*fmt = METRICS_PROMETHEUS;
	/* No NUL and no control bytes but CR, LF and tab anywhere in the head. */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = h->req[i];

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
	*head_only = !strcmp(h->req, "HEAD");
	if (strcmp(h->req, "GET") && !*head_only) {
		*text = "405 method not allowed: only GET and HEAD\n";
		return 405;
	}
	if (strcmp(sp1 + 1, "/metrics") && strncmp(sp1 + 1, "/metrics?", 9)) {
		*text = "404 not found: metrics are at /metrics\n";
		return 404;
	}
	return 0;
}

static void handle_request(struct http_serve *h, size_t len)
{
	enum metrics_format fmt;
	bool head_only = false;
	const char *text;
	int status;

	h->requests++;
	status = check_request(h, len, &text, &fmt, &head_only);
	if (status) {
		respond_error(h, status, text);
		return;
	}
	metrics_begin(&h->m, fmt);
	h->render(h->arg, &h->m);
	metrics_end(&h->m);
	if (h->m.err) {
		respond_error(h, 500, h->m.err == -E2BIG ? "500 the exposition is larger than its bound\n" :
			      "500 the exposition could not be written\n");
		return;
	}
	respond(h, 200, metrics_content_type(fmt), h->m.buf, h->m.len, head_only);
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

static void read_request(struct http_serve *h)
{
	for (;;) {
		ssize_t n = recv(h->cfd, h->req + h->req_len, HTTP_REQ_MAX - h->req_len, 0), end;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {	/* gone, or reset, before the request ended */
			drop_client(h);
			return;
		}
		h->req_len += n;
		end = head_end(h->req, h->req_len);
		if (end >= 0) {
			handle_request(h, end);
			return;
		}
		if (h->req_len == HTTP_REQ_MAX) {
			respond_error(h, 431, "431 the request is larger than 8 KiB\n");
			return;
		}
	}
}

static void write_response(struct http_serve *h, double now)
{
	while (h->sent < h->head_len + h->body_len) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t n;

		if (h->sent < h->head_len) {
			iov[0] = (struct iovec){ h->head + h->sent, h->head_len - h->sent };
			iov[1] = (struct iovec){ (void *)h->body, h->body_len };
			msg.msg_iovlen = 2;
		} else {
			iov[0] = (struct iovec){ (void *)(h->body + h->sent - h->head_len),
						 h->body_len - (h->sent - h->head_len) };
			msg.msg_iovlen = 1;
		}
		n = sendmsg(h->cfd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			drop_client(h);
			return;
		}
		h->sent += n;
	}
	/*
	 * All written: end our side and read what the client may still send until it closes
	 * (within its deadline, and at least HTTP_DRAIN_MIN), so that unread input does not
	 * make close() reset the connection, which would discard the response before the
	 * client read it (a 431 is answered while the client is still sending).
	 */
	shutdown(h->cfd, SHUT_WR);
	h->state = HTTP_DRAINING;
	if (h->deadline < now + HTTP_DRAIN_MIN)
		h->deadline = now + HTTP_DRAIN_MIN;
	arm(h, h->cfd, EP_CLIENT, EPOLLIN);
}

static void drain(struct http_serve *h)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(h->cfd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		drop_client(h);	/* the client closed (0) or is gone */
		return;
	}
}

static bool accept_client(struct http_serve *h, double now)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EP_CLIENT };
	int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return false;
	if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		return false;
	}
	h->cfd = fd;
	h->state = HTTP_READING;
	h->req_len = 0;
	h->deadline = now + h->timeout;
	/* Out of the set while this client is served: the next one waits in the backlog. */
	arm(h, h->lfd, EP_LISTEN, 0);
	return true;
}

static void step(struct http_serve *h, double now)
{
	if (now >= h->deadline) {
		if (h->state == HTTP_READING) {
			static const char timeout[] = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n"
						      "Connection: close\r\n\r\n";

			send(h->cfd, timeout, sizeof(timeout) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			h->responses[4]++;
		}
		if (h->state != HTTP_DRAINING)
			h->dropped++;
		drop_client(h);
		return;
	}
	if (h->state == HTTP_READING)
		read_request(h);
	if (h->state == HTTP_WRITING)
		write_response(h, now);
	if (h->state == HTTP_DRAINING)
		drain(h);
}

void http_serve_ready(struct http_serve *h)
{
	struct epoll_event evs[2];
	double now = util_now();

	if (h->lfd < 0)
		return;
	/* Level-triggered: nothing to take from the set, but keep it from reporting stale events. */
	epoll_wait(h->epfd, evs, 2, 0);
	/* A few clients per call at most, so a stream of them cannot hold the caller's loop. */
	for (int i = 0; i < 4; i++) {
		if (h->state == HTTP_IDLE && !accept_client(h, now))
			return;
		step(h, now);
		if (h->state != HTTP_IDLE)
			return;
	}
}

int metrics_write_textfile(const char *path, const char *buf, size_t len)
{
	char *copy = strdup(path), tmp[4096];
	const char *dir, *base;
	int fd = -1, dfd = -1, err = 0;
	size_t off = 0;

	if (!copy)
		return -ENOMEM;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	dir = dirname(copy);
	/* A dot name: node_exporter reads *.prom only, so it never sees the file half written. */
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%d", dir, base, (int)getpid()) >= (int)sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		off += n;
	}
	if (fsync(fd)) {
		err = -errno;
		goto out;
	}
	err = close(fd) ? -errno : 0;
	fd = -1;
	if (err)
		goto out;
	if (rename(tmp, path)) {
		err = -errno;
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		err = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (err)
		unlink(tmp);
	free(copy);
	return err;
}

const char *http_listen_option(const char *prog, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];

	if (http_parse_listen(arg, &ss, &len, why, sizeof(why)))
		util_usage_error(prog, "--listen: %s", why);
	return arg;
}

const char *http_textfile_option(const char *prog, const char *arg)
{
	if (!*arg)
		util_usage_error(prog, "--textfile: an empty path");
	return arg;
}
