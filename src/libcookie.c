// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "bpf/cookie_abi.h"
#include "src/libcookie.h"

int cookie_fast_open(struct cookie_fast *f)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	int fd, err;

	f->st = NULL;
	f->fd = -1;
	fd = bpf_obj_get(COOKIE_PIN_DIR "/state");
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.value_size < sizeof(struct cookie_state) ||
	    !(info.map_flags & BPF_F_MMAPABLE)) {
		close(fd);
		return -EINVAL;
	}
	f->map_len = ((size_t)info.value_size * info.max_entries + page - 1) / page * page;
	m = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	f->fd = fd;
	f->st = m;
	return 0;
}

void cookie_fast_close(struct cookie_fast *f)
{
	if (f->st)
		munmap(f->st, f->map_len);
	if (f->fd >= 0)
		close(f->fd);
	f->st = NULL;
	f->fd = -1;
}

int cookie_parse_timeout(const char *s, int *ms)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	long long v = 0;

	if (!whole || whole > 7)
		return -EINVAL;
	if (s[whole] == '.') {
		frac = strspn(s + whole + 1, "0123456789");
		if (!frac || frac > 3 || s[whole + 1 + frac])
			return -EINVAL;
	} else if (s[whole]) {
		return -EINVAL;
	}
	for (size_t i = 0; i < whole; i++)
		v = v * 10 + (s[i] - '0');
	v *= 1000;
	for (size_t i = 0, scale = 100; i < frac; i++, scale /= 10)
		v += (s[whole + 1 + i] - '0') * scale;
	if (v < 1 || v > COOKIE_TIMEOUT_MAX_MS)
		return -EINVAL;
	*ms = v;
	return 0;
}

int cookie_set_timeout(int fd, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, timeout_ms % 1000 * 1000 };

	if (timeout_ms < 1 || timeout_ms > COOKIE_TIMEOUT_MAX_MS)
		return -EINVAL;
	/* The send bound also bounds a blocking connect to a full backlog (unix(7)). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/* The fd's bound in ms: what cookie_set_timeout() stored, or the default. */
static int timeout_of(int fd)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) || (!tv.tv_sec && !tv.tv_usec))
		return COOKIE_TIMEOUT_MS;
	return tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
}

int cookie_connect_timeout(const char *path, int timeout_ms)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = cookie_set_timeout(fd, timeout_ms);
	if (!err && connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;	/* the backlog stayed full */
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cookie_connect(const char *path)
{
	const char *env = getenv("COOKIE_TIMEOUT");
	int ms = COOKIE_TIMEOUT_MS;

	if (env && cookie_parse_timeout(env, &ms))
		return -EINVAL;
	return cookie_connect_timeout(path, ms);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (CLOCK_MONOTONIC ms): 0, -ETIMEDOUT or -errno. */
static int wait_for(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		long long left = deadline - now_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 0;
	}
}

int cookie_request(int fd, const char *request, char *reply, size_t len)
{
	long long deadline = now_ms() + timeout_of(fd);
	char line[256];
	size_t n = snprintf(line, sizeof(line), "%s\n", request), off = 0;
	int err;

	if (n >= sizeof(line))
		return -E2BIG;
	while (off < n) {
		ssize_t w = send(fd, line + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			err = wait_for(fd, POLLOUT, deadline);
			if (err)
				return err;
			continue;
		}
		if (w < 0)
			return -errno;
		off += w;
	}
	/*
	 * One reply line; read byte-sized chunks up to the newline so nothing is over-read. The
	 * daemon may be stopped (SIGSTOP) with the connection open: wait no longer than the bound.
	 */
	off = 0;
	for (;;) {
		ssize_t r = recv(fd, reply + off, 1, MSG_DONTWAIT);

		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			err = wait_for(fd, POLLIN, deadline);
			if (err)
				return err;
			continue;
		}
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		if (reply[off] == '\n')
			break;
		if (off + 2 < len)
			off++;
	}
	reply[off] = '\0';
	if (!strncmp(reply, "OK", 2))
		return 0;
	return -EPROTO;
}

int cookie_get(int fd, uint64_t n, uint64_t *first)
{
	char req[32], reply[256];
	uint64_t got_n;
	int err;

	if (n == 0 || n > COOKIE_DRAW_MAX)
		return -EINVAL;
	snprintf(req, sizeof(req), "GET %llu", (unsigned long long)n);
	err = cookie_request(fd, req, reply, sizeof(reply));
	if (err == -EPROTO && !strncmp(reply, "ERR rate limited", 16))
		return -EAGAIN;
	if (err)
		return err;
	if (sscanf(reply, "OK %" SCNu64 " %" SCNu64, first, &got_n) != 2 || got_n != n)
		return -EBADMSG;
	return 0;
}

int cookie_pid(int fd, int pid, uint64_t *cookie)
{
	char req[32], reply[256];
	int err;

	snprintf(req, sizeof(req), "PID %d", pid);
	err = cookie_request(fd, req, reply, sizeof(reply));
	if (err == -EPROTO && strstr(reply, "no such process"))
		return -ESRCH;
	if (err)
		return err;
	if (sscanf(reply, "OK %" SCNu64, cookie) != 1)
		return -EBADMSG;
	return 0;
}
