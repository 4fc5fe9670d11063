// SPDX-License-Identifier: GPL-2.0
/*
 * eht-hosts: the bridge's IGMPv3/MLDv2 explicit host tracking, host by host, from the bare
 * br_eht_* tracepoints of bareatom's kernel patch.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "eht.h"
#include "eht.skel.h"
#include "pins.h"
#include "util.h"

#define PIN_ROOT "/sys/fs/bpf/bareatom"
#define PIN_DIR PIN_ROOT "/eht"
#define PIN_HOSTS PIN_DIR "/hosts"
#define PIN_COUNTERS PIN_DIR "/counters"
#define EXIT_USAGE 2
#define KERNEL_PATCH "kernel/patches/0001-net-bridge-mcast-add-bare-tracepoints-for-EHT.patch"

/* The tracepoints, in the order of enum eht_event; pins are prog_NAME and link_NAME. */
static const char *const tp_names[EHT_EV_NR] = {
	[EHT_EV_HOST_CREATE] = "br_eht_host_create",
	[EHT_EV_HOST_DESTROY] = "br_eht_host_destroy",
	[EHT_EV_HOST_FILTER_MODE] = "br_eht_host_filter_mode",
	[EHT_EV_SET_ENTRY_CREATE] = "br_eht_set_entry_create",
	[EHT_EV_SET_ENTRY_DELETE] = "br_eht_set_entry_delete",
	[EHT_EV_FAST_LEAVE] = "br_eht_fast_leave",
};

