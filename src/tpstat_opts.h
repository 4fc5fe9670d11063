/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's options as parsed and checked: filled once by tpstat_parse_args() (tpstat_cli.c),
 * then read-only; the counting (tpstat.c), the list (tpstat_names.c) and the targets
 * (tpstat_target.c) are given a const pointer. What each tracepoint counts is its spec
 * (tpstat_specs.h).
 */
#ifndef __BAREATOM_TPSTAT_OPTS_H
#define __BAREATOM_TPSTAT_OPTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"

/* The most intervals -c takes: interval numbers are ints, the final line is one more. */
#define MAX_COUNT 1000000000L

#define MAX_TARGETS 256	/* PIDs or TIDs on the command line */
#define MAX_REPEAT 10000

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
	const char *glob;
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
	const char *output;	/* -o FILE: the report goes there, not to stdout or stderr */
	bool append;		/* --append: -o FILE is appended to, not truncated */
	bool bare_only;		/* -l --bare: only the bare tracepoints */
	const char *cpu_list;	/* -C CPU,..: as given, for the report */
	__u64 cpu_set[TPSTAT_CPU_WORDS];	/* -C: the CPUs counted; unused without -C */
	long top;		/* --top N: the entries shown per --by */
	const char *folded;	/* --folded FILE: the stacks of a stack --by, folded */
	const char *flamegraph;	/* --flamegraph FILE: the same as a flame graph page */
};

#endif /* __BAREATOM_TPSTAT_OPTS_H */
