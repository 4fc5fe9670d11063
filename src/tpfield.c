// SPDX-License-Identifier: GPL-2.0
/*
 * Field expressions from BTF (tpfield.h): ARG->m.m[i] resolved against a tracepoint's
 * prototype (tpfield_proto.c) into the reads a BPF program does, and the named fields
 * (util, load, ...) of the PELT tracepoints.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "src/tpfield_sbuf.h"
#include "src/tpfield.h"

/* Skip typedefs and qualifiers: the type that says what the bytes are. */
static const struct btf_type *resolved(const struct btf *btf, __u32 id, __u32 *out)
{
	__s32 r = btf__resolve_type(btf, id);

	if (r < 0)
		return NULL;
	if (out)
		*out = (__u32)r;
	return btf__type_by_id(btf, r);
}

struct member {
	__u32 type_id;
	__u64 bit_off;		/* from the start of the outermost struct */
	__u32 bitfield;		/* bits, 0 when not a bitfield */
};

/* Member @name of struct/union @t, looking into anonymous members too. */
static bool find_member(const struct btf *btf, const struct btf_type *t, const char *name,
			__u64 base, struct member *m)
{
	const struct btf_member *mem = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, mem[i].name_off);
		__u64 off = base + btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*m = (struct member){ mem[i].type, off, btf_member_bitfield_size(t, i) };
			return true;
		} else {
			const struct btf_type *in = resolved(btf, mem[i].type, NULL);

			if (in && (btf_is_struct(in) || btf_is_union(in)) &&
			    find_member(btf, in, name, off, m))
				return true;
		}
	}
	return false;
}

/* The names of @t's members (anonymous members' own), comma-separated, into @b. */
static void list_members(const struct btf *btf, const struct btf_type *t, struct sbuf *b,
			 int *n)
{
	const struct btf_member *mem = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, mem[i].name_off);
		const struct btf_type *in;

		if (mn && *mn) {
			sbuf_printf(b, "%s%s", (*n)++ ? ", " : "", mn);
			continue;
		}
		in = resolved(btf, mem[i].type, NULL);
		if (in && (btf_is_struct(in) || btf_is_union(in)))
			list_members(btf, in, b, n);
	}
}

/*
 * Where the expression is: a value in hand (an argument, a pointer read), or an object in
 * kernel memory at the value in hand plus off. Offsets are added up in 64 bits and checked
 * against TPFIELD_OFF_MAX at every step, so they never wrap.
 */
struct cursor {
	__u32 type_id;
	bool in_mem;
	__u64 off;
	__u32 bitfield;			/* a bitfield member: its bits */
	__u64 bit_off;			/* and where they start, from the value in hand */
	char path[256];			/* the expression so far, for messages */
	size_t base_len;		/* path[0..base_len): the value in hand's expression */
};

struct compile {
	const struct btf *btf;
	struct tpfield *f;
	char *err;
	size_t errlen;
	bool ptr_ok;		/* a pointer is a value too (its address), as a key */
};

