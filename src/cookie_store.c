// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_store.h"

/* Longer than any valid file: a read that fills it means the file is too long. */
#define STORE_READ_MAX 64

/* Some filesystems (9p) cannot fsync a directory; their files are synced one by one. */
static int fsync_dir(int fd)
{
	if (fsync(fd) && errno != EINVAL && errno != ENOTSUP && errno != EROFS)
		return -errno;
	return 0;
}

/* mkdir -p, each directory it creates fsynced into its parent so a crash cannot lose it. */
static int make_dirs(const char *dir)
{
	char path[4096], *slash;
	size_t len = strlen(dir);
	int err;

	if (len == 0 || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (!mkdir(path, 0700)) {
		int pfd;

		slash = strrchr(path, '/');
		if (slash == path)
			pfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		else if (slash) {
			*slash = '\0';
			pfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			pfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (pfd < 0)
			return -errno;
		err = fsync_dir(pfd);
		close(pfd);
		return err;
	}
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	slash = strrchr(path, '/');
	if (!slash || slash == path)
		return -ENOENT;
	*slash = '\0';
	err = make_dirs(path);
	if (err)
		return err;
	return make_dirs(dir);
}

/*
 * Only the daemon's user may write what decides the next cookie: a directory or file owned by
 * another user, or writable by group or other, could have had its mark moved back (sshd's
 * StrictModes). Checked on the open fd, so what is checked is what is read.
 */
static int trusted(struct cookie_store *s, const struct stat *st)
{
	if (st->st_uid != geteuid()) {
		snprintf(s->why, sizeof(s->why), "is owned by uid %u, not by uid %u (this daemon's)",
			 (unsigned int)st->st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(s->why, sizeof(s->why), "is writable by %s (mode %04o)",
			 st->st_mode & S_IWGRP ? "its group" : "others", (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int cookie_store_open(struct cookie_store *s, const char *dir)
{
	int err = make_dirs(dir);
	struct stat st;

	s->dir = dir;
	s->highwater = 0;
	s->fresh = 0;
	s->dir_fd = -1;
	s->why[0] = '\0';
	if (err)
		return err;
	s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dir_fd < 0)
		return -errno;
	err = fstat(s->dir_fd, &st) ? -errno : trusted(s, &st);
	/* Held for the daemon's life: a second daemon on this directory is refused (-EBUSY). */
	if (!err && flock(s->dir_fd, LOCK_EX | LOCK_NB))
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
	if (err) {
		close(s->dir_fd);
		s->dir_fd = -1;
	}
	return err;
}

void cookie_store_close(struct cookie_store *s)
{
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	s->dir_fd = -1;
}

int cookie_store_parse_mark(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	/* 20 digits hold any 64-bit value; the first must not be 0 (no "007", no "0"). */
	if (len == 0 || len > 20 || buf[0] < '1' || buf[0] > '9')
		return -EUCLEAN;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)buf[i] - '0';

		if (d > 9)
			return -EUCLEAN;
		/* Checked before the multiplication, so it cannot wrap. */
		if (v > (COOKIE_MARK_MAX - d) / 10)
			return -EUCLEAN;
		v = v * 10 + d;
	}
	if (v >= COOKIE_MARK_MAX)
		return -EUCLEAN;
	*out = v;
	return 0;
}

int cookie_store_parse_id(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len != 17 || buf[16] != '\n')
		return -EUCLEAN;
	for (size_t i = 0; i < 16; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -EUCLEAN;
	}
	if (!v)
		return -EUCLEAN;
	*out = v;
	return 0;
}

/*
 * Read a small file whole into @buf; *len is its length. -ENOENT when it does not exist;
 * -EUCLEAN when it is not a regular file and -EPERM when it is a symbolic link or not
 * trusted (s->why says which).
 */
static int read_small(struct cookie_store *s, const char *name, char *buf, size_t *len)
{
	size_t off = 0;
	int fd = openat(s->dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), err;
	struct stat st;

	if (fd < 0 && errno == ELOOP) {
		snprintf(s->why, sizeof(s->why), "is a symbolic link");
		return -EPERM;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(s->why, sizeof(s->why), "is not a regular file");
		return -EUCLEAN;	/* a directory, a FIFO, a device: not ours */
	}
	err = trusted(s, &st);
	if (err) {
		close(fd);
		return err;
	}
	while (off < STORE_READ_MAX) {
		ssize_t n = read(fd, buf + off, STORE_READ_MAX - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		off += n;
	}
	close(fd);
	*len = off;
	return 0;
}

/* Does @name exist in the directory (as anything, a dangling symbolic link too)? */
static int exists(struct cookie_store *s, const char *name)
{
	struct stat st;

	return !fstatat(s->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW);
}

int cookie_store_read_mark(struct cookie_store *s, const char **why)
{
	char buf[STORE_READ_MAX];
	size_t len;
	int err = read_small(s, COOKIE_HIGHWATER_FILE, buf, &len);

	if (err == -ENOENT) {
		int id = exists(s, COOKIE_ID_FILE), node = exists(s, COOKIE_NODE_FILE);

		/*
		 * The mark is written first (cookie_store_init), so an id or a node file without
		 * one is not a start that crashed: the mark was lost, and with it what was handed
		 * out. Starting at 1 would hand it out again.
		 */
		if (id || node) {
			snprintf(s->why, sizeof(s->why), "is missing but %s remain%s",
				 id && node ? "id and node" : id ? "id" : "node", id && node ? "" : "s");
			*why = s->why;
			return -ENODATA;
		}
		s->highwater = 1;	/* first start ever: sequences begin at 1, 0 is never one */
		s->fresh = 1;
		return 1;
	}
	if (err == -EUCLEAN || err == -EPERM) {
		*why = s->why;
		return err;
	}
	if (err)
		return err;
	if (len == 0) {
		*why = "is empty";
		return -EUCLEAN;
	}
	if (cookie_store_parse_mark(buf, len, &s->highwater)) {
		*why = "is not a decimal number from 1 to 2^48 - 3 * 2^24 - 1 followed by a newline";
		return -EUCLEAN;
	}
	return 0;
}

/* Write @len bytes as @name: temporary file, fsync, rename over @name, fsync the directory. */
static int write_durably(struct cookie_store *s, const char *name, const char *buf, size_t len)
{
	char tmp[64];
	size_t off = 0;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(s->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while (off < len && !err) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		else
			off += n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(s->dir_fd, tmp, s->dir_fd, name))
		err = -errno;
	if (err) {
		unlinkat(s->dir_fd, tmp, 0);
		return err;
	}
	return fsync_dir(s->dir_fd);
}

int cookie_store_write_mark(struct cookie_store *s, uint64_t hw)
{
	char buf[STORE_READ_MAX];
	size_t len;
	int n, err;

	if (hw == 0 || hw >= COOKIE_MARK_MAX)
		return -EOVERFLOW;
	/*
	 * Never below the mark on disk, whoever wrote it (a second daemon the directory lock
	 * did not stop, an operator's --raise-mark): re-read it first. A mark that cannot be
	 * read as one is not written over either.
	 */
	err = read_small(s, COOKIE_HIGHWATER_FILE, buf, &len);
	if (!err) {
		if (cookie_store_parse_mark(buf, len, &s->disk)) {
			snprintf(s->why, sizeof(s->why), "is not a mark any more");
			return -EUCLEAN;
		}
		if (s->disk > hw)
			return -ESTALE;
	} else if (err != -ENOENT) {
		return err;
	}
	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)hw);
	err = write_durably(s, COOKIE_HIGHWATER_FILE, buf, n);
	if (!err)
		s->highwater = hw;
	return err;
}

int cookie_store_replace_mark(struct cookie_store *s, uint64_t hw)
{
	char buf[32];
	int n, err;

	if (hw == 0 || hw >= COOKIE_MARK_MAX)
		return -EOVERFLOW;
	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)hw);
	err = write_durably(s, COOKIE_HIGHWATER_FILE, buf, n);
	if (!err)
		s->highwater = hw;
	return err;
}

