// SPDX-License-Identifier: GPL-2.0
/* Stacks as folded lines, a table and JSON (stack_fold.h says the formats). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/stack_fold.h"
#include "src/stack_frame.h"

/* The buckets of struct stack_acct: the JSON member, the table's words, where it is. */
static const struct {
	const char *json, *text;
	size_t off;
} buckets[] = {
	{ "truncated", "truncated (deeper than collected)", offsetof(struct stack_acct, truncated) },
	{ "map_full", "map full (no slot for a new stack)", offsetof(struct stack_acct, map_full) },
	{ "collision", "collision (slot held by another stack)", offsetof(struct stack_acct, collision) },
	{ "no_ustack", "no user stack (kernel thread)", offsetof(struct stack_acct, no_ustack) },
	{ "read_error", "read error", offsetof(struct stack_acct, read_error) },
};
#define NR_BUCKETS (sizeof(buckets) / sizeof(buckets[0]))
_Static_assert(NR_BUCKETS == STACK_NR_BUCKETS, "stack_fold.h counts the buckets");

static uint64_t bucket(const struct stack_acct *a, size_t i)
{
	return *(const uint64_t *)((const char *)a + buckets[i].off);
}

void stack_buckets(const struct stack_acct *a, struct stack_bucket out[STACK_NR_BUCKETS])
{
	size_t i;

	for (i = 0; i < NR_BUCKETS; i++) {
		out[i].json = buckets[i].json;
		out[i].text = buckets[i].text;
		out[i].count = bucket(a, i);
	}
}

void stack_fold_frame(const char *name, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; name[i] && i + 1 < len; i++) {
		unsigned char c = name[i];

		buf[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : c;
	}
	buf[i] = '\0';
}

static void fold_put(FILE *f, const char *name, int *first)
{
	char buf[STACK_NAME_LEN];

	stack_fold_frame(name, buf, sizeof(buf));
	fprintf(f, "%s%s", *first ? "" : ";", buf);
	*first = 0;
}

int stack_fold_line(FILE *f, const char *root, const struct stack_entry *e)
{
	int i, first = 1;

	if (root)
		fold_put(f, root, &first);
	if (e->key)
		fold_put(f, e->key, &first);
	for (i = e->nu - 1; i >= 0; i--)
		fold_put(f, e->uframes[i], &first);
	if (e->nu && e->nk)
		fold_put(f, STACK_FOLD_SEP, &first);
	for (i = e->nk - 1; i >= 0; i--)
		fold_put(f, e->kframes[i], &first);
	/* A stack with no frame at all still counts: one frame says so. */
	if (!e->key && !e->nu && !e->nk)
		fold_put(f, "[no frames]", &first);
	return fprintf(f, " %llu\n", (unsigned long long)e->count) < 0 ? -EIO : 0;
}

FILE *stack_file_open(const char *path, char **tmp)
{
	size_t len = strlen(path) + 8;
	FILE *f;

	*tmp = malloc(len);
	if (!*tmp) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(*tmp, len, "%s.tmp", path);
	f = fopen(*tmp, "w");
	if (!f) {
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

int stack_file_close(FILE *f, char *tmp, const char *path, int ret)
{
	if ((fflush(f) || ferror(f)) && !ret)
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int stack_fold_file(const char *path, const struct stack_group *g, size_t ng)
{
	char *tmp;
	FILE *f = stack_file_open(path, &tmp);
	size_t i, k;
	int ret = 0;

	if (!f)
		return -errno;
	for (k = 0; k < ng; k++)
		for (i = 0; i < g[k].n && !ret; i++)
			ret = stack_fold_line(f, g[k].root, &g[k].e[i]);
	return stack_file_close(f, tmp, path, ret);
}

static int order_cmp(const void *a, const void *b, void *entries)
{
	const struct stack_entry *e = entries;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t cx = e[x].count, cy = e[y].count;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

void stack_order(const struct stack_entry *e, size_t n, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), order_cmp, (void *)e);
}

uint64_t stack_accounted(const struct stack_entry *e, size_t n, const struct stack_acct *a)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += e[i].count;
	for (i = 0; i < NR_BUCKETS; i++)
		sum += bucket(a, i);
	return sum;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* A name on a line of the table: control bytes as \xHH, so no name breaks the layout. */
static void print_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else if (c == '\\')
			fputs("\\\\", f);
		else
			fputc(c, f);
	}
}

