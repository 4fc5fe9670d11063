// SPDX-License-Identifier: GPL-2.0
/* The one view model of a snapshot (tpstat_view.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_buckets.h"
#include "src/tpstat_view.h"

int tpstat_view_open(struct tpstat_view *v)
{
	int n = v->specs->n, runs = v->o->repeat > 0 ? (int)v->o->repeat : 1;

	/* Each run's counts for as many runs as -r asks (a command's one run without it). */
	v->tp = calloc(n, sizeof(*v->tp));
	v->rows = calloc(n, sizeof(*v->rows));
	v->run_counts = calloc((size_t)(n ? n : 1) * runs, sizeof(*v->run_counts));
	if (v->tp && v->rows && v->run_counts) {
		for (int i = 0; i < n; i++)
			v->tp[i].runs = &v->run_counts[(size_t)i * runs];
		return 0;
	}
	fprintf(stderr, "tpstat: out of memory for %d tracepoints\n", n);
	return 1;
}

void tpstat_view_close(struct tpstat_view *v)
{
	free(v->tp);
	free(v->rows);
	free(v->run_counts);
	v->tp = NULL;
	v->rows = NULL;
	v->run_counts = NULL;
}

/* c = a - b, slot by slot */
static void sub_counts(struct tp_counts *c, const struct tp_counts *a, const struct tp_counts *b)
{
	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		c->slot[slot] = a->slot[slot] - b->slot[slot];
	c->missed = a->missed - b->missed;
	c->filtered = a->filtered - b->filtered;
	c->filter_errors = a->filter_errors - b->filter_errors;
}

static void add_counts(struct tp_counts *c, const struct tp_counts *a)
{
	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		c->slot[slot] += a->slot[slot];
	c->missed += a->missed;
	c->filtered += a->filtered;
	c->filter_errors += a->filter_errors;
}

static __u64 total(const struct tp_counts *c)
{
	__u64 t = 0;

	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		t += c->slot[slot];
	return t;
}

void tpstat_view_update(struct tpstat_view *v, const struct tpstat_snap *snap)
{
	for (int i = 0; i < v->specs->n; i++) {
		struct tpstat_tp_view *t = &v->tp[i];

		sub_counts(&t->shown, v->paused ? &t->at_pause : &snap->tp[i].c, &t->excluded);
	}
	for (int h = 0; h < v->specs->nhist; h++) {
		struct tpstat_hist_view *hv = &v->hist[h];

		buckets_sub(&hv->shown, v->paused ? &hv->at_pause : &snap->hist[h], &hv->excluded);
	}
}

void tpstat_view_set_prev(struct tpstat_view *v, const struct tpstat_snap *snap, bool zero)
{
	for (int i = 0; i < v->specs->n; i++)
		v->tp[i].prev = zero ? (struct tp_counts){} : v->tp[i].shown;
	for (int h = 0; h < v->specs->nhist; h++)
		v->hist[h].prev = zero ? (struct tpstat_hist){} : v->hist[h].shown;
	/* A --latency is never paused: its base is what was read. */
	for (int l = 0; l < v->specs->nlat; l++) {
		v->lat[l].prev = zero ? (struct tpstat_hist){} : snap->lat[l].hist;
		v->lat[l].prev_st = zero ? (struct tpstat_lat_stats){} : snap->lat[l].st;
	}
}

bool tpstat_view_pausable(const struct tpstat_view *v)
{
	if (!v->specs->nby && !v->specs->nlat)
		return true;
	/* The key tables cannot leave out what was counted while paused: say so, go on. */
	fprintf(stderr, "tpstat: SIGUSR1 ignored: --%s tables cannot be paused\n",
		v->specs->nby ? "by" : "latency");
	return false;
}

void tpstat_view_toggle(struct tpstat_view *v, const struct tpstat_snap *snap)
{
	for (int i = 0; i < v->specs->n; i++) {
		struct tpstat_tp_view *t = &v->tp[i];
		struct tp_counts during;

		if (!v->paused) {
			t->at_pause = snap->tp[i].c;
		} else {
			sub_counts(&during, &snap->tp[i].c, &t->at_pause);
			add_counts(&t->excluded, &during);
		}
	}
	for (int h = 0; h < v->specs->nhist; h++) {
		struct tpstat_hist_view *hv = &v->hist[h];
		struct tpstat_hist during;

		if (!v->paused) {
			hv->at_pause = snap->hist[h];
		} else {
			buckets_sub(&during, &snap->hist[h], &hv->at_pause);
			buckets_add(&hv->excluded, &during);
		}
	}
	v->paused = !v->paused;
}

