/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer, after bpftool's json_writer: it tracks the nesting and places the
 * separators, so callers name what they write instead of placing commas by hand. Strings
 * go through json_print_string (every control byte escaped, valid UTF-8 out).
 *
 *	struct json j;
 *
 *	json_init(&j, stdout);
 *	json_object_begin(&j);
 *	json_u64_field(&j, "count", n);
 *	json_array_field_begin(&j, "cpus");
 *	json_u64(&j, 0);
 *	json_array_end(&j);
 *	json_object_end(&j);	(at depth 0 this ends the line and flushes)
 */
#ifndef __BAREATOM_JSON_H
#define __BAREATOM_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool has_member[JSON_MAX_DEPTH];	/* a value was written at this depth: next needs ',' */
	bool after_key;				/* a key was written: its value needs no ',' */
	int beyond;				/* levels opened past JSON_MAX_DEPTH */
};

/* Print @s as a JSON string, quoted and escaped, always valid UTF-8 (U+FFFD for bad bytes). */
void json_print_string(FILE *f, const char *s);

/*
 * The length of the well-formed UTF-8 character at @s, or 0 when there is none (then *@bad
 * is how many bytes one U+FFFD replaces).
 */
size_t json_utf8_char(const unsigned char *s, size_t *bad);

void json_init(struct json *j, FILE *f);

/* Values: in an array, or after json_key(). */
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* @prec digits after the point ("%.*f"); NaN and infinities, which JSON lacks, as null. */
void json_float(struct json *j, int prec, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Members of an object: a key, then one value. */
void json_key(struct json *j, const char *key);
void json_string_field(struct json *j, const char *key, const char *s);
void json_u64_field(struct json *j, const char *key, uint64_t v);
/* @digits: a JSON number as text, e.g. an integer past 64 bits. */
void json_number_field(struct json *j, const char *key, const char *digits);
void json_i64_field(struct json *j, const char *key, int64_t v);
void json_float_field(struct json *j, const char *key, int prec, double v);
void json_bool_field(struct json *j, const char *key, bool v);
void json_null_field(struct json *j, const char *key);
void json_object_field_begin(struct json *j, const char *key);
void json_array_field_begin(struct json *j, const char *key);

#endif /* __BAREATOM_JSON_H */
