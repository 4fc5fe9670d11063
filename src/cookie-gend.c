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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "libcookie.h"
#include "cookie-gend.h"
#include "cookie_metrics.h"
#include "cookie_serve.h"
#include "bpf_util.h"
#include "cli.h"
#include "clock.h"
#include "http_serve.h"

#define INSTANCE_LOCK		"/run/bareatom/cookie-gend.lock"
/*
 * Exit status when the state directory needs an operator (corrupt mark or id): the unit
 * lists it in RestartPreventExitStatus=, so systemd does not restart into the same refusal.
 * 78 is EX_CONFIG of sysexits.h.
 */
#define EXIT_STATE		78

_Static_assert(COOKIE_GET_MAX == COOKIE_DRAW_MAX, "GET and the fast path share one bound");

struct env env = {
	.state_dir = "/var/lib/bareatom/cookie",
	.socket = COOKIE_SOCKET_PATH,
	.node_id = -1,
	.interval = 10,
	.rate = COOKIE_RATE_DEFAULT,
	.burst = COOKIE_BURST_DEFAULT,
};

struct daemon d;

const char *argp_program_version = "cookie-gend (bareatom) 0.1";
static const char doc[] =
"Serve globally unique 64-bit cookies from a BPF counter shared with the kernel.\n"
"\n"
"USAGE: cookie-gend [--foreground] [--state-dir DIR] [--socket PATH] [--node-id N]\n"
"                   [--tpgen] [--global] [--listen ADDR:PORT] [--textfile PATH [-i SECS]]\n"
"                   [--rate-limit N[/s] | unlimited] [--rate-burst N]\n"
"       cookie-gend --uninstall\n"
"\n"
"Every new task gets a cookie at fork (kept in BPF task local storage); clients get\n"
"ranges over the socket (GET N, PID P, STATS; one request per line); root may draw\n"
"directly from the pinned counter (libcookie). Cookies are never 0 and never repeat,\n"
"across CPUs, kernel and user space, daemon crashes and reboots: the state directory\n"
"keeps a durable high-water mark that is fsynced before any cookie beyond it is given.\n"
"\n"
"--node-id N (0 to 65535) puts N in the top 16 bits of every cookie, so machines\n"
"with distinct node ids never hand out the same one; each node owns 2^48 values\n"
"(sequence 0 is never a cookie). The state directory keeps the node id it was\n"
"first started with and refuses another (exit 78).\n"
"\n"
"Maps and links are pinned under " COOKIE_PIN_DIR " and reused on restart; only one\n"
"instance runs per machine. --uninstall detaches the programs and removes the pins and\n"
"the socket (the state directory is kept: it is what keeps cookies unique).\n"
"\n"
"Socket draws are limited per uid (root excepted: it has the fast path) by a token\n"
"bucket: --rate-limit cookies per second (default 16384; 0 or unlimited: none) and\n"
"--rate-burst at once after a pause (default 1048576). At 16384/s one uid needs\n"
"2^48 / 2^14 s, about 544 years, to use up a node's space. A refused request gets\n"
"'ERR rate limited: ...' and the connection stays usable.\n"
"\n"
"--listen serves the statistics for Prometheus at http://ADDR:PORT/metrics (OpenMetrics,\n"
"or text 0.0.4); --textfile writes them atomically every -i SECS (default 10) for\n"
"node_exporter's textfile collector.\n"
"\n"
"EXAMPLES:\n"
"    cookie-gend --foreground -v          # run in the terminal, log to stderr\n"
"    cookie-gend --node-id 7              # this machine is node 7 of a fleet\n"
"    systemctl start cookie-gend          # as the image runs it (Type=notify)\n"
"    cookie -n 3; cookie --pid $$; cookie --stats\n"
"    cookie-gend -f --listen 127.0.0.1:9464   # curl http://127.0.0.1:9464/metrics\n";

enum { OPT_STATE = 256, OPT_SOCKET, OPT_TPGEN, OPT_GLOBAL, OPT_UNINSTALL, OPT_NODE_ID, OPT_LISTEN,
       OPT_TEXTFILE, OPT_RATE, OPT_BURST };

