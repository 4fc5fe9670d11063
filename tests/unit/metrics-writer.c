// SPDX-License-Identifier: GPL-2.0
/*
 * metrics-writer: the exposition writer (src/metrics.c) in both formats, exact text:
 * family headers and suffixes, label escaping, cumulative histogram buckets, `# EOF`,
 * the buffer's bound and the names it refuses, what a bad series leaves of the page, values
 * past long long (the same source is built with UBSan as metrics-writer-ubsan).
 * `metrics-writer dump om|prom [edge]` prints a sample exposition of every kind (edge: the
 * histograms at their edges) for metrics-writer.t to give to promtool and to the
 * OpenMetrics reference parser.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "src/metrics.h"
#include "tests/unit/test.h"

static const struct metrics_label tp[] = {
	{ "tracepoint", "tpgen_a" }, { "kind", "bare" }, { "module", "tpgen" },
};
static const double le[] = { 0, 1, 3, 7, 0.5e-3 * 1000 * 30 };
static const uint64_t counts[] = { 2, 0, 5, 1, 4 };

/* Every kind of sample: the exact-text checks and promtool both read this. */
static void sample(struct metrics *m, enum metrics_format fmt)
{
	static const struct metrics_label odd[] = {
		{ "tracepoint", "a\\b\"c\nd" }, { "kind", "bad\xff utf8 \xc3\xa9" },
	};
	static const struct metrics_label hist[] = { { "tracepoint", "tpgen_a" }, { "expr", "seq" } };
	static const struct metrics_label prog[] = { { "program", "count_tp" } };

	metrics_begin(m, fmt);
	metrics_family(m, "bareatom_tracepoint_hits", METRICS_COUNTER, NULL,
		       "Hits of a tracepoint, counted by BPF \\ with \"atomics\".");
	metrics_u64(m, tp, 3, 400000);
	metrics_u64(m, odd, 2, 0);
	metrics_family(m, "bareatom_cookie_highwater", METRICS_GAUGE, NULL, "The durable mark.");
	metrics_u64(m, NULL, 0, 16777217);
	metrics_family(m, "bareatom_bpf_run_seconds", METRICS_COUNTER, "seconds",
		       "Time in BPF programs.");
	metrics_double(m, prog, 1, 0.00125);
	metrics_family(m, "bareatom_tracepoint_value", METRICS_HISTOGRAM, NULL, "Values.");
	metrics_histogram(m, hist, 2, le, counts, 5, 13, true, 101);
	metrics_end(m);
}

static const char want_om[] =
"# HELP bareatom_tracepoint_hits Hits of a tracepoint, counted by BPF \\\\ with \\\"atomics\\\".\n"
"# TYPE bareatom_tracepoint_hits counter\n"
"bareatom_tracepoint_hits_total{tracepoint=\"tpgen_a\",kind=\"bare\",module=\"tpgen\"} 400000\n"
"bareatom_tracepoint_hits_total{tracepoint=\"a\\\\b\\\"c\\nd\",kind=\"bad\xef\xbf\xbd utf8 \xc3\xa9\"} 0\n"
"# HELP bareatom_cookie_highwater The durable mark.\n"
"# TYPE bareatom_cookie_highwater gauge\n"
"bareatom_cookie_highwater 16777217\n"
"# HELP bareatom_bpf_run_seconds Time in BPF programs.\n"
"# TYPE bareatom_bpf_run_seconds counter\n"
"# UNIT bareatom_bpf_run_seconds seconds\n"
"bareatom_bpf_run_seconds_total{program=\"count_tp\"} 0.00125\n"
"# HELP bareatom_tracepoint_value Values.\n"
"# TYPE bareatom_tracepoint_value histogram\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"0.0\"} 2\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"1.0\"} 2\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"3.0\"} 7\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"7.0\"} 8\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"15.0\"} 12\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"+Inf\"} 13\n"
"bareatom_tracepoint_value_count{tracepoint=\"tpgen_a\",expr=\"seq\"} 13\n"
"bareatom_tracepoint_value_sum{tracepoint=\"tpgen_a\",expr=\"seq\"} 101\n"
"# EOF\n";

