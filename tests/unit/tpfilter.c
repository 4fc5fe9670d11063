// SPDX-License-Identifier: GPL-2.0
/*
 * --filter on the host: 'EXPR OP VALUE' split, VALUE resolved against EXPR's type in the BTF
 * of Debian's 6.1 kernel (build/vmlinux.h's, argv[1]) and in a small BTF made here for the
 * cases the kernel's does not have, and the comparison itself (bpf/tpfilter_eval.h, the code
 * tpstat's programs run). Every refusal is checked for its one-line reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "src/tpfilter.h"
#include "tests/unit/test.h"

static struct btf *btf;
static char err[512];

/* @text splits into @expr, @op and @value. */
static void split_ok(const char *text, const char *expr, enum tpfilter_op op, const char *value)
{
	struct tpfilter_text t;
	char name[600];
	int ret = tpfilter_split(text, &t, err, sizeof(err));

	snprintf(name, sizeof(name), "'%s' is '%s' %s '%s'", text, expr, tpfilter_op_str(op), value);
	ASSERT_TRUE(!ret && !strcmp(t.expr, expr) && t.op == op && !strcmp(t.value, value), name);
	if (ret)
		printf("#   %s\n", err);
}

/* @text does not split, and the reason has @want. */
static void split_refused(const char *text, const char *want)
{
	struct tpfilter_text t;
	char name[700];
	int ret = tpfilter_split(text, &t, err, sizeof(err));

	snprintf(name, sizeof(name), "'%s' refused: %s", text, ret ? err : "(accepted)");
	ASSERT_TRUE(ret == -EINVAL && strstr(err, want), name);
	if (!ret || !strstr(err, want))
		printf("#   want '%s'\n", want);
}

/* Resolve @text on tracepoint @tp of the kernel's BTF: 0 and @flt, or -EINVAL and err. */
static int resolve(const struct btf *b, const char *tp, const char *text, struct tpfilter *flt)
{
	struct tpfilter_text t;
	struct tpfield_proto p;

	memset(flt, 0, sizeof(*flt));
	err[0] = '\0';
	if (tpfilter_split(text, &t, err, sizeof(err)))
		return -EINVAL;
	flt->key = tpfilter_key(t.expr);
	if (flt->key == TPFILTER_KEY_EXPR &&
	    (tpfield_proto(b, tp, &p) ||
	     tpfield_compile(b, &p, t.expr, &flt->field, err, sizeof(err))))
		return -ENOENT;
	return tpfilter_resolve(b, &t, flt, err, sizeof(err));
}

static void resolve_ok(const char *tp, const char *text, enum tpfilter_op op, __u64 value)
{
	struct tpfilter flt;
	char name[600];
	int ret = resolve(btf, tp, text, &flt);

	snprintf(name, sizeof(name), "%s:'%s' is %s %lld", tp, text, tpfilter_op_str(op),
		 (long long)value);
	ASSERT_TRUE(!ret && flt.op == op && flt.value == value, name);
	if (ret)
		printf("#   %d: %s\n", ret, err);
	else if (flt.value != value)
		printf("#   value %llu\n", (unsigned long long)flt.value);
}

static void resolve_refused(const struct btf *b, const char *tp, const char *text,
			    const char *want)
{
	struct tpfilter flt;
	char name[700];
	int ret = resolve(b, tp, text, &flt);

	snprintf(name, sizeof(name), "%s:'%s' refused: %s", tp, text, ret ? err : "(accepted)");
	ASSERT_TRUE(ret == -EINVAL && strstr(err, want), name);
	if (ret != -EINVAL || !strstr(err, want))
		printf("#   want '%s'\n", want);
}

static void test_split(void)
{
	split_ok("seq & 1", "seq", TPFILTER_AND, "1");
	split_ok("seq&1", "seq", TPFILTER_AND, "1");
	split_ok("  prev->pid==1 ", "prev->pid", TPFILTER_EQ, "1");
	split_ok("cfs_rq->rq->cpu != 0", "cfs_rq->rq->cpu", TPFILTER_NE, "0");
	split_ok("p->prio < 100", "p->prio", TPFILTER_LT, "100");
	split_ok("p->prio<=100", "p->prio", TPFILTER_LE, "100");
	split_ok("ctx->count > 0x10", "ctx->count", TPFILTER_GT, "0x10");
	split_ok("a->b.c[2] >= -5", "a->b.c[2]", TPFILTER_GE, "-5");
	split_ok("comm == \"my task\"", "comm", TPFILTER_EQ, "\"my task\"");
	/* A quoted comm may hold operator bytes: a task can name itself "a=b" or "<x>". */
	split_ok("comm == \"a=b\"", "comm", TPFILTER_EQ, "\"a=b\"");
	split_ok("comm != '<x>&!'", "comm", TPFILTER_NE, "'<x>&!'");
	split_refused("comm == a=b", "one operator per filter");
	split_refused("seq", "no operator");
	split_refused("prev->pid", "no operator");
	split_refused("seq = 1", "'==' compares");
	split_refused("seq ! 1", "'!=' compares");
	split_refused("seq && 1", "give --filter once per condition");
	split_refused("== 1", "needs an EXPR on its left");
	split_refused("seq >=", "needs a VALUE on its right");
	split_refused("seq < 1 < 2", "one operator per filter");
	split_refused("seq >> 2", "one operator per filter");
	split_refused("seq &= 2", "one operator per filter");
}

