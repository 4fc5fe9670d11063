/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state-directory tests' files (tests/unit/cookie-store.c, cookie-mark.c): @dir is the
 * test's temporary directory, set by the test; put() writes a file there whole, get() reads
 * one back (its length in got_len), "(none)" when it is not there.
 */
#ifndef __BAREATOM_TESTS_STATEDIR_H
#define __BAREATOM_TESTS_STATEDIR_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[128];
static size_t got_len;

static void put_len(const char *name, const char *content, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, content, len) != (ssize_t)len) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static const char *get(const char *name)
{
	static char buf[256];
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return "(none)";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	got_len = n < 0 ? 0 : n;
	buf[got_len] = '\0';
	return buf;
}

#endif /* __BAREATOM_TESTS_STATEDIR_H */
