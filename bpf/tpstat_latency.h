/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --latency 'START:KEY,END:KEY' in tpstat's programs: at START the time is stored under the
 * key's value, at END the time since is taken and the entry removed. Apart from tpstat.bpf.c,
 * as tpstat_count.h is, so that a host test (tests/unit/tpstat-latency.c) runs this very
 * code on a model of the hash map. The includer provides atomics.h, tpstat.h (the table's key
 * and value, the accounting) and three operations on the table of open starts (a BPF hash
 * map in the program):
 *
 *   TPSTAT_LAT_INSERT(key, val)  add, only if the key is absent: 0, -EEXIST, or another error
 *                                (-E2BIG when the table is full, -ENOMEM, -EBUSY)
 *   TPSTAT_LAT_LOOKUP(key)       the value, or NULL
 *   TPSTAT_LAT_DELETE(key)       remove: 0, or an error when it was not there
 *
 * Exact means accounted. Every START is one of:
 *   fresh     it inserted its key; later matched by an END, or still open (in the table)
 *   replaced  its key was already open: its time replaces the open one's (the latest start
 *             counts, as runqlat's)
 *   dropped   no room (or the map said -EBUSY/-ENOMEM), counted
 * and every END one of:
 *   matched   it removed its key's entry: one sample, END's time minus the entry's
 *   no_start  no entry for its key, or another END removed it first
 * Each entry is inserted by exactly one fresh START and removed by at most one END (the
 * delete's result decides which), so at any moment
 *   START's count = matched + open + replaced + dropped (+ errors reading its key)
 *   END's count   = matched + no_start (+ errors reading its key)
 * whatever the interleaving across CPUs. What a race can change is a sample's value, never a
 * count: an END that read an entry's time just before a START replaced it measures from the
 * earlier start.
 */
#ifndef __BAREATOM_TPSTAT_LATENCY_H
#define __BAREATOM_TPSTAT_LATENCY_H

#ifndef EEXIST
#define EEXIST 17
#endif

/* A START of latency @lat for @key at @now. */
static __always_inline void tpstat_lat_start(struct tpstat_lat_stats *st, __u32 lat, __u64 key,
					     __u64 now)
{
	struct tpstat_lat_key k = { .lat = lat, .key = key };
	struct tpstat_lat_start v = { .ns = now }, *open;
	long err;

	/*
	 * An open START for the key is replaced; a new key is inserted. Between the lookup and
	 * the insert another CPU may insert the key (-EEXIST: replace it then) or an END may
	 * remove it (the second insert then finds the key free): twice at most.
	 */
	for (int i = 0; i < 2; i++) {
		open = TPSTAT_LAT_LOOKUP(&k);
		if (open) {
			atomic_xchg(&open->ns, now);
			atomic_add(&st->replaced, 1);
			return;
		}
		err = TPSTAT_LAT_INSERT(&k, &v);
		if (!err)
			return;
		if (err != -EEXIST)
			break;
	}
	atomic_add(&st->dropped, 1);
}

/*
 * An END of latency @lat for @key at @now: true and the time since its START in *@delta
 * when it matched one (0 if that START's clock read came after @now on another CPU).
 */
static __always_inline bool tpstat_lat_end(struct tpstat_lat_stats *st, __u32 lat, __u64 key,
					   __u64 now, __u64 *delta)
{
	struct tpstat_lat_key k = { .lat = lat, .key = key };
	struct tpstat_lat_start *open = TPSTAT_LAT_LOOKUP(&k);
	__u64 then;

	if (!open) {
		atomic_add(&st->no_start, 1);
		return false;
	}
	then = *(volatile __u64 *)&open->ns;
	/* The delete decides which END matched: only one of them removes the entry. */
	if (TPSTAT_LAT_DELETE(&k)) {
		atomic_add(&st->no_start, 1);
		return false;
	}
	*delta = now > then ? now - then : 0;
	return true;
}

#endif /* __BAREATOM_TPSTAT_LATENCY_H */
