// SPDX-License-Identifier: GPL-2.0
/*
 * prog-run: the BPF programs' own logic, alone, with BPF_PROG_TEST_RUN (TAP output).
 *
 * raw_tp programs can be run by the bpf() syscall on a chosen CPU (BPF_F_TEST_RUN_ON_CPU,
 * Linux 5.10), without attaching them: each run is one event, on the CPU we name, in our
 * own task. So the counts a run leaves are known exactly, whatever else the machine does:
 *
 *   - tpstat's count_tp(): the per-CPU slots, the CPU set, ncpus, first_cpu and first_ns
 *     after known runs on every CPU; one program per index; the -p/-t filter (wanted()),
 *     which sees our own task as the current one.
 *   - cookie.bpf.c's draw(): per-CPU batches of COOKIE_BATCH taken by one fetch-add and
 *     used up in order, a nested program (nesting != 0) drawing from the global counter
 *     and leaving the batch alone, a batch cut short at the durable limit, and refusals
 *     at the limit (denied, the one-shot need_room flag, room_requests, next untouched).
 *
 * Runs on another CPU than the caller's come from an IPI there (hardirq context, another
 * task); the filter tests run on our own CPU, in our task.
 *
 * Each test loads its own, unpinned, copy of the objects: nothing of cookie-gend's or a
 * running tpstat's maps is touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/tpstat_abi.h"
#include "tpstat.skel.h"
#include "src/tpstat_progs.h"
#include "bpf/cookie_abi.h"
#include "cookie.skel.h"
#include "tests/unit/test.h"

static int ncpu;

/* Run program @fd @times times on @cpu. Returns 0 or the negative errno of the first failure. */
static int run_fd_on(int fd, int cpu, int times)
{
	__u64 args[2] = {};	/* a raw_tp context: the tracepoint's arguments (unused) */
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	for (int i = 0; i < times; i++) {
		if (bpf_prog_test_run_opts(fd, &o))
			return -errno;
		if (o.retval)
			return -EPROTO;
	}
	return 0;
}

static int run_on(const struct bpf_program *prog, int cpu, int times)
{
	return run_fd_on(bpf_program__fd(prog), cpu, times);
}

/*
 * Run program @fd @times times in our own task, on the CPU we are on: BPF_F_TEST_RUN_ON_CPU
 * with another CPU runs it there from an IPI, in whatever task that CPU was running.
 */
static int run_fd_here(int fd, int times)
{
	__u64 args[2] = {};
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));

	for (int i = 0; i < times; i++) {
		if (bpf_prog_test_run_opts(fd, &o))
			return -errno;
		if (o.retval)
			return -EPROTO;
	}
	return 0;
}

/* The programs and counters of the tpstat object loaded by tpstat_open(). */
static struct tpstat_progs tp2;

static __u64 slot_count(int slot, int idx)
{
	return tpstat_progs_count(&tp2, TPSTAT_PLANE_COUNT, slot, idx);
}

