/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's BPF side (cookie_pins.c): load the programs, reuse the pinned maps under
 * COOKIE_PIN_DIR (replacing an older layout's), keep or replace the pinned links, look
 * after the one follower of the events, and remove it all (--uninstall). What it is asked
 * for, how it reports and what it gives are all in struct cookie_pins.
 */
#ifndef __BAREATOM_COOKIE_PINS_H
#define __BAREATOM_COOKIE_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"

struct cookie_bpf;

struct cookie_pins {
	/* Set by the caller. */
	bool global;		/* --global: one fetch-add per cookie in BPF */
	bool tpgen;		/* --tpgen: attach to tpgen_b too */
	uint64_t owner;		/* the state directory's id, recorded in the state map */
	unsigned int node;	/* the state directory's node id */
	/*
	 * --etcd: a pinned counter of ours that must not go on is replaced by a fresh one: of
	 * another node than the directory's (a move to another id, cookie_mark_move(), cut
	 * short by a crash), or past its limit (values refused draws burned, which another
	 * holder may have served while this daemon was down). Without --etcd there is no other
	 * holder, and nothing vouches for the directory's mark in another node (a node file
	 * edited by hand), so cookie_mark_recover() refuses that one.
	 */
	bool replace_stale;
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	/* What it gives: the skeleton, the mmapped counter, what an older layout's could have given. */
	struct cookie_bpf *skel;
	struct cookie_state *st;	/* the state map, mmapped */
	size_t map_len;
	int state_fd;		/* the state map */
	int task_fd;		/* task storage */
	__u64 old_floor;	/* an older layout's state map was replaced: it gave nothing from here up */
	bool fresh;		/* the next setup makes a new state map, whatever is pinned */
	double follower_check_at;	/* CLOCK_MONOTONIC: the next look for a dead follower */
};

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
 * --etcd moved to another node id: replace the counter by a fresh one, pinned as "state"
 * (zero: it gives nothing until cookie_mark_recover() starts it), and the programs by ones
 * that draw from it (their links replaced, new first), with fresh per-CPU batches too, so
 * that every cookie drawn after is the new node's. The other maps are kept: task cookies,
 * the events and their follower. The old counter is
 * left as it is, unpinned, to whatever still maps it (a fast-path client, a program
 * running now): its limit is never raised again, so it gives nothing beyond what was
 * reserved for the old node (then its drawers get -EAGAIN, as at any limit, for good: they
 * reopen the pin).
 * 0, or a negative errno (logged) with @p as it was; call again.
 */
int cookie_pins_renew(struct cookie_pins *p);

/*
 * A `cookie --follow` killed before it could unregister: take its pid out of the follower
 * map once its lock is free. Called from every tick; looks once a second at most.
 */
void cookie_pins_clear_dead_follower(struct cookie_pins *p);
/*
 * --uninstall: remove every pin cookie-gend makes and COOKIE_PIN_DIR (the links go, so the
 * programs detach). What cannot be removed is logged (LOG_ERR); what is not there is fine.
 */
void cookie_pins_remove(const struct cookie_pins *p);

#endif /* __BAREATOM_COOKIE_PINS_H */
