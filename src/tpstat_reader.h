/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tpstat's readers of the kernel's tables share: the loaded object, the specs, and
 * the tables they mapped (tpstat_read.c for the counts, --hist and --by, tpstat_read_lat.c
 * for --latency's).
 */
#ifndef __BAREATOM_TPSTAT_READER_H
#define __BAREATOM_TPSTAT_READER_H

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

#endif /* __BAREATOM_TPSTAT_READER_H */
