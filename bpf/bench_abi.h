/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by bench.bpf.c and tests/bench/tpbench.c. */
#ifndef __BAREATOM_BENCH_ABI_H
#define __BAREATOM_BENCH_ABI_H

#define BENCH_SLOTS 256

/* One counter per CPU, each on its own cache line. */
struct bench_slot {
	__u64 count;
} __attribute__((aligned(64)));

#endif /* __BAREATOM_BENCH_ABI_H */
