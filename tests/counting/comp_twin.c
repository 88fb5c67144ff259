/* tests/counting/comp_twin.c - local compensation measured against an
 * uninstrumented twin in the same process.
 *
 * On a shared VM two runs of the same program differ by more than the 2%
 * compensation targets: other processes preempt it, and the host changes
 * the core clock (a TSC read costs 16 to 23 ns from one minute to the
 * next).  Here the work of comp.c is linked twice: phase() and its callees
 * built with -finstrument-functions (comp_work.c) and phase_plain() and its
 * callees built without (comp_work_plain.c, the same source).  main (no
 * probes) runs them alternately, ABBA order, pinned to one CPU, so both see
 * the same machine; it times each phase_plain() call, and phase_plain()
 * times its heavy calls as phase() does.  The truth for phase's compensated
 * total is the summed phase_plain time, for heavy_a/heavy_b's compensated
 * exclusive time the summed heavy_a_plain/heavy_b_plain time.  Each
 * interval is also timed in thread CPU time: wall - cpu is the time the
 * thread was preempted inside it (on a loaded machine a 5 ms call may lose
 * a whole time slice), which the comparison can remove from both sides
 * (the instrumented phase and heavy calls time themselves the same way).
 * Prints one line of wall/cpu pairs in seconds and the tiny calls:
 *   plain: phase_w phase_c heavy_a_w heavy_a_c heavy_b_w heavy_b_c
 *   instrumented: phase_w phase_c heavy_a_w heavy_a_c heavy_b_w heavy_b_c
 *   tiny_calls
 * The uninstrumented twin shares the process with the sampler: run it
 * with sampling slowed down (HYPROF_FREQ=1) to compare probe compensation
 * alone (the sampler's cost would otherwise inflate the truth).
 * usage: comp_twin [PHASES [TINY_PER_PHASE [HEAVY_ITERS]]]
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

void phase(long tiny_calls, uint64_t heavy);
void phase_plain(long tiny_calls, uint64_t heavy);
extern double comp_t_a, comp_t_b, comp_c_a, comp_c_b;
extern double comp_t_a_plain, comp_t_b_plain, comp_c_a_plain, comp_c_b_plain;

static NOINSTR double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOINSTR int main(int argc, char **argv)
{
	long phases = argc > 1 ? atol(argv[1]) : 20;
	long tinyn = argc > 2 ? atol(argv[2]) : 100000;
	uint64_t heavy = argc > 3 ? strtoull(argv[3], NULL, 10) : 2500000;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);
	double w[2] = {0, 0}, c[2] = {0, 0}; /* [0] plain, [1] instrumented */
	for (long p = 0; p < phases; p++) {
		for (int k = 0; k < 2; k++) {
			int instr = k ^ ((p & 3) == 1 || (p & 3) == 2); /* ABBA */
			double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			if (instr)
				phase(tinyn, heavy);
			else
				phase_plain(tinyn, heavy);
			w[instr] += clock_s(CLOCK_MONOTONIC) - w0;
			c[instr] += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		}
	}
	printf("%.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %ld\n", w[0], c[0],
	       comp_t_a_plain, comp_c_a_plain, comp_t_b_plain, comp_c_b_plain, w[1], c[1], comp_t_a,
	       comp_c_a, comp_t_b, comp_c_b, phases * tinyn);
	return 0;
}
