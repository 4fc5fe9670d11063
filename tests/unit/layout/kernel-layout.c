// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle of tests/unit/tpfield.c: offsets and sizes the C compiler gives the kernel's
 * structs, from build/vmlinux.h (made by bpftool from the BTF the test reads, Debian's 6.1
 * kernel's: images/vmlinux-h). tpfield walks
 * the BTF itself; the two must agree. Apart from the test because vmlinux.h cannot share a
 * translation unit with the C library's headers.
 */
#include "vmlinux.h"

#define OFF(name, type, member) const unsigned long name = __builtin_offsetof(type, member)

OFF(layout_cfs_rq_util_avg, struct cfs_rq, avg.util_avg);
OFF(layout_cfs_rq_load_avg, struct cfs_rq, avg.load_avg);
OFF(layout_cfs_rq_rq, struct cfs_rq, rq);
OFF(layout_rq_cpu, struct rq, cpu);
OFF(layout_rq_nr_running, struct rq, nr_running);
OFF(layout_rq_curr, struct rq, curr);
OFF(layout_task_comm, struct task_struct, comm);
OFF(layout_task_pid, struct task_struct, pid);
OFF(layout_task_real_parent, struct task_struct, real_parent);
const unsigned long layout_size_util_avg = sizeof(((struct sched_avg *)0)->util_avg);
const unsigned long layout_size_task = sizeof(struct task_struct);
