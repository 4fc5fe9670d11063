// SPDX-License-Identifier: GPL-2.0
/*
 * The run loop of runloop.h, on the clock and child helpers of util.c. The loop's signals
 * stay blocked and are read from a signalfd, so that one ppoll() waits for a signal, the
 * next tick or the deadline, and any descriptor a caller watches (a metrics socket).
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "src/runloop.h"
#include "src/clock.h"
#include "src/cmd.h"

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
	/* Without a signalfd (no fds watched then) the loop falls back to sigtimedwait. */
	rl->sigfd = signalfd(-1, &rl->set, SFD_CLOEXEC | SFD_NONBLOCK);
	rl->start = rl->now = clock_now();
	if (interval)
		rl->next_tick = rl->start + interval;
	if (duration)
		rl->end = rl->start + duration;
}

int runloop_stop_on(struct runloop *rl, int sig)
{
	if (sig == SIGCHLD || sig == SIGUSR1 || sigaddset(&rl->set, sig))
		return -EINVAL;
	sigprocmask(SIG_BLOCK, &rl->set, NULL);	/* rl->orig stays the mask from before init */
	if (rl->sigfd >= 0 && signalfd(rl->sigfd, &rl->set, 0) < 0)
		return -errno;
	return 0;
}

int runloop_watch_fd(struct runloop *rl, int fd, short events, runloop_fd_cb cb, void *arg)
{
	for (int i = 0; i < rl->nwatch; i++) {
		if (rl->watch[i].fd != fd)
			continue;
		if (!cb) {	/* stop watching: keep the rest in order */
			memmove(&rl->watch[i], &rl->watch[i + 1],
				(size_t)(rl->nwatch - i - 1) * sizeof(rl->watch[0]));
			rl->nwatch--;
			return 0;
		}
		rl->watch[i].events = events;
		rl->watch[i].cb = cb;
		rl->watch[i].arg = arg;
		return 0;
	}
	if (!cb)
		return -ENOENT;
	if (rl->sigfd < 0)
		return -ENOSYS;
	if (rl->nwatch == RUNLOOP_MAX_FDS)
		return -ENOSPC;
	rl->watch[rl->nwatch++] = (struct runloop_watch){ fd, events, cb, arg };
	return 0;
}

pid_t runloop_start(struct runloop *rl, char **argv)
{
	fflush(NULL);	/* nothing buffered may be printed twice by the child */
	rl->child = cmd_start(rl->prog, argv, &rl->orig);
	if (rl->child < 0)
		rl->child = 0;
	return rl->child ? rl->child : -1;
}

pid_t runloop_start_gated(struct runloop *rl, char **argv, int *gate)
{
	fflush(NULL);
	rl->child = cmd_start_gated(rl->prog, argv, &rl->orig, gate);
	if (rl->child < 0)
		rl->child = 0;
	return rl->child ? rl->child : -1;
}

void runloop_stop(struct runloop *rl)
{
	rl->stopped = true;
}

/*
 * Wait until a signal, the next wake-up time or a watched descriptor. Returns the signal,
 * or 0 when the time came or descriptors were served.
 */
static int wait_once(struct runloop *rl)
{
	struct pollfd pfd[RUNLOOP_MAX_FDS + 1];
	struct signalfd_siginfo si;
	double wake = rl->next_tick, left;
	struct timespec ts, *tsp = NULL;
	int n, npoll = rl->nwatch;

	if (rl->sigfd < 0)
		return cmd_wait_signal(&rl->set, rl->next_tick, rl->end);
	if (rl->end && (!wake || rl->end < wake))
		wake = rl->end;
	if (wake) {
		left = wake - clock_now();
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	pfd[0] = (struct pollfd){ .fd = rl->sigfd, .events = POLLIN };
	for (int i = 0; i < npoll; i++)
		pfd[i + 1] = (struct pollfd){ .fd = rl->watch[i].fd, .events = rl->watch[i].events };
	n = ppoll(pfd, (nfds_t)npoll + 1, tsp, NULL);
	if (n <= 0)
		return 0;	/* the time came (or EINTR from a signal outside the set) */
	/* Signals first: a descriptor's callback must not delay Ctrl-C or a reap. */
	if (pfd[0].revents && read(rl->sigfd, &si, sizeof(si)) == sizeof(si))
		return (int)si.ssi_signo;
	/* Callbacks may change the watch list: serve what was polled, found by descriptor. */
	for (int i = 1; i <= npoll; i++) {
		for (int j = 0; pfd[i].revents && j < rl->nwatch; j++) {
			if (rl->watch[j].fd == pfd[i].fd) {
				rl->watch[j].cb(pfd[i].fd, pfd[i].revents, rl->watch[j].arg);
				break;
			}
		}
	}
	return 0;
}

enum runloop_event runloop_next(struct runloop *rl)
{
	while (!rl->stopped) {
		int sig = wait_once(rl);

		rl->now = clock_now();
		if (sig == SIGUSR1)
			return RUNLOOP_USR1;
		if (sig == SIGCHLD && cmd_reap(&rl->child, &rl->cmd_status)) {
			if (rl->keep_going) {
				/* The caller sees every end; after Ctrl-C the next call stops. */
				if (rl->interrupted)
					rl->stopped = true;
				return RUNLOOP_EXITED;
			}
			rl->stopped = true;
			break;
		}
		/* SIGINT, SIGTERM, or one of runloop_stop_on(). */
		if (sig > 0 && sig != SIGCHLD && sig != SIGUSR1) {
			rl->interrupted = true;
			rl->stop_signal = sig;
			/* With a command, Ctrl-C reaches it too: report when it is gone. */
			if (rl->child)
				kill(rl->child, sig);
			else
				rl->stopped = true;
		}
		if (rl->end && rl->now >= rl->end)
			rl->stopped = true;
		if (!rl->stopped && rl->next_tick && rl->now >= rl->next_tick) {
			rl->next_tick = clock_next_tick(rl->start, rl->interval, rl->now);
			rl->ticks++;
			return RUNLOOP_TICK;
		}
	}
	return RUNLOOP_STOP;
}

void runloop_finish(struct runloop *rl)
{
	struct signalfd_siginfo si;

	cmd_end(rl->child);
	rl->child = 0;
	if (rl->sigfd >= 0) {
		/*
		 * A second Ctrl-C during the final report was for the loop, which is over: drop
		 * it rather than let it kill the tool once the mask is restored.
		 */
		while (read(rl->sigfd, &si, sizeof(si)) == sizeof(si))
			;
		close(rl->sigfd);
		rl->sigfd = -1;
	}
	sigprocmask(SIG_SETMASK, &rl->orig, NULL);
}
