// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-gend's durable mark on the running counter (cookie_mark.h): the counter recovered
 * above the mark, the limit extended only behind a durable mark, draws for clients, the
 * headroom, and a move to another node id (--etcd) with its two writes. The state directory
 * at start and offline is cookie_mark_dir.c's, which calls this file, never the reverse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "bpf/cookie_limit.h"
#include "src/libcookie.h"
#include "src/cookie_mark.h"
#include "src/clock.h"
#include "src/cookie_fleet.h"

static void save_failed(struct cookie_mark *m, int err)
{
	char status[256];

	m->save_errors++;
	m->save_backoff = m->save_err ? m->save_backoff * 2 : COOKIE_SAVE_BACKOFF_MIN;
	if (m->save_backoff > COOKIE_SAVE_BACKOFF_MAX)
		m->save_backoff = COOKIE_SAVE_BACKOFF_MAX;
	m->save_retry_at = clock_now() + m->save_backoff;
	if (err == m->save_err)
		return;
	m->save_err = err;
	if (err == -EOVERFLOW) {
		m->log(LOG_CRIT, "node %u's cookie space is exhausted (sequence %llu): draws are "
		       "refused, never wrapped into another node's", m->node, COOKIE_MARK_MAX - 1);
		m->status("STATUS=cookie space exhausted: draws are refused");
		return;
	}
	if (err == -ESTALE) {
		m->log(LOG_CRIT, "the high-water mark in %s is %llu, above this daemon's %llu: something "
		       "else writes it (another cookie-gend on the same directory?); never lowering it, "
		       "draws past %llu are refused", m->store.dir, (unsigned long long)m->store.disk,
		       (unsigned long long)m->store.highwater, (unsigned long long)m->store.highwater);
		m->status("STATUS=the high-water mark on disk is above this daemon's: draws are refused");
		return;
	}
	m->log(LOG_ERR, "cannot save the high-water mark in %s: %s; draws past %llu are refused "
	       "until it can be saved (retrying every %g s at most)", m->store.dir, strerror(-err),
	       (unsigned long long)m->store.highwater, COOKIE_SAVE_BACKOFF_MAX);
	snprintf(status, sizeof(status), "STATUS=cannot save the high-water mark in %s: %s; "
		 "draws past %llu are refused", m->store.dir, strerror(-err),
		 (unsigned long long)m->store.highwater);
	m->status(status);
}

static void save_recovered(struct cookie_mark *m)
{
	m->log(LOG_INFO, "the high-water mark is saved again in %s (%llu)", m->store.dir,
	       (unsigned long long)m->store.highwater);
	m->status("STATUS=serving cookies");
	m->save_err = 0;
	m->save_backoff = 0;
}

/*
 * Nothing here can wrap or leave the node's space: marks stay below COOKIE_MARK_MAX, and the
 * limit is node_base plus the mark.
 */
int cookie_mark_extend(struct cookie_mark *m, __u64 need)
{
	struct cookie_state *st = m->st;
	__u64 limit = __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST);
	__u64 next = __atomic_load_n(&st->next, __ATOMIC_SEQ_CST);
	__u64 base = need > next ? need : next, seq, target;
	int err;

	if (m->moving)
		return -ENOLINK;	/* a counter being left: nothing above its limit */
	/*
	 * In the node's space the counter is at least node_base (recover put it there), so
	 * one comparison catches the top of the space and anything outside it (seq wraps).
	 */
	seq = base - m->node_base;
	if (seq >= COOKIE_MARK_MAX - 1) {
		if (m->save_err != -EOVERFLOW)
			save_failed(m, -EOVERFLOW);
		return -EOVERFLOW;
	}
	/* The last block is cut at the node's top mark, so every sequence below it is served. */
	target = seq + COOKIE_BLOCK < COOKIE_MARK_MAX ? seq + COOKIE_BLOCK : COOKIE_MARK_MAX - 1;
	/*
	 * --etcd: never past what etcd reserved for this claim (only then may a cookie above
	 * the old mark be served); the fleet's thread reserves ahead of @target meanwhile.
	 */
	if (m->fleet) {
		uint64_t reserved = cookie_fleet_reserved(m->fleet);

		cookie_fleet_want(m->fleet, seq);
		if (target > reserved)
			target = reserved;
		if (target <= seq && m->node_base + target <= limit)
			return -ENOLINK;
	}
	if (m->node_base + target <= limit)
		return 0;
	if (m->save_err && clock_now() < m->save_retry_at)
		return m->save_err;
	err = cookie_store_write_mark(&m->store, target);
	if (err) {
		save_failed(m, err);
		return err;
	}
	if (m->save_err)
		save_recovered(m);
	__atomic_store_n(&st->limit, m->node_base + target, __ATOMIC_SEQ_CST);
	m->extensions++;
	m->log(LOG_DEBUG, "high-water mark now %llu (cookie %llu)", target, m->node_base + target);
	return 0;
}

