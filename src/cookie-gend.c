// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend: hands out globally unique 64-bit cookies from one BPF counter shared with
 * BPF programs (task cookies at fork, tpgen_b events) and libcookie's fast path.
 *
 * Durability: the state directory holds the high-water mark H, a value above every cookie
 * ever handed out. The counter's limit in the map is raised only after a larger H has been
 * written and fsynced, and every draw at or past the limit is refused, so after SIGKILL or
 * a power-off the counter restarts at H, above everything it ever gave. H moves in blocks
 * (COOKIE_BLOCK), so there is one fsync per block, not per request.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cookie.h"
#include "cookie.skel.h"
#include "cookie_proto.h"
#include "libcookie.h"
#include "util.h"

#define COOKIE_BLOCK		(1ULL << 24)	/* cookies per durable reservation */
#define MAX_CLIENTS		256
#define IDLE_TIMEOUT_SECS	30
#define TICK_MS			20
#define INSTANCE_LOCK		"/run/bareatom/cookie-gend.lock"
#define HIGHWATER_FILE		"highwater"
#define ID_FILE			"id"

static struct env {
	bool foreground;
	bool verbose;
	bool tpgen;
	bool global;
	bool uninstall;
	const char *state_dir;
	const char *socket;
} env = {
	.state_dir = "/var/lib/bareatom/cookie",
	.socket = COOKIE_SOCKET_PATH,
};

const char *argp_program_version = "cookie-gend (bareatom) 0.1";
static const char doc[] =
"Serve globally unique 64-bit cookies from a BPF counter shared with the kernel.\n"
"\n"
"USAGE: cookie-gend [--foreground] [--state-dir DIR] [--socket PATH] [--tpgen] [--global]\n"
"       cookie-gend --uninstall\n"
"\n"
"Every new task gets a cookie at fork (kept in BPF task local storage); clients get\n"
"ranges over the socket (GET N, PID P, STATS; one request per line); root may draw\n"
"directly from the pinned counter (libcookie). Cookies are never 0 and never repeat,\n"
"across CPUs, kernel and user space, daemon crashes and reboots: the state directory\n"
"keeps a durable high-water mark that is fsynced before any cookie beyond it is given.\n"
"\n"
"Maps and links are pinned under " COOKIE_PIN_DIR " and reused on restart; only one\n"
"instance runs per machine. --uninstall detaches the programs and removes the pins and\n"
"the socket (the state directory is kept: it is what keeps cookies unique).\n"
"\n"
"EXAMPLES:\n"
"    cookie-gend --foreground -v          # run in the terminal, log to stderr\n"
"    systemctl start cookie-gend          # as the image runs it (Type=notify)\n"
"    cookie -n 3; cookie --pid $$; cookie --stats\n";

enum { OPT_STATE = 256, OPT_SOCKET, OPT_TPGEN, OPT_GLOBAL, OPT_UNINSTALL };

static const struct argp_option opts[] = {
	{ "foreground", 'f', NULL, 0, "Stay in the foreground and log to stderr", 0 },
	{ "state-dir", OPT_STATE, "DIR", 0, "Durable state (default /var/lib/bareatom/cookie)", 0 },
	{ "socket", OPT_SOCKET, "PATH", 0, "Unix socket (default " COOKIE_SOCKET_PATH ")", 0 },
	{ "tpgen", OPT_TPGEN, NULL, 0, "Also draw a cookie on every tpgen_b event (needs tpgen)", 0 },
	{ "global", OPT_GLOBAL, NULL, 0, "Kernel side: one global fetch-add per cookie, no per-CPU batches", 0 },
	{ "uninstall", OPT_UNINSTALL, NULL, 0, "Detach, remove the pins and the socket, and exit", 0 },
	{ "verbose", 'v', NULL, 0, "Log more, including libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'f': env.foreground = true; break;
	case 'v': env.verbose = true; break;
	case OPT_STATE: env.state_dir = arg; break;
	case OPT_SOCKET: env.socket = arg; break;
	case OPT_TPGEN: env.tpgen = true; break;
	case OPT_GLOBAL: env.global = true; break;
	case OPT_UNINSTALL: env.uninstall = true; break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "cookie-gend: unexpected argument '%s'\n", arg);
		exit(2);
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool use_syslog;

static void __attribute__((format(printf, 2, 3))) logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !env.verbose)
		return;
	va_start(ap, fmt);
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		fprintf(stderr, "cookie-gend: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

struct client {
	int fd;
	time_t last;
	struct cookie_linebuf lb;
};

static struct daemon {
	struct cookie_bpf *skel;
	struct cookie_state *st;
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	int dir_fd;		/* state directory */
	__u64 highwater;	/* durable: every cookie handed out is below it */
	__u64 extensions, requests, served, errors, clients_total;
	int nclients;
	struct client clients[MAX_CLIENTS];
	time_t started;
} d;

/* ---- durable high-water mark ---- */

static int read_highwater(__u64 *out)
{
	char buf[64], *end;
	ssize_t n;
	int fd = openat(d.dir_fd, HIGHWATER_FILE, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		*out = 1;	/* first start ever: cookies begin at 1, 0 is never one */
		return 0;
	}
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		goto corrupt;
	buf[n] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || *out == 0)
		goto corrupt;
	return 0;
corrupt:
	logmsg(LOG_ERR, "%s/%s is corrupt; refusing to guess a high-water mark (restore it, "
	       "or remove it only if no cookie of this machine was ever used)", env.state_dir, HIGHWATER_FILE);
	return -EUCLEAN;
}

