// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend: hands out globally unique 64-bit cookies from one BPF counter shared with
 * BPF programs (task cookies at fork, tpgen_b events) and libcookie's fast path.
 *
 * This file has the options and the start-up order; each part it starts is a file of its
 * own, and none of them calls back into this one:
 *   cookie_daemon.c the daemon while it serves: the draw, the tick and the snapshot that the
 *                   socket, its loop and the metrics are handed (struct cookie_gend_ops)
 *   cookie_mark.c   the durable mark: the state directory checked, the counter recovered,
 *                   the limit extended behind the mark, draws for clients, --raise-mark
 *   cookie_fleet_*.c  --etcd: the node id claimed in etcd, ranges reserved there first
 *   cookie_pins.c   the BPF side: load, reuse the pinned maps (replacing an older layout's),
 *                   keep or replace pinned links, the one follower of the events
 *   cookie_serve.c  the socket: clients, their bounds, requests (cookie_serve.h)
 *   cookie_rate.c   the socket's per-uid rate limit (cookie_rate.h)
 *   cookie_metrics.c  the statistics for Prometheus, served and written by metrics_export.c
 *   cookie_loop.c   the socket, the metrics and the tick on the run loop (runloop.c)
 *   daemon_log.c    the log (stderr, then syslog) and sd_notify
 * The socket, its loop and the metrics see the daemon only through struct cookie_gend_ops,
 * which this file fills in with cookie_daemon.c's functions: their calls go down to the mark,
 * the pins and the fleet, never back up here. The durable state files themselves are cookie_store.c; the
 * protocol is cookie_proto.c.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "src/libcookie.h"
#include "src/cookie_daemon.h"
#include "src/cookie_loop.h"
#include "src/cookie_fleet.h"
#include "src/cookie_mark.h"
#include "src/cookie_metrics.h"
#include "src/cookie_pins.h"
#include "src/cookie_serve.h"
#include "src/daemon_log.h"
#include "src/metrics_export.h"
#include "src/bpf_util.h"
#include "src/cli.h"

#define INSTANCE_LOCK		"/run/bareatom/cookie-gend.lock"

_Static_assert(COOKIE_GET_MAX == COOKIE_DRAW_MAX, "GET and the fast path share one bound");

/* The command line: filled in by argp, read-only after. */
struct gend_opts {
	bool foreground;
	bool verbose;
	bool tpgen;
	bool global;
	bool uninstall;
	bool raise;		/* --raise-mark */
	unsigned long long raise_mark;
	const char *state_dir;
	const char *socket;
	long node_id;		/* --node-id, or -1: the state directory's */
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
	double interval;	/* seconds between textfile writes */
	uint64_t rate, burst;	/* --rate-limit (0: unlimited), --rate-burst */
	struct cookie_fleet_conf etcd;	/* --etcd (urls NULL: none) and its options */
};

const char *argp_program_version = "cookie-gend (bareatom) 0.1";
static const char doc[] =
"Serve globally unique 64-bit cookies from a BPF counter shared with the\n"
"kernel.\n"
"\n"
"USAGE: cookie-gend [--foreground] [--state-dir DIR] [--socket PATH]\n"
"                   [--node-id N] [--tpgen] [--global] [--listen ADDR:PORT]\n"
"                   [--textfile PATH [-i SECS]]\n"
"                   [--rate-limit N[/s] | unlimited] [--rate-burst N]\n"
"       cookie-gend --uninstall\n"
"       cookie-gend --raise-mark COOKIE [--state-dir DIR]\n"
"       cookie-gend --etcd URL[,URL...] [--etcd-prefix P] [--etcd-ids LO-HI]\n"
"                   [--etcd-ttl SECS] [--etcd-reserve N] [--etcd-wait SECS]\n"
"                   [--etcd-move] ...\n"
"\n"
"Every new task gets a cookie at fork (kept in BPF task local storage);\n"
"clients get ranges over the socket (GET N, PID P, STATS; one request per\n"
"line); root may draw directly from the pinned counter (libcookie). Cookies\n"
"are never 0 and never repeat, across CPUs, kernel and user space, daemon\n"
"crashes and reboots: the state directory keeps a durable high-water mark\n"
"that is fsynced before any cookie beyond it is given.\n"
"\n"
"--node-id N (0 to 65535) puts N in the top 16 bits of every cookie, so\n"
"machines with distinct node ids never hand out the same one; each node owns\n"
"2^48 values (sequence 0 is never a cookie). The state directory keeps the\n"
"node id it was first started with and refuses another (exit 78).\n"
"\n"
"--etcd claims the node id from etcd instead (the state directory's, or\n"
"--node-id's, or a free one of --etcd-ids from a random start): P node/N\n"
"under a lease of --etcd-ttl seconds (default 15), kept alive. Each range of\n"
"--etcd-reserve cookies (default 2^28) is reserved in etcd, P highwater/N\n"
"raised by a txn that compares the claim, before any of it is served.\n"
"Uniqueness rests on that txn alone, never on clocks or the lease's timing.\n"
"etcd unreachable at start for --etcd-wait seconds (default 30): exit 75;\n"
"while running: the reserved range is served, then draws are refused until\n"
"etcd reserves again. An id another holder claimed while this daemon could\n"
"not keep it: the daemon claims a free one of --etcd-ids and moves to it\n"
"(state directory, counter, BPF). The state directory's node held by\n"
"another directory at start (without --etcd-move), or a P highwater/N that\n"
"is not a mark: exit 78.\n"
"\n"
"Maps and links are pinned under " COOKIE_PIN_DIR " and reused on\n"
"restart; only one instance runs per machine. --uninstall detaches the\n"
"programs and removes the pins and the socket (the state directory is kept:\n"
"it is what keeps cookies unique). A daemon that finds pins of an older\n"
"layout (an upgrade) replaces them itself, its counter started above\n"
"everything the old one could have handed out.\n"
"\n"
"The state directory must be owned by root and not writable by group or\n"
"other, and so must its files; it is locked while a daemon uses it. A lost or\n"
"corrupt high-water mark refuses the start (exit 78): a mark restored from a\n"
"backup is too low by itself. --raise-mark COOKIE, with the daemon stopped,\n"
"raises the mark so that the next cookie handed out is COOKIE or above:\n"
"COOKIE is a whole cookie of this directory's node (node bits included, as\n"
"cookie prints it) above every cookie this node ever handed out, e.g. the\n"
"newest one seen anywhere plus a margin. A mark is never lowered.\n"
"\n"
"Socket draws are limited per uid (root excepted: it has the fast path) by a\n"
"token bucket: --rate-limit cookies per second (default 16384; 0 or\n"
"unlimited: none) and --rate-burst at once after a pause (default 1048576).\n"
"At 16384/s one uid needs 2^48 / 2^14 s, about 544 years, to use up a node's\n"
"space. A refused request gets 'ERR rate limited: ...' and the connection\n"
"stays usable.\n"
"\n"
"--listen serves the statistics for Prometheus at http://ADDR:PORT/metrics\n"
"(OpenMetrics, or text 0.0.4); --textfile writes them atomically every\n"
"-i SECS (default 10) for node_exporter's textfile collector.\n"
"\n"
"EXAMPLES:\n"
"  cookie-gend --foreground -v        # run in the terminal, log to stderr\n"
"  cookie-gend --node-id 7            # this machine is node 7 of a fleet\n"
"  cookie-gend --etcd http://10.0.0.1:2379,http://10.0.0.2:2379\n"
"  systemctl start cookie-gend        # as the image runs it (Type=notify)\n"
"  cookie -n 3; cookie --pid $$; cookie --stats\n"
"  cookie-gend -f --listen 127.0.0.1:9464 &\n"
"  curl http://127.0.0.1:9464/metrics\n"
"  cookie-gend --raise-mark 1000000000000  # the mark was lost: give one\n"
"                                          # above the newest cookie seen\n";

enum { OPT_STATE = 256, OPT_SOCKET, OPT_TPGEN, OPT_GLOBAL, OPT_UNINSTALL, OPT_NODE_ID, OPT_LISTEN,
       OPT_TEXTFILE, OPT_RATE, OPT_BURST, OPT_RAISE_MARK, OPT_ETCD, OPT_ETCD_PREFIX, OPT_ETCD_TTL,
       OPT_ETCD_RESERVE, OPT_ETCD_WAIT, OPT_NODE_IDS, OPT_ETCD_MOVE };

static const struct argp_option opts[] = {
	{ "foreground", 'f', NULL, 0, "Stay in the foreground and log to stderr", 0 },
	{ "state-dir", OPT_STATE, "DIR", 0, "Durable state (default /var/lib/bareatom/cookie)", 0 },
	{ "socket", OPT_SOCKET, "PATH", 0, "Unix socket (default " COOKIE_SOCKET_PATH ")", 0 },
	{ "node-id", OPT_NODE_ID, "N", 0, "This machine's node id, 0-65535: the top 16\n"
	  "bits of its cookies (default: the state\n"
	  "directory's, 0 for a new one)", 0 },
	{ "tpgen", OPT_TPGEN, NULL, 0, "Also draw a cookie on every tpgen_b event\n(needs tpgen)", 0 },
	{ "global", OPT_GLOBAL, NULL, 0, "Kernel side: one global fetch-add per cookie,\nno per-CPU batches", 0 },
	{ "uninstall", OPT_UNINSTALL, NULL, 0, "Detach, remove the pins and the socket, and exit", 0 },
	{ "raise-mark", OPT_RAISE_MARK, "COOKIE", 0, "With the daemon stopped, raise the high-water\n"
	  "mark so the next cookie is COOKIE or above (a\n"
	  "cookie of this node, above all it handed out)", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Serve metrics at http://ADDR:PORT/metrics\n(ADDR: IPv4, [IPv6] or a host name)", 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0, "Write metrics to PATH atomically every interval", 0 },
	{ "interval", 'i', "SECS", 0, "Seconds between --textfile writes (default 10)", 0 },
	{ "rate-limit", OPT_RATE, "N[/s]", 0, "Cookies per second each uid but root may draw\n"
	  "over the socket (default 16384; 0 or\n"
	  "unlimited: no limit)", 0 },
	{ "rate-burst", OPT_BURST, "N", 0, "Cookies a uid may draw at once after a pause\n"
	  "(65536 to 2^48, default 1048576)", 0 },
	{ "etcd", OPT_ETCD, "URL[,URL..]", 0, "Claim the node id and reserve ranges in etcd\n"
	  "(http://HOST:PORT of its members)", 0 },
	{ "etcd-prefix", OPT_ETCD_PREFIX, "P", 0, "etcd key prefix (default " FLEET_PREFIX_DEFAULT ")", 0 },
	{ "etcd-ttl", OPT_ETCD_TTL, "SECS", 0, "The claim's lease TTL, 2-3600 (default 15)", 0 },
	{ "etcd-reserve", OPT_ETCD_RESERVE, "N", 0, "Cookies reserved in etcd per txn, 1 to 2^40\n"
	  "(default 2^28)", 0 },
	{ "etcd-wait", OPT_ETCD_WAIT, "SECS", 0, "How long etcd may be unreachable at start\n"
	  "(default 30; then exit 75)", 0 },
	{ "etcd-ids", OPT_NODE_IDS, "LO-HI", 0, "The ids --etcd may claim for a new state\n"
	  "directory or move to (default 0-65535)", 0 },
	{ "etcd-move", OPT_ETCD_MOVE, NULL, 0, "At start too: move a state directory whose id\n"
	  "another directory holds in etcd to a free\n"
	  "id (default: exit 78)", 0 },
	{ "verbose", 'v', NULL, 0, "Log more, including libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct gend_opts *o = state->input;

	switch (key) {
	case 'f': o->foreground = true; break;
	case 'v': o->verbose = true; break;
	case OPT_STATE: o->state_dir = arg; break;
	case OPT_SOCKET: o->socket = arg; break;
	case OPT_TPGEN: o->tpgen = true; break;
	case OPT_GLOBAL: o->global = true; break;
	case OPT_UNINSTALL: o->uninstall = true; break;
	case OPT_NODE_ID: {
		unsigned int node;

		/* The node file's own parser: the same strict decimal, 0 to 65535. */
		if (strchr(arg, '\n'))
			cli_usage_error("cookie-gend", "invalid node id (it has a line break): a whole "
					"number from 0 to 65535");
		if (cookie_store_parse_node(arg, strlen(arg), &node))
			cli_usage_error("cookie-gend", "invalid node id '%s': a whole number from 0 to 65535", arg);
		o->node_id = node;
		break;
	}
	case OPT_RAISE_MARK: {
		unsigned long long v = 0;
		size_t i;

		/* Strict decimal: no sign, blank or base prefix, and no wrap. */
		if (strchr(arg, '\n'))
			cli_usage_error("cookie-gend", "invalid --raise-mark (it has a line break): a "
					"cookie, a whole number from 1 to 2^64 - 1");
		for (i = 0; arg[i] >= '0' && arg[i] <= '9'; i++) {
			if (v > (~0ULL - (arg[i] - '0')) / 10)
				break;
			v = v * 10 + (arg[i] - '0');
		}
		if (!i || arg[i])
			cli_usage_error("cookie-gend", "invalid --raise-mark '%s': a cookie, a whole "
					"number from 1 to 2^64 - 1", arg);
		o->raise_mark = v;
		o->raise = true;
		break;
	}
	case OPT_LISTEN:
		o->listen = cli_listen_option("cookie-gend", arg);
		break;
	case OPT_TEXTFILE:
		o->textfile = cli_textfile_option("cookie-gend", arg);
		break;
	case OPT_RATE: {
		const char *why;

		if (cookie_rate_parse_rate(arg, &o->rate, &why))
			cli_usage_error("cookie-gend", "invalid --rate-limit '%s': %s", arg, why);
		break;
	}
	case OPT_BURST: {
		const char *why;

		if (cookie_rate_parse_burst(arg, &o->burst, &why))
			cli_usage_error("cookie-gend", "invalid --rate-burst '%s': %s", arg, why);
		break;
	}
	case 'i': o->interval = cli_parse_interval("cookie-gend", arg); break;
	case OPT_ETCD: o->etcd.urls = arg; break;
	case OPT_ETCD_PREFIX: o->etcd.prefix = arg; break;
	case OPT_ETCD_TTL: {
		unsigned long long v;

		if (cookie_fleet_parse_u64(arg, FLEET_TTL_MIN, FLEET_TTL_MAX, &v))
			cli_usage_error("cookie-gend", "invalid --etcd-ttl '%s': whole seconds from %d to %d",
					arg, FLEET_TTL_MIN, FLEET_TTL_MAX);
		o->etcd.ttl = v;
		break;
	}
	case OPT_ETCD_RESERVE: {
		unsigned long long v;

		if (cookie_fleet_parse_u64(arg, 1, 1ULL << 40, &v))
			cli_usage_error("cookie-gend", "invalid --etcd-reserve '%s': a whole number from 1 "
					"to 2^40", arg);
		o->etcd.reserve = v;
		break;
	}
	case OPT_ETCD_WAIT:
		if (cli_parse_seconds(arg, &o->etcd.wait) || o->etcd.wait > 86400)
			cli_usage_error("cookie-gend", "invalid --etcd-wait '%s': seconds, 0 to 86400", arg);
		break;
	case OPT_ETCD_MOVE: o->etcd.move = true; break;
	case OPT_NODE_IDS:
		if (cookie_fleet_parse_ids(arg, &o->etcd.id_lo, &o->etcd.id_hi))
			cli_usage_error("cookie-gend", "invalid --etcd-ids '%s': LO-HI, 0 <= LO <= HI <= 65535",
					arg);
		break;
	case ARGP_KEY_ARG:
		cli_usage_error("cookie-gend", "unexpected argument '%s'", arg);
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
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

static int uninstall(const struct gend_opts *o)
{
	const struct cookie_pins pins = { .log = daemon_log };
	int err;

	cookie_pins_remove(&pins);
	err = check_socket_path(o->socket);
	if (err == -EEXIST)
		fprintf(stderr, "cookie-gend: %s is not a socket: left as it is\n", o->socket);
	else if (!err)
		unlink(o->socket);
	printf("cookie-gend: detached and unpinned; the high-water mark in %s is kept\n", o->state_dir);
	return err == -EEXIST ? 1 : 0;
}

/*
 * Everything from the BPF side on, once the state directory and the metrics address are
 * had: load and attach, recover the counter, serve on @server until a signal. The exit status.
 */
static int run(const struct gend_opts *o, struct cookie_daemon *d, struct cookie_server *server,
	       struct metrics_export *mx, int ready_fd)
{
	int err;

	d->pins = (struct cookie_pins){ .global = o->global, .tpgen = o->tpgen, .owner = d->mark.id,
					.node = d->mark.node, .replace_stale = d->mark.fleet,
					.log = daemon_log };
	d->batched = !o->global;
	/* An older layout's counter is covered by the mark on disk before its pin goes. */
	err = cookie_pins_probe(&d->pins) ?: cookie_mark_cover(&d->mark, d->pins.old_floor);
	if (err)
		return 1;	/* logged */
	err = cookie_pins_setup(&d->pins);
	if (err == -ECANCELED)
		return 1;	/* pins of a foreign or unreadable counter: refused and logged */
	if (err) {
		daemon_log(LOG_ERR, "cannot load the BPF side: %s", util_bpf_load_hint(err));
		return 1;
	}
	if (cookie_mark_recover(&d->mark, d->pins.st, d->pins.old_floor) ||
	    cookie_pins_attach(&d->pins))
		return 1;
	server->task_fd = d->pins.task_fd;
	cookie_rate_init(&server->rate, o->rate, o->burst);
	err = cookie_serve_open(server);
	if (err) {
		daemon_log(LOG_ERR, "cannot listen on %s: %s", o->socket, strerror(-err));
		return 1;
	}
	err = cookie_loop_run(server, mx, ready_fd);
	cookie_serve_close(server);
	if (!check_socket_path(o->socket))
		unlink(o->socket);
	if (err)
		daemon_log(LOG_ERR, "event loop failed: %s", strerror(-err));
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct gend_opts o = {
		.state_dir = "/var/lib/bareatom/cookie",
		.socket = COOKIE_SOCKET_PATH,
		.node_id = -1,
		.interval = 10,
		.rate = COOKIE_RATE_DEFAULT,
		.burst = COOKIE_BURST_DEFAULT,
		.etcd = { .prefix = FLEET_PREFIX_DEFAULT, .ttl = FLEET_TTL_DEFAULT,
			  .reserve = FLEET_RESERVE_DEFAULT, .wait = FLEET_WAIT_DEFAULT,
			  .id_lo = 0, .id_hi = FLEET_ID_MAX },
	};
	struct cookie_daemon d = { .mark = { .log = daemon_log, .status = daemon_notify } };
	const struct cookie_gend_ops ops = {
		.arg = &d, .draw = cookie_daemon_draw, .tick = cookie_daemon_tick,
		.snapshot = cookie_daemon_snapshot,
		.log = daemon_log, .notify = daemon_notify,
	};
	/* Static for its size (MAX_CLIENTS clients' buffers); only main and what it calls see it. */
	static struct cookie_server server;
	struct metrics_export mx;
	int lock_fd, err, ready[2] = { -1, -1 };

	argp_err_exit_status = 2;
	argv[0] = "cookie-gend";
	if (argp_parse(&argp, argc, argv, 0, NULL, &o))
		return 2;
	daemon_log_init("cookie-gend", o.verbose);
	util_setup_libbpf(o.verbose);
	if (geteuid() != 0) {
		fprintf(stderr, "cookie-gend: must run as root (it pins BPF maps and owns the counter)\n");
		return 2;
	}
	/* Offline: the state directory's own lock keeps a daemon off it meanwhile. */
	if (o.raise)
		return cookie_mark_raise(&d.mark, o.state_dir, o.raise_mark);
	lock_fd = lock_instance();
	if (lock_fd == -EBUSY) {
		fprintf(stderr, "cookie-gend: another cookie-gend is running (lock " INSTANCE_LOCK ")\n");
		return 1;
	}
	if (lock_fd < 0) {
		fprintf(stderr, "cookie-gend: cannot lock " INSTANCE_LOCK ": %s\n", strerror(-lock_fd));
		return 1;
	}
	if (o.uninstall)
		return uninstall(&o);

	if (check_socket_path(o.socket) == -EEXIST) {
		fprintf(stderr, "cookie-gend: %s exists and is not a socket: refusing to replace it\n",
			o.socket);
		return 1;
	}
	/* Before anything is loaded or pinned: a refused start changes nothing. */
	if (o.etcd.urls) {
		d.fleet.log = daemon_log;
		err = cookie_fleet_open(&d.fleet, &o.etcd) ?:
		      cookie_mark_open_fleet(&d.mark, o.state_dir, o.node_id, &d.fleet);
	} else {
		err = cookie_mark_open(&d.mark, o.state_dir, o.node_id);
	}
	if (err)
		return err;
	/* Before anything is loaded too: an address that cannot be had changes nothing. */
	server = (struct cookie_server){ .socket = o.socket, .ops = &ops };
	d.server = &server;
	if (metrics_export_open(&mx, "cookie-gend", o.listen, o.textfile, o.interval,
				cookie_metrics_render, &server))
		return 1;
	mx.log = daemon_log;

	if (!o.foreground) {
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
		daemon_log_to_syslog();
	}
	/* After the fork: the thread that keeps the claim is the daemon's, not the parent's. */
	if (d.mark.fleet && cookie_fleet_start(&d.fleet))
		return 1;
	err = run(&o, &d, &server, &mx, ready[1]);
	if (d.mark.fleet)
		cookie_fleet_stop(&d.fleet);
	return err;
}