/*
 * A move's two writes, in their order (cookie_mark_move() says why): the mark, raised to
 * @hw if that is higher, then the node file (none when the id stays: a counter restarted
 * above another holder's mark). 0 (logged), or a negative errno with *what the file that
 * could not be written.
 */
int cookie_mark_move_files(struct cookie_mark *m, unsigned int from, unsigned int node, uint64_t hw,
			   const char **what)
{
	int err = 0;

	*what = COOKIE_HIGHWATER_FILE;
	if (hw > m->store.highwater)
		err = cookie_store_write_mark(&m->store, hw);
	if (err)
		return err;
	if (from == node) {
		m->log(LOG_NOTICE, "%s stays node %u, its mark now %llu (the higher of its own and "
		       "etcd's %llu)", m->store.dir, node, (unsigned long long)m->store.highwater,
		       (unsigned long long)hw);
		return 0;
	}
	*what = COOKIE_NODE_FILE;
	err = cookie_store_move_node(&m->store, node);
	if (!err)
		m->log(LOG_NOTICE, "%s moved from node %u to node %u: mark %llu (the higher of its own "
		       "and etcd's %llu, written before the node file)", m->store.dir, from, node,
		       (unsigned long long)m->store.highwater, (unsigned long long)hw);
	return err;
}

int cookie_mark_move(struct cookie_mark *m)
{
	const char *what;
	unsigned int node;
	uint64_t hw;
	int err;

	if (!m->fleet || !cookie_fleet_moving(m->fleet, &node, &hw))
		return 0;
	m->moving = true;
	if (m->move_err && clock_now() < m->move_retry_at)
		return m->move_err;
	err = cookie_mark_move_files(m, m->node, node, hw, &what);
	if (err) {
		if (err != m->move_err)
			m->log(LOG_ERR, "cannot move %s to node %u: writing %s: %s; draws stay refused, "
			       "retrying every second", m->store.dir, node, what, strerror(-err));
		m->move_err = err;
		m->move_retry_at = clock_now() + 1.0;
		return err;
	}
	m->move_err = 0;
	m->node = node;
	m->node_base = COOKIE_NODE_BASE(node);
	cookie_fleet_moved(m->fleet, node, m->store.highwater);
	return 1;
}

void cookie_mark_headroom(struct cookie_mark *m)
{
	struct cookie_state *st = m->st;
	__u64 next = __atomic_load_n(&st->next, __ATOMIC_SEQ_CST);
	__u64 limit = __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST);
	/* Read first: writing the shared line on every tick would slow every drawer. */
	bool asked = __atomic_load_n(&st->need_room, __ATOMIC_RELAXED) &&
		     __atomic_exchange_n(&st->need_room, 0, __ATOMIC_SEQ_CST);

	if (asked || next >= limit || limit - next <= COOKIE_BLOCK / 2)
		cookie_mark_extend(m, next);
}

/*
 * A counter already at the limit is extended before anything is taken, so requests refused
 * while the mark cannot be saved do not push the counter on; a draw that crossed the limit
 * is covered by extending past it before the reply (the values are this draw's alone: no
 * other drawer got them). The limit check is bpf/cookie_limit.h's, as every drawer's.
 */
