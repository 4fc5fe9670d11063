// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-latency: --latency's START and END steps (bpf/tpstat_latency.h, the code the BPF
 * programs run) on the homes the programs give them: a word per CPU (cpu,cpu latencies,
 * plain and with xchg) and the table of buckets (the others), here an array laid out as
 * lat_table is. TPSTAT_LAT_RACE() runs another program's step between a read and the atomic
 * that depends on it, or while a START holds its way BUSY (another CPU, or a nested run of
 * another program): in fixed small cases one by one, then over long random sequences of
 * STARTs and ENDs on keys that share a bucket (so that it fills), with interleavings at
 * random: the accounting identities hold exactly after every event, every open way holds
 * a time its own key started at, and every sample is from its own key's START. TAP output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/atomics.h"
#include "bpf/tpstat_abi.h"
#include "tests/unit/test.h"

/* Run once at the next race point, with no race point inside it. */
static void (*between)(void);
/* Run at every race point (and re-armed), for the "every try lost" cases. */
static void (*always)(void);
static bool racing;

static void race(void)
{
	void (*run)(void) = between ? between : always;

	if (racing || !run)
		return;
	between = NULL;
	racing = true;
	run();
	racing = false;
}

#define TPSTAT_LAT_RACE() race()
#include "bpf/tpstat_latency.h"

/* Two latencies' parts of the table, as lat_table's entries l * TPSTAT_LAT_BUCKETS + b. */
static struct tpstat_lat_bucket table[2][TPSTAT_LAT_BUCKETS];

static struct tpstat_lat_bucket *bucket(__u32 lat, __u64 key)
{
	return &table[lat][tpstat_lat_bucket_of(key)];
}

static void start(struct tpstat_lat_stats *st, __u32 lat, __u64 key, __u64 now)
{
	tpstat_lat_start(st, bucket(lat, key), key, now);
}

static bool end(struct tpstat_lat_stats *st, __u32 lat, __u64 key, __u64 now, __u64 *d)
{
	return tpstat_lat_end(st, bucket(lat, key), key, now, d);
}

/* The ways of @lat's bucket @b holding a time (or BUSY): what user space shows as open. */
static __u64 open_in(__u32 lat, __u32 b)
{
	__u64 n = 0;

	for (int w = 0; w < TPSTAT_LAT_WAYS; w++)
		n += table[lat][b].ns[w] != TPSTAT_LAT_EMPTY;
	return n;
}

static __u64 open_of(__u32 lat)
{
	__u64 n = 0;

	for (__u32 b = 0; b < TPSTAT_LAT_BUCKETS; b++)
		n += open_in(lat, b);
	return n;
}

/* The time in @lat's @key's way, 0 when it has none (the first, if it has two). */
static __u64 time_of(__u32 lat, __u64 key)
{
	struct tpstat_lat_bucket *b = bucket(lat, key);

	for (int w = 0; w < TPSTAT_LAT_WAYS; w++)
		if (b->ns[w] > TPSTAT_LAT_BUSY && b->key[w] == key)
			return b->ns[w];
	return 0;
}

/* Keys 0 and same[1..] share a bucket; other[] are in buckets of their own. */
static __u64 same[8], other[8];

static void find_keys(void)
{
	int ns = 0, no = 0;

	for (__u64 k = 0; ns < 8 || no < 8; k++) {
		__u32 b = tpstat_lat_bucket_of(k);
		bool taken = false;

		if (b == tpstat_lat_bucket_of(0)) {
			if (ns < 8)
				same[ns++] = k;
			continue;
		}
		for (int i = 0; i < no; i++)
			taken |= tpstat_lat_bucket_of(other[i]) == b;
		if (!taken && no < 8)
			other[no++] = k;
	}
}

static void reset(void)
{
	memset(table, 0, sizeof(table));
	between = always = NULL;
}

