/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's options as parsed and checked: filled once by tpstat_parse_args() (tpstat_cli.c),
 * then read-only; the counting (tpstat.c), the names (tpstat_names.c) and the targets
 * (tpstat_target.c) are given a const pointer.
 */
#ifndef __BAREATOM_TPSTAT_OPTS_H
#define __BAREATOM_TPSTAT_OPTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"
#include "src/tplist.h"

/* The most intervals -c takes: interval numbers are ints, the final line is one more. */
#define MAX_COUNT 1000000000L

#define MAX_TARGETS 256	/* PIDs or TIDs on the command line */
#define MAX_REPEAT 10000

/* --hist TP:EXPR and --lhist TP:EXPR:MIN:MAX:STEP */
struct tpstat_hist_opt {
	char tp[TP_NAME_LEN];
	const char *expr;
	int idx;	/* the tracepoint's index in names */
	bool linear;	/* --lhist: MIN, MAX and STEP */
	long long lmin, lmax, lstep;
};

/* --by TP:KEY[,KEY...] [--value EXPR] */
struct tpstat_by_opt {
	char tp[TP_NAME_LEN];
	const char *key;	/* the keys as given: "cpu", "cpu,comm" */
	int kind;		/* enum tpstat_key_kind of the first key */
	int idx;
	int nkeys;
	const char *keys[TPSTAT_BY_KEYS];	/* each: cpu, comm, pid, cgroup or an EXPR */
	int kinds[TPSTAT_BY_KEYS];
	const char *value;	/* --value EXPR, or NULL */
};

/* --filter TP:'EXPR OP VALUE' */
struct tpstat_filter_opt {
	char tp[TP_NAME_LEN];
	const char *text;	/* EXPR OP VALUE, split and checked against BTF later */
	int idx;
};

/* --latency 'START:KEY,END:KEY': side 0 is START, side 1 END. */
struct tpstat_lat_opt {
	const char *text;	/* as given */
	char tp[2][TP_NAME_LEN];
	const char *key[2];	/* cpu, pid, cgroup or an EXPR */
	int kind[2];		/* enum tpfilter_key */
	int idx[2];		/* each tracepoint's index in names */
	bool linear;		/* :MIN:MAX:STEP after END's KEY: linear buckets of ns */
	long long lmin, lmax, lstep;
};

struct tpstat_opts {
	bool list;
	bool json;
	bool verbose;
	bool pin;
	bool system_wide;	/* -a */
	bool per_cpu;		/* -A */
	bool summary;		/* --summary */
	bool tids;		/* the targets are threads (-t), not processes (-p) */
	double interval;
	double duration;
	long count;
	long repeat;		/* -r N: 0 when not given */
	const char *csv;	/* -x SEP */
	const char *cgroup;	/* -G */
	int ntargets;
	int targets[MAX_TARGETS];
	char **command;
	char *names[TPSTAT_MAX_TP + 1];
	int n;
	const char *glob;
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
	const char *output;	/* -o FILE: the report goes there, not to stdout or stderr */
	bool append;		/* --append: -o FILE is appended to, not truncated */
	bool bare_only;		/* -l --bare: only the bare tracepoints */
	const char *cpu_list;	/* -C CPU,..: as given, for the report */
	__u64 cpu_set[TPSTAT_CPU_WORDS];	/* -C: the CPUs counted; unused without -C */
	int nhist;
	struct tpstat_hist_opt hist[TPSTAT_MAX_HIST];
	int nby;
	struct tpstat_by_opt by[TPSTAT_MAX_BY];
	long top;		/* --top N: the entries shown per --by */
	int nfilter;
	struct tpstat_filter_opt filter[TPSTAT_MAX_FILTER];
	int nlat;
	struct tpstat_lat_opt lat[TPSTAT_MAX_LAT];
};

#endif /* __BAREATOM_TPSTAT_OPTS_H */