int cookie_mark_draw(struct cookie_mark *m, __u64 n, __u64 *first)
{
	struct cookie_state *st = m->st;
	__u64 next = __atomic_load_n(&st->next, __ATOMIC_SEQ_CST), c;
	int err;

	if (next >= __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST)) {
		err = cookie_mark_extend(m, next + n);
		if (err)
			goto refused;
	}
	c = __atomic_fetch_add(&st->next, n, __ATOMIC_SEQ_CST);
	if (!cookie_in_limit(c, n, __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST))) {
		err = cookie_mark_extend(m, c + n);
		if (err)
			goto refused;
		/* Extended, but maybe not far enough: what etcd reserved may end below c + n. */
		if (!cookie_in_limit(c, n, __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST))) {
			err = -ENOLINK;
			goto refused;
		}
	}
	*first = c;
	return 0;
refused:
	if (err == -ENOLINK)
		m->fleet_refused++;
	return err;
}

int cookie_mark_cover(struct cookie_mark *m, __u64 floor)
{
	__u64 seq = COOKIE_SEQ_OF(floor);
	int err;

	if (!floor || COOKIE_NODE_OF(floor) != m->node || seq <= m->store.highwater)
		return 0;
	/* The old counter's top of the node's space: nothing above it is left to serve. */
	err = seq >= COOKIE_MARK_MAX ? -EOVERFLOW : cookie_store_write_mark(&m->store, seq);
	if (err) {
		m->log(LOG_ERR, "cannot raise the high-water mark in %s to %llu, above the counter "
		       "being replaced: %s", m->store.dir, (unsigned long long)seq,
		       err == -EOVERFLOW ? "the node's space is exhausted" : strerror(-err));
		return err;
	}
	m->log(LOG_INFO, "high-water mark raised to %llu, above the counter being replaced",
	       (unsigned long long)seq);
	return 0;
}

int cookie_mark_recover(struct cookie_mark *m, struct cookie_state *st, __u64 floor)
{
	__u64 hw = m->node_base + m->store.highwater, cur, owner = 0, start = hw;

	m->st = st;
	m->moving = false;
	if (!__atomic_compare_exchange_n(&st->owner, &owner, m->id, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && owner != m->id) {
		m->log(LOG_ERR, "the maps pinned in " COOKIE_PIN_DIR " count for another state "
		       "directory than %s: stop that daemon and run cookie-gend --uninstall first",
		       m->store.dir);
		return -EEXIST;
	}
	/* Our own pins, but a node file changed by hand since: the counter is another node's. */
	if (owner == m->id && __atomic_load_n(&st->node, __ATOMIC_SEQ_CST) != m->node) {
		m->log(LOG_ERR, "the counter pinned in " COOKIE_PIN_DIR " is node %llu's, but %s "
		       "says node %u: run cookie-gend --uninstall first", st->node, m->store.dir,
		       m->node);
		return -EEXIST;
	}
	__atomic_store_n(&st->node, m->node, __ATOMIC_SEQ_CST);
	/* An older counter of this node (its layout replaced) may have given up to @floor. */
	if (COOKIE_NODE_OF(floor) == m->node && floor > start)
		start = floor;
	cur = __atomic_load_n(&st->next, __ATOMIC_SEQ_CST);
	while (cur < start &&
	       !__atomic_compare_exchange_n(&st->next, &cur, start, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	/*
	 * A reused map may carry a limit from a mark we cannot see: never trust more than ours.
	 * A fresh map's limit (0) is below the node's space: put it at the mark too, so that
	 * the limit is never below the mark's cookie (a move's fresh counter, whose first range
	 * etcd has not reserved yet, is then refused at the mark, nothing written).
	 */
	cur = __atomic_load_n(&st->limit, __ATOMIC_SEQ_CST);
	if (cur > hw || cur < m->node_base)
		__atomic_store_n(&st->limit, hw, __ATOMIC_SEQ_CST);
	m->log(LOG_INFO, "node %u, high-water mark %llu, counter at %llu", m->node, hw,
	       __atomic_load_n(&st->next, __ATOMIC_SEQ_CST));
	/*
	 * A mark that cannot be saved now (a full disk) does not stop the start: draws are
	 * refused, STATS and systemctl status say why, and the tick retries with backoff.
	 */
	cookie_mark_extend(m, __atomic_load_n(&st->next, __ATOMIC_SEQ_CST));
	return 0;
}
