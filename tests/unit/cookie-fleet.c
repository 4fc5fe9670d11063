// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-fleet: cookie-gend --etcd without BPF, for tests/unit/cookie-fleet.t. The daemon's
 * own code (cookie_mark*.c's state directory and draws, cookie_fleet_*.c's claim, reservations
 * and keepalive thread, etcd.c) on a struct cookie_state in memory instead of the pinned
 * map: the same start (cookie_mark_open_fleet(), cookie_mark_recover(), cookie_fleet_start())
 * and the same tick (cookie_mark_headroom()) as cookie-gend. It draws as clients do, in
 * turn through the socket's path (cookie_mark_draw()) and the fast path's and BPF's
 * (cookie_draw() of bpf/cookie_limit.h), and writes every range it served, before counting
 * it served, to --out as "FIRST N" lines (write(2): a SIGKILL loses none).
 *
 *   cookie-fleet --etcd URLS --state-dir DIR --out FILE [--node-id N] [--etcd-ids LO-HI]
 *                [--prefix P] [--ttl S] [--reserve N] [--wait S] [--chunk N] [--etcd-move]
 *
 * stdout, one line per change: "node N" once claimed, "serving", "refusing: WHY", "moved to
 * node N above H" when its id was taken and it moved to another (H: the new id's mark in
 * etcd when claimed, the sequence it serves from at the least), and at SIGTERM
 * "exit served=S refused=R reserved=H" (H: the sequence reserved up to). The exit status
 * is cookie-gend's for a refused start.
 *
 * A move gives it a fresh counter, as cookie-gend's gives the pins a fresh map
 * (cookie_pins_renew()): the old one is left with its limit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "bpf/cookie_limit.h"
#include "src/cookie_fleet.h"
#include "src/cookie_mark.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static void logto(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "cookie-fleet[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void no_status(const char *msg)
{
}

static void usage(void)
{
	fprintf(stderr, "usage: cookie-fleet --etcd URLS --state-dir DIR --out FILE [--node-id N] "
		"[--etcd-ids LO-HI] [--prefix P] [--ttl S] [--reserve N] [--wait S] [--chunk N] "
		"[--etcd-move]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "etcd", 1, NULL, 'e' }, { "state-dir", 1, NULL, 'd' }, { "out", 1, NULL, 'o' },
		{ "node-id", 1, NULL, 'n' }, { "etcd-ids", 1, NULL, 'I' }, { "prefix", 1, NULL, 'p' },
		{ "ttl", 1, NULL, 't' }, { "reserve", 1, NULL, 'r' }, { "wait", 1, NULL, 'w' },
		{ "chunk", 1, NULL, 'c' }, { "etcd-move", 0, NULL, 'M' }, {},
	};
	struct cookie_fleet_conf conf = {
		.prefix = FLEET_PREFIX_DEFAULT, .ttl = FLEET_TTL_DEFAULT, .reserve = FLEET_RESERVE_DEFAULT,
		.wait = FLEET_WAIT_DEFAULT, .id_lo = 0, .id_hi = FLEET_ID_MAX,
	};
	static struct cookie_fleet fleet;
	static struct cookie_mark mark;
	static struct cookie_state counters[2];
	struct cookie_state *st = &counters[0];
	const char *dir = NULL, *out = NULL;
	unsigned long long v, chunk = 1000, served = 0, refused = 0;
	long node = -1;
	int c, fd, err, refusing = -1;
	struct timespec pace = { 0, 2000000 };

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': conf.urls = optarg; break;
		case 'd': dir = optarg; break;
		case 'o': out = optarg; break;
		case 'p': conf.prefix = optarg; break;
		case 'n':
			if (cookie_fleet_parse_u64(optarg, 0, FLEET_ID_MAX, &v))
				usage();
			node = v;
			break;
		case 'I':
			if (cookie_fleet_parse_ids(optarg, &conf.id_lo, &conf.id_hi))
				usage();
			break;
		case 't':
			if (cookie_fleet_parse_u64(optarg, FLEET_TTL_MIN, FLEET_TTL_MAX, &v))
				usage();
			conf.ttl = v;
			break;
		case 'r':
			if (cookie_fleet_parse_u64(optarg, 1, 1ULL << 40, &v))
				usage();
			conf.reserve = v;
			break;
		case 'w':
			if (cookie_fleet_parse_u64(optarg, 0, 86400, &v))
				usage();
			conf.wait = v;
			break;
		case 'M': conf.move = true; break;
		case 'c':
			if (cookie_fleet_parse_u64(optarg, 1, COOKIE_DRAW_MAX, &chunk))
				usage();
			break;
		default: usage();
		}
	}
	if (!conf.urls || !dir || !out)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(out);
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	/* cookie-gend's start, in its order, minus the BPF side and the socket. */
	fleet.log = logto;
	mark.log = logto;
	mark.status = no_status;
	err = cookie_fleet_open(&fleet, &conf) ?: cookie_mark_open_fleet(&mark, dir, node, &fleet);
	if (err)
		return err;
	printf("node %u\n", mark.node);
	if (cookie_mark_recover(&mark, st, 0) || cookie_fleet_start(&fleet))
		return 1;

	for (unsigned long long i = 0; !stop; i++) {
		char line[64];
		__u64 first = 0;
		int len, now_refusing;

		/* Both drawers of the daemon's counter: the socket's, and libcookie's and BPF's. */
		if (i % 2) {
			err = cookie_mark_draw(&mark, chunk, &first);
		} else {
			first = cookie_draw(st, chunk);
			err = first ? 0 : -ENOLINK;
		}
		if (!err) {
			len = snprintf(line, sizeof(line), "%llu %llu\n", (unsigned long long)first, chunk);
			if (write(fd, line, len) != len) {
				perror(out);
				return 1;
			}
			served += chunk;
		} else {
			refused++;
		}
		now_refusing = err != 0 && (mark.moving || cookie_fleet_reserved(&fleet) <=
			       COOKIE_SEQ_OF(__atomic_load_n(&st->next, __ATOMIC_SEQ_CST)));
		if (!err)
			now_refusing = 0;
		if (now_refusing != refusing && (now_refusing || !err)) {
			if (now_refusing)
				printf("refusing: %s\n", cookie_fleet_why(&fleet));
			else
				printf("serving\n");
			refusing = now_refusing;
		}
		/* cookie-gend's tick: a move to another id (a fresh counter), then headroom. */
		if (cookie_mark_move(&mark) == 1) {
			st = st == &counters[0] ? &counters[1] : &counters[0];
			memset(st, 0, sizeof(*st));
			cookie_mark_recover(&mark, st, 0);
			printf("moved to node %u above %llu\nnode %u\n", mark.node,
			       (unsigned long long)mark.store.highwater, mark.node);
		}
		cookie_mark_headroom(&mark);
		nanosleep(&pace, NULL);
	}
	cookie_fleet_stop(&fleet);
	printf("exit served=%llu refused=%llu reserved=%llu\n", served, refused,
	       (unsigned long long)cookie_fleet_reserved(&fleet));
	return 0;
}
