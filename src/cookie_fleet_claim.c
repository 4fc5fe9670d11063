// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend --etcd: the claim of a node id in etcd (cookie_fleet.h): a fixed id or a free
 * one, the claim's txn and value, and the claim lost. A claim taken again after a loss is
 * cookie_fleet_move.c's.
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
#include <sys/random.h>
#include "src/cookie_store.h"
#include "src/cookie_fleet_parts.h"
#include "src/clock.h"

void fleet_set_node(struct cookie_fleet *f, unsigned int node)
{
	f->node = node;
	snprintf(f->node_key, sizeof(f->node_key), "%snode/%u", f->c.prefix, node);
	snprintf(f->hw_key, sizeof(f->hw_key), "%shighwater/%u", f->c.prefix, node);
}

static void make_value(struct cookie_fleet *f)
{
	char host[64] = "unknown", when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(f->value, sizeof(f->value), "host=%s pid=%d started=%s dir=%s", host, (int)getpid(),
		 when, f->dir_id[0] ? f->dir_id : "new");
}

/* highwater/N's value as a mark (sequence); 0 when absent. -EUCLEAN when it is not one. */
int fleet_parse_hw(const struct etcd_kv *kv, uint64_t *hw)
{
	*hw = 0;
	if (!kv->found)
		return 0;
	return cookie_store_parse_mark(kv->value, kv->value_len, hw);
}

/* The dir=ID of a claim's value, or "" */
static void value_dir(const struct etcd_kv *kv, char *out, size_t n)
{
	const char *d = strstr(kv->value, " dir=");

	out[0] = '\0';
	if (d)
		snprintf(out, n, "%.*s", (int)strcspn(d + 5, " \n"), d + 5);
}

/*
 * Is @kv, a claim, this state directory's own (an earlier start's, or this daemon's under a
 * lease it lost)? We hold the directory's lock, so no other daemon uses it.
 */
bool fleet_our_claim(struct cookie_fleet *f, const struct etcd_kv *kv)
{
	char dir[24];

	value_dir(kv, dir, sizeof(dir));
	return f->dir_id[0] && !strcmp(dir, f->dir_id);
}

/* The ids taken now (a bitmap of FLEET_ID_MAX + 1); *n how many in [lo, hi], -1 if not all read. */
static int taken_ids(struct cookie_fleet *f, unsigned char *taken, long *n)
{
	static struct etcd_kv kvs[FLEET_LIST_MAX];
	char prefix[160];
	size_t plen;
	int got, err;

	snprintf(prefix, sizeof(prefix), "%snode/", f->c.prefix);
	plen = strlen(prefix);
	err = etcd_list(&f->etcd, prefix, kvs, FLEET_LIST_MAX, &got);
	if (err)
		return err;
	*n = 0;
	for (int i = 0; i < got; i++) {
		unsigned int id;

		if (cookie_store_parse_node(kvs[i].key + plen, strlen(kvs[i].key + plen), &id)) {
			f->log(LOG_WARNING, "etcd key %s is not a node id's claim: ignored", kvs[i].key);
			continue;
		}
		taken[id] = 1;
		if (id >= f->c.id_lo && id <= f->c.id_hi)
			(*n)++;
	}
	if (got == FLEET_LIST_MAX)
		*n = -1;
	return 0;
}

/* A free id of [lo, hi] from a random start, or -1 when all are taken. */
static long pick_id(struct cookie_fleet *f, const unsigned char *taken)
{
	unsigned int span = f->c.id_hi - f->c.id_lo + 1, r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (unsigned int)getpid() * 2654435761u ^ (unsigned int)clock_now_ns();
	for (unsigned int k = 0; k < span; k++) {
		unsigned int id = f->c.id_lo + (r + k) % span;

		if (!taken[id])
			return id;
	}
	return -1;
}

/*
 * A free id of [c.id_lo, c.id_hi] other than @skip (-1: none), from a random start: 0 with
 * *id, -ENOSPC when every one is taken, or etcd's negative errno.
 */
int fleet_free_id(struct cookie_fleet *f, long skip, long *id)
{
	static unsigned char taken[FLEET_ID_MAX + 1];
	long n;
	int err;

	memset(taken, 0, sizeof(taken));
	err = taken_ids(f, taken, &n);
	if (err)
		return err;
	if (skip >= 0)
		taken[skip] = 1;
	*id = pick_id(f, taken);
	return *id < 0 ? -ENOSPC : 0;
}

