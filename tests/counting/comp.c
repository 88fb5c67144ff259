/* tests/counting/comp.c - a probe-heavy program for local compensation.
 *
 * main -> phase() x P (tests/counting/comp_work.c): each phase makes T
 * calls of tiny() and one call each of heavy_a() and heavy_b().  Built
 * twice: without instrumentation (the truth: its own timings are what
 * compensation is compared with) and with -finstrument-functions (measured
 * under hyprof: compensated main total and heavy exclusive times should
 * approach the truth; raw ones do not).  Prints one line:
 *   main_s heavy_a_s heavy_b_s tiny_calls main_cpu_s heavy_a_cpu_s heavy_b_cpu_s nivcsw
 * main_s: wall time (CLOCK_MONOTONIC) of the phase loop; heavy_*_s: wall
 * time of the heavy calls, summed; *_cpu_s: the same intervals in thread
 * CPU time; nivcsw: involuntary context switches during the loop.  wall -
 * cpu is the time the thread was not running (preempted on a shared
 * machine).  The timing code carries no probes, so the instrumented build
 * runs exactly 1 + P * (1 + T + 2) probe pairs.
 * usage: comp [PHASES [TINY_PER_PHASE [HEAVY_ITERS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "comp_work.c"

static NOINSTR long nivcsw(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

int main(int argc, char **argv)
{
	long phases = argc > 1 ? atol(argv[1]) : 10;
	long tinyn = argc > 2 ? atol(argv[2]) : 200000;
	uint64_t heavy = argc > 3 ? strtoull(argv[3], NULL, 10) : 5000000;
	long v0 = nivcsw();
	double w0 = comp_clock(CLOCK_MONOTONIC), c0 = comp_clock(CLOCK_THREAD_CPUTIME_ID);
	for (long p = 0; p < phases; p++)
		phase(tinyn, heavy);
	double w1 = comp_clock(CLOCK_MONOTONIC), c1 = comp_clock(CLOCK_THREAD_CPUTIME_ID);
	long v1 = nivcsw();
	printf("%.9f %.9f %.9f %ld %.9f %.9f %.9f %ld\n", w1 - w0, comp_t_a, comp_t_b,
	       phases * tinyn, c1 - c0, comp_c_a, comp_c_b, v1 - v0);
	return 0;
}
