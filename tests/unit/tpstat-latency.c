// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-latency: --latency's START and END steps (bpf/tpstat_latency.h, the code the BPF
 * programs run) on a model of the BPF hash map with the same answers (-EEXIST, -E2BIG when
 * full, -ENOENT, and -EBUSY when told to, as a nested run on a locked bucket gets), which
 * reuses a freed slot at once as a preallocated map does, and can run another program's
 * step between a lookup and what its caller does next (another CPU, or a nested run): in a
 * fixed small case by case, then over long random sequences of STARTs and ENDs on a table
 * small enough to fill, with -EBUSY and interleavings at random: the accounting identities
 * hold exactly after every event, and no entry ever holds a time its key did not start.
 * TAP output.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/atomics.h"
#include "bpf/tpstat_abi.h"
#include "tests/unit/test.h"

/* The hash map: a few slots, as a BPF_MAP_TYPE_HASH with max_entries MODEL_ENTRIES. */
#define MODEL_ENTRIES 8

static int model_insert(const struct tpstat_lat_key *k, const struct tpstat_lat_start *v);
static struct tpstat_lat_start *model_lookup(const struct tpstat_lat_key *k);
static int model_delete(const struct tpstat_lat_key *k);

#define TPSTAT_LAT_INSERT(k, v) model_insert(k, v)
#define TPSTAT_LAT_LOOKUP(k) model_lookup(k)
#define TPSTAT_LAT_DELETE(k) model_delete(k)
#include "bpf/tpstat_latency.h"

static struct {
	bool used;
	struct tpstat_lat_key k;
	struct tpstat_lat_start v;
} slot[MODEL_ENTRIES];

static int find(const struct tpstat_lat_key *k)
{
	for (int i = 0; i < MODEL_ENTRIES; i++)
		if (slot[i].used && slot[i].k.lat == k->lat && slot[i].k.key == k->key)
			return i;
	return -1;
}

/* -EBUSY for the next insert or delete, when set (each is used once). */
static bool busy_insert, busy_delete;
/* Run once inside the next lookup that finds its key, after it found it. */
static void (*between)(void);

static int model_insert(const struct tpstat_lat_key *k, const struct tpstat_lat_start *v)
{
	if (busy_insert) {
		busy_insert = false;
		return -EBUSY;
	}
	if (find(k) >= 0)
		return -EEXIST;
	for (int i = 0; i < MODEL_ENTRIES; i++)
		if (!slot[i].used) {
			slot[i].used = true;
			slot[i].k = *k;
			slot[i].v = *v;
			return 0;
		}
	return -E2BIG;
}

static struct tpstat_lat_start *model_lookup(const struct tpstat_lat_key *k)
{
	int i = find(k);
	void (*run)(void) = between;

	if (i >= 0 && run) {
		between = NULL;
		run();
	}
	return i < 0 ? NULL : &slot[i].v;
}

static int model_delete(const struct tpstat_lat_key *k)
{
	int i = find(k);

	if (busy_delete) {
		busy_delete = false;
		return -EBUSY;
	}
	if (i < 0)
		return -ENOENT;
	slot[i].used = false;
	return 0;
}

/* Entries of latency @lat holding a START's time: what user space shows as open. */
static __u64 open_of(__u32 lat)
{
	__u64 n = 0;

	for (int i = 0; i < MODEL_ENTRIES; i++)
		n += slot[i].used && slot[i].k.lat == lat && slot[i].v.ns > TPSTAT_LAT_FREE;
	return n;
}

/* The time in @lat's @key's entry, 0 when it has none. */
static __u64 time_of(__u32 lat, __u64 key)
{
	int i = find(&(struct tpstat_lat_key){ .lat = lat, .key = key });

	return i < 0 ? 0 : slot[i].v.ns;
}

/* What runs between a lookup and its caller's next step in the cases below. */
static struct tpstat_lat_stats race_st;
static void end_then_start_other(void)
{
	__u64 d;

	tpstat_lat_end(&race_st, 0, 1, 1900, &d);	/* frees key 1's slot */
	tpstat_lat_start(&race_st, 0, 2, 1950);		/* key 2 takes it at once */
}

