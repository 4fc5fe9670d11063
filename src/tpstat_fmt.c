// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_fmt.h"
#include "src/json.h"

static bool cpu_set(const __u64 *words, int cpu)
{
	return words[cpu / 64] & (1ULL << (cpu % 64));
}

int fmt_cpulist(char *buf, size_t len, const __u64 *words, int nwords)
{
	int max = nwords * 64, out = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (int cpu = 0; cpu < max; cpu++) {
		int end = cpu;

		if (!cpu_set(words, cpu))
			continue;
		while (end + 1 < max && cpu_set(words, end + 1))
			end++;
		if (end == cpu)
			out += snprintf(buf + out, len > (size_t)out ? len - out : 0,
					"%s%d", out ? "," : "", cpu);
		else
			out += snprintf(buf + out, len > (size_t)out ? len - out : 0,
					"%s%d-%d", out ? "," : "", cpu, end);
		cpu = end;
	}
	if (!out)
		out = snprintf(buf, len, "-");
	return out;
}

const char *fmt_thousands(char *buf, size_t len, __u64 v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;

	for (int i = 0; i < n && (size_t)o + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && (size_t)o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * The CPU list of @row, allocated to fit (a sparse set of thousands of CPUs is longer than
 * any fixed buffer) with @extra bytes of room after its *@len; NULL when out of memory.
 */
static char *cpulist_alloc(const struct tpstat_row *row, int extra, int *len)
{
	char one[1], *buf;

	*len = fmt_cpulist(one, sizeof(one), row->cpus, row->cpu_words);
	buf = malloc(*len + 1 + extra);
	if (buf)
		fmt_cpulist(buf, *len + 1, row->cpus, row->cpu_words);
	return buf;
}

/* The CPU list of @row for the table, with a marker when the set is incomplete. */
static char *cpulist(const struct tpstat_row *row)
{
	int len;
	char *buf = cpulist_alloc(row, 32, &len);

	if (!buf)
		return NULL;
	if (row->cpus_truncated)
		snprintf(buf + len, 32, " (and CPUs >= %d)", row->cpu_words * 64);
	return buf;
}

/* "CPU256-8191": the CPUs of -A's last row when they share slots (tpstat_row.rest_last). */
static const char *rest_name(const struct tpstat_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "CPU%d-%d", row->ncpu, row->rest_last);
	return buf;
}

static double rate(__u64 delta, double span)
{
	return span > 0 ? (double)delta / span : 0.0;
}

int fmt_cpu_counts(const __u64 *slots, int possible, __u64 *per_cpu, __u64 *rest)
{
	/* Slot c is CPU c's own below TPSTAT_NR_SLOTS (the shared ones are CPU & 63 past 256). */
	int n = possible <= TPSTAT_NR_SLOTS ? possible : TPSTAT_SLOTS;

	*rest = 0;
	for (int c = 0; c < n; c++)
		per_cpu[c] = slots[c];
	for (int k = TPSTAT_SLOTS; n < possible && k < TPSTAT_NR_SLOTS; k++)
		*rest += slots[k];
	return n;
}

/* A 128-bit sum @hi:@lo as a JSON number: a plain one while it fits 64 bits, else exact. */
static void json_sum_field(struct json *j, const char *name, __u64 lo, __u64 hi, bool sg)
{
	if (sg ? hi == ((__s64)lo < 0 ? UINT64_MAX : 0) : !hi) {
		if (sg)
			json_i64_field(j, name, (__s64)lo);
		else
			json_u64_field(j, name, lo);
	} else {
		char sum[48];

		/* Past 64 bits: the exact integer (JSON numbers have no size). */
		json_number_field(j, name, buckets_sum(sum, sizeof(sum), lo, hi, sg));
	}
}

/* A histogram's fields, inside its object: samples, [errors,] sum, min, max, buckets. */
static void json_hist_fields(struct json *j, const struct tpstat_hist_row *h, bool errors)
{
	json_u64_field(j, "samples", h->samples);
	if (errors)
		json_u64_field(j, "errors", h->errors);
	json_sum_field(j, "sum", h->sum, h->sum_hi, h->is_signed);
	if (!h->samples) {
		json_null_field(j, "min");
		json_null_field(j, "max");
	} else if (h->is_signed) {
		json_i64_field(j, "min", (__s64)h->min);
		json_i64_field(j, "max", (__s64)h->max);
	} else {
		json_u64_field(j, "min", h->min);
		json_u64_field(j, "max", h->max);
	}
	if (h->minmax_lost)
		json_u64_field(j, "minmax_lost", h->minmax_lost);
	json_array_field_begin(j, "buckets");
	for (int i = 0; i < TPSTAT_HIST_BUCKETS; i++) {
		int b = buckets_order(h, i);
		__s64 lo, hi;
		__u64 ulo, uhi;

		if (b < 0 || !h->buckets[b])
			continue;
		json_object_begin(j);
		if (buckets_bounds(h, b, &lo, &hi, &ulo, &uhi)) {
			json_u64_field(j, "low", ulo);
			json_u64_field(j, "high", uhi);
		} else {
			json_i64_field(j, "low", lo);
			json_i64_field(j, "high", hi);
		}
		json_u64_field(j, "count", h->buckets[b]);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_hist(struct json *j, const struct tpstat_hist_row *h)
{
	json_object_begin(j);
	json_string_field(j, "expr", h->expr);
	json_hist_fields(j, h, true);
	json_object_end(j);
}

/* A bar chart of @h, from its lowest non-empty bucket to its highest, as bpftrace draws. */
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
	if (h->errors)
		fprintf(f, ", errors %s (reads that failed)",
			fmt_thousands(num, sizeof(num), h->errors));
	if (h->minmax_lost)
		fprintf(f, ", min/max updates lost %llu", (unsigned long long)h->minmax_lost);
	fputs("\n", f);
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

static void fmt_hist(FILE *f, const char *tp, const struct tpstat_hist_row *h)
{
	char title[TP_NAME_LEN + 256];

	snprintf(title, sizeof(title), "%s:%s", tp, h->expr);
	fmt_hist_titled(f, title, h);
}

/*
 * A --latency: its histogram of ns, then where every START and END went. In an interval's
 * lines (hist.interval) the accounting is the interval's too, and open is the present.
 */
static void fmt_lat(FILE *f, const char *end_tp, const struct tpstat_lat_row *l)
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

static int by_nk(const struct tpstat_by_row *b)
{
	return b->nk > 1 ? b->nk : 1;
}

static int by_kind(const struct tpstat_by_row *b, int i)
{
	return b->nk > 1 ? b->kinds[i] : b->kind;
}

static bool by_signed(const struct tpstat_by_row *b, int i)
{
	return b->nk > 1 ? b->signed_keys[i] : b->is_signed;
}

/* Key @i as text: comm as a string (at most 16 bytes, up to its NUL), numbers as such. */
void fmt_by_key_i(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, int i,
		  char *buf, size_t len)
{
	const __u64 *k = &e->k[2 * i];

	if (by_kind(b, i) == TPSTAT_KEY_COMM) {
		unsigned char comm[17] = {};
		size_t o = 0;

		memcpy(comm, k, 16);
		for (const unsigned char *p = comm; *p && o + 5 <= len;) {
			size_t bad = 1, n = json_utf8_char(p, &bad);

			if (*p == '\\') {
				o += snprintf(buf + o, len - o, "\\\\");
				p++;
			} else if (!n || *p < 0x20 || *p == 0x7f) {
				/* One byte at a time: each shows as itself, never as U+FFFD. */
				o += snprintf(buf + o, len - o, "\\x%02x", *p);
				p++;
			} else {
				memcpy(buf + o, p, n);
				o += n;
				p += n;
			}
		}
		if (len)
			buf[o < len ? o : len - 1] = '\0';
	} else if (by_signed(b, i)) {
		snprintf(buf, len, "%lld", (long long)k[0]);
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)k[0]);
	}
}

/* A --by key as text; a tuple's keys joined by commas. */
void fmt_by_key(const struct tpstat_by_row *b, const struct tpstat_by_entry *e, char *buf,
		size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < by_nk(b) && o + 1 < len; i++) {
		if (i)
			buf[o++] = ',';
		fmt_by_key_i(b, e, i, buf + o, len - o);
		o += strlen(buf + o);
	}
}

