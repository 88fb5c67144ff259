/* tests/live/spin_work.h - the work of the live-view workloads (spin.c,
 * mpi_spin.c), with a known profile: do_step() spends about 3/4 of its time
 * in hot_kernel() and 1/4 in cold_kernel().  The tests look these names up
 * in the profiles.  Include it in one file of a program. */
#ifndef HYPROF_TESTS_LIVE_SPIN_WORK_H
#define HYPROF_TESTS_LIVE_SPIN_WORK_H

#include <time.h>

static volatile double sink;

__attribute__((noinline)) static double hot_kernel(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += 1.0 / ((double)i * i);
	return s;
}

__attribute__((noinline)) static double cold_kernel(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += 1.0 / (double)i;
	return s;
}

__attribute__((noinline)) static void do_step(void)
{
	sink += hot_kernel(300000);
	sink += cold_kernel(100000);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