/*
 * -EBUSY and the interleavings a hash map allows: a START the table refuses busy is not
 * "table full"; an END whose delete is refused leaves no START behind; a START or END
 * whose entry was freed and reused for another key between its lookup and its write leaves
 * that key's time alone.
 */
static void test_contention(void)
{
	struct tpstat_lat_stats st = {};
	__u64 d = 0;

	busy_insert = true;
	tpstat_lat_start(&st, 0, 5, 1000);
	ASSERT_TRUE(st.start_busy == 1 && st.dropped == 0 && !open_of(0),
		    "an insert refused -EBUSY: start_busy 1, not dropped (the table is not full)");

	tpstat_lat_start(&st, 0, 6, 1000);
	busy_delete = true;
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 6, 1500, &d) && d == 500,
		    "an END whose delete is refused -EBUSY still matched its START (500 ns)");
	ASSERT_TRUE(time_of(0, 6) == TPSTAT_LAT_FREE && open_of(0) == 0,
		    "and its entry stays FREE: not open, no stale START");
	ASSERT_TRUE(!tpstat_lat_end(&st, 0, 6, 1700, &d) && st.no_start == 1,
		    "the next END of that key has no START (it measured from the stale one before)");
	tpstat_lat_start(&st, 0, 6, 3000);
	ASSERT_TRUE(st.replaced == 0 && time_of(0, 6) == 3000,
		    "the key's next START takes the FREE entry: fresh, not replaced");
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 6, 3100, &d) && d == 100 && !time_of(0, 6),
		    "and its END measures from it (100 ns) and deletes it");

	memset(slot, 0, sizeof(slot));
	race_st = (struct tpstat_lat_stats){};
	st = (struct tpstat_lat_stats){};
	tpstat_lat_start(&st, 0, 1, 1000);
	between = end_then_start_other;
	tpstat_lat_start(&st, 0, 1, 2000);
	ASSERT_EQ(time_of(0, 2), 1950, "a START whose entry was freed and reused for key 2 under it "
		  "leaves key 2's time alone");
	ASSERT_TRUE(time_of(0, 1) == 2000 && st.replaced == 0 && st.start_busy == 0,
		    "and inserts its own key afresh (not replaced)");

	memset(slot, 0, sizeof(slot));
	st = (struct tpstat_lat_stats){};
	race_st = (struct tpstat_lat_stats){};
	tpstat_lat_start(&st, 0, 1, 1000);
	between = end_then_start_other;
	ASSERT_TRUE(!tpstat_lat_end(&st, 0, 1, 2000, &d) && st.no_start == 1,
		    "an END that lost its key's START to another END has no start");
	ASSERT_EQ(time_of(0, 2), 1950, "and leaves key 2's START (in the reused slot) open");
	memset(slot, 0, sizeof(slot));
}

static void test_cases(void)
{
	struct tpstat_lat_stats st = {};
	__u64 d = 0;

	tpstat_lat_start(&st, 0, 42, 1000);
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 42, 1750, &d) && d == 750,
		    "START then END of one key: one sample of 750 ns");
	ASSERT_EQ(open_of(0), 0, "and the entry is gone");
	ASSERT_TRUE(!tpstat_lat_end(&st, 0, 42, 2000, &d) && st.no_start == 1,
		    "a second END of that key has no START");
	tpstat_lat_start(&st, 0, 7, 3000);
	tpstat_lat_start(&st, 0, 7, 3500);
	ASSERT_EQ(st.replaced, 1, "a second START of an open key is counted as replaced");
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 7, 4000, &d) && d == 500,
		    "and the END measures from the latest START");
	tpstat_lat_start(&st, 0, 9, 5000);
	tpstat_lat_start(&st, 1, 9, 5100);
	ASSERT_TRUE(tpstat_lat_end(&st, 1, 9, 5200, &d) && d == 100 && open_of(0) == 1,
		    "the same key of two --latency pairs: two entries");
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 9, 6000, &d) && d == 1000, "each matched by its own END");
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 99, 5000, &d) == false && st.no_start == 2,
		    "an END with no START at all");
	tpstat_lat_start(&st, 0, 11, 9000);
	ASSERT_TRUE(tpstat_lat_end(&st, 0, 11, 8000, &d) && d == 0,
		    "an END whose clock read is before its START's (another CPU) gives 0, not 2^64");
	for (int i = 0; i < MODEL_ENTRIES; i++)
		tpstat_lat_start(&st, 0, 100 + i, 10000);
	ASSERT_EQ(st.dropped, 0, "a full table takes its last entry");
	tpstat_lat_start(&st, 0, 500, 10000);
	ASSERT_EQ(st.dropped, 1, "one more START is dropped, and counted");
	tpstat_lat_start(&st, 0, 100, 10500);
	ASSERT_TRUE(st.dropped == 1 && st.replaced == 2,
		    "a full table still replaces an open key's START");
	memset(slot, 0, sizeof(slot));
}

