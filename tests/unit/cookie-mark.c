// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-mark: cookie-gend's durable mark (src/cookie_mark.c) against a temporary directory
 * and a counter in memory: a first start writes its mark before anything else, a lost,
 * corrupt or untrusted mark refuses with exit 78 and one line that says what is safe, a
 * second daemon on the directory is refused, a mark on disk never goes down, an older
 * layout's counter is kept below the new one, --etcd's move to another node id writes the
 * mark before the node file and leaves the old counter where it was, and --raise-mark
 * raises, never lowers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_fleet.h"
#include "src/cookie_mark.h"
#include "tests/unit/test.h"
#include "tests/unit/statedir.h"

static char logged[4096];
static int nlogged;

static void logto(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == 7)	/* LOG_DEBUG */
		return;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
	nlogged++;
}

static void no_status(const char *msg)
{
}

static void put(const char *name, const char *content)
{
	put_len(name, content, strlen(content));
}

static void reset(void)
{
	char cmd[320];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -m 0700 '%s'", dir, dir);
	if (system(cmd))
		exit(1);
}

static void mark_init(struct cookie_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->log = logto;
	m->status = no_status;
	nlogged = 0;
	logged[0] = '\0';
}

/* A start on @dir that must be refused with @status, one line containing @text. */
static void refused(int status, const char *text, const char *what)
{
	struct cookie_mark m;
	char name[200];

	mark_init(&m);
	snprintf(name, sizeof(name), "%s: exit %d", what, status);
	ASSERT_EQ(cookie_mark_open(&m, dir, -1), status, name);
	snprintf(name, sizeof(name), "%s: one line says so", what);
	ASSERT_EQ(nlogged, 1, name);
	snprintf(name, sizeof(name), "%s: '%s'", what, text);
	ASSERT_STRSTR(logged, text, name);
	cookie_store_close(&m.store);
}

static void test_open(void)
{
	struct cookie_mark m, m2;
	char path[512];

	/* A first start: mark, node, id, in that order; a crash between them is completed. */
	reset();
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, 7), 0, "a first start in an empty directory");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "1\n", "writes the first mark, 1");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "the node");
	ASSERT_TRUE(strlen(get(COOKIE_ID_FILE)) == 17, "and the id");
	ASSERT_EQ(m.node, 7, "node 7");
	ASSERT_EQ_U64(m.node_base, 7ULL << 48, "its base");

	/* The same directory, still open: a second daemon is refused. */
	mark_init(&m2);
	ASSERT_EQ(cookie_mark_open(&m2, dir, -1), 1, "a second daemon on the same directory: exit 1");
	ASSERT_STRSTR(logged, "another cookie-gend uses the state directory", "and one line says so");
	cookie_store_close(&m.store);

	/* A crash after the first mark: the node file cannot be written (a directory in its way). */
	reset();
	snprintf(path, sizeof(path), "%s/.node.tmp", dir);
	mkdir(path, 0700);
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, 3), 1, "a first start that fails writing the node: exit 1");
	cookie_store_close(&m.store);
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "1\n", "it left the first mark");
	ASSERT_STREQ(get(COOKIE_ID_FILE), "(none)", "and no id");
	rmdir(path);
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, 3), 0, "the next start completes that directory");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "3\n", "with the node asked for");
	ASSERT_TRUE(strlen(get(COOKIE_ID_FILE)) == 17, "and an id");
	cookie_store_close(&m.store);

	/* Lost marks: refused with what is safe to do. */
	reset();
	put(COOKIE_ID_FILE, "00000000000000ab\n");
	put(COOKIE_NODE_FILE, "0\n");
	refused(COOKIE_EXIT_STATE, "highwater is missing but id and node remain",
		"id and node without a mark");
	ASSERT_STRSTR(logged, "cookie-gend --raise-mark N", "the line says to raise the mark");
	ASSERT_TRUE(!strstr(logged, "restore it from a backup"), "and not to restore a backup");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "(none)", "no mark is written");
	reset();
	put(COOKIE_ID_FILE, "00000000000000ab\n");
	refused(COOKIE_EXIT_STATE, "highwater is missing but id remains", "an id without a mark");
	reset();
	put(COOKIE_HIGHWATER_FILE, "42x\n");
	refused(COOKIE_EXIT_STATE, "refusing to guess a high-water mark", "a corrupt mark");
	ASSERT_STRSTR(logged, "--raise-mark", "its line says to raise the mark");

	/* Untrusted state: exit 78, not 1. */
	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	snprintf(path, sizeof(path), "chmod 0777 '%s' && chown 65534 '%s'", dir, dir);
	if (system(path))
		exit(1);
	refused(COOKIE_EXIT_STATE, "is owned by uid 65534", "a directory owned by nobody, mode 0777");
	reset();
	put("real", "33554433\n");
	snprintf(path, sizeof(path), "%s/" COOKIE_HIGHWATER_FILE, dir);
	if (symlink("real", path))
		exit(1);
	refused(COOKIE_EXIT_STATE, "highwater is a symbolic link", "a highwater that is a symbolic link");
	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	put(COOKIE_ID_FILE, "00000000000000ab\n");
	snprintf(path, sizeof(path), "%s/" COOKIE_ID_FILE, dir);
	chmod(path, 0602);
	refused(COOKIE_EXIT_STATE, "id is writable by others", "an id writable by others");
}

