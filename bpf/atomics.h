/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF atomic idioms the suite uses, by name. Clang (-mcpu=v3) turns each
 * __sync builtin into one BPF atomic instruction (Linux 5.12):
 *
 *   atomic_add(p, v)        __sync_fetch_and_add, result unused  BPF_ADD (xadd)
 *   atomic_fetch_add(p, v)  __sync_fetch_and_add, result used    BPF_ADD | BPF_FETCH
 *   atomic_fetch_or(p, v)   __sync_fetch_and_or                  BPF_OR | BPF_FETCH
 *   atomic_xchg(p, v)       __sync_lock_test_and_set             BPF_XCHG
 *   atomic_cmpxchg(p, o, n) __sync_val_compare_and_swap          BPF_CMPXCHG
 *
 * Two different raw tracepoint programs can nest on one CPU (an interrupt
 * fires a tracepoint while a program runs), and CPUs and user space share
 * memory: what two of them can write is updated with these. Memory that one
 * program writes on one CPU only may be updated plainly on kernels that
 * refuse a program's nested run (bpf/tpstat_update.h).
 */
#ifndef __BAREATOM_ATOMICS_H
#define __BAREATOM_ATOMICS_H

#define atomic_add(p, v)	((void)__sync_fetch_and_add((p), (v)))
#define atomic_fetch_add(p, v)	__sync_fetch_and_add((p), (v))
#define atomic_fetch_or(p, v)	__sync_fetch_and_or((p), (v))
#define atomic_xchg(p, v)	__sync_lock_test_and_set((p), (v))
#define atomic_cmpxchg(p, o, n)	__sync_val_compare_and_swap((p), (o), (n))

/* Set *p to v once: returns true for the one caller that did it. */
#define atomic_set_once(p, v)	(atomic_cmpxchg((p), 0, (v)) == 0)

#endif /* __BAREATOM_ATOMICS_H */