static struct env {
	bool json;
	bool watch;
	bool show;
	bool verbose;
	double interval;
	double duration;
	char **command;
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
"\v"
"DESCRIPTION\n"
"On a bridge port with multicast snooping and fast leave on (bridge link\n"
"set dev PORT fastleave on), the kernel tracks each host that sends IGMPv3\n"
"or MLDv2 reports for a group: its filter mode and the sources it asked\n"
"for, so that the group can be dropped as soon as the last interested host\n"
"leaves. Ports without fast leave track no hosts. Nothing exports this\n"
"state: the MDB (bridge mdb show) lists groups and sources, not the hosts\n"
"behind them.\n"
"\n"
"eht-hosts attaches BPF programs to the six bare tracepoints br_eht_* of\n"
"bareatom's kernel patch and keeps a table with one row per port, group and\n"
"host. It traces until Ctrl-C (SIGINT), SIGTERM, -d SECS or the end of CMD,\n"
"then prints the table once, followed by the hits of each tracepoint. With\n"
"-w it also prints each change as it happens (looking every -i SECS). With\n"
"-s it starts nothing: it prints the table of the eht-hosts that is\n"
"tracing, from its pins.\n"
"\n"
"COLUMNS\n"
"  PORT     the bridge port the reports arrived on\n"
"  VID      the group's VLAN (shown when a row has one)\n"
"  GROUP    the multicast group\n"
"  HOST     the host, by the source address of its reports\n"
"  MODE     INCLUDE (wants the listed sources) or EXCLUDE (all but them)\n"
"  SOURCES  the sources it listed: its set entries with a non-zero source\n"
"  REPORTS  the changes its reports made: set entries created (one per\n"
"           source added, plus the zero-source entry of an EXCLUDE host)\n"
"           and filter mode changes; removals are not counted\n"
"  COOKIE   drawn with an atomic fetch-add when the host was first seen:\n"
"           unique within one run, from 1; a host that the kernel drops\n"
"           and creates again gets a new one\n"
"  CHANGED  time since its last event\n"
"\n"
"A row appears at its host's first event after eht-hosts started and goes\n"
"when the kernel drops the host. A host that existed before is adopted at\n"
"its next new set entry (its COOKIE marked *): SOURCES is counted from the\n"
"kernel's list, REPORTS only from then on.\n"
"When a report changes a host's filter mode (TO_IN, TO_EX, IS_IN, IS_EX),\n"
"the kernel drops the host with all its entries and creates it again in the\n"
"new mode (br_eht_host_destroy, br_eht_host_create), then reports the change\n"
"(br_eht_host_filter_mode): the row gets a new COOKIE and one more REPORT.\n"
"\n"
"PINS\n"
"While it traces, everything is pinned under " PIN_DIR "/:\n"
"hosts (the table, with BTF, so bpftool map dump names the fields),\n"
"counters (the program's .bss), and prog_NAME and link_NAME for each\n"
"tracepoint. The pins are removed on exit; pins left by an eht-hosts that\n"
"was killed are cleared by the next one. One eht-hosts traces at a time.\n"
"\n"
"JSON OUTPUT\n"
"With -j, output is JSON, one object per line:\n"
"  {\"ts\":UNIX_TIME, \"mono_ns\":N, \"interval\":K, \"final\":BOOL,\n"
"   \"hosts\":[{\"port\":NAME, \"ifindex\":N, \"netns\":INODE,\n"
"     \"family\":\"ipv4\"|\"ipv6\", \"group\":ADDR, \"vid\":N, \"host\":ADDR,\n"
"     \"mode\":\"INCLUDE\"|\"EXCLUDE\", \"sources\":N, \"reports\":N,\n"
"     \"cookie\":N, \"adopted\":BOOL, \"truncated\":BOOL, \"first_ns\":N,\n"
"     \"last_change_ns\":N}, ...],\n"
"   \"events\":{\"br_eht_host_create\":N, ... one per tracepoint},\n"
"   \"adopted\":N, \"lost\":N}\n"
"mono_ns, first_ns and last_change_ns are CLOCK_MONOTONIC nanoseconds.\n"
"Without -w there is one line, with \"final\":true. With -w there is a line\n"
"for each interval in which something changed (\"interval\" numbers the\n"
"intervals from 1, so quiet ones leave gaps), then the final line. -s\n"
"prints one line with \"final\":false: the tracing goes on. \"lost\" counts\n"
"hosts that did not fit in the table (16384 rows), each (port, group, host)\n"
"once.\n"
"\n"
"EXIT STATUS\n"
"0 on success; 1 for runtime errors, among them a kernel without the\n"
"br_eht_* tracepoints, another eht-hosts tracing already, and CMD failing;\n"
"2 for usage errors and missing privileges.\n"
"\n"
"EXAMPLES\n"
"  eht-hosts                     # trace until Ctrl-C, print the table\n"
"  eht-hosts -w                  # hosts as they come, change and go\n"
"  eht-hosts -w -i 0.2 -d 60 -j  # JSON lines, looking 5 times a second\n"
"  eht-hosts -j -- ./reports.sh  # the table after a script of reports\n"
"  eht-hosts -s                  # the table of the eht-hosts tracing now\n"
"  bpftool map dump pinned " PIN_HOSTS "\n";

static const struct argp_option opts[] = {
	{ "watch", 'w', NULL, 0, "Print hosts as they come, change and go", 0 },
	{ "interval", 'i', "SECS", 0, "With -w: look for changes every SECS seconds (>= 0.001, default 1)", 0 },
	{ "duration", 'd', "SECS", 0, "Stop after SECS seconds", 0 },
	{ "json", 'j', NULL, 0, "JSON output, one object per line", 0 },
	{ "show", 's', NULL, 0, "Print the table of the running eht-hosts (from its pins) and exit", 0 },
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
		env.interval = util_parse_interval("eht-hosts", arg);
		break;
	case 'd':
		if (util_parse_seconds(arg, &env.duration))
			util_usage_error("eht-hosts", "invalid duration '%s': a number of seconds > 0", arg);
		break;
	case ARGP_KEY_ARG:
		util_usage_error("eht-hosts", "unexpected argument '%s' (a command goes after --)", arg);
	case ARGP_KEY_END:
		if (env.show && (env.watch || env.interval || env.duration || env.command))
			util_usage_error("eht-hosts", "-s prints the running eht-hosts' table: it takes only -j");
		if (env.interval && !env.watch)
			util_usage_error("eht-hosts", "-i sets how often -w looks for changes: it needs -w");
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
		snprintf(name, sizeof(name), "btf_trace_%s", tp_names[i]);
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

/* ------------------------------------------------------------------ snapshots */

struct row {
	struct eht_key k;
	struct eht_host v;
};

struct snap {
	struct row *rows;
	size_t n, cap;
	__u64 events[EHT_EV_NR];
	__u64 adopted, lost;
	double ts;
	__u64 mono_ns;
};

/* Where a snapshot comes from: our own maps, or the pins of a running eht-hosts. */
struct source {
	int hosts_fd;
	int counters_fd;		/* the pinned .bss, when bss is NULL */
	struct eht_bpf__bss *bss;	/* our own .bss, memory-mapped */
};

static int key_cmp(const struct eht_key *a, const struct eht_key *b)
{
	int c;

	if (a->netns != b->netns)
		return a->netns < b->netns ? -1 : 1;
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	if (a->proto != b->proto)
		return a->proto < b->proto ? -1 : 1;
	c = memcmp(a->group, b->group, sizeof(a->group));
	if (c)
		return c;
	if (a->vid != b->vid)
		return a->vid < b->vid ? -1 : 1;
	return memcmp(a->host, b->host, sizeof(a->host));
}

static int row_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct row *)a)->k, &((const struct row *)b)->k);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void snap_free(struct snap *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static int read_counters(const struct source *src, struct snap *s)
{
	struct eht_bpf__bss bss;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	void *buf;

	if (src->bss) {
		for (int i = 0; i < EHT_EV_NR; i++)
			s->events[i] = __atomic_load_n(&src->bss->stats.events[i], __ATOMIC_RELAXED);
		s->adopted = __atomic_load_n(&src->bss->stats.adopted, __ATOMIC_RELAXED);
		s->lost = __atomic_load_n(&src->bss->stats.lost, __ATOMIC_RELAXED);
		return 0;
	}
	if (bpf_obj_get_info_by_fd(src->counters_fd, &info, &len))
		return -errno;
	buf = calloc(1, info.value_size > sizeof(bss) ? info.value_size : sizeof(bss));
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(src->counters_fd, &zero, buf)) {
		free(buf);
		return -errno;
	}
	memcpy(&bss, buf, sizeof(bss));
	free(buf);
	memcpy(s->events, bss.stats.events, sizeof(s->events));
	s->adopted = bss.stats.adopted;
	s->lost = bss.stats.lost;
	return 0;
}

