/* SPDX-License-Identifier: GPL-2.0 */
/* tpstat's output: perf-stat-like tables and one JSON object per line. */
#ifndef __BAREATOM_TPSTAT_FMT_H
#define __BAREATOM_TPSTAT_FMT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
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
	int n;
	const struct tpstat_row *rows;
};

/* "0-3,6,8-9"; "-" when empty. Returns the length written. */
int fmt_cpulist(char *buf, size_t len, const __u64 *words, int nwords);
/* 1234567 -> "1,234,567" */
const char *fmt_thousands(char *buf, size_t len, __u64 v);

void fmt_json(FILE *f, const struct tpstat_report *r);
void fmt_interval_header(FILE *f);
void fmt_interval(FILE *f, const struct tpstat_report *r);
void fmt_table(FILE *f, const struct tpstat_report *r);

#endif /* __BAREATOM_TPSTAT_FMT_H */
