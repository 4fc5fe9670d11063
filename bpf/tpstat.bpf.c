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

#define TPSTAT_NOW() bpf_ktime_get_ns()
#include "tpstat_count.h"

struct tpstat_slot slots[TPSTAT_NR_SLOTS];
struct tpstat_tp tps[TPSTAT_MAX_TP];
/* Set by user space (SIGUSR1): events are not counted while non-zero. */
__u32 paused;

static __always_inline int count_tp(const int idx)
{
	if (*(volatile __u32 *)&paused)
		return 0;
	tpstat_count(slots, &tps[idx], idx, bpf_get_smp_processor_id());
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
