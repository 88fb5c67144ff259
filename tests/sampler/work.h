/* tests/sampler/work.h - CPU work whose amount is known by construction.
 * spin(n) runs n steps of a dependent multiply-add chain: the same code for
 * every caller, so time is proportional to n. */
#ifndef HP_TEST_WORK_H
#define HP_TEST_WORK_H
#include <stdlib.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink += x;
}

/* Millions of steps from argv[i], default d. */
static inline unsigned long arg_m(int argc, char **argv, int i, unsigned long d)
{
	return (argc > i ? strtoul(argv[i], NULL, 10) : d) * 1000000ul;
}
#endif
