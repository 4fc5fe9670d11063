// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-store: cookie-gend's durable state against a temporary directory. Every file that
 * is not exactly what the daemon writes is refused and left as it was; what it writes reads
 * back; nothing is ever guessed (a guessed mark can hand out cookie 1 again).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_store.h"
#include "tests/unit/test.h"
#include "tests/unit/statedir.h"

static void reset(void)
{
	char cmd[320];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", dir, dir);
	if (system(cmd))
		exit(1);
}

static void mark_refused(const char *content, size_t len, const char *what)
{
	struct cookie_store s;
	const char *why = NULL;
	char name[160];

	reset();
	put_len(COOKIE_HIGHWATER_FILE, content, len);
	cookie_store_open(&s, dir);
	snprintf(name, sizeof(name), "highwater %s is refused (EUCLEAN)", what);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), -EUCLEAN, name);
	snprintf(name, sizeof(name), "highwater %s is left as it was", what);
	ASSERT_TRUE(!memcmp(get(COOKIE_HIGHWATER_FILE), content, len) && got_len == len, name);
	snprintf(name, sizeof(name), "highwater %s: the refusal says why (%s)", what, why ? why : "");
	ASSERT_TRUE(why && *why, name);
	cookie_store_close(&s);
}

static void mark_parses(const char *content, uint64_t want)
{
	uint64_t v = 0;
	char name[160];

	snprintf(name, sizeof(name), "mark '%.*s' parses", (int)strcspn(content, "\n"), content);
	ASSERT_EQ(cookie_store_parse_mark(content, strlen(content), &v), 0, name);
	ASSERT_EQ_U64(v, want, name);
}

static void id_refused(const char *content, const char *what)
{
	struct cookie_store s;
	uint64_t id = 0;
	char name[160];

	reset();
	put_len(COOKIE_ID_FILE, content, strlen(content));
	cookie_store_open(&s, dir);
	snprintf(name, sizeof(name), "id %s is refused (EUCLEAN), not read as a number", what);
	ASSERT_EQ(cookie_store_id(&s, &id), -EUCLEAN, name);
	snprintf(name, sizeof(name), "id %s is left as it was", what);
	ASSERT_STREQ(get(COOKIE_ID_FILE), content, name);
	cookie_store_close(&s);
}

/* Open @dir afresh, read its mark (as the daemon does first) and ask for node @want. */
static int node_of(long want, unsigned int *node, const char **why)
{
	struct cookie_store s;
	int err;

	cookie_store_open(&s, dir);
	cookie_store_read_mark(&s, why);
	err = cookie_store_node(&s, want, node, why);
	cookie_store_close(&s);
	return err;
}

/*
 * cookie-gend --etcd moving node 7's directory to node 9 (cookie_store_move_node()): the
 * one writer of a node file over another; the mark is the caller's (cookie_mark_move()).
 */
static void test_move_node(void)
{
	struct cookie_store s;
	const char *why;
	unsigned int node = 0;

	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_move_node(&s, 65536), -EINVAL, "a move to node 65536 is EINVAL");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "and leaves the node file as it was");
	ASSERT_EQ(cookie_store_move_node(&s, 9), 0, "node 7's directory moves to node 9");
	cookie_store_close(&s);
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "9\n", "its node file says 9");
	ASSERT_STREQ(get(".node.tmp"), "(none)", "no temporary node file is left");
	ASSERT_EQ(node_of(9, &node, &why), 0, "--node-id 9 is the directory's now");
	ASSERT_EQ(node_of(7, &node, &why), -EEXIST, "--node-id 7 is refused");
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_move_node(&s, 7), 0, "and it moves back to node 7");
	cookie_store_close(&s);
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "its node file says 7 again");
}

