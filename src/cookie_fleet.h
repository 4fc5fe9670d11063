/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend --etcd: a node id claimed from etcd, and ranges of it reserved in etcd before
 * any cookie of them is served (cookie_fleet_*.c, on etcd.h; cookie_fleet_parts.h says
 * which file does what).
 *
 * Keys, under the prefix P (default "/bareatom/"):
 *   P node/N       "host=H pid=P started=ISO8601 dir=ID": the claim of node id N, put under
 *                  the holder's lease by a txn that compares its create_revision with 0. The
 *                  claim is (create_revision, lease) of that key; dir is the state directory's
 *                  id (none on a first start until it exists).
 *   P highwater/N  "H": no cookie of node N was ever served at or above sequence H
 *                  (N << 48 | H), no lease: it outlives every holder.
 *
 * The rule (cookie-gend(8)): every range is reserved by one txn
 *   compare  node/N create_revision == our claim's, node/N lease == our lease,
 *            highwater/N mod_revision == the one we last saw (0: absent)
 *   success  put highwater/N = new mark
 * before the counter's limit may pass the old mark. etcd linearizes txns, so two holders
 * of one id (a paused one, a new one) never both move the same mark: each serves only below
 * what its own successful txn wrote, and a new holder starts above the mark it read when it
 * claimed. Uniqueness rests on that alone; clocks and the lease's timing only decide when
 * an id is given back and when this daemon stops trying to extend.
 *
 * Threads: the claim at start runs on the caller's thread (cookie_fleet_claim(),
 * cookie_fleet_reserve_first()); then one thread of its own keeps the lease alive and
 * reserves ahead of the counter, so etcd's latency or absence never blocks a draw. The
 * caller reads the reservation with cookie_fleet_reserved() (it only grows, but for a move
 * to another id: cookie_fleet_moved()) and says how far it wants to go with
 * cookie_fleet_want().
 */
#ifndef __BAREATOM_COOKIE_FLEET_H
#define __BAREATOM_COOKIE_FLEET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "src/etcd.h"

/*
 * The lease's TTL: what a dead machine's id stays unusable for, and nothing else (never
 * safety). 15 s: a keepalive every 5 s survives two lost ones and an election (1 s with
 * etcd's defaults), and a restart of the same state directory takes its own claim over at
 * once, so only machines that are really gone wait this long to be replaced.
 */
#define FLEET_TTL_DEFAULT	15
#define FLEET_TTL_MIN		2
#define FLEET_TTL_MAX		3600
/*
 * Sequences reserved by one txn: 2^28. At ten million cookies a second that is 27 s of
 * service without etcd, one txn every 13 s (reserved again at half way); a holder that dies
 * wastes at most that much of its node's 2^48, so an id survives a million such restarts.
 */
#define FLEET_RESERVE_DEFAULT	(1ULL << 28)
#define FLEET_WAIT_DEFAULT	30.0	/* seconds etcd may be unreachable at start: then exit 75 */
#define FLEET_TIMEOUT_MS	2000	/* one request to one endpoint */
#define FLEET_PREFIX_DEFAULT	"/bareatom/"
#define FLEET_ID_MAX		65535
#define FLEET_LIST_MAX		4096	/* node keys read to choose a free id */

/* Exit statuses (sysexits.h): etcd cannot be used now (retry later), or needs an operator. */
#define FLEET_EXIT_TEMPFAIL	75
#define FLEET_EXIT_CONFIG	78

struct cookie_fleet_conf {
	const char *urls, *prefix;
	int64_t ttl;			/* seconds */
	uint64_t reserve;		/* sequences per txn */
	double wait;			/* seconds, at start */
	unsigned int id_lo, id_hi;	/* ids a new state directory (or a move) may claim */
	bool move;			/* --etcd-move: at start too, a directory's id held by
					 * another directory is moved from, not refused (78) */
};

/* What STATS, the metrics and the tests read (cookie_fleet_snapshot()). */
struct cookie_fleet_stats {
	unsigned int node;
	bool claimed;
	int64_t claim_rev, lease;
	uint64_t reserved;		/* sequences below this are reserved */
	uint64_t keepalive_failures, txn_failures, claims;
	uint64_t moves;			/* times the caller moved to another id (its own taken) */
	double without_claim;		/* seconds since the claim was lost, 0 while held */
};