static void test_cpu_home(void)
{
	for (int plain = 1; plain >= 0; plain--) {
		struct tpstat_lat_stats st = {};
		__u64 slot = TPSTAT_LAT_EMPTY, d = 0;

		ASSERT_TRUE(!tpstat_lat_cpu_end(&st, &slot, plain, 1000, &d) && st.no_start == 1,
			    plain ? "plain: an END with no START on its CPU has no start" :
				    "xchg: an END with no START on its CPU has no start");
		tpstat_lat_cpu_start(&st, &slot, plain, 1000);
		ASSERT_TRUE(slot == 1000 && !st.replaced, "a START is open in its CPU's word");
		tpstat_lat_cpu_start(&st, &slot, plain, 1200);
		ASSERT_TRUE(slot == 1200 && st.replaced == 1, "a START twice: one replaced");
		ASSERT_TRUE(tpstat_lat_cpu_end(&st, &slot, plain, 1500, &d) && d == 300 &&
			    slot == TPSTAT_LAT_EMPTY, "the END measures from the latest (300 ns) "
			    "and empties the word");
		tpstat_lat_cpu_start(&st, &slot, plain, 2000);
		ASSERT_TRUE(tpstat_lat_cpu_end(&st, &slot, plain, 1900, &d) && d == 0,
			    "an END whose clock read is before its START's gives 0");
		tpstat_lat_cpu_start(&st, NULL, plain, 2000);
		ASSERT_TRUE(!tpstat_lat_cpu_end(&st, NULL, plain, 2100, &d) && st.dropped == 1 &&
			    st.no_start == 2, "a CPU beyond the array: START dropped, END without "
			    "a start, both counted");
	}
}

static void test_cases(void)
{
	struct tpstat_lat_stats st = {};
	__u32 b0 = tpstat_lat_bucket_of(same[0]);
	__u64 d = 0;

	reset();
	start(&st, 0, 42, 1000);
	ASSERT_TRUE(end(&st, 0, 42, 1750, &d) && d == 750,
		    "START then END of one key: one sample of 750 ns");
	ASSERT_EQ(open_of(0), 0, "and its way is EMPTY again");
	ASSERT_TRUE(!end(&st, 0, 42, 2000, &d) && st.no_start == 1,
		    "a second END of that key has no START");
	start(&st, 0, 7, 3000);
	start(&st, 0, 7, 3500);
	ASSERT_TRUE(st.replaced == 1 && open_of(0) == 1,
		    "a second START of an open key is counted as replaced, in the same way");
	ASSERT_TRUE(end(&st, 0, 7, 4000, &d) && d == 500,
		    "and the END measures from the latest START");
	start(&st, 0, 9, 5000);
	start(&st, 1, 9, 5100);
	ASSERT_TRUE(end(&st, 1, 9, 5200, &d) && d == 100 && open_of(0) == 1 && !open_of(1),
		    "the same key of two --latency pairs: a way in each one's part");
	ASSERT_TRUE(end(&st, 0, 9, 6000, &d) && d == 1000, "each matched by its own END");
	ASSERT_TRUE(!end(&st, 0, 99, 5000, &d) && st.no_start == 2, "an END with no START at all");
	start(&st, 0, 11, 9000);
	ASSERT_TRUE(end(&st, 0, 11, 8000, &d) && d == 0,
		    "an END whose clock read is before its START's (another CPU) gives 0, not 2^64");

	reset();
	st = (struct tpstat_lat_stats){};
	for (int i = 0; i < TPSTAT_LAT_WAYS; i++)
		start(&st, 0, same[i], 10000 + i);
	ASSERT_TRUE(st.dropped == 0 && open_in(0, b0) == TPSTAT_LAT_WAYS,
		    "4 keys of one bucket fill its 4 ways");
	start(&st, 0, same[TPSTAT_LAT_WAYS], 10500);
	ASSERT_TRUE(st.dropped == 1 && !time_of(0, same[TPSTAT_LAT_WAYS]),
		    "one more START of that bucket is dropped, and counted");
	ASSERT_TRUE(!end(&st, 0, same[TPSTAT_LAT_WAYS], 10600, &d) && st.no_start == 1,
		    "and its END has no start");
	start(&st, 0, same[1], 11000);
	ASSERT_TRUE(st.dropped == 1 && st.replaced == 1 && time_of(0, same[1]) == 11000,
		    "a full bucket still replaces an open key's START");
	start(&st, 0, other[0], 11000);
	ASSERT_TRUE(st.dropped == 1 && time_of(0, other[0]) == 11000,
		    "another bucket has room");
	ASSERT_TRUE(end(&st, 0, same[2], 12000, &d) && d == 12000 - 10002,
		    "an END frees its way of the full bucket (no delete: its time is EMPTY)");
	start(&st, 0, same[TPSTAT_LAT_WAYS], 12500);
	ASSERT_TRUE(st.dropped == 1 && time_of(0, same[TPSTAT_LAT_WAYS]) == 12500,
		    "and the next START of that bucket takes the way");
	ASSERT_EQ(open_of(0), TPSTAT_LAT_WAYS + 1, "starts that never end stay open, counted: 5");
	reset();
}

