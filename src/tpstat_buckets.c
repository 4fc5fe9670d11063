// SPDX-License-Identifier: GPL-2.0
/* tpstat's histogram bucket model (tpstat_buckets.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_buckets.h"

void buckets_log2_bounds(int b, bool is_signed, __s64 *low, __s64 *high, __u64 *ulow,
			 __u64 *uhigh)
{
	int k = b > 64 ? b - 64 : b;
	__u64 lo = k ? 1ULL << (k - 1) : 0, hi = k == 64 ? ~0ULL : k ? (1ULL << k) - 1 : 0;

	if (!is_signed && b <= 64) {
		*ulow = lo;
		*uhigh = hi;
		return;
	}
	if (b <= 64) {
		*low = (__s64)lo;
		*high = hi > (__u64)INT64_MAX ? INT64_MAX : (__s64)hi;
		return;
	}
	/* Negative: magnitudes [lo, hi], so [-hi, -lo]; 2^63 is INT64_MIN's only one. */
	*low = hi > (__u64)INT64_MAX ? INT64_MIN : -(__s64)hi;
	*high = lo > (__u64)INT64_MAX ? INT64_MIN : -(__s64)lo;
}

__u64 buckets_lhist_steps(__s64 lmin, __s64 lmax, __u64 step)
{
	/* MAX - MIN fits in 64 bits unsigned for any two 64-bit MIN < MAX; MAX - MIN + STEP may not. */
	__u64 range = (__u64)lmax - (__u64)lmin;

	return range / step + (range % step != 0);
}

enum buckets_text buckets_parse_linear(char *s, bool from_zero, struct buckets_linear *l,
				       const char **what, const char **bad,
				       unsigned long long *nbuckets)
{
	static const char *const names[3] = { "MIN", "MAX", "STEP" };
	long long v[3];
	char *p[3];

	for (int k = 2; k >= 0; k--) {
		p[k] = strrchr(s, ':');
		if (!p[k])
			return BUCKETS_TEXT_FORM;
		*p[k]++ = '\0';
	}
	for (int k = 0; k < 3; k++) {
		char *end;

		errno = 0;
		v[k] = strtoll(p[k], &end, 10);
		if (errno || end == p[k] || *end) {
			*what = names[k];
			*bad = p[k];
			return BUCKETS_TEXT_NUMBER;
		}
	}
	*l = (struct buckets_linear){ .linear = true, .lmin = v[0], .lmax = v[1], .lstep = v[2] };
	if ((from_zero && l->lmin < 0) || l->lmax <= l->lmin || l->lstep <= 0)
		return BUCKETS_TEXT_ORDER;
	*nbuckets = buckets_lhist_steps(l->lmin, l->lmax, l->lstep);
	return *nbuckets > TPSTAT_LHIST_MAX ? BUCKETS_TEXT_MANY : BUCKETS_TEXT_OK;
}

const char *buckets_sum(char *buf, size_t len, __u64 lo, __u64 hi, bool is_signed)
{
	unsigned __int128 v = ((unsigned __int128)hi << 64) | lo;
	char digits[48];
	int n = sizeof(digits), neg = is_signed && (__s64)hi < 0;

	if (neg)
		v = -v;
	digits[--n] = '\0';
	do {
		digits[--n] = '0' + (int)(v % 10);
		v /= 10;
	} while (v);
	if (neg)
		digits[--n] = '-';
	snprintf(buf, len, "%s", digits + n);
	return buf;
}

double buckets_sum_double(__u64 lo, __u64 hi, bool is_signed)
{
	if (is_signed)
		return (double)(__s64)hi * 18446744073709551616.0 + (double)lo;
	return (double)hi * 18446744073709551616.0 + (double)lo;
}

/*
 * Display order: for log2, the most negative bucket first, then 0, then the positive ones;
 * for --lhist, below MIN, the steps, MAX or more (-1 past them).
 */
int buckets_order(const struct tpstat_hist_row *h, int i)
{
	if (h->linear) {
		__u64 n = buckets_lhist_steps(h->lmin, h->lmax, h->lstep ? h->lstep : 1);

		/* Below MIN is empty when MIN is the least value the field has: no bucket. */
		if (i == 0 && h->lmin == (h->is_signed ? INT64_MIN : 0))
			return -1;
		/* 0: below MIN; 1..n: the steps; then MAX or more; -1: no such bucket. */
		return (__u64)i <= n ? i : (__u64)i == n + 1 ? TPSTAT_LHIST_MAX + 1 : -1;
	}
	return i < 64 ? 128 - i : i == 64 ? 0 : i - 64;
}

