// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-latency: --latency's START and END steps (bpf/tpstat_latency.h, the code the BPF
 * programs run) on a model of the BPF hash map with the same answers (-EEXIST, -E2BIG when
 * full, -ENOENT), in a fixed small case by case and then over long random sequences of
 * STARTs and ENDs on a table small enough to fill: every sample is END's time minus its
 * key's latest START, and the accounting identities hold exactly after every event.
 * TAP output.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "atomics.h"
#include "tpstat.h"
#include "test.h"

/* The hash map: a few slots, as a BPF_MAP_TYPE_HASH with max_entries MODEL_ENTRIES. */
#define MODEL_ENTRIES 8

static int model_insert(const struct tpstat_lat_key *k, const struct tpstat_lat_start *v);
static struct tpstat_lat_start *model_lookup(const struct tpstat_lat_key *k);
static int model_delete(const struct tpstat_lat_key *k);

#define TPSTAT_LAT_INSERT(k, v) model_insert(k, v)
#define TPSTAT_LAT_LOOKUP(k) model_lookup(k)
#define TPSTAT_LAT_DELETE(k) model_delete(k)
#include "tpstat_latency.h"

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

static int model_insert(const struct tpstat_lat_key *k, const struct tpstat_lat_start *v)
{
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

	return i < 0 ? NULL : &slot[i].v;
}

static int model_delete(const struct tpstat_lat_key *k)
{
	int i = find(k);

	if (i < 0)
		return -ENOENT;
	slot[i].used = false;
	return 0;
}

/* Entries of latency @lat in the table: what user space shows as open. */
static __u64 open_of(__u32 lat)
{
	__u64 n = 0;

	for (int i = 0; i < MODEL_ENTRIES; i++)
		n += slot[i].used && slot[i].k.lat == lat;
	return n;
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

/*
 * Random STARTs and ENDs on 12 keys of two latencies, a table of 8: every case in turn,
 * checked against a plain model of what each event should do.
 */
static void test_random(void)
{
	struct tpstat_lat_stats st[2] = {};
	__u64 starts[2] = {}, ends[2] = {}, matched[2] = {}, sum[2] = {}, want_sum[2] = {};
	__u64 latest[2][12] = {};
	bool broken = false, values_ok = true;
	__u64 now = 1;

	srand(12345);
	for (int i = 0; i < 200000 && !broken; i++) {
		__u32 lat = rand() & 1;
		__u64 key = rand() % 12, d;
		bool open = model_lookup(&(struct tpstat_lat_key){ .lat = lat, .key = key }) != NULL;

		now += 1 + rand() % 1000;
		if (rand() & 1) {
			starts[lat]++;
			tpstat_lat_start(&st[lat], lat, key, now);
			if (open || model_lookup(&(struct tpstat_lat_key){ .lat = lat, .key = key }))
				latest[lat][key] = now;
		} else {
			ends[lat]++;
			if (tpstat_lat_end(&st[lat], lat, key, now, &d)) {
				matched[lat]++;
				sum[lat] += d;
				want_sum[lat] += now - latest[lat][key];
				values_ok &= open && d == now - latest[lat][key];
			} else {
				values_ok &= !open;
			}
		}
		for (int l = 0; l < 2; l++)
			broken |= starts[l] != matched[l] + open_of(l) + st[l].replaced + st[l].dropped ||
				  ends[l] != matched[l] + st[l].no_start;
	}
	ASSERT_TRUE(!broken, "after each of 200000 random events: STARTs = matched + open + "
		    "replaced + dropped and ENDs = matched + no_start, for both latencies");
	ASSERT_TRUE(values_ok, "every END matched exactly when its key was open, measuring from "
		    "the key's latest START");
	ASSERT_TRUE(sum[0] == want_sum[0] && sum[1] == want_sum[1], "the sums of the samples agree");
	ASSERT_TRUE(st[0].dropped > 0 && st[0].replaced > 0 && st[0].no_start > 0 && matched[0] > 0,
		    "the sequence took every path (dropped, replaced, no_start, matched)");
	printf("# latency 0: %llu starts, %llu ends: %llu matched, %llu open, %llu replaced, "
	       "%llu dropped, %llu no_start\n", (unsigned long long)starts[0],
	       (unsigned long long)ends[0], (unsigned long long)matched[0],
	       (unsigned long long)open_of(0), (unsigned long long)st[0].replaced,
	       (unsigned long long)st[0].dropped, (unsigned long long)st[0].no_start);
}

int main(void)
{
	test_cases();
	test_random();
	return test_done();
}
