/* SPDX-License-Identifier: GPL-2.0 */
/* The tracepoints tpstat names: listed (-l, -lv), resolved, and their --hist fields. */
#ifndef __BAREATOM_TPSTAT_NAMES_H
#define __BAREATOM_TPSTAT_NAMES_H

#include "src/tplist.h"
#include "src/tpfield.h"
#include "src/tpfilter.h"

struct tpstat_opts;

/* The kernel's raw tracepoints, or one line saying why not (then the caller exits 1). */
int tpstat_load_tracepoints(struct tp_list *l);

/* tpstat -l [-v] [-j] [--bare] [GLOB]: the exit status. */
int tpstat_list(const struct tpstat_opts *o);

/*
 * The tracepoint of each name in @o->names, into @tps; for the first that does not exist,
 * one line (a module to load, or the closest names) and EXIT_USAGE.
 */
int tpstat_resolve_names(const struct tpstat_opts *o, const struct tp_list *l,
			 const struct tp_info **tps);

/*
 * Compile each --hist EXPR (@o->hist[]) into @fields, each --by's EXPR keys (@o->by[]) into
 * @keys[b][0..] and its --value into @keys[b][TPSTAT_BY_KEYS], each --filter (@o->filter[]) into @filters and each --latency's EXPR keys
 * (@o->lat[], START and END) into @lat_keys, against their tracepoint's arguments in BTF.
 * Returns 0, EXIT_USAGE after one line naming what exists instead, or 1.
 */
int tpstat_compile_fields(const struct tpstat_opts *o, const struct tp_info *const *tps,
			  struct tpfield *fields, struct tpfield (*keys)[TPSTAT_BY_KEYS + 1],
			  struct tpfilter *filters, struct tpfield (*lat_keys)[2]);

#endif /* __BAREATOM_TPSTAT_NAMES_H */
