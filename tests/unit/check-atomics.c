// SPDX-License-Identifier: GPL-2.0
/*
 * check-atomics: prove each BPF object holds the atomic instructions it is meant to.
 *
 *   check-atomics EXPECT_FILE OBJ_DIR
 *
 * EXPECT_FILE has lines "OBJECT PROGRAM OP..." where OP is an atomic operation with its
 * width (add64, fetch_add64, and32, fetch_or64, xchg64, cmpxchg64, ...) or "none". Every
 * program of every object named there is decoded with libbpf (code and imm of each
 * instruction, not disassembler text, which LLVM 14 gets wrong for 32-bit and/or/xor) and
 * must contain exactly the listed set of operations; a program missing from the file fails.
 * Each program's jumps must also land inside it (check_jumps()). Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "tests/unit/test.h"

#define MAX_LINES 256
#define MAX_OPS 32

struct expect {
	char obj[64];
	char prog[64];
	char ops[MAX_OPS][24];
	int nops;
	int seen;
};

static struct expect expects[MAX_LINES];
static int nexpects;

/* One named check (test.h), its name made from @fmt with @a and @b; @extra says why. */
static void tap(int ok, const char *fmt, const char *a, const char *b, const char *extra)
{
	char name[512];

	snprintf(name, sizeof(name), fmt, a, b);
	if (!test_report(ok, name) || (extra && *extra))
		printf("#   %s\n", extra && *extra ? extra : "failed");
}

/* The name of an atomic instruction's operation, or NULL when it is not one. */
static const char *atomic_op_name(const struct bpf_insn *insn, char *buf, size_t len)
{
	const char *op;
	int fetch;

	if (BPF_CLASS(insn->code) != BPF_STX || BPF_MODE(insn->code) != BPF_ATOMIC)
		return NULL;
	fetch = insn->imm & BPF_FETCH;
	switch (insn->imm) {
	case BPF_XCHG: op = "xchg"; fetch = 0; break;
	case BPF_CMPXCHG: op = "cmpxchg"; fetch = 0; break;
	default:
		switch (insn->imm & ~BPF_FETCH) {
		case BPF_ADD: op = "add"; break;
		case BPF_AND: op = "and"; break;
		case BPF_OR: op = "or"; break;
		case BPF_XOR: op = "xor"; break;
		default: op = "unknown"; break;
		}
	}
	snprintf(buf, len, "%s%s%d", fetch ? "fetch_" : "", op,
		 BPF_SIZE(insn->code) == BPF_DW ? 64 : 32);
	return buf;
}

static int load_expect(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "check-atomics: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct expect *e;
		char *tok, *save;

		if (line[0] == '#' || strspn(line, " \t\n") == strlen(line))
			continue;
		if (nexpects == MAX_LINES)
			break;
		e = &expects[nexpects++];
		tok = strtok_r(line, " \t\n", &save);
		snprintf(e->obj, sizeof(e->obj), "%s", tok);
		tok = strtok_r(NULL, " \t\n", &save);
		snprintf(e->prog, sizeof(e->prog), "%s", tok ? tok : "");
		while ((tok = strtok_r(NULL, " \t\n", &save)) && e->nops < MAX_OPS)
			if (strcmp(tok, "none"))
				snprintf(e->ops[e->nops++], sizeof(e->ops[0]), "%s", tok);
	}
	fclose(f);
	return 0;
}

static struct expect *find_expect(const char *obj, const char *prog)
{
	for (int i = 0; i < nexpects; i++)
		if (!strcmp(expects[i].obj, obj) && !strcmp(expects[i].prog, prog))
			return &expects[i];
	return NULL;
}

/*
 * Does every jump of @prog land inside it? A BPF jump reaches 32,767 instructions either way,
 * and clang 14 emits a longer one without a word (the kernel refuses it at load: "jump out of
 * range"): a program grown past that by unrolled code fails here, on the host.
 */
