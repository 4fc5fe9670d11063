// SPDX-License-Identifier: GPL-2.0
/*
 * One owner per pin directory.
 *
 * The owner of PINS_ROOT/NAME is the process that holds flock(LOCK_EX) on
 * PINS_LOCK_DIR/NAME.lock. Why a lock file, and why there:
 * - bpffs holds only BPF objects, so the owner record cannot live beside the pins;
 * - the kernel drops a flock when its holder dies, SIGKILL included, so a dead owner is
 *   told from a live one without trusting a pid that may since have been reused;
 * - the lock file is never removed (unlinking it would let two processes lock two
 *   different inodes of the same name), so it cannot live in the pin directory, which
 *   comes and goes; /run is a tmpfs, cleared at boot, when every pin is gone too.
 * Everything under the directory is created and removed only by the lock's holder, so
 * two racing instances cannot remove each other's pins: the loser touches nothing.
 *
 * The lock file also holds the owner record, "PID STARTTIME\n" (STARTTIME is field 22 of
 * /proc/PID/stat), for messages: the pid of a live owner, or of the dead one whose pins
 * are removed. The start time tells whether a record read by a refused instance names the
 * current owner, or a dead one's pid in the instant before the new owner rewrites it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "src/pins.h"

#define BPFFS_HINT "(is bpffs mounted on /sys/fs/bpf?)"

/* Field 22 of /proc/@pid/stat: when the process started, in clock ticks since boot; 0 if gone. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long t;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	/* The command name (field 2) may hold spaces and parentheses: start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (int field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return 0;
	}
	errno = 0;
	t = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || (*end != ' ' && *end != '\n' && *end))
		return 0;
	return t;
}

/* Parse "PID STARTTIME\n"; false unless the record is whole. */
static bool read_record(int fd, pid_t *pid, unsigned long long *start)
{
	char buf[64], *end;
	long v;
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		return false;
	buf[len] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end != ' ' || v <= 0 || v > 0x3fffffff)
		return false;
	*pid = (pid_t)v;
	if (!isdigit((unsigned char)end[1]))
		return false;
	*start = strtoull(end + 1, &end, 10);
	return !errno && *end == '\n' && *start;
}

static int write_record(int fd)
{
	char buf[64];
	pid_t me = getpid();
	int len = snprintf(buf, sizeof(buf), "%d %llu\n", (int)me, start_time(me));

	errno = 0;
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != len)
		return errno ? -errno : -EIO;	/* a short write sets no errno */
	return 0;
}

static int clear_record(int fd)
{
	return ftruncate(fd, 0) ? -errno : 0;
}

/*
 * Refused: find the live owner's pid. The winner writes its record just after taking the
 * lock, so an empty record or one naming a dead process is read again for up to a second.
 */
static pid_t live_owner(int fd)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned long long start;
	pid_t pid;

	for (int i = 0; i < 100; i++) {
		if (read_record(fd, &pid, &start) && start_time(pid) == start)
			return pid;
		nanosleep(&tick, NULL);
	}
	return 0;
}

static int mkdir_one(const char *tool, const char *dir)
{
	int err;

	if (!mkdir(dir, 0700) || errno == EEXIST)
		return 0;
	err = -errno;
	fprintf(stderr, "%s: cannot create %s: %s " BPFFS_HINT "\n", tool, dir, strerror(-err));
	return err;
}

/* The lock file, opened (created if need be) close-on-exec: a command we start never holds it. */
static int open_lock(struct pins *p)
{
	int fd, err;

	if (mkdir("/run/bareatom", 0755) && errno != EEXIST)
		goto fail;
	if (mkdir(PINS_LOCK_DIR, 0700) && errno != EEXIST)
		goto fail;
	fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		return fd;
fail:
	err = -errno;
	fprintf(stderr, "%s: cannot open the lock %s: %s\n", p->tool, p->lock, strerror(-err));
	return err;
}

/* Remove everything under the directory of an owner that is gone (we hold the lock). */
static int remove_stale(struct pins *p, pid_t dead)
{
	char path[sizeof(p->dir) + 258];
	struct dirent *de;
	bool told = false;
	int err = 0;
	DIR *d = opendir(p->dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!told) {
			/* Its pinned links keep its programs attached: unpinning detaches them. */
			if (dead)
				fprintf(stderr, "%s: removing the stale pins under %s of pid %d, which is gone\n",
					p->tool, p->dir, (int)dead);
			else
				fprintf(stderr, "%s: removing stale pins under %s\n", p->tool, p->dir);
			told = true;
		}
		snprintf(path, sizeof(path), "%s/%s", p->dir, de->d_name);
		if (unlink(path) && errno != ENOENT && !err)
			err = -errno;
	}
	closedir(d);
	if (!err && rmdir(p->dir) && errno != ENOENT)
		err = -errno;
	if (err)
		fprintf(stderr, "%s: cannot remove the stale pins under %s: %s\n", p->tool, p->dir,
			strerror(-err));
	return err;
}

