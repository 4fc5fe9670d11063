/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --filter 'TP:EXPR OP VALUE': which events of a tracepoint count, in text and resolved.
 *
 * EXPR is a field expression as --hist takes it (src/tpfield.h) or one of the keys the
 * kernel knows without the arguments: cpu, pid (the tgid), comm, cgroup (the v2 id), as
 * --by takes them and with the same precedence (a key word is the kernel's key even when an
 * argument has that name). OP is one of == != < <= > >= and & (true when EXPR & VALUE is
 * not 0). VALUE is an integer (decimal, or hex with 0x; a minus sign only for a signed
 * EXPR) that EXPR's type can hold, or the name of an enumerator in BTF: of EXPR's own enum
 * when it is one, of any enum in the kernel's or the module's BTF otherwise (one value for
 * the name, or it is refused as ambiguous; an unsigned enum's value is never negative, an
 * enum64's up to 2^64 - 1). comm takes == and != only, and a name of at most 15 bytes,
 * quoted or not; quoted ("a=b" or 'a=b'), it may hold the operators' bytes = ! < > &.
 *
 *	struct tpfilter_text t;
 *	struct tpfilter flt;
 *
 *	tpfilter_split("p->prio < 100", &t, err, sizeof(err));     EXPR, OP and VALUE
 *	flt.key = tpfilter_key(t.expr);                            cpu, pid, ... or an EXPR
 *	...compile t.expr with tpfield_compile() into flt.field when it is an EXPR...
 *	tpfilter_resolve(btf, &t, &flt, err, sizeof(err));         VALUE against EXPR's type
 *
 * Every refusal is one line in @err saying why and what would do instead.
 */
#ifndef __BAREATOM_TPFILTER_H
#define __BAREATOM_TPFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "src/tpfield.h"
#include "bpf/tpfilter_eval.h"

struct btf;

#define TPFILTER_TEXT_LEN 256

/* A filter as written, split: "cfs_rq->avg.util_avg >= 0x100" is EXPR, >=, VALUE. */
struct tpfilter_text {
	char expr[TPFILTER_TEXT_LEN];
	enum tpfilter_op op;
	char value[TPFILTER_TEXT_LEN];
};

/* A filter ready for the program: what is compared (key, field) with what (op, value). */
struct tpfilter {
	enum tpfilter_key key;
	enum tpfilter_op op;
	bool is_signed;		/* compare as signed (a signed EXPR) */
	__u64 value;		/* sign-extended to 64 bits for a signed EXPR */
	char comm[16];		/* TPFILTER_KEY_COMM: the name, NUL-padded */
	struct tpfield field;	/* TPFILTER_KEY_EXPR: compiled by the caller */
};

/* The operator's spelling: "==", "&", ... */
const char *tpfilter_op_str(enum tpfilter_op op);

/*
 * Split @text into EXPR, OP and VALUE (blanks around each are dropped; none are needed).
 * "->" inside EXPR is a member step, not an operator. Returns 0, or -EINVAL with one line
 * in @err (no operator, "=" for "==", "&&", an empty side, text too long).
 */
int tpfilter_split(const char *text, struct tpfilter_text *t, char *err, size_t errlen);

/* The key @expr names (cpu, pid, comm, cgroup), or TPFILTER_KEY_EXPR for a field EXPR. */
enum tpfilter_key tpfilter_key(const char *expr);

/*
 * Resolve @t's VALUE for @flt (whose key is set and, for an EXPR, whose field is compiled)
 * against @btf (the tracepoint's: the kernel's, or a module's split over it, for enum
 * names). Sets op, is_signed, value (or comm). Returns 0, or -EINVAL with one line in @err:
 * a value out of the type's range, a negative value for an unsigned EXPR, an unknown or
 * ambiguous enum name (an EXPR of enum type lists its enumerators), an operator comm does
 * not take, a comm too long.
 */
int tpfilter_resolve(const struct btf *btf, const struct tpfilter_text *t, struct tpfilter *flt,
		     char *err, size_t errlen);

#endif /* __BAREATOM_TPFILTER_H */
