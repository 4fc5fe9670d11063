// SPDX-License-Identifier: GPL-2.0
/* cookie-proto: the protocol parser and line splitter, case by case (TAP). */
#include <stdio.h>
#include <string.h>
#include "src/cookie_proto.h"
#include "tests/unit/test.h"

/* One named check: what was checked, of which line. */
static void check(int cond, const char *what, const char *line)
{
	char name[512];

	snprintf(name, sizeof(name), "%s: '%s'", what, line);
	test_report(cond, name);
}

static void accepts(const char *line, enum cookie_req_kind kind, unsigned long long v)
{
	struct cookie_req req;
	const char *err = NULL;
	int ret = cookie_parse_request(line, strlen(line), &req, &err);

	check(ret == 0 && req.kind == kind &&
	      (kind == COOKIE_REQ_GET ? req.n == v : kind == COOKIE_REQ_PID ? (unsigned long long)req.pid == v : 1),
	      "accepted", line);
}

static void rejects(const char *line, size_t len, const char *reason)
{
	struct cookie_req req;
	const char *err = "";
	int ret = cookie_parse_request(line, len, &req, &err);

	check(ret == -1 && strstr(err, reason), reason, line);
}

static int lines_seen;
static char last_line[256];

/* One read of a connection through the splitter, as the daemon does: its last result. */
static int feed(struct cookie_linebuf *lb, const char *data, size_t n)
{
	const char *line;
	size_t len, off = 0;
	int r;

	while ((r = cookie_linebuf_next(lb, data, n, &off, &line, &len)) > 0) {
		lines_seen++;
		snprintf(last_line, sizeof(last_line), "%s", line);
	}
	return r;
}

static char pairs[256];

static void stats_reply(const char *reply, int want_ret, const char *want_pairs)
{
	struct cookie_stat kv;
	const char *p = reply;
	int ret;

	pairs[0] = '\0';
	while ((ret = cookie_stats_next(reply, &p, &kv)) > 0) {
		size_t used = strlen(pairs);

		snprintf(pairs + used, sizeof(pairs) - used, "[%.*s|%.*s]", (int)kv.klen, kv.key,
			 (int)kv.vlen, kv.val);
	}
	check(ret == want_ret && !strcmp(pairs, want_pairs),
	      want_ret ? "STATS reply refused" : "STATS reply split into its pairs", reply);
}

int main(void)
{
	char big[200];
	struct cookie_linebuf lb = { .len = 0 };

	accepts("GET 1", COOKIE_REQ_GET, 1);
	accepts("GET 65536", COOKIE_REQ_GET, 65536);
	accepts("GET 0000000007", COOKIE_REQ_GET, 7);
	accepts("  GET\t42  ", COOKIE_REQ_GET, 42);
	accepts("GET 3\r", COOKIE_REQ_GET, 3);
	accepts("PID 1", COOKIE_REQ_PID, 1);
	accepts("PID 4194304", COOKIE_REQ_PID, 4194304);
	accepts("STATS", COOKIE_REQ_STATS, 0);
	rejects("", 0, "empty request");
	rejects(" \t ", 3, "empty request");
	rejects("\r", 1, "empty request");
	rejects("GET 0", 5, "out of range");
	rejects("GET 65537", 9, "out of range");
	rejects("GET 99999999999", 15, "whole number");
	rejects("GET -1", 6, "whole number");
	rejects("GET +1", 6, "whole number");
	rejects("GET 1x", 6, "whole number");
	rejects("GET 0x10", 8, "whole number");
	rejects("GET", 3, "needs a count");
	rejects("GET 1 1", 7, "too many words");
	rejects("PID 0", 5, "process id");
	rejects("PID 4194305", 11, "process id");
	rejects("PID", 3, "needs a process id");
	rejects("STATS 1", 7, "no argument");
	rejects("get 1", 5, "unknown request");
	rejects("GETS 1", 6, "unknown request");
	rejects("GET\0 1", 6, "not printable");
	rejects("GET \xff", 5, "not printable");
	memset(big, 'A', sizeof(big));
	rejects(big, COOKIE_LINE_MAX + 1, "too long");

	feed(&lb, "GET 1\nGE", 8);
	feed(&lb, "T 2\n", 4);
	check(lines_seen == 2 && !strcmp(last_line, "GET 2"), "lines split across feeds", last_line);
	memset(big, 'x', sizeof(big));
	check(feed(&lb, big, COOKIE_LINE_MAX) == 0, "a line of exactly 128 bytes fits", "x*128");
	check(feed(&lb, "\n", 1) == 0 && lines_seen == 3, "and is delivered", "x*128");
	check(feed(&lb, big, COOKIE_LINE_MAX + 1) == -1, "129 bytes without a newline is refused", "x*129");

	/* Replies, as cookie --stats reads them: a bare "OK" has nothing after it to read. */
	stats_reply("OK", 0, "");
	stats_reply("OK ", 0, "");
	stats_reply("OK next=5 state_error=none", 0, "[next|5][state_error|none]");
	stats_reply("OK a= b=2", 0, "[a|][b|2]");
	stats_reply("OKAY a=1", -1, "");
	stats_reply("ERR no", -1, "");
	stats_reply("OK novalue", -1, "");
	stats_reply("OK =1", -1, "");
	return test_done();
}
