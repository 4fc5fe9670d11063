// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's state directory (cookie_mark.h): opened, locked and trust-checked at start,
 * its mark, node and id read, a first start completed (mark, then node, then id), the node
 * id claimed in etcd for it (--etcd; a move to a free id written by cookie_mark.c's
 * cookie_mark_move_files()), and --raise-mark, offline. The running counter's side of the
 * mark is cookie_mark.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/libcookie.h"
#include "src/cookie_mark.h"
#include "src/cookie_fleet.h"

/* What every refusal of a lost or corrupt mark says is safe (a restored backup is too low). */
#define RAISE_ADVICE "run cookie-gend --raise-mark N with N above the newest cookie of this " \
		     "node ever seen (a mark restored from a backup is too low by itself; see cookie-gend(8))"

/* A file (or the directory itself, @name "") that only the daemon's user may write is not. */
static int untrusted(struct cookie_mark *m, const char *name)
{
	m->log(LOG_ERR, "%s%s%s %s: refusing to trust it, since whoever can write the state can "
	       "move the mark back (check what is in it, then make it a regular file or directory "
	       "owned by this daemon's user and not writable by group or other)",
	       m->store.dir, *name ? "/" : "", name, m->store.why);
	return COOKIE_EXIT_STATE;
}

/* Open, lock and trust-check the directory; 0 or the exit status (logged). */
static int open_store(struct cookie_mark *m, const char *dir)
{
	int err = cookie_store_open(&m->store, dir);

	if (err == -EPERM)
		return untrusted(m, "");
	if (err == -EBUSY) {
		m->log(LOG_ERR, "another cookie-gend uses the state directory %s (it holds its lock)", dir);
		return 1;
	}
	if (err) {
		m->log(LOG_ERR, "cannot open the state directory %s: %s", dir, strerror(-err));
		return 1;
	}
	return 0;
}

/* Read the mark; 0 (1 for a first start) or minus the exit status (logged). */
static int read_mark(struct cookie_mark *m)
{
	const char *dir = m->store.dir, *why = "";
	int err = cookie_store_read_mark(&m->store, &why);

	if (err == -EPERM)
		return -untrusted(m, COOKIE_HIGHWATER_FILE);
	if (err == -EUCLEAN) {
		m->log(LOG_ERR, "%s/" COOKIE_HIGHWATER_FILE " %s; refusing to guess a high-water mark: "
		       RAISE_ADVICE, dir, why);
		return -COOKIE_EXIT_STATE;
	}
	if (err == -ENODATA) {
		m->log(LOG_ERR, "%s/" COOKIE_HIGHWATER_FILE " %s, so what this node handed out is "
		       "unknown and starting at 1 would repeat it: " RAISE_ADVICE, dir, why);
		return -COOKIE_EXIT_STATE;
	}
	if (err < 0) {
		m->log(LOG_ERR, "cannot read %s/" COOKIE_HIGHWATER_FILE ": %s", dir, strerror(-err));
		return -1;
	}
	return err;
}

/*
 * Read the node file without writing anything: 0 with *node, -ENOENT when there is none, or
 * the exit status (logged) when it is untrusted, corrupt or unreadable.
 */
static int read_node(struct cookie_mark *m, const char *dir, unsigned int *node)
{
	const char *why = "";
	int err = cookie_store_read_node(&m->store, node, &why);

	if (err == -EPERM)
		return untrusted(m, COOKIE_NODE_FILE);
	if (err == -EUCLEAN) {
		m->log(LOG_ERR, "%s/" COOKIE_NODE_FILE " %s; refusing to guess the node id", dir, why);
		return COOKIE_EXIT_STATE;
	}
	if (err && err != -ENOENT) {
		m->log(LOG_ERR, "cannot read %s/" COOKIE_NODE_FILE ": %s", dir, strerror(-err));
		return 1;
	}
	return err;
}

