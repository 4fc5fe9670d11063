// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend --etcd: the reservations (cookie_fleet.h): highwater/N raised by a txn that
 * compares the claim before the counter's limit may pass the old mark, the first one at
 * start, and how far the counter wants the next one to reach.
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
#include "src/cookie_store.h"
#include "src/cookie_fleet_parts.h"
#include "src/clock.h"

/*
 * One reserve txn up to @new: 0 done, 1 try again now (the mark was changed by hand: we
 * go above it), or a negative errno.
 */
int fleet_reserve(struct cookie_fleet *f, uint64_t new)
{
	struct etcd_txn t = { 0 };
	struct etcd_kv kvs[2];
	char val[24];
	int64_t rev;
	bool ok;
	int err;

	snprintf(val, sizeof(val), "%" PRIu64, new);
	etcd_txn_cmp(&t, f->node_key, ETCD_CREATE, f->claim_rev);
	etcd_txn_cmp(&t, f->node_key, ETCD_LEASE, f->lease);
	etcd_txn_cmp(&t, f->hw_key, ETCD_MOD, f->hw_mod);
	etcd_txn_put(&t, true, f->hw_key, val, 0);
	etcd_txn_get(&t, false, f->node_key);
	etcd_txn_get(&t, false, f->hw_key);
	err = etcd_txn_run(&f->etcd, &t, &ok, &rev, kvs, 2);
	if (err)
		return err;
	if (ok) {
		pthread_mutex_lock(&f->mu);
		f->etcd_hw = new;
		f->hw_mod = rev;
		pthread_mutex_unlock(&f->mu);
		/* Only now may the counter's limit pass the old mark. */
		__atomic_store_n(&f->reserved, new, __ATOMIC_RELEASE);
		return 0;
	}
	f->txn_failures++;
	if (!kvs[0].found || kvs[0].create_rev != f->claim_rev || kvs[0].lease != f->lease) {
		char why[ETCD_VALUE_MAX + 256];

		snprintf(why, sizeof(why), "%.160s is %s%.255s", f->node_key, kvs[0].found ? "now " : "gone",
			 kvs[0].found ? kvs[0].value : " (the lease expired or was revoked)");
		fleet_lose(f, why);
		return -ENOLINK;
	}
	{
		uint64_t hw;

		if (fleet_parse_hw(&kvs[1], &hw)) {
			if (!f->hw_bad)
				f->log(LOG_CRIT, "etcd key %s was changed to '%.40s', not a mark: no more "
				       "reservations until it holds one (this daemon reserved up to %"
				       PRIu64 ")", f->hw_key, kvs[1].value, f->etcd_hw);
			f->hw_bad = true;
			return -EUCLEAN;
		}
		f->log(LOG_ERR, "etcd key %s was %s by someone else (%" PRIu64 " where this daemon "
		       "wrote %" PRIu64 "): the higher mark wins, reserving above both",
		       f->hw_key, !kvs[1].found ? "deleted" : hw < f->etcd_hw ? "lowered" : "raised",
		       hw, f->etcd_hw);
		pthread_mutex_lock(&f->mu);
		f->hw_bad = false;
		if (hw > f->etcd_hw)
			f->etcd_hw = hw;
		f->hw_mod = kvs[1].found ? kvs[1].mod_rev : 0;
		pthread_mutex_unlock(&f->mu);
		return 1;
	}
}

/* The next mark to reserve up to: @reserve above everything seen, within the node. */
uint64_t fleet_next_mark(struct cookie_fleet *f)
{
	uint64_t base = f->etcd_hw, r = cookie_fleet_reserved(f), w = __atomic_load_n(&f->want, __ATOMIC_RELAXED);

	if (r > base)
		base = r;
	if (w > base)
		base = w;
	if (base >= COOKIE_MARK_MAX - 1 - f->c.reserve)
		return COOKIE_MARK_MAX - 1;
	return base + f->c.reserve;
}

int cookie_fleet_reserve_first(struct cookie_fleet *f, uint64_t local_mark)
{
	double start = clock_now(), backoff = 0;

	if (local_mark > f->etcd_hw) {
		f->log(LOG_INFO, "the state directory's mark %" PRIu64 " is above etcd's %" PRIu64
		       " for node %u: the higher wins", local_mark, f->etcd_hw, f->node);
		f->etcd_hw = local_mark;
	}
	for (;;) {
		int err = fleet_reserve(f, fleet_next_mark(f));

		if (!err)
			return 0;
		if (err == -ENOLINK)
			return FLEET_EXIT_TEMPFAIL;	/* logged: lost at once */
		if (err == -EUCLEAN)
			return FLEET_EXIT_CONFIG;
		if (err == 1)
			continue;
		if (clock_now() - start >= f->c.wait) {
			f->log(LOG_ERR, "cannot reserve a first range in etcd for %g s: %s", f->c.wait,
			       f->etcd.err);
			return FLEET_EXIT_TEMPFAIL;
		}
		backoff = next_backoff(backoff);
		sleep_s(backoff);
	}
}

void cookie_fleet_want(struct cookie_fleet *f, uint64_t seq)
{
	uint64_t target = seq;

	double now = clock_now();

	if (now - f->rate_t >= 1.0) {
		if (f->rate_t && seq >= f->rate_seq)
			__atomic_store_n(&f->rate, (uint64_t)((seq - f->rate_seq) / (now - f->rate_t)),
					 __ATOMIC_RELAXED);
		f->rate_t = now;
		__atomic_store_n(&f->rate_seq, seq, __ATOMIC_RELAXED);
	}
	if (target <= __atomic_load_n(&f->want, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&f->want, target, __ATOMIC_RELAXED);
	/* Wake the thread only when it has something to do now. */
	if (target + f->c.reserve / 2 >= cookie_fleet_reserved(f)) {
		pthread_mutex_lock(&f->mu);
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
}