static const struct argp_option opts[] = {
	{ "foreground", 'f', NULL, 0, "Stay in the foreground and log to stderr", 0 },
	{ "state-dir", OPT_STATE, "DIR", 0, "Durable state (default /var/lib/bareatom/cookie)", 0 },
	{ "socket", OPT_SOCKET, "PATH", 0, "Unix socket (default " COOKIE_SOCKET_PATH ")", 0 },
	{ "node-id", OPT_NODE_ID, "N", 0, "This machine's node id, 0-65535: the top 16 bits of its cookies "
	  "(default: the state directory's, 0 for a new one)", 0 },
	{ "tpgen", OPT_TPGEN, NULL, 0, "Also draw a cookie on every tpgen_b event (needs tpgen)", 0 },
	{ "global", OPT_GLOBAL, NULL, 0, "Kernel side: one global fetch-add per cookie, no per-CPU batches", 0 },
	{ "uninstall", OPT_UNINSTALL, NULL, 0, "Detach, remove the pins and the socket, and exit", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Serve metrics at http://ADDR:PORT/metrics (IPv4 or [IPv6])", 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0, "Write metrics to PATH atomically every interval", 0 },
	{ "interval", 'i', "SECS", 0, "Seconds between --textfile writes (default 10)", 0 },
	{ "rate-limit", OPT_RATE, "N[/s]", 0, "Cookies per second each uid but root may draw over the "
	  "socket (default 16384; 0 or unlimited: no limit)", 0 },
	{ "rate-burst", OPT_BURST, "N", 0, "Cookies a uid may draw at once after a pause "
	  "(65536 to 2^48, default 1048576)", 0 },
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
	case OPT_NODE_ID: {
		unsigned int node;

		/* The node file's own parser: the same strict decimal, 0 to 65535. */
		if (strchr(arg, '\n'))
			util_usage_error("cookie-gend", "invalid node id (it has a line break): a whole "
					 "number from 0 to 65535");
		if (cookie_store_parse_node(arg, strlen(arg), &node))
			util_usage_error("cookie-gend", "invalid node id '%s': a whole number from 0 to 65535", arg);
		env.node_id = node;
		break;
	}
	case OPT_LISTEN:
		env.listen = http_listen_option("cookie-gend", arg);
		break;
	case OPT_TEXTFILE:
		env.textfile = http_textfile_option("cookie-gend", arg);
		break;
	case OPT_RATE: {
		const char *why;

		if (cookie_rate_parse_rate(arg, &env.rate, &why))
			util_usage_error("cookie-gend", "invalid --rate-limit '%s': %s", arg, why);
		break;
	}
	case OPT_BURST: {
		const char *why;

		if (cookie_rate_parse_burst(arg, &env.burst, &why))
			util_usage_error("cookie-gend", "invalid --rate-burst '%s': %s", arg, why);
		break;
	}
	case 'i': env.interval = util_parse_interval("cookie-gend", arg); break;
	case ARGP_KEY_ARG:
		util_usage_error("cookie-gend", "unexpected argument '%s'", arg);
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool use_syslog;

void logmsg(int prio, const char *fmt, ...)
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

/* ---- durable high-water mark ---- */

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
		logmsg(LOG_CRIT, "node %u's cookie space is exhausted (sequence %llu): draws are "
		       "refused, never wrapped into another node's", d.node, COOKIE_MARK_MAX - 1);
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
 * returns the error meanwhile. Nothing here can wrap or leave the node's space: marks stay
 * below COOKIE_MARK_MAX, and the limit is node_base plus the mark.
 */
int extend(__u64 need)
{
	__u64 limit = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	__u64 next = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	__u64 base = need > next ? need : next, seq, target;
	int err;

	/*
	 * In the node's space the counter is at least node_base (recover() put it there), so
	 * one comparison catches the top of the space and anything outside it (seq wraps).
	 */
	seq = base - d.node_base;
	if (seq >= COOKIE_MARK_MAX - 1) {
		if (d.save_err != -EOVERFLOW)
			save_failed(-EOVERFLOW);
		return -EOVERFLOW;
	}
	/* The last block is cut at the node's top mark, so every sequence below it is served. */
	target = seq + COOKIE_BLOCK < COOKIE_MARK_MAX ? seq + COOKIE_BLOCK : COOKIE_MARK_MAX - 1;
	if (d.node_base + target <= limit)
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
	__atomic_store_n(&d.st->limit, d.node_base + target, __ATOMIC_SEQ_CST);
	d.extensions++;
	logmsg(LOG_DEBUG, "high-water mark now %llu (cookie %llu)", target, d.node_base + target);
	return 0;
}

/*
 * Keep a block of headroom, so BPF and the fast path rarely see the limit; a refused draw
 * raises need_room, taken down here with an exchange so each request is seen once.
 */
void check_headroom(void)
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
int draw_for_client(__u64 n, __u64 *first)
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
	/* Before the id is created: a refused node id leaves a directory as it was. */
	err = cookie_store_node(&d.store, env.node_id, &d.node, &why);
	if (err == -EEXIST) {
		logmsg(LOG_ERR, "%s belongs to node %u, not %ld: a state directory keeps the node id "
		       "it was first started with (use another directory for another node)",
		       env.state_dir, d.node, env.node_id);
		return EXIT_STATE;
	}
	if (err == -EUCLEAN) {
		logmsg(LOG_ERR, "%s/" COOKIE_NODE_FILE " %s; refusing to guess the node id (restore "
		       "it: the top 16 bits of this machine's cookies)", env.state_dir, why);
		return EXIT_STATE;
	}
	if (err) {
		logmsg(LOG_ERR, "cannot read or create %s/" COOKIE_NODE_FILE ": %s", env.state_dir,
		       strerror(-err));
		return 1;
	}
	d.node_base = COOKIE_NODE_BASE(d.node);
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
	__u64 hw = d.node_base + d.store.highwater, cur, owner = 0;

	if (!__atomic_compare_exchange_n(&d.st->owner, &owner, id, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && owner != id) {
		logmsg(LOG_ERR, "the maps pinned in " COOKIE_PIN_DIR " count for another state "
		       "directory than %s: stop that daemon and run cookie-gend --uninstall first",
		       env.state_dir);
		return -EEXIST;
	}
	/* Our own pins, but a node file changed by hand since: the counter is another node's. */
	if (owner == id && __atomic_load_n(&d.st->node, __ATOMIC_SEQ_CST) != d.node) {
		logmsg(LOG_ERR, "the counter pinned in " COOKIE_PIN_DIR " is node %llu's, but %s "
		       "says node %u: run cookie-gend --uninstall first", d.st->node, env.state_dir,
		       d.node);
		return -EEXIST;
	}
	__atomic_store_n(&d.st->node, d.node, __ATOMIC_SEQ_CST);
	cur = __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST);
	while (cur < hw &&
	       !__atomic_compare_exchange_n(&d.st->next, &cur, hw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	/* A reused map may carry a limit from a mark we cannot see: never trust more than ours. */
	cur = __atomic_load_n(&d.st->limit, __ATOMIC_SEQ_CST);
	if (cur > hw)
		__atomic_store_n(&d.st->limit, hw, __ATOMIC_SEQ_CST);
	logmsg(LOG_INFO, "node %u, high-water mark %llu, counter at %llu", d.node, hw,
	       __atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST));
	/*
	 * A mark that cannot be saved now (a full disk) does not stop the start: draws are
	 * refused, STATS and systemctl status say why, and the tick retries with backoff.
	 */
	extend(__atomic_load_n(&d.st->next, __ATOMIC_SEQ_CST));
	return 0;
}

void notify_systemd(const char *msg)
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

	for (size_t i = 0; i < nr_pin_names; i++)
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

/* The daemon as the socket and the metrics see it (cookie_serve.h). */
static int ops_draw(void *arg, __u64 n, __u64 *first)
{
	return draw_for_client(n, first);
}

static void ops_tick(void *arg)
{
	check_headroom();
	clear_dead_follower();	/* cookie_pins.c */
}

static void ops_snapshot(void *arg, struct cookie_gend_snapshot *g)
{
	struct cookie_state *st = d.st;

	*g = (struct cookie_gend_snapshot){
		.next = __atomic_load_n(&st->next, __ATOMIC_RELAXED),
		.limit = __atomic_load_n(&st->limit, __ATOMIC_RELAXED),
		.highwater = d.store.highwater,
		.node = d.node,
		.fork_cookies = __atomic_load_n(&st->fork_cookies, __ATOMIC_RELAXED),
		.tpgen_cookies = __atomic_load_n(&st->tpgen_cookies, __ATOMIC_RELAXED),
		.denied = __atomic_load_n(&st->denied, __ATOMIC_RELAXED),
		.batches = __atomic_load_n(&st->batches, __ATOMIC_RELAXED),
		.events_lost = __atomic_load_n(&st->events_lost, __ATOMIC_RELAXED),
		.room_requests = __atomic_load_n(&st->room_requests, __ATOMIC_RELAXED),
		.extensions = d.extensions,
		.state_errors = d.save_errors,
		.state_err = d.save_err,
		.batched = !env.global,
	};
}

static const struct cookie_gend_ops ops = {
	.draw = ops_draw, .tick = ops_tick, .snapshot = ops_snapshot,
	.log = logmsg, .notify = notify_systemd,
};

static struct cookie_server server;

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	int lock_fd, lfd, err, ready[2] = { -1, -1 };
	struct cookie_metrics metrics = {
		.ops = &ops, .serve = &server.stats,
	};
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
	/* Before anything is loaded too: an address that cannot be had changes nothing. */
	metrics.listen = env.listen;
	metrics.textfile = env.textfile;
	metrics.interval = env.interval;
	if (cookie_metrics_open(&metrics))
		return 1;

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
	server.socket = env.socket;
	server.task_fd = d.task_fd;
	server.ops = &ops;
	server.metrics = &metrics;
	cookie_rate_init(&server.rate, env.rate, env.burst);
	lfd = cookie_serve_listen(&server);
	if (lfd < 0) {
		logmsg(LOG_ERR, "cannot listen on %s: %s", env.socket, strerror(-lfd));
		return 1;
	}
	err = cookie_serve(&server, lfd, ready[1]);
	cookie_metrics_close(&metrics);
	if (!check_socket_path(env.socket))
		unlink(env.socket);
	if (err)
		logmsg(LOG_ERR, "event loop failed: %s", strerror(-err));
	return err ? 1 : 0;
}
