// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's per-tracepoint programs (tpstat_progs.h).
 *
 * A raw_tp program cannot ask which tracepoint fired it on Linux 6.1 (the attach cookie
 * came to raw_tp in 6.10), so each tracepoint gets its own copy of tpstat_0 (or
 * tpstat_hist_0) with its index patched into an ld_imm64 marked TPSTAT_IDX_MARK (index 0
 * as compiled). libbpf loads tpstat_0 and tpstat_hist_0 as usual, and a prog_prepare_load_fn
 * callback keeps the load attributes libbpf made for them (the relocated instructions, BTF,
 * func and line info), from which the other copies are loaded with bpf_prog_load(): every
 * copy has its name, BTF and source lines for bpftool, and the verifier sees a constant
 * index, so it drops the other tracepoints' field code as before. The other way, one
 * bpf_object opened per copy with its maps shared by bpf_map__reuse_fd(), would parse the
 * object and the kernel's BTF (several MB) and make a .rodata map once per tracepoint; the
 * verification, the part both pay per copy, is the same.
 *
 * The copies are used on every kernel, also on 6.10+, where raw_tp links carry a cookie and
 * one program could serve every tracepoint: the kernel's recursion check and its count of
 * misses are per program (__bpf_trace_run()), so a shared program would miss an event of
 * one tracepoint that arrives while it runs for another, and could not say which
 * tracepoint missed it: each row's count + missed would no longer be its events. A field
 * reader shared by tracepoints of different arity is also refused at attach (its highest
 * context offset is checked against each tracepoint's arguments).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "src/tpstat_progs.h"
#include "src/bpf_fold.h"
#include "tpstat.skel.h"
#include "src/bpf_util.h"

/* What libbpf loaded tpstat_0 or tpstat_hist_0 with: the template of their copies. */
struct template {
	const char *prog;		/* the program's name in the object */
	/*
	 * 0 when libbpf's load counts tracepoint 0, whose name it has; -1 when tracepoint 0
	 * uses the other program, and libbpf's load is only the template of the copies.
	 */
	int first;
	struct bpf_insn *insns;
	size_t cnt;
	struct bpf_prog_load_opts opts;
	void *func_info, *line_info;	/* copies of libbpf's */
};

static struct template templates[2] = { { .prog = "tpstat_0" }, { .prog = "tpstat_hist_0" } };
/* The set being loaded, for the callback (libbpf loads in tpstat_bpf__load()). */
static struct tpstat_progs *loading;

/* The marked ld_imm64 of @insns: its index, or -1 when there is none (or more than one). */
static long find_mark(const struct bpf_insn *insns, size_t cnt)
{
	long at = -1;

	for (size_t i = 0; i + 1 < cnt; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (insns[i].src_reg == 0 && (__u32)insns[i + 1].imm == (__u32)(TPSTAT_IDX_MARK >> 32)) {
			if (at >= 0)
				return -1;
			at = (long)i;
		}
		i++;	/* the second half of the ld_imm64 */
	}
	return at;
}

static void *memdup(const void *p, size_t len)
{
	void *q = len ? malloc(len) : NULL;

	if (q)
		memcpy(q, p, len);
	return q;
}

/*
 * Every load from tpstat's frozen .rodata in @insns as an immediate (src/bpf_fold.h): the
 * specs are constants of the run, and a program that reads them on every event pays for it.
 */
static int fold(struct bpf_program *prog, struct bpf_insn *insns, size_t cnt)
{
	size_t size;
	const void *data = bpf_map__initial_value(loading->skel->maps.rodata, &size);
	int n = data ? bpf_fold_rodata(insns, cnt, bpf_map__fd(loading->skel->maps.rodata), data,
				       size) : 0;

	if (n < 0)
		fprintf(stderr, "tpstat: %s: malformed instructions (an ld_imm64 cut off)\n",
			bpf_program__name(prog));
	else
		loading->folded += n;
	return n;
}

/*
 * libbpf's prog_prepare_load_fn for SEC("raw_tp"): for tpstat_0 and tpstat_hist_0, keep the
 * instructions and attributes they are loaded with, the template of their copies.
 */
static int prepare_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	struct template *t = NULL;
	struct bpf_insn *insns;
	size_t cnt = bpf_program__insn_cnt(prog);
	long at;

	for (int k = 0; k < 2; k++)
		if (!strcmp(bpf_program__name(prog), templates[k].prog))
			t = &templates[k];
	if (!t || !loading)
		return 0;
	/*
	 * libbpf loads this very buffer (prog->insns; bpf_program__set_insns() would replace it):
	 * folding keeps the count, so its func and line info still fit.
	 */
	if (fold(prog, (struct bpf_insn *)bpf_program__insns(prog), cnt) < 0)
		return -EINVAL;
	insns = memdup(bpf_program__insns(prog), cnt * sizeof(*insns));
	at = insns ? find_mark(insns, cnt) : -1;
	if (at < 0) {
		free(insns);
		return insns ? -EINVAL : -ENOMEM;
	}
	free(t->insns);
	free(t->func_info);
	free(t->line_info);
	t->insns = insns;
	t->cnt = cnt;
	t->opts = *opts;
	t->opts.log_buf = NULL;
	t->opts.log_size = 0;
	t->opts.log_level = 0;
	t->func_info = memdup(opts->func_info, (size_t)opts->func_info_cnt * opts->func_info_rec_size);
	t->line_info = memdup(opts->line_info, (size_t)opts->line_info_cnt * opts->line_info_rec_size);
	t->opts.func_info = t->func_info;
	t->opts.line_info = t->line_info;
	if ((opts->func_info_cnt && !t->func_info) || (opts->line_info_cnt && !t->line_info))
		return -ENOMEM;
	return 0;
}

