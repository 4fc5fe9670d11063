// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's specs against the kernel (tpstat_specs.h): the names' patterns expanded over the
 * kernel's list, every tracepoint found (or a clear error naming why not), every item's
 * expression compiled against BTF. The parsing of argv into specs is tpstat_specs.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/cli.h"
#include "src/tpstat_specs.h"
#include "src/tpstat_expand.h"

/* Whether @name is a program the shell would run: a path, or a file in $PATH, executable. */
static bool is_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];

	if (strchr(name, '/'))
		return !access(name, X_OK);
	for (p = path; p && *p; p = colon ? colon + 1 : NULL) {
		size_t len;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		if (len && snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		if (!colon)
			break;
	}
	return false;
}

/* Item @p's spec, in @old, as its place in the specs @tp made from @x. */
#define MOVED(p, old, tp, x) ((p) = &(tp)[(x)->at[(p) - (old)]])

/*
 * The names' patterns replaced with a spec for each tracepoint they match (tpstat_expand.h),
 * at their place; a tracepoint named again keeps its first place, and a named one's items
 * move with it. Then each spec's slot is its place. Returns 0, or one line and EXIT_USAGE
 * (a pattern that matches nothing) or 1.
 */
static int expand(struct tpstat_specs *s, const struct tp_list *l)
{
	char **names = calloc(s->n ? s->n : 1, sizeof(*names));
	struct tpstat_expansion x;
	struct tp_spec *tp = NULL;
	int err = TPX_NOMEM;

	for (int i = 0; names && i < s->n; i++)
		names[i] = (char *)s->tp[i].name;
	if (names)
		err = tpstat_expand(l, names, s->n, &x);
	if (err == TPX_NO_MATCH)
		fprintf(stderr, "tpstat: no tracepoint matches '%s' (tpstat -l lists them)\n",
			names[x.bad]);
	else if (err == TPX_NO_TRACEFS)
		fprintf(stderr, "tpstat: '%s': cannot tell the subsystems of trace events without "
			"tracefs (mount -t tracefs nodev /sys/kernel/tracing)\n", names[x.bad]);
	if (!err)
		tp = calloc(x.n ? x.n : 1, sizeof(*tp));
	if (!err && !tp)
		err = TPX_NOMEM;
	if (err == TPX_NOMEM)
		fprintf(stderr, "tpstat: out of memory expanding the tracepoint names\n");
	free(names);
	if (err) {
		if (names)
			tpstat_expansion_free(&x);
		return err == TPX_NOMEM ? 1 : EXIT_USAGE;
	}
	for (int k = 0; k < x.n; k++)
		tp[k] = (struct tp_spec){ .name = x.names[k], .info = x.tps[k] };
	for (int i = 0; i < s->n; i++)
		if (!tpstat_is_pattern(s->tp[i].name)) {
			const struct tp_info *info = tp[x.at[i]].info;

			tp[x.at[i]] = s->tp[i];
			tp[x.at[i]].info = info;
		}
	for (int k = 0; k < x.n; k++)
		tp[k].slot = k;
	for (int h = 0; h < s->nhist; h++)
		MOVED(s->hist[h].tp, s->tp, tp, &x);
	for (int b = 0; b < s->nby; b++)
		MOVED(s->by[b].tp, s->tp, tp, &x);
	for (int k = 0; k < s->nfilter; k++)
		MOVED(s->filter[k].tp, s->tp, tp, &x);
	for (int k = 0; k < s->nlat; k++)
		for (int side = 0; side < 2; side++)
			MOVED(s->lat[k].tp[side], s->tp, tp, &x);
	free(s->tp);
	s->tp = tp;
	s->n = s->cap = x.n;
	tpstat_expansion_free(&x);
	return 0;
}

int tpstat_specs_resolve(struct tpstat_specs *s, const struct tp_list *l, bool command)
{
	int status = expand(s, l);

	if (status)
		return status;
	for (int i = 0; i < s->n; i++) {
		const char *name = s->tp[i].name, *sugg[3];
		char module[TP_MODULE_LEN];
		int ns;

		if (s->tp[i].info)
			continue;
		if (tplist_find_unloaded(name, module, sizeof(module))) {
			fprintf(stderr, "tpstat: tracepoint '%s' belongs to module %s, which is not loaded "
				"(modprobe %s)\n", name, module, module);
			return EXIT_USAGE;
		}
		/* "tpstat sched_switch make": the command without its "--". */
		if (!command && is_program(name)) {
			fprintf(stderr, "tpstat: unknown tracepoint '%s', which is a program: did you forget "
				"'--' before the command? (tpstat TRACEPOINT... -- %s ...)\n", name, name);
			return EXIT_USAGE;
		}
		ns = tplist_suggest(l, name, sugg, 3);
		fprintf(stderr, "tpstat: unknown tracepoint '%s'", name);
		for (int k = 0; k < ns; k++)
			fprintf(stderr, "%s%s", k ? (k == ns - 1 ? " or " : ", ") : "; did you mean ", sugg[k]);
		fprintf(stderr, "%s\n", ns ? "?" : " (tpstat -l lists them)");
		return EXIT_USAGE;
	}
	return 0;
}

