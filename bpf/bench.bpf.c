// SPDX-License-Identifier: GPL-2.0
/*
 * The counting methods a user could pick, side by side, for `make bench`. Each program
 * counts tpgen_a events its own way; tpstat's own program is benchmarked from tpstat.bpf.o.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/atomics.h"
#include "bpf/bench_abi.h"

__u64 global_count;		/* one shared atomic counter */
__u64 plain_count;		/* one shared counter, no atomic: loses updates */
struct bench_slot slots[BENCH_SLOTS];	/* per-CPU cache lines in .bss */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} percpu SEC(".maps");

/* What a map-keyed count() costs: a hash lookup per event, then an atomic add. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} hash SEC(".maps");

SEC("raw_tp/tpgen_a")
int bench_empty(void *ctx)
{
	return 0;
}

SEC("raw_tp/tpgen_a")
int bench_global(void *ctx)
{
	atomic_add(&global_count, 1);
	return 0;
}

SEC("raw_tp/tpgen_a")
int bench_plain(void *ctx)
{
	plain_count++;
	return 0;
}

SEC("raw_tp/tpgen_a")
int bench_slots(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();

	atomic_add(&slots[cpu & (BENCH_SLOTS - 1)].count, 1);
	return 0;
}

SEC("raw_tp/tpgen_a")
int bench_percpu(void *ctx)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&percpu, &zero);

	if (v)
		atomic_add(v, 1);	/* atomic even per CPU: raw_tp programs nest */
	return 0;
}

SEC("raw_tp/tpgen_a")
int bench_hash(void *ctx)
{
	__u64 key = 1;
	__u64 *v = bpf_map_lookup_elem(&hash, &key);

	if (v)
		atomic_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
