/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot of the kernel's tables: what tpstat's programs had counted when
 * tpstat_read.c read them, which tpstat_view.c shows. Types only, so that the reads and
 * the view do not know each other. Indexed as the BPF object is: by the specs' slots and
 * the items' places (tpstat_specs.h).
 */
#ifndef __BAREATOM_TPSTAT_SNAP_H
#define __BAREATOM_TPSTAT_SNAP_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"
#include "src/tpstat_fmt.h"

/* What the kernel counted for one tracepoint: its per-CPU slots and its program's misses. */
struct tp_counts {
	__u64 slot[TPSTAT_NR_SLOTS];
	__u64 missed;
	__u64 filtered, filter_errors;	/* --filter: rejected, and reads that failed */
};

/* One tracepoint's counts and the CPUs that hit it. */
struct tpstat_tp_read {
	struct tp_counts c;
	__u64 cpus[TPSTAT_CPU_WORDS];	/* the set of CPUs that hit it */
	bool cpus_beyond;		/* a CPU the set cannot name hit it too */
	int first_cpu;			/* -1 when not hit yet */
};

/* One --by table: its entries (unsorted) and what found no slot. */
struct tpstat_by_read {
	struct tpstat_by_entry *entries;	/* TPSTAT_BY_ENTRIES of room */
	int n;
	__u64 dropped, errors, minmax_lost;
	const struct tpstat_stack_row *stacks;	/* a stack --by's (tpstat_stacks_final()) */
};

/* One --latency: its histogram of ns, its accounting and its open STARTs. */
struct tpstat_lat_read {
	struct tpstat_hist hist;
	struct tpstat_lat_stats st;
	__u64 open;
};

struct tpstat_snap {
	struct tpstat_tp_read *tp;	/* by slot, one per spec (tpstat_read_open()) */
	struct tpstat_hist hist[TPSTAT_MAX_HIST];	/* by the specs' hist[] */
	struct tpstat_by_read by[TPSTAT_MAX_BY];	/* read by tpstat_read_keys() only */
	struct tpstat_lat_read lat[TPSTAT_MAX_LAT];
};

#endif /* __BAREATOM_TPSTAT_SNAP_H */
