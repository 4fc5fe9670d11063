// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-hist: --hist's recording (bpf/tpstat_hist.h, the code the BPF programs run) on the
 * host: log2 buckets at every edge, signed and unsigned, the bounds the output gives each
 * bucket, values sign-extended and bitfields cut as tpfield compiles them, exact samples,
 * sum, min and max, and the JSON of a histogram byte for byte. TAP output.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/atomics.h"
#include "bpf/tpstat_abi.h"
#include "bpf/tpstat_update.h"
#include "src/tpstat_buckets.h"
#include "src/tpstat_fmt.h"
#include "tests/unit/test.h"

#include "bpf/tpstat_hist.h"

static bool in_bucket(__u64 v, bool is_signed)
{
	int b = tpstat_bucket(v, is_signed);
	__s64 lo = 0, hi = 0;
	__u64 ulo = 0, uhi = 0;

	buckets_log2_bounds(b, is_signed, &lo, &hi, &ulo, &uhi);
	if (!is_signed && b <= 64)
		return ulo <= v && v <= uhi;
	return lo <= (__s64)v && (__s64)v <= hi;
}

/*
 * --value past 2^64 (issue 35): 2,000,000 events of 1e13 through the programs' own steps
 * (first value, then adds) sum to 2e19, whose low 64 bits alone are 1553255926290448384,
 * and the report shows the true sum and avg: table, JSON and metrics read the same entry.
 * Then the same values negated, for a signed field.
 */
static void value_sum_wide(void)
{
	for (int sg = 0; sg < 2; sg++) {
		__u64 v = sg ? (__u64)-10000000000000LL : 10000000000000ULL;
		struct tpstat_by_val c = tpstat_by_value_first(v, sg);
		struct tpstat_by_stats st = {};
		struct tpstat_by_entry e;
		struct tpstat_by_row b;
		__u64 cpus[1] = { 1 };
		struct tpstat_row row = { .name = "sched_switch", .module = "vmlinux",
			.kind = TP_KIND_EVENT, .count = 2000000, .cpus = cpus, .cpu_words = 1,
			.first_cpu = 0, .bys = &b, .nbys = 1 };
		struct tpstat_report r = { .final = true, .elapsed = 1, .n = 1, .rows = &row };
		const char *want_sum = sg ? "-20000000000000000000" : "20000000000000000000";
		char *text, want[256];
		size_t len;
		FILE *mf;

		for (int i = 1; i < 2000000; i++) {
			atomic_add(&c.count, 1);
			tpstat_by_value_add(&c, v, sg, &st);
		}
		e = (struct tpstat_by_entry){ .k = { 42 }, .count = c.count, .sum = c.sum, .min = c.min,
			.max = c.max, .sum_hi = c.sum_hi };
		b = (struct tpstat_by_row){ .key_expr = "prev->pid", .kind = TPSTAT_KEY_EXPR,
			.value_expr = "prev->se.sum_exec_runtime", .value_signed = sg, .entries = &e,
			.n = 1, .nkeys = 1 };
		ASSERT_TRUE(c.count == 2000000 && !st.minmax_lost, sg ?
			    "--value signed: 2,000,000 values of -1e13 counted" :
			    "--value: 2,000,000 values of 1e13 counted");
		mf = open_memstream(&text, &len);
		fmt_table(mf, &r);
		fclose(mf);
		snprintf(want, sizeof(want), " %14s %14s %14s %21s\n", sg ? "-10000000000000.0" :
			 "10000000000000.0", sg ? "-10000000000000" : "10000000000000",
			 sg ? "-10000000000000" : "10000000000000", want_sum);
		ASSERT_STRSTR(text, want, sg ? "table: the true sum -2e19 and avg -1e13 (it wrapped)" :
			      "table: the true sum 2e19 and avg 1e13 (not 1553255926290448384 and "
			      "776627963145.2)");
		free(text);
		mf = open_memstream(&text, &len);
		fmt_json(mf, &r);
		fclose(mf);
		snprintf(want, sizeof(want), "\"count\":2000000,\"sum\":%s,\"min\":%s,\"max\":%s,"
			 "\"avg\":%s}", want_sum, sg ? "-10000000000000" : "10000000000000",
			 sg ? "-10000000000000" : "10000000000000",
			 sg ? "-10000000000000.000" : "10000000000000.000");
		ASSERT_STRSTR(text, want, sg ? "JSON: the exact sum -20000000000000000000, avg -1e13" :
			      "JSON: the exact sum 20000000000000000000, avg 1e13");
		free(text);
	}
}