static __u64 all_slots(int idx)
{
	__u64 sum = 0;

	for (int s = 0; s < TPSTAT_NR_SLOTS; s++)
		sum += slot_count(s, idx);
	return sum;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A tpstat object counting two tracepoints, counting for @filter: as tpstat loads it, the
 * programs of tracepoints 0 and 1 (tp2.p[].fd) are copies of tpstat_0 with their index
 * patched in (src/tpstat_progs.c), the counters sized for two.
 */
static struct tpstat_bpf *tpstat_open(enum tpstat_filter filter)
{
	static const bool plain[2];
	struct tpstat_bpf *skel = tpstat_bpf__open();
	struct bpf_program *p;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	skel->rodata->filter = filter;
	if (tpstat_progs_setup(&tp2, skel, 2, plain, false) || tpstat_bpf__load(skel) ||
	    tpstat_progs_load(&tp2)) {
		tpstat_progs_close(&tp2);
		tpstat_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

static void tpstat_close(struct tpstat_bpf *skel)
{
	tpstat_progs_close(&tp2);
	tpstat_bpf__destroy(skel);
}

static void test_count_tp(void)
{
	struct tpstat_bpf *skel = tpstat_open(TPSTAT_FILTER_NONE);
	unsigned long long before = mono_ns();
	__u64 want_set = 0, sum = 0, other = 0;
	char name[128];
	bool exact = true;
	int err = 0;

	if (!ASSERT_TRUE(skel, "tpstat: load the programs of tracepoints 0 and 1 unfiltered"))
		return;
	ASSERT_TRUE(tp2.p[0].fd >= 0 && tp2.p[1].fd >= 0 && tp2.p[0].fd != tp2.p[1].fd &&
		    !strcmp(tp2.p[0].name, "tpstat_0") && !strcmp(tp2.p[1].name, "tpstat_1"),
		    "two programs, tpstat_0 (libbpf's) and tpstat_1 (its copy, index 1 patched in)");
	/* CPU n-1 first, so the first CPU is the last one: first_cpu is not 0 by luck. */
	for (int cpu = ncpu - 1; cpu >= 0 && !err; cpu--)
		err = run_fd_on(tp2.p[0].fd, cpu, 10 * (cpu + 1));
	ASSERT_EQ(err, 0, "tpstat_0 ran 10 x (cpu + 1) times on every CPU");
	for (int cpu = 0; cpu < ncpu; cpu++) {
		exact &= slot_count(cpu, 0) == 10ULL * (cpu + 1);
		sum += slot_count(cpu, 0);
		want_set |= 1ULL << cpu;
	}
	for (int s = 0; s < TPSTAT_NR_SLOTS; s++) {
		other += slot_count(s, 1);
		if (s >= ncpu)
			other += slot_count(s, 0);
	}
	snprintf(name, sizeof(name), "each CPU's slot holds exactly its runs (%llu in all)",
		 (unsigned long long)sum);
	ASSERT_TRUE(exact, name);
	ASSERT_EQ_U64(other, 0, "no other slot and no other index counted anything");
	ASSERT_EQ_U64(tp2.tps[0].cpus[0], want_set, "the CPU set is every CPU that ran it");
	ASSERT_EQ_U64(tp2.tps[0].ncpus, ncpu, "ncpus counts each CPU once");
	ASSERT_EQ_U64(tp2.tps[0].first_cpu, ncpu, "first_cpu is the first CPU (plus one)");
	ASSERT_TRUE(tp2.tps[0].first_ns >= before && tp2.tps[0].first_ns <= mono_ns(),
		    "first_ns is the time of that first run");
	ASSERT_EQ_U64(tp2.tps[0].cpus_beyond, 0, "no CPU beyond the set");
	ASSERT_EQ_U64(tp2.tps[1].first_cpu, 0, "tracepoint 1 has not been hit");

	err = run_fd_on(tp2.p[1].fd, ncpu - 1, 3);
	ASSERT_EQ(err, 0, "tpstat_1 ran 3 times on the last CPU");
	ASSERT_EQ_U64(slot_count(ncpu - 1, 1), 3, "it counts in its own index");
	ASSERT_EQ_U64(slot_count(ncpu - 1, 0), 10ULL * ncpu, "leaving index 0 alone");
	ASSERT_EQ_U64(tp2.tps[1].cpus[0], 1ULL << (ncpu - 1), "with its own CPU set");
	tpstat_close(skel);
}

/* -p/-t: runs count only when the current task (ours, run_fd_here()) is a target. */
static void test_filter(enum tpstat_filter filter, const char *what, __u32 self)
{
	struct tpstat_bpf *skel = tpstat_open(filter);
	__u32 other = 1;	/* init: never us */
	__u8 one = 1;
	char name[128];
	int fd;

	snprintf(name, sizeof(name), "tpstat: load with the %s filter", what);
	if (!ASSERT_TRUE(skel, name))
		return;
	fd = bpf_map__fd(skel->maps.targets);
	bpf_map_update_elem(fd, &other, &one, BPF_ANY);
	ASSERT_EQ(run_fd_here(tp2.p[0].fd, 5), 0, "5 runs while only init is a target");
	snprintf(name, sizeof(name), "%s filter: a task not in targets is not counted", what);
	ASSERT_EQ_U64(all_slots(0), 0, name);
	bpf_map_update_elem(fd, &self, &one, BPF_ANY);
	ASSERT_EQ(run_fd_here(tp2.p[0].fd, 7), 0, "7 runs with us in targets");
	snprintf(name, sizeof(name), "%s filter: ours are, exactly", what);
	ASSERT_EQ_U64(all_slots(0), 7, name);
	tpstat_close(skel);
}

struct drawn {
	__u64 cookie[3 * COOKIE_BATCH];
	int n;
	int bad;	/* wrong kind or size, or more than fit */
};

static int on_event(void *ctx, void *data, size_t len)
{
	const struct cookie_event *ev = data;
	struct drawn *d = ctx;

	if (len < sizeof(*ev) || ev->kind != COOKIE_EVENT_TPGEN || d->n == 3 * COOKIE_BATCH)
		d->bad++;
	else
		d->cookie[d->n++] = ev->cookie;
	return 0;
}

struct cookie_test {
	struct cookie_bpf *skel;
	struct ring_buffer *rb;
	struct drawn d;
	int state_fd, batch_fd, nr_possible;
};

static struct cookie_state get_state(struct cookie_test *t)
{
	struct cookie_state st = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(t->state_fd, &zero, &st);
	return st;
}

static void set_state(struct cookie_test *t, struct cookie_state st)
{
	__u32 zero = 0;

	bpf_map_update_elem(t->state_fd, &zero, &st, BPF_ANY);
}

/*
 * @cpu's batch; with @nesting >= 0 or @used_up, changed (nesting set, cur moved to end) and
 * written back first (a per-CPU map is read and written for every possible CPU at once).
 */
static struct cookie_batch edit_batch(struct cookie_test *t, int cpu, int nesting, bool used_up)
{
	struct cookie_batch *all = calloc(t->nr_possible, sizeof(*all)), b = {};
	__u32 zero = 0;

	if (!all)
		return b;
	bpf_map_lookup_elem(t->batch_fd, &zero, all);
	if (nesting >= 0)
		all[cpu].nesting = nesting;
	if (used_up)
		all[cpu].cur = all[cpu].end;
	if (nesting >= 0 || used_up)
		bpf_map_update_elem(t->batch_fd, &zero, all, BPF_ANY);
	b = all[cpu];
	free(all);
	return b;
}

/* Draw @n cookies on @cpu and collect what the ring buffer reports. */
static int draw_on(struct cookie_test *t, int cpu, int n)
{
	int err = run_on(t->skel->progs.cookie_tpgen, cpu, n);

	t->d.n = 0;
	t->d.bad = 0;
	ring_buffer__consume(t->rb);
	return err;
}

/* The cookies collected are @first, @first + 1, ... (@n of them, nothing else). */
static bool consecutive(const struct drawn *d, __u64 first, int n)
{
	if (d->n != n || d->bad)
		return false;
	for (int i = 0; i < n; i++)
		if (d->cookie[i] != first + i)
			return false;
	return true;
}

static void test_draw(void)
{
	static struct cookie_test t;
	struct cookie_state st, st2;
	struct cookie_batch b, b2;
	struct bpf_program *p;
	int other = ncpu > 1 ? 1 : 0;
	__u64 next;

	t.nr_possible = libbpf_num_possible_cpus();
	t.skel = cookie_bpf__open();
	if (!ASSERT_TRUE(t.skel, "cookie: open the object"))
		return;
	bpf_object__for_each_program(p, t.skel->obj)
		bpf_program__set_autoload(p, p == t.skel->progs.cookie_tpgen);
	if (!ASSERT_EQ(cookie_bpf__load(t.skel), 0, "cookie: load cookie_tpgen")) {
		cookie_bpf__destroy(t.skel);
		return;
	}
	t.state_fd = bpf_map__fd(t.skel->maps.state);
	t.batch_fd = bpf_map__fd(t.skel->maps.batch);
	t.rb = ring_buffer__new(bpf_map__fd(t.skel->maps.events), on_event, &t.d, NULL);
	if (!ASSERT_TRUE(t.rb, "cookie: read its ring buffer"))
		goto out;
	{
		/* Events are written only for a registered follower (cookie --follow): us. */
		__u32 zero = 0, me = getpid();

		ASSERT_EQ(bpf_map_update_elem(bpf_map__fd(t.skel->maps.follower), &zero, &me, BPF_ANY),
			  0, "cookie: follow its events");
	}
	set_state(&t, (struct cookie_state){ .next = 1, .limit = 1ULL << 40 });

	/* Batches: one fetch-add of COOKIE_BATCH each, used up in order. */
	ASSERT_EQ(draw_on(&t, 0, COOKIE_BATCH + 3), 0, "COOKIE_BATCH + 3 draws on CPU 0");
	ASSERT_TRUE(consecutive(&t.d, 1, COOKIE_BATCH + 3), "they are 1, 2, ... COOKIE_BATCH + 3");
	st = get_state(&t);
	ASSERT_EQ_U64(st.batches, 2, "from two batches");
	ASSERT_EQ_U64(st.next, 1 + 2 * COOKIE_BATCH, "each reserved by one fetch-add");
	ASSERT_EQ_U64(st.tpgen_cookies, COOKIE_BATCH + 3, "tpgen_cookies counts every draw");
	if (ncpu > 1) {
		ASSERT_EQ(draw_on(&t, other, 5), 0, "5 draws on CPU 1");
		ASSERT_TRUE(consecutive(&t.d, 1 + 2 * COOKIE_BATCH, 5),
			    "CPU 1 takes its own batch, after CPU 0's");
		ASSERT_EQ(draw_on(&t, 0, 1), 0, "one more on CPU 0");
		ASSERT_TRUE(consecutive(&t.d, COOKIE_BATCH + 4, 1), "goes on in CPU 0's batch");
	}

	/* Nested in another program (an interrupt): the global counter, the batch untouched. */
	st = get_state(&t);
	b = edit_batch(&t, 0, 1, false);
	ASSERT_EQ(draw_on(&t, 0, 2), 0, "2 draws nested in a program on CPU 0");
	ASSERT_TRUE(consecutive(&t.d, st.next, 2), "come from the global counter, one by one");
	st2 = get_state(&t);
	ASSERT_EQ_U64(st2.next, st.next + 2, "which moved by 2");
	ASSERT_EQ_U64(st2.batches, st.batches, "no batch taken");
	b2 = edit_batch(&t, 0, -1, false);
	ASSERT_TRUE(b2.cur == b.cur && b2.end == b.end, "the interrupted batch is untouched");
	ASSERT_EQ_U64(b2.nesting, 1, "and nesting is put back to the outer program's");

	/* A batch cut short by the durable limit: 10 cookies, then refusals. */
	st = get_state(&t);
	next = st.next;
	st.limit = next + 10;
	set_state(&t, st);
	edit_batch(&t, 0, 0, true);
	ASSERT_EQ(draw_on(&t, 0, 12), 0, "12 draws on CPU 0 with 10 cookies below the limit");
	ASSERT_TRUE(consecutive(&t.d, next, 10), "the 10 below the limit are drawn, in order");
	st2 = get_state(&t);
	ASSERT_EQ_U64(st2.denied, st.denied + 2, "the other 2 are refused (denied)");
	ASSERT_EQ_U64(st2.need_room, 1, "the refusal raised need_room");
	ASSERT_EQ_U64(st2.room_requests, st.room_requests + 1, "one room request, not two");
	ASSERT_EQ_U64(st2.next, next + COOKIE_BATCH, "only the batch's fetch-add moved next");
	ASSERT_EQ_U64(st2.tpgen_cookies, st.tpgen_cookies + 10, "tpgen_cookies counts the 10");

	/* At the limit the counter is not pushed on by refusals (the CPU's batch used up). */
	edit_batch(&t, other, 0, true);
	ASSERT_EQ(draw_on(&t, other, 3), 0, "3 more draws on another CPU");
	ASSERT_EQ(t.d.n, 0, "none is reported");
	st = get_state(&t);
	ASSERT_EQ_U64(st.next, st2.next, "next stays where it was (refused before the add)");
	ASSERT_EQ_U64(st.denied, st2.denied + 3, "3 more denied");
	ASSERT_EQ_U64(st.room_requests, st2.room_requests, "need_room already up: no new request");
out:
	ring_buffer__free(t.rb);
	cookie_bpf__destroy(t.skel);
}

int main(void)
{
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 64)
		ncpu = 64;	/* one word of the CPU set is enough for the guest */
	if (!ASSERT_EQ(tpstat_progs_register(), 0, "tpstat's raw_tp loader registered with libbpf"))
		return test_done();
	test_count_tp();
	test_filter(TPSTAT_FILTER_TGID, "-p (tgid)", (__u32)getpid());
	test_filter(TPSTAT_FILTER_TID, "-t (tid)", (__u32)gettid());
	test_draw();
	return test_done();
}
