/* SPDX-License-Identifier: GPL-2.0 */
/* tpstat's targets: what counts (-p, -t, -G, -- CMD's tree, or system wide). */
#ifndef __BAREATOM_TPSTAT_TARGET_H
#define __BAREATOM_TPSTAT_TARGET_H

#include <stdbool.h>
#include <stddef.h>

struct tpstat_opts;
struct tpstat_bpf;
struct bpf_link;

/*
 * Before anything is loaded: every -p/-t target exists (a -p is a process, not a thread)
 * and -G is a cgroup v2 directory. Returns 0, or EXIT_USAGE after one line saying why.
 */
int tpstat_check_targets(const struct tpstat_opts *o);

/*
 * Before load: set the filter in .rodata and which task-tracking programs load; write what
 * counts for the output ("PID 1,2", "cgroup X", "its process tree", "system wide") into
 * @target. Returns true when counting follows CMD's process tree.
 */
bool tpstat_choose_target(const struct tpstat_opts *o, struct tpstat_bpf *skel, char *target,
			  size_t len);

/*
 * After load: fill the targets map (-p/-t) or the cgroup array (-G) and attach the fork and
 * exit programs chosen above (their links in @task_links). Returns 0, 1 or EXIT_USAGE.
 */
int tpstat_set_targets(const struct tpstat_opts *o, struct tpstat_bpf *skel,
		       struct bpf_link *task_links[2]);

#endif /* __BAREATOM_TPSTAT_TARGET_H */