/* --value's average: the true 128-bit sum over the count. */
static double by_avg(const struct tpstat_by_row *b, const struct tpstat_by_entry *e)
{
	if (!e->count)
		return 0;
	return buckets_sum_double(e->sum, e->sum_hi, b->value_signed) / e->count;
}

static void json_by_key(struct json *j, const struct tpstat_by_row *b,
			const struct tpstat_by_entry *e, int i)
{
	char key[FMT_KEY_LEN];

	if (by_kind(b, i) == TPSTAT_KEY_COMM) {
		fmt_by_key_i(b, e, i, key, sizeof(key));
		json_string(j, key);
	} else if (by_signed(b, i)) {
		json_i64(j, (__s64)e->k[2 * i]);
	} else {
		json_u64(j, e->k[2 * i]);
	}
}

static void json_value(struct json *j, const char *name, bool sg, __u64 v)
{
	if (sg)
		json_i64_field(j, name, (__s64)v);
	else
		json_u64_field(j, name, v);
}

static void json_by(struct json *j, const struct tpstat_by_row *b)
{
	json_object_begin(j);
	json_string_field(j, "key_expr", b->key_expr);
	if (b->nk > 1) {
		json_array_field_begin(j, "key_exprs");
		for (int i = 0; i < b->nk; i++)
			json_string(j, b->keys[i]);
		json_array_end(j);
	}
	if (b->value_expr)
		json_string_field(j, "value_expr", b->value_expr);
	json_array_field_begin(j, "entries");
	for (int i = 0; i < b->n; i++) {
		const struct tpstat_by_entry *e = &b->entries[i];

		json_object_begin(j);
		json_key(j, "key");
		if (b->nk > 1) {
			json_array_begin(j);
			for (int k = 0; k < b->nk; k++)
				json_by_key(j, b, e, k);
			json_array_end(j);
		} else {
			json_by_key(j, b, e, 0);
		}
		json_u64_field(j, "count", e->count);
		if (b->value_expr) {
			json_sum_field(j, "sum", e->sum, e->sum_hi, b->value_signed);
			json_value(j, "min", b->value_signed, e->min);
			json_value(j, "max", b->value_signed, e->max);
			json_float_field(j, "avg", 3, by_avg(b, e));
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_u64_field(j, "other", b->other);
	json_u64_field(j, "dropped", b->dropped);
	json_u64_field(j, "errors", b->errors);
	json_u64_field(j, "keys", b->nkeys);
	if (b->minmax_lost)
		json_u64_field(j, "minmax_lost", b->minmax_lost);
	json_object_end(j);
}

/* One --by table: a column per key, the count, and with --value its avg, min, max, sum. */
static void fmt_by(FILE *f, const char *tp, const struct tpstat_by_row *b)
{
	char key[FMT_KEY_LEN], num[32], v[3][48];
	int nk = by_nk(b), kw[TPSTAT_BY_KEYS];

	fprintf(f, " %s by %s%s%s: %llu key%s", tp, b->key_expr, b->value_expr ? ", value " : "",
		b->value_expr ? b->value_expr : "", (unsigned long long)b->nkeys,
		b->nkeys == 1 ? "" : "s");
	if (b->dropped)
		fprintf(f, ", dropped %s (no slot in the table)",
			fmt_thousands(num, sizeof(num), b->dropped));
	if (b->errors)
		fprintf(f, ", errors %s (reads that failed)",
			fmt_thousands(num, sizeof(num), b->errors));
	if (b->minmax_lost)
		fprintf(f, ", min/max updates lost %llu", (unsigned long long)b->minmax_lost);
	fputs("\n", f);
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
			fprintf(f, " %14.1f %14s %14s %21s", by_avg(b, e), v[0], v[1], v[2]);
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

/* A --latency on its END tracepoint: the histogram of ns and the accounting. */
static void json_lat(struct json *j, const struct tpstat_lat_row *l)
{
	char keys[512];

	snprintf(keys, sizeof(keys), "%s,%s", l->start_key, l->end_key);
	json_object_begin(j);
	json_string_field(j, "start", l->start_tp);
	json_string_field(j, "key_expr", keys);
	json_string_field(j, "start_key", l->start_key);
	json_string_field(j, "end_key", l->end_key);
	json_string_field(j, "unit", "ns");
	json_hist_fields(j, &l->hist, false);
	json_u64_field(j, "matched", l->matched);
	json_u64_field(j, "no_start", l->no_start);
	json_u64_field(j, "replaced", l->replaced);
	json_u64_field(j, "open", l->open);
	json_u64_field(j, "dropped", l->dropped);
	json_u64_field(j, "start_busy", l->start_busy);
	json_u64_field(j, "end_busy", l->end_busy);
	json_u64_field(j, "start_errors", l->start_errors);
	json_u64_field(j, "end_errors", l->end_errors);
	json_object_end(j);
}

void fmt_json_kind_field(struct json *j, enum tp_kind kind)
{
	if (kind == TP_KIND_BARE || kind == TP_KIND_EVENT)
		json_bool_field(j, "bare", kind == TP_KIND_BARE);
	else
		json_null_field(j, "bare");	/* not known: no tracefs to tell */
}

/* @span: the seconds the row's rate is over; the final line's is its count over the run. */
static void json_row(struct json *j, const struct tpstat_row *row, bool final, double span)
{
	json_object_begin(j);
	json_string_field(j, "name", row->name);
	json_string_field(j, "module", row->module);
	fmt_json_kind_field(j, row->kind);
	json_u64_field(j, "count", row->count);
	json_u64_field(j, "delta", row->delta);
	json_float_field(j, "rate", 3, rate(final ? row->count : row->delta, span));
	json_array_field_begin(j, "cpus");
	for (int cpu = 0; cpu < row->cpu_words * 64; cpu++)
		if (cpu_set(row->cpus, cpu))
			json_i64(j, cpu);
	json_array_end(j);
	if (row->cpus_truncated)
		json_bool_field(j, "cpus_truncated", true);
	if (row->first_cpu >= 0)
		json_i64_field(j, "first_cpu", row->first_cpu);
	else
		json_null_field(j, "first_cpu");
	json_u64_field(j, "missed", row->missed);
	json_u64_field(j, "missed_delta", row->missed_delta);
	if (row->nfilters) {
		json_array_field_begin(j, "filters");
		for (int k = 0; k < row->nfilters; k++)
			json_string(j, row->filters[k]);
		json_array_end(j);
		json_u64_field(j, "filtered", row->filtered);
		json_u64_field(j, "filtered_delta", row->filtered_delta);
		json_u64_field(j, "filter_errors", row->filter_errors);
		json_u64_field(j, "filter_errors_delta", row->filter_errors_delta);
	}
	if (row->cpu_count) {
		json_array_field_begin(j, "per_cpu");
		for (int c = 0; c < row->ncpu; c++) {
			json_object_begin(j);
			json_i64_field(j, "cpu", c);
			json_u64_field(j, "count", row->cpu_count[c]);
			json_u64_field(j, "delta", row->cpu_delta[c]);
			json_object_end(j);
		}
		json_array_end(j);
		if (row->rest_last) {
			/* CPUs sharing slots: one count for them all, never left out. */
			json_object_field_begin(j, "per_cpu_rest");
			json_i64_field(j, "first_cpu", row->ncpu);
			json_i64_field(j, "last_cpu", row->rest_last);
			json_u64_field(j, "count", row->rest_count);
			json_u64_field(j, "delta", row->rest_delta);
			json_object_end(j);
		}
	}
	if (row->nruns) {
		double mean, sd, noise;

		fmt_run_stats(row->runs, row->nruns, &mean, &sd, &noise);
		json_array_field_begin(j, "runs");
		for (int k = 0; k < row->nruns; k++)
			json_u64(j, row->runs[k]);
		json_array_end(j);
		json_float_field(j, "mean", 3, mean);
		json_float_field(j, "stddev", 3, sd);
		json_float_field(j, "noise_pct", 3, noise);
	}
	if (row->nhists) {
		json_array_field_begin(j, "hist");
		for (int h = 0; h < row->nhists; h++)
			json_hist(j, &row->hists[h]);
		json_array_end(j);
	}
	if (row->nbys) {
		json_array_field_begin(j, "by");
		for (int b = 0; b < row->nbys; b++)
			json_by(j, &row->bys[b]);
		json_array_end(j);
	}
	if (row->nlats) {
		json_array_field_begin(j, "latency");
		for (int l = 0; l < row->nlats; l++)
			json_lat(j, &row->lats[l]);
		json_array_end(j);
	}
	json_object_end(j);
}

void fmt_json(FILE *f, const struct tpstat_report *r)
{
	struct json j;

	json_init(&j, f);
	json_object_begin(&j);
	json_float_field(&j, "ts", 6, r->ts);
	json_i64_field(&j, "interval", r->interval);
	json_bool_field(&j, "final", r->final);
	json_float_field(&j, "elapsed", 6, r->elapsed);
	json_bool_field(&j, "paused", r->paused);
	json_float_field(&j, "paused_secs", 6, r->paused_secs);
	if (r->command)
		json_string_field(&j, "command", r->command);
	else
		json_null_field(&j, "command");
	json_string_field(&j, "target", r->target ? r->target : "system wide");
	if (r->nruns) {
		double mean, sd, noise;

		fmt_run_stats_d(r->run_secs, r->nruns, &mean, &sd, &noise);
		json_array_field_begin(&j, "run_elapsed");
		for (int k = 0; k < r->nruns; k++)
			json_float(&j, 6, r->run_secs[k]);
		json_array_end(&j);
		json_float_field(&j, "elapsed_mean", 6, mean);
		json_float_field(&j, "elapsed_stddev", 6, sd);
	}
	json_array_field_begin(&j, "tracepoints");
	for (int i = 0; i < r->n; i++)
		json_row(&j, &r->rows[i], r->final,
			 r->final ? r->elapsed - r->paused_secs : r->span);
	json_array_end(&j);
	json_object_end(&j);	/* ends the line and flushes */
}

/* One line for a --by table in an interval: its keys, dropped and errors since the start. */
static void fmt_by_note(FILE *f, const char *tp, const struct tpstat_by_row *b)
{
	char n[3][32];

	fprintf(f, " %s by %s: %s key%s, dropped %s (no slot in the table), errors %s (reads that "
		"failed) since the start; --summary prints the table at the end\n", tp, b->key_expr,
		fmt_thousands(n[0], sizeof(n[0]), b->nkeys), b->nkeys == 1 ? "" : "s",
		fmt_thousands(n[1], sizeof(n[1]), b->dropped),
		fmt_thousands(n[2], sizeof(n[2]), b->errors));
}

void fmt_interval_header(FILE *f)
{
	fprintf(f, "#%12s  %-28s %-5s %15s %9s %14s  %s\n", "time", "tracepoint", "kind", "delta",
		"missed", "rate/s", "cpus");
	fflush(f);
}

void fmt_interval(FILE *f, const struct tpstat_report *r)
{
	char num[32], mnum[32], cpus_rest[32];

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char *cpus = cpulist(row);

		fprintf(f, "%13.3f  %-28s %-5s %15s %9s %14.1f  %s%s\n", r->elapsed, row->name,
			tp_kind_name(row->kind), fmt_thousands(num, sizeof(num), row->delta),
			fmt_thousands(mnum, sizeof(mnum), row->missed_delta),
			rate(row->delta, r->span), cpus ? cpus : "?", r->paused ? "  [paused]" : "");
		free(cpus);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++)
			fprintf(f, "%13.3f    CPU%-24d %-5s %15s %9s %14.1f\n", r->elapsed, c, "",
				fmt_thousands(num, sizeof(num), row->cpu_delta[c]), "-",
				rate(row->cpu_delta[c], r->span));
		if (row->cpu_count && row->rest_last)
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed,
				rest_name(row, cpus_rest, sizeof(cpus_rest)), "",
				fmt_thousands(num, sizeof(num), row->rest_delta), "-",
				rate(row->rest_delta, r->span));
		if (row->nfilters) {
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed, "(filtered out)",
				"", fmt_thousands(num, sizeof(num), row->filtered_delta), "-",
				rate(row->filtered_delta, r->span));
			fprintf(f, "%13.3f    %-27s %-5s %15s %9s %14.1f\n", r->elapsed, "(filter errors)",
				"", fmt_thousands(num, sizeof(num), row->filter_errors_delta), "-",
				rate(row->filter_errors_delta, r->span));
		}
	}
	/* --hist and --latency: the interval's own histograms (deltas) under its lines. */
	for (int i = 0; i < r->n; i++)
		for (int h = 0; h < r->rows[i].nhists; h++) {
			if (!h && !i)
				fputc('\n', f);
			fmt_hist(f, r->rows[i].name, &r->rows[i].hists[h]);
		}
	for (int i = 0; i < r->n; i++)
		for (int l = 0; l < r->rows[i].nlats; l++)
			fmt_lat(f, r->rows[i].name, &r->rows[i].lats[l]);
	/*
	 * A --by table is the whole run's (its keys do not subtract): the totals print it, and
	 * each interval names it with what it could not count, so that nothing is hidden.
	 */
	for (int i = 0; i < r->n; i++)
		for (int b = 0; b < r->rows[i].nbys; b++)
			fmt_by_note(f, r->rows[i].name, &r->rows[i].bys[b]);
	fflush(f);
}

