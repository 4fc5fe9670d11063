// SPDX-License-Identifier: GPL-2.0
/* cookie-gend's per-uid token buckets (cookie_rate.h). */
#include <string.h>
#include "src/cookie_proto.h"
#include "src/cookie_rate.h"

void cookie_rate_init(struct cookie_rate *r, uint64_t rate, uint64_t burst)
{
	r->rate = rate;
	r->burst = burst;
	r->n = 0;
}

/* What the bucket holds at @now: never more than the burst, never less than it held. */
static double level(const struct cookie_rate *r, const struct cookie_rate_bucket *b, double now)
{
	double t = b->tokens;

	if (now > b->at)
		t += (now - b->at) * (double)r->rate;
	return t < (double)r->burst ? t : (double)r->burst;
}

static struct cookie_rate_bucket *bucket_of(struct cookie_rate *r, uint32_t uid, double now)
{
	struct cookie_rate_bucket *b = NULL;
	double most = -1;

	for (int i = 0; i < r->n; i++)
		if (r->b[i].uid == uid)
			return &r->b[i];
	if (r->n < COOKIE_RATE_UIDS) {
		b = &r->b[r->n++];
	} else {
		/* Full: reuse the entry closest to full (a full one loses nothing). */
		for (int i = 0; i < r->n; i++) {
			double l = level(r, &r->b[i], now);

			if (l > most) {
				most = l;
				b = &r->b[i];
			}
		}
	}
	*b = (struct cookie_rate_bucket){ .uid = uid, .tokens = (double)r->burst, .at = now };
	return b;
}

bool cookie_rate_take(struct cookie_rate *r, uint32_t uid, uint64_t n, double now, double *retry)
{
	struct cookie_rate_bucket *b;
	double have;

	if (!r->rate)
		return true;
	b = bucket_of(r, uid, now);
	have = level(r, b, now);
	if (now > b->at) {
		b->tokens = have;
		b->at = now;
	}
	if (have >= (double)n) {
		b->tokens = have - (double)n;
		return true;
	}
	*retry = ((double)n - have) / (double)r->rate;
	return false;
}

/* A whole decimal number from @min to @max, nothing else. */
static int parse_u64(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 20 || strspn(s, "0123456789") < len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (v > (max - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < min)
		return -1;
	*out = v;
	return 0;
}

int cookie_rate_parse_rate(const char *s, uint64_t *rate, const char **err)
{
	size_t len = strlen(s);

	if (!strcmp(s, "unlimited") || !strcmp(s, "0")) {
		*rate = 0;
		return 0;
	}
	if (len > 2 && !strcmp(s + len - 2, "/s"))
		len -= 2;
	if (parse_u64(s, len, 1, COOKIE_RATE_MAX, rate)) {
		*err = "cookies per second: a whole number from 1 to 2^48 (N or N/s), or 0 or unlimited";
		return -1;
	}
	return 0;
}

int cookie_rate_parse_burst(const char *s, uint64_t *burst, const char **err)
{
	if (parse_u64(s, strlen(s), COOKIE_GET_MAX, COOKIE_RATE_MAX, burst)) {
		*err = "cookies: a whole number from 65536 (the largest GET) to 2^48";
		return -1;
	}
	return 0;
}