static void print_frames(FILE *f, const char *const *frames, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fputs("        ", f);
		print_name(f, frames[i]);
		fputc('\n', f);
	}
}

int stack_table_print(FILE *f, const struct stack_entry *e, size_t n, size_t top,
		      const struct stack_acct *a)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), shown, i;
	uint64_t other = 0, in_stacks = 0;

	if (!order)
		return -ENOMEM;
	stack_order(e, n, order);
	shown = top && top < n ? top : n;
	fprintf(f, "  %llu events in %zu stack%s\n", (unsigned long long)a->count, n,
		n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		const struct stack_entry *s = &e[order[i]];

		in_stacks += s->count;
		if (i >= shown) {
			other += s->count;
			continue;
		}
		fprintf(f, "  %12llu %6.2f%%", (unsigned long long)s->count, share(s->count, a->count));
		if (s->key) {
			fputs("  ", f);
			print_name(f, s->key);
		}
		fputc('\n', f);
		if (s->value)
			fprintf(f, "        avg %s, min %s, max %s, sum %s\n", s->value[3], s->value[1],
				s->value[2], s->value[0]);
		print_frames(f, s->kframes, s->nk);
		if (s->nk && s->nu)
			fprintf(f, "        --\n");
		print_frames(f, s->uframes, s->nu);
	}
	free(order);
	if (n > shown)
		fprintf(f, "  %12llu %6.2f%%  (%zu other stack%s)\n", (unsigned long long)other,
			share(other, a->count), n - shown, n - shown == 1 ? "" : "s");
	for (i = 0; i < NR_BUCKETS; i++)
		fprintf(f, "  %12llu %6.2f%%  %s\n", (unsigned long long)bucket(a, i),
			share(bucket(a, i), a->count), buckets[i].text);
	fprintf(f, "  %llu in stacks + %llu without = %llu of %llu events%s\n",
		(unsigned long long)in_stacks,
		(unsigned long long)(stack_accounted(e, n, a) - in_stacks),
		(unsigned long long)stack_accounted(e, n, a), (unsigned long long)a->count,
		stack_accounted(e, n, a) == a->count ? "" : " (NOT ACCOUNTED)");
	return ferror(f) ? -EIO : 0;
}

static void json_frames(struct json *j, const char *key, const char *const *frames, int n)
{
	int i;

	json_array_field_begin(j, key);
	for (i = 0; i < n; i++)
		json_string(j, frames[i]);
	json_array_end(j);
}

void stack_json(struct json *j, const struct stack_entry *e, size_t n, size_t top,
		const struct stack_acct *a)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), shown, i;
	uint64_t other = 0;

	shown = top && top < n ? top : n;
	if (order)
		stack_order(e, n, order);
	json_array_field_begin(j, "stacks");
	for (i = 0; i < n; i++) {
		const struct stack_entry *s = &e[order ? order[i] : i];

		if (i >= shown) {
			other += s->count;
			continue;
		}
		json_object_begin(j);
		json_u64_field(j, "count", s->count);
		if (s->value) {
			json_number_field(j, "sum", s->value[0]);
			json_number_field(j, "min", s->value[1]);
			json_number_field(j, "max", s->value[2]);
			json_number_field(j, "avg", s->value[3]);
		}
		if (s->key)
			json_string_field(j, "key", s->key);
		json_frames(j, "kstack", s->kframes, s->nk);
		json_frames(j, "ustack", s->uframes, s->nu);
		json_object_end(j);
	}
	json_array_end(j);
	free(order);
	json_u64_field(j, "other", other);
	for (i = 0; i < NR_BUCKETS; i++)
		json_u64_field(j, buckets[i].json, bucket(a, i));
}