/* Room for @need more rows in @s. */
static int snap_reserve(struct snap *s, size_t need)
{
	size_t cap = s->cap ? s->cap : 64;
	struct row *rows;

	while (cap - s->n < need)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	rows = realloc(s->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	s->rows = rows;
	s->cap = cap;
	return 0;
}

/*
 * Copy the table with batched lookups. A hash map's batch walk goes bucket by bucket,
 * each copied whole under its lock, so entries can come and go meanwhile without the
 * walk restarting (as get_next_key does after a deletion): every host that is there
 * for the whole walk is copied exactly once, however full the table.
 */
static int take_snapshot(const struct source *src, struct snap *s)
{
	size_t chunk = 1024;	/* rows per call; a bucket must fit in one (ENOSPC if not) */
	struct eht_key *keys = NULL;
	struct eht_host *vals = NULL;
	__u32 batch, count;
	bool first = true;
	int err = 0;

	s->n = 0;
	s->ts = util_wallclock();
	s->mono_ns = mono_ns();
	for (;;) {
		if (!keys) {
			keys = calloc(chunk, sizeof(*keys));
			vals = calloc(chunk, sizeof(*vals));
			if (!keys || !vals) {
				err = -ENOMEM;
				break;
			}
		}
		count = chunk;
		err = bpf_map_lookup_batch(src->hosts_fd, first ? NULL : &batch, &batch, keys, vals,
					   &count, NULL);
		if (err && errno == ENOSPC && chunk < EHT_MAX_HOSTS * 4) {
			/* A bucket larger than the buffer: the same call again, with more room. */
			free(keys), free(vals);
			keys = NULL, vals = NULL;
			chunk *= 2;
			continue;
		}
		if (err && errno != ENOENT) {
			err = -errno;
			break;
		}
		if (snap_reserve(s, count)) {
			err = -ENOMEM;
			break;
		}
		for (__u32 i = 0; i < count; i++, s->n++) {
			s->rows[s->n].k = keys[i];
			s->rows[s->n].v = vals[i];
		}
		if (err) {	/* ENOENT: that was the last bucket */
			err = 0;
			break;
		}
		first = false;
	}
	free(keys);
	free(vals);
	if (err)
		return err;
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), row_cmp);
	return read_counters(src, s);
}

/* ------------------------------------------------------------------ output */

struct cells {
	char port[EHT_IFNAMSIZ + 16];
	char group[INET6_ADDRSTRLEN];
	char host[INET6_ADDRSTRLEN];
	char cookie[24];
	char changed[24];
	const char *mode;
	const char *family;
};