static void test_extend(void)
{
	struct cookie_state st = {};
	struct cookie_mark m;
	__u64 first = 0;

	/* A start, a draw, and a mark on disk raised under the daemon: never written lower. */
	reset();
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, 2), 0, "open node 2's new directory");
	ASSERT_EQ(cookie_mark_recover(&m, &st, 0), 0, "recover the counter");
	ASSERT_EQ_U64(st.next, (2ULL << 48) + 1, "the counter starts at node 2, sequence 1");
	ASSERT_EQ_U64(st.limit, (2ULL << 48) + 1 + COOKIE_BLOCK, "the limit covers a block");
	ASSERT_EQ_U64(m.store.highwater, 1 + COOKIE_BLOCK, "behind a durable mark");
	ASSERT_EQ(cookie_mark_draw(&m, 10, &first), 0, "a client draws 10");
	ASSERT_EQ_U64(first, (2ULL << 48) + 1, "from the first cookie");

	put(COOKIE_HIGHWATER_FILE, "900000000\n");	/* another writer, a higher mark */
	st.next = st.limit;				/* the block is used up */
	nlogged = 0;
	ASSERT_EQ(cookie_mark_draw(&m, 1, &first), -ESTALE, "past the limit, a higher mark on disk: refused");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "900000000\n", "the mark on disk is not lowered");
	ASSERT_EQ_U64(st.limit, (2ULL << 48) + 1 + COOKIE_BLOCK, "the limit is not raised");
	ASSERT_EQ(nlogged, 1, "it is logged");
	ASSERT_STRSTR(logged, "is 900000000, above this daemon's", "with both marks");
	ASSERT_EQ_U64(m.save_errors, 1, "and counted as a failed save");
	cookie_store_close(&m.store);

	/* An older layout's counter above the mark: the new one starts above it. */
	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	memset(&st, 0, sizeof(st));
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, -1), 0, "open a node-0 directory with mark 33554433");
	/* Before the old pins go, the mark on disk covers the old counter. */
	ASSERT_EQ(cookie_mark_cover(&m, 4000000000ULL), 0, "cover an old counter at 4e9");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "4000000000\n", "the mark on disk is 4e9 at once");
	ASSERT_EQ(cookie_mark_cover(&m, 3000000000ULL), 0, "cover one at 3e9");
	ASSERT_EQ(cookie_mark_cover(&m, (1ULL << 48) + 5000000000ULL), 0, "cover one of node 1");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "4000000000\n", "neither lowers nor moves it");
	ASSERT_EQ(cookie_mark_cover(&m, COOKIE_MARK_MAX), -EOVERFLOW,
		  "an old counter past the node's top mark: EOVERFLOW, the start refused");
	ASSERT_EQ(cookie_mark_recover(&m, &st, 4000000000ULL), 0, "recover with an old counter at 4e9");
	ASSERT_EQ_U64(st.next, 4000000000ULL, "the counter starts at the old one's 4e9, not at the mark");
	ASSERT_EQ_U64(m.store.highwater, 4000000000ULL + COOKIE_BLOCK, "the mark is raised above it, durably");
	ASSERT_EQ(cookie_mark_draw(&m, 1, &first), 0, "a draw");
	ASSERT_TRUE(first >= 4000000000ULL, "is above everything the old counter gave");
	cookie_store_close(&m.store);

	/* An old counter of another node says nothing about this one. */
	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	put(COOKIE_NODE_FILE, "5\n");
	memset(&st, 0, sizeof(st));
	mark_init(&m);
	cookie_mark_open(&m, dir, -1);
	ASSERT_EQ(cookie_mark_recover(&m, &st, 4000000000ULL), 0, "node 5 with a node-0 old counter");
	ASSERT_EQ_U64(st.next, (5ULL << 48) + 33554433, "starts at its own mark");
	cookie_store_close(&m.store);
}

