/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small client of etcd's v3 API through its JSON gateway (etcd 3.4: POST /v3/lease/grant,
 * /v3/lease/keepalive, /v3/lease/revoke, /v3/kv/range, /v3/kv/txn), on libcurl for HTTP and
 * json-c for the bodies. Keys and values travel base64-encoded, 64-bit numbers as decimal
 * strings, and fields equal to zero are left out of replies (a missing "TTL" is 0).
 *
 * One struct etcd per thread (one curl handle). Every call tries the endpoints in turn,
 * starting with the one that answered last, and returns:
 *   0             etcd answered (a txn's compare may still have failed: *succeeded says)
 *   -EHOSTUNREACH no endpoint answered within the timeout (connection refused, timed out)
 *   -EPROTO       an endpoint answered, but not as etcd's gateway does (HTTP 404, not JSON)
 *   -EREMOTEIO    etcd answered with an error (no leader, request timed out, ...)
 * and leaves one line in e->err saying what happened (the endpoint and etcd's message).
 */
#ifndef __BAREATOM_ETCD_H
#define __BAREATOM_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETCD_MAX_URLS	8
#define ETCD_VALUE_MAX	256	/* longer values are cut (cookie-gend's are one short line) */
#define ETCD_TXN_OPS	4	/* compares, and operations per branch, in one txn */

struct etcd {
	char *urls[ETCD_MAX_URLS];	/* "http://127.0.0.1:2379", no trailing slash */
	int nurls, cur;			/* the endpoint tried first: the one that answered last */
	long timeout_ms;		/* per request and endpoint, connect included */
	void *curl;			/* CURL * */
	char err[320];
};

/* One key as a range or a txn's range returned it; found is false when it does not exist. */
struct etcd_kv {
	bool found;
	char key[128];
	char value[ETCD_VALUE_MAX];
	size_t value_len;
	int64_t create_rev, mod_rev, version, lease;
};

enum etcd_target { ETCD_CREATE, ETCD_MOD, ETCD_LEASE };

/* A txn: compares (each EQUAL) and, per branch, puts and single-key ranges. */
struct etcd_txn {
	int ncmp, nops[2];
	struct { const char *key; enum etcd_target target; int64_t v; } cmp[ETCD_TXN_OPS];
	struct { const char *key, *value; int64_t lease; bool put; } ops[2][ETCD_TXN_OPS];
};

/*
 * Parse @urls ("http://HOST:PORT[,http://HOST:PORT...]", http only) and set up a handle.
 * 0, or -EINVAL with e->err saying why (nothing left allocated).
 */
int etcd_open(struct etcd *e, const char *urls, long timeout_ms);
void etcd_close(struct etcd *e);

int etcd_grant(struct etcd *e, int64_t ttl, int64_t *lease, int64_t *granted_ttl);
/* *ttl is the lease's remaining TTL after the refresh, 0 when the lease no longer exists. */
int etcd_keepalive(struct etcd *e, int64_t lease, int64_t *ttl);
int etcd_revoke(struct etcd *e, int64_t lease);
/* One key, linearizable; @rev gets the store's revision (may be NULL). */
int etcd_get(struct etcd *e, const char *key, struct etcd_kv *kv, int64_t *rev);
/*
 * The keys under @prefix (keys only, at most @max of them, in key order) into @kvs; *n gets
 * how many.
 */
int etcd_list(struct etcd *e, const char *prefix, struct etcd_kv *kvs, int max, int *n);

/* Build a txn (bounds: ETCD_TXN_OPS each; the strings must live until etcd_txn_run()). */
void etcd_txn_cmp(struct etcd_txn *t, const char *key, enum etcd_target target, int64_t v);
void etcd_txn_put(struct etcd_txn *t, bool success, const char *key, const char *value, int64_t lease);
void etcd_txn_get(struct etcd_txn *t, bool success, const char *key);
/*
 * Run @t: *succeeded says which branch ran, *rev is the revision after it (a put's
 * mod_revision), and the ranges of that branch fill @kvs in order (up to @max).
 */
int etcd_txn_run(struct etcd *e, const struct etcd_txn *t, bool *succeeded, int64_t *rev,
		 struct etcd_kv *kvs, int max);

#endif /* __BAREATOM_ETCD_H */
