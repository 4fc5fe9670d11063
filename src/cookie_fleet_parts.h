/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cookie_fleet's files share with each other, and with nobody else: the daemon uses
 * cookie_fleet.h alone. The calls go one way, from the thread down:
 *
 *   cookie_fleet_thread.c     options, the thread, why draws are refused, the snapshot
 *   cookie_fleet_move.c       an id claimed again after a loss, the caller's move to it
 *   cookie_fleet_reserve.c    reservations: highwater/N raised by a txn on the claim
 *   cookie_fleet_claim.c      the claim of an id: its txn and value, a free id, its loss
 *
 * cookie_fleet_thread.c calls the three others; move and reserve call claim; claim calls none of
 * them (the inline cookie_fleet_reserved() of cookie_fleet.h is everyone's).
 *
 * Each function's contract is written above its definition.
 */
#ifndef __BAREATOM_COOKIE_FLEET_PARTS_H
#define __BAREATOM_COOKIE_FLEET_PARTS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_fleet.h"

#define BACKOFF_MIN	0.2
#define BACKOFF_MAX	2.0

static inline void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline double next_backoff(double b)
{
	return b < BACKOFF_MIN ? BACKOFF_MIN : b * 2 > BACKOFF_MAX ? BACKOFF_MAX : b * 2;
}

/* cookie_fleet_claim.c */
void fleet_set_node(struct cookie_fleet *f, unsigned int node);
int fleet_parse_hw(const struct etcd_kv *kv, uint64_t *hw);
bool fleet_our_claim(struct cookie_fleet *f, const struct etcd_kv *kv);
int fleet_free_id(struct cookie_fleet *f, long skip, long *id);
void fleet_log_all_taken(struct cookie_fleet *f, int prio);
int fleet_try_claim(struct cookie_fleet *f, struct etcd_kv *holder);
int fleet_grant(struct cookie_fleet *f);
void fleet_lose(struct cookie_fleet *f, const char *why);

/* cookie_fleet_reserve.c */
int fleet_reserve(struct cookie_fleet *f, uint64_t new);
uint64_t fleet_next_mark(struct cookie_fleet *f);

/* cookie_fleet_move.c */
void fleet_reclaim(struct cookie_fleet *f, double now);
bool fleet_move_pending(struct cookie_fleet *f);

#endif /* __BAREATOM_COOKIE_FLEET_PARTS_H */
