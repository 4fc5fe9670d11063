/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eht-hosts' snapshots of the host table: the rows (sorted by key), the counters, and the
 * difference between two snapshots, reported through a callback. Nothing here prints.
 */
#ifndef __BAREATOM_EHT_SNAP_H
#define __BAREATOM_EHT_SNAP_H

#include <stdbool.h>
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
 * The changes from one snapshot to the next (both sorted), in key order, pulled one at a
 * time: a host whose cookie changed (dropped and created again) is gone, then new.
 *
 *	struct eht_diff d;
 *	struct eht_change_at c;
 *
 *	eht_diff_init(&d, old, cur);
 *	while (eht_diff_next(&d, &c))
 *		...c.what of row c.r in snapshot c.s...
 */
struct eht_diff {
	const struct eht_snap *old, *cur;
	size_t i, j;
	bool new_next;		/* the "new" half of a host whose cookie changed is next */
};

struct eht_change_at {
	enum eht_change what;
	const struct eht_snap *s;	/* the snapshot the row belongs to */
	const struct eht_row *r;
};

void eht_diff_init(struct eht_diff *d, const struct eht_snap *old, const struct eht_snap *cur);
/* The next change: true with *c, false when none is left. */
bool eht_diff_next(struct eht_diff *d, struct eht_change_at *c);

/*
 * How much changed: the number of row changes (a host whose cookie changed counts once),
 * plus one when any counter moved. 0: nothing did.
 */
int eht_snap_diff(const struct eht_snap *old, const struct eht_snap *cur);

#endif /* __BAREATOM_EHT_SNAP_H */
