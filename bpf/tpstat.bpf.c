// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat: exact counts of raw and bare tracepoints.
 *
 * Raw tracepoint programs do not know which tracepoint they are attached to
 * (no attach cookie for raw_tp in 6.1), so user space (src/tpstat_progs.c) loads one
 * copy of tpstat_0 or tpstat_hist_0 per counted tracepoint, each with its index patched
 * in (TPSTAT_IDX_MARK), and attaches copy i to the i-th tracepoint, on every kernel (a
 * copy each keeps each tracepoint's recursion misses apart). The counters are maps sized
 * at load for the number of tracepoints.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/atomics.h"
#include "bpf/tpstat_abi.h"
#include "bpf/tpstat_update.h"

/* Set before load: which events count (enum tpstat_filter). */
const volatile __u32 filter = TPSTAT_FILTER_NONE;
/* Set before load: -C, count only on the CPUs of cpu_filter (a bitmap). */
const volatile __u32 filter_cpus = 0;
const volatile __u64 cpu_filter[TPSTAT_CPU_WORDS] = {};

/*
 * Set before load: 1 when the kernel refuses a raw_tp program's nested run on a CPU
 * (src/tpstat_guard.c), so that memory one program writes on one CPU only is updated with
 * plain loads and stores (bpf/tpstat_update.h); 0, the atomics everywhere.
 */
const volatile __u32 plain_updates = 0;
#define TPSTAT_PLAIN plain_updates

/* Set before load: the tracepoints counted, and the counters' stride (tpstat.h). */
const volatile __u32 ntp = 1;
const volatile __u32 stride = TPSTAT_LINE;

/* The counts, entry (plane * TPSTAT_NR_SLOTS + slot) * stride + index (see tpstat.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TPSTAT_NR_SLOTS * TPSTAT_LINE);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/* Per tracepoint: the CPUs that hit it (struct tpstat_tp), entry index. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_tp);
} tp_cpus SEC(".maps");

/* Tracepoint @idx's counter in @slot of @plane, or NULL (an index beyond the map). */
static __always_inline __u64 *counter(__u32 plane, __u32 slot, __u32 idx)
{
	__u32 key = (plane * TPSTAT_NR_SLOTS + slot) * stride + idx;

	return bpf_map_lookup_elem(&counts, &key);
}

#define TPSTAT_NOW() bpf_ktime_get_ns()
/* Tracepoint @idx's CPU set, or NULL. */
static __always_inline struct tpstat_tp *tp_of(__u32 idx)
{
	return bpf_map_lookup_elem(&tp_cpus, &idx);
}

#define TPSTAT_COUNTER(slot, idx) counter(TPSTAT_PLANE_COUNT, slot, idx)
#define TPSTAT_TP(idx) tp_of(idx)
#include "bpf/tpstat_count.h"
#include "bpf/tpstat_hist.h"
#include "bpf/tpfilter_eval.h"

/*
 * Set before load: --hist fields. Only the tpstat_hist_N programs record them; a plain
 * count loads tpstat_N, which has no instruction for fields at all.
 */
const volatile __u32 nhist = 0;
const volatile struct tpstat_field hist_field[TPSTAT_MAX_HIST] = {};
/*
 * Each CPU records into its own copies, entry cpu * nhist + h (user space sizes the array to
 * nhist x possible CPUs before load and sums the copies): an array map's lookup is inlined
 * by the verifier, and no cache line is shared between CPUs. hists[] in .bss takes what
 * finds no entry (a CPU beyond the array, which a possible CPU never is).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tpstat_hist);
} hist_cpu SEC(".maps");
struct tpstat_hist hists[TPSTAT_MAX_HIST];

/* Set before load: --by tables (by_counts is sized to 1 entry when there are none). */
const volatile __u32 nby = 0;
const volatile struct tpstat_by by_spec[TPSTAT_MAX_BY] = {};
struct tpstat_by_stats by_stats[TPSTAT_MAX_BY];

/*
 * Does a key of --by @by name the CPU? Then each of its keys is written on one CPU only, by
 * the one program of @by's tracepoint. (@by is frozen .rodata: the verifier knows the
 * answer, and keeps one path.)
 */
static __always_inline bool tpstat_by_has_cpu(const volatile struct tpstat_by *by)
{
#pragma unroll
	for (__u32 i = 0; i < TPSTAT_BY_KEYS; i++)
		if (i < by->nkeys && by->kind[i] == TPSTAT_KEY_CPU)
			return true;
	return false;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TPSTAT_BY_ENTRIES);
	__type(key, struct tpstat_key);
	__type(value, struct tpstat_by_val);
} by_counts SEC(".maps");
#include "bpf/tpstat_stack.h"
#include "bpf/tpstat_exec.h"


