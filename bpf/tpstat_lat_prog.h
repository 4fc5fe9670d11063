/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --latency in tpstat's programs (included once, by tpstat.bpf.c, after read_field() and
 * the histograms): the homes of the open STARTs and the per-CPU histograms, and the step
 * each tracepoint runs. The START and END steps themselves are bpf/tpstat_latency.h's,
 * which the host test also runs.
 */
#ifndef __BAREATOM_TPSTAT_LAT_PROG_H
#define __BAREATOM_TPSTAT_LAT_PROG_H

/* Set before load: --latency (its maps are sized to 1 entry where there is none). */
const volatile __u32 nlat = 0;
const volatile struct tpstat_lat_spec lat_spec[TPSTAT_MAX_LAT] = {};

/* The open STARTs of cpu,cpu latencies: entry cpu, one per possible CPU (tpstat_latency.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_lat_cpu);
} lat_cpu SEC(".maps");
/* The open STARTs of the others: entry l * TPSTAT_LAT_BUCKETS + bucket. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_lat_bucket);
} lat_table SEC(".maps");
/*
 * The latencies' histograms, entry cpu * nlat + l, one per possible CPU as hist_cpu's (min
 * and max set up by user space, which sums them); lat_hist[] takes a CPU beyond, shared.
 * Only latency l's END program on that CPU writes entry cpu * nlat + l, and it does not
 * nest on a CPU: its updates meet no other writer there, so they are plain where the
 * kernel has that guard (TPSTAT_PLAIN, tpstat_update.h); lat_hist[] stays atomic.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_hist);
} lat_hist_cpu SEC(".maps");
struct tpstat_hist lat_hist[TPSTAT_MAX_LAT];
/* Their accounting, shared by every CPU (atomic; touched only off the common path). */
struct tpstat_lat_stats lat_stats[TPSTAT_MAX_LAT];
#include "bpf/tpstat_latency.h"

/* The key of one side of a --latency: true and the key in *@k, or false when a read failed. */
static __always_inline bool lat_key(const volatile struct tpstat_lat_side *side, const __u64 *args,
				    __u32 cpu, __u64 *k)
{
	switch (side->key) {
	case TPFILTER_KEY_CPU:
		*k = cpu;
		return true;
	case TPFILTER_KEY_PID:
		*k = bpf_get_current_pid_tgid() >> 32;
		return true;
	case TPFILTER_KEY_CGROUP:
		*k = bpf_get_current_cgroup_id();
		return true;
	default:
		return read_field(&side->field, args, k);
	}
}

/* Latency @l's bucket of @key in lat_table. */
static __always_inline struct tpstat_lat_bucket *lat_bucket(__u32 l, __u64 key)
{
	__u32 i = l * TPSTAT_LAT_BUCKETS + tpstat_lat_bucket_of(key);

	return bpf_map_lookup_elem(&lat_table, &i);
}

/* A matched END of latency @l on @cpu: @delta into its histogram (this CPU's copy, or shared). */
static __always_inline void lat_record(__u32 l, const volatile struct tpstat_lat_spec *sp,
				       __u32 cpu, __u64 delta)
{
	__u32 hk = cpu * nlat + l;
	struct tpstat_hist *h = bpf_map_lookup_elem(&lat_hist_cpu, &hk);

	/* Two calls, each compiled with its own constant (tpstat_hist_value()). */
	if (h && TPSTAT_PLAIN)
		tpstat_hist_value(&sp->bounds, h, delta, false, true);
	else
		tpstat_hist_value(&sp->bounds, h ? h : &lat_hist[l], delta, false, false);
}

/*
 * Latency @l keyed cpu,cpu on tracepoint @idx: END then START on this CPU's word @slot
 * (NULL: a CPU beyond lat_cpu). @plain, a constant of each call: START and END are one
 * tracepoint, one program writes the word, plainly on a kernel that refuses that program's
 * nested run (TPSTAT_PLAIN); otherwise xchg.
 */
static __always_inline void lat_cpu_step(__u32 l, const volatile struct tpstat_lat_spec *sp,
					 __u32 idx, __u32 cpu, __u64 *slot, __u64 now, bool plain)
{
	__u64 delta;

	if (sp->end.field.tp == idx && tpstat_lat_cpu_end(&lat_stats[l], slot, plain, now, &delta))
		lat_record(l, sp, cpu, delta);
	if (sp->start.field.tp == idx)
		tpstat_lat_cpu_start(&lat_stats[l], slot, plain, now);
}

/*
 * The --latency sides on tracepoint @idx: an END takes the time since its key's START into
 * the histogram, then a START stores the time under its key (in this order, so that one
 * tracepoint can end one key and start another: sched_switch's next and prev). Unrolled,
 * each latency's code has constant .rodata (the verifier keeps the sides @idx has), and
 * the cpu,cpu case is compiled apart for plain and atomic words.
 */
static __always_inline void record_latency(__u32 idx, const __u64 *args, __u32 cpu)
{
	struct tpstat_lat_cpu *home = NULL;
	bool cpu_homes = false, any = false;
	__u64 now;

	/* Frozen rodata: the verifier keeps only what this tracepoint's latencies use. */
#pragma unroll
	for (__u32 l = 0; l < TPSTAT_MAX_LAT; l++) {
		if (l < nlat && (lat_spec[l].start.field.tp == idx || lat_spec[l].end.field.tp == idx)) {
			any = true;
			if (TPSTAT_LAT_CPU_HOME(lat_spec[l].start.key, lat_spec[l].end.key))
				cpu_homes = true;
		}
	}
	if (!any)
		return;
	now = bpf_ktime_get_ns();
	if (cpu_homes)
		home = bpf_map_lookup_elem(&lat_cpu, &cpu);

#pragma unroll
	for (__u32 l = 0; l < TPSTAT_MAX_LAT; l++) {
		const volatile struct tpstat_lat_spec *sp = &lat_spec[l];
		__u64 *slot = home ? &home->ns[l] : NULL;
		__u64 k, delta;

		if (l >= nlat)
			break;
		if (TPSTAT_LAT_CPU_HOME(sp->start.key, sp->end.key)) {
			if (TPSTAT_PLAIN && sp->start.field.tp == sp->end.field.tp)
				lat_cpu_step(l, sp, idx, cpu, slot, now, true);
			else
				lat_cpu_step(l, sp, idx, cpu, slot, now, false);
			continue;
		}
		if (sp->end.field.tp == idx) {
			if (!lat_key(&sp->end, args, cpu, &k))
				atomic_add(&lat_stats[l].end_errors, 1);
			else if (tpstat_lat_end(&lat_stats[l], lat_bucket(l, k), k, now, &delta))
				lat_record(l, sp, cpu, delta);
		}
		if (sp->start.field.tp == idx) {
			if (!lat_key(&sp->start, args, cpu, &k))
				atomic_add(&lat_stats[l].start_errors, 1);
			else
				tpstat_lat_start(&lat_stats[l], lat_bucket(l, k), k, now);
		}
	}
}

#endif /* __BAREATOM_TPSTAT_LAT_PROG_H */
