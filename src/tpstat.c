// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat: exact counts of raw and bare tracepoints, like perf stat for what perf cannot see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/tpstat_abi.h"
#include "tpstat.skel.h"
#include "src/tplist.h"
#include "src/tpfield.h"
#include "src/runloop.h"
#include "src/tpstat_buckets.h"
#include "src/tpstat_fmt.h"
#include "src/tpstat_cli.h"
#include "src/tpstat_opts.h"
#include "src/tpstat_target.h"
#include "src/tpstat_names.h"
#include "src/pins.h"
#include "src/bpf_util.h"
#include "src/clock.h"
#include "src/cmd.h"
#include "src/json.h"
#include "src/tpstat_metrics.h"
#include "src/http_serve.h"

/*
 * Every count is kept as snapshots: reported = raw - excluded, where what was counted while
 * paused is excluded at resume (snapshots at pause and resume), so pausing costs the
 * programs nothing; shown is what a report shows now, prev what the previous one showed
 * (the base of the deltas).
 */

/* What the kernel counted for one tracepoint: its per-CPU slots and its program's misses. */
struct tp_counts {
	__u64 slot[TPSTAT_NR_SLOTS];
	__u64 missed;
	__u64 filtered, filter_errors;	/* --filter: rejected, and reads that failed */
};

/* One --hist or --lhist: as given, its field compiled against BTF, and its counts. */
struct hist {
	const struct tpstat_hist_opt *opt;
	int h;				/* its index in .rodata's hist_field and the kernel's hists */
	struct tpfield field;
	struct tpstat_hist raw, excluded, at_pause, shown, prev;
	struct tpstat_hist delta;	/* one interval's, for its lines */
};

/* One --by: as given, its key compiled against BTF (an EXPR key), and its entries as read. */
struct by {
	const struct tpstat_by_opt *opt;
	int b;				/* its index in .rodata's by_spec and the table's keys */
	struct tpfield key[TPSTAT_BY_KEYS + 1];	/* its EXPR keys; [TPSTAT_BY_KEYS]: --value */
	struct tpstat_by_entry *entries;	/* TPSTAT_BY_ENTRIES of room; sorted once read */
	int n;				/* entries read */
};

/* One --latency: as given, its keys compiled, its histogram and accounting as read. */
struct lat {
	const struct tpstat_lat_opt *opt;
	int l;				/* its index in .rodata's lat_spec and the kernel's tables */
	struct tpfield key[2];		/* START's and END's, for an EXPR key */
	struct tpstat_hist raw, prev, delta;
	struct tpstat_lat_stats st, prev_st;	/* as read, and as the previous report showed */
	__u64 open;			/* STARTs in the table now */
};

/*
 * One counted tracepoint: all tpstat keeps of it. idx is its index in the BPF object (the
 * program tpstat_IDX, the slots' count[IDX], .bss tps[IDX]) and in the options' names.
 */
struct tp {
	int idx;
	const struct tp_info *info;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct tp_counts raw, excluded, at_pause, shown, prev;
	__u64 cpus[TPSTAT_CPU_WORDS];	/* the CPUs that hit it, as last read */
	__u64 cpu_count[TPSTAT_NR_SLOTS], cpu_delta[TPSTAT_NR_SLOTS];	/* -A */
	__u64 runs[MAX_REPEAT];		/* -r: each run's count */
	__u64 run_start;		/* the count when the current run started */
	struct hist *hists[TPSTAT_MAX_HIST];	/* its --hist and --lhist, in the options' order */
	int nhists;
	struct by *bys[TPSTAT_MAX_BY];	/* its --by, in the options' order */
	int nbys;
	struct lat *lats[TPSTAT_MAX_LAT];	/* the --latency that end here */
	int nlats;
	int nfilters;			/* its --filter */
	const char *filter_text[TPSTAT_MAX_FILTER];	/* each as given: "seq & 1" */
	/* What its row in a report points to. */
	struct tpstat_hist_row hist_rows[TPSTAT_MAX_HIST];
	struct tpstat_by_row by_rows[TPSTAT_MAX_BY];
	struct tpstat_lat_row lat_rows[TPSTAT_MAX_LAT];
};

struct state {
	const struct tpstat_opts *o;
	struct tpstat_bpf *skel;
	struct bpf_link *task_links[2];	/* fork and free tracking of the targets */
	int n;				/* tracepoints counted */
	struct tp tp[TPSTAT_MAX_TP];
	struct hist hist[TPSTAT_MAX_HIST];	/* in the options' order, each on its tracepoint */
	struct by by[TPSTAT_MAX_BY];
	const struct tpfilter *filters;	/* --filter, compiled, in the options' order */
	struct lat lat[TPSTAT_MAX_LAT];
	struct tpstat_hist *hist_cpu;	/* --hist's per-CPU copies, mapped: see read_hists() */
	bool paused;
	int ncpu;			/* possible CPUs */
	double run_secs[MAX_REPEAT];	/* -r: each run's elapsed time */
	int nruns;
	FILE *out;			/* the report: stdout, stderr with -- CMD, or -o FILE */
	struct tpstat_row rows[TPSTAT_MAX_TP];	/* a report's, one per tracepoint */
	char command[1024];
	char target[1200];
	bool tree;			/* counting CMD's process tree */
	struct pins pins;
};

/*
 * The kernel's --hist and --by tables, read here and only here.
 *
 * Each histogram into its raw counts, as the sum of its copies: one per possible CPU in the
 * mapped hist_cpu array (entry cpu * nhist + h) and the .bss one for a CPU beyond it.
 * Buckets, errors and the 128-bit sum add up, min and max are the least and greatest,
 * samples is the buckets' sum (the programs keep no separate count of it).
 */