static void fmt_addr(const struct eht_key *k, const __u8 *addr, char *buf, size_t len)
{
	if (k->proto == EHT_PROTO_IPV4)
		inet_ntop(AF_INET, addr, buf, len);
	else if (k->proto == EHT_PROTO_IPV6)
		inet_ntop(AF_INET6, addr, buf, len);
	else
		snprintf(buf, len, "proto-0x%04x", k->proto);
}

static void fmt_age(__u64 now, __u64 then, char *buf, size_t len)
{
	double s = now > then ? (double)(now - then) / 1e9 : 0;

	if (s < 60)
		snprintf(buf, len, "%.1fs ago", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds ago", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%.1fh ago", s / 3600);
}

static void fill_cells(const struct snap *s, const struct row *r, struct cells *c)
{
	char name[IF_NAMESIZE];

	if (r->v.port[0])
		snprintf(c->port, sizeof(c->port), "%.*s", EHT_IFNAMSIZ, r->v.port);
	else if (if_indextoname(r->k.ifindex, name))
		snprintf(c->port, sizeof(c->port), "%s", name);
	else
		snprintf(c->port, sizeof(c->port), "if%u", r->k.ifindex);
	fmt_addr(&r->k, r->k.group, c->group, sizeof(c->group));
	fmt_addr(&r->k, r->k.host, c->host, sizeof(c->host));
	c->mode = r->v.mode == EHT_MODE_INCLUDE ? "INCLUDE" : r->v.mode == EHT_MODE_EXCLUDE ?
		  "EXCLUDE" : "?";
	c->family = r->k.proto == EHT_PROTO_IPV4 ? "ipv4" : r->k.proto == EHT_PROTO_IPV6 ?
		    "ipv6" : "other";
	snprintf(c->cookie, sizeof(c->cookie), "%llu%s", (unsigned long long)r->v.cookie,
		 r->v.flags & EHT_HOST_ADOPTED ? "*" : "");
	fmt_age(s->mono_ns, r->v.last_change_ns, c->changed, sizeof(c->changed));
}

static bool any_vid(const struct snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].k.vid)
			return true;
	return false;
}

static void print_table(const struct snap *s)
{
	int wp = 4, wg = 5, wh = 4, wc = 6;
	bool vid = any_vid(s), adopted = false;
	struct cells c;

	for (size_t i = 0; i < s->n; i++) {
		fill_cells(s, &s->rows[i], &c);
		wp = (int)strlen(c.port) > wp ? (int)strlen(c.port) : wp;
		wg = (int)strlen(c.group) > wg ? (int)strlen(c.group) : wg;
		wh = (int)strlen(c.host) > wh ? (int)strlen(c.host) : wh;
		wc = (int)strlen(c.cookie) > wc ? (int)strlen(c.cookie) : wc;
		adopted |= s->rows[i].v.flags & EHT_HOST_ADOPTED;
	}
	if (!s->n) {
		printf("no EHT hosts (hosts are tracked on bridge ports with fastleave on)\n");
	} else {
		printf("%-*s %s%-*s %-*s %-7s %7s %7s %*s  %s\n", wp, "PORT", vid ? "  VID " : "",
		       wg, "GROUP", wh, "HOST", "MODE", "SOURCES", "REPORTS", wc, "COOKIE", "CHANGED");
		for (size_t i = 0; i < s->n; i++) {
			const struct row *r = &s->rows[i];

			fill_cells(s, r, &c);
			printf("%-*s ", wp, c.port);
			if (vid)
				printf("%5u ", r->k.vid);
			printf("%-*s %-*s %-7s %7u %7llu %*s  %s\n", wg, c.group, wh, c.host, c.mode,
			       r->v.sources, (unsigned long long)r->v.reports, wc, c.cookie, c.changed);
		}
		if (adopted)
			printf("* adopted: the host existed before tracing began; REPORTS counts from then\n");
	}
	printf("\n%-26s %12s\n", "TRACEPOINT", "HITS");
	for (int i = 0; i < EHT_EV_NR; i++)
		printf("%-26s %12llu\n", tp_names[i], (unsigned long long)s->events[i]);
	if (s->adopted || s->lost)
		printf("%-26s %12llu\n%-26s %12llu\n", "(hosts adopted)", (unsigned long long)s->adopted,
		       "(hosts lost: table full)", (unsigned long long)s->lost);
	fflush(stdout);
}

