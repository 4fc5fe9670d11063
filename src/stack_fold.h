/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks counted by a tracepoint, printed three ways: the folded lines flame-graph tools
 * read (--folded FILE), the top-N table, and JSON (-j). They take stacks already named
 * (stack_ksym.h, stack_usym.h) and the accounting, so that every event shows: the entries
 * plus the buckets of events that found no entry add up to the tracepoint's count.
 *
 * The folded format, as flamegraph.pl, inferno and speedscope read it: one line per stack,
 * frames root first joined by ';', a space, the count:
 *	bash;main;middle;inner (inlined);-;entry_SYSCALL_64;do_syscall_64;tpgen_fire [tpgen] 4
 * The key's other parts (e.g. the comm) come first, as bcc's profile -f puts the comm;
 * then the user frames, a '-' frame, the kernel frames: bcc's -d delimiter between the two
 * (perf's folded output has none; the table shows a "--" line, as bcc's does). The readers
 * split the count off at the last space, so spaces in names stay; they have no escape for
 * the ';' separator, so a ';' in a name becomes ':' (as FlameGraph's own scripts turn it);
 * control bytes (a newline would end the line) become '?'.
 */
#ifndef __BAREATOM_STACK_FOLD_H
#define __BAREATOM_STACK_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "src/json.h"

/* One stack and its count. Frames leaf first, as the kernel records them. */
struct stack_entry {
	const char *key;		/* the key's other parts as one frame, or NULL */
	const char *const *kframes;	/* kernel frames */
	int nk;
	const char *const *uframes;	/* user frames */
	int nu;
	uint64_t count;
	/* A value summed per stack (tpstat's --value): sum, min, max, avg as JSON numbers. */
	const char *const *value;	/* NULL: none */
};

/*
 * The events that found no entry, and why: count = the entries' counts + these. The names
 * are the JSON members and, with '_' as a space, the table's lines.
 */
struct stack_acct {
	uint64_t count;		/* every event of the tracepoint */
	uint64_t truncated;	/* a stack deeper than the depth collected */
	uint64_t map_full;	/* no free slot for a new stack */
	uint64_t collision;	/* its slot in the stack map held another stack */
	uint64_t no_ustack;	/* a kernel thread: no user stack to take */
	uint64_t read_error;	/* the kernel failed to give the stack */
};

/* The buckets of @a in order, each with its JSON name and the table's words. */
#define STACK_NR_BUCKETS 5
struct stack_bucket {
	const char *json, *text;
	uint64_t count;
};
void stack_buckets(const struct stack_acct *a, struct stack_bucket out[STACK_NR_BUCKETS]);

/*
 * A file written whole or not at all: stack_file_open() opens a temporary file beside
 * @path (*@tmp its name), stack_file_close() closes it and renames it over @path when
 * @ret and the writes succeeded, and removes it otherwise: 0, or -errno.
 */
FILE *stack_file_open(const char *path, char **tmp);
int stack_file_close(FILE *f, char *tmp, const char *path, int ret);

/* The separator frame between user and kernel frames in a folded line. */
#define STACK_FOLD_SEP "-"

/* @name as one folded frame into @buf (';' to ':', control bytes to '?'). */
void stack_fold_frame(const char *name, char *buf, size_t len);

/*
 * The stacks of one stack key (one tpstat --by) and its accounting. With several in one
 * file, each has a root frame that says whose they are (tpstat's "TRACEPOINT:KEY"), above
 * the key's other parts; with one, @root is NULL and the lines start with its frames.
 */
struct stack_group {
	const char *root;
	const struct stack_entry *e;
	size_t n;
	const struct stack_acct *acct;
};

/* One folded line of @e, under the frame @root unless NULL, ending in '\n'. */
int stack_fold_line(FILE *f, const char *root, const struct stack_entry *e);

/*
 * --folded FILE: every entry of the @ng groups @g as a folded line, written to a temporary
 * file and renamed over @path, so a reader never sees half a file. 0, or -errno.
 */
int stack_fold_file(const char *path, const struct stack_group *g, size_t ng);

/*
 * The order entries are shown in: most counted first, ties in the given order. Fills
 * @order (n entries) with indexes into @e.
 */
void stack_order(const struct stack_entry *e, size_t n, size_t *order);

/*
 * The table: the @top most counted stacks (0: all), each its count and share of @a->count
 * and its frames indented below it, leaf first (with a value, a line "avg A, min M, max X,
 * sum S" before them); then the stacks not shown, summed, each
 * bucket of @a, and the sum: entries + buckets = count.
 */
int stack_table_print(FILE *f, const struct stack_entry *e, size_t n, size_t top,
		      const struct stack_acct *a);

/*
 * -j: members of the object @j is in: "stacks":[{"count":N, ["sum", "min", "max", "avg"
 * with a value,] "key":.., "kstack":[..], "ustack":[..]}, ..] (the @top most counted, frames leaf first), "other" (the counts of
 * the rest), and one member per bucket of @a.
 */
void stack_json(struct json *j, const struct stack_entry *e, size_t n, size_t top,
		const struct stack_acct *a);

/* The sum of the entries' counts and the buckets: @a->count when nothing is lost. */
uint64_t stack_accounted(const struct stack_entry *e, size_t n, const struct stack_acct *a);

#endif /* __BAREATOM_STACK_FOLD_H */
