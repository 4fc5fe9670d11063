// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-fast: libcookie's lock-free fast path (cookie_fast_get) on a struct cookie_state in
 * ordinary memory, the same code that runs on the mmapped BPF map. Bad counts are refused
 * without moving the counter; at the durable limit refused retries do not push it on; no
 * comparison wraps; refusals are accounted as BPF's refused() accounts them.
 */
#include <errno.h>
#include <stdint.h>
#include "libcookie.h"
#include "test.h"

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
	uint64_t first = 0, before;
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
	return test_done();
}
