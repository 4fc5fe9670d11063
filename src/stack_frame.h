/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a stack frame's name looks like, for the kernel's symbols (stack_ksym.h) and user
 * space's (stack_usym.h) alike:
 *	func+0x1a		STACK_NAME_OFFSET asked for (the table, -j)
 *	func			without it (folded stacks and the flame graph, where frames of
 *				one function merge)
 *	func+0x1a [tpgen]	a kernel module's function (the module shown in both forms)
 *	inner (inlined)		a function inlined at that place, a line of its own above the
 *				function it was inlined into
 *	prog+0x1139		a frame no symbol names: its file (or [kernel], [unknown]) and
 *				the offset in it, never a bare hex number
 */
#ifndef __BAREATOM_STACK_FRAME_H
#define __BAREATOM_STACK_FRAME_H

/* Longer names are cut (C++ templates can run to kilobytes). */
#define STACK_NAME_LEN 256

enum stack_name_flags {
	STACK_NAME_OFFSET = 1 << 0,	/* "+0x1a" after the function */
	/*
	 * The address is a return address (every user frame of a stack taken in the kernel):
	 * look up the byte before it, which lies in the call, so that a call that ends a
	 * function or an inlined block is named for where it is, not for what follows.
	 */
	STACK_NAME_RETADDR = 1 << 1,
};

#define STACK_INLINED " (inlined)"

#endif /* __BAREATOM_STACK_FRAME_H */
