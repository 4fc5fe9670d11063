// SPDX-License-Identifier: GPL-2.0
/* The specs into the BPF object before load (tpstat_rodata.h). */
#include <string.h>
#include <bpf/libbpf.h>
#include "src/tpstat_rodata.h"
#include "tpstat.skel.h"	/* after tpstat.h, whose types it names */

/* The one copy of a compiled field into .rodata: what tracepoint @tp's program reads. */
static void rodata_field(struct tpstat_field *d, const struct tp_spec *tp, const struct tpfield *f,
			 const struct buckets_linear *range)
{
	*d = (struct tpstat_field){ .tp = tp->slot, .arg = f->arg, .nsteps = f->nsteps,
		.size = f->size, .is_signed = f->is_signed, .bit_off = f->bit_off,
		.bit_size = f->bit_size };
	for (__u32 k = 0; k < f->nsteps; k++) {
		d->steps[k].off = f->steps[k].off;
		d->steps[k].size = f->steps[k].size;
	}
	if (range && range->linear) {
		d->linear = true;
		d->lmin = range->lmin;
		d->lmax = range->lmax;
		d->lstep = (__u64)range->lstep;
	}
}

/*
 * The homes of the latencies' open STARTs (bpf/tpstat_latency.h), each map sized to 1 entry
 * when no latency uses it: a word per CPU for cpu,cpu ones, TPSTAT_LAT_ENTRIES ways per
 * latency for the others (entry l * TPSTAT_LAT_BUCKETS + bucket), and a histogram per
 * latency per possible CPU (tpstat_read_lat.c sums them).
 */
static void tpstat_rodata_lat(const struct tpstat_specs *sp, struct tpstat_bpf *skel, int ncpu)
{
	bool on_cpu = false, in_table = false;

	for (int l = 0; l < sp->nlat; l++) {
		if (TPSTAT_LAT_CPU_HOME(sp->lat[l].kind[0], sp->lat[l].kind[1]))
			on_cpu = true;
		else
			in_table = true;
	}
	bpf_map__set_max_entries(skel->maps.lat_cpu, on_cpu ? ncpu : 1);
	bpf_map__set_max_entries(skel->maps.lat_table, in_table ? sp->nlat * TPSTAT_LAT_BUCKETS : 1);
	bpf_map__set_max_entries(skel->maps.lat_hist_cpu, sp->nlat ? sp->nlat * ncpu : 1);
}

/*
 * The stack keys' tables (bpf/tpstat_stack.h): the key sized for the deepest stack asked,
 * so that each event hashes no more than it holds; one small entry without stacks.
 */
static void tpstat_rodata_stacks(const struct tpstat_specs *sp, struct tpstat_bpf *skel)
{
	size_t size = sizeof(struct tpstat_stack_key) + TPSTAT_KFRAME;
	bool any = false;

	for (int b = 0; b < sp->nby; b++) {
		size_t n = TPSTAT_STACK_KEY_BYTES(sp->by[b].kdepth, sp->by[b].udepth);

		if (!sp->by[b].kdepth && !sp->by[b].udepth)
			continue;
		any = true;
		if (n > size)
			size = n;
	}
	bpf_map__set_value_size(skel->maps.stack_buf, size);
	bpf_map__set_key_size(skel->maps.stack_counts, size);
	bpf_map__set_max_entries(skel->maps.stack_counts, any ? sp->stack_entries : 1);
}

void tpstat_rodata(const struct tpstat_specs *sp, struct tpstat_bpf *skel, int ncpu)
{
	struct tpstat_bpf__rodata *ro = skel->rodata;

	ro->nhist = sp->nhist;
	for (int h = 0; h < sp->nhist; h++)
		rodata_field((struct tpstat_field *)&ro->hist_field[h], sp->hist[h].tp,
			     &sp->hist[h].field, &sp->hist[h].range);
	ro->nby = sp->nby;
	for (int b = 0; b < sp->nby; b++) {
		const struct tp_by *by = &sp->by[b];
		struct tpstat_by *d = (struct tpstat_by *)&ro->by_spec[b];

		*d = (struct tpstat_by){ .tp = by->tp->slot, .nkeys = by->nkeys,
					 .value = by->value != NULL,
					 .kdepth = by->kdepth, .udepth = by->udepth };
		for (int i = 0; i < by->nkeys; i++)
			d->kind[i] = by->kinds[i];
		for (int i = 0; i < TPSTAT_BY_KEYS; i++)
			rodata_field(&d->field[i], by->tp, &by->field[i], NULL);
		rodata_field(&d->vfield, by->tp, &by->field[TPSTAT_BY_KEYS], NULL);
	}
	ro->nlat = sp->nlat;
	for (int l = 0; l < sp->nlat; l++) {
		const struct tp_lat *lat = &sp->lat[l];
		struct tpstat_lat_spec *d = (struct tpstat_lat_spec *)&ro->lat_spec[l];

		d->start.key = lat->kind[0];
		rodata_field(&d->start.field, lat->tp[0], &lat->field[0], NULL);
		d->end.key = lat->kind[1];
		rodata_field(&d->end.field, lat->tp[1], &lat->field[1], NULL);
		d->bounds = (struct tpstat_field){ .linear = lat->range.linear,
			.lmin = lat->range.lmin, .lmax = lat->range.lmax,
			.lstep = (__u64)lat->range.lstep };
	}
	tpstat_rodata_lat(sp, skel, ncpu);
	ro->nfilter = sp->nfilter;
	for (int k = 0; k < sp->nfilter; k++) {
		const struct tpfilter *flt = &sp->filter[k].flt;
		struct tpstat_filter_spec *d = (struct tpstat_filter_spec *)&ro->filter_spec[k];

		*d = (struct tpstat_filter_spec){ .key = flt->key, .op = flt->op,
			.is_signed = flt->is_signed, .value = flt->value };
		memcpy(d->comm, flt->comm, sizeof(d->comm));
		rodata_field(&d->field, sp->filter[k].tp, &flt->field, NULL);
	}
	/* No --by: a table of one entry, not TPSTAT_BY_ENTRIES preallocated for nothing. */
	bpf_map__set_max_entries(skel->maps.by_counts, sp->nby ? TPSTAT_BY_ENTRIES : 1);
	tpstat_rodata_stacks(sp, skel);
	/* One histogram per --hist per possible CPU (tpstat_read.c sums them). */
	bpf_map__set_max_entries(skel->maps.hist_cpu, sp->nhist ? sp->nhist * ncpu : 1);
}
