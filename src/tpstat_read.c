// SPDX-License-Identifier: GPL-2.0
/* The kernel's tables into a snapshot (tpstat_read.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "src/tpstat_read.h"
#include "src/tpstat_read_lat.h"
#include "src/tpstat_buckets.h"
#include "tpstat.skel.h"	/* after tpstat.h, whose types it names */

/* Copy @cpu of --hist @h: one per possible CPU in hist_cpu, the .bss one beyond. */
static struct tpstat_hist *hist_copy(const struct tpstat_reader *rd, int h, int cpu)
{
	return cpu < rd->ncpu ? &rd->hist_cpu[cpu * rd->specs->nhist + h] :
				&rd->skel->bss->hists[h];
}

int tpstat_read_open(struct tpstat_reader *rd, struct tpstat_snap *snap)
{
	const struct tpstat_specs *sp = rd->specs;
	size_t len = (size_t)rd->ncpu * sp->nhist * sizeof(struct tpstat_hist);

	snap->tp = calloc(sp->n, sizeof(*snap->tp));
	if (!snap->tp) {
		fprintf(stderr, "tpstat: out of memory for %d tracepoints\n", sp->n);
		return 1;
	}
	for (int b = 0; b < sp->nby; b++) {
		snap->by[b].entries = calloc(TPSTAT_BY_ENTRIES, sizeof(*snap->by[b].entries));
		if (!snap->by[b].entries) {
			fprintf(stderr, "tpstat: out of memory\n");
			return 1;
		}
	}
	if (tpstat_read_lat_open(rd))
		return 1;
	if (!sp->nhist)
		return 0;
	rd->hist_cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    bpf_map__fd(rd->skel->maps.hist_cpu), 0);
	if (rd->hist_cpu == MAP_FAILED) {
		rd->hist_cpu = NULL;
		fprintf(stderr, "tpstat: cannot map the --hist table: %s\n", strerror(errno));
		return 1;
	}
	for (int h = 0; h < sp->nhist; h++)
		for (int cpu = 0; cpu <= rd->ncpu; cpu++)
			tpstat_hist_empty(hist_copy(rd, h, cpu), sp->hist[h].field.is_signed);
	return 0;
}

void tpstat_read_close(struct tpstat_reader *rd, struct tpstat_snap *snap)
{
	for (int b = 0; b < rd->specs->nby; b++)
		free(snap->by[b].entries);
	free(snap->tp);
	snap->tp = NULL;
}

/*
 * A hash map in batches of @room entries (one system call each), each batch handed to
 * @each; says on stderr when the read stopped short, naming @what.
 */
static void read_map(int fd, void *keys, void *vals, __u32 room, const char *what,
		     void (*each)(void *arg, const void *keys, const void *vals, __u32 n), void *arg)
{
	__u32 batch = 0, count;
	bool first = true;
	int err;

	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		count = room;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys, vals, &count, &o);
		first = false;
		each(arg, keys, vals, count);
	} while (!err);
	if (errno != ENOENT)
		fprintf(stderr, "tpstat: cannot read the %s table: %s\n", what, strerror(errno));
}

