// SPDX-License-Identifier: GPL-2.0
/* The run loop of runloop.h, on the clock and child helpers of util.c. */
#include <stdio.h>
#include "runloop.h"
#include "util.h"

void runloop_init(struct runloop *rl, const char *prog, double interval, double duration,
		  bool usr1)
{
	*rl = (struct runloop){ .prog = prog, .interval = interval, .cmd_status = -1 };
	sigemptyset(&rl->set);
	sigaddset(&rl->set, SIGINT);
	sigaddset(&rl->set, SIGTERM);
	sigaddset(&rl->set, SIGCHLD);
	if (usr1)
		sigaddset(&rl->set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &rl->set, &rl->orig);
	rl->start = rl->now = util_now();
	if (interval)
		rl->next_tick = rl->start + interval;
	if (duration)
		rl->end = rl->start + duration;
}

pid_t runloop_start(struct runloop *rl, char **argv)
{
	fflush(NULL);	/* nothing buffered may be printed twice by the child */
	rl->child = util_start_command(rl->prog, argv, &rl->orig);
	if (rl->child < 0)
		rl->child = 0;
	return rl->child ? rl->child : -1;
}

pid_t runloop_start_gated(struct runloop *rl, char **argv, int *gate)
{
	fflush(NULL);
	rl->child = util_start_command_gated(rl->prog, argv, &rl->orig, gate);
	if (rl->child < 0)
		rl->child = 0;
	return rl->child ? rl->child : -1;
}

void runloop_stop(struct runloop *rl)
{
	rl->stopped = true;
}

enum runloop_event runloop_next(struct runloop *rl)
{
	while (!rl->stopped) {
		int sig = util_wait_signal(&rl->set, rl->next_tick, rl->end);

		rl->now = util_now();
		if (sig == SIGUSR1)
			return RUNLOOP_USR1;
		if (sig == SIGCHLD && util_reap_command(&rl->child, &rl->cmd_status)) {
			if (rl->keep_going && !rl->interrupted)
				return RUNLOOP_EXITED;
			rl->stopped = true;
			break;
		}
		if (sig == SIGINT || sig == SIGTERM) {
			rl->interrupted = true;
			/* With a command, Ctrl-C reaches it too: report when it is gone. */
			if (rl->child)
				kill(rl->child, sig);
			else
				rl->stopped = true;
		}
		if (rl->end && rl->now >= rl->end)
			rl->stopped = true;
		if (!rl->stopped && rl->next_tick && rl->now >= rl->next_tick) {
			rl->next_tick = util_next_tick(rl->start, rl->interval, rl->now);
			rl->ticks++;
			return RUNLOOP_TICK;
		}
	}
	return RUNLOOP_STOP;
}

void runloop_finish(struct runloop *rl)
{
	util_end_command(rl->child);
	rl->child = 0;
	sigprocmask(SIG_SETMASK, &rl->orig, NULL);
}
