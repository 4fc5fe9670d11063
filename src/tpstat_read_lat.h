/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --latency's tables into a snapshot (tpstat_snap.h): its per-CPU histograms summed, its
 * accounting, and the STARTs still open counted in their homes (bpf/tpstat_latency.h).
 */
#ifndef __BAREATOM_TPSTAT_READ_LAT_H
#define __BAREATOM_TPSTAT_READ_LAT_H

#include "src/tpstat_reader.h"

/* Map the --latency tables and empty their histograms (0, or 1 said). */
int tpstat_read_lat_open(struct tpstat_reader *rd);
/* Each --latency's histogram, accounting and open STARTs, into @snap. */
void tpstat_read_lat(const struct tpstat_reader *rd, struct tpstat_snap *snap);

#endif /* __BAREATOM_TPSTAT_READ_LAT_H */
