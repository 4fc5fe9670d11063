/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's output: perf-stat-like tables and one JSON object per line, of one view (struct
 * tpstat_report, built by tpstat_view.c). The files by output: tpstat_fmt_table.c (the
 * table and the interval lines), tpstat_fmt_bars.c (histograms, --by tables, latencies
 * under them), tpstat_fmt_csv.c, tpstat_fmt_json.c; tpstat_fmt.c what they share.
 */
#ifndef __BAREATOM_TPSTAT_FMT_H
#define __BAREATOM_TPSTAT_FMT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "src/json.h"
#include "bpf/tpstat_abi.h"
#include "src/tplist.h"
#include "src/tpstat_buckets.h"
#include "src/stack_fold.h"

/* One key of a --by table and its count; key i in k[2i], a comm in the 16 bytes there. */
struct tpstat_by_entry {
	__u64 k[TPSTAT_KEY_WORDS];
	__u64 count;
	__u64 sum, min, max;	/* --value: of the field, per key */
	__u64 sum_hi;		/* the high word of the 128-bit two's complement sum */
};

/*
 * A stack --by's stacks as the final report shows them (tpstat_stacks.c): named, frames
 * with their offsets, merged; and what found no entry.
 */
struct tpstat_stack_row {
	struct stack_entry *e;
	size_t n;
	struct stack_acct acct;
	bool named;
};

/* One --by table of a tracepoint: the top entries, the rest summed, what found no slot. */
struct tpstat_by_row {
	const char *key_expr;	/* as given: "comm", "ctx->cpu", "cpu,comm" */
	int kind;		/* enum tpstat_key_kind (of the first key) */
	bool is_signed;		/* an EXPR key of a signed type (the first) */
	int nk;			/* keys in the tuple; 0 is taken as 1, the one above */
	const char *keys[TPSTAT_BY_KEYS];	/* each key as given */
	int kinds[TPSTAT_BY_KEYS];
	bool signed_keys[TPSTAT_BY_KEYS];
	const char *value_expr;	/* --value EXPR, or NULL */
	bool value_signed;
	__u64 minmax_lost;	/* --value min/max updates given up */
	const struct tpstat_by_entry *entries;	/* the top ones, most counted first */
	int n;
	__u64 nkeys;		/* keys in the table, shown or not */
	__u64 other;		/* the counts of the keys not shown */
	__u64 dropped, errors;
	const struct tpstat_stack_row *stacks;	/* a stack --by's, in the final report; or NULL */
	long top;		/* --top: the stacks shown */
};

/*
 * -A: the counts of CPUs 0 .. @possible - 1 from the slots of tpstat_abi.h into @per_cpu, one per
 * CPU while every CPU has a slot of its own (fewer than TPSTAT_NR_SLOTS), and returns how
 * many; past that, the CPUs from TPSTAT_SLOTS up share slots, and their sum is in *@rest.
 */
int fmt_cpu_counts(const __u64 *slots, int possible, __u64 *per_cpu, __u64 *rest);

/*
 * A --by key as text: numbers in decimal; comm as a string whose bytes that are not
 * printable UTF-8 show as \xHH and a backslash as \\, so that two comms never give the
 * same text (@len: at least FMT_KEY_LEN).
 */
#define FMT_KEY_LEN 72
void fmt_by_key(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, char *buf,
		size_t len);
/* Key @i of a tuple as text, as fmt_by_key does one key. */
void fmt_by_key_i(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, int i,
		  char *buf, size_t len);

/* One --latency, on its END tracepoint's row: the histogram of ns and the accounting. */
struct tpstat_lat_row {
	const char *text;		/* START:KEY,END:KEY as given */
	const char *start_tp;		/* START's tracepoint */
	const char *start_key, *end_key;
	struct tpstat_hist_row hist;	/* samples = matched */
	__u64 matched, no_start, replaced, open, dropped, start_errors, end_errors;
	__u64 start_busy, end_busy;	/* the table busy (-EBUSY), or changing under them */
};

struct tpstat_row {
	const char *name;
	const char *module;
	enum tp_kind kind;
	const char *prog;	/* its BPF program's name, as bpftool shows it */
	int prog_fd;
	__u64 count;		/* since start */
	__u64 delta;		/* since the previous report */
	const __u64 *cpus;	/* bitmap of CPUs that hit it */
	int cpu_words;
	bool cpus_truncated;	/* a CPU >= cpu_words * 64 hit it too: the set cannot name it */
	int first_cpu;		/* -1 when not hit yet */
	__u64 missed;		/* hits the kernel did not let the program see (recursion_misses) */
	__u64 missed_delta;	/* since the previous report */
	/* With --filter on this tracepoint: each as given, and what they kept out. */
	const char *const *filters;
	int nfilters;
	__u64 filtered, filtered_delta;		/* rejected by a filter */
	__u64 filter_errors, filter_errors_delta;	/* a filter's read failed */
	/* With -A: the count (cumulative) and delta of each CPU 0 .. ncpu-1; NULL without. */
	const __u64 *cpu_count;
	const __u64 *cpu_delta;
	int ncpu;
	/* And when CPUs ncpu .. rest_last share slots: their sum (rest_last 0: none). */
	int rest_last;
	__u64 rest_count, rest_delta;
	/* With -r: each run's count; nruns 0 without. */
	const __u64 *runs;
	int nruns;
	/* With --hist on this tracepoint. */
	const struct tpstat_hist_row *hists;
	int nhists;
	/* With --by on this tracepoint. */
	const struct tpstat_by_row *bys;
	int nbys;
	/* The --latency that end at this tracepoint. */
	const struct tpstat_lat_row *lats;
	int nlats;
};

