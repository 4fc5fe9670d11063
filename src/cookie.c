// SPDX-License-Identifier: GPL-2.0
/*
 * cookie: draw globally unique cookies from cookie-gend, look up a process's cookie, show the
 * daemon's statistics, or follow the cookies the kernel side draws.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_proto.h"
#include "src/json.h"
#include "src/libcookie.h"
#include "src/runloop.h"
#include "src/cli.h"

enum mode { MODE_GET, MODE_PID, MODE_STATS, MODE_FOLLOW, MODE_DECODE };
enum path { PATH_AUTO, PATH_FAST, PATH_SOCKET };

static struct env {
	enum mode mode;
	enum path path;
	long n;
	long pid;
	long count;
	bool json;
	const char *socket;
	int timeout_ms;		/* --timeout, else $COOKIE_TIMEOUT, else COOKIE_TIMEOUT_MS */
	bool decoding;		/* --decode given */
	uint64_t decode;	/* its cookie */
	int others;		/* options --decode cannot go with */
} env = { .n = 1, .socket = COOKIE_SOCKET_PATH };

const char *argp_program_version = "cookie (bareatom) 0.1";
static const char doc[] =
"Get globally unique 64-bit cookies from cookie-gend.\n"
"\n"
"USAGE: cookie [-n N] [--fast | --socket-only] [-j] [--socket PATH]\n"
"              [--timeout SECS]\n"
"       cookie --pid PID [-j]\n"
"       cookie --stats [-j]\n"
"       cookie --follow [-c COUNT] [-j]\n"
"       cookie --decode COOKIE [-j]\n"
"\n"
"Prints N cookies (1 to 65536), one per line; they are never 0 and never\n"
"handed out again, by the daemon, the kernel or another client. Root draws\n"
"them lock-free from the pinned counter (the fast path) unless --socket-only;\n"
"others ask the daemon's socket (group bareatom).\n"
"\n"
"--pid prints the cookie the process got when it was forked; --stats the\n"
"daemon's counters; --follow the cookies BPF programs draw (fork, tpgen_b),\n"
"as 'KIND PID COOKIE' lines, until Ctrl-C or COUNT of them. --decode splits a\n"
"cookie into its node id (the top 16 bits, cookie-gend --node-id) and its\n"
"sequence (the low 48 bits, never 0); it needs no daemon.\n"
"\n"
"The daemon must answer within --timeout SECS (default 5, or\n"
"$COOKIE_TIMEOUT): a stopped or hung daemon is an error, not a hang. The\n"
"daemon limits each user but root to a rate of cookies per second\n"
"(cookie-gend --rate-limit); past it GET is refused and cookie exits 1.\n"
"\n"
"Exit status: 0 on success, 2 for usage errors, 1 otherwise (daemon not\n"
"running or not answering, rate limited, no such process).\n"
"\n"
"EXAMPLES:\n"
"  cookie                  # one cookie\n"
"  cookie -n 4096 -j       # a range, as JSON: {\"first\":...,\"count\":4096,...}\n"
"  cookie --pid $$         # this shell's cookie\n"
"  cookie --stats\n"
"  cookie --decode 84442493013196801   # node 300, sequence 1\n";

enum { OPT_FAST = 256, OPT_SOCKET_ONLY, OPT_SOCKET, OPT_FOLLOW, OPT_STATS, OPT_DECODE, OPT_TIMEOUT };

static const struct argp_option opts[] = {
	{ "count", 'n', "N", 0, "How many cookies (1-65536, default 1)", 0 },
	{ "pid", 'p', "PID", 0, "Print the cookie of process PID", 0 },
	{ "stats", OPT_STATS, NULL, 0, "Print the daemon's statistics", 0 },
	{ "follow", OPT_FOLLOW, NULL, 0, "Print cookies drawn by the BPF programs as\nthey happen", 0 },
	{ "events", 'c', "COUNT", 0, "With --follow: stop after COUNT cookies", 0 },
	{ "decode", OPT_DECODE, "COOKIE", 0, "Print COOKIE's node id and sequence", 0 },
	{ "fast", OPT_FAST, NULL, 0, "Use the fast path only (root)", 0 },
	{ "socket-only", OPT_SOCKET_ONLY, NULL, 0, "Never use the fast path", 0 },
	{ "socket", OPT_SOCKET, "PATH", 0, "The daemon's socket\n(default " COOKIE_SOCKET_PATH ")", 0 },
	{ "timeout", OPT_TIMEOUT, "SECS", 0, "Wait at most SECS for the daemon (default 5,\n"
	  "or $COOKIE_TIMEOUT; up to 3 decimals)", 0 },
	{ "json", 'j', NULL, 0, "Print JSON", 0 },
	{},
};

