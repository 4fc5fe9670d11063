// SPDX-License-Identifier: GPL-2.0
/*
 * tpbench: the guest half of `make bench`. Prints one JSON object per measurement.
 *
 *   tpbench count  [-n EVENTS] [-r ROUNDS] [-c CPUS,...]   counting methods on tpgen_a
 *   tpbench ckern  [-n EVENTS] [-r ROUNDS] [-c CPUS,...]   kernel-side cookie draws on tpgen_b
 *   tpbench cuser  [-n OPS] [-r ROUNDS] [-m METHOD,...]     user-space cookie sources
 *
 * EVENTS are fired on every online CPU at once ("tpgen_a EVENTS all"); CPUs beyond the
 * wanted count are taken offline for the measurement and brought back after. Round 0 is a
 * warm-up (TCG translates code on first use) and is reported with "warmup":true. Within a
 * round the methods run one after another (A B C ... A B C ...), so slow drifts of the
 * emulator hit them all alike. Counting methods are checked against tpgen's own count.
 * The cookie benchmarks are tpbench_cookies.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/tpstat_abi.h"
#include "src/tpfield.h"
#include "bpf/bench_abi.h"
#include "bench.skel.h"
#include "tpstat.skel.h"
#include "tests/bench/tpbench.h"


long events = 200000, rounds = 6, ops = 200000;
int cpu_list[8] = { 1, 2, 4 }, ncpu_list = 3;
int possible_cpus;

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void die(const char *what)
{
	fprintf(stderr, "tpbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

__u64 tpgen_fired(const char *name)
{
	char line[128], n[64];
	unsigned long long v;
	FILE *f = fopen(STATS, "r");

	if (!f)
		die("open tpgen stats (modprobe tpgen)");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", n, &v) == 2 && !strcmp(n, name)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return 0;
}

/* Fire NAME EVENTS times on every online CPU; returns the nanoseconds the write took. */
double fire(const char *name, long n)
{
	char buf[64];
	int fd = open(FIRE, O_WRONLY), len;
	double t0, t1;

	if (fd < 0)
		die("open " FIRE);
	len = snprintf(buf, sizeof(buf), "%s %ld all", name, n);
	t0 = now();
	if (write(fd, buf, len) != len)
		die("fire");
	t1 = now();
	close(fd);
	return t1 - t0;
}

void set_online(int want)
{
	char path[128];

	for (int cpu = 1; cpu < possible_cpus; cpu++) {
		int fd;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, cpu < want ? "1" : "0", 1) != 1 && errno != EINVAL)
			die(path);
		close(fd);
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) != want) {
		fprintf(stderr, "tpbench: cannot bring the guest to %d online CPUs\n", want);
		exit(1);
	}
}

void prog_info(const char *bench, const char *method, struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return;
	printf("{\"bench\":\"%s\",\"kind\":\"proginfo\",\"method\":\"%s\",\"xlated_insns\":%u,"
	       "\"jited_bytes\":%u}\n", bench, method, info.xlated_prog_len / 8, info.jited_prog_len);
}

void run_stats(struct bpf_program *prog, __u64 *time_ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	*time_ns = *cnt = 0;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		*time_ns = info.run_time_ns;
		*cnt = info.run_cnt;
	}
}

/* ---- counting methods ---- */

struct method {
	const char *name;
	struct bpf_program *prog;
	__u64 (*count)(void);
	bool exact;
};

static struct bench_bpf *bs;
static struct tpstat_bpf *ts, *ts_hist, *ts_by;

static __u64 count_global(void) { return __atomic_load_n(&bs->bss->global_count, __ATOMIC_RELAXED); }
static __u64 count_plain(void) { return __atomic_load_n(&bs->bss->plain_count, __ATOMIC_RELAXED); }

static __u64 count_slots(void)
{
	__u64 sum = 0;

	for (int i = 0; i < BENCH_SLOTS; i++)
		sum += __atomic_load_n(&bs->bss->slots[i].count, __ATOMIC_RELAXED);
	return sum;
}

static __u64 count_percpu(void)
{
	__u64 vals[1024] = {}, sum = 0;
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(bs->maps.percpu), &zero, vals);
	for (int i = 0; i < possible_cpus; i++)
		sum += vals[i];
	return sum;
}

static __u64 count_hash(void)
{
	__u64 key = 1, v = 0;

	bpf_map_lookup_elem(bpf_map__fd(bs->maps.hash), &key, &v);
	return v;
}

/*
 * Tracepoint 0's count in @slot of @t's counts map, loaded with its default size (one
 * tracepoint: the stride is TPSTAT_LINE; bpf/tpstat.h has the layout).
 */
static __u64 slot0(struct tpstat_bpf *t, int slot)
{
	__u32 key = (__u32)slot * TPSTAT_LINE;
	__u64 v = 0;

	bpf_map_lookup_elem(bpf_map__fd(t->maps.counts), &key, &v);
	return v;
}

