// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend --etcd, its options and its thread (cookie_fleet.h): the thread that keeps
 * the lease alive and reserves ahead of the counter, and what the daemon reads of it (why
 * draws are refused, the snapshot). The claim, the reservations and a move to another id
 * are the thread's parts, each a file: cookie_fleet_claim.c, cookie_fleet_reserve.c,
 * cookie_fleet_move.c (cookie_fleet_parts.h); none of them calls back into this one.
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

const char *cookie_fleet_why(struct cookie_fleet *f)
{
	if (!__atomic_load_n(&f->claimed, __ATOMIC_RELAXED))
		return "the claim of this node id in etcd is lost";
	if (fleet_move_pending(f))
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
		fleet_lose(f, "its lease expired");
		return;
	}
	pthread_mutex_lock(&f->mu);
	f->keepalive_failures++;
	pthread_mutex_unlock(&f->mu);
	if (!f->ka_logged)
		f->log(LOG_WARNING, "keepalive of node %u's lease failed: %s", f->node, f->etcd.err);
	f->ka_logged = true;
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
				fleet_reclaim(f, now);
			else if (!f->suspect && !fleet_move_pending(f) &&
				 __atomic_load_n(&f->want, __ATOMIC_RELAXED) + f->c.reserve / 2 >=
				 cookie_fleet_reserved(f))
				err = fleet_reserve(f, fleet_next_mark(f));
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
