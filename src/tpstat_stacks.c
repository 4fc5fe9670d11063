// SPDX-License-Identifier: GPL-2.0
/* tpstat's stack keys: read, named, merged, printed (tpstat_stacks.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "src/tpstat_stacks.h"
#include "src/bpf_util.h"
#include "src/stack_ksym.h"
#include "src/stack_usym.h"
#include "src/stack_html.h"
#include "src/tpstat_stack_merge.h"
#include "tpstat.skel.h"	/* after tpstat_abi.h, whose types it names */

/* One entry of the stack table as read: its key (key_size bytes) and its count. */
struct raw_stack {
	const __u8 *key;
	struct tpstat_by_val v;
};

/* Entries of the table as read, in one allocation of keys. */
struct raw_table {
	__u8 *keys;
	struct raw_stack *e;
	size_t n;
	__u32 key_size;
};

int tpstat_stacks_open(struct tpstat_stacks *st, const struct tpstat_specs *sp,
		       struct tpstat_bpf *skel, bool files)
{
	*st = (struct tpstat_stacks){ .specs = sp, .skel = skel, .files = files };
	for (int b = 0; b < sp->nby; b++) {
		st->any |= sp->by[b].kdepth || sp->by[b].udepth;
		st->user |= sp->by[b].udepth;
	}
	/* No user stack: no exec tracking, and its table takes no room. */
	bpf_program__set_autoload(skel->progs.tpstat_exec, st->user);
	if (!st->user && bpf_map__set_max_entries(skel->maps.exec_files, 1)) {
		fprintf(stderr, "tpstat: cannot size the exec table\n");
		return 1;
	}
	if (!st->any)
		return 0;
	st->usym = usym_new();
	if (!st->usym) {
		fprintf(stderr, "tpstat: out of memory\n");
		return 1;
	}
	/* Our own libc and ld.so, which most processes map too. */
	usym_note_pid(st->usym, getpid());
	return 0;
}

void tpstat_stacks_close(struct tpstat_stacks *st)
{
	bpf_link__destroy(st->exec_link);
	st->exec_link = NULL;
	for (int b = 0; b < TPSTAT_MAX_BY; b++) {
		tpstat_stack_free(st->rows[b].e, st->rows[b].n);
		tpstat_stack_free(st->plain[b].e, st->plain[b].n);
	}
	if (st->ksyms) {
		ksym_free(st->ksyms);
		free(st->ksyms);
	}
	if (st->usym)
		usym_free(st->usym);
	st->any = false;
}

void tpstat_stacks_command(struct tpstat_stacks *st, const char *file)
{
	char path[4096];
	const char *dirs;

	if (!st->any || !file)
		return;
	if (strchr(file, '/')) {
		usym_add_file(st->usym, file);
		return;
	}
	/* As execvp() finds it. */
	dirs = getenv("PATH");
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *d;) {
		size_t len = strcspn(d, ":");

		snprintf(path, sizeof(path), "%.*s/%s", (int)len, len ? d : ".", file);
		if (!access(path, X_OK)) {
			usym_add_file(st->usym, path);
			return;
		}
		d += len + (d[len] == ':');
	}
}

/* A set of paths, each noted once (open addressing, a power of two slots, half full). */
struct path_set {
	char **slot;
	size_t n, used;
};

