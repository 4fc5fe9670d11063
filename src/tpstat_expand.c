// SPDX-License-Identifier: GPL-2.0
/* tpstat's tracepoint patterns expanded (tpstat_expand.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_expand.h"

bool tpstat_is_pattern(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

/* tplist's order, tpstat -l's (vmlinux first, then by module and name), over pointers. */
static int cmp_order(const void *a, const void *b)
{
	return tplist_order(*(const struct tp_info *const *)a, *(const struct tp_info *const *)b);
}

/* By name, then in cmp_order's order: the first of a name is the one a plain name means. */
static int cmp_name(const void *a, const void *b)
{
	const struct tp_info *x = *(const struct tp_info *const *)a;
	const struct tp_info *y = *(const struct tp_info *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_order(a, b);
}

/* The index in @byname (@n, sorted by cmp_name) of the first tracepoint named @name, or -1. */
static long find_name(const struct tp_info *const *byname, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(byname[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(byname[lo]->name, name) ? (long)lo : -1;
}

/* Does pattern @pat (PATTERN or SUBSYS:PATTERN, @sys the part before the ':') match @tp? */
static bool matches(const char *sys, const char *pat, const struct tp_info *tp)
{
	if (sys && (!tp->system[0] || fnmatch(sys, tp->system, 0)))
		return false;
	return !fnmatch(pat, tp->name, 0);
}

struct state {
	struct tpstat_expansion *x;
	const struct tp_info **byname;
	size_t nl;
	int *taken;	/* per byname entry: 1 + its name's index in x->tps, or 0 */
};

/* Add @tp (or an unknown @name, @tp NULL) unless its name is there: its index in x->tps. */
static int add(struct state *st, const struct tp_info *tp, const char *name)
{
	struct tpstat_expansion *x = st->x;
	long k = tp ? find_name(st->byname, st->nl, tp->name) : -1;

	if (k >= 0) {
		if (st->taken[k])
			return st->taken[k] - 1;
		st->taken[k] = x->n + 1;
		tp = st->byname[k];	/* a name's first tracepoint, whichever module matched */
	}
	x->tps[x->n] = tp;
	x->names[x->n] = tp ? tp->name : name;
	return x->n++;
}

int tpstat_expand(const struct tp_list *l, char *const *names, int n, struct tpstat_expansion *x)
{
	const struct tp_info **order = NULL;
	struct state st = { .x = x, .nl = l->n };
	size_t cap = l->n + (size_t)n;
	bool systems = false;
	int err = TPX_NOMEM;

	memset(x, 0, sizeof(*x));
	x->tps = calloc(cap ? cap : 1, sizeof(*x->tps));
	x->names = calloc(cap ? cap : 1, sizeof(*x->names));
	x->at = calloc(n ? n : 1, sizeof(*x->at));
	st.byname = calloc(l->n ? l->n : 1, sizeof(*st.byname));
	order = calloc(l->n ? l->n : 1, sizeof(*order));
	st.taken = calloc(l->n ? l->n : 1, sizeof(*st.taken));
	if (!x->tps || !x->names || !x->at || !st.byname || !order || !st.taken)
		goto out;
	for (size_t i = 0; i < l->n; i++) {
		st.byname[i] = order[i] = &l->tps[i];
		systems |= l->tps[i].system[0] != '\0';
	}
	qsort(st.byname, l->n, sizeof(*st.byname), cmp_name);
	qsort(order, l->n, sizeof(*order), cmp_order);
	err = TPX_OK;
	for (int i = 0; i < n && err == TPX_OK; i++) {
		const char *colon = strchr(names[i], ':');
		char sys[TP_SYSTEM_LEN];
		int first = -1;

		if (!tpstat_is_pattern(names[i])) {
			long k = find_name(st.byname, st.nl, names[i]);

			x->at[i] = add(&st, k >= 0 ? st.byname[k] : NULL, names[i]);
			continue;
		}
		if (colon) {
			if (!systems) {
				err = TPX_NO_TRACEFS;
				x->bad = i;
				break;
			}
			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - names[i]), names[i]);
		}
		for (size_t k = 0; k < l->n; k++) {
			if (!matches(colon ? sys : NULL, colon ? colon + 1 : names[i], order[k]))
				continue;
			int at = add(&st, order[k], NULL);

			if (first < 0)
				first = at;
		}
		if (first < 0) {
			err = TPX_NO_MATCH;
			x->bad = i;
		}
		x->at[i] = first;
	}
out:
	free(st.byname);
	free(order);
	free(st.taken);
	return err;
}

void tpstat_expansion_free(struct tpstat_expansion *x)
{
	free(x->tps);
	free(x->names);
	free(x->at);
	memset(x, 0, sizeof(*x));
}