static void test_keys(void)
{
	ASSERT_EQ(tpfilter_key("cpu"), TPFILTER_KEY_CPU, "cpu is the kernel's CPU");
	ASSERT_EQ(tpfilter_key("pid"), TPFILTER_KEY_PID, "pid is the current tgid");
	ASSERT_EQ(tpfilter_key("comm"), TPFILTER_KEY_COMM, "comm is the task's name");
	ASSERT_EQ(tpfilter_key("cgroup"), TPFILTER_KEY_CGROUP, "cgroup is the v2 cgroup id");
	ASSERT_EQ(tpfilter_key("seq"), TPFILTER_KEY_EXPR, "anything else is a field EXPR");
	ASSERT_EQ(tpfilter_key("cpus"), TPFILTER_KEY_EXPR, "only the whole word is a key");
}

static void test_kernel(void)
{
	struct tpfilter flt;

	/* sched_switch(bool preempt, struct task_struct *prev, *next, unsigned int prev_state) */
	resolve_ok("sched_switch", "prev_state == 0", TPFILTER_EQ, 0);
	resolve_ok("sched_switch", "prev_state & 0x2", TPFILTER_AND, 2);
	resolve_ok("sched_switch", "prev_state <= 4294967295", TPFILTER_LE, 4294967295ULL);
	resolve_refused(btf, "sched_switch", "prev_state == 4294967296",
			"4294967296 is out of range for unsigned int (32 bits)");
	resolve_refused(btf, "sched_switch", "prev_state > -1", "-1 is negative, and unsigned int "
			"is unsigned");
	resolve_ok("sched_switch", "prev->prio < 100", TPFILTER_LT, 100);
	resolve_ok("sched_switch", "prev->prio >= -2147483648", TPFILTER_GE, (__u64)-2147483648LL);
	ASSERT_TRUE(!resolve(btf, "sched_switch", "prev->prio > -1", &flt) && flt.is_signed &&
		    flt.value == ~0ULL, "an int field compares as signed, -1 sign-extended");
	resolve_refused(btf, "sched_switch", "prev->prio == 2147483648",
			"2147483648 is out of range for int (32 bits)");
	resolve_refused(btf, "sched_switch", "prev->prio == -2147483649", "out of range for int");
	resolve_refused(btf, "sched_switch", "prev->prio == 99999999999999999999",
			"out of range for int");
	resolve_refused(btf, "sched_switch", "prev->prio == 12ab",
			"'12ab' is neither an integer nor an enumerator in BTF");
	resolve_refused(btf, "sched_switch", "prev->prio == 0x",
			"'0x' is neither an integer nor an enumerator");
	resolve_refused(btf, "sched_switch", "prev_state == TASK_RUNNING",
			"'TASK_RUNNING' is neither an integer nor an enumerator in BTF");
	/* hrtimer_init(struct hrtimer *hrtimer, clockid_t clockid, enum hrtimer_mode mode) */
	resolve_ok("hrtimer_init", "mode == HRTIMER_MODE_REL", TPFILTER_EQ, 1);
	resolve_ok("hrtimer_init", "mode & HRTIMER_MODE_HARD", TPFILTER_AND, 8);
	resolve_ok("hrtimer_init", "mode == 1", TPFILTER_EQ, 1);
	resolve_refused(btf, "hrtimer_init", "mode == HRTIMER_MODE_NOPE",
			"'HRTIMER_MODE_NOPE' is not a value of enum hrtimer_mode: HRTIMER_MODE_ABS, "
			"HRTIMER_MODE_REL, HRTIMER_MODE_PINNED");
	/* An enumerator of any enum for an integer field (hrtimer_mode's, on a clockid_t). */
	resolve_ok("hrtimer_init", "clockid != HRTIMER_MODE_SOFT", TPFILTER_NE, 4);
	/* The keys: their own types, whatever the tracepoint. */
	resolve_ok("sched_switch", "cpu == 3", TPFILTER_EQ, 3);
	resolve_ok("sched_switch", "pid != 1", TPFILTER_NE, 1);
	resolve_ok("sched_switch", "cgroup == 0xffffffffffffffff", TPFILTER_EQ, ~0ULL);
	resolve_refused(btf, "sched_switch", "cpu == 4294967296", "out of range for u32");
	resolve_refused(btf, "sched_switch", "pid > -1", "-1 is negative, and u32 is unsigned");
	ASSERT_TRUE(!resolve(btf, "sched_switch", "comm == kworker/0:1", &flt) &&
		    !memcmp(flt.comm, "kworker/0:1\0\0\0\0", 16), "comm == NAME: the name, NUL-padded");
	ASSERT_TRUE(!resolve(btf, "sched_switch", "comm != 'my task'", &flt) &&
		    !strcmp(flt.comm, "my task") && flt.op == TPFILTER_NE, "comm != 'quoted name'");
	ASSERT_TRUE(!resolve(btf, "sched_switch", "comm == 123456789012345", &flt) &&
		    !strcmp(flt.comm, "123456789012345"), "comm takes 15 bytes");
	resolve_refused(btf, "sched_switch", "comm == 1234567890123456", "a task name has 1 to 15 bytes");
	resolve_refused(btf, "sched_switch", "comm == ''", "a task name has 1 to 15 bytes");
	resolve_refused(btf, "sched_switch", "comm < abc", "comm takes == and != only, not '<'");
	ASSERT_TRUE(!resolve(btf, "sched_switch", "comm == \"x=1<2>&!\"", &flt) &&
		    !strcmp(flt.comm, "x=1<2>&!"), "comm == \"x=1<2>&!\": a quoted name with operator bytes");
}