int tpstat_progs_register(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, o, .prog_prepare_load_fn = prepare_load);
	int id = libbpf_register_prog_handler("raw_tp", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, &o);

	if (id < 0) {
		fprintf(stderr, "tpstat: cannot register the raw_tp loader with libbpf: %s\n",
			strerror(-id));
		return 1;
	}
	return 0;
}

/*
 * Two descriptors per tracepoint (its program and its link) and a few for the rest: raise the soft limit to the hard one when
 * that is short, or say which limit stands in the way.
 */
static int want_fds(const struct tpstat_progs *ps)
{
	rlim_t need = (rlim_t)ps->n * 2 + 64;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 0;
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < need) {
		if (r.rlim_max != RLIM_INFINITY && r.rlim_max < need) {
			fprintf(stderr, "tpstat: %d tracepoints need about %llu file descriptors (a program "
				"and a link each), and RLIMIT_NOFILE allows %llu (ulimit -Hn): raise it, "
				"or count fewer\n", ps->n, (unsigned long long)need,
				(unsigned long long)r.rlim_max);
			return 1;
		}
		r.rlim_cur = r.rlim_max == RLIM_INFINITY ? need : r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r)) {
			fprintf(stderr, "tpstat: cannot raise RLIMIT_NOFILE to %llu for %d tracepoints: "
				"%s\n", (unsigned long long)r.rlim_cur, ps->n, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int tpstat_progs_setup(struct tpstat_progs *ps, struct tpstat_bpf *skel, int n, const bool *hist,
		       bool filters)
{
	struct bpf_program *prog;
	int nvariant[2] = { 0, 0 };
	__u64 entries;

	*ps = (struct tpstat_progs){ .skel = skel, .n = n, .planes = filters ? 3 : 1 };
	ps->stride = (__u32)((n + TPSTAT_LINE - 1) / TPSTAT_LINE * TPSTAT_LINE);
	ps->p = calloc(n, sizeof(*ps->p));
	if (!ps->p) {
		fprintf(stderr, "tpstat: out of memory for %d tracepoints\n", n);
		return 1;
	}
	if (want_fds(ps))
		return 1;
	templates[0].first = hist[0] ? -1 : 0;
	templates[1].first = hist[0] ? 0 : -1;
	for (int i = 0; i < n; i++) {
		ps->p[i] = (struct tpstat_prog){ .fd = -1, .link = -1, .hist = hist[i] };
		nvariant[hist[i]]++;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);

		if (!strcmp(name, "tpstat_0"))
			bpf_program__set_autoload(prog, nvariant[0]);
		else if (!strcmp(name, "tpstat_hist_0"))
			bpf_program__set_autoload(prog, nvariant[1]);
	}
	entries = (__u64)ps->planes * TPSTAT_NR_SLOTS * ps->stride;
	if (entries > UINT32_MAX) {
		fprintf(stderr, "tpstat: %d tracepoints need %llu counters, more than a BPF array "
			"holds (%u)\n", n, (unsigned long long)entries, UINT32_MAX);
		return 1;
	}
	skel->rodata->ntp = (__u32)n;
	skel->rodata->stride = ps->stride;
	bpf_map__set_max_entries(skel->maps.counts, (__u32)entries);
	bpf_map__set_max_entries(skel->maps.tp_cpus, (__u32)n);
	loading = ps;
	return 0;
}

/* Map @map's values, read-only: the address, or NULL. */
static void *map_values(struct bpf_map *map, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);

	return p == MAP_FAILED ? NULL : p;
}

