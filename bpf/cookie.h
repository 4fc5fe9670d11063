/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cookie counter shared by BPF programs, cookie-gend and libcookie.
 *
 * Every cookie comes from one 64-bit counter, state.next, advanced only with
 * an atomic fetch-add (by BPF programs and by user space on the mmapped map),
 * so no two draws ever get the same value. state.limit is the durable
 * high-water mark published by cookie-gend: it is raised only after a value
 * at least as large has been written and fsynced to the state directory, and
 * a draw that lands at or past it is refused. After a crash or a reboot the
 * counter restarts from the saved mark, above every cookie ever handed out.
 */
#ifndef __BAREATOM_COOKIE_H
#define __BAREATOM_COOKIE_H

/* Kernel-side per-CPU batches, like the kernel's gen_cookie_next(). */
#define COOKIE_BATCH 4096
/*
 * The most cookies one draw may take, on every path (socket GET, libcookie's fast path; BPF
 * takes 1 or COOKIE_BATCH). A draw refused at the limit still burns what its fetch-add took,
 * so this bound, together with the check that refuses without adding once the counter is
 * at the limit, bounds how far refused draws can push the counter past it: at most one
 * draw per concurrent drawer, COOKIE_DRAW_MAX each.
 */
#define COOKIE_DRAW_MAX 65536
/* The durable mark moves in blocks of this many cookies: one fsync per block. */
#define COOKIE_BLOCK (1ULL << 24)
/*
 * Marks stay below this, so neither the mark plus a block nor the counter pushed past the
 * limit by refused draws can wrap: the 3 blocks of slack hold 768 concurrent draws of
 * COOKIE_DRAW_MAX beyond the last mark.
 */
#define COOKIE_MARK_MAX (~0ULL - 3 * COOKIE_BLOCK)

struct cookie_state {
	__u64 next;		/* next cookie of the global counter (fetch-add only) */
	__u64 limit;		/* cookies below this are covered by the durable mark */
	__u64 fork_cookies;	/* cookies given to new tasks */
	__u64 tpgen_cookies;	/* cookies drawn on tpgen_b events */
	__u64 denied;		/* draws refused: the counter had reached limit */
	__u64 batches;		/* per-CPU batches reserved */
	__u64 events_lost;	/* ring buffer full: a drawn cookie was not reported */
	__u64 owner;		/* id of the state directory these maps count for */
	__u64 need_room;	/* one-shot flag: a draw was refused, raise the limit now (xchg) */
	__u64 room_requests;	/* times the flag went up */
};

/* A task's cookie, in task local storage. */
struct cookie_task {
	__u64 cookie;
};

/* Per-CPU batch: only the outermost program on a CPU touches cur and end. */
struct cookie_batch {
	__u64 nesting;
	__u64 cur;
	__u64 end;
};

enum cookie_event_kind {
	COOKIE_EVENT_FORK = 1,
	COOKIE_EVENT_TPGEN = 2,
};

/* Reported through the ring buffer, for `cookie --follow` and the tests. */
struct cookie_event {
	__u64 cookie;
	__u32 pid;
	__u32 kind;
};

#endif /* __BAREATOM_COOKIE_H */
