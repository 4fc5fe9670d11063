// SPDX-License-Identifier: GPL-2.0
/* tpstat -j: one JSON object per report, on a line of its own (tpstat_fmt.h). */
#include <stdint.h>
#include "src/tpstat_fmt.h"
#include "src/json.h"

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

static void json_by_key(struct json *j, const struct tpstat_by_row *b,
			const struct tpstat_by_entry *e, int i)
{
	char key[FMT_KEY_LEN];

	if (fmt_by_kind(b, i) == TPSTAT_KEY_COMM) {
		fmt_by_key_i(b, e, i, key, sizeof(key));
		json_string(j, key);
	} else if (fmt_by_signed(b, i)) {
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
	if (fmt_by_stack(b)) {
		/* Named once, for the final line: the others have the expressions only. */
		if (b->stacks) {
			stack_json(j, b->stacks->e, b->stacks->n, (size_t)b->top, &b->stacks->acct);
			json_u64_field(j, "keys", b->stacks->n);
		}
		json_object_end(j);
		return;
	}
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
			json_float_field(j, "avg", 3, fmt_by_avg(b, e));
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
	json_float_field(j, "rate", 3, fmt_rate(final ? row->count : row->delta, span));
	json_array_field_begin(j, "cpus");
	for (int cpu = 0; cpu < row->cpu_words * 64; cpu++)
		if (fmt_cpu_in(row->cpus, cpu))
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
