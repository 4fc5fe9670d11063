// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest exact counter: one global u64 in .bss, advanced with an atomic
 * add from a raw tracepoint program on tpgen's bare tracepoint tpgen_a.
 *
 * count_plain is the same counter without the atomic, attached beside it to
 * show what goes wrong: with the tracepoint firing on several CPUs at once,
 * concurrent load/add/store sequences overwrite each other's increments.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/atomics.h"
#include "bpf/tpgen_ctx.h"

__u64 hits;		/* atomic */
__u64 hits_plain;	/* deliberately not atomic */
__u64 last_fire_id;	/* from the tracepoint argument, read with CO-RE */

SEC("raw_tp/tpgen_a")
int BPF_PROG(count_atomic, __u64 seq, struct tpgen_ctx *tc)
{
	atomic_add(&hits, 1);
	last_fire_id = BPF_CORE_READ(tc, fire_id);
	return 0;
}

SEC("raw_tp/tpgen_a")
int BPF_PROG(count_plain, __u64 seq, struct tpgen_ctx *tc)
{
	hits_plain++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