/* What runs at a race point in the cases below (the other program's steps, its own stats). */
static struct tpstat_lat_stats race_st;
static __u64 race_now = 1900, race_d;
static void end_then_start_other(void)
{
	end(&race_st, 0, same[0], race_now, &race_d);		/* empties key same[0]'s way */
	start(&race_st, 0, same[1], race_now + 50);	/* same[1] takes it at once */
}
static void end_it(void)
{
	end(&race_st, 0, same[0], race_now, &race_d);
}
static void start_other(void)
{
	start(&race_st, 0, same[1], race_now);
}
static void start_it_again(void)
{
	start(&race_st, 0, same[0], race_now++);
}

/*
 * The interleavings the table allows: a START or END whose way was emptied and taken by
 * another key between its read and its swap leaves that key's time alone; two ENDs never
 * take one START; a START that loses an EMPTY way takes another; an END meets a way a
 * START holds BUSY; a way that changes at every try is counted busy.
 */
static void test_contention(void)
{
	struct tpstat_lat_stats st = {};
	__u64 d = 0;

	reset();
	start(&st, 0, same[0], 1000);
	between = end_then_start_other;
	start(&st, 0, same[0], 2000);
	ASSERT_EQ(time_of(0, same[1]), 1950, "a START whose way was emptied and taken by another "
		  "key under it leaves that key's time alone");
	ASSERT_TRUE(time_of(0, same[0]) == 2000 && st.replaced == 0 && st.start_busy == 0 &&
		    race_st.no_start == 0 && race_d == 900,
		    "and takes a way afresh (not replaced); the other END matched the first START");

	reset();
	st = race_st = (struct tpstat_lat_stats){};
	start(&st, 0, same[0], 1000);
	between = end_it;
	ASSERT_TRUE(!end(&st, 0, same[0], 2000, &d) && st.no_start == 1 && !st.end_busy,
		    "an END that lost its key's START to another END has no start");
	ASSERT_TRUE(race_d == 900 && !open_of(0), "the other END has the sample; nothing is open");

	reset();
	st = race_st = (struct tpstat_lat_stats){};
	start(&st, 0, same[1], 1000);
	between = end_then_start_other;
	ASSERT_TRUE(end(&st, 0, same[1], 2000, &d) && d == 50 && race_st.replaced == 1,
		    "an END whose key's START was replaced under it measures from the new one");

	reset();
	st = race_st = (struct tpstat_lat_stats){};
	race_now = 1500;
	between = start_other;
	start(&st, 0, same[0], 1000);
	ASSERT_TRUE(time_of(0, same[0]) == 1000 && time_of(0, same[1]) == 1500 &&
		    open_in(0, tpstat_lat_bucket_of(0)) == 2 && !st.start_busy,
		    "a START that lost the EMPTY way it chose to another START takes the next");

	reset();
	st = race_st = (struct tpstat_lat_stats){};
	race_now = 1000;
	start(&st, 0, same[0], 900);
	always = start_it_again;	/* another CPU restarts the key at every race point */
	start(&st, 0, same[0], 5000);
	always = NULL;
	ASSERT_TRUE(st.start_busy == 1 && !st.replaced && !st.dropped,
		    "a START whose key's way changed under it at every try is start_busy");
	st = race_st = (struct tpstat_lat_stats){};
	always = start_it_again;
	ASSERT_TRUE(!end(&st, 0, same[0], 9000, &d) && st.end_busy == 1 && !st.no_start,
		    "an END whose key's way changed under it at every try is end_busy");
	always = NULL;
	ASSERT_TRUE(race_st.replaced == TPSTAT_LAT_TRIES && open_of(0) == 1,
		    "each change was another START that replaced the key's time, 4 of them");
	reset();
}

