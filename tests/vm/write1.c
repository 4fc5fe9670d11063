// SPDX-License-Identifier: GPL-2.0
/*
 * write1 FILE DATA: write DATA to FILE with exactly one write(2), even when DATA is empty
 * (a shell redirection of an empty string makes no write at all). Prints the errno name
 * on failure, so tests can check for EINVAL exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: write1 FILE DATA\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return 1;
	}
	n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("wrote %zd\n", n);
	return 0;
}
