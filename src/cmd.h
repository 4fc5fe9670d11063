/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Child commands (-- CMD): split from the options, named for output, started with the
 * caller's signal mask (gated, so the caller can act before CMD runs), reaped, ended.
 */
#ifndef __BAREATOM_CMD_H
#define __BAREATOM_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Wait for a signal of @set (blocked by the caller) until the earlier of @tick and @end
 * (CLOCK_MONOTONIC seconds, 0 for none). Returns the signal, or -1 when the time came.
 */
int cmd_wait_signal(const sigset_t *set, double tick, double end);

/*
 * After SIGCHLD: if *@child has exited, reap it, store its status as a shell would
 * (128 + signal when killed) in *@status, clear *@child and return true.
 */
bool cmd_reap(pid_t *child, int *status);

/* Stop a command still running when counting ends: SIGTERM, then wait for it. */
void cmd_end(pid_t child);

/* "ARG0 ARG1 ...", cut to fit @len between characters: how a command is named in output. */
void cmd_join(char **argv, char *buf, size_t len);

/*
 * Fork and exec @argv with the signal mask @orig (the caller blocked signals it waits for);
 * returns the child's pid, or -1. A failed exec prints "PROG: cannot run ..." and exits 127.
 */
pid_t cmd_start(const char *prog, char **argv, const sigset_t *orig);

/*
 * Like cmd_start, but the child waits before exec until cmd_release(*gate,
 * true): the caller can make it a target (tpstat -- CMD counts CMD's process tree) before
 * CMD runs a single instruction. cmd_release(*gate, false) makes it exit 127.
 */
pid_t cmd_start_gated(const char *prog, char **argv, const sigset_t *orig, int *gate);
void cmd_release(int gate, bool go);

/*
 * Split "PROG [OPTION...] -- CMD [ARG...]" at the first "--": returns CMD's argv (NULL
 * when there is no "--" or nothing after it) and shortens *argc to the options before it.
 */
char **cmd_split(int *argc, char **argv);

#endif /* __BAREATOM_CMD_H */
