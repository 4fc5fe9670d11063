/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by tpstat.bpf.c and src/tpstat.c: the layout of the counters in .bss. */
#ifndef __BAREATOM_TPSTAT_ABI_H
#define __BAREATOM_TPSTAT_ABI_H

/*
 * Which tracepoint a program run counts (src/tpstat_progs.c loads them): the index patched
 * into each copy's instructions, an ld_imm64 of TPSTAT_IDX_MARK | index (index 0 as
 * compiled), on every kernel.
 */
#define TPSTAT_IDX_MARK		0x7470737400000000ULL	/* "tpst" in the high word */
/*
 * The counters are sized at load for the tracepoints counted: entry
 * (plane * TPSTAT_NR_SLOTS + slot) * stride + index of the counts map, where stride is
 * their number rounded up to TPSTAT_LINE, so that no two slots share a cache line.
 */
#define TPSTAT_LINE		8	/* counters in a cache line */
#define TPSTAT_PLANE_COUNT	0	/* the events counted */
#define TPSTAT_PLANE_FILTERED	1	/* --filter: rejected (planes 1 and 2 only with --filter) */
#define TPSTAT_PLANE_FILTER_ERRORS	2	/* --filter: reads that failed */
/* Count slots, one per CPU below TPSTAT_SLOTS. */
#define TPSTAT_SLOTS		256
/* Slots shared by the CPUs above (still exact: the adds are atomic). */
#define TPSTAT_SHARED_SLOTS	64
#define TPSTAT_NR_SLOTS		(TPSTAT_SLOTS + TPSTAT_SHARED_SLOTS)
/*
 * CPUs the hit set can name: 8192 is the largest NR_CPUS of x86_64 (MAXSMP), so every
 * CPU such a kernel can report. A CPU beyond sets cpus_beyond instead of a bit.
 */
#define TPSTAT_MAX_CPUS		8192
#define TPSTAT_CPU_WORDS	(TPSTAT_MAX_CPUS / 64)
/* Processes (or threads) a filter can follow at once: -p, -t, and CMD's tree. */
#define TPSTAT_MAX_TASKS	16384

/* What counts (the targets of perf stat): set in .rodata before load. */
enum tpstat_filter {
	TPSTAT_FILTER_NONE,	/* system wide */
	TPSTAT_FILTER_TGID,	/* the processes in targets (-p, -- CMD with its forks) */
	TPSTAT_FILTER_TID,	/* the threads in targets (-t) */
	TPSTAT_FILTER_CGROUP,	/* tasks in target_cgroup's subtree (-G) */
};

/*
 * Each CPU adds to its own slot, so counting scales with CPUs instead of
 * bouncing one cache line; user space folds the slots. The adds are plain
 * where the kernel refuses a program's nested run on a CPU (one program, one
 * CPU, one writer: bpf/tpstat_update.h) and atomic otherwise; CPUs >=
 * TPSTAT_SLOTS share the last TPSTAT_SHARED_SLOTS slots, always atomically.
 */

/* Per tracepoint (the tp_cpus map), written rarely: only the first time a CPU sees it. */
struct tpstat_tp {
	__u64 cpus[TPSTAT_CPU_WORDS];	/* set of CPUs that hit it (fetch-or) */
	__u64 ncpus;			/* bits in cpus, from fetch-or's old value */
	__u64 first_cpu;		/* first CPU to hit it, plus one (cmpxchg) */
	__u64 first_ns;			/* bpf_ktime_get_ns() of that first hit */
	__u64 cpus_beyond;		/* 1: a CPU >= TPSTAT_MAX_CPUS hit it too */
} __attribute__((aligned(64)));

/*
 * --hist TP:EXPR: a field of the tracepoint's arguments (src/tpfield.c compiles EXPR into
 * the reads below) in a log2 histogram. Bucket 0 holds 0, bucket k in 1..64 holds
 * [2^(k-1), 2^k - 1], bucket 64 + k the negative values of magnitude in that range.
 * --lhist TP:EXPR:MIN:MAX:STEP: bucket 0 holds what is below MIN, bucket k in 1..n
 * [MIN + (k-1) STEP, MIN + k STEP - 1], bucket n + 1 what is MAX or more (n <= 127).
 */