static void read_hists(struct state *s)
{
	int nhist = s->o->nhist;

	for (int h = 0; h < nhist; h++) {
		bool sg = s->hist[h].field.is_signed;
		struct tpstat_hist *to = &s->hist[h].raw;

		memset(to, 0, sizeof(*to));
		to->min = sg ? (__u64)INT64_MAX : UINT64_MAX;
		to->max = sg ? (__u64)INT64_MIN : 0;
		for (int cpu = 0; cpu <= s->ncpu; cpu++) {
			const struct tpstat_hist *from = cpu < s->ncpu ?
				&s->hist_cpu[cpu * nhist + h] : &s->skel->bss->hists[h];
			__u64 sum = __atomic_load_n(&from->sum, __ATOMIC_RELAXED);
			__u64 min = __atomic_load_n(&from->min, __ATOMIC_RELAXED);
			__u64 max = __atomic_load_n(&from->max, __ATOMIC_RELAXED);

			to->errors += __atomic_load_n(&from->errors, __ATOMIC_RELAXED);
			to->minmax_lost += __atomic_load_n(&from->minmax_lost, __ATOMIC_RELAXED);
			to->sum_hi += __atomic_load_n(&from->sum_hi, __ATOMIC_RELAXED) +
				      (to->sum + sum < to->sum);
			to->sum += sum;
			if (sg ? (__s64)min < (__s64)to->min : min < to->min)
				to->min = min;
			if (sg ? (__s64)max > (__s64)to->max : max > to->max)
				to->max = max;
			for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
				to->buckets[k] += __atomic_load_n(&from->buckets[k], __ATOMIC_RELAXED);
		}
		for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
			to->samples += to->buckets[k];
	}
}

/* Map the per-CPU histograms after load and start each copy's min and max at the far ends. */
static int map_hists(struct state *s)
{
	int nhist = s->o->nhist;
	size_t len = (size_t)s->ncpu * nhist * sizeof(struct tpstat_hist);
	void *p;

	if (!nhist)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(s->skel->maps.hist_cpu), 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "tpstat: cannot map the --hist table: %s\n", strerror(errno));
		return 1;
	}
	s->hist_cpu = p;
	for (int h = 0; h < nhist; h++) {
		bool sg = s->hist[h].field.is_signed;

		for (int cpu = 0; cpu <= s->ncpu; cpu++) {
			struct tpstat_hist *t = cpu < s->ncpu ? &s->hist_cpu[cpu * nhist + h] :
				&s->skel->bss->hists[h];

			t->min = sg ? (__u64)INT64_MAX : UINT64_MAX;
			t->max = sg ? (__u64)INT64_MIN : 0;
		}
	}
	return 0;
}

/*
 * The key table in batches of 256 (one system call each) into each --by's entries,
 * unsorted; TP:cpu below TPSTAT_SLOTS comes from the count itself, the CPU's own slot
 * counted in the same program run (the table holds only the CPUs above).
 */

static void read_by_table(struct state *s)
{
	int fd = bpf_map__fd(s->skel->maps.by_counts);
	static struct tpstat_key keys[256];
	static struct tpstat_by_val vals[256];
	__u32 batch = 0, count;
	bool first = true;
	int err;

	for (int b = 0; b < s->o->nby; b++)
		s->by[b].n = 0;
	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		count = 256;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys, vals, &count, &o);
		first = false;
		for (__u32 i = 0; i < count; i++) {
			__u32 b = keys[i].by;

			if (b < (__u32)s->o->nby && s->by[b].n < TPSTAT_BY_ENTRIES) {
				struct tpstat_by_entry *e = &s->by[b].entries[s->by[b].n++];

				memcpy(e->k, keys[i].k, sizeof(e->k));
				e->count = vals[i].count;
				e->sum = vals[i].sum;
				e->sum_hi = vals[i].sum_hi;
				e->min = vals[i].min;
				e->max = vals[i].max;
			}
		}
	} while (!err);
	if (errno != ENOENT)
		fprintf(stderr, "tpstat: cannot read the --by table: %s\n", strerror(errno));
	for (int i = 0; i < s->n; i++) {
		const struct tp *tp = &s->tp[i];

		for (int j = 0; j < tp->nbys; j++) {
			struct by *by = tp->bys[j];

			if (by->opt->nkeys != 1 || by->opt->kind != TPSTAT_KEY_CPU || by->opt->value)
				continue;
			for (int cpu = 0; cpu < s->ncpu && cpu < TPSTAT_SLOTS; cpu++) {
				__u64 v = tp->shown.slot[cpu];

				if (v && by->n < TPSTAT_BY_ENTRIES)
					by->entries[by->n++] = (struct tpstat_by_entry){
						.k = { (__u64)cpu }, .count = v };
			}
		}
	}
}

/* Most counted first; equal counts by key, so that the output is stable. */
static int cmp_entry(const void *a, const void *b)
{
	const struct tpstat_by_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return memcmp(x->k, y->k, sizeof(x->k));
}

/* A --by's row: its top o->top entries (sorted now), the rest summed, dropped and errors. */
static struct tpstat_by_row by_row(struct state *s, struct by *by)
{
	const struct tpstat_by_stats *st = &s->skel->bss->by_stats[by->b];
	long top = s->o->top;
	__u64 other = 0;

	qsort(by->entries, by->n, sizeof(*by->entries), cmp_entry);
	for (int i = top; i < by->n; i++)
		other += by->entries[i].count;
	struct tpstat_by_row r;

