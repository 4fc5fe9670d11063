/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracepoint's prototype from BTF (tpfield_proto.c): the kernel's or a module's BTF, the
 * arguments' names and types, and the prototype as C writes it. Field expressions over the
 * arguments are tpfield.h's, which includes this.
 */
#ifndef __BAREATOM_TPFIELD_PROTO_H
#define __BAREATOM_TPFIELD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;

#define TPFIELD_MAX_ARGS 12	/* MAX_BPF_FUNC_ARGS: what a raw_tp context can hold */
#define TPFIELD_NAME_LEN 64
#define TPFIELD_TYPE_LEN 128

struct tpfield_arg {
	char name[TPFIELD_NAME_LEN];
	char type[TPFIELD_TYPE_LEN];	/* as C declares it: "struct cfs_rq *", "int" */
	__u32 type_id;
};

struct tpfield_proto {
	int nargs;
	bool named;		/* names from __traceiter_NAME; false: arg0, arg1, ... */
	struct tpfield_arg args[TPFIELD_MAX_ARGS];
};

/*
 * The kernel's BTF and one module's, opened as needed (/sys/kernel/btf/MODULE is split BTF
 * over vmlinux): tpfield_btf() returns the BTF that has a tracepoint of @module ("vmlinux"
 * or a module's name), keeping the last module open, or NULL when it cannot be read.
 */
struct tpfield_btfs {
	const char *dir;	/* TP_BTF_DIR, or a test's copy */
	struct btf *vmlinux, *mod;
	char mod_name[64];
};

const struct btf *tpfield_btf(struct tpfield_btfs *c, const char *module);
void tpfield_btfs_free(struct tpfield_btfs *c);

/*
 * The arguments of tracepoint @tp in @btf (vmlinux or a module's split BTF). Returns 0, or
 * -ENOENT when @btf has no such tracepoint.
 */
int tpfield_proto(const struct btf *btf, const char *tp, struct tpfield_proto *p);

/* "pelt_cfs_tp(struct cfs_rq *cfs_rq)": @tp's prototype as C would declare it. */
void tpfield_proto_str(const char *tp, const struct tpfield_proto *p, char *buf, size_t len);

/* @id as C declares it ("struct cfs_rq *"), with @name after it when given. */
void tpfield_type_str(const struct btf *btf, __u32 id, const char *name, char *buf, size_t len);
/* What goes between an argument's type and its name: "struct rq *rq", "int change". */
const char *tpfield_decl_sep(const struct tpfield_arg *a);

#endif /* __BAREATOM_TPFIELD_PROTO_H */
