/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --latency 'START:KEY,END:KEY' in tpstat's programs: at START the time is stored under the
 * key's value, at END the time since is taken and the entry removed. Apart from tpstat.bpf.c,
 * as tpstat_count.h is, so that a host test (tests/unit/tpstat-latency.c) runs this very
 * code on a model of the hash map. The includer provides atomics.h, tpstat_abi.h (the table's key
 * and value, the accounting) and three operations on the table of open starts (a BPF hash
 * map in the program):
 *
 *   TPSTAT_LAT_INSERT(key, val)  add, only if the key is absent: 0, -EEXIST, or another error
 *                                (-E2BIG when the table is full, -ENOMEM, -EBUSY)
 *   TPSTAT_LAT_LOOKUP(key)       the value, or NULL
 *   TPSTAT_LAT_DELETE(key)       remove: 0, or an error (-EBUSY: the bucket is locked)
 *
 * The map is not a lock: a delete can fail with -EBUSY (a nested run on this CPU holds the
 * bucket's lock), and an entry a program looked up can be deleted, freed and reused for
 * another key before the program writes to it (a preallocated hash map reuses freed
 * elements at once). So an entry's value says who owns it (tpstat_abi.h): a START's time, or
 * CLAIMED (an END took it and is deleting it), or FREE (that delete failed: no START, the
 * next START of its key takes it), and it carries its key, checked after the time is read;
 * every change of the time is a compare-and-swap from the value read, so a program whose
 * entry changed (or was reused) under it looks again, a few times, then gives up counted.
 *
 * Exact means accounted. Every START is one of:
 *   fresh      it inserted its key, or took its key's FREE entry; later matched or open
 *   replaced   its key was open: its time replaces the open one's (the latest start counts,
 *              as runqlat's)
 *   dropped    no room: the table is full (-E2BIG, -ENOMEM)
 *   start_busy the table said -EBUSY, or the entry changed under it at every try
 * and every END one of:
 *   matched    it claimed its key's START (time -> CLAIMED): one sample
 *   no_start   no entry for its key, or one another END has claimed (CLAIMED, FREE)
 *   end_busy   its key's entry changed under it at every try
 * Each START's time is claimed by at most one END (the compare-and-swap decides), a claimed
 * entry is deleted or becomes FREE, never a START again but by a START's own swap, so
 *   START's count = matched + open + replaced + dropped + start_busy (+ errors reading its key)
 *   END's count   = matched + no_start + end_busy (+ errors reading its key)
 * where open counts the entries holding a time (not CLAIMED, not FREE).
 *
 * What is not exact under contention, and why: a program's swap succeeds on an entry that
 * was freed and reused for another key only if that key's START stored the very same ns
 * (two CPUs reading the clock in the same ns); and FREE entries (a failed delete, only in a
 * nested run) keep their room until a START of their key takes them. Both need a table the
 * program owns (a latency redesign, planned after issue 35); until then tpstat says how
 * many STARTs and ENDs were busy rather than calling them full or unmatched.
 */
#ifndef __BAREATOM_TPSTAT_LATENCY_H
#define __BAREATOM_TPSTAT_LATENCY_H

#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef EBUSY
#define EBUSY 16
#endif

/* Lookups of one START or END before it gives up, counted as busy. */
#define TPSTAT_LAT_TRIES 4

/* The time of @open, if it is still the entry of @lat's @key (read in this order). */
static __always_inline __u64 tpstat_lat_time(struct tpstat_lat_start *open, __u32 lat, __u64 key,
					     bool *mine)
{
	__u64 ns = *(volatile __u64 *)&open->ns;

	*mine = *(volatile __u64 *)&open->key == key && *(volatile __u32 *)&open->lat == lat;
	return ns;
}

/* A START of latency @lat for @key at @now (a clock read, above TPSTAT_LAT_FREE). */
static __always_inline void tpstat_lat_start(struct tpstat_lat_stats *st, __u32 lat, __u64 key,
					     __u64 now)
{
	struct tpstat_lat_key k = { .lat = lat, .key = key };
	struct tpstat_lat_start v = { .ns = now, .key = key, .lat = lat }, *open;
	__u64 old;
	bool mine;
	long err;

	for (int i = 0; i < TPSTAT_LAT_TRIES; i++) {
		open = TPSTAT_LAT_LOOKUP(&k);
		if (open) {
			old = tpstat_lat_time(open, lat, key, &mine);
			/* Reused for another key, or being deleted by its END: look again. */
			if (!mine || old == TPSTAT_LAT_CLAIMED)
				continue;
			if (atomic_cmpxchg(&open->ns, old, now) != old)
				continue;
			if (old != TPSTAT_LAT_FREE)
				atomic_add(&st->replaced, 1);
			return;
		}
		err = TPSTAT_LAT_INSERT(&k, &v);
		if (!err)
			return;
		if (err == -EEXIST)	/* another CPU inserted the key: look again */
			continue;
		if (err == -EBUSY)
			break;
		atomic_add(&st->dropped, 1);
		return;
	}
	atomic_add(&st->start_busy, 1);
}

/*
 * An END of latency @lat for @key at @now: true and the time since its START in *@delta
 * when it matched one (0 if that START's clock read came after @now on another CPU).
 */
static __always_inline bool tpstat_lat_end(struct tpstat_lat_stats *st, __u32 lat, __u64 key,
					   __u64 now, __u64 *delta)
{
	struct tpstat_lat_key k = { .lat = lat, .key = key };
	struct tpstat_lat_start *open;
	__u64 then;
	bool mine;

	for (int i = 0; i < TPSTAT_LAT_TRIES; i++) {
		open = TPSTAT_LAT_LOOKUP(&k);
		if (!open)
			goto no_start;
		then = tpstat_lat_time(open, lat, key, &mine);
		if (!mine)	/* freed and reused under us: look again */
			continue;
		if (then == TPSTAT_LAT_CLAIMED || then == TPSTAT_LAT_FREE)
			goto no_start;	/* another END has it: no START for this one */
		if (atomic_cmpxchg(&open->ns, then, TPSTAT_LAT_CLAIMED) != then)
			continue;
		/*
		 * Claimed: only this END deletes the entry, and no START takes a CLAIMED one, so
		 * the key's entry is this one. A delete the bucket's lock refuses leaves it FREE
		 * for the key's next START: never a stale START for the next END.
		 */
		if (TPSTAT_LAT_DELETE(&k))
			*(volatile __u64 *)&open->ns = TPSTAT_LAT_FREE;
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