/* The slot of @path in @slot (@n, a power of two): its own, or the free one it would take. */
static size_t path_slot(char **slot, size_t n, const char *path)
{
	size_t h = 14695981039346656037ULL;	/* FNV-1a */

	for (const char *c = path; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	for (h &= n - 1; slot[h] && strcmp(slot[h], path); h = (h + 1) & (n - 1))
		;
	return h;
}

/* Add @path: 1 when new (the set keeps a copy), 0 when there, -ENOMEM. */
static int path_set_add(struct path_set *s, const char *path)
{
	size_t i;

	if (2 * (s->used + 1) > s->n) {
		size_t n = s->n ? 2 * s->n : 256;
		char **slot = calloc(n, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (i = 0; i < s->n; i++)
			if (s->slot[i])
				slot[path_slot(slot, n, s->slot[i])] = s->slot[i];
		free(s->slot);
		s->slot = slot;
		s->n = n;
	}
	i = path_slot(s->slot, s->n, path);
	if (s->slot[i])
		return 0;
	s->slot[i] = strdup(path);
	if (!s->slot[i])
		return -ENOMEM;
	s->used++;
	return 1;
}

static void path_set_free(struct path_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->slot[i]);
	free(s->slot);
}

/*
 * The files every process maps executable now: what the frames of a process alive at the
 * start, that exits before any read, are named from (the execs after it are tpstat_exec's,
 * and each read notes the processes it sees). Read once; each file indexed once. The
 * number of files indexed, or -ENOMEM.
 */
static long note_mapped(struct tpstat_stacks *st)
{
	struct path_set seen = {};
	char maps[300], *line = NULL;
	size_t len = 0;
	struct dirent *de;
	long noted = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(maps, sizeof(maps), "/proc/%s/maps", de->d_name);
		f = fopen(maps, "re");
		if (!f)
			continue;	/* gone, or not ours to read */
		/* "start-end perms offset dev inode path": executable mappings of files. */
		while (getline(&line, &len, f) > 0) {
			char *path = strchr(line, '/');
			char *perms = strchr(line, ' ');
			int r;

			if (!path || !perms || perms[3] != 'x')
				continue;
			path[strcspn(path, "\n")] = '\0';
			r = path_set_add(&seen, path);
			if (r < 0) {
				fclose(f);
				noted = r;
				goto out;
			}
			if (r && !usym_add_file(st->usym, path))
				noted++;
		}
		fclose(f);
	}
out:
	free(line);
	closedir(d);
	path_set_free(&seen);
	return noted;
}

int tpstat_stacks_attach(struct tpstat_stacks *st, bool running)
{
	if (!st->user)
		return 0;
	st->exec_link = bpf_program__attach(st->skel->progs.tpstat_exec);
	if (!st->exec_link) {
		fprintf(stderr, "tpstat: cannot follow execs (sched_process_exec): %s\n",
			util_bpf_load_hint(-errno));
		return 1;
	}
	/* After the attach: a process is either mapped now or exec'd from now on. */
	if (running && note_mapped(st) < 0) {
		fprintf(stderr, "tpstat: out of memory noting the processes' files\n");
		return 1;
	}
	return 0;
}

/*
 * The files exec'd since the last call (bpf/tpstat_exec.h), indexed by their build ids and
 * taken out of the table, which makes room for more.
 */
static void note_execs(struct tpstat_stacks *st)
{
	int fd = bpf_map__fd(st->skel->maps.exec_files);
	struct tpstat_exec_path p;
	char path[TPSTAT_EXEC_DEPTH * TPSTAT_EXEC_NAME + 1];
	__u64 key, next;
	bool first = true;

	if (!st->exec_link)
		return;
	/* Each entry read, then deleted: the next one is found from the start again. */
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		key = next;
		first = false;
		if (bpf_map_lookup_elem(fd, &key, &p))
			continue;
		if (!bpf_map_delete_elem(fd, &key))
			first = true;
		if (p.cut || !p.n || p.n > TPSTAT_EXEC_DEPTH)
			continue;
		path[0] = '\0';
		for (__u32 i = p.n; i-- > 0;) {
			size_t o = strlen(path);

			snprintf(path + o, sizeof(path) - o, "/%.*s", TPSTAT_EXEC_NAME,
				 p.name[i]);
		}
		usym_add_file(st->usym, path);
	}
}

