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
 * Take @data's bytes from *@off on into @lb, up to and including the next '\n': 1 when a
 * line is whole (*@line, NUL-terminated without its '\n', and *@len; valid until the next
 * call), 0 when @data is used up without one (its bytes wait in @lb for the next read),
 * -1 when a line grew past COOKIE_LINE_MAX (the caller closes the connection). *@off
 * advances past what was taken. The caller pulls the lines; nothing is called back:
 *
 *	size_t off = 0;
 *	while ((r = cookie_linebuf_next(&lb, data, n, &off, &line, &len)) > 0)
 *		...serve line...
 */
int cookie_linebuf_next(struct cookie_linebuf *lb, const char *data, size_t n, size_t *off,
			const char **line, size_t *len);

/* One pair of a STATS reply, not NUL-terminated: lengths given. */
struct cookie_stat {
	const char *key, *val;
	size_t klen, vlen;
};

/*
 * A STATS reply ("OK" then " key=value" pairs), one pair at a time: start with *@p = @reply;
 * 1 with @kv the next pair, 0 at the end, -1 when @reply is not an OK reply or a word has
 * no '=' (or nothing before it). A bare "OK" has no pairs.
 *
 *	const char *p = reply;
 *	while ((r = cookie_stats_next(reply, &p, &kv)) > 0)
 *		...kv...
 */
int cookie_stats_next(const char *reply, const char **p, struct cookie_stat *kv);

#endif /* __BAREATOM_COOKIE_PROTO_H */
