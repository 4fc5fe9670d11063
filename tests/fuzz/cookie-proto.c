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


static void parse_reply(const char *line)
{
	const char *end = line + strlen(line), *p = line;
	struct cookie_stat kv;

	while (cookie_stats_next(line, &p, &kv) > 0)
		if (!kv.klen || kv.key < line || kv.val + kv.vlen > end ||
		    memchr(kv.key, '=', kv.klen))
			abort();
}

static void on_line(const char *line, size_t len)
{
	struct cookie_req req;
	const char *err = NULL;

	if (len > COOKIE_LINE_MAX || strlen(line) > len)
		abort();
	parse_reply(line);
	if (cookie_parse_request(line, len, &req, &err)) {
		if (!err || !*err)
			abort();
		return;
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
}

/* One read through the splitter, every whole line to on_line(), as the daemon does. */
static int feed(struct cookie_linebuf *lb, const char *data, size_t n)
{
	const char *line;
	size_t len, off = 0;
	int r;

	while ((r = cookie_linebuf_next(lb, data, n, &off, &line, &len)) > 0)
		on_line(line, len);
	return r;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct cookie_linebuf lb = { .len = 0 };
	size_t half = size / 2;

	/* Two writes, as a client may split a request anywhere. */
	if (feed(&lb, (const char *)data, half) == 0)
		feed(&lb, (const char *)data + half, size - half);
	/* And the parser alone on the raw bytes, embedded NULs included. */
	{
		struct cookie_req req;
		const char *err;

		cookie_parse_request((const char *)data, size, &req, &err);
	}
	return 0;
}
