/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pins under /sys/fs/bpf/bareatom/TOOL/ (for bpftool), owned by one running instance at a
 * time: take the directory with pins_lock(), pin objects by name, pins_release() on exit.
 */
#ifndef __BAREATOM_PINS_H
#define __BAREATOM_PINS_H

#include <stdbool.h>
#include <sys/types.h>

struct bpf_map;
struct bpf_program;
struct bpf_link;

#define PINS_ROOT	"/sys/fs/bpf/bareatom"
/* The owner records (lock files), one per pin directory; see pins.c for why here. */
#define PINS_LOCK_DIR	"/run/bareatom/pins"
#define PINS_NAME_LEN	256	/* NAME_MAX + 1 */

struct pins {
	const char *tool;		/* names the program in messages */
	char dir[128];			/* PINS_ROOT/NAME */
	char lock[128];			/* PINS_LOCK_DIR/NAME.lock */
	int lock_fd;			/* holds the lock while locked */
	bool locked;
	pid_t owner;			/* after -EBUSY: the live owner's pid, or 0 if unknown */
	size_t n, cap;			/* what this instance pinned, for pins_release() */
	char (*names)[PINS_NAME_LEN];	/* grown as pinned (tpstat: two per tracepoint) */
};

/* pins_lock() flags */
#define PINS_KEEP_STALE	(1u << 0)	/* keep a dead owner's pins, for the caller to reuse */

/*
 * Own PINS_ROOT/@name for @tool: take its lock, record this process as the owner, remove
 * the pins a dead owner left (one line on stderr says so) unless PINS_KEEP_STALE, and create
 * the directory. Returns 0; -EBUSY when a live instance owns it (nothing is touched,
 * nothing printed: the caller words the refusal, p->owner names the owner); or another
 * negative errno after printing one line.
 */
int pins_lock(struct pins *p, const char *tool, const char *name, unsigned int flags);

/*
 * Pin an object as DIR/@name and remember it as ours. Return 0, or a negative errno after
 * printing one line (the pins made so far stay until pins_release()).
 */
int pins_map(struct pins *p, struct bpf_map *map, const char *name);
int pins_prog(struct pins *p, struct bpf_program *prog, const char *name);
int pins_link(struct pins *p, struct bpf_link *link, const char *name);
/* The same for a program or link known by its file descriptor alone. */
int pins_fd(struct pins *p, int fd, const char *name);

/* Remove the pins this instance made (never others'), then the directory if empty. */
void pins_unpin(struct pins *p);

/* pins_unpin(), then give up ownership. Safe to call more than once, or unlocked. */
void pins_release(struct pins *p);

/* pins_release() without removing anything: the pins stay for the next owner. */
void pins_unlock(struct pins *p);

#endif /* __BAREATOM_PINS_H */
