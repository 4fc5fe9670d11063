/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --filter in tpstat's programs (included once, by tpstat.bpf.c, after read_field() and
 * the count): the filters' .rodata, and the step that counts an event, or counts it as
 * filtered or as a filter error. The comparison itself is bpf/tpfilter_eval.h's, which the
 * host tests also run.
 */
#ifndef __BAREATOM_TPSTAT_FILTER_PROG_H
#define __BAREATOM_TPSTAT_FILTER_PROG_H

/* Set before load: --filter, in the order given (see tpstat_abi.h). */
const volatile __u32 nfilter = 0;
const volatile struct tpstat_filter_spec filter_spec[TPSTAT_MAX_FILTER] = {};

/*
 * One in @cpu's slot of @plane (filtered or filter errors) for tracepoint @idx: plain with
 * TPSTAT_PLAIN in a slot of its own (this program is @idx's only one), atomic in a slot that
 * CPUs >= TPSTAT_SLOTS share.
 */
static __always_inline void count_slot(__u32 plane, __u32 idx, __u32 cpu)
{
	__u64 *c = counter(plane, cpu < TPSTAT_SLOTS ? cpu :
			   TPSTAT_SLOTS + (cpu & (TPSTAT_SHARED_SLOTS - 1)), idx);

	if (c)
		own_add(TPSTAT_PLAIN && cpu < TPSTAT_SLOTS, c, 1);
}

/*
 * The --filter of tracepoint @idx, in the order given: 1 when the event passes them all, 0
 * when one rejects it, -1 when a read failed (the event is neither in nor out: an error).
 */
static __always_inline int filter_event(__u32 idx, const __u64 *args, __u32 cpu)
{
#pragma unroll
	for (__u32 i = 0; i < TPSTAT_MAX_FILTER; i++) {
		const volatile struct tpstat_filter_spec *f = &filter_spec[i];
		__u64 v, comm[2] = {};

		if (i >= nfilter)
			break;
		if (f->field.tp != idx)
			continue;
		switch (f->key) {
		case TPFILTER_KEY_CPU:
			v = cpu;
			break;
		case TPFILTER_KEY_PID:
			v = bpf_get_current_pid_tgid() >> 32;
			break;
		case TPFILTER_KEY_CGROUP:
			v = bpf_get_current_cgroup_id();
			break;
		case TPFILTER_KEY_COMM:
			bpf_get_current_comm(comm, sizeof(comm));
			/* == or != on the 16 bytes: the same as 0 compared with 0 or not. */
			v = comm[0] != f->comm[0] || comm[1] != f->comm[1];
			if (!tpfilter_pass(v, f->op, 0, false))
				return 0;
			continue;
		default:
			if (!read_field(&f->field, args, &v))
				return -1;
		}
		if (!tpfilter_pass(v, f->op, f->value, f->is_signed))
			return 0;
	}
	return 1;
}

/*
 * A wanted event of tracepoint @idx past its filters: true when it counts; otherwise it is
 * counted as filtered or as a filter error. Without --filter (nfilter is frozen rodata)
 * the verifier removes the filtering, and this is count_tp().
 */
static __always_inline bool count_filtered_tp(__u32 idx, const __u64 *args, __u32 cpu)
{
	int pass;

	if (!cpu_wanted(cpu) || !wanted())
		return false;
	pass = nfilter ? filter_event(idx, args, cpu) : 1;
	if (pass <= 0) {
		count_slot(pass ? TPSTAT_PLANE_FILTER_ERRORS : TPSTAT_PLANE_FILTERED, idx, cpu);
		return false;
	}
	tpstat_count(idx, cpu);
	return true;
}

#endif /* __BAREATOM_TPSTAT_FILTER_PROG_H */
