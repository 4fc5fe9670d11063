// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat: exact counts of raw and bare tracepoints, like perf stat for what perf cannot see.
 *
 * main() in steps: the command line into one spec per tracepoint (tpstat_cli.c,
 * tpstat_specs.c), the specs into the BPF object (.rodata, one program each), load, attach,
 * then the run: reports read the kernel's tables (tpstat_read.c) into the one view
 * (tpstat_view.c) that every output prints (tpstat_fmt.c and its formats, the metrics).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/tpstat_abi.h"
#include "tpstat.skel.h"
#include "src/tplist.h"
#include "src/runloop.h"
#include "src/tpstat_cli.h"
#include "src/tpstat_fmt.h"
#include "src/tpstat_guard.h"
#include "src/tpstat_metrics.h"
#include "src/tpstat_names.h"
#include "src/tpstat_opts.h"
#include "src/tpstat_read.h"
#include "src/tpstat_rodata.h"
#include "src/tpstat_specs.h"
#include "src/tpstat_target.h"
#include "src/tpstat_view.h"
#include "src/tpstat_stacks.h"
#include "src/metrics_export.h"
#include "src/pins.h"
#include "src/bpf_util.h"
#include "src/clock.h"
#include "src/cmd.h"

struct state {
	const struct tpstat_opts *o;
	const struct tpstat_specs *specs;
	struct tpstat_bpf *skel;
	struct tpstat_progs progs;	/* each spec's program and link, by slot; the counters */
	struct bpf_link *task_links[2];	/* fork and free tracking of the targets */
	struct tpstat_reader rd;
	struct tpstat_snap snap;	/* the kernel's tables as last read */
	struct tpstat_view view;	/* what the reports and the metrics show */
	struct tpstat_stacks stacks;	/* --by TP:kstack, TP:ustack: named for the final report */
	bool files_failed;		/* --folded or --flamegraph could not be written */
	struct metrics_export mx;	/* --listen, --textfile */
	FILE *out;			/* the report: stdout, stderr with -- CMD, or -o FILE */
	char command[1024];
	char target[1200];
	bool tree;			/* counting CMD's process tree */
	struct pins pins;
	struct tpstat_guard guard;	/* plain updates or atomics: read with the tracepoints */
	char release[128];
};

/* tplist's vmlinux BTF, while it is parsed: the guard read from it (no second parse). */
static void read_guard(const struct btf *vmlinux, void *arg)
{
	struct state *s = arg;

	tpstat_guard_read(&s->guard, vmlinux, s->release, sizeof(s->release));
}

/* Read the kernel's tables and show them in @r: the one path of every output. */
static void view(struct state *s, struct tpstat_report *r, bool interval)
{
	tpstat_read_counts(&s->rd, &s->snap);
	tpstat_view_update(&s->view, &s->snap);
	tpstat_read_keys(&s->rd, &s->snap);
	if (r->final)
		tpstat_stacks_final(&s->stacks, &s->snap);
	tpstat_view_rows(&s->view, &s->snap, interval, r);
}

static void report(struct state *s, struct tpstat_report *r)
{
	const struct tpstat_opts *o = s->o;

	view(s, r, !r->final && !o->json && !o->csv);
	tpstat_view_set_prev(&s->view, &s->snap, false);
	r->ts = clock_wallclock();
	r->target = s->target;
	r->csv = o->csv;
	if (o->json)
		fmt_json(s->out, r);
	else if (o->csv)
		fmt_csv(s->out, r);
	else if (!r->final)
		fmt_interval(s->out, r);
	else
		fmt_table(s->out, r);
	if (!r->final)
		tpstat_stacks_note(&s->stacks);
	else if (tpstat_stacks_files(&s->stacks, o->folded, o->flamegraph))
		s->files_failed = true;
}

/*
 * A scrape (metrics_export calls it, handed it at open): the counts a report would show
 * now, totals, without moving the reports' base.
 */