/* buckets_parse_linear(): the one MIN:MAX:STEP parser of --lhist and --latency. */
static void parse_linear(void)
{
	struct buckets_linear l = {};
	const char *what = NULL, *bad = NULL;
	unsigned long long n = 0;
	char a[] = "tpgen_a:seq:-8:8:4", b[] = "seq:0:10", c[] = "t:e:0:10:x", d[] = "t:e:10:10:1",
	     e[] = "t:e:0:10:0", f[] = "pid:-1:10:1", g[] = "t:e:0:128:1", h[] = "t:e:0:127:1",
	     w[] = "t:e:-9223372036854775808:9223372036854775807:144115188075855872",
	     o[] = "t:e:0:99999999999999999999:1";

	ASSERT_EQ(buckets_parse_linear(a, false, &l, &what, &bad, &n), BUCKETS_TEXT_OK,
		  "TP:EXPR:-8:8:4 parses");
	ASSERT_TRUE(l.linear && l.lmin == -8 && l.lmax == 8 && l.lstep == 4 && n == 4,
		    "-8:8:4 is MIN -8, MAX 8, STEP 4: 4 buckets");
	ASSERT_STREQ(a, "tpgen_a:seq", "what comes before MIN:MAX:STEP is left");
	ASSERT_EQ(buckets_parse_linear(b, false, &l, &what, &bad, &n), BUCKETS_TEXT_FORM,
		  "two ':' fields only: the form");
	ASSERT_EQ(buckets_parse_linear(c, false, &l, &what, &bad, &n), BUCKETS_TEXT_NUMBER,
		  "STEP x: not a number");
	ASSERT_TRUE(!strcmp(what, "STEP") && !strcmp(bad, "x"), "named STEP, its text 'x'");
	ASSERT_EQ(buckets_parse_linear(d, false, &l, &what, &bad, &n), BUCKETS_TEXT_ORDER,
		  "MIN == MAX: refused");
	ASSERT_EQ(buckets_parse_linear(e, false, &l, &what, &bad, &n), BUCKETS_TEXT_ORDER,
		  "STEP 0: refused");
	ASSERT_EQ(buckets_parse_linear(f, true, &l, &what, &bad, &n), BUCKETS_TEXT_ORDER,
		  "a negative MIN of ns: refused");
	ASSERT_EQ(buckets_parse_linear(g, false, &l, &what, &bad, &n), BUCKETS_TEXT_MANY,
		  "0:128:1: too many buckets");
	ASSERT_EQ_U64(n, 128, "0:128:1 is 128 buckets");
	ASSERT_EQ(buckets_parse_linear(h, false, &l, &what, &bad, &n), BUCKETS_TEXT_OK,
		  "0:127:1: TPSTAT_LHIST_MAX buckets, the most");
	ASSERT_EQ(buckets_parse_linear(w, false, &l, &what, &bad, &n), BUCKETS_TEXT_MANY,
		  "the whole signed range in steps of 2^57: one bucket too many");
	ASSERT_EQ_U64(n, 128, "INT64_MIN:INT64_MAX:2^57: 128 steps, ceil'd without overflow");
	ASSERT_EQ(buckets_parse_linear(o, false, &l, &what, &bad, &n), BUCKETS_TEXT_NUMBER,
		  "MAX past 64 bits: not a whole number");
	ASSERT_TRUE(!strcmp(what, "MAX"), "named MAX");
}

