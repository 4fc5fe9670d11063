// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's socket: one request per line, clients bounded per uid and in total, idle
 * and unfinished lines timed out, and the event loop (signals, the tick, clients).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "cookie-gend.h"

/* Refuse to remove anything at @path that is not a socket: --socket may be mistyped. */
int check_socket_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISSOCK(st.st_mode) ? 0 : -EEXIST;
}

int listen_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct group *g;
	mode_t old_mask;
	int fd, err;

	if (strlen(env.socket) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, env.socket);
	err = check_socket_path(env.socket);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(env.socket);	/* we hold the instance lock: a socket here is stale */
	/* Born 0600: nobody else can connect before the group and mode below are set. */
	old_mask = umask(0177);
	err = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 64) ? -errno : 0;
	umask(old_mask);
	if (err) {
		close(fd);
		return err;
	}
	g = getgrnam("bareatom");
	if (g && !chown(env.socket, 0, g->gr_gid))
		chmod(env.socket, 0660);
	if (!g)
		logmsg(LOG_WARNING, "no group 'bareatom': the socket is root-only");
	return fd;
}

static void reply(struct client *c, const char *fmt, ...)
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

static void reply_draw_error(struct client *c, int err)
{
	d.errors++;
	reply(c, "ERR cannot save the high-water mark: %s", err == -EOVERFLOW ?
	      "the cookie space is exhausted" : strerror(-err));
}

static void serve_get(struct client *c, __u64 n)
{
	__u64 first;
	int err = draw_for_client(n, &first);

	if (err) {
		reply_draw_error(c, err);
		return;
	}
	d.served += n;
	cookie_metrics_get(n);
	reply(c, "OK %llu %llu", first, n);
}

static void serve_pid(struct client *c, int pid)
{
	struct cookie_task t;
	int pidfd = syscall(SYS_pidfd_open, pid, 0), err;

	if (pidfd < 0) {
		reply(c, errno == ESRCH ? "ERR no such process" : "ERR cannot open process: %s",
		      strerror(errno));
		return;
	}
	if (bpf_map_lookup_elem(d.task_fd, &pidfd, &t)) {
		/* Started before the BPF side was attached: give it one now. */
		err = draw_for_client(1, &t.cookie);
		if (err) {
			reply_draw_error(c, err);
			close(pidfd);
			return;
		}
		if (bpf_map_update_elem(d.task_fd, &pidfd, &t, BPF_NOEXIST) &&
		    bpf_map_lookup_elem(d.task_fd, &pidfd, &t)) {
			reply(c, errno == ESRCH ? "ERR no such process" : "ERR cannot store the cookie: %s",
			      strerror(errno));
			close(pidfd);
			return;
		}
	}
	close(pidfd);
	reply(c, "OK %llu", t.cookie);
}

static void serve_stats(struct client *c)
{
	struct cookie_state *st = d.st;
	const char *state_error = !d.mark.save_err ? "none" : d.mark.save_err == -EOVERFLOW ? "exhausted" :
				  strerrorname_np(-d.mark.save_err);

	reply(c, "OK next=%llu limit=%llu highwater=%llu fork_cookies=%llu "
	      "tpgen_cookies=%llu denied=%llu batches=%llu events_lost=%llu requests=%llu"
	      " served=%llu errors=%llu clients=%d extensions=%llu"
	      " uptime=%ld batched=%d room_requests=%llu state_error=%s state_errors=%llu"
	      " refused_clients=%llu node=%u",
	      __atomic_load_n(&st->next, __ATOMIC_RELAXED), __atomic_load_n(&st->limit, __ATOMIC_RELAXED),
	      d.mark.node_base + d.mark.store.highwater, __atomic_load_n(&st->fork_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->tpgen_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->denied, __ATOMIC_RELAXED), __atomic_load_n(&st->batches, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->events_lost, __ATOMIC_RELAXED), d.requests, d.served, d.errors,
	      d.nclients, d.mark.extensions, (long)(util_now() - d.started), !env.global,
	      __atomic_load_n(&st->room_requests, __ATOMIC_RELAXED), state_error ? state_error : "unknown",
	      d.mark.save_errors, d.refused_clients, d.mark.node);
}

static int handle_line(void *arg, const char *line, size_t len)
{
	struct client *c = arg;
	struct cookie_req req;
	const char *err;

	d.requests++;
	c->last = util_now();	/* only a whole request counts as activity, not a byte */
	if (cookie_parse_request(line, len, &req, &err)) {
		d.errors++;
		reply(c, "ERR %s", err);
		return 0;
	}
	switch (req.kind) {
	case COOKIE_REQ_GET: serve_get(c, req.n); break;
	case COOKIE_REQ_PID: serve_pid(c, req.pid); break;
	case COOKIE_REQ_STATS: serve_stats(c); break;
	}
	return 0;
}

