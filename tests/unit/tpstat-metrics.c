// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-metrics: tpstat's exposition (tpstat_metrics_write, what a scrape serves) of
 * views that are hard to make in a guest: --lhist from 0 on an unsigned field, signed
 * --hist empty, non-negative and negative, a sum past 2^63 and past 2^64, a torn read
 * (buckets above samples), --by keys named "other" and comms of invalid UTF-8, -A past
 * 256 CPUs, an --lhist over the whole signed range. TAP checks of the text here;
 * `tpstat-metrics dump om|prom CASE` prints one case for tpstat-metrics.t to give to
 * promtool and to the OpenMetrics reference parser.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "src/metrics.h"
#include "src/tpstat_buckets.h"
#include "src/tpstat_metrics.h"
#include "tests/unit/test.h"

static const struct tp_info tpa = { "tpgen_a", "tpgen", TP_KIND_BARE, "" };
static struct tpstat_report v;
static struct tpstat_row rows[2];
static __u64 buckets[8][TPSTAT_HIST_SLOTS];
static struct tpstat_hist_row hists[8];
static struct tpstat_by_entry entries[4];
static struct tpstat_by_row bys[1];
static __u64 cpu_hits[TPSTAT_NR_SLOTS];

static void view(int nhists, int nbys)
{
	v = (struct tpstat_report){ .n = 1, .rows = rows, .ncpu = 2, .targets_fd = -1,
		.targets_max = 16384 };
	rows[0] = (struct tpstat_row){ .name = tpa.name, .module = tpa.module, .kind = tpa.kind,
		.prog = "tpstat_hist_0", .prog_fd = -1, .count = 100, .hists = hists, .nhists = nhists, .bys = bys, .nbys = nbys };
}

/* --lhist tpgen_a:seq:0:1024:64 (unsigned): 1..100 recorded. */
static void lhist0(void)
{
	memset(buckets[0], 0, sizeof(buckets[0]));
	buckets[0][1] = 63;	/* [0, 63] */
	buckets[0][2] = 37;	/* [64, 127] */
	hists[0] = (struct tpstat_hist_row){ .expr = "seq", .samples = 100, .sum = 5050, .min = 1,
		.max = 100, .buckets = buckets[0], .linear = true, .lmin = 0, .lmax = 1024, .lstep = 64 };
	view(1, 0);
}

/* A signed --hist (sched_switch:prev->prio's kind): empty, non-negative, negative. */
static void signed_states(void)
{
	for (int k = 0; k < 3; k++)
		memset(buckets[k], 0, sizeof(buckets[k]));
	buckets[1][0] = 1;			/* 0 */
	buckets[1][7] = 2;			/* 120 twice */
	buckets[2][65] = 1;			/* -1 */
	buckets[2][7] = 1;			/* 120 */
	hists[0] = (struct tpstat_hist_row){ .expr = "empty", .is_signed = true, .buckets = buckets[0] };
	hists[1] = (struct tpstat_hist_row){ .expr = "prio", .is_signed = true, .samples = 3, .sum = 240,
		.buckets = buckets[1] };
	hists[2] = (struct tpstat_hist_row){ .expr = "neg", .is_signed = true, .samples = 2, .sum = 119,
		.sum_hi = 0, .buckets = buckets[2] };
	view(3, 0);
}

/* Sums at 2^63 (a u64 that printed negative) and at 3 * 2^64 + 5 (one that wrapped). */
static void big_sums(void)
{
	memset(buckets[0], 0, sizeof(buckets[0]));
	memset(buckets[1], 0, sizeof(buckets[1]));
	buckets[0][64] = 1;
	buckets[1][64] = 4;
	hists[0] = (struct tpstat_hist_row){ .expr = "big", .samples = 1, .sum = 1ULL << 63,
		.buckets = buckets[0] };
	hists[1] = (struct tpstat_hist_row){ .expr = "wrapped", .samples = 4, .sum = 5, .sum_hi = 3,
		.buckets = buckets[1] };
	view(2, 0);
}

