/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frozen .rodata loads as immediates, before a program is loaded.
 *
 * The verifier knows the value of a load from a frozen map at a constant offset and drops the
 * branches it decides, but it keeps the load itself, and whatever clang computed from it:
 * every run of tpstat's programs still read each spec word it tests (filter, nfilter, nhist,
 * a field's width, the plain flag...). bpf_fold_rodata() rewrites the pattern clang emits
 * for such a read,
 *
 *	rX = map_value(.rodata) + OFF ll	(ld_imm64, two slots)
 *	rX = *(uN *)(rX + DISP)
 *
 * into a move of the value (mov32 for N <= 32, which zero-extends as the load does; mov64 of
 * a value that sign-extends from 32 bits; else an ld_imm64 of it) and `ja +0` in the slots
 * left over, which the verifier deletes (opt_remove_nops(), for a bpf_capable loader) and the
 * JIT would skip anyway. The instruction count does not change, so jumps, BTF func and
 * line info stay valid. Only that exact shape is folded: the address register must be the
 * loaded one (so nothing else can use the address later), the load must not be a jump
 * target (reached with another address), and the bytes must lie inside the map's value.
 */
#ifndef __BAREATOM_BPF_FOLD_H
#define __BAREATOM_BPF_FOLD_H

#include <stddef.h>
#include <linux/bpf.h>

/*
 * Fold @insns' loads from the map of fd @map_fd, whose value is @size bytes at @data (the
 * frozen contents, as the kernel has them). Returns the number of loads folded, or -1 when
 * @insns is malformed (an ld_imm64 cut off at the end).
 */
int bpf_fold_rodata(struct bpf_insn *insns, size_t cnt, int map_fd, const void *data, size_t size);

#endif /* __BAREATOM_BPF_FOLD_H */
