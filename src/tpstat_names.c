// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints tpstat names (tpstat_names.h): the kernel's list, -l and -lv, names
 * resolved with suggestions, --hist expressions compiled against BTF.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/tpstat_opts.h"
#include "src/cli.h"
#include "src/tpstat_fmt.h"
#include "src/tpstat_names.h"
#include "src/json.h"

/* The kernel's raw tracepoints, or one line saying why not (the caller exits 1). */
int tpstat_load_tracepoints(struct tp_list *l)
{
	int err = tplist_load(l);

	if (err == -ENOENT)
		fprintf(stderr, "tpstat: this kernel has no BTF (" TP_BTF_DIR "/vmlinux): "
			"it needs CONFIG_DEBUG_INFO_BTF=y\n");
	else if (err)
		fprintf(stderr, "tpstat: cannot read the kernel's BTF: %s\n", strerror(-err));
	return err;
}

/* -lv: @tp's arguments, or false when its BTF cannot tell (a module unloading under us). */
static bool proto_of(struct tpfield_btfs *btfs, const struct tp_info *tp, struct tpfield_proto *p)
{
	const struct btf *btf = tpfield_btf(btfs, tp->module);

	return btf && !tpfield_proto(btf, tp->name, p);
}

static void list_json(const struct tpstat_opts *o, struct json *j, struct tpfield_btfs *btfs,
		      const struct tp_info *tp)
{
	struct tpfield_proto p;
	char proto[1024];

	json_object_begin(j);
	json_string_field(j, "name", tp->name);
	fmt_json_kind_field(j, tp->kind);
	json_string_field(j, "module", tp->module);
	if (o->verbose) {
		if (proto_of(btfs, tp, &p)) {
			tpfield_proto_str(tp->name, &p, proto, sizeof(proto));
			json_string_field(j, "proto", proto);
			json_bool_field(j, "arg_names", p.named);
			json_array_field_begin(j, "args");
			for (int i = 0; i < p.nargs; i++) {
				json_object_begin(j);
				json_string_field(j, "name", p.args[i].name);
				json_string_field(j, "type", p.args[i].type);
				json_object_end(j);
			}
			json_array_end(j);
		} else {
			json_null_field(j, "proto");
		}
	}
	json_object_end(j);
}

static void list_text(const struct tpstat_opts *o, struct tpfield_btfs *btfs,
		      const struct tp_info *tp)
{
	struct tpfield_proto p;
	char proto[1024];

	if (!o->verbose) {
		printf("%-40s %-5s %s\n", tp->name, tp_kind_name(tp->kind), tp->module);
		return;
	}
	if (proto_of(btfs, tp, &p))
		tpfield_proto_str(tp->name, &p, proto, sizeof(proto));
	else
		snprintf(proto, sizeof(proto), "%s(?)", tp->name);
	printf("%-5s %-12s %s\n", tp_kind_name(tp->kind), tp->module, proto);
}

/* -l's choice: GLOB and --bare. */
static bool listed(const struct tpstat_opts *o, const struct tp_info *tp)
{
	if (o->glob && fnmatch(o->glob, tp->name, 0))
		return false;
	return !o->bare_only || tp->kind == TP_KIND_BARE;
}

int tpstat_list(const struct tpstat_opts *o)
{
	struct tpfield_btfs btfs = { .dir = TP_BTF_DIR };
	struct tp_list l;
	struct json j;
	size_t shown = 0;

	if (tpstat_load_tracepoints(&l))
		return 1;
	tplist_sort(&l);
	for (size_t i = 0; i < l.n; i++) {
		if (o->bare_only && l.tps[i].kind == TP_KIND_UNKNOWN) {
			fprintf(stderr, "tpstat: --bare: cannot tell bare tracepoints from trace events "
				"without tracefs (mount -t tracefs nodev /sys/kernel/tracing)\n");
			tplist_free(&l);
			return 1;
		}
		shown += listed(o, &l.tps[i]);
	}
	/* Nothing to list is an error, with no table header before it. */
	if (!shown && (o->glob || o->bare_only)) {
		fprintf(stderr, "tpstat: no %stracepoint%s%s%s\n", o->bare_only ? "bare " : "",
			o->glob ? " matches '" : "", o->glob ? o->glob : "", o->glob ? "'" : "");
		tplist_free(&l);
		return 1;
	}
	json_init(&j, stdout);
	if (o->json)
		json_array_begin(&j);
	else if (o->verbose)
		printf("%-5s %-12s %s\n", "KIND", "MODULE", "PROTOTYPE");
	else
		printf("%-40s %-5s %s\n", "TRACEPOINT", "KIND", "MODULE");
	for (size_t i = 0; i < l.n; i++) {
		const struct tp_info *tp = &l.tps[i];

		if (!listed(o, tp))
			continue;
		if (o->json)
			list_json(o, &j, &btfs, tp);
		else
			list_text(o, &btfs, tp);
	}
	if (o->json)
		json_array_end(&j);	/* ends the line */
	tpfield_btfs_free(&btfs);
	tplist_free(&l);
	return 0;
}

