// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's exposition. Per scrape: the counts from tpstat's own snapshot (the mmapped
 * .bss and one bpf_prog_info per program, which it reads for every report anyway), BPF
 * run time and runs from the same bpf_prog_info when kernel.bpf_stats_enabled is on, and
 * the fill of the targets hash in batch lookups, never one syscall per key.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "src/metrics.h"
#include "src/tpstat_buckets.h"
#include "src/tpstat_metrics.h"
#include "src/clock.h"

#define BPF_STATS_SYSCTL "/proc/sys/kernel/bpf_stats_enabled"
#define BATCH 4096

/* The room of map_entries()' batches. */
static struct {
	__u32 keys[BATCH];
	__u8 values[BATCH];
} mx;

/* A program's run time and count (all zero when the kernel will not say). */
static struct bpf_prog_info prog_info(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		memset(&info, 0, sizeof(info));
	return info;
}

static bool bpf_stats_enabled(void)
{
	FILE *f = fopen(BPF_STATS_SYSCTL, "r");
	int on = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &on) != 1)
		on = 0;
	fclose(f);
	return on > 0;
}

/* Entries in the targets hash: batch lookups of BATCH keys, or -1 when it cannot be read. */
static long map_entries(int fd)
{
	__u32 batch = 0, count;
	bool first = true;
	long n = 0;

	for (;;) {
		int err;

		count = BATCH;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, mx.keys, mx.values,
					   &count, NULL);
		first = false;
		if (err && errno != ENOENT)
			return -1;
		n += count;
		if (err)	/* ENOENT: that was the last batch */
			return n;
	}
}

static void tp_labels(struct metrics_label *l, const struct tpstat_row *t)
{
	l[0] = (struct metrics_label){ "tracepoint", t->name };
	l[1] = (struct metrics_label){ "kind", tp_kind_name(t->kind) };
	l[2] = (struct metrics_label){ "module", t->module };
}

/*
 * A --hist as a histogram: every bucket of its layout, in ascending order (a fixed set of
 * le, so that rates over time compare like with like), each le the bucket's upper bound.
 * Buckets whose bounds are the same double (large values, a small --lhist STEP) are one
 * bucket: the counts of le are cumulative, so merging them is exact at that le.
 * An unsigned field has _count and _sum (the 128-bit sum as a double). A signed one is
 * its buckets only, in every state: its layout has negative buckets, beside which
 * OpenMetrics forbids _sum, and it allows no _count without _sum; the +Inf bucket is
 * the count. Bounds and sum are divided by @per: 1, or 1e9 for a latency's ns in seconds.
 */
static void hist_metric_l(struct metrics *m, const struct metrics_label *l, int nl,
			  const struct tpstat_hist_row *h, double per)
{
	double le[TPSTAT_HIST_BUCKETS];
	uint64_t counts[TPSTAT_HIST_BUCKETS];
	int nb = 0;

	for (int i = 0; i < TPSTAT_HIST_BUCKETS; i++) {
		int b = buckets_order(h, i);
		__s64 lo, hi;
		__u64 ulo, uhi;
		double bound;

		if (b < 0)
			continue;
		/* An unsigned field has no negative buckets; a signed one no 2^63. */
		if (!h->linear && (h->is_signed ? b == 64 : b > 64))
			continue;
		/* The top --lhist bucket has no finite bound: it is +Inf's share. */
		if (h->linear && b == TPSTAT_LHIST_MAX + 1)
			continue;
		if (buckets_bounds(h, b, &lo, &hi, &ulo, &uhi))
			bound = (double)uhi / per;
		else
			bound = (double)hi / per;
		if (nb && bound <= le[nb - 1]) {
			counts[nb - 1] += h->buckets[b];
			continue;
		}
		le[nb] = bound;
		counts[nb++] = h->buckets[b];
	}
	metrics_histogram(m, l, nl, le, counts, nb, h->samples, !h->is_signed,
			  buckets_sum_double(h->sum, h->sum_hi, false) / per);
}