	r = (struct tpstat_by_row){
		.key_expr = by->opt->key, .kind = by->opt->kind, .is_signed = by->key[0].is_signed,
		.nk = by->opt->nkeys, .value_expr = by->opt->value,
		.value_signed = by->key[TPSTAT_BY_KEYS].is_signed,
		.minmax_lost = __atomic_load_n(&st->minmax_lost, __ATOMIC_RELAXED),
		.entries = by->entries, .n = by->n < top ? by->n : (int)top, .nkeys = by->n,
		.other = other,
		.dropped = __atomic_load_n(&st->dropped, __ATOMIC_RELAXED),
		.errors = __atomic_load_n(&st->errors, __ATOMIC_RELAXED),
	};
	for (int i = 0; i < by->opt->nkeys; i++) {
		r.keys[i] = by->opt->keys[i];
		r.kinds[i] = by->opt->kinds[i];
		r.signed_keys[i] = by->key[i].is_signed;
	}
	return r;
}

/*
 * Each --latency's histogram and accounting from .bss, and its open STARTs counted in the
 * table in batches (one system call each).
 */
static void read_lats(struct state *s)
{
	struct tpstat_bpf__bss *bss = s->skel->bss;
	int fd = bpf_map__fd(s->skel->maps.lat_open);
	struct tpstat_lat_key keys[256];
	struct tpstat_lat_start vals[256];
	__u32 batch = 0, count;
	bool first = true;
	int err;

	if (!s->o->nlat)
		return;
	for (int l = 0; l < s->o->nlat; l++) {
		struct lat *la = &s->lat[l];
		const struct tpstat_hist *from = &bss->lat_hist[l];
		const __u64 *st = (const __u64 *)&bss->lat_stats[l];
		__u64 *to = (__u64 *)&la->st;

		for (size_t k = 0; k < sizeof(la->st) / sizeof(__u64); k++)
			to[k] = __atomic_load_n(&st[k], __ATOMIC_RELAXED);
		memset(&la->raw, 0, sizeof(la->raw));
		la->raw.sum = __atomic_load_n(&from->sum, __ATOMIC_RELAXED);
		la->raw.sum_hi = __atomic_load_n(&from->sum_hi, __ATOMIC_RELAXED);
		la->raw.min = __atomic_load_n(&from->min, __ATOMIC_RELAXED);
		la->raw.max = __atomic_load_n(&from->max, __ATOMIC_RELAXED);
		la->raw.minmax_lost = __atomic_load_n(&from->minmax_lost, __ATOMIC_RELAXED);
		for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++) {
			la->raw.buckets[k] = __atomic_load_n(&from->buckets[k], __ATOMIC_RELAXED);
			la->raw.samples += la->raw.buckets[k];
		}
		la->open = 0;
	}
	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		count = 256;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys, vals, &count, &o);
		first = false;
		/* Entries holding a START's time: not one claimed by an END, nor FREE. */
		for (__u32 i = 0; i < count; i++)
			if (keys[i].lat < (__u32)s->o->nlat && vals[i].ns > TPSTAT_LAT_FREE)
				s->lat[keys[i].lat].open++;
	} while (!err);
	if (errno != ENOENT)
		fprintf(stderr, "tpstat: cannot read the --latency table: %s\n", strerror(errno));
}

static __u64 recursion_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

/* Read the counters into raw: the mmapped .bss for the slots, one bpf_prog_info per program. */
static void read_raw(struct state *s)
{
	struct tpstat_bpf__bss *bss = s->skel->bss;

	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		for (int i = 0; i < s->n; i++)
			s->tp[i].raw.slot[slot] = __atomic_load_n(&bss->slots[slot].count[s->tp[i].idx],
								  __ATOMIC_RELAXED);
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];

		tp->raw.missed = recursion_misses(tp->prog);
		tp->raw.filtered = tp->raw.filter_errors = 0;
		for (int slot = 0; tp->nfilters && slot < TPSTAT_NR_SLOTS; slot++) {
			tp->raw.filtered += __atomic_load_n(&bss->filtered[slot].count[tp->idx],
							    __ATOMIC_RELAXED);
			tp->raw.filter_errors += __atomic_load_n(&bss->filter_errors[slot].count[tp->idx],
								 __ATOMIC_RELAXED);
		}
	}
	read_hists(s);
	read_lats(s);
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

/* What the user sees now: counted minus what was counted while paused. */
static void current(struct state *s)
{
	read_raw(s);
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];

		sub_counts(&tp->shown, s->paused ? &tp->at_pause : &tp->raw, &tp->excluded);
	}
	for (int h = 0; h < s->o->nhist; h++) {
		struct hist *hi = &s->hist[h];

		buckets_sub(&hi->shown, s->paused ? &hi->at_pause : &hi->raw, &hi->excluded);
	}
}

/* The base of the next report's deltas: what this one showed, or zero for a final total. */
static void set_prev(struct state *s, bool zero)
{
	for (int i = 0; i < s->n; i++)
		s->tp[i].prev = zero ? (struct tp_counts){} : s->tp[i].shown;
	for (int h = 0; h < s->o->nhist; h++)
		s->hist[h].prev = zero ? (struct tpstat_hist){} : s->hist[h].shown;
	for (int l = 0; l < s->o->nlat; l++) {
		s->lat[l].prev = zero ? (struct tpstat_hist){} : s->lat[l].raw;
		s->lat[l].prev_st = zero ? (struct tpstat_lat_stats){} : s->lat[l].st;
	}
}

/* SIGUSR1: pause or resume. The flag in .bss is for observers; the programs never read it. */
static bool toggle_pause(struct state *s)
{
	if (s->o->nby || s->o->nlat) {
		/* The key tables cannot leave out what was counted while paused: say so, go on. */
		fprintf(stderr, "tpstat: SIGUSR1 ignored: --%s tables cannot be paused\n",
			s->o->nby ? "by" : "latency");
		return false;
	}
	read_raw(s);
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];
		struct tp_counts during;

		if (!s->paused) {
			tp->at_pause = tp->raw;
		} else {
			sub_counts(&during, &tp->raw, &tp->at_pause);
			add_counts(&tp->excluded, &during);
		}
	}
	for (int h = 0; h < s->o->nhist; h++) {
		struct hist *hi = &s->hist[h];
		struct tpstat_hist during;

		if (!s->paused) {
			hi->at_pause = hi->raw;
		} else {
			buckets_sub(&during, &hi->raw, &hi->at_pause);
			buckets_add(&hi->excluded, &during);
		}
	}
	s->paused = !s->paused;
	__atomic_store_n(&s->skel->bss->paused, s->paused, __ATOMIC_RELAXED);
	return true;
}