/* Every entry of the stack table into @t: 0, or -errno. */
static int read_table(const struct tpstat_stacks *st, struct raw_table *t)
{
	int fd = bpf_map__fd(st->skel->maps.stack_counts);
	size_t cap = 0, room = 128;
	__u32 batch = 0, count;
	struct tpstat_by_val vals[128];
	bool first = true;
	int err;

	*t = (struct raw_table){ .key_size = bpf_map__key_size(st->skel->maps.stack_counts) };
	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		if (t->n + room > cap) {
			size_t ncap = cap ? 2 * cap : 1024;
			__u8 *k = realloc(t->keys, ncap * t->key_size);

			if (!k)
				return -ENOMEM;
			t->keys = k;
			cap = ncap;
		}
		count = room;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch,
					   t->keys + t->n * t->key_size, vals, &count, &o);
		if (err && errno != ENOENT)
			return -errno;
		first = false;
		{
			struct raw_stack *e = realloc(t->e, (t->n + count + 1) * sizeof(*e));

			if (!e)
				return -ENOMEM;
			t->e = e;
		}
		for (__u32 i = 0; i < count; i++)
			t->e[t->n + i].v = vals[i];
		t->n += count;
	} while (!err);
	for (size_t i = 0; i < t->n; i++)
		t->e[i].key = t->keys + i * t->key_size;
	return 0;
}

void tpstat_stacks_note(struct tpstat_stacks *st)
{
	struct raw_table t;

	if (!st->any)
		return;
	note_execs(st);
	if (read_table(st, &t))
		return;
	for (size_t i = 0; i < t.n; i++) {
		const struct tpstat_stack_key *h = (const void *)t.e[i].key;

		if (h->tgid)
			usym_note_pid(st->usym, (pid_t)h->tgid);
	}
	free(t.keys);
	free(t.e);
}

/* A growing list of frame names. */
struct names {
	char **v;
	int n, cap;
};

static int names_add(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		int ncap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n] = strdup(name);
	return l->v[l->n] ? (l->n++, 0) : -ENOMEM;
}

/*
 * A leaf frame of the tracepoint's own machinery, not of its caller: the BPF call
 * (bpf_trace_runN, __bpf_trace_NAME, a program) and a module tracepoint's iterator
 * (__traceiter_NAME; the kernel's own call their probes through static calls).
 */
static bool bpf_frame(const struct ksym *s)
{
	return s && ((s->module && !strcmp(s->module, "bpf")) ||
		     !strncmp(s->name, "bpf_trace_run", 13) || !strncmp(s->name, "__bpf_trace_", 12) ||
		     !strncmp(s->name, "__traceiter_", 12));
}

/* The kernel frames @ips (leaf first, up to the first 0, at most @max) into @out. */
static int name_kernel(struct tpstat_stacks *st, const __u64 *ips, int max, unsigned int flags,
		       struct names *out)
{
	char buf[STACK_NAME_LEN];
	bool leaf = true;

	for (int i = 0; i < max && ips[i]; i++) {
		if (leaf && bpf_frame(ksym_find(st->ksyms, ips[i])))
			continue;
		leaf = false;
		ksym_name(st->ksyms, ips[i], flags, buf, sizeof(buf));
		if (names_add(out, buf))
			return -ENOMEM;
	}
	return 0;
}

/* The user frames @f (leaf first, up to the first empty one) of @pid into @out. */
static int name_user(struct tpstat_stacks *st, pid_t pid, const struct bpf_stack_build_id *f,
		     int max, unsigned int flags, struct names *out)
{
	struct usym_frame uf;

	for (int i = 0; i < max && f[i].status != BPF_STACK_BUILD_ID_EMPTY; i++) {
		usym_build_id(st->usym, pid, &f[i], flags | STACK_NAME_RETADDR, &uf);
		for (int l = 0; l < uf.n; l++)
			if (names_add(out, uf.name[l]))
				return -ENOMEM;
	}
	return 0;
}

/* The tuple's keys other than the stacks, as one frame ("comm,pid"), or NULL. */
static char *other_keys(const struct tp_by *spec, const struct tpstat_stack_key *h)
{
	struct tpstat_by_row r = { .nk = spec->nkeys, .kind = spec->kind,
				   .is_signed = spec->field[0].is_signed };
	struct tpstat_by_entry e = {};
	char text[TPSTAT_BY_KEYS * (FMT_KEY_LEN + 1)] = "";
	size_t o = 0;

	memcpy(e.k, h->k, sizeof(e.k));
	for (int i = 0; i < spec->nkeys; i++) {
		r.keys[i] = spec->keys[i];
		r.kinds[i] = spec->kinds[i];
		r.signed_keys[i] = spec->field[i].is_signed;
	}
	for (int i = 0; i < spec->nkeys; i++) {
		if (spec->kinds[i] == TPSTAT_KEY_KSTACK || spec->kinds[i] == TPSTAT_KEY_USTACK)
			continue;
		if (o)
			text[o++] = ',';
		fmt_by_key_i(&r, &e, i, text + o, sizeof(text) - o);
		o += strlen(text + o);
	}
	return o ? strdup(text) : NULL;
}