#define TPSTAT_MAX_HIST		8
#define TPSTAT_FIELD_STEPS	8
#define TPSTAT_HIST_BUCKETS	129
/* The array is a power of two, so that the program can mask the index the verifier checks. */
#define TPSTAT_HIST_SLOTS	256
#define TPSTAT_LHIST_MAX	(TPSTAT_HIST_BUCKETS - 2)	/* linear buckets between the two ends */
/* Attempts of the cmpxchg loops for min and max before the update is counted as lost. */
#define TPSTAT_MINMAX_TRIES	16

/* Set in .rodata before load: which tracepoint, which argument, what to read. */
struct tpstat_field {
	__u32 tp;		/* the tracepoint's index: tpstat_<tp> records it */
	__u32 arg;		/* ctx[arg] */
	__u32 nsteps;		/* memory reads, 0: the argument is the value */
	__u32 size;		/* bytes of the integer */
	__u32 is_signed;
	__u32 bit_off, bit_size;	/* a bitfield within the last read; bit_size 0: none */
	__u32 linear;		/* --lhist: buckets of lstep from lmin to lmax, not log2 */
	__s64 lmin, lmax;	/* bucket 0 holds what is below lmin, the last what is >= lmax */
	__u64 lstep;
	struct {
		__u32 off;	/* bytes past the value in hand */
		__u32 size;	/* bytes read (8 for a pointer followed) */
	} steps[TPSTAT_FIELD_STEPS];
};

/*
 * One per CPU (hist_cpu), .bss beyond, and per --latency: plain updates on a CPU's own copy
 * where the kernel allows (bpf/tpstat_update.h), else BPF_ADD per bucket and sum, cmpxchg
 * for min/max.
 */
struct tpstat_hist {
	__u64 samples;		/* values recorded: with errors, every counted event */
	__u64 errors;		/* events whose reads failed (bpf_probe_read_kernel) */
	__u64 sum;		/* two's complement: signed values add up right */
	__u64 min, max;		/* signed or unsigned as the field is; set up by user space */
	__u64 minmax_lost;	/* min/max updates given up after TPSTAT_MINMAX_TRIES */
	/*
	 * The high word of a 128-bit two's complement sum (sum the low one): a u64 sum wraps
	 * after 2^64 / 2^32 = 4 billion values of 2^32, so a long count of large values needs
	 * it. Changed only on a carry out of sum or by a negative value that does not carry.
	 */
	__u64 sum_hi;
	__u64 buckets[TPSTAT_HIST_SLOTS];	/* the first TPSTAT_HIST_BUCKETS used */
} __attribute__((aligned(64)));

/*
 * --filter TP:'EXPR OP VALUE': which of a tracepoint's events count (bpf/tpfilter_eval.h has
 * the comparison). Filters of one tracepoint are ANDed in the order given; the first that
 * rejects the event, or whose read fails, decides. A rejected event is counted as filtered,
 * one whose read failed as a filter error, each in its CPU's slot of filtered[] or
 * filter_errors[] like the count: count + filtered + filter_errors + missed = hits.
 */
#define TPSTAT_MAX_FILTER	16

/* Set in .rodata before load; field.tp is the tracepoint, field the EXPR of TPFILTER_KEY_EXPR. */
struct tpstat_filter_spec {
	__u32 key;		/* enum tpfilter_key */
	__u32 op;		/* enum tpfilter_op */
	__u32 is_signed;
	__u32 pad;
	__u64 value;
	__u64 comm[2];		/* TPFILTER_KEY_COMM: the name, NUL-padded */
	struct tpstat_field field;
};

/*
 * --latency 'START:KEY,END:KEY': the time from START to END of the same key, in a log2
 * histogram of ns; bpf/tpstat_latency.h has the accounting. The open STARTs of a cpu,cpu
 * latency are in one word per CPU (lat_cpu), the others' in a table of TPSTAT_LAT_ENTRIES
 * per latency (lat_table): TPSTAT_LAT_BUCKETS buckets of TPSTAT_LAT_WAYS ways.
 */
#define TPSTAT_MAX_LAT		4
#define TPSTAT_LAT_ENTRIES	10240
#define TPSTAT_LAT_WAYS		4
#define TPSTAT_LAT_BUCKETS	(TPSTAT_LAT_ENTRIES / TPSTAT_LAT_WAYS)

