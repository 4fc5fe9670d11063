/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf set-up and probes: messages to stderr, a one-line reason for a failed load, and
 * the BPF atomics probe every tool runs before it loads anything.
 */
#ifndef __BAREATOM_BPF_UTIL_H
#define __BAREATOM_BPF_UTIL_H

#include <stdbool.h>

/* Route libbpf's messages to stderr; debug ones only when @verbose. */
void util_setup_libbpf(bool verbose);

/* A one-line reason why loading BPF failed with @err (a negative errno). */
const char *util_bpf_load_hint(int err);

/*
 * The exit status after a BPF call failed with @err (a negative errno): EXIT_USAGE (cli.h)
 * when not privileged (-EPERM, -EACCES), else 1.
 */
int util_bpf_exit_status(int err);

/*
 * Load a tiny raw_tp program that uses BPF_ADD | BPF_FETCH (Linux 5.12). Returns 0 when the
 * kernel has the BPF atomics, -EINVAL when it does not, or another negative errno (-EPERM:
 * not privileged).
 */
int util_probe_atomics(void);

/*
 * Probe the BPF atomics before loading anything, so the user gets one clear line instead of
 * libbpf's: @prog names the tool, @needs_root_for what it does ("counting"). Returns 0 when
 * programs can be loaded, EXIT_USAGE when not privileged, 1 when the kernel lacks the atomics or
 * refuses for another reason.
 */
int util_check_bpf(const char *prog, const char *needs_root_for);

#endif /* __BAREATOM_BPF_UTIL_H */