static long parse_long(const char *arg, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		cli_usage_error("cookie", "invalid %s '%s': a whole number from %ld to %ld", what, arg, min, max);
	return v;
}

/*
 * A cookie: decimal digits only (no sign, no blanks, no 0x), at most 2^64 - 1, and a
 * sequence that is not 0, since no node ever hands that out (bpf/cookie_abi.h).
 */
static uint64_t parse_cookie(const char *arg)
{
	uint64_t v = 0;
	size_t len = strlen(arg);

	if (strchr(arg, '\n'))
		cli_usage_error("cookie", "invalid cookie (it has a line break): a whole number from 1 to 2^64 - 1");
	if (len == 0 || strspn(arg, "0123456789") != len)
		cli_usage_error("cookie", "invalid cookie '%s': a whole number from 1 to 2^64 - 1", arg);
	for (size_t i = 0; i < len; i++) {
		unsigned int d = arg[i] - '0';

		if (v > (UINT64_MAX - d) / 10)
			cli_usage_error("cookie", "invalid cookie '%s': above 2^64 - 1", arg);
		v = v * 10 + d;
	}
	if (!COOKIE_SEQ_OF(v))
		cli_usage_error("cookie", "'%s' is not a cookie: its sequence (the low 48 bits) is 0, "
				"which no node hands out", arg);
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'n': env.n = parse_long(arg, "count", 1, 65536); env.others++; break;
	case 'p': env.pid = parse_long(arg, "PID", 1, 4194304); env.mode = MODE_PID; env.others++; break;
	case 'c': env.count = parse_long(arg, "event count", 1, LONG_MAX); env.others++; break;
	case 'j': env.json = true; break;
	case OPT_STATS: env.mode = MODE_STATS; env.others++; break;
	case OPT_FOLLOW: env.mode = MODE_FOLLOW; env.others++; break;
	case OPT_FAST: env.path = PATH_FAST; env.others++; break;
	case OPT_SOCKET_ONLY: env.path = PATH_SOCKET; env.others++; break;
	case OPT_SOCKET: env.socket = arg; env.others++; break;
	case OPT_TIMEOUT:
		if (cookie_parse_timeout(arg, &env.timeout_ms))
			cli_usage_error("cookie", "invalid timeout '%s': seconds, more than 0 and at "
					"most 3600, with at most 3 decimals", arg);
		env.others++;
		break;
	case OPT_DECODE:
		if (env.decoding)
			cli_usage_error("cookie", "--decode takes one cookie");
		env.decode = parse_cookie(arg);
		env.decoding = true;
		break;
	case ARGP_KEY_ARG: cli_usage_error("cookie", "unexpected argument '%s'", arg);
	case ARGP_KEY_END: {
		const char *t = getenv("COOKIE_TIMEOUT");

		if (!env.timeout_ms && t && cookie_parse_timeout(t, &env.timeout_ms))
			cli_usage_error("cookie", "invalid COOKIE_TIMEOUT '%s' in the environment: "
					"seconds, more than 0 and at most 3600, with at most 3 decimals", t);
		if (!env.timeout_ms)
			env.timeout_ms = COOKIE_TIMEOUT_MS;
		if (env.decoding && env.others)
			cli_usage_error("cookie", "--decode takes no other option than -j");
		if (env.decoding)
			env.mode = MODE_DECODE;
		break;
	}
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * Advice that works where we are: systemctl only when systemd runs this system (sd_booted(3)
 * checks the same directory), the daemon itself otherwise, with the socket asked for.
 */
static bool under_systemd(void)
{
	return !access("/run/systemd/system", F_OK);
}

static const char *socket_opt(char *buf, size_t len)
{
	if (strcmp(env.socket, COOKIE_SOCKET_PATH))
		snprintf(buf, len, " --socket %s", env.socket);
	else
		buf[0] = '\0';
	return buf;
}

/* A daemon that does not answer in time: stopped (SIGSTOP), hung or overloaded. */
static void timed_out(void)
{
	fprintf(stderr, "cookie: cookie-gend did not answer on %s within %g s (stopped or hung? %s)\n",
		env.socket, env.timeout_ms / 1000.0, under_systemd() ? "systemctl status cookie-gend" :
		"ps -C cookie-gend -o pid,stat: T is stopped, kill -CONT PID");
}

static int connect_daemon(void)
{
	int fd = cookie_connect_timeout(env.socket, env.timeout_ms);
	/* The image's unit serves the default socket; another one is a daemon of the user's. */
	bool unit = under_systemd() && !strcmp(env.socket, COOKIE_SOCKET_PATH);
	char sock[4200];

	if (fd == -ETIMEDOUT)
		timed_out();
	else if (fd == -ENOENT || fd == -ECONNREFUSED)
		fprintf(stderr, "cookie: cookie-gend is not running (no listener on %s; start it: %s%s)\n",
			env.socket, unit ? "systemctl start cookie-gend" : "cookie-gend",
			unit ? "" : socket_opt(sock, sizeof(sock)));
	else if (fd == -EACCES)
		fprintf(stderr, "cookie: permission denied on %s (join group bareatom)\n", env.socket);
	else if (fd < 0)
		fprintf(stderr, "cookie: cannot connect to %s: %s\n", env.socket, strerror(-fd));
	return fd;
}

static void print_range(uint64_t first, long n, const char *source)
{
	struct json j;

	if (env.json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_u64_field(&j, "first", first);
		json_i64_field(&j, "count", n);
		json_u64_field(&j, "last", first + n - 1);
		json_string_field(&j, "source", source);
		json_object_end(&j);
		return;
	}
	for (long i = 0; i < n; i++)
		printf("%" PRIu64 "\n", first + i);
}

static int do_get(void)
{
	struct cookie_fast f;
	uint64_t first;
	int fd, err;

	if (env.path != PATH_SOCKET) {
		err = cookie_fast_open(&f);
		if (!err) {
			err = cookie_fast_get(&f, env.n, &first);
			cookie_fast_close(&f);
			if (!err) {
				print_range(first, env.n, "fast");
				return 0;
			}
		}
		if (env.path == PATH_FAST) {
			fprintf(stderr, "cookie: the fast path is unavailable: %s\n",
				err == -EAGAIN ? "the counter is at the durable limit (the daemon raises it)" :
				err == -EPERM || err == -EACCES ? "needs root" :
				err == -ENOENT ? "cookie-gend has not pinned its counter" : strerror(-err));
			return 1;
		}
	}
	fd = connect_daemon();
	if (fd < 0)
		return 1;
	err = cookie_get(fd, env.n, &first);
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out();
		return 1;
	}
	if (err == -EAGAIN) {
		fprintf(stderr, "cookie: the daemon refused GET %ld: this user's rate limit is used up "
			"(cookie-gend --rate-limit); retry later\n", env.n);
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: the daemon did not serve GET %ld: %s\n", env.n,
			err == -EPROTO ? "it answered ERR" : strerror(-err));
		return 1;
	}
	print_range(first, env.n, "socket");
	return 0;
}

