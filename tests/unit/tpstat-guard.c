// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat-guard: when tpstat's programs may update the memory one program owns with plain
 * loads and stores (src/tpstat_guard.c): only on a kernel that refuses a raw_tp program's
 * nested run on a CPU, told by its BTF (struct bpf_prog's active, the function
 * bpf_prog_inc_misses_counter) and its release; the line -v prints. TAP output.
 */
#include <stdio.h>
#include <string.h>
#include "src/tpstat_guard.h"
#include "tests/unit/test.h"

static const struct {
	struct tpstat_guard g;
	bool plain;
	const char *what;
} cases[] = {
	{ { true, true, true, 6, 1 }, true, "6.1 with active and bpf_prog_inc_misses_counter: plain" },
	{ { true, true, false, 6, 1 }, true,
	  "6.1 whose BTF lacks the (notrace) function: plain, by the release" },
	{ { true, true, false, 6, 12 }, true, "6.12: plain" },
	{ { true, true, false, 7, 0 }, true, "7.0: plain" },
	{ { true, true, false, 6, 0 }, false, "6.0 without the function: atomics" },
	{ { true, true, true, 6, 0 }, true, "6.0.10, the check backported (the function): plain" },
	{ { true, true, true, 5, 15 }, true, "a 5.15 update with the backport: plain" },
	{ { true, true, false, 5, 15 }, false, "5.15 without it: atomics" },
	{ { true, false, false, 5, 10 }, false, "5.10, no active at all: atomics" },
	{ { true, false, true, 6, 1 }, false, "6.1 whose struct bpf_prog has no active: atomics" },
	{ { false, false, false, 6, 1 }, false, "6.1 whose BTF cannot be read: atomics" },
	{ { true, true, false, 0, 0 }, false, "an unreadable release, no function: atomics" },
};

int main(void)
{
	struct tpstat_guard g;
	char line[512], release[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ASSERT_EQ(tpstat_guard_plain(&cases[i].g), cases[i].plain, cases[i].what);

	tpstat_guard_describe(&cases[0].g, "6.1.0-57-amd64", line, sizeof(line));
	ASSERT_STREQ(line, "tpstat: plain updates where one program owns the memory: this kernel "
		     "(6.1.0-57-amd64) refuses a raw_tp program's nested run "
		     "(bpf_prog_inc_misses_counter is in its BTF)", "-v: the line of a 6.1 kernel");
	tpstat_guard_describe(&cases[1].g, "6.1.0", line, sizeof(line));
	ASSERT_STRSTR(line, "refuses a raw_tp program's nested run (6.1 or later)",
		      "-v: plain by the release says so");
	tpstat_guard_describe(&cases[4].g, "6.0.9", line, sizeof(line));
	ASSERT_STREQ(line, "tpstat: atomic updates everywhere: this kernel (6.0.9) may run a raw_tp "
		     "program nested in itself (before 6.1, and no bpf_prog_inc_misses_counter in "
		     "its BTF)", "-v: the line of a kernel without the check");
	tpstat_guard_describe(&cases[8].g, "5.10.0", line, sizeof(line));
	ASSERT_STRSTR(line, "(its struct bpf_prog has no member active)", "-v: no active, said");
	tpstat_guard_describe(&cases[10].g, "6.1.0", line, sizeof(line));
	ASSERT_STRSTR(line, "atomic updates everywhere: this kernel (6.1.0) may run a raw_tp program "
		      "nested in itself (its BTF could not be read)", "-v: no BTF, said");

	/* This machine's own kernel: read, never loaded into; the choice follows what was read. */
	tpstat_guard_probe(&g, release, sizeof(release));
	ASSERT_TRUE(g.major > 0 && strchr(release, '.'), "the release of this machine's kernel is read");
	ASSERT_EQ(tpstat_guard_choose(false), tpstat_guard_plain(&g),
		  "tpstat_guard_choose() returns the choice for what it read");
	printf("# this machine: %s, BTF %d, active %d, bpf_prog_inc_misses_counter %d: %s\n",
	       release, g.has_btf, g.has_active, g.has_miss_fn,
	       tpstat_guard_plain(&g) ? "plain" : "atomics");
	return test_done();
}
