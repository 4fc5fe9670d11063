// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-fakepin: leave pins as an older, different cookie-gend would have: an empty
 * tp_btf/sched_process_fork program (it draws nothing), attached, its link pinned as
 * link_fork and the program as prog_fork, over whatever is pinned there. The program is
 * named fake_fork so tests can see whether it is still loaded after cookie-gend starts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#define PINS "/sys/fs/bpf/bareatom/cookie"

int main(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	int btf_id = libbpf_find_vmlinux_btf_id("sched_process_fork", BPF_TRACE_RAW_TP);
	int prog, link;

	if (btf_id < 0) {
		fprintf(stderr, "cookie-fakepin: no BTF for sched_process_fork: %s\n", strerror(-btf_id));
		return 1;
	}
	opts.attach_btf_id = btf_id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "fake_fork", "GPL", insns, 2, &opts);
	if (prog < 0) {
		fprintf(stderr, "cookie-fakepin: load: %s\n", strerror(errno));
		return 1;
	}
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0) {
		fprintf(stderr, "cookie-fakepin: attach: %s\n", strerror(errno));
		return 1;
	}
	unlink(PINS "/link_fork");
	unlink(PINS "/prog_fork");
	if (bpf_obj_pin(link, PINS "/link_fork") || bpf_obj_pin(prog, PINS "/prog_fork")) {
		fprintf(stderr, "cookie-fakepin: pin: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
