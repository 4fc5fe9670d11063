// SPDX-License-Identifier: GPL-2.0
/* Named stacks merged, their values as text, freed (tpstat_stack_merge.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_stack_merge.h"
#include "src/tpstat_buckets.h"

/* An entry's names. */
void tpstat_stack_free_names(struct stack_entry *e)
{
	free((char *)e->key);
	for (int f = 0; f < e->nk; f++)
		free((char *)e->kframes[f]);
	for (int f = 0; f < e->nu; f++)
		free((char *)e->uframes[f]);
	free((void *)e->kframes);
	free((void *)e->uframes);
	if (e->value)
		for (int i = 0; i < 4; i++)
			free((char *)e->value[i]);
	free((void *)e->value);
}

void tpstat_stack_free(struct stack_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tpstat_stack_free_names(&e[i]);
	free(e);
}

/* An entry's names as one string, for merging the entries that name the same. */
static char *signature(const struct stack_entry *e)
{
	size_t len = 4;
	char *s, *p;

	len += e->key ? strlen(e->key) + 1 : 1;
	for (int i = 0; i < e->nk; i++)
		len += strlen(e->kframes[i]) + 1;
	for (int i = 0; i < e->nu; i++)
		len += strlen(e->uframes[i]) + 1;
	p = s = malloc(len);
	if (!s)
		return NULL;
	p += sprintf(p, "%s\x1f", e->key ? e->key : "");
	for (int i = 0; i < e->nk; i++)
		p += sprintf(p, "%s\x1e", e->kframes[i]);
	*p++ = '\x1f';
	for (int i = 0; i < e->nu; i++)
		p += sprintf(p, "%s\x1e", e->uframes[i]);
	*p = '\0';
	return s;
}

struct sig {
	char *s;
	size_t i;
};

static int cmp_sig(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* --value's per-stack numbers of two entries that name the same, in *@a. */
static void add_value(struct tpstat_by_val *a, const struct tpstat_by_val *b, bool sg)
{
	__u64 lo = a->sum + b->sum;

	a->sum_hi += b->sum_hi + (lo < a->sum);
	a->sum = lo;
	if (sg ? (__s64)b->min < (__s64)a->min : b->min < a->min)
		a->min = b->min;
	if (sg ? (__s64)b->max > (__s64)a->max : b->max > a->max)
		a->max = b->max;
	a->count += b->count;
}

/*
 * Merge the entries of @e that name the same, adding their counts (and @v's values, @sg:
 * signed): the new count. @e and @v keep the merged entries in their first places.
 */
size_t tpstat_stack_merge(struct stack_entry *e, struct tpstat_by_val *v, size_t n, bool sg)
{
	struct sig *s = calloc(n + 1, sizeof(*s));
	struct tpstat_by_val *ov = NULL;
	struct stack_entry *out = NULL;
	size_t m = n, nsig = 0;

	/* Out of memory anywhere: the entries stay as they are, unmerged. */
	if (!s)
		return n;
	for (; nsig < n; nsig++) {
		s[nsig] = (struct sig){ .s = signature(&e[nsig]), .i = nsig };
		if (!s[nsig].s)
			goto out;
	}
	qsort(s, n, sizeof(*s), cmp_sig);
	out = malloc((n + 1) * sizeof(*out));
	ov = malloc((n + 1) * sizeof(*ov));
	if (!out || !ov)
		goto out;
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(s[i].s, s[i - 1].s)) {
			out[m - 1].count += e[s[i].i].count;
			add_value(&ov[m - 1], &v[s[i].i], sg);
			tpstat_stack_free_names(&e[s[i].i]);
		} else {
			ov[m] = v[s[i].i];
			out[m++] = e[s[i].i];
		}
	}
	memcpy(e, out, m * sizeof(*e));
	memcpy(v, ov, m * sizeof(*v));
out:
	for (size_t i = 0; i < nsig; i++)
		free(s[i].s);
	free(s);
	free(out);
	free(ov);
	return m;
}

/* --value's sum, min, max and average of @v as the JSON numbers of stack_entry's value. */
const char *const *tpstat_stack_value(const struct tpstat_by_val *v, bool sg)
{
	char **t = calloc(4, sizeof(*t)), buf[48];

	if (!t)
		return NULL;
	buckets_sum(buf, sizeof(buf), v->sum, v->sum_hi, sg);
	t[0] = strdup(buf);
	snprintf(buf, sizeof(buf), sg ? "%lld" : "%llu", (long long)v->min);
	t[1] = strdup(buf);
	snprintf(buf, sizeof(buf), sg ? "%lld" : "%llu", (long long)v->max);
	t[2] = strdup(buf);
	snprintf(buf, sizeof(buf), "%.3f",
		 v->count ? buckets_sum_double(v->sum, v->sum_hi, sg) / v->count : 0.0);
	t[3] = strdup(buf);
	for (int i = 0; i < 4; i++)
		if (!t[i]) {
			for (int k = 0; k < 4; k++)
				free(t[k]);
			free(t);
			return NULL;
		}
	return (const char *const *)t;
}