static int do_pid(void)
{
	uint64_t c;
	int fd = connect_daemon(), err;
	struct json j;

	if (fd < 0)
		return 1;
	err = cookie_pid(fd, env.pid, &c);
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out();
		return 1;
	}
	if (err == -ESRCH) {
		fprintf(stderr, "cookie: no such process: %ld\n", env.pid);
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: cannot get the cookie of %ld: %s\n", env.pid, strerror(-err));
		return 1;
	}
	if (env.json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_i64_field(&j, "pid", env.pid);
		json_u64_field(&j, "cookie", c);
		json_object_end(&j);
	} else
		printf("%" PRIu64 "\n", c);
	return 0;
}

static void print_stat(void *arg, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct json *j = arg;
	char name[64], word[64];

	if (!env.json) {
		printf("%-14.*s %.*s\n", (int)klen, key, (int)vlen, val);
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)klen, key);
	snprintf(word, sizeof(word), "%.*s", (int)vlen, val);
	/* Numbers stay numbers; words (state_error=ENOSPC) become strings. */
	if (vlen && strspn(word, "0123456789") >= vlen && vlen <= 20)
		json_u64_field(j, name, strtoull(word, NULL, 10));
	else
		json_string_field(j, name, word);
}

static void skip_stat(void *arg, const char *key, size_t klen, const char *val, size_t vlen)
{
}

