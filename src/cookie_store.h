/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-gend's durable state: the directory that keeps cookies unique across reboots.
 *
 *   highwater   "H\n": every cookie ever handed out is below H (decimal, no sign, no blanks)
 *   id          "%016llx\n": random, non-zero; the pinned maps record it as their owner
 *
 * Both are written the same way (write a temporary file, fsync it, rename it over the old one,
 * fsync the directory), so a crash leaves either the old content or the new, never a torn
 * or empty file. Anything that is not exactly what this code writes is refused: guessing a
 * high-water mark could hand out cookie 1 again. Pure file code, tested on the host.
 */
#ifndef __BAREATOM_COOKIE_STORE_H
#define __BAREATOM_COOKIE_STORE_H

#include <stddef.h>
#include <stdint.h>

#define COOKIE_HIGHWATER_FILE	"highwater"
#define COOKIE_ID_FILE		"id"

struct cookie_store {
	const char *dir;	/* for messages */
	int dir_fd;
	uint64_t highwater;	/* the mark on disk: every cookie handed out is below it */
};

/*
 * Open (creating it and its parents, each created directory fsynced into its parent) the
 * state directory @dir. Returns 0 or a negative errno.
 */
int cookie_store_open(struct cookie_store *s, const char *dir);
void cookie_store_close(struct cookie_store *s);

/*
 * Parse a high-water file's content: "[1-9][0-9]*" with one optional '\n', below
 * COOKIE_MARK_MAX. Returns 0, or -EUCLEAN for anything else.
 */
int cookie_store_parse_mark(const char *buf, size_t len, uint64_t *out);

/*
 * Read the mark into s->highwater: 1 when the file does not exist (a first start), 0 on
 * success, -EUCLEAN when it is corrupt, another negative errno when it cannot be read.
 * @why gets a one-line reason on -EUCLEAN.
 */
int cookie_store_read_mark(struct cookie_store *s, const char **why);

/* Write @hw durably; only then may cookies below it be handed out. 0 or a negative errno. */
int cookie_store_write_mark(struct cookie_store *s, uint64_t hw);

/* Parse an id file: exactly 16 lowercase hex digits and '\n', not all zero. 0 or -EUCLEAN. */
int cookie_store_parse_id(const char *buf, size_t len, uint64_t *out);

/*
 * Read the directory's id, or create one (random) on first use. 0, -EUCLEAN when the file
 * is empty or malformed, or another negative errno.
 */
int cookie_store_id(struct cookie_store *s, uint64_t *id);

#endif /* __BAREATOM_COOKIE_STORE_H */