static void print_json(const struct snap *s, int interval, bool final)
{
	struct cells c;

	printf("{\"ts\":%.6f,\"mono_ns\":%llu,", s->ts, (unsigned long long)s->mono_ns);
	if (interval)
		printf("\"interval\":%d,", interval);
	printf("\"final\":%s,\"hosts\":[", final ? "true" : "false");
	for (size_t i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i];

		fill_cells(s, r, &c);
		printf("%s{\"port\":", i ? "," : "");
		util_json_string(stdout, c.port);
		printf(",\"ifindex\":%u,\"netns\":%u,\"family\":\"%s\",\"group\":\"%s\",\"vid\":%u,"
		       "\"host\":\"%s\",\"mode\":\"%s\",\"sources\":%u,\"reports\":%llu,\"cookie\":%llu,"
		       "\"adopted\":%s,\"truncated\":%s,\"first_ns\":%llu,\"last_change_ns\":%llu}",
		       r->k.ifindex, r->k.netns, c.family, c.group, r->k.vid, c.host, c.mode,
		       r->v.sources, (unsigned long long)r->v.reports, (unsigned long long)r->v.cookie,
		       r->v.flags & EHT_HOST_ADOPTED ? "true" : "false",
		       r->v.flags & EHT_HOST_TRUNCATED ? "true" : "false",
		       (unsigned long long)r->v.first_ns, (unsigned long long)r->v.last_change_ns);
	}
	printf("],\"events\":{");
	for (int i = 0; i < EHT_EV_NR; i++)
		printf("%s\"%s\":%llu", i ? "," : "", tp_names[i], (unsigned long long)s->events[i]);
	printf("},\"adopted\":%llu,\"lost\":%llu}\n", (unsigned long long)s->adopted,
	       (unsigned long long)s->lost);
	fflush(stdout);
}

static void print_change_header(void)
{
	printf("%-10s %-6s %-10s %-20s %-20s %-7s %7s %7s %8s\n", "TIME", "CHANGE", "PORT", "GROUP",
	       "HOST", "MODE", "SOURCES", "REPORTS", "COOKIE");
}

static void print_change(const struct snap *s, const char *what, const struct row *r, double t)
{
	struct cells c;

	fill_cells(s, r, &c);
	printf("%-10.3f %-6s %-10s %-20s %-20s %-7s %7u %7llu %8s\n", t, what, c.port, c.group, c.host,
	       c.mode, r->v.sources, (unsigned long long)r->v.reports, c.cookie);
}

static bool same_state(const struct row *a, const struct row *b)
{
	return a->v.cookie == b->v.cookie && a->v.mode == b->v.mode &&
	       a->v.sources == b->v.sources && a->v.reports == b->v.reports;
}

/*
 * Compare two snapshots (both sorted by key): print the changes as text lines when
 * @print, and return how many there are (counters included).
 */
static int diff(const struct snap *old, const struct snap *cur, double t, bool print)
{
	size_t i = 0, j = 0;
	int n = memcmp(old->events, cur->events, sizeof(old->events)) ? 1 : 0;

	while (i < old->n || j < cur->n) {
		int c = i == old->n ? 1 : j == cur->n ? -1 : key_cmp(&old->rows[i].k, &cur->rows[j].k);

		if (c < 0) {
			if (print)
				print_change(old, "gone", &old->rows[i], t);
			i++, n++;
		} else if (c > 0) {
			if (print)
				print_change(cur, "new", &cur->rows[j], t);
			j++, n++;
		} else {
			if (old->rows[i].v.cookie != cur->rows[j].v.cookie) {
				if (print) {
					print_change(old, "gone", &old->rows[i], t);
					print_change(cur, "new", &cur->rows[j], t);
				}
				n++;
			} else if (!same_state(&old->rows[i], &cur->rows[j])) {
				if (print)
					print_change(cur, "change", &cur->rows[j], t);
				n++;
			}
			i++, j++;
		}
	}
	if (print)
		fflush(stdout);
	return n;
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
		snprintf(name, sizeof(name), "prog_%s", tp_names[i] + strlen("br_eht_"));
		err = pins_prog(&pins, s->progs[i], name);
		if (err)
			break;
		snprintf(name, sizeof(name), "link_%s", tp_names[i] + strlen("br_eht_"));
		err = pins_link(&pins, s->links[i], name);
	}
	if (err)
		unpin(s);
	return err ? 1 : 0;
}

/* ------------------------------------------------------------------ running */

