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
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tpstat.h"
#include "tpstat.skel.h"
#include "tplist.h"
#include "tpstat_fmt.h"
#include "util.h"

#define PIN_DIR "/sys/fs/bpf/bareatom/tpstat"
#define EXIT_USAGE 2
/* The most intervals -c takes: interval numbers are ints, the final line is one more. */
#define MAX_COUNT 1000000000L

static struct env {
	bool list;
	bool json;
	bool verbose;
	bool pin;
	double interval;
	double duration;
	long count;
	char **command;
	char *names[TPSTAT_MAX_TP + 1];
	int n;
	const char *glob;
} env;

const char *argp_program_version = "tpstat (bareatom) 0.1";
const char *argp_program_bug_address = "the bareatom issue tracker";
static const char doc[] =
"Count raw and bare tracepoints exactly, with BPF atomics.\n"
"\n"
"USAGE: tpstat [-i SECS] [-c COUNT] [-d SECS] [-j] [--pin] TRACEPOINT...\n"
"       tpstat [options] TRACEPOINT... -- CMD [ARG...]\n"
"       tpstat -l [GLOB]\n"
"\n"
"A TRACEPOINT is a raw tracepoint name as in BTF (btf_trace_NAME): a trace event's\n"
"tracepoint like sched_switch, a bare one with no trace event like pelt_cfs_tp,\n"
"or a loaded module's, like tpgen_a. Counting is system wide, on all CPUs, until\n"
"Ctrl-C, -d SECS, COUNT intervals (-c with -i) or the end of CMD. SIGUSR1 pauses\n"
"and resumes counting without detaching.\n"
"\n"
"Exit status: 0 on success, 2 for usage errors, unknown tracepoints and missing\n"
"privileges, 1 for other errors (including CMD failing).\n"
"\n"
"EXAMPLES:\n"
"    tpstat -l 'pelt*'                  # list the scheduler's bare PELT tracepoints\n"
"    tpstat pelt_cfs_tp sched_switch    # count until Ctrl-C\n"
"    tpstat -i 1 -c 5 sched_update_nr_running_tp   # five 1 s intervals\n"
"    tpstat -j tpgen_a -- sh -c 'echo tpgen_a 100 all > /sys/kernel/debug/tpgen/fire'\n"
"    tpstat --pin -d 60 sched_switch &  bpftool map dump pinned /sys/fs/bpf/bareatom/tpstat/counters\n";

enum { OPT_PIN = 256 };

static const struct argp_option opts[] = {
	{ "list", 'l', NULL, 0, "List attachable raw tracepoints (optionally matching GLOB)", 0 },
	{ "interval", 'i', "SECS", 0, "Print deltas every SECS seconds (fractions allowed, >= 0.001)", 0 },
	{ "count", 'c', "COUNT", 0, "Stop after COUNT intervals (needs -i; at most 1000000000)", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "pin", OPT_PIN, NULL, 0, "Pin programs, links and counters under " PIN_DIR " while running", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output", 0 },
	{},
};

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
		if (env.list && (env.n || env.command || env.interval || env.duration || env.count))
			util_usage_error("tpstat", "-l takes no other options and no command");
		if (!env.list && !env.n)
			util_usage_error("tpstat", "name at least one tracepoint (tpstat -l lists them)");
		if (env.count && !env.interval)
			util_usage_error("tpstat", "-c counts intervals: it needs -i");
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
	int shown = 0;

	if (load_tracepoints(&l))
		return 1;
	tplist_sort(&l);
	if (env.json)
		printf("[");
	else
		printf("%-40s %-5s %s\n", "TRACEPOINT", "KIND", "MODULE");
	for (size_t i = 0; i < l.n; i++) {
		const struct tp_info *tp = &l.tps[i];

		if (env.glob && fnmatch(env.glob, tp->name, 0))
			continue;
		if (env.json) {
			printf("%s{\"name\":", shown ? "," : "");
			util_json_string(stdout, tp->name);
			printf(",\"bare\":%s,\"module\":",
			       tp->kind == TP_KIND_BARE ? "true" : tp->kind == TP_KIND_EVENT ? "false" : "null");
			util_json_string(stdout, tp->module);
			printf("}");
		} else {
			printf("%-40s %-5s %s\n", tp->name, tp_kind_name(tp->kind), tp->module);
		}
		shown++;
	}
	if (env.json)
		printf("]\n");
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

struct state {
	struct tpstat_bpf *skel;
	struct bpf_program *progs[TPSTAT_MAX_TP];
	struct bpf_link *links[TPSTAT_MAX_TP];
	const struct tp_info *tps[TPSTAT_MAX_TP];
	__u64 prev[TPSTAT_MAX_TP];
	__u64 cpus[TPSTAT_MAX_TP][TPSTAT_CPU_WORDS];
	struct tpstat_row rows[TPSTAT_MAX_TP];
	char command[1024];
	bool pinned;
};

/* Sum the per-CPU slots and copy the CPU sets: reads of the mmapped .bss only. */
static void snapshot(struct state *s, __u64 *totals)
{
	struct tpstat_bpf__bss *bss = s->skel->bss;

	for (int i = 0; i < env.n; i++)
		totals[i] = 0;
	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		for (int i = 0; i < env.n; i++)
			totals[i] += __atomic_load_n(&bss->slots[slot].count[i], __ATOMIC_RELAXED);
	for (int i = 0; i < env.n; i++) {
		__u64 first = __atomic_load_n(&bss->tps[i].first_cpu, __ATOMIC_RELAXED);

		for (int w = 0; w < TPSTAT_CPU_WORDS; w++)
			s->cpus[i][w] = __atomic_load_n(&bss->tps[i].cpus[w], __ATOMIC_RELAXED);
		s->rows[i].first_cpu = first ? (int)(first - 1) : -1;
		s->rows[i].cpus_truncated = __atomic_load_n(&bss->tps[i].cpus_beyond, __ATOMIC_RELAXED);
	}
}

static void report(struct state *s, struct tpstat_report *r)
{
	__u64 totals[TPSTAT_MAX_TP];

	snapshot(s, totals);
	for (int i = 0; i < env.n; i++) {
		struct tpstat_row *row = &s->rows[i];

		row->name = s->tps[i]->name;
		row->module = s->tps[i]->module;
		row->kind = s->tps[i]->kind;
		row->count = totals[i];
		row->delta = totals[i] - s->prev[i];
		row->cpus = s->cpus[i];
		row->cpu_words = TPSTAT_CPU_WORDS;
		s->prev[i] = totals[i];
	}
	r->n = env.n;
	r->rows = s->rows;
	r->ts = util_wallclock();
	if (env.json)
		fmt_json(stdout, r);
	else if (!r->final)
		fmt_interval(stdout, r);
	else
		fmt_table(stdout, r);
}

static void unpin(struct state *s)
{
	char path[512];

	if (!s->pinned)
		return;
	for (int i = 0; i < env.n; i++) {
		snprintf(path, sizeof(path), PIN_DIR "/link_%s", s->tps[i]->name);
		unlink(path);
		snprintf(path, sizeof(path), PIN_DIR "/prog_%s", s->tps[i]->name);
		unlink(path);
	}
	unlink(PIN_DIR "/counters");
	rmdir(PIN_DIR);
	s->pinned = false;
}

static int pin(struct state *s)
{
	char path[512];
	int err;

	mkdir("/sys/fs/bpf/bareatom", 0700);
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST)
		goto fail;
	if (!access(PIN_DIR "/counters", F_OK)) {
		fprintf(stderr, "tpstat: " PIN_DIR " is in use by another tpstat --pin\n");
		return 1;
	}
	s->pinned = true;
	err = bpf_map__pin(s->skel->maps.bss, PIN_DIR "/counters");
	for (int i = 0; !err && i < env.n; i++) {
		snprintf(path, sizeof(path), PIN_DIR "/prog_%s", s->tps[i]->name);
		err = bpf_program__pin(s->progs[i], path);
		if (err)
			break;
		snprintf(path, sizeof(path), PIN_DIR "/link_%s", s->tps[i]->name);
		err = bpf_link__pin(s->links[i], path);
	}
	if (!err)
		return 0;
	errno = -err;
fail:
	fprintf(stderr, "tpstat: cannot pin under " PIN_DIR ": %s (is bpffs mounted on /sys/fs/bpf?)\n",
		strerror(errno));
	unpin(s);
	return 1;
}

