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
		__u64 v = 0, off;
		unsigned int bytes;

		if (!is_ld_imm64(ld))
			continue;
		if (ld->src_reg != BPF_PSEUDO_MAP_VALUE || ld->imm != map_fd ||
		    mem->code != (BPF_LDX | BPF_MEM | BPF_SIZE(mem->code)) ||
		    mem->src_reg != ld->dst_reg || mem->dst_reg != ld->dst_reg || target[i + 2]) {
			i++;
			continue;
		}
		bytes = BPF_SIZE(mem->code) == BPF_B ? 1 : BPF_SIZE(mem->code) == BPF_H ? 2 :
			BPF_SIZE(mem->code) == BPF_W ? 4 : 8;
		off = (__u64)(__u32)ld[1].imm + (__u64)(__s64)mem->off;
		if ((__s64)off < 0 || off + bytes > size) {
			i++;
			continue;
		}
		memcpy(&v, (const char *)data + off, bytes);	/* little-endian, as BPF on x86 */
		if (bytes < 8 || (__u64)(__s64)(__s32)v == v) {
			*ld = (struct bpf_insn){ .code = (bytes < 8 ? BPF_ALU : BPF_ALU64) | BPF_MOV | BPF_K,
						 .dst_reg = mem->dst_reg, .imm = (__s32)(__u32)v };
			ld[1] = nop;
		} else {
			ld->src_reg = 0;
			ld->imm = (__s32)(__u32)v;
			ld[1].imm = (__s32)(__u32)(v >> 32);
		}
		*mem = nop;
		folded++;
		i += 2;
	}
	free(target);
	return folded;
}
