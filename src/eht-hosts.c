// SPDX-License-Identifier: GPL-2.0
/*
 * eht-hosts: the bridge's IGMPv3/MLDv2 explicit host tracking, host by host, from the bare
 * br_eht_* tracepoints of bareatom's kernel patch.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpf/eht_abi.h"
#include "eht.skel.h"
#include "src/eht_fmt.h"
#include "src/eht_snap.h"
#include "src/pins.h"
#include "src/runloop.h"
#include "src/bpf_util.h"
#include "src/cli.h"
#include "src/clock.h"
#include "src/cmd.h"
#include "src/eht_metrics.h"

#define PIN_DIR PINS_ROOT "/eht"
#define PIN_HOSTS PIN_DIR "/hosts"
#define PIN_COUNTERS PIN_DIR "/counters"
#define KERNEL_PATCH "kernel/patches/0001-net-bridge-mcast-add-bare-tracepoints-for-EHT.patch"

static struct env {
	bool json;
	bool watch;
	bool show;
	bool verbose;
	double interval;
	double duration;
	char **command;
	const char *listen;	/* --listen ADDR:PORT */
	const char *textfile;	/* --textfile PATH */
} env;

const char *argp_program_version = "eht-hosts (bareatom) 0.1";
const char *argp_program_bug_address = "the bareatom issue tracker";
static const char doc[] =
"Show the bridge's IGMPv3/MLDv2 explicit host tracking (EHT), host by host.\n"
"\n"
"USAGE: eht-hosts [-j] [-d SECS] [-v]\n"
"       eht-hosts -w [-i SECS] [-j] [-d SECS] [-v]\n"
"       eht-hosts [options] -- CMD [ARG...]\n"
"       eht-hosts -s [-j]\n"
"       eht-hosts [options] [--listen ADDR:PORT] [--textfile PATH]\n"
"\v"
"Traces the bare br_eht_* tracepoints of bareatom's kernel patch until\n"
"Ctrl-C, SIGTERM, -d SECS or the end of CMD, then prints one row per port,\n"
"group and host, and the hits of each tracepoint. Hosts are tracked on bridge\n"
"ports with fast leave on (bridge link set dev PORT fastleave on). While it\n"
"traces, the table is pinned under " PIN_DIR "/.\n"
"Columns, JSON fields, pins and exit status: eht-hosts(8).\n"
"\n"
"--listen serves hosts per port and group and events per kind for Prometheus\n"
"at http://ADDR:PORT/metrics while tracing; --textfile writes them every\n"
"interval (-i with -w, else 10 s) and at the end.\n"
"\n"
"EXAMPLES\n"
"  eht-hosts                     # trace until Ctrl-C, print the table\n"
"  eht-hosts -w                  # hosts as they come, change and go\n"
"  eht-hosts -w -i 0.2 -d 60 -j  # JSON lines, looking 5 times a second\n"
"  eht-hosts -j -- ./reports.sh  # the table after a script of reports\n"
"  eht-hosts -s                  # the table of the eht-hosts tracing now\n"
"  bpftool map dump pinned " PIN_HOSTS "\n";

enum { OPT_LISTEN = 256, OPT_TEXTFILE };

