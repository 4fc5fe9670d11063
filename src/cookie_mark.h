/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's durable mark, around one struct: recover the counter above everything ever
 * handed out, extend the limit (the mark first, durably), draw for clients and move to
 * another node id in cookie_mark.c; open and check the state directory at start, and raise
 * the mark by hand (--raise-mark), in cookie_mark_dir.c, which calls the former (a move's
 * writes at start), never the reverse.
 *
 * The rule it keeps: the counter's limit in the map is raised only after a larger mark has
 * been written and fsynced (cookie_store.c), and every draw at or past the limit is refused
 * (bpf/cookie_limit.h), so after SIGKILL or a power-off the counter restarts at the mark,
 * above everything it ever gave. The mark moves in blocks (COOKIE_BLOCK): one fsync a block.
 */
#ifndef __BAREATOM_COOKIE_MARK_H
#define __BAREATOM_COOKIE_MARK_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/cookie_abi.h"
#include "src/cookie_store.h"

struct cookie_fleet;

/*
 * Exit status when the state directory needs an operator (a corrupt, lost or untrusted mark,
 * id or node): the unit lists it in RestartPreventExitStatus=, so systemd does not restart
 * into the same refusal. 78 is EX_CONFIG of sysexits.h.
 */
#define COOKIE_EXIT_STATE	78

#define COOKIE_SAVE_BACKOFF_MIN	0.1	/* seconds before retrying a failed save of the mark */
#define COOKIE_SAVE_BACKOFF_MAX	5.0