/* A scrape between the program's bucket add and its samples add. */
static void torn(void)
{
	memset(buckets[0], 0, sizeof(buckets[0]));
	buckets[0][3] = 10;
	buckets[0][4] = 5;
	hists[0] = (struct tpstat_hist_row){ .expr = "seq", .samples = 13, .sum = 60,
		.buckets = buckets[0] };
	view(1, 0);
}

/* --by comm --top 3: a process named "other", two comms of invalid UTF-8 that differ. */
static void keys(void)
{
	memset(entries, 0, sizeof(entries));
	memcpy(entries[0].k, "other", 5);
	entries[0].count = 5;
	memcpy(entries[1].k, "a\xff", 2);
	entries[1].count = 3;
	memcpy(entries[2].k, "a\xfe", 2);
	entries[2].count = 2;
	bys[0] = (struct tpstat_by_row){ .key_expr = "comm", .kind = TPSTAT_KEY_COMM, .entries = entries,
		.n = 3, .nkeys = 4, .other = 7 };
	view(0, 1);
}

/* -A on @possible CPUs, each slot k holding k + 1. */
static void cpus(int possible)
{
	__u64 slots[TPSTAT_NR_SLOTS];

	for (int k = 0; k < TPSTAT_NR_SLOTS; k++)
		slots[k] = k + 1;
	view(0, 0);
	v.ncpu = possible;
	rows[0].ncpu = fmt_cpu_counts(slots, possible, cpu_hits, &rows[0].rest_count);
	rows[0].cpu_count = cpu_hits;
}

/* --lhist tpgen_a:seq:INT64_MIN:INT64_MAX:2^62 (signed): 4 steps. */
static void lhist_wide(void)
{
	memset(buckets[0], 0, sizeof(buckets[0]));
	buckets[0][1] = 1;
	buckets[0][4] = 2;
	buckets[0][TPSTAT_LHIST_MAX + 1] = 1;
	hists[0] = (struct tpstat_hist_row){ .expr = "seq", .is_signed = true, .samples = 4,
		.buckets = buckets[0], .linear = true, .lmin = INT64_MIN, .lmax = INT64_MAX,
		.lstep = 1ULL << 62 };
	view(1, 0);
}

/*
 * Every family tpstat can write at once (issue 35): on tpgen_a --filter, -A, --hist (log2),
 * --lhist, a signed --hist, --by comm, a tuple --by with --value past 2^64; on tpgen_b two
 * --latency from tpgen_a, log2 and linear (its bounds in ns, exported in seconds).
 */
static const struct tp_info tpb = { "tpgen_b", "tpgen", TP_KIND_BARE, "" };
static struct tpstat_by_entry tuple_entries[2];
static struct tpstat_by_row all_bys[2];
static struct tpstat_lat_row lats[2];
static __u64 lat_buckets[2][TPSTAT_HIST_SLOTS];

static void latency_rows(void)
{
	memset(lat_buckets, 0, sizeof(lat_buckets));
	lat_buckets[0][10] = 3;		/* [512, 1023] ns */
	lat_buckets[0][11] = 2;		/* [1024, 2047] ns */
	lat_buckets[1][2] = 4;		/* [1000, 1999] ns of 0:10000:1000 */
	lat_buckets[1][TPSTAT_LHIST_MAX + 1] = 1;	/* 10000 ns or more */
	lats[0] = (struct tpstat_lat_row){ .text = "tpgen_a:seq,tpgen_b:seq", .start_tp = "tpgen_a",
		.start_key = "seq", .end_key = "seq",
		.hist = { .expr = "ns", .samples = 5, .sum = 5000, .min = 600, .max = 1500,
			  .buckets = lat_buckets[0] },
		.matched = 5, .no_start = 1, .replaced = 2, .open = 8, .dropped = 3, .start_busy = 4, .end_busy = 6,
		.start_errors = 0, .end_errors = 0 };
	lats[1] = (struct tpstat_lat_row){ .text = "tpgen_a:pid,tpgen_b:pid:0:10000:1000",
		.start_tp = "tpgen_a", .start_key = "pid", .end_key = "pid",
		.hist = { .expr = "ns", .samples = 5, .sum = 16000, .min = 1000, .max = 12000,
			  .buckets = lat_buckets[1], .linear = true, .lmin = 0, .lmax = 10000,
			  .lstep = 1000 },
		.matched = 5, .open = 0 };
}