/* A histogram's counts as a row: @shown, or with @interval its delta since @prev (in @delta). */
static struct tpstat_hist_row hist_row(const struct tpstat_hist *shown,
				       const struct tpstat_hist *prev, struct tpstat_hist *delta,
				       bool interval)
{
	const struct tpstat_hist *c = shown;

	if (interval) {
		buckets_sub(delta, shown, prev);
		c = delta;
	}
	return (struct tpstat_hist_row){ .samples = c->samples, .errors = c->errors,
		.sum = c->sum, .sum_hi = c->sum_hi, .min = c->min, .max = c->max,
		.minmax_lost = c->minmax_lost, .buckets = c->buckets, .interval = interval };
}

/*
 * The --hist and --by rows of each tracepoint, from the counts shown now: the histograms'
 * totals, or with @interval the deltas since the previous report (min and max stay totals).
 */
static void fields_rows(struct state *s, bool interval)
{
	if (s->o->nby)
		read_by_table(s);
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];

		for (int k = 0; k < tp->nhists; k++) {
			struct hist *hi = tp->hists[k];
			struct tpstat_hist_row *r = &tp->hist_rows[k];

			*r = hist_row(&hi->shown, &hi->prev, &hi->delta, interval);
			r->expr = hi->opt->expr;
			r->is_signed = hi->field.is_signed;
			r->linear = hi->opt->linear;
			r->lmin = hi->opt->lmin;
			r->lmax = hi->opt->lmax;
			r->lstep = hi->opt->lstep;
		}
		for (int k = 0; k < tp->nbys; k++)
			tp->by_rows[k] = by_row(s, tp->bys[k]);
		for (int k = 0; k < tp->nlats; k++) {
			struct lat *la = tp->lats[k];
			struct tpstat_lat_row *r = &tp->lat_rows[k];
			/* An interval's accounting is its own, as its histogram; open is now. */
			struct tpstat_lat_stats st = la->st, zero = {};
			const struct tpstat_lat_stats *base = interval ? &la->prev_st : &zero;

			*r = (struct tpstat_lat_row){
				.text = la->opt->text, .start_tp = s->tp[la->opt->idx[0]].info->name,
				.start_key = la->opt->key[0], .end_key = la->opt->key[1],
				.hist = hist_row(&la->raw, &la->prev, &la->delta, interval),
				.no_start = st.no_start - base->no_start,
				.replaced = st.replaced - base->replaced, .open = la->open,
				.dropped = st.dropped - base->dropped,
				.start_errors = st.start_errors - base->start_errors,
				.end_errors = st.end_errors - base->end_errors,
				.start_busy = st.start_busy - base->start_busy,
				.end_busy = st.end_busy - base->end_busy,
			};
			r->matched = r->hist.samples;
			r->hist.expr = "ns";
			r->hist.linear = la->opt->linear;
			r->hist.lmin = la->opt->lmin;
			r->hist.lmax = la->opt->lmax;
			r->hist.lstep = (__u64)la->opt->lstep;
		}
		s->rows[i].hists = tp->hist_rows;
		s->rows[i].nhists = tp->nhists;
		s->rows[i].bys = tp->by_rows;
		s->rows[i].nbys = tp->nbys;
		s->rows[i].lats = tp->lat_rows;
		s->rows[i].nlats = tp->nlats;
	}
}

static void report(struct state *s, struct tpstat_report *r)
{
	const struct tpstat_opts *o = s->o;
	struct tpstat_bpf__bss *bss = s->skel->bss;
	__u64 cpu_prev[TPSTAT_NR_SLOTS];

	current(s);
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];
		struct tpstat_row *row = &s->rows[i];
		__u64 first = __atomic_load_n(&bss->tps[tp->idx].first_cpu, __ATOMIC_RELAXED);

		for (int w = 0; w < TPSTAT_CPU_WORDS; w++)
			tp->cpus[w] = __atomic_load_n(&bss->tps[tp->idx].cpus[w], __ATOMIC_RELAXED);
		row->first_cpu = first ? (int)(first - 1) : -1;
		row->cpus_truncated = __atomic_load_n(&bss->tps[tp->idx].cpus_beyond, __ATOMIC_RELAXED);
		row->name = tp->info->name;
		row->module = tp->info->module;
		row->kind = tp->info->kind;
		row->count = total(&tp->shown);
		row->delta = row->count - total(&tp->prev);
		row->missed = tp->shown.missed;
		row->missed_delta = tp->shown.missed - tp->prev.missed;
		row->filters = tp->filter_text;
		row->nfilters = tp->nfilters;
		row->filtered = tp->shown.filtered;
		row->filtered_delta = tp->shown.filtered - tp->prev.filtered;
		row->filter_errors = tp->shown.filter_errors;
		row->filter_errors_delta = tp->shown.filter_errors - tp->prev.filter_errors;
		row->cpus = tp->cpus;
		row->cpu_words = TPSTAT_CPU_WORDS;
		if (o->per_cpu) {
			__u64 rest_prev;
			int n = fmt_cpu_counts(tp->shown.slot, s->ncpu, tp->cpu_count, &row->rest_count);

			fmt_cpu_counts(tp->prev.slot, s->ncpu, cpu_prev, &rest_prev);
			for (int c = 0; c < n; c++)
				tp->cpu_delta[c] = tp->cpu_count[c] - cpu_prev[c];
			row->cpu_count = tp->cpu_count;
			row->cpu_delta = tp->cpu_delta;
			row->ncpu = n;
			row->rest_last = n < s->ncpu ? s->ncpu - 1 : 0;
			row->rest_delta = row->rest_count - rest_prev;
		}
		row->runs = tp->runs;
		row->nruns = r->final ? s->nruns : 0;
	}
	fields_rows(s, !r->final && !o->json && !o->csv);
	set_prev(s, false);
	r->n = s->n;
	r->rows = s->rows;
	r->ts = clock_wallclock();
	r->target = s->target;
	r->csv = o->csv;
	r->per_cpu = o->per_cpu;
	r->filters = o->nfilter > 0;
	if (r->final) {
		r->run_secs = s->run_secs;
		r->nruns = s->nruns;
	}
	if (o->json)
		fmt_json(s->out, r);
	else if (o->csv)
		fmt_csv(s->out, r);
	else if (!r->final)
		fmt_interval(s->out, r);
	else
		fmt_table(s->out, r);
}