static void node_refused(const char *content, size_t len, const char *what)
{
	const char *why = NULL;
	unsigned int node = 12345;
	char name[160];

	reset();
	put_len(COOKIE_NODE_FILE, content, len);
	snprintf(name, sizeof(name), "node file %s is refused (EUCLEAN)", what);
	ASSERT_EQ(node_of(-1, &node, &why), -EUCLEAN, name);
	snprintf(name, sizeof(name), "node file %s is refused with --node-id 0 too", what);
	ASSERT_EQ(node_of(0, &node, &why), -EUCLEAN, name);
	snprintf(name, sizeof(name), "node file %s is left as it was", what);
	ASSERT_TRUE(!memcmp(get(COOKIE_NODE_FILE), content, len) && got_len == len, name);
	snprintf(name, sizeof(name), "node file %s: the refusal says why (%s)", what, why ? why : "");
	ASSERT_TRUE(why && *why, name);
}

static void node_parses(const char *content, unsigned int want)
{
	unsigned int v = 99999;
	char name[160];

	snprintf(name, sizeof(name), "node '%.*s' parses", (int)strcspn(content, "\n"), content);
	ASSERT_EQ(cookie_store_parse_node(content, strlen(content), &v), 0, name);
	ASSERT_EQ_U64(v, want, name);
}

static void test_node(void)
{
	const char *why = NULL;
	unsigned int node = 0;
	char path[512];

	node_parses("0\n", 0);
	node_parses("0", 0);
	node_parses("7\n", 7);
	node_parses("65535\n", 65535);
	node_refused("", 0, "empty");
	node_refused("-1\n", 3, "'-1'");
	node_refused("+5\n", 3, "'+5'");
	node_refused(" 5\n", 3, "' 5'");
	node_refused("5x\n", 3, "'5x'");
	node_refused("5 \n", 3, "'5 ' (trailing blank)");
	node_refused("007\n", 4, "'007' (leading zero)");
	node_refused("00\n", 3, "'00'");
	node_refused("5\n\n", 3, "'5' and two newlines");
	node_refused("5\r\n", 3, "'5\\r\\n'");
	node_refused("4\0002\n", 4, "with a NUL byte");
	node_refused("65536\n", 6, "65536 (17 bits)");
	node_refused("4294967297\n", 11, "2^32 + 1 (no truncation to 1)");
	node_refused("0x10\n", 5, "'0x10' (hex)");
	reset();
	snprintf(path, sizeof(path), "%s/" COOKIE_NODE_FILE, dir);
	mkdir(path, 0700);
	ASSERT_EQ(node_of(-1, &node, &why), -EUCLEAN, "a node file that is a directory is refused");

	/* A new directory takes the node asked for (or 0) and keeps it, durably. */
	reset();
	ASSERT_EQ(node_of(-1, &node, &why), 0, "a new directory without --node-id");
	ASSERT_EQ(node, 0, "is node 0");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "0\n", "and records node 0");
	reset();
	ASSERT_EQ(node_of(7, &node, &why), 0, "a new directory with --node-id 7");
	ASSERT_EQ(node, 7, "is node 7");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "and records node 7");
	ASSERT_STREQ(get(".node.tmp"), "(none)", "no temporary node file is left");
	ASSERT_EQ(node_of(-1, &node, &why), 0, "without --node-id it is read back");
	ASSERT_EQ(node, 7, "as node 7");
	ASSERT_EQ(node_of(7, &node, &why), 0, "--node-id 7 again is accepted");
	node = 0;
	ASSERT_EQ(node_of(8, &node, &why), -EEXIST, "--node-id 8 against node 7's directory is refused");
	ASSERT_EQ(node, 7, "the refusal names the directory's node, 7");
	ASSERT_EQ(node_of(0, &node, &why), -EEXIST, "so is --node-id 0");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "the refusals leave the node file as it was");
	ASSERT_EQ(node_of(65536, &node, &why), -EINVAL, "a node above 65535 is EINVAL");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "and changes nothing");
	test_move_node();

	/*
	 * The top node, with a directory a first start left with only its first mark (1):
	 * nothing was handed out yet, so the start is completed with the node asked for.
	 */
	reset();
	put_len(COOKIE_HIGHWATER_FILE, "1\n", 2);
	ASSERT_EQ(node_of(65535, &node, &why), 0, "a directory with only the first mark takes --node-id 65535");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "65535\n", "and records it");

	/* A directory that handed out cookies before node ids existed: node 0, nothing else. */
	reset();
	put_len(COOKIE_HIGHWATER_FILE, "33554433\n", 9);
	ASSERT_EQ(node_of(5, &node, &why), -EEXIST,
		  "--node-id 5 against a directory with a mark but no node file is refused");
	ASSERT_EQ(node, 0, "such a directory is node 0");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "(none)", "the refusal writes no node file");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "33554433\n", "and leaves the mark");
	ASSERT_EQ(node_of(-1, &node, &why), 0, "without --node-id it is accepted as node 0");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "0\n", "and records node 0 from then on");
}