/*
 * --etcd's move to another node id (cookie_mark_move()): node 7's claim taken, node 9 claimed
 * in its place with a mark of @etcd_hw in etcd. The fleet is one in memory, as its thread
 * leaves it after such a claim (cookie_fleet.h): claimed, node 9, still serving 7.
 */
static void fleet_claimed_9(struct cookie_fleet *f, uint64_t etcd_hw)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->claimed = true;
	f->node = 9;
	f->serving = 7;
	f->etcd_hw = etcd_hw;
	f->reserved = 1ULL << 40;	/* what the old id had reserved: the old counter's bound */
}

static void test_move(void)
{
	static struct cookie_fleet f;
	struct cookie_state st = {}, fresh = {};
	struct cookie_mark m;
	__u64 first = 0, limit;
	char path[512];

	reset();
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, 7), 0, "open node 7's new directory");
	ASSERT_EQ(cookie_mark_recover(&m, &st, 0), 0, "recover its counter");
	fleet_claimed_9(&f, 5000000000ULL);
	f.serving = 9;
	m.fleet = &f;
	ASSERT_EQ(cookie_mark_move(&m), 0, "no move while the fleet serves the id it claimed");
	f.serving = 7;

	/* A node file that cannot be replaced: the mark is written first, the node stays. */
	snprintf(path, sizeof(path), "%s/.node.tmp", dir);
	mkdir(path, 0700);
	nlogged = 0;
	ASSERT_TRUE(cookie_mark_move(&m) < 0, "a node file that cannot be written: the move fails");
	ASSERT_STRSTR(logged, "cannot move", "logged");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "5000000000\n",
		     "the mark was raised first, to etcd's for node 9: a crash here leaves node 7 a higher mark");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "7\n", "the node file still says 7");
	ASSERT_EQ(m.node, 7, "and so does the daemon");
	ASSERT_EQ(f.serving, 7, "the fleet still reserves for nobody: serving 7, claimed 9");
	limit = st.limit;
	st.next = st.limit;
	ASSERT_EQ(cookie_mark_draw(&m, 1, &first), -ENOLINK, "node 7's counter at its limit: refused");
	ASSERT_EQ_U64(st.limit, limit, "its limit is not raised (it is being left)");
	rmdir(path);
	ASSERT_TRUE(cookie_mark_move(&m) < 0, "tried again within a second: the same error, nothing written");
	m.move_retry_at = 0;

	ASSERT_EQ(cookie_mark_move(&m), 1, "a second later: moved");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "9\n", "the node file says 9");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "5000000000\n", "under etcd's mark for node 9");
	ASSERT_EQ(m.node, 9, "the daemon is node 9");
	ASSERT_STRSTR(logged, "moved from node 7 to node 9: mark 5000000000", "logged, old and new id");
	ASSERT_EQ(f.serving, 9, "the fleet reserves for node 9 now");
	ASSERT_EQ_U64(f.reserved, 0, "from 0: nothing of node 9 is reserved yet");
	ASSERT_EQ_U64(f.moves, 1, "one move counted");
	ASSERT_EQ(cookie_mark_draw(&m, 1, &first), -ENOLINK, "the old counter gives nothing more");
	ASSERT_EQ_U64(st.limit, limit, "its limit stays where it was");

	ASSERT_EQ(cookie_mark_recover(&m, &fresh, 0), 0, "a fresh counter for node 9");
	ASSERT_EQ_U64(fresh.next, (9ULL << 48) + 5000000000ULL, "starts at node 9's mark");
	ASSERT_EQ_U64(fresh.limit, fresh.next, "with no room until etcd reserves");
	ASSERT_EQ(cookie_mark_draw(&m, 1, &first), -ENOLINK, "a draw is refused until then");
	__atomic_store_n(&f.reserved, 5000000000ULL + 1000, __ATOMIC_RELEASE);
	ASSERT_EQ(cookie_mark_draw(&m, 10, &first), 0, "etcd reserved 1000: a draw of 10");
	ASSERT_EQ_U64(first, (9ULL << 48) + 5000000000ULL, "of node 9, at its mark");
	ASSERT_EQ_U64(fresh.limit, (9ULL << 48) + 5000000000ULL + 1000, "the limit stops at the reservation");
	ASSERT_EQ(cookie_mark_move(&m), 0, "nothing more to move");

	/* A mark of the directory above etcd's: the higher wins, and is never lowered. */
	fleet_claimed_9(&f, 12);
	f.node = 11;
	f.serving = 9;
	ASSERT_EQ(cookie_mark_move(&m), 1, "moved on to node 11, etcd's mark 12");
	ASSERT_EQ_U64(m.store.highwater, 5000000000ULL + 1000, "the directory's mark (as far as node 9 was reserved) stays, higher");
	ASSERT_EQ_U64(f.etcd_hw, m.store.highwater, "and the fleet reserves above it");

	/* Its own id claimed back above another holder's mark: the mark only, the same id. */
	fleet_claimed_9(&f, 6000000000ULL);
	f.node = 11;
	f.serving = 11;
	f.restart = true;
	ASSERT_EQ(cookie_mark_move(&m), 1, "node 11 claimed back, etcd's mark 6e9: a move to itself");
	ASSERT_STREQ(get(COOKIE_NODE_FILE), "11\n", "the node file stays 11");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "6000000000\n", "the mark is raised to etcd's");
	ASSERT_STRSTR(logged, "stays node 11, its mark now 6000000000", "logged");
	ASSERT_TRUE(!f.restart, "the fleet reserves for node 11 again");
	ASSERT_EQ_U64(f.reserved, 0, "from 0");
	memset(&fresh, 0, sizeof(fresh));
	ASSERT_EQ(cookie_mark_recover(&m, &fresh, 0), 0, "a fresh counter");
	ASSERT_EQ_U64(fresh.next, (11ULL << 48) + 6000000000ULL, "starts at etcd's mark");
	cookie_store_close(&m.store);
	pthread_mutex_destroy(&f.mu);
	pthread_cond_destroy(&f.cv);
}

