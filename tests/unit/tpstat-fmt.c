// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-fmt: checks of tpstat's output formatting (no kernel needed).
 *
 *   tpstat-fmt            TAP checks of CPU lists, thousands separators, table text and
 *                         one JSON line with every field, byte for byte
 *   tpstat-fmt json       print sample JSON lines (for tpstat-fmt.t to validate with jq)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_fmt.h"
#include "tests/unit/test.h"

static const char *cpulist(__u64 w0, __u64 w1)
{
	static char buf[256];
	__u64 words[2] = { w0, w1 };

	fmt_cpulist(buf, sizeof(buf), words, 2);
	return buf;
}

static void sample(struct tpstat_report *r, struct tpstat_row *rows, __u64 *cpus)
{
	cpus[0] = 0xf;
	cpus[1] = 1ULL << 2;	/* CPU 66 */
	rows[0] = (struct tpstat_row){ .name = "tpgen_a", .module = "tpgen", .kind = TP_KIND_BARE,
		.count = 1234567, .delta = 1000, .cpus = cpus, .cpu_words = 2, .first_cpu = 66 };
	rows[1] = (struct tpstat_row){ .name = "sched_switch", .module = "vmlinux",
		.kind = TP_KIND_EVENT, .count = 0, .delta = 0, .cpus = cpus + 2, .cpu_words = 2,
		.first_cpu = -1 };
	*r = (struct tpstat_report){ .ts = 1764748800.5, .elapsed = 2.0, .span = 0.5, .interval = 3,
		.command = "sh -c \"echo \\\\ hi\"\n\ttab\x01", .n = 2, .rows = rows };
}

/* Every optional field at once: unknown kind, truncated CPUs, -A, -r, a target. */
static void full_json(void)
{
	__u64 cpus[1] = { 0x5 }, cc[2] = { 10, 20 }, cd[2] = { 1, 2 }, runs[3] = { 100, 110, 90 };
	struct tpstat_row row = { .name = "na\"me", .module = "m\\od", .kind = TP_KIND_UNKNOWN,
		.count = 30, .delta = 3, .cpus = cpus, .cpu_words = 1, .cpus_truncated = true,
		.first_cpu = 2, .missed = 7, .missed_delta = 1, .cpu_count = cc, .cpu_delta = cd,
		.ncpu = 2, .runs = runs, .nruns = 3 };
	struct tpstat_report r = { .ts = 1.25, .elapsed = 0.5, .span = 0.25, .paused_secs = 0.125,
		.interval = 1, .final = true, .target = "PID 42", .n = 1, .rows = &row };
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	fmt_json(f, &r);
	fclose(f);
	ASSERT_STREQ(text, "{\"ts\":1.250000,\"interval\":1,\"final\":true,\"elapsed\":0.500000,"
		"\"paused\":false,\"paused_secs\":0.125000,\"command\":null,\"target\":\"PID 42\","
		"\"tracepoints\":[{\"name\":\"na\\\"me\",\"module\":\"m\\\\od\",\"bare\":null,"
		"\"count\":30,\"delta\":3,\"rate\":80.000,\"cpus\":[0,2],\"cpus_truncated\":true,"
		"\"first_cpu\":2,\"missed\":7,\"missed_delta\":1,\"per_cpu\":[{\"cpu\":0,\"count\":10,"
		"\"delta\":1},{\"cpu\":1,\"count\":20,\"delta\":2}],\"runs\":[100,110,90],"
		"\"mean\":100.000,\"stddev\":10.000,\"noise_pct\":5.774}]}\n",
		"JSON with every field; the final line's rate is count / unpaused time (30 / 0.375 s)");
	free(text);

	r.final = false;
	f = open_memstream(&text, &len);
	fmt_json(f, &r);
	fclose(f);
	ASSERT_STRSTR(text, "\"delta\":3,\"rate\":12.000,", "an interval line's rate is delta / span (3 / 0.25 s)");
	free(text);

	{
		double secs[3] = { 0.1, 0.2, 0.3 };

		r.final = true;
		r.run_secs = secs;
		r.nruns = 3;
		f = open_memstream(&text, &len);
		fmt_json(f, &r);
		fclose(f);
		ASSERT_STRSTR(text, "\"run_elapsed\":[0.100000,0.200000,0.300000],\"elapsed_mean\":0.200000,"
			      "\"elapsed_stddev\":0.100000,", "-r: each run's seconds, their mean and stddev");
		free(text);
		f = open_memstream(&text, &len);
		fmt_table(f, &r);
		fclose(f);
		/* perf stat -r: the stddev of the mean, 0.1 / sqrt(3), and its 28.87 % of the mean. */
		ASSERT_STRSTR(text, "0.200000 +- 0.057735 seconds elapsed per run ( +- 28.87% )",
			      "-r table: the mean run with its error and noise");
		ASSERT_STRSTR(text, "0.500000 seconds elapsed in all", "-r table: then the whole time");
		free(text);
	}
}

