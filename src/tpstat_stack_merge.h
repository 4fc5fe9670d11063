/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's named stacks (tpstat_stacks.h), the pure part: entries whose frames name the same
 * (the offset of a frame in its function can differ, or the process: a user stack keeps its
 * tgid in the key) are one stack, their counts and --value's sums, minimums and maximums
 * merged; the values as the JSON numbers stack_entry's value holds. Entries own their
 * strings (malloc'd).
 */
#ifndef __BAREATOM_TPSTAT_STACK_MERGE_H
#define __BAREATOM_TPSTAT_STACK_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"
#include "src/stack_fold.h"

/*
 * Merge the @n entries of @e that name the same (the key's text and every frame), adding
 * their counts and @v's values (@v[i] is @e[i]'s; @sg: the value is signed): the entries
 * left, in the first places of @e and @v, in the order of their names.
 */
size_t tpstat_stack_merge(struct stack_entry *e, struct tpstat_by_val *v, size_t n, bool sg);

/* @v's sum (128-bit), min, max and average as four strings, or NULL (out of memory). */
const char *const *tpstat_stack_value(const struct tpstat_by_val *v, bool sg);

/* Free an entry's strings; the @n entries of @e and @e. */
void tpstat_stack_free_names(struct stack_entry *e);
void tpstat_stack_free(struct stack_entry *e, size_t n);

#endif /* __BAREATOM_TPSTAT_STACK_MERGE_H */
