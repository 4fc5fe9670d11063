// SPDX-License-Identifier: GPL-2.0
/*
 * tpfield: tracepoint prototypes and field expressions against the BTF build/vmlinux.h was
 * made from (Debian's 6.1 kernel, images/vmlinux-h; given as argv[1]), with the offsets
 * checked against what the C compiler makes of build/vmlinux.h (layout/kernel-layout.c), and
 * every error case of tpfield_compile() with what it offers instead. Nothing is loaded: BTF
 * is only read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "src/tpfield.h"
#include "tests/unit/test.h"

extern const unsigned long layout_cfs_rq_util_avg, layout_cfs_rq_load_avg, layout_cfs_rq_rq,
	layout_rq_cpu, layout_rq_nr_running, layout_rq_curr, layout_task_comm, layout_task_pid,
	layout_task_real_parent, layout_size_util_avg, layout_size_task;

static struct btf *btf;
static char err[TPFIELD_ERR_LEN];

static int compile(const char *tp, const char *expr, struct tpfield *f)
{
	struct tpfield_proto p;

	err[0] = '\0';
	if (tpfield_proto(btf, tp, &p))
		return -ENOENT;
	return tpfield_compile(btf, &p, expr, f, err, sizeof(err));
}

/* @expr on @tp is refused with a message containing @want. */
static void refused(const char *tp, const char *expr, const char *want)
{
	struct tpfield f;
	char name[TPFIELD_ERR_LEN + 256];
	int ret = compile(tp, expr, &f);

	snprintf(name, sizeof(name), "%s:%s refused: %s", tp, expr, err);
	ASSERT_TRUE(ret == -EINVAL && strstr(err, want), name);
	if (ret != -EINVAL || !strstr(err, want))
		printf("#   want '%s'\n", want);
}

/* "'EXPR' is N bytes past 'BASE': ..." for the first @len bytes of @expr (the step refused). */
static void past(char *buf, size_t size, const char *expr, int len, unsigned long long bytes,
		 const char *base)
{
	snprintf(buf, size, "'%.*s' is %llu bytes past '%s': one read reaches at most 4294967295 "
		 "(a 32-bit offset)", len, expr, bytes, base);
}

/*
 * A byte-aligned integer member of struct task_struct at an offset above @after: its name
 * and offset, or false when there is none.
 */
static bool member_after(unsigned long long after, const char **name, unsigned long long *off)
{
	__s32 id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		__s32 rid = btf__resolve_type(btf, m->type);
		const struct btf_type *mt = rid > 0 ? btf__type_by_id(btf, rid) : NULL;
		__u32 bits = btf_member_bit_offset(t, i);

		if (mt && btf_is_int(mt) && !btf_member_bitfield_size(t, i) && !(bits % 8) &&
		    bits / 8 > after && *btf__name_by_offset(btf, m->name_off)) {
			*name = btf__name_by_offset(btf, m->name_off);
			*off = bits / 8;
			return true;
		}
	}
	return false;
}

/*
 * Offsets past the value in hand are added up in 64 bits and refused beyond what one read
 * reaches (TPFIELD_OFF_MAX, the BPF read's u32): none may wrap into a nearer member. The
 * expressions are made from this kernel's sizeof(struct task_struct).
 */
