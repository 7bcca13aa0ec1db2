/* Helpers shared by the cmocka unit tests (include after <cmocka.h>). */
#ifndef ETMKIT_TESTS_TEST_UTIL_H
#define ETMKIT_TESTS_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

/* Running under CI (CI=true): missing inputs are failures, not skips. */
static inline int test_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && strcmp(ci, "true") == 0;
}

/* Skip the running test if @missing (an input it needs, such as
 * ../shared, is absent), or fail under CI naming @what. */
static inline void test_need(int missing, const char *what)
{
	if (!missing)
		return;
	if (test_in_ci())
		fail_msg("%s missing and CI=true", what);
	skip();
}

/* main()'s status: 1 on a failure, 77 (ctest's "skipped",
 * tests/CMakeLists.txt SKIP_RETURN_CODE) when an input was @missing
 * outside CI, else 0. */
static inline int test_exit(int failed, int missing)
{
	if (failed)
		return 1;
	return missing && !test_in_ci() ? 77 : 0;
}

static inline int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

#define assert_ends_with(s, suffix)                                        \
	do {                                                               \
		if (!ends_with((s), (suffix)))                             \
			fail_msg("\"%s\" does not end with \"%s\"", (s),   \
				 (suffix));                                \
	} while (0)

#define assert_contains(s, part)                                           \
	do {                                                               \
		if (!strstr((s), (part)))                                  \
			fail_msg("\"%s\" does not contain \"%s\"", (s),    \
				 (part));                                  \
	} while (0)

#endif
