// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frames by name (src/stack_ksym.c): kallsyms text parsed from a fixture (modules,
 * BPF programs, data symbols left out, lines out of order, names sharing an address,
 * addresses hidden by kptr_restrict), lookups at, inside and below symbols; then this
 * machine's /proc/kallsyms, each address found again, and the time to load it and to name
 * frames (reported, never a pass or a failure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "src/stack_ksym.h"
#include "tests/unit/test.h"

/* Out of order on purpose: modules come last in the real file, but nothing relies on it. */
static const char fixture[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffff81002000 D some_data\n"
	"ffffffff81003000 T entry_SYSCALL_64\n"
	"ffffffffc0a01000 t tpgen_fire\t[tpgen]\n"
	"ffffffffc0a01100 T tpgen_write\t[tpgen]\n"
	"ffffffff81004000 W weak_func\n"
	"ffffffffc0a02000 d tpgen_data\t[tpgen]\n"
	"ffffffffc0000000 t bpf_prog_6deef7357e7b4530_count\t[bpf]\n"
	"ffffffff81002800 r ro_data\n"
	"0000000000000000 A fixed_percpu_data\n"
	"not a line\n"
	"ffffffff81005000 T do_syscall_64";	/* no newline at the end */

/* What a reader without CAP_SYSLOG sees under kptr_restrict. */
static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t foo\t[tpgen]\n";

static char buf[STACK_NAME_LEN];

static const char *name(const struct ksym_table *t, unsigned long long addr, unsigned int flags)
{
	ksym_name(t, addr, flags, buf, sizeof(buf));
	return buf;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This machine's kallsyms: every symbol names its own address; the cost. */
static void real_kallsyms(void)
{
	struct ksym_table t;
	double t0 = now(), load, look;
	size_t i, bad = 0, lookups = 0;
	int ret = ksym_load(&t, NULL);

	load = now() - t0;
	if (ret || t.restricted || !t.n) {
		TEST_SKIP("/proc/kallsyms: %s", ret ? strerror(-ret) : "addresses hidden");
		ksym_free(&t);
		return;
	}
	t0 = now();
	for (i = 0; i < t.n; i++) {
		const struct ksym *s = ksym_find(&t, t.syms[i].addr);

		lookups++;
		if (!s || s->addr != t.syms[i].addr)
			bad++;
	}
	look = now() - t0;
	ASSERT_EQ(bad, 0, "/proc/kallsyms: each text symbol's address finds a symbol there");
	printf("# /proc/kallsyms: %zu text symbols loaded and sorted in %.1f ms; %zu lookups, "
	       "%.0f ns each\n", t.n, load * 1e3, lookups, look * 1e9 / lookups);
	ksym_free(&t);
}

int main(void)
{
	struct ksym_table t;
	const struct ksym *s;

	ASSERT_EQ(ksym_parse(&t, fixture, strlen(fixture)), 0, "fixture parses");
	ASSERT_EQ(t.n, 9, "9 text symbols kept (data, read-only, absolute and bad lines left out)");
	ASSERT_EQ(t.restricted, 0, "fixture: addresses not hidden");
	ASSERT_STREQ(name(&t, 0xffffffff81000000ULL, STACK_NAME_OFFSET), "_stext+0x0",
		     "two names at one address: the first in the file");
	ASSERT_STREQ(name(&t, 0xffffffff81001234ULL, STACK_NAME_OFFSET), "do_one_initcall+0x234",
		     "inside a local symbol");
	ASSERT_STREQ(name(&t, 0xffffffff81002900ULL, STACK_NAME_OFFSET), "do_one_initcall+0x1900",
		     "past data symbols: the text symbol below");
	ASSERT_STREQ(name(&t, 0xffffffff81004010ULL, STACK_NAME_OFFSET), "weak_func+0x10",
		     "a weak symbol");
	ASSERT_STREQ(name(&t, 0xffffffff81005abcULL, STACK_NAME_OFFSET), "do_syscall_64+0xabc",
		     "the last line, with no newline");
	ASSERT_STREQ(name(&t, 0xffffffffc0a0101aULL, STACK_NAME_OFFSET), "tpgen_fire+0x1a [tpgen]",
		     "a module's function: func+0x1a [tpgen]");
	ASSERT_STREQ(name(&t, 0xffffffffc0a0101aULL, 0), "tpgen_fire [tpgen]",
		     "without the offset: tpgen_fire [tpgen]");
	ASSERT_STREQ(name(&t, 0xffffffffc0a02010ULL, STACK_NAME_OFFSET), "tpgen_write+0xf10 [tpgen]",
		     "a module's data symbol left out");
	ASSERT_STREQ(name(&t, 0xffffffffc0000042ULL, 0), "bpf_prog_6deef7357e7b4530_count [bpf]",
		     "a BPF program: [bpf]");
	ASSERT_STREQ(name(&t, 0xffffffff80000000ULL, STACK_NAME_OFFSET), "[kernel]+0xffffffff80000000",
		     "below every symbol: [kernel]+0xADDR");
	s = ksym_find(&t, 0xffffffff81003000ULL);
	ASSERT_TRUE(s && !strcmp(s->name, "entry_SYSCALL_64") && !s->module,
		    "ksym_find at a symbol's address: that symbol, no module");
	ksym_free(&t);

	ASSERT_EQ(ksym_parse(&t, hidden, strlen(hidden)), 0, "hidden addresses parse");
	ASSERT_TRUE(t.restricted && !t.n, "every address 0: restricted, nothing to look up");
	ASSERT_STREQ(name(&t, 0xffffffff81001234ULL, STACK_NAME_OFFSET), "[kernel]+0xffffffff81001234",
		     "restricted: [kernel]+0xADDR");
	ksym_free(&t);

	ASSERT_EQ(ksym_parse(&t, "", 0), 0, "empty text parses");
	ASSERT_EQ(t.n, 0, "empty text: no symbols");
	ksym_free(&t);
	ASSERT_EQ(ksym_load(&t, "/nonexistent/kallsyms"), -ENOENT, "a missing file: -ENOENT");

	real_kallsyms();
	return test_done();
}
