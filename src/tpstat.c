// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat: exact counts of raw and bare tracepoints, like perf stat for what perf cannot see.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <math.h>
#include <linux/magic.h>
#include <linux/membarrier.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tpstat.h"
#include "tpstat.skel.h"
#include "tplist.h"
#include "runloop.h"
#include "tpstat_fmt.h"
#include "tpstat_metrics.h"
#include "http_serve.h"
#include "pins.h"
#include "util.h"

#define PIN_DIR "/sys/fs/bpf/bareatom/tpstat"
#define EXIT_USAGE 2
/* The most intervals -c takes: interval numbers are ints, the final line is one more. */
#define MAX_COUNT 1000000000L

#define MAX_TARGETS 256	/* PIDs or TIDs on the command line */
#define MAX_REPEAT 10000

static struct env {
	bool list;
	bool json;
	bool verbose;
	bool pin;
	bool system_wide;	/* -a */
	bool per_cpu;		/* -A */
	bool summary;		/* --summary */
	bool tids;		/* the targets are threads (-t), not processes (-p) */
	double interval;
	double duration;
	long count;
	long repeat;		/* -r N: 0 when not given */
	const char *csv;	/* -x SEP */
	const char *cgroup;	/* -G */
	int ntargets;
	int targets[MAX_TARGETS];
	char **command;
	char *names[TPSTAT_MAX_TP + 1];
	int n;
	const char *glob;
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
} env;

const char *argp_program_version = "tpstat (bareatom) 0.1";
const char *argp_program_bug_address = "the bareatom issue tracker";
static const char doc[] =
"Count raw and bare tracepoints exactly, with BPF atomics.\n"
"\n"
"USAGE: tpstat [-i SECS [-c COUNT] [--summary]] [-d SECS] [-j | -x SEP] [-A] [--pin]\n"
"              [-a | -p PID,.. | -t TID,.. | -G CGROUP] TRACEPOINT...\n"
"       tpstat [options] [-a] [-r N] TRACEPOINT... -- CMD [ARG...]\n"
"       tpstat [options] [--listen ADDR:PORT] [--textfile PATH] TRACEPOINT...\n"
"       tpstat -l [GLOB]\n"
"\n"
"A TRACEPOINT is a raw tracepoint name as in BTF (btf_trace_NAME): a trace event's\n"
"tracepoint like sched_switch, a bare one with no trace event like pelt_cfs_tp,\n"
"or a loaded module's, like tpgen_a. With -- CMD only events of CMD's process tree\n"
"count (children included), unless -a: system wide. -p, -t and -G count only those\n"
"processes (their threads too), threads, or a cgroup v2 subtree. Counting runs until\n"
"Ctrl-C, -d SECS, COUNT intervals (-c with -i) or the end of CMD. Hits the kernel\n"
"did not let the program see are shown as missed: count + missed = hits. SIGUSR1\n"
"pauses and resumes counting. --listen serves the counts for Prometheus at\n"
"http://ADDR:PORT/metrics while counting; --textfile writes them every interval\n"
"(-i, else 10 s) and at the end, for node_exporter's textfile collector.\n"
"\n"
"Exit status: 0 on success, 2 for usage errors, unknown tracepoints, processes or\n"
"cgroups, and missing privileges, 1 for other errors (including CMD failing).\n"
"\n"
"EXAMPLES:\n"
"    tpstat -l 'pelt*'                  # list the scheduler's bare PELT tracepoints\n"
"    tpstat pelt_cfs_tp sched_switch    # count until Ctrl-C\n"
"    tpstat -i 1 -c 5 sched_update_nr_running_tp   # five 1 s intervals\n"
"    tpstat -r 5 sched_switch -- make -j2   # mean and noise over 5 runs\n"
"    tpstat -A -x, -p 1234 sched_switch     # one CSV row per CPU, for PID 1234\n"
"    tpstat -a -j tpgen_a -- sh -c 'echo tpgen_a 100 all > /sys/kernel/debug/tpgen/fire'\n"
"    tpstat --pin -d 60 sched_switch &  bpftool map dump pinned /sys/fs/bpf/bareatom/tpstat/counters\n"
"    tpstat -a --listen 127.0.0.1:9465 pelt_cfs_tp   # curl http://127.0.0.1:9465/metrics\n";

