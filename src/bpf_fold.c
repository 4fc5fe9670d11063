// SPDX-License-Identifier: GPL-2.0
/* Frozen .rodata loads as immediates (bpf_fold.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "src/bpf_fold.h"

static bool is_ld_imm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* Mark every instruction a jump, a call or a function address can land on. */
static bool *jump_targets(const struct bpf_insn *insns, size_t cnt)
{
	bool *t = calloc(cnt + 1, sizeof(*t));

	if (!t)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		long to = -1;

		if (is_ld_imm64(in)) {
			if (in->src_reg == BPF_PSEUDO_FUNC)
				to = (long)i + in->imm + 1;
			i++;
		} else if (cls == BPF_JMP || cls == BPF_JMP32) {
			if (op == BPF_CALL)
				to = in->src_reg == BPF_PSEUDO_CALL ? (long)i + in->imm + 1 : -1;
			else if (op != BPF_EXIT)
				to = (long)i + in->off + 1;
		}
		if (to >= 0 && (size_t)to <= cnt)
			t[to] = true;
	}
	return t;
}

static const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };

/* The size in bytes of load @in. */
static unsigned int load_bytes(const struct bpf_insn *in)
{
	switch (BPF_SIZE(in->code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

static bool is_load(const struct bpf_insn *in)
{
	return in->code == (BPF_LDX | BPF_MEM | BPF_SIZE(in->code));
}

/* The value load @mem reads at @base + its offset, into *@v: false beyond the data. */
static bool read_value(const struct bpf_insn *mem, __u64 base, const void *data, size_t size,
		       __u64 *v)
{
	unsigned int bytes = load_bytes(mem);
	__u64 off = base + (__u64)(__s64)mem->off;

	if ((__s64)off < 0 || off + bytes > size)
		return false;
	*v = 0;
	memcpy(v, (const char *)data + off, bytes);	/* little-endian, as BPF on x86 */
	return true;
}

/* A move of @v into @dst in one slot (mov32 for loads of up to 32 bits): false when none fits. */
static bool mov_of(const struct bpf_insn *mem, __u64 v, struct bpf_insn *out)
{
	bool wide = load_bytes(mem) == 8;

	if (wide && (__u64)(__s64)(__s32)v != v)
		return false;
	*out = (struct bpf_insn){ .code = (wide ? BPF_ALU64 : BPF_ALU) | BPF_MOV | BPF_K,
				  .dst_reg = mem->dst_reg, .imm = (__s32)(__u32)v };
	return true;
}

/* Does @in write register @r (a call: r0-r5; an atomic with fetch: its src, cmpxchg r0)? */
static bool writes(const struct bpf_insn *in, int r)
{
	__u8 cls = BPF_CLASS(in->code);

	if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LD || cls == BPF_LDX)
		return in->dst_reg == r;
	if (cls == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC)
		return in->src_reg == r || r == BPF_REG_0;
	if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(in->code) == BPF_CALL)
		return r <= BPF_REG_5;
	return false;
}

/* Does @in end the straight line (control goes elsewhere, or may)? */
static bool ends_line(const struct bpf_insn *in)
{
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	/* A conditional jump's fall-through keeps every register: only JA and EXIT end it. */
	return (cls == BPF_JMP || cls == BPF_JMP32) && (op == BPF_JA || op == BPF_EXIT);
}

/*
 * Fold the loads through register @r, which holds .rodata + @base from the ld_imm64 at @at,
 * on the straight line that follows it: until a jump lands there (another path may bring
 * another @r), the line ends, or @r is written. The ld_imm64 stays (@r may be used otherwise).
 */
static int fold_line(struct bpf_insn *insns, size_t cnt, const bool *target, size_t at, int r,
		     __u64 base, const void *data, size_t size)
{
	int folded = 0;

	for (size_t j = at + 2; j < cnt && !target[j]; j++) {
		struct bpf_insn *in = &insns[j], mov;
		__u64 v;

		if (is_load(in) && in->src_reg == r && read_value(in, base, data, size, &v) &&
		    mov_of(in, v, &mov)) {
			*in = mov;
			folded++;
		}
		if (writes(in, r) || ends_line(in))
			break;
		if (is_ld_imm64(in))
			j++;
	}
	return folded;
}

int bpf_fold_rodata(struct bpf_insn *insns, size_t cnt, int map_fd, const void *data, size_t size)
{
	bool *target;
	int folded = 0;

	for (size_t i = 0; i < cnt; i++) {
		if (!is_ld_imm64(&insns[i]))
			continue;
		if (i + 1 >= cnt)
			return -1;
		i++;
	}
	target = jump_targets(insns, cnt);
	if (!target)
		return 0;	/* out of memory: nothing folded, the program is as it was */
	for (size_t i = 0; i + 2 < cnt; i++) {
		struct bpf_insn *ld = &insns[i], *mem = &insns[i + 2];
		__u64 v, base;

		if (!is_ld_imm64(ld))
			continue;
		if (ld->src_reg != BPF_PSEUDO_MAP_VALUE || ld->imm != map_fd) {
			i++;
			continue;
		}
		base = (__u32)ld[1].imm;
		/*
		 * The ld_imm64 and a load through it into the same register, nothing between:
		 * the address is dead at once, and the pair becomes one move.
		 */
		if (is_load(mem) && mem->src_reg == ld->dst_reg && mem->dst_reg == ld->dst_reg &&
		    !target[i + 2] && read_value(mem, base, data, size, &v)) {
			if (load_bytes(mem) < 8 || (__u64)(__s64)(__s32)v == v) {
				mov_of(mem, v, ld);
				ld[1] = nop;
			} else {
				ld->src_reg = 0;
				ld->imm = (__s32)(__u32)v;
				ld[1].imm = (__s32)(__u32)(v >> 32);
			}
			*mem = nop;
			folded++;
			i += 2;
			continue;
		}
		folded += fold_line(insns, cnt, target, i, ld->dst_reg, base, data, size);
		i++;
	}
	free(target);
	return folded;
}
