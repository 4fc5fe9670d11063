// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's specs (tpstat_specs.h): argv's names and items into one spec per tracepoint,
 * resolved against the kernel's list and compiled against BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/cli.h"
#include "src/tpstat_specs.h"
#include "src/tpstat_expand.h"

/*
 * Room for @n specs. Specs move when it grows: only before tpstat_specs_group() gives the
 * items pointers to them (it makes room for all first).
 */
static void reserve(struct tpstat_specs *s, int n)
{
	struct tp_spec *tp;
	int cap = s->cap ? s->cap : 64;

	if (n <= s->cap)
		return;
	while (cap < n)
		cap *= 2;
	tp = realloc(s->tp, (size_t)cap * sizeof(*tp));
	if (!tp) {
		fprintf(stderr, "tpstat: out of memory for %d tracepoints\n", n);
		exit(1);
	}
	s->tp = tp;
	s->cap = cap;
}

/* The spec named @name, or a new one after the others. */
static struct tp_spec *spec_of(struct tpstat_specs *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->tp[i].name, name))
			return &s->tp[i];
	reserve(s, s->n + 1);
	s->tp[s->n] = (struct tp_spec){ .name = name, .slot = s->n };
	return &s->tp[s->n++];
}

void tpstat_spec_name(struct tpstat_specs *s, char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->tp[i].name, name))
			cli_usage_error("tpstat", "tracepoint '%s' is named twice", name);
	if (strlen(name) >= TP_NAME_LEN)
		cli_usage_error("tpstat", "tracepoint name too long (%zu bytes, at most %d): "
				"'%.40s...'", strlen(name), TP_NAME_LEN - 1, name);
	spec_of(s, name);
}

/*
 * "TP:REST" of --@opt into @tp (@len bytes); returns REST. A usage error when either part is
 * empty (@form says what is expected) or TP is too long.
 */
static char *split_tp(char *arg, char *tp, size_t len, const char *opt, const char *form)
{
	char *colon = strchr(arg, ':');

	if (!colon || colon == arg || !colon[1])
		cli_usage_error("tpstat", "invalid --%s '%s': %s", opt, arg, form);
	if ((size_t)(colon - arg) >= len)
		cli_usage_error("tpstat", "--%s '%s': tracepoint name too long", opt, arg);
	memcpy(tp, arg, colon - arg);
	tp[colon - arg] = '\0';
	return colon + 1;
}

/*
 * MIN:MAX:STEP at the end of @text, cut off it into @l, for --@opt '@arg': the usage
 * errors in that option's words (@form: the whole option's, @order: the bounds' rule).
 */
static void parse_linear(char *text, struct buckets_linear *l, bool from_zero, const char *opt,
			 const char *arg, const char *form, const char *order)
{
	const char *what, *bad;
	unsigned long long n;

	switch (buckets_parse_linear(text, from_zero, l, &what, &bad, &n)) {
	case BUCKETS_TEXT_OK:
		return;
	case BUCKETS_TEXT_FORM:
		cli_usage_error("tpstat", "invalid --%s '%s': %s", opt, arg, form);
	case BUCKETS_TEXT_NUMBER:
		cli_usage_error("tpstat", "invalid --%s '%s': %s '%s' is not a whole number", opt,
				arg, what, bad);
	case BUCKETS_TEXT_ORDER:
		cli_usage_error("tpstat", "invalid --%s '%s': %s", opt, arg, order);
	case BUCKETS_TEXT_MANY:
		cli_usage_error("tpstat", "--%s '%s': %llu buckets, at most %d: a larger STEP", opt,
				arg, n, TPSTAT_LHIST_MAX);
	}
}

/* --hist TP:EXPR: the expression is checked against BTF once the tracepoint is known. */
void tpstat_spec_hist(struct tpstat_specs *s, char *arg)
{
	struct tp_hist *h = &s->hist[s->nhist];

	if (s->nhist == TPSTAT_MAX_HIST)
		cli_usage_error("tpstat", "too many --hist: at most %d", TPSTAT_MAX_HIST);
	h->expr = split_tp(arg, h->tp_name, sizeof(h->tp_name), "hist",
			   "TRACEPOINT:EXPR, as in tpgen_a:seq or pelt_cfs_tp:cfs_rq->avg.util_avg");
	s->nhist++;
}

/* --lhist TP:EXPR:MIN:MAX:STEP: --hist with linear buckets (at most TPSTAT_LHIST_MAX). */
void tpstat_spec_lhist(struct tpstat_specs *s, char *arg)
{
	char *copy = strdup(arg);	/* the spec keeps pointers into it */
	struct buckets_linear l;

	if (!copy)
		cli_usage_error("tpstat", "out of memory");
	parse_linear(copy, &l, false, "lhist", arg, "TRACEPOINT:EXPR:MIN:MAX:STEP, as in "
		     "pelt_cfs_tp:util:0:1024:64", "MIN < MAX and STEP > 0");
	tpstat_spec_hist(s, copy);	/* TP:EXPR */
	s->hist[s->nhist - 1].range = l;
}

