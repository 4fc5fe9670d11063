// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-fold: loads from a frozen .rodata made immediates before load (src/bpf_fold.c), on
 * instruction sequences as clang emits them; every case the rewrite must leave alone. The
 * result is also run through a small interpreter of the instructions involved, so a fold is
 * judged by the value it leaves in the register, not only by its shape. TAP output.
 */
#include <stdio.h>
#include <string.h>
#include "src/bpf_fold.h"
#include "tests/unit/test.h"

#define FD 7
#define LD_RODATA(dst, off)							\
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = dst, .src_reg = BPF_PSEUDO_MAP_VALUE,	\
	  .imm = FD }, { .imm = off }
#define LDX(sz, dst, src, disp)							\
	{ .code = BPF_LDX | BPF_MEM | sz, .dst_reg = dst, .src_reg = src, .off = disp }
#define EXIT { .code = BPF_JMP | BPF_EXIT }
#define NOP { .code = BPF_JMP | BPF_JA }

static unsigned char rodata[64];

/* r@reg after running @p (mov, ld_imm64, ldx from .rodata, ja; nothing else is needed). */
static __u64 run(const struct bpf_insn *p, size_t cnt, int reg)
{
	__u64 r[11] = { 0 };
	const unsigned char *addr[11] = { 0 };

	for (size_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &p[i];

		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
				addr[in->dst_reg] = rodata + (__u32)p[i + 1].imm;
			else
				r[in->dst_reg] = (__u32)in->imm | (__u64)(__u32)p[i + 1].imm << 32;
			i++;
		} else if (in->code == (BPF_ALU | BPF_MOV | BPF_K)) {
			r[in->dst_reg] = (__u32)in->imm;
		} else if (in->code == (BPF_ALU64 | BPF_MOV | BPF_K)) {
			r[in->dst_reg] = (__u64)(__s64)in->imm;
		} else if (BPF_CLASS(in->code) == BPF_LDX) {
			int n = BPF_SIZE(in->code) == BPF_B ? 1 : BPF_SIZE(in->code) == BPF_H ? 2 :
				BPF_SIZE(in->code) == BPF_W ? 4 : 8;
			__u64 v = 0;

			if (addr[in->src_reg])	/* (a jump past the ld_imm64 reads nothing) */
				memcpy(&v, addr[in->src_reg] + in->off, n);
			r[in->dst_reg] = v;
		} else if (in->code == (BPF_JMP | BPF_JA)) {
			i += in->off;
		} else if (in->code == (BPF_JMP | BPF_EXIT)) {
			break;
		}
	}
	return r[reg];
}

/* Fold @p (@cnt), expect @n folds and r@reg to hold @want before and after. */
static void check(struct bpf_insn *p, size_t cnt, int n, int reg, __u64 want, const char *what)
{
	char name[160];
	__u64 before = run(p, cnt, reg);

	snprintf(name, sizeof(name), "%s: %d folded", what, n);
	ASSERT_EQ(bpf_fold_rodata(p, cnt, FD, rodata, sizeof(rodata)), n, name);
	snprintf(name, sizeof(name), "%s: the value before", what);
	ASSERT_EQ_U64(before, want, name);
	snprintf(name, sizeof(name), "%s: the same value after", what);
	ASSERT_EQ_U64(run(p, cnt, reg), want, name);
}

