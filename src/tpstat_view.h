/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one view model of a snapshot (tpstat_snap.h): the rows of struct tpstat_report
 * (tpstat_fmt.h) that the table, the intervals, CSV, JSON and the metrics all print.
 *
 * Every count is kept as snapshots: shown = raw - excluded, where what was counted while
 * paused is excluded at resume (snapshots at pause and resume), so pausing costs the
 * programs nothing; shown is what a report shows now, prev what the previous one showed
 * (the base of the deltas).
 */
#ifndef __BAREATOM_TPSTAT_VIEW_H
#define __BAREATOM_TPSTAT_VIEW_H

#include <stdbool.h>
#include "src/tpstat_fmt.h"
#include "src/tpstat_opts.h"
#include "src/tpstat_snap.h"
#include "src/tpstat_specs.h"

/* One tracepoint's counts as shown, and what its row points to. */
struct tpstat_tp_view {
	struct tp_counts excluded, at_pause, shown, prev;
	__u64 cpu_count[TPSTAT_NR_SLOTS], cpu_delta[TPSTAT_NR_SLOTS];	/* -A */
	__u64 *runs;			/* -r: each run's count (as many as -r asks, or 1) */
	__u64 run_start;		/* the count when the current run started */
	const char *prog;		/* its program, as bpftool names it (set after load) */
	int prog_fd;
	const char *filter_text[TPSTAT_MAX_FILTER];	/* each --filter as given */
	struct tpstat_hist_row hist_rows[TPSTAT_MAX_HIST];
	struct tpstat_by_row by_rows[TPSTAT_MAX_BY];
	struct tpstat_lat_row lat_rows[TPSTAT_MAX_LAT];
};

/* One --hist's, as shown. */
struct tpstat_hist_view {
	struct tpstat_hist excluded, at_pause, shown, prev;
	struct tpstat_hist delta;	/* one interval's, for its lines */
};

/* One --latency's, as the previous report showed it. */
struct tpstat_lat_view {
	struct tpstat_hist prev, delta;
	struct tpstat_lat_stats prev_st;
};

struct tpstat_view {
	const struct tpstat_specs *specs;
	const struct tpstat_opts *o;
	int ncpu;			/* possible CPUs */
	bool paused;
	struct tpstat_tp_view *tp;	/* by slot, one per spec (tpstat_view_open()) */
	struct tpstat_hist_view hist[TPSTAT_MAX_HIST];
	struct tpstat_lat_view lat[TPSTAT_MAX_LAT];
	double run_secs[MAX_REPEAT];	/* -r: each run's elapsed time */
	int nruns;
	struct tpstat_row *rows;	/* one per spec */
	__u64 *run_counts;		/* -r: the tracepoints' runs[], in one block */
};

/* Room for @v's specs: 0, or 1 after one line on stderr. tpstat_view_close() frees it. */
int tpstat_view_open(struct tpstat_view *v);
void tpstat_view_close(struct tpstat_view *v);

/* What the user sees now of @snap, as read: counted minus what was counted while paused. */
void tpstat_view_update(struct tpstat_view *v, const struct tpstat_snap *snap);

/*
 * SIGUSR1: whether counting can pause (a --by or --latency table cannot leave out what was
 * counted while paused: said on stderr), then pause or resume at @snap, read just now.
 */
bool tpstat_view_pausable(const struct tpstat_view *v);
void tpstat_view_toggle(struct tpstat_view *v, const struct tpstat_snap *snap);

/*
 * @r's rows (and n, per_cpu, filters, ncpu; with r->final the runs) from what is shown
 * and @snap's tables (whose --by entries it sorts in place): the histograms' totals, or
 * with @interval the deltas since the previous report (min and max stay totals).
 */
void tpstat_view_rows(struct tpstat_view *v, struct tpstat_snap *snap, bool interval,
		      struct tpstat_report *r);

/* The base of the next report's deltas: what this one showed, or zero for a final total. */
void tpstat_view_set_prev(struct tpstat_view *v, const struct tpstat_snap *snap, bool zero);

/* -r: a run of CMD ended after @secs (its count is the shown one's since its start). */
void tpstat_view_end_run(struct tpstat_view *v, double secs);

#endif /* __BAREATOM_TPSTAT_VIEW_H */