/* Two --latency ending at tpgen_b, nothing else. */
static void latency(void)
{
	latency_rows();
	view(0, 0);
	v.n = 2;
	rows[1] = (struct tpstat_row){ .name = tpb.name, .module = tpb.module, .kind = tpb.kind,
		.prog = "tpstat_hist_1", .prog_fd = -1, .count = 10, .lats = lats, .nlats = 2 };
}

static void all_families(void)
{
	lhist0();
	hists[3] = hists[0];		/* --lhist seq:0:1024:64 */
	hists[3].expr = "seq";
	signed_states();
	hists[0] = hists[1];		/* prio, signed */
	hists[1] = hists[3];
	memset(buckets[3], 0, sizeof(buckets[3]));
	buckets[3][7] = 100;
	hists[2] = (struct tpstat_hist_row){ .expr = "ctx->count", .samples = 100, .sum = 6400,
		.min = 64, .max = 64, .buckets = buckets[3] };
	keys();
	all_bys[0] = bys[0];
	memset(tuple_entries, 0, sizeof(tuple_entries));
	tuple_entries[0] = (struct tpstat_by_entry){ .k = { 0, 0, 0x6873 }, .count = 2000000,
		.sum = 1553255926290448384ULL, .sum_hi = 1, .min = 10000000000000ULL,
		.max = 10000000000000ULL };
	tuple_entries[1] = (struct tpstat_by_entry){ .k = { 1, 0, 0x6873 }, .count = 1,
		.sum = 5, .min = 5, .max = 5 };
	all_bys[1] = (struct tpstat_by_row){ .key_expr = "cpu,comm", .nk = 2,
		.keys = { "cpu", "comm" }, .kinds = { TPSTAT_KEY_CPU, TPSTAT_KEY_COMM },
		.value_expr = "ctx->count", .entries = tuple_entries, .n = 2, .nkeys = 2,
		.dropped = 1, .errors = 2 };
	latency_rows();
	cpus(4);
	rows[0].hists = hists;
	rows[0].nhists = 3;
	rows[0].bys = all_bys;
	rows[0].nbys = 2;
	rows[0].nfilters = 1;
	rows[0].filtered = 7;
	rows[0].filter_errors = 1;
	v.n = 2;
	rows[1] = (struct tpstat_row){ .name = tpb.name, .module = tpb.module, .kind = tpb.kind,
		.prog = "tpstat_hist_1", .prog_fd = -1, .count = 10, .lats = lats, .nlats = 2 };
}

static const struct {
	const char *name;
	void (*make)(void);
} cases[] = {
	{ "latency", latency }, { "all", all_families },
	{ "lhist0", lhist0 }, { "signed", signed_states }, { "bigsum", big_sums },
	{ "torn", torn }, { "keys", keys }, { "lhistwide", lhist_wide },
};

static void cpus300(void) { cpus(300); }
static void cpus1000(void) { cpus(1000); }

static const char *render(struct metrics *m, enum metrics_format fmt, void (*make)(void))
{
	make();
	metrics_begin(m, fmt);
	tpstat_metrics_write(m, &v);
	metrics_end(m);
	return m->err ? "" : m->buf;
}

