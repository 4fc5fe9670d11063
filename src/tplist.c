// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "src/tplist.h"

#define BTF_TRACE_PREFIX "btf_trace_"

const char *tp_kind_name(enum tp_kind kind)
{
	switch (kind) {
	case TP_KIND_BARE: return "bare";
	case TP_KIND_EVENT: return "event";
	default: return "?";
	}
}

static int tplist_add(struct tp_list *l, const char *name, const char *module)
{
	struct tp_info *tp;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 2048;
		struct tp_info *v = realloc(l->tps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->tps = v;
		l->cap = cap;
	}
	tp = &l->tps[l->n++];
	snprintf(tp->name, sizeof(tp->name), "%s", name);
	snprintf(tp->module, sizeof(tp->module), "%s", module);
	tp->kind = TP_KIND_UNKNOWN;
	tp->system[0] = '\0';
	return 0;
}

/* Add the btf_trace_* typedefs of @btf whose ids are at least @first. */
static int tplist_add_btf(struct tp_list *l, const struct btf *btf, __u32 first, const char *module)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = first; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_typedef(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strncmp(name, BTF_TRACE_PREFIX, strlen(BTF_TRACE_PREFIX)))
			continue;
		if (tplist_add(l, name + strlen(BTF_TRACE_PREFIX), module))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct tp_info *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Mark which tracepoints are also trace events, from tracefs' available_events. */
static void tplist_mark_events(struct tp_list *l)
{
	static const char * const paths[] = {
		"/sys/kernel/tracing/available_events",
		"/sys/kernel/debug/tracing/available_events",
	};
	char line[512];
	FILE *f = NULL;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !f; i++)
		f = fopen(paths[i], "r");
	if (!f)
		return;
	qsort(l->tps, l->n, sizeof(*l->tps), cmp_name);
	for (size_t i = 0; i < l->n; i++)
		l->tps[i].kind = TP_KIND_BARE;
	while (fgets(line, sizeof(line), f)) {
		char *event = strchr(line, ':');
		struct tp_info key, *tp;

		if (!event)
			continue;
		*event++ = '\0';	/* line is the subsystem */
		event[strcspn(event, "\n")] = '\0';
		snprintf(key.name, sizeof(key.name), "%s", event);
		tp = bsearch(&key, l->tps, l->n, sizeof(*l->tps), cmp_name);
		/* A name can exist in several modules; mark every copy. */
		while (tp && tp > l->tps && !strcmp((tp - 1)->name, event))
			tp--;
		for (; tp && tp < l->tps + l->n && !strcmp(tp->name, event); tp++) {
			tp->kind = TP_KIND_EVENT;
			snprintf(tp->system, sizeof(tp->system), "%.*s", (int)sizeof(tp->system) - 1, line);
		}
	}
	fclose(f);
}

int tplist_load(struct tp_list *l)
{
	return tplist_load_with(l, NULL, NULL);
}

int tplist_load_with(struct tp_list *l, void (*seen)(const struct btf *vmlinux, void *arg),
		     void *arg)
{
	struct btf *vmlinux;
	struct dirent *de;
	DIR *dir;
	int err;

	memset(l, 0, sizeof(*l));
	if (access(TP_BTF_DIR "/vmlinux", R_OK))
		return -ENOENT;
	vmlinux = btf__parse(TP_BTF_DIR "/vmlinux", NULL);
	if (!vmlinux)
		return -errno;
	if (seen)
		seen(vmlinux, arg);
	err = tplist_add_btf(l, vmlinux, 1, "vmlinux");
	dir = opendir(TP_BTF_DIR);
	while (!err && dir && (de = readdir(dir))) {
		char path[512];
		struct btf *mod;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", TP_BTF_DIR, de->d_name);
		mod = btf__parse_split(path, vmlinux);
		if (!mod)
			continue;	/* a module unloading under us */
		err = tplist_add_btf(l, mod, btf__type_cnt(vmlinux), de->d_name);
		btf__free(mod);
	}
	if (dir)
		closedir(dir);
	btf__free(vmlinux);
	if (err) {
		tplist_free(l);
		return err;
	}
	tplist_mark_events(l);
	return 0;
}