/* Raw entry @r of --by @b as a named entry (@flags: enum stack_name_flags). */
static int name_entry(struct tpstat_stacks *st, const struct tp_by *spec,
		      const struct raw_stack *r, unsigned int flags, struct stack_entry *out)
{
	const struct tpstat_stack_key *h = (const void *)r->key;
	const __u8 *frames = r->key + sizeof(*h);
	struct names k = {}, u = {};
	int err = 0;

	*out = (struct stack_entry){ .count = r->v.count, .key = other_keys(spec, h) };
	if (spec->kdepth)
		err = name_kernel(st, (const __u64 *)frames, spec->kdepth, flags, &k);
	if (!err && spec->udepth)
		err = name_user(st, (pid_t)h->tgid, (const void *)(frames +
				TPSTAT_KSTACK_BYTES(spec->kdepth)), spec->udepth, flags, &u);
	out->kframes = (const char *const *)k.v;
	out->nk = k.n;
	out->uframes = (const char *const *)u.v;
	out->nu = u.n;
	return err;
}

/* The entries of --by @b in @t, named with @flags and merged, into *@out. */
static int name_by(struct tpstat_stacks *st, int b, const struct raw_table *t, unsigned int flags,
		   struct stack_entry **out, size_t *nout)
{
	const struct tp_by *spec = &st->specs->by[b];
	bool sg = spec->field[TPSTAT_BY_KEYS].is_signed;
	struct stack_entry *e = calloc(t->n + 1, sizeof(*e));
	struct tpstat_by_val *v = calloc(t->n + 1, sizeof(*v));
	size_t n = 0;

	if (!e || !v) {
		free(e);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct tpstat_stack_key *h = (const void *)t->e[i].key;

		if (h->by != (__u32)b)
			continue;
		v[n] = t->e[i].v;
		if (name_entry(st, spec, &t->e[i], flags, &e[n++])) {
			tpstat_stack_free(e, n);
			free(v);
			return -ENOMEM;
		}
	}
	n = tpstat_stack_merge(e, v, n, sg);
	for (size_t i = 0; spec->value && i < n; i++) {
		e[i].value = tpstat_stack_value(&v[i], sg);
		if (!e[i].value) {
			tpstat_stack_free(e, n);
			free(v);
			return -ENOMEM;
		}
	}
	free(v);
	*nout = n;
	*out = e;
	return 0;
}

/* The accounting of --by @b: its tracepoint's count and what found no entry. */
static struct stack_acct by_acct(const struct tpstat_stacks *st, int b, const struct tpstat_snap *snap)
{
	const struct tpstat_stack_stats *ss = &st->skel->bss->stack_stats[b];
	const struct tpstat_by_stats *bs = &st->skel->bss->by_stats[b];
	const struct tp_counts *c = &snap->tp[st->specs->by[b].tp->slot].c;
	struct stack_acct a = {
		.truncated = __atomic_load_n(&ss->truncated, __ATOMIC_RELAXED),
		.map_full = __atomic_load_n(&ss->map_full, __ATOMIC_RELAXED),
		.no_ustack = __atomic_load_n(&ss->no_ustack, __ATOMIC_RELAXED),
		/* A tuple's other key that could not be read: the stack was not taken either. */
		.read_error = __atomic_load_n(&ss->read_error, __ATOMIC_RELAXED) +
			      __atomic_load_n(&bs->errors, __ATOMIC_RELAXED),
	};

	for (int s = 0; s < TPSTAT_NR_SLOTS; s++)
		a.count += c->slot[s];
	return a;
}

