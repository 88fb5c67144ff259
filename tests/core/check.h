/* tests/core/check.h - checks for table-driven unit tests.
 *
 * CHECK(cond, fmt, ...) reports the source line of the check; CASE_CHECK
 * reports the line of the table row being run (case->line) and its name,
 * so a failing row names itself.  main() returns check_status(). */
#ifndef HYPROF_TESTS_CORE_CHECK_H
#define HYPROF_TESTS_CORE_CHECK_H

#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		check_count++;                                                             \
		if (!(cond)) {                                                             \
			check_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
		}                                                                          \
	} while (0)

/* `c` is a table row with `int line` and `const char *name`. */
#define CASE_CHECK(c, cond, ...)                                                           \
	do {                                                                               \
		check_count++;                                                             \
		if (!(cond)) {                                                             \
			check_failures++;                                                  \
			fprintf(stderr, "%s:%d: FAIL case \"%s\" (check at line %d): %s: ",  \
				__FILE__, (c)->line, (c)->name, __LINE__, #cond);          \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
		}                                                                          \
	} while (0)

static inline int check_status(const char *prog)
{
	if (check_failures) {
		fprintf(stderr, "%s: %d of %d checks failed\n", prog, check_failures, check_count);
		return 1;
	}
	printf("%s: all %d checks passed\n", prog, check_count);
	return 0;
}

#endif