static __u64 count_tpstat(void)
{
	__u64 sum = 0;

	for (int i = 0; i < TPSTAT_NR_SLOTS; i++)
		sum += slot0(ts, i);
	return sum;
}

/* --hist's per-CPU copies (as tpstat_read.c maps them), mapped. */
static struct tpstat_hist *hist_cpu;

/* --hist's samples (its buckets): one per event recorded (errors would be events too). */
static __u64 count_hist(void)
{
	__u64 n = 0;

	for (int cpu = 0; cpu < possible_cpus; cpu++) {
		n += __atomic_load_n(&hist_cpu[cpu].errors, __ATOMIC_RELAXED);
		for (int k = 0; k < TPSTAT_HIST_BUCKETS; k++)
			n += __atomic_load_n(&hist_cpu[cpu].buckets[k], __ATOMIC_RELAXED);
	}
	return n;
}

/* --by TP:cpu: the CPUs' own count slots, the table (CPUs above them), and what found no slot. */
static __u64 count_by(void)
{
	struct tpstat_key key, next;
	__u64 sum = ts_by->bss->by_stats[0].dropped, v;

	for (int i = 0; i < TPSTAT_SLOTS; i++)
		sum += slot0(ts_by, i);
	int fd = bpf_map__fd(ts_by->maps.by_counts);
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &v))
			sum += v;
		key = next;
		prev = &key;
	}
	return sum;
}

/*
 * tpstat's fields program on tpgen_a, as tpstat --hist tpgen_a:ctx->cpu (one read through
 * the context's pointer) or --by tpgen_a:cpu loads it.
 */
static struct tpstat_bpf *open_fields(bool hist)
{
	struct tpfield_btfs btfs = { .dir = "/sys/kernel/btf" };
	struct tpstat_bpf *t = tpstat_bpf__open();
	const struct btf *btf = tpfield_btf(&btfs, "tpgen");
	struct tpstat_field f = { .tp = 0 };
	char err[TPFIELD_ERR_LEN];
	struct tpfield_proto proto;
	struct bpf_program *p;
	struct tpfield tf;

	if (!t)
		die("open tpstat.bpf.o");
	/* ctx->cpu compiled as tpstat compiles it, against tpgen's BTF. */
	if (!btf || tpfield_proto(btf, "tpgen_a", &proto) ||
	    tpfield_compile(btf, &proto, "ctx->cpu", &tf, err, sizeof(err)))
		die("compile tpgen_a:ctx->cpu");
	tpfield_btfs_free(&btfs);
	f = (struct tpstat_field){ .tp = 0, .arg = tf.arg, .nsteps = tf.nsteps, .size = tf.size,
		.is_signed = tf.is_signed };
	for (__u32 k = 0; k < tf.nsteps; k++) {
		f.steps[k].off = tf.steps[k].off;
		f.steps[k].size = tf.steps[k].size;
	}
	bpf_object__for_each_program(p, t->obj)
		bpf_program__set_autoload(p, p == t->progs.tpstat_hist_0);
	if (hist) {
		t->rodata->nhist = 1;
		memcpy((void *)&t->rodata->hist_field[0], &f, sizeof(f));
		bpf_map__set_max_entries(t->maps.hist_cpu, possible_cpus);
	} else {
		t->rodata->nby = 1;
		struct tpstat_by *by = (struct tpstat_by *)&t->rodata->by_spec[0];

		by->nkeys = 1;
		by->kind[0] = TPSTAT_KEY_CPU;
	}
	if (tpstat_bpf__load(t))
		die("load tpstat.bpf.o's fields program");
	if (hist) {
		hist_cpu = mmap(NULL, possible_cpus * sizeof(*hist_cpu), PROT_READ | PROT_WRITE,
				MAP_SHARED, bpf_map__fd(t->maps.hist_cpu), 0);
		if (hist_cpu == MAP_FAILED)
			die("map the --hist table");
		for (int cpu = 0; cpu < possible_cpus; cpu++)
			hist_cpu[cpu].min = INT64_MAX, hist_cpu[cpu].max = (__u64)INT64_MIN;
	}
	return t;
}