/* -x's CPUs column whole, however long: every other CPU of 0..599 is 300 numbers. */
static void csv_long_cpus(void)
{
	__u64 cpus[10] = { 0 };
	struct tpstat_row row = { .name = "tpgen_a", .module = "tpgen", .kind = TP_KIND_BARE,
		.count = 5, .cpus = cpus, .cpu_words = 10, .first_cpu = 0 };
	struct tpstat_report r = { .final = true, .elapsed = 1, .csv = ",", .n = 1, .rows = &row };
	char *text, *col;
	size_t len;
	FILE *f;

	for (int c = 0; c < 600; c += 2)
		cpus[c / 64] |= 1ULL << (c % 64);
	f = open_memstream(&text, &len);
	fmt_csv(f, &r);
	fclose(f);
	col = strrchr(text, ',');
	ASSERT_TRUE(col && !strncmp(col, ",0 2 4 6 ", 9) && strlen(col) > 1000,
		    "-x: the CPUs column holds all 300 CPUs (it was cut at 255 bytes)");
	ASSERT_TRUE(len > 5 && !strcmp(text + len - 9, " 596 598\n"),
		    "and ends with the last CPU whole, not in the middle of a number");
	free(text);
}

/* -r with --filter: the filter rows stay, and the legend says what adds up to hits. */
static void runs_with_filters(void)
{
	__u64 cpus[1] = { 1 }, runs[2] = { 10, 20 };
	const char *filters[1] = { "seq & 1" };
	double secs[2] = { 1, 1 };
	struct tpstat_row row = { .name = "tpgen_a", .module = "tpgen", .kind = TP_KIND_BARE,
		.count = 30, .cpus = cpus, .cpu_words = 1, .first_cpu = 0, .runs = runs, .nruns = 2,
		.filters = filters, .nfilters = 1, .filtered = 29, .filter_errors = 1 };
	struct tpstat_report r = { .final = true, .elapsed = 2, .command = "true", .n = 1,
		.rows = &row, .run_secs = secs, .nruns = 2, .filters = true };
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	fmt_table(f, &r);
	fclose(f);
	ASSERT_STRSTR(text, "    (filtered out)                                            29         -           14.5\n",
		      "-r with --filter: the filtered row, over all runs");
	ASSERT_STRSTR(text, "    (filter errors)                                            1         -            0.5\n",
		      "and the filter errors row");
	ASSERT_STRSTR(text, "with -r, count is the mean of the runs; the runs' counts + filtered out "
		      "+ filter errors + missed = hits", "the legend says what adds up with -r");
	free(text);
}

/*
 * -i: a --by table, which only the totals print, is named under each interval with its
 * keys, dropped and errors; a --latency's accounting is the interval's, open the present.
 */
