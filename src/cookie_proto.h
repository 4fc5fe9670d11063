/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's socket protocol: one ASCII request per line, at most COOKIE_LINE_MAX bytes.
 *
 *   GET N      (1 <= N <= 65536)  ->  OK FIRST N     cookies FIRST .. FIRST+N-1 are yours
 *   PID P                         ->  OK COOKIE      the cookie of live process P
 *   STATS                         ->  OK key=value ...
 *   anything else                 ->  ERR reason     (the connection stays usable)
 *
 * A line longer than COOKIE_LINE_MAX closes the connection. Pure code, fuzzed on the host.
 */
#ifndef __BAREATOM_COOKIE_PROTO_H
#define __BAREATOM_COOKIE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define COOKIE_LINE_MAX 128
#define COOKIE_GET_MAX 65536
#define COOKIE_PID_MAX 4194304	/* the kernel's PID_MAX_LIMIT */

enum cookie_req_kind {
	COOKIE_REQ_GET,
	COOKIE_REQ_PID,
	COOKIE_REQ_STATS,
};

struct cookie_req {
	enum cookie_req_kind kind;
	uint64_t n;	/* GET: how many cookies */
	int pid;	/* PID: which process */
};

/*
 * Parse one request line, without its '\n' (a trailing '\r' is accepted). Returns 0, or -1
 * with *err set to a short reason for the ERR reply.
 */
int cookie_parse_request(const char *line, size_t len, struct cookie_req *req, const char **err);

/* Bytes of one connection, split into lines. */
struct cookie_linebuf {
	char buf[COOKIE_LINE_MAX + 1];
	size_t len;
};

/*
 * Append @n bytes and call @cb for each complete line (without the '\n'). Returns 0, -1 when
 * a line grew past COOKIE_LINE_MAX (the caller closes the connection), or what @cb returned
 * when it was not 0 (stops there).
 */
int cookie_linebuf_feed(struct cookie_linebuf *lb, const char *data, size_t n,
			int (*cb)(void *arg, const char *line, size_t len), void *arg);

/*
 * Split a STATS reply ("OK" then " key=value" pairs) into its pairs, calling @cb for each
 * (not NUL-terminated: lengths given). Returns 0, or -1 when @reply is not an OK reply or
 * a word has no '='. A bare "OK" has no pairs.
 */
int cookie_parse_stats(const char *reply,
		       void (*cb)(void *arg, const char *key, size_t klen, const char *val, size_t vlen),
		       void *arg);

#endif /* __BAREATOM_COOKIE_PROTO_H */
