/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option parsing shared by the tools: seconds, -i intervals, the one usage error, and the
 * metrics options (--listen ADDR:PORT, --textfile PATH).
 */
#ifndef __BAREATOM_CLI_H
#define __BAREATOM_CLI_H

#include <stddef.h>
#include <sys/socket.h>

/* Parse a positive number of seconds ("2", "0.5"). Returns -1 when it is not one. */
int cli_parse_seconds(const char *s, double *out);

/*
 * The shortest -i the tools accept, 1 ms: a shorter interval only reports as fast as the
 * loop can run, and one so short that start + interval == start never moves a tick on.
 */
#define CLI_MIN_INTERVAL 0.001

/*
 * Parse -i SECS for @prog: a number of seconds, at least CLI_MIN_INTERVAL. A usage error
 * (one line, exit EXIT_USAGE) when it is not one.
 */
double cli_parse_interval(const char *prog, const char *arg);

/* The exit status of a usage error, an unknown name and missing privileges (1: other errors). */
#define EXIT_USAGE 2

/* A usage error: "PROG: reason" on one line, exit EXIT_USAGE. */
void cli_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* ---- --listen ADDR:PORT and --textfile PATH: the metrics options of every tool ---- */

/*
 * Parse ADDR:PORT: a dotted IPv4 address, a bracketed IPv6 one ("[::1]:9100"), a host name
 * (resolved now, its first address: "localhost:9100"), or ":PORT" for every IPv4 address;
 * PORT 0-65535 (0: the kernel picks one). Returns 0, or -1 with a one-line reason in @why.
 */
int cli_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len,
		     char *why, size_t whylen);

/*
 * The --listen and --textfile options of @prog: @arg checked (a usage error, one line and
 * exit 2, when it is not an address and port, or an empty path) and returned.
 */
const char *cli_listen_option(const char *prog, const char *arg);
const char *cli_textfile_option(const char *prog, const char *arg);

#endif /* __BAREATOM_CLI_H */