void tpstat_read_counts(const struct tpstat_reader *rd, struct tpstat_snap *snap)
{
	const struct tpstat_specs *sp = rd->specs;
	const struct tpstat_progs *ps = rd->progs;

	/* The mapped counts map (tpstat_progs.h), slot by slot as the CPUs write them. */
	for (int slot = 0; slot < TPSTAT_NR_SLOTS; slot++)
		for (int i = 0; i < sp->n; i++)
			snap->tp[i].c.slot[slot] = tpstat_progs_count(ps, TPSTAT_PLANE_COUNT, slot, i);
	for (int i = 0; i < sp->n; i++) {
		struct tpstat_tp_read *t = &snap->tp[i];
		const struct tpstat_tp *kt = &ps->tps[i];
		__u64 first = __atomic_load_n(&kt->first_cpu, __ATOMIC_RELAXED);

		t->c.missed = tpstat_progs_missed(ps, i);
		t->c.filtered = t->c.filter_errors = 0;
		for (int slot = 0; sp->tp[i].nfilters && slot < TPSTAT_NR_SLOTS; slot++) {
			t->c.filtered += tpstat_progs_count(ps, TPSTAT_PLANE_FILTERED, slot, i);
			t->c.filter_errors += tpstat_progs_count(ps, TPSTAT_PLANE_FILTER_ERRORS, slot, i);
		}
		for (int w = 0; w < TPSTAT_CPU_WORDS; w++)
			t->cpus[w] = __atomic_load_n(&kt->cpus[w], __ATOMIC_RELAXED);
		t->first_cpu = first ? (int)(first - 1) : -1;
		t->cpus_beyond = __atomic_load_n(&kt->cpus_beyond, __ATOMIC_RELAXED);
	}
	/* Each --hist as the sum of its copies, one per CPU. */
	for (int h = 0; h < sp->nhist; h++) {
		bool sg = sp->hist[h].field.is_signed;

		memset(&snap->hist[h], 0, sizeof(snap->hist[h]));
		tpstat_hist_empty(&snap->hist[h], sg);
		for (int cpu = 0; cpu <= rd->ncpu; cpu++)
			tpstat_hist_add(&snap->hist[h], hist_copy(rd, h, cpu), sg);
	}
	tpstat_read_lat(rd, snap);
}

/* The --by table's entries into each --by's, up to TPSTAT_BY_ENTRIES each. */
static void add_entries(void *arg, const void *keys, const void *vals, __u32 n)
{
	const struct tpstat_key *k = keys;
	const struct tpstat_by_val *v = vals;
	struct tpstat_snap *snap = arg;

	for (__u32 i = 0; i < n; i++) {
		struct tpstat_by_read *by;

		if (k[i].by >= TPSTAT_MAX_BY || !snap->by[k[i].by].entries)
			continue;
		by = &snap->by[k[i].by];
		if (by->n < TPSTAT_BY_ENTRIES) {
			struct tpstat_by_entry *e = &by->entries[by->n++];

			memcpy(e->k, k[i].k, sizeof(e->k));
			e->count = v[i].count;
			e->sum = v[i].sum;
			e->sum_hi = v[i].sum_hi;
			e->min = v[i].min;
			e->max = v[i].max;
		}
	}
}

void tpstat_read_keys(const struct tpstat_reader *rd, struct tpstat_snap *snap)
{
	const struct tpstat_specs *sp = rd->specs;
	static struct tpstat_key keys[256];
	static struct tpstat_by_val vals[256];

	if (!sp->nby)
		return;
	for (int b = 0; b < sp->nby; b++)
		snap->by[b].n = 0;
	read_map(bpf_map__fd(rd->skel->maps.by_counts), keys, vals, 256, "--by", add_entries, snap);
	for (int b = 0; b < sp->nby; b++) {
		const struct tp_by *spec = &sp->by[b];
		const struct tpstat_by_stats *st = &rd->skel->bss->by_stats[b];
		struct tpstat_by_read *by = &snap->by[b];

		by->dropped = __atomic_load_n(&st->dropped, __ATOMIC_RELAXED);
		by->errors = __atomic_load_n(&st->errors, __ATOMIC_RELAXED);
		by->minmax_lost = __atomic_load_n(&st->minmax_lost, __ATOMIC_RELAXED);
		if (!tp_by_cpu_alone(spec))
			continue;
		for (int cpu = 0; cpu < rd->ncpu && cpu < TPSTAT_SLOTS; cpu++) {
			__u64 v = snap->tp[spec->tp->slot].c.slot[cpu];

			if (v && by->n < TPSTAT_BY_ENTRIES)
				by->entries[by->n++] = (struct tpstat_by_entry){
					.k = { (__u64)cpu }, .count = v };
		}
	}
}
