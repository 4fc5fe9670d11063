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
#include "cookie_store.h"
#include "libcookie.h"
#include "util.h"

#define MAX_CLIENTS		256
#define ROOT_RESERVED		16	/* slots only root may take, so root is always served */
#define MAX_PER_UID		32	/* connections one uid may hold at once */
#define IDLE_TIMEOUT_SECS	30	/* from the last complete request (or the accept) */
#define LINE_TIMEOUT_SECS	10	/* from the first byte of a line to its newline */
#define TICK_MS			20
#define SAVE_BACKOFF_MIN	0.1	/* seconds before retrying a failed save of the mark */
#define SAVE_BACKOFF_MAX	5.0
#define INSTANCE_LOCK		"/run/bareatom/cookie-gend.lock"
/*
 * Exit status when the state directory needs an operator (corrupt mark or id): the unit
 * lists it in RestartPreventExitStatus=, so systemd does not restart into the same refusal.
 * 78 is EX_CONFIG of sysexits.h.
 */
#define EXIT_STATE		78

_Static_assert(COOKIE_GET_MAX == COOKIE_DRAW_MAX, "GET and the fast path share one bound");

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
	uid_t uid;		/* SO_PEERCRED: connections are bounded per uid */
	double last;		/* CLOCK_MONOTONIC of the accept or the last complete request */
	double line_start;	/* of the first byte of an unfinished line, 0 when none */
	struct cookie_linebuf lb;
};

static struct daemon {
	struct cookie_bpf *skel;
	struct cookie_state *st;
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	struct cookie_store store;	/* the state directory: every cookie handed out is below its mark */
	__u64 extensions, requests, served, errors, clients_total, refused_clients;
	int nclients;
	struct client clients[MAX_CLIENTS];
	double started;		/* CLOCK_MONOTONIC */
	/* Saving the mark failed: retried with backoff, logged once per change of state. */
	int save_err;
	double save_retry_at, save_backoff;
	__u64 save_errors;
} d;

/* ---- durable high-water mark ---- */

static void notify_systemd(const char *msg);

static void save_failed(int err)
{
	char status[256];

	d.save_errors++;
	d.save_backoff = d.save_err ? d.save_backoff * 2 : SAVE_BACKOFF_MIN;
	if (d.save_backoff > SAVE_BACKOFF_MAX)
		d.save_backoff = SAVE_BACKOFF_MAX;
	d.save_retry_at = util_now() + d.save_backoff;
	if (err == d.save_err)
		return;
	d.save_err = err;
	if (err == -EOVERFLOW) {
		logmsg(LOG_CRIT, "the 64-bit cookie space is exhausted: draws are refused");
		notify_systemd("STATUS=cookie space exhausted: draws are refused");
		return;
	}
	logmsg(LOG_ERR, "cannot save the high-water mark in %s: %s; draws past %llu are refused "
	       "until it can be saved (retrying every %g s at most)", d.store.dir, strerror(-err),
	       (unsigned long long)d.store.highwater, SAVE_BACKOFF_MAX);
	snprintf(status, sizeof(status), "STATUS=cannot save the high-water mark in %s: %s; "
		 "draws past %llu are refused", d.store.dir, strerror(-err),
		 (unsigned long long)d.store.highwater);
	notify_systemd(status);
}

static void save_recovered(void)
{
	logmsg(LOG_INFO, "the high-water mark is saved again in %s (%llu)", d.store.dir,
	       (unsigned long long)d.store.highwater);
	notify_systemd("STATUS=serving cookies");
	d.save_err = 0;
	d.save_backoff = 0;
}

/*
 * Make the counter's limit cover @need and a block beyond it, durably first. After a failure
 * it waits out a backoff before writing again (so a full disk costs no fsync per tick) and
 * returns the error meanwhile. Nothing here can wrap: limits stay below COOKIE_MARK_MAX.
 */
