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
#include "tpstat.h"
#include "tpstat.skel.h"
#include "tplist.h"
#include "tpfield.h"
#include "runloop.h"
#include "tpstat_fmt.h"
#include "tpstat_cli.h"
#include "tpstat_target.h"
#include "tpstat_names.h"
#include "pins.h"
#include "bpf_util.h"
#include "clock.h"
#include "cmd.h"
#include "json.h"
#include "tpstat_metrics.h"
#include "http_serve.h"

/* What the kernel counted for each tracepoint: per-CPU slots and the program's misses. */
struct counts {
	__u64 slot[TPSTAT_MAX_TP][TPSTAT_NR_SLOTS];
	__u64 missed[TPSTAT_MAX_TP];
	struct tpstat_hist hist[TPSTAT_MAX_HIST];	/* --hist, in env.hist's order */
};

struct state {
	struct tpstat_bpf *skel;
	struct bpf_program *progs[TPSTAT_MAX_TP];
	struct bpf_link *links[TPSTAT_MAX_TP];
	struct bpf_link *task_links[2];	/* fork and free tracking of the targets */
	const struct tp_info *tps[TPSTAT_MAX_TP];
	/*
	 * Reported = raw - excluded: what was counted while paused is excluded at resume
	 * (snapshots at pause and resume), so pausing costs the programs nothing.
	 */
	struct counts raw, excluded, at_pause, shown, prev;
	bool paused;
	int ncpu;			/* possible CPUs */
	__u64 cpu_count[TPSTAT_MAX_TP][TPSTAT_NR_SLOTS], cpu_delta[TPSTAT_MAX_TP][TPSTAT_NR_SLOTS];
	__u64 cpu_prev[TPSTAT_NR_SLOTS];
	__u64 runs[TPSTAT_MAX_TP][MAX_REPEAT];
	double run_secs[MAX_REPEAT];	/* -r: each run's elapsed time */
	int nruns;
	FILE *out;			/* the report: stdout, stderr with -- CMD, or -o FILE */
	__u64 cpus[TPSTAT_MAX_TP][TPSTAT_CPU_WORDS];
	struct tpstat_row rows[TPSTAT_MAX_TP];
	char command[1024];
	char target[1200];
	bool tree;			/* counting CMD's process tree */
	struct pins pins;
	struct tpfield fields[TPSTAT_MAX_HIST];
	struct tpstat_hist_row hist_rows[TPSTAT_MAX_TP][TPSTAT_MAX_HIST];
	struct tpstat_hist hist_delta[TPSTAT_MAX_HIST];	/* one interval's, for its lines */
	struct tpstat_hist *hist_cpu;	/* --hist's per-CPU copies, mapped: see read_hists() */
	struct tpfield keys[TPSTAT_MAX_BY];	/* --by EXPR keys */
	struct tpstat_by_entry *by_entries[TPSTAT_MAX_BY];	/* each --by's, as read, sorted */
	struct tpstat_by_row by_rows[TPSTAT_MAX_TP][TPSTAT_MAX_BY];
};

/* Most counted first; equal counts by key, so that the output is stable. */
static int cmp_entry(const void *a, const void *b)
{
	const struct tpstat_by_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return memcmp(x->k, y->k, sizeof(x->k));
}

/*
 * Read the --by table (in batches of 256, one system call each) and make each --by's row:
 * its top env.top entries, the rest summed into other, dropped and errors from .bss.
 */
