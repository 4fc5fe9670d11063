// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat: exact counts of raw and bare tracepoints.
 *
 * Raw tracepoint programs do not know which tracepoint they are attached to
 * (no attach cookie for raw_tp in 6.1), so there is one program per counted
 * tracepoint, each with its index built in; user space loads only the ones
 * it needs and attaches program i to the i-th tracepoint named.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "atomics.h"
#include "tpstat.h"

struct tpstat_slot slots[TPSTAT_SLOTS];
struct tpstat_tp tps[TPSTAT_MAX_TP];
/* Set by user space (SIGUSR1): events are not counted while non-zero. */
__u32 paused;

static __always_inline int count_tp(const int idx)
{
	struct tpstat_tp *tp = &tps[idx];
	__u32 cpu, word;
	__u64 bit, old;

	if (*(volatile __u32 *)&paused)
		return 0;
	cpu = bpf_get_smp_processor_id();
	/*
	 * The fetch-add's old value says whether this is the slot's first event: only then
	 * is the CPU added to the set and the first CPU claimed, so the common path is one
	 * atomic and one branch.
	 */
	old = atomic_fetch_add(&slots[cpu & (TPSTAT_SLOTS - 1)].count[idx], 1);
	if (old && cpu < TPSTAT_SLOTS)
		return 0;

	/* CPUs past TPSTAT_SLOTS share slots: they check the set themselves. */
	word = (cpu / 64) & (TPSTAT_CPU_WORDS - 1);
	bit = 1ULL << (cpu & 63);
	if (*(volatile __u64 *)&tp->cpus[word] & bit)
		return 0;
	old = atomic_fetch_or(&tp->cpus[word], bit);
	if (!(old & bit))
		atomic_add(&tp->ncpus, 1);
	if (!*(volatile __u64 *)&tp->first_cpu &&
	    atomic_set_once(&tp->first_cpu, (__u64)cpu + 1))
		tp->first_ns = bpf_ktime_get_ns();
	return 0;
}

#define TPSTAT_PROG(i)				\
SEC("raw_tp")					\
int tpstat_##i(void *ctx)			\
{						\
	return count_tp(i);			\
}

TPSTAT_PROG(0)  TPSTAT_PROG(1)  TPSTAT_PROG(2)  TPSTAT_PROG(3)
TPSTAT_PROG(4)  TPSTAT_PROG(5)  TPSTAT_PROG(6)  TPSTAT_PROG(7)
TPSTAT_PROG(8)  TPSTAT_PROG(9)  TPSTAT_PROG(10) TPSTAT_PROG(11)
TPSTAT_PROG(12) TPSTAT_PROG(13) TPSTAT_PROG(14) TPSTAT_PROG(15)
TPSTAT_PROG(16) TPSTAT_PROG(17) TPSTAT_PROG(18) TPSTAT_PROG(19)
TPSTAT_PROG(20) TPSTAT_PROG(21) TPSTAT_PROG(22) TPSTAT_PROG(23)
TPSTAT_PROG(24) TPSTAT_PROG(25) TPSTAT_PROG(26) TPSTAT_PROG(27)
TPSTAT_PROG(28) TPSTAT_PROG(29) TPSTAT_PROG(30) TPSTAT_PROG(31)

char LICENSE[] SEC("license") = "GPL";