/* Open @dir afresh and read its mark: what read_mark returns, @why set. */
static int mark_of(const char **why)
{
	static char saved[128];
	struct cookie_store s;
	int err = cookie_store_open(&s, dir);

	*why = "";
	if (!err)
		err = cookie_store_read_mark(&s, why);
	/* @why may point into s, gone with it. */
	snprintf(saved, sizeof(saved), "%s", *why);
	*why = saved;
	cookie_store_close(&s);
	return err;
}

/*
 * A lost mark is not a first start: an id or node file without a highwater is refused, and
 * the states a first start passes through (mark first) are completed.
 */
static void test_partial(void)
{
	struct cookie_store s;
	const char *why = NULL;
	unsigned int node = 0;
	uint64_t id = 0;

	reset();
	put_len(COOKIE_ID_FILE, "00000000000000ab\n", 17);
	put_len(COOKIE_NODE_FILE, "7\n", 2);
	ASSERT_EQ(mark_of(&why), -ENODATA, "id and node without a highwater: refused (ENODATA), not a fresh start");
	ASSERT_STREQ(why ? why : "", "is missing but id and node remain", "the refusal names what remains");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "(none)", "and writes no mark");
	ASSERT_STREQ(get(COOKIE_ID_FILE), "00000000000000ab\n", "the id is left as it was");
	reset();
	put_len(COOKIE_ID_FILE, "00000000000000ab\n", 17);
	ASSERT_EQ(mark_of(&why), -ENODATA, "only an id: refused");
	ASSERT_STREQ(why ? why : "", "is missing but id remains", "the refusal names the id");
	reset();
	put_len(COOKIE_NODE_FILE, "0\n", 2);
	ASSERT_EQ(mark_of(&why), -ENODATA, "only a node file: refused");
	ASSERT_STREQ(why ? why : "", "is missing but node remains", "the refusal names the node file");
	reset();
	if (symlink("nowhere", strcat(strcpy((char[256]){0}, dir), "/" COOKIE_ID_FILE)))
		exit(1);
	ASSERT_EQ(mark_of(&why), -ENODATA, "a dangling id symlink without a mark: refused too");
	reset();
	put_len(".highwater.tmp", "5\n", 2);
	put_len("lost+found", "", 0);
	ASSERT_EQ(mark_of(&why), 1, "other files (a temporary mark never renamed): still a first start");

	/* A first start writes the mark first, then node and id: each crash point completes. */
	reset();
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), 1, "an empty directory is a first start");
	ASSERT_EQ(cookie_store_init(&s), 0, "which writes its first mark");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "1\n", "1: nothing handed out");
	ASSERT_STREQ(get(COOKIE_ID_FILE), "(none)", "before any id");
	cookie_store_close(&s);
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), 0, "only the first mark (a crash after it): read");
	ASSERT_EQ(cookie_store_init(&s), 0, "not a first start any more");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "1\n", "the mark is not written again");
	ASSERT_EQ(cookie_store_node(&s, 9, &node, &why), 0, "and completed: the node asked for");
	ASSERT_EQ(node, 9, "node 9");
	cookie_store_close(&s);
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), 0, "mark and node (a crash before the id): read");
	ASSERT_EQ(cookie_store_node(&s, -1, &node, &why), 0, "the node is kept");
	ASSERT_EQ(node, 9, "node 9 still");
	ASSERT_EQ(cookie_store_id(&s, &id), 0, "and the id is made");
	cookie_store_close(&s);
	ASSERT_EQ(mark_of(&why), 0, "all three: a complete directory");
}

