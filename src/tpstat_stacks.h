/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's stack keys (--by TP:kstack[:N], TP:ustack[:N], in a tuple or alone): the
 * stack_counts table (bpf/tpstat_stack.h) read, its frames named and its entries made
 * into the rows the table and -j print (struct tpstat_stack_row, tpstat_fmt.h), the
 * --folded file and the --flamegraph page.
 *
 * Naming is done once, for the final report: /proc/kallsyms read once, one Dwfl per build
 * id and per process (stack_usym.h), every frame's name cached for the run. Intervals and
 * scrapes show the --by's accounting, never stacks: their cost is the report's alone.
 *
 * Names that survive the process: user frames come by build id and offset, so what is
 * needed of an exited process is a file with that build id. tpstat notes itself at start
 * (libc, ld.so), CMD's file, every file mapped executable by a process when it attaches
 * (unless it counts CMD's tree alone, which starts after) and, at each read, the files
 * exec'd since then (bpf/tpstat_exec.h) and the live processes of the stacks counted so
 * far; the kernel's debug directories follow (stack_usym.h).
 *
 * Entries that name the same (the table's names have the offset in the function; the files'
 * do not, so that a function's frames merge) are merged, their counts added: a user stack
 * keeps its process's tgid in the key only for frames the kernel gave as raw addresses.
 * The leaf kernel frames of the tracepoint's machinery (bpf_trace_run*, __bpf_trace_*,
 * [bpf], a module's __traceiter_*) are left out: they are tpstat's, not the caller's.
 */
#ifndef __BAREATOM_TPSTAT_STACKS_H
#define __BAREATOM_TPSTAT_STACKS_H

#include <stdbool.h>
#include "src/tpstat_fmt.h"
#include "src/tpstat_snap.h"
#include "src/tpstat_specs.h"

struct ksym_table;
struct usym;
struct tpstat_bpf;

/* One stack --by's entries named for the files (no offsets). */
struct tpstat_stack_plain {
	struct stack_entry *e;
	size_t n;
};

struct tpstat_stacks {
	const struct tpstat_specs *specs;
	struct tpstat_bpf *skel;
	bool any;				/* a --by has a stack key */
	bool user;				/* ... a user stack: execs are noted */
	struct bpf_link *exec_link;		/* tpstat_exec (bpf/tpstat_exec.h) */
	bool files;				/* --folded or --flamegraph: plain[] named */
	struct ksym_table *ksyms;		/* read on first use */
	struct usym *usym;
	struct tpstat_stack_row rows[TPSTAT_MAX_BY];	/* with offsets: table, -j */
	struct tpstat_stack_plain plain[TPSTAT_MAX_BY];	/* without: --folded, --flamegraph */
};

/*
 * Before load (the skeleton is open); @files: --folded or --flamegraph will be written, so
 * the stacks are also named without offsets. 0, or 1 after one line on stderr.
 */
int tpstat_stacks_open(struct tpstat_stacks *st, const struct tpstat_specs *sp,
		       struct tpstat_bpf *skel, bool files);
void tpstat_stacks_close(struct tpstat_stacks *st);

/* The command tpstat runs, by its file: its frames name after it exits. */
void tpstat_stacks_command(struct tpstat_stacks *st, const char *file);

/*
 * After load, with a user stack key: attach tpstat_exec, which notes the file of every
 * exec from now on (bpf/tpstat_exec.h), and with @running (the target can be a process
 * that runs already: not CMD's tree alone) note the files every process maps now. 0, or 1
 * after one line on stderr.
 */
int tpstat_stacks_attach(struct tpstat_stacks *st, bool running);

/*
 * Note the files exec'd since the last call and the live processes of the stacks counted
 * so far (cheap: each file and each process once).
 */
void tpstat_stacks_note(struct tpstat_stacks *st);

/*
 * The final report's stacks: read, named, merged, and set in @snap's --by reads (which the
 * view hands the outputs). Call after tpstat_read_counts() of the final read.
 */
void tpstat_stacks_final(struct tpstat_stacks *st, struct tpstat_snap *snap);

/*
 * --folded FILE and --flamegraph FILE of every stack --by (after tpstat_stacks_final()):
 * with several, each --by's stacks under a root frame "TRACEPOINT:KEY" as given (with one,
 * none: its lines start with its own frames). 0, or 1 after one line on stderr.
 */
int tpstat_stacks_files(const struct tpstat_stacks *st, const char *folded,
			const char *flamegraph);

#endif /* __BAREATOM_TPSTAT_STACKS_H */
