/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs that count tpstat's tracepoints, any number of them, and the counters they
 * share: one copy of the program per tracepoint with its index patched in, on every kernel
 * (so that the kernel counts each tracepoint's recursion misses apart).
 * The counters are maps sized at load for the number of tracepoints, read through mmap.
 */
#ifndef __BAREATOM_TPSTAT_PROGS_H
#define __BAREATOM_TPSTAT_PROGS_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"

struct tpstat_bpf;

/* The program counting one tracepoint, and its link. */
struct tpstat_prog {
	int fd;			/* its program */
	int link;		/* the raw_tp link once attached, or -1 */
	bool hist;		/* tpstat_hist_*: it reads fields (--hist, --by, --filter, --latency) */
	char name[16];		/* the program's name: tpstat_IDX or tpstat_hist_IDX (cut at 15) */
};

struct tpstat_progs {
	struct tpstat_bpf *skel;
	int n;				/* tracepoints */
	__u32 stride;			/* n rounded up to TPSTAT_LINE */
	int planes;			/* 1, or 3 with --filter (tpstat.h) */
	struct tpstat_prog *p;		/* n */
	__u64 *counts;			/* the counts map, mapped */
	struct tpstat_tp *tps;		/* the tp_cpus map, mapped: n */
	size_t counts_len, tps_len;
	int folded;			/* .rodata loads made immediates (bpf_fold.h), for -v */
};

/* Before tpstat_bpf__open(): take over the loading of SEC("raw_tp") programs (see .c). */
int tpstat_progs_register(void);

/*
 * After open, before load: @n tracepoints, @hist[i] whether tracepoint i needs the program
 * that reads fields, @filters whether any has a --filter. Sizes the maps, sets ntp and
 * stride in .rodata.
 * Returns 0, or 1 after one line on stderr.
 */
int tpstat_progs_setup(struct tpstat_progs *ps, struct tpstat_bpf *skel, int n, const bool *hist,
		       bool filters);

/*
 * After tpstat_bpf__load(): the copies loaded and the counters mapped. Returns 0, or
 * the exit status after one line on stderr naming the limit that was reached.
 */
int tpstat_progs_load(struct tpstat_progs *ps);

/* Attach tracepoint @i's program to raw tracepoint @name: 0, or a negative errno. */
int tpstat_progs_attach(struct tpstat_progs *ps, int i, const char *name);

/* Detach every tracepoint (links closed); the programs stay. */
void tpstat_progs_detach(struct tpstat_progs *ps);

/* The recursion misses of tracepoint @i's program (its own copy: its events only). */
__u64 tpstat_progs_missed(const struct tpstat_progs *ps, int i);

/* Tracepoint @i's counter in @slot of @plane (TPSTAT_PLANE_*), read once. */
static inline __u64 tpstat_progs_count(const struct tpstat_progs *ps, int plane, int slot, int i)
{
	return __atomic_load_n(&ps->counts[((size_t)plane * TPSTAT_NR_SLOTS + slot) * ps->stride + i],
			       __ATOMIC_RELAXED);
}

/* Everything closed and unmapped (links first); safe after a failed setup or load. */
void tpstat_progs_close(struct tpstat_progs *ps);

#endif /* __BAREATOM_TPSTAT_PROGS_H */
