// SPDX-License-Identifier: GPL-2.0
/* The atomic textfile writer of metrics_textfile.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/metrics_textfile.h"

int metrics_write_textfile(const char *path, const char *buf, size_t len)
{
	char *copy = strdup(path), tmp[4096];
	const char *dir, *base;
	int fd = -1, dfd = -1, err = 0;
	size_t off = 0;

	if (!copy)
		return -ENOMEM;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	dir = dirname(copy);
	/* A dot name: node_exporter reads *.prom only, so it never sees the file half written. */
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%d", dir, base, (int)getpid()) >= (int)sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		off += n;
	}
	if (fsync(fd)) {
		err = -errno;
		goto out;
	}
	err = close(fd) ? -errno : 0;
	fd = -1;
	if (err)
		goto out;
	if (rename(tmp, path)) {
		err = -errno;
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		err = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (err)
		unlink(tmp);
	free(copy);
	return err;
}