/* A row's (filtered out) and (filter errors) lines in the table: totals, over @secs. */
static void table_filter_rows(FILE *f, const struct tpstat_row *row, double secs)
{
	char num[32];

	fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n", "(filtered out)", "", "",
		fmt_thousands(num, sizeof(num), row->filtered), "-", rate(row->filtered, secs));
	fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n", "(filter errors)", "", "",
		fmt_thousands(num, sizeof(num), row->filter_errors), "-", rate(row->filter_errors, secs));
}

/*
 * Under the table: each tracepoint's filters, and what filtered out and filter errors are.
 * With -r the count column is the mean run, the others are over all runs.
 */
static void fmt_filter_legend(FILE *f, const struct tpstat_report *r, bool runs)
{
	bool any = false;

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];

		for (int k = 0; k < row->nfilters; k++)
			fprintf(f, "%s '%s'", k ? " and" : " filter: counted only where",
				row->filters[k]);
		if (row->nfilters) {
			fprintf(f, " (%s)\n", row->name);
			any = true;
		}
	}
	if (any)
		fprintf(f, " (filtered out): events a filter rejected; (filter errors): events whose "
			"filter could not read its field;\n %s + filtered out + filter errors + missed "
			"= hits\n", runs ? "with -r, count is the mean of the runs; the runs' counts" :
			"count");
}