static int other_node(struct cookie_mark *m, const char *dir, unsigned int node, long want)
{
	m->log(LOG_ERR, "%s belongs to node %u, not %ld: a state directory keeps the node id "
	       "it was first started with (use another directory for another node)", dir, node, want);
	return COOKIE_EXIT_STATE;
}

/* After read_mark(): complete a first start (mark, node, id) with @want_node; the exit status. */
static int finish_open(struct cookie_mark *m, const char *dir, long want_node)
{
	const char *why = "";
	int err;

	/* A first start: the mark before anything else, so a crash leaves no id without one. */
	err = cookie_store_init(&m->store);
	if (err) {
		m->log(LOG_ERR, "cannot write %s/" COOKIE_HIGHWATER_FILE ": %s", dir, strerror(-err));
		return 1;
	}
	/* Before the id is created: a refused node id leaves a directory as it was. */
	err = cookie_store_node(&m->store, want_node, &m->node, &why);
	if (err == -EEXIST)
		return other_node(m, dir, m->node, want_node);
	if (err == -EPERM)
		return untrusted(m, COOKIE_NODE_FILE);
	if (err == -EUCLEAN) {
		m->log(LOG_ERR, "%s/" COOKIE_NODE_FILE " %s; refusing to guess the node id (restore "
		       "it: the top 16 bits of this machine's cookies)", dir, why);
		return COOKIE_EXIT_STATE;
	}
	if (err) {
		m->log(LOG_ERR, "cannot read or create %s/" COOKIE_NODE_FILE ": %s", dir, strerror(-err));
		return 1;
	}
	m->node_base = COOKIE_NODE_BASE(m->node);
	err = cookie_store_id(&m->store, &m->id);
	if (err == -EPERM)
		return untrusted(m, COOKIE_ID_FILE);
	if (err == -EUCLEAN) {
		m->log(LOG_ERR, "%s/" COOKIE_ID_FILE " %s; remove it if no "
		       "cookie-gend has run with this directory since boot, else write the owner id "
		       "from 'bpftool map dump pinned " COOKIE_PIN_DIR "/state'", dir, m->store.why);
		return COOKIE_EXIT_STATE;
	}
	if (err) {
		m->log(LOG_ERR, "cannot read or create %s/" COOKIE_ID_FILE ": %s", dir, strerror(-err));
		return 1;
	}
	return 0;
}

/* Open, lock and trust-check the directory, and read its mark: 0 or the exit status. */
static int open_mark(struct cookie_mark *m, const char *dir)
{
	int err = open_store(m, dir);

	if (err)
		return err;
	err = read_mark(m);
	return err < 0 ? -err : 0;
}

int cookie_mark_open(struct cookie_mark *m, const char *dir, long want_node)
{
	return open_mark(m, dir) ?: finish_open(m, dir, want_node);
}

int cookie_mark_open_fleet(struct cookie_mark *m, const char *dir, long want_node,
			   struct cookie_fleet *f)
{
	unsigned int node;
	uint64_t id = 0;
	char id_hex[24] = "";
	bool from_dir;
	int err = open_mark(m, dir);