/*
 * Set by user space on SIGUSR1, for observers (bpftool map dump): the programs never read it.
 * Pausing costs nothing per event: user space subtracts what was counted while paused.
 */
__u32 paused;
/* Forks in the counted process tree that found no room in targets: their events are lost. */
__u64 untracked_forks;

/* The processes (-p, -- CMD: tgids) or threads (-t: tids) whose events count. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TPSTAT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* -G: the cgroup v2 whose subtree counts. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target_cgroup SEC(".maps");

#define PF_EXITING 0x00000004	/* include/linux/sched.h: do_exit() has begun */

/*
 * Does the current task's event count? filter is frozen rodata, so with no target the
 * verifier removes all of this as dead code: the unfiltered program pays nothing.
 *
 * A task target stops counting when it begins to exit, as perf stat's per-task counters do:
 * perf_event_exit_task() in do_exit() comes a few steps after PF_EXITING is set and before
 * sched_process_exit and the task's last sched_switch, which perf never counts either.
 */
static __always_inline bool wanted(void)
{
	__u64 id;
	__u32 key;

	if (filter == TPSTAT_FILTER_NONE)
		return true;
	if (filter == TPSTAT_FILTER_CGROUP)
		return bpf_current_task_under_cgroup(&target_cgroup, 0) == 1;
	if (bpf_get_current_task_btf()->flags & PF_EXITING)
		return false;
	id = bpf_get_current_pid_tgid();
	key = filter == TPSTAT_FILTER_TID ? (__u32)id : (__u32)(id >> 32);
	return bpf_map_lookup_elem(&targets, &key) != NULL;
}

/*
 * A load from the context at a constant offset. The verifier takes context loads only at
 * a constant offset from the unmodified context pointer, and clang turns a switch of
 * args[0], args[1], ... into one load from args + 8 * arg: the asm keeps each case a load
 * of its own.
 */
#define CTX_LOAD(args, off) ({						\
	__u64 __v;							\
	asm volatile("%[v] = *(u64 *)(%[c] + " #off ")"			\
		     : [v] "=r"(__v) : [c] "r"(args));			\
	__v;								\
})

/* Argument @arg of the tracepoint: @arg is a constant of .rodata, one case is followed. */
static __always_inline __u64 ctx_arg(const __u64 *args, __u32 arg)
{
	switch (arg) {
	case 0: return CTX_LOAD(args, 0);
	case 1: return CTX_LOAD(args, 8);
	case 2: return CTX_LOAD(args, 16);
	case 3: return CTX_LOAD(args, 24);
	case 4: return CTX_LOAD(args, 32);
	case 5: return CTX_LOAD(args, 40);
	case 6: return CTX_LOAD(args, 48);
	case 7: return CTX_LOAD(args, 56);
	case 8: return CTX_LOAD(args, 64);
	case 9: return CTX_LOAD(args, 72);
	case 10: return CTX_LOAD(args, 80);
	default: return CTX_LOAD(args, 88);
	}
}

/* Follow @f's reads from its argument: true and the integer in *@out, or false when one failed. */
static __always_inline bool read_field(const volatile struct tpstat_field *f, const __u64 *args,
				       __u64 *out)
{
	__u64 cur, v;
	bool ok = true;

	cur = v = ctx_arg(args, f->arg);
	/* An argument itself (no step): .rodata again, and no loop code is left. */
	if (!f->nsteps) {
		*out = tpstat_field_value(f, v);
		return true;
	}
	for (__u32 s = 0; s < TPSTAT_FIELD_STEPS && ok; s++) {
		__u32 size = f->steps[s].size;

		if (s >= f->nsteps)
			break;
		v = 0;
		ok = size <= sizeof(v) &&
		     !bpf_probe_read_kernel(&v, size, (void *)(cur + f->steps[s].off));
		cur = v;
	}
	*out = tpstat_field_value(f, v);
	return ok;
}

