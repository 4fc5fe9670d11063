/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's per-uid rate limit on socket draws: one token bucket per uid.
 *
 * A uid's bucket holds at most @burst cookies and refills at @rate cookies per second; a
 * draw of N takes N tokens, or is refused whole (the bucket is left as it was, so a refused
 * request costs nothing and a smaller one may still pass). A uid seen for the first time
 * starts with a full bucket.
 *
 * Why per uid: the socket is open to group bareatom, and one member pipelining GET 65536 drew
 * 2.65e9 cookies/s, which empties a node's 2^48 space in about 29 hours. At the default
 * 16384 (2^14) cookies/s a uid needs 2^48 / 2^14 = 2^34 s, about 544 years, to do the same
 * (K uids together: 544 / K years). The burst, 2^20 (16 of the largest GETs), is drawn once.
 *
 * The table is bounded (COOKIE_RATE_UIDS). A full bucket is the same as a new one, so an entry
 * that has refilled is reused freely; when none has, the entry closest to full is reused,
 * which gives that uid back at most what it had yet to refill. Only more than
 * COOKIE_RATE_UIDS uids drawing at once can see that. Pure code, tested on the host.
 */
#ifndef __BAREATOM_COOKIE_RATE_H
#define __BAREATOM_COOKIE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define COOKIE_RATE_DEFAULT	16384		/* cookies per second per uid */
#define COOKIE_BURST_DEFAULT	1048576		/* cookies a uid may draw at once after a pause */
#define COOKIE_RATE_MAX		(1ULL << 48)	/* a node's whole space: more means nothing */
#define COOKIE_RATE_UIDS	1024

struct cookie_rate_bucket {
	uint32_t uid;
	double tokens;		/* at @at */
	double at;		/* seconds, of a monotonic clock */
};

struct cookie_rate {
	uint64_t rate;		/* cookies per second; 0: unlimited */
	uint64_t burst;		/* at least COOKIE_GET_MAX, so every GET can pass */
	int n;			/* entries in use: b[0] .. b[n-1] */
	struct cookie_rate_bucket b[COOKIE_RATE_UIDS];
};

void cookie_rate_init(struct cookie_rate *r, uint64_t rate, uint64_t burst);

/*
 * Take @n cookies from @uid's bucket at time @now (seconds). Returns true when they may be
 * drawn; false when the bucket holds fewer, with *retry set to the seconds until it holds @n.
 */
bool cookie_rate_take(struct cookie_rate *r, uint32_t uid, uint64_t n, double now, double *retry);

/*
 * Parse --rate-limit: "N" or "N/s" with N from 1 to COOKIE_RATE_MAX, or "0" or "unlimited"
 * (no limit: *rate = 0). Parse --rate-burst: "N", COOKIE_GET_MAX to COOKIE_RATE_MAX.
 * Return 0, or -1 with *err set to a short reason.
 */
int cookie_rate_parse_rate(const char *s, uint64_t *rate, const char **err);
int cookie_rate_parse_burst(const char *s, uint64_t *burst, const char **err);

#endif /* __BAREATOM_COOKIE_RATE_H */
