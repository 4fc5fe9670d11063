/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel frames by name: /proc/kallsyms read once per run, its text symbols sorted by
 * address, each lookup a binary search (no file read per interval or per frame).
 *
 * The parser takes the file's text, so a test can feed it a fixture. A line is
 *	ADDRESS TYPE NAME[\t[MODULE]]
 * Only text symbols are kept (types t, T, w, W): a return address lies in code, and a data
 * symbol just below it would name the frame wrongly. Module symbols keep their module
 * (kallsyms' "[tpgen]"; BPF programs show as "[bpf]").
 *
 * A frame's name (stack_frame.h): "func+0x1a" in the kernel image, "func+0x1a [tpgen]" in
 * a module (the offsets with STACK_NAME_OFFSET), "[kernel]+0xADDR" below every symbol or when
 * kallsyms hides its addresses (kptr_restrict, not root: every address reads 0).
 */
#ifndef __BAREATOM_STACK_KSYM_H
#define __BAREATOM_STACK_KSYM_H

#include <stddef.h>
#include <stdint.h>
#include "src/stack_frame.h"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL in the kernel image */
};

struct ksym_table {
	struct ksym *syms;	/* sorted by address */
	size_t n;
	char *text;		/* the names point into this copy of the file */
	int restricted;		/* every address was 0: kallsyms hid them from us */
};

/* Parse kallsyms' @text (@len bytes): 0, or -ENOMEM. */
int ksym_parse(struct ksym_table *t, const char *text, size_t len);
/* Read and parse @path (NULL: /proc/kallsyms): 0 or -errno. */
int ksym_load(struct ksym_table *t, const char *path);
void ksym_free(struct ksym_table *t);

/* The symbol at or below @addr, or NULL. */
const struct ksym *ksym_find(const struct ksym_table *t, uint64_t addr);

/* @addr's name as above into @buf (@flags: enum stack_name_flags); snprintf's length. */
int ksym_name(const struct ksym_table *t, uint64_t addr, unsigned int flags, char *buf,
	      size_t len);

#endif /* __BAREATOM_STACK_KSYM_H */
