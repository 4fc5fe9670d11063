/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools' one run loop: signals (SIGINT, SIGTERM, SIGCHLD, optionally SIGUSR1) taken
 * synchronously from a signalfd, a deadline (-d), interval ticks (-i) that never drift
 * and never fire twice for one tick, a command (-- CMD) started, reaped, and sent the
 * user's SIGINT/SIGTERM so that the tool reports after CMD is gone instead of dying first,
 * and descriptors the caller watches (a listening socket), served by callbacks from inside
 * runloop_next() without ever delaying a signal, a tick or the deadline.
 *
 *	runloop_init(&rl, "tool", interval, duration, false);
 *	if (cmd && runloop_start(&rl, cmd) < 0) ...
 *	while ((ev = runloop_next(&rl)) != RUNLOOP_STOP)
 *		if (ev == RUNLOOP_TICK) ...print an interval...
 *	...detach, then the final read...
 *	runloop_finish(&rl);	(ends a command still running; rl.cmd_status is its status)
 *
 * A callback runs between events, so it must not block: non-blocking descriptors, bounded
 * work per call.
 */
#ifndef __BAREATOM_RUNLOOP_H
#define __BAREATOM_RUNLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

enum runloop_event {
	RUNLOOP_STOP,		/* the deadline, a signal with no command, or the command ended */
	RUNLOOP_TICK,		/* an interval ended: rl.now is when the tick was taken */
	RUNLOOP_USR1,		/* SIGUSR1 (only when asked for in runloop_init) */
	RUNLOOP_EXITED,		/* with keep_going: the command ended (after Ctrl-C, then STOP) */
};

#define RUNLOOP_MAX_FDS 8

/* Called from runloop_next() when @fd polled ready; @revents as poll(2) gives them. */
typedef void (*runloop_fd_cb)(int fd, short revents, void *arg);

struct runloop_watch {
	int fd;
	short events;
	runloop_fd_cb cb;
	void *arg;
};

struct runloop {
	const char *prog;
	sigset_t set, orig;	/* what the loop waits for; the mask before it blocked them */
	double start, now;	/* CLOCK_MONOTONIC seconds: when the loop began, the last wake */
	double interval, next_tick, end;	/* 0: none */
	unsigned long ticks;	/* RUNLOOP_TICKs returned so far */
	pid_t child;		/* the command running, 0 when none */
	int cmd_status;		/* the last command's status as a shell gives it, -1 before one ended */
	bool interrupted;	/* SIGINT or SIGTERM came (or a signal of runloop_stop_on) */
	int stop_signal;	/* the last such signal, 0 before one */
	bool keep_going;	/* return RUNLOOP_EXITED for a command's end (tpstat -r reruns it) */
	bool stopped;
	int sigfd;		/* the loop's signals, -1 if signalfd failed (then no watching) */
	int nwatch;
	struct runloop_watch watch[RUNLOOP_MAX_FDS];
};

/*
 * Block the loop's signals and start the clock. @interval and @duration are seconds (0:
 * none); @usr1 also takes SIGUSR1 as an event.
 */
void runloop_init(struct runloop *rl, const char *prog, double interval, double duration,
		  bool usr1);

/*
 * Take @sig (a daemon's SIGHUP) as the loop takes SIGINT and SIGTERM. Right after
 * runloop_init. Returns 0, or a negative errno.
 */
int runloop_stop_on(struct runloop *rl, int sig);

/*
 * Watch @fd for @events (POLLIN...) and call @cb when it is ready; again for the same @fd
 * changes the events or callback, @cb NULL stops watching it. Returns 0, -ENOSPC beyond
 * RUNLOOP_MAX_FDS, -ENOSYS without a signalfd, -ENOENT to stop an fd not watched.
 */
int runloop_watch_fd(struct runloop *rl, int fd, short events, runloop_fd_cb cb, void *arg);

/* Start @argv as the loop's command (output flushed first). Returns its pid, or -1. */
pid_t runloop_start(struct runloop *rl, char **argv);

/*
 * The same, gated (cmd_start_gated): the command waits before exec until
 * cmd_release(*@gate, ...).
 */
pid_t runloop_start_gated(struct runloop *rl, char **argv, int *gate);

/* Wait for the next event. After RUNLOOP_STOP it keeps returning RUNLOOP_STOP. */
enum runloop_event runloop_next(struct runloop *rl);

/* Stop the loop at the next call to runloop_next (e.g. -c COUNT intervals done). */
void runloop_stop(struct runloop *rl);

/*
 * End a command still running (SIGTERM, wait), drop the loop's pending signals (a second
 * Ctrl-C during the final report) and restore the signal mask.
 */
void runloop_finish(struct runloop *rl);

#endif /* __BAREATOM_RUNLOOP_H */