/* The metrics' view (tpstat_metrics.c): the counts a report would show now. */
static void metrics_snapshot(void *arg, struct tpstat_mview *v)
{
	struct state *s = arg;

	current(s);
	v->n = s->n;
	v->ncpu = s->ncpu;
	for (int i = 0; i < s->n; i++) {
		struct tp *tp = &s->tp[i];

		v->tp[i] = (struct tpstat_mtp){
			.tp = tp->info,
			.prog = bpf_program__name(tp->prog),
			.prog_fd = bpf_program__fd(tp->prog),
			.hits = total(&tp->shown),
			.missed = tp->shown.missed,
			.nfilters = tp->nfilters,
			.filtered = tp->shown.filtered,
			.filter_errors = tp->shown.filter_errors,
		};
		if (s->o->per_cpu) {
			v->tp[i].ncpu = fmt_cpu_counts(tp->shown.slot, s->ncpu, tp->cpu_count,
						       &v->tp[i].rest_hits);
			v->tp[i].cpu_hits = tp->cpu_count;
		}
	}
	fields_rows(s, false);
	for (int i = 0; i < s->n; i++) {
		v->tp[i].hists = s->rows[i].hists;
		v->tp[i].nhists = s->rows[i].nhists;
		v->tp[i].bys = s->rows[i].bys;
		v->tp[i].nbys = s->rows[i].nbys;
		v->tp[i].lats = s->rows[i].lats;
		v->tp[i].nlats = s->rows[i].nlats;
	}
	v->targets_fd = bpf_map__fd(s->skel->maps.targets);
	v->targets_max = bpf_map__max_entries(s->skel->maps.targets);
	v->untracked_forks = __atomic_load_n(&s->skel->bss->untracked_forks, __ATOMIC_RELAXED);
}

static void unpin(struct state *s)
{
	pins_release(&s->pins);
}

/*
 * Own PIN_DIR (clearing the pins of a tpstat --pin that was killed), then pin the counters
 * and each tracepoint's program and link. On failure main() unpins what was pinned.
 */
static int pin(struct state *s)
{
	char name[PINS_NAME_LEN];
	int err = pins_lock(&s->pins, "tpstat", "tpstat", 0);

	if (err == -EBUSY) {
		if (s->pins.owner)
			fprintf(stderr, "tpstat: " PIN_DIR " is in use by another tpstat --pin (pid %d)\n",
				(int)s->pins.owner);
		else
			fprintf(stderr, "tpstat: " PIN_DIR " is in use by another tpstat --pin\n");
	}
	if (err)
		return 1;
	err = pins_map(&s->pins, s->skel->maps.bss, "counters");
	for (int i = 0; !err && i < s->n; i++) {
		snprintf(name, sizeof(name), "prog_%s", s->tp[i].info->name);
		err = pins_prog(&s->pins, s->tp[i].prog, name);
		if (err)
			break;
		snprintf(name, sizeof(name), "link_%s", s->tp[i].info->name);
		err = pins_link(&s->pins, s->tp[i].link, name);
	}
	return err ? 1 : 0;
}

/*
 * Stop counting for good, then wait for every program run already under way: destroying a
 * link unregisters the probe, but a program that started before may still be running on
 * another CPU. raw_tp programs run inside an RCU read-side section (the tracepoint calls
 * them with preemption disabled, and __bpf_trace_run() takes rcu_read_lock()), and the
 * recursion check that counts a miss runs in the same section. MEMBARRIER_CMD_GLOBAL waits
 * for an RCU grace period (synchronize_rcu(), which since the flavour consolidation of 4.20
 * also waits for preemption-disabled regions), so when it returns every run that could still
 * add to a counter or a miss has finished: the final read misses nothing.
 */