/* Write @hw, fsync it and the directory; only then may cookies below it be handed out. */
static int write_highwater(__u64 hw)
{
	char buf[32];
	int fd, n = snprintf(buf, sizeof(buf), "%llu\n", hw);

	fd = openat(d.dir_fd, HIGHWATER_FILE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n || fsync(fd)) {
		int err = errno ? -errno : -EIO;

		close(fd);
		return err;
	}
	close(fd);
	if (renameat(d.dir_fd, HIGHWATER_FILE ".tmp", d.dir_fd, HIGHWATER_FILE))
		return -errno;
	/* Some filesystems (9p) cannot fsync a directory; the file itself is synced. */
	if (fsync(d.dir_fd) && errno != EINVAL && errno != ENOTSUP)
		return -errno;
	d.highwater = hw;
	return 0;
}

/* Make the counter's limit at least @need (and a block beyond), durably first. */
static int extend(__u64 need)
{
	__u64 limit = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	__u64 next = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	__u64 target = (need > next ? need : next) + COOKIE_BLOCK;
	int err;

	if (target <= limit)
		return 0;
	if (target > UINT64_MAX - 2 * COOKIE_BLOCK) {
		logmsg(LOG_CRIT, "the 64-bit cookie space is exhausted");
		return -EOVERFLOW;
	}
	err = write_highwater(target);
	if (err) {
		logmsg(LOG_ERR, "cannot save the high-water mark in %s: %s", env.state_dir, strerror(-err));
		return err;
	}
	__atomic_store_n(&d.st->limit, target, __ATOMIC_SEQ_CST);
	d.extensions++;
	logmsg(LOG_DEBUG, "high-water mark now %llu", target);
	return 0;
}

/*
 * Keep a block of headroom, so BPF and the fast path rarely see the limit; a refused draw
 * raises need_room, taken down here with an exchange so each request is seen once.
 */
static void check_headroom(void)
{
	__u64 next = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	__u64 limit = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	/* Read first: writing the shared line on every tick would slow every drawer. */
	bool asked = __atomic_load_n(&d.st->need_room, __ATOMIC_RELAXED) &&
		     __atomic_exchange_n(&d.st->need_room, 0, __ATOMIC_SEQ_CST);

	if (asked || next + COOKIE_BLOCK / 2 >= limit)
		extend(next);
}

/* ---- BPF side ---- */

static const char *pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, COOKIE_PIN_DIR "/%s", name);
	return buf;
}

static int reuse_or_pin_map(struct bpf_map *map, const char *name, bool *reused)
{
	char path[256];
	int fd = bpf_obj_get(pin_path(path, sizeof(path), name));

	if (fd >= 0) {
		int err = bpf_map__reuse_fd(map, fd);

		close(fd);
		*reused = true;
		return err;
	}
	return bpf_map__set_pin_path(map, path);
}