static void interval_tables(void)
{
	__u64 cpus[1] = { 1 }, buckets[TPSTAT_HIST_SLOTS] = { 0 };
	struct tpstat_by_row by = { .key_expr = "comm", .kind = TPSTAT_KEY_COMM, .nkeys = 12,
		.dropped = 3, .errors = 4 };
	struct tpstat_lat_row lat = { .text = "tpgen_a:seq,tpgen_b:seq", .start_tp = "tpgen_a",
		.start_key = "seq", .end_key = "seq",
		.hist = { .expr = "ns", .samples = 5, .buckets = buckets, .interval = true },
		.matched = 5, .no_start = 6, .replaced = 7, .open = 8, .dropped = 9,
		.start_errors = 10, .end_errors = 11, .start_busy = 12, .end_busy = 13 };
	struct tpstat_row rows[2] = {
		{ .name = "tpgen_a", .module = "tpgen", .kind = TP_KIND_BARE, .count = 40,
		  .delta = 4, .cpus = cpus, .cpu_words = 1, .bys = &by, .nbys = 1 },
		{ .name = "tpgen_b", .module = "tpgen", .kind = TP_KIND_BARE, .count = 40,
		  .delta = 4, .cpus = cpus, .cpu_words = 1, .lats = &lat, .nlats = 1 },
	};
	struct tpstat_report r = { .elapsed = 1, .span = 1, .interval = 1, .n = 2, .rows = rows };
	char *text;
	size_t len;
	FILE *f;

	buckets[10] = 5;
	f = open_memstream(&text, &len);
	fmt_interval(f, &r);
	fclose(f);
	ASSERT_STRSTR(text, " tpgen_a by comm: 12 keys, dropped 3 (no slot in the table), errors 4 "
		      "(reads that failed) since the start; --summary prints the table at the end\n",
		      "-i: a --by table is named with its keys, dropped and errors, and where it is");
	ASSERT_STRSTR(text, "  tpgen_a: in this interval matched 5, replaced 7, dropped 9 (table full), "
		      "busy 12, errors 10; open now 8\n", "-i: a latency's START accounting is the interval's");
	ASSERT_STRSTR(text, "  tpgen_b: in this interval matched 5, no start 6, busy 13, errors 11\n",
		      "and its END's");
	free(text);
}

int main(int argc, char **argv)
{
	struct tpstat_row rows[2];
	struct tpstat_report r;
	__u64 cpus[4] = { 0 };
	char buf[64], *text;
	size_t len;
	FILE *f;

	sample(&r, rows, cpus);
	if (argc > 1 && !strcmp(argv[1], "json")) {
		fmt_json(stdout, &r);
		r.final = true;
		r.paused = true;
		r.command = NULL;
		fmt_json(stdout, &r);
		return 0;
	}

	ASSERT_STREQ(cpulist(0, 0), "-", "empty CPU set");
	ASSERT_STREQ(cpulist(1, 0), "0", "one CPU");
	ASSERT_STREQ(cpulist(0xf, 0), "0-3", "a range");
	ASSERT_STREQ(cpulist(0x2d, 0), "0,2-3,5", "ranges and singles");
	ASSERT_STREQ(cpulist(1ULL << 63, 1), "63-64", "a range across words");
	ASSERT_STREQ(cpulist(~0ULL, ~0ULL), "0-127", "all CPUs");
	ASSERT_STREQ(fmt_thousands(buf, sizeof(buf), 0), "0", "thousands: 0");
	ASSERT_STREQ(fmt_thousands(buf, sizeof(buf), 999), "999", "thousands: 999");
	ASSERT_STREQ(fmt_thousands(buf, sizeof(buf), 1000), "1,000", "thousands: 1000");
	ASSERT_STREQ(fmt_thousands(buf, sizeof(buf), 1234567), "1,234,567", "thousands: 1234567");
	ASSERT_STREQ(fmt_thousands(buf, sizeof(buf), 18446744073709551615ULL),
	       "18,446,744,073,709,551,615", "thousands: u64 max");

	f = open_memstream(&text, &len);
	fmt_interval(f, &r);
	fclose(f);
	ASSERT_STRSTR(text, "tpgen_a", "interval line names the tracepoint");
	ASSERT_STRSTR(text, "bare", "interval line gives the kind");
	ASSERT_STRSTR(text, "1,000", "interval line prints the delta");
	ASSERT_STRSTR(text, "2000.0", "interval rate is delta / span (1000 / 0.5 s)");
	ASSERT_STRSTR(text, "0-3,66", "interval line lists the CPUs");
	free(text);

	f = open_memstream(&text, &len);
	r.final = true;
	r.paused_secs = 1.0;
	fmt_table(f, &r);
	fclose(f);
	ASSERT_STRSTR(text, "1,234,567", "table prints the total count");
	ASSERT_STRSTR(text, "1234567.0", "table rate is count / unpaused time (1234567 / 1 s)");
	ASSERT_STRSTR(text, "0-3,66 (66)", "table gives the CPUs and the first CPU");
	ASSERT_STRSTR(text, "counting paused for 1.000 s", "table says how long counting was paused");
	ASSERT_STRSTR(text, "sched_switch                 event", "table marks an event tracepoint");
	free(text);

	full_json();
	csv_long_cpus();
	runs_with_filters();
	interval_tables();
	return test_done();
}