	if (err)
		return err;
	/* Read only: the node file is written once the claim is had. */
	err = read_node(m, dir, &node);
	if (err > 0)
		return err;
	from_dir = !err;
	if (from_dir && want_node >= 0 && want_node != node)
		return other_node(m, dir, node, want_node);
	/* A directory with a node file has its id already (node, then id): it names our claims. */
	if (from_dir && !cookie_store_id(&m->store, &id))
		snprintf(id_hex, sizeof(id_hex), "%016llx", (unsigned long long)id);
	err = cookie_fleet_claim(f, from_dir ? (long)node : want_node, from_dir, id_hex[0] ? id_hex : NULL);
	if (err)
		return err;
	/* --etcd-move: the directory's id is another directory's, a free one was claimed. */
	if (from_dir && f->node != node) {
		const char *what;

		err = cookie_mark_move_files(m, node, f->node, f->etcd_hw, &what);
		if (err) {
			m->log(LOG_ERR, "cannot move %s to node %u: writing %s: %s", dir, f->node, what,
			       strerror(-err));
			return 1;
		}
	}
	err = finish_open(m, dir, f->node);
	if (err)
		return err;
	if (!id_hex[0]) {
		snprintf(id_hex, sizeof(id_hex), "%016llx", (unsigned long long)m->id);
		cookie_fleet_label(f, id_hex);
	}
	/* The higher mark wins: etcd's, when above, is made the directory's too. */
	if (f->etcd_hw > m->store.highwater) {
		err = cookie_store_write_mark(&m->store, f->etcd_hw);
		if (err) {
			m->log(LOG_ERR, "cannot raise the mark in %s to etcd's %llu: %s", dir,
			       (unsigned long long)f->etcd_hw, strerror(-err));
			return 1;
		}
		m->log(LOG_INFO, "the mark in %s raised to etcd's %llu", dir,
		       (unsigned long long)f->etcd_hw);
	}
	err = cookie_fleet_reserve_first(f, m->store.highwater);
	if (err)
		return err;
	m->fleet = f;
	return 0;
}

int cookie_mark_raise(struct cookie_mark *m, const char *dir, uint64_t cookie)
{
	const char *why = "";
	unsigned int node = 0;
	uint64_t seq = COOKIE_SEQ_OF(cookie);
	int err = open_store(m, dir), lost = 0;

	if (err)
		return err;
	err = read_node(m, dir, &node);
	if (err > 0)
		return err;
	/* Without a node file the directory is node 0 (a new one, or one from before node ids). */
	if (COOKIE_NODE_OF(cookie) != node) {
		m->log(LOG_ERR, "%llu is a cookie of node %llu, but %s is node %u's: give a cookie of "
		       "node %u (cookie --decode shows a cookie's node)", (unsigned long long)cookie,
		       (unsigned long long)COOKIE_NODE_OF(cookie), dir, node, node);
		return 2;
	}
	if (seq == 0 || seq >= COOKIE_MARK_MAX) {
		m->log(LOG_ERR, "%llu is sequence %llu of node %u: a mark is a sequence from 1 to %llu",
		       (unsigned long long)cookie, (unsigned long long)seq, node,
		       COOKIE_MARK_MAX - 1);
		return 2;
	}
	err = cookie_store_read_mark(&m->store, &why);
	if (err == -EPERM)
		return untrusted(m, COOKIE_HIGHWATER_FILE);
	if (err == -EUCLEAN || err == -ENODATA) {
		/* What the operator is here to repair: written over, as they decided. */
		lost = 1;
		m->log(LOG_WARNING, "%s/" COOKIE_HIGHWATER_FILE " %s: replacing it", dir, why);
	} else if (err < 0) {
		m->log(LOG_ERR, "cannot read %s/" COOKIE_HIGHWATER_FILE ": %s", dir, strerror(-err));
		return 1;
	} else if (!err && m->store.highwater > seq) {
		m->log(LOG_ERR, "the mark in %s is already %llu (cookie %llu), above %llu: a mark is "
		       "never lowered", dir, (unsigned long long)m->store.highwater,
		       (unsigned long long)(COOKIE_NODE_BASE(node) + m->store.highwater),
		       (unsigned long long)cookie);
		return 1;
	}
	err = lost ? cookie_store_replace_mark(&m->store, seq) : cookie_store_write_mark(&m->store, seq);
	if (err == -ESTALE) {
		m->log(LOG_ERR, "the mark in %s was raised to %llu meanwhile: a mark is never lowered",
		       dir, (unsigned long long)m->store.disk);
		return 1;
	}
	if (err) {
		m->log(LOG_ERR, "cannot write %s/" COOKIE_HIGHWATER_FILE ": %s", dir, strerror(-err));
		return 1;
	}
	m->log(LOG_NOTICE, "the high-water mark in %s is %llu (node %u): the next cookie handed "
	       "out is %llu or above", dir, (unsigned long long)seq, node, (unsigned long long)cookie);
	return 0;
}