/* A named field of @tp (tpfield_aliases) within two edits of @expr, as "utl" for "util". */
static const char *near_named(const char *tp, const char *expr)
{
	const char *best = NULL;
	int best_d = 3;

	for (const struct tpfield_alias *a = tpfield_aliases; a->tp; a++) {
		int d;

		if (strcmp(a->tp, tp))
			continue;
		d = tplist_distance(expr, a->name);
		if (d < best_d) {
			best = a->name;
			best_d = d;
		}
	}
	return best;
}

/*
 * @expr of --@opt against @tp's arguments in BTF, as a value or (@key) as a --latency key,
 * which may be a pointer: 0, or one line and EXIT_USAGE (1).
 */
static int compile(struct tpfield_btfs *btfs, const struct tp_info *tp, const char *opt,
		   const char *expr, struct tpfield *f, bool key)
{
	const struct btf *btf = tpfield_btf(btfs, tp->module);
	const char *named = tpfield_named(tp->name, expr);
	char err[TPFIELD_ERR_LEN];
	struct tpfield_proto p;

	if (!btf || tpfield_proto(btf, tp->name, &p)) {
		fprintf(stderr, "tpstat: --%s %s:%s: cannot read the prototype of %s from BTF\n",
			opt, tp->name, expr, tp->name);
		return 1;
	}
	/* A named field (util, cpu, ...) is its expression, unless an argument has the name. */
	for (int i = 0; named && i < p.nargs; i++)
		if (!strcmp(p.args[i].name, expr))
			named = NULL;
	if ((key ? tpfield_compile_key : tpfield_compile)(btf, &p, named ? named : expr, f, err,
							   sizeof(err))) {
		const char *near = named ? NULL : near_named(tp->name, expr);

		fprintf(stderr, "tpstat: --%s %s:%s%s%s%s: %s%s%s%s\n", opt, tp->name, expr,
			named ? " (" : "", named ? named : "", named ? ")" : "", err,
			near ? "; did you mean the named field '" : "", near ? near : "", near ? "'?" : "");
		return EXIT_USAGE;
	}
	return 0;
}

/* --filter @fo: split, its EXPR compiled, its VALUE resolved; 0 or EXIT_USAGE. */
static int compile_filter(struct tpfield_btfs *btfs, struct tp_filter *fo)
{
	const struct tp_info *tp = fo->tp->info;
	struct tpfilter *flt = &fo->flt;
	char err[TPFIELD_ERR_LEN];
	struct tpfilter_text t;
	int status;

	memset(flt, 0, sizeof(*flt));
	if (tpfilter_split(fo->text, &t, err, sizeof(err))) {
		fprintf(stderr, "tpstat: --filter '%s:%s': %s\n", tp->name, fo->text, err);
		return EXIT_USAGE;
	}
	flt->key = tpfilter_key(t.expr);
	if (flt->key == TPFILTER_KEY_EXPR) {
		status = compile(btfs, tp, "filter", t.expr, &flt->field, false);
		if (status)
			return status;
	}
	if (tpfilter_resolve(tpfield_btf(btfs, tp->module), &t, flt, err, sizeof(err))) {
		fprintf(stderr, "tpstat: --filter '%s:%s': %s\n", tp->name, fo->text, err);
		return EXIT_USAGE;
	}
	return 0;
}

int tpstat_specs_compile(struct tpstat_specs *s)
{
	struct tpfield_btfs btfs = { .dir = TP_BTF_DIR };
	int status = 0;

	for (int h = 0; h < s->nhist && !status; h++) {
		struct tp_hist *hi = &s->hist[h];

		status = compile(&btfs, hi->tp->info, hi->range.linear ? "lhist" : "hist", hi->expr,
				 &hi->field, false);
		if (!status && hi->range.linear && !hi->field.is_signed && hi->range.lmin < 0) {
			fprintf(stderr, "tpstat: --lhist %s:%s: MIN %lld is negative, and %s is %s, "
				"which is unsigned\n", hi->tp->info->name, hi->expr, hi->range.lmin,
				hi->expr, hi->field.type);
			status = EXIT_USAGE;
		}
	}
	for (int b = 0; b < s->nby && !status; b++) {
		struct tp_by *by = &s->by[b];

		memset(by->field, 0, sizeof(by->field));
		for (int i = 0; i < by->nkeys && !status; i++)
			if (by->kinds[i] == TPSTAT_KEY_EXPR)
				status = compile(&btfs, by->tp->info, "by", by->keys[i], &by->field[i],
						 false);
		if (!status && by->value)
			status = compile(&btfs, by->tp->info, "value", by->value,
					 &by->field[TPSTAT_BY_KEYS], false);
	}
	for (int k = 0; k < s->nfilter && !status; k++)
		status = compile_filter(&btfs, &s->filter[k]);
	for (int k = 0; k < s->nlat && !status; k++)
		for (int side = 0; side < 2 && !status; side++) {
			struct tp_lat *l = &s->lat[k];

			memset(&l->field[side], 0, sizeof(l->field[side]));
			if (l->kind[side] == TPFILTER_KEY_EXPR)
				status = compile(&btfs, l->tp[side]->info, "latency", l->key[side],
						 &l->field[side], true);
		}
	tpfield_btfs_free(&btfs);
	return status;
}
