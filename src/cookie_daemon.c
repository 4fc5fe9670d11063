// SPDX-License-Identifier: GPL-2.0
/* cookie-gend while it serves: the draw, the tick and the snapshot (cookie_daemon.h). */
#include <syslog.h>
#include "src/cookie_daemon.h"
#include "src/daemon_log.h"
#include "src/clock.h"

int cookie_daemon_draw(void *arg, __u64 n, __u64 *first)
{
	struct cookie_daemon *d = arg;

	return cookie_mark_draw(&d->mark, n, first);
}

/*
 * --etcd: the fleet claimed another id in place of ours, taken by another holder
 * (cookie_fleet.h). Move to it, in this order: the state directory (its mark, then its node
 * file: cookie_mark_move() says why that order survives a crash) and with it the fleet's
 * reservation, from 0 for the new id; a fresh counter, pinned for BPF and the fast path, the old one left
 * with its limit (cookie_pins_renew()), so that whatever drawer still holds it gets nothing
 * beyond what was reserved for the old id; then the counter started above the new id's
 * marks (cookie_mark_recover()). A step that fails is tried again on a later tick; draws
 * past the old counter's limit are refused meanwhile.
 */
static void move_node(struct cookie_daemon *d)
{
	if (!d->renewing) {
		if (cookie_mark_move(&d->mark) != 1)
			return;
		d->pins.node = d->mark.node;
		d->renewing = true;
	}
	if (clock_now() < d->renew_at)
		return;
	if (cookie_pins_renew(&d->pins)) {
		d->renew_at = clock_now() + 1.0;
		return;
	}
	d->server->task_fd = d->pins.task_fd;
	d->renewing = false;
	cookie_mark_recover(&d->mark, d->pins.st, 0);	/* a fresh counter of ours: no refusal */
	daemon_log(LOG_NOTICE, "serving node %u now: draws over the socket, the fast path and BPF "
		   "take cookies from %llu on, as etcd reserves them", d->mark.node,
		   (unsigned long long)__atomic_load_n(&d->pins.st->next, __ATOMIC_RELAXED));
}

void cookie_daemon_tick(void *arg)
{
	struct cookie_daemon *d = arg;

	if (d->mark.fleet)
		move_node(d);
	cookie_mark_headroom(&d->mark);
	cookie_pins_clear_dead_follower(&d->pins);
}

void cookie_daemon_snapshot(void *arg, struct cookie_gend_snapshot *g)
{
	const struct cookie_daemon *d = arg;
	const struct cookie_state *st = d->pins.st;

	*g = (struct cookie_gend_snapshot){
		.next = __atomic_load_n(&st->next, __ATOMIC_RELAXED),
		.limit = __atomic_load_n(&st->limit, __ATOMIC_RELAXED),
		.highwater = d->mark.store.highwater,
		.node = d->mark.node,
		.fork_cookies = __atomic_load_n(&st->fork_cookies, __ATOMIC_RELAXED),
		.tpgen_cookies = __atomic_load_n(&st->tpgen_cookies, __ATOMIC_RELAXED),
		.denied = __atomic_load_n(&st->denied, __ATOMIC_RELAXED),
		.batches = __atomic_load_n(&st->batches, __ATOMIC_RELAXED),
		.events_lost = __atomic_load_n(&st->events_lost, __ATOMIC_RELAXED),
		.room_requests = __atomic_load_n(&st->room_requests, __ATOMIC_RELAXED),
		.extensions = d->mark.extensions,
		.state_errors = d->mark.save_errors,
		.state_err = d->mark.save_err,
		.batched = d->batched,
	};
	if (d->mark.fleet) {
		struct cookie_fleet_stats f;
		__u64 next_seq = COOKIE_SEQ_OF(g->next);

		cookie_fleet_snapshot(d->mark.fleet, &f);
		g->etcd = true;
		g->etcd_claimed = f.claimed;
		g->etcd_claim_rev = f.claim_rev;
		/*
		 * What may still be served without etcd: from the counter up to the reservation
		 * (none while a move leaves a counter of the old node).
		 */
		g->etcd_reserved_left = f.reserved > next_seq && COOKIE_NODE_OF(g->next) == g->node &&
					!d->mark.moving ? f.reserved - next_seq : 0;
		g->etcd_moves = f.moves;
		g->etcd_keepalive_failures = f.keepalive_failures;
		g->etcd_txn_failures = f.txn_failures;
		g->etcd_without_claim = f.without_claim;
		g->etcd_refused = d->mark.fleet_refused;
	}
}