void tpstat_view_end_run(struct tpstat_view *v, double secs)
{
	if (v->nruns >= (v->o->repeat > 0 ? v->o->repeat : 1))
		return;		/* every run asked for is in (the caller stops there) */
	for (int i = 0; i < v->specs->n; i++) {
		__u64 now = total(&v->tp[i].shown);

		v->tp[i].runs[v->nruns] = now - v->tp[i].run_start;
		v->tp[i].run_start = now;
	}
	v->run_secs[v->nruns++] = secs;
}

/* A histogram's counts as a row: @shown, or with @interval its delta since @prev (in @delta). */
static struct tpstat_hist_row hist_row(const struct tpstat_hist *shown,
				       const struct tpstat_hist *prev, struct tpstat_hist *delta,
				       const struct buckets_linear *range, bool interval)
{
	const struct tpstat_hist *c = shown;

	if (interval) {
		buckets_sub(delta, shown, prev);
		c = delta;
	}
	return (struct tpstat_hist_row){ .samples = c->samples, .errors = c->errors,
		.sum = c->sum, .sum_hi = c->sum_hi, .min = c->min, .max = c->max,
		.minmax_lost = c->minmax_lost, .buckets = c->buckets, .interval = interval,
		.linear = range->linear, .lmin = range->lmin, .lmax = range->lmax,
		.lstep = (__u64)range->lstep };
}

/* Most counted first; equal counts by key, so that the output is stable. */
static int cmp_entry(const void *a, const void *b)
{
	const struct tpstat_by_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return memcmp(x->k, y->k, sizeof(x->k));
}

/* A --by's row: its top --top entries (sorted now), the rest summed, dropped and errors. */
static struct tpstat_by_row by_row(const struct tp_by *spec, struct tpstat_by_read *by, long top)
{
	struct tpstat_by_row r;
	__u64 other = 0;

	qsort(by->entries, by->n, sizeof(*by->entries), cmp_entry);
	for (int i = top; i < by->n; i++)
		other += by->entries[i].count;
	r = (struct tpstat_by_row){
		.key_expr = spec->key, .kind = spec->kind, .is_signed = spec->field[0].is_signed,
		.nk = spec->nkeys, .value_expr = spec->value,
		.value_signed = spec->field[TPSTAT_BY_KEYS].is_signed,
		.minmax_lost = by->minmax_lost,
		.entries = by->entries, .n = by->n < top ? by->n : (int)top, .nkeys = by->n,
		.other = other, .dropped = by->dropped, .errors = by->errors,
		.stacks = by->stacks, .top = top,
	};
	for (int i = 0; i < spec->nkeys; i++) {
		r.keys[i] = spec->keys[i];
		r.kinds[i] = spec->kinds[i];
		r.signed_keys[i] = spec->field[i].is_signed;
	}
	return r;
}

/* A --latency's row on its END tracepoint; an interval's accounting is its own, open is now. */
static struct tpstat_lat_row lat_row(const struct tp_lat *spec, struct tpstat_lat_view *lv,
				     const struct tpstat_lat_read *la, bool interval)
{
	const struct tpstat_lat_stats st = la->st, zero = {};
	const struct tpstat_lat_stats *base = interval ? &lv->prev_st : &zero;
	struct tpstat_lat_row r = {
		.text = spec->text, .start_tp = spec->tp[0]->info->name,
		.start_key = spec->key[0], .end_key = spec->key[1],
		.hist = hist_row(&la->hist, &lv->prev, &lv->delta, &spec->range, interval),
		.no_start = st.no_start - base->no_start,
		.replaced = st.replaced - base->replaced, .open = la->open,
		.dropped = st.dropped - base->dropped,
		.start_errors = st.start_errors - base->start_errors,
		.end_errors = st.end_errors - base->end_errors,
		.start_busy = st.start_busy - base->start_busy,
		.end_busy = st.end_busy - base->end_busy,
	};

	r.matched = r.hist.samples;
	r.hist.expr = "ns";
	return r;
}

