/* bench/counting/probe_loop.c - what one call of an empty instrumented
 * function costs, and what one TSC read costs, in the same process.
 *
 * Built with and without -finstrument-functions; run.sh runs it under
 * libhyprof_nop.so and under each mode of libhyprof.so.  The process pins
 * itself to the CPU it starts on (the machine is shared: a migration in the
 * middle of a trial would time two CPUs), then runs TRIALS trials of K calls
 * of null_fn(), each timed with fenced TSC reads, and prints medians over
 * the trials (a trial hit by preemption or an interrupt is an outlier the
 * median ignores):
 *   call_ns   ns per call (median of trials)
 *   call_p10  10th percentile of trials (what the machine gives when quiet)
 *   tsc_ns    one TSC read: batches of back-to-back reads, median
 *   tsc_hz    TSC frequency measured against CLOCK_MONOTONIC_RAW over the run
 * usage: probe_loop [K [TRIALS]]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))

__attribute__((noinline)) void null_fn(void)
{
	__asm__ volatile("");
}

static NOINSTR inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static NOINSTR inline uint64_t tsc_fenced(void)
{
	__asm__ volatile("lfence" ::: "memory");
	uint64_t t = tsc();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

static NOINSTR uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static NOINSTR int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static NOINSTR double pct(double *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[(int)(p * (n - 1) + 0.5)];
}

NOINSTR int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 20000;
	int trials = argc > 2 ? atoi(argv[2]) : 301;
	if (k < 1 || trials < 3 || trials > 100000) {
		fprintf(stderr, "usage: probe_loop [K [TRIALS]]\n");
		return 2;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);

	double *call = malloc(sizeof(double) * (size_t)trials);
	double *rd = malloc(sizeof(double) * (size_t)trials);
	if (!call || !rd)
		return 1;
	uint64_t n0 = mono_ns(), c0 = tsc();
	for (long i = 0; i < k; i++) /* warm: node inserted, lines touched */
		null_fn();
	for (int r = 0; r < trials; r++) {
		uint64_t a = tsc_fenced();
		for (long i = 0; i < k; i++)
			null_fn();
		uint64_t b = tsc_fenced();
		call[r] = (double)(b - a) / (double)k;
		enum { B = 64 };
		uint64_t sink = 0;
		a = tsc_fenced();
		for (int i = 0; i < B; i++)
			sink += tsc();
		b = tsc_fenced();
		__asm__ volatile("" : : "r"(sink));
		rd[r] = (double)(b - a) / B;
	}
	uint64_t n1 = mono_ns(), c1 = tsc();
	double hz = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
	double ns = 1e9 / hz;
	printf("%.3f %.3f %.3f %.0f\n", pct(call, trials, 0.5) * ns, pct(call, trials, 0.1) * ns,
	       pct(rd, trials, 0.5) * ns, hz);
	return 0;
}