/*
 * The --hist fields of tracepoint @idx: record each value, or count the event as an error
 * when a read fails (never silently short: samples + errors = the count).
 */
static __always_inline void record_fields(__u32 idx, const __u64 *args, __u32 cpu)
{
#pragma unroll
	for (__u32 h = 0; h < TPSTAT_MAX_HIST; h++) {
		const volatile struct tpstat_field *f = &hist_field[h];
		__u32 key = cpu * nhist + h;
		struct tpstat_hist *hc;
		__u64 v;

		if (h >= nhist)
			break;
		if (f->tp != idx)
			continue;
		/*
		 * This CPU's copy is written by this program only (--hist h is of one
		 * tracepoint, f->tp): plain with TPSTAT_PLAIN. hists[h] is shared by every
		 * CPU that finds no copy: atomic. (f->is_signed and TPSTAT_PLAIN are frozen
		 * .rodata: the verifier keeps one of the calls below.)
		 */
		hc = bpf_map_lookup_elem(&hist_cpu, &key);
		if (!read_field(f, args, &v)) {
			own_add(hc && TPSTAT_PLAIN, hc ? &hc->errors : &hists[h].errors, 1);
		} else if (hc && TPSTAT_PLAIN) {
			if (f->is_signed)
				tpstat_hist_value(f, hc, v, true, true);
			else
				tpstat_hist_value(f, hc, v, false, true);
		} else {
			tpstat_hist_value(f, hc ? hc : &hists[h], v, f->is_signed, false);
		}
	}
}

#ifndef EEXIST
#define EEXIST 17
#endif

/* Key @i of --by @by into @key (its words 2i and 2i + 1): false when a read failed. */
static __always_inline bool by_key(const volatile struct tpstat_by *by, __u32 i,
				   struct tpstat_key *key, const __u64 *args, __u32 cpu)
{
	switch (by->kind[i]) {
	case TPSTAT_KEY_CPU:
		key->k[2 * i] = cpu;
		return true;
	case TPSTAT_KEY_PID:
		key->k[2 * i] = bpf_get_current_pid_tgid() >> 32;
		return true;
	case TPSTAT_KEY_COMM:
		bpf_get_current_comm(&key->k[2 * i], 2 * sizeof(__u64));
		return true;
	case TPSTAT_KEY_CGROUP:
		key->k[2 * i] = bpf_get_current_cgroup_id();
		return true;
	case TPSTAT_KEY_KSTACK:
	case TPSTAT_KEY_USTACK:
		return true;	/* the stacks follow the key (tpstat_stack_record) */
	default:
		return read_field(&by->field[i], args, &key->k[2 * i]);
	}
}

/*
 * --by @b (@by) of this event: add one to the event's key (and its value to the key's sum,
 * min and max), inserting the key when new. A failed insert looks again: another CPU may
 * have inserted the same key; only when it is still missing (the map is full, or -EBUSY in
 * a nested run) is the event dropped, counted.
 *
 * A function of its own, called once per --by table of the tracepoint: record_keys() is
 * unrolled so that each table's call has constant @b and @by, which the verifier follows
 * into the call (it removes the key kinds, the value and the stack steps @by does not have),
 * and so that the tables the tracepoint does not have cost no instruction at all. Inline,
 * eight copies of this would take the program past the 16-bit reach of a BPF jump.
 */
static __noinline void record_by(__u32 b, const volatile struct tpstat_by *by, const __u64 *args,
				 __u32 cpu)
{
	struct tpstat_key key = { .by = b };
	struct tpstat_by_val *c, nv;
	bool ok = true, own;
	__u64 v = 0;

#pragma unroll
	for (__u32 i = 0; i < TPSTAT_BY_KEYS; i++)
		if (i < by->nkeys && ok)
			ok = by_key(by, i, &key, args, cpu);
	if (ok && by->value)
		ok = read_field(&by->vfield, args, &v);
	if (!ok) {
		atomic_add(&by_stats[b].errors, 1);
		return;
	}
	if (by->kdepth || by->udepth) {
		tpstat_stack_record(b, by, &key, v, (void *)args);
		return;
	}
	c = bpf_map_lookup_elem(&by_counts, &key);
	if (!c) {
		nv = tpstat_by_value_first(v, by->vfield.is_signed);
		if (!bpf_map_update_elem(&by_counts, &key, &nv, BPF_NOEXIST))
			return;
		c = bpf_map_lookup_elem(&by_counts, &key);
		if (!c) {
			atomic_add(&by_stats[b].dropped, 1);
			return;
		}
	}
	/* A key that names the CPU is only ever written here (tpstat_update.h). */
	own = TPSTAT_PLAIN && tpstat_by_has_cpu(by);
	own_add(own, &c->count, 1);
	if (by->value)
		tpstat_by_value_update(c, v, by->vfield.is_signed, &by_stats[b], own);
}

