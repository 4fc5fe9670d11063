// SPDX-License-Identifier: GPL-2.0
/*
 * cookie: draw globally unique cookies from cookie-gend, look up a process's cookie, show the
 * daemon's statistics, or follow the cookies the kernel side draws.
 *
 * This file is the command line: the options into a struct cookie_opts, then one command
 * of cookie_cmd.h (cookie_cmd.c, cookie_follow.c), which is given it.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_cmd.h"
#include "src/libcookie.h"
#include "src/cli.h"

/* What the parser fills in: the options, and what it checks them with at the end. */
struct parse {
	struct cookie_opts o;
	bool decoding;		/* --decode given */
	int others;		/* options --decode cannot go with */
};

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
	struct parse *p = state->input;

	switch (key) {
	case 'n': p->o.n = parse_long(arg, "count", 1, 65536); p->others++; break;
	case 'p': p->o.pid = parse_long(arg, "PID", 1, 4194304); p->o.mode = MODE_PID; p->others++; break;
	case 'c': p->o.count = parse_long(arg, "event count", 1, LONG_MAX); p->others++; break;
	case 'j': p->o.json = true; break;
	case OPT_STATS: p->o.mode = MODE_STATS; p->others++; break;
	case OPT_FOLLOW: p->o.mode = MODE_FOLLOW; p->others++; break;
	case OPT_FAST: p->o.path = PATH_FAST; p->others++; break;
	case OPT_SOCKET_ONLY: p->o.path = PATH_SOCKET; p->others++; break;
	case OPT_SOCKET: p->o.socket = arg; p->others++; break;
	case OPT_TIMEOUT:
		if (cookie_parse_timeout(arg, &p->o.timeout_ms))
			cli_usage_error("cookie", "invalid timeout '%s': seconds, more than 0 and at "
					"most 3600, with at most 3 decimals", arg);
		p->others++;
		break;
	case OPT_DECODE:
		if (p->decoding)
			cli_usage_error("cookie", "--decode takes one cookie");
		p->o.decode = parse_cookie(arg);
		p->decoding = true;
		break;
	case ARGP_KEY_ARG: cli_usage_error("cookie", "unexpected argument '%s'", arg);
	case ARGP_KEY_END: {
		const char *t = getenv("COOKIE_TIMEOUT");

		if (!p->o.timeout_ms && t && cookie_parse_timeout(t, &p->o.timeout_ms))
			cli_usage_error("cookie", "invalid COOKIE_TIMEOUT '%s' in the environment: "
					"seconds, more than 0 and at most 3600, with at most 3 decimals", t);
		if (!p->o.timeout_ms)
			p->o.timeout_ms = COOKIE_TIMEOUT_MS;
		if (p->decoding && p->others)
			cli_usage_error("cookie", "--decode takes no other option than -j");
		if (p->decoding)
			p->o.mode = MODE_DECODE;
		break;
	}
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct parse p = { .o = { .n = 1, .socket = COOKIE_SOCKET_PATH } };
	const struct cookie_opts *o = &p.o;

	argp_err_exit_status = 2;
	argv[0] = "cookie";
	if (argp_parse(&argp, argc, argv, 0, NULL, &p))
		return 2;
	libbpf_set_print(NULL);
	switch (o->mode) {
	case MODE_PID: return cookie_cmd_pid(o);
	case MODE_STATS: return cookie_cmd_stats(o);
	case MODE_FOLLOW: return cookie_cmd_follow(o);
	case MODE_DECODE: return cookie_cmd_decode(o);
	default: return cookie_cmd_get(o);
	}
}
