/* SPDX-License-Identifier: GPL-2.0 */
/* eht-hosts' output: the table, JSON lines and change lines of a snapshot, to any FILE. */
#ifndef __BAREATOM_EHT_FMT_H
#define __BAREATOM_EHT_FMT_H

#include <stdbool.h>
#include <stdio.h>
#include "src/eht_snap.h"

/* The table, then the hits of each tracepoint (and adopted/lost hosts when any). */
void eht_fmt_table(FILE *f, const struct eht_snap *s);

/* One JSON line; @interval 0 leaves "interval" out. */
void eht_fmt_json(FILE *f, const struct eht_snap *s, int interval, bool final);

/* -w's change lines: the header, then one line per change at @t seconds since the start. */
void eht_fmt_change_header(FILE *f);
void eht_fmt_change(FILE *f, double t, enum eht_change what, const struct eht_snap *s,
		    const struct eht_row *r);

#endif /* __BAREATOM_EHT_FMT_H */