/* The points at which a START into an empty bucket can meet another program. */
static int point, end_at;
static struct tpstat_lat_stats busy_st;
static bool busy_hit;
static void end_at_point(void)
{
	__u64 d;

	if (++point == end_at)
		busy_hit = end(&busy_st, 0, same[0], 5000, &d);
	else
		always = end_at_point;
}

static void test_busy_way(void)
{
	struct tpstat_lat_stats st = {};

	reset();
	point = 0;
	end_at = 2;
	always = end_at_point;
	start(&st, 0, same[0], 4000);
	always = NULL;
	ASSERT_TRUE(!busy_hit && busy_st.no_start == 1 && time_of(0, same[0]) == 4000,
		    "an END that meets its key's START holding its way BUSY has no start "
		    "(the START comes after it), and the START is then open");
	reset();
}

/* The random test's state: what each event should do, tallied as the code must. */
static struct tpstat_lat_stats rst[2];
static __u64 starts[2], ends[2], matched[2];
static bool wrong_sample;
static __u32 key_of_time[2][1 << 20];	/* key index + 1 of the START at each time */
static __u64 now = 2;
static __u64 keys[12];

/* One random START or END, at the next time. */
static void random_event(void)
{
	__u32 lat = rand() & 1, ki = rand() % 12;
	__u64 key = keys[ki], d, t = ++now;	/* a nested event moves now on */

	if (rand() & 1) {
		starts[lat]++;
		key_of_time[lat][t] = ki + 1;
		start(&rst[lat], lat, key, t);
	} else {
		ends[lat]++;
		if (end(&rst[lat], lat, key, t, &d)) {
			matched[lat]++;
			/* 0: a nested START read the clock after this END (it tells no time) */
			wrong_sample |= d && key_of_time[lat][t - d] != ki + 1;
		}
	}
}

/*
 * Random STARTs and ENDs on 12 keys of two latencies, 6 of them sharing a bucket of 4
 * ways, and, at race points, another random event at random: after each, the identities
 * hold and every open way's time is one its own key started at.
 */
static void test_random(void)
{
	bool broken = false, owned = true;

	for (int i = 0; i < 6; i++) {
		keys[i] = same[i];
		keys[6 + i] = other[i];
	}
	reset();
	srand(12345);
	for (int i = 0; i < 200000 && !broken; i++) {
		between = rand() % 4 == 0 ? random_event : NULL;
		random_event();
		between = NULL;
		for (int l = 0; l < 2; l++) {
			__u64 open = 0;

			for (int k = 0; k < 12; k++)	/* each bucket once */
				if (k < 1 || k >= 6)
					open += open_in(l, tpstat_lat_bucket_of(keys[k]));
			broken |= starts[l] != matched[l] + open + rst[l].replaced +
					       rst[l].dropped + rst[l].start_busy ||
				  ends[l] != matched[l] + rst[l].no_start + rst[l].end_busy;
			for (int k = 0; k < 12; k++) {
				struct tpstat_lat_bucket *b = bucket(l, keys[k]);

				for (int w = 0; w < TPSTAT_LAT_WAYS; w++)
					if (b->ns[w] > TPSTAT_LAT_BUSY && b->key[w] == keys[k])
						owned &= key_of_time[l][b->ns[w]] == (__u32)k + 1;
			}
		}
	}
	ASSERT_TRUE(!broken, "after each of 200000 random events (with interleavings): "
		    "STARTs = matched + open + replaced + dropped + start_busy and ENDs = matched + "
		    "no_start + end_busy, for both latencies");
	ASSERT_TRUE(owned, "every open way holds a time its own key started at");
	ASSERT_TRUE(!wrong_sample, "every sample is the time since its own key's START");
	ASSERT_TRUE(rst[0].dropped && rst[0].replaced && rst[0].no_start && matched[0],
		    "the sequence took every path (dropped, replaced, no_start, matched)");
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
	find_keys();
	test_cpu_home();
	test_cases();
	test_contention();
	test_busy_way();
	test_random();
	return test_done();
}
