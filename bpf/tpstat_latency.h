/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --latency 'START:KEY,END:KEY' in tpstat's programs: at START the time is stored under the
 * key's value, at END the time since is taken and the key's home emptied. Apart from
 * tpstat.bpf.c, as tpstat_count.h is, so that a host test (tests/unit/tpstat-latency.c) runs
 * this very code on its own tables. The includer provides atomics.h and tpstat_abi.h, and
 * may define TPSTAT_LAT_RACE(): nothing unless it does (BPF), and in the host test another
 * program's step run between a read and the atomic that depends on it, or while a START
 * holds a way BUSY.
 *
 * No map operation per event: a START's time has a home that stays, and a START or END is a
 * swap of the time in it (an empty home is 0).
 *   cpu,cpu   one word per CPU and latency (struct tpstat_lat_cpu): the key is the CPU the
 *             program runs on, so only that CPU's programs write it;
 *   others    (pid, cgroup, a field) a table of TPSTAT_LAT_BUCKETS buckets per latency,
 *             each of TPSTAT_LAT_WAYS (key, time) ways in one cache line
 *             (struct tpstat_lat_bucket); a key lives in any way of its bucket.
 * A pid is a process, whose START and END can be two of its threads, so task storage (one
 * thread's) is no home for it; nor for a cgroup, or a field. The table needs no delete: an
 * END sets its way's time to EMPTY, and the way is free for the next START of its bucket.
 *
 * Exact means accounted. Every START is one of:
 *   fresh      it took an EMPTY way (or its CPU's empty word); later matched or open
 *   replaced   its key was open: its time replaces the open one's (the latest start counts,
 *              as runqlat's)
 *   dropped    no room: every way of its bucket holds another key's START
 *   start_busy its key's way, or the EMPTY way it chose, changed under it at every try
 * and every END one of:
 *   matched    it swapped its key's START time for EMPTY: one sample
 *   no_start   no way of its bucket holds its key's START
 *   end_busy   its key's way changed under it at every try
 * Each START's time is taken by at most one END or one replacing START (a compare-and-swap
 * from the time read decides), so
 *   START's count = matched + open + replaced + dropped + start_busy (+ errors reading its key)
 *   END's count   = matched + no_start + end_busy (+ errors reading its key)
 * where open counts the homes holding a time (or BUSY: a START writing its key, only while
 * it runs), which user space reads.
 *
 * What is not exact under contention, and why: a swap succeeds on a way that was emptied and
 * taken by another key of its bucket in between only if that key's START read the very same
 * ns (two CPUs reading the clock in the same ns); two STARTs of one key on two CPUs at once
 * can both take an EMPTY way, and the key then has two open STARTs (the older one is matched
 * or replaced later, as a START of its own: the sums still hold).
 */
#ifndef __BAREATOM_TPSTAT_LATENCY_H
#define __BAREATOM_TPSTAT_LATENCY_H

#ifndef TPSTAT_LAT_RACE
#define TPSTAT_LAT_RACE()
#endif

/* Tries of one START or END whose way changed under it, before it gives up, counted busy. */
#define TPSTAT_LAT_TRIES 4

#define TPSTAT_LAT_READ(x)	(*(volatile __typeof__(x) *)&(x))
#define TPSTAT_LAT_WRITE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

/* The bucket of @key in a latency's part of the table (Fibonacci hashing). */
static __always_inline __u32 tpstat_lat_bucket_of(__u64 key)
{
	return (__u32)((key * 0x9e3779b97f4a7c15ULL) >> 32) % TPSTAT_LAT_BUCKETS;
}

/*
 * The cpu-keyed home: @slot is this CPU's word of the latency (NULL: a CPU beyond the
 * array, which a possible CPU never is). Only programs running on this CPU write it, since
 * the key is the CPU they run on; user space only reads it.
 *
 * @plain: START and END are one tracepoint, so one program writes the word, and the kernel
 * does not nest that program on a CPU (6.1's __bpf_trace_run() refuses a second run while
 * the first is under way and counts it in the program's recursion_misses; the caller passes
 * @plain only where tpstat_update.h's TPSTAT_PLAIN says the kernel does), and no other CPU
 * writes it, so a plain load and store are exact. Otherwise START's and END's programs can
 * nest on this CPU (an interrupt's tracepoint runs one inside the other, between a load and
 * a store): an xchg decides which of them had the time. The line is this CPU's alone, so
 * the xchg meets no other CPU.
 */
static __always_inline bool tpstat_lat_cpu_end(struct tpstat_lat_stats *st, __u64 *slot,
					       bool plain, __u64 now, __u64 *delta)
{
	__u64 then = 0;

	if (slot && plain) {
		then = *slot;
		*slot = TPSTAT_LAT_EMPTY;
	} else if (slot) {
		then = atomic_xchg(slot, TPSTAT_LAT_EMPTY);
	}
	if (then == TPSTAT_LAT_EMPTY) {
		atomic_add(&st->no_start, 1);	/* shared by every CPU: atomic, and rare */
		return false;
	}
	*delta = now > then ? now - then : 0;
	return true;
}

static __always_inline void tpstat_lat_cpu_start(struct tpstat_lat_stats *st, __u64 *slot,
						 bool plain, __u64 now)
{
	__u64 old;

	if (!slot) {
		atomic_add(&st->dropped, 1);
		return;
	}
	if (plain) {
		old = *slot;
		*slot = now;
	} else {
		old = atomic_xchg(slot, now);
	}
	if (old != TPSTAT_LAT_EMPTY)
		atomic_add(&st->replaced, 1);
}

/*
 * The table. A way's time is EMPTY, BUSY (a START took it and is writing its key) or a
 * START's time; the key is written only while the way is BUSY, so a program that read a
 * time and then the key has a (time, key) pair of one START when the time is still there
 * at its compare-and-swap. Ways are shared by every CPU and by START's and END's programs,
 * so every change of a time is a compare-and-swap (or the BUSY way's owner's store).
 * Order: a START stores the key before the time; a reader loads the time before the key.
 * Both are volatile (the compiler keeps their order) and x86-64, the only target, keeps
 * stores in order and loads in order (TSO).
 */
enum { TPSTAT_LAT_FRESH, TPSTAT_LAT_REPLACED, TPSTAT_LAT_FULL, TPSTAT_LAT_RACED,
       TPSTAT_LAT_MATCHED, TPSTAT_LAT_NONE };

static __always_inline int tpstat_lat_start_try(struct tpstat_lat_bucket *b, __u64 key, __u64 now)
{
	__u32 empty = TPSTAT_LAT_WAYS;

	for (__u32 w = 0; w < TPSTAT_LAT_WAYS; w++) {
		__u64 t = TPSTAT_LAT_READ(b->ns[w]);

		if (t == TPSTAT_LAT_EMPTY) {
			if (empty == TPSTAT_LAT_WAYS)
				empty = w;
			continue;
		}
		if (t == TPSTAT_LAT_BUSY || TPSTAT_LAT_READ(b->key[w]) != key)
			continue;
		TPSTAT_LAT_RACE();
		return atomic_cmpxchg(&b->ns[w], t, now) == t ? TPSTAT_LAT_REPLACED :
								TPSTAT_LAT_RACED;
	}
	if (empty >= TPSTAT_LAT_WAYS)
		return TPSTAT_LAT_FULL;
	TPSTAT_LAT_RACE();
	if (atomic_cmpxchg(&b->ns[empty], TPSTAT_LAT_EMPTY, TPSTAT_LAT_BUSY) != TPSTAT_LAT_EMPTY)
		return TPSTAT_LAT_RACED;
	/* The way is this START's until it stores a time: no other program writes it. */
	TPSTAT_LAT_RACE();
	TPSTAT_LAT_WRITE(b->key[empty], key);
	TPSTAT_LAT_WRITE(b->ns[empty], now);
	return TPSTAT_LAT_FRESH;
}

/* A START for @key at @now (a clock read, above TPSTAT_LAT_BUSY) in its bucket @b. */
static __always_inline void tpstat_lat_start(struct tpstat_lat_stats *st,
					     struct tpstat_lat_bucket *b, __u64 key, __u64 now)
{
	/* The accounting is shared by every CPU and program: atomic, and off the common path. */
	if (!b) {
		atomic_add(&st->dropped, 1);
		return;
	}
	for (int i = 0; i < TPSTAT_LAT_TRIES; i++) {
		int r = tpstat_lat_start_try(b, key, now);

		if (r == TPSTAT_LAT_FRESH)
			return;
		if (r == TPSTAT_LAT_REPLACED) {
			atomic_add(&st->replaced, 1);
			return;
		}
		if (r == TPSTAT_LAT_FULL) {
			atomic_add(&st->dropped, 1);
			return;
		}
	}
	atomic_add(&st->start_busy, 1);
}

/* @key's START in @b swapped for EMPTY: MATCHED and its time in *@then, NONE, or RACED. */
static __always_inline int tpstat_lat_end_try(struct tpstat_lat_bucket *b, __u64 key, __u64 *then)
{
	for (__u32 w = 0; w < TPSTAT_LAT_WAYS; w++) {
		__u64 t = TPSTAT_LAT_READ(b->ns[w]);

		if (t <= TPSTAT_LAT_BUSY || TPSTAT_LAT_READ(b->key[w]) != key)
			continue;
		TPSTAT_LAT_RACE();
		if (atomic_cmpxchg(&b->ns[w], t, TPSTAT_LAT_EMPTY) != t)
			return TPSTAT_LAT_RACED;
		*then = t;
		return TPSTAT_LAT_MATCHED;
	}
	return TPSTAT_LAT_NONE;
}

/*
 * An END for @key at @now in its bucket @b: true and the time since its START in *@delta
 * when it matched one (0 if that START's clock read came after @now on another CPU).
 */
static __always_inline bool tpstat_lat_end(struct tpstat_lat_stats *st,
					   struct tpstat_lat_bucket *b, __u64 key, __u64 now,
					   __u64 *delta)
{
	__u64 then = 0;

	if (!b)
		goto no_start;
	for (int i = 0; i < TPSTAT_LAT_TRIES; i++) {
		int r = tpstat_lat_end_try(b, key, &then);

		if (r == TPSTAT_LAT_RACED)
			continue;
		if (r == TPSTAT_LAT_NONE)
			goto no_start;
		*delta = now > then ? now - then : 0;
		return true;
	}
	atomic_add(&st->end_busy, 1);
	return false;
no_start:
	atomic_add(&st->no_start, 1);
	return false;
}

#endif /* __BAREATOM_TPSTAT_LATENCY_H */
