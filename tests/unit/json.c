// SPDX-License-Identifier: GPL-2.0
/*
 * json: checks of json_print_string and cmd_join (no kernel needed).
 *
 *   json          TAP checks: exact escapes of control bytes and ill-formed UTF-8, commands
 *                 cut to 1023 bytes on a character boundary
 *   json hex      read lines of hex bytes on stdin, print each as a JSON string on a line
 *                 (json.t compares them with Python's json and UTF-8 "replace" decoding)
 *   json join     print, one per line, JSON strings of 4 kB command lines cut to fit the
 *                 1024-byte buffer the tools use, at every offset of a multibyte character
 */
#include <stdlib.h>
#include <string.h>
#include "src/cmd.h"
#include "src/json.h"
#include "tests/unit/test.h"

#define CMD_LEN 1024	/* the tools' command buffer (struct state.command) */

/* json_print_string of @s, in a static buffer. */
static const char *json(const char *s)
{
	static char *text;
	size_t len;
	FILE *f;

	free(text);
	f = open_memstream(&text, &len);
	json_print_string(f, s);
	fclose(f);
	return text;
}

static int hex_lines(void)
{
	char line[8192], bytes[4096];

	while (fgets(line, sizeof(line), stdin)) {
		size_t k = 0;

		for (char *p = line; p[0] && p[1] && p[0] != '\n' && k + 1 < sizeof(bytes); p += 2) {
			char h[3] = { p[0], p[1], 0 };

			bytes[k++] = (char)strtoul(h, NULL, 16);
		}
		bytes[k] = '\0';
		json_print_string(stdout, bytes);
		putchar('\n');
	}
	return 0;
}

/*
 * "sh -c " + pad x 'a' + @ch repeated to about 4 kB: the cut at 1023 bytes falls on
 * every byte of @ch as pad goes from 0 to strlen(@ch) - 1.
 */
static void long_command(const char *ch, int pad, char *buf, char *full, size_t fulllen)
{
	static char arg[4200];
	char *argv[] = { "sh", "-c", arg, NULL };
	size_t o = 0;

	memset(arg, 'a', pad);
	o = pad;
	while (o + strlen(ch) < sizeof(arg) - 1) {
		memcpy(arg + o, ch, strlen(ch));
		o += strlen(ch);
	}
	arg[o] = '\0';
	cmd_join(argv, buf, CMD_LEN);
	snprintf(full, fulllen, "sh -c %s", arg);
}

static const char *const chars[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };

static int join_lines(void)
{
	char buf[CMD_LEN], full[4300];

	for (size_t c = 0; c < sizeof(chars) / sizeof(chars[0]); c++)
		for (size_t pad = 0; pad < strlen(chars[c]); pad++) {
			long_command(chars[c], pad, buf, full, sizeof(full));
			json_print_string(stdout, buf);
			putchar('\n');
		}
	return 0;
}

static void check_join(void)
{
	char buf[CMD_LEN], full[4300], what[128];
	char *argv[] = { "echo", "a\"b", "c", NULL };

	cmd_join(argv, buf, sizeof(buf));
	ASSERT_STREQ(buf, "echo a\"b c", "a short command is joined with spaces");
	for (size_t c = 0; c < sizeof(chars) / sizeof(chars[0]); c++)
		for (size_t pad = 0; pad < strlen(chars[c]); pad++) {
			size_t cl = strlen(chars[c]), body = CMD_LEN - 1 - strlen("sh -c ") - pad;
			size_t want = CMD_LEN - 1 - body % cl;

			long_command(chars[c], pad, buf, full, sizeof(full));
			snprintf(what, sizeof(what), "4 kB command of %zu-byte characters, pad %zu: "
				 "cut to whole characters", cl, pad);
			ASSERT_EQ((long)strlen(buf), (long)want, what);
			ASSERT_TRUE(!strncmp(buf, full, strlen(buf)),
				    "and it is a prefix of the whole command line");
		}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "hex"))
		return hex_lines();
	if (argc > 1 && !strcmp(argv[1], "join"))
		return join_lines();

	ASSERT_STREQ(json("plain text"), "\"plain text\"", "ASCII passes as is");
	ASSERT_STREQ(json("a\"b\\c"), "\"a\\\"b\\\\c\"", "quote and backslash are escaped");
	ASSERT_STREQ(json("\n\t"), "\"\\n\\t\"", "newline and tab as \\n and \\t");
	ASSERT_STREQ(json("\x01\x1b\x1f\x7f"), "\"\\u0001\\u001b\\u001f\\u007f\"",
	       "other control bytes and DEL as \\u00XX");
	ASSERT_STREQ(json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	       "valid 2-, 3- and 4-byte UTF-8 passes as is");
	ASSERT_STREQ(json("\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf"), "\"\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf\"",
	       "U+0080, U+FFFF and U+10FFFF pass as is");
	ASSERT_STREQ(json("a\x80z"), "\"a\\ufffdz\"", "a lone continuation byte becomes U+FFFD");
	ASSERT_STREQ(json("\xfe\xff"), "\"\\ufffd\\ufffd\"", "bytes FE and FF become one U+FFFD each");
	ASSERT_STREQ(json("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "overlong 2-byte '/' (C0 AF): two U+FFFD");
	ASSERT_STREQ(json("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"", "overlong 3-byte (E0 80 AF): three U+FFFD");
	ASSERT_STREQ(json("\xf0\x80\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
	       "overlong 4-byte (F0 80 80 AF): four U+FFFD");
	ASSERT_STREQ(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"", "surrogate U+D800 (ED A0 80): three U+FFFD");
	ASSERT_STREQ(json("\xed\xbf\xbf"), "\"\\ufffd\\ufffd\\ufffd\"", "surrogate U+DFFF (ED BF BF): three U+FFFD");
	ASSERT_STREQ(json("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "above U+10FFFF (F4 90 80 80): four U+FFFD");
	ASSERT_STREQ(json("\xf5\x80"), "\"\\ufffd\\ufffd\"", "lead byte F5: U+FFFD per byte");
	ASSERT_STREQ(json("\xe2\x82"), "\"\\ufffd\"", "a 3-byte character cut after 2 bytes: one U+FFFD");
	ASSERT_STREQ(json("\xf0\x9f\x98"), "\"\\ufffd\"", "a 4-byte character cut after 3 bytes: one U+FFFD");
	ASSERT_STREQ(json("\xe2\x82z"), "\"\\ufffdz\"", "an incomplete character before ASCII: one U+FFFD, then the ASCII");
	ASSERT_STREQ(json("\xc3\x22"), "\"\\ufffd\\\"\"", "an incomplete character before a quote: the quote is still escaped");
	check_join();
	return test_done();
}
