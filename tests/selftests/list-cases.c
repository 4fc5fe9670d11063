// SPDX-License-Identifier: GPL-2.0
/*
 * list-cases: where the cases of some verifier/ files sit in test_verifier's table.
 *
 * test_verifier selects cases by their index in its tests[] table, which is every
 * verifier/*.c file included in turn. Counting entries in the sources by hand is fragile
 * (several files build their cases with macros), so this program is compiled from the very
 * same test_verifier.c, with main() renamed, and the files of interest are compiled a second
 * time into arrays of their own (VERIFIER_FILES, a generated header). Each file's sequence of
 * descriptions must occur exactly once in tests[]; its indices are then those of the binary.
 *
 * Output, one line per case, tab-separated: INDEX FILE MODES DESCRIPTION, where MODES is "pu"
 * when test_verifier also runs the case unprivileged (its test_as_unpriv()), "p" otherwise.
 * Nothing here loads a program: it only reads static tables.
 */
#define main test_verifier_main
#include "test_verifier.c"
#undef main

struct verifier_file {
	const char *name;
	const struct bpf_test *tests;
	size_t n;
};

#include "verifier-files.h"	/* defines verifier_files[] */

static int find_file(const struct verifier_file *f)
{
	size_t i, k, total = ARRAY_SIZE(tests);
	int found = -1, matches = 0;

	for (i = 0; f->n && i + f->n <= total; i++) {
		for (k = 0; k < f->n; k++)
			if (strcmp(tests[i + k].descr, f->tests[k].descr))
				break;
		if (k == f->n) {
			found = i;
			matches++;
		}
	}
	if (matches != 1) {
		fprintf(stderr, "list-cases: %s: its %zu cases occur %d times in test_verifier's table\n",
			f->name, f->n, matches);
		return -1;
	}
	return found;
}

int main(void)
{
	size_t j, k;

	for (j = 0; j < ARRAY_SIZE(verifier_files); j++) {
		const struct verifier_file *f = &verifier_files[j];
		int first = find_file(f);

		if (first < 0)
			return 1;
		for (k = 0; k < f->n; k++) {
			struct bpf_test *t = &tests[first + k];

			if (strpbrk(t->descr, "\t\n")) {
				fprintf(stderr, "list-cases: %s: case %zu has a tab or newline in its description\n",
					f->name, first + k);
				return 1;
			}
			printf("%zu\t%s\t%s\t%s\n", first + k, f->name,
			       test_as_unpriv(t) ? "pu" : "p", t->descr);
		}
	}
	return 0;
}