/* The row of tracepoint @i: its counts, deltas and CPUs. */
static void count_row(struct tpstat_view *v, const struct tpstat_snap *snap, int i,
		      const struct tpstat_report *r)
{
	const struct tp_spec *spec = &v->specs->tp[i];
	const struct tpstat_tp_read *rd = &snap->tp[i];
	struct tpstat_tp_view *t = &v->tp[i];
	struct tpstat_row *row = &v->rows[i];
	__u64 cpu_prev[TPSTAT_NR_SLOTS];

	*row = (struct tpstat_row){
		.name = spec->info->name, .module = spec->info->module, .kind = spec->info->kind,
		.prog = t->prog, .prog_fd = t->prog_fd,
		.count = total(&t->shown), .delta = total(&t->shown) - total(&t->prev),
		.cpus = rd->cpus, .cpu_words = TPSTAT_CPU_WORDS, .cpus_truncated = rd->cpus_beyond,
		.first_cpu = rd->first_cpu,
		.missed = t->shown.missed, .missed_delta = t->shown.missed - t->prev.missed,
		.nfilters = spec->nfilters,
		.filtered = t->shown.filtered,
		.filtered_delta = t->shown.filtered - t->prev.filtered,
		.filter_errors = t->shown.filter_errors,
		.filter_errors_delta = t->shown.filter_errors - t->prev.filter_errors,
		.runs = t->runs, .nruns = r->final ? v->nruns : 0,
	};
	for (int k = 0; k < spec->nfilters; k++)
		t->filter_text[k] = spec->filters[k]->text;
	row->filters = t->filter_text;
	if (v->o->per_cpu) {
		__u64 rest_prev;
		int n = fmt_cpu_counts(t->shown.slot, v->ncpu, t->cpu_count, &row->rest_count);

		fmt_cpu_counts(t->prev.slot, v->ncpu, cpu_prev, &rest_prev);
		for (int c = 0; c < n; c++)
			t->cpu_delta[c] = t->cpu_count[c] - cpu_prev[c];
		row->cpu_count = t->cpu_count;
		row->cpu_delta = t->cpu_delta;
		row->ncpu = n;
		row->rest_last = n < v->ncpu ? v->ncpu - 1 : 0;
		row->rest_delta = row->rest_count - rest_prev;
	}
}

/*
 * An item's view and snapshot are at its place in the BPF object's tables, which is its
 * place in the specs' array of its kind (tpstat_specs.h).
 */
void tpstat_view_rows(struct tpstat_view *v, struct tpstat_snap *snap, bool interval,
		      struct tpstat_report *r)
{
	const struct tpstat_specs *sp = v->specs;

	for (int i = 0; i < sp->n; i++) {
		const struct tp_spec *spec = &sp->tp[i];
		struct tpstat_tp_view *t = &v->tp[i];
		struct tpstat_row *row = &v->rows[i];

		count_row(v, snap, i, r);
		for (int k = 0; k < spec->nhists; k++) {
			const struct tp_hist *hs = spec->hists[k];
			struct tpstat_hist_view *hv = &v->hist[hs - sp->hist];
			struct tpstat_hist_row *hr = &t->hist_rows[k];

			*hr = hist_row(&hv->shown, &hv->prev, &hv->delta, &hs->range, interval);
			hr->expr = hs->expr;
			hr->is_signed = hs->field.is_signed;
		}
		for (int k = 0; k < spec->nbys; k++)
			t->by_rows[k] = by_row(spec->bys[k], &snap->by[spec->bys[k] - sp->by],
					       v->o->top);
		for (int k = 0; k < spec->nlats; k++) {
			int l = spec->lats[k] - sp->lat;

			t->lat_rows[k] = lat_row(spec->lats[k], &v->lat[l], &snap->lat[l], interval);
		}
		row->hists = t->hist_rows;
		row->nhists = spec->nhists;
		row->bys = t->by_rows;
		row->nbys = spec->nbys;
		row->lats = t->lat_rows;
		row->nlats = spec->nlats;
	}
	r->n = sp->n;
	r->rows = v->rows;
	r->ncpu = v->ncpu;
	r->per_cpu = v->o->per_cpu;
	r->filters = sp->nfilter > 0;
	if (r->final) {
		r->run_secs = v->run_secs;
		r->nruns = v->nruns;
	}
}