int main(int argc, char **argv)
{
	struct metrics m;
	const char *t;
	__u64 rest;
	__u64 slots[TPSTAT_NR_SLOTS] = {}, per[TPSTAT_NR_SLOTS];

	metrics_init(&m, 1 << 20);
	if (argc == 4 && !strcmp(argv[1], "dump")) {
		enum metrics_format fmt = !strcmp(argv[2], "om") ? METRICS_OPENMETRICS : METRICS_PROMETHEUS;

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (!strcmp(argv[3], cases[i].name))
				fputs(render(&m, fmt, cases[i].make), stdout);
		if (!strcmp(argv[3], "cpus300"))
			fputs(render(&m, fmt, cpus300), stdout);
		if (!strcmp(argv[3], "cpus1000"))
			fputs(render(&m, fmt, cpus1000), stdout);
		return m.err || m.skipped ? 1 : 0;
	}

	t = render(&m, METRICS_OPENMETRICS, lhist0);
	ASSERT_TRUE(!m.err && !m.skipped, "--lhist 0:1024:64 unsigned: a valid page");
	ASSERT_STRSTR(t, "expr=\"seq\"} 100\n", "with its samples");
	ASSERT_TRUE(strstr(t, "expr=\"seq\",le=\"63.0\"} 63\n") &&
		    !strstr(t, "le=\"1.8446744073709552e+19\"") && !strstr(t, "le=\"-1.0\""),
		    "--lhist from 0: no bucket below 0 (its bound wrapped to 2^64-1), le=63 first");
	ASSERT_STRSTR(t, "_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"1023.0\"} 100\n"
		      "bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"+Inf\"} 100\n",
		      "the last step ends at 1023, then +Inf (MAX or more)");

	t = render(&m, METRICS_OPENMETRICS, signed_states);
	ASSERT_TRUE(!m.err && !m.skipped, "signed --hist in three states: a valid page");
	ASSERT_TRUE(!strstr(t, "value_count") && !strstr(t, "value_sum"),
		    "a signed field: buckets only (no _sum beside negative buckets, no _count without it)");
	ASSERT_STRSTR(t, "expr=\"neg\",le=\"-1.0\"} 1\n", "the negative bucket le=-1 holds the -1");
	ASSERT_STRSTR(t, "expr=\"neg\",le=\"+Inf\"} 2\n", "and +Inf is the count");

	t = render(&m, METRICS_OPENMETRICS, big_sums);
	ASSERT_STRSTR(t, "value_sum{tracepoint=\"tpgen_a\",expr=\"big\"} 9.223372036854776e+18\n",
		      "a sum of 2^63 is positive");
	ASSERT_STRSTR(t, "value_sum{tracepoint=\"tpgen_a\",expr=\"wrapped\"} 5.5340232221128655e+19\n",
		      "a sum past 2^64 keeps its high word (3 * 2^64 + 5)");

	t = render(&m, METRICS_OPENMETRICS, torn);
	ASSERT_TRUE(!m.err && !m.skipped, "a torn read (15 in buckets, 13 samples): a valid page");
	ASSERT_STRSTR(t, "expr=\"seq\",le=\"+Inf\"} 15\nbareatom_tracepoint_value_count{tracepoint="
		      "\"tpgen_a\",expr=\"seq\"} 15\n", "+Inf and _count are the buckets' 15");

	t = render(&m, METRICS_OPENMETRICS, keys);
	ASSERT_STRSTR(t, "key_hits_total{tracepoint=\"tpgen_a\",key_expr=\"comm\",key=\"other\"} 5\n",
		      "a process named other is a key like any");
	ASSERT_STRSTR(t, "key_other_hits_total{tracepoint=\"tpgen_a\",key_expr=\"comm\"} 7\n",
		      "the keys beyond --top in a family of their own");
	ASSERT_TRUE(strstr(t, "key=\"a\\\\xff\"} 3\n") && strstr(t, "key=\"a\\\\xfe\"} 2\n"),
		    "two invalid-UTF-8 comms: two keys (\\xff, \\xfe), not one U+FFFD twice");

	t = render(&m, METRICS_OPENMETRICS, cpus300);
	ASSERT_STRSTR(t, "cpu=\"299\"} 300\n", "-A on 300 CPUs: CPU 299 has its own series (its slot)");
	ASSERT_TRUE(!strstr(t, "cpu=\"300\"") && !strstr(t, "-299\""), "and no rest series");
	t = render(&m, METRICS_OPENMETRICS, cpus1000);
	ASSERT_STRSTR(t, "cpu=\"255\"} 256\n", "-A on 1000 CPUs: CPUs 0-255 one by one");
	ASSERT_STRSTR(t, "cpu=\"256-999\"} 18464\n",
		      "the CPUs sharing slots in one series cpu=\"256-999\" (257 + ... + 320)");

	t = render(&m, METRICS_OPENMETRICS, lhist_wide);
	ASSERT_TRUE(!m.err && !m.skipped, "--lhist over the whole signed range: a valid page");
	ASSERT_STRSTR(t, "le=\"-4.611686018427388e+18\"} 1\n", "its first step ends at -2^62 - 1");
	ASSERT_STRSTR(t, "le=\"9.223372036854776e+18\"} 3\n", "its fourth at 2^63 - 2 (MAX - 1)");
	ASSERT_STRSTR(t, "le=\"+Inf\"} 4\n", "and +Inf holds all 4 samples");

	t = render(&m, METRICS_OPENMETRICS, latency);
	ASSERT_TRUE(!m.err && !m.skipped, "two --latency, log2 and linear: a valid page");
	ASSERT_STRSTR(t, "# TYPE bareatom_latency_seconds histogram\n# UNIT bareatom_latency_seconds "
		      "seconds\n", "latency in the base unit, seconds (promtool refuses nanoseconds)");
	ASSERT_STRSTR(t, "bareatom_latency_seconds_bucket{start=\"tpgen_a\",end=\"tpgen_b\","
		      "key_expr=\"seq,seq\",le=\"1.023e-06\"} 3\n", "le 1023 ns is 1.023e-06 s");
	ASSERT_STRSTR(t, "bareatom_latency_seconds_sum{start=\"tpgen_a\",end=\"tpgen_b\","
		      "key_expr=\"seq,seq\"} 5e-06\n", "the sum 5000 ns is 5e-06 s");
	ASSERT_STRSTR(t, "key_expr=\"pid,pid\",le=\"1.999e-06\"} 4\n",
		      "a linear latency's step [1000, 1999] ns: le 1.999e-06 s");
	ASSERT_TRUE(!strstr(t, "outcome=\"open\""), "open is no outcome of the counter family");
	ASSERT_STRSTR(t, "# TYPE bareatom_latency_open gauge\n", "open STARTs: a gauge family");
	ASSERT_STRSTR(t, "bareatom_latency_open{start=\"tpgen_a\",end=\"tpgen_b\","
		      "key_expr=\"seq,seq\"} 8\n", "holding the STARTs open now");
	ASSERT_STRSTR(t, "bareatom_latency_events_total{start=\"tpgen_a\",end=\"tpgen_b\","
		      "key_expr=\"seq,seq\",outcome=\"start_busy\"} 4\n",
		      "STARTs the table refused busy are an outcome of their own");
	ASSERT_STRSTR(t, "outcome=\"dropped\"} 3\n", "apart from dropped (the table full)");
	ASSERT_STRSTR(t, "outcome=\"end_busy\"} 6\n", "and ENDs that lost every race too");
	t = render(&m, METRICS_OPENMETRICS, all_families);
	ASSERT_TRUE(!m.err && !m.skipped, "every family tpstat writes at once: a valid page");
	ASSERT_STRSTR(t, "bareatom_tracepoint_key_value_summed{tracepoint=\"tpgen_a\","
		      "key_expr=\"cpu,comm\",key1=\"0\",key2=\"sh\"} 2e+19\n",
		      "--value's sum past 2^64 as its double, 2e19");

	ASSERT_EQ(buckets_lhist_steps(INT64_MIN, INT64_MAX, 1ULL << 62), 4,
		  "--lhist INT64_MIN:INT64_MAX:2^62: 4 steps (the sum of MAX - MIN + STEP wrapped to 0)");
	ASSERT_EQ(buckets_lhist_steps(0, 1024, 64), 16, "0:1024:64: 16 steps");
	ASSERT_EQ(buckets_lhist_steps(0, 1025, 64), 17, "0:1025:64: 17 steps");
	for (int k = 0; k < TPSTAT_NR_SLOTS; k++)
		slots[k] = 1;
	ASSERT_EQ(fmt_cpu_counts(slots, 8192, per, &rest), TPSTAT_SLOTS, "8192 CPUs: 256 one by one");
	ASSERT_EQ(rest, TPSTAT_SHARED_SLOTS, "the rest is every shared slot's count");
	metrics_free(&m);
	return test_done();
}