static int bench_count(void)
{
	struct method m[10];
	int nm = 0, fd_stats;
	__u64 one = 1, zero = 0;

	bs = bench_bpf__open_and_load();
	ts = tpstat_bpf__open();
	if (!bs || !ts)
		die("load the benchmark programs");
	{
		struct bpf_program *p;

		bpf_object__for_each_program(p, ts->obj)
			bpf_program__set_autoload(p, p == ts->progs.tpstat_0);
	}
	if (tpstat_bpf__load(ts))
		die("load tpstat.bpf.o");
	ts_hist = open_fields(true);
	ts_by = open_fields(false);
	bpf_map_update_elem(bpf_map__fd(bs->maps.hash), &one, &zero, BPF_ANY);

	m[nm++] = (struct method){ "none", NULL, NULL, false };
	m[nm++] = (struct method){ "empty", bs->progs.bench_empty, NULL, false };
	m[nm++] = (struct method){ "tpstat", ts->progs.tpstat_0, count_tpstat, true };
	m[nm++] = (struct method){ "tpstat_hist", ts_hist->progs.tpstat_hist_0, count_hist, true };
	m[nm++] = (struct method){ "tpstat_by", ts_by->progs.tpstat_hist_0, count_by, true };
	m[nm++] = (struct method){ "global_atomic", bs->progs.bench_global, count_global, true };
	m[nm++] = (struct method){ "percpu_array", bs->progs.bench_percpu, count_percpu, true };
	m[nm++] = (struct method){ "bss_slots", bs->progs.bench_slots, count_slots, true };
	m[nm++] = (struct method){ "hash_map", bs->progs.bench_hash, count_hash, true };
	m[nm++] = (struct method){ "plain_global", bs->progs.bench_plain, count_plain, false };
	for (int i = 1; i < nm; i++)
		prog_info("count", m[i].name, m[i].prog);

	for (int c = 0; c < ncpu_list; c++) {
		int cpus = cpu_list[c];

		set_online(cpus);
		/* The last round runs with kernel.bpf_stats_enabled, for run_time_ns per event. */
		for (long r = 0; r <= rounds + 1; r++) {
			bool stats = r == rounds + 1;

			fd_stats = stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
			for (int i = 0; i < nm; i++) {
				struct bpf_link *link = NULL;
				__u64 before = 0, after = 0, f0, f1, rt0 = 0, rc0 = 0, rt1 = 0, rc1 = 0;
				double ns;

				if (m[i].prog) {
					link = bpf_program__attach_raw_tracepoint(m[i].prog, "tpgen_a");
					if (!link)
						die("attach to tpgen_a");
					run_stats(m[i].prog, &rt0, &rc0);
				}
				if (m[i].count)
					before = m[i].count();
				f0 = tpgen_fired("tpgen_a");
				ns = fire("tpgen_a", events);
				f1 = tpgen_fired("tpgen_a");
				bpf_link__destroy(link);
				if (m[i].count)
					after = m[i].count();
				if (m[i].prog)
					run_stats(m[i].prog, &rt1, &rc1);
				printf("{\"bench\":\"count\",\"kind\":\"%s\",\"cpus\":%d,\"round\":%ld,\"warmup\":%s,"
				       "\"method\":\"%s\",\"fired\":%llu,\"ns\":%.0f,\"events_per_sec\":%.1f",
				       stats ? "runtime" : "time", cpus, r, r == 0 ? "true" : "false", m[i].name,
				       (unsigned long long)(f1 - f0), ns, (f1 - f0) / (ns / 1e9));
				if (m[i].count)
					printf(",\"counted\":%llu,\"exact\":%s", (unsigned long long)(after - before),
					       after - before == f1 - f0 ? "true" : "false");
				if (stats && rc1 > rc0)
					printf(",\"run_time_ns_per_event\":%.2f", (double)(rt1 - rt0) / (rc1 - rc0));
				printf("}\n");
				fflush(stdout);
			}
			if (fd_stats >= 0)
				close(fd_stats);
		}
	}
	set_online(possible_cpus);
	bench_bpf__destroy(bs);
	tpstat_bpf__destroy(ts);
	tpstat_bpf__destroy(ts_hist);
	tpstat_bpf__destroy(ts_by);
	return 0;
}

static void parse_cpus(char *s)
{
	ncpu_list = 0;
	for (char *tok = strtok(s, ","); tok && ncpu_list < 8; tok = strtok(NULL, ","))
		cpu_list[ncpu_list++] = atoi(tok);
}

int main(int argc, char **argv)
{
	int opt;

	if (argc < 2) {
		fprintf(stderr, "usage: tpbench count|ckern|cuser [-n N] [-r ROUNDS] [-c CPUS,...] [-m METHOD,...]\n");
		return 2;
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "n:r:c:m:")) != -1) {
		switch (opt) {
		case 'n': events = ops = atol(optarg); break;
		case 'r': rounds = atol(optarg); break;
		case 'c': parse_cpus(optarg); break;
		case 'm': methods = optarg; break;
		default: return 2;
		}
	}
	possible_cpus = libbpf_num_possible_cpus();
	for (int i = 0; i < ncpu_list; i++)
		if (cpu_list[i] < 1 || cpu_list[i] > possible_cpus)
			cpu_list[i] = possible_cpus;
	libbpf_set_print(NULL);
	if (!strcmp(argv[1], "count"))
		return bench_count();
	if (!strcmp(argv[1], "ckern"))
		return bench_ckern();
	if (!strcmp(argv[1], "cuser"))
		return bench_cuser();
	fprintf(stderr, "tpbench: unknown benchmark '%s'\n", argv[1]);
	return 2;
}