static void run(const char *fmt, const char *arg)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg);
	if (system(cmd))
		exit(1);
}

/* Like sshd's StrictModes: only the daemon's user may write what decides the next cookie. */
static void test_trust(void)
{
	struct cookie_store s, s2;
	const char *why = NULL;
	unsigned int node = 0;
	uint64_t id = 0;
	char path[512];

	reset();
	run("chmod 0770 '%s'", dir);
	ASSERT_EQ(cookie_store_open(&s, dir), -EPERM, "a directory writable by its group is refused (EPERM)");
	ASSERT_STREQ(s.why, "is writable by its group (mode 0770)", "and says so");
	run("chmod 0703 '%s'", dir);
	ASSERT_EQ(cookie_store_open(&s, dir), -EPERM, "a directory writable by others is refused");
	ASSERT_STREQ(s.why, "is writable by others (mode 0703)", "and says so");
	run("chmod 0755 '%s' && chown 65534 '%s'", dir);
	ASSERT_EQ(cookie_store_open(&s, dir), -EPERM, "a directory owned by another user (nobody) is refused");
	ASSERT_STRSTR(s.why, "is owned by uid 65534, not by uid 0", "and names the owner");
	run("chown 0 '%s' && chmod 0755 '%s'", dir);
	ASSERT_EQ(cookie_store_open(&s, dir), 0, "0755, owned by this user: trusted");
	cookie_store_close(&s);

	put_len(COOKIE_HIGHWATER_FILE, "33554433\n", 9);
	snprintf(path, sizeof(path), "%s/" COOKIE_HIGHWATER_FILE, dir);
	run("chmod 0620 '%s'", path);
	ASSERT_EQ(mark_of(&why), -EPERM, "a highwater writable by its group is refused");
	ASSERT_STREQ(why ? why : "", "is writable by its group (mode 0620)", "and says so");
	run("chmod 0600 '%s' && chown 65534 '%s'", path);
	ASSERT_EQ(mark_of(&why), -EPERM, "a highwater owned by nobody is refused");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "33554433\n", "and left as it was");
	run("chown 0 '%s'", path);
	ASSERT_EQ(mark_of(&why), 0, "owned by root, 0600: read");

	/* A symbolic link, even to a good mark: O_NOFOLLOW, refused as untrusted, not an I/O error. */
	put_len("real", "33554433\n", 9);
	unlink(path);
	if (symlink("real", path))
		exit(1);
	ASSERT_EQ(mark_of(&why), -EPERM, "a highwater that is a symbolic link is refused (EPERM, exit 78)");
	ASSERT_STREQ(why ? why : "", "is a symbolic link", "and says so");
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_write_mark(&s, 50331649), -EPERM, "a mark is not written through it either");
	cookie_store_close(&s);
	unlink(path);
	put_len(COOKIE_HIGHWATER_FILE, "33554433\n", 9);

	put_len(COOKIE_NODE_FILE, "0\n", 2);
	snprintf(path, sizeof(path), "%s/" COOKIE_NODE_FILE, dir);
	run("chmod 0606 '%s'", path);
	cookie_store_open(&s, dir);
	cookie_store_read_mark(&s, &why);
	ASSERT_EQ(cookie_store_node(&s, -1, &node, &why), -EPERM, "a node file writable by others is refused");
	ASSERT_STREQ(why ? why : "", "is writable by others (mode 0606)", "and says so");
	cookie_store_close(&s);
	run("chmod 0600 '%s'", path);

	put_len(COOKIE_ID_FILE, "00000000000000ab\n", 17);
	snprintf(path, sizeof(path), "%s/" COOKIE_ID_FILE, dir);
	run("chown 65534 '%s'", path);
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_id(&s, &id), -EPERM, "an id owned by nobody is refused");
	ASSERT_STRSTR(s.why, "owned by uid 65534", "and names the owner");

	/* The lock: one open at a time, for as long as it is open. */
	ASSERT_EQ(cookie_store_open(&s2, dir), -EBUSY, "a second open of a locked directory: EBUSY");
	cookie_store_close(&s);
	ASSERT_EQ(cookie_store_open(&s2, dir), 0, "after the first is closed, it opens");
	cookie_store_close(&s2);
}