void fleet_log_all_taken(struct cookie_fleet *f, int prio)
{
	f->log(prio, "every node id from %u to %u is claimed under %snode/ in etcd: no id for this "
	       "machine (ids come free when their holders' leases expire; see etcdctl get --prefix "
	       "%snode/)", f->c.id_lo, f->c.id_hi, f->c.prefix, f->c.prefix);
}

/*
 * One claim txn on f->node with f->lease: 1 claimed (f->etcd_hw, f->hw_mod, f->claim_rev
 * set), 0 held by someone (@holder), or a negative errno (etcd).
 */
int fleet_try_claim(struct cookie_fleet *f, struct etcd_kv *holder)
{
	struct etcd_txn t = { 0 };
	struct etcd_kv kvs[1];
	bool ok;
	int64_t rev;
	int err;

	make_value(f);
	etcd_txn_cmp(&t, f->node_key, ETCD_CREATE, 0);
	etcd_txn_put(&t, true, f->node_key, f->value, f->lease);
	etcd_txn_get(&t, true, f->hw_key);
	etcd_txn_get(&t, false, f->node_key);
	err = etcd_txn_run(&f->etcd, &t, &ok, &rev, kvs, 1);
	if (err)
		return err;
	if (!ok) {
		*holder = kvs[0];
		return 0;
	}
	f->claim_rev = rev;
	f->hw_mod = kvs[0].found ? kvs[0].mod_rev : 0;
	if (fleet_parse_hw(&kvs[0], &f->etcd_hw)) {
		f->hw_bad = true;
		f->log(LOG_ERR, "etcd key %s holds '%.40s', not a mark (a decimal sequence from 1 to "
		       "%llu): refusing to guess what node %u served; write a mark above every cookie "
		       "of node %u ever seen (etcdctl put %s N) or delete the key if the node never "
		       "served one", f->hw_key, kvs[0].value, COOKIE_MARK_MAX - 1, f->node, f->node,
		       f->hw_key);
		return -EUCLEAN;
	}
	f->hw_bad = false;
	return 1;
}

int fleet_grant(struct cookie_fleet *f)
{
	int64_t ttl;
	int err = etcd_grant(&f->etcd, f->c.ttl, &f->lease, &ttl);

	if (!err)
		f->lease_ttl = ttl;
	return err;
}