struct tpstat_report {
	double ts;		/* wall clock, seconds since the epoch */
	double elapsed;		/* seconds since counting started */
	double span;		/* seconds covered by the deltas */
	double paused_secs;	/* seconds spent paused so far */
	int interval;		/* 1, 2, ... */
	bool final;
	bool paused;		/* counting is paused now */
	const char *command;	/* what ran, or NULL for system wide */
	const char *target;	/* what counted: "system wide", "its process tree", "PID 42", ... */
	const char *csv;	/* -x SEP: CSV with this separator; NULL for a table */
	bool per_cpu;		/* -A: a row per CPU too */
	bool filters;		/* --filter was given: CSV has its two columns */
	int n;
	const struct tpstat_row *rows;
	int ncpu;		/* possible CPUs */
	/* For the metrics: the targets hash (its fill; -1 when none), and the forks it refused. */
	int targets_fd;
	__u32 targets_max;
	__u64 untracked_forks;
	/* With -r, in the final report: each run's elapsed seconds. */
	const double *run_secs;
	int nruns;
};

/* "0-3,6,8-9"; "-" when empty. Returns the length written. */
int fmt_cpulist(char *buf, size_t len, const __u64 *words, int nwords);
/* 1234567 -> "1,234,567" */
const char *fmt_thousands(char *buf, size_t len, __u64 v);

void fmt_json(FILE *f, const struct tpstat_report *r);
/* "bare": true for a bare tracepoint, false for one with a trace event, null when unknown. */
void fmt_json_kind_field(struct json *j, enum tp_kind kind);
void fmt_interval_header(FILE *f);
void fmt_interval(FILE *f, const struct tpstat_report *r);
void fmt_table(FILE *f, const struct tpstat_report *r);
/* -x SEP: one line per tracepoint (and CPU with -A); the column order is in tpstat(8). */
void fmt_csv(FILE *f, const struct tpstat_report *r);
/* Mean, sample standard deviation and perf stat's noise (stddev of the mean, % of it). */
void fmt_run_stats(const __u64 *runs, int n, double *mean, double *stddev, double *noise_pct);
/* The same for values that are not counts (-r's elapsed times). */
void fmt_run_stats_d(const double *v, int n, double *mean, double *stddev, double *noise_pct);

/* ---- Shared by the formats (tpstat_fmt.c) ---- */
/* Is @cpu in the set @words? */
bool fmt_cpu_in(const __u64 *words, int cpu);
/* @delta per second over @span seconds (0 for no span). */
double fmt_rate(__u64 delta, double span);
/*
 * The CPU list of @row, allocated to fit (a sparse set of thousands of CPUs is longer than
 * any fixed buffer) with @extra bytes of room after its *@len; NULL when out of memory.
 */
char *fmt_row_cpus_alloc(const struct tpstat_row *row, int extra, int *len);
/* The CPU list of @row for the table, with a marker when the set is incomplete. */
char *fmt_row_cpus(const struct tpstat_row *row);
/* "CPU256-8191": the CPUs of -A's last row when they share slots (tpstat_row.rest_last). */
const char *fmt_rest_name(const struct tpstat_row *row, char *buf, size_t len);
/* A --by's keys in the tuple (1 for one key), key @i's kind and signedness. */
int fmt_by_nk(const struct tpstat_by_row *b);
/* A --by with a stack key (kstack, ustack): its stacks are printed, never in metrics. */
bool fmt_by_stack(const struct tpstat_by_row *b);
int fmt_by_kind(const struct tpstat_by_row *b, int i);
bool fmt_by_signed(const struct tpstat_by_row *b, int i);
/* --value's average: the true 128-bit sum over the count. */
double fmt_by_avg(const struct tpstat_by_row *b, const struct tpstat_by_entry *e);

/* ---- The blocks under the table and the intervals (tpstat_fmt_bars.c) ---- */
/* A histogram of tracepoint @tp as bars under its title, "tp:expr". */
void fmt_hist_block(FILE *f, const char *tp, const struct tpstat_hist_row *h);
/* A --latency on its END tracepoint @end_tp: the histogram of ns, where each event went. */
void fmt_lat_block(FILE *f, const char *end_tp, const struct tpstat_lat_row *l);
/* One --by table: a column per key, the count, and with --value its avg, min, max, sum. */
void fmt_by_block(FILE *f, const char *tp, const struct tpstat_by_row *b);

#endif /* __BAREATOM_TPSTAT_FMT_H */