/* Whatever another writer put on disk, a mark never goes down. */
static void test_never_lower(void)
{
	struct cookie_store s;
	const char *why = NULL;

	reset();
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_write_mark(&s, 100), 0, "write the mark 100");
	put_len(COOKIE_HIGHWATER_FILE, "200\n", 4);	/* another writer */
	ASSERT_EQ(cookie_store_write_mark(&s, 150), -ESTALE, "150 over 200 on disk: refused (ESTALE)");
	ASSERT_EQ_U64(s.disk, 200, "the mark found on disk is 200");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "200\n", "the disk keeps 200");
	ASSERT_EQ_U64(s.highwater, 100, "and ours is not moved");
	ASSERT_EQ(cookie_store_write_mark(&s, 200), 0, "the same mark may be written");
	ASSERT_EQ(cookie_store_write_mark(&s, 250), 0, "a higher one too");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "250\n", "250 on disk");
	put_len(COOKIE_HIGHWATER_FILE, "garbage\n", 8);
	ASSERT_EQ(cookie_store_write_mark(&s, 300), -EUCLEAN, "a mark that is not one any more is not written over");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "garbage\n", "it stays for the operator");
	ASSERT_EQ(cookie_store_replace_mark(&s, 300), 0, "replace_mark (--raise-mark's repair) writes over it");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "300\n", "300 on disk");
	cookie_store_close(&s);
	ASSERT_EQ(mark_of(&why), 0, "and it reads back");
}