/* The random test's state: what each event should do, tallied as the code must. */
static struct tpstat_lat_stats rst[2];
static __u64 starts[2], ends[2], matched[2];
static __u32 key_of_time[2][1 << 20];	/* key + 1 of the START at each time (times < 2^20) */
static __u64 now = 2;

/* One random START or END, at the next time. */
static void random_event(void)
{
	__u32 lat = rand() & 1;
	__u64 key = rand() % 12, d;

	now++;
	if (rand() & 1) {
		starts[lat]++;
		key_of_time[lat][now] = key + 1;
		tpstat_lat_start(&rst[lat], lat, key, now);
	} else {
		ends[lat]++;
		if (tpstat_lat_end(&rst[lat], lat, key, now, &d))
			matched[lat]++;
	}
}

/*
 * Random STARTs and ENDs on 12 keys of two latencies, a table of 8, with -EBUSY at random
 * and, between a lookup and its caller's next step, another random event at random (which
 * may free the entry and reuse it for another key): after each, the identities hold and
 * every entry's time is one its own key started at.
 */
static void test_random(void)
{
	bool broken = false, owned = true;

	srand(12345);
	for (int i = 0; i < 200000 && !broken; i++) {
		busy_insert = rand() % 16 == 0;
		busy_delete = rand() % 16 == 0;
		between = rand() % 8 == 0 ? random_event : NULL;
		random_event();
		busy_insert = busy_delete = false;
		between = NULL;
		for (int l = 0; l < 2; l++)
			broken |= starts[l] != matched[l] + open_of(l) + rst[l].replaced +
					       rst[l].dropped + rst[l].start_busy ||
				  ends[l] != matched[l] + rst[l].no_start + rst[l].end_busy;
		for (int k = 0; k < MODEL_ENTRIES; k++)
			if (slot[k].used && slot[k].v.ns > TPSTAT_LAT_FREE)
				owned &= key_of_time[slot[k].k.lat][slot[k].v.ns] == slot[k].k.key + 1 &&
					 slot[k].v.key == slot[k].k.key;
	}
	ASSERT_TRUE(!broken, "after each of 200000 random events (with -EBUSY and interleavings): "
		    "STARTs = matched + open + replaced + dropped + start_busy and ENDs = matched + "
		    "no_start + end_busy, for both latencies");
	ASSERT_TRUE(owned, "every open entry holds a time its own key started at");
	ASSERT_TRUE(rst[0].dropped && rst[0].replaced && rst[0].no_start && matched[0] &&
		    rst[0].start_busy, "the sequence took every path (dropped, replaced, no_start, "
		    "matched, start_busy)");
	printf("# latency 0: %llu starts, %llu ends: %llu matched, %llu open, %llu replaced, "
	       "%llu dropped, %llu start_busy, %llu no_start, %llu end_busy\n",
	       (unsigned long long)starts[0], (unsigned long long)ends[0],
	       (unsigned long long)matched[0], (unsigned long long)open_of(0),
	       (unsigned long long)rst[0].replaced, (unsigned long long)rst[0].dropped,
	       (unsigned long long)rst[0].start_busy, (unsigned long long)rst[0].no_start,
	       (unsigned long long)rst[0].end_busy);
}

int main(void)
{
	test_cases();
	test_contention();
	test_random();
	return test_done();
}
