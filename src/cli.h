/* SPDX-License-Identifier: GPL-2.0 */
/* Option parsing shared by the tools: seconds, -i intervals, and the one usage error. */
#ifndef __BAREATOM_CLI_H
#define __BAREATOM_CLI_H

/* Parse a positive number of seconds ("2", "0.5"). Returns -1 when it is not one. */
int util_parse_seconds(const char *s, double *out);

/*
 * The shortest -i the tools accept, 1 ms: a shorter interval only reports as fast as the
 * loop can run, and one so short that start + interval == start never moves a tick on.
 */
#define UTIL_MIN_INTERVAL 0.001

/*
 * Parse -i SECS for @prog: a number of seconds, at least UTIL_MIN_INTERVAL. A usage error
 * (one line, exit 2) when it is not one.
 */
double util_parse_interval(const char *prog, const char *arg);

/* A usage error: "PROG: reason" on one line, exit 2. */
void util_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif /* __BAREATOM_CLI_H */