static void hist_metric(struct metrics *m, const struct tpstat_row *t, const struct tpstat_hist_row *h)
{
	struct metrics_label l[2] = { { "tracepoint", t->name }, { "expr", h->expr } };

	hist_metric_l(m, l, 2, h, 1);
}

/* A latency's labels {start, end, key_expr}; @keys holds key_expr's text. */
static void lat_labels(struct metrics_label *l, const char *end, const struct tpstat_lat_row *lr,
		       char *keys, size_t len)
{
	snprintf(keys, len, "%s,%s", lr->start_key, lr->end_key);
	l[0] = (struct metrics_label){ "start", lr->start_tp };
	l[1] = (struct metrics_label){ "end", end };
	l[2] = (struct metrics_label){ "key_expr", keys };
}

/*
 * --latency: a histogram per latency, {start, end, key_expr}, in seconds (Prometheus' base
 * unit: promtool refuses _nanoseconds; the table and JSON keep ns), and where every START
 * and END went, one counter per outcome: START = matched + open + replaced + dropped +
 * start_busy + start_errors, END = matched + no_start + end_busy + end_errors. open goes down when an END matches,
 * so it is a gauge family of its own: inside the counter family each fall would read as a
 * counter reset.
 */
/* What a --latency family holds. */
enum lat_value { LAT_SECONDS, LAT_EVENTS, LAT_OPEN };

static const struct {
	const char *name;
	enum metrics_type type;
	const char *unit, *help;
} lat_family[] = {
	[LAT_SECONDS] = { "bareatom_latency_seconds", METRICS_HISTOGRAM, "seconds",
			  "Time from START to END of the same key (tpstat --latency), measured in ns." },
	[LAT_EVENTS] = { "bareatom_latency_events", METRICS_COUNTER, NULL,
			 "Where each START and END of a --latency went: START = matched + open + "
			 "replaced + dropped + start_busy + start_errors, END = matched + no_start + "
			 "end_busy + end_errors (open: bareatom_latency_open)." },
	[LAT_OPEN] = { "bareatom_latency_open", METRICS_GAUGE, NULL,
		       "STARTs of a --latency waiting for their END now." },
};

/* One --latency family, @what: the series of every latency; none without --latency. */
static void lat_metrics(struct metrics *m, const struct tpstat_report *v, enum lat_value what)
{
	static const char *const outcome[] = { "matched", "no_start", "replaced", "dropped",
					       "start_busy", "end_busy", "start_errors", "end_errors" };
	char keys[512];
	bool first = true;

	for (int i = 0; i < v->n; i++)
		for (int k = 0; k < v->rows[i].nlats; k++) {
			const struct tpstat_lat_row *lr = &v->rows[i].lats[k];
			const __u64 val[] = { lr->matched, lr->no_start, lr->replaced, lr->dropped,
					      lr->start_busy, lr->end_busy, lr->start_errors,
					      lr->end_errors };
			struct metrics_label l[4];

			lat_labels(l, v->rows[i].name, lr, keys, sizeof(keys));
			if (first)
				metrics_family(m, lat_family[what].name, lat_family[what].type,
					       lat_family[what].unit, lat_family[what].help);
			first = false;
			if (what == LAT_SECONDS)
				hist_metric_l(m, l, 3, &lr->hist, 1e9);
			else if (what == LAT_OPEN)
				metrics_u64(m, l, 3, lr->open);
			else
				for (size_t o = 0; o < sizeof(val) / sizeof(val[0]); o++) {
					l[3] = (struct metrics_label){ "outcome", outcome[o] };
					metrics_u64(m, l, 4, val[o]);
				}
		}
}

/* What a series of a --by key holds. */
enum key_value { KEY_HITS, KEY_SUM, KEY_MIN, KEY_MAX };

/*
 * One series per shown key of @br: {tracepoint, key_expr, key} for one key, {tracepoint,
 * key_expr, key1, key2, ...} for a tuple. fmt_by_key gives two comms two texts.
 */