static size_t page_round(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) / page * page;
}

/* Load the copy of template @t for tracepoint @i: its fd, or a negative errno. */
static int load_copy(struct template *t, int i, char *name, size_t len)
{
	struct bpf_insn *insns = t->insns;
	long at = insns ? find_mark(insns, t->cnt) : -1;
	int fd;

	char full[32];

	/* As the kernel keeps it: BPF_OBJ_NAME_LEN - 1 characters (tpstat_hist_1000 is cut). */
	snprintf(full, sizeof(full), "%s%d", t == &templates[0] ? "tpstat_" : "tpstat_hist_", i);
	memcpy(name, full, len - 1);
	name[len - 1] = '\0';
	if (i == t->first)
		return -EALREADY;	/* libbpf's own */
	if (!insns || at < 0)
		return -ENOEXEC;	/* libbpf loaded it without our callback */
	insns[at].imm = i;
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, name, "GPL", insns, t->cnt, &t->opts);
	return fd < 0 ? -errno : fd;
}

int tpstat_progs_load(struct tpstat_progs *ps)
{
	struct tpstat_bpf *skel = ps->skel;
	struct bpf_program *libbpfs[2] = { skel->progs.tpstat_0, skel->progs.tpstat_hist_0 };

	loading = NULL;
	for (int i = 0; i < ps->n; i++) {
		struct tpstat_prog *p = &ps->p[i];
		struct template *t = &templates[p->hist];
		int fd;

		fd = load_copy(t, i, p->name, sizeof(p->name));
		if (fd == -EALREADY) {
			p->fd = bpf_program__fd(libbpfs[p->hist]);
			continue;
		}
		if (fd < 0) {
			fprintf(stderr, "tpstat: cannot load the program of tracepoint %d of %d: %s%s\n",
				i + 1, ps->n, util_bpf_load_hint(fd),
				fd == -ENOMEM || fd == -E2BIG ? " (a kernel limit: count fewer at once)" :
				fd == -EMFILE ? " (RLIMIT_NOFILE: ulimit -n)" : "");
			return util_bpf_exit_status(fd);
		}
		p->fd = fd;
	}
	ps->counts_len = page_round((size_t)ps->planes * TPSTAT_NR_SLOTS * ps->stride * sizeof(__u64));
	ps->tps_len = page_round((size_t)ps->n * sizeof(struct tpstat_tp));
	ps->counts = map_values(skel->maps.counts, ps->counts_len);
	ps->tps = map_values(skel->maps.tp_cpus, ps->tps_len);
	if (!ps->counts || !ps->tps) {
		fprintf(stderr, "tpstat: cannot map the counters: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int tpstat_progs_attach(struct tpstat_progs *ps, int i, const char *name)
{
	struct tpstat_prog *p = &ps->p[i];
	int fd = bpf_raw_tracepoint_open(name, p->fd);

	if (fd < 0)
		return fd < -1 ? fd : -errno;
	p->link = fd;
	return 0;
}

void tpstat_progs_detach(struct tpstat_progs *ps)
{
	for (int i = 0; ps->p && i < ps->n; i++)
		if (ps->p[i].link >= 0) {
			close(ps->p[i].link);
			ps->p[i].link = -1;
		}
}

static __u64 prog_misses(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

__u64 tpstat_progs_missed(const struct tpstat_progs *ps, int i)
{
	return prog_misses(ps->p[i].fd);
}

void tpstat_progs_close(struct tpstat_progs *ps)
{
	tpstat_progs_detach(ps);
	for (int i = 0; ps->p && i < ps->n; i++) {
		struct template *t = &templates[ps->p[i].hist];

		/* Copies are ours; libbpf closes its own (the first of each program). */
		if (ps->p[i].fd >= 0 && i != t->first)
			close(ps->p[i].fd);
	}
	if (ps->counts)
		munmap(ps->counts, ps->counts_len);
	if (ps->tps)
		munmap((void *)ps->tps, ps->tps_len);
	free(ps->p);
	for (int k = 0; k < 2; k++) {
		free(templates[k].insns);
		free(templates[k].func_info);
		free(templates[k].line_info);
		templates[k].insns = templates[k].func_info = templates[k].line_info = NULL;
	}
	*ps = (struct tpstat_progs){};
	loading = NULL;
}
