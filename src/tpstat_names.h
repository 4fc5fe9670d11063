/* SPDX-License-Identifier: GPL-2.0 */
/* The tracepoints tpstat can count: the kernel's list, listed (-l, -lv). */
#ifndef __BAREATOM_TPSTAT_NAMES_H
#define __BAREATOM_TPSTAT_NAMES_H

#include "src/tplist.h"

struct tpstat_opts;

/* The kernel's raw tracepoints, or one line saying why not (then the caller exits 1). */
int tpstat_load_tracepoints(struct tp_list *l);

/* tpstat -l [-v] [-j] [--bare] [GLOB]: the exit status. */
int tpstat_list(const struct tpstat_opts *o);

#endif /* __BAREATOM_TPSTAT_NAMES_H */
