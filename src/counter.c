// SPDX-License-Identifier: GPL-2.0
/*
 * counter: count tpgen's bare tracepoint tpgen_a exactly with one BPF atomic
 * add, optionally beside a non-atomic copy of the same counter.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "counter.skel.h"
#include "src/json.h"
#include "src/runloop.h"
#include "src/bpf_util.h"
#include "src/cli.h"
#include "src/cmd.h"

static struct env {
	bool verbose;
	bool json;
	bool plain;
	double duration;
	char **command;
} env;

const char *argp_program_version = "counter (bareatom) 0.1";
static const char doc[] =
"Count tpgen's bare tracepoint tpgen_a with a BPF atomic add.\n"
"\n"
"USAGE: counter [-v] [-j] [-p] [-d SECS] [-- CMD [ARG...]]\n"
"\n"
"Counts until CMD exits, -d SECS pass, or SIGINT/SIGTERM. The count is read\n"
"from the program's .bss through the mmapped map. With -p, a second program\n"
"increments a plain (non-atomic) counter on the same events and the number\n"
"of increments it lost is reported. Needs root and the tpgen module.\n"
"\n"
"EXAMPLES:\n"
"    counter -- sh -c 'echo tpgen_a 1000 all > /sys/kernel/debug/tpgen/fire'\n"
"    counter -p -j -d 5\n";

static const struct argp_option opts[] = {
	{ "plain", 'p', NULL, 0, "Also count with a plain, non-atomic increment\nand report what it lost", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds (fractions allowed)", 0 },
	{ "json", 'j', NULL, 0, "Print one JSON object", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		env.plain = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'd':
		if (cli_parse_seconds(arg, &env.duration))
			cli_usage_error("counter", "invalid duration '%s': a number of seconds, "
					"more than 0 and at most 10000000", arg);
		break;
	case ARGP_KEY_ARG:
		cli_usage_error("counter", "unexpected argument '%s' (a command goes after --)", arg);
	case ARGP_KEY_END:
		if (env.command && env.duration)
			cli_usage_error("counter", "give either -d or a command, not both");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_result(__u64 hits, __u64 plain, __u64 last_fire_id)
{
	struct json j;

	if (env.json) {
		json_init(&j, stdout);
		json_object_begin(&j);
		json_string_field(&j, "tracepoint", "tpgen_a");
		json_u64_field(&j, "count", hits);
		if (env.plain) {
			json_u64_field(&j, "plain", plain);
			json_u64_field(&j, "lost", hits - plain);
		}
		json_u64_field(&j, "last_fire_id", last_fire_id);
		json_object_end(&j);
		return;
	}
	printf("tpgen_a: %llu events (atomic add)\n", (unsigned long long)hits);
	if (env.plain)
		printf("tpgen_a: %llu events (plain increment, lost %llu = %.2f%%)\n",
		       (unsigned long long)plain, (unsigned long long)(hits - plain),
		       hits ? 100.0 * (double)(hits - plain) / (double)hits : 0.0);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct counter_bpf *skel;
	struct runloop rl;
	int err, status = 0;

	argp_err_exit_status = 2;
	argv[0] = "counter";	/* argp names the program in its messages */
	env.command = cmd_split(&argc, argv);
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	util_setup_libbpf(env.verbose);
	/* The program reads struct tpgen_ctx with CO-RE, from the module's BTF. */
	if (access("/sys/kernel/btf/tpgen", F_OK)) {
		fprintf(stderr, "counter: tracepoint tpgen_a not found: load the module first (modprobe tpgen)\n");
		return 1;
	}

	skel = counter_bpf__open();
	if (!skel) {
		fprintf(stderr, "counter: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	if (!env.plain)
		bpf_program__set_autoload(skel->progs.count_plain, false);
	err = counter_bpf__load(skel);
	if (err) {
		fprintf(stderr, "counter: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = util_bpf_exit_status(err);
		goto cleanup;
	}
	skel->links.count_atomic = bpf_program__attach(skel->progs.count_atomic);
	if (!skel->links.count_atomic) {
		err = -errno;
		goto attach_failed;
	}
	if (env.plain) {
		skel->links.count_plain = bpf_program__attach(skel->progs.count_plain);
		if (!skel->links.count_plain) {
			err = -errno;
			goto attach_failed;
		}
	}

	/* Until CMD ends (Ctrl-C is passed on to it), -d SECS pass, or SIGINT/SIGTERM. */
	runloop_init(&rl, "counter", 0, env.duration, false);
	if (env.command && runloop_start(&rl, env.command) < 0) {
		fprintf(stderr, "counter: cannot fork: %s\n", strerror(errno));
		status = 1;
		runloop_finish(&rl);
		goto cleanup;
	}
	while (runloop_next(&rl) != RUNLOOP_STOP)
		;
	runloop_finish(&rl);
	/* As a shell reports it: CMD's own status (127 when it could not run, 128 + signal). */
	if (rl.cmd_status > 0)
		status = rl.cmd_status;

	/* Detach first, so the numbers printed are final. */
	bpf_link__destroy(skel->links.count_atomic);
	skel->links.count_atomic = NULL;
	bpf_link__destroy(skel->links.count_plain);
	skel->links.count_plain = NULL;

	print_result(__atomic_load_n(&skel->bss->hits, __ATOMIC_RELAXED),
		     __atomic_load_n(&skel->bss->hits_plain, __ATOMIC_RELAXED),
		     __atomic_load_n(&skel->bss->last_fire_id, __ATOMIC_RELAXED));
	goto cleanup;

attach_failed:
	if (err == -ENOENT)
		fprintf(stderr, "counter: tracepoint tpgen_a not found: load the module first (modprobe tpgen)\n");
	else
		fprintf(stderr, "counter: cannot attach to tpgen_a: %s\n", util_bpf_load_hint(err));
	status = 1;
cleanup:
	counter_bpf__destroy(skel);
	return status;
}