/* Whether @name is a program the shell would run: a path, or a file in $PATH, executable. */
static bool is_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];

	if (strchr(name, '/'))
		return !access(name, X_OK);
	for (p = path; p && *p; p = colon ? colon + 1 : NULL) {
		size_t len;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		if (len && snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		if (!colon)
			break;
	}
	return false;
}

/* Resolve every name to a tracepoint; explain the first that does not exist. */
int tpstat_resolve_names(const struct tpstat_opts *o, const struct tp_list *l,
			 const struct tp_info **tps)
{
	for (int i = 0; i < o->n; i++) {
		const char *sugg[3];
		char module[TP_MODULE_LEN];
		int ns;

		tps[i] = tplist_find(l, o->names[i]);
		if (tps[i])
			continue;
		if (tplist_find_unloaded(o->names[i], module, sizeof(module))) {
			fprintf(stderr, "tpstat: tracepoint '%s' belongs to module %s, which is not loaded "
				"(modprobe %s)\n", o->names[i], module, module);
			return EXIT_USAGE;
		}
		/* "tpstat sched_switch make": the command without its "--". */
		if (!o->command && is_program(o->names[i])) {
			fprintf(stderr, "tpstat: unknown tracepoint '%s', which is a program: did you forget "
				"'--' before the command? (tpstat TRACEPOINT... -- %s ...)\n", o->names[i],
				o->names[i]);
			return EXIT_USAGE;
		}
		ns = tplist_suggest(l, o->names[i], sugg, 3);
		fprintf(stderr, "tpstat: unknown tracepoint '%s'", o->names[i]);
		for (int k = 0; k < ns; k++)
			fprintf(stderr, "%s%s", k ? (k == ns - 1 ? " or " : ", ") : "; did you mean ", sugg[k]);
		fprintf(stderr, "%s\n", ns ? "?" : " (tpstat -l lists them)");
		return EXIT_USAGE;
	}
	return 0;
}

/* A named field of @tp (tpfield_aliases) within two edits of @expr, as "utl" for "util". */
static const char *near_named(const char *tp, const char *expr)
{
	const char *best = NULL;
	int best_d = 3;

	for (const struct tpfield_alias *a = tpfield_aliases; a->tp; a++) {
		int d;

		if (strcmp(a->tp, tp))
			continue;
		d = tplist_distance(expr, a->name);
		if (d < best_d) {
			best = a->name;
			best_d = d;
		}
	}
	return best;
}

/* @expr of --@opt against @tp's arguments in BTF: 0, or one line and EXIT_USAGE (1). */
static int compile_any(struct tpfield_btfs *btfs, const struct tp_info *tp, const char *opt,
		       const char *expr, struct tpfield *f, bool key)
{
	const struct btf *btf = tpfield_btf(btfs, tp->module);
	const char *named = tpfield_named(tp->name, expr);
	char err[TPFIELD_ERR_LEN];
	struct tpfield_proto p;

	if (!btf || tpfield_proto(btf, tp->name, &p)) {
		fprintf(stderr, "tpstat: --%s %s:%s: cannot read the prototype of %s from BTF\n",
			opt, tp->name, expr, tp->name);
		return 1;
	}
	/* A named field (util, cpu, ...) is its expression, unless an argument has the name. */
	for (int i = 0; named && i < p.nargs; i++)
		if (!strcmp(p.args[i].name, expr))
			named = NULL;
	if ((key ? tpfield_compile_key : tpfield_compile)(btf, &p, named ? named : expr, f, err,
							   sizeof(err))) {
		const char *near = named ? NULL : near_named(tp->name, expr);

		fprintf(stderr, "tpstat: --%s %s:%s%s%s%s: %s%s%s%s\n", opt, tp->name, expr,
			named ? " (" : "", named ? named : "", named ? ")" : "", err,
			near ? "; did you mean the named field '" : "", near ? near : "", near ? "'?" : "");
		return EXIT_USAGE;
	}
	return 0;
}

