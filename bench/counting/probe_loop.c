/* bench/counting/probe_loop.c - N calls of an empty instrumented function,
 * timed with CLOCK_MONOTONIC; prints ns per call.  Built with and without
 * -finstrument-functions; run_probe_cost.sh runs it under each mode.
 * usage: probe_loop [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void null_fn(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	struct timespec a, b;
	null_fn();
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		null_fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
	printf("%.3f\n", ns);
	return 0;
}
