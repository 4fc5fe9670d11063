// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "util.h"

static bool util_verbose;

static int util_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !util_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void util_setup_libbpf(bool verbose)
{
	util_verbose = verbose;
	libbpf_set_print(util_libbpf_print);
}

const char *util_bpf_load_hint(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return geteuid() ? "permission denied: run as root (needs CAP_BPF and CAP_PERFMON)"
				 : "permission denied by the kernel (lockdown or the verifier?); rerun with -v";
	case ENOENT:
		return "not found in this kernel";
	case EINVAL:
		return "the kernel rejected the program; rerun with -v for the verifier log";
	default:
		return strerror(-err);
	}
}

int util_run_command(char **argv)
{
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

char **util_split_command(int *argc, char **argv)
{
	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		argv[i] = NULL;
		*argc = i;
		return argv[i + 1] ? &argv[i + 1] : NULL;
	}
	return NULL;
}