/* 0.0.4: counters named by their sample, HELP without \" escapes, no UNIT, no EOF. */
static const char want_prom[] =
"# HELP bareatom_tracepoint_hits_total Hits of a tracepoint, counted by BPF \\\\ with \"atomics\".\n"
"# TYPE bareatom_tracepoint_hits_total counter\n"
"bareatom_tracepoint_hits_total{tracepoint=\"tpgen_a\",kind=\"bare\",module=\"tpgen\"} 400000\n"
"bareatom_tracepoint_hits_total{tracepoint=\"a\\\\b\\\"c\\nd\",kind=\"bad\xef\xbf\xbd utf8 \xc3\xa9\"} 0\n"
"# HELP bareatom_cookie_highwater The durable mark.\n"
"# TYPE bareatom_cookie_highwater gauge\n"
"bareatom_cookie_highwater 16777217\n"
"# HELP bareatom_bpf_run_seconds_total Time in BPF programs.\n"
"# TYPE bareatom_bpf_run_seconds_total counter\n"
"bareatom_bpf_run_seconds_total{program=\"count_tp\"} 0.00125\n"
"# HELP bareatom_tracepoint_value Values.\n"
"# TYPE bareatom_tracepoint_value histogram\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"0.0\"} 2\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"1.0\"} 2\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"3.0\"} 7\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"7.0\"} 8\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"15.0\"} 12\n"
"bareatom_tracepoint_value_bucket{tracepoint=\"tpgen_a\",expr=\"seq\",le=\"+Inf\"} 13\n"
"bareatom_tracepoint_value_count{tracepoint=\"tpgen_a\",expr=\"seq\"} 13\n"
"bareatom_tracepoint_value_sum{tracepoint=\"tpgen_a\",expr=\"seq\"} 101\n";

static void test_numbers(struct metrics *m)
{
	static const double le2[] = { -4, -0.25, 1e21 };
	static const uint64_t c2[] = { 1, 1, 1 };

	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "g", METRICS_GAUGE, NULL, "");
	metrics_double(m, NULL, 0, 0.1);
	metrics_double(m, NULL, 0, NAN);
	metrics_double(m, NULL, 0, -INFINITY);
	metrics_double(m, NULL, 0, 1.0 / 3);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, NULL, 0, le2, c2, 3, 3, false, -1);
	ASSERT_EQ(m->err, 0, "numbers: no error");
	ASSERT_STREQ(m->buf,
		     "# HELP g \n# TYPE g gauge\ng 0.1\ng NaN\ng -Inf\ng 0.3333333333333333\n"
		     "# HELP h \n# TYPE h histogram\n"
		     "h_bucket{le=\"-4.0\"} 1\nh_bucket{le=\"-0.25\"} 2\nh_bucket{le=\"1e+21\"} 3\n"
		     "h_bucket{le=\"+Inf\"} 3\n",
		     "numbers: shortest round trip, NaN, -Inf; le with a point; buckets only without _sum");
}

