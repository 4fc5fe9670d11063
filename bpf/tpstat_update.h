/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Updates of tpstat's counters: plain where one program run owns the memory, atomic where
 * two writers can meet. The includer provides atomics.h.
 *
 * Why a plain load-add-store is exact on memory that one program writes on one CPU only:
 * since Linux 6.1 (commit 05b24ff9b2cf "bpf: Prevent bpf program recursion for raw
 * tracepoint probes", backported to some stable kernels), every raw_tp run goes through
 * kernel/trace/bpf_trace.c (6.1.192, lines 2277-2289):
 *
 *	void __bpf_trace_run(struct bpf_prog *prog, u64 *args)
 *	{
 *		cant_sleep();
 *		if (unlikely(this_cpu_inc_return(*(prog->active)) != 1)) {
 *			bpf_prog_inc_misses_counter(prog);
 *			goto out;
 *		}
 *		rcu_read_lock();
 *		(void) bpf_prog_run(prog, args);
 *		rcu_read_unlock();
 *	out:
 *		this_cpu_dec(*(prog->active));
 *	}
 *
 * The tracepoint calls it with preemption off (cant_sleep()), so a run starts and ends on one
 * CPU; prog->active is per program and per CPU, so while a program runs on a CPU, an
 * interrupt or NMI that fires any tracepoint it is attached to on that CPU finds active != 1
 * and the nested run is refused, counted in the program's recursion_misses (tpstat's
 * "missed"). Two runs of one program on one CPU never overlap, and a slot that only that
 * program writes, only on that CPU, has one writer at a time: a load, an add and a store
 * lose nothing. What another program (a nested run of a different program is allowed), another
 * CPU or user space also writes stays atomic. tpstat's memory, update by update:
 *
 *	counts[plane][slot cpu < TPSTAT_SLOTS][idx]	plain: tracepoint idx has one program,
 *							the slot one CPU
 *	counts[plane][shared slot][idx]			atomic: CPUs >= TPSTAT_SLOTS share it
 *	tp_cpus[idx]: cpus, ncpus, first_cpu, cpus_beyond	atomic (or a store of the same 1):
 *							every CPU writes it
 *	hist_cpu[cpu * nhist + h]			plain: --hist h is of one tracepoint,
 *							the entry of one CPU
 *	hists[h] (.bss, a CPU beyond hist_cpu)		atomic: shared by such CPUs
 *	by_counts value of a key with a cpu key		plain: --by b is of one tracepoint, a
 *							key naming the CPU is only written there
 *	by_counts value of any other key		atomic: every CPU can hit the key
 *	by_stats[b], lat_hist, lat_stats, untracked_forks	atomic: shared by CPUs
 *
 * A kernel without that check (before 6.1) runs a program nested in itself, and a nested
 * run between the load and the store of a plain update would be lost: user space
 * (src/tpstat_guard.c) sets TPSTAT_PLAIN only when the running kernel has the check, and
 * keeps the atomics otherwise. The flag is frozen .rodata, so the verifier removes the path
 * not taken: a program has the plain updates or the atomics, never both.
 *
 * BPF_PROG_TEST_RUN runs a program without prog->active; tpstat never test-runs its own
 * programs, and another root process that does (or that writes tpstat's maps) can make
 * any count wrong, atomic or not.
 *
 * Each macro takes @own: true when the memory is owned (the flag and the owner's
 * condition), and then updates it plainly; otherwise atomically. (min and max, a cmpxchg
 * loop when shared, are a compare and a store when owned: tpstat_extreme() in
 * tpstat_hist.h.)
 */
#ifndef __BAREATOM_TPSTAT_UPDATE_H
#define __BAREATOM_TPSTAT_UPDATE_H

/* *@p += @v. */
#define own_add(own, p, v) do {						\
	if (own)							\
		*(p) += (v);						\
	else								\
		atomic_add((p), (v));					\
} while (0)

/* *@p += @v, returning the value before. */
#define own_fetch_add(own, p, v) ({					\
	__typeof__(*(p)) __old;						\
									\
	if (own) {							\
		__old = *(p);						\
		*(p) = __old + (v);					\
	} else {							\
		__old = atomic_fetch_add((p), (v));			\
	}								\
	__old;								\
})

#endif /* __BAREATOM_TPSTAT_UPDATE_H */