void tplist_free(struct tp_list *l)
{
	free(l->tps);
	memset(l, 0, sizeof(*l));
}

const struct tp_info *tplist_find(const struct tp_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->tps[i].name, name))
			return &l->tps[i];
	return NULL;
}

int tplist_order(const struct tp_info *x, const struct tp_info *y)
{
	int xv = !strcmp(x->module, "vmlinux"), yv = !strcmp(y->module, "vmlinux");

	if (xv != yv)
		return yv - xv;
	if (strcmp(x->module, y->module))
		return strcmp(x->module, y->module);
	return strcmp(x->name, y->name);
}

static int cmp_module_name(const void *a, const void *b)
{
	return tplist_order(a, b);
}

void tplist_sort(struct tp_list *l)
{
	qsort(l->tps, l->n, sizeof(*l->tps), cmp_module_name);
}

int tplist_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char row[TP_NAME_LEN + 1];

	if (la > TP_NAME_LEN || lb > TP_NAME_LEN)
		return 255;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned char diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned char up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1U < best)
				best = up + 1U;
			if (row[j - 1] + 1U < best)
				best = row[j - 1] + 1U;
			row[j] = best > 255 ? 255 : best;
			diag = up;
		}
	}
	return row[lb];
}

int tplist_suggest(const struct tp_list *l, const char *name, const char **out, int max)
{
	int best[8], n = 0;
	int limit = strlen(name) / 3 + 1;

	if (max > 8)
		max = 8;
	if (limit < 2)
		limit = 2;
	for (size_t i = 0; i < l->n; i++) {
		const char *cand = l->tps[i].name;
		int d = tplist_distance(name, cand), pos;

		/* A name the user typed a part of is a good suggestion too. */
		if (d > limit && strlen(name) >= 4 && strstr(cand, name))
			d = limit;
		if (d > limit)
			continue;
		for (int k = 0; k < n; k++)
			if (!strcmp(out[k], cand))
				goto next;
		for (pos = n; pos > 0 && best[pos - 1] > d; pos--)
			;
		if (pos >= max)
			continue;
		if (n < max)
			n++;
		memmove(&out[pos + 1], &out[pos], (n - pos - 1) * sizeof(*out));
		memmove(&best[pos + 1], &best[pos], (n - pos - 1) * sizeof(*best));
		out[pos] = cand;
		best[pos] = d;
next:;
	}
	return n;
}

/* nftw has no user pointer: the search state lives here during one call. */
static const char *unloaded_needle;
static size_t unloaded_needle_len;
static char unloaded_found[TP_MODULE_LEN];

static int unloaded_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t len = strlen(base);
	void *map;
	int fd, hit;

	if (type != FTW_F || len < 4 || strcmp(base + len - 3, ".ko") || !st->st_size)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	map = mmap(NULL, st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	hit = memmem(map, st->st_size, unloaded_needle, unloaded_needle_len) != NULL;
	munmap(map, st->st_size);
	if (!hit)
		return 0;
	snprintf(unloaded_found, sizeof(unloaded_found), "%.*s", (int)(len - 3), base);
	for (char *p = unloaded_found; *p; p++)
		if (*p == '-')
			*p = '_';
	return 1;
}

bool tplist_find_unloaded(const char *name, char *module, size_t len)
{
	char needle[TP_NAME_LEN + 32], dir[512];
	struct utsname u;

	if (uname(&u))
		return false;
	/* The tracepoint's BTF typedef name, NUL-terminated in the .BTF string section. */
	unloaded_needle_len = snprintf(needle, sizeof(needle), BTF_TRACE_PREFIX "%s", name) + 1;
	unloaded_needle = needle;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	if (nftw(dir, unloaded_visit, 16, FTW_PHYS) != 1)
		return false;
	snprintf(module, len, "%s", unloaded_found);
	return true;
}