static void check_jumps(const char *objname, struct bpf_program *prog)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	long n = (long)bpf_program__insn_cnt(prog), bad = -1;
	char msg[128];

	for (long i = 0; i < n && bad < 0; i++) {
		__u8 cls = BPF_CLASS(insns[i].code), op = BPF_OP(insns[i].code);
		long to = i + insns[i].off + 1;

		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;
			continue;
		}
		if ((cls != BPF_JMP && cls != BPF_JMP32) || op == BPF_CALL || op == BPF_EXIT)
			continue;
		if (to < 0 || to >= n)
			bad = i;
	}
	if (bad >= 0)
		snprintf(msg, sizeof(msg), "insn %ld jumps to %ld", bad, bad + insns[bad].off + 1);
	else
		snprintf(msg, sizeof(msg), "%ld instructions", n);
	tap(bad < 0, "%s %s: every jump lands inside the program", objname, bpf_program__name(prog),
	    msg);
}

static void check_program(const char *objname, struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);
	char found[MAX_OPS][24], msg[1024] = "", buf[24];
	int nfound = 0, ok = 1;
	struct expect *e = find_expect(objname, name);

	for (size_t i = 0; i < n; i++) {
		const char *op = atomic_op_name(&insns[i], buf, sizeof(buf));
		int dup = 0;

		if (!op)
			continue;
		for (int j = 0; j < nfound; j++)
			dup |= !strcmp(found[j], op);
		if (!dup && nfound < MAX_OPS)
			snprintf(found[nfound++], sizeof(found[0]), "%s", op);
	}
	if (!e) {
		tap(0, "%s %s is listed in the expectations", objname, name, "not listed");
		return;
	}
	e->seen = 1;
	for (int i = 0; i < e->nops; i++) {
		int has = 0;

		for (int j = 0; j < nfound; j++)
			has |= !strcmp(found[j], e->ops[i]);
		if (!has) {
			ok = 0;
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "missing %s; ", e->ops[i]);
		}
	}
	for (int j = 0; j < nfound; j++) {
		int want = 0;

		for (int i = 0; i < e->nops; i++)
			want |= !strcmp(found[j], e->ops[i]);
		if (!want) {
			ok = 0;
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "unexpected %s; ", found[j]);
		}
	}
	if (ok) {
		for (int j = 0; j < nfound; j++)
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s%s", j ? " " : "", found[j]);
		if (!nfound)
			snprintf(msg, sizeof(msg), "no atomics, as expected");
	}
	tap(ok, "%s %s has exactly the expected atomic instructions", objname, name, msg);
}

int main(int argc, char **argv)
{
	char path[8192];

	if (argc != 3) {
		fprintf(stderr, "usage: check-atomics EXPECT_FILE OBJ_DIR\n");
		return 2;
	}
	if (load_expect(argv[1]))
		return 2;
	libbpf_set_print(NULL);
	for (int i = 0; i < nexpects; i++) {
		struct bpf_object *obj;
		struct bpf_program *prog;
		int done = 0;

		for (int j = 0; j < i; j++)
			done |= !strcmp(expects[j].obj, expects[i].obj);
		if (done)
			continue;
		if (snprintf(path, sizeof(path), "%.4000s/%.63s", argv[2], expects[i].obj) >= (int)sizeof(path))
			continue;
		obj = bpf_object__open_file(path, NULL);
		if (!obj) {
			tap(0, "%s opens%s", expects[i].obj, "", strerror(errno));
			continue;
		}
		bpf_object__for_each_program(prog, obj) {
			check_program(expects[i].obj, prog);
			check_jumps(expects[i].obj, prog);
		}
		bpf_object__close(obj);
	}
	for (int i = 0; i < nexpects; i++)
		if (!expects[i].seen)
			tap(0, "%s %s exists", expects[i].obj, expects[i].prog, "no such program");
	return test_done();
}
