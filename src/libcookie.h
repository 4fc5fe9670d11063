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
int cookie_fast_get(struct cookie_fast *f, uint32_t n, uint64_t *first);
void cookie_fast_close(struct cookie_fast *f);

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
