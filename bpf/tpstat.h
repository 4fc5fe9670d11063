/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by tpstat.bpf.c and src/tpstat.c: the layout of the counters in .bss. */
#ifndef __BAREATOM_TPSTAT_H
#define __BAREATOM_TPSTAT_H

/* One BPF program per counted tracepoint, tpstat_0 ... tpstat_31. */
#define TPSTAT_MAX_TP		32
/* Count slots, one per CPU below TPSTAT_SLOTS. */
#define TPSTAT_SLOTS		256
/* Slots shared by the CPUs above (still exact: the adds are atomic). */
#define TPSTAT_SHARED_SLOTS	64
#define TPSTAT_NR_SLOTS		(TPSTAT_SLOTS + TPSTAT_SHARED_SLOTS)
/*
 * CPUs the hit set can name: 8192 is the largest NR_CPUS of x86_64 (MAXSMP), so every
 * CPU such a kernel can report. A CPU beyond sets cpus_beyond instead of a bit.
 */
#define TPSTAT_MAX_CPUS		8192
#define TPSTAT_CPU_WORDS	(TPSTAT_MAX_CPUS / 64)
/* Processes (or threads) a filter can follow at once: -p, -t, and CMD's tree. */
#define TPSTAT_MAX_TASKS	16384

/* What counts (the targets of perf stat): set in .rodata before load. */
enum tpstat_filter {
	TPSTAT_FILTER_NONE,	/* system wide */
	TPSTAT_FILTER_TGID,	/* the processes in targets (-p, -- CMD with its forks) */
	TPSTAT_FILTER_TID,	/* the threads in targets (-t) */
	TPSTAT_FILTER_CGROUP,	/* tasks in target_cgroup's subtree (-G) */
};

/*
 * Each CPU adds to its own slot, so counting scales with CPUs instead of
 * bouncing one cache line; user space folds the slots. The adds stay atomic
 * because raw tracepoint programs nest on a CPU (an interrupt can fire a
 * tracepoint while the program runs), and CPUs >= TPSTAT_SLOTS share the
 * last TPSTAT_SHARED_SLOTS slots.
 */
struct tpstat_slot {
	__u64 count[TPSTAT_MAX_TP];
} __attribute__((aligned(64)));

/* Per tracepoint, written rarely: only the first time a CPU sees it. */
struct tpstat_tp {
	__u64 cpus[TPSTAT_CPU_WORDS];	/* set of CPUs that hit it (fetch-or) */
	__u64 ncpus;			/* bits in cpus, from fetch-or's old value */
	__u64 first_cpu;		/* first CPU to hit it, plus one (cmpxchg) */
	__u64 first_ns;			/* bpf_ktime_get_ns() of that first hit */
	__u64 cpus_beyond;		/* 1: a CPU >= TPSTAT_MAX_CPUS hit it too */
} __attribute__((aligned(64)));

#endif /* __BAREATOM_TPSTAT_H */
