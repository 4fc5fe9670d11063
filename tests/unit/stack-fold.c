// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks printed (src/stack_fold.c, src/stack_html.c): folded lines and their escaping,
 * --folded FILE, the top-N table and -j with their accounting (entries + buckets = count),
 * and the flame graph page, written to argv[1] for stack-fold.t to open in Chromium.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/json.h"
#include "src/stack_fold.h"
#include "src/stack_html.h"
#include "tests/unit/test.h"

/* Leaf first, as the kernel records them. */
static const char *const k1[] = { "tpgen_fire [tpgen]", "do_syscall_64", "entry_SYSCALL_64" };
static const char *const u1[] = { "record_stack", "inner (inlined)", "middle", "outer", "main" };
static const char *const k2[] = { "schedule", "do_nanosleep" };
static const char *const odd[] = { "op;erator() <int>", "new\nline", "</script><b>x</b>" };

static const struct stack_entry entries[] = {
	{ .key = "tpgen-prog", .kframes = k1, .nk = 3, .uframes = u1, .nu = 5, .count = 40 },
	{ .kframes = k2, .nk = 2, .count = 50 },
	{ .uframes = odd, .nu = 3, .count = 5 },
	{ .count = 1 },
};
#define N (sizeof(entries) / sizeof(entries[0]))

/* Not UTF-8, a line separator JavaScript once ended strings at, and UTF-8 (leaf first). */
static const char *const bytes[] = { "caf\xc3\xa9", "line\xe2\x80\xa8sep", "bad\xff" "byte" };
static const struct stack_entry bad_utf8 = { .uframes = bytes, .nu = 3, .count = 1 };
static const struct stack_acct one = { .count = 1 };

static const struct stack_acct acct = {
	.count = 100, .truncated = 2, .map_full = 1, .collision = 0, .no_ustack = 1, .read_error = 0,
};
static const struct stack_group all = { .e = entries, .n = N, .acct = &acct };

/* Two stack keys in one file: tpstat --by tpgen_a:kstack --by tpgen_b:comm,kstack. */
static const struct stack_entry b_entries[] = {
	{ .key = "sh", .kframes = k2, .nk = 2, .count = 7 },
};
static const struct stack_acct b_acct = { .count = 8, .map_full = 1 };
static const struct stack_group two[] = {
	{ .root = "tpgen_a:kstack", .e = entries, .n = N, .acct = &acct },
	{ .root = "tpgen_b:comm,kstack", .e = b_entries, .n = 1, .acct = &b_acct },
};
static const char want_two[] =
	"tpgen_a:kstack;tpgen-prog;main;outer;middle;inner (inlined);record_stack;-;"
	"entry_SYSCALL_64;do_syscall_64;tpgen_fire [tpgen] 40\n"
	"tpgen_a:kstack;do_nanosleep;schedule 50\n"
	"tpgen_a:kstack;</script><b>x</b>;new?line;op:erator() <int> 5\n"
	"tpgen_a:kstack;[no frames] 1\n"
	"tpgen_b:comm,kstack;sh;do_nanosleep;schedule 7\n";

/* What @fn printed into a string (the caller frees it). */
#define CAPTURE(text, call) do {				\
	size_t __len;						\
	FILE *f = open_memstream(&(text), &__len);		\
	call;							\
	fclose(f);						\
} while (0)

/* The first 4 KB of file @path, as a string (empty when it cannot be read). */
static char *read_back(const char *path)
{
	char *text = calloc(1, 4096);
	FILE *f = fopen(path, "r");

	if (f && text)
		text[fread(text, 1, 4095, f)] = '\0';
	if (f)
		fclose(f);
	return text;
}

static const char want_folded[] =
	"tpgen-prog;main;outer;middle;inner (inlined);record_stack;-;entry_SYSCALL_64;"
	"do_syscall_64;tpgen_fire [tpgen] 40\n"
	"do_nanosleep;schedule 50\n"
	"</script><b>x</b>;new?line;op:erator() <int> 5\n"
	"[no frames] 1\n";

static const char want_table[] =
	"  100 events in 4 stacks\n"
	"            50  50.00%\n"
	"        schedule\n"
	"        do_nanosleep\n"
	"            40  40.00%  tpgen-prog\n"
	"        tpgen_fire [tpgen]\n"
	"        do_syscall_64\n"
	"        entry_SYSCALL_64\n"
	"        --\n"
	"        record_stack\n"
	"        inner (inlined)\n"
	"        middle\n"
	"        outer\n"
	"        main\n"
	"             6   6.00%  (2 other stacks)\n"
	"             2   2.00%  truncated (deeper than collected)\n"
	"             1   1.00%  map full (no slot for a new stack)\n"
	"             0   0.00%  collision (slot held by another stack)\n"
	"             1   1.00%  no user stack (kernel thread)\n"
	"             0   0.00%  read error\n"
	"  96 in stacks + 4 without = 100 of 100 events\n";