int pins_lock(struct pins *p, const char *tool, const char *name, unsigned int flags)
{
	unsigned long long start;
	pid_t dead = 0;
	int fd, err;

	memset(p, 0, sizeof(*p));
	p->tool = tool;
	snprintf(p->dir, sizeof(p->dir), PINS_ROOT "/%s", name);
	snprintf(p->lock, sizeof(p->lock), PINS_LOCK_DIR "/%s.lock", name);
	fd = open_lock(p);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err == -EWOULDBLOCK) {
			p->owner = live_owner(fd);
			close(fd);
			return -EBUSY;
		}
		fprintf(stderr, "%s: cannot lock %s: %s\n", tool, p->lock, strerror(-err));
		close(fd);
		return err;
	}
	p->lock_fd = fd;
	p->locked = true;
	/* A record left behind names an owner that died holding the lock. */
	if (!read_record(fd, &dead, &start))
		dead = 0;
	err = write_record(fd);
	if (err)
		fprintf(stderr, "%s: cannot write the owner record %s: %s\n", tool, p->lock,
			strerror(-err));
	if (!err && !(flags & PINS_KEEP_STALE))
		err = remove_stale(p, dead);
	if (!err)
		err = mkdir_one(tool, PINS_ROOT);
	if (!err)
		err = mkdir_one(tool, p->dir);
	if (err)
		pins_unlock(p);
	return err;
}

/* DIR/@name in @path, or NULL (errno set) when there is no room to remember it. */
static const char *pin_path(struct pins *p, const char *name, char *path, size_t len)
{
	if (!p->locked || strlen(name) >= PINS_NAME_LEN) {
		errno = !p->locked ? EBADF : ENAMETOOLONG;
		return NULL;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		void *names = realloc(p->names, cap * sizeof(*p->names));

		if (!names) {
			errno = ENOMEM;
			return NULL;
		}
		p->names = names;
		p->cap = cap;
	}
	snprintf(path, len, "%s/%s", p->dir, name);
	return path;
}

/*
 * Remember a pin as ours once it exists: a failed pin creates nothing, and a name we
 * did not create (EEXIST) is never unpinned by us.
 */
static int pinned(struct pins *p, const char *name, int err)
{
	if (err) {
		fprintf(stderr, "%s: cannot pin %s/%s: %s " BPFFS_HINT "\n", p->tool, p->dir, name,
			strerror(-err));
		return err;
	}
	snprintf(p->names[p->n++], PINS_NAME_LEN, "%s", name);
	return 0;
}

int pins_map(struct pins *p, struct bpf_map *map, const char *name)
{
	char path[sizeof(p->dir) + PINS_NAME_LEN + 1];

	if (!pin_path(p, name, path, sizeof(path)))
		return pinned(p, name, -errno);
	return pinned(p, name, bpf_map__pin(map, path));
}

int pins_prog(struct pins *p, struct bpf_program *prog, const char *name)
{
	char path[sizeof(p->dir) + PINS_NAME_LEN + 1];

	if (!pin_path(p, name, path, sizeof(path)))
		return pinned(p, name, -errno);
	return pinned(p, name, bpf_program__pin(prog, path));
}

int pins_link(struct pins *p, struct bpf_link *link, const char *name)
{
	char path[sizeof(p->dir) + PINS_NAME_LEN + 1];

	if (!pin_path(p, name, path, sizeof(path)))
		return pinned(p, name, -errno);
	return pinned(p, name, bpf_link__pin(link, path));
}

int pins_fd(struct pins *p, int fd, const char *name)
{
	char path[sizeof(p->dir) + PINS_NAME_LEN + 1];

	if (!pin_path(p, name, path, sizeof(path)))
		return pinned(p, name, -errno);
	return pinned(p, name, bpf_obj_pin(fd, path) ? -errno : 0);
}

void pins_unpin(struct pins *p)
{
	char path[sizeof(p->dir) + PINS_NAME_LEN + 1];

	if (!p->locked)
		return;
	while (p->n) {
		snprintf(path, sizeof(path), "%s/%s", p->dir, p->names[--p->n]);
		unlink(path);
	}
	rmdir(p->dir);	/* fails, leaving it, if anything but ours is in it */
}

void pins_unlock(struct pins *p)
{
	if (!p->locked)
		return;
	/*
	 * A clean exit leaves no record: only a dead owner's stays, for the next one's notice.
	 * A failure is harmless: the lock goes with the fd, a stale record only words a notice.
	 */
	(void)clear_record(p->lock_fd);
	close(p->lock_fd);
	p->locked = false;
	p->n = 0;
	p->cap = 0;
	free(p->names);
	p->names = NULL;
}

void pins_release(struct pins *p)
{
	pins_unpin(p);
	pins_unlock(p);
}