/* A BTF of its own: a bitfield, 64-bit limits and an enumerator two enums disagree on. */
static void test_made(void)
{
	struct btf *b = btf__new_empty();
	struct tpfilter flt;
	int u64_id, s64_id, u8_id, e1, e2, e64u, e64s;

	u64_id = btf__add_int(b, "u64", 8, 0);
	s64_id = btf__add_int(b, "s64", 8, BTF_INT_SIGNED);
	u8_id = btf__add_int(b, "u8", 1, 0);
	e1 = btf__add_enum(b, "one", 4);
	btf__add_enum_value(b, "SHARED", 1);
	btf__add_enum_value(b, "ONLY_ONE", 7);
	e2 = btf__add_enum(b, "two", 4);
	btf__add_enum_value(b, "SHARED", 2);
	/* enum64, unsigned and signed: the top bit set means 2^63 up or a negative value. */
	e64u = btf__add_enum64(b, "wide", 8, false);
	btf__add_enum64_value(b, "WIDE_TOP", 1ULL << 63);
	btf__add_enum64_value(b, "WIDE_MAX", ~0ULL);
	e64s = btf__add_enum64(b, "swide", 8, true);
	btf__add_enum64_value(b, "SWIDE_MINUS", (__u64)-5LL);
	ASSERT_TRUE(u64_id > 0 && s64_id > 0 && u8_id > 0 && e1 > 0 && e2 > 0 && e64u > 0 &&
		    e64s > 0, "made a BTF");

	memset(&flt, 0, sizeof(flt));
	struct tpfilter_text t = { .op = TPFILTER_EQ };

	flt.field.size = 8;
	strcpy(flt.field.type, "u64");
	strcpy(t.value, "SHARED");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "'SHARED' names different values in different enums: give the "
			   "number"), "an enumerator with two values is refused as ambiguous");
	strcpy(t.value, "ONLY_ONE");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 7,
		    "an enumerator of one enum is its value");
	strcpy(flt.field.type, "enum two");
	strcpy(t.value, "SHARED");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 2,
		    "an enum field looks in its own enum only");
	strcpy(flt.field.type, "enum wide");
	strcpy(t.value, "WIDE_TOP");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 1ULL << 63,
		    "an unsigned enum64 value of 2^63 is 2^63, not negative");
	if (flt.value != 1ULL << 63)
		printf("#   %s\n", err);
	strcpy(t.value, "WIDE_MAX");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == ~0ULL,
		    "and 2^64 - 1 is 2^64 - 1");
	strcpy(flt.field.type, "u64");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == ~0ULL,
		    "an unsigned enum64's name compared with a u64 field: its value");
	strcpy(t.value, "SWIDE_MINUS");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "SWIDE_MINUS is negative, and u64 is unsigned"),
		    "a signed enum64's negative value is still negative");
	flt.field.is_signed = true;
	strcpy(flt.field.type, "s64");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == (__u64)-5LL,
		    "and is -5 for an s64 field");
	strcpy(t.value, "WIDE_TOP");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "out of range for s64"), "2^63 is out of range for an s64 field");
	flt.field.is_signed = false;
	strcpy(t.value, "18446744073709551615");
	strcpy(flt.field.type, "u64");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == ~0ULL,
		    "u64: 2^64 - 1 is in range");
	strcpy(t.value, "18446744073709551616");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "18446744073709551616 is out of range for u64"), "u64: 2^64 is not");
	flt.field.is_signed = true;
	strcpy(flt.field.type, "s64");
	strcpy(t.value, "-9223372036854775808");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 1ULL << 63,
		    "s64: -2^63 is in range");
	strcpy(t.value, "9223372036854775808");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "out of range for s64"), "s64: 2^63 is not");
	strcpy(t.value, "-0");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 0,
		    "-0 is 0");
	/* A 3-bit unsigned bitfield holds 0 to 7. */
	flt.field.is_signed = false;
	flt.field.size = 1;
	flt.field.bit_size = 3;
	strcpy(flt.field.type, "u8");
	strcpy(t.value, "7");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == 7,
		    "a 3-bit field holds 7");
	strcpy(t.value, "8");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "8 is out of range for u8 (3 bits)"), "and not 8");
	/* A signed 3-bit bitfield: -4 to 3. */
	flt.field.is_signed = true;
	strcpy(t.value, "-4");
	ASSERT_TRUE(!tpfilter_resolve(b, &t, &flt, err, sizeof(err)) && flt.value == (__u64)-4,
		    "a signed 3-bit field holds -4");
	strcpy(t.value, "4");
	ASSERT_TRUE(tpfilter_resolve(b, &t, &flt, err, sizeof(err)) == -EINVAL,
		    "and not 4");
	btf__free(b);
}