static void key_series(struct metrics *m, const char *tp, const struct tpstat_by_row *br,
		       enum key_value what)
{
	static const char *const names[TPSTAT_BY_KEYS] = { "key1", "key2", "key3", "key4" };
	char key[TPSTAT_BY_KEYS][FMT_KEY_LEN];
	struct metrics_label l[2 + TPSTAT_BY_KEYS];
	int nl = br->nk > 1 ? br->nk : 1;

	l[0] = (struct metrics_label){ "tracepoint", tp };
	l[1] = (struct metrics_label){ "key_expr", br->key_expr };
	for (int e = 0; e < br->n; e++) {
		const struct tpstat_by_entry *en = &br->entries[e];
		__u64 val = what == KEY_HITS ? en->count : what == KEY_MIN ? en->min : en->max;

		if (br->nk > 1) {
			for (int k = 0; k < br->nk; k++) {
				fmt_by_key_i(br, en, k, key[k], sizeof(key[k]));
				l[2 + k] = (struct metrics_label){ names[k], key[k] };
			}
		} else {
			fmt_by_key(br, en, key[0], sizeof(key[0]));
			l[2] = (struct metrics_label){ "key", key[0] };
		}
		if (what == KEY_SUM)	/* the 128-bit sum, as a double */
			metrics_double(m, l, 2 + nl, buckets_sum_double(en->sum, en->sum_hi,
									br->value_signed));
		else if (what != KEY_HITS && br->value_signed)
			metrics_double(m, l, 2 + nl, (double)(__s64)val);
		else
			metrics_u64(m, l, 2 + nl, val);
	}
}

/* What a --by table's one-sample-per-table family holds. */
enum by_value { BY_OTHER, BY_DROPPED, BY_KEYS, BY_SHOWN };

/* A family with one sample per --by table, {tracepoint, key_expr}; none without --by. */
static void by_family(struct metrics *m, const struct tpstat_report *v, const char *name,
		      enum metrics_type type, const char *help, enum by_value what)
{
	struct metrics_label l[2];
	bool first = true;

	for (int i = 0; i < v->n; i++)
		for (int b = 0; b < v->rows[i].nbys; b++) {
			const struct tpstat_by_row *br = &v->rows[i].bys[b];
			__u64 val;

			if (fmt_by_stack(br))	/* stacks are the report's, not the metrics' */
				continue;
			val = what == BY_OTHER ? br->other : what == BY_DROPPED ?
				    br->dropped + br->errors : what == BY_KEYS ? br->nkeys :
				    (__u64)br->n;

			if (first)
				metrics_family(m, name, type, NULL, help);
			first = false;
			l[0] = (struct metrics_label){ "tracepoint", v->rows[i].name };
			l[1] = (struct metrics_label){ "key_expr", br->key_expr };
			metrics_u64(m, l, 2, val);
		}
}

static bool any_filter(const struct tpstat_report *v)
{
	for (int i = 0; i < v->n; i++)
		if (v->rows[i].nfilters)
			return true;
	return false;
}

