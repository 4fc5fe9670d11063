/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client's commands, each given the options cookie.c parsed (cookie(1)): draws, --pid,
 * --stats and --decode in cookie_cmd.c (the fast path and the daemon's socket), --follow in
 * cookie_follow.c (the programs' ring buffer). Each prints its result or one line of error
 * and returns the exit status.
 */
#ifndef __BAREATOM_COOKIE_CMD_H
#define __BAREATOM_COOKIE_CMD_H

#include <stdbool.h>
#include <stdint.h>

enum cookie_mode { MODE_GET, MODE_PID, MODE_STATS, MODE_FOLLOW, MODE_DECODE };
enum cookie_path { PATH_AUTO, PATH_FAST, PATH_SOCKET };

/* The command line, read-only once parsed. */
struct cookie_opts {
	enum cookie_mode mode;
	enum cookie_path path;
	long n;
	long pid;
	long count;
	bool json;
	const char *socket;
	int timeout_ms;		/* --timeout, else $COOKIE_TIMEOUT, else COOKIE_TIMEOUT_MS */
	uint64_t decode;	/* --decode's cookie */
};

int cookie_cmd_get(const struct cookie_opts *o);
int cookie_cmd_pid(const struct cookie_opts *o);
int cookie_cmd_stats(const struct cookie_opts *o);
int cookie_cmd_decode(const struct cookie_opts *o);
int cookie_cmd_follow(const struct cookie_opts *o);

#endif /* __BAREATOM_COOKIE_CMD_H */
