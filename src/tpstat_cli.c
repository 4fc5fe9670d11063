// SPDX-License-Identifier: GPL-2.0
/* tpstat's options: --help text, parsing and the checks of tpstat_cli.h. */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_cli.h"
#include "src/tpstat_specs.h"
#include "src/cli.h"
#include "src/cmd.h"

const char *argp_program_version = "tpstat (bareatom) 0.1";
const char *argp_program_bug_address = "the bareatom issue tracker";
static const char doc[] =
"Count raw and bare tracepoints exactly, with BPF atomics.\n"
"\n"
"USAGE: tpstat [-i SECS | -I MS [-c COUNT] [--summary]] [-d SECS]\n"
"              [-j | -x SEP] [-A] [-o FILE [--append]] [--pin]\n"
"              [-a | -p PID,.. | -t TID,.. | -G CGROUP] [-C CPU,..]\n"
"              TRACEPOINT...\n"
"       tpstat [options] [-a] [-r N] TRACEPOINT... -- CMD [ARG...]\n"
"       tpstat [options] [--hist TP:EXPR] [--lhist TP:EXPR:MIN:MAX:STEP]\n"
"              [--by TP:KEY[,KEY..] [--value EXPR] [--top N]]\n"
"              [--folded FILE] [--flamegraph FILE]\n"
"              [--filter 'TP:EXPR OP VALUE']\n"
"              [--latency START:KEY,END:KEY] TRACEPOINT...\n"
"       tpstat [options] [--listen ADDR:PORT] [--textfile PATH] TRACEPOINT...\n"
"       tpstat -l [-v] [--bare] [GLOB]\n"
"\n"
"A TRACEPOINT is a raw tracepoint name as in BTF (btf_trace_NAME): a trace\n"
"event's tracepoint like sched_switch, a bare one with no trace event like\n"
"pelt_cfs_tp, or a loaded module's, like tpgen_a. A TRACEPOINT with *, ? or\n"
"[...] counts every tracepoint it matches, as perf stat -e 'sched:*' does:\n"
"'pelt_*' names, 'sched:*' the trace events of a subsystem. Any number at once.\n"
"\n"
"With -- CMD only events of CMD's process tree count (children included),\n"
"unless -a: system wide. -p, -t and -G count only those processes (their\n"
"threads too), threads, or a cgroup v2 subtree; -C only the events on those\n"
"CPUs, with any of them. Counting runs until Ctrl-C, -d SECS, COUNT\n"
"intervals (-c with -i) or the end of CMD. Hits the kernel did not let the\n"
"program see are shown as missed: count + missed = hits. With --filter, the\n"
"events it rejects are shown as filtered out, those whose field could not be\n"
"read as filter errors: count + filtered + errors + missed = hits. SIGUSR1\n"
"pauses and resumes counting.\n"
"\n"
"An option that sets a value is given once; a repeatable one adds an item\n"
"each time, each item once (the same --latency pair is one, whatever its\n"
"buckets); a flag given twice is the flag.\n"
"\n"
"--listen serves the counts for Prometheus at http://ADDR:PORT/metrics while\n"
"counting; --textfile writes them every interval (-i, else 10 s) and at the\n"
"end, for node_exporter's textfile collector.\n"
"\n"
"The report goes to stdout, or with -- CMD to stderr as perf stat's does, so\n"
"that it never shares a stream with CMD's output; -o FILE writes it to FILE\n"
"instead.\n"
"\n"
"Exit status: with -- CMD, CMD's own (128+N when signal N ended it; with -r,\n"
"the last run's) unless tpstat itself failed. tpstat's own: 0 on success,\n"
"2 for usage errors, unknown tracepoints, processes or cgroups, and missing\n"
"privileges, 1 for other errors.\n"
"\n"
"EXAMPLES:\n"
"  tpstat -l 'pelt*'                  # the scheduler's bare PELT tracepoints\n"
"  tpstat -lv pelt_cfs_tp             # its arguments, from BTF\n"
"  tpstat pelt_cfs_tp sched_switch    # count until Ctrl-C\n"
"  tpstat -i 1 -c 5 sched_update_nr_running_tp    # five 1 s intervals\n"
"  tpstat -r 5 sched_switch -- make -j2           # mean and noise of 5 runs\n"
"  tpstat -A -x, -p 1234 sched_switch # a CSV row per CPU, for PID 1234\n"
"  tpstat -a --filter 'sched_switch:prev_state == 0' sched_switch\n"
"                                     # preemptions (prev_state 0: runnable)\n"
"  tpstat -a --latency 'sched_wakeup:p->pid,sched_switch:next->pid' \\\n"
"      sched_wakeup -d 10             # runqlat: wakeup to run, in ns\n"
"  tpstat -a --by 'sched_switch:cpu,prev->pid' --value 'prev->prio' \\\n"
"      sched_switch -d 5              # per CPU and task: its prio\n"
"  tpstat -a --by sched_switch:kstack --flamegraph f.html sched_switch -d 5\n"
"                                     # where the switches come from\n"
"  tpstat -a -j tpgen_a -- \\\n"
"      sh -c 'echo tpgen_a 100 all > /sys/kernel/debug/tpgen/fire'\n"
"  tpstat --pin -d 60 sched_switch &  # then, while it counts:\n"
"  bpftool map dump pinned /sys/fs/bpf/bareatom/tpstat/counters\n"
"  tpstat -a --listen 127.0.0.1:9465 pelt_cfs_tp &\n"
"  curl http://127.0.0.1:9465/metrics\n";

