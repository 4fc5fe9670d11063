// SPDX-License-Identifier: GPL-2.0
/*
 * runloop: the tools' run loop (src/runloop.c) on the host: a command's exit status as a
 * shell gives it, Ctrl-C passed on to the command (the loop ends when the command does,
 * so the tool still prints), signals with no command, SIGUSR1, -r's keep-going mode, and
 * ticks that never come after the deadline, watched descriptors served from inside the
 * loop, and a second Ctrl-C during the final report dropped. Nothing here depends on how
 * fast the host is.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include "src/runloop.h"
#include "tests/unit/test.h"

struct served {
	int calls;
	char got[16];
	struct runloop *rl;
	bool stop_after;
};

static void on_readable(int fd, short revents, void *arg)
{
	struct served *sv = arg;
	ssize_t n = read(fd, sv->got, sizeof(sv->got) - 1);

	sv->got[n > 0 ? n : 0] = 0;
	if (revents & POLLIN)
		sv->calls++;
	if (sv->stop_after)
		runloop_stop(sv->rl);
}

int main(void)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *sleep10[] = { "sleep", "10", NULL };
	char *missing[] = { "/nonexistent/cmd", NULL };
	char *true_[] = { "true", NULL };
	struct runloop rl;
	enum runloop_event ev;
	unsigned long ticks = 0;
	bool late = false;

	/*
	 * The commands below must die of the SIGINT the loop passes on, whatever the test was
	 * started from: a shell's background job (`make test &`, or run-all's host tests beside
	 * the VM tests when run-all itself is one) has SIGINT ignored, and an exec keeps that.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);

	runloop_init(&rl, "runloop", 0, 0, false);
	runloop_start(&rl, exit3);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "command ends: the loop stops");
	ASSERT_EQ(rl.cmd_status, 3, "its exit status");
	ASSERT_EQ(rl.child, 0, "and it is reaped");
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "stopped stays stopped");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0, 0, false);
	runloop_start(&rl, sleep10);
	raise(SIGINT);	/* blocked: pending until the loop takes it */
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "Ctrl-C with a command: stops when it ends");
	ASSERT_EQ(rl.cmd_status, 128 + SIGINT, "the command got the SIGINT (status 130)");
	ASSERT_TRUE(rl.interrupted, "interrupted is set");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0, 0, false);
	raise(SIGTERM);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "SIGTERM with no command stops the loop");
	ASSERT_EQ(rl.cmd_status, -1, "no command status");
	runloop_finish(&rl);

	/* A daemon's SIGHUP (cookie-gend): blocked once asked for, then a stop like SIGTERM. */
	runloop_init(&rl, "runloop", 0, 0, false);
	ASSERT_EQ(runloop_stop_on(&rl, SIGHUP), 0, "runloop_stop_on(SIGHUP)");
	raise(SIGHUP);	/* would kill the test if it were not blocked now */
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "SIGHUP stops the loop");
	ASSERT_EQ(rl.stop_signal, SIGHUP, "stop_signal says which signal");
	ASSERT_TRUE(rl.interrupted, "interrupted is set");
	runloop_finish(&rl);
	ASSERT_EQ(runloop_stop_on(&rl, SIGCHLD), -EINVAL, "SIGCHLD is the loop's own: refused");

	runloop_init(&rl, "runloop", 0, 0, true);
	raise(SIGUSR1);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_USR1, "SIGUSR1 is an event when asked for");
	runloop_stop(&rl);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "runloop_stop ends the loop");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0, 0, false);
	runloop_start(&rl, missing);
	runloop_next(&rl);
	ASSERT_EQ(rl.cmd_status, 127, "a command that cannot run: status 127");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0, 0, false);
	rl.keep_going = true;
	runloop_start(&rl, true_);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_EXITED, "keep_going: the command's end is an event");
	ASSERT_EQ(rl.cmd_status, 0, "with its status");
	runloop_start(&rl, exit3);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_EXITED, "a second run");
	ASSERT_EQ(rl.cmd_status, 3, "with the second status");
	runloop_stop(&rl);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "then the caller stops");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0.01, 0.055, false);
	while ((ev = runloop_next(&rl)) == RUNLOOP_TICK) {
		ticks++;
		late |= rl.now >= rl.end;
	}
	ASSERT_EQ(ev, RUNLOOP_STOP, "-i with -d: stops at the deadline");
	ASSERT_TRUE(rl.now >= rl.end, "not before it");
	ASSERT_TRUE(!late && ticks <= 5 && ticks == rl.ticks, "no tick at or after the deadline");
	runloop_finish(&rl);

	runloop_init(&rl, "runloop", 0, 0, false);
	runloop_start(&rl, sleep10);
	runloop_finish(&rl);
	ASSERT_EQ(rl.child, 0, "finish ends a command still running");

	runloop_init(&rl, "runloop", 0, 0, false);
	rl.keep_going = true;
	runloop_start(&rl, sleep10);
	raise(SIGINT);
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_EXITED, "keep_going after Ctrl-C: the end is seen");
	ASSERT_EQ(rl.cmd_status, 128 + SIGINT, "the command got the SIGINT");
	ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "and the next call stops (no rerun)");
	raise(SIGINT);	/* a second Ctrl-C while the tool prints its report */
	runloop_finish(&rl);
	ASSERT_TRUE(true, "a Ctrl-C pending at finish is dropped, not delivered");

	{
		struct served sv = { .rl = &rl };
		int p[2], many[2 * RUNLOOP_MAX_FDS], err = 0;

		if (pipe(p))
			return 1;
		runloop_init(&rl, "runloop", 0.01, 0, false);
		sv.rl = &rl;
		ASSERT_EQ(runloop_watch_fd(&rl, p[0], POLLIN, on_readable, &sv), 0, "watch a pipe");
		if (write(p[1], "scrape", 6) != 6)
			return 1;
		ASSERT_EQ(runloop_next(&rl), RUNLOOP_TICK, "a served descriptor is not an event");
		ASSERT_EQ(sv.calls, 1, "its callback ran once, inside runloop_next");
		ASSERT_STREQ(sv.got, "scrape", "and read what was written");
		ASSERT_EQ(runloop_next(&rl), RUNLOOP_TICK, "an idle descriptor: ticks go on");
		ASSERT_EQ(sv.calls, 1, "and no callback without data");
		sv.stop_after = true;
		if (write(p[1], "x", 1) != 1)
			return 1;
		ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "a callback may stop the loop");
		ASSERT_EQ(sv.calls, 2, "after it ran");
		runloop_finish(&rl);

		runloop_init(&rl, "runloop", 0, 0.02, false);
		sv = (struct served){ .rl = &rl };
		runloop_watch_fd(&rl, p[0], POLLIN, on_readable, &sv);
		ASSERT_EQ(runloop_watch_fd(&rl, p[0], POLLIN, NULL, NULL), 0, "stop watching it");
		ASSERT_EQ(runloop_watch_fd(&rl, p[0], POLLIN, NULL, NULL), -ENOENT,
			  "stopping twice: -ENOENT");
		if (write(p[1], "y", 1) != 1)
			return 1;
		ASSERT_EQ(runloop_next(&rl), RUNLOOP_STOP, "unwatched: the deadline ends the loop");
		ASSERT_EQ(sv.calls, 0, "without a callback");
		for (int i = 0; i < RUNLOOP_MAX_FDS && !err; i++) {
			if (pipe(&many[2 * i]))
				return 1;
			err = runloop_watch_fd(&rl, many[2 * i], POLLIN, on_readable, &sv);
		}
		ASSERT_EQ(err, 0, "RUNLOOP_MAX_FDS descriptors can be watched");
		ASSERT_EQ(runloop_watch_fd(&rl, p[0], POLLIN, on_readable, &sv), -ENOSPC,
			  "one more: -ENOSPC");
		runloop_finish(&rl);
	}
	return test_done();
}
