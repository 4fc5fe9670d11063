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

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "cookie.h"
#include "cookie_limit.h"

#define COOKIE_PIN_DIR "/sys/fs/bpf/bareatom/cookie"
#define COOKIE_SOCKET_PATH "/run/bareatom/cookie.sock"

struct cookie_fast {
	int fd;
	struct cookie_state *st;
	size_t map_len;
};

/* 0, or a negative errno; on failure @f holds nothing to close (cookie_fast_close is safe). */
int cookie_fast_open(struct cookie_fast *f);
void cookie_fast_close(struct cookie_fast *f);

/*
 * Draw @n cookies (1 to COOKIE_DRAW_MAX): *first .. *first+n-1. Inline, so the fast path is
 * two loads, one lock xadd and a compare. -EINVAL for a bad @n (nothing is drawn), -EAGAIN
 * when the counter reached the durable high-water mark: ask the socket, which raises it.
 *
 * The checks are bpf/cookie_limit.h's, the very code the BPF programs run: a counter already
 * at the limit refuses without adding, so refused retries do not push it on; a draw that
 * crosses the limit burns at most @n values, never handed out; no comparison wraps, and none
 * lets a draw leave the node's space. Refusals are counted and ask cookie-gend for room.
 */
static inline int cookie_fast_get(struct cookie_fast *f, uint64_t n, uint64_t *first)
{
	uint64_t c;

	if (n == 0 || n > COOKIE_DRAW_MAX)
		return -EINVAL;
	c = cookie_draw(f->st, n);
	if (!c)
		return -EAGAIN;
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
int cookie_get(int fd, uint64_t n, uint64_t *first);
/* -ESRCH when the process does not exist. */
int cookie_pid(int fd, int pid, uint64_t *cookie);

#endif /* __BAREATOM_LIBCOOKIE_H */