void tpstat_metrics_write(struct metrics *m, const struct tpstat_report *v)
{
	struct metrics_label l[4];
	double start = clock_now();
	char cpu[32];
	long entries;

	metrics_family(m, "bareatom_tracepoint_hits", METRICS_COUNTER, NULL,
		       "Hits of a raw or bare tracepoint counted by tpstat's BPF program.");
	for (int i = 0; i < v->n; i++) {
		tp_labels(l, &v->rows[i]);
		metrics_u64(m, l, 3, v->rows[i].count);
	}
	metrics_family(m, "bareatom_tracepoint_missed", METRICS_COUNTER, NULL,
		       "Hits the kernel did not let the program see (recursion misses): "
		       "hits + missed (+ filtered + filter_errors with --filter) is every time "
		       "the tracepoint fired for the targets.");
	for (int i = 0; i < v->n; i++) {
		tp_labels(l, &v->rows[i]);
		metrics_u64(m, l, 3, v->rows[i].missed);
	}
	if (any_filter(v)) {
		metrics_family(m, "bareatom_tracepoint_filtered", METRICS_COUNTER, NULL,
			       "Events a --filter kept out of hits (tracepoints with a filter only).");
		for (int i = 0; i < v->n; i++) {
			if (!v->rows[i].nfilters)
				continue;
			tp_labels(l, &v->rows[i]);
			metrics_u64(m, l, 3, v->rows[i].filtered);
		}
		metrics_family(m, "bareatom_tracepoint_filter_errors", METRICS_COUNTER, NULL,
			       "Events whose --filter could not read its field: neither in hits nor "
			       "filtered.");
		for (int i = 0; i < v->n; i++) {
			if (!v->rows[i].nfilters)
				continue;
			tp_labels(l, &v->rows[i]);
			metrics_u64(m, l, 3, v->rows[i].filter_errors);
		}
	}
	if (v->n && v->rows[0].cpu_count) {
		metrics_family(m, "bareatom_tracepoint_cpu_hits", METRICS_COUNTER, NULL,
			       "Hits per CPU (tpstat -A).");
		for (int i = 0; i < v->n; i++) {
			tp_labels(l, &v->rows[i]);
			for (int c = 0; c < v->rows[i].ncpu; c++) {
				snprintf(cpu, sizeof(cpu), "%d", c);
				l[3] = (struct metrics_label){ "cpu", cpu };
				metrics_u64(m, l, 4, v->rows[i].cpu_count[c]);
			}
			/* CPUs that share slots: one series for them all, cpu="256-8191". */
			if (v->rows[i].ncpu < v->ncpu) {
				snprintf(cpu, sizeof(cpu), "%d-%d", v->rows[i].ncpu, v->ncpu - 1);
				l[3] = (struct metrics_label){ "cpu", cpu };
				metrics_u64(m, l, 4, v->rows[i].rest_count);
			}
		}
	}
	for (int i = 0, first = 1; i < v->n; i++)
		for (int h = 0; h < v->rows[i].nhists; h++) {
			if (first)
				metrics_family(m, "bareatom_tracepoint_value", METRICS_HISTOGRAM, NULL,
					       "A field of the tracepoint's arguments (tpstat --hist/--lhist).");
			first = 0;
			hist_metric(m, &v->rows[i], &v->rows[i].hists[h]);
		}
	for (int i = 0, first = 1; i < v->n; i++)
		for (int h = 0; h < v->rows[i].nhists; h++) {
			if (first)
				metrics_family(m, "bareatom_tracepoint_value_errors", METRICS_COUNTER, NULL,
					       "Events whose field could not be read (a bad pointer): "
					       "samples + errors = hits.");
			first = 0;
			l[0] = (struct metrics_label){ "tracepoint", v->rows[i].name };
			l[1] = (struct metrics_label){ "expr", v->rows[i].hists[h].expr };
			metrics_u64(m, l, 2, v->rows[i].hists[h].errors);
		}
	for (enum lat_value what = LAT_SECONDS; what <= LAT_OPEN; what++)
		lat_metrics(m, v, what);
	/*
	 * --by: the top keys (the cap is --top) as key_hits{key}; the rest in a family of its
	 * own, since any text a key="..." could use is also a possible key (a process named
	 * "other"). fmt_by_key gives two comms two texts.
	 */
	for (int i = 0, first = 1; i < v->n; i++)
		for (int b = 0; b < v->rows[i].nbys; b++) {
			if (fmt_by_stack(&v->rows[i].bys[b]))
				continue;
			if (first)
				metrics_family(m, "bareatom_tracepoint_key_hits", METRICS_COUNTER, NULL,
					       "Hits per key (tpstat --by), the top --top keys; a tuple of "
					       "keys has a label per key, key1, key2, ...");
			first = 0;
			key_series(m, v->rows[i].name, &v->rows[i].bys[b], KEY_HITS);
		}
	for (enum key_value what = KEY_SUM; what <= KEY_MAX; what++)
		for (int i = 0, first = 1; i < v->n; i++)
			for (int b = 0; b < v->rows[i].nbys; b++) {
				if (!v->rows[i].bys[b].value_expr || fmt_by_stack(&v->rows[i].bys[b]))
					continue;
				if (first)
					metrics_family(m, what == KEY_SUM ? "bareatom_tracepoint_key_value_summed" :
						       what == KEY_MIN ? "bareatom_tracepoint_key_value_min" :
						       "bareatom_tracepoint_key_value_max", METRICS_GAUGE, NULL,
						       what == KEY_SUM ? "The sum of --value's field per key." :
						       what == KEY_MIN ? "The least --value per key." :
						       "The greatest --value per key.");
				first = 0;
				key_series(m, v->rows[i].name, &v->rows[i].bys[b], what);
			}
	by_family(m, v, "bareatom_tracepoint_key_other_hits", METRICS_COUNTER,
		  "Hits of the keys beyond --top, together (tpstat --by).", BY_OTHER);
	by_family(m, v, "bareatom_tracepoint_key_dropped", METRICS_COUNTER,
		  "Hits whose key found no slot in the table (full or busy): "
		  "key_hits + key_other_hits + key_dropped = hits.", BY_DROPPED);
	by_family(m, v, "bareatom_tracepoint_keys", METRICS_GAUGE,
		  "Keys in the table; at most bareatom_tracepoint_keys_shown of "
		  "them are series of their own.", BY_KEYS);
	by_family(m, v, "bareatom_tracepoint_keys_shown", METRICS_GAUGE,
		  "The cardinality cap: keys exported as series (--top).", BY_SHOWN);
	if (bpf_stats_enabled()) {
		metrics_family(m, "bareatom_bpf_run_seconds", METRICS_COUNTER, "seconds",
			       "Time spent in the BPF program while kernel.bpf_stats_enabled was on.");
		for (int i = 0; i < v->n; i++) {
			l[0] = (struct metrics_label){ "program", v->rows[i].prog };
			l[1] = (struct metrics_label){ "tracepoint", v->rows[i].name };
			metrics_double(m, l, 2, prog_info(v->rows[i].prog_fd).run_time_ns / 1e9);
		}
		metrics_family(m, "bareatom_bpf_runs", METRICS_COUNTER, NULL,
			       "Runs of the BPF program while kernel.bpf_stats_enabled was on.");
		for (int i = 0; i < v->n; i++) {
			l[0] = (struct metrics_label){ "program", v->rows[i].prog };
			l[1] = (struct metrics_label){ "tracepoint", v->rows[i].name };
			metrics_u64(m, l, 2, prog_info(v->rows[i].prog_fd).run_cnt);
		}
	}
	entries = v->targets_fd >= 0 ? map_entries(v->targets_fd) : -1;
	l[0] = (struct metrics_label){ "map", "targets" };
	if (entries >= 0) {
		metrics_family(m, "bareatom_bpf_map_entries", METRICS_GAUGE, NULL,
			       "Entries in tpstat's hash of followed processes or threads.");
		metrics_u64(m, l, 1, entries);
	}
	metrics_family(m, "bareatom_bpf_map_max_entries", METRICS_GAUGE, NULL,
		       "Room in tpstat's hash of followed processes or threads.");
	metrics_u64(m, l, 1, v->targets_max);
	metrics_family(m, "bareatom_bpf_map_update_failures", METRICS_COUNTER, NULL,
		       "Updates the full hash refused: forks not followed, their events not counted.");
	metrics_u64(m, l, 1, v->untracked_forks);
	metrics_family(m, "bareatom_scrape_duration_seconds", METRICS_GAUGE, "seconds",
		       "Time this exposition took to gather, up to this line.");
	metrics_double(m, NULL, 0, clock_now() - start);
}