int cookie_store_init(struct cookie_store *s)
{
	return s->fresh ? cookie_store_write_mark(s, 1) : 0;
}

int cookie_store_id(struct cookie_store *s, uint64_t *id)
{
	char buf[STORE_READ_MAX];
	size_t len;
	int n, err = read_small(s, COOKIE_ID_FILE, buf, &len);

	if (!err && cookie_store_parse_id(buf, len, id)) {
		snprintf(s->why, sizeof(s->why), "is %s",
			 len ? "corrupt (want 16 lowercase hex digits and a newline)" : "empty");
		return -EUCLEAN;
	}
	if (!err)
		return 0;
	if (err != -ENOENT)
		return err;
	do {
		if (getrandom(id, sizeof(*id), 0) != sizeof(*id))
			return -errno;
	} while (!*id);
	n = snprintf(buf, sizeof(buf), "%016llx\n", (unsigned long long)*id);
	return write_durably(s, COOKIE_ID_FILE, buf, n);
}

int cookie_store_parse_node(const char *buf, size_t len, unsigned int *out)
{
	unsigned int v = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	/* 5 digits hold 65535; "0" is node 0, but no other number starts with 0. */
	if (len == 0 || len > 5 || (buf[0] == '0' && len > 1))
		return -EUCLEAN;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)buf[i] - '0';

		if (d > 9)
			return -EUCLEAN;
		v = v * 10 + d;
	}
	if (v > COOKIE_NODE_MAX)
		return -EUCLEAN;
	*out = v;
	return 0;
}

int cookie_store_read_node(struct cookie_store *s, unsigned int *node, const char **why)
{
	char buf[STORE_READ_MAX];
	size_t len;
	int err = read_small(s, COOKIE_NODE_FILE, buf, &len);

	if (err == -EUCLEAN || err == -EPERM)
		*why = s->why;
	if (err)
		return err;
	if (cookie_store_parse_node(buf, len, node)) {
		*why = len ? "is not a node id from 0 to 65535 followed by a newline" : "is empty";
		return -EUCLEAN;
	}
	return 0;
}

int cookie_store_move_node(struct cookie_store *s, unsigned int node)
{
	char buf[32];
	int n;

	if (node > COOKIE_NODE_MAX)
		return -EINVAL;
	n = snprintf(buf, sizeof(buf), "%u\n", node);
	return write_durably(s, COOKIE_NODE_FILE, buf, n);
}

int cookie_store_node(struct cookie_store *s, long want, unsigned int *node, const char **why)
{
	int err;

	if (want > (long)COOKIE_NODE_MAX)
		return -EINVAL;
	err = cookie_store_read_node(s, node, why);
	if (err == -ENOENT) {
		/*
		 * A directory that handed out cookies before node ids existed counted as node 0;
		 * one whose mark is still the first (1: nothing handed out) takes the node asked
		 * for, so a first start that stopped after writing its mark is completed.
		 */
		*node = s->highwater <= 1 && want >= 0 ? (unsigned int)want : 0;
	} else if (err) {
		return err;
	}
	if (want >= 0 && (unsigned long)want != *node)
		return -EEXIST;
	if (!err)
		return 0;
	return cookie_store_move_node(s, *node);
}
