// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's socket: one request per line, clients bounded per uid and in total, draws
 * rate-limited per uid, idle and unfinished lines timed out; one epoll set for the caller's
 * loop to poll. The bounds and why: cookie_serve.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <bpf/bpf.h>
#include "src/clock.h"
#include "bpf/cookie_abi.h"
#include "src/cookie_serve.h"

/* Refuse to remove anything at @path that is not a socket: --socket may be mistyped. */
int check_socket_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISSOCK(st.st_mode) ? 0 : -EEXIST;
}

static int listen_socket(struct cookie_server *s)
{
	const char *path = s->socket;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct group *g;
	mode_t old_mask;
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	err = check_socket_path(path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);	/* we hold the instance lock: a socket here is stale */
	/* Born 0600: nobody else can connect before the group and mode below are set. */
	old_mask = umask(0177);
	err = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 64) ? -errno : 0;
	umask(old_mask);
	if (err) {
		close(fd);
		return err;
	}
	g = getgrnam("bareatom");
	if (g && !chown(path, 0, g->gr_gid))
		chmod(path, 0660);
	if (!g)
		s->ops->log(LOG_WARNING, "no group 'bareatom': the socket is root-only");
	return fd;
}

int cookie_serve_open(struct cookie_server *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = MAX_CLIENTS };
	int err;

	for (int i = 0; i < MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	s->stats.nclients = 0;
	s->lfd = s->epfd = -1;
	err = listen_socket(s);
	if (err < 0)
		return err;
	s->lfd = err;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev)) {
		err = -errno;
		cookie_serve_close(s);
		return err;
	}
	s->stats.started = clock_now();
	return 0;
}

static void reply(struct cookie_client *c, const char *fmt, ...)
{
	char buf[1024];	/* STATS with 20-digit cookies of a high node fits */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* No output queue: a client that does not read its replies is dropped. */
	if (send(c->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
		shutdown(c->fd, SHUT_RDWR);
	}
}

static void reply_draw_error(struct cookie_server *s, struct cookie_client *c, int err)
{
	s->stats.errors++;
	if (err == -ENOLINK) {
		reply(c, "ERR no cookie range reserved in etcd (the claim is lost or etcd does not "
		      "answer); retry later");
		return;
	}
	reply(c, "ERR cannot save the high-water mark: %s", err == -EOVERFLOW ?
	      "the cookie space is exhausted" : strerror(-err));
}

/*
 * May @c draw @n cookies now? Root is not limited (cookie_serve.h). A refusal is answered
 * here, counted, and draws nothing.
 */
static bool rate_allows(struct cookie_server *s, struct cookie_client *c, __u64 n)
{
	double retry;

	if (c->uid == 0 || cookie_rate_take(&s->rate, c->uid, n, clock_now(), &retry))
		return true;
	s->stats.rate_limited++;
	s->stats.errors++;
	reply(c, "ERR rate limited: uid %u may draw %llu cookies/s (burst %llu); retry in %.1f s",
	      (unsigned int)c->uid, (unsigned long long)s->rate.rate,
	      (unsigned long long)s->rate.burst, retry < 0.1 ? 0.1 : retry);
	return false;
}

static void count_get(struct cookie_serve_stats *st, __u64 n)
{
	int k = n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);

	st->get_counts[k < GET_BUCKETS ? k : GET_BUCKETS - 1]++;
	st->get_requests++;
	st->get_sum += n;
	st->served += n;
}

static void serve_get(struct cookie_server *s, struct cookie_client *c, __u64 n)
{
	__u64 first;
	int err;

	if (!rate_allows(s, c, n))
		return;
	err = s->ops->draw(s->ops->arg, n, &first);
	if (err) {
		reply_draw_error(s, c, err);
		return;
	}
	count_get(&s->stats, n);
	reply(c, "OK %llu %llu", first, n);
}

