// SPDX-License-Identifier: GPL-2.0
/* The JSON writer of json.h: separators and nesting tracked, strings escaped (UTF-8 checked). */
#include <math.h>
#include <inttypes.h>
#include "src/json.h"

/*
 * The length of the well-formed UTF-8 character at @s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when there is none; then *@bad is the length
 * of its "maximal subpart" (the bytes that could still have begun a character), which is
 * what one U+FFFD replaces in Unicode's recommended practice (and Python's "replace").
 */
size_t json_utf8_char(const unsigned char *s, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		need = 0;	/* 80-c1 (a continuation, or an overlong lead) and f5-ff */
	/* The second byte's range excludes overlongs, surrogates and code points > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < need; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			break;
	if (need && i == need)
		return need;
	*bad = i;
	return 0;
}

/*
 * JSON strings are UTF-8 (RFC 8259), but what we print comes from the system: command
 * lines, names. Valid UTF-8 passes as is; each ill-formed subsequence becomes one
 * \ufffd (U+FFFD REPLACEMENT CHARACTER), so the output always parses; '"' and '\\' are
 * escaped, newline and tab as \n and \t, every other control byte (< 0x20, and 0x7f) as
 * \u00XX.
 */
void json_print_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t bad = 1, n = json_utf8_char(s, &bad);

		if (!n) {
			fputs("\\ufffd", f);
			s += bad;
		} else if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			if (*s == '"' || *s == '\\')
				fprintf(f, "\\%c", *s);
			else if (*s == '\n')
				fputs("\\n", f);
			else if (*s == '\t')
				fputs("\\t", f);
			else if (*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\u%04x", *s);
			else
				fputc(*s, f);
			s++;
		}
	}
	fputc('"', f);
}

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->has_member[0] = false;
	j->after_key = false;
	j->beyond = 0;
}

/* Before any value or key: the ',' that separates it from the one before. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_member[j->depth])
		fputc(',', j->f);
	j->has_member[j->depth] = true;
}

static void nest_begin(struct json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	/*
	 * Deeper than JSON_MAX_DEPTH is a bug of the caller: stay in bounds and keep the text
	 * well formed (the levels beyond share the last one's separator state).
	 */
	if (j->depth == JSON_MAX_DEPTH - 1) {
		j->beyond++;
		j->has_member[j->depth] = false;
		return;
	}
	j->depth++;
	j->has_member[j->depth] = false;
}

static void nest_end(struct json *j, char c)
{
	fputc(c, j->f);
	j->after_key = false;
	if (j->beyond) {
		j->beyond--;
		j->has_member[j->depth] = true;
		return;
	}
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		/* A whole document: one per line (JSON lines), flushed for readers of a pipe. */
		fputc('\n', j->f);
		fflush(j->f);
		j->has_member[0] = false;
	}
}

void json_object_begin(struct json *j)
{
	nest_begin(j, '{');
}

void json_object_end(struct json *j)
{
	nest_end(j, '}');
}

void json_array_begin(struct json *j)
{
	nest_begin(j, '[');
}

void json_array_end(struct json *j)
{
	nest_end(j, ']');
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	json_print_string(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	sep(j);
	json_print_string(j->f, s);
}

void json_u64(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_float(struct json *j, int prec, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.*f", prec, v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_string_field(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_u64_field(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_number_field(struct json *j, const char *key, const char *digits)
{
	json_key(j, key);
	sep(j);
	fputs(digits, j->f);
}

void json_i64_field(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_float_field(struct json *j, const char *key, int prec, double v)
{
	json_key(j, key);
	json_float(j, prec, v);
}

void json_bool_field(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_null_field(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

void json_object_field_begin(struct json *j, const char *key)
{
	json_key(j, key);
	json_object_begin(j);
}

void json_array_field_begin(struct json *j, const char *key)
{
	json_key(j, key);
	json_array_begin(j);
}
