/* SPDX-License-Identifier: GPL-2.0 */
/* tpstat's output: perf-stat-like tables and one JSON object per line. */
#ifndef __BAREATOM_TPSTAT_FMT_H
#define __BAREATOM_TPSTAT_FMT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "json.h"
#include "tplist.h"

struct tpstat_row {
	const char *name;
	const char *module;
	enum tp_kind kind;
	__u64 count;		/* since start */
	__u64 delta;		/* since the previous report */
	const __u64 *cpus;	/* bitmap of CPUs that hit it */
	int cpu_words;
	bool cpus_truncated;	/* a CPU >= cpu_words * 64 hit it too: the set cannot name it */
	int first_cpu;		/* -1 when not hit yet */
	__u64 missed;		/* hits the kernel did not let the program see (recursion_misses) */
	__u64 missed_delta;	/* since the previous report */
	/* With -A: the count (cumulative) and delta of each CPU 0 .. ncpu-1; NULL without. */
	const __u64 *cpu_count;
	const __u64 *cpu_delta;
	int ncpu;
	/* With -r: each run's count; nruns 0 without. */
	const __u64 *runs;
	int nruns;
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
	int n;
	const struct tpstat_row *rows;
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

#endif /* __BAREATOM_TPSTAT_FMT_H */