static int do_stats(void)
{
	char reply[1024];
	int fd = connect_daemon(), err;
	struct json j;

	if (fd < 0)
		return 1;
	err = cookie_request(fd, "STATS", reply, sizeof(reply));
	close(fd);
	if (err == -ETIMEDOUT) {
		timed_out();
		return 1;
	}
	if (err) {
		fprintf(stderr, "cookie: STATS failed: %s\n", err == -EPROTO ? reply : strerror(-err));
		return 1;
	}
	if (cookie_parse_stats(reply, skip_stat, NULL)) {
		fprintf(stderr, "cookie: the daemon's STATS reply is malformed: %.80s\n", reply);
		return 1;
	}
	json_init(&j, stdout);
	if (env.json)
		json_object_begin(&j);
	cookie_parse_stats(reply, print_stat, &j);
	if (env.json)
		json_object_end(&j);
	return 0;
}

static long followed;
static bool draining;	/* events from before this follower started: read and dropped */

static int on_event(void *ctx, void *data, size_t len)
{
	const struct cookie_event *ev = data;
	const char *kind = ev->kind == COOKIE_EVENT_FORK ? "fork" : "tpgen";
	struct json j;

	if (len < sizeof(*ev) || draining)
		return 0;
	if (env.json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_string_field(&j, "kind", kind);
		json_u64_field(&j, "pid", ev->pid);
		json_u64_field(&j, "cookie", ev->cookie);
		json_object_end(&j);
	} else {
		printf("%s %u %llu\n", kind, ev->pid, (unsigned long long)ev->cookie);
	}
	/* -c COUNT: not one record more (libbpf goes on after a positive return, not a negative). */
	if (env.count && ++followed >= env.count)
		return -ECANCELED;
	return 0;
}

struct follow {
	struct ring_buffer *rb;
	struct runloop *rl;
	int err;
};

/* The ring buffer's epoll fd is ready: print what is there, stop at -c or an error. */
static void on_ready(int fd, short revents, void *arg)
{
	struct follow *fw = arg;
	int n = ring_buffer__consume(fw->rb);

	fflush(stdout);
	if (n < 0 && n != -EINTR && n != -ECANCELED)
		fw->err = n;
	if (fw->err || (env.count && followed >= env.count))
		runloop_stop(fw->rl);
}

/*
 * One follower at a time, so that it sees every event: the lock below (held while it
 * runs, gone with it) and its pid in the pinned follower map, which the programs read
 * before each event they report (bpf/cookie.bpf.c). cookie-gend clears a pid whose lock
 * is free (a SIGKILLed follower), so nothing is written for nobody. The lock is taken
 * with a few retries: cookie-gend holds it for that check, a few microseconds.
 */
static int follow_lock(int map_fd)
{
	__u32 zero = 0, pid = 0;
	int fd;

	mkdir("/run/bareatom", 0755);	/* a daemon on another --socket may not have made it */
	fd = open(COOKIE_FOLLOW_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "cookie: cannot open %s: %s\n", COOKIE_FOLLOW_LOCK, strerror(errno));
		return -1;
	}
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		if (errno != EWOULDBLOCK || i == 50) {
			if (errno == EWOULDBLOCK) {
				bpf_map_lookup_elem(map_fd, &zero, &pid);
				fprintf(stderr, "cookie: another cookie --follow (pid %u) is following the "
					"events: one follower at a time\n", pid);
			} else {
				fprintf(stderr, "cookie: cannot lock %s: %s\n", COOKIE_FOLLOW_LOCK,
					strerror(errno));
			}
			close(fd);
			return -1;
		}
		usleep(2000);
	}
	return fd;
}