enum { OPT_PIN = 256, OPT_SUMMARY, OPT_LISTEN, OPT_TEXTFILE };

static const struct argp_option opts[] = {
	{ "list", 'l', NULL, 0, "List attachable raw tracepoints (optionally matching GLOB)", 0 },
	{ "all-cpus", 'a', NULL, 0, "Count system wide, also with a CMD", 0 },
	{ "pid", 'p', "PID", 0, "Count only these processes (comma-separated; threads included)", 0 },
	{ "tid", 't', "TID", 0, "Count only these threads (comma-separated)", 0 },
	{ "cgroup", 'G', "CGROUP", 0, "Count only tasks in this cgroup v2 and its descendants", 0 },
	{ "interval", 'i', "SECS", 0, "Print deltas every SECS seconds (fractions allowed, >= 0.001)", 0 },
	{ "count", 'c', "COUNT", 0, "Stop after COUNT intervals (needs -i; at most 1000000000)", 0 },
	{ "summary", OPT_SUMMARY, NULL, 0, "With -i: print the totals after the intervals", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "repeat", 'r', "N", 0, "Run CMD N times: mean and noise per tracepoint", 0 },
	{ "per-cpu", 'A', NULL, 0, "A row per CPU too", 0 },
	{ "field-separator", 'x', "SEP", 0, "CSV with this separator (columns in tpstat(8))", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "pin", OPT_PIN, NULL, 0, "Pin programs, links and counters under " PIN_DIR " while running", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Serve metrics at http://ADDR:PORT/metrics (IPv4 or [IPv6])", 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0, "Write metrics to PATH atomically every interval", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output", 0 },
	{},
};

/* "1,2,3": PIDs or TIDs, each a whole number from 1 to the kernel's PID_MAX_LIMIT. */
static void parse_targets(const char *arg, const char *what)
{
	const char *p = arg;

	if (env.ntargets)
		util_usage_error("tpstat", "-p and -t are given once, as a comma-separated list");
	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v < 1 || v > 4194304 || *p == '+' ||
		    *p == '-' || *p == ' ')
			util_usage_error("tpstat", "invalid %s list '%s': whole numbers from 1 to 4194304, "
					 "separated by commas", what, arg);
		if (env.ntargets == MAX_TARGETS)
			util_usage_error("tpstat", "too many %ss: at most %d", what, MAX_TARGETS);
		env.targets[env.ntargets++] = (int)v;
		p = *end ? end + 1 : end;
	} while (*p);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case 'l':
		env.list = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case OPT_PIN:
		env.pin = true;
		break;
	case OPT_SUMMARY:
		env.summary = true;
		break;
	case OPT_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t len;
		char why[160];

		if (http_parse_listen(arg, &ss, &len, why, sizeof(why)))
			util_usage_error("tpstat", "--listen: %s", why);
		env.listen = arg;
		break;
	}
	case OPT_TEXTFILE:
		if (!*arg)
			util_usage_error("tpstat", "--textfile: an empty path");
		env.textfile = arg;
		break;
	case 'a':
		env.system_wide = true;
		break;
	case 'A':
		env.per_cpu = true;
		break;
	case 'p':
		parse_targets(arg, "PID");
		break;
	case 't':
		parse_targets(arg, "TID");
		env.tids = true;
		break;
	case 'G':
		env.cgroup = arg;
		break;
	case 'x':
		if (!*arg || strlen(arg) > 8)
			util_usage_error("tpstat", "invalid separator '%s': 1 to 8 characters", arg);
		env.csv = arg;
		break;
	case 'r':
		errno = 0;
		env.repeat = strtol(arg, &end, 10);
		if (errno || end == arg || *end || env.repeat < 1 || env.repeat > MAX_REPEAT)
			util_usage_error("tpstat", "invalid repeat count '%s': a whole number from 1 to %d",
					 arg, MAX_REPEAT);
		break;
	case 'i':
		env.interval = util_parse_interval("tpstat", arg);
		break;
	case 'd':
		if (util_parse_seconds(arg, &env.duration))
			util_usage_error("tpstat", "invalid duration '%s': a number of seconds > 0", arg);
		break;
	case 'c':
		errno = 0;
		env.count = strtol(arg, &end, 10);
		if (errno || end == arg || *end || env.count <= 0)
			util_usage_error("tpstat", "invalid count '%s': a whole number > 0", arg);
		if (env.count > MAX_COUNT)
			util_usage_error("tpstat", "count %s is above the maximum of %ld intervals",
					 arg, MAX_COUNT);
		break;
	case ARGP_KEY_ARG:
		if (env.list) {
			if (env.glob)
				util_usage_error("tpstat", "-l takes at most one GLOB");
			env.glob = arg;
			break;
		}
		if (env.n == TPSTAT_MAX_TP)
			util_usage_error("tpstat", "too many tracepoints: at most %d at once", TPSTAT_MAX_TP);
		for (int i = 0; i < env.n; i++)
			if (!strcmp(env.names[i], arg))
				util_usage_error("tpstat", "tracepoint '%s' is named twice", arg);
		if (strlen(arg) >= TP_NAME_LEN)
			util_usage_error("tpstat", "tracepoint name too long (%zu bytes, at most %d): "
					 "'%.40s...'", strlen(arg), TP_NAME_LEN - 1, arg);
		env.names[env.n++] = arg;
		break;
	case ARGP_KEY_END:
		if (env.list && (env.n || env.command || env.interval || env.duration || env.count ||
				 env.listen || env.textfile))
			util_usage_error("tpstat", "-l takes no other options and no command");
		if (!env.list && !env.n)
			util_usage_error("tpstat", "name at least one tracepoint (tpstat -l lists them)");
		if (env.count && !env.interval)
			util_usage_error("tpstat", "-c counts intervals: it needs -i");
		if ((env.ntargets != 0) + (env.cgroup != NULL) > 1)
			util_usage_error("tpstat", "-p, -t and -G cannot be combined: name one target");
		if (env.system_wide && env.ntargets)
			util_usage_error("tpstat", "-a counts system wide: it cannot be combined with %s",
					 env.tids ? "-t" : "-p");
		if (env.repeat && !env.command)
			util_usage_error("tpstat", "-r repeats a command: give one after --");
		if (env.repeat && (env.interval || env.duration))
			util_usage_error("tpstat", "-r cannot be combined with -i or -d");
		if (env.csv && env.json)
			util_usage_error("tpstat", "-x and -j cannot be combined: choose CSV or JSON");
		if (env.summary && !env.interval)
			util_usage_error("tpstat", "--summary prints totals after intervals: it needs -i");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The kernel's raw tracepoints, or one line saying why not (the caller exits 1). */