void fmt_table(FILE *f, const struct tpstat_report *r)
{
	char num[32], mnum[32], cpus_rest[32];
	int nruns = r->n ? r->rows[0].nruns : 0;
	const char *target = r->target ? r->target : "system wide";

	fputc('\n', f);
	if (r->command)
		fprintf(f, " tpstat counts for '%s', %s", r->command, target);
	else
		fprintf(f, " tpstat counts, %s", target);
	if (nruns)
		fprintf(f, " (%d runs)", nruns);
	fputs(":\n\n", f);
	fprintf(f, "  %-28s %-5s %-9s %15s %9s %14s  %s\n", "tracepoint", "kind", "module", "count",
		"missed", "rate/s", nruns ? "noise" : "cpus (first)");
	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		char first[16] = "", *cpus;
		double mean, sd, noise;

		if (row->first_cpu >= 0)
			snprintf(first, sizeof(first), " (%d)", row->first_cpu);
		if (row->nruns) {
			fmt_run_stats(row->runs, row->nruns, &mean, &sd, &noise);
			fprintf(f, "  %-28s %-5s %-9s %15s %9s %14.1f  ( +- %.2f%% )\n", row->name,
				tp_kind_name(row->kind), row->module,
				fmt_thousands(num, sizeof(num), (__u64)llround(mean)),
				fmt_thousands(mnum, sizeof(mnum), row->missed),
				rate(row->count, r->elapsed - r->paused_secs), noise);
			if (row->nfilters)
				table_filter_rows(f, row, r->elapsed - r->paused_secs);
			continue;
		}
		cpus = cpulist(row);
		fprintf(f, "  %-28s %-5s %-9s %15s %9s %14.1f  %s%s\n", row->name, tp_kind_name(row->kind),
			row->module, fmt_thousands(num, sizeof(num), row->count),
			fmt_thousands(mnum, sizeof(mnum), row->missed),
			rate(row->count, r->elapsed - r->paused_secs), cpus ? cpus : "?", first);
		free(cpus);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++)
			fprintf(f, "    CPU%-25d %-5s %-9s %15s %9s %14.1f\n", c, "", "",
				fmt_thousands(num, sizeof(num), row->cpu_count[c]), "-",
				rate(row->cpu_count[c], r->elapsed - r->paused_secs));
		if (row->cpu_count && row->rest_last)
			fprintf(f, "    %-28s %-5s %-9s %15s %9s %14.1f\n",
				rest_name(row, cpus_rest, sizeof(cpus_rest)), "", "",
				fmt_thousands(num, sizeof(num), row->rest_count), "-",
				rate(row->rest_count, r->elapsed - r->paused_secs));
		if (row->nfilters)
			table_filter_rows(f, row, r->elapsed - r->paused_secs);
	}
	if (r->nruns) {
		double mean, sd, noise;

		/* perf stat -r's line: the mean run and its noise, then the whole. */
		fmt_run_stats_d(r->run_secs, r->nruns, &mean, &sd, &noise);
		fprintf(f, "\n %13.6f +- %.6f seconds elapsed per run ( +- %.2f%% )", mean,
			sd / sqrt(r->nruns), noise);
		fprintf(f, "\n %13.6f seconds elapsed in all", r->elapsed);
	} else {
		fprintf(f, "\n %13.6f seconds elapsed", r->elapsed);
	}
	if (r->paused_secs > 0)
		fprintf(f, " (counting paused for %.3f s)", r->paused_secs);
	fputs("\n", f);
	for (int i = 0; i < r->n; i++)
		if (r->rows[i].missed) {
			fprintf(f, " missed: hits the kernel did not let the program see (a tracepoint "
				"fired while its program ran on the same CPU); %s + missed = hits\n",
				nruns ? "the runs' counts" : "count");
			break;
		}
	fmt_filter_legend(f, r, nruns > 0);
	fputs("\n", f);
	for (int i = 0; i < r->n; i++)
		for (int h = 0; h < r->rows[i].nhists; h++)
			fmt_hist(f, r->rows[i].name, &r->rows[i].hists[h]);
	for (int i = 0; i < r->n; i++)
		for (int b = 0; b < r->rows[i].nbys; b++)
			fmt_by(f, r->rows[i].name, &r->rows[i].bys[b]);
	for (int i = 0; i < r->n; i++)
		for (int l = 0; l < r->rows[i].nlats; l++)
			fmt_lat(f, r->rows[i].name, &r->rows[i].lats[l]);
	fflush(f);
}

