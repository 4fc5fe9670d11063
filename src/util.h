/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the suite's programs. */
#ifndef __BAREATOM_UTIL_H
#define __BAREATOM_UTIL_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

/* Route libbpf's messages to stderr; debug ones only when @verbose. */
void util_setup_libbpf(bool verbose);

/* A one-line reason why loading BPF failed with @err (a negative errno). */
const char *util_bpf_load_hint(int err);

/*
 * Load a tiny raw_tp program that uses BPF_ADD | BPF_FETCH (Linux 5.12). Returns 0 when the
 * kernel has the BPF atomics, -EINVAL when it does not, or another negative errno (-EPERM:
 * not privileged).
 */
int util_probe_atomics(void);

/*
 * Probe the BPF atomics before loading anything, so the user gets one clear line instead of
 * libbpf's: @prog names the tool, @needs_root_for what it does ("counting"). Returns 0 when
 * programs can be loaded, 2 when not privileged, 1 when the kernel lacks the atomics or
 * refuses for another reason.
 */
int util_check_bpf(const char *prog, const char *needs_root_for);

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

/*
 * The first tick after @now of a clock ticking every @interval seconds from @start
 * (start + k * interval, k >= 1), in a bounded number of steps however late @now is.
 */
double util_next_tick(double start, double interval, double now);

/* Print @s as a JSON string, quoted and escaped, always valid UTF-8 (U+FFFD for bad bytes). */
void util_json_string(FILE *f, const char *s);

/*
 * The length of the well-formed UTF-8 character at @s, or 0 when there is none (then *@bad
 * is how many bytes one U+FFFD replaces).
 */
size_t util_utf8_char(const unsigned char *s, size_t *bad);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in seconds; CLOCK_MONOTONIC in nanoseconds. */
double util_now(void);
unsigned long long util_now_ns(void);
double util_wallclock(void);

/* A usage error: "PROG: reason" on one line, exit 2. */
void util_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * Wait for a signal of @set (blocked by the caller) until the earlier of @tick and @end
 * (CLOCK_MONOTONIC seconds, 0 for none). Returns the signal, or -1 when the time came.
 */
int util_wait_signal(const sigset_t *set, double tick, double end);

/*
 * After SIGCHLD: if *@child has exited, reap it, store its status as a shell would
 * (128 + signal when killed) in *@status, clear *@child and return true.
 */
bool util_reap_command(pid_t *child, int *status);

/* Stop a command still running when counting ends: SIGTERM, then wait for it. */
void util_end_command(pid_t child);

/* "ARG0 ARG1 ...", cut to fit @len between characters: how a command is named in output. */
void util_join_command(char **argv, char *buf, size_t len);

/*
 * Fork and exec @argv with the signal mask @orig (the caller blocked signals it waits for);
 * returns the child's pid, or -1. A failed exec prints "PROG: cannot run ..." and exits 127.
 */
pid_t util_start_command(const char *prog, char **argv, const sigset_t *orig);

/*
 * Like util_start_command, but the child waits before exec until util_release_command(*gate,
 * true): the caller can make it a target (tpstat -- CMD counts CMD's process tree) before
 * CMD runs a single instruction. util_release_command(*gate, false) makes it exit 127.
 */
pid_t util_start_command_gated(const char *prog, char **argv, const sigset_t *orig, int *gate);
void util_release_command(int gate, bool go);

/*
 * Split "PROG [OPTION...] -- CMD [ARG...]" at the first "--": returns CMD's argv (NULL
 * when there is no "--" or nothing after it) and shortens *argc to the options before it.
 */
char **util_split_command(int *argc, char **argv);

#endif /* __BAREATOM_UTIL_H */
