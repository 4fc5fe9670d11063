/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does the running kernel refuse a raw_tp program's nested run on a CPU (6.1's
 * __bpf_trace_run(), bpf/tpstat_update.h)? Then tpstat's programs update the memory one
 * program owns on one CPU with plain loads and stores; otherwise with atomics everywhere.
 */
#ifndef __BAREATOM_TPSTAT_GUARD_H
#define __BAREATOM_TPSTAT_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* What the kernel says of itself. */
struct tpstat_guard {
	bool has_btf;		/* the vmlinux BTF could be read */
	bool has_active;	/* its struct bpf_prog has the per-CPU counter active */
	bool has_miss_fn;	/* it has the function bpf_prog_inc_misses_counter */
	int major, minor;	/* the release's first two numbers (0 when unreadable) */
};

/*
 * The choice: plain updates when the kernel has the guard. prog->active came in 5.11 for
 * trampolines; raw_tp runs took it in commit 05b24ff9b2cf (Linux 6.1), which also renamed
 * the miss counter's function to bpf_prog_inc_misses_counter (so a sign of the commit in
 * the stable kernels it went back to, e.g. 6.0.10). So: active, and that function or 6.1
 * or later.
 */
bool tpstat_guard_plain(const struct tpstat_guard *g);

/* The one line -v prints of @g on a kernel of @release, into @buf. */
void tpstat_guard_describe(const struct tpstat_guard *g, const char *release, char *buf,
			   size_t len);

struct btf;

/*
 * What @vmlinux (the running kernel's BTF, already parsed: NULL when it could not be) and
 * the release say, into @g; the release into @release.
 */
void tpstat_guard_read(struct tpstat_guard *g, const struct btf *vmlinux, char *release,
		       size_t len);
/* tpstat_guard_read() of the running kernel's BTF, parsed here. */
void tpstat_guard_probe(struct tpstat_guard *g, char *release, size_t len);

/* The choice for @g on a kernel of @release, said with @verbose (one line to stderr). */
bool tpstat_guard_say(const struct tpstat_guard *g, const char *release, bool verbose);
/* Probe, say which with @verbose, and return the choice. */
bool tpstat_guard_choose(bool verbose);

#endif /* __BAREATOM_TPSTAT_GUARD_H */
