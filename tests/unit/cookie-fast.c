// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-fast: libcookie's lock-free fast path (cookie_fast_get) on a struct cookie_state in
 * ordinary memory, the same code that runs on the mmapped BPF map. Bad counts are refused
 * without moving the counter; at the durable limit refused retries do not push it on; no
 * comparison wraps; refusals are accounted as BPF's accounts them. The checks are
 * bpf/cookie_limit.h's, the very code the BPF programs and cookie-gend run: its pieces are
 * tested here too, BPF's one-cookie global draw among them.
 */
#include <errno.h>
#include <stdint.h>
#include "src/libcookie.h"
#include "tests/unit/test.h"

static struct cookie_state st;
static struct cookie_fast f = { .fd = -1, .st = &st };

static void reset(uint64_t next, uint64_t limit)
{
	memset(&st, 0, sizeof(st));
	st.next = next;
	st.limit = limit;
}

int main(void)
{
	static const uint64_t bad[] = { 0, COOKIE_DRAW_MAX + 1, (1ULL << 24) + 1, (1ULL << 32) - 1,
					1ULL << 32, UINT64_MAX };
	uint64_t first = 0, before, top;
	char name[128];
	int ok = 1;

	/* Good draws: consecutive ranges, never 0. */
	reset(1, 1 << 24);
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), 0, "draw 1");
	ASSERT_EQ_U64(first, 1, "the first cookie is 1");
	ASSERT_EQ(cookie_fast_get(&f, COOKIE_DRAW_MAX, &first), 0, "draw COOKIE_DRAW_MAX (65536)");
	ASSERT_EQ_U64(first, 2, "it follows the first");
	ASSERT_EQ_U64(st.next, 2 + COOKIE_DRAW_MAX, "the counter moved by exactly what was drawn");

	/* One bound for every path: anything else is EINVAL and takes nothing. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		before = st.next;
		snprintf(name, sizeof(name), "n = %llu is refused with EINVAL", (unsigned long long)bad[i]);
		ASSERT_EQ(cookie_fast_get(&f, bad[i], &first), -EINVAL, name);
		snprintf(name, sizeof(name), "n = %llu leaves the counter where it was", (unsigned long long)bad[i]);
		ASSERT_EQ_U64(st.next, before, name);
	}
	ASSERT_EQ_U64(st.denied, 0, "bad counts are usage errors, not refusals at the limit");

	/* A draw that would cross the limit is refused; the values it took are burnt. */
	reset(1000, 1010);
	ASSERT_EQ(cookie_fast_get(&f, 11, &first), -EAGAIN, "a draw crossing the limit is refused");
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), -EAGAIN, "a draw at the limit is refused");
	reset(1000, 1010);
	ASSERT_EQ(cookie_fast_get(&f, 10, &first), 0, "a draw ending exactly at the limit is served");
	ASSERT_EQ_U64(first + 10, st.limit, "its last cookie is limit - 1");

	/*
	 * 10,000 refused draws of the largest size at the limit: the counter moves by at most one
	 * draw (the one that crossed it); the rest are refused before they add anything.
	 */
	reset((1 << 24) - 100, 1 << 24);
	for (int i = 0; i < 10000; i++)
		ok &= cookie_fast_get(&f, COOKIE_DRAW_MAX, &first) == -EAGAIN;
	ASSERT_TRUE(ok, "10,000 draws of 65536 at the limit are all refused");
	ASSERT_LE_U64(st.next - ((1 << 24) - 100), COOKIE_DRAW_MAX,
		      "after 10,000 refused draws the counter moved by at most COOKIE_DRAW_MAX");
	ASSERT_EQ_U64(st.denied, 10000, "each refusal is counted in denied");
	ASSERT_EQ_U64(st.need_room, 1, "the refusals raised need_room");
	ASSERT_EQ_U64(st.room_requests, 1, "one room request while the flag stays up (as BPF counts)");
	st.need_room = 0;	/* the daemon takes it down */
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), -EAGAIN, "still at the limit");
	ASSERT_EQ_U64(st.room_requests, 2, "the next refusal raises the flag again: a second request");

	/* Near the top of the space: no comparison wraps, nothing is handed out. */
	reset(UINT64_MAX - 10, COOKIE_MARK_MAX);
	ASSERT_EQ(cookie_fast_get(&f, 100, &first), -EAGAIN,
		  "a counter past the limit near 2^64 refuses (no wrap through 0)");
	ASSERT_EQ_U64(st.next, UINT64_MAX - 10, "and does not move");
	reset(COOKIE_MARK_MAX - 5, COOKIE_MARK_MAX);
	ASSERT_EQ(cookie_fast_get(&f, COOKIE_DRAW_MAX, &first), -EAGAIN,
		  "a draw of 65536 five below the top mark is refused, not wrapped");
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), -EAGAIN, "and so is every draw after it");
	ASSERT_LE_U64(st.next, COOKIE_MARK_MAX - 5 + COOKIE_DRAW_MAX, "the counter did not wrap");

	/*
	 * Node ids: the counter carries the node in its top 16 bits and cookie-gend's limit at
	 * the top of a node's range is node << 48 | (COOKIE_MARK_MAX - 1). The last cookies are
	 * served, then every draw is refused, and nothing reaches the next node.
	 */
	top = COOKIE_NODE_BASE(5) + COOKIE_MARK_MAX - 1;
	reset(top - 3, top);
	ASSERT_EQ(cookie_fast_get(&f, 3, &first), 0, "node 5: the last 3 cookies below its top mark are served");
	ASSERT_EQ_U64(COOKIE_NODE_OF(first + 2), 5, "the last of them is node 5's");
	ASSERT_EQ_U64(COOKIE_SEQ_OF(first + 2), COOKIE_MARK_MAX - 2, "with sequence 2^48 - 3 * 2^24 - 2");
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), -EAGAIN, "node 5: a draw at the top is refused");
	for (int i = 0; i < 10000; i++)
		ok &= cookie_fast_get(&f, COOKIE_DRAW_MAX, &first) == -EAGAIN;
	ASSERT_TRUE(ok, "node 5: 10,000 draws of 65536 at the top are all refused");
	ASSERT_EQ_U64(st.next, top, "refused at the top before adding: the counter stays at the top mark");
	ASSERT_EQ_U64(COOKIE_NODE_OF(st.next), 5, "the counter is still in node 5's space");
	ASSERT_EQ_U64(st.denied, 10001, "node 5: every refusal at the top is counted in denied");
	/* A draw that crossed the limit before it was refused: burnt, inside the node. */
	reset(top - 1, top);
	ASSERT_EQ(cookie_fast_get(&f, COOKIE_DRAW_MAX, &first), -EAGAIN,
		  "node 5: a draw of 65536 one below the top is refused, not cut into the next node");
	ASSERT_EQ_U64(COOKIE_NODE_OF(st.next - 1), 5, "its burnt values are node 5's");
	/* The slack above the top mark holds 768 such draws without leaving the node. */
	reset(top, top);
	st.next = top + 768 * COOKIE_DRAW_MAX;
	ASSERT_EQ_U64(COOKIE_NODE_OF(st.next), 5, "768 burnt draws of 65536 past the top stay in node 5");
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), -EAGAIN, "and every draw there is refused");

	/* Node 65535: the top of the whole 64-bit space, and no wrap to 0. */
	top = COOKIE_NODE_BASE(65535) + COOKIE_MARK_MAX - 1;
	reset(top - 1, top);
	ASSERT_EQ(cookie_fast_get(&f, 1, &first), 0, "node 65535: its last cookie is served");
	ASSERT_EQ_U64(COOKIE_NODE_OF(first), 65535, "as node 65535's");
	ASSERT_EQ(cookie_fast_get(&f, COOKIE_DRAW_MAX, &first), -EAGAIN, "node 65535: then refused");
	ASSERT_TRUE(st.next >= top, "node 65535: the counter did not wrap through 0");

	/* Sequence 0 is no node's cookie (cookie 0 on node 0): it is burnt, never handed out. */
	reset(COOKIE_NODE_BASE(6), COOKIE_NODE_BASE(6) + 100);
	ASSERT_EQ(cookie_fast_get(&f, 4, &first), -EAGAIN, "node 6: a draw starting at sequence 0 is refused");
	ASSERT_EQ(cookie_fast_get(&f, 4, &first), 0, "the next draw is served");
	ASSERT_EQ_U64(first, COOKIE_NODE_BASE(6) + 4, "from after the burnt values");

	/* bpf/cookie_limit.h itself: the predicate every drawer applies, at its edges. */
	ASSERT_TRUE(cookie_in_limit(10, 5, 15), "cookie_in_limit: [10, 15) below 15");
	ASSERT_TRUE(!cookie_in_limit(10, 6, 15), "cookie_in_limit: [10, 16) crosses 15");
	ASSERT_TRUE(!cookie_in_limit(15, 1, 15), "cookie_in_limit: at the limit");
	ASSERT_TRUE(!cookie_in_limit(UINT64_MAX - 1, 4, 100), "cookie_in_limit: past it near 2^64 (no wrap)");
	ASSERT_TRUE(!cookie_in_limit(10, UINT64_MAX, 15), "cookie_in_limit: a huge n (no wrap)");
	ASSERT_TRUE(!cookie_in_limit(COOKIE_NODE_BASE(3), 1, COOKIE_NODE_BASE(3) + 9),
		    "cookie_in_limit: sequence 0 of node 3 is no cookie");
	ASSERT_TRUE(cookie_in_limit(COOKIE_NODE_BASE(3) + 1, 8, COOKIE_NODE_BASE(3) + 9),
		    "cookie_in_limit: sequences 1-8 of node 3 below its limit");
	/* BPF's global draw (--global): one cookie, refused at the limit without adding. */
	reset(41, 43);
	ASSERT_EQ_U64(cookie_draw(&st, 1), 41, "cookie_draw(1), BPF's global draw: 41");
	ASSERT_EQ_U64(cookie_draw(&st, 1), 42, "then 42");
	ASSERT_EQ_U64(cookie_draw(&st, 1), 0, "then 0: refused at the limit");
	ASSERT_EQ_U64(st.next, 43, "without adding to the counter");
	ASSERT_EQ_U64(st.denied, 1, "counted in denied");
	ASSERT_EQ_U64(st.need_room, 1, "asking for room");
	reset(0, 10);
	ASSERT_EQ_U64(cookie_draw(&st, 1), 0, "cookie_draw(1) at cookie 0: refused, 0 is never a cookie");
	ASSERT_EQ_U64(cookie_draw(&st, 1), 1, "the next is 1");
	return test_done();
}
