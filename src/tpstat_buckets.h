/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's histogram bucket model: which values each bucket of tpstat_abi.h's layout holds (log2
 * and --lhist), the order they are shown in, their labels, the 128-bit sum, and the
 * arithmetic of two counts of one histogram. The report (tpstat_fmt.c), the metrics
 * (tpstat_metrics.c) and the options (tpstat_cli.c, --lhist's bucket count) share it.
 */
#ifndef __BAREATOM_TPSTAT_BUCKETS_H
#define __BAREATOM_TPSTAT_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"

/* One --hist of a tracepoint, as counted so far (min and max only when samples > 0). */
struct tpstat_hist_row {
	const char *expr;	/* as given: "seq", "cfs_rq->avg.util_avg" */
	bool is_signed;
	__u64 samples, errors, sum, min, max, minmax_lost;
	__u64 sum_hi;		/* the high word of the 128-bit sum (tpstat_abi.h) */
	const __u64 *buckets;	/* TPSTAT_HIST_BUCKETS of them, tpstat_abi.h's layout */
	bool interval;		/* the deltas of one interval: min and max are not shown */
	bool linear;		/* --lhist: buckets of lstep from lmin to lmax (tpstat_abi.h) */
	__s64 lmin, lmax;
	__u64 lstep;
};

/* The bounds of log2 bucket @b (tpstat_abi.h): signed when the field is. */
void buckets_log2_bounds(int b, bool is_signed, __s64 *low, __s64 *high, __u64 *ulow,
			 __u64 *uhigh);
/*
 * The steps of --lhist MIN:MAX:STEP (MIN < MAX, STEP > 0): ceil((MAX - MIN) / STEP) without
 * overflow, for any MIN and MAX of 64 bits.
 */
__u64 buckets_lhist_steps(__s64 lmin, __s64 lmax, __u64 step);

/* --lhist's and --latency's linear buckets: MIN:MAX:STEP as given (linear false: log2). */
struct buckets_linear {
	bool linear;
	long long lmin, lmax, lstep;
};

/* What is wrong with a MIN:MAX:STEP (buckets_parse_linear). */
enum buckets_text {
	BUCKETS_TEXT_OK,
	BUCKETS_TEXT_FORM,	/* fewer than three ':' */
	BUCKETS_TEXT_NUMBER,	/* *what ("MIN", "MAX" or "STEP") is *bad, not a whole number */
	BUCKETS_TEXT_ORDER,	/* not MIN < MAX and STEP > 0 (and 0 <= MIN with @from_zero) */
	BUCKETS_TEXT_MANY,	/* *nbuckets buckets, more than TPSTAT_LHIST_MAX */
};

/*
 * The one parser of MIN:MAX:STEP: cut the last three ':'-separated fields off @s (what is
 * left of @s is what came before them) into @l, linear. @from_zero: MIN may not be
 * negative (nanoseconds). The caller words the error for its option.
 */
enum buckets_text buckets_parse_linear(char *s, bool from_zero, struct buckets_linear *l,
				       const char **what, const char **bad,
				       unsigned long long *nbuckets);
/*
 * Bucket @i of @h's display order (-1: none, as for --lhist's below-MIN bucket when MIN is
 * the type's least value: its range is empty), and its bounds (true: unsigned, in *ulo, *uhi).
 */
int buckets_order(const struct tpstat_hist_row *h, int i);
bool buckets_bounds(const struct tpstat_hist_row *h, int b, __s64 *lo, __s64 *hi, __u64 *ulo,
		    __u64 *uhi);
/* The label of @h's bucket @b in a table: "[L, H]", "[V]", "< MIN" or ">= MAX". */
void buckets_label(const struct tpstat_hist_row *h, int b, char *buf, size_t len);
/* The 128-bit sum (@hi:@lo, two's complement when @is_signed) in decimal, or as a double. */
const char *buckets_sum(char *buf, size_t len, __u64 lo, __u64 hi, bool is_signed);
double buckets_sum_double(__u64 lo, __u64 hi, bool is_signed);
/* @c = @a - @b for what adds up in a histogram; min and max stay @a's (they do not subtract). */
void buckets_sub(struct tpstat_hist *c, const struct tpstat_hist *a, const struct tpstat_hist *b);
/* @c += @a for what adds up; @c's min and max stay. */
void buckets_add(struct tpstat_hist *c, const struct tpstat_hist *a);

/* A histogram before its first value: min and max at the far ends of its type. */
void tpstat_hist_empty(struct tpstat_hist *h, bool sg);
/*
 * The one read of a kernel histogram: @from's counts added into @to, which began empty
 * (tpstat_hist_empty()). Buckets, errors and the 128-bit sum add up, min and max are the least
 * and greatest; samples is the buckets' sum (the programs keep no separate count of it).
 */
void tpstat_hist_add(struct tpstat_hist *to, const struct tpstat_hist *from, bool sg);

#endif /* __BAREATOM_TPSTAT_BUCKETS_H */