enum { OPT_PIN = 256, OPT_SUMMARY, OPT_HIST, OPT_LHIST, OPT_BY, OPT_TOP, OPT_LISTEN, OPT_TEXTFILE,
	OPT_APPEND, OPT_BARE, OPT_FILTER, OPT_LATENCY, OPT_FOLDED, OPT_FLAMEGRAPH, OPT_STACK_ENTRIES,
	OPT_VALUE };

static const struct argp_option options[] = {
	{ "list", 'l', NULL, 0, "List attachable raw tracepoints (those matching\nGLOB, if given)", 0 },
	{ "all-cpus", 'a', NULL, 0, "Count system wide, also with a CMD", 0 },
	{ "pid", 'p', "PID", 0, "Count only these processes (comma-separated;\nthreads included)", 0 },
	{ "tid", 't', "TID", 0, "Count only these threads (comma-separated)", 0 },
	{ "cgroup", 'G', "CGROUP", 0, "Count only tasks in this cgroup v2 and its\ndescendants", 0 },
	{ "cpu", 'C', "CPU", 0, "Count only on these CPUs (as 0,2-3; with any\ntarget)", 0 },
	{ "interval", 'i', "SECS", 0, "Print deltas every SECS seconds (fractions\nallowed, at least 0.001)", 0 },
	{ "interval-print", 'I', "MS", 0, "Like -i, in milliseconds (perf stat's -I;\nat least 1)", 0 },
	{ "count", 'c', "COUNT", 0, "Stop after COUNT intervals (needs -i;\nat most 1000000000)", 0 },
	{ "summary", OPT_SUMMARY, NULL, 0, "With -i: print the totals after the intervals", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "repeat", 'r', "N", 0, "Run CMD N times: mean and noise per tracepoint", 0 },
	{ "per-cpu", 'A', NULL, 0, "A row per CPU too", 0 },
	{ "field-separator", 'x', "SEP", 0, "CSV with this separator (columns in tpstat(8))", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "output", 'o', "FILE", 0, "Write the report to FILE (created or truncated;\nFILE - is stdout)", 0 },
	{ "append", OPT_APPEND, NULL, 0, "With -o: append to FILE", 0 },
	{ "hist", OPT_HIST, "TP:EXPR", 0, "Log2 histogram of a field of TP's arguments\n(tpstat -lv shows them; repeatable)", 0 },
	{ "lhist", OPT_LHIST, "TP:EXPR:MIN:MAX:STEP", 0, "Like --hist, with linear buckets of STEP", 0 },
	{ "by", OPT_BY, "TP:KEY[,KEY..]", 0, "Count TP per KEY (up to 4 as a tuple): cpu,\ncomm, pid, cgroup, a field EXPR, kstack or\nustack (kstack:N: N frames at most);\nrepeatable", 0 },
	{ "value", OPT_VALUE, "EXPR", 0, "With the --by before it: the sum, min, max and\navg of the field EXPR per key", 0 },
	{ "filter", OPT_FILTER, "TP:COND", 0, "Count only TP's events where COND, 'EXPR OP\nVALUE', holds: EXPR a field, cpu, pid, comm or\ncgroup, OP == != < <= > >= or &, VALUE a\nnumber or an enum name; repeatable, ANDed", 0 },
	{ "latency", OPT_LATENCY, "START:KEY,END:KEY", 0, "Log2 histogram of the ns from START to\nEND with the same KEY (cpu, pid, cgroup or\na field EXPR; a pointer too); repeatable;\nEND:KEY:MIN:MAX:STEP: linear buckets of ns", 0 },
	{ "folded", OPT_FOLDED, "FILE", 0, "With a stack --by: its stacks as folded lines\n(flamegraph.pl, inferno, speedscope)", 0 },
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE", 0, "With a stack --by: an interactive flame graph\n(one HTML file)", 0 },
	{ "stack-entries", OPT_STACK_ENTRIES, "N", 0, "Room for N stacks (default 10240)", 0 },
	{ "top", OPT_TOP, "N", 0, "With --by: show the N keys counted most\n(default 10), the rest summed", 0 },
	{ "pin", OPT_PIN, NULL, 0, "Pin programs, links and counters under\n" PIN_DIR " while running", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Serve metrics at http://ADDR:PORT/metrics\n(ADDR: IPv4, [IPv6] or a host name)", 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0, "Write metrics to PATH atomically every interval", 0 },
	{ "bare", OPT_BARE, NULL, 0, "With -l: only bare tracepoints (no trace event)", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output; with -l, prototypes", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Give this help list (as --help)", 0 },
	{},
};

/* -C "0,2-3": CPUs from 0 to TPSTAT_MAX_CPUS - 1, single or as ranges, into o->cpu_set. */
static void parse_cpus(struct tpstat_opts *o, const char *arg)
{
	const char *p = arg;

	if (o->cpu_list)
		cli_usage_error("tpstat", "-C is given once, as a list like 0,2-3");
	o->cpu_list = arg;
	do {
		long lo, hi;
		char *end;

		errno = 0;
		lo = hi = strtol(p, &end, 10);
		if (!errno && end != p && *end == '-' && end[1] >= '0' && end[1] <= '9') {
			p = end + 1;
			hi = strtol(p, &end, 10);
		}
		if (errno || end == p || (*end && *end != ',') || (*end == ',' && !end[1]) ||
		    *p == '+' || *p == '-' || *p == ' ' || lo < 0 || hi < lo || hi >= TPSTAT_MAX_CPUS)
			cli_usage_error("tpstat", "invalid CPU list '%s': CPUs from 0 to %d, single or as "
					"ranges LOW-HIGH, separated by commas", arg, TPSTAT_MAX_CPUS - 1);
		for (long c = lo; c <= hi; c++)
			o->cpu_set[c / 64] |= 1ULL << (c % 64);
		p = *end ? end + 1 : end;
	} while (*p);
}

/* "1,2,3": PIDs or TIDs, each a whole number from 1 to the kernel's PID_MAX_LIMIT. */
static void parse_targets(struct tpstat_opts *o, const char *arg, const char *what)
{
	const char *p = arg;

	if (o->ntargets)
		cli_usage_error("tpstat", "-p and -t are given once, as a comma-separated list");
	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || (*end == ',' && !end[1]) || v < 1 ||
		    v > 4194304 || *p == '+' || *p == '-' || *p == ' ')
			cli_usage_error("tpstat", "invalid %s list '%s': whole numbers from 1 to 4194304, "
					"separated by commas", what, arg);
		if (o->ntargets == MAX_TARGETS)
			cli_usage_error("tpstat", "too many %ss: at most %d", what, MAX_TARGETS);
		o->targets[o->ntargets++] = (int)v;
		p = *end ? end + 1 : end;
	} while (*p);
}