static int load_tracepoints(struct tp_list *l)
{
	int err = tplist_load(l);

	if (err == -ENOENT)
		fprintf(stderr, "tpstat: this kernel has no BTF (" TP_BTF_DIR "/vmlinux): "
			"it needs CONFIG_DEBUG_INFO_BTF=y\n");
	else if (err)
		fprintf(stderr, "tpstat: cannot read the kernel's BTF: %s\n", strerror(-err));
	return err;
}

static int list_tracepoints(void)
{
	struct tp_list l;
	struct json j;
	int shown = 0;

	if (load_tracepoints(&l))
		return 1;
	tplist_sort(&l);
	json_init(&j, stdout);
	if (env.json)
		json_array_begin(&j);
	else
		printf("%-40s %-5s %s\n", "TRACEPOINT", "KIND", "MODULE");
	for (size_t i = 0; i < l.n; i++) {
		const struct tp_info *tp = &l.tps[i];

		if (env.glob && fnmatch(env.glob, tp->name, 0))
			continue;
		if (env.json) {
			json_object_begin(&j);
			json_string_field(&j, "name", tp->name);
			fmt_json_kind_field(&j, tp->kind);
			json_string_field(&j, "module", tp->module);
			json_object_end(&j);
		} else {
			printf("%-40s %-5s %s\n", tp->name, tp_kind_name(tp->kind), tp->module);
		}
		shown++;
	}
	if (env.json)
		json_array_end(&j);	/* ends the line */
	tplist_free(&l);
	if (!shown && env.glob) {
		fprintf(stderr, "tpstat: no tracepoint matches '%s'\n", env.glob);
		return 1;
	}
	return 0;
}