/* Attach @prog and pin its link as link_NAME and the program as prog_NAME, for bpftool. */
static int attach_or_keep(struct bpf_program *prog, const char *name)
{
	char path[256], ppath[256];
	struct bpf_link *link;
	int fd = bpf_obj_get(pin_path(path, sizeof(path), name));

	if (fd >= 0) {	/* attached by an earlier run: keep it */
		close(fd);
		return 0;
	}
	snprintf(ppath, sizeof(ppath), COOKIE_PIN_DIR "/prog_%s", name + strlen("link_"));
	unlink(ppath);
	if (bpf_program__pin(prog, ppath))
		return -errno;
	link = bpf_program__attach(prog);
	if (!link)
		return -errno;
	if (bpf_link__pin(link, path)) {
		int err = -errno;

		bpf_link__destroy(link);
		return err;
	}
	bpf_link__disconnect(link);	/* the pin keeps it attached after we exit */
	bpf_link__destroy(link);
	return 0;
}

static int setup_bpf(void)
{
	bool reused = false;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	int err;
	void *m;

	mkdir("/sys/fs/bpf/bareatom", 0700);
	if (mkdir(COOKIE_PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	d.skel = cookie_bpf__open();
	if (!d.skel)
		return -errno;
	d.skel->rodata->batched = !env.global;
	if (!env.tpgen)
		bpf_program__set_autoload(d.skel->progs.cookie_tpgen, false);
	err = reuse_or_pin_map(d.skel->maps.state, "state", &reused) ?:
	      reuse_or_pin_map(d.skel->maps.batch, "batch", &reused) ?:
	      reuse_or_pin_map(d.skel->maps.task_cookies, "task_cookies", &reused) ?:
	      reuse_or_pin_map(d.skel->maps.events, "events", &reused);
	if (err)
		return err;
	err = cookie_bpf__load(d.skel);
	if (err)
		return err;
	d.state_fd = bpf_map__fd(d.skel->maps.state);
	d.task_fd = bpf_map__fd(d.skel->maps.task_cookies);
	if (bpf_obj_get_info_by_fd(d.state_fd, &info, &len))
		return -errno;
	d.map_len = ((size_t)info.value_size * info.max_entries + page - 1) / page * page;
	m = mmap(NULL, d.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, d.state_fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	d.st = m;
	logmsg(LOG_DEBUG, "%s the pinned maps in " COOKIE_PIN_DIR, reused ? "reusing" : "created");
	return 0;
}

static int attach_programs(void)
{
	int err = attach_or_keep(d.skel->progs.cookie_fork, "link_fork");

	if (err) {
		logmsg(LOG_ERR, "cannot attach to sched_process_fork: %s", util_bpf_load_hint(err));
		return err;
	}
	if (!env.tpgen) {
		char path[256];

		/* --tpgen decides: a link left by a run with --tpgen is detached. */
		unlink(pin_path(path, sizeof(path), "prog_tpgen"));
		if (!unlink(pin_path(path, sizeof(path), "link_tpgen")))
			logmsg(LOG_INFO, "detached from tpgen_b (no --tpgen)");
	} else {
		err = attach_or_keep(d.skel->progs.cookie_tpgen, "link_tpgen");
		if (err) {
			logmsg(LOG_ERR, "cannot attach to tpgen_b: %s", err == -ENOENT ?
			       "the tpgen module is not loaded (modprobe tpgen)" : util_bpf_load_hint(err));
			return err;
		}
	}
	return 0;
}

/*
 * The state directory's random id, created on first use. The maps record the id they count
 * for: pinned maps left by a daemon with another state directory hold per-CPU batches and
 * a counter from a different history, so they are not reused.
 */
static int state_id(__u64 *id)
{
	char buf[32];
	ssize_t n;
	int fd = openat(d.dir_fd, ID_FILE, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EUCLEAN;
		buf[n] = '\0';
		*id = strtoull(buf, NULL, 16);
		return *id ? 0 : -EUCLEAN;
	}
	if (errno != ENOENT)
		return -errno;
	do {
		if (getrandom(id, sizeof(*id), 0) != sizeof(*id))
			return -errno;
	} while (!*id);
	n = snprintf(buf, sizeof(buf), "%016llx\n", *id);
	fd = openat(d.dir_fd, ID_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n || fsync(fd)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* Start the counter above everything ever handed out, and reserve the first block. */
static int recover(void)
{
	__u64 hw = 0, cur, id = 0, owner = 0;
	int err = read_highwater(&hw);

	if (err)
		return err;
	err = state_id(&id);
	if (err) {
		logmsg(LOG_ERR, "cannot read or create %s/" ID_FILE ": %s", env.state_dir, strerror(-err));
		return err;
	}
	if (!__atomic_compare_exchange_n(&d.st->owner, &owner, id, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && owner != id) {
		logmsg(LOG_ERR, "the maps pinned in " COOKIE_PIN_DIR " count for another state "
		       "directory than %s: stop that daemon and run cookie-gend --uninstall first",
		       env.state_dir);
		return -EEXIST;
	}
	d.highwater = hw;
	cur = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	while (cur < hw &&
	       !__atomic_compare_exchange_n(&d.st->next, &cur, hw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	/* A reused map may carry a limit from a mark we cannot see: never trust more than ours. */
	cur = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	if (cur > hw)
		__atomic_store_n(&d.st->limit, hw, __ATOMIC_SEQ_CST);
	logmsg(LOG_INFO, "high-water mark %llu, counter at %llu", hw,
	       __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST));
	return extend(__atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST));
}

/* ---- socket ---- */

static int listen_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct group *g;
	int fd;

	if (strlen(env.socket) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, env.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(env.socket);	/* we hold the instance lock: any file here is stale */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	g = getgrnam("bareatom");
	if (g && !chown(env.socket, 0, g->gr_gid))
		chmod(env.socket, 0660);
	else
		chmod(env.socket, 0600);
	if (!g)
		logmsg(LOG_WARNING, "no group 'bareatom': the socket is root-only");
	return fd;
}

static void reply(struct client *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	buf[n++] = '\n';
	/* No output queue: a client that does not read its replies is dropped. */
	if (send(c->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
		shutdown(c->fd, SHUT_RDWR);
	}
}

static void serve_get(struct client *c, __u64 n)
{
	__u64 first = __atomic_fetch_add(&d.st->next, n, __ATOMIC_SEQ_CST);

	if (first + n > __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST) && extend(first + n)) {
		d.errors++;
		reply(c, "ERR cannot save the high-water mark");
		return;
	}
	d.served += n;
	reply(c, "OK %llu %llu", first, n);
}

static void serve_pid(struct client *c, int pid)
{
	struct cookie_task t;
	int pidfd = syscall(SYS_pidfd_open, pid, 0);

	if (pidfd < 0) {
		reply(c, errno == ESRCH ? "ERR no such process" : "ERR cannot open process: %s",
		      strerror(errno));
		return;
	}
	if (bpf_map_lookup_elem(d.task_fd, &pidfd, &t)) {
		/* Started before the BPF side was attached: give it one now. */
		__u64 first = __atomic_fetch_add(&d.st->next, 1, __ATOMIC_SEQ_CST);

		if (first + 1 > __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST) && extend(first + 1)) {
			reply(c, "ERR cannot save the high-water mark");
			close(pidfd);
			return;
		}
		t.cookie = first;
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

	reply(c, "OK next=%llu limit=%llu highwater=%llu fork_cookies=%llu "
	      "tpgen_cookies=%llu denied=%llu batches=%llu events_lost=%llu requests=%llu"
	      " served=%llu errors=%llu clients=%d extensions=%llu"
	      " uptime=%ld batched=%d room_requests=%llu",
	      __atomic_load_n(&st->next, __ATOMIC_RELAXED), __atomic_load_n(&st->limit, __ATOMIC_RELAXED),
	      d.highwater, __atomic_load_n(&st->fork_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->tpgen_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->denied, __ATOMIC_RELAXED), __atomic_load_n(&st->batches, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->events_lost, __ATOMIC_RELAXED), d.requests, d.served, d.errors,
	      d.nclients, d.extensions, (long)(time(NULL) - d.started), !env.global,
	      __atomic_load_n(&st->room_requests, __ATOMIC_RELAXED));
}

static int handle_line(void *arg, const char *line, size_t len)
{
	struct client *c = arg;
	struct cookie_req req;
	const char *err;

	d.requests++;
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

static void accept_clients(int epfd, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN };
		int i;

		if (fd < 0)
			return;
		for (i = 0; i < MAX_CLIENTS && d.clients[i].fd >= 0; i++)
			;
		if (i == MAX_CLIENTS) {
			const char *msg = "ERR too many clients\n";

			send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		d.clients[i] = (struct client){ .fd = fd, .last = time(NULL) };
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
	c->last = time(NULL);
	if (cookie_linebuf_feed(&c->lb, buf, n, handle_line, c)) {
		d.errors++;
		drop_client(epfd, c);	/* a line over COOKIE_LINE_MAX */
	}
}

static void expire_idle(int epfd)
{
	time_t now = time(NULL);

	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d.clients[i].fd >= 0 && now - d.clients[i].last >= IDLE_TIMEOUT_SECS)
			drop_client(epfd, &d.clients[i]);
}

static void notify_systemd(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(addr.sun_path))
		return;
	strcpy(addr.sun_path, path);
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&addr,
	       offsetof(struct sockaddr_un, sun_path) + strlen(path));
	close(fd);
}

static int serve(int lfd, int ready_fd)
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
				}
			} else if (id < MAX_CLIENTS && d.clients[id].fd >= 0) {
				read_client(epfd, &d.clients[id]);
			}
		}
		check_headroom();
	}
}