/* A key of --latency: the kernel's (cpu, pid, cgroup: enum tpfilter_key) or a field. */
struct tpstat_lat_side {
	__u32 key;		/* enum tpfilter_key, never TPFILTER_KEY_COMM */
	__u32 pad;
	struct tpstat_field field;	/* field.tp: the tracepoint */
};

/* Set in .rodata before load. */
struct tpstat_lat_spec {
	struct tpstat_lat_side start, end;
	struct tpstat_field bounds;	/* linear: --lhist-style buckets of ns; else log2 */
};

/*
 * A START's time in its home (bpf/tpstat_latency.h): TPSTAT_LAT_EMPTY when there is none,
 * TPSTAT_LAT_BUSY while a START writes a table way's key; any other value is an open
 * START's TPSTAT_NOW().
 */
#define TPSTAT_LAT_EMPTY	0
#define TPSTAT_LAT_BUSY		1

/* The cpu,cpu home: per CPU (lat_cpu's entry), the open START's time of each latency. */
struct tpstat_lat_cpu {
	__u64 ns[TPSTAT_MAX_LAT];
} __attribute__((aligned(64)));

/* A bucket of the table (lat_table's entry l * TPSTAT_LAT_BUCKETS + bucket): one line. */
struct tpstat_lat_bucket {
	__u64 ns[TPSTAT_LAT_WAYS];	/* the ways' times */
	__u64 key[TPSTAT_LAT_WAYS];	/* their keys: meaningful under a START's time */
} __attribute__((aligned(64)));

/* Does --latency keyed @start_key,@end_key (enum tpfilter_key) live in lat_cpu? */
#define TPSTAT_LAT_CPU_HOME(start_key, end_key) \
	((start_key) == TPFILTER_KEY_CPU && (end_key) == TPFILTER_KEY_CPU)

/* In .bss, per --latency: what is not a sample or an open entry. */
struct tpstat_lat_stats {
	__u64 replaced;		/* STARTs whose key was open already */
	__u64 dropped;		/* STARTs that found no room: their bucket is full */
	__u64 no_start;		/* ENDs with no open START for their key */
	__u64 start_errors;	/* STARTs whose KEY could not be read */
	__u64 end_errors;	/* ENDs whose KEY could not be read */
	__u64 start_busy;	/* STARTs whose way changed under them at every try */
	__u64 end_busy;		/* ENDs whose key's way changed under them at every try */
};

/*
 * --by TP:KEY[,KEY...] [--value EXPR]: counts per key (a tuple of up to TPSTAT_BY_KEYS keys)
 * in a hash map, with the sum, min and max of EXPR per key when --value is given. An event
 * whose key finds no slot (the map is full, or its bucket is busy in a nested run) is
 * counted as dropped, one whose key or value reads fail as an error: entries + dropped +
 * errors = the tracepoint's count.
 */
#define TPSTAT_MAX_BY		8
#define TPSTAT_BY_ENTRIES	10240
#define TPSTAT_BY_KEYS		4
#define TPSTAT_KEY_WORDS	(2 * TPSTAT_BY_KEYS)	/* two per key: a comm takes 16 bytes */

enum tpstat_key_kind {
	TPSTAT_KEY_CPU,		/* the CPU the event fired on */
	TPSTAT_KEY_PID,		/* the current process (tgid) */
	TPSTAT_KEY_COMM,	/* the current task's comm */
	TPSTAT_KEY_CGROUP,	/* the current task's cgroup v2 id */
	TPSTAT_KEY_EXPR,	/* a field of the arguments, as --hist reads one */
	TPSTAT_KEY_KSTACK,	/* the kernel stack (bpf/tpstat_stack.h): not in k[] */
	TPSTAT_KEY_USTACK,	/* the user stack, frames by build id: not in k[] */
};

/* Set in .rodata before load: key i is kind[i], of field[i] for TPSTAT_KEY_EXPR. */
struct tpstat_by {
	__u32 tp;		/* the tracepoint */
	__u32 nkeys;
	__u32 kind[TPSTAT_BY_KEYS];
	__u32 value;		/* --value: vfield's sum, min and max per key */
	__u16 kdepth, udepth;	/* kstack:N, ustack:N frames (bpf/tpstat_stack.h); 0: none */
	struct tpstat_field field[TPSTAT_BY_KEYS];
	struct tpstat_field vfield;
};

