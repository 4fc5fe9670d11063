/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend while it serves (cookie_daemon.c): the parts cookie-gend.c started (the mark,
 * the BPF side, the fleet), and the three calls the socket, its loop and the metrics make
 * into them through struct cookie_gend_ops (cookie_serve.h): a draw, the tick, a snapshot.
 *
 * cookie-gend.c fills the struct in and hands these functions down, with the struct as their
 * argument; they call only further down (cookie_mark.c, cookie_pins.c, cookie_fleet_*.c), never
 * back into cookie-gend.c or into the socket and loop that call them.
 */
#ifndef __BAREATOM_COOKIE_DAEMON_H
#define __BAREATOM_COOKIE_DAEMON_H

#include <stdbool.h>
#include <linux/types.h>
#include "src/cookie_fleet.h"
#include "src/cookie_mark.h"
#include "src/cookie_pins.h"
#include "src/cookie_serve.h"

struct cookie_daemon {
	bool batched;			/* BPF draws in per-CPU batches (no --global) */
	struct cookie_pins pins;	/* the BPF side: the counter, task storage */
	struct cookie_mark mark;	/* the state directory, the node, the mark */
	struct cookie_fleet fleet;	/* --etcd: the claim and the reservations */
	struct cookie_server *server;	/* its task storage fd follows the pins' */
	bool renewing;			/* a move to another id: the counter is still to replace */
	double renew_at;		/* CLOCK_MONOTONIC: the next try after a failed one */
};

/* struct cookie_gend_ops' calls; @arg is the struct cookie_daemon. */
int cookie_daemon_draw(void *arg, __u64 n, __u64 *first);
void cookie_daemon_tick(void *arg);
void cookie_daemon_snapshot(void *arg, struct cookie_gend_snapshot *g);

#endif /* __BAREATOM_COOKIE_DAEMON_H */
