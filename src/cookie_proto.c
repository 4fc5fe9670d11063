// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "src/cookie_proto.h"

/* A decimal number of at most 10 digits, no sign, nothing after it. */
static int parse_number(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

int cookie_parse_request(const char *line, size_t len, struct cookie_req *req, const char **err)
{
	size_t i, word_end, arg, arg_end;
	uint64_t v;

	if (len > COOKIE_LINE_MAX) {
		*err = "request too long";
		return -1;
	}
	if (len && line[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = line[i];

		if ((c < 0x20 && c != '\t') || c >= 0x7f) {
			*err = "malformed request: not printable ASCII";
			return -1;
		}
	}
	i = skip_blanks(line, 0, len);
	if (i == len) {
		*err = "empty request";
		return -1;
	}
	for (word_end = i; word_end < len && line[word_end] != ' ' && line[word_end] != '\t'; word_end++)
		;
	arg = skip_blanks(line, word_end, len);
	for (arg_end = arg; arg_end < len && line[arg_end] != ' ' && line[arg_end] != '\t'; arg_end++)
		;
	if (skip_blanks(line, arg_end, len) != len) {
		*err = "malformed request: too many words";
		return -1;
	}

	if (word_end - i == 5 && !memcmp(line + i, "STATS", 5)) {
		if (arg != len) {
			*err = "malformed request: STATS takes no argument";
			return -1;
		}
		req->kind = COOKIE_REQ_STATS;
		return 0;
	}
	if (word_end - i == 3 && !memcmp(line + i, "GET", 3)) {
		if (arg == len) {
			*err = "malformed request: GET needs a count";
			return -1;
		}
		if (parse_number(line + arg, arg_end - arg, &v)) {
			*err = "malformed request: GET takes a whole number";
			return -1;
		}
		if (v < 1 || v > COOKIE_GET_MAX) {
			*err = "GET count out of range (1-65536)";
			return -1;
		}
		req->kind = COOKIE_REQ_GET;
		req->n = v;
		return 0;
	}
	if (word_end - i == 3 && !memcmp(line + i, "PID", 3)) {
		if (arg == len) {
			*err = "malformed request: PID needs a process id";
			return -1;
		}
		if (parse_number(line + arg, arg_end - arg, &v) || v < 1 || v > COOKIE_PID_MAX) {
			*err = "malformed request: PID takes a process id";
			return -1;
		}
		req->kind = COOKIE_REQ_PID;
		req->pid = (int)v;
		return 0;
	}
	*err = "unknown request (GET N, PID P or STATS)";
	return -1;
}

int cookie_linebuf_next(struct cookie_linebuf *lb, const char *data, size_t n, size_t *off,
			const char **line, size_t *len)
{
	while (*off < n) {
		char ch = data[(*off)++];

		if (ch != '\n') {
			if (lb->len == COOKIE_LINE_MAX)
				return -1;
			lb->buf[lb->len++] = ch;
			continue;
		}
		lb->buf[lb->len] = '\0';
		*line = lb->buf;
		*len = lb->len;
		lb->len = 0;
		return 1;
	}
	return 0;
}

int cookie_stats_next(const char *reply, const char **p, struct cookie_stat *kv)
{
	const char *word, *eq;
	size_t len;

	if (*p == reply) {
		if (strncmp(reply, "OK", 2) || (reply[2] && reply[2] != ' '))
			return -1;
		*p = reply + 2;
	}
	while (**p == ' ')
		(*p)++;
	if (!**p)
		return 0;
	word = *p;
	len = strcspn(word, " ");
	eq = memchr(word, '=', len);
	if (!eq || eq == word)
		return -1;
	*kv = (struct cookie_stat){ .key = word, .klen = eq - word, .val = eq + 1,
				    .vlen = len - (eq - word) - 1 };
	*p = word + len;
	return 1;
}
