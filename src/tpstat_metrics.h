/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's metrics (--listen, --textfile): the exposition of what tpstat counts, from the
 * same snapshot its reports read (the mmapped .bss, one bpf_prog_info per program, one
 * batch lookup for the targets map), served from the run loop.
 */
#ifndef __BAREATOM_TPSTAT_METRICS_H
#define __BAREATOM_TPSTAT_METRICS_H

#include <stdbool.h>
#include <linux/types.h>
#include "src/runloop.h"
#include "src/tplist.h"
#include "bpf/tpstat_abi.h"
#include "src/tpstat_fmt.h"

struct tpstat_mtp {
	const struct tp_info *tp;
	const char *prog;		/* the BPF program's name, as bpftool shows it */
	int prog_fd;
	__u64 hits, missed;		/* hits the program counted; hits it could not see */
	int nfilters;			/* --filter on it: then filtered and filter_errors */
	__u64 filtered, filter_errors;
	const __u64 *cpu_hits;		/* with -A: per CPU 0 .. ncpu-1; else NULL */
	int ncpu;			/* CPUs with a count of their own (fmt_cpu_counts) */
	__u64 rest_hits;		/* CPUs ncpu .. the view's ncpu - 1, which share slots */
	const struct tpstat_hist_row *hists;	/* --hist and --lhist, the totals */
	int nhists;
	const struct tpstat_by_row *bys;	/* --by: the top --top keys, the rest in other */
	int nbys;
	const struct tpstat_lat_row *lats;	/* the --latency that end here */
	int nlats;
};

struct tpstat_mview {
	int n, ncpu;			/* tracepoints; possible CPUs */
	struct tpstat_mtp tp[TPSTAT_MAX_TP];
	int targets_fd;			/* the targets hash (map fill), -1 when none */
	__u32 targets_max;
	__u64 untracked_forks;		/* forks that found the targets map full */
};

/*
 * The exposition of @v into @m (between metrics_begin and metrics_end): what a scrape
 * serves, apart from the snapshot so that a host test can give it any view.
 */
struct metrics;
void tpstat_metrics_write(struct metrics *m, const struct tpstat_mview *v);

/* Fill @v with the counts as tpstat would report them now. */
typedef void (*tpstat_snapshot_fn)(void *arg, struct tpstat_mview *v);

/*
 * Open --listen (@listen, or NULL) before anything is loaded, and remember --textfile
 * (@textfile or NULL, rewritten every @period seconds). Returns 0, or 1 with one line on
 * stderr.
 */
int tpstat_metrics_open(const char *listen, const char *textfile, double period,
			tpstat_snapshot_fn snapshot, void *arg);

/* Serve from @rl: watch the listening socket and a timer for the deadlines and the textfile. */
int tpstat_metrics_watch(struct runloop *rl);

/*
 * After the final report: write the textfile one last time, with the final counts, and
 * close. Returns 1 when that write failed (said on stderr), else 0.
 */
int tpstat_metrics_close(struct runloop *rl);

#endif /* __BAREATOM_TPSTAT_METRICS_H */
