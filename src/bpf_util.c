// SPDX-License-Identifier: GPL-2.0
/* libbpf set-up and the BPF probes of bpf_util.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "src/bpf_util.h"
#include "src/cli.h"

static bool util_verbose;

static int util_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !util_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void util_setup_libbpf(bool verbose)
{
	util_verbose = verbose;
	libbpf_set_print(util_libbpf_print);
}

const char *util_bpf_load_hint(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return geteuid() ? "permission denied: run as root (needs CAP_BPF and CAP_PERFMON)"
				 : "permission denied by the kernel (lockdown or the verifier?); rerun with -v";
	case ENOENT:
		return "not found in this kernel";
	case EINVAL:
		return "the kernel rejected the program; rerun with -v for the verifier log";
	default:
		return strerror(-err);
	}
}

int util_probe_atomics(void)
{
	/* *(u64 *)(r10 - 8) = 0; r1 = 1; r1 = atomic_fetch_add((u64 *)(r10 - 8), r1); r0 = 0 */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "atomics_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int util_bpf_exit_status(int err)
{
	return err == -EPERM || err == -EACCES ? EXIT_USAGE : 1;
}

int util_check_bpf(const char *prog, const char *needs_root_for)
{
	struct utsname u;
	int err = util_probe_atomics();

	if (!err)
		return 0;
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "%s: permission denied: %s needs root (CAP_BPF and CAP_PERFMON)\n",
			prog, needs_root_for);
		return util_bpf_exit_status(err);
	}
	uname(&u);
	if (err == -EINVAL) {
		fprintf(stderr, "%s: this kernel (%s) lacks the BPF atomic instructions (BPF_FETCH): "
			"Linux 5.12 or later is needed\n", prog, u.release);
		return 1;
	}
	fprintf(stderr, "%s: cannot load BPF programs: %s\n", prog, strerror(-err));
	return 1;
}
