// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint prototypes from BTF (tpfield.h): the kernel's or a module's BTF, a
 * tracepoint's arguments with their names and types, and its prototype as C writes it.
 * Field expressions over those arguments are tpfield.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "src/tpfield_sbuf.h"
#include "src/tpfield_proto.h"

void tpfield_type_str(const struct btf *btf, __u32 id, const char *name, char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = name ? name : "");
	struct btf_dump *d;

	buf[0] = '\0';
	d = btf_dump__new(btf, sbuf_vprintf, &b, NULL);
	if (!d) {
		snprintf(buf, len, "?");
		return;
	}
	if (btf_dump__emit_type_decl(d, id, &o))
		snprintf(buf, len, "?");
	btf_dump__free(d);
	/* "struct cfs_rq * " with no name: no trailing blank. */
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
		buf[n - 1] = '\0';
}

const struct btf *tpfield_btf(struct tpfield_btfs *c, const char *module)
{
	char path[512];

	if (!c->vmlinux) {
		snprintf(path, sizeof(path), "%s/vmlinux", c->dir);
		c->vmlinux = btf__parse(path, NULL);
		if (!c->vmlinux)
			return NULL;
	}
	if (!strcmp(module, "vmlinux"))
		return c->vmlinux;
	if (c->mod && !strcmp(c->mod_name, module))
		return c->mod;
	btf__free(c->mod);
	snprintf(path, sizeof(path), "%s/%s", c->dir, module);
	c->mod = btf__parse_split(path, c->vmlinux);
	snprintf(c->mod_name, sizeof(c->mod_name), "%s", c->mod ? module : "");
	return c->mod;
}

void tpfield_btfs_free(struct tpfield_btfs *c)
{
	btf__free(c->mod);
	btf__free(c->vmlinux);
	c->mod = c->vmlinux = NULL;
}

/* FUNC_PROTO of @name, or 0. @fn: a FUNC's name; otherwise a typedef to a pointer to one. */
static __u32 find_proto(const struct btf *btf, const char *name, bool fn)
{
	__s32 id = btf__find_by_name_kind(btf, name, fn ? BTF_KIND_FUNC : BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id <= 0)
		return 0;
	t = btf__type_by_id(btf, id);
	if (!fn) {
		t = btf__type_by_id(btf, t->type);
		if (!t || !btf_is_ptr(t))
			return 0;
	}
	id = t->type;
	t = btf__type_by_id(btf, id);
	return t && btf_is_func_proto(t) ? (__u32)id : 0;
}

int tpfield_proto(const struct btf *btf, const char *tp, struct tpfield_proto *p)
{
	char name[256];
	const struct btf_param *params;
	const struct btf_type *t;
	__u32 id;
	int first = 1;	/* __traceiter_NAME(void *__data, ...): __data is not the program's */

	memset(p, 0, sizeof(*p));
	snprintf(name, sizeof(name), "__traceiter_%s", tp);
	id = find_proto(btf, name, true);
	p->named = id != 0;
	if (!id) {
		/* btf_trace_NAME is typedef void (*)(void *, args...): the same shape, no names. */
		snprintf(name, sizeof(name), "btf_trace_%s", tp);
		id = find_proto(btf, name, false);
		if (!id)
			return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	params = btf_params(t);
	for (int i = first; i < btf_vlen(t) && p->nargs < TPFIELD_MAX_ARGS; i++) {
		struct tpfield_arg *a = &p->args[p->nargs];
		const char *pname = btf__name_by_offset(btf, params[i].name_off);

		if (p->named && pname && *pname)
			snprintf(a->name, sizeof(a->name), "%s", pname);
		else
			snprintf(a->name, sizeof(a->name), "arg%d", p->nargs);
		a->type_id = params[i].type;
		tpfield_type_str(btf, a->type_id, NULL, a->type, sizeof(a->type));
		p->nargs++;
	}
	return 0;
}

const char *tpfield_decl_sep(const struct tpfield_arg *a)
{
	size_t tl = strlen(a->type);

	return tl && a->type[tl - 1] == '*' ? "" : " ";
}

void tpfield_proto_str(const char *tp, const struct tpfield_proto *p, char *buf, size_t len)
{
	size_t o = 0;

	o += snprintf(buf + o, len > o ? len - o : 0, "%s(", tp);
	for (int i = 0; i < p->nargs; i++) {
		const struct tpfield_arg *a = &p->args[i];

		o += snprintf(buf + o, len > o ? len - o : 0, "%s%s%s%s", i ? ", " : "", a->type,
			      tpfield_decl_sep(a), a->name);
	}
	if (!p->nargs)
		o += snprintf(buf + o, len > o ? len - o : 0, "void");
	snprintf(buf + o, len > o ? len - o : 0, ")");
}
