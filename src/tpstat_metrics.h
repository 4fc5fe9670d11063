/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's metrics (--listen, --textfile): the exposition of what tpstat counts, from the
 * same view its reports print (tpstat_view.h), with BPF run time from bpf_prog_info and
 * the fill of the targets map in batch lookups. tpstat.c serves it (metrics_export.h).
 */
#ifndef __BAREATOM_TPSTAT_METRICS_H
#define __BAREATOM_TPSTAT_METRICS_H

#include <stdbool.h>
#include <linux/types.h>
#include "src/tplist.h"
#include "bpf/tpstat_abi.h"
#include "src/tpstat_fmt.h"

/*
 * The exposition of report @r (its rows as tpstat_view.c builds them, totals) into @m
 * (between metrics_begin and metrics_end): what a scrape serves, apart from the reads so
 * that a host test can give it any rows.
 */
struct metrics;
void tpstat_metrics_write(struct metrics *m, const struct tpstat_report *r);

#endif /* __BAREATOM_TPSTAT_METRICS_H */