/* Resolve every name to a tracepoint; explain the first that does not exist. */
static int resolve_names(const struct tp_list *l, const struct tp_info **tps)
{
	for (int i = 0; i < env.n; i++) {
		const char *sugg[3];
		char module[TP_MODULE_LEN];
		int ns;

		tps[i] = tplist_find(l, env.names[i]);
		if (tps[i])
			continue;
		if (tplist_find_unloaded(env.names[i], module, sizeof(module))) {
			fprintf(stderr, "tpstat: tracepoint '%s' belongs to module %s, which is not loaded "
				"(modprobe %s)\n", env.names[i], module, module);
			return EXIT_USAGE;
		}
		ns = tplist_suggest(l, env.names[i], sugg, 3);
		fprintf(stderr, "tpstat: unknown tracepoint '%s'", env.names[i]);
		for (int k = 0; k < ns; k++)
			fprintf(stderr, "%s%s", k ? (k == ns - 1 ? " or " : ", ") : "; did you mean ", sugg[k]);
		fprintf(stderr, "%s\n", ns ? "?" : " (tpstat -l lists them)");
		return EXIT_USAGE;
	}
	return 0;
}

/* What the kernel counted for each tracepoint: per-CPU slots and the program's misses. */
struct counts {
	__u64 slot[TPSTAT_MAX_TP][TPSTAT_NR_SLOTS];
	__u64 missed[TPSTAT_MAX_TP];
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
	int ncpu;			/* CPUs in the slots: possible CPUs, at most TPSTAT_SLOTS */
	__u64 cpu_count[TPSTAT_MAX_TP][TPSTAT_SLOTS], cpu_delta[TPSTAT_MAX_TP][TPSTAT_SLOTS];
	__u64 runs[TPSTAT_MAX_TP][MAX_REPEAT];
	int nruns;
	__u64 cpus[TPSTAT_MAX_TP][TPSTAT_CPU_WORDS];
	struct tpstat_row rows[TPSTAT_MAX_TP];
	char command[1024];
	char target[1200];
	bool tree;			/* counting CMD's process tree */
	struct pins pins;
};

static __u64 recursion_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
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
}

/* c = a - b, slot by slot */
static void sub_counts(struct counts *c, const struct counts *a, const struct counts *b)
{
	for (int i = 0; i < env.n; i++) {
		for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
			c->slot[i][slot] = a->slot[i][slot] - b->slot[i][slot];
		c->missed[i] = a->missed[i] - b->missed[i];
	}
}

static void add_counts(struct counts *c, const struct counts *a)
{
	for (int i = 0; i < env.n; i++) {
		for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
			c->slot[i][slot] += a->slot[i][slot];
		c->missed[i] += a->missed[i];
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
static void toggle_pause(struct state *s)
{
	struct counts during;

	read_raw(s, &s->raw);
	if (!s->paused) {
		s->at_pause = s->raw;
	} else {
		sub_counts(&during, &s->raw, &s->at_pause);
		add_counts(&s->excluded, &during);
	}
	s->paused = !s->paused;
	__atomic_store_n(&s->skel->bss->paused, s->paused, __ATOMIC_RELAXED);
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
			for (int c = 0; c < s->ncpu; c++) {
				s->cpu_count[i][c] = s->shown.slot[i][c];
				s->cpu_delta[i][c] = s->shown.slot[i][c] - s->prev.slot[i][c];
			}
			row->cpu_count = s->cpu_count[i];
			row->cpu_delta = s->cpu_delta[i];
			row->ncpu = s->ncpu;
		}
		row->runs = s->runs[i];
		row->nruns = r->final ? s->nruns : 0;
	}
	s->prev = s->shown;
	r->n = env.n;
	r->rows = s->rows;
	r->ts = util_wallclock();
	r->target = s->target;
	r->csv = env.csv;
	r->per_cpu = env.per_cpu;
	if (env.json)
		fmt_json(stdout, r);
	else if (env.csv)
		fmt_csv(stdout, r);
	else if (!r->final)
		fmt_interval(stdout, r);
	else
		fmt_table(stdout, r);
}