static int extend(__u64 need)
{
	__u64 limit = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	__u64 next = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	__u64 base = need > next ? need : next, target;
	int err;

	if (base >= COOKIE_MARK_MAX - COOKIE_BLOCK) {
		if (d.save_err != -EOVERFLOW)
			save_failed(-EOVERFLOW);
		return -EOVERFLOW;
	}
	target = base + COOKIE_BLOCK;
	if (target <= limit)
		return 0;
	if (d.save_err && util_now() < d.save_retry_at)
		return d.save_err;
	err = cookie_store_write_mark(&d.store, target);
	if (err) {
		save_failed(err);
		return err;
	}
	if (d.save_err)
		save_recovered();
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

	if (asked || next >= limit || limit - next <= COOKIE_BLOCK / 2)
		extend(next);
}

/*
 * Draw @n (1 to COOKIE_DRAW_MAX) cookies for a client. A counter already at the limit is
 * extended before anything is taken, so requests refused while the mark cannot be saved
 * do not push the counter on; a draw that crossed the limit is covered by extending past
 * it before the reply (the values are this draw's alone: no other drawer got them).
 */
static int draw_for_client(__u64 n, __u64 *first)
{
	__u64 next = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST), c, limit;
	int err;

	if (next >= __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST)) {
		err = extend(next + n);
		if (err)
			return err;
	}
	c = __atomic_fetch_add(&d.st->next, n, __ATOMIC_SEQ_CST);
	limit = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	if (c >= limit || n > limit - c) {
		err = extend(c + n);
		if (err)
			return err;
	}
	*first = c;
	return 0;
}

/* ---- BPF side ---- */

/* Every pin cookie-gend makes, for --uninstall; the links and programs come in pairs. */
static const char *const pin_names[] = {
	"link_fork", "link_tpgen", "prog_fork", "prog_tpgen", "state", "batch", "task_cookies",
	"events",
};

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

#define MAX_PROG_MAPS 16

/* A loaded program as the kernel sees it: its tag and the maps it uses. */
struct prog_id {
	__u8 tag[BPF_TAG_SIZE];
	__u32 nr_maps;
	__u32 maps[MAX_PROG_MAPS];
};

static int prog_identity(int prog_fd, struct prog_id *id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	info.nr_map_ids = MAX_PROG_MAPS;
	info.map_ids = (__u64)(unsigned long)id->maps;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (info.nr_map_ids > MAX_PROG_MAPS)
		return -E2BIG;
	memcpy(id->tag, info.tag, sizeof(id->tag));
	id->nr_maps = info.nr_map_ids;
	return 0;
}

/* The value of map @map_id when it is a .rodata map (the program's settings), else -ENOENT. */
static int rodata_of(__u32 map_id, void *buf, __u32 size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	int fd = bpf_map_get_fd_by_id(map_id), err = -ENOENT;

	if (fd < 0)
		return -errno;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && strstr(info.name, ".rodata")) {
		err = info.value_size == size && !bpf_map_lookup_elem(fd, &zero, buf) ? 0 : -EINVAL;
	}
	close(fd);
	return err;
}

/*
 * Does the program behind the pinned link @link_fd run exactly what we loaded as @prog:
 * the same instructions (tag), the same maps (a state map gone from the pins leaves an old
 * link drawing from an orphan that is never extended) and the same settings (.rodata:
 * --global)? Returns 1 when it does, 0 when it differs, or a negative errno.
 */
static int same_program(int link_fd, struct bpf_program *prog)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);
	struct prog_id ours = {}, theirs = {};
	size_t rosz = bpf_map__value_size(d.skel->maps.rodata);
	char old_ro[256];
	int fd, err;

	if (bpf_obj_get_info_by_fd(link_fd, &li, &len))
		return -errno;
	fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (fd < 0)
		return -errno;
	err = prog_identity(fd, &theirs) ?: prog_identity(bpf_program__fd(prog), &ours);
	close(fd);
	if (err)
		return err;
	if (memcmp(ours.tag, theirs.tag, sizeof(ours.tag)) || ours.nr_maps != theirs.nr_maps ||
	    rosz > sizeof(old_ro))
		return 0;
	for (__u32 i = 0; i < theirs.nr_maps; i++) {
		bool found = false;

		for (__u32 k = 0; k < ours.nr_maps && !found; k++)
			found = ours.maps[k] == theirs.maps[i];
		if (found)
			continue;
		/* Each load has its own .rodata map: compare what it holds. */
		if (rodata_of(theirs.maps[i], old_ro, rosz) ||
		    memcmp(old_ro, d.skel->rodata, rosz))
			return 0;
	}
	return 1;
}

