// SPDX-License-Identifier: GPL-2.0
/* cookie-gend's claim of a node id and its reservations in etcd (cookie_fleet.h). */
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
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_fleet.h"
#include "src/cookie_store.h"
#include "src/clock.h"

#define BACKOFF_MIN	0.2
#define BACKOFF_MAX	2.0

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double next_backoff(double b)
{
	return b < BACKOFF_MIN ? BACKOFF_MIN : b * 2 > BACKOFF_MAX ? BACKOFF_MAX : b * 2;
}

/* The margin before the TTL at which a daemon whose keepalives fail stops extending. */
static double ttl_margin(int64_t ttl)
{
	return ttl / 3.0;
}

int cookie_fleet_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
			   unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (~0ULL - (s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (!i || s[i] || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int cookie_fleet_parse_ids(const char *s, unsigned int *lo, unsigned int *hi)
{
	const char *dash = strchr(s, '-');
	unsigned long long a, b;
	char first[16];

	if (!dash || dash - s >= (long)sizeof(first))
		return -EINVAL;
	snprintf(first, sizeof(first), "%.*s", (int)(dash - s), s);
	if (cookie_fleet_parse_u64(first, 0, FLEET_ID_MAX, &a) ||
	    cookie_fleet_parse_u64(dash + 1, 0, FLEET_ID_MAX, &b) || a > b)
		return -EINVAL;
	*lo = a;
	*hi = b;
	return 0;
}

int cookie_fleet_open(struct cookie_fleet *f, const struct cookie_fleet_conf *c)
{
	const char *p = c->prefix;

	f->c = *c;
	if (!*p || p[0] != '/' || strlen(p) > 100 || strpbrk(p, " \t\n")) {
		f->log(LOG_ERR, "invalid --etcd-prefix '%s': a key prefix starting with '/', at most "
		       "100 bytes, no blanks", p);
		return 2;
	}
	if (etcd_open(&f->etcd, c->urls, FLEET_TIMEOUT_MS)) {
		f->log(LOG_ERR, "invalid --etcd: %s", f->etcd.err);
		return 2;
	}
	pthread_mutex_init(&f->mu, NULL);
	return 0;
}

static void set_node(struct cookie_fleet *f, unsigned int node)
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
static int parse_hw(const struct etcd_kv *kv, uint64_t *hw)
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
static bool our_claim(struct cookie_fleet *f, const struct etcd_kv *kv)
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
static int free_id(struct cookie_fleet *f, long skip, long *id)
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

static void log_all_taken(struct cookie_fleet *f, int prio)
{
	f->log(prio, "every node id from %u to %u is claimed under %snode/ in etcd: no id for this "
	       "machine (ids come free when their holders' leases expire; see etcdctl get --prefix "
	       "%snode/)", f->c.id_lo, f->c.id_hi, f->c.prefix, f->c.prefix);
}

/*
 * One claim txn on f->node with f->lease: 1 claimed (f->etcd_hw, f->hw_mod, f->claim_rev
 * set), 0 held by someone (@holder), or a negative errno (etcd).
 */
static int try_claim(struct cookie_fleet *f, struct etcd_kv *holder)
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
	if (parse_hw(&kvs[0], &f->etcd_hw)) {
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

static int grant(struct cookie_fleet *f)
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
		err = f->lease ? 0 : grant(f);
		if (!err) {
			if (fixed >= 0) {
				id = fixed;
			} else {
				err = free_id(f, -1, &id);
				if (err == -ENOSPC) {
					log_all_taken(f, LOG_ERR);
					return FLEET_EXIT_TEMPFAIL;
				}
			}
		}
		if (!err) {
			set_node(f, id);
			err = try_claim(f, &holder);
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
			if (from_dir && our_claim(f, &holder)) {
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
static void lose(struct cookie_fleet *f, const char *why)
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

/*
 * One reserve txn up to @new: 0 done, 1 try again now (the mark was changed by hand: we
 * go above it), or a negative errno.
 */
static int reserve(struct cookie_fleet *f, uint64_t new)
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
		lose(f, why);
		return -ENOLINK;
	}
	{
		uint64_t hw;

		if (parse_hw(&kvs[1], &hw)) {
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
static uint64_t next_mark(struct cookie_fleet *f)
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
		int err = reserve(f, next_mark(f));

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

/*
 * A claim the caller has not moved to yet: of another id than the one it serves, or of
 * the same one claimed again above what the caller had reserved (f->restart). Under mu.
 */
static bool move_waits(const struct cookie_fleet *f)
{
	return f->claimed && (f->node != f->serving || f->restart);
}

static bool move_pending(struct cookie_fleet *f)
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

const char *cookie_fleet_why(struct cookie_fleet *f)
{
	if (!__atomic_load_n(&f->claimed, __ATOMIC_RELAXED))
		return "the claim of this node id in etcd is lost";
	if (move_pending(f))
		return "moving to another node id, claimed in etcd in place of this one";
	if (__atomic_load_n(&f->suspect, __ATOMIC_RELAXED))
		return "etcd does not answer the lease keepalives";
	if (__atomic_load_n(&f->hw_bad, __ATOMIC_RELAXED))
		return "this node's high-water key in etcd is not a mark";
	return "etcd has not reserved the next range yet";
}

void cookie_fleet_snapshot(struct cookie_fleet *f, struct cookie_fleet_stats *s)
{
	pthread_mutex_lock(&f->mu);
	*s = (struct cookie_fleet_stats){
		.node = f->node, .claimed = f->claimed, .claim_rev = f->claim_rev, .lease = f->lease,
		.reserved = cookie_fleet_reserved(f), .keepalive_failures = f->keepalive_failures,
		.txn_failures = f->txn_failures, .claims = f->claims, .moves = f->moves,
		.without_claim = f->claimed ? 0 : clock_now() - f->lost_since,
	};
	pthread_mutex_unlock(&f->mu);
}

/* Keep the lease: every TTL/3. A lease etcd no longer has is a lost claim. */
static void keepalive(struct cookie_fleet *f, double now)
{
	int64_t ttl = 0;
	int err;

	if (now < f->next_ka)
		return;
	f->next_ka = now + f->lease_ttl / 3.0;
	err = etcd_keepalive(&f->etcd, f->lease, &ttl);
	if (!err && ttl > 0) {
		f->last_ka_ok = now;
		if (f->ka_logged || f->suspect)
			f->log(LOG_NOTICE, "etcd answers the keepalives of node %u's lease again", f->node);
		f->ka_logged = false;
		__atomic_store_n(&f->suspect, false, __ATOMIC_RELAXED);
		return;
	}
	if (!err) {
		lose(f, "its lease expired");
		return;
	}
	pthread_mutex_lock(&f->mu);
	f->keepalive_failures++;
	pthread_mutex_unlock(&f->mu);
	if (!f->ka_logged)
		f->log(LOG_WARNING, "keepalive of node %u's lease failed: %s", f->node, f->etcd.err);
	f->ka_logged = true;
}

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
	int err = free_id(f, own, &id);

	if (err)
		return err;
	pthread_mutex_lock(&f->mu);
	set_node(f, id);
	pthread_mutex_unlock(&f->mu);
	err = try_claim(f, &holder);
	if (err != 1) {
		pthread_mutex_lock(&f->mu);
		set_node(f, own);
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
static void reclaim(struct cookie_fleet *f, double now)
{
	struct etcd_kv holder;
	unsigned int own = f->node;
	int err;

	f->lease = 0;
	err = grant(f);
	if (!err)
		err = try_claim(f, &holder);
	/* Still under a lease of ours that etcd had not expired yet: give it back, try again. */
	if (!err && our_claim(f, &holder) && !etcd_revoke(&f->etcd, holder.lease))
		err = try_claim(f, &holder);
	if (!err) {
		if (!f->lost_logged)
			f->log(LOG_WARNING, "node id %u is held by another holder now (%s = %s): "
			       "claiming a free id of %u-%u instead", own, f->node_key, holder.value,
			       f->c.id_lo, f->c.id_hi);
		f->lost_logged = true;
		err = claim_free(f);
		if (err == -ENOSPC && !f->all_taken_logged)
			log_all_taken(f, LOG_WARNING);
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

static void *run(void *arg)
{
	struct cookie_fleet *f = arg;

	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		double now = clock_now(), wake;
		struct timespec ts;

		pthread_mutex_unlock(&f->mu);
		if (f->claimed) {
			keepalive(f, now);
			/*
			 * Keepalives failing for longer than the TTL minus a margin: the id may
			 * be another's soon. Reserving would fail then anyway (the txn compares
			 * the claim); stopping first keeps two holders rare. Never for safety.
			 */
			if (f->claimed && now - f->last_ka_ok > f->lease_ttl - ttl_margin(f->lease_ttl) &&
			    !f->suspect) {
				f->log(LOG_WARNING, "no keepalive answered for %.1f s (lease %" PRId64
				       " s): no more reservations until one is", now - f->last_ka_ok,
				       f->lease_ttl);
				__atomic_store_n(&f->suspect, true, __ATOMIC_RELAXED);
			}
		}
		now = clock_now();
		if (now >= f->retry_at) {
			int err = 0;

			if (!f->claimed)
				reclaim(f, now);
			else if (!f->suspect && !move_pending(f) &&
				 __atomic_load_n(&f->want, __ATOMIC_RELAXED) + f->c.reserve / 2 >=
				 cookie_fleet_reserved(f))
				err = reserve(f, next_mark(f));
			if (!f->claimed || (err && err != 1)) {
				if (err && err != -ENOLINK && !f->txn_logged)
					f->log(LOG_WARNING, "cannot reserve the next range in etcd: %s",
					       err == -EUCLEAN ? "the mark there is not one" : f->etcd.err);
				if (err && err != -ENOLINK && err != -EUCLEAN) {
					pthread_mutex_lock(&f->mu);
					f->txn_failures++;
					pthread_mutex_unlock(&f->mu);
				}
				f->txn_logged = err != 0;
				f->backoff = next_backoff(f->backoff);
				f->retry_at = clock_now() + f->backoff;
			} else {
				if (f->txn_logged)
					f->log(LOG_NOTICE, "reserving in etcd again (up to %" PRIu64 ")",
					       cookie_fleet_reserved(f));
				f->txn_logged = false;
				f->backoff = 0;
			}
		}
		pthread_mutex_lock(&f->mu);
		if (f->stop)
			break;
		wake = f->claimed ? f->next_ka : f->retry_at;
		if (f->retry_at > clock_now() && f->retry_at < wake)
			wake = f->retry_at;
		if (wake > clock_now() + 1.0)
			wake = clock_now() + 1.0;
		if (wake > clock_now()) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			wake -= clock_now();
			ts.tv_sec += (time_t)wake;
			ts.tv_nsec += (long)((wake - (time_t)wake) * 1e9);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&f->cv, &f->mu, &ts);
		}
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

int cookie_fleet_start(struct cookie_fleet *f)
{
	pthread_condattr_t ca;
	int err;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);
	f->next_ka = clock_now() + f->lease_ttl / 3.0;
	err = pthread_create(&f->thread, NULL, run, f);
	if (err) {
		f->log(LOG_ERR, "cannot start the etcd thread: %s", strerror(err));
		return -err;
	}
	f->running = true;
	return 0;
}

void cookie_fleet_stop(struct cookie_fleet *f)
{
	if (f->running) {
		pthread_mutex_lock(&f->mu);
		f->stop = true;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->thread, NULL);
		f->running = false;
	}
	etcd_close(&f->etcd);
}
