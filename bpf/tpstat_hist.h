/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --hist and --value in tpstat's programs: read a field of the tracepoint's arguments and
 * record it, in the same program run as the count, so that samples + errors = count exactly
 * and the kernel's recursion misses are the same for both. Apart from tpstat.bpf.c so that
 * the bucket arithmetic and the 128-bit sums are also compiled into a host test. The includer
 * provides atomics.h, tpstat_abi.h and tpstat_update.h (which says when an update may be
 * plain).
 */
#ifndef __BAREATOM_TPSTAT_HIST_H
#define __BAREATOM_TPSTAT_HIST_H

/* The log2 bucket of @v (signed or not as @is_signed says): see TPSTAT_HIST_BUCKETS. */
static __always_inline __u32 tpstat_bucket(__u64 v, bool is_signed)
{
	__u32 k = 0, base = 0;

	if (is_signed && (__s64)v < 0) {
		v = -v;		/* the magnitude; INT64_MIN's is 2^63, bucket 64 */
		base = 64;
	}
	if (!v)
		return 0;
	/* k = the index of the highest bit set, plus one (no clz in BPF). */
	if (v >> 32) {
		k += 32;
		v >>= 32;
	}
	if (v >> 16) {
		k += 16;
		v >>= 16;
	}
	if (v >> 8) {
		k += 8;
		v >>= 8;
	}
	if (v >> 4) {
		k += 4;
		v >>= 4;
	}
	if (v >> 2) {
		k += 2;
		v >>= 2;
	}
	if (v >> 1)
		k += 1;
	return base + k + 1;
}

/* The linear bucket of @v for --lhist (@f's lmin, lmax, lstep; see tpstat_abi.h). */
static __always_inline __u32 tpstat_lbucket(__u64 v, const volatile struct tpstat_field *f)
{
	__u64 k;

	if (f->is_signed ? (__s64)v < f->lmin : v < (__u64)f->lmin)
		return 0;
	if (f->is_signed ? (__s64)v >= f->lmax : v >= (__u64)f->lmax)
		return TPSTAT_LHIST_MAX + 1;
	k = (v - (__u64)f->lmin) / (f->lstep ? f->lstep : 1);
	return k < TPSTAT_LHIST_MAX ? (__u32)k + 1 : TPSTAT_LHIST_MAX;
}