static void read_by(struct state *s)
{
	int fd = bpf_map__fd(s->skel->maps.by_counts), m[TPSTAT_MAX_BY] = {};
	struct tpstat_key keys[256];
	__u64 vals[256];
	__u32 batch = 0, count;
	bool first = true;
	int err;

	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		count = 256;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys, vals, &count, &o);
		first = false;
		for (__u32 i = 0; i < count; i++) {
			__u32 b = keys[i].by;

			if (b < (__u32)env.nby && m[b] < TPSTAT_BY_ENTRIES)
				s->by_entries[b][m[b]++] = (struct tpstat_by_entry){
					{ keys[i].k[0], keys[i].k[1] }, vals[i] };
		}
	} while (!err);
	if (errno != ENOENT)
		fprintf(stderr, "tpstat: cannot read the --by table: %s\n", strerror(errno));
	/*
	 * TP:cpu below TPSTAT_SLOTS is in the count itself: the CPU's own slot, counted in the
	 * same program run (the table holds only the CPUs above).
	 */
	for (int b = 0; b < env.nby; b++)
		for (int cpu = 0; env.by[b].kind == TPSTAT_KEY_CPU && cpu < s->ncpu && cpu < TPSTAT_SLOTS; cpu++) {
			__u64 v = s->shown.slot[env.by[b].idx][cpu];

			if (v && m[b] < TPSTAT_BY_ENTRIES)
				s->by_entries[b][m[b]++] = (struct tpstat_by_entry){ { (__u64)cpu, 0 }, v };
		}
	for (int b = 0; b < env.nby; b++) {
		struct tpstat_by_entry *e = s->by_entries[b];
		int idx = env.by[b].idx;
		__u64 other = 0;

		qsort(e, m[b], sizeof(*e), cmp_entry);
		for (int i = env.top; i < m[b]; i++)
			other += e[i].count;
		s->by_rows[idx][s->rows[idx].nbys++] = (struct tpstat_by_row){
			.key_expr = env.by[b].key, .kind = env.by[b].kind,
			.is_signed = s->keys[b].is_signed, .entries = e,
			.n = m[b] < env.top ? m[b] : (int)env.top, .nkeys = m[b], .other = other,
			.dropped = __atomic_load_n(&s->skel->bss->by_stats[b].dropped, __ATOMIC_RELAXED),
			.errors = __atomic_load_n(&s->skel->bss->by_stats[b].errors, __ATOMIC_RELAXED),
		};
	}
}

static __u64 recursion_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * --hist's histograms, each the sum of its copies: one per possible CPU in the mapped
 * hist_cpu array (entry cpu * nhist + h) and the .bss one for a CPU beyond it. Buckets,
 * errors and the 128-bit sum add up, min and max are the least and greatest, samples is the
 * buckets' sum (the programs keep no separate count of it).
 */
static void read_hists(struct state *s, struct counts *c)
{
	for (int h = 0; h < env.nhist; h++) {
		bool sg = s->fields[h].is_signed;
		struct tpstat_hist *to = &c->hist[h];

		memset(to, 0, sizeof(*to));
		to->min = sg ? (__u64)INT64_MAX : UINT64_MAX;
		to->max = sg ? (__u64)INT64_MIN : 0;
		for (int cpu = 0; cpu <= s->ncpu; cpu++) {
			const struct tpstat_hist *from = cpu < s->ncpu ?
				&s->hist_cpu[cpu * env.nhist + h] : &s->skel->bss->hists[h];
			__u64 sum = __atomic_load_n(&from->sum, __ATOMIC_RELAXED);
			__u64 min = __atomic_load_n(&from->min, __ATOMIC_RELAXED);
			__u64 max = __atomic_load_n(&from->max, __ATOMIC_RELAXED);

			to->errors += __atomic_load_n(&from->errors, __ATOMIC_RELAXED);
			to->minmax_lost += __atomic_load_n(&from->minmax_lost, __ATOMIC_RELAXED);
			to->sum_hi += __atomic_load_n(&from->sum_hi, __ATOMIC_RELAXED) + (to->sum + sum < to->sum);
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
	size_t len = (size_t)s->ncpu * env.nhist * sizeof(struct tpstat_hist);
	void *p;

	if (!env.nhist)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(s->skel->maps.hist_cpu), 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "tpstat: cannot map the --hist table: %s\n", strerror(errno));
		return 1;
	}
	s->hist_cpu = p;
	for (int h = 0; h < env.nhist; h++) {
		bool sg = s->fields[h].is_signed;

		for (int cpu = 0; cpu <= s->ncpu; cpu++) {
			struct tpstat_hist *t = cpu < s->ncpu ? &s->hist_cpu[cpu * env.nhist + h] :
				&s->skel->bss->hists[h];

			t->min = sg ? (__u64)INT64_MAX : UINT64_MAX;
			t->max = sg ? (__u64)INT64_MIN : 0;
		}
	}
	return 0;
}

/* Read the counters: the mmapped .bss for the slots, one bpf_prog_info per program. */
static void read_raw(struct state *s, struct counts *c)
{
	struct tpstat_bpf__bss *bss = s->skel->bss;

	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		for (int i = 0; i < env.n; i++)
			c->slot[i][slot] = __atomic_load_n(&bss->slots[slot].count[i], __ATOMIC_RELAXED);
	for (int i = 0; i < env.n; i++)
		c->missed[i] = recursion_misses(s->progs[i]);
	read_hists(s, c);
}

