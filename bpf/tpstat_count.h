/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting step of tpstat's programs, apart so that a host test
 * (tests/unit/tpstat-cpus.c) runs this very code on a model of the counters. The includer
 * provides atomics.h, tpstat_abi.h, tpstat_update.h, TPSTAT_NOW() (bpf_ktime_get_ns() in
 * BPF), TPSTAT_COUNTER(slot, idx), a pointer to the count of tracepoint idx in slot (or
 * NULL), TPSTAT_TP(idx), a pointer to tracepoint idx's struct tpstat_tp (or NULL), and
 * TPSTAT_PLAIN, true when the kernel refuses a program's nested run on a CPU
 * (tpstat_update.h: a frozen .rodata flag in BPF).
 */
#ifndef __BAREATOM_TPSTAT_COUNT_H
#define __BAREATOM_TPSTAT_COUNT_H

/*
 * Count one hit of tracepoint @idx on @cpu, into the counter the includer's
 * TPSTAT_COUNTER(slot, idx) points to (NULL: none, nothing counted); its CPU set is
 * TPSTAT_TP(idx)'s, looked up only off the common path.
 *
 * A CPU below TPSTAT_SLOTS owns its slot, so the fetch-add's old value says whether this
 * is the CPU's first event: only then is it added to the set and the first CPU claimed.
 * The common path is the compare of @cpu, one add and one branch on its old value. The add
 * is plain with TPSTAT_PLAIN: the slot of tracepoint @idx is written by @idx's program
 * only (one per tracepoint, src/tpstat_progs.c), on this CPU only, and that program's runs
 * on a CPU never overlap (tpstat_update.h).
 * Higher CPUs add to shared slots, which no low CPU uses (a shared old value says
 * nothing, and must not hide a low CPU's first event), and look the set up themselves:
 * their adds, and everything in the struct tpstat_tp, which all CPUs write, stay atomic.
 * CPUs the set cannot name (>= TPSTAT_MAX_CPUS) are still counted, and flag the set as
 * incomplete rather than landing on another CPU's bit.
 */
static __always_inline void tpstat_count(__u32 idx, __u32 cpu)
{
	struct tpstat_tp *tp;
	__u64 bit, old, *c;

	if (cpu < TPSTAT_SLOTS) {
		c = TPSTAT_COUNTER(cpu, idx);
		if (!c || own_fetch_add(TPSTAT_PLAIN, c, 1))
			return;
		tp = TPSTAT_TP(idx);
		if (!tp)
			return;
	} else {
		c = TPSTAT_COUNTER(TPSTAT_SLOTS + (cpu & (TPSTAT_SHARED_SLOTS - 1)), idx);
		if (c)
			atomic_add(c, 1);
		tp = TPSTAT_TP(idx);
		if (!tp)
			return;
		if (cpu >= TPSTAT_MAX_CPUS) {
			/* A plain store: every writer stores the same 1. */
			if (!*(volatile __u64 *)&tp->cpus_beyond)
				*(volatile __u64 *)&tp->cpus_beyond = 1;
			goto first;
		}
	}
	/*
	 * cpu < TPSTAT_MAX_CPUS here, a power of two: the mask changes nothing, but the
	 * verifier sees the bound whichever copy of cpu clang compared above (a program with
	 * more live values, --filter's, spills it and reloads another).
	 */
	asm volatile("" : "+r"(cpu));
	cpu &= TPSTAT_MAX_CPUS - 1;
	bit = 1ULL << (cpu & 63);
	if (*(volatile __u64 *)&tp->cpus[cpu / 64] & bit)
		return;
	old = atomic_fetch_or(&tp->cpus[cpu / 64], bit);
	if (!(old & bit))
		atomic_add(&tp->ncpus, 1);
first:
	if (!*(volatile __u64 *)&tp->first_cpu &&
	    atomic_set_once(&tp->first_cpu, (__u64)cpu + 1))
		tp->first_ns = TPSTAT_NOW();
}

#endif /* __BAREATOM_TPSTAT_COUNT_H */
