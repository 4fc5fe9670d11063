// SPDX-License-Identifier: GPL-2.0
/*
 * runloop: the tools' run loop (src/runloop.c) on the host: a command's exit status as a
 * shell gives it, Ctrl-C passed on to the command (the loop ends when the command does,
 * so the tool still prints), signals with no command, SIGUSR1, -r's keep-going mode, and
 * ticks that never come after the deadline. Nothing here depends on how fast the host is.
 */
#include <signal.h>
#include <unistd.h>
#include "runloop.h"
#include "test.h"

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
	return test_done();
}
