// SPDX-License-Identifier: GPL-2.0
/*
 * Globally unique 64-bit cookies drawn in BPF: every new task gets one at
 * fork (kept in task local storage, so a reused PID never shares a cookie),
 * and every tpgen_b event draws one (a hook for heavy kernel-side use).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/atomics.h"
#include "bpf/cookie_abi.h"
#include "bpf/cookie_limit.h"

/* Set before load: draw from per-CPU batches (default) or one fetch-add each. */
const volatile bool batched = true;
/* Set before load: report each draw through the ring buffer (off only in benchmarks). */
const volatile bool report_events = true;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct cookie_state);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cookie_batch);
} batch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cookie_task);
} task_cookies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/*
 * The pid of the one `cookie --follow` reading events, 0 when none (bpf/cookie_abi.h). Events are
 * only written while there is a follower, so nobody's stale events wait in the ring and a
 * loss is only counted when a follower missed one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} follower SEC(".maps");

/* One cookie from the global counter, or 0 when it reached the durable limit. */
static __always_inline __u64 draw_global(struct cookie_state *st)
{
	return cookie_draw(st, 1);
}

/*
 * Like gen_cookie_next(): the outermost program on a CPU takes cookies from
 * the CPU's batch and refills it with one fetch-add of COOKIE_BATCH; a
 * program nested in it (an interrupt) leaves the batch alone and draws from
 * the global counter, so cur/end never race. Programs here run with
 * preemption off, so nesting on a CPU is strictly last-in first-out; the
 * kernel's own nesting counters (__this_cpu_inc_return) rely on the same.
 */
static __always_inline __u64 draw(struct cookie_state *st)
{
	struct cookie_batch *b;
	__u32 zero = 0;
	__u64 c = 0, base, first, limit;

	if (!batched)
		return draw_global(st);
	b = bpf_map_lookup_elem(&batch, &zero);
	if (!b)
		return draw_global(st);
	/*
	 * The nesting count needs no atomic: a nested program runs to completion and puts
	 * the count back before the interrupted one goes on, so a plain increment of this
	 * CPU's copy never loses an update. volatile keeps the compiler from moving it.
	 */
	if ((*(volatile __u64 *)&b->nesting)++ != 0) {
		c = draw_global(st);
		goto out;
	}
	if (b->cur >= b->end) {
		if (cookie_at_limit(st))
			goto out;
		base = atomic_fetch_add(&st->next, COOKIE_BATCH);
		limit = *(volatile __u64 *)&st->limit;
		/* Sequence 0 is no node's cookie (bpf/cookie_abi.h): such a batch starts after it. */
		first = COOKIE_SEQ_OF(base) ? base : base + 1;
		if (first >= limit) {
			cookie_refused(st);
			goto out;
		}
		atomic_add(&st->batches, 1);
		b->cur = first;
		/*
		 * Past the durable mark the rest of the batch is simply never used, so no batch
		 * reaches into the next node's space. No wrap: base < limit, and limits stay
		 * below the node's base plus COOKIE_MARK_MAX.
		 */
		b->end = COOKIE_BATCH < limit - base ? base + COOKIE_BATCH : limit;
	}
	c = b->cur++;
out:
	(*(volatile __u64 *)&b->nesting)--;
	return c;
}

static __always_inline void report(__u64 cookie, __u32 pid, __u32 kind, struct cookie_state *st)
{
	struct cookie_event ev = { .cookie = cookie, .pid = pid, .kind = kind };
	__u32 zero = 0, *fw;

	if (!report_events)
		return;
	fw = bpf_map_lookup_elem(&follower, &zero);
	if (!fw || !*(volatile __u32 *)fw)
		return;
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		atomic_add(&st->events_lost, 1);
}

/* A cookie for a program, and the shared state it came from; 0 when none could be drawn. */
static __always_inline __u64 draw_cookie(struct cookie_state **stp)
{
	__u32 zero = 0;

	*stp = bpf_map_lookup_elem(&state, &zero);
	return *stp ? draw(*stp) : 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(cookie_fork, struct task_struct *parent, struct task_struct *child)
{
	struct cookie_state *st;
	struct cookie_task *t;
	__u64 c = draw_cookie(&st);

	if (!c)
		return 0;
	t = bpf_task_storage_get(&task_cookies, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	t->cookie = c;
	atomic_add(&st->fork_cookies, 1);
	report(c, BPF_CORE_READ(child, pid), COOKIE_EVENT_FORK, st);
	return 0;
}

SEC("raw_tp/tpgen_b")
int cookie_tpgen(void *ctx)
{
	struct cookie_state *st;
	__u64 c = draw_cookie(&st);

	if (!c)
		return 0;
	atomic_add(&st->tpgen_cookies, 1);
	report(c, 0, COOKIE_EVENT_TPGEN, st);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
