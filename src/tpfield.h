/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tracepoint carries, from the running kernel's BTF (tpfield_proto.h), and field
 * expressions over it (tpfield.c).
 *
 * A raw tracepoint program gets the tracepoint's arguments as an array of u64 (ctx[0] ...).
 * Their names and types are those of the __traceiter_NAME function's prototype (its first
 * parameter, void *__data, is not passed to programs); on kernels without that function
 * the btf_trace_NAME typedef gives the types and the names are arg0, arg1, ...
 *
 * A field expression is an argument (by name or argN) followed by ->member, .member and
 * [index] steps, ending in an integer (any width, signed or not, enums, bool, bitfields).
 * It compiles to a short list of memory reads: each reads SIZE bytes at the value in hand
 * plus OFF (bpf_probe_read_kernel() in BPF), the last one reading the integer itself; no
 * read at all when the expression is an integer argument.
 *
 *	struct tpfield_proto p;
 *	struct tpfield f;
 *	char err[TPFIELD_ERR_LEN];
 *
 *	tpfield_proto(btf, "pelt_cfs_tp", &p);
 *	if (tpfield_compile(btf, &p, "cfs_rq->avg.util_avg", &f, err, sizeof(err)))
 *		...err says why, and what exists instead...
 */
#ifndef __BAREATOM_TPFIELD_H
#define __BAREATOM_TPFIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "src/tpfield_proto.h"

struct btf;

#define TPFIELD_MAX_STEPS 8	/* memory reads per expression, the last one included */
#define TPFIELD_ERR_LEN 768

/*
 * The farthest a read reaches past the value in hand: its offset is a __u32 here and in the
 * BPF program's copy (bpf/tpstat_abi.h). An expression that lands farther is refused.
 */
#define TPFIELD_OFF_MAX 0xffffffffULL

struct tpfield_step {
	__u32 off;		/* bytes past the value in hand (a kernel address) */
	__u32 size;		/* bytes read: 8 for a pointer followed, the integer's at the end */
};

struct tpfield {
	__u32 arg;		/* which argument: ctx[arg] */
	__u32 nsteps;		/* reads; 0: the argument itself is the integer */
	struct tpfield_step steps[TPFIELD_MAX_STEPS];
	__u32 size;		/* bytes of the integer (1, 2, 4, 8) */
	bool is_signed;
	__u8 bit_off;		/* a bitfield: its bits within the last read, low bit first */
	__u8 bit_size;		/* 0: the whole integer */
	char type[TPFIELD_TYPE_LEN];	/* the leaf's C type, for messages and --help */
};

/*
 * Compile @expr against the arguments @p of a tracepoint in @btf. Returns 0, or -EINVAL
 * with one line in @err naming the cause and what exists instead (the arguments, the
 * struct's members, the array's length), or the limit (TPFIELD_OFF_MAX, TPFIELD_MAX_STEPS).
 */
int tpfield_compile(const struct btf *btf, const struct tpfield_proto *p, const char *expr,
		    struct tpfield *f, char *err, size_t errlen);
/*
 * The same for a key (--latency's): a pointer is an integer too, its address, so that an
 * object's lifetime can be keyed by the object (br_eht_host_create:h).
 */
int tpfield_compile_key(const struct btf *btf, const struct tpfield_proto *p, const char *expr,
			struct tpfield *f, char *err, size_t errlen);

/*
 * The named fields of the scheduler's bare tracepoints that sched_tp users know (cpu, util,
 * load, runnable for pelt_*_tp; nr_running, cpu for sched_update_nr_running_tp): the
 * expression @name stands for on @tp, or NULL when it is not one of them. Each is an
 * ordinary expression, so a kernel without the member gets the ordinary error.
 */
const char *tpfield_named(const char *tp, const char *name);

/* The named fields: an array of { tp, name, expr }, ending with a NULL tp. */
struct tpfield_alias {
	const char *tp, *name, *expr;
};
extern const struct tpfield_alias tpfield_aliases[];

#endif /* __BAREATOM_TPFIELD_H */