/* The metrics' view (tpstat_metrics.c): the counts a report would show now. */
static void metrics_snapshot(void *arg, struct tpstat_mview *v)
{
	struct state *s = arg;

	current(s);
	v->n = env.n;
	v->ncpu = s->ncpu;
	for (int i = 0; i < env.n; i++)
		v->tp[i] = (struct tpstat_mtp){
			.tp = s->tps[i],
			.prog = bpf_program__name(s->progs[i]),
			.prog_fd = bpf_program__fd(s->progs[i]),
			.hits = total(&s->shown, i),
			.missed = s->shown.missed[i],
			.cpu_hits = env.per_cpu ? s->shown.slot[i] : NULL,
		};
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

static void record_run(struct state *s, const __u64 *before)
{
	current(s);
	for (int i = 0; i < env.n; i++)
		s->runs[i][s->nruns] = total(&s->shown, i) - before[i];
	s->nruns++;
}

static int run(struct state *s)
{
	struct tpstat_report r = { .command = env.command ? s->command : NULL };
	__u64 run_start[TPSTAT_MAX_TP] = {};
	long runs = env.repeat ? env.repeat : 1;
	double last, paused_at = 0, now;
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
		fmt_interval_header(stdout);
	last = rl.start;
	if (env.command && start_command(s, &rl) < 0) {
		runloop_finish(&rl);
		return 1;
	}

	while ((ev = runloop_next(&rl)) != RUNLOOP_STOP) {
		now = rl.now;
		switch (ev) {
		case RUNLOOP_USR1:
			toggle_pause(s);
			if (s->paused) {
				paused_at = now;
			} else {
				r.paused_secs += now - paused_at;
				paused_at = 0;
			}
			if (!env.json && !env.csv)
				printf("#%12.3f  counting %s (SIGUSR1)\n", now - rl.start,
				       s->paused ? "paused" : "resumed");
			fflush(stdout);
			break;
		case RUNLOOP_EXITED:
			record_run(s, run_start);
			for (int i = 0; i < env.n; i++)
				run_start[i] = total(&s->shown, i);
			if (s->nruns < runs && rl.cmd_status == 0 && !rl.interrupted) {
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
			if (env.count && r.interval >= env.count)
				runloop_stop(&rl);
			break;
		case RUNLOOP_STOP:
			break;
		}
	}

	detach_all(s);
	now = util_now();
	if (paused_at)
		r.paused_secs += now - paused_at;
	r.interval++;
	r.elapsed = now - rl.start;
	r.span = now - last;
	r.paused = s->paused;
	if (env.interval && !env.json) {
		/* The last, partial interval as a line of its own; totals only with --summary. */
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
	if (rl.cmd_status > 0) {
		fprintf(stderr, "tpstat: '%s' exited with status %d\n", s->command, rl.cmd_status);
		status = 1;
	}
	return status;
}

/* -p/-t: every target must exist now (one line naming the first that does not). */
static int check_targets(void)
{
	char path[64];

	for (int i = 0; i < env.ntargets; i++) {
		snprintf(path, sizeof(path), "/proc/%d", env.targets[i]);
		if (access(path, F_OK)) {
			fprintf(stderr, "tpstat: no such %s: %d\n", env.tids ? "thread" : "process",
				env.targets[i]);
			return EXIT_USAGE;
		}
		if (env.tids) {
			/* /proc/TID works for threads; a process id passed as -t is a thread too. */
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d", env.targets[i], env.targets[i]);
		if (access(path, F_OK)) {
			fprintf(stderr, "tpstat: %d is a thread, not a process: use -t %d\n",
				env.targets[i], env.targets[i]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* -G: a cgroup v2 directory, as a path or relative to /sys/fs/cgroup; its fd, or -1. */
static int open_cgroup(char *path, size_t len)
{
	struct statfs sfs;
	int fd;

	if (env.cgroup[0] == '/')
		snprintf(path, len, "%s", env.cgroup);
	else
		snprintf(path, len, "/sys/fs/cgroup/%s", env.cgroup);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "tpstat: cannot open cgroup '%s': %s\n", env.cgroup, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "tpstat: '%s' is not a cgroup v2 directory (mount cgroup2 at "
			"/sys/fs/cgroup)\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Set the filter in .rodata before load: what counts, said once for the output too. */
static void choose_target(struct state *s)
{
	struct tpstat_bpf *skel = s->skel;
	__u32 filter = TPSTAT_FILTER_NONE;
	size_t off;

	if (env.ntargets) {
		filter = env.tids ? TPSTAT_FILTER_TID : TPSTAT_FILTER_TGID;
		off = snprintf(s->target, sizeof(s->target), "%s ", env.tids ? "TID" : "PID");
		for (int i = 0; i < env.ntargets && off < sizeof(s->target); i++)
			off += snprintf(s->target + off, sizeof(s->target) - off, "%s%d", i ? "," : "",
					env.targets[i]);
	} else if (env.cgroup) {
		filter = TPSTAT_FILTER_CGROUP;
		snprintf(s->target, sizeof(s->target), "cgroup %s", env.cgroup);
	} else if (env.command && !env.system_wide) {
		filter = TPSTAT_FILTER_TGID;
		s->tree = true;
		snprintf(s->target, sizeof(s->target), "its process tree");
	} else {
		snprintf(s->target, sizeof(s->target), "system wide");
	}
	skel->rodata->filter = filter;
	bpf_program__set_autoload(skel->progs.tpstat_fork, s->tree);
	bpf_program__set_autoload(skel->progs.tpstat_free, filter == TPSTAT_FILTER_TGID ||
				  filter == TPSTAT_FILTER_TID);
}

/* After load: fill the targets and attach the programs that keep them current. */
static int set_targets(struct state *s)
{
	char path[4096];
	__u8 one = 1;
	__u32 zero = 0;
	int fd, err;

	for (int i = 0; i < env.ntargets; i++) {
		__u32 id = env.targets[i];

		if (bpf_map__update_elem(s->skel->maps.targets, &id, sizeof(id), &one, sizeof(one),
					 BPF_ANY)) {
			fprintf(stderr, "tpstat: cannot add target %u: %s\n", id, strerror(errno));
			return 1;
		}
	}
	if (env.cgroup) {
		fd = open_cgroup(path, sizeof(path));
		if (fd < 0)
			return EXIT_USAGE;
		err = bpf_map__update_elem(s->skel->maps.target_cgroup, &zero, sizeof(zero), &fd,
					   sizeof(fd), BPF_ANY);
		close(fd);
		if (err) {
			fprintf(stderr, "tpstat: cannot use cgroup '%s': %s\n", env.cgroup, strerror(-err));
			return 1;
		}
	}
	if (bpf_program__autoload(s->skel->progs.tpstat_fork)) {
		s->task_links[0] = bpf_program__attach(s->skel->progs.tpstat_fork);
		if (!s->task_links[0]) {
			fprintf(stderr, "tpstat: cannot follow forks (sched_process_fork): %s\n",
				util_bpf_load_hint(-errno));
			return 1;
		}
	}
	if (bpf_program__autoload(s->skel->progs.tpstat_free)) {
		s->task_links[1] = bpf_program__attach(s->skel->progs.tpstat_free);
		if (!s->task_links[1]) {
			fprintf(stderr, "tpstat: cannot follow exits (sched_process_free): %s\n",
				util_bpf_load_hint(-errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	static struct state s;
	struct tp_list l;
	int err, status = 1;

	argp_err_exit_status = EXIT_USAGE;
	argv[0] = "tpstat";	/* argp names the program in its messages */
	env.command = util_split_command(&argc, argv);
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	util_setup_libbpf(env.verbose);
	if (env.list)
		return list_tracepoints();

	if (load_tracepoints(&l))
		return 1;
	status = resolve_names(&l, s.tps);
	if (status)
		goto out_list;
	status = check_targets();
	if (status)
		goto out_list;
	if (env.cgroup) {
		char path[4096];
		int fd = open_cgroup(path, sizeof(path));

		if (fd < 0) {
			status = EXIT_USAGE;
			goto out_list;
		}
		close(fd);
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
	s.ncpu = libbpf_num_possible_cpus();
	if (s.ncpu < 1 || s.ncpu > TPSTAT_SLOTS)
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
			snprintf(name, sizeof(name), "tpstat_%d", i);
			s.progs[i] = bpf_object__find_program_by_name(s.skel->obj, name);
			bpf_program__set_autoload(s.progs[i], true);
		}
	}
	choose_target(&s);
	err = tpstat_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "tpstat: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
		goto out;
	}
	status = set_targets(&s);
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
	tplist_free(&l);
	return status;
}