int main(void)
{
	char digits[101], big[32], path[512];
	struct cookie_store s;
	const char *why = NULL;
	uint64_t v, id1 = 0, id2 = 0;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/cookie-store.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir))
		return 1;

	/* What the daemon writes, and the bounds. */
	mark_parses("1\n", 1);
	mark_parses("42", 42);
	snprintf(big, sizeof(big), "%llu\n", (unsigned long long)COOKIE_MARK_MAX - 1);
	mark_parses(big, COOKIE_MARK_MAX - 1);
	snprintf(big, sizeof(big), "%llu\n", (unsigned long long)COOKIE_MARK_MAX);
	ASSERT_EQ(cookie_store_parse_mark(big, strlen(big), &v), -EUCLEAN,
		  "a mark of 2^48 - 3 * 2^24 (no slack for refused draws in the node's space) is refused");
	mark_refused("281474976710656\n", 16, "2^48 (the next node's space)");

	/* Everything strtoull would have taken, and more. */
	mark_refused("-1\n", 3, "'-1'");
	mark_refused("+42\n", 4, "'+42'");
	mark_refused(" 42\n", 4, "' 42'");
	mark_refused("42x\n", 4, "'42x'");
	mark_refused("42 \n", 4, "'42 ' (trailing blank)");
	mark_refused("", 0, "empty");
	mark_refused("0\n", 2, "'0'");
	mark_refused("007\n", 4, "'007' (leading zero)");
	mark_refused("42\n\n", 4, "'42' and two newlines");
	mark_refused("42\r\n", 4, "'42\\r\\n'");
	mark_refused("4\0002\n", 4, "with a NUL byte");
	mark_refused("18446744073709551615\n", 21, "2^64-1");
	mark_refused("18446744073709551616\n", 21, "2^64 (does not fit)");
	mark_refused("99999999999999999999999\n", 24, "23 digits");
	memset(digits, '7', 100);
	digits[100] = '\n';
	mark_refused(digits, 101, "a 100-byte line");

	reset();
	snprintf(path, sizeof(path), "%s/" COOKIE_HIGHWATER_FILE, dir);
	mkdir(path, 0700);
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), -EUCLEAN, "a highwater that is a directory is refused");
	ASSERT_TRUE(!stat(path, &st) && S_ISDIR(st.st_mode), "and is left as it was");
	cookie_store_close(&s);

	/* A first start: no file, cookies begin at 1; nothing is written by reading. */
	reset();
	cookie_store_open(&s, dir);
	ASSERT_EQ(cookie_store_read_mark(&s, &why), 1, "no highwater file: a first start");
	ASSERT_EQ_U64(s.highwater, 1, "a first start begins at 1");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "(none)", "reading writes nothing");

	/* Written durably, read back exactly, no temporary file left. */
	ASSERT_EQ(cookie_store_write_mark(&s, 16777217), 0, "write the mark 16777217");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "16777217\n", "the file holds the mark and a newline");
	ASSERT_STREQ(get(".highwater.tmp"), "(none)", "no temporary file is left");
	s.highwater = 0;
	ASSERT_EQ(cookie_store_read_mark(&s, &why), 0, "the written mark reads back");
	ASSERT_EQ_U64(s.highwater, 16777217, "with its value");
	ASSERT_EQ(cookie_store_write_mark(&s, 0), -EOVERFLOW, "a mark of 0 is never written");
	ASSERT_EQ(cookie_store_write_mark(&s, COOKIE_MARK_MAX), -EOVERFLOW,
		  "a mark at COOKIE_MARK_MAX is never written");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "16777217\n", "refused writes leave the mark");

	/* The id: made once, durably, and read back the same. */
	ASSERT_EQ(cookie_store_id(&s, &id1), 0, "a first start creates the id");
	ASSERT_TRUE(id1 != 0, "the id is not 0");
	ASSERT_EQ(strlen(get(COOKIE_ID_FILE)), 17, "the id file is 16 hex digits and a newline");
	ASSERT_STREQ(get(".id.tmp"), "(none)", "no temporary id file is left");
	ASSERT_EQ(cookie_store_id(&s, &id2), 0, "the id reads back");
	ASSERT_EQ_U64(id2, id1, "the same id");
	cookie_store_close(&s);

	id_refused("", "empty (a crash between create and write)");
	id_refused("12zz000000000000\n", "'12zz...'");
	id_refused("0000000000000000\n", "of zeros");
	id_refused("00000000000000AB\n", "in upper case");
	id_refused("00000000000000ab", "without its newline");
	id_refused("000000000000000ab\n", "of 17 digits");

	test_node();
	test_partial();
	test_trust();
	test_never_lower();

	/* The directory and its parents are made; a path through a file fails cleanly. */
	reset();
	snprintf(path, sizeof(path), "%s/a/b/c/", dir);
	ASSERT_EQ(cookie_store_open(&s, path), 0, "a state directory three levels deep is created");
	ASSERT_EQ(cookie_store_write_mark(&s, 5), 0, "and is usable");
	cookie_store_close(&s);
	put_len("file", "x", 1);
	snprintf(path, sizeof(path), "%s/file/state", dir);
	ASSERT_EQ(cookie_store_open(&s, path), -ENOTDIR, "a path through a regular file: ENOTDIR");
	if (chdir(dir))
		return 1;
	ASSERT_EQ(cookie_store_open(&s, "relative"), 0, "a relative directory with no '/' is created");
	cookie_store_close(&s);
	ASSERT_EQ(cookie_store_open(&s, "relative"), 0, "and opened again");
	cookie_store_close(&s);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		return 1;
	return test_done();
}