struct cookie_fleet {
	struct cookie_fleet_conf c;
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	struct etcd etcd;		/* the caller's until cookie_fleet_start(), the thread's after */
	char node_key[160], hw_key[160], value[ETCD_VALUE_MAX], dir_id[24];
	unsigned int node;		/* the id claimed (or last claimed) in etcd */
	/* The claim and the mark in etcd (mu). */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	/*
	 * The id the caller serves: node but while a move waits for the caller (its own id
	 * taken by another holder, a free one claimed). Ranges are reserved only for it.
	 */
	unsigned int serving;
	bool restart;			/* serving claimed again, above its reservation */
	bool running, stop, claimed, hw_bad, lost_logged, ka_logged, txn_logged, suspect;
	bool all_taken_logged;
	int64_t lease, lease_ttl, claim_rev, hw_mod;
	uint64_t etcd_hw;		/* highwater/N as last written or read */
	double last_ka_ok;		/* CLOCK_MONOTONIC when the last good keepalive was sent */
	double next_ka, retry_at, backoff, lost_since;
	uint64_t keepalive_failures, txn_failures, claims, moves;
	/* Atomics: the reservation (only grows) and how far the counter wants to go. */
	uint64_t reserved, want;
	uint64_t rate;			/* cookies/s at the last cookie_fleet_want(), for the log */
	double rate_t;
	uint64_t rate_seq;
};

/* Options: a strict decimal in [lo, hi]; LO-HI of node ids. 0, or -EINVAL. */
int cookie_fleet_parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
			   unsigned long long *out);
int cookie_fleet_parse_ids(const char *s, unsigned int *lo, unsigned int *hi);

/* Check @c (URLs, prefix): 0, or 2 after logging why (a usage error). */
int cookie_fleet_open(struct cookie_fleet *f, const struct cookie_fleet_conf *c);

/*
 * Claim a node id: @fixed (0-65535, from the state directory's node file when @from_dir, else
 * --node-id), or a free one of c.id_lo..c.id_hi tried from a random start (-1). @dir_id is
 * the state directory's id when it has one, else NULL. Waits up to c.wait for etcd. On 0,
 * f->node is the id, f->etcd_hw its mark in etcd. Else the exit status, logged:
 * FLEET_EXIT_TEMPFAIL (etcd unreachable, every id taken, or @fixed still held by a claim
 * that may be ours), FLEET_EXIT_CONFIG (@fixed from the directory is held by another state
 * directory, or highwater/N is not a mark). With c.move, @fixed from the directory held by
 * another state directory is not refused: a free id is claimed instead (f->node differs
 * from @fixed then), and the caller moves the directory to it (cookie_mark_open_fleet()).
 */
int cookie_fleet_claim(struct cookie_fleet *f, long fixed, bool from_dir, const char *dir_id);

/* After the state directory has its id (a first start): write it into the claim's value. */
void cookie_fleet_label(struct cookie_fleet *f, const char *dir_id);

/*
 * The first reservation, above both marks (the state directory's @local_mark and etcd's):
 * the higher wins. 0, or an exit status (logged).
 */
int cookie_fleet_reserve_first(struct cookie_fleet *f, uint64_t local_mark);

/* Start and stop the thread that keeps the claim and reserves ahead. */
int cookie_fleet_start(struct cookie_fleet *f);
void cookie_fleet_stop(struct cookie_fleet *f);

/* Sequences of the node below this are reserved: the counter's limit may go up to it. */
static inline uint64_t cookie_fleet_reserved(struct cookie_fleet *f)
{
	return __atomic_load_n(&f->reserved, __ATOMIC_ACQUIRE);
}

/*
 * The counter needs sequence @seq now: the thread keeps c.reserve / 2 to c.reserve reserved
 * above it. Never blocks.
 */
void cookie_fleet_want(struct cookie_fleet *f, uint64_t seq);

/*
 * A lost claim whose id another holder took is followed by a claim of a free id of
 * c.id_lo..c.id_hi (the thread's, the procedure of a start without an id); one of our own
 * id again whose mark in etcd is above what we had reserved (another holder served it
 * meanwhile) is a move to the same id. The caller then moves to it, in this order: cookie_fleet_moving() gives the id and etcd's mark for it
 * (1; 0 when no move waits); the caller moves its state directory (cookie_mark_move());
 * cookie_fleet_moved() says it serves @node now from a counter that gives nothing yet,
 * its directory's mark @local_mark; the caller then starts a fresh counter of @node
 * (cookie_mark_recover()), whose limit follows cookie_fleet_reserved() as before. Until
 * cookie_fleet_moved(), nothing is reserved for the new id and cookie_fleet_reserved() is
 * still the old id's; from it on, the reservation is the new id's, from 0. Both from the
 * caller's thread.
 */
int cookie_fleet_moving(struct cookie_fleet *f, unsigned int *node, uint64_t *hw);
void cookie_fleet_moved(struct cookie_fleet *f, unsigned int node, uint64_t local_mark);

/* Why draws are refused now, for the reply (a static string). */
const char *cookie_fleet_why(struct cookie_fleet *f);

void cookie_fleet_snapshot(struct cookie_fleet *f, struct cookie_fleet_stats *s);

#endif /* __BAREATOM_COOKIE_FLEET_H */
