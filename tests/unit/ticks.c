// SPDX-License-Identifier: GPL-2.0
/*
 * ticks: clock_next_tick, the interval clock of tpstat and eht-hosts -w (no kernel needed).
 * The next tick is start + k * interval, the first after now, found in constant time
 * however late now is (the old "while (next <= now) next += i" loop spun for ever at
 * tiny intervals, and took 1e10 steps for a 1 ms interval 1e7 s late). TAP output.
 */
#include <stdio.h>
#include "src/cli.h"
#include "src/clock.h"
#include "tests/unit/test.h"

static void check(double start, double interval, double now, double want, const char *what)
{
	double got = clock_next_tick(start, interval, now);
	int good = got > now && got - want < interval * 1e-6 && want - got < interval * 1e-6;
	char name[256];

	snprintf(name, sizeof(name), "%s: next tick %.9f (want %.9f)", what, got, want);
	test_report(good, name);
}

int main(void)
{
	check(100, 1, 100, 101, "at the start: one interval on");
	check(100, 1, 100.5, 101, "within the first interval");
	check(100, 1, 101, 102, "exactly on a tick: the one after");
	check(100, 0.2, 103.05, 103.2, "late by many ticks: skips them (no catch-up burst)");
	check(5000, CLI_MIN_INTERVAL, 5000 + 1e7, 5000 + 1e7 + CLI_MIN_INTERVAL,
	      "1 ms interval, 1e7 s late: one step");
	check(1e6, 0.1, 1e6 + 0.3, 1e6 + 0.4, "rounding at 0.1 s steps: still after now");
	check(100, 1, 99, 101, "a clock before the start: the first tick");
	return test_done();
}
