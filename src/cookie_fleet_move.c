// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend --etcd: an id claimed again after the claim was lost, our own or, when another
 * holder has it, a free one, and the caller's move to it (cookie_fleet_moving(),
 * cookie_fleet_moved() in cookie_fleet.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "src/cookie_fleet_parts.h"
#include "src/clock.h"

/*
 * Our id is held by another holder: claim a free one of --etcd-ids with f->lease, the
 * procedure of a start without an id. 1 claimed (f->node is the new id), 0 lost a race
 * for it (tried again at the next retry), -ENOSPC every id taken, or a negative errno.
 */
static int claim_free(struct cookie_fleet *f)
{
	struct etcd_kv holder;
	unsigned int own = f->node;
	long id;
	int err = fleet_free_id(f, own, &id);

	if (err)
		return err;
	pthread_mutex_lock(&f->mu);
	fleet_set_node(f, id);
	pthread_mutex_unlock(&f->mu);
	err = fleet_try_claim(f, &holder);
	if (err != 1) {
		pthread_mutex_lock(&f->mu);
		fleet_set_node(f, own);
		pthread_mutex_unlock(&f->mu);
	}
	return err;
}

/*
 * Claim an id again (a new lease): our own first, the state directory names it; when another
 * holder has it, a free one, which the caller then moves to (cookie_fleet_moving()): what
 * was reserved for the old id may still be served, nothing above it, and the new id's
 * ranges are reserved above its mark in etcd, read by the claim's txn.
 */
void fleet_reclaim(struct cookie_fleet *f, double now)
{
	struct etcd_kv holder;
	unsigned int own = f->node;
	int err;

	f->lease = 0;
	err = fleet_grant(f);
	if (!err)
		err = fleet_try_claim(f, &holder);
	/* Still under a lease of ours that etcd had not expired yet: give it back, try again. */
	if (!err && fleet_our_claim(f, &holder) && !etcd_revoke(&f->etcd, holder.lease))
		err = fleet_try_claim(f, &holder);
	if (!err) {
		if (!f->lost_logged)
			f->log(LOG_WARNING, "node id %u is held by another holder now (%s = %s): "
			       "claiming a free id of %u-%u instead", own, f->node_key, holder.value,
			       f->c.id_lo, f->c.id_hi);
		f->lost_logged = true;
		err = claim_free(f);
		if (err == -ENOSPC && !f->all_taken_logged)
			fleet_log_all_taken(f, LOG_WARNING);
		f->all_taken_logged = err == -ENOSPC;
	}
	if (err == 1) {
		pthread_mutex_lock(&f->mu);
		f->claimed = true;
		f->claims++;
		f->last_ka_ok = now;
		f->next_ka = now + f->lease_ttl / 3.0;
		/*
		 * Our own id again, but its mark in etcd above what we had reserved: another
		 * holder served it meanwhile, from our last mark up. The counter may have taken
		 * values there that it refused (a draw crossing the limit burns them), and a
		 * drawer that took one may check it against any later limit: only a fresh
		 * counter above that mark is safe, as for another id (cookie_fleet_moving()).
		 */
		f->restart = f->node == own && f->node == f->serving &&
			     f->etcd_hw > cookie_fleet_reserved(f);
		pthread_mutex_unlock(&f->mu);
		__atomic_store_n(&f->suspect, false, __ATOMIC_RELAXED);
		f->lost_logged = false;
		if (f->node == own && f->restart)
			f->log(LOG_NOTICE, "claimed node id %u again (revision %" PRId64 "); its mark in "
			       "etcd is %" PRIu64 ", above the %" PRIu64 " reserved here (another holder "
			       "served it meanwhile): a fresh counter starts above that mark", f->node,
			       f->claim_rev, f->etcd_hw, cookie_fleet_reserved(f));
		else if (f->node == own)
			f->log(LOG_NOTICE, "claimed node id %u again (revision %" PRId64 "); its mark in "
			       "etcd is %" PRIu64 ": reserving above it", f->node, f->claim_rev,
			       f->etcd_hw);
		else
			f->log(LOG_NOTICE, "claimed node id %u (%s, revision %" PRId64 ", lease %" PRIx64
			       ") in place of %u, which another holder has; its mark in etcd is %"
			       PRIu64 ": moving the state directory and the counter to node %u, "
			       "then reserving above that mark", f->node, f->node_key, f->claim_rev,
			       f->lease, own, f->etcd_hw, f->node);
		return;
	}
	if (f->lease)
		etcd_revoke(&f->etcd, f->lease);	/* ours, unused */
	if (err && err != -ENOSPC && !f->lost_logged)
		f->log(LOG_WARNING, "cannot claim node id %u again: %s", own,
		       err == -EUCLEAN ? "the mark there is not one" : f->etcd.err);
	f->lost_logged = true;
}

/*
 * A claim the caller has not moved to yet: of another id than the one it serves, or of
 * the same one claimed again above what the caller had reserved (f->restart). Under mu.
 */
static bool move_waits(const struct cookie_fleet *f)
{
	return f->claimed && (f->node != f->serving || f->restart);
}

bool fleet_move_pending(struct cookie_fleet *f)
{
	bool pending;

	pthread_mutex_lock(&f->mu);
	pending = move_waits(f);
	pthread_mutex_unlock(&f->mu);
	return pending;
}

int cookie_fleet_moving(struct cookie_fleet *f, unsigned int *node, uint64_t *hw)
{
	int pending;

	pthread_mutex_lock(&f->mu);
	pending = move_waits(f);
	if (pending) {
		*node = f->node;
		*hw = f->etcd_hw;
	}
	pthread_mutex_unlock(&f->mu);
	return pending;
}

void cookie_fleet_moved(struct cookie_fleet *f, unsigned int node, uint64_t local_mark)
{
	pthread_mutex_lock(&f->mu);
	/* The old id's reservation says nothing about the new one's: from 0, above the marks. */
	__atomic_store_n(&f->reserved, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&f->want, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->rate_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->rate, 0, __ATOMIC_RELAXED);
	f->rate_t = 0;
	f->serving = node;
	if (f->node == node)
		f->restart = false;
	f->moves++;
	/* The higher mark wins, as at start (claimed again meanwhile: that claim's mark counts). */
	if (f->node == node && local_mark > f->etcd_hw)
		f->etcd_hw = local_mark;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}
