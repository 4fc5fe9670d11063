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
 * Both hold whole cookies: the node id is in their top 16 bits (see below).
 */
#ifndef __BAREATOM_COOKIE_ABI_H
#define __BAREATOM_COOKIE_ABI_H

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
 * Cookies of many machines: a cookie is NODE << 48 | SEQ. The node id (0 to 65535, fixed
 * per state directory) is the top 16 bits; each node owns 2^48 sequences. SEQ is never 0,
 * on every node: so cookie 0 (node 0, sequence 0) is never handed out and stays "no
 * cookie" for every program, and one rule covers all nodes.
 *
 * The counter itself carries the node: cookie-gend starts state.next at NODE << 48 plus the
 * durable mark and keeps state.limit inside the node's space, so every drawer (BPF batches,
 * BPF global draws, libcookie's fast path, the socket) produces node N's layout with no
 * extra instruction, and the comparisons with the limit that refuse a draw at the top of
 * the space also keep it from ever reaching the next node. state.node records N for readers.
 */
#define COOKIE_SEQ_BITS 48
#define COOKIE_NODE_MAX 0xffffULL
#define COOKIE_SEQ_MASK ((1ULL << COOKIE_SEQ_BITS) - 1)
#define COOKIE_NODE_BASE(node) ((__u64)(node) << COOKIE_SEQ_BITS)
#define COOKIE_NODE_OF(c) ((__u64)(c) >> COOKIE_SEQ_BITS)
#define COOKIE_SEQ_OF(c) ((__u64)(c) & COOKIE_SEQ_MASK)
/*
 * Marks (sequences, within a node) stay below this, so neither the mark plus a block nor the
 * counter pushed past the limit by refused draws can leave the node's space: the 3 blocks of
 * slack hold 768 concurrent draws of COOKIE_DRAW_MAX beyond the last mark (at most
 * sequence 2^48 - 1). On node 65535 the same bound keeps the counter from wrapping to 0.
 */
#define COOKIE_MARK_MAX ((1ULL << COOKIE_SEQ_BITS) - 3 * COOKIE_BLOCK)

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
	__u64 node;		/* the node id: the top 16 bits of next, limit and every cookie */
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

#endif /* __BAREATOM_COOKIE_ABI_H */
