// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "cookie.h"
#include "libcookie.h"

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

int cookie_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int cookie_request(int fd, const char *request, char *reply, size_t len)
{
	char line[256];
	size_t n = snprintf(line, sizeof(line), "%s\n", request), off = 0;

	if (n >= sizeof(line))
		return -E2BIG;
	while (off < n) {
		ssize_t w = send(fd, line + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += w;
	}
	/* One reply line; read byte-sized chunks up to the newline so nothing is over-read. */
	off = 0;
	for (;;) {
		ssize_t r = recv(fd, reply + off, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
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