static int run(struct state *s)
{
	struct source src = { .hosts_fd = bpf_map__fd(s->skel->maps.hosts), .bss = s->skel->bss };
	struct snap prev = {}, cur = {}, tmp;
	double start, next_tick = 0, end = 0, now;
	int status = 0, cmd_status = -1, tick = 0, err;
	sigset_t set, orig;
	bool stop = false;
	pid_t child = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &orig);

	start = util_now();
	if (env.watch) {
		if (!env.interval)
			env.interval = 1;
		next_tick = start + env.interval;
		err = take_snapshot(&src, &prev);
		if (err)
			goto snap_failed;
		if (!env.json)
			print_change_header();
	}
	if (env.duration)
		end = start + env.duration;
	if (env.command) {
		fflush(stdout);
		child = util_start_command("eht-hosts", env.command, &orig);
		if (child < 0) {
			fprintf(stderr, "eht-hosts: cannot fork: %s\n", strerror(errno));
			status = 1;
			goto out;
		}
	}

	while (!stop) {
		int sig = util_wait_signal(&set, next_tick, end);

		now = util_now();
		if (sig == SIGCHLD) {
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
			err = take_snapshot(&src, &cur);
			if (err)
				goto snap_failed;
			tick++;
			if (diff(&prev, &cur, now - start, !env.json) && env.json)
				print_json(&cur, tick, false);
			tmp = prev, prev = cur, cur = tmp;
			next_tick = util_next_tick(start, env.interval, now);
		}
	}

	/* Unpin and detach before the final read, so the table and counters are final. */
	unpin(s);
	for (int i = 0; i < EHT_EV_NR; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
	err = take_snapshot(&src, &cur);
	if (err)
		goto snap_failed;
	if (env.watch && !env.json)
		diff(&prev, &cur, util_now() - start, true);
	if (env.json) {
		print_json(&cur, env.watch ? tick + 1 : 0, true);
	} else {
		if (env.watch)
			printf("\n");
		print_table(&cur);
	}
	goto out;

snap_failed:
	fprintf(stderr, "eht-hosts: cannot read the host table: %s\n", strerror(-err));
	status = 1;
out:
	util_end_command(child);
	if (cmd_status > 0) {
		fprintf(stderr, "eht-hosts: '%s' exited with status %d\n", s->command, cmd_status);
		status = 1;
	}
	snap_free(&prev);
	snap_free(&cur);
	return status;
}

/* -s: the table of the eht-hosts that is running, from its pins. */
static int show(void)
{
	struct source src;
	struct snap s = {};
	int err;

	src.hosts_fd = bpf_obj_get(PIN_HOSTS);
	if (src.hosts_fd < 0) {
		err = errno;
		if (err == ENOENT)
			fprintf(stderr, "eht-hosts: no eht-hosts is tracing (nothing pinned at "
				PIN_HOSTS ")\n");
		else
			fprintf(stderr, "eht-hosts: cannot open " PIN_HOSTS ": %s\n", strerror(err));
		return err == EPERM || err == EACCES ? EXIT_USAGE : 1;
	}
	src.counters_fd = bpf_obj_get(PIN_COUNTERS);
	src.bss = NULL;
	if (src.counters_fd < 0) {
		fprintf(stderr, "eht-hosts: cannot open " PIN_COUNTERS ": %s\n", strerror(errno));
		close(src.hosts_fd);
		return 1;
	}
	err = take_snapshot(&src, &s);
	close(src.hosts_fd);
	close(src.counters_fd);
	if (err) {
		fprintf(stderr, "eht-hosts: cannot read the host table: %s\n", strerror(-err));
		snap_free(&s);
		return 1;
	}
	if (env.json)
		print_json(&s, 0, false);
	else
		print_table(&s);
	snap_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	static struct state s;
	int err, status;

	argp_err_exit_status = EXIT_USAGE;
	argv[0] = "eht-hosts";	/* argp names the program in its messages */
	env.command = util_split_command(&argc, argv);
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
	if (status)
		return status;
	util_join_command(env.command, s.command, sizeof(s.command));

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
		status = err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
		goto out;
	}
	for (int i = 0; i < EHT_EV_NR; i++) {
		s.links[i] = bpf_program__attach(s.progs[i]);
		if (!s.links[i]) {
			err = -errno;
			fprintf(stderr, "eht-hosts: cannot attach to %s: %s\n", tp_names[i],
				util_bpf_load_hint(err));
			status = err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
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
