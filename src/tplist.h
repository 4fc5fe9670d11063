/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raw tracepoints a kernel offers: every BTF typedef btf_trace_NAME in
 * /sys/kernel/btf/vmlinux and in each loaded module's BTF, with whether a
 * tracefs event of the same name exists (a bare tracepoint has none).
 */
#ifndef __BAREATOM_TPLIST_H
#define __BAREATOM_TPLIST_H

#include <stdbool.h>
#include <stddef.h>

#define TP_NAME_LEN 128
#define TP_MODULE_LEN 64
#define TP_SYSTEM_LEN 64

enum tp_kind {
	TP_KIND_BARE,		/* no tracefs event: only BPF can attach */
	TP_KIND_EVENT,		/* also a tracefs event, visible to perf */
	TP_KIND_UNKNOWN,	/* tracefs is not mounted, cannot tell */
};

struct tp_info {
	char name[TP_NAME_LEN];
	char module[TP_MODULE_LEN];	/* "vmlinux" or the module's name */
	enum tp_kind kind;
	char system[TP_SYSTEM_LEN];	/* an event's subsystem (tracefs events/SYSTEM/), or "" */
};

struct tp_list {
	struct tp_info *tps;
	size_t n, cap;
};

/* Where the kernel's BTF lives; tests of the error path hide it with a mount. */
#define TP_BTF_DIR "/sys/kernel/btf"

struct btf;

/* Fill @l from BTF and tracefs. Returns 0, or -ENOENT when the kernel has no BTF. */
int tplist_load(struct tp_list *l);
/*
 * tplist_load(), handing the kernel's vmlinux BTF to @seen(@arg) while it is parsed, so that
 * a caller that needs it too does not parse it again (@seen may be NULL).
 */
int tplist_load_with(struct tp_list *l, void (*seen)(const struct btf *vmlinux, void *arg),
		     void *arg);
void tplist_free(struct tp_list *l);
const struct tp_info *tplist_find(const struct tp_list *l, const char *name);
/* Sort by module (vmlinux first), then name; tplist_order() compares two as the sort does. */
void tplist_sort(struct tp_list *l);
int tplist_order(const struct tp_info *x, const struct tp_info *y);

/* Up to @max names closest to @name (edit distance), closest first. Returns the count. */
int tplist_suggest(const struct tp_list *l, const char *name, const char **out, int max);
/* Levenshtein distance, capped at 255. */
int tplist_distance(const char *a, const char *b);

/*
 * Look for @name among the modules of the running kernel that are not loaded
 * (/lib/modules/RELEASE). Returns true and the module's name when found.
 */
bool tplist_find_unloaded(const char *name, char *module, size_t len);

const char *tp_kind_name(enum tp_kind kind);

#endif /* __BAREATOM_TPLIST_H */