static void test_far_offsets(void)
{
	const unsigned long long max = TPFIELD_OFF_MAX, task = layout_size_task;
	unsigned long long fit = (max - layout_task_pid) / task, top = max / task, off;
	char expr[96], msg[TPFIELD_ERR_LEN], name[256];
	struct tpfield f, f0;
	const char *member;
	unsigned long idx;
	int ret;

	/* The last task_struct whose pid one read reaches, and the next one. */
	snprintf(expr, sizeof(expr), "prev[%llu].pid", fit);
	ret = compile("sched_switch", expr, &f);
	snprintf(name, sizeof(name), "%s: the farthest pid a read reaches compiles", expr);
	ASSERT_EQ(ret, 0, name);
	ASSERT_EQ_U64(f.steps[0].off, fit * task + layout_task_pid, "at its offset, exactly");
	snprintf(expr, sizeof(expr), "prev[%llu].pid", fit + 1);
	if ((fit + 1) * task > max)	/* the index alone is too far */
		past(msg, sizeof(msg), expr, strchr(expr, '.') - expr, (fit + 1) * task, "prev");
	else
		past(msg, sizeof(msg), expr, strlen(expr), (fit + 1) * task + layout_task_pid, "prev");
	refused("sched_switch", expr, msg);

	/*
	 * The review's kind: prev[top] starts within reach, a member past what is left of the
	 * 32 bits does not (with a 3264-byte task_struct that is prev[1315860].pid); it used to
	 * wrap into a member of prev[0].
	 */
	if (member_after(max - top * task, &member, &off)) {
		snprintf(expr, sizeof(expr), "prev[%llu].%s", top, member);
		past(msg, sizeof(msg), expr, strlen(expr), top * task + off, "prev");
		refused("sched_switch", expr, msg);
	} else {
		TEST_SKIP("task_struct has no integer member past byte %llu", max - top * task);
	}
	if (1315860ULL * task > max) {
		past(msg, sizeof(msg), "prev[1315860]", 13, 1315860ULL * task, "prev");
		refused("sched_switch", "prev[1315860].pid", msg);
	} else if (1315860ULL * task + layout_task_pid > max) {
		past(msg, sizeof(msg), "prev[1315860].pid", 17, 1315860ULL * task + layout_task_pid,
		     "prev");
		refused("sched_switch", "prev[1315860].pid", msg);
	} else {
		ASSERT_TRUE(!compile("sched_switch", "prev[1315860].pid", &f) &&
			    f.steps[0].off == 1315860ULL * task + layout_task_pid,
			    "prev[1315860].pid fits this kernel's task_struct: its exact offset");
	}

	/* An index whose byte count wraps 64 bits to 0 would read next->pid. */
	if (__builtin_ctzll(task)) {
		idx = 1UL << (64 - __builtin_ctzll(task));
		snprintf(expr, sizeof(expr), "next[%lu].pid", idx);
		snprintf(msg, sizeof(msg), "'next[%lu]' is more than 2^64 bytes past 'next': one "
			 "read reaches at most 4294967295", idx);
		refused("sched_switch", expr, msg);
	}
	refused("sched_switch", "next->real_parent[2000000].pid",
		"bytes past 'next->real_parent': one read reaches at most 4294967295");

	/* A bitfield 2^29 bytes out: its bit offset is past 32 bits, its byte offset is not. */
	idx = (1UL << 29) / task + 1;
	snprintf(expr, sizeof(expr), "next[%lu].sched_reset_on_fork", idx);
	snprintf(name, sizeof(name), "%s, past 2^32 bits: compiles", expr);
	ASSERT_EQ(compile("sched_switch", "next->sched_reset_on_fork", &f0), 0,
		  "next->sched_reset_on_fork compiles");
	ASSERT_EQ(compile("sched_switch", expr, &f), 0, name);
	ASSERT_TRUE(f.steps[0].off == f0.steps[0].off + idx * task && f.bit_off == f0.bit_off &&
		    f.bit_size == f0.bit_size, "to the same bit, that many task_structs further");
}

