// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the text the stack code reads and writes. The input, cut at its
 * first NUL, is kallsyms text for ksym_parse; the bytes after it are frame names, one a
 * line. Besides the sanitizers' checks, the promises are asserted:
 *	- the table is sorted, and ksym_find gives the symbol at or below an address with
 *	  no other between (the first name of its address), and NULL only below them all;
 *	- a folded frame holds no ';' and no control byte;
 *	- the flame graph page's data holds no '<' (no name can end its <script>), and its
 *	  names no raw control byte; the page has exactly its three scripts.
 * The viewer's files are empty here: only the page's own text is under test.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/stack_fold.h"
#include "src/stack_html.h"
#include "src/stack_ksym.h"

const char stack_viewer_d3[] = "", stack_viewer_flamegraph[] = "", stack_viewer_css[] = "";

#define MAX_NAMES 16

/* A promise broken: say which, and crash for libFuzzer to keep the input. */
#define BROKEN(what) do { fprintf(stderr, "broken: %s\n", what); abort(); } while (0)

static void check_ksym(const char *text, size_t len, const unsigned char *probe, size_t plen)
{
	struct ksym_table t;
	char buf[STACK_NAME_LEN];
	size_t i;

	if (ksym_parse(&t, text, len))
		return;
	for (i = 1; i < t.n; i++)
		if (t.syms[i - 1].addr > t.syms[i].addr)
			BROKEN("symbols sorted");
	for (i = 0; i + 8 <= plen && i < 64; i += 8) {
		uint64_t addr;
		const struct ksym *s;

		memcpy(&addr, probe + i, 8);
		s = ksym_find(&t, addr);
		if (s) {
			const struct ksym *next = s;

			/* The first of its address, and the next address above @addr. */
			while (next < t.syms + t.n && next->addr == s->addr)
				next++;
			if (s->addr > addr || (s > t.syms && s[-1].addr == s->addr) ||
			    (next < t.syms + t.n && next->addr <= addr))
				BROKEN("ksym_find: the symbol at or below");
		} else if (t.n && t.syms[0].addr <= addr) {
			BROKEN("ksym_find: NULL only below every symbol");
		}
		ksym_name(&t, addr, STACK_NAME_OFFSET, buf, sizeof(buf));
	}
	ksym_free(&t);
}

static void check_names(char *names)
{
	const char *frames[MAX_NAMES];
	char fold[STACK_NAME_LEN], *page = NULL, *data, *p;
	struct stack_entry e = { .count = 1 };
	struct stack_acct a = { .count = 2, .truncated = 1 };
	int n = 0, i;
	size_t len;
	FILE *f;

	for (p = strtok(names, "\n"); p && n < MAX_NAMES; p = strtok(NULL, "\n"))
		frames[n++] = p;
	for (i = 0; i < n; i++) {
		stack_fold_frame(frames[i], fold, sizeof(fold));
		for (p = fold; *p; p++)
			if (*p == ';' || (unsigned char)*p < 0x20 || *p == 0x7f)
				BROKEN("a folded frame: no ';', no control byte");
	}
	e.kframes = frames;
	e.nk = n / 2;
	e.uframes = frames + n / 2;
	e.nu = n - n / 2;
	e.key = n ? frames[0] : NULL;
	f = open_memstream(&page, &len);
	if (!f)
		return;
	{
		const struct stack_group g = { .root = n > 1 ? frames[1] : NULL, .e = &e, .n = 1,
					       .acct = &a };

		stack_html_write(f, n ? frames[n - 1] : "", &g, 1);
	}
	fclose(f);
	/* Unique: the title has its '<' escaped, the names in the data too. */
	data = strstr(page, "<script>\nconst TOTAL = ");
	p = data ? strstr(data, "\n];\n") : NULL;
	if (!p)
		BROKEN("the page's data found");
	for (data += 8; data < p; data++)
		if (*data == '<' || (*data != '\n' && (unsigned char)*data < 0x20))
			BROKEN("the page's data: no '<', no control byte");
	for (i = 0, p = page; (p = strstr(p, "</script>")); p++)
		i++;
	if (i != 3)
		BROKEN("the page: three scripts");
	free(page);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *nul = memchr(data, 0, size);
	size_t klen = nul ? (size_t)(nul - data) : size;
	char *names;

	check_ksym((const char *)data, klen, data, size);
	if (!nul)
		return 0;
	names = strndup((const char *)nul + 1, size - klen - 1);
	if (names) {
		check_names(names);
		free(names);
	}
	return 0;
}
