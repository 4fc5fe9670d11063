// SPDX-License-Identifier: GPL-2.0
/* The --latency tables into a snapshot (tpstat_read.h): histograms, accounting, open STARTs. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "src/tpstat_read_lat.h"
#include "src/tpstat_buckets.h"
#include "tpstat.skel.h"	/* after tpstat.h, whose types it names */

/* @map's @len bytes, shared with the programs; NULL after one line on stderr. */
static void *map_table(const struct bpf_map *map, size_t len, const char *what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);

	if (p != MAP_FAILED)
		return p;
	fprintf(stderr, "tpstat: cannot map the --latency %s: %s\n", what, strerror(errno));
	return NULL;
}

/* Copy @cpu of latency @l's histogram: one per possible CPU, the .bss one beyond. */
static struct tpstat_hist *lat_hist_copy(const struct tpstat_reader *rd, int l, int cpu)
{
	return cpu < rd->ncpu ? &rd->lat_hist_cpu[cpu * rd->specs->nlat + l] :
				&rd->skel->bss->lat_hist[l];
}

static bool on_cpu(const struct tpstat_specs *sp, int l)
{
	return TPSTAT_LAT_CPU_HOME(sp->lat[l].kind[0], sp->lat[l].kind[1]);
}

int tpstat_read_lat_open(struct tpstat_reader *rd)
{
	const struct tpstat_specs *sp = rd->specs;
	bool cpus = false, table = false;

	if (!sp->nlat)
		return 0;
	for (int l = 0; l < sp->nlat; l++) {
		cpus |= on_cpu(sp, l);
		table |= !on_cpu(sp, l);
	}
	rd->lat_hist_cpu = map_table(rd->skel->maps.lat_hist_cpu,
				     (size_t)rd->ncpu * sp->nlat * sizeof(struct tpstat_hist), "histograms");
	if (cpus)
		rd->lat_cpu = map_table(rd->skel->maps.lat_cpu,
					(size_t)rd->ncpu * sizeof(struct tpstat_lat_cpu), "starts");
	if (table)
		rd->lat_table = map_table(rd->skel->maps.lat_table, (size_t)sp->nlat *
					  TPSTAT_LAT_BUCKETS * sizeof(struct tpstat_lat_bucket), "starts");
	if (!rd->lat_hist_cpu || (cpus && !rd->lat_cpu) || (table && !rd->lat_table))
		return 1;
	for (int l = 0; l < sp->nlat; l++)
		for (int cpu = 0; cpu <= rd->ncpu; cpu++)
			tpstat_hist_empty(lat_hist_copy(rd, l, cpu), false);
	return 0;
}

/* The open STARTs of latency @l: the homes holding a time (or BUSY: a START under way). */
static __u64 count_open(const struct tpstat_reader *rd, int l)
{
	__u64 n = 0;

	if (on_cpu(rd->specs, l)) {
		for (int cpu = 0; cpu < rd->ncpu; cpu++)
			n += __atomic_load_n(&rd->lat_cpu[cpu].ns[l], __ATOMIC_RELAXED) !=
			     TPSTAT_LAT_EMPTY;
		return n;
	}
	for (int b = 0; b < TPSTAT_LAT_BUCKETS; b++) {
		const struct tpstat_lat_bucket *bk = &rd->lat_table[l * TPSTAT_LAT_BUCKETS + b];

		for (int w = 0; w < TPSTAT_LAT_WAYS; w++)
			n += __atomic_load_n(&bk->ns[w], __ATOMIC_RELAXED) != TPSTAT_LAT_EMPTY;
	}
	return n;
}

void tpstat_read_lat(const struct tpstat_reader *rd, struct tpstat_snap *snap)
{
	const struct tpstat_specs *sp = rd->specs;

	for (int l = 0; l < sp->nlat; l++) {
		struct tpstat_lat_read *la = &snap->lat[l];
		const __u64 *st = (const __u64 *)&rd->skel->bss->lat_stats[l];
		__u64 *to = (__u64 *)&la->st;

		for (size_t k = 0; k < sizeof(la->st) / sizeof(__u64); k++)
			to[k] = __atomic_load_n(&st[k], __ATOMIC_RELAXED);
		memset(&la->hist, 0, sizeof(la->hist));
		tpstat_hist_empty(&la->hist, false);
		for (int cpu = 0; cpu <= rd->ncpu; cpu++)
			tpstat_hist_add(&la->hist, lat_hist_copy(rd, l, cpu), false);
		la->open = count_open(rd, l);
	}
}
