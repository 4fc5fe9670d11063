// SPDX-License-Identifier: GPL-2.0
/*
 * The blocks under tpstat's table and interval lines (tpstat_fmt.h): each histogram as
 * bars, each --by as a table of its keys, each --latency with its accounting.
 */
#include <string.h>
#include "src/tpstat_fmt.h"

/* A bar chart of @h, from its lowest non-empty bucket to its highest, as bpftrace draws. */
/* What a table's reads lost, closing its summary line: failed reads, lost min/max updates. */
static void fmt_read_losses(FILE *f, __u64 errors, __u64 minmax_lost)
{
	char num[48];

	if (errors)
		fprintf(f, ", errors %s (reads that failed)",
			fmt_thousands(num, sizeof(num), errors));
	if (minmax_lost)
		fprintf(f, ", min/max updates lost %llu", (unsigned long long)minmax_lost);
	fputs("\n", f);
}

/* A histogram under its title ("tpgen_a:seq"): the summary line, then the buckets. */
static void fmt_hist_titled(FILE *f, const char *title, const struct tpstat_hist_row *h)
{
	char num[48], range[112];
	int first = -1, last = -1, rw = 0, cw = 0;
	__u64 top = 0;

	fprintf(f, " %s  samples %s", title, fmt_thousands(num, sizeof(num), h->samples));
	if (h->interval)
		fputs(" in this interval", f);
	else if (h->samples && h->is_signed)
		fprintf(f, ", sum %s, min %lld, max %lld",
			buckets_sum(num, sizeof(num), h->sum, h->sum_hi, true), (long long)h->min,
			(long long)h->max);
	else if (h->samples)
		fprintf(f, ", sum %s, min %llu, max %llu",
			buckets_sum(num, sizeof(num), h->sum, h->sum_hi, false),
			(unsigned long long)h->min, (unsigned long long)h->max);
	fmt_read_losses(f, h->errors, h->minmax_lost);
	for (int i = 0; i < TPSTAT_HIST_BUCKETS; i++) {
		int b = buckets_order(h, i);
		__u64 c = b < 0 ? 0 : h->buckets[b];

		if (!c)
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (c > top)
			top = c;
	}
	/* Columns as wide as the widest range and count shown. */
	for (int i = first; first >= 0 && i <= last; i++) {
		int b = buckets_order(h, i), n;

		if (b < 0)
			continue;
		buckets_label(h, b, range, sizeof(range));
		n = (int)strlen(range);
		rw = n > rw ? n : rw;
		n = (int)strlen(fmt_thousands(num, sizeof(num), h->buckets[b]));
		cw = n > cw ? n : cw;
	}
	for (int i = first; first >= 0 && i <= last; i++) {
		int b = buckets_order(h, i), bar;

		if (b < 0)
			continue;
		bar = (int)((h->buckets[b] * 40 + top - 1) / top);
		buckets_label(h, b, range, sizeof(range));
		fprintf(f, "  %-*s %*s |%-40.*s|\n", rw, range, cw,
			fmt_thousands(num, sizeof(num), h->buckets[b]), bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
	}
	fputs("\n", f);
}

void fmt_hist_block(FILE *f, const char *tp, const struct tpstat_hist_row *h)
{
	char title[TP_NAME_LEN + 256];

	snprintf(title, sizeof(title), "%s:%s", tp, h->expr);
	fmt_hist_titled(f, title, h);
}

/*
 * A --latency: its histogram of ns, then where every START and END went. In an interval's
 * lines (hist.interval) the accounting is the interval's too, and open is the present.
 */
void fmt_lat_block(FILE *f, const char *end_tp, const struct tpstat_lat_row *l)
{
	char title[2 * TP_NAME_LEN + 512];
	char n[9][32];
	bool iv = l->hist.interval;

	snprintf(title, sizeof(title), "latency %s:%s -> %s:%s (ns)", l->start_tp, l->start_key,
		 end_tp, l->end_key);
	fmt_hist_titled(f, title, &l->hist);
	fmt_thousands(n[0], sizeof(n[0]), l->matched);
	fmt_thousands(n[1], sizeof(n[1]), l->open);
	fmt_thousands(n[2], sizeof(n[2]), l->replaced);
	fmt_thousands(n[3], sizeof(n[3]), l->dropped);
	fmt_thousands(n[4], sizeof(n[4]), l->start_errors);
	fmt_thousands(n[5], sizeof(n[5]), l->no_start);
	fmt_thousands(n[6], sizeof(n[6]), l->end_errors);
	fmt_thousands(n[7], sizeof(n[7]), l->start_busy);
	fmt_thousands(n[8], sizeof(n[8]), l->end_busy);
	if (iv)
		fprintf(f, "  %s: in this interval matched %s, replaced %s, dropped %s (table full), "
			"busy %s, errors %s; open now %s\n", l->start_tp, n[0], n[2], n[3], n[7], n[4],
			n[1]);
	else
		fprintf(f, "  %s: matched %s, open %s, replaced %s, dropped %s (table full), busy %s, "
			"errors %s\n", l->start_tp, n[0], n[1], n[2], n[3], n[7], n[4]);
	fprintf(f, "  %s: %smatched %s, no start %s, busy %s, errors %s\n\n", end_tp,
		iv ? "in this interval " : "", n[0], n[5], n[8], n[6]);
}

/*
 * A stack --by: the top --top stacks, their frames indented, and the accounting
 * (stack_fold.h's table); with --value the sum, min and max over every stack.
 */
static void fmt_stack_block(FILE *f, const char *tp, const struct tpstat_by_row *b)
{
	char num[32];

	fprintf(f, " %s by %s: %s stack%s\n", tp, b->key_expr,
		fmt_thousands(num, sizeof(num), b->stacks->n), b->stacks->n == 1 ? "" : "s");
	stack_table_print(f, b->stacks->e, b->stacks->n, (size_t)b->top, &b->stacks->acct);
}

/* One --by table: a column per key, the count, and with --value its avg, min, max, sum. */
void fmt_by_block(FILE *f, const char *tp, const struct tpstat_by_row *b)
{
	char key[FMT_KEY_LEN], num[32], v[3][48];
	int nk = fmt_by_nk(b), kw[TPSTAT_BY_KEYS];

	if (b->stacks) {
		fmt_stack_block(f, tp, b);
		return;
	}
	fprintf(f, " %s by %s%s%s: %llu key%s", tp, b->key_expr, b->value_expr ? ", value " : "",
		b->value_expr ? b->value_expr : "", (unsigned long long)b->nkeys,
		b->nkeys == 1 ? "" : "s");
	if (b->dropped)
		fprintf(f, ", dropped %s (no slot in the table)",
			fmt_thousands(num, sizeof(num), b->dropped));
	fmt_read_losses(f, b->errors, b->minmax_lost);
	for (int k = 0; k < nk; k++) {
		kw[k] = (int)strlen(nk > 1 ? b->keys[k] : b->key_expr);
		for (int i = 0; i < b->n; i++) {
			fmt_by_key_i(b, &b->entries[i], k, key, sizeof(key));
			if ((int)strlen(key) > kw[k])
				kw[k] = (int)strlen(key);
		}
		if (nk == 1 && kw[k] < 16)
			kw[k] = 16;
	}
	fputs(" ", f);
	for (int k = 0; k < nk; k++)
		fprintf(f, " %-*s", kw[k], nk > 1 ? b->keys[k] : b->key_expr);
	fprintf(f, " %15s", "count");
	if (b->value_expr)
		fprintf(f, " %14s %14s %14s %21s", "avg", "min", "max", "sum");
	fputs("\n", f);
	for (int i = 0; i < b->n; i++) {
		const struct tpstat_by_entry *e = &b->entries[i];

		fputs(" ", f);
		for (int k = 0; k < nk; k++) {
			fmt_by_key_i(b, e, k, key, sizeof(key));
			fprintf(f, " %-*s", kw[k], key);
		}
		fprintf(f, " %15s", fmt_thousands(num, sizeof(num), e->count));
		if (b->value_expr && b->value_signed) {
			snprintf(v[0], sizeof(v[0]), "%lld", (long long)e->min);
			snprintf(v[1], sizeof(v[1]), "%lld", (long long)e->max);
		} else if (b->value_expr) {
			snprintf(v[0], sizeof(v[0]), "%llu", (unsigned long long)e->min);
			snprintf(v[1], sizeof(v[1]), "%llu", (unsigned long long)e->max);
		}
		if (b->value_expr)
			buckets_sum(v[2], sizeof(v[2]), e->sum, e->sum_hi, b->value_signed);
		if (b->value_expr)
			fprintf(f, " %14.1f %14s %14s %21s", fmt_by_avg(b, e), v[0], v[1], v[2]);
		fputs("\n", f);
	}
	if (b->nkeys > (__u64)b->n) {
		int w = -1;

		for (int k = 0; k < nk; k++)
			w += kw[k] + 1;
		snprintf(key, sizeof(key), "(%llu others)", (unsigned long long)(b->nkeys - b->n));
		fprintf(f, "  %-*s %15s\n", w, key, fmt_thousands(num, sizeof(num), b->other));
	}
	fputs("\n", f);
}