/* The comparison the programs run, on the edges of each operator. */
static void test_pass(void)
{
	ASSERT_TRUE(tpfilter_pass(5, TPFILTER_EQ, 5, false), "5 == 5");
	ASSERT_TRUE(!tpfilter_pass(5, TPFILTER_EQ, 6, false), "not 5 == 6");
	ASSERT_TRUE(tpfilter_pass(5, TPFILTER_NE, 6, false), "5 != 6");
	ASSERT_TRUE(!tpfilter_pass(5, TPFILTER_NE, 5, false), "not 5 != 5");
	ASSERT_TRUE(tpfilter_pass(4, TPFILTER_LT, 5, false) && !tpfilter_pass(5, TPFILTER_LT, 5, false),
		    "4 < 5, not 5 < 5");
	ASSERT_TRUE(tpfilter_pass(5, TPFILTER_LE, 5, false) && !tpfilter_pass(6, TPFILTER_LE, 5, false),
		    "5 <= 5, not 6 <= 5");
	ASSERT_TRUE(tpfilter_pass(6, TPFILTER_GT, 5, false) && !tpfilter_pass(5, TPFILTER_GT, 5, false),
		    "6 > 5, not 5 > 5");
	ASSERT_TRUE(tpfilter_pass(5, TPFILTER_GE, 5, false) && !tpfilter_pass(4, TPFILTER_GE, 5, false),
		    "5 >= 5, not 4 >= 5");
	ASSERT_TRUE(tpfilter_pass(3, TPFILTER_AND, 1, false) && !tpfilter_pass(2, TPFILTER_AND, 1, false),
		    "3 & 1, not 2 & 1");
	ASSERT_TRUE(tpfilter_pass((__u64)-1, TPFILTER_LT, 0, true), "signed: -1 < 0");
	ASSERT_TRUE(!tpfilter_pass((__u64)-1, TPFILTER_LT, 0, false), "unsigned: 2^64 - 1 is not < 0");
	ASSERT_TRUE(tpfilter_pass(1ULL << 63, TPFILTER_LE, 0, true) &&
		    tpfilter_pass(0, TPFILTER_GE, 1ULL << 63, true), "signed: -2^63 is the least");
	/* seq & 1 over 1..1000 keeps the 500 odd ones: what the VM test expects of tpgen. */
	int kept = 0;

	for (__u64 seq = 1; seq <= 1000; seq++)
		kept += tpfilter_pass(seq, TPFILTER_AND, 1, false);
	ASSERT_EQ(kept, 500, "seq & 1 keeps 500 of 1..1000");
}

int main(int argc, char **argv)
{
	test_split();
	test_keys();
	test_pass();
	test_made();
	btf = argc > 1 ? btf__parse(argv[1], NULL) : NULL;
	if (ASSERT_TRUE(btf, "read the kernel's BTF"))
		test_kernel();
	btf__free(btf);
	return test_done();
}