/*
 * The plain updates (a histogram or key one program owns on one CPU: bpf/tpstat_update.h)
 * record exactly what the atomic ones do: buckets, the 128-bit sum across 2^64 both ways,
 * min and max, signed and not.
 */
static void plain_as_atomic(void)
{
	for (int sg = 0; sg < 2; sg++) {
		struct tpstat_hist a = { .min = sg ? INT64_MAX : UINT64_MAX, .max = sg ? (__u64)INT64_MIN : 0 };
		struct tpstat_hist p = a;
		struct tpstat_by_val ca = tpstat_by_value_first(5, sg), cp = ca;
		struct tpstat_by_stats st = {};
		__u64 x = 88172645463325252ULL;

		for (int k = 0; k < 100000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			tpstat_hist_update(&a, x, sg, tpstat_bucket(x, sg), false);
			tpstat_hist_update(&p, x, sg, tpstat_bucket(x, sg), true);
			tpstat_by_value_update(&ca, x, sg, &st, false);
			tpstat_by_value_update(&cp, x, sg, &st, true);
		}
		ASSERT_TRUE(!memcmp(&a, &p, sizeof(a)) && tpstat_hist_samples(&p) == 100000 &&
			    p.sum_hi != 0 && p.min != p.max,
			    sg ? "plain updates: the same signed histogram as the atomics" :
			    "plain updates: the same histogram as the atomics (sum past 2^64, min, max)");
		ASSERT_TRUE(!memcmp(&ca, &cp, sizeof(ca)) && !st.minmax_lost,
			    sg ? "plain updates: the same signed --value sum, min and max" :
			    "plain updates: the same --value sum, min and max");
	}
}

