/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tables into a snapshot: what tpstat's programs have counted, read here and
 * only here, from the mmapped .bss and per-CPU histograms, one bpf_prog_info per program
 * and batch lookups of the hash maps. A snapshot is indexed as the BPF object is: by the
 * specs' slots and the items' places (tpstat_specs.h).
 */
#ifndef __BAREATOM_TPSTAT_READ_H
#define __BAREATOM_TPSTAT_READ_H

#include <stdbool.h>
#include <linux/types.h>
#include "tpstat.h"
#include "tpstat_fmt.h"
#include "tpstat_specs.h"

struct tpstat_bpf;
struct bpf_program;

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
};

/* One --latency: its histogram of ns, its accounting and its open STARTs. */
struct tpstat_lat_read {
	struct tpstat_hist hist;
	struct tpstat_lat_stats st;
	__u64 open;
};

struct tpstat_snap {
	struct tpstat_tp_read tp[TPSTAT_MAX_TP];	/* by slot */
	struct tpstat_hist hist[TPSTAT_MAX_HIST];	/* by the specs' hist[] */
	struct tpstat_by_read by[TPSTAT_MAX_BY];	/* read by tpstat_read_keys() only */
	struct tpstat_lat_read lat[TPSTAT_MAX_LAT];
};

struct tpstat_reader {
	struct tpstat_bpf *skel;
	const struct tpstat_specs *specs;
	struct bpf_program *const *progs;	/* each spec's program, by slot */
	int ncpu;				/* possible CPUs */
	struct tpstat_hist *hist_cpu;		/* --hist's per-CPU copies, mapped */
};

/*
 * After load, before attach: map the per-CPU histograms and start every histogram's min
 * and max at the far ends of its type; room for the --by entries in @snap. Returns 0, or 1
 * after one line on stderr.
 */
int tpstat_read_open(struct tpstat_reader *rd, struct tpstat_snap *snap);
void tpstat_read_close(struct tpstat_reader *rd, struct tpstat_snap *snap);

/* The counts, the CPU sets, the histograms and the latencies, into @snap. */
void tpstat_read_counts(const struct tpstat_reader *rd, struct tpstat_snap *snap);

/*
 * The --by tables into @snap, after tpstat_read_counts(): TP:cpu below TPSTAT_SLOTS from
 * the counts' slots, the rest from the table, which holds only the CPUs above.
 */
void tpstat_read_keys(const struct tpstat_reader *rd, struct tpstat_snap *snap);

#endif /* __BAREATOM_TPSTAT_READ_H */
