/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpbench's parts (tests/bench/tpbench.c: the options, the helpers and the counting
 * benchmark; tpbench_cookies.c: the kernel-side and user-space cookie benchmarks).
 */
#ifndef __BAREATOM_TPBENCH_H
#define __BAREATOM_TPBENCH_H

#include <stdbool.h>
#include <linux/types.h>

#define FIRE "/sys/kernel/debug/tpgen/fire"
#define STATS "/sys/kernel/debug/tpgen/stats"

struct bpf_program;

/* The options: -n (events and ops), -r, -c, -m. */
extern long events, rounds, ops;
extern int cpu_list[8], ncpu_list;
extern int possible_cpus;
extern const char *methods;

/* Now, in nanoseconds (CLOCK_MONOTONIC). */
double now(void);
/* "tpbench: WHAT: strerror(errno)" and exit 1. */
void die(const char *what);
/* tpgen's count of what it fired of tracepoint @name. */
__u64 tpgen_fired(const char *name);
/* Fire @name @n times on every online CPU; the nanoseconds the write took. */
double fire(const char *name, long n);
/* Take CPUs beyond @want offline (all back online with @want = possible_cpus). */
void set_online(int want);
/* One "proginfo" line: @prog's xlated instructions and jited bytes, for @bench's @method. */
void prog_info(const char *bench, const char *method, struct bpf_program *prog);
/* @prog's run time and run count so far (bpf_stats). */
void run_stats(struct bpf_program *prog, __u64 *time_ns, __u64 *cnt);

int bench_ckern(void);
int bench_cuser(void);

#endif /* __BAREATOM_TPBENCH_H */