/*
 * The rule for a repeated option (tpstat(8), OPTIONS): an option that sets one value is given
 * once, a second is refused here (-C, -p, -t, -i and -I say so in words of their own); a
 * repeatable one (--hist, --lhist, --by, --filter, --latency, TRACEPOINT) adds, each item
 * once (checked at ARGP_KEY_END); a flag given twice is the flag.
 */
static void once(int key, const char *name)
{
	static bool seen[OPT_VALUE + 1];

	if (key >= 0 && key <= OPT_VALUE) {
		if (seen[key])
			cli_usage_error("tpstat", "%s is given twice: give it once", name);
		seen[key] = true;
	}
}

/* What argp fills: the options, and the specs of the tracepoints named. */
struct parsed {
	struct tpstat_opts *o;
	struct tpstat_specs *s;
};

/* --folded, --flamegraph and --stack-entries need a stack key in a --by. */
static void stack_options(const struct tpstat_opts *o, struct tpstat_specs *s)
{
	bool stacks = false;

	for (int b = 0; b < s->nby; b++)
		stacks |= s->by[b].kdepth || s->by[b].udepth;
	if (!stacks && (o->folded || o->flamegraph || s->stack_entries))
		cli_usage_error("tpstat", "--%s is for stacks: it needs --by TP:kstack or TP:ustack",
				o->folded ? "folded" : o->flamegraph ? "flamegraph" : "stack-entries");
	if (!s->stack_entries)
		s->stack_entries = TPSTAT_STACK_ENTRIES;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct parsed *p = state->input;
	struct tpstat_opts *o = p->o;
	struct tpstat_specs *s = p->s;
	char *end;
	long ms;

	switch (key) {
	case 'l':
		o->list = true;
		break;
	case 'j':
		o->json = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_PIN:
		o->pin = true;
		break;
	case OPT_HIST:
		tpstat_spec_hist(s, arg);
		break;
	case OPT_LHIST:
		tpstat_spec_lhist(s, arg);
		break;
	case OPT_BY:
		tpstat_spec_by(s, arg);
		break;
	case OPT_FILTER:
		tpstat_spec_filter(s, arg);
		break;
	case OPT_LATENCY:
		tpstat_spec_latency(s, arg);
		break;
	case OPT_VALUE:
		tpstat_spec_value(s, arg);
		break;
	case OPT_TOP:
		once(key, "--top");
		errno = 0;
		o->top = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->top < 1 || o->top > TPSTAT_BY_ENTRIES)
			cli_usage_error("tpstat", "invalid --top '%s': a whole number from 1 to %d", arg,
					TPSTAT_BY_ENTRIES);
		break;
	case OPT_FOLDED:
	case OPT_FLAMEGRAPH:
		once(key, key == OPT_FOLDED ? "--folded" : "--flamegraph");
		if (!*arg)
			cli_usage_error("tpstat", "--%s needs a file name",
					key == OPT_FOLDED ? "folded" : "flamegraph");
		*(key == OPT_FOLDED ? &o->folded : &o->flamegraph) = arg;
		break;
	case OPT_STACK_ENTRIES:
		once(key, "--stack-entries");
		errno = 0;
		s->stack_entries = (int)strtol(arg, &end, 10);
		if (errno || end == arg || *end || s->stack_entries < 1 ||
		    s->stack_entries > 1000000)
			cli_usage_error("tpstat", "invalid --stack-entries '%s': a whole number from 1 "
					"to 1000000", arg);
		break;
	case OPT_LISTEN:
		once(key, "--listen");
		o->listen = cli_listen_option("tpstat", arg);
		break;
	case OPT_TEXTFILE:
		once(key, "--textfile");
		o->textfile = cli_textfile_option("tpstat", arg);
		break;
	case OPT_SUMMARY:
		o->summary = true;
		break;
	case 'a':
		o->system_wide = true;
		break;
	case 'A':
		o->per_cpu = true;
		break;
	case 'p':
		parse_targets(o, arg, "PID");
		break;
	case 't':
		parse_targets(o, arg, "TID");
		o->tids = true;
		break;
	case 'G':
		once(key, "-G");
		o->cgroup = arg;
		break;
	case 'C':
		parse_cpus(o, arg);
		break;
	case 'x':
		once(key, "-x");
		if (!*arg || strlen(arg) > 8)
			cli_usage_error("tpstat", "invalid separator '%s': 1 to 8 characters", arg);
		o->csv = arg;
		break;
	case 'r':
		once(key, "-r");
		errno = 0;
		o->repeat = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->repeat < 1 || o->repeat > MAX_REPEAT)
			cli_usage_error("tpstat", "invalid repeat count '%s': a whole number from 1 to %d",
					arg, MAX_REPEAT);
		break;
	case 'i':
	case 'I':
		if (o->interval)
			cli_usage_error("tpstat", "-i and -I set the same interval: give one of them once");
		if (key == 'i') {
			o->interval = cli_parse_interval("tpstat", arg);
			break;
		}
		errno = 0;
		ms = strtol(arg, &end, 10);
		if (errno || end == arg || *end || ms < 1 || ms > 1000L * 1000 * 1000)
			cli_usage_error("tpstat", "invalid -I '%s': a whole number of milliseconds, at "
					"least 1", arg);
		o->interval = ms / 1000.0;
		break;
	case 'o':
		once(key, "-o");
		if (!*arg)
			cli_usage_error("tpstat", "-o needs a file name");
		o->output = arg;
		break;
	case OPT_APPEND:
		o->append = true;
		break;
	case OPT_BARE:
		o->bare_only = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case 'd':
		once(key, "-d");
		if (cli_parse_seconds(arg, &o->duration))
			cli_usage_error("tpstat", "invalid duration '%s': a number of seconds > 0", arg);
		break;
	case 'c':
		once(key, "-c");
		errno = 0;
		o->count = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->count <= 0)
			cli_usage_error("tpstat", "invalid count '%s': a whole number > 0", arg);
		if (o->count > MAX_COUNT)
			cli_usage_error("tpstat", "count %s is above the maximum of %ld intervals",
					arg, MAX_COUNT);
		break;
	case ARGP_KEY_ARG:
		if (o->list) {
			if (o->glob)
				cli_usage_error("tpstat", "-l takes at most one GLOB");
			o->glob = arg;
			break;
		}
		tpstat_spec_name(s, arg);
		break;
	case ARGP_KEY_END:
		tpstat_specs_once(s);
		if (!o->list)
			tpstat_specs_group(s);
		if (o->top && !s->nby)
			cli_usage_error("tpstat", "--top chooses the keys --by shows: it needs --by");
		if (!o->top)
			o->top = 10;
		stack_options(o, s);
		if (o->list && (s->n || o->command || o->interval || o->duration || o->count ||
				s->nhist || s->nby || s->nfilter || s->nlat || o->listen || o->textfile || o->output))
			cli_usage_error("tpstat", "-l takes no other options and no command");
		if (o->bare_only && !o->list)
			cli_usage_error("tpstat", "--bare chooses what -l lists: it needs -l");
		if (o->append && !o->output)
			cli_usage_error("tpstat", "--append appends the report to -o FILE: it needs -o");
		if (o->csv && (s->nhist || s->nby || s->nlat))
			cli_usage_error("tpstat", "-x has no columns for --%s: use -j, or the table",
					s->nhist ? (s->hist[0].range.linear ? "lhist" : "hist") :
					s->nby ? "by" : "latency");
		if (!o->list && !s->n)
			cli_usage_error("tpstat", "name at least one tracepoint (tpstat -l lists them)");
		if (o->count && !o->interval)
			cli_usage_error("tpstat", "-c counts intervals: it needs -i");
		if ((o->ntargets != 0) + (o->cgroup != NULL) > 1)
			cli_usage_error("tpstat", "-p, -t and -G cannot be combined: name one target");
		if (o->system_wide && o->ntargets)
			cli_usage_error("tpstat", "-a counts system wide: it cannot be combined with %s",
					o->tids ? "-t" : "-p");
		if (o->repeat && !o->command)
			cli_usage_error("tpstat", "-r repeats a command: give one after --");
		if (o->repeat && (o->interval || o->duration))
			cli_usage_error("tpstat", "-r cannot be combined with -i or -d");
		if (o->csv && o->json)
			cli_usage_error("tpstat", "-x and -j cannot be combined: choose CSV or JSON");
		if (o->summary && !o->interval)
			cli_usage_error("tpstat", "--summary prints totals after intervals: it needs -i");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void tpstat_parse_args(int argc, char **argv, struct tpstat_opts *o, struct tpstat_specs *s)
{
	static const struct argp argp = { .options = options, .parser = parse_arg, .doc = doc };
	struct parsed p = { .o = o, .s = s };

	argp_err_exit_status = EXIT_USAGE;
	argv[0] = "tpstat";	/* argp names the program in its messages */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i == argc - 1)
				cli_usage_error("tpstat", "'--' ends the options: name the command to "
						"run after it");
			break;
		}
	o->command = cmd_split(&argc, argv);
	if (argp_parse(&argp, argc, argv, 0, NULL, &p))
		exit(EXIT_USAGE);
}