int main(int argc, char **argv)
{
	struct tpfield_proto p;
	struct tpfield f;
	char buf[512];

	btf = argc > 1 ? btf__parse(argv[1], NULL) : NULL;
	if (!ASSERT_TRUE(btf, "the built kernel's BTF parses"))
		return test_done();

	ASSERT_EQ(tpfield_proto(btf, "pelt_cfs_tp", &p), 0, "pelt_cfs_tp has a prototype");
	tpfield_proto_str("pelt_cfs_tp", &p, buf, sizeof(buf));
	ASSERT_STREQ(buf, "pelt_cfs_tp(struct cfs_rq *cfs_rq)", "with its argument's name (__traceiter_)");
	ASSERT_TRUE(p.named, "named from __traceiter_pelt_cfs_tp");
	tpfield_proto(btf, "sched_update_nr_running_tp", &p);
	tpfield_proto_str("sched_update_nr_running_tp", &p, buf, sizeof(buf));
	ASSERT_STREQ(buf, "sched_update_nr_running_tp(struct rq *rq, int change)", "two arguments");
	tpfield_proto(btf, "sched_switch", &p);
	tpfield_proto_str("sched_switch", &p, buf, sizeof(buf));
	ASSERT_STREQ(buf, "sched_switch(bool preempt, struct task_struct *prev, "
		     "struct task_struct *next, unsigned int prev_state)", "a trace event's tracepoint");
	ASSERT_EQ(tpfield_proto(btf, "no_such_tp", &p), -ENOENT, "an unknown tracepoint: -ENOENT");

	ASSERT_EQ(compile("pelt_cfs_tp", "cfs_rq->avg.util_avg", &f), 0, "cfs_rq->avg.util_avg");
	ASSERT_TRUE(f.arg == 0 && f.nsteps == 1, "one read from argument 0");
	ASSERT_EQ(f.steps[0].off, layout_cfs_rq_util_avg, "at the compiler's offsetof");
	ASSERT_EQ(f.size, layout_size_util_avg, "of the member's size");
	ASSERT_TRUE(!f.is_signed && !f.bit_size, "unsigned, not a bitfield");
	ASSERT_EQ(compile("pelt_cfs_tp", "arg0->avg.load_avg", &f), 0, "arg0 names the same argument");
	ASSERT_EQ(f.steps[0].off, layout_cfs_rq_load_avg, "load_avg's offset");

	ASSERT_EQ(compile("pelt_cfs_tp", "cfs_rq->rq->cpu", &f), 0, "cfs_rq->rq->cpu: two reads");
	ASSERT_TRUE(f.nsteps == 2 && f.steps[0].off == layout_cfs_rq_rq && f.steps[0].size == 8 &&
		    f.steps[1].off == layout_rq_cpu && f.steps[1].size == 4 && f.is_signed,
		    "the pointer at cfs_rq + offsetof(rq), then the int at rq + offsetof(cpu)");

	ASSERT_EQ(compile("sched_update_nr_running_tp", "change", &f), 0, "an integer argument");
	ASSERT_TRUE(f.arg == 1 && f.nsteps == 0 && f.size == 4 && f.is_signed,
		    "is read from the context: no memory read, int");
	ASSERT_EQ(compile("sched_update_nr_running_tp", "arg1", &f), 0, "arg1 is change");
	ASSERT_EQ(compile("sched_update_nr_running_tp", "rq->nr_running", &f), 0, "rq->nr_running");
	ASSERT_TRUE(f.nsteps == 1 && f.steps[0].off == layout_rq_nr_running && f.size == 4 &&
		    !f.is_signed, "unsigned int at offsetof(struct rq, nr_running)");

	ASSERT_EQ(compile("sched_switch", "next->comm[3]", &f), 0, "an array element");
	ASSERT_TRUE(f.nsteps == 1 && f.steps[0].off == layout_task_comm + 3 && f.size == 1,
		    "one byte at comm + 3");
	ASSERT_EQ(compile("sched_switch", "prev->real_parent->pid", &f), 0, "prev->real_parent->pid");
	ASSERT_TRUE(f.nsteps == 2 && f.steps[0].off == layout_task_real_parent &&
		    f.steps[1].off == layout_task_pid, "pointer, then pid");
	ASSERT_EQ(compile("sched_switch", "next[0].pid", &f), 0, "a pointer indexed: next[0].pid");
	ASSERT_TRUE(f.nsteps == 1 && f.steps[0].off == layout_task_pid, "same as next->pid");
	ASSERT_EQ(compile("sched_switch", "next[1].pid", &f), 0, "next[1].pid");
	ASSERT_EQ(f.steps[0].off, layout_size_task + layout_task_pid, "one task_struct further");
	ASSERT_EQ(compile("sched_switch", "preempt", &f), 0, "a bool argument");
	ASSERT_TRUE(f.size == 1 && f.nsteps == 0, "one byte, from the context");
	ASSERT_EQ(compile("sched_switch", "next->sched_reset_on_fork", &f), 0, "a bitfield");
	ASSERT_TRUE(f.bit_size == 1 && f.bit_off < f.size * 8 && f.nsteps == 1,
		    "one bit of the unit read");

	test_far_offsets();

	refused("pelt_cfs_tp", "cfs", "no argument 'cfs'; the arguments are: struct cfs_rq *cfs_rq (arg0)");
	refused("pelt_cfs_tp", "arg1", "no argument 'arg1'");
	refused("pelt_cfs_tp", "cfs_rq->nope", "struct cfs_rq has no member 'nope' on this kernel; its members: load, nr_running");
	refused("pelt_cfs_tp", "cfs_rq->avg", "'cfs_rq->avg' is struct sched_avg, not an integer: name a member with '.'");
	refused("pelt_cfs_tp", "cfs_rq", "'cfs_rq' is struct cfs_rq *, not an integer: follow it");
	refused("pelt_cfs_tp", "cfs_rq.avg", "'cfs_rq' is struct cfs_rq *, a pointer: use '->avg'");
	refused("pelt_cfs_tp", "cfs_rq->avg->util_avg", "'cfs_rq->avg' is struct sched_avg, not a pointer: '->util_avg' needs one (use '.')");
	refused("sched_update_nr_running_tp", "change->x", "'change' is int, not a pointer");
	refused("sched_update_nr_running_tp", "change.x", "'change' is int, not a struct or union");
	refused("sched_switch", "next->comm[16]", "index 16 is beyond 'next->comm' (char[16]: 16 elements)");
	refused("sched_switch", "next->pid[0]", "only arrays and pointers take [0]");
	refused("sched_switch", "prev->real_parent->real_parent->real_parent->real_parent->"
		"real_parent->real_parent->real_parent->real_parent->pid", "is too long: at most 8 memory reads");
	refused("sched_switch", "next->comm", "is char[16], not an integer: pick an element");
	refused("sched_switch", "next->", "a member name must follow '->'");
	refused("sched_switch", "next->pid+1", "unexpected '+' after 'next->pid'");
	refused("sched_switch", "next->comm[x]", "an index is a number");
	refused("sched_switch", "9", "does not start with an argument name");
	refused("sched_switch", "next->sched_reset_on_fork.x", "is a bitfield: it must be the end");
	/* The named fields: each compiles on this kernel, or fails naming the missing member. */
	for (const struct tpfield_alias *a = tpfield_aliases; a->tp; a++) {
		char name[256];
		int ret = compile(a->tp, a->expr, &f);
		bool absent = strstr(a->expr, "avg_irq") || strstr(a->expr, "avg_thermal");
		/* pelt_hw_tp is pelt_thermal_tp's name from 6.9 on: not a tracepoint here. */
		bool newer = !strcmp(a->tp, "pelt_hw_tp");

		snprintf(name, sizeof(name), "named field %s:%s = %s %s", a->tp, a->name, a->expr,
			 ret == -ENOENT ? "skipped: no such tracepoint on this kernel" :
			 ret ? "refused: this kernel has no such member" : "compiles");
		/* avg_irq and avg_thermal exist only with their config options. */
		ASSERT_TRUE(ret == 0 || (absent && ret == -EINVAL && strstr(err, "has no member")) ||
			    (newer && ret == -ENOENT), name);
	}
	ASSERT_STREQ(tpfield_named("pelt_cfs_tp", "util"), "cfs_rq->avg.util_avg",
		     "tpfield_named: pelt_cfs_tp's util");
	ASSERT_TRUE(!tpfield_named("pelt_cfs_tp", "nr_running"), "nr_running is not pelt_cfs_tp's");
	btf__free(btf);
	return test_done();
}