static void serve_pid(struct cookie_server *s, struct cookie_client *c, int pid)
{
	struct cookie_task t;
	int pidfd = syscall(SYS_pidfd_open, pid, 0), err;

	if (pidfd < 0) {
		reply(c, errno == ESRCH ? "ERR no such process" : "ERR cannot open process: %s",
		      strerror(errno));
		return;
	}
	if (bpf_map_lookup_elem(s->task_fd, &pidfd, &t)) {
		/* Started before the BPF side was attached: give it one now (a draw like GET 1). */
		if (!rate_allows(s, c, 1)) {
			close(pidfd);
			return;
		}
		err = s->ops->draw(s->ops->arg, 1, &t.cookie);
		if (err) {
			reply_draw_error(s, c, err);
			close(pidfd);
			return;
		}
		if (bpf_map_update_elem(s->task_fd, &pidfd, &t, BPF_NOEXIST) &&
		    bpf_map_lookup_elem(s->task_fd, &pidfd, &t)) {
			reply(c, errno == ESRCH ? "ERR no such process" : "ERR cannot store the cookie: %s",
			      strerror(errno));
			close(pidfd);
			return;
		}
	}
	close(pidfd);
	reply(c, "OK %llu", t.cookie);
}

/* Keys are only ever added, at the end (cookie-gend(8) lists them). */
static void serve_stats(struct cookie_server *s, struct cookie_client *c)
{
	struct cookie_gend_snapshot g;
	const struct cookie_serve_stats *st = &s->stats;
	const char *state_error;
	char etcd[320] = "";

	s->ops->snapshot(s->ops->arg, &g);
	state_error = !g.state_err ? "none" : g.state_err == -EOVERFLOW ? "exhausted" :
		      strerrorname_np(-g.state_err);
	if (g.etcd)
		snprintf(etcd, sizeof(etcd), " etcd_claimed=%d etcd_claim_revision=%lld "
			 "etcd_reserved_left=%llu etcd_keepalive_failures=%llu etcd_txn_failures=%llu "
			 "etcd_without_claim=%.0f etcd_refused=%llu etcd_moves=%llu", g.etcd_claimed,
			 (long long)g.etcd_claim_rev, g.etcd_reserved_left, g.etcd_keepalive_failures,
			 g.etcd_txn_failures, g.etcd_without_claim, g.etcd_refused, g.etcd_moves);
	reply(c, "OK next=%llu limit=%llu highwater=%llu fork_cookies=%llu "
	      "tpgen_cookies=%llu denied=%llu batches=%llu events_lost=%llu requests=%llu"
	      " served=%llu errors=%llu clients=%d extensions=%llu"
	      " uptime=%ld batched=%d room_requests=%llu state_error=%s state_errors=%llu"
	      " refused_clients=%llu node=%u rate_limited=%llu rate_limit=%llu%s",
	      g.next, g.limit, COOKIE_NODE_BASE(g.node) + g.highwater, g.fork_cookies,
	      g.tpgen_cookies, g.denied, g.batches, g.events_lost, st->requests, st->served,
	      st->errors, st->nclients, g.extensions, (long)(clock_now() - st->started), g.batched,
	      g.room_requests, state_error ? state_error : "unknown", g.state_errors,
	      st->refused_clients, g.node, st->rate_limited, (unsigned long long)s->rate.rate, etcd);
}

static void handle_line(struct cookie_server *s, struct cookie_client *c, const char *line,
			size_t len)
{
	struct cookie_req req;
	const char *err;

	s->stats.requests++;
	c->last = clock_now();	/* only a whole request counts as activity, not a byte */
	if (cookie_parse_request(line, len, &req, &err)) {
		s->stats.errors++;
		reply(c, "ERR %s", err);
		return;
	}
	switch (req.kind) {
	case COOKIE_REQ_GET: serve_get(s, c, req.n); break;
	case COOKIE_REQ_PID: serve_pid(s, c, req.pid); break;
	case COOKIE_REQ_STATS: serve_stats(s, c); break;
	}
}