int main(void)
{
	static const __u64 edges[] = { 0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1025, 1ULL << 31,
		(1ULL << 32) - 1, 1ULL << 32, (1ULL << 63) - 1, 1ULL << 63, UINT64_MAX };
	struct tpstat_hist h = { .min = UINT64_MAX, .max = 0 };
	struct tpstat_field f = {};
	bool all_in = true;
	__u64 want[TPSTAT_HIST_BUCKETS] = {}, sum = 0;
	bool exact = true;

	ASSERT_EQ(tpstat_bucket(0, false), 0, "0: bucket 0");
	ASSERT_EQ(tpstat_bucket(1, false), 1, "1: bucket 1");
	ASSERT_EQ(tpstat_bucket(3, false), 2, "2-3: bucket 2");
	ASSERT_EQ(tpstat_bucket(4, false), 3, "4: bucket 3");
	ASSERT_EQ(tpstat_bucket(1ULL << 63, false), 64, "2^63 unsigned: bucket 64");
	ASSERT_EQ(tpstat_bucket(UINT64_MAX, false), 64, "2^64-1 unsigned: bucket 64");
	ASSERT_EQ(tpstat_bucket(UINT64_MAX, true), 65, "-1 signed: bucket 65");
	ASSERT_EQ(tpstat_bucket((__u64)-3, true), 66, "-3 signed: bucket 66");
	ASSERT_EQ(tpstat_bucket((__u64)INT64_MIN, true), 128, "INT64_MIN: bucket 128");
	ASSERT_EQ(tpstat_bucket(INT64_MAX, true), 63, "INT64_MAX: bucket 63");
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		all_in &= in_bucket(edges[i], false) && in_bucket(edges[i], true) &&
			  in_bucket(-edges[i], true);
	}
	ASSERT_TRUE(all_in, "every edge value lies within the bounds printed for its bucket");

	f.size = 4;
	f.is_signed = 1;
	ASSERT_EQ_U64(tpstat_field_value(&f, 0xffffffffULL), UINT64_MAX, "s32 0xffffffff is -1");
	f.size = 2;
	f.is_signed = 0;
	ASSERT_EQ_U64(tpstat_field_value(&f, 0x1ffffULL), 0xffff, "u16 keeps its 16 bits");
	f = (struct tpstat_field){ .size = 4, .bit_off = 3, .bit_size = 2 };
	ASSERT_EQ_U64(tpstat_field_value(&f, 0x18), 3, "a 2-bit field at bit 3");
	f.is_signed = 1;
	f.bit_size = 1;
	ASSERT_EQ_U64(tpstat_field_value(&f, 0x8), UINT64_MAX, "a signed 1-bit field of 1 is -1");

	for (__u64 v = 1; v <= 200; v++) {
		tpstat_hist_record(&h, v, false, tpstat_bucket(v, false));
		want[tpstat_bucket(v, false)]++;
		sum += v;
	}
	for (int b = 0; b < TPSTAT_HIST_BUCKETS; b++)
		exact &= h.buckets[b] == want[b];
	ASSERT_TRUE(exact, "1..200: every bucket exact");
	ASSERT_TRUE(tpstat_hist_samples(&h) == 200 && h.sum == sum && h.min == 1 && h.max == 200 &&
		    !h.minmax_lost, "samples 200, sum 20100, min 1, max 200");
	{
		struct tpstat_hist s = { .min = INT64_MAX, .max = (__u64)INT64_MIN };

		tpstat_hist_record(&s, (__u64)-5, true, tpstat_bucket((__u64)-5, true));
		tpstat_hist_record(&s, 7, true, tpstat_bucket(7, true));
		tpstat_hist_record(&s, 0, true, tpstat_bucket(0, true));
		ASSERT_TRUE((__s64)s.min == -5 && (__s64)s.max == 7 && (__s64)s.sum == 2,
			    "signed: min -5, max 7, sum 2");
		{
			struct tpstat_hist_row hr = { .expr = "x", .is_signed = true, .samples = tpstat_hist_samples(&s),
				.sum = s.sum, .min = s.min, .max = s.max, .buckets = s.buckets };
			struct tpstat_row row = { .name = "t", .module = "m", .kind = TP_KIND_BARE,
				.cpus = &sum, .cpu_words = 0, .first_cpu = -1, .hists = &hr,
				.nhists = 1 };
			struct tpstat_report r = { .n = 1, .rows = &row };
			char *text;
			size_t len;
			FILE *mf = open_memstream(&text, &len);

			fmt_json(mf, &r);
			fclose(mf);
			{
				char *tab;
				size_t tlen;
				FILE *tf = open_memstream(&tab, &tlen);

				r.final = true;
				fmt_table(tf, &r);
				fclose(tf);
				ASSERT_STRSTR(tab, " t:x  samples 3, sum 2, min -5, max 7\n"
					      "  [-7, -4] 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
					      "  [-3, -2] 0 |                                        |\n"
					      "  [-1]     0 |                                        |\n"
					      "  [0]      1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
					      "  [1]      0 |                                        |\n"
					      "  [2, 3]   0 |                                        |\n"
					      "  [4, 7]   1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n",
					      "table: a bar per bucket from the lowest to the highest, "
					      "empty ones between");
				free(tab);
			}
			{
				char *tab;
				size_t tlen;
				FILE *tf = open_memstream(&tab, &tlen);

				hr.interval = true;
				r.final = false;
				fmt_interval(tf, &r);
				fclose(tf);
				ASSERT_STRSTR(tab, "\n t:x  samples 3 in this interval\n  [-7, -4] 1 |",
					      "interval lines: the interval's histogram, without min/max");
				free(tab);
			}
			ASSERT_STRSTR(text, "\"hist\":[{\"expr\":\"x\",\"samples\":3,\"errors\":0,\"sum\":2,"
				      "\"min\":-5,\"max\":7,\"buckets\":[{\"low\":-7,\"high\":-4,\"count\":1},"
				      "{\"low\":0,\"high\":0,\"count\":1},{\"low\":4,\"high\":7,\"count\":1}]}]",
				      "JSON: the histogram as DESIGN.md has it, negative buckets first");
			free(text);
		}
	}
	{
		struct tpstat_by_entry e[2] = { { .k = { 0x6873 /* "sh" */ }, .count = 7 },
						{ .k = { 0x74696e69 /* "init" */ }, .count = 2 } };
		struct tpstat_by_row br = { .key_expr = "comm", .kind = TPSTAT_KEY_COMM, .entries = e,
			.n = 2, .nkeys = 5, .other = 4, .dropped = 1 };
		struct tpstat_by_entry ne[1] = { { .k = { (__u64)-3 }, .count = 9 } };
		struct tpstat_by_row nr = { .key_expr = "change", .kind = TPSTAT_KEY_EXPR,
			.is_signed = true, .entries = ne, .n = 1, .nkeys = 1 };
		struct tpstat_by_row rows2[2] = { br, nr };
		struct tpstat_row row = { .name = "t", .module = "m", .kind = TP_KIND_BARE,
			.cpus = e[0].k, .cpu_words = 0, .first_cpu = -1, .count = 23, .bys = rows2,
			.nbys = 2 };
		struct tpstat_report r = { .n = 1, .rows = &row, .final = true };
		char *text;
		size_t len;
		FILE *mf = open_memstream(&text, &len);

		fmt_json(mf, &r);
		fclose(mf);
		ASSERT_STRSTR(text, "\"by\":[{\"key_expr\":\"comm\",\"entries\":[{\"key\":\"sh\",\"count\":7},"
			      "{\"key\":\"init\",\"count\":2}],\"other\":4,\"dropped\":1,\"errors\":0,"
			      "\"keys\":5},{\"key_expr\":\"change\",\"entries\":[{\"key\":-3,\"count\":9}],"
			      "\"other\":0,\"dropped\":0,\"errors\":0,\"keys\":1}]",
			      "JSON --by: comm keys as strings, signed EXPR keys negative, other/dropped");
		free(text);
		mf = open_memstream(&text, &len);
		fmt_table(mf, &r);
		fclose(mf);
		ASSERT_STRSTR(text, " t by comm: 5 keys, dropped 1 (no slot in the table)\n"
			      "  comm                       count\n"
			      "  sh                             7\n"
			      "  init                           2\n"
			      "  (3 others)                     4\n", "table --by: the top keys, then the rest");
		free(text);
	}
	{
		struct tpstat_field lf = { .size = 8, .linear = 1, .lmin = 0, .lmax = 200, .lstep = 50 };
		struct tpstat_hist lh = { .min = UINT64_MAX };
		struct tpstat_hist_row lr;
		struct tpstat_row row = { .name = "tpgen_a", .module = "tpgen", .cpus = &sum,
			.first_cpu = -1, .nhists = 1 };
		struct tpstat_report r = { .n = 1, .rows = &row, .final = true };
		char *text;
		size_t len;
		FILE *mf;

		for (__u64 v = 1; v <= 250; v++)
			tpstat_hist_record(&lh, v, false, tpstat_lbucket(v, &lf));
		ASSERT_TRUE(lh.buckets[1] == 49 && lh.buckets[2] == 50 && lh.buckets[4] == 50 &&
			    lh.buckets[TPSTAT_LHIST_MAX + 1] == 51 && lh.buckets[5] == 0,
			    "--lhist 0:200:50 of 1..250: 49, 50, 50, 50, then 51 at 200 or more");
		lf = (struct tpstat_field){ .size = 8, .is_signed = 1, .linear = 1, .lmin = -10,
			.lmax = 10, .lstep = 5 };
		ASSERT_TRUE(tpstat_lbucket((__u64)-11, &lf) == 0 && tpstat_lbucket((__u64)-10, &lf) == 1 &&
			    tpstat_lbucket((__u64)-1, &lf) == 2 && tpstat_lbucket(0, &lf) == 3 &&
			    tpstat_lbucket(9, &lf) == 4 && tpstat_lbucket(10, &lf) == TPSTAT_LHIST_MAX + 1,
			    "signed --lhist -10:10:5: below, the four steps, 10 or more");
		lr = (struct tpstat_hist_row){ .expr = "seq", .samples = tpstat_hist_samples(&lh), .sum = lh.sum,
			.min = lh.min, .max = lh.max, .buckets = lh.buckets, .linear = true, .lmin = 0,
			.lmax = 200, .lstep = 50 };
		row.hists = &lr;
		mf = open_memstream(&text, &len);
		fmt_json(mf, &r);
		fclose(mf);
		ASSERT_STRSTR(text, "\"buckets\":[{\"low\":0,\"high\":49,\"count\":49},"
			      "{\"low\":50,\"high\":99,\"count\":50},{\"low\":100,\"high\":149,"
			      "\"count\":50},{\"low\":150,\"high\":199,\"count\":50},{\"low\":200,"
			      "\"high\":18446744073709551615,\"count\":51}]",
			      "JSON --lhist: linear bounds, the last bucket from MAX up");
		free(text);
		mf = open_memstream(&text, &len);
		fmt_table(mf, &r);
		fclose(mf);
		ASSERT_STRSTR(text, " tpgen_a:seq  samples 250, sum 31375, min 1, max 250\n"
			      "  [0, 49]    49 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ |\n"
			      "  [50, 99]   50 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
			      "  [100, 149] 50 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
			      "  [150, 199] 50 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
			      "  >= 200     51 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n",
			      "table --lhist: the steps, then MAX or more, nothing past it");
		free(text);
	}
	{
		/* The 128-bit sum: BPF's carry and sign words against the compiler's __int128. */
		struct tpstat_hist u = { .min = UINT64_MAX }, sg = { .min = INT64_MAX, .max = (__u64)INT64_MIN };
		unsigned __int128 uref = 0;
		__int128 sref = 0;
		__u64 x = 88172645463325252ULL;
		char buf[48];

		for (int k = 0; k < 3; k++) {
			tpstat_hist_record(&u, 1ULL << 63, false, 64);
			uref += 1ULL << 63;
		}
		ASSERT_TRUE(u.sum == 1ULL << 63 && u.sum_hi == 1,
			    "unsigned 3 x 2^63: low word 2^63, high word 1 (the u64 sum wrapped)");
		ASSERT_STREQ(buckets_sum(buf, sizeof(buf), u.sum, u.sum_hi, false), "27670116110564327424",
			     "and prints as 27670116110564327424, not a wrapped or negative number");
		for (int k = 0; k < 100000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			tpstat_hist_record(&u, x, false, tpstat_bucket(x, false));
			tpstat_hist_record(&sg, x, true, tpstat_bucket(x, true));
			uref += x;
			sref += (__s64)x;
		}
		ASSERT_TRUE(u.sum == (__u64)uref && u.sum_hi == (__u64)(uref >> 64),
			    "100000 random u64s: the 128-bit sum is exact");
		ASSERT_TRUE(sg.sum == (__u64)sref && sg.sum_hi == (__u64)((unsigned __int128)sref >> 64),
			    "100000 random s64s: the 128-bit two's complement sum is exact");
		ASSERT_STREQ(buckets_sum(buf, sizeof(buf), 0, UINT64_MAX, true), "-18446744073709551616",
			     "a signed sum of -2^64 prints as such");
		{
			struct tpstat_hist_row hr = { .expr = "x", .samples = 3, .sum = 1ULL << 63,
				.sum_hi = 1, .max = 1ULL << 63, .min = 1ULL << 63, .buckets = u.buckets };
			struct tpstat_row row = { .name = "t", .module = "m", .cpus = &sum, .first_cpu = -1,
				.hists = &hr, .nhists = 1 };
			struct tpstat_report r = { .n = 1, .rows = &row, .final = true };
			char *text;
			size_t len;
			FILE *mf = open_memstream(&text, &len);

			fmt_json(mf, &r);
			fclose(mf);
			ASSERT_STRSTR(text, "\"samples\":3,\"errors\":0,\"sum\":27670116110564327424,",
				      "JSON: a sum past 2^64 is the exact integer");
			free(text);
			mf = open_memstream(&text, &len);
			fmt_table(mf, &r);
			fclose(mf);
			ASSERT_STRSTR(text, "samples 3, sum 27670116110564327424, min 9223372036854775808",
				      "table: the sum past 2^64 exactly, 2^63 not negative");
			free(text);
		}
	}
	{
		/* --lhist from 0 on an unsigned field: the below-0 bucket has no range, no row. */
		__u64 b[TPSTAT_HIST_SLOTS] = { [1] = 3 };
		struct tpstat_hist_row lr = { .expr = "util", .samples = 3, .buckets = b, .linear = true,
			.lmin = 0, .lmax = 1024, .lstep = 64 };
		struct tpstat_hist_row wide = { .expr = "seq", .is_signed = true, .buckets = b,
			.linear = true, .lmin = INT64_MIN, .lmax = INT64_MAX, .lstep = 1ULL << 62 };
		__s64 lo, hi;
		__u64 ulo, uhi;

		ASSERT_EQ(buckets_order(&lr, 0), -1, "--lhist 0:1024:64 unsigned: no bucket below 0");
		ASSERT_EQ(buckets_order(&lr, 16), 16, "its 16 steps");
		ASSERT_EQ(buckets_order(&lr, 17), TPSTAT_LHIST_MAX + 1, "then 1024 or more");
		ASSERT_EQ(buckets_order(&wide, 0), -1, "--lhist from INT64_MIN: no bucket below it");
		ASSERT_EQ(buckets_order(&wide, 4), 4, "INT64_MIN:INT64_MAX:2^62: 4 steps");
		ASSERT_EQ(buckets_order(&wide, 5), TPSTAT_LHIST_MAX + 1, "then MAX");
		buckets_bounds(&wide, 4, &lo, &hi, &ulo, &uhi);
		ASSERT_TRUE(lo == 1LL << 62 && hi == INT64_MAX - 1, "its last step is [2^62, 2^63 - 2]");
		wide.lmin = INT64_MAX - 10;
		buckets_bounds(&wide, 1, &lo, &hi, &ulo, &uhi);
		ASSERT_TRUE(lo == INT64_MAX - 10 && hi == INT64_MAX - 1,
			    "a step past MAX ends at MAX - 1 (lo + STEP wrapped before)");
	}
	{
		/* Comm keys: the bytes that are not printable UTF-8 as \xHH, \ as \\. */
		struct tpstat_by_entry e[4] = {};
		struct tpstat_by_row br = { .key_expr = "comm", .kind = TPSTAT_KEY_COMM, .entries = e };
		char k1[FMT_KEY_LEN], k2[FMT_KEY_LEN], k3[FMT_KEY_LEN], k4[FMT_KEY_LEN];

		memcpy(e[0].k, "a\xff", 2);
		memcpy(e[1].k, "a\xfe", 2);
		memcpy(e[2].k, "a\\xff", 5);
		memcpy(e[3].k, "\xc3\xa9t\xc3\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 15);
		fmt_by_key(&br, &e[0], k1, sizeof(k1));
		fmt_by_key(&br, &e[1], k2, sizeof(k2));
		fmt_by_key(&br, &e[2], k3, sizeof(k3));
		fmt_by_key(&br, &e[3], k4, sizeof(k4));
		ASSERT_TRUE(!strcmp(k1, "a\\xff") && !strcmp(k2, "a\\xfe") && !strcmp(k3, "a\\\\xff"),
			    "a\\xff, a\\xfe and a\\\\xff: three comms, three texts");
		ASSERT_STREQ(k4, "\xc3\xa9t\\xc3\\x0a\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff",
			     "UTF-8 kept, a cut sequence and a newline escaped, 15 bytes fit");
	}
	value_sum_wide();
	parse_linear();
	plain_as_atomic();
	return test_done();
}
