/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eht-hosts' snapshots of the host table: the rows (sorted by key), the counters, and the
 * difference between two snapshots, reported through a callback. Nothing here prints.
 */
#ifndef __BAREATOM_EHT_SNAP_H
#define __BAREATOM_EHT_SNAP_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/eht_abi.h"

/* The tracepoints, in the order of enum eht_event; their pins are prog_NAME and link_NAME. */
extern const char *const eht_tp_names[EHT_EV_NR];

struct eht_row {
	struct eht_key k;
	struct eht_host v;
};

struct eht_snap {
	struct eht_row *rows;
	size_t n, cap;
	__u64 events[EHT_EV_NR];
	__u64 adopted, lost;
	double ts;		/* CLOCK_REALTIME seconds */
	__u64 mono_ns;		/* CLOCK_MONOTONIC nanoseconds, the clock of the rows' times */
};

/* Where a snapshot comes from: our own maps, or the pins of a running eht-hosts. */
struct eht_source {
	int hosts_fd;
	const struct eht_stats *stats;	/* our own .bss's counters, memory-mapped; or NULL, */
	int counters_fd;		/* then the pinned .bss, */
	size_t stats_off;		/* with the counters at this offset in its value */
};

/* Copy the table and the counters into @s (its rows reused). Returns 0 or a negative errno. */
int eht_snap_take(const struct eht_source *src, struct eht_snap *s);

/* Room for @need more rows. Returns 0 or -ENOMEM. */
int eht_snap_reserve(struct eht_snap *s, size_t need);

/* Sort the rows by key (eht_snap_take does; for snapshots built by hand). */
void eht_snap_sort(struct eht_snap *s);

void eht_snap_free(struct eht_snap *s);

enum eht_change { EHT_NEW, EHT_GONE, EHT_CHANGED };

/* "new", "gone" or "change": how a change is named in output. */
const char *eht_change_name(enum eht_change what);

/*
 * Compare two snapshots (both sorted): call @cb (when not NULL) for each change, in key
 * order, with the snapshot the row belongs to. A host whose cookie changed (dropped and
 * created again) is gone, then new. Returns the number of changes, plus one when any
 * counter moved.
 */
typedef void (*eht_change_fn)(void *ctx, enum eht_change what, const struct eht_snap *s,
			      const struct eht_row *r);
int eht_snap_diff(const struct eht_snap *old, const struct eht_snap *cur, eht_change_fn cb,
		  void *ctx);

#endif /* __BAREATOM_EHT_SNAP_H */
