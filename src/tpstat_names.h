/* SPDX-License-Identifier: GPL-2.0 */
/* The tracepoints tpstat can count: the kernel's list, listed (-l, -lv). */
#ifndef __BAREATOM_TPSTAT_NAMES_H
#define __BAREATOM_TPSTAT_NAMES_H

#include "src/tplist.h"

struct tpstat_opts;

struct btf;

/*
 * The kernel's raw tracepoints, or one line saying why not (then the caller exits 1);
 * @seen(@arg), when not NULL, is handed the vmlinux BTF while it is parsed (tplist_load_with).
 */
int tpstat_load_tracepoints(struct tp_list *l, void (*seen)(const struct btf *vmlinux, void *arg),
			    void *arg);

/* tpstat -l [-v] [-j] [--bare] [GLOB]: the exit status. */
int tpstat_list(const struct tpstat_opts *o);

#endif /* __BAREATOM_TPSTAT_NAMES_H */
