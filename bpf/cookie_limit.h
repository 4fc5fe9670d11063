/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The draw-limit check, one copy for every drawer of the cookie counter: the BPF programs
 * (bpf/cookie.bpf.c), libcookie's fast path (src/libcookie.h, installed with it) and
 * cookie-gend's socket draws. Compiled by clang for BPF and by the host compiler; the host
 * tests (tests/unit/cookie-fast.c) run this very code on a struct cookie_state in memory.
 *
 * The limit only grows and is published after the durable write of the mark, so a stale
 * read of it can only refuse a draw, never serve one beyond the mark. The comparisons
 * cannot wrap: c < limit is checked before limit - c is taken. Counter and limit hold whole
 * cookies (the node id in their top 16 bits) and the limit never leaves the node's space,
 * so the same comparisons refuse a draw at the top of a node's range (bpf/cookie_abi.h).
 *
 * The atomics are the __sync builtins: one BPF atomic instruction each (Linux 5.12), one
 * locked instruction on the host.
 */
#ifndef __BAREATOM_COOKIE_LIMIT_H
#define __BAREATOM_COOKIE_LIMIT_H

#include "bpf/cookie_abi.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* A plain read the compiler may neither cache nor tear (READ_ONCE). */
#define COOKIE_READ(x) (*(volatile __u64 *)&(x))

/*
 * A draw was refused at the durable limit: count it in denied, and raise the one-shot
 * need_room flag that makes cookie-gend raise the limit at once (it takes the flag down
 * with an exchange too). Only the draw that raised the flag counts a request.
 */
static __always_inline void cookie_refused(struct cookie_state *st)
{
	__sync_fetch_and_add(&st->denied, 1);
	if (!__sync_lock_test_and_set(&st->need_room, 1))
		__sync_fetch_and_add(&st->room_requests, 1);
}

/*
 * Are the @n values from @c, just taken with a fetch-add, all cookies this node may hand
 * out: below @limit and not sequence 0 (no node's cookie)?
 */
static __always_inline int cookie_in_limit(__u64 c, __u64 n, __u64 limit)
{
	return COOKIE_SEQ_OF(c) != 0 && c < limit && n <= limit - c;
}

/*
 * The counter is already at the durable limit: refuse before adding to it, so draws
 * refused while the daemon cannot raise the limit do not push the counter on. Together
 * with COOKIE_DRAW_MAX this bounds how far refused draws push the counter past the limit.
 */
static __always_inline int cookie_at_limit(struct cookie_state *st)
{
	if (COOKIE_READ(st->next) < COOKIE_READ(st->limit))
		return 0;
	cookie_refused(st);
	return 1;
}

/*
 * Draw @n cookies (1 to COOKIE_DRAW_MAX, the caller's bound) from the counter: the first,
 * or 0 when refused at the limit (counted). A draw that crossed the limit burns what its
 * fetch-add took: those values are never handed out.
 */
static __always_inline __u64 cookie_draw(struct cookie_state *st, __u64 n)
{
	__u64 c;

	if (cookie_at_limit(st))
		return 0;
	c = __sync_fetch_and_add(&st->next, n);
	if (cookie_in_limit(c, n, COOKIE_READ(st->limit)))
		return c;
	cookie_refused(st);
	return 0;
}

#endif /* __BAREATOM_COOKIE_LIMIT_H */