static const char want_json[] =
	"{\"stacks\":[{\"count\":50,\"kstack\":[\"schedule\",\"do_nanosleep\"],\"ustack\":[]},"
	"{\"count\":40,\"key\":\"tpgen-prog\",\"kstack\":[\"tpgen_fire [tpgen]\",\"do_syscall_64\","
	"\"entry_SYSCALL_64\"],\"ustack\":[\"record_stack\",\"inner (inlined)\",\"middle\",\"outer\","
	"\"main\"]}],\"other\":6,\"truncated\":2,\"map_full\":1,\"collision\":0,\"no_ustack\":1,"
	"\"read_error\":0}\n";

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	char *text = NULL, frame[16], path[4096];
	struct stack_acct lost = acct;
	struct json j;
	size_t i;

	stack_fold_frame("a;b c\td", frame, sizeof(frame));
	ASSERT_STREQ(frame, "a:b c?d", "a frame: ';' to ':', a tab to '?', spaces kept");
	stack_fold_frame("0123456789abcdefghij", frame, sizeof(frame));
	ASSERT_STREQ(frame, "0123456789abcde", "a frame cut to its buffer");

	CAPTURE(text, for (i = 0; i < N; i++) stack_fold_line(f, NULL, &entries[i]));
	ASSERT_STREQ(text, want_folded, "folded lines: key, user root first, '-', kernel; escaped");
	free(text);

	snprintf(path, sizeof(path), "%s.folded", argc > 1 ? argv[1] : "/tmp/stack-fold");
	ASSERT_EQ(stack_fold_file(path, &all, 1), 0, "--folded FILE written");
	text = read_back(path);
	ASSERT_STREQ(text, want_folded, "--folded FILE read back");
	free(text);
	ASSERT_EQ(stack_fold_file("/nonexistent/dir/f", &all, 1), -ENOENT,
		  "--folded into a missing directory: -ENOENT");
	ASSERT_EQ(stack_fold_file(path, two, 2), 0, "--folded FILE of two stack keys written");
	text = read_back(path);
	ASSERT_STREQ(text, want_two, "two stack keys: each line under its key's root frame");
	free(text);

	ASSERT_EQ(stack_accounted(entries, N, &acct), 100, "entries + buckets = count");
	CAPTURE(text, stack_table_print(f, entries, N, 2, &acct));
	ASSERT_STREQ(text, want_table, "the table: top 2, frames indented, the rest summed, buckets");
	free(text);
	lost.count = 101;
	CAPTURE(text, stack_table_print(f, entries, N, 0, &lost));
	ASSERT_STRSTR(text, "100 of 101 events (NOT ACCOUNTED)", "an event missing is said");
	ASSERT_TRUE(!strstr(text, " other stack"), "top 0: every stack shown, no 'other' line");
	ASSERT_STRSTR(text, "\n        op;erator() <int>\n        new\\x0aline\n        </script>",
		      "the table: names as they are, control bytes as \\xHH");
	free(text);

	CAPTURE(text, (json_init(&j, f), json_object_begin(&j), stack_json(&j, entries, N, 2, &acct),
		       json_object_end(&j)));
	ASSERT_STREQ(text, want_json, "-j: frames as arrays, the rest as other, the buckets");
	free(text);

	CAPTURE(text, stack_html_write(f, "tpstat <sched_switch> & co", &all, 1));
	ASSERT_EQ(count_of(text, "</script>"), 3, "the page: three scripts, no name ends one");
	ASSERT_STRSTR(text, "\\u003c/script\\u003e\\u003cb\\u003ex\\u003c/b\\u003e",
		      "a name with </script> escaped in the data");
	ASSERT_STRSTR(text, "<title>tpstat &lt;sched_switch&gt; &amp; co</title>", "title escaped");
	ASSERT_STRSTR(text, "\"new\\u000aline\"", "a newline in a name escaped");
	ASSERT_STRSTR(text, "[2,null,\"[truncated (deeper than collected)]\",[],[]]",
		      "a bucket as a frame of its own");
	ASSERT_STRSTR(text, "<p id=\"acct\">100 events: 96 in 4 stacks, 2 truncated",
		      "the page's accounting");
	ASSERT_TRUE(!strstr(text, "src=\"http") && !strstr(text, "href=\"http"),
		    "the page loads nothing from the network");
	free(text);
	CAPTURE(text, stack_html_write(f, "two", two, 2));
	ASSERT_STRSTR(text, "const TOTAL = 108;", "two stack keys: every event of both is the width");
	ASSERT_STRSTR(text, "[7,\"tpgen_b:comm,kstack\",\"sh\",[],[\"do_nanosleep\",\"schedule\"]]",
		      "two stack keys: a stack under its key's frame");
	ASSERT_STRSTR(text, "[1,\"tpgen_b:comm,kstack\",\"[map full (no slot for a new stack)]\",[],[]]",
		      "two stack keys: a bucket under its key's frame");
	ASSERT_STRSTR(text, "100 events: 96 in 4 stacks, 2 truncated",
		      "two stack keys: the first's accounting");
	ASSERT_STRSTR(text, "; tpgen_b:comm,kstack: 8 events: 7 in 1 stack, 0 truncated",
		      "two stack keys: the second's accounting");
	free(text);
	{
		const struct stack_group g = { .e = &bad_utf8, .n = 1, .acct = &one };

		CAPTURE(text, stack_html_write(f, "utf-8", &g, 1));
	}
	ASSERT_STRSTR(text, "[\"bad\\ufffdbyte\",\"line\\u2028sep\",\"caf\xc3\xa9\"]",
		      "the page's data: a bad byte as U+FFFD, U+2028 escaped, UTF-8 kept");
	free(text);
	if (argc > 1)
		ASSERT_EQ(stack_html_file(argv[1], "tpstat: stacks of tpgen_a", &all, 1), 0,
			  "--flamegraph FILE written");
	return test_done();
}
