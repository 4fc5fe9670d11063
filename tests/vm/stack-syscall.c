// SPDX-License-Identifier: GPL-2.0
/*
 * The program whose user frames tests/vm/tpstat-stacks.t names after it has exited. The
 * Makefile builds it PIE with frame pointers, strips it and keeps its symbols and DWARF in
 * stack-syscall.debug beside it (.gnu_debuglink), so every name comes from there.
 *
 * main -> outer -> middle -> inner (always inlined into middle), which makes the system
 * call sched_yield (24) itself, with the syscall instruction: no libc wrapper, whose code
 * keeps no frame pointer, stands between the kernel's user stack and middle. It yields
 * argv[1] times (default 5), each an event of sys_enter with id 24, and exits; with a
 * second argument, only after it has read a byte from stdin.
 * noipa keeps outer and middle real functions; a value used after each call keeps the
 * calls from becoming jumps, and middle's call to plus keeps its frame pointer (GCC gives
 * a function that calls nothing none, -mno-omit-leaf-frame-pointer or not).
 */
#include <stdlib.h>
#include <unistd.h>

static inline __attribute__((always_inline)) long inner(long nr)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(nr) : "rcx", "r11", "memory");
	return ret;
}

/* A call after the system call: middle is no leaf, so it keeps a frame pointer. */
__attribute__((noipa)) long plus(long a, long b)
{
	return a + b;
}

__attribute__((noipa)) long middle(long n)
{
	return plus(inner(24), n);
}

__attribute__((noipa)) long outer(long n)
{
	long r = 0;

	for (long i = 0; i < n; i++)
		r += middle(i);
	return r + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5;
	char c;

	/* "stack-syscall N wait": first a byte from stdin, for a test that starts it early. */
	if (argc > 2 && read(0, &c, 1) != 1)
		return 2;

	return outer(n) == n * (n - 1) / 2 + 1 ? 0 : 1;
}
