/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP assertions for the host unit tests, named like the kernel selftests' test_progs.h:
 * each one prints "ok N - NAME" or "not ok N - NAME" with what was got and wanted.
 * End main() with `return test_done();` (prints the plan, exits 1 when anything failed).
 */
#ifndef __BAREATOM_TEST_H
#define __BAREATOM_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int test_n, test_failed;

static inline bool test_report(bool cond, const char *name)
{
	test_n++;
	if (!cond)
		test_failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", test_n, name);
	return cond;
}

#define ASSERT_TRUE(cond, name) test_report(!!(cond), name)

#define ASSERT_EQ(actual, expected, name) ({						\
	long long __a = (long long)(actual), __e = (long long)(expected);		\
	bool __ok = test_report(__a == __e, name);					\
	if (!__ok)									\
		printf("#   got %lld, want %lld\n", __a, __e);			\
	__ok;										\
})

#define ASSERT_EQ_U64(actual, expected, name) ({					\
	uint64_t __a = (actual), __e = (expected);					\
	bool __ok = test_report(__a == __e, name);					\
	if (!__ok)									\
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", __a, __e);		\
	__ok;										\
})

#define ASSERT_LE_U64(actual, bound, name) ({						\
	uint64_t __a = (actual), __b = (bound);						\
	bool __ok = test_report(__a <= __b, name);					\
	if (!__ok)									\
		printf("#   got %" PRIu64 ", want at most %" PRIu64 "\n", __a, __b);	\
	__ok;										\
})

#define ASSERT_STREQ(actual, expected, name) ({						\
	const char *__a = (actual), *__e = (expected);					\
	bool __ok = test_report(__a && !strcmp(__a, __e), name);			\
	if (!__ok)									\
		printf("#   got '%s'\n#   want '%s'\n", __a ? __a : "(null)", __e);	\
	__ok;										\
})

/* @needle occurs in @text (output checks that name one part of a longer text). */
#define ASSERT_STRSTR(text, needle, name) ({						\
	const char *__t = (text), *__n = (needle);					\
	bool __ok = test_report(__t && strstr(__t, __n), name);				\
	if (!__ok)									\
		printf("#   '%s' not in:\n#   %s\n", __n, __t ? __t : "(null)");		\
	__ok;										\
})

/* TEST_SKIP(FMT, ...): a check that cannot run here, counted as passed: "ok N - # SKIP REASON". */
#define TEST_SKIP(fmt, ...) printf("ok %d - # SKIP " fmt "\n", ++test_n, ##__VA_ARGS__)

static inline int test_done(void)
{
	printf("1..%d\n", test_n);
	return test_failed ? 1 : 0;
}

#endif /* __BAREATOM_TEST_H */
