/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eht-hosts' metrics (--listen, --textfile): hosts per port and group, events per kind, and
 * the hosts adopted or lost, from a snapshot of the host table (batch lookups) and the
 * mmapped counters.
 */
#ifndef __BAREATOM_EHT_METRICS_H
#define __BAREATOM_EHT_METRICS_H

#include "src/eht_snap.h"
#include "src/runloop.h"

/* Before anything is loaded: open --listen, remember --textfile. Returns 0, or 1 (said). */
int eht_metrics_open(const char *listen, const char *textfile, double period);
/* Serve @src from @rl. */
int eht_metrics_watch(struct runloop *rl, const struct eht_source *src);
/* After the final read: the textfile's last write; 1 when it failed. */
int eht_metrics_close(struct runloop *rl);

#endif /* __BAREATOM_EHT_METRICS_H */