void tpstat_stacks_final(struct tpstat_stacks *st, struct tpstat_snap *snap)
{
	struct raw_table t;
	int err;

	if (!st->any)
		return;
	note_execs(st);
	if (st->skel->bss->exec_lost)
		fprintf(stderr, "tpstat: %llu exec'd files were not noted (more than %d new between "
			"two reads): frames of their processes that exited show as [build-id]+offset\n",
			(unsigned long long)st->skel->bss->exec_lost, TPSTAT_EXEC_FILES);
	if (!st->ksyms) {
		st->ksyms = calloc(1, sizeof(*st->ksyms));
		if (!st->ksyms || ksym_load(st->ksyms, NULL))
			fprintf(stderr, "tpstat: cannot read /proc/kallsyms: kernel frames by "
				"address\n");
	}
	err = read_table(st, &t);
	if (err)
		fprintf(stderr, "tpstat: cannot read the stack table: %s\n", strerror(-err));
	for (int b = 0; b < st->specs->nby; b++) {
		struct tpstat_stack_row *row = &st->rows[b];
		struct tpstat_stack_plain *p = &st->plain[b];

		if (!st->specs->by[b].kdepth && !st->specs->by[b].udepth)
			continue;
		tpstat_stack_free(row->e, row->n);
		tpstat_stack_free(p->e, p->n);
		row->e = p->e = NULL;
		row->n = p->n = 0;
		/* Naming is most of the report's time: without offsets only for the files. */
		if (!err && (name_by(st, b, &t, STACK_NAME_OFFSET, &row->e, &row->n) ||
			     (st->files && name_by(st, b, &t, 0, &p->e, &p->n))))
			fprintf(stderr, "tpstat: out of memory naming the stacks\n");
		row->acct = by_acct(st, b, snap);
		row->named = true;
		snap->by[b].stacks = row;
	}
	if (!err) {
		free(t.keys);
		free(t.e);
	}
}

/* The tracepoint of --by @spec by its name. */
static const char *by_tp(const struct tp_by *spec)
{
	return spec->tp->info ? spec->tp->info->name : spec->tp_name;
}

int tpstat_stacks_files(const struct tpstat_stacks *st, const char *folded,
			const char *flamegraph)
{
	struct stack_group g[TPSTAT_MAX_BY];
	char roots[TPSTAT_MAX_BY][256], title[512];
	size_t ng = 0, o;
	int err;

	for (int b = 0; b < st->specs->nby; b++) {
		if (!st->specs->by[b].kdepth && !st->specs->by[b].udepth)
			continue;
		/* --by @b as given: "TRACEPOINT:KEY". */
		snprintf(roots[ng], sizeof(roots[ng]), "%s:%s", by_tp(&st->specs->by[b]),
			 st->specs->by[b].key);
		g[ng] = (struct stack_group){ .root = roots[ng], .e = st->plain[b].e,
					      .n = st->plain[b].n, .acct = &st->rows[b].acct };
		ng++;
	}
	if (!ng)
		return 0;
	/* One stack --by: its frames from the root up; several: each under its name. */
	o = snprintf(title, sizeof(title), "tpstat:");
	for (int b = 0, k = 0; b < st->specs->nby && o < sizeof(title); b++) {
		const struct tp_by *spec = &st->specs->by[b];

		if (spec->kdepth || spec->udepth)
			o += snprintf(title + o, sizeof(title) - o, "%s %s by %s", k++ ? "," : "",
				      by_tp(spec), spec->key);
	}
	if (ng == 1)
		g[0].root = NULL;
	if (folded) {
		err = stack_fold_file(folded, g, ng);
		if (err) {
			fprintf(stderr, "tpstat: cannot write %s: %s\n", folded, strerror(-err));
			return 1;
		}
	}
	if (flamegraph) {
		err = stack_html_file(flamegraph, title, g, ng);
		if (err) {
			fprintf(stderr, "tpstat: cannot write %s: %s\n", flamegraph, strerror(-err));
			return 1;
		}
	}
	return 0;
}
