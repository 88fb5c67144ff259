/* tests/sampler/short_threads.c - threads shorter than a sampling period.
 *
 * N threads one after another, each running in_thread() for about MS ms
 * of its CPU time, then main runs in_main() for as long as they did in
 * all.  Each thread's samples must be its CPU time over the period on
 * average: with a fixed first period a thread shorter than one period got
 * no sample at all (half the program's time missing at 200 Hz and 3.7 ms
 * threads), and every thread lost its last partial period.
 * With HP_TEST_CPU=FILE the CPU time of each part is appended (work.h).
 *
 * Usage: short_threads [N [MS]]   (default 400 threads of 3.7 ms)
 */
#include <pthread.h>
#include <stdlib.h>

#include "work.h"

static double part_ms = 3.7;
static long long thread_ns; /* summed by the threads, one at a time */

static __attribute__((noinline)) void burn_for(long long ns)
{
	long long t0 = cpu_now();
	while (cpu_now() - t0 < ns)
		spin(20000);
}

static __attribute__((noinline)) void in_thread(void)
{
	long long t0 = cpu_now();
	burn_for((long long)(part_ms * 1e6));
	thread_ns += cpu_now() - t0;
}

static void *body(void *arg)
{
	(void)arg;
	in_thread();
	return NULL;
}

static __attribute__((noinline)) void in_main(long long ns)
{
	long long t0 = cpu_now();
	burn_for(ns);
	cpu_note("in_main", cpu_now() - t0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400;
	if (argc > 2)
		part_ms = atof(argv[2]);
	for (int i = 0; i < n; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, body, NULL) != 0)
			return 1;
		pthread_join(th, NULL);
	}
	cpu_note("in_thread", thread_ns);
	in_main(thread_ns);
	return 0;
}
