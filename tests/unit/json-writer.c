// SPDX-License-Identifier: GPL-2.0
/*
 * json-writer: the JSON writer object (src/json.c) places every separator itself, nests,
 * escapes keys and strings like json_print_string, writes non-finite numbers as null, and
 * ends each top-level document with one newline. Exact text, no kernel needed.
 */
#include <math.h>
#include <stdlib.h>
#include "src/json.h"
#include "tests/unit/test.h"

static char *buf;
static size_t len;
static FILE *f;
static struct json j;

static void start(void)
{
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	json_init(&j, f);
}

static const char *text(void)
{
	fclose(f);
	return buf;
}

int main(void)
{
	start();
	json_object_begin(&j);
	json_object_end(&j);
	ASSERT_STREQ(text(), "{}\n", "empty object");

	start();
	json_array_begin(&j);
	json_array_end(&j);
	ASSERT_STREQ(text(), "[]\n", "empty array");

	start();
	json_object_begin(&j);
	json_u64_field(&j, "a", 18446744073709551615ULL);
	json_i64_field(&j, "b", -9223372036854775807LL - 1);
	json_bool_field(&j, "c", true);
	json_bool_field(&j, "d", false);
	json_null_field(&j, "e");
	json_string_field(&j, "f", "x");
	json_float_field(&j, "g", 3, 1.5);
	json_object_end(&j);
	ASSERT_STREQ(text(), "{\"a\":18446744073709551615,\"b\":-9223372036854775808,\"c\":true,"
		     "\"d\":false,\"e\":null,\"f\":\"x\",\"g\":1.500}\n", "typed fields, commas between");

	start();
	json_object_begin(&j);
	json_array_field_begin(&j, "cpus");
	for (int i = 0; i < 3; i++)
		json_u64(&j, i);
	json_array_end(&j);
	json_array_field_begin(&j, "none");
	json_array_end(&j);
	json_array_field_begin(&j, "rows");
	for (int i = 0; i < 2; i++) {
		json_object_begin(&j);
		json_u64_field(&j, "cpu", i);
		json_object_field_begin(&j, "o");
		json_object_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_u64_field(&j, "after", 7);
	json_object_end(&j);
	ASSERT_STREQ(text(), "{\"cpus\":[0,1,2],\"none\":[],\"rows\":[{\"cpu\":0,\"o\":{}},"
		     "{\"cpu\":1,\"o\":{}}],\"after\":7}\n", "nesting: arrays, objects, empty ones");

	start();
	json_object_begin(&j);
	json_float_field(&j, "nan", 2, NAN);
	json_float_field(&j, "inf", 2, INFINITY);
	json_float_field(&j, "ninf", 2, -INFINITY);
	json_float_field(&j, "ts", 6, 1764851234.5);
	json_object_end(&j);
	ASSERT_STREQ(text(), "{\"nan\":null,\"inf\":null,\"ninf\":null,\"ts\":1764851234.500000}\n",
		     "NaN and infinities are null, precision as asked");

	start();
	json_object_begin(&j);
	json_string_field(&j, "k\"\\\n", "a\x01\x7f\xff\xc3");
	json_object_end(&j);
	ASSERT_STREQ(text(), "{\"k\\\"\\\\\\n\":\"a\\u0001\\u007f\\ufffd\\ufffd\"}\n",
		     "keys and strings escaped, bad UTF-8 replaced");

	start();
	for (int i = 0; i < 2; i++) {
		json_object_begin(&j);
		json_u64_field(&j, "line", i);
		json_object_end(&j);
	}
	ASSERT_STREQ(text(), "{\"line\":0}\n{\"line\":1}\n",
		     "JSON lines: no comma between top-level documents");

	start();
	for (int i = 0; i < JSON_MAX_DEPTH + 4; i++)
		json_array_begin(&j);
	for (int i = 0; i < JSON_MAX_DEPTH + 4; i++)
		json_array_end(&j);
	text();
	ASSERT_EQ(strlen(buf), 2 * (JSON_MAX_DEPTH + 4) + 1, "deeper than the limit: no overflow");
	free(buf);
	return test_done();
}