static int compile_one(struct tpfield_btfs *btfs, const struct tp_info *tp, const char *opt,
		       const char *expr, struct tpfield *f)
{
	return compile_any(btfs, tp, opt, expr, f, false);
}

/* --filter @k: split, its EXPR compiled, its VALUE resolved into @flt; 0 or EXIT_USAGE. */
static int compile_filter(struct tpfield_btfs *btfs, const struct tp_info *tp,
			  const struct tpstat_filter_opt *fo, struct tpfilter *flt)
{
	char err[TPFIELD_ERR_LEN];
	struct tpfilter_text t;
	int status;

	memset(flt, 0, sizeof(*flt));
	if (tpfilter_split(fo->text, &t, err, sizeof(err))) {
		fprintf(stderr, "tpstat: --filter '%s:%s': %s\n", tp->name, fo->text, err);
		return EXIT_USAGE;
	}
	flt->key = tpfilter_key(t.expr);
	if (flt->key == TPFILTER_KEY_EXPR) {
		status = compile_one(btfs, tp, "filter", t.expr, &flt->field);
		if (status)
			return status;
	}
	if (tpfilter_resolve(tpfield_btf(btfs, tp->module), &t, flt, err, sizeof(err))) {
		fprintf(stderr, "tpstat: --filter '%s:%s': %s\n", tp->name, fo->text, err);
		return EXIT_USAGE;
	}
	return 0;
}

int tpstat_compile_fields(const struct tpstat_opts *o, const struct tp_info *const *tps,
			  struct tpfield *fields, struct tpfield (*keys)[TPSTAT_BY_KEYS + 1],
			  struct tpfilter *filters, struct tpfield (*lat_keys)[2])
{
	struct tpfield_btfs btfs = { .dir = TP_BTF_DIR };
	int status = 0;

	for (int h = 0; h < o->nhist && !status; h++) {
		status = compile_one(&btfs, tps[o->hist[h].idx], o->hist[h].linear ? "lhist" : "hist",
				     o->hist[h].expr, &fields[h]);
		if (!status && o->hist[h].linear && !fields[h].is_signed && o->hist[h].lmin < 0) {
			fprintf(stderr, "tpstat: --lhist %s:%s: MIN %lld is negative, and %s is %s, "
				"which is unsigned\n", tps[o->hist[h].idx]->name, o->hist[h].expr,
				o->hist[h].lmin, o->hist[h].expr, fields[h].type);
			status = EXIT_USAGE;
		}
	}
	for (int b = 0; b < o->nby && !status; b++) {
		memset(keys[b], 0, sizeof(keys[b]));
		for (int i = 0; i < o->by[b].nkeys && !status; i++)
			if (o->by[b].kinds[i] == TPSTAT_KEY_EXPR)
				status = compile_one(&btfs, tps[o->by[b].idx], "by", o->by[b].keys[i],
						     &keys[b][i]);
		if (!status && o->by[b].value)
			status = compile_one(&btfs, tps[o->by[b].idx], "value", o->by[b].value,
					     &keys[b][TPSTAT_BY_KEYS]);
	}
	for (int k = 0; k < o->nfilter && !status; k++)
		status = compile_filter(&btfs, tps[o->filter[k].idx], &o->filter[k], &filters[k]);
	for (int k = 0; k < o->nlat && !status; k++)
		for (int side = 0; side < 2 && !status; side++) {
			memset(&lat_keys[k][side], 0, sizeof(lat_keys[k][side]));
			if (o->lat[k].kind[side] == TPFILTER_KEY_EXPR)
				status = compile_any(&btfs, tps[o->lat[k].idx[side]], "latency",
						     o->lat[k].key[side], &lat_keys[k][side], true);
		}
	tpfield_btfs_free(&btfs);
	return status;
}