static void drop_client(struct cookie_server *s, struct cookie_client *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	s->stats.nclients--;
}

/*
 * Why a new connection from @uid cannot be served, or NULL. Bounded per uid, so one user's
 * idle or trickling connections cannot take every slot, and in total; the uids other than
 * root share all but ROOT_RESERVED slots, so root is served even when they hold every one
 * of theirs. Root has no per-uid cap (its reserve would be smaller than it otherwise).
 */
static const char *admission(struct cookie_server *s, uid_t uid, char *buf, size_t len)
{
	int same = 0, others = 0;

	if (uid == 0)
		return s->stats.nclients >= MAX_CLIENTS ? "ERR too many clients\n" : NULL;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (s->clients[i].fd < 0 || s->clients[i].uid == 0)
			continue;
		others++;
		same += s->clients[i].uid == uid;
	}
	if (same >= MAX_PER_UID) {
		snprintf(buf, len, "ERR too many connections from uid %u (at most %d)\n",
			 (unsigned int)uid, MAX_PER_UID);
		return buf;
	}
	/* Root may hold shared slots too: what is left must still fit. */
	if (others >= MAX_CLIENTS - ROOT_RESERVED || s->stats.nclients >= MAX_CLIENTS)
		return "ERR too many clients\n";
	return NULL;
}

static void accept_clients(struct cookie_server *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN };
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		const char *refusal;
		char msg[96];
		int i;

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen)) {
			close(fd);
			continue;
		}
		refusal = admission(s, cred.uid, msg, sizeof(msg));
		if (refusal) {
			s->stats.refused_clients++;
			send(fd, refusal, strlen(refusal), MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		for (i = 0; s->clients[i].fd >= 0; i++)
			;	/* admission() left a free slot */
		s->clients[i] = (struct cookie_client){ .fd = fd, .uid = cred.uid, .last = clock_now() };
		ev.data.u32 = i;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			s->clients[i].fd = -1;
			continue;
		}
		s->stats.nclients++;
		s->stats.clients_total++;
	}
}

static void read_client(struct cookie_server *s, struct cookie_client *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
	const char *line;
	size_t len, off = 0;
	int r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop_client(s, c);
		return;
	}
	while ((r = cookie_linebuf_next(&c->lb, buf, n, &off, &line, &len)) > 0)
		handle_line(s, c, line, len);
	if (r < 0) {
		s->stats.errors++;
		drop_client(s, c);	/* a line over COOKIE_LINE_MAX */
		return;
	}
	/* A line must end within LINE_TIMEOUT_SECS of its first byte, however slowly it comes. */
	if (!c->lb.len)
		c->line_start = 0;
	else if (!c->line_start)
		c->line_start = clock_now();
}

void cookie_serve_expire(struct cookie_server *s)
{
	double now = clock_now();

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct cookie_client *c = &s->clients[i];

		if (c->fd >= 0 && (now - c->last >= IDLE_TIMEOUT_SECS ||
				   (c->line_start && now - c->line_start >= LINE_TIMEOUT_SECS)))
			drop_client(s, c);
	}
}

void cookie_serve_ready(struct cookie_server *s)
{
	struct epoll_event evs[64];
	/* Level-triggered: what is not done now is reported again on the next poll. */
	int n = epoll_wait(s->epfd, evs, 64, 0);

	for (int i = 0; i < n; i++) {
		__u32 id = evs[i].data.u32;

		if (id == MAX_CLIENTS)
			accept_clients(s);
		else if (id < MAX_CLIENTS && s->clients[id].fd >= 0)
			read_client(s, &s->clients[id]);
	}
}

void cookie_serve_close(struct cookie_server *s)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0)
			drop_client(s, &s->clients[i]);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->epfd >= 0)
		close(s->epfd);
	s->lfd = s->epfd = -1;
}
