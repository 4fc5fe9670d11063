// SPDX-License-Identifier: GPL-2.0
/*
 * write1 FILE DATA: write DATA to FILE with exactly one write(2), even when DATA is empty
 * (a shell redirection of an empty string makes no write at all).
 * write1 -s FILE: the same with the bytes read from standard input (at most 4096), so the
 * data can hold what an argument cannot: NUL bytes.
 * Prints "wrote N", or the errno name on failure, so tests can check for EINVAL exactly.
 * SIGINT is caught (without SA_RESTART), as an interactive shell writing with its builtin
 * echo does: a write it interrupts prints EINTR instead of the process dying.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_sigint(int sig)
{
}

/* Read all of standard input into buf; -1 when it does not fit. */
static ssize_t read_stdin(char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while ((n = read(0, buf + len, size - len)) > 0)
		len += n;
	if (n < 0 || len == size)
		return -1;
	return len;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	static char buf[4097];
	const char *file, *data;
	ssize_t n, len;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "-s")) {
		len = read_stdin(buf, sizeof(buf));
		if (len < 0) {
			fprintf(stderr, "write1: cannot read standard input (at most 4096 bytes)\n");
			return 1;
		}
		file = argv[2];
		data = buf;
	} else if (argc == 3) {
		file = argv[1];
		data = argv[2];
		len = strlen(data);
	} else {
		fprintf(stderr, "usage: write1 FILE DATA | write1 -s FILE <DATA\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	fd = open(file, O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return 1;
	}
	n = write(fd, data, len);
	if (n < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("wrote %zd\n", n);
	return 0;
}