static void test_errors(struct metrics *m)
{
	static const struct metrics_label bad_label[] = { { "9lives", "x" } };
	static const struct metrics_label le_label[] = { { "le", "1" } };
	static const double down[] = { 2, 1 };
	static const uint64_t c[] = { 1, 1 };
	static const double one = 1, le_neg[] = { -1, 1 };
	static const uint64_t three = 3;

	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "bad-name", METRICS_GAUGE, NULL, "");
	ASSERT_EQ(m->err, -EINVAL, "a metric name with '-' is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	ASSERT_EQ(m->err, 0, "metrics_begin clears the error");
	ASSERT_EQ(m->len, 0, "and the text");
	metrics_family(m, "x_total", METRICS_COUNTER, NULL, "");
	ASSERT_EQ(m->err, -EINVAL, "a counter family named x_total is refused (x_total_total)");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "x_bytes", METRICS_GAUGE, "seconds", "");
	ASSERT_EQ(m->err, -EINVAL, "a unit that does not end the name is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_u64(m, NULL, 0, 1);
	ASSERT_EQ(m->err, -EINVAL, "a sample before any family is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "g", METRICS_GAUGE, NULL, "");
	metrics_u64(m, bad_label, 1, 1);
	ASSERT_EQ(m->err, -EINVAL, "a label name starting with a digit is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "g", METRICS_GAUGE, NULL, "");
	metrics_u64(m, le_label, 1, 1);
	ASSERT_EQ(m->err, -EINVAL, "a caller's 'le' label is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "c", METRICS_COUNTER, NULL, "");
	metrics_double(m, NULL, 0, -1);
	ASSERT_TRUE(m->err == 0 && m->skipped == 1 && !strcmp(m->buf, "# HELP c \n# TYPE c counter\n"),
		    "a negative counter is left out, counted, the page kept");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_u64(m, NULL, 0, 1);
	ASSERT_EQ(m->err, -EINVAL, "a plain sample in a histogram family is refused");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, NULL, 0, down, c, 2, 2, true, 0);
	ASSERT_TRUE(m->err == 0 && m->skipped == 1 && !strstr(m->buf, "h_bucket"),
		    "descending bucket bounds: the series is left out, not the page");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, NULL, 0, &one, &three, 1, 2, true, 0);
	ASSERT_EQ(m->err, 0, "buckets holding more than the count (a torn read): no error");
	ASSERT_STREQ(m->buf, "# HELP h \n# TYPE h histogram\nh_bucket{le=\"1.0\"} 3\n"
		     "h_bucket{le=\"+Inf\"} 3\nh_count 3\nh_sum 0\n",
		     "a torn read: +Inf and _count raised to the buckets' sum, never below them");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, NULL, 0, le_neg, c, 2, 2, true, 5);
	ASSERT_TRUE(m->err == 0 && m->skipped == 1, "_sum beside a negative bucket: left out");
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, NULL, 0, &one, c, 1, 2, true, -3);
	ASSERT_TRUE(m->err == 0 && m->skipped == 1, "a negative _sum: left out");
}

/* One bad series costs that series only: the families before and after it stay. */
static void test_skip(struct metrics *m)
{
	static const double down[] = { 2, 1 };
	static const uint64_t c[] = { 1, 1 };

	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "a", METRICS_GAUGE, NULL, "");
	metrics_u64(m, NULL, 0, 1);
	metrics_family(m, "h", METRICS_HISTOGRAM, NULL, "");
	metrics_histogram(m, tp, 1, down, c, 2, 2, true, 3);
	metrics_family(m, "b", METRICS_GAUGE, NULL, "");
	metrics_u64(m, NULL, 0, 2);
	metrics_end(m);
	ASSERT_EQ(m->err, 0, "a page with one bad series: no error");
	ASSERT_STREQ(m->buf, "# HELP a \n# TYPE a gauge\na 1\n# HELP h \n# TYPE h histogram\n"
		     "# HELP b \n# TYPE b gauge\nb 2\n"
		     "# HELP bareatom_metrics_skipped_series Series left out of this exposition: "
		     "their data could not make a valid one (the program says why on stderr).\n"
		     "# TYPE bareatom_metrics_skipped_series gauge\n"
		     "bareatom_metrics_skipped_series 1\n# EOF\n",
		     "the rest of the page stays, and the page says a series was left out");
}

/*
 * Doubles past long long's range: put_double used to convert before it checked the range,
 * undefined behaviour that metrics-writer-ubsan (-fsanitize=float-cast-overflow) stops on.
 */
static void test_big(struct metrics *m)
{
	metrics_begin(m, METRICS_OPENMETRICS);
	metrics_family(m, "g", METRICS_GAUGE, NULL, "");
	metrics_double(m, NULL, 0, 1e300);
	metrics_double(m, NULL, 0, -1e300);
	metrics_double(m, NULL, 0, 18446744073709551616.0);
	metrics_double(m, NULL, 0, 9223372036854775808.0);
	metrics_double(m, NULL, 0, 999999999999999.0);
	ASSERT_EQ(m->err, 0, "big doubles: no error");
	ASSERT_STREQ(m->buf, "# HELP g \n# TYPE g gauge\ng 1e+300\ng -1e+300\n"
		     "g 1.8446744073709552e+19\ng 9.223372036854776e+18\ng 999999999999999\n",
		     "values past long long in the shortest form that reads back, no cast of them");
}

