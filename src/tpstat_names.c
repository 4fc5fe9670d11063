// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints tpstat can count (tpstat_names.h): the kernel's list, -l and -lv.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tpstat_opts.h"
#include "src/cli.h"
#include "src/tpstat_fmt.h"
#include "src/tpstat_names.h"
#include "src/tpfield.h"
#include "src/json.h"

/* The kernel's raw tracepoints, or one line saying why not (the caller exits 1). */
int tpstat_load_tracepoints(struct tp_list *l, void (*seen)(const struct btf *vmlinux, void *arg),
			    void *arg)
{
	int err = tplist_load_with(l, seen, arg);

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

	if (tpstat_load_tracepoints(&l, NULL, NULL))
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