static int raise_to(__u64 cookie)
{
	struct cookie_mark m;
	int status;

	mark_init(&m);
	status = cookie_mark_raise(&m, dir, cookie);
	cookie_store_close(&m.store);
	return status;
}

static void test_raise(void)
{
	struct cookie_mark m;
	struct cookie_state st = {};

	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	put(COOKIE_NODE_FILE, "0\n");
	ASSERT_EQ(raise_to(50000000), 0, "--raise-mark 50000000 on node 0: exit 0");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "50000000\n", "the mark is 50000000");
	ASSERT_STRSTR(logged, "the next cookie handed out is 50000000 or above", "and one line says so");
	ASSERT_EQ(raise_to(50000000), 0, "the same again: exit 0");
	ASSERT_EQ(raise_to(40000000), 1, "a lower one: refused, exit 1");
	ASSERT_STRSTR(logged, "a mark is never lowered", "one line says a mark is never lowered");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "50000000\n", "the mark stays 50000000");
	ASSERT_EQ(raise_to((3ULL << 48) + 60000000), 2, "a cookie of node 3 for node 0's directory: exit 2");
	ASSERT_STRSTR(logged, "is a cookie of node 3, but", "and says whose it is");
	ASSERT_EQ(raise_to(0), 2, "sequence 0: exit 2");
	ASSERT_EQ(raise_to(COOKIE_MARK_MAX), 2, "a sequence at the top of the node's space: exit 2");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "50000000\n", "none of them wrote");

	/* While a daemon holds the directory: refused. */
	mark_init(&m);
	cookie_mark_open(&m, dir, -1);
	ASSERT_EQ(raise_to(60000000), 1, "--raise-mark while a daemon runs on the directory: exit 1");
	ASSERT_STRSTR(logged, "another cookie-gend uses the state directory", "and says why");
	cookie_store_close(&m.store);

	/* The repair of a lost mark, node 4, then a start above it. */
	reset();
	put(COOKIE_ID_FILE, "00000000000000ab\n");
	put(COOKIE_NODE_FILE, "4\n");
	ASSERT_EQ(raise_to((4ULL << 48) + 123456789), 0, "a lost mark raised with a cookie of node 4");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "123456789\n", "the mark is its sequence");
	mark_init(&m);
	ASSERT_EQ(cookie_mark_open(&m, dir, -1), 0, "the directory starts again");
	cookie_mark_recover(&m, &st, 0);
	ASSERT_EQ_U64(st.next, (4ULL << 48) + 123456789, "the next cookie is the one given");
	cookie_store_close(&m.store);

	reset();
	put(COOKIE_HIGHWATER_FILE, "\n");
	ASSERT_EQ(raise_to(70000000), 0, "a corrupt mark is replaced");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "70000000\n", "by the one given");
	reset();
	put(COOKIE_HIGHWATER_FILE, "33554433\n");
	chmod(dir, 0777);
	ASSERT_EQ(raise_to(70000000), COOKIE_EXIT_STATE, "an untrusted directory: exit 78");
	ASSERT_STREQ(get(COOKIE_HIGHWATER_FILE), "33554433\n", "nothing written");
}

int main(void)
{
	char cmd[200];

	snprintf(dir, sizeof(dir), "%s/cookie-mark.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir))
		return 1;
	test_open();
	test_extend();
	test_move();
	test_raise();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return test_done();
}