/* Histograms at their edges: empty, buckets only (negative bounds), a torn read. */
static void edge(struct metrics *m, enum metrics_format fmt)
{
	static const struct metrics_label u[] = { { "tracepoint", "t" }, { "expr", "u" } };
	static const struct metrics_label sg[] = { { "tracepoint", "t" }, { "expr", "s" } };
	static const struct metrics_label torn[] = { { "tracepoint", "t" }, { "expr", "torn" } };
	static const struct metrics_label bad[] = { { "tracepoint", "t" }, { "expr", "bad" } };
	static const double sle[] = { -8, -1, 0, 1, 8 }, down[] = { 3, 1 };
	static const uint64_t zero[5], sc[] = { 1, 2, 0, 4, 1 }, c[] = { 5, 4 };

	metrics_begin(m, fmt);
	metrics_family(m, "bareatom_tracepoint_value", METRICS_HISTOGRAM, NULL, "Values.");
	metrics_histogram(m, u, 2, le, zero, 5, 0, true, 0);
	metrics_histogram(m, sg, 2, sle, sc, 5, 9, false, 0);
	metrics_histogram(m, torn, 2, le, counts, 5, 7, true, 18446744073709551616.0 * 3);
	metrics_histogram(m, bad, 2, down, c, 2, 9, true, 1);
	metrics_family(m, "bareatom_tracepoint_hits", METRICS_COUNTER, NULL, "Hits.");
	metrics_u64(m, tp, 3, UINT64_MAX);
	metrics_end(m);
}

static void test_bound(void)
{
	struct metrics m;
	size_t last = 0;
	int i;

	metrics_init(&m, 1000);
	metrics_begin(&m, METRICS_OPENMETRICS);
	metrics_family(&m, "g", METRICS_GAUGE, NULL, "");
	for (i = 0; i < 1000 && !m.err; i++) {
		last = m.len;
		metrics_u64(&m, NULL, 0, 123456789);
	}
	ASSERT_EQ(m.err, -E2BIG, "past the bound: -E2BIG");
	ASSERT_LE_U64(m.cap, 1000, "the buffer never grows past the bound");
	ASSERT_LE_U64(m.len, 999, "the text and its NUL fit in the bound");
	ASSERT_EQ(i, (1000 - 26) / 12 + 1, "the error came where the bound is (12 bytes a sample)");
	last = m.len;
	metrics_u64(&m, NULL, 0, 1);
	ASSERT_EQ(m.len, last, "nothing is written after the error");
	metrics_free(&m);
}

int main(int argc, char **argv)
{
	struct metrics m;

	metrics_init(&m, 1 << 20);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "dump")) {
		enum metrics_format fmt = !strcmp(argv[2], "om") ? METRICS_OPENMETRICS : METRICS_PROMETHEUS;

		if (argc == 4)
			edge(&m, fmt);
		else
			sample(&m, fmt);
		fputs(m.buf, stdout);
		return m.err ? 1 : 0;
	}
	sample(&m, METRICS_OPENMETRICS);
	ASSERT_EQ(m.err, 0, "OpenMetrics sample: no error");
	ASSERT_STREQ(m.buf, want_om, "OpenMetrics 1.0.0 text, exactly");
	ASSERT_EQ(m.len, strlen(want_om), "len matches the text");
	sample(&m, METRICS_PROMETHEUS);
	ASSERT_EQ(m.err, 0, "0.0.4 sample: no error");
	ASSERT_STREQ(m.buf, want_prom, "Prometheus text 0.0.4, exactly");
	ASSERT_STREQ(metrics_content_type(METRICS_OPENMETRICS),
		     "application/openmetrics-text; version=1.0.0; charset=utf-8", "OpenMetrics content type");
	ASSERT_STREQ(metrics_content_type(METRICS_PROMETHEUS),
		     "text/plain; version=0.0.4; charset=utf-8", "0.0.4 content type");
	test_numbers(&m);
	test_errors(&m);
	test_skip(&m);
	test_big(&m);
	edge(&m, METRICS_OPENMETRICS);
	ASSERT_TRUE(m.err == 0 && m.skipped == 1 && strstr(m.buf, "\nbareatom_tracepoint_value_bucket"
		    "{tracepoint=\"t\",expr=\"torn\",le=\"+Inf\"} 12\n"),
		    "edge cases: one series left out; the torn read's +Inf is its buckets' 12");
	metrics_free(&m);
	test_bound();
	return test_done();
}