static int run(struct state *s)
{
	struct tpstat_report r = { .command = env.command ? s->command : NULL };
	double start, last, next_tick = 0, end = 0, paused_at = 0, now;
	sigset_t set, orig;
	int status = 0, cmd_status = -1;
	bool stop = false;
	pid_t child = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &orig);

	if (!env.json && env.interval)
		fmt_interval_header(stdout);
	start = last = util_now();
	if (env.interval)
		next_tick = start + env.interval;
	if (env.duration)
		end = start + env.duration;
	if (env.command) {
		child = util_start_command("tpstat", env.command, &orig);
		if (child < 0) {
			fprintf(stderr, "tpstat: cannot fork: %s\n", strerror(errno));
			return 1;
		}
	}

	while (!stop) {
		int sig = util_wait_signal(&set, next_tick, end);

		now = util_now();
		if (sig == SIGUSR1) {
			bool p = !s->skel->bss->paused;

			__atomic_store_n(&s->skel->bss->paused, p, __ATOMIC_RELAXED);
			if (p) {
				paused_at = now;
			} else {
				r.paused_secs += now - paused_at;
				paused_at = 0;
			}
			if (!env.json)
				printf("#%12.3f  counting %s (SIGUSR1)\n", now - start, p ? "paused" : "resumed");
			fflush(stdout);
		} else if (sig == SIGCHLD) {
			stop = util_reap_command(&child, &cmd_status);
		} else if (sig == SIGINT || sig == SIGTERM) {
			/* With a command, Ctrl-C reaches it too: report when it is gone. */
			if (child)
				kill(child, sig);
			else
				stop = true;
		}
		if (end && now >= end)
			stop = true;
		if (next_tick && now >= next_tick && !stop) {
			r.interval++;
			r.elapsed = now - start;
			r.span = now - last;
			r.paused = s->skel->bss->paused;
			report(s, &r);
			last = now;
			next_tick = util_next_tick(start, env.interval, now);
			if (env.count && r.interval >= env.count)
				stop = true;
		}
	}

	/* Detach before the final read, so the totals are final and the deltas add up. */
	for (int i = 0; i < env.n; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
	now = util_now();
	if (paused_at)
		r.paused_secs += now - paused_at;
	r.interval++;
	r.final = true;
	r.elapsed = now - start;
	r.span = now - last;
	r.paused = s->skel->bss->paused;
	report(s, &r);

	util_end_command(child);
	if (cmd_status > 0) {
		fprintf(stderr, "tpstat: '%s' exited with status %d\n", s->command, cmd_status);
		status = 1;
	}
	return status;
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
	status = util_check_bpf("tpstat", "counting");
	if (status)
		goto out_list;
	util_join_command(env.command, s.command, sizeof(s.command));

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
	err = tpstat_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "tpstat: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
		goto out;
	}
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
out:
	unpin(&s);
	for (int i = 0; i < env.n; i++)
		bpf_link__destroy(s.links[i]);
	tpstat_bpf__destroy(s.skel);
out_list:
	tplist_free(&l);
	return status;
}