/* Sign-extend or mask @v, read as @f's integer, to 64 bits. */
static __always_inline __u64 tpstat_field_value(const volatile struct tpstat_field *f, __u64 v)
{
	__u32 bits;

	/* The common case first, a branch on .rodata that the verifier removes. */
	if (!f->bit_size && f->size >= sizeof(v))
		return v;
	bits = f->bit_size ? f->bit_size : f->size * 8;
	if (f->bit_size)
		v >>= f->bit_off;
	if (bits >= 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (f->is_signed && (v >> (bits - 1)))
		v |= ~0ULL << bits;
	return v;
}

/*
 * Add @v to the 128-bit two's complement sum @hi:@lo: the high word gains the carry out of
 * the low one and, for a negative value, its sign extension (-1). The two cancel for most
 * negative values, so the common path is one fetch add, a compare and a branch: the high
 * word's add runs only when the sum crosses 2^64 (either way). Plain when @own
 * (tpstat_update.h), atomic otherwise.
 */
static __always_inline void tpstat_sum128_add(__u64 *lo, __u64 *hi, __u64 v, bool is_signed,
					      bool own)
{
	__u64 old = own_fetch_add(own, lo, v);
	__u64 carry = (__u64)(old + v < old) - (__u64)(is_signed && (__s64)v < 0);

	if (carry)
		own_add(own, hi, carry);
}

/*
 * The one min/max update: lower *@p to @v (raise, with @max) when @v is beyond it. Owned
 * (@own), a compare and a store; shared, a bounded cmpxchg loop, false when it gave up
 * after TPSTAT_MINMAX_TRIES (the caller counts it as lost).
 */
static __always_inline bool tpstat_extreme(__u64 *p, __u64 v, bool sg, bool max, bool own)
{
	__u64 old = *(volatile __u64 *)p;

	if (own) {
		if (max ? (sg ? (__s64)v > (__s64)old : v > old) :
			  (sg ? (__s64)v < (__s64)old : v < old))
			*p = v;
		return true;
	}
	for (int i = 0; i < TPSTAT_MINMAX_TRIES; i++) {
		__u64 seen;

		if (max ? (sg ? (__s64)v <= (__s64)old : v <= old) :
			  (sg ? (__s64)v >= (__s64)old : v >= old))
			return true;
		seen = atomic_cmpxchg(p, old, v);
		if (seen == old)
			return true;
		old = seen;
	}
	return false;
}

/*
 * Record @v in bucket @b: one add to the bucket, one to the sum's low word (whose old value
 * tells the carry into its high word), min and max. samples is not kept here: it is the
 * buckets' sum (tpstat_hist_samples()), one add less. @own: @h is one CPU's copy, written by
 * one program only, and the kernel refuses that program's nested runs (tpstat_update.h):
 * plain updates. Otherwise BPF_ADD, and cmpxchg loops for min and max.
 */
static __always_inline void tpstat_hist_update(struct tpstat_hist *h, __u64 v, bool is_signed,
					       __u32 b, bool own)
{
	/*
	 * b < TPSTAT_HIST_BUCKETS already; the verifier needs to see it on the register that
	 * indexes. Clang knows the range and may test one copy of b and index with another,
	 * so hide the value from it and mask the index itself.
	 */
	asm volatile("" : "+r"(b));
	own_add(own, &h->buckets[b & (TPSTAT_HIST_SLOTS - 1)], 1);
	tpstat_sum128_add(&h->sum, &h->sum_hi, v, is_signed, own);
	if (!tpstat_extreme(&h->min, v, is_signed, false, own))
		atomic_add(&h->minmax_lost, 1);
	if (!tpstat_extreme(&h->max, v, is_signed, true, own))
		atomic_add(&h->minmax_lost, 1);
}

/*
 * Record @v, read for @f (its --lhist bounds, or log2), in @h: its bucket, then
 * tpstat_hist_update(). Callers pass @sg (signed) and @own (plain updates) as constants, one
 * call per case, so that each is compiled for its case alone (clang would otherwise fold the
 * flags into selects that the verifier cannot remove, and every event would pay for every
 * kind of field).
 */
static __always_inline void tpstat_hist_value(const volatile struct tpstat_field *f,
					      struct tpstat_hist *h, __u64 v, bool sg, bool own)
{
	tpstat_hist_update(h, v, sg, f->linear ? tpstat_lbucket(v, f) : tpstat_bucket(v, sg), own);
}

/* Record @v in @h, which several CPUs or programs may write (atomics): bucket @b. */
static __always_inline void tpstat_hist_record(struct tpstat_hist *h, __u64 v, bool is_signed,
					       __u32 b)
{
	tpstat_hist_update(h, v, is_signed, b, false);
}

/* --value: a new key's first value @v (@sg: signed), its count 1. */
static __always_inline struct tpstat_by_val tpstat_by_value_first(__u64 v, bool sg)
{
	return (struct tpstat_by_val){ .count = 1, .sum = v, .min = v, .max = v,
				       .sum_hi = sg && (__s64)v < 0 ? ~0ULL : 0 };
}

/*
 * --value: add @v to an existing key's 128-bit sum, min and max (@sg: signed); min/max
 * updates given up after TPSTAT_MINMAX_TRIES are counted in @st (shared: atomic). Plain
 * when @own (the key is written on one CPU by one program: tpstat_update.h). The count is
 * the caller's.
 */
static __always_inline void tpstat_by_value_update(struct tpstat_by_val *c, __u64 v, bool sg,
						   struct tpstat_by_stats *st, bool own)
{
	tpstat_sum128_add(&c->sum, &c->sum_hi, v, sg, own);
	if (!tpstat_extreme(&c->min, v, sg, false, own))
		atomic_add(&st->minmax_lost, 1);
	if (!tpstat_extreme(&c->max, v, sg, true, own))
		atomic_add(&st->minmax_lost, 1);
}

/* tpstat_by_value_update() of a key several CPUs may write. */
static __always_inline void tpstat_by_value_add(struct tpstat_by_val *c, __u64 v, bool sg,
						struct tpstat_by_stats *st)
{
	tpstat_by_value_update(c, v, sg, st, false);
}

/* The values recorded in @h: its buckets' sum. */
static inline __u64 tpstat_hist_samples(const struct tpstat_hist *h)
{
	__u64 n = 0;

	for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
		n += h->buckets[k];
	return n;
}

#endif /* __BAREATOM_TPSTAT_HIST_H */