int cookie_fleet_claim(struct cookie_fleet *f, long fixed, bool from_dir, const char *dir_id)
{
	double start = clock_now(), backoff = 0, sent;
	bool waited_logged = false;
	int err;

	snprintf(f->dir_id, sizeof(f->dir_id), "%s", dir_id ? dir_id : "");
	for (;;) {
		struct etcd_kv holder;
		long id;

		sent = clock_now();
		err = f->lease ? 0 : fleet_grant(f);
		if (!err) {
			if (fixed >= 0) {
				id = fixed;
			} else {
				err = fleet_free_id(f, -1, &id);
				if (err == -ENOSPC) {
					fleet_log_all_taken(f, LOG_ERR);
					return FLEET_EXIT_TEMPFAIL;
				}
			}
		}
		if (!err) {
			fleet_set_node(f, id);
			err = fleet_try_claim(f, &holder);
		}
		if (err == -EUCLEAN) {
			etcd_revoke(&f->etcd, f->lease);	/* the id is given back at once */
			return FLEET_EXIT_CONFIG;
		}
		if (err == 1) {
			f->claimed = true;
			f->claims++;
			f->serving = f->node;
			f->last_ka_ok = sent;
			f->log(LOG_INFO, "claimed node id %u in etcd (%s, revision %" PRId64 ", lease %"
			       PRIx64 " of %" PRId64 " s); its mark there is %" PRIu64, f->node, f->node_key,
			       f->claim_rev, f->lease, f->lease_ttl, f->etcd_hw);
			return 0;
		}
		if (!err && fixed >= 0) {
			char dir[24];

			value_dir(&holder, dir, sizeof(dir));
			if (from_dir && fleet_our_claim(f, &holder)) {
				/*
				 * Our own state directory's claim, and we hold its lock: the daemon
				 * that made it is gone. Free the id now instead of waiting a TTL.
				 */
				f->log(LOG_INFO, "%s is this state directory's claim from an earlier start "
				       "(%s): revoking its lease", f->node_key, holder.value);
				err = etcd_revoke(&f->etcd, holder.lease);
				if (!err)
					continue;
			} else if (from_dir && strcmp(dir, "new") && dir[0] && f->c.move) {
				/* --etcd-move: a free id, which the caller moves the directory to. */
				f->log(LOG_WARNING, "the state directory is node %ld's, but etcd's %s is "
				       "held by another state directory (%s): claiming a free id of "
				       "%u-%u to move to (--etcd-move)", fixed, f->node_key,
				       holder.value, f->c.id_lo, f->c.id_hi);
				fixed = -1;
				continue;
			} else if (from_dir && strcmp(dir, "new") && dir[0]) {
				f->log(LOG_ERR, "the state directory is node %ld's, but etcd's %s is held "
				       "by another state directory (%s): two machines have this "
				       "directory's node id; move this directory away to claim a new "
				       "id, or stop the other machine (or start with --etcd-move to "
				       "move it to a free id)", fixed, f->node_key, holder.value);
				return FLEET_EXIT_CONFIG;
			} else if (!waited_logged) {
				f->log(LOG_NOTICE, "node id %ld is held (%s = %s): waiting up to %g s for "
				       "its lease to expire", fixed, f->node_key, holder.value, f->c.wait);
				waited_logged = true;
			}
		}
		if (clock_now() - start >= f->c.wait) {
			if (err)
				f->log(LOG_ERR, "no etcd answered for %g s: %s; exiting (75: try again "
				       "later) rather than serve without a claim", f->c.wait, f->etcd.err);
			else
				f->log(LOG_ERR, "node id %ld is still held in etcd after %g s (%s = %s); "
				       "exiting (75: try again later)", fixed, f->c.wait, f->node_key,
				       holder.value);
			return FLEET_EXIT_TEMPFAIL;
		}
		/* A lost race for a free id is retried at once with another; the rest waits. */
		if (err || fixed >= 0) {
			backoff = next_backoff(backoff);
			sleep_s(backoff);
		}
	}
}

void cookie_fleet_label(struct cookie_fleet *f, const char *dir_id)
{
	struct etcd_txn t = { 0 };
	struct etcd_kv kv;
	int64_t rev;
	bool ok;

	snprintf(f->dir_id, sizeof(f->dir_id), "%s", dir_id);
	make_value(f);
	etcd_txn_cmp(&t, f->node_key, ETCD_CREATE, f->claim_rev);
	etcd_txn_cmp(&t, f->node_key, ETCD_LEASE, f->lease);
	etcd_txn_put(&t, true, f->node_key, f->value, f->lease);
	/* Best effort: without it a restart waits for the lease instead of taking it over. */
	if (etcd_txn_run(&f->etcd, &t, &ok, &rev, &kv, 0) || !ok)
		f->log(LOG_WARNING, "cannot write the state directory's id into %s: %s", f->node_key,
		       ok ? f->etcd.err : "the claim changed");
}

/* The claim is gone (@why): serve what is reserved, then refuse; the thread tries again. */
void fleet_lose(struct cookie_fleet *f, const char *why)
{
	uint64_t reserved, seq, left, rate;

	pthread_mutex_lock(&f->mu);
	f->claimed = false;
	f->lost_since = clock_now();
	pthread_mutex_unlock(&f->mu);
	reserved = cookie_fleet_reserved(f);
	seq = __atomic_load_n(&f->rate_seq, __ATOMIC_RELAXED);
	left = reserved > seq ? reserved - seq : 0;
	rate = __atomic_load_n(&f->rate, __ATOMIC_RELAXED);

	f->log(LOG_ERR, "lost the claim of node id %u: %s; serving the %" PRIu64 " cookies "
	       "reserved (about %.0f s at %" PRIu64 "/s), then refusing draws until it, or a "
	       "free id if another holder has it, is claimed", f->node, why, left,
	       rate ? (double)left / rate : 0.0, rate);
}