static int lock_instance(void)
{
	int fd;

	mkdir("/run/bareatom", 0755);
	fd = open(INSTANCE_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EBUSY;
	}
	return fd;
}

static int uninstall(void)
{
	static const char * const pins[] = {
		"link_fork", "link_tpgen", "prog_fork", "prog_tpgen", "state", "batch", "task_cookies",
		"events",
	};
	char path[256];

	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		if (unlink(pin_path(path, sizeof(path), pins[i])) && errno != ENOENT)
			fprintf(stderr, "cookie-gend: cannot remove %s: %s\n", path, strerror(errno));
	if (rmdir(COOKIE_PIN_DIR) && errno != ENOENT)
		fprintf(stderr, "cookie-gend: cannot remove " COOKIE_PIN_DIR ": %s\n", strerror(errno));
	unlink(env.socket);
	printf("cookie-gend: detached and unpinned; the high-water mark in %s is kept\n", env.state_dir);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	int lock_fd, lfd, err, ready[2] = { -1, -1 };

	argp_err_exit_status = 2;
	argv[0] = "cookie-gend";
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	util_setup_libbpf(env.verbose);
	if (geteuid() != 0) {
		fprintf(stderr, "cookie-gend: must run as root (it pins BPF maps and owns the counter)\n");
		return 2;
	}
	lock_fd = lock_instance();
	if (lock_fd == -EBUSY) {
		fprintf(stderr, "cookie-gend: another cookie-gend is running (lock " INSTANCE_LOCK ")\n");
		return 1;
	}
	if (lock_fd < 0) {
		fprintf(stderr, "cookie-gend: cannot lock " INSTANCE_LOCK ": %s\n", strerror(-lock_fd));
		return 1;
	}
	if (env.uninstall)
		return uninstall();

	if (!env.foreground) {
		pid_t pid;

		if (pipe2(ready, O_CLOEXEC))
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid > 0) {	/* wait until the child serves, so a started daemon is a working one */
			char c;

			close(ready[1]);
			return read(ready[0], &c, 1) == 1 ? 0 : 1;
		}
		close(ready[0]);
		setsid();
		openlog("cookie-gend", LOG_PID, LOG_DAEMON);
		use_syslog = true;
	}

	if (mkdir(env.state_dir, 0700) && errno != EEXIST) {
		/* mkdir -p for the default /var/lib/bareatom/cookie */
		char parent[512];

		snprintf(parent, sizeof(parent), "%s", env.state_dir);
		*strrchr(parent, '/') = '\0';
		mkdir(parent, 0755);
		mkdir(env.state_dir, 0700);
	}
	d.dir_fd = open(env.state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.dir_fd < 0) {
		logmsg(LOG_ERR, "cannot open the state directory %s: %s", env.state_dir, strerror(errno));
		return 1;
	}
	err = setup_bpf();
	if (err) {
		logmsg(LOG_ERR, "cannot load the BPF side: %s", util_bpf_load_hint(err));
		return 1;
	}
	if (recover() || attach_programs())
		return 1;
	lfd = listen_socket();
	if (lfd < 0) {
		logmsg(LOG_ERR, "cannot listen on %s: %s", env.socket, strerror(-lfd));
		return 1;
	}
	d.started = time(NULL);
	err = serve(lfd, ready[1]);
	unlink(env.socket);
	if (err)
		logmsg(LOG_ERR, "event loop failed: %s", strerror(-err));
	return err ? 1 : 0;
}
