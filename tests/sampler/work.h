/* tests/sampler/work.h - CPU work whose amount is known by construction.
 * spin(n) runs n steps of a dependent multiply-add chain: the same code for
 * every caller, so time is proportional to n. */
#ifndef HP_TEST_WORK_H
#define HP_TEST_WORK_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink += x;
}

/* The calling thread's CPU time, ns. */
static inline long long cpu_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* With HP_TEST_CPU=FILE: append "NAME NS", the CPU time a piece of work
 * took (cpu_now() differences).  N steps is not a fixed CPU time on a VM
 * whose speed moves during a run, so a test compares a profile's shares
 * with what the program measured (check.py cpu). */
static inline void cpu_note(const char *name, long long ns)
{
	const char *path = getenv("HP_TEST_CPU");
	if (!path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s %lld\n", name, ns);
	fclose(f);
}

/* Millions of steps from argv[i], default d. */
static inline unsigned long arg_m(int argc, char **argv, int i, unsigned long d)
{
	return (argc > i ? strtoul(argv[i], NULL, 10) : d) * 1000000ul;
}
#endif
