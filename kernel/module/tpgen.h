/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TPGEN_H
#define _TPGEN_H

#include <linux/types.h>

#define TPGEN_NAME_LEN 16

/*
 * Passed to the bare tracepoints tpgen_a and tpgen_b. BPF programs read it
 * with CO-RE from the module's BTF, so fields may move between versions.
 */
struct tpgen_ctx {
	u64 fire_id;		/* which write to the fire file this belongs to */
	u64 count;		/* how many events this CPU fires for that write
				 * (nest's hrtimer: at most this many)
				 */
	u64 start_ns;		/* ktime_get_ns() when this CPU started firing */
	int cpu;		/* the CPU the events are fired on */
	bool all_cpus;		/* fired with "all" */
	bool nest;		/* fired with "nest", from the task or the timer */
	bool hardirq;		/* fired by nest's hrtimer, in hardirq context */
	char name[TPGEN_NAME_LEN];	/* name of the tracepoint being fired */
};

#endif /* _TPGEN_H */