static int fail(struct compile *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Read the pointer in memory at the cursor: afterwards the pointer is the value in hand. */
static int load(struct compile *c, struct cursor *cur)
{
	if (c->f->nsteps == TPFIELD_MAX_STEPS)
		return fail(c, "'%s' is too long: at most %d memory reads (pointers followed plus "
			    "the value)", cur->path, TPFIELD_MAX_STEPS);
	c->f->steps[c->f->nsteps++] = (struct tpfield_step){ (__u32)cur->off, 8 };
	cur->in_mem = false;
	cur->off = 0;
	return 0;
}

/* The value in hand is now the pointer that the path so far names. */
static void deref(struct cursor *cur)
{
	cur->in_mem = true;
	cur->off = 0;
	cur->base_len = strlen(cur->path);
}

/*
 * @bytes past the value in hand (@wrapped: more than 64 bits hold) for the path so far:
 * refused when one read cannot reach that far.
 */
static int reach(struct compile *c, const struct cursor *cur, __u64 bytes, bool wrapped)
{
	char n[32];

	if (!wrapped && bytes <= TPFIELD_OFF_MAX)
		return 0;
	if (wrapped)
		snprintf(n, sizeof(n), "more than 2^64");
	else
		snprintf(n, sizeof(n), "%llu", (unsigned long long)bytes);
	return fail(c, "'%s' is %s bytes past '%.*s': one read reaches at most %llu (a 32-bit "
		    "offset)", cur->path, n, (int)cur->base_len, cur->path, TPFIELD_OFF_MAX);
}

static void what(struct compile *c, __u32 id, char *buf, size_t len)
{
	tpfield_type_str(c->btf, id, NULL, buf, len);
}

static int member_step(struct compile *c, struct cursor *cur, const char *name, bool arrow)
{
	char ty[TPFIELD_TYPE_LEN], list[TPFIELD_ERR_LEN / 2];
	struct sbuf b = { list, sizeof(list), 0 };
	const struct btf_type *t = resolved(c->btf, cur->type_id, NULL);
	struct member m;
	__u32 sid = cur->type_id;
	int n = 0;

	what(c, cur->type_id, ty, sizeof(ty));
	if (!t)
		return fail(c, "'%s' has a type this BTF cannot resolve", cur->path);
	if (arrow) {
		if (!btf_is_ptr(t))
			return fail(c, "'%s' is %s, not a pointer: '->%s' needs one%s", cur->path, ty,
				    name, btf_is_struct(t) || btf_is_union(t) ? " (use '.')" : "");
		if (cur->in_mem && load(c, cur))
			return -EINVAL;
		t = resolved(c->btf, t->type, &sid);
		if (!t || !(btf_is_struct(t) || btf_is_union(t)))
			return fail(c, "'%s' is %s, which points to no struct or union: '->%s' has "
				    "nothing to name", cur->path, ty, name);
		deref(cur);
	} else {
		if (btf_is_ptr(t))
			return fail(c, "'%s' is %s, a pointer: use '->%s'", cur->path, ty, name);
		if (!(btf_is_struct(t) || btf_is_union(t)))
			return fail(c, "'%s' is %s, not a struct or union: it has no member '%s'",
				    cur->path, ty, name);
		if (!cur->in_mem)
			return fail(c, "'%s' is a struct passed by value: tpstat reads members of "
				    "structs in memory only", cur->path);
		resolved(c->btf, cur->type_id, &sid);
	}
	if (!find_member(c->btf, t, name, 0, &m)) {
		list_members(c->btf, t, &b, &n);
		what(c, sid, ty, sizeof(ty));
		return fail(c, "%s has no member '%s' on this kernel; its members: %s", ty, name,
			    n ? list : "(none)");
	}
	if (m.bitfield) {
		cur->bitfield = m.bitfield;
		cur->bit_off = cur->off * 8 + m.bit_off;
	} else {
		if (m.bit_off % 8)
			return fail(c, "'%s%s%s' is not byte aligned", cur->path, arrow ? "->" : ".",
				    name);
		cur->off += m.bit_off / 8;
	}
	cur->type_id = m.type_id;
	snprintf(cur->path + strlen(cur->path), sizeof(cur->path) - strlen(cur->path), "%s%s",
		 arrow ? "->" : ".", name);
	/* An offset checked before plus a member's: far below 2^64, no sum wrapped. */
	return reach(c, cur, m.bitfield ? cur->bit_off / 8 : cur->off, false);
}

static int index_step(struct compile *c, struct cursor *cur, unsigned long idx)
{
	const struct btf_type *t = resolved(c->btf, cur->type_id, NULL);
	char ty[TPFIELD_TYPE_LEN];
	__u64 bytes, off;
	bool wrapped;
	__u32 elem;
	__s64 esize;

	what(c, cur->type_id, ty, sizeof(ty));
	if (t && btf_is_array(t) && cur->in_mem) {
		const struct btf_array *a = btf_array(t);

		if (idx >= a->nelems)
			return fail(c, "index %lu is beyond '%s' (%s: %u elements)", idx, cur->path, ty,
				    a->nelems);
		elem = a->type;
	} else if (t && btf_is_ptr(t)) {
		if (cur->in_mem && load(c, cur))
			return -EINVAL;
		elem = t->type;
		deref(cur);
	} else {
		return fail(c, "'%s' is %s: only arrays and pointers take [%lu]", cur->path, ty, idx);
	}
	esize = btf__resolve_size(c->btf, elem);
	if (esize <= 0)
		return fail(c, "the elements of '%s' have no size", cur->path);
	wrapped = __builtin_mul_overflow((__u64)esize, (__u64)idx, &bytes) |
		  __builtin_add_overflow(bytes, cur->off, &off);
	cur->off = off;
	cur->type_id = elem;
	snprintf(cur->path + strlen(cur->path), sizeof(cur->path) - strlen(cur->path), "[%lu]",
		 idx);
	return reach(c, cur, off, wrapped);
}

/* The end of the expression: an integer, read from memory unless it is the argument. */
static int leaf(struct compile *c, struct cursor *cur)
{
	const struct btf_type *t = resolved(c->btf, cur->type_id, NULL);
	struct tpfield *f = c->f;
	char ty[TPFIELD_TYPE_LEN];

	what(c, cur->type_id, ty, sizeof(ty));
	snprintf(f->type, sizeof(f->type), "%s", ty);
	if (t && btf_is_int(t)) {
		f->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		f->size = t->size;
	} else if (t && btf_is_any_enum(t)) {
		f->is_signed = btf_kflag(t);
		f->size = t->size;
	} else if (t && btf_is_ptr(t) && c->ptr_ok) {
		f->is_signed = false;
		f->size = 8;
	} else {
		const char *hint = !t ? "" : btf_is_ptr(t) ? ": follow it with '->' or '[i]'" :
			btf_is_struct(t) || btf_is_union(t) ? ": name a member with '.'" :
			btf_is_array(t) ? ": pick an element with '[i]'" : "";

		return fail(c, "'%s' is %s, not an integer%s", cur->path, ty, hint);
	}
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return fail(c, "'%s' is a %u-byte integer: tpstat reads 1, 2, 4 or 8", cur->path,
			    f->size);
	if (!cur->in_mem)
		return 0;	/* the argument itself */
	if (f->nsteps == TPFIELD_MAX_STEPS)
		return fail(c, "'%s' is too long: at most %d memory reads (pointers followed plus "
			    "the value)", cur->path, TPFIELD_MAX_STEPS);
	if (cur->bitfield) {
		/* Read the aligned unit of the bitfield's type that holds it (little endian). */
		__u64 unit = f->size * 8, start = cur->bit_off / unit * unit;

		if (cur->bit_off + cur->bitfield > start + unit)
			return fail(c, "'%s' is a bitfield across two %u-byte units", cur->path,
				    f->size);
		f->steps[f->nsteps++] = (struct tpfield_step){ (__u32)(start / 8), f->size };
		f->bit_off = (__u8)(cur->bit_off - start);
		f->bit_size = cur->bitfield;
		return 0;
	}
	f->steps[f->nsteps++] = (struct tpfield_step){ (__u32)cur->off, f->size };
	return 0;
}

static bool ident(const char **s, char *out, size_t len)
{
	size_t n = 0;

	if (!isalpha((unsigned char)**s) && **s != '_')
		return false;
	while (isalnum((unsigned char)(*s)[n]) || (*s)[n] == '_')
		n++;
	if (n >= len)
		return false;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s += n;
	return true;
}

static int compile(const struct btf *btf, const struct tpfield_proto *p, const char *expr,
		   struct tpfield *f, char *err, size_t errlen, bool ptr_ok)
{
	struct compile c = { btf, f, err, errlen, ptr_ok };
	struct cursor cur = {};
	char name[TPFIELD_NAME_LEN], list[TPFIELD_ERR_LEN / 2];
	struct sbuf b = { list, sizeof(list), 0 };
	const char *s = expr;
	int arg = -1, err2;

	memset(f, 0, sizeof(*f));
	if (!ident(&s, name, sizeof(name)))
		return fail(&c, "'%s' does not start with an argument name", expr);
	for (int i = 0; i < p->nargs; i++)
		if (!strcmp(p->args[i].name, name))
			arg = i;
	if (arg < 0 && !strncmp(name, "arg", 3) && isdigit((unsigned char)name[3])) {
		char *end;
		long k = strtol(name + 3, &end, 10);

		if (!*end && k < p->nargs)
			arg = (int)k;
	}
	if (arg < 0) {
		for (int i = 0; i < p->nargs; i++)
			sbuf_printf(&b, "%s%s%s%s (arg%d)", i ? ", " : "", p->args[i].type,
				    tpfield_decl_sep(&p->args[i]), p->args[i].name, i);
		return fail(&c, "no argument '%s'; the arguments are: %s", name,
			    p->nargs ? list : "none");
	}
	f->arg = (__u32)arg;
	cur.type_id = p->args[arg].type_id;
	snprintf(cur.path, sizeof(cur.path), "%s", name);
	cur.base_len = strlen(cur.path);
	while (*s) {
		bool arrow = !strncmp(s, "->", 2);

		if (cur.bitfield)
			return fail(&c, "'%s' is a bitfield: it must be the end of the expression",
				    cur.path);
		if (arrow || *s == '.') {
			s += arrow ? 2 : 1;
			if (!ident(&s, name, sizeof(name)))
				return fail(&c, "'%s': a member name must follow '%s'", expr,
					    arrow ? "->" : ".");
			err2 = member_step(&c, &cur, name, arrow);
		} else if (*s == '[') {
			char *end;
			unsigned long idx;

			s++;
			if (!isdigit((unsigned char)*s))
				return fail(&c, "'%s': an index is a number, as in [0]", expr);
			errno = 0;
			idx = strtoul(s, &end, 0);
			if (errno || *end != ']')
				return fail(&c, "'%s': an index is a number, as in [0]", expr);
			s = end + 1;
			err2 = index_step(&c, &cur, idx);
		} else {
			return fail(&c, "'%s': unexpected '%c' after '%s' (steps are ->m, .m and [i])",
				    expr, *s, cur.path);
		}
		if (err2)
			return err2;
	}
	return leaf(&c, &cur);
}

int tpfield_compile(const struct btf *btf, const struct tpfield_proto *p, const char *expr,
		    struct tpfield *f, char *err, size_t errlen)
{
	return compile(btf, p, expr, f, err, errlen, false);
}

int tpfield_compile_key(const struct btf *btf, const struct tpfield_proto *p, const char *expr,
			struct tpfield *f, char *err, size_t errlen)
{
	return compile(btf, p, expr, f, err, errlen, true);
}

#define PELT(tp, base, cpu)						\
	{ tp, "cpu", cpu },						\
	{ tp, "util", base ".util_avg" },				\
	{ tp, "load", base ".load_avg" },				\
	{ tp, "runnable", base ".runnable_avg" }

const struct tpfield_alias tpfield_aliases[] = {
	PELT("pelt_cfs_tp", "cfs_rq->avg", "cfs_rq->rq->cpu"),
	PELT("pelt_rt_tp", "rq->avg_rt", "rq->cpu"),
	PELT("pelt_dl_tp", "rq->avg_dl", "rq->cpu"),
	PELT("pelt_irq_tp", "rq->avg_irq", "rq->cpu"),
	PELT("pelt_thermal_tp", "rq->avg_thermal", "rq->cpu"),
	/* 6.9 renamed thermal pressure to hardware pressure (pelt_hw_tp, rq->avg_hw) */
	PELT("pelt_hw_tp", "rq->avg_hw", "rq->cpu"),
	PELT("pelt_se_tp", "se->avg", "se->cfs_rq->rq->cpu"),
	{ "sched_update_nr_running_tp", "nr_running", "rq->nr_running" },
	{ "sched_update_nr_running_tp", "cpu", "rq->cpu" },
	{ NULL, NULL, NULL },
};

const char *tpfield_named(const char *tp, const char *name)
{
	for (const struct tpfield_alias *a = tpfield_aliases; a->tp; a++)
		if (!strcmp(a->tp, tp) && !strcmp(a->name, name))
			return a->expr;
	return NULL;
}