int main(void)
{
	__u32 w = 0x80000001;
	__u64 small = 1040, big = 0x7470737400000123ULL, neg = (__u64)-2;

	for (size_t i = 0; i < sizeof(rodata); i++)
		rodata[i] = (unsigned char)(0xa0 + i);
	memcpy(rodata + 4, &w, 4);
	memcpy(rodata + 8, &small, 8);
	memcpy(rodata + 16, &big, 8);
	memcpy(rodata + 24, &neg, 8);

	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), LDX(BPF_W, 1, 1, 4), EXIT };

		check(p, 4, 1, 1, 0x80000001, "u32 with the top bit set");
		ASSERT_EQ(p[0].code, BPF_ALU | BPF_MOV | BPF_K, "u32: a mov32");
		ASSERT_TRUE(!memcmp(&p[1], &(struct bpf_insn)NOP, sizeof(p[1])) &&
			    !memcmp(&p[2], &(struct bpf_insn)NOP, sizeof(p[2])),
			    "u32: two `ja +0` in the slots left over");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(2, 8), LDX(BPF_DW, 2, 2, 0), EXIT };

		check(p, 4, 1, 2, 1040, "u64 that fits in 32 bits");
		ASSERT_EQ(p[0].code, BPF_ALU64 | BPF_MOV | BPF_K, "small u64: a mov64");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(3, 16), LDX(BPF_DW, 3, 3, 0), EXIT };

		check(p, 4, 1, 3, big, "u64 beyond 32 bits");
		ASSERT_TRUE(p[0].code == (BPF_LD | BPF_IMM | BPF_DW) && p[0].src_reg == 0,
			    "big u64: an ld_imm64 of the value, not of the map");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(4, 20), LDX(BPF_DW, 4, 4, 4), EXIT };

		check(p, 4, 1, 4, neg, "negative u64 (-2), offset in the load");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(5, 1), LDX(BPF_B, 5, 5, 0), LD_RODATA(6, 2),
					LDX(BPF_H, 6, 6, 0), EXIT };

		check(p, 7, 2, 5, 0xa1, "u8 and u16: both");
		ASSERT_EQ_U64(run(p, 7, 6), 0xa3a2, "u16: its value");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), LDX(BPF_W, 2, 1, 4), EXIT };

		check(p, 4, 1, 2, 0x80000001, "another destination");
		ASSERT_TRUE(p[0].code == (BPF_LD | BPF_IMM | BPF_DW) && p[0].src_reg == BPF_PSEUDO_MAP_VALUE,
			    "another destination: the address stays (it may be used later)");
	}
	{
		/* clang's shape for a struct of .rodata: one address, several loads through it. */
		struct bpf_insn p[] = { LD_RODATA(6, 0), LDX(BPF_W, 1, 6, 4), LDX(BPF_DW, 2, 6, 8),
					LDX(BPF_DW, 3, 6, 16), LDX(BPF_DW, 6, 6, 24), LDX(BPF_W, 4, 6, 0),
					EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 8, FD, rodata, sizeof(rodata)), 3,
			  "several loads through one address: each that fits a move (not the u64 "
			  "beyond 32 bits), up to the load that overwrites the address");
		ASSERT_EQ_U64(run(p, 8, 1), 0x80000001, "the first of them: its value");
		ASSERT_EQ_U64(run(p, 8, 2), 1040, "the second: its value");
		ASSERT_EQ_U64(run(p, 8, 3), big, "the u64 beyond 32 bits: still loaded, the same value");
		ASSERT_EQ(p[6].code, BPF_LDX | BPF_MEM | BPF_W,
			  "after the address is overwritten: not folded");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), { .code = BPF_JMP | BPF_CALL, .imm = 5 },
					LDX(BPF_W, 2, 1, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 5, FD, rodata, sizeof(rodata)), 0,
			  "a helper call clobbers r1-r5: the address in r1 is gone after it");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(6, 0), { .code = BPF_JMP | BPF_CALL, .imm = 5 },
					LDX(BPF_W, 2, 6, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 5, FD, rodata, sizeof(rodata)), 1,
			  "r6 survives a helper call: folded");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(6, 0),
					{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 1, .off = 1 },
					LDX(BPF_W, 2, 6, 4), LDX(BPF_W, 3, 6, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 6, FD, rodata, sizeof(rodata)), 1,
			  "a conditional jump: its fall-through folds, its target does not");
		ASSERT_EQ(p[4].code, BPF_LDX | BPF_MEM | BPF_W, "the jump's target: still a load");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(6, 0), { .code = BPF_JMP | BPF_JA },
					LDX(BPF_W, 2, 6, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 5, FD, rodata, sizeof(rodata)), 0,
			  "past a goto: not folded (the line ends there)");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(6, 0),
					{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 7, .src_reg = 6,
					  .imm = BPF_ADD | BPF_FETCH },
					LDX(BPF_W, 2, 6, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 5, FD, rodata, sizeof(rodata)), 0,
			  "an atomic fetch into the address register: not folded after it");
	}
	{
		struct bpf_insn p[] = { { .code = BPF_JMP | BPF_JA, .off = 2 }, LD_RODATA(1, 0),
					LDX(BPF_W, 1, 1, 4), EXIT };

		check(p, 5, 0, 1, 0, "a jump lands on the load: left");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), { .code = BPF_ALU64 | BPF_ADD | BPF_K,
							   .dst_reg = 1, .imm = 4 },
					LDX(BPF_W, 1, 1, 0), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 5, FD, rodata, sizeof(rodata)), 0,
			  "an add between: left");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 60), LDX(BPF_DW, 1, 1, 0), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 4, FD, rodata, sizeof(rodata)), 0,
			  "bytes beyond the value: left");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), LDX(BPF_W, 1, 1, 4), EXIT };

		p[0].imm = FD + 1;
		ASSERT_EQ(bpf_fold_rodata(p, 4, FD, rodata, sizeof(rodata)), 0,
			  "another map: left");
	}
	{
		struct bpf_insn p[] = { LD_RODATA(1, 0), LDX(BPF_W, 1, 1, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 1, FD, rodata, sizeof(rodata)), -1,
			  "an ld_imm64 cut off: malformed");
	}
	{
		/* A call to a subprogram just past the load's slot: the callee starts at the ldx. */
		struct bpf_insn p[] = { { .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL,
					  .imm = 3 }, EXIT, LD_RODATA(1, 0), LDX(BPF_W, 1, 1, 4), EXIT };

		ASSERT_EQ(bpf_fold_rodata(p, 6, FD, rodata, sizeof(rodata)), 0,
			  "a subprogram starts at the load: left");
	}
	return test_done();
}