static const struct argp_option opts[] = {
	{ "watch", 'w', NULL, 0, "Print hosts as they come, change and go", 0 },
	{ "interval", 'i', "SECS", 0, "With -w: look for changes every SECS seconds\n(at least 0.001, default 1)", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "json", 'j', NULL, 0, "JSON output, one object per line", 0 },
	{ "show", 's', NULL, 0, "Print the table of the running eht-hosts\n(from its pins) and exit", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Serve metrics at http://ADDR:PORT/metrics\n(ADDR: IPv4, [IPv6] or a host name)", 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0, "Write metrics to PATH atomically every interval", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'w':
		env.watch = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 's':
		env.show = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'i':
		env.interval = cli_parse_interval("eht-hosts", arg);
		break;
	case 'd':
		if (cli_parse_seconds(arg, &env.duration))
			cli_usage_error("eht-hosts", "invalid duration '%s': a number of seconds > 0", arg);
		break;
	case OPT_LISTEN:
		env.listen = cli_listen_option("eht-hosts", arg);
		break;
	case OPT_TEXTFILE:
		env.textfile = cli_textfile_option("eht-hosts", arg);
		break;
	case ARGP_KEY_ARG:
		cli_usage_error("eht-hosts", "unexpected argument '%s' (a command goes after --)", arg);
	case ARGP_KEY_END:
		if (env.show && (env.watch || env.interval || env.duration || env.command ||
				 env.listen || env.textfile))
			cli_usage_error("eht-hosts", "-s prints the running eht-hosts' table: it takes only -j");
		if (env.interval && !env.watch)
			cli_usage_error("eht-hosts", "-i sets how often -w looks for changes: it needs -w");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------------ the kernel */

static bool has_tracepoints(const struct btf *btf)
{
	char name[64];

	for (int i = 0; i < EHT_EV_NR; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", eht_tp_names[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			return false;
	}
	return true;
}

/* The tracepoints are in vmlinux (CONFIG_BRIDGE=y) or in the bridge module's BTF. */
static int check_tracepoints(void)
{
	struct btf *vmlinux, *bridge = NULL;
	bool found, bridge_known;
	struct utsname u;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "eht-hosts: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"it needs CONFIG_DEBUG_INFO_BTF=y\n");
		return 1;
	}
	found = has_tracepoints(vmlinux);
	bridge_known = btf__find_by_name_kind(vmlinux, "net_bridge_port_group", BTF_KIND_STRUCT) >= 0;
	if (!found && !access("/sys/kernel/btf/bridge", F_OK)) {
		bridge = btf__load_module_btf("bridge", vmlinux);
		if (bridge) {
			found = has_tracepoints(bridge);
			bridge_known = true;
		}
	}
	btf__free(bridge);
	btf__free(vmlinux);
	if (found)
		return 0;
	uname(&u);
	fprintf(stderr, "eht-hosts: this kernel (%s) has no bridge EHT tracepoints (br_eht_*): "
		"they come from bareatom's kernel patch (" KERNEL_PATCH ")%s\n", u.release,
		bridge_known ? "" : "; if the bridge is a module, load it first (modprobe bridge)");
	return 1;
}

/* ------------------------------------------------------------------ pins */

struct state {
	struct eht_bpf *skel;
	struct bpf_program *progs[EHT_EV_NR];
	struct bpf_link *links[EHT_EV_NR];
	char command[1024];
};

/* This eht-hosts' hold on PIN_DIR, taken before loading anything (pins.c). */
static struct pins pins;

static void unpin(struct state *s)
{
	pins_release(&pins);
}

/* Refuse to start beside a live eht-hosts; clear the pins of one that was killed. */
static int check_pins(void)
{
	int err = pins_lock(&pins, "eht-hosts", "eht", 0);

	if (err == -EBUSY) {
		if (pins.owner)
			fprintf(stderr, "eht-hosts: another eht-hosts (pid %d) is tracing and owns "
				PIN_DIR "; eht-hosts -s shows its table\n", (int)pins.owner);
		else
			fprintf(stderr, "eht-hosts: another eht-hosts is tracing and owns "
				PIN_DIR "; eht-hosts -s shows its table\n");
	}
	return err ? 1 : 0;
}

static int pin(struct state *s)
{
	char name[PINS_NAME_LEN];
	int err;

	/* For bpftool readers of the counters; ownership itself is the lock's (pins.c). */
	__atomic_store_n(&s->skel->bss->owner_pid, (__u32)getpid(), __ATOMIC_RELAXED);
	err = pins_map(&pins, s->skel->maps.bss, "counters");
	if (!err)
		err = pins_map(&pins, s->skel->maps.hosts, "hosts");
	for (int i = 0; !err && i < EHT_EV_NR; i++) {
		snprintf(name, sizeof(name), "prog_%s", eht_tp_names[i] + strlen("br_eht_"));
		err = pins_prog(&pins, s->progs[i], name);
		if (err)
			break;
		snprintf(name, sizeof(name), "link_%s", eht_tp_names[i] + strlen("br_eht_"));
		err = pins_link(&pins, s->links[i], name);
	}
	if (err)
		unpin(s);
	return err ? 1 : 0;
}

/* ------------------------------------------------------------------ running */

/* -w: a change line, at the time of the snapshot that showed it. */
/* -w's lines: every change from @old to @cur, @t seconds into the run. */
static void print_changes(const struct eht_snap *old, const struct eht_snap *cur, double t)
{
	struct eht_change_at c;
	struct eht_diff d;

	eht_diff_init(&d, old, cur);
	while (eht_diff_next(&d, &c))
		eht_fmt_change(stdout, t, c.what, c.s, c.r);
}

static int run(struct state *s)
{
	struct eht_source src = {
		.hosts_fd = bpf_map__fd(s->skel->maps.hosts),
		.stats = &s->skel->bss->stats,
	};
	struct eht_snap prev = {}, cur = {}, tmp;
	struct runloop rl;
	int status = 0, err = 0;
	enum runloop_event ev;

	if (env.watch && !env.interval)
		env.interval = 1;
	runloop_init(&rl, "eht-hosts", env.watch ? env.interval : 0, env.duration, false);
	if (eht_metrics_watch(&rl, &src)) {
		status = 1;
		goto out;
	}
	if (env.watch) {
		err = eht_snap_take(&src, &prev);
		if (err)
			goto snap_failed;
		if (!env.json)
			eht_fmt_change_header(stdout);
	}
	if (env.command && runloop_start(&rl, env.command) < 0) {
		fprintf(stderr, "eht-hosts: cannot fork: %s\n", strerror(errno));
		status = 1;
		goto out;
	}

	while ((ev = runloop_next(&rl)) != RUNLOOP_STOP) {
		if (ev != RUNLOOP_TICK)
			continue;
		err = eht_snap_take(&src, &cur);
		if (err)
			goto snap_failed;
		if (!env.json)
			print_changes(&prev, &cur, rl.now - rl.start);
		else if (eht_snap_diff(&prev, &cur))
			eht_fmt_json(stdout, &cur, (int)rl.ticks, false);
		fflush(stdout);
		tmp = prev, prev = cur, cur = tmp;
	}

	/* Unpin and detach before the final read, so the table and counters are final. */
	unpin(s);
	for (int i = 0; i < EHT_EV_NR; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
	err = eht_snap_take(&src, &cur);
	if (err)
		goto snap_failed;
	if (env.watch && !env.json)
		print_changes(&prev, &cur, clock_now() - rl.start);
	if (env.json) {
		eht_fmt_json(stdout, &cur, env.watch ? (int)rl.ticks + 1 : 0, true);
	} else {
		if (env.watch)
			printf("\n");
		eht_fmt_table(stdout, &cur);
	}
	goto out;

snap_failed:
	fprintf(stderr, "eht-hosts: cannot read the host table: %s\n", strerror(-err));
	status = 1;
out:
	if (eht_metrics_close(&rl))	/* the textfile's last write: the final table */
		status = 1;
	runloop_finish(&rl);
	if (rl.cmd_status > 0) {
		fprintf(stderr, "eht-hosts: '%s' exited with status %d\n", s->command, rl.cmd_status);
		status = 1;
	}
	eht_snap_free(&prev);
	eht_snap_free(&cur);
	return status;
}

/* -s: the table of the eht-hosts that is running, from its pins. */
static int show(void)
{
	struct eht_source src = { .stats_off = offsetof(struct eht_bpf__bss, stats) };
	struct eht_snap s = {};
	int err;

	src.hosts_fd = bpf_obj_get(PIN_HOSTS);
	if (src.hosts_fd < 0) {
		err = errno;
		if (err == ENOENT)
			fprintf(stderr, "eht-hosts: no eht-hosts is tracing (nothing pinned at "
				PIN_HOSTS ")\n");
		else
			fprintf(stderr, "eht-hosts: cannot open " PIN_HOSTS ": %s\n", strerror(err));
		return util_bpf_exit_status(-err);
	}
	src.counters_fd = bpf_obj_get(PIN_COUNTERS);
	if (src.counters_fd < 0) {
		fprintf(stderr, "eht-hosts: cannot open " PIN_COUNTERS ": %s\n", strerror(errno));
		close(src.hosts_fd);
		return 1;
	}
	err = eht_snap_take(&src, &s);
	close(src.hosts_fd);
	close(src.counters_fd);
	if (err) {
		fprintf(stderr, "eht-hosts: cannot read the host table: %s\n", strerror(-err));
		eht_snap_free(&s);
		return 1;
	}
	if (env.json)
		eht_fmt_json(stdout, &s, 0, false);
	else
		eht_fmt_table(stdout, &s);
	eht_snap_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	static struct state s;
	int err, status;

	argp_err_exit_status = EXIT_USAGE;
	argv[0] = "eht-hosts";	/* argp names the program in its messages */
	env.command = cmd_split(&argc, argv);
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	util_setup_libbpf(env.verbose);
	if (env.show)
		return show();

	/* Reads BTF only: nothing is loaded into a kernel without the tracepoints. */
	status = check_tracepoints();
	if (!status)
		status = util_check_bpf("eht-hosts", "tracing");
	if (!status)
		status = check_pins();
	/* Before anything is loaded: an address that cannot be had changes nothing. */
	if (!status)
		status = eht_metrics_open(env.listen, env.textfile, env.watch && env.interval ?
					  env.interval : 10);
	if (status)
		return status;
	cmd_join(env.command, s.command, sizeof(s.command));

	s.skel = eht_bpf__open();
	if (!s.skel) {
		fprintf(stderr, "eht-hosts: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	s.progs[EHT_EV_HOST_CREATE] = s.skel->progs.eht_host_create;
	s.progs[EHT_EV_HOST_DESTROY] = s.skel->progs.eht_host_destroy;
	s.progs[EHT_EV_HOST_FILTER_MODE] = s.skel->progs.eht_host_filter_mode;
	s.progs[EHT_EV_SET_ENTRY_CREATE] = s.skel->progs.eht_set_entry_create;
	s.progs[EHT_EV_SET_ENTRY_DELETE] = s.skel->progs.eht_set_entry_delete;
	s.progs[EHT_EV_FAST_LEAVE] = s.skel->progs.eht_fast_leave;
	err = eht_bpf__load(s.skel);
	if (err) {
		fprintf(stderr, "eht-hosts: cannot load the BPF programs: %s\n", util_bpf_load_hint(err));
		status = util_bpf_exit_status(err);
		goto out;
	}
	for (int i = 0; i < EHT_EV_NR; i++) {
		s.links[i] = bpf_program__attach(s.progs[i]);
		if (!s.links[i]) {
			err = -errno;
			fprintf(stderr, "eht-hosts: cannot attach to %s: %s\n", eht_tp_names[i],
				util_bpf_load_hint(err));
			status = util_bpf_exit_status(err);
			goto out;
		}
	}
	if (pin(&s)) {
		status = 1;
		goto out;
	}
	status = run(&s);
out:
	unpin(&s);
	for (int i = 0; i < EHT_EV_NR; i++)
		bpf_link__destroy(s.links[i]);
	eht_bpf__destroy(s.skel);
	return status;
}