/* --by TP:KEY[,KEY...]: keys the kernel knows by name, or EXPRs checked against BTF later. */
void tpstat_spec_by(struct tpstat_specs *s, char *arg)
{
	static const char *const names[] = {
		[TPSTAT_KEY_CPU] = "cpu", [TPSTAT_KEY_PID] = "pid", [TPSTAT_KEY_COMM] = "comm",
		[TPSTAT_KEY_CGROUP] = "cgroup",
	};
	struct tp_by *by = &s->by[s->nby];
	char *keys, *copy, *save = NULL;

	if (s->nby == TPSTAT_MAX_BY)
		cli_usage_error("tpstat", "too many --by: at most %d", TPSTAT_MAX_BY);
	by->key = split_tp(arg, by->tp_name, sizeof(by->tp_name), "by", "TRACEPOINT:KEY[,KEY...], "
			   "KEY one of cpu, comm, pid, cgroup or a field EXPR, as in sched_switch:comm");
	keys = copy = strdup(by->key);	/* the spec keeps pointers into it */
	if (!copy)
		cli_usage_error("tpstat", "out of memory");
	for (char *k = strtok_r(keys, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (by->nkeys == TPSTAT_BY_KEYS)
			cli_usage_error("tpstat", "--by '%s': at most %d keys", arg, TPSTAT_BY_KEYS);
		by->keys[by->nkeys] = k;
		by->kinds[by->nkeys] = TPSTAT_KEY_EXPR;
		for (int n = 0; n < (int)(sizeof(names) / sizeof(names[0])); n++)
			if (!strcmp(k, names[n]))
				by->kinds[by->nkeys] = n;
		for (int j = 0; j < by->nkeys; j++)
			if (!strcmp(by->keys[j], k))
				cli_usage_error("tpstat", "--by '%s': key '%s' is given twice", arg, k);
		by->nkeys++;
	}
	if (!by->nkeys || by->key[strlen(by->key) - 1] == ',' || strstr(by->key, ",,") ||
	    by->key[0] == ',')
		cli_usage_error("tpstat", "--by '%s': an empty key (keys are separated by one comma)",
				arg);
	by->kind = by->kinds[0];
	s->nby++;
}

/* --value EXPR: the sum, min and max of EXPR per key of the --by given just before. */
void tpstat_spec_value(struct tpstat_specs *s, char *arg)
{
	struct tp_by *by;

	if (!s->nby)
		cli_usage_error("tpstat", "--value '%s' sums a field per key of the --by before it: "
				"give --by TP:KEY first", arg);
	by = &s->by[s->nby - 1];
	if (by->value)
		cli_usage_error("tpstat", "--value '%s': --by %s:%s has a --value already (one each)",
				arg, by->tp_name, by->key);
	if (!*arg)
		cli_usage_error("tpstat", "--value takes a field EXPR, as in seq or p->prio");
	by->value = arg;
}

/* --filter TP:'EXPR OP VALUE': split and checked against BTF once the tracepoint is known. */
void tpstat_spec_filter(struct tpstat_specs *s, char *arg)
{
	struct tp_filter *f = &s->filter[s->nfilter];

	if (s->nfilter == TPSTAT_MAX_FILTER)
		cli_usage_error("tpstat", "too many --filter: at most %d", TPSTAT_MAX_FILTER);
	f->text = split_tp(arg, f->tp_name, sizeof(f->tp_name), "filter",
			   "TRACEPOINT:EXPR OP VALUE, as in 'tpgen_a:seq & 1'");
	s->nfilter++;
}

/* --latency START:KEY,END:KEY: two TP:KEY, the KEYs checked against BTF later. */
void tpstat_spec_latency(struct tpstat_specs *s, char *arg)
{
	struct tp_lat *l = &s->lat[s->nlat];
	const char *form = "START:KEY,END:KEY, as in sched_wakeup:p->pid,sched_switch:next->pid";
	char *copy, *comma;

	if (s->nlat == TPSTAT_MAX_LAT)
		cli_usage_error("tpstat", "too many --latency: at most %d", TPSTAT_MAX_LAT);
	copy = strdup(arg);	/* the spec keeps pointers into it */
	if (!copy)
		cli_usage_error("tpstat", "out of memory");
	comma = strchr(copy, ',');
	if (!comma)
		cli_usage_error("tpstat", "invalid --latency '%s': %s", arg, form);
	*comma = '\0';
	l->text = arg;
	l->key[0] = split_tp(copy, l->tp_name[0], sizeof(l->tp_name[0]), "latency", form);
	l->key[1] = split_tp(comma + 1, l->tp_name[1], sizeof(l->tp_name[1]), "latency", form);
	/* END:KEY:MIN:MAX:STEP: --lhist's buckets, of ns (a KEY has no ':'). */
	if (strchr(l->key[1], ':'))
		parse_linear((char *)l->key[1], &l->range, true, "latency", arg,
			     "START:KEY,END:KEY or START:KEY,END:KEY:MIN:MAX:STEP (ns)",
			     "0 <= MIN < MAX and STEP > 0 (ns)");
	for (int side = 0; side < 2; side++) {
		l->kind[side] = tpfilter_key(l->key[side]);
		if (l->kind[side] == TPFILTER_KEY_COMM)
			cli_usage_error("tpstat", "--latency '%s': comm is not a key of a latency "
					"(names repeat): give pid or a field such as p->pid", arg);
	}
	s->nlat++;
}

/* The same --latency pair (START:KEY,END:KEY, whatever its buckets) is one histogram. */
static bool same_latency(const struct tp_lat *a, const struct tp_lat *b)
{
	for (int side = 0; side < 2; side++)
		if (strcmp(a->tp_name[side], b->tp_name[side]) || strcmp(a->key[side], b->key[side]))
			return false;
	return true;
}

/*
 * One histogram and one key table per expression: each is a series whose labels are its
 * tracepoint and expression text, and a second would repeat them.
 */
void tpstat_specs_once(const struct tpstat_specs *s)
{
	for (int h = 0; h < s->nhist; h++)
		for (int k = 0; k < h; k++)
			if (!strcmp(s->hist[h].tp_name, s->hist[k].tp_name) &&
			    !strcmp(s->hist[h].expr, s->hist[k].expr))
				cli_usage_error("tpstat", "%s:%s is given twice (--hist or --lhist): "
						"one histogram per expression", s->hist[h].tp_name,
						s->hist[h].expr);
	for (int b = 0; b < s->nby; b++)
		for (int k = 0; k < b; k++)
			if (!strcmp(s->by[b].tp_name, s->by[k].tp_name) &&
			    !strcmp(s->by[b].key, s->by[k].key))
				cli_usage_error("tpstat", "--by %s:%s is given twice", s->by[b].tp_name,
						s->by[b].key);
	for (int f = 0; f < s->nfilter; f++)
		for (int k = 0; k < f; k++)
			if (!strcmp(s->filter[f].tp_name, s->filter[k].tp_name) &&
			    !strcmp(s->filter[f].text, s->filter[k].text))
				cli_usage_error("tpstat", "--filter '%s:%s' is given twice",
						s->filter[f].tp_name, s->filter[f].text);
	for (int l = 0; l < s->nlat; l++)
		for (int k = 0; k < l; k++)
			if (same_latency(&s->lat[l], &s->lat[k]))
				cli_usage_error("tpstat", "--latency %s:%s,%s:%s is given twice: "
						"one histogram per pair", s->lat[l].tp_name[0],
						s->lat[l].key[0], s->lat[l].tp_name[1],
						s->lat[l].key[1]);
}

/* An item's tracepoint: one, never a pattern (tpstat_expand.h), and its spec. */
static struct tp_spec *item_spec(struct tpstat_specs *s, const char *name)
{
	if (tpstat_is_pattern(name))
		cli_usage_error("tpstat", "'%s' is a pattern: an option names one tracepoint", name);
	return spec_of(s, name);
}

void tpstat_specs_group(struct tpstat_specs *s)
{
	/* Room for every item's TP: no spec moves once an item points to it. */
	reserve(s, s->n + s->nhist + s->nby + s->nfilter + 2 * s->nlat);
	for (int h = 0; h < s->nhist; h++) {
		struct tp_spec *tp = s->hist[h].tp = item_spec(s, s->hist[h].tp_name);

		tp->hists[tp->nhists++] = &s->hist[h];
		tp->reads_fields = true;
	}
	for (int b = 0; b < s->nby; b++) {
		struct tp_spec *tp = s->by[b].tp = item_spec(s, s->by[b].tp_name);

		tp->bys[tp->nbys++] = &s->by[b];
		tp->reads_fields = true;
	}
	for (int k = 0; k < s->nfilter; k++) {
		struct tp_spec *tp = s->filter[k].tp = item_spec(s, s->filter[k].tp_name);

		tp->filters[tp->nfilters++] = &s->filter[k];
		tp->reads_fields = true;
	}
	for (int l = 0; l < s->nlat; l++) {
		for (int side = 0; side < 2; side++) {
			s->lat[l].tp[side] = item_spec(s, s->lat[l].tp_name[side]);
			s->lat[l].tp[side]->reads_fields = true;
		}
		s->lat[l].tp[1]->lats[s->lat[l].tp[1]->nlats++] = &s->lat[l];
	}
}

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