/* c = a - b for what adds up in a histogram; min and max stay a's (they do not subtract). */
static void sub_hist(struct tpstat_hist *c, const struct tpstat_hist *a, const struct tpstat_hist *b)
{
	c->samples = a->samples - b->samples;
	c->errors = a->errors - b->errors;
	/* The 128-bit sum: the borrow out of the low word. */
	c->sum_hi = a->sum_hi - b->sum_hi - (a->sum < b->sum);
	c->sum = a->sum - b->sum;
	c->minmax_lost = a->minmax_lost - b->minmax_lost;
	for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
		c->buckets[k] = a->buckets[k] - b->buckets[k];
	c->min = a->min;
	c->max = a->max;
}

/* c = a - b, slot by slot */
static void sub_counts(struct counts *c, const struct counts *a, const struct counts *b)
{
	for (int i = 0; i < env.n; i++) {
		for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
			c->slot[i][slot] = a->slot[i][slot] - b->slot[i][slot];
		c->missed[i] = a->missed[i] - b->missed[i];
	}
	for (int h = 0; h < env.nhist; h++)
		sub_hist(&c->hist[h], &a->hist[h], &b->hist[h]);
}

static void add_counts(struct counts *c, const struct counts *a)
{
	for (int i = 0; i < env.n; i++) {
		for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
			c->slot[i][slot] += a->slot[i][slot];
		c->missed[i] += a->missed[i];
	}
	for (int h = 0; h < env.nhist; h++) {
		struct tpstat_hist *ch = &c->hist[h];
		const struct tpstat_hist *ah = &a->hist[h];

		ch->samples += ah->samples;
		ch->errors += ah->errors;
		ch->sum_hi += ah->sum_hi + (ch->sum + ah->sum < ch->sum);
		ch->sum += ah->sum;
		ch->minmax_lost += ah->minmax_lost;
		for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
			ch->buckets[k] += ah->buckets[k];
	}
}

static __u64 total(const struct counts *c, int i)
{
	__u64 t = 0;

	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		t += c->slot[i][slot];
	return t;
}

/* What the user sees now: counted minus what was counted while paused. */
static void current(struct state *s)
{
	struct counts *now = &s->raw;

	read_raw(s, now);
	sub_counts(&s->shown, s->paused ? &s->at_pause : now, &s->excluded);
}

/* SIGUSR1: pause or resume. The flag in .bss is for observers; the programs never read it. */
static bool toggle_pause(struct state *s)
{
	struct counts during;

	if (env.nby) {
		/* The key tables cannot leave out what was counted while paused: say so, go on. */
		fprintf(stderr, "tpstat: SIGUSR1 ignored: --by tables cannot be paused\n");
		return false;
	}
	read_raw(s, &s->raw);
	if (!s->paused) {
		s->at_pause = s->raw;
	} else {
		sub_counts(&during, &s->raw, &s->at_pause);
		add_counts(&s->excluded, &during);
	}
	s->paused = !s->paused;
	__atomic_store_n(&s->skel->bss->paused, s->paused, __ATOMIC_RELAXED);
	return true;
}

/*
 * The --hist and --by rows of each tracepoint, from the counts shown now: the histograms'
 * totals, or with @interval the deltas since the previous report (min and max stay totals).
 */
static void fields_rows(struct state *s, bool interval)
{
	for (int i = 0; i < env.n; i++) {
		s->rows[i].hists = s->hist_rows[i];
		s->rows[i].nhists = 0;
		s->rows[i].bys = s->by_rows[i];
		s->rows[i].nbys = 0;
	}
	if (env.nby)
		read_by(s);
	for (int h = 0; h < env.nhist; h++) {
		struct tpstat_row *row = &s->rows[env.hist[h].idx];
		const struct tpstat_hist *c = &s->shown.hist[h];

		if (interval) {
			sub_hist(&s->hist_delta[h], &s->shown.hist[h], &s->prev.hist[h]);
			c = &s->hist_delta[h];
		}

		s->hist_rows[env.hist[h].idx][row->nhists++] = (struct tpstat_hist_row){
			.expr = env.hist[h].expr, .is_signed = s->fields[h].is_signed,
			.samples = c->samples, .errors = c->errors, .sum = c->sum,
			.sum_hi = c->sum_hi, .min = c->min,
			.max = c->max, .minmax_lost = c->minmax_lost, .buckets = c->buckets,
			.interval = interval, .linear = env.hist[h].linear, .lmin = env.hist[h].lmin,
			.lmax = env.hist[h].lmax, .lstep = env.hist[h].lstep,
		};
	}
}

