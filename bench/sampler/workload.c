/* bench/sampler/workload.c - what the sampler benchmarks run.
 *
 *   workload spin M        M million steps of a call-heavy loop (depth ~8),
 *                          prints "wall_ns cpu_ns" of the timed region only
 *                          (start-up of the profiler is not in it)
 *   workload threads N     N threads that each run a little work, then
 *                          prints the process's VmRSS in kB while they all
 *                          still exist (their hyprof state is mapped)
 *   workload paths D R     R rounds over 2^D distinct call paths of depth D
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static unsigned long now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

__attribute__((noinline)) static void leaf(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink += x;
}

/* A stack a few frames deep, so unwinding cost is that of a real program. */
__attribute__((noinline)) static void level(int d, unsigned long n)
{
	if (d == 0)
		leaf(n);
	else
		level(d - 1, n);
	sink++;
}

/* Two functions per level: the bits of `path` pick one at each level. */
__attribute__((noinline)) static void left(int d, unsigned long path, unsigned long n);
__attribute__((noinline)) static void right(int d, unsigned long path, unsigned long n);
static void step(int d, unsigned long path, unsigned long n)
{
	if (d == 0)
		leaf(n);
	else if (path & 1)
		right(d - 1, path >> 1, n);
	else
		left(d - 1, path >> 1, n);
}
__attribute__((noinline)) static void left(int d, unsigned long path, unsigned long n) { step(d, path, n); sink++; }
__attribute__((noinline)) static void right(int d, unsigned long path, unsigned long n) { step(d, path, n); sink++; }

static unsigned long thread_steps;
static pthread_barrier_t bar;

static void *worker(void *p)
{
	(void)p;
	leaf(thread_steps);
	pthread_barrier_wait(&bar); /* all threads exist */
	pthread_barrier_wait(&bar); /* RSS read */
	return NULL;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "spin")) {
		unsigned long m = strtoul(argv[2], NULL, 10) * 1000000ul;
		unsigned long w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		for (int i = 0; i < 100; i++)
			level(8, m / 100);
		unsigned long w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
		printf("%lu %lu\n", w1 - w0, c1 - c0);
		return 0;
	}
	if (!strcmp(argv[1], "threads")) {
		int n = atoi(argv[2]);
		thread_steps = 20000000ul;
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		pthread_barrier_init(&bar, NULL, (unsigned)n + 1);
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				return 1;
		pthread_barrier_wait(&bar);
		printf("%ld\n", rss_kb());
		fflush(stdout);
		pthread_barrier_wait(&bar);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(argv[1], "paths") && argc > 3) {
		int d = atoi(argv[2]);
		int rounds = atoi(argv[3]);
		for (int r = 0; r < rounds; r++)
			for (unsigned long p = 0; p < (1ul << d); p++)
				step(d, p, 20000);
		return 0;
	}
	return 2;
}