static void render_metrics(void *arg, struct metrics *m)
{
	struct state *s = arg;
	struct tpstat_report r = {
		.targets_fd = bpf_map__fd(s->skel->maps.targets),
		.targets_max = bpf_map__max_entries(s->skel->maps.targets),
	};

	view(s, &r, false);
	r.untracked_forks = __atomic_load_n(&s->skel->bss->untracked_forks, __ATOMIC_RELAXED);
	tpstat_metrics_write(m, &r);
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
	if (!err)
		err = pins_map(&s->pins, s->skel->maps.counts, "counts");
	for (int i = 0; !err && i < s->specs->n; i++) {
		snprintf(name, sizeof(name), "prog_%s", s->specs->tp[i].name);
		err = pins_fd(&s->pins, s->progs.p[i].fd, name);
		if (err)
			break;
		snprintf(name, sizeof(name), "link_%s", s->specs->tp[i].name);
		err = pins_fd(&s->pins, s->progs.p[i].link, name);
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
	tpstat_progs_detach(&s->progs);
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
	if (metrics_export_watch(&s->mx, &rl)) {
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
			if (!tpstat_view_pausable(&s->view))
				break;
			tpstat_read_counts(&s->rd, &s->snap);
			tpstat_view_toggle(&s->view, &s->snap);
			/* For observers (bpftool map dump): the programs never read it. */
			__atomic_store_n(&s->skel->bss->paused, s->view.paused, __ATOMIC_RELAXED);
			if (s->view.paused) {
				paused_at = now;
			} else {
				r.paused_secs += now - paused_at;
				paused_at = 0;
			}
			if (!o->json && !o->csv)
				fprintf(s->out, "#%12.3f  counting %s (SIGUSR1)\n", now - rl.start,
					s->view.paused ? "paused" : "resumed");
			fflush(s->out);
			break;
		case RUNLOOP_EXITED:
			tpstat_read_counts(&s->rd, &s->snap);
			tpstat_view_update(&s->view, &s->snap);
			tpstat_view_end_run(&s->view, now - run_t0);
			if (s->view.nruns < runs && rl.cmd_status == 0 && !rl.interrupted) {
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
			r.paused = s->view.paused;
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
	r.paused = s->view.paused;
	if (o->interval && !o->json) {
		/* The last, partial interval as a line of its own; totals only with --summary. */
		if (!counted_out)
			report(s, &r);
		if (o->summary) {
			tpstat_view_set_prev(&s->view, &s->snap, true);
			r.final = true;
			report(s, &r);
		} else if (o->folded || o->flamegraph) {
			/* No final report to print, but the files are the whole run's. */
			tpstat_read_counts(&s->rd, &s->snap);
			tpstat_stacks_final(&s->stacks, &s->snap);
			s->files_failed |= tpstat_stacks_files(&s->stacks, o->folded, o->flamegraph);
		}
	} else {
		r.final = true;
		report(s, &r);
	}

	status = metrics_export_close(&s->mx, &rl);	/* the textfile's last write: the final counts */
	runloop_finish(&rl);
	/* As perf stat: CMD's status is tpstat's, unless tpstat itself failed. */
	if (rl.cmd_status > 0) {
		fprintf(stderr, "tpstat: '%s' exited with status %d\n", s->command, rl.cmd_status);
		if (!status)
			status = rl.cmd_status;
	}
	return status;
}

/* Where the report goes (tpstat(8), OUTPUT): never into a stream CMD writes to. */
static FILE *open_report(const struct tpstat_opts *o)
{
	FILE *f;

	/* -o - is not reopened: a file stdout points to would be truncated and written over. */
	if (o->output && (!strcmp(o->output, "-") || !strcmp(o->output, "/dev/stdout")))
		return stdout;
	if (o->output && !strcmp(o->output, "/dev/stderr"))
		return stderr;
	if (!o->output)
		return o->command ? stderr : stdout;
	f = fopen(o->output, o->append ? "ae" : "we");
	if (!f)
		fprintf(stderr, "tpstat: cannot open '%s' for the report: %s\n", o->output,
			strerror(errno));
	return f;
}

/*
 * Does tracepoint @tp need the program that reads fields? Not when all it has is --by
 * TP:cpu (no --value) and every possible CPU has a count slot: each CPU's count is then its
 * key's count, read from the slots (tpstat_read_keys()), and the count program answers it
 * at the cost of a plain count.
 */
static bool needs_fields(const struct tpstat_specs *sp, const struct tp_spec *tp, int ncpu)
{
	if (!tp->reads_fields)
		return false;
	if (tp->nhists || tp->nfilters || ncpu > TPSTAT_SLOTS)
		return true;
	for (int l = 0; l < sp->nlat; l++)
		if (sp->lat[l].tp[0] == tp || sp->lat[l].tp[1] == tp)
			return true;
	for (int b = 0; b < tp->nbys; b++)
		if (!tp_by_cpu_alone(tp->bys[b]))
			return true;
	return false;
}

/*
 * Each spec's program (tpstat_progs.c): the one that reads fields when it has any to read,
 * a copy each or one shared, and the counters sized for the specs.
 */
static int choose_programs(struct state *s)
{
	bool *hist = calloc(s->specs->n, sizeof(*hist));
	int status;

	for (int i = 0; hist && i < s->specs->n; i++)
		hist[i] = needs_fields(s->specs, &s->specs->tp[i], s->rd.ncpu);
	status = hist ? tpstat_progs_setup(&s->progs, s->skel, s->specs->n, hist,
					   s->specs->nfilter > 0) : 1;
	free(hist);
	return status;
}

/* Each spec's program to its tracepoint, by name. */
static int attach(struct state *s)
{
	for (int i = 0; i < s->specs->n; i++) {
		const char *name = s->specs->tp[i].name;
		int err;

		err = tpstat_progs_attach(&s->progs, i, name);
		if (err) {
			fprintf(stderr, "tpstat: cannot attach to %s: %s\n", name,
				err == -EEXIST ? "this program is already attached there" :
				util_bpf_load_hint(err));
			return 1;
		}
		s->view.tp[i].prog = s->progs.p[i].name;
		s->view.tp[i].prog_fd = s->progs.p[i].fd;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct tpstat_opts opts;
	static struct tpstat_specs specs;
	static struct state s = { .o = &opts, .specs = &specs, .rd = { .specs = &specs } };
	const struct tpstat_opts *o = &opts;
	struct tp_list l;
	int err, status;

	/* The command line into one spec per tracepoint: resolved, its fields compiled. */
	tpstat_parse_args(argc, argv, &opts, &specs);
	util_setup_libbpf(o->verbose);
	if (o->list)
		return tpstat_list(o);
	if (tpstat_load_tracepoints(&l, read_guard, &s))
		return 1;
	status = tpstat_specs_resolve(&specs, &l, o->command != NULL);
	if (!status)
		status = tpstat_check_targets(o);
	if (!status)
		status = tpstat_specs_compile(&specs);
	if (!status)
		status = util_check_bpf("tpstat", "counting");
	if (status)
		goto out_list;

	/* Before anything is loaded: an address that cannot be had changes nothing. */
	status = metrics_export_open(&s.mx, "tpstat", o->listen, o->textfile,
				     o->interval ? o->interval : 10, render_metrics, &s);
	if (status)
		goto out_list;
	cmd_join(o->command, s.command, sizeof(s.command));
	s.out = open_report(o);
	if (!s.out) {
		status = 1;
		goto out_list;
	}
	s.rd.progs = &s.progs;
	s.rd.ncpu = libbpf_num_possible_cpus();
	if (s.rd.ncpu < 1)
		s.rd.ncpu = TPSTAT_SLOTS;
	s.view = (struct tpstat_view){ .specs = &specs, .o = o, .ncpu = s.rd.ncpu };
	status = tpstat_view_open(&s.view);
	if (status)
		goto out_list;
	status = tpstat_progs_register();
	if (status)
		goto out_list;

	/* The specs into the BPF object: a program each, .rodata, the tables' sizes. */
	s.skel = s.rd.skel = tpstat_bpf__open();
	if (!s.skel) {
		fprintf(stderr, "tpstat: cannot open the BPF object: %s\n", strerror(errno));
		status = 1;
		goto out_list;
	}
	status = choose_programs(&s);
	if (!status)
		status = tpstat_stacks_open(&s.stacks, &specs, s.skel, o->folded || o->flamegraph);
	if (status)
		goto out;
	if (o->command)
		tpstat_stacks_command(&s.stacks, o->command[0]);
	s.tree = tpstat_choose_target(o, s.skel, s.target, sizeof(s.target));
	tpstat_rodata(&specs, s.skel, s.rd.ncpu);
	s.skel->rodata->plain_updates = tpstat_guard_say(&s.guard, s.release, o->verbose);
	err = tpstat_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "tpstat: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = util_bpf_exit_status(err);
		goto out;
	}
	status = tpstat_progs_load(&s.progs);
	if (!status && o->verbose)
		fprintf(stderr, "tpstat: %d loads of frozen .rodata folded into immediates "
			"(src/bpf_fold.h)\n", s.progs.folded);
	if (!status)
		status = tpstat_set_targets(o, s.skel, s.task_links);
	if (!status)
		status = tpstat_stacks_attach(&s.stacks, !s.tree);
	/* Before the first event: min and max start at the far ends of the type. */
	if (!status)
		status = tpstat_read_open(&s.rd, &s.snap);
	if (!status)
		status = attach(&s);
	if (!status && o->pin && pin(&s))
		status = 1;
	if (status)
		goto out;

	status = run(&s);
	if (s.files_failed)
		status = 1;
	if (s.skel->bss->untracked_forks) {
		fprintf(stderr, "tpstat: %llu processes of '%s' could not be followed (more than %d at "
			"once): their events are not counted\n",
			(unsigned long long)s.skel->bss->untracked_forks, s.command, TPSTAT_MAX_TASKS);
		status = 1;
	}
out:
	unpin(&s);
	tpstat_progs_close(&s.progs);
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(s.task_links[i]);
	tpstat_bpf__destroy(s.skel);
	tpstat_stacks_close(&s.stacks);
out_list:
	tpstat_read_close(&s.rd, &s.snap);
	tpstat_view_close(&s.view);
	tplist_free(&l);
	if (s.out && s.out != stdout && s.out != stderr && fclose(s.out)) {
		fprintf(stderr, "tpstat: cannot write the report to '%s': %s\n", o->output,
			strerror(errno));
		status = 1;
	}
	return status;
}