static void detach_all(struct state *s)
{
	unpin(s);	/* a pinned link would keep the program attached */
	for (int i = 0; i < s->n; i++) {
		bpf_link__destroy(s->tp[i].link);
		s->tp[i].link = NULL;
	}
	if (!syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	/* nohz_full kernels refuse it: say so rather than claim an exactness we cannot prove. */
	fprintf(stderr, "tpstat: cannot wait for program runs still under way (membarrier: %s): "
		"the last microseconds of events may be missing\n", strerror(errno));
}

/* Start CMD gated: with -- CMD alone its process joins the targets before it runs. */
static pid_t start_command(struct state *s, struct runloop *rl)
{
	int gate;
	pid_t child = runloop_start_gated(rl, s->o->command, &gate);
	__u8 one = 1;
	__u32 tgid;
	bool go = true;

	if (child < 0) {
		fprintf(stderr, "tpstat: cannot fork: %s\n", strerror(errno));
		return -1;
	}
	if (s->tree) {
		tgid = child;
		if (bpf_map__update_elem(s->skel->maps.targets, &tgid, sizeof(tgid), &one, sizeof(one),
					 BPF_ANY)) {
			fprintf(stderr, "tpstat: cannot follow '%s': %s\n", s->command, strerror(errno));
			go = false;
		}
	}
	cmd_release(gate, go);
	return child;
}

static void record_run(struct state *s, double secs)
{
	current(s);
	for (int i = 0; i < s->n; i++)
		s->tp[i].runs[s->nruns] = total(&s->tp[i].shown) - s->tp[i].run_start;
	s->run_secs[s->nruns] = secs;
	s->nruns++;
}

static int run(struct state *s)
{
	const struct tpstat_opts *o = s->o;
	struct tpstat_report r = { .command = o->command ? s->command : NULL };
	long runs = o->repeat ? o->repeat : 1;
	double last, paused_at = 0, now, run_t0;
	bool counted_out = false;	/* -c: the last interval was printed; no partial line */
	enum runloop_event ev;
	struct runloop rl;
	int status = 0;

	runloop_init(&rl, "tpstat", o->interval, o->duration, true);
	rl.keep_going = o->repeat > 0;	/* -r: every end of CMD is recorded, then rerun */
	if (tpstat_metrics_watch(&rl)) {
		runloop_finish(&rl);
		return 1;
	}
	if (!o->json && !o->csv && o->interval)
		fmt_interval_header(s->out);
	last = rl.start;
	run_t0 = clock_now();
	if (o->command && start_command(s, &rl) < 0) {
		runloop_finish(&rl);
		return 1;
	}

	while ((ev = runloop_next(&rl)) != RUNLOOP_STOP) {
		now = rl.now;
		switch (ev) {
		case RUNLOOP_USR1:
			if (!toggle_pause(s))
				break;
			if (s->paused) {
				paused_at = now;
			} else {
				r.paused_secs += now - paused_at;
				paused_at = 0;
			}
			if (!o->json && !o->csv)
				fprintf(s->out, "#%12.3f  counting %s (SIGUSR1)\n", now - rl.start,
					s->paused ? "paused" : "resumed");
			fflush(s->out);
			break;
		case RUNLOOP_EXITED:
			record_run(s, now - run_t0);
			for (int i = 0; i < s->n; i++)
				s->tp[i].run_start = total(&s->tp[i].shown);
			if (s->nruns < runs && rl.cmd_status == 0 && !rl.interrupted) {
				run_t0 = clock_now();
				if (start_command(s, &rl) < 0)
					runloop_stop(&rl);
			} else {
				runloop_stop(&rl);
			}
			break;
		case RUNLOOP_TICK:
			r.interval++;
			r.elapsed = now - rl.start;
			r.span = now - last;
			r.paused = s->paused;
			report(s, &r);
			last = now;
			if (o->count && r.interval >= o->count) {
				counted_out = true;
				runloop_stop(&rl);
			}
			break;
		case RUNLOOP_STOP:
			break;
		}
	}

	detach_all(s);
	now = clock_now();
	if (paused_at)
		r.paused_secs += now - paused_at;
	/*
	 * After -c COUNT intervals the rest (the teardown, milliseconds) is no interval of its
	 * own: a rate over such a sliver means nothing. It goes into the totals only.
	 */
	if (!counted_out)
		r.interval++;
	r.elapsed = now - rl.start;
	r.span = now - last;
	r.paused = s->paused;
	if (o->interval && !o->json) {
		/* The last, partial interval as a line of its own; totals only with --summary. */
		if (!counted_out)
			report(s, &r);
		if (o->summary) {
			set_prev(s, true);
			r.final = true;
			report(s, &r);
		}
	} else {
		r.final = true;
		report(s, &r);
	}

	status = tpstat_metrics_close(&rl);	/* the textfile's last write: the final counts */
	runloop_finish(&rl);
	/* As perf stat: CMD's status is tpstat's, unless tpstat itself failed. */
	if (rl.cmd_status > 0) {
		fprintf(stderr, "tpstat: '%s' exited with status %d\n", s->command, rl.cmd_status);
		if (!status)
			status = rl.cmd_status;
	}
	return status;
}

/* Is tracepoint @idx the START or END of a --latency? */
static bool in_latency(const struct tpstat_opts *o, int idx)
{
	for (int l = 0; l < o->nlat; l++)
		if (o->lat[l].idx[0] == idx || o->lat[l].idx[1] == idx)
			return true;
	return false;
}

/* The compiled fields into .rodata, before load. */
static void set_fields(struct state *s)
{
	const struct tpstat_opts *o = s->o;

	s->skel->rodata->nhist = o->nhist;
	for (int h = 0; h < o->nhist; h++) {
		const struct hist *hi = &s->hist[h];
		const struct tpfield *f = &hi->field;
		struct tpstat_field *d = (struct tpstat_field *)&s->skel->rodata->hist_field[h];

		*d = (struct tpstat_field){ .tp = hi->opt->idx, .arg = f->arg, .nsteps = f->nsteps,
			.size = f->size, .is_signed = f->is_signed, .bit_off = f->bit_off,
			.bit_size = f->bit_size, .linear = hi->opt->linear,
			.lmin = hi->opt->lmin, .lmax = hi->opt->lmax,
			.lstep = (__u64)hi->opt->lstep };
		for (__u32 k = 0; k < f->nsteps; k++) {
			d->steps[k].off = f->steps[k].off;
			d->steps[k].size = f->steps[k].size;
		}
	}
	s->skel->rodata->nby = o->nby;
	for (int b = 0; b < o->nby; b++) {
		const struct by *by = &s->by[b];
		struct tpstat_by *d = (struct tpstat_by *)&s->skel->rodata->by_spec[b];

		*d = (struct tpstat_by){ .tp = by->opt->idx, .nkeys = by->opt->nkeys,
					 .value = by->opt->value != NULL };
		for (int i = 0; i <= TPSTAT_BY_KEYS; i++) {
			const struct tpfield *f = &by->key[i];
			struct tpstat_field *df = i < TPSTAT_BY_KEYS ? &d->field[i] : &d->vfield;

			if (i < by->opt->nkeys)
				d->kind[i] = by->opt->kinds[i];
			*df = (struct tpstat_field){ .tp = by->opt->idx, .arg = f->arg,
				.nsteps = f->nsteps, .size = f->size, .is_signed = f->is_signed,
				.bit_off = f->bit_off, .bit_size = f->bit_size };
			for (__u32 k = 0; k < f->nsteps; k++) {
				df->steps[k].off = f->steps[k].off;
				df->steps[k].size = f->steps[k].size;
			}
		}
	}
	s->skel->rodata->nlat = o->nlat;
	for (int l = 0; l < o->nlat; l++) {
		struct tpstat_lat_spec *d = (struct tpstat_lat_spec *)&s->skel->rodata->lat_spec[l];

		for (int side = 0; side < 2; side++) {
			const struct tpfield *f = &s->lat[l].key[side];
			struct tpstat_lat_side *ds = side ? &d->end : &d->start;

			*ds = (struct tpstat_lat_side){ .key = o->lat[l].kind[side],
				.field = { .tp = o->lat[l].idx[side], .arg = f->arg,
					   .nsteps = f->nsteps, .size = f->size,
					   .is_signed = f->is_signed, .bit_off = f->bit_off,
					   .bit_size = f->bit_size } };
			for (__u32 st = 0; st < f->nsteps; st++) {
				ds->field.steps[st].off = f->steps[st].off;
				ds->field.steps[st].size = f->steps[st].size;
			}
		}
	}
	for (int l = 0; l < o->nlat; l++) {
		struct tpstat_lat_spec *d = (struct tpstat_lat_spec *)&s->skel->rodata->lat_spec[l];

		d->bounds = (struct tpstat_field){ .linear = o->lat[l].linear, .lmin = o->lat[l].lmin,
			.lmax = o->lat[l].lmax, .lstep = (__u64)o->lat[l].lstep };
	}
	bpf_map__set_max_entries(s->skel->maps.lat_open, o->nlat ? TPSTAT_LAT_ENTRIES : 1);
	s->skel->rodata->nfilter = o->nfilter;
	for (int k = 0; k < o->nfilter; k++) {
		const struct tpfilter *flt = &s->filters[k];
		const struct tpfield *f = &flt->field;
		struct tpstat_filter_spec *d =
			(struct tpstat_filter_spec *)&s->skel->rodata->filter_spec[k];

		*d = (struct tpstat_filter_spec){ .key = flt->key, .op = flt->op,
			.is_signed = flt->is_signed, .value = flt->value,
			.field = { .tp = o->filter[k].idx, .arg = f->arg, .nsteps = f->nsteps,
				   .size = f->size, .is_signed = f->is_signed, .bit_off = f->bit_off,
				   .bit_size = f->bit_size } };
		memcpy(d->comm, flt->comm, sizeof(d->comm));
		for (__u32 st = 0; st < f->nsteps; st++) {
			d->field.steps[st].off = f->steps[st].off;
			d->field.steps[st].size = f->steps[st].size;
		}
	}
	/* No --by: a table of one entry, not TPSTAT_BY_ENTRIES preallocated for nothing. */
	bpf_map__set_max_entries(s->skel->maps.by_counts, o->nby ? TPSTAT_BY_ENTRIES : 1);
	/* One histogram per --hist per possible CPU (see read_hists()). */
	bpf_map__set_max_entries(s->skel->maps.hist_cpu, o->nhist ? o->nhist * s->ncpu : 1);
}

/*
 * The counted tracepoints from what the names resolved to (@tps) and the fields and keys
 * compiled for them: each tracepoint with its --hist and --by, each of those with its
 * compiled field and, for --by, room for its entries. Returns 0, or 1 when out of memory.
 */
static int setup_tps(struct state *s, const struct tp_info *const *tps,
		     const struct tpfield *fields, struct tpfield (*keys)[TPSTAT_BY_KEYS + 1],
		     struct tpfield (*lat_keys)[2])
{
	const struct tpstat_opts *o = s->o;

	s->n = o->n;
	for (int i = 0; i < s->n; i++)
		s->tp[i] = (struct tp){ .idx = i, .info = tps[i] };
	for (int k = 0; k < o->nfilter; k++) {
		struct tp *tp = &s->tp[o->filter[k].idx];

		tp->filter_text[tp->nfilters++] = o->filter[k].text;
	}
	for (int l = 0; l < o->nlat; l++) {
		struct tp *end = &s->tp[o->lat[l].idx[1]];

		s->lat[l] = (struct lat){ .opt = &o->lat[l], .l = l,
			.key = { lat_keys[l][0], lat_keys[l][1] } };
		end->lats[end->nlats++] = &s->lat[l];
	}
	for (int h = 0; h < o->nhist; h++) {
		struct tp *tp = &s->tp[o->hist[h].idx];

		s->hist[h] = (struct hist){ .opt = &o->hist[h], .h = h, .field = fields[h] };
		tp->hists[tp->nhists++] = &s->hist[h];
	}
	for (int b = 0; b < o->nby; b++) {
		struct tp *tp = &s->tp[o->by[b].idx];

		s->by[b] = (struct by){ .opt = &o->by[b], .b = b };
		memcpy(s->by[b].key, keys[b], sizeof(s->by[b].key));
		tp->bys[tp->nbys++] = &s->by[b];
		s->by[b].entries = calloc(TPSTAT_BY_ENTRIES, sizeof(*s->by[b].entries));
		if (!s->by[b].entries) {
			fprintf(stderr, "tpstat: out of memory\n");
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct tpstat_opts opts;
	static struct state s = { .o = &opts };
	static const struct tp_info *tps[TPSTAT_MAX_TP];
	static struct tpfield fields[TPSTAT_MAX_HIST], keys[TPSTAT_MAX_BY][TPSTAT_BY_KEYS + 1];
	static struct tpfilter filters[TPSTAT_MAX_FILTER];
	static struct tpfield lat_keys[TPSTAT_MAX_LAT][2];
	const struct tpstat_opts *o = &opts;
	struct tp_list l;
	int err, status = 1;

	tpstat_parse_args(argc, argv, &opts);
	util_setup_libbpf(o->verbose);
	if (o->list)
		return tpstat_list(o);

	if (tpstat_load_tracepoints(&l))
		return 1;
	status = tpstat_resolve_names(o, &l, tps);
	if (status)
		goto out_list;
	status = tpstat_check_targets(o);
	if (status)
		goto out_list;
	status = tpstat_compile_fields(o, tps, fields, keys, filters, lat_keys);
	s.filters = filters;
	if (status)
		goto out_list;
	status = setup_tps(&s, tps, fields, keys, lat_keys);
	if (status)
		goto out_list;
	status = util_check_bpf("tpstat", "counting");
	if (status)
		goto out_list;
	/* Before anything is loaded: an address that cannot be had changes nothing. */
	status = tpstat_metrics_open(o->listen, o->textfile, o->interval ? o->interval : 10,
				     metrics_snapshot, &s);
	if (status)
		goto out_list;
	cmd_join(o->command, s.command, sizeof(s.command));
	/* The report never shares a stream with CMD's output (tpstat(8), OUTPUT). */
	if (o->output && (!strcmp(o->output, "-") || !strcmp(o->output, "/dev/stdout"))) {
		/* Not reopened: a file stdout points to would be truncated and written over. */
		s.out = stdout;
	} else if (o->output && !strcmp(o->output, "/dev/stderr")) {
		s.out = stderr;
	} else if (o->output) {
		s.out = fopen(o->output, o->append ? "ae" : "we");
		if (!s.out) {
			fprintf(stderr, "tpstat: cannot open '%s' for the report: %s\n", o->output,
				strerror(errno));
			status = 1;
			goto out_list;
		}
	} else {
		s.out = o->command ? stderr : stdout;
	}
	s.ncpu = libbpf_num_possible_cpus();
	if (s.ncpu < 1)
		s.ncpu = TPSTAT_SLOTS;

	s.skel = tpstat_bpf__open();
	if (!s.skel) {
		fprintf(stderr, "tpstat: cannot open the BPF object: %s\n", strerror(errno));
		status = 1;
		goto out_list;
	}
	{
		struct bpf_program *prog;
		char name[32];

		bpf_object__for_each_program(prog, s.skel->obj)
			bpf_program__set_autoload(prog, false);
		for (int i = 0; i < s.n; i++) {
			struct tp *tp = &s.tp[i];
			/* With --hist, --by, --filter or --latency: the program that reads fields. */
			bool hist = tp->nhists || tp->nbys || tp->nfilters || in_latency(o, tp->idx);

			snprintf(name, sizeof(name), hist ? "tpstat_hist_%d" : "tpstat_%d", tp->idx);
			tp->prog = bpf_object__find_program_by_name(s.skel->obj, name);
			bpf_program__set_autoload(tp->prog, true);
		}
	}
	s.tree = tpstat_choose_target(o, s.skel, s.target, sizeof(s.target));
	set_fields(&s);
	err = tpstat_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "tpstat: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = util_bpf_exit_status(err);
		goto out;
	}
	status = tpstat_set_targets(o, s.skel, s.task_links);
	if (status)
		goto out;
	/* Before the first event: min and max start at the far ends of the type. */
	for (int l = 0; l < o->nlat; l++)
		s.skel->bss->lat_hist[l].min = UINT64_MAX;
	status = map_hists(&s);
	if (status)
		goto out;
	for (int i = 0; i < s.n; i++) {
		struct tp *tp = &s.tp[i];

		tp->link = bpf_program__attach_raw_tracepoint(tp->prog, tp->info->name);
		if (!tp->link) {
			err = -errno;
			fprintf(stderr, "tpstat: cannot attach to %s: %s\n", tp->info->name,
				err == -EEXIST ? "this program is already attached there" :
				util_bpf_load_hint(err));
			status = 1;
			goto out;
		}
	}
	if (o->pin && pin(&s)) {
		status = 1;
		goto out;
	}
	status = run(&s);
	if (s.skel->bss->untracked_forks) {
		fprintf(stderr, "tpstat: %llu processes of '%s' could not be followed (more than %d at "
			"once): their events are not counted\n",
			(unsigned long long)s.skel->bss->untracked_forks, s.command, TPSTAT_MAX_TASKS);
		status = 1;
	}
out:
	unpin(&s);
	for (int i = 0; i < s.n; i++)
		bpf_link__destroy(s.tp[i].link);
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(s.task_links[i]);
	tpstat_bpf__destroy(s.skel);
out_list:
	for (int b = 0; b < o->nby; b++)
		free(s.by[b].entries);
	tplist_free(&l);
	if (s.out && s.out != stdout && s.out != stderr && fclose(s.out)) {
		fprintf(stderr, "tpstat: cannot write the report to '%s': %s\n", o->output,
			strerror(errno));
		status = 1;
	}
	return status;
}
