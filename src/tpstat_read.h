/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tables into a snapshot (tpstat_snap.h): what tpstat's programs have
 * counted, read here and only here, from the mmapped .bss and per-CPU histograms, one
 * bpf_prog_info per program and batch lookups of the hash maps.
 */
#ifndef __BAREATOM_TPSTAT_READ_H
#define __BAREATOM_TPSTAT_READ_H

#include "src/tpstat_reader.h"

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