struct tpstat_key {
	__u32 by;		/* which --by */
	__u32 pad;
	__u64 k[TPSTAT_KEY_WORDS];	/* key i in k[2i] (a comm in k[2i] and k[2i + 1]) */
};

/*
 * Per key: the count, and with --value the sum, min and max. The sum is 128-bit two's
 * complement as --hist's (sum the low word, sum_hi the high one): 2 million values of 1e13
 * are past 2^64 already.
 */
struct tpstat_by_val {
	__u64 count;
	__u64 sum;
	__u64 min, max;
	__u64 sum_hi;
};

/* In .bss, per --by. */
struct tpstat_by_stats {
	__u64 dropped;
	__u64 errors;
	__u64 minmax_lost;	/* --value min/max updates given up after TPSTAT_MINMAX_TRIES */
};

/*
 * --by TP:kstack[:N], TP:ustack[:N], alone or in a tuple: the tuple's other keys and the
 * stacks are one key of the stack_counts hash (bpf/tpstat_stack.h), laid out as below and
 * sized at load for the deepest stack asked. A stack deeper than N, a stack that finds no
 * slot, a user stack of a task with none (a kernel thread) and a stack the kernel failed
 * to give are counted apart (struct tpstat_stack_stats): entries + those + the --by's
 * key errors = the tracepoint's count.
 */
#define TPSTAT_STACK_MAX	126	/* frames: N+1 are asked, below perf_event_max_stack */
#define TPSTAT_STACK_DEFAULT	TPSTAT_STACK_MAX
#define TPSTAT_STACK_ENTRIES	10240
#define TPSTAT_KFRAME		8	/* a kernel frame: its address */
#define TPSTAT_UFRAME		32	/* a user frame: struct bpf_stack_build_id */

/* The key's head; then (kdepth + 1) kernel frames, then (udepth + 1) user frames. */
struct tpstat_stack_key {
	__u32 by;		/* which --by */
	__u32 tgid;		/* with a user stack: the process (frames the kernel gave as IPs) */
	__u64 k[TPSTAT_KEY_WORDS];	/* the tuple's other keys, as struct tpstat_key's */
};

/* Bytes of kernel and user frames of a --by (one frame more than asked: a deeper stack). */
#define TPSTAT_KSTACK_BYTES(kd)	((kd) ? ((kd) + 1) * TPSTAT_KFRAME : 0)
#define TPSTAT_USTACK_BYTES(ud)	((ud) ? ((ud) + 1) * TPSTAT_UFRAME : 0)
#define TPSTAT_STACK_KEY_BYTES(kd, ud) \
	(sizeof(struct tpstat_stack_key) + TPSTAT_KSTACK_BYTES(kd) + TPSTAT_USTACK_BYTES(ud))
#define TPSTAT_STACK_KEY_MAX	TPSTAT_STACK_KEY_BYTES(TPSTAT_STACK_MAX, TPSTAT_STACK_MAX)

/* In .bss, per --by: the events with a stack key that found no entry, and why. */
struct tpstat_stack_stats {
	__u64 truncated;	/* a stack deeper than N */
	__u64 map_full;		/* no slot for a new stack (or its bucket busy in a nested run) */
	__u64 no_ustack;	/* a task with no user memory: a kernel thread, or one exiting */
	__u64 read_error;	/* bpf_get_stack() failed */
};

/*
 * With a user stack key, the files processes exec while tpstat runs (bpf/tpstat_exec.h), so
 * that the frames of a process that exited before user space saw it still find their file
 * by build id: the exec_files hash, keyed by the file's dentry (an exec of the same file
 * again finds its entry), holds its path as the dentries' names leaf first, up to
 * TPSTAT_EXEC_DEPTH of them of TPSTAT_EXEC_NAME bytes each; user space reads and deletes
 * the entries at every report. A path deeper or a name longer is marked cut (not used);
 * a file that found no room is counted in exec_lost.
 */
#define TPSTAT_EXEC_DEPTH	16
#define TPSTAT_EXEC_NAME	64
#define TPSTAT_EXEC_FILES	1024

struct tpstat_exec_path {
	__u32 n;		/* names in name[] */
	__u32 cut;		/* the path did not fit: not usable */
	char name[TPSTAT_EXEC_DEPTH][TPSTAT_EXEC_NAME];
};

#endif /* __BAREATOM_TPSTAT_ABI_H */