/* Pin @fd at NAME through a temporary pin renamed over it: the old pin goes in one step. */
static int pin_over(int fd, const char *name)
{
	char path[256], tmp[256];

	pin_path(path, sizeof(path), name);
	/* bpffs reserves names with dots: the temporary pin is new_NAME. */
	snprintf(tmp, sizeof(tmp), COOKIE_PIN_DIR "/new_%s", name);
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp))
		return -errno;
	if (rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

/*
 * Attach @prog and pin its link as link_NAME and the program as prog_NAME, for bpftool. A
 * link pinned by an earlier run is kept when it runs exactly this program; otherwise (an
 * upgrade, other settings, pins left half-made) the new link is attached and pinned first
 * and only then is the old one dropped, so no event goes without a program meanwhile.
 * The counter is never lost: the state map is the pinned one (reuse_or_pin_map).
 */
static int attach_or_keep(struct bpf_program *prog, const char *name)
{
	char path[256], pname[64];
	struct bpf_link *link;
	int fd = bpf_obj_get(pin_path(path, sizeof(path), name)), err;

	snprintf(pname, sizeof(pname), "prog_%s", name + strlen("link_"));
	if (fd >= 0) {
		int same = same_program(fd, prog);

		close(fd);
		if (same == 1)
			return 0;
		logmsg(LOG_INFO, "replacing %s: the pinned program %s", path, same == 0 ?
		       "differs from this cookie-gend's (another version, other options or other maps)" :
		       "cannot be inspected");
	}
	link = bpf_program__attach(prog);
	if (!link)
		return -errno;
	err = pin_over(bpf_link__fd(link), name) ?: pin_over(bpf_program__fd(prog), pname);
	if (err) {
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
 * Read the state directory before anything is loaded: a mark or id that is not exactly
 * what this daemon writes refuses the start (EXIT_STATE), leaving the files as they are.
 */
static int open_state(uint64_t *id)
{
	const char *why = "";
	int err = cookie_store_open(&d.store, env.state_dir);

	if (err) {
		logmsg(LOG_ERR, "cannot open the state directory %s: %s", env.state_dir, strerror(-err));
		return 1;
	}
	err = cookie_store_read_mark(&d.store, &why);
	if (err == -EUCLEAN) {
		logmsg(LOG_ERR, "%s/" COOKIE_HIGHWATER_FILE " %s; refusing to guess a high-water mark "
		       "(restore it from a backup, or remove it only if no cookie of this machine "
		       "was ever used)", env.state_dir, why);
		return EXIT_STATE;
	}
	if (err < 0) {
		logmsg(LOG_ERR, "cannot read %s/" COOKIE_HIGHWATER_FILE ": %s", env.state_dir, strerror(-err));
		return 1;
	}
	err = cookie_store_id(&d.store, id);
	if (err == -EUCLEAN) {
		logmsg(LOG_ERR, "%s/" COOKIE_ID_FILE " is empty or corrupt (want 16 hex digits); "
		       "remove it if no cookie-gend has run with this directory since boot, else "
		       "write the owner id from 'bpftool map dump pinned " COOKIE_PIN_DIR "/state'",
		       env.state_dir);
		return EXIT_STATE;
	}
	if (err) {
		logmsg(LOG_ERR, "cannot read or create %s/" COOKIE_ID_FILE ": %s", env.state_dir,
		       strerror(-err));
		return 1;
	}
	return 0;
}

/* Start the counter above everything ever handed out, and reserve the first block. */
static int recover(__u64 id)
{
	__u64 hw = d.store.highwater, cur, owner = 0;

	if (!__atomic_compare_exchange_n(&d.st->owner, &owner, id, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && owner != id) {
		logmsg(LOG_ERR, "the maps pinned in " COOKIE_PIN_DIR " count for another state "
		       "directory than %s: stop that daemon and run cookie-gend --uninstall first",
		       env.state_dir);
		return -EEXIST;
	}
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
	/*
	 * A mark that cannot be saved now (a full disk) does not stop the start: draws are
	 * refused, STATS and systemctl status say why, and the tick retries with backoff.
	 */
	extend(__atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST));
	return 0;
}

/* ---- socket ---- */

/* Refuse to remove anything at @path that is not a socket: --socket may be mistyped. */
static int check_socket_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISSOCK(st.st_mode) ? 0 : -EEXIST;
}

static int listen_socket(void)
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
	char buf[512];
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
	const char *state_error = !d.save_err ? "none" : d.save_err == -EOVERFLOW ? "exhausted" :
				  strerrorname_np(-d.save_err);

	reply(c, "OK next=%llu limit=%llu highwater=%llu fork_cookies=%llu "
	      "tpgen_cookies=%llu denied=%llu batches=%llu events_lost=%llu requests=%llu"
	      " served=%llu errors=%llu clients=%d extensions=%llu"
	      " uptime=%ld batched=%d room_requests=%llu state_error=%s state_errors=%llu"
	      " refused_clients=%llu",
	      __atomic_load_n(&st->next, __ATOMIC_RELAXED), __atomic_load_n(&st->limit, __ATOMIC_RELAXED),
	      (unsigned long long)d.store.highwater, __atomic_load_n(&st->fork_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->tpgen_cookies, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->denied, __ATOMIC_RELAXED), __atomic_load_n(&st->batches, __ATOMIC_RELAXED),
	      __atomic_load_n(&st->events_lost, __ATOMIC_RELAXED), d.requests, d.served, d.errors,
	      d.nclients, d.extensions, (long)(util_now() - d.started), !env.global,
	      __atomic_load_n(&st->room_requests, __ATOMIC_RELAXED), state_error ? state_error : "unknown",
	      d.save_errors, d.refused_clients);
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
	char path[256];
	int err;

	for (size_t i = 0; i < sizeof(pin_names) / sizeof(pin_names[0]); i++)
		if (unlink(pin_path(path, sizeof(path), pin_names[i])) && errno != ENOENT)
			fprintf(stderr, "cookie-gend: cannot remove %s: %s\n", path, strerror(errno));
	if (rmdir(COOKIE_PIN_DIR) && errno != ENOENT)
		fprintf(stderr, "cookie-gend: cannot remove " COOKIE_PIN_DIR ": %s\n", strerror(errno));
	err = check_socket_path(env.socket);
	if (err == -EEXIST)
		fprintf(stderr, "cookie-gend: %s is not a socket: left as it is\n", env.socket);
	else if (!err)
		unlink(env.socket);
	printf("cookie-gend: detached and unpinned; the high-water mark in %s is kept\n", env.state_dir);
	return err == -EEXIST ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	int lock_fd, lfd, err, ready[2] = { -1, -1 };
	uint64_t id;

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
	if (check_socket_path(env.socket) == -EEXIST) {
		fprintf(stderr, "cookie-gend: %s exists and is not a socket: refusing to replace it\n",
			env.socket);
		return 1;
	}
	/* Before anything is loaded or pinned: a refused start changes nothing. */
	err = open_state(&id);
	if (err)
		return err;

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

	err = setup_bpf();
	if (err) {
		logmsg(LOG_ERR, "cannot load the BPF side: %s", util_bpf_load_hint(err));
		return 1;
	}
	if (recover(id) || attach_programs())
		return 1;
	lfd = listen_socket();
	if (lfd < 0) {
		logmsg(LOG_ERR, "cannot listen on %s: %s", env.socket, strerror(-lfd));
		return 1;
	}
	d.started = util_now();
	err = serve(lfd, ready[1]);
	if (!check_socket_path(env.socket))
		unlink(env.socket);
	if (err)
		logmsg(LOG_ERR, "event loop failed: %s", strerror(-err));
	return err ? 1 : 0;
}
