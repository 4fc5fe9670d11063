/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's parts, shared between its files:
 *   cookie-gend.c   options, logging, start-up
 *   cookie_mark.c   the durable mark: the state directory checked, the counter recovered,
 *                   the limit extended behind the mark, draws for clients, --raise-mark
 *   cookie_pins.c   the BPF side: load, reuse the pinned maps (replacing an older layout's),
 *                   keep or replace pinned links, the one follower of the events
 *   cookie_serve.c  the socket: clients, their bounds, requests, the event loop (cookie_serve.h)
 *   cookie_rate.c   the socket's per-uid rate limit (cookie_rate.h)
 *   cookie_metrics.c  --listen and --textfile: the statistics for Prometheus (cookie_metrics.h)
 * The socket and the metrics see the daemon only through struct cookie_gend_ops.
 * The durable state files themselves are cookie_store.c; the protocol is cookie_proto.c.
 */
#ifndef __BAREATOM_COOKIE_GEND_H
#define __BAREATOM_COOKIE_GEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <syslog.h>
#include <linux/types.h>
#include "cookie.h"
#include "cookie_proto.h"
#include "cookie_mark.h"

extern struct env {
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
} env;

/*
 * The BPF side (cookie_pins.c): what it is asked for, how it reports, and what it gives:
 * the skeleton, the mmapped counter, and what an older layout's counter could have given.
 */
struct cookie_pins {
	bool global;		/* --global: one fetch-add per cookie in BPF */
	bool tpgen;		/* --tpgen: attach to tpgen_b too */
	uint64_t owner;		/* the state directory's id, recorded in the state map */
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	struct cookie_bpf *skel;
	struct cookie_state *st;	/* the state map, mmapped */
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	__u64 old_floor;	/* an older layout's state map was replaced: it gave nothing from here up */
	double follower_check_at;	/* CLOCK_MONOTONIC: the next look for a dead follower */
};

extern struct daemon {
	struct cookie_pins pins;	/* the BPF side */
	struct cookie_state *st;	/* pins.st: the counter the socket side reads */
	int task_fd;		/* pins.task_fd: for PID requests */
	struct cookie_mark mark;	/* the state directory, the node, the mark */
} d;

struct cookie_bpf;

void logmsg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notify_systemd(const char *msg);

/* The durable mark, as the socket side calls it (cookie_mark.c on d.mark). */
int extend(__u64 need);
void check_headroom(void);
int draw_for_client(__u64 n, __u64 *first);

/* The BPF side (cookie_pins.c). */
extern const char *const pin_names[];
extern const size_t nr_pin_names;
const char *pin_path(char *buf, size_t len, const char *name);
/*
 * Before setup: when the pinned state map has an older layout, read what its counter could
 * have given into p->old_floor (0 otherwise), for the mark to cover before it is replaced.
 * 0, or -ECANCELED when it cannot be read or counts for another directory (logged).
 */
int cookie_pins_probe(struct cookie_pins *p);
/*
 * Load, reuse (or replace an older layout's) pinned maps, and mmap the counter. 0,
 * -ECANCELED when the pins were refused (logged), or another negative errno.
 */
int cookie_pins_setup(struct cookie_pins *p);
/* Attach the programs, keeping pinned links that run exactly them. */
int cookie_pins_attach(struct cookie_pins *p);
/*
 * A `cookie --follow` killed before it could unregister: take its pid out of the follower
 * map once its lock is free. Called from every tick; looks once a second at most.
 */
void cookie_pins_clear_dead_follower(struct cookie_pins *p);

#endif /* __BAREATOM_COOKIE_GEND_H */