bool buckets_bounds(const struct tpstat_hist_row *h, int b, __s64 *lo, __s64 *hi, __u64 *ulo,
		    __u64 *uhi)
{
	__u64 step = h->lstep ? h->lstep : 1, l, u;

	if (!h->linear) {
		buckets_log2_bounds(b, h->is_signed, lo, hi, ulo, uhi);
		return !h->is_signed && b <= 64;
	}
	/* Two's complement arithmetic: the same bits serve signed and unsigned bounds. */
	if (b == 0) {
		l = h->is_signed ? (__u64)INT64_MIN : 0;
		u = (__u64)h->lmin - 1;
	} else if (b == TPSTAT_LHIST_MAX + 1) {
		l = (__u64)h->lmax;
		u = h->is_signed ? (__u64)INT64_MAX : UINT64_MAX;
	} else {
		/* l < MAX; the step or what is left up to MAX, whichever is less: no wrap. */
		l = (__u64)h->lmin + (__u64)(b - 1) * step;
		u = l + ((__u64)h->lmax - l < step ? (__u64)h->lmax - l : step) - 1;
	}
	*lo = (__s64)l;
	*hi = (__s64)u;
	*ulo = l;
	*uhi = u;
	return !h->is_signed;
}

void buckets_label(const struct tpstat_hist_row *h, int b, char *buf, size_t len)
{
	__s64 lo, hi;
	__u64 ulo, uhi;

	if (h->linear && b == 0) {
		snprintf(buf, len, h->is_signed ? "< %lld" : "< %llu", (long long)h->lmin);
		return;
	}
	if (h->linear && b == TPSTAT_LHIST_MAX + 1) {
		snprintf(buf, len, h->is_signed ? ">= %lld" : ">= %llu", (long long)h->lmax);
		return;
	}
	if (buckets_bounds(h, b, &lo, &hi, &ulo, &uhi)) {
		if (ulo == uhi)
			snprintf(buf, len, "[%llu]", (unsigned long long)ulo);
		else
			snprintf(buf, len, "[%llu, %llu]", (unsigned long long)ulo,
				 (unsigned long long)uhi);
	} else if (lo == hi) {
		snprintf(buf, len, "[%lld]", (long long)lo);
	} else {
		snprintf(buf, len, "[%lld, %lld]", (long long)lo, (long long)hi);
	}
}

void buckets_sub(struct tpstat_hist *c, const struct tpstat_hist *a, const struct tpstat_hist *b)
{
	c->samples = a->samples - b->samples;
	c->errors = a->errors - b->errors;
	/* The 128-bit sum: the borrow out of the low word. */
	c->sum_hi = a->sum_hi - b->sum_hi - (a->sum < b->sum);
	c->sum = a->sum - b->sum;
	c->minmax_lost = a->minmax_lost - b->minmax_lost;
	for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
		c->buckets[k] = a->buckets[k] - b->buckets[k];
	c->min = a->min;
	c->max = a->max;
}

void buckets_add(struct tpstat_hist *c, const struct tpstat_hist *a)
{
	c->samples += a->samples;
	c->errors += a->errors;
	c->sum_hi += a->sum_hi + (c->sum + a->sum < c->sum);
	c->sum += a->sum;
	c->minmax_lost += a->minmax_lost;
	for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
		c->buckets[k] += a->buckets[k];
}

void tpstat_hist_empty(struct tpstat_hist *h, bool sg)
{
	h->min = sg ? (__u64)INT64_MAX : UINT64_MAX;
	h->max = sg ? (__u64)INT64_MIN : 0;
}

void tpstat_hist_add(struct tpstat_hist *to, const struct tpstat_hist *from, bool sg)
{
	__u64 sum = __atomic_load_n(&from->sum, __ATOMIC_RELAXED);
	__u64 min = __atomic_load_n(&from->min, __ATOMIC_RELAXED);
	__u64 max = __atomic_load_n(&from->max, __ATOMIC_RELAXED);

	to->errors += __atomic_load_n(&from->errors, __ATOMIC_RELAXED);
	to->minmax_lost += __atomic_load_n(&from->minmax_lost, __ATOMIC_RELAXED);
	to->sum_hi += __atomic_load_n(&from->sum_hi, __ATOMIC_RELAXED) + (to->sum + sum < to->sum);
	to->sum += sum;
	if (sg ? (__s64)min < (__s64)to->min : min < to->min)
		to->min = min;
	if (sg ? (__s64)max > (__s64)to->max : max > to->max)
		to->max = max;
	for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++) {
		__u64 n = __atomic_load_n(&from->buckets[k], __ATOMIC_RELAXED);

		to->buckets[k] += n;
		to->samples += n;
	}
}
