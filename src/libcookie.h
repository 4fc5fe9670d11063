/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcookie: globally unique 64-bit cookies from cookie-gend.
 *
 * Two ways to draw, from the same counter:
 *  - the socket (anyone in group bareatom): cookie_connect() + cookie_get();
 *  - the lock-free fast path (root: the pinned map is root-only): cookie_fast_open() maps
 *    the counter and cookie_fast_get() is one atomic fetch-add on it. It fails with -EAGAIN
 *    when the counter reached the durable high-water mark: ask the socket, which raises it.
 */
#ifndef __BAREATOM_LIBCOOKIE_H
#define __BAREATOM_LIBCOOKIE_H

#include <stdint.h>

#define COOKIE_PIN_DIR "/sys/fs/bpf/bareatom/cookie"
#define COOKIE_SOCKET_PATH "/run/bareatom/cookie.sock"

struct cookie_state;

struct cookie_fast {
	int fd;
	struct cookie_state *st;
	size_t map_len;
};

int cookie_fast_open(struct cookie_fast *f);
void cookie_fast_close(struct cookie_fast *f);

/*
 * Draw N cookies: *first .. *first+N-1. Inline, so the fast path is one lock xadd, one load
 * and a compare. The limit only grows and is published after the durable write, so a stale
 * read can only refuse a draw, never hand out one beyond the mark.
 */
static inline int cookie_fast_get(struct cookie_fast *f, uint32_t n, uint64_t *first)
{
	/* struct cookie_state starts with next, then limit, then statistics (bpf/cookie.h). */
	uint64_t *next = (uint64_t *)f->st, *limit = next + 1;
	uint64_t c;

	if (n == 0)
		return -22;	/* -EINVAL */
	c = __atomic_fetch_add(next, n, __ATOMIC_RELAXED);
	if (c == 0 || c + n > __atomic_load_n(limit, __ATOMIC_RELAXED)) {
		/* Past the durable mark: these values are burnt, never handed out. */
		__atomic_fetch_add(next + 4, 1, __ATOMIC_RELAXED);	/* denied */
		__atomic_store_n(next + 8, 1, __ATOMIC_RELAXED);	/* need_room */
		return -11;	/* -EAGAIN */
	}
	*first = c;
	return 0;
}

/* Returns a connected fd, or a negative errno. */
int cookie_connect(const char *path);
/*
 * Send one request line and read one reply line (without '\n') into @reply. Returns 0 for
 * "OK ...", -EPROTO for "ERR ..." (the reason is in @reply), or a negative errno.
 */
int cookie_request(int fd, const char *request, char *reply, size_t len);
int cookie_get(int fd, uint32_t n, uint64_t *first);
/* -ESRCH when the process does not exist. */
int cookie_pid(int fd, int pid, uint64_t *cookie);

#endif /* __BAREATOM_LIBCOOKIE_H */
