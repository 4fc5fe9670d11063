// SPDX-License-Identifier: GPL-2.0
/*
 * metrics-export: --textfile on the run loop (src/metrics_export.c) as the tools use it: the
 * file written when the loop starts, again every period, and a last time at close; a write
 * that fails said once however often it fails, and said again once it works, through the
 * tool's own log when it has one (cookie-gend's syslog). No kernel, no BPF: host-safe (TAP).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "src/metrics_export.h"
#include "src/runloop.h"
#include "tests/unit/test.h"

static int renders;
static char said[16][256];
static int nsaid;

static void render(void *arg, struct metrics *m)
{
	renders++;
	metrics_family(m, "bareatom_test_renders", METRICS_COUNTER, NULL, "Renders so far.");
	metrics_u64(m, NULL, 0, renders);
}

static void log_to(int prio, const char *fmt, ...)
{
	va_list ap;

	if (nsaid == 16)
		return;
	va_start(ap, fmt);
	vsnprintf(said[nsaid++], sizeof(said[0]), fmt, ap);
	va_end(ap);
}

static int count_said(const char *prefix)
{
	int n = 0;

	for (int i = 0; i < nsaid; i++)
		n += !strncmp(said[i], prefix, strlen(prefix));
	return n;
}

/* Run @rl for @secs: the callbacks run from inside runloop_next. */
static void run_for(struct runloop *rl, double secs)
{
	rl->end = rl->now + secs;
	while (runloop_next(rl) != RUNLOOP_STOP)
		;
	rl->stopped = false;
	rl->end = 0;
}

int main(void)
{
	char dir[] = "/tmp/metrics-export.XXXXXX", sub[64], path[96];
	struct metrics_export x;
	struct runloop rl;
	struct stat st;

	if (!mkdtemp(dir))
		return 1;
	snprintf(sub, sizeof(sub), "%s/missing", dir);
	snprintf(path, sizeof(path), "%s/x.prom", sub);
	ASSERT_EQ(metrics_export_open(&x, "metrics-export", NULL, path, 0.05, render, NULL), 0,
		  "open with a textfile only");
	x.log = log_to;
	runloop_init(&rl, "metrics-export", 0, 0, false);
	ASSERT_EQ(metrics_export_watch(&x, &rl), 0, "watched by the run loop");
	run_for(&rl, 0.3);
	ASSERT_TRUE(renders >= 3, "the textfile is rendered every period (0.05 s) while it fails");
	ASSERT_EQ(count_said("cannot write "), 1, "the failure is said once, through the tool's log");
	ASSERT_STRSTR(said[0], "x.prom: No such file or directory", "with the path and why");

	mkdir(sub, 0755);
	run_for(&rl, 0.2);
	ASSERT_EQ(count_said("cannot write "), 1, "nothing more about the failure");
	ASSERT_EQ(count_said(path), 1, "and once that it works again");
	ASSERT_STRSTR(said[nsaid - 1], " is written again", "in these words");
	ASSERT_EQ(stat(path, &st), 0, "the textfile is there");

	renders = 0;
	ASSERT_EQ(metrics_export_close(&x, &rl), 0, "close: the last write worked (0)");
	ASSERT_EQ(renders, 1, "close wrote it one last time");
	runloop_finish(&rl);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	return test_done();
}
