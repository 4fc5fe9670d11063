// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for cookie-gend's protocol code: the bytes of one connection go through
 * the line splitter and every line through the request parser, as in the daemon. Besides
 * the sanitizers' checks, the parser's promises are asserted: an accepted GET has
 * 1 <= N <= 65536, an accepted PID is in range, a rejected line has a reason, and no line
 * handed to the parser is longer than COOKIE_LINE_MAX. Each line is also read as a reply,
 * as cookie --stats reads one: every pair handed out lies inside the line, with a key.
 */
#include <stdlib.h>
#include <string.h>
#include "src/cookie_proto.h"

static const char *reply_start, *reply_end;

static void on_pair(void *arg, const char *key, size_t klen, const char *val, size_t vlen)
{
	if (!klen || key < reply_start || val + vlen > reply_end || memchr(key, '=', klen))
		abort();
}

static void parse_reply(const char *line)
{
	reply_start = line;
	reply_end = line + strlen(line);
	cookie_parse_stats(line, on_pair, NULL);
}

static int on_line(void *arg, const char *line, size_t len)
{
	struct cookie_req req;
	const char *err = NULL;

	if (len > COOKIE_LINE_MAX || strlen(line) > len)
		abort();
	parse_reply(line);
	if (cookie_parse_request(line, len, &req, &err)) {
		if (!err || !*err)
			abort();
		return 0;
	}
	switch (req.kind) {
	case COOKIE_REQ_GET:
		if (req.n < 1 || req.n > COOKIE_GET_MAX)
			abort();
		break;
	case COOKIE_REQ_PID:
		if (req.pid < 1 || req.pid > COOKIE_PID_MAX)
			abort();
		break;
	case COOKIE_REQ_STATS:
		break;
	default:
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct cookie_linebuf lb = { .len = 0 };
	size_t half = size / 2;

	/* Two writes, as a client may split a request anywhere. */
	if (cookie_linebuf_feed(&lb, (const char *)data, half, on_line, NULL) == 0)
		cookie_linebuf_feed(&lb, (const char *)data + half, size - half, on_line, NULL);
	/* And the parser alone on the raw bytes, embedded NULs included. */
	{
		struct cookie_req req;
		const char *err;

		cookie_parse_request((const char *)data, size, &req, &err);
	}
	return 0;
}