static int set_follower(int map_fd, __u32 pid)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, &pid, BPF_ANY) ? -errno : 0;
}

static int do_follow(void)
{
	int fd = bpf_obj_get(COOKIE_PIN_DIR "/events"), map_fd, lock_fd, err;
	struct follow fw = {};
	struct runloop rl;

	if (fd < 0) {
		fprintf(stderr, "cookie: cannot open " COOKIE_PIN_DIR "/events: %s\n",
			errno == ENOENT ? "cookie-gend is not running" :
			errno == EACCES || errno == EPERM ? "needs root" : strerror(errno));
		return 1;
	}
	map_fd = bpf_obj_get(COOKIE_PIN_DIR "/follower");
	if (map_fd < 0) {
		fprintf(stderr, "cookie: cannot open " COOKIE_PIN_DIR "/follower: %s\n",
			errno == ENOENT ? "this cookie-gend predates single followers: restart it" :
			strerror(errno));
		close(fd);
		return 1;
	}
	lock_fd = follow_lock(map_fd);
	if (lock_fd < 0) {
		close(map_fd);
		close(fd);
		return 1;
	}
	fw.rb = ring_buffer__new(fd, on_event, NULL, NULL);
	if (!fw.rb) {
		fprintf(stderr, "cookie: cannot read the ring buffer: %s\n", strerror(errno));
		err = 1;
		goto out;
	}
	/*
	 * From when we start: nothing is written while the follower is 0, so what the ring
	 * holds now is older than us (a follower that died, or stopped at -c): drop it.
	 */
	err = set_follower(map_fd, 0);
	draining = true;
	if (!err && ring_buffer__consume(fw.rb) >= 0)
		err = set_follower(map_fd, getpid());
	draining = false;
	if (err) {
		fprintf(stderr, "cookie: cannot register as the follower: %s\n", strerror(-err));
		err = 1;
		goto out;
	}
	runloop_init(&rl, "cookie", 0, 0, false);
	fw.rl = &rl;
	err = runloop_watch_fd(&rl, ring_buffer__epoll_fd(fw.rb), POLLIN, on_ready, &fw);
	if (err) {
		fprintf(stderr, "cookie: cannot wait for the ring buffer: %s\n", strerror(-err));
		fw.err = err;
	} else {
		while (runloop_next(&rl) != RUNLOOP_STOP)
			;
	}
	set_follower(map_fd, 0);
	/* Drain what is already there, so a stop loses nothing that was drawn before it. */
	if (!fw.err && !(env.count && followed >= env.count))
		ring_buffer__consume(fw.rb);
	fflush(stdout);
	runloop_finish(&rl);
	if (fw.err)
		fprintf(stderr, "cookie: reading the ring buffer failed: %s\n", strerror(-fw.err));
	err = fw.err ? 1 : 0;
out:
	ring_buffer__free(fw.rb);
	close(lock_fd);
	close(map_fd);
	close(fd);
	return err;
}

/* Node and sequence: the layout every drawer produces (bpf/cookie_abi.h). No daemon needed. */
static int do_decode(void)
{
	uint64_t c = env.decode;

	if (env.json) {
		printf("{\"cookie\":%" PRIu64 ",\"node\":%llu,\"sequence\":%llu}\n", c,
		       (unsigned long long)COOKIE_NODE_OF(c), (unsigned long long)COOKIE_SEQ_OF(c));
		return 0;
	}
	printf("cookie         %" PRIu64 "\nnode           %llu\nsequence       %llu\n", c,
	       (unsigned long long)COOKIE_NODE_OF(c), (unsigned long long)COOKIE_SEQ_OF(c));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };

	argp_err_exit_status = 2;
	argv[0] = "cookie";
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	libbpf_set_print(NULL);
	switch (env.mode) {
	case MODE_PID: return do_pid();
	case MODE_STATS: return do_stats();
	case MODE_FOLLOW: return do_follow();
	case MODE_DECODE: return do_decode();
	default: return do_get();
	}
}