static void report(struct state *s, struct tpstat_report *r)
{
	struct tpstat_bpf__bss *bss = s->skel->bss;

	current(s);
	for (int i = 0; i < env.n; i++) {
		struct tpstat_row *row = &s->rows[i];
		__u64 first = __atomic_load_n(&bss->tps[i].first_cpu, __ATOMIC_RELAXED);

		for (int w = 0; w < TPSTAT_CPU_WORDS; w++)
			s->cpus[i][w] = __atomic_load_n(&bss->tps[i].cpus[w], __ATOMIC_RELAXED);
		row->first_cpu = first ? (int)(first - 1) : -1;
		row->cpus_truncated = __atomic_load_n(&bss->tps[i].cpus_beyond, __ATOMIC_RELAXED);
		row->name = s->tps[i]->name;
		row->module = s->tps[i]->module;
		row->kind = s->tps[i]->kind;
		row->count = total(&s->shown, i);
		row->delta = row->count - total(&s->prev, i);
		row->missed = s->shown.missed[i];
		row->missed_delta = s->shown.missed[i] - s->prev.missed[i];
		row->cpus = s->cpus[i];
		row->cpu_words = TPSTAT_CPU_WORDS;
		if (env.per_cpu) {
			__u64 rest_prev;
			int n = fmt_cpu_counts(s->shown.slot[i], s->ncpu, s->cpu_count[i], &row->rest_count);

			fmt_cpu_counts(s->prev.slot[i], s->ncpu, s->cpu_prev, &rest_prev);
			for (int c = 0; c < n; c++)
				s->cpu_delta[i][c] = s->cpu_count[i][c] - s->cpu_prev[c];
			row->cpu_count = s->cpu_count[i];
			row->cpu_delta = s->cpu_delta[i];
			row->ncpu = n;
			row->rest_last = n < s->ncpu ? s->ncpu - 1 : 0;
			row->rest_delta = row->rest_count - rest_prev;
		}
		row->runs = s->runs[i];
		row->nruns = r->final ? s->nruns : 0;
	}
	fields_rows(s, !r->final && !env.json && !env.csv);
	s->prev = s->shown;
	r->n = env.n;
	r->rows = s->rows;
	r->ts = util_wallclock();
	r->target = s->target;
	r->csv = env.csv;
	r->per_cpu = env.per_cpu;
	if (r->final) {
		r->run_secs = s->run_secs;
		r->nruns = s->nruns;
	}
	if (env.json)
		fmt_json(s->out, r);
	else if (env.csv)
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
	v->n = env.n;
	v->ncpu = s->ncpu;
	for (int i = 0; i < env.n; i++) {
		v->tp[i] = (struct tpstat_mtp){
			.tp = s->tps[i],
			.prog = bpf_program__name(s->progs[i]),
			.prog_fd = bpf_program__fd(s->progs[i]),
			.hits = total(&s->shown, i),
			.missed = s->shown.missed[i],
		};
		if (env.per_cpu) {
			v->tp[i].ncpu = fmt_cpu_counts(s->shown.slot[i], s->ncpu, s->cpu_count[i],
						       &v->tp[i].rest_hits);
			v->tp[i].cpu_hits = s->cpu_count[i];
		}
	}
	fields_rows(s, false);
	for (int i = 0; i < env.n; i++) {
		v->tp[i].hists = s->rows[i].hists;
		v->tp[i].nhists = s->rows[i].nhists;
		v->tp[i].bys = s->rows[i].bys;
		v->tp[i].nbys = s->rows[i].nbys;
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
	for (int i = 0; !err && i < env.n; i++) {
		snprintf(name, sizeof(name), "prog_%s", s->tps[i]->name);
		err = pins_prog(&s->pins, s->progs[i], name);
		if (err)
			break;
		snprintf(name, sizeof(name), "link_%s", s->tps[i]->name);
		err = pins_link(&s->pins, s->links[i], name);
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
	for (int i = 0; i < env.n; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
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
	pid_t child = runloop_start_gated(rl, env.command, &gate);
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
	util_release_command(gate, go);
	return child;
}

static void record_run(struct state *s, const __u64 *before, double secs)
{
	current(s);
	for (int i = 0; i < env.n; i++)
		s->runs[i][s->nruns] = total(&s->shown, i) - before[i];
	s->run_secs[s->nruns] = secs;
	s->nruns++;
}

static int run(struct state *s)
{
	struct tpstat_report r = { .command = env.command ? s->command : NULL };
	__u64 run_start[TPSTAT_MAX_TP] = {};
	long runs = env.repeat ? env.repeat : 1;
	double last, paused_at = 0, now, run_t0;
	bool counted_out = false;	/* -c: the last interval was printed; no partial line */
	enum runloop_event ev;
	struct runloop rl;
	int status = 0;

	runloop_init(&rl, "tpstat", env.interval, env.duration, true);
	rl.keep_going = env.repeat > 0;	/* -r: every end of CMD is recorded, then rerun */
	if (tpstat_metrics_watch(&rl)) {
		runloop_finish(&rl);
		return 1;
	}
	if (!env.json && !env.csv && env.interval)
		fmt_interval_header(s->out);
	last = rl.start;
	run_t0 = util_now();
	if (env.command && start_command(s, &rl) < 0) {
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
			if (!env.json && !env.csv)
				fprintf(s->out, "#%12.3f  counting %s (SIGUSR1)\n", now - rl.start,
					s->paused ? "paused" : "resumed");
			fflush(s->out);
			break;
		case RUNLOOP_EXITED:
			record_run(s, run_start, now - run_t0);
			for (int i = 0; i < env.n; i++)
				run_start[i] = total(&s->shown, i);
			if (s->nruns < runs && rl.cmd_status == 0 && !rl.interrupted) {
				run_t0 = util_now();
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
			if (env.count && r.interval >= env.count) {
				counted_out = true;
				runloop_stop(&rl);
			}
			break;
		case RUNLOOP_STOP:
			break;
		}
	}

	detach_all(s);
	now = util_now();
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
	if (env.interval && !env.json) {
		/* The last, partial interval as a line of its own; totals only with --summary. */
		if (!counted_out)
			report(s, &r);
		if (env.summary) {
			s->prev = (struct counts){};
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

/* The compiled fields into .rodata, before load. */
static void set_fields(struct state *s)
{
	s->skel->rodata->nhist = env.nhist;
	for (int h = 0; h < env.nhist; h++) {
		const struct tpfield *f = &s->fields[h];
		struct tpstat_field *d = (struct tpstat_field *)&s->skel->rodata->hist_field[h];

		*d = (struct tpstat_field){ .tp = env.hist[h].idx, .arg = f->arg, .nsteps = f->nsteps,
			.size = f->size, .is_signed = f->is_signed, .bit_off = f->bit_off,
			.bit_size = f->bit_size, .linear = env.hist[h].linear,
			.lmin = env.hist[h].lmin, .lmax = env.hist[h].lmax,
			.lstep = (__u64)env.hist[h].lstep };
		for (__u32 k = 0; k < f->nsteps; k++) {
			d->steps[k].off = f->steps[k].off;
			d->steps[k].size = f->steps[k].size;
		}
	}
	s->skel->rodata->nby = env.nby;
	for (int b = 0; b < env.nby; b++) {
		const struct tpfield *f = &s->keys[b];
		struct tpstat_by *d = (struct tpstat_by *)&s->skel->rodata->by_spec[b];

		*d = (struct tpstat_by){ .kind = env.by[b].kind, .field = { .tp = env.by[b].idx,
			.arg = f->arg, .nsteps = f->nsteps, .size = f->size, .is_signed = f->is_signed,
			.bit_off = f->bit_off, .bit_size = f->bit_size } };
		for (__u32 k = 0; k < f->nsteps; k++) {
			d->field.steps[k].off = f->steps[k].off;
			d->field.steps[k].size = f->steps[k].size;
		}
	}
	/* No --by: a table of one entry, not TPSTAT_BY_ENTRIES preallocated for nothing. */
	bpf_map__set_max_entries(s->skel->maps.by_counts, env.nby ? TPSTAT_BY_ENTRIES : 1);
	/* One histogram per --hist per possible CPU (see read_hists()). */
	bpf_map__set_max_entries(s->skel->maps.hist_cpu, env.nhist ? env.nhist * s->ncpu : 1);
}

int main(int argc, char **argv)
{
	static struct state s;
	struct tp_list l;
	int err, status = 1;

	tpstat_parse_args(argc, argv);
	util_setup_libbpf(env.verbose);
	if (env.list)
		return tpstat_list();

	if (tpstat_load_tracepoints(&l))
		return 1;
	status = tpstat_resolve_names(&l, s.tps);
	if (status)
		goto out_list;
	status = tpstat_check_targets();
	if (status)
		goto out_list;
	status = tpstat_compile_fields(s.tps, s.fields, s.keys);
	if (status)
		goto out_list;
	for (int b = 0; b < env.nby; b++) {
		s.by_entries[b] = calloc(TPSTAT_BY_ENTRIES, sizeof(*s.by_entries[b]));
		if (!s.by_entries[b]) {
			fprintf(stderr, "tpstat: out of memory\n");
			status = 1;
			goto out_list;
		}
	}
	status = util_check_bpf("tpstat", "counting");
	if (status)
		goto out_list;
	/* Before anything is loaded: an address that cannot be had changes nothing. */
	status = tpstat_metrics_open(env.listen, env.textfile, env.interval ? env.interval : 10,
				     metrics_snapshot, &s);
	if (status)
		goto out_list;
	util_join_command(env.command, s.command, sizeof(s.command));
	/* The report never shares a stream with CMD's output (tpstat(8), OUTPUT). */
	if (env.output && (!strcmp(env.output, "-") || !strcmp(env.output, "/dev/stdout"))) {
		/* Not reopened: a file stdout points to would be truncated and written over. */
		s.out = stdout;
	} else if (env.output && !strcmp(env.output, "/dev/stderr")) {
		s.out = stderr;
	} else if (env.output) {
		s.out = fopen(env.output, env.append ? "ae" : "we");
		if (!s.out) {
			fprintf(stderr, "tpstat: cannot open '%s' for the report: %s\n", env.output,
				strerror(errno));
			status = 1;
			goto out_list;
		}
	} else {
		s.out = env.command ? stderr : stdout;
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
		for (int i = 0; i < env.n; i++) {
			bool hist = false;

			/* With --hist or --by on it, the program that also records fields and keys. */
			for (int h = 0; h < env.nhist; h++)
				hist |= env.hist[h].idx == i;
			for (int b = 0; b < env.nby; b++)
				hist |= env.by[b].idx == i;
			snprintf(name, sizeof(name), hist ? "tpstat_hist_%d" : "tpstat_%d", i);
			s.progs[i] = bpf_object__find_program_by_name(s.skel->obj, name);
			bpf_program__set_autoload(s.progs[i], true);
		}
	}
	s.tree = tpstat_choose_target(s.skel, s.target, sizeof(s.target));
	set_fields(&s);
	err = tpstat_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "tpstat: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
		goto out;
	}
	status = tpstat_set_targets(s.skel, s.task_links);
	if (status)
		goto out;
	/* Before the first event: min and max start at the far ends of the type. */
	status = map_hists(&s);
	if (status)
		goto out;
	for (int i = 0; i < env.n; i++) {
		s.links[i] = bpf_program__attach_raw_tracepoint(s.progs[i], s.tps[i]->name);
		if (!s.links[i]) {
			err = -errno;
			fprintf(stderr, "tpstat: cannot attach to %s: %s\n", s.tps[i]->name,
				err == -EEXIST ? "this program is already attached there" :
				util_bpf_load_hint(err));
			status = 1;
			goto out;
		}
	}
	if (env.pin && pin(&s)) {
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
	for (int i = 0; i < env.n; i++)
		bpf_link__destroy(s.links[i]);
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(s.task_links[i]);
	tpstat_bpf__destroy(s.skel);
out_list:
	for (int b = 0; b < env.nby; b++)
		free(s.by_entries[b]);
	tplist_free(&l);
	if (s.out && s.out != stdout && s.out != stderr && fclose(s.out)) {
		fprintf(stderr, "tpstat: cannot write the report to '%s': %s\n", env.output,
			strerror(errno));
		status = 1;
	}
	return status;
}
