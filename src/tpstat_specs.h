/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpstat's specs: one struct tp_spec per counted tracepoint, which carries all the command
 * line asks of it: its name, kind and module, its --hist, --by, --filter and --latency.
 * Built once: the parser adds each name and item here (tpstat_cli.c), tpstat_specs.c
 * groups the items by tracepoint, resolves the names and compiles the fields against BTF.
 * Everything after reads the specs and nothing else of the command line: the BPF set-up
 * (.rodata, the program, the attach), the reads of the kernel's tables, the report and
 * the metrics. A tracepoint's name is looked up once, here; a spec's slot is where the
 * BPF object counts it.
 */
#ifndef __BAREATOM_TPSTAT_SPECS_H
#define __BAREATOM_TPSTAT_SPECS_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/tpstat_abi.h"
#include "src/tplist.h"
#include "src/tpfield.h"
#include "src/tpfilter.h"
#include "src/tpstat_buckets.h"

struct tp_spec;

/*
 * The items, each in the order given on the command line, which is also its place in the
 * BPF object's tables (.rodata's hist_field, by_spec, filter_spec and lat_spec, and the
 * kernel's tables that go with them); tp is its tracepoint's spec, once grouped.
 */

/* --hist TP:EXPR and --lhist TP:EXPR:MIN:MAX:STEP */
struct tp_hist {
	char tp_name[TP_NAME_LEN];	/* as given */
	struct tp_spec *tp;
	const char *expr;
	struct buckets_linear range;	/* --lhist's; range.linear false for --hist */
	struct tpfield field;		/* EXPR, compiled */
};

/* --by TP:KEY[,KEY...] [--value EXPR] */
struct tp_by {
	char tp_name[TP_NAME_LEN];
	struct tp_spec *tp;
	const char *key;		/* the keys as given: "cpu", "cpu,comm" */
	int kind;			/* enum tpstat_key_kind of the first key */
	int nkeys;
	const char *keys[TPSTAT_BY_KEYS];	/* each: cpu, comm, pid, cgroup or an EXPR */
	int kinds[TPSTAT_BY_KEYS];
	const char *value;		/* --value EXPR, or NULL */
	int kdepth, udepth;		/* kstack[:N], ustack[:N]: frames kept; 0 without */
	struct tpfield field[TPSTAT_BY_KEYS + 1];	/* its EXPR keys; [TPSTAT_BY_KEYS]: --value */
};

/*
 * --by TP:cpu alone, no --value: for a CPU below TPSTAT_SLOTS its key's count is the CPU's
 * count slot, which user space reads as the key (tpstat_read_keys()).
 */
static inline bool tp_by_cpu_alone(const struct tp_by *by)
{
	return by->nkeys == 1 && by->kind == TPSTAT_KEY_CPU && !by->value;
}

/* --filter TP:'EXPR OP VALUE' */
struct tp_filter {
	char tp_name[TP_NAME_LEN];
	struct tp_spec *tp;
	const char *text;		/* EXPR OP VALUE as given */
	struct tpfilter flt;		/* split, its EXPR compiled, its VALUE resolved */
};

/* --latency 'START:KEY,END:KEY[:MIN:MAX:STEP]': side 0 is START, side 1 END. */
struct tp_lat {
	const char *text;		/* as given */
	char tp_name[2][TP_NAME_LEN];
	struct tp_spec *tp[2];
	const char *key[2];		/* cpu, pid, cgroup or an EXPR */
	int kind[2];			/* enum tpfilter_key */
	struct buckets_linear range;	/* linear buckets of ns, or log2 */
	struct tpfield field[2];	/* each side's EXPR key, compiled */
};

/* One counted tracepoint. */
struct tp_spec {
	const char *name;		/* as named: a TRACEPOINT, or an item's TP */
	int slot;			/* its program (tpstat_SLOT, tpstat_hist_SLOT) and counters */
	const struct tp_info *info;	/* its kind and module, once resolved */
	bool reads_fields;		/* --hist, --by, --filter or --latency on it */
	struct tp_hist *hists[TPSTAT_MAX_HIST];	/* its --hist and --lhist, in the order given */
	int nhists;
	struct tp_by *bys[TPSTAT_MAX_BY];
	int nbys;
	struct tp_filter *filters[TPSTAT_MAX_FILTER];	/* ANDed in this order */
	int nfilters;
	struct tp_lat *lats[TPSTAT_MAX_LAT];	/* the --latency that end here */
	int nlats;
};

struct tpstat_specs {
	int n, cap;
	struct tp_spec *tp;		/* n of them, any number; tp[i].slot == i */
	int nhist;
	struct tp_hist hist[TPSTAT_MAX_HIST];
	int nby;
	struct tp_by by[TPSTAT_MAX_BY];
	int stack_entries;		/* --stack-entries: the stack keys' table (0: the default) */
	int nfilter;
	struct tp_filter filter[TPSTAT_MAX_FILTER];
	int nlat;
	struct tp_lat lat[TPSTAT_MAX_LAT];
};

/*
 * Parsing (tpstat_cli.c calls these as argp hands it the options; a usage error ends the
 * program with one line): a TRACEPOINT, and each item's text.
 */
void tpstat_spec_name(struct tpstat_specs *s, char *name);
void tpstat_spec_hist(struct tpstat_specs *s, char *arg);
void tpstat_spec_lhist(struct tpstat_specs *s, char *arg);
void tpstat_spec_by(struct tpstat_specs *s, char *arg);
void tpstat_spec_value(struct tpstat_specs *s, char *arg);
void tpstat_spec_filter(struct tpstat_specs *s, char *arg);
void tpstat_spec_latency(struct tpstat_specs *s, char *arg);

/* At the end of the options: refuse an item given twice (one series per item). */
void tpstat_specs_once(const struct tpstat_specs *s);

/*
 * Then give every item its tracepoint's spec, adding a spec after the TRACEPOINTs for an
 * item's TP not named (a --hist tracepoint is counted too: its samples add up to its count).
 */
void tpstat_specs_group(struct tpstat_specs *s);

/*
 * Each spec's tracepoint from the kernel's list @l, after the specs of patterns ('sched:*',
 * 'pelt_*') are replaced with one per tracepoint they match (tpstat_expand.h; the items
 * follow their specs to their new places); for the first name that does not exist, or a
 * pattern that matches nothing, one line (a module to load, the closest names, or the '--'
 * a @command forgot) and EXIT_USAGE.
 */
int tpstat_specs_resolve(struct tpstat_specs *s, const struct tp_list *l, bool command);

/*
 * Compile each item's EXPR against its tracepoint's arguments in BTF. Returns 0, EXIT_USAGE
 * after one line naming what exists instead, or 1.
 */
int tpstat_specs_compile(struct tpstat_specs *s);

#endif /* __BAREATOM_TPSTAT_SPECS_H */
