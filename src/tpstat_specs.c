// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's specs (tpstat_specs.h): argv's names and items into one spec per tracepoint,
 * checked for what the options allow on their own (tpstat_specs_resolve.c resolves them).
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

/* kstack[:N] or ustack[:N] (bpf/tpstat_stack.h): its kind and depth into @by. */
static void spec_stack_key(struct tp_by *by, const char *k, const char *arg)
{
	bool user = !strncmp(k, "ustack", 6);
	char *end;
	long n = TPSTAT_STACK_DEFAULT;

	if (strncmp(k, "kstack", 6) && !user)
		return;
	if (k[6] == ':') {
		errno = 0;
		n = strtol(k + 7, &end, 10);
		if (errno || end == k + 7 || *end || n < 1 || n > TPSTAT_STACK_MAX)
			cli_usage_error("tpstat", "--by '%s': %.6s:N takes N from 1 to %d frames",
					arg, k, TPSTAT_STACK_MAX);
	} else if (k[6]) {
		return;
	}
	if (user ? by->udepth : by->kdepth)
		cli_usage_error("tpstat", "--by '%s': one %.6s per --by", arg, k);
	by->kinds[by->nkeys] = user ? TPSTAT_KEY_USTACK : TPSTAT_KEY_KSTACK;
	if (user)
		by->udepth = (int)n;
	else
		by->kdepth = (int)n;
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
		spec_stack_key(by, k, arg);
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
