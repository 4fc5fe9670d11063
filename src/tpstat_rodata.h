/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The specs into tpstat's BPF object before load: each item into its place in .rodata
 * (hist_field, by_spec, filter_spec, lat_spec: the same places as in the specs' arrays),
 * each field read by its tracepoint's program (field.tp = its slot), and the tables sized
 * for what is asked (one entry when nothing is); @ncpu: the possible CPUs.
 */
#ifndef __BAREATOM_TPSTAT_RODATA_H
#define __BAREATOM_TPSTAT_RODATA_H

#include "src/tpstat_specs.h"

struct tpstat_bpf;

void tpstat_rodata(const struct tpstat_specs *specs, struct tpstat_bpf *skel, int ncpu);

#endif /* __BAREATOM_TPSTAT_RODATA_H */