/* The --by tables of tracepoint @idx (frozen .rodata: only its own tables have code). */
static __always_inline void record_keys(__u32 idx, const __u64 *args, __u32 cpu)
{
#pragma unroll
	for (__u32 b = 0; b < TPSTAT_MAX_BY; b++) {
		const volatile struct tpstat_by *by = &by_spec[b];

		if (b >= nby)
			break;
		if (by->tp != idx)
			continue;
		/*
		 * TP:cpu alone: the count already has it. A CPU below TPSTAT_SLOTS owns its
		 * slot, and its count in that slot is this key's count (user space reads it there).
		 */
		if (by->nkeys == 1 && by->kind[0] == TPSTAT_KEY_CPU && !by->value &&
		    cpu < TPSTAT_SLOTS)
			continue;
		record_by(b, by, args, cpu);
	}
}

#include "bpf/tpstat_lat_prog.h"

/*
 * -C: is @cpu one of those counted? Frozen rodata again: without -C the verifier removes
 * the test, and the plain program is what it was.
 */
static __always_inline bool cpu_wanted(__u32 cpu)
{
	if (!filter_cpus)
		return true;
	if (cpu >= TPSTAT_MAX_CPUS)
		return false;
	return (cpu_filter[cpu / 64] >> (cpu & 63)) & 1;
}

/* Count one event of tracepoint @idx on @cpu if it is wanted; true when it was. */
static __always_inline bool count_tp(__u32 idx, __u32 cpu)
{
	if (!cpu_wanted(cpu) || !wanted())
		return false;
	tpstat_count(idx, cpu);
	return true;
}

#include "bpf/tpstat_filter_prog.h"

/*
 * The index patched into this copy of the program (TPSTAT_IDX_MARK in tpstat.h): an
 * ld_imm64 the verifier sees as a constant, so that it drops the other tracepoints'
 * --hist, --by, --filter and --latency code as it did when each index had its own program.
 */
static __always_inline __u32 marked_idx(void)
{
	__u64 v;

	asm volatile("%[v] = 0x7470737400000000 ll" : [v] "=r"(v));
	return (__u32)v;
}

/* Count tracepoint @idx: the program of a plain count. */
static __always_inline void count_prog(__u32 idx)
{
	count_tp(idx, bpf_get_smp_processor_id());
}

/*
 * The program with --hist, --by, --filter or --latency: it also applies the tracepoint's
 * --filter and records its --hist fields and --by keys, in the same run, so that they add
 * up to the count and the recursion misses are the same.
 */
static __always_inline void hist_prog(__u32 idx, void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (count_filtered_tp(idx, ctx, cpu)) {
		record_fields(idx, ctx, cpu);
		record_keys(idx, ctx, cpu);
		if (nlat)
			record_latency(idx, ctx, cpu);
	}
}

SEC("raw_tp")
int tpstat_0(void *ctx)
{
	count_prog(marked_idx());
	return 0;
}

SEC("raw_tp")
int tpstat_hist_0(void *ctx)
{
	hist_prog(marked_idx(), ctx);
	return 0;
}

/*
 * -- CMD: a process forked by one of the tree joins it before it can run, like perf stat's
 * inherited counters. New threads share their process's tgid: nothing to add.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(tpstat_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ptgid == ctgid || !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	if (bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY))
		atomic_add(&untracked_forks, 1);
	return 0;
}

/*
 * A target is gone for good once it is freed (for a process, its leader: its threads are
 * gone too), and only now may its id be reused: forget it, so a new task that gets the
 * same id is not counted as a target.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(tpstat_free, struct task_struct *task)
{
	__u32 pid = task->pid, tgid = task->tgid;

	if (filter == TPSTAT_FILTER_TID)
		bpf_map_delete_elem(&targets, &pid);
	else if (pid == tgid)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
