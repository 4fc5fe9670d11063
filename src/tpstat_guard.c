// SPDX-License-Identifier: GPL-2.0
/* Plain updates or atomics: the running kernel's guard against nested runs (tpstat_guard.h). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "src/tpstat_guard.h"

bool tpstat_guard_plain(const struct tpstat_guard *g)
{
	if (!g->has_btf || !g->has_active)
		return false;
	return g->has_miss_fn || g->major > 6 || (g->major == 6 && g->minor >= 1);
}

void tpstat_guard_describe(const struct tpstat_guard *g, const char *release, char *buf,
			   size_t len)
{
	const char *why;

	if (!g->has_btf)
		why = "its BTF could not be read";
	else if (!g->has_active)
		why = "its struct bpf_prog has no member active";
	else if (g->has_miss_fn)
		why = "bpf_prog_inc_misses_counter is in its BTF";
	else if (tpstat_guard_plain(g))
		why = "6.1 or later";
	else
		why = "before 6.1, and no bpf_prog_inc_misses_counter in its BTF";
	if (tpstat_guard_plain(g))
		snprintf(buf, len, "tpstat: plain updates where one program owns the memory: this "
			 "kernel (%s) refuses a raw_tp program's nested run (%s)", release, why);
	else
		snprintf(buf, len, "tpstat: atomic updates everywhere: this kernel (%s) may run a "
			 "raw_tp program nested in itself (%s)", release, why);
}

/* Does struct @name of @btf have a member @member? */
static bool has_member(const struct btf *btf, const char *name, const char *member)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), member))
			return true;
	return false;
}

void tpstat_guard_read(struct tpstat_guard *g, const struct btf *vmlinux, char *release,
		       size_t len)
{
	struct utsname u;

	*g = (struct tpstat_guard){ 0 };
	snprintf(release, len, "%s", uname(&u) ? "unknown" : u.release);
	if (sscanf(release, "%d.%d", &g->major, &g->minor) != 2)
		g->major = g->minor = 0;
	if (!vmlinux)
		return;
	g->has_btf = true;
	g->has_active = has_member(vmlinux, "bpf_prog", "active");
	g->has_miss_fn = btf__find_by_name_kind(vmlinux, "bpf_prog_inc_misses_counter",
						BTF_KIND_FUNC) > 0;
}

void tpstat_guard_probe(struct tpstat_guard *g, char *release, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();

	tpstat_guard_read(g, libbpf_get_error(btf) ? NULL : btf, release, len);
	if (!libbpf_get_error(btf))
		btf__free(btf);
}

bool tpstat_guard_say(const struct tpstat_guard *g, const char *release, bool verbose)
{
	char line[512];

	if (verbose) {
		tpstat_guard_describe(g, release, line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
	return tpstat_guard_plain(g);
}

bool tpstat_guard_choose(bool verbose)
{
	struct tpstat_guard g;
	char release[128];

	tpstat_guard_probe(&g, release, sizeof(release));
	return tpstat_guard_say(&g, release, verbose);
}
