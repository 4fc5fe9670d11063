// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong N: two processes pass a byte back and forth N times over two pipes. Pinned to
 * one CPU, each round trip is two context switches: a workload whose sched_switch count is
 * large and dominated by itself, for comparing tpstat with perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	int ab[2], ba[2];
	long n = argc > 1 ? atol(argv[1]) : 0;
	char c = 0;
	pid_t pid;

	if (n <= 0) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba)) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	waitpid(pid, NULL, 0);
	return 0;
}
