// SPDX-License-Identifier: GPL-2.0
/* Kernel frames by name from /proc/kallsyms (stack_ksym.h says what and why). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/stack_ksym.h"

static int is_text_type(char c)
{
	return c == 't' || c == 'T' || c == 'w' || c == 'W';
}

/* By address; equal addresses keep the file's order (the first name stays first). */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * One line, NUL-terminated in place: "ADDR TYPE NAME" and an optional "\t[MODULE]".
 * Returns 1 for a text symbol in *@s, 0 for a line to skip.
 */
static int parse_line(char *line, struct ksym *s)
{
	char *p = line, *end, *name, *mod;
	unsigned long long addr;

	errno = 0;
	addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno)
		return 0;
	p = end + 1;
	if (!*p || p[1] != ' ' || !is_text_type(*p))
		return 0;
	name = p + 2;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[') {
			char *close = strchr(++mod, ']');

			if (close)
				*close = '\0';
		}
		if (!*mod)
			mod = NULL;
	}
	if (!*name)
		return 0;
	s->addr = addr;
	s->name = name;
	s->module = mod;
	return 1;
}

int ksym_parse(struct ksym_table *t, const char *text, size_t len)
{
	size_t cap = 0, nonzero = 0, lines = 0;
	char *p, *end;

	memset(t, 0, sizeof(*t));
	t->text = malloc(len + 1);
	if (!t->text)
		return -ENOMEM;
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	for (p = t->text, end = t->text + len; p < end; ) {
		char *nl = memchr(p, '\n', end - p);
		struct ksym s;

		if (nl)
			*nl = '\0';
		lines++;
		if (parse_line(p, &s)) {
			if (t->n == cap) {
				size_t c = cap ? cap * 2 : 4096;
				struct ksym *v = realloc(t->syms, c * sizeof(*v));

				if (!v) {
					ksym_free(t);
					return -ENOMEM;
				}
				t->syms = v;
				cap = c;
			}
			nonzero += s.addr != 0;
			t->syms[t->n++] = s;
		}
		p = nl ? nl + 1 : end;
	}
	/* Hidden addresses: names without places are of no use for a lookup. */
	if (t->n && !nonzero) {
		t->restricted = 1;
		t->n = 0;
	}
	if (t->n > 1)
		qsort(t->syms, t->n, sizeof(*t->syms), ksym_cmp);
	return 0;
}

int ksym_load(struct ksym_table *t, const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	int fd, ret;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return -ENOMEM;
	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(buf);
		return ret;
	}
	/* procfs files have no size: read until the end, growing the buffer. */
	for (;;) {
		ssize_t r;

		if (len == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b) {
				ret = -ENOMEM;
				goto out;
			}
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto out;
		}
		if (!r)
			break;
		len += r;
	}
	ret = ksym_parse(t, buf, len);
out:
	close(fd);
	free(buf);
	return ret;
}

void ksym_free(struct ksym_table *t)
{
	free(t->syms);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

const struct ksym *ksym_find(const struct ksym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* The last symbol whose address is <= @addr: lo ends at the first one above it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Several names at one address: the first in the file's order. */
	while (lo > 1 && t->syms[lo - 2].addr == t->syms[lo - 1].addr)
		lo--;
	return &t->syms[lo - 1];
}

int ksym_name(const struct ksym_table *t, uint64_t addr, unsigned int flags, char *buf,
	      size_t len)
{
	const struct ksym *s = ksym_find(t, addr);
	char off[24] = "";

	if (!s)
		return snprintf(buf, len, "[kernel]+0x%llx", (unsigned long long)addr);
	if (flags & STACK_NAME_OFFSET)
		snprintf(off, sizeof(off), "+0x%llx", (unsigned long long)(addr - s->addr));
	if (s->module)
		return snprintf(buf, len, "%s%s [%s]", s->name, off, s->module);
	return snprintf(buf, len, "%s%s", s->name, off);
}
