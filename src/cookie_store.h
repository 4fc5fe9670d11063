/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's durable state: the directory that keeps cookies unique across reboots.
 *
 *   highwater   "H\n": every cookie ever handed out is below H (decimal, no sign, no blanks)
 *   id          "%016llx\n": random, non-zero; the pinned maps record it as their owner
 *   node        "N\n": the node id, 0 to 65535 (decimal, no sign, no leading zero), the top
 *               16 bits of every cookie; fixed once written, but for one writer: cookie-gend
 *               --etcd moving to another id (cookie_store_move_node()). The mark counts
 *               within the node.
 *
 * All are written the same way (write a temporary file, fsync it, rename it over the old one,
 * fsync the directory), so a crash leaves either the old content or the new, never a torn
 * or empty file. Anything that is not exactly what this code writes is refused: guessing a
 * high-water mark could hand out cookie 1 again. Pure file code, tested on the host.
 *
 * A first start writes the mark (1: nothing handed out) before the node and the id, so the
 * states a crash can leave are: nothing, highwater, highwater and node, all three. An id or
 * node without a mark is a lost mark, refused. The directory and its files are trusted only
 * when owned by this process's user and not writable by group or other, and not symbolic
 * links (checked on the open fds); the directory is locked (flock) while it is open.
 */
#ifndef __BAREATOM_COOKIE_STORE_H
#define __BAREATOM_COOKIE_STORE_H

#include <stddef.h>
#include <stdint.h>

#define COOKIE_HIGHWATER_FILE	"highwater"
#define COOKIE_ID_FILE		"id"
#define COOKIE_NODE_FILE	"node"

struct cookie_store {
	const char *dir;	/* for messages */
	int dir_fd;
	uint64_t highwater;	/* the mark on disk: every sequence handed out is below it */
	int fresh;		/* no mark on disk: no cookie was ever handed out from here */
	uint64_t disk;		/* the mark found on disk by a refused write (-ESTALE) */
	char why[128];		/* why a file was refused: "is a symbolic link", ... */
};

/*
 * Open (creating it and its parents, each created directory fsynced into its parent) the
 * state directory @dir, and lock it for as long as it is open. Returns 0; -EPERM when it is
 * not trusted (s->why says why); -EBUSY when another open holds it (a second daemon); or
 * another negative errno.
 */
int cookie_store_open(struct cookie_store *s, const char *dir);
void cookie_store_close(struct cookie_store *s);

/*
 * Parse a high-water file's content: "[1-9][0-9]*" with one optional '\n', below
 * COOKIE_MARK_MAX. Returns 0, or -EUCLEAN for anything else.
 */
int cookie_store_parse_mark(const char *buf, size_t len, uint64_t *out);

/*
 * Read the mark into s->highwater: 1 when the file does not exist in an otherwise new
 * directory (a first start: s->fresh), 0 on success, -EUCLEAN when it is corrupt, -EPERM
 * when it is a symbolic link or not trusted, -ENODATA when it is missing but an id or a node
 * file remains (the mark was lost), another negative errno when it cannot be read. @why
 * gets a one-line reason (what follows the file's name) on -EUCLEAN, -EPERM and -ENODATA.
 */
int cookie_store_read_mark(struct cookie_store *s, const char **why);

/*
 * Write @hw durably; only then may cookies below it be handed out. Never lowers the mark:
 * the file is read again first, and a mark on disk above @hw refuses with -ESTALE (it is in
 * s->disk). 0, -EOVERFLOW for a mark out of range, or another negative errno.
 */
int cookie_store_write_mark(struct cookie_store *s, uint64_t hw);

/*
 * Write @hw over a mark that is corrupt or lost, without reading it (--raise-mark: the
 * operator decided). 0, -EOVERFLOW, or another negative errno.
 */
int cookie_store_replace_mark(struct cookie_store *s, uint64_t hw);

/* After cookie_store_read_mark(): a first start writes its mark, 1, first of all. */
int cookie_store_init(struct cookie_store *s);

/*
 * Parse a node file's content: "0" or "[1-9][0-9]*" up to 65535, with one optional '\n'.
 * Returns 0, or -EUCLEAN for anything else.
 */
int cookie_store_parse_node(const char *buf, size_t len, unsigned int *out);

/*
 * Read the node file: 0, -ENOENT when there is none, -EUCLEAN when it is corrupt, -EPERM
 * when it is not trusted (@why says how), or another negative errno. Writes nothing.
 */
int cookie_store_read_node(struct cookie_store *s, unsigned int *node, const char **why);

/*
 * The directory's node id, after cookie_store_read_mark(). @want is the node id asked for, or
 * -1 for none. A node file, once there, decides; a directory without one but with a mark
 * above 1 predates node ids and is node 0; a new one (mark 1 or none) takes @want, or 0. The file is written
 * (durably) only when it is missing and the id is accepted, so a refusal changes nothing.
 * Returns 0 with *node set; -EUCLEAN when the file is corrupt (@why says how); -EEXIST when
 * @want is not the directory's node (*node holds the directory's); or another negative errno.
 */
int cookie_store_node(struct cookie_store *s, long want, unsigned int *node, const char **why);

/*
 * cookie-gend --etcd moving to another node id (its own was claimed by another holder while
 * it could not keep it): write @node as the node file, durably, over the one there. The
 * caller has made the mark valid for both nodes first (cookie_mark_move()), so a crash
 * before or after this write leaves a directory whose mark covers what it names. 0, or a
 * negative errno (the old node file stays).
 */
int cookie_store_move_node(struct cookie_store *s, unsigned int node);

/* Parse an id file: exactly 16 lowercase hex digits and '\n', not all zero. 0 or -EUCLEAN. */
int cookie_store_parse_id(const char *buf, size_t len, uint64_t *out);

/*
 * Read the directory's id, or create one (random) on first use. 0, -EUCLEAN when the file
 * is empty or malformed, -EPERM when it is not trusted (s->why says why for both), or
 * another negative errno.
 */
int cookie_store_id(struct cookie_store *s, uint64_t *id);

#endif /* __BAREATOM_COOKIE_STORE_H */