struct cookie_mark {
	struct cookie_store store;	/* the state directory: every sequence handed out is below its mark */
	struct cookie_state *st;	/* the counter: the mmapped state map, from cookie_mark_recover() */
	unsigned int node;		/* the node id, fixed by the state directory */
	__u64 node_base;		/* node << 48: the node's first cookie value (never one itself) */
	uint64_t id;			/* the directory's id: the pinned maps record it as their owner */
	__u64 extensions;		/* marks written */
	/* Saving the mark failed: retried with backoff, logged once per change of state. */
	int save_err;
	double save_retry_at, save_backoff;
	__u64 save_errors;
	/*
	 * --etcd: the limit also stays below what etcd reserved for this node (cookie_fleet.h);
	 * draws refused for want of a reserved range (-ENOLINK) are counted here.
	 */
	struct cookie_fleet *fleet;
	__u64 fleet_refused;
	/*
	 * --etcd moving to another node id (cookie_mark_move()): from the first write on, the
	 * counter's limit is never raised again, until cookie_mark_recover() gets a fresh one.
	 */
	bool moving;
	int move_err;
	double move_retry_at;
	/* Where it reports: the daemon's log and systemd's STATUS= line. */
	void (*log)(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	void (*status)(const char *msg);
};

/*
 * Open, lock and check the state directory @dir before anything is loaded, and complete a
 * first start (mark, then node, then id). @want_node is --node-id or -1. Returns 0, or the
 * exit status after logging one line: COOKIE_EXIT_STATE when the directory needs an operator
 * (its files are left as they are), 1 otherwise (another daemon holds it, I/O errors).
 */
int cookie_mark_open(struct cookie_mark *m, const char *dir, long want_node);

/*
 * cookie_mark_open() with the node id claimed from etcd through @f (cookie_fleet_open()ed):
 * the directory's node file, else @want_node (--node-id), else any free id, is claimed; a
 * first start then writes the claimed id as its node (with --etcd-move, a directory whose
 * id another directory holds is moved to the free id claimed instead, in cookie_mark_move()'s
 * order); the higher of the directory's mark and etcd's wins; the first range is reserved in
 * etcd. From then on the mark's limit stays below @f's reservation. The exit status as
 * cookie_mark_open()'s, or cookie_fleet_claim()'s.
 */
int cookie_mark_open_fleet(struct cookie_mark *m, const char *dir, long want_node,
			   struct cookie_fleet *f);

/*
 * Raise the mark on disk to cover @floor (a whole cookie: what an older layout's counter
 * could have given, 0 for none) before that counter's pins are replaced, so a crash between
 * the two loses nothing. Another node's floor says nothing about this one. 0, or a negative
 * errno (logged).
 */
int cookie_mark_cover(struct cookie_mark *m, __u64 floor);

/*
 * Start the counter @st above everything ever handed out: above the mark, and above @floor
 * (a whole cookie: what an older layout's counter could have given, 0 for none), then
 * reserve the first block. After cookie_mark_move(), @st is the fresh counter of the new
 * node, and the move ends here. -EEXIST (logged) when @st counts for another state directory.
 */
int cookie_mark_recover(struct cookie_mark *m, struct cookie_state *st, __u64 floor);

/*
 * Make the limit cover @need and a block beyond it, durably first. After a failure it waits
 * out a backoff before writing again (a full disk costs no fsync per tick) and returns the
 * error meanwhile; -EOVERFLOW at the top of the node's space, -ESTALE when the mark on disk
 * is above the one it would write (never lowered); -ENOLINK with --etcd when no range above
 * @need is reserved there (the claim lost, etcd gone: cookie_fleet_why() says which).
 */
int cookie_mark_extend(struct cookie_mark *m, __u64 need);

/*
 * --etcd: when this node id's claim was lost to another holder and the fleet claimed @node
 * in its place, whose mark in etcd is @hw (cookie_fleet_moving()), move the state directory
 * to @node, in the order that leaves every state a crash can leave covered (@node may be
 * the same id, claimed again above another holder's mark: then only the mark is written,
 * and the counter is replaced all the same):
 *   1. the mark, raised to the higher of the directory's and @hw (a mark is never lowered):
 *      valid then for the old node (only higher) and for @node (at or above every sequence
 *      of @node any holder reserved before our claim);
 *   2. the node file: @node (cookie_store_move_node()).
 * A crash before 2 leaves the old node with a higher mark: a restart finds the old id
 * held by another directory and exits 78, serving nothing. A crash after 2 leaves @node
 * with a mark at or above etcd's at our claim; a restart claims @node (its directory's)
 * and the higher of the two marks wins, as at every start. From the first call on, the
 * counter is frozen: its limit is never raised again and draws past it are refused
 * (-ENOLINK). Once moved, the fleet is told (cookie_fleet_moved(): it reserves for @node
 * from then on) and 1 is returned: the caller gives cookie_mark_recover() a fresh counter,
 * which ends the move. 0 when no move waits; a negative errno when a write failed (logged
 * once; a call before a second has passed returns it again without writing).
 */
int cookie_mark_move(struct cookie_mark *m);

/*
 * A move's two writes (cookie_mark_move() says why in this order): the mark raised to @hw
 * if that is higher, then the node file @node (none when @from is @node). 0 (logged), or a
 * negative errno with *what the file that could not be written. cookie_mark_open_fleet()'s
 * --etcd-move at start makes the same two writes through it.
 */
int cookie_mark_move_files(struct cookie_mark *m, unsigned int from, unsigned int node, uint64_t hw,
			   const char **what);

/* Keep a block of headroom; a refused draw's need_room flag asks for it at once. */
void cookie_mark_headroom(struct cookie_mark *m);

/* Draw @n (1 to COOKIE_DRAW_MAX) cookies for a client: 0 with *first, or a negative errno. */
int cookie_mark_draw(struct cookie_mark *m, __u64 n, __u64 *first);

/*
 * --raise-mark: with no daemon on @dir (it is locked), make @cookie the next cookie handed
 * out: it must be a cookie of the directory's node (its node file's, 0 without one) and its
 * sequence (1 to COOKIE_MARK_MAX - 1) becomes the mark, durably. A lost or corrupt mark is
 * replaced; a mark above it is never lowered (exit 1). Logs what it did or why not; returns
 * the exit status (2 for a cookie of another node or out of range, 78 for untrusted state).
 */
int cookie_mark_raise(struct cookie_mark *m, const char *dir, uint64_t cookie);

#endif /* __BAREATOM_COOKIE_MARK_H */
