/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flame graph viewer, built into the binary so that --flamegraph writes one
 * self-contained page with no file to find at run time: d3 and d3-flame-graph as
 * images/flamegraph-viewer put them in BUILD/viewer/ (on the assembler's include path),
 * each a NUL-terminated string. Their versions and licenses: images/debian/copyright.
 */
#define VIEWER_FILE(sym, file)		\
	.globl sym;			\
	.type sym, @object;		\
sym:					\
	.incbin file;			\
	.byte 0;			\
	.size sym, . - sym

	.section .rodata
VIEWER_FILE(stack_viewer_d3, "d3.min.js")
VIEWER_FILE(stack_viewer_flamegraph, "d3-flamegraph.umd.min.js")
VIEWER_FILE(stack_viewer_css, "d3-flamegraph.css")

	.section .note.GNU-stack, "", @progbits