/*
 * A CPU list without the separator in it: ranges joined by spaces, allocated to fit (as
 * cpulist(), without its marker); NULL when out of memory.
 */
static char *csv_cpulist(const struct tpstat_row *row)
{
	int len;
	char *buf = cpulist_alloc(row, 0, &len);

	for (char *p = buf; p && *p; p++)
		if (*p == ',')
			*p = ' ';
	return buf;
}

/* Two empty CSV columns: "SEP SEP" (a separator is one character, or a short string). */
static const char *csv_empty2(const char *sep)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", sep, sep);
	return buf;
}

/*
 * [TIME,] [CPU,] COUNT, MISSED, TRACEPOINT, KIND, MODULE, RATE, CPUS [, NOISE%]
 * [, FILTERED, FILTER_ERRORS]: TIME in interval lines (whose values are deltas), CPU with -A
 * ("all", then "CPU<n>" rows whose MISSED is empty: the kernel counts misses per program, not
 * per CPU), NOISE with -r, FILTERED and FILTER_ERRORS with --filter (empty in the rows of a
 * tracepoint without one, and in CPU rows).
 */
void fmt_csv(FILE *f, const struct tpstat_report *r)
{
	const char *s = r->csv;
	char rest[32];

	for (int i = 0; i < r->n; i++) {
		const struct tpstat_row *row = &r->rows[i];
		__u64 count = r->final ? row->count : row->delta;
		__u64 missed = r->final ? row->missed : row->missed_delta;
		double span = r->final ? r->elapsed - r->paused_secs : r->span;
		char *cpus = csv_cpulist(row);

		if (!r->final)
			fprintf(f, "%.3f%s", r->elapsed, s);
		if (r->per_cpu)
			fprintf(f, "all%s", s);
		fprintf(f, "%llu%s%llu%s", (unsigned long long)count, s, (unsigned long long)missed, s);
		fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
		fprintf(f, "%.1f%s%s", rate(count, span), s, cpus ? cpus : "?");
		free(cpus);
		if (row->nruns) {
			double mean, sd, noise;

			fmt_run_stats(row->runs, row->nruns, &mean, &sd, &noise);
			fprintf(f, "%s%.2f%%", s, noise);
		}
		if (r->filters && row->nfilters)
			fprintf(f, "%s%llu%s%llu", s,
				(unsigned long long)(r->final ? row->filtered : row->filtered_delta), s,
				(unsigned long long)(r->final ? row->filter_errors :
							       row->filter_errors_delta));
		else if (r->filters)
			fputs(csv_empty2(s), f);
		fputc('\n', f);
		for (int c = 0; row->cpu_count && c < row->ncpu; c++) {
			__u64 v = r->final ? row->cpu_count[c] : row->cpu_delta[c];

			if (!r->final)
				fprintf(f, "%.3f%s", r->elapsed, s);
			fprintf(f, "CPU%d%s%llu%s%s", c, s, (unsigned long long)v, s, s);
			fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
			fprintf(f, "%.1f%s%d%s\n", rate(v, span), s, c, r->filters ? csv_empty2(s) : "");
		}
		if (row->cpu_count && row->rest_last) {
			__u64 v = r->final ? row->rest_count : row->rest_delta;

			if (!r->final)
				fprintf(f, "%.3f%s", r->elapsed, s);
			fprintf(f, "%s%s%llu%s%s", rest_name(row, rest, sizeof(rest)), s,
				(unsigned long long)v, s, s);
			fprintf(f, "%s%s%s%s%s%s", row->name, s, tp_kind_name(row->kind), s, row->module, s);
			fprintf(f, "%.1f%s%d-%d%s\n", rate(v, span), s, row->ncpu, row->rest_last,
				r->filters ? csv_empty2(s) : "");
		}
	}
	fflush(f);
}

/* Counts (@u) or seconds (@d): mean, sample standard deviation, perf stat's noise. */
static void run_stats(const __u64 *u, const double *d, int n, double *mean, double *stddev,
		      double *noise_pct)
{
	double sum = 0, sq = 0;

	*mean = *stddev = *noise_pct = 0;
	if (n <= 0)
		return;
	for (int k = 0; k < n; k++)
		sum += u ? (double)u[k] : d[k];
	*mean = sum / n;
	if (n < 2)
		return;
	for (int k = 0; k < n; k++) {
		double v = u ? (double)u[k] : d[k];

		sq += (v - *mean) * (v - *mean);
	}
	*stddev = sqrt(sq / (n - 1));
	/* perf stat's "+- x%": the standard deviation of the mean, relative to the mean. */
	if (*mean > 0)
		*noise_pct = 100.0 * (*stddev / sqrt(n)) / *mean;
}

void fmt_run_stats(const __u64 *runs, int n, double *mean, double *stddev, double *noise_pct)
{
	run_stats(runs, NULL, n, mean, stddev, noise_pct);
}

void fmt_run_stats_d(const double *v, int n, double *mean, double *stddev, double *noise_pct)
{
	run_stats(NULL, v, n, mean, stddev, noise_pct);
}
