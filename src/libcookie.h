/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcookie: globally unique 64-bit cookies from cookie-gend.
 *
 * Two ways to draw, from the same counter:
 *  - the socket (anyone in group bareatom): cookie_connect() + cookie_get(); every wait on
 *    it is bounded (COOKIE_TIMEOUT_MS, or $COOKIE_TIMEOUT), so a stopped or hung daemon
 *    gives -ETIMEDOUT, never a hang. cookie-gend limits each uid but root to a rate of
 *    cookies per second; a refused GET gives -EAGAIN;
 *  - the lock-free fast path (root: the pinned map is root-only): cookie_fast_open() maps
 *    the counter and cookie_fast_get() is one atomic fetch-add on it. It fails with -EAGAIN
 *    when the counter reached the durable high-water mark: ask the socket, which raises it.
 *    A cookie-gend --etcd that moved to another node id pinned a fresh counter and left the
 *    mapped one at its limit for good: a fast path that keeps failing while the socket
 *    serves maps the new one with cookie_fast_close() and cookie_fast_open().
 */
#ifndef __BAREATOM_LIBCOOKIE_H
#define __BAREATOM_LIBCOOKIE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "bpf/cookie_limit.h"

/* pins.h's PINS_ROOT "/cookie", spelled whole: this header is installed without pins.h. */
#define COOKIE_PIN_DIR "/sys/fs/bpf/bareatom/cookie"
#define COOKIE_SOCKET_PATH "/run/bareatom/cookie.sock"
/* Held by the one `cookie --follow` while it runs (the pinned follower map has its pid). */
#define COOKIE_FOLLOW_LOCK "/run/bareatom/cookie-follow.lock"
/*
 * The default bound on a connect and on each request (send and whole reply), in ms. The
 * environment's COOKIE_TIMEOUT, in seconds ("2", "0.5"), replaces it for cookie_connect().
 */
#define COOKIE_TIMEOUT_MS 5000
#define COOKIE_TIMEOUT_MAX_MS 3600000

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

/*
 * Parse a timeout in seconds: digits with at most 3 decimals ("5", "0.25"), more than 0 and
 * at most COOKIE_TIMEOUT_MAX_MS. 0 with *ms set, or -EINVAL.
 */
int cookie_parse_timeout(const char *s, int *ms);
/*
 * Connect to cookie-gend's socket at @path: a connected fd, or a negative errno. The fd's
 * bound is @timeout_ms (1 to COOKIE_TIMEOUT_MAX_MS); the connect itself waits at most that
 * long when the daemon's backlog is full (-ETIMEDOUT). cookie_connect() takes the bound
 * from $COOKIE_TIMEOUT when it is set (-EINVAL when it does not parse), else
 * COOKIE_TIMEOUT_MS.
 */
int cookie_connect(const char *path);
int cookie_connect_timeout(const char *path, int timeout_ms);
/*
 * Set the bound of an fd connected some other way (it is kept as the socket's SO_RCVTIMEO
 * and SO_SNDTIMEO). An fd without one gets COOKIE_TIMEOUT_MS. 0 or a negative errno.
 */
int cookie_set_timeout(int fd, int timeout_ms);
/*
 * Send one request line and read one reply line (without '\n') into @reply, all within the
 * fd's bound. Returns 0 for "OK ...", -EPROTO for "ERR ..." (the reason is in @reply),
 * -ETIMEDOUT when the bound passed (the fd is then out of step: close it), or another
 * negative errno.
 */
int cookie_request(int fd, const char *request, char *reply, size_t len);
/*
 * -EAGAIN when cookie-gend refused it under the per-uid rate limit (nothing was drawn;
 * retry later), -EPROTO for another ERR, or cookie_request()'s errors.
 */
int cookie_get(int fd, uint64_t n, uint64_t *first);
/* -ESRCH when the process does not exist. */
int cookie_pid(int fd, int pid, uint64_t *cookie);

#endif /* __BAREATOM_LIBCOOKIE_H */