static void drop_client(int epfd, struct client *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	d.nclients--;
}

/*
 * Why a new connection from @uid cannot be served, or NULL. Bounded per uid, so one user's
 * idle or trickling connections cannot take every slot, and in total, with a few slots
 * only root may take, so root is served even when every other slot is held.
 */
static const char *admission(uid_t uid, char *buf, size_t len)
{
	int same = 0;

	for (int i = 0; i < MAX_CLIENTS; i++)
		same += d.clients[i].fd >= 0 && d.clients[i].uid == uid;
	if (same >= MAX_PER_UID) {
		snprintf(buf, len, "ERR too many connections from uid %u (at most %d)\n",
			 (unsigned int)uid, MAX_PER_UID);
		return buf;
	}
	if (d.nclients >= MAX_CLIENTS || (uid != 0 && d.nclients >= MAX_CLIENTS - ROOT_RESERVED))
		return "ERR too many clients\n";
	return NULL;
}

static void accept_clients(int epfd, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
		refusal = admission(cred.uid, msg, sizeof(msg));
		if (refusal) {
			d.refused_clients++;
			send(fd, refusal, strlen(refusal), MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		for (i = 0; d.clients[i].fd >= 0; i++)
			;	/* admission() left a free slot */
		d.clients[i] = (struct client){ .fd = fd, .uid = cred.uid, .last = util_now() };
		ev.data.u32 = i;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			d.clients[i].fd = -1;
			continue;
		}
		d.nclients++;
		d.clients_total++;
	}
}

static void read_client(int epfd, struct client *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop_client(epfd, c);
		return;
	}
	if (cookie_linebuf_feed(&c->lb, buf, n, handle_line, c)) {
		d.errors++;
		drop_client(epfd, c);	/* a line over COOKIE_LINE_MAX */
		return;
	}
	/* A line must end within LINE_TIMEOUT_SECS of its first byte, however slowly it comes. */
	if (!c->lb.len)
		c->line_start = 0;
	else if (!c->line_start)
		c->line_start = util_now();
}

static void expire_idle(int epfd)
{
	double now = util_now();

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &d.clients[i];

		if (c->fd >= 0 && (now - c->last >= IDLE_TIMEOUT_SECS ||
				   (c->line_start && now - c->line_start >= LINE_TIMEOUT_SECS)))
			drop_client(epfd, c);
	}
}

int serve(int lfd, int ready_fd)
{
	struct itimerspec tick = { .it_interval = { 0, TICK_MS * 1000000L }, .it_value = { 0, TICK_MS * 1000000L } };
	struct epoll_event ev, evs[64];
	int epfd, sfd, tfd;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || epfd < 0 || timerfd_settime(tfd, 0, &tick, NULL))
		return -errno;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = MAX_CLIENTS };
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.u32 = MAX_CLIENTS + 1;
	epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.u32 = MAX_CLIENTS + 2;
	epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.u32 = MAX_CLIENTS + 3;
	if (cookie_metrics_fd() >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, cookie_metrics_fd(), &ev))
		return -errno;
	for (int i = 0; i < MAX_CLIENTS; i++)
		d.clients[i].fd = -1;

	logmsg(LOG_INFO, "serving on %s", env.socket);
	notify_systemd("READY=1\nSTATUS=serving cookies");
	if (ready_fd >= 0) {
		if (write(ready_fd, "", 1) < 0)
			logmsg(LOG_DEBUG, "parent gone");
		close(ready_fd);
	}
	for (;;) {
		int n = epoll_wait(epfd, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			__u32 id = evs[i].data.u32;

			if (id == MAX_CLIENTS) {
				accept_clients(epfd, lfd);
			} else if (id == MAX_CLIENTS + 1) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					logmsg(LOG_INFO, "signal %u: exiting; the pins stay for the next start",
					       si.ssi_signo);
					notify_systemd("STOPPING=1");
					return 0;
				}
			} else if (id == MAX_CLIENTS + 2) {
				__u64 ticks;

				if (read(tfd, &ticks, sizeof(ticks)) > 0) {
					check_headroom();
					expire_idle(epfd);
					cookie_metrics_tick(false, false);
				}
			} else if (id == MAX_CLIENTS + 3) {
				cookie_metrics_tick(true, false);
			} else if (id < MAX_CLIENTS && d.clients[id].fd >= 0) {
				read_client(epfd, &d.clients[id]);
			}
		}
		check_headroom();
	}
}
