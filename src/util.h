/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the suite's programs. */
#ifndef __BAREATOM_UTIL_H
#define __BAREATOM_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

/* Route libbpf's messages to stderr; debug ones only when @verbose. */
void util_setup_libbpf(bool verbose);

/* A one-line reason why loading BPF failed with @err (a negative errno). */
const char *util_bpf_load_hint(int err);

/*
 * Run argv as a child with SIGINT/SIGTERM left to it, wait for it and return
 * its exit status as a shell would (128 + signal when killed), or -1.
 */
int util_run_command(char **argv);

/*
 * Split "PROG [OPTION...] -- CMD [ARG...]" at the first "--": returns CMD's argv (NULL
 * when there is no "--" or nothing after it) and shortens *argc to the options before it.
 */
char **util_split_command(int *argc, char **argv);

#endif /* __BAREATOM_UTIL_H */
