/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --filter's comparison, the one definition of what a filter keeps: compiled into
 * tpstat's programs and into the host (src/tpfilter.c, tests/unit/tpfilter.c), so the test
 * of the semantics is a test of the very code the program runs. The includer provides
 * __u64 and bool (vmlinux.h in BPF, linux/types.h and stdbool.h on the host).
 */
#ifndef __BAREATOM_TPFILTER_EVAL_H
#define __BAREATOM_TPFILTER_EVAL_H

enum tpfilter_op {
	TPFILTER_EQ,		/* == */
	TPFILTER_NE,		/* != */
	TPFILTER_LT,		/* <  */
	TPFILTER_LE,		/* <= */
	TPFILTER_GT,		/* >  */
	TPFILTER_GE,		/* >= */
	TPFILTER_AND,		/* &: some bit of VALUE is set */
	TPFILTER_NR_OPS,
};

/* What a filter compares: a field of the arguments, or a key of the current task. */
enum tpfilter_key {
	TPFILTER_KEY_EXPR,
	TPFILTER_KEY_CPU,
	TPFILTER_KEY_PID,
	TPFILTER_KEY_COMM,
	TPFILTER_KEY_CGROUP,
	TPFILTER_NR_KEYS,
};

/*
 * Does @v (a field's value, sign-extended to 64 bits when @is_signed) pass @op @value?
 * Signed fields compare as signed; & is a bit test, the same either way.
 */
static __always_inline bool tpfilter_pass(__u64 v, __u32 op, __u64 value, bool is_signed)
{
	switch (op) {
	case TPFILTER_EQ:
		return v == value;
	case TPFILTER_NE:
		return v != value;
	case TPFILTER_LT:
		return is_signed ? (__s64)v < (__s64)value : v < value;
	case TPFILTER_LE:
		return is_signed ? (__s64)v <= (__s64)value : v <= value;
	case TPFILTER_GT:
		return is_signed ? (__s64)v > (__s64)value : v > value;
	case TPFILTER_GE:
		return is_signed ? (__s64)v >= (__s64)value : v >= value;
	default:
		return (v & value) != 0;
	}
}

#endif /* __BAREATOM_TPFILTER_EVAL_H */
