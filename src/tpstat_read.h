/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tables into a snapshot (tpstat_snap.h): what tpstat's programs have
 * counted, read here and only here, from the mmapped .bss and per-CPU histograms, one
 * bpf_prog_info per program and batch lookups of the hash maps.
 */
#ifndef __BAREATOM_TPSTAT_READ_H
#define __BAREATOM_TPSTAT_READ_H

#include "src/tpstat_snap.h"
#include "src/tpstat_specs.h"
#include "src/tpstat_progs.h"

struct tpstat_bpf;

struct tpstat_reader {
	struct tpstat_bpf *skel;
	const struct tpstat_specs *specs;
	const struct tpstat_progs *progs;	/* the programs and counters, by slot */
	int ncpu;				/* possible CPUs */
	struct tpstat_hist *hist_cpu;		/* --hist's per-CPU copies, mapped */
	struct tpstat_hist *lat_hist_cpu;	/* --latency's per-CPU histograms, mapped */
	struct tpstat_lat_cpu *lat_cpu;		/* cpu,cpu latencies' open STARTs, per CPU */
	struct tpstat_lat_bucket *lat_table;	/* the other latencies' open STARTs */
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

/* A histogram before its first value: min and max at the far ends of its type. */
void tpstat_hist_empty(struct tpstat_hist *h, bool sg);
/*
 * The one read of a kernel histogram: @from's counts added into @to, which began empty
 * (tpstat_hist_empty()). Buckets, errors and the 128-bit sum add up, min and max are the least
 * and greatest; samples is the buckets' sum (the programs keep no separate count of it).
 */
void tpstat_hist_add(struct tpstat_hist *to, const struct tpstat_hist *from, bool sg);

/* tpstat_read_lat.c: map the --latency tables and empty their histograms (0, or 1 said). */
int tpstat_read_lat_open(struct tpstat_reader *rd);
/* Each --latency's histogram, accounting and open STARTs, into @snap. */
void tpstat_read_lat(const struct tpstat_reader *rd, struct tpstat_snap *snap);

#endif /* __BAREATOM_TPSTAT_READ_H */
