// SPDX-License-Identifier: GPL-2.0
/*
 * tpstat's named stacks merged (src/tpstat_stack_merge.c): entries that name the same are
 * one, their counts added and --value's 128-bit sums carried, signed minimums and maximums
 * kept; the values as JSON numbers; entries that differ in one frame or the key stay apart.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/test.h"
#include "src/tpstat_stack_merge.h"

/* An entry owning its strings, as tpstat_stacks.c makes them. */
static struct stack_entry entry(const char *key, const char *k0, const char *u0, __u64 count)
{
	char **k = malloc(sizeof(*k)), **u = malloc(sizeof(*u));

	k[0] = strdup(k0);
	u[0] = strdup(u0);
	return (struct stack_entry){ .key = key ? strdup(key) : NULL, .kframes = (void *)k,
				     .nk = 1, .uframes = (void *)u, .nu = 1, .count = count };
}

int main(void)
{
	struct stack_entry e[4] = {
		entry("sh", "vfs_write", "main", 3),
		entry("sh", "vfs_write", "outer", 1),	/* one frame differs */
		entry("sh", "vfs_write", "main", 2),	/* the first's names: merged */
		entry(NULL, "vfs_write", "main", 5),	/* no key: apart */
	};
	struct tpstat_by_val v[4] = {
		{ .count = 3, .sum = UINT64_MAX, .min = (__u64)-7, .max = 4 },
		{ .count = 1, .sum = 1, .min = 1, .max = 1 },
		{ .count = 2, .sum = 2, .sum_hi = 0, .min = (__u64)-9, .max = 11 },
		{ .count = 5, .sum = 5, .min = 1, .max = 1 },
	};
	const char *const *t;
	size_t n = tpstat_stack_merge(e, v, 4, true);
	int m = -1;

	ASSERT_EQ(n, 3, "4 entries, two naming the same: 3 left");
	for (size_t i = 0; i < n; i++)
		if (e[i].key && !strcmp(e[i].uframes[0], "main"))
			m = (int)i;
	ASSERT_TRUE(m >= 0, "the merged entry is there");
	if (m < 0)
		return test_done();
	ASSERT_EQ_U64(e[m].count, 5, "its count: 3 + 2");
	ASSERT_EQ_U64(v[m].count, 5, "its value's count: 3 + 2");
	ASSERT_EQ_U64(v[m].sum, 1, "the sum's low word wraps: 2^64 - 1 + 2 = 2^64 + 1");
	ASSERT_EQ_U64(v[m].sum_hi, 1, "and carries into the high word");
	ASSERT_EQ_U64(v[m].min, (__u64)-9, "signed min: -9");
	ASSERT_EQ_U64(v[m].max, 11, "signed max: 11");
	t = tpstat_stack_value(&v[m], true);
	ASSERT_TRUE(t != NULL, "the value as text");
	if (t) {
		ASSERT_STREQ(t[0], "18446744073709551617", "sum: the exact 128-bit number");
		ASSERT_STREQ(t[1], "-9", "min");
		ASSERT_STREQ(t[2], "11", "max");
		ASSERT_STREQ(t[3], "3689348814741910528.000", "avg: the true sum over the count");
		free((void *)t[0]), free((void *)t[1]), free((void *)t[2]), free((void *)t[3]);
		free((void *)t);
	}
	for (size_t i = 0; i < n; i++)
		tpstat_stack_free_names(&e[i]);
	return test_done();
}
