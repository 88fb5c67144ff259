/* tests/cost/probe_heavy.c - a deterministic probe-heavy program for the
 * cost system's end-to-end tests, built with -finstrument-functions.
 *
 * Usage: probe_heavy [ROUNDS [LEAF_WORK]]
 * Each round: 1000 calls of mid(), each making 50 calls of leaf_add() and
 * 50 of leaf_mix() (100,000 leaf calls), and 2 calls of heavy().  A leaf
 * runs LEAF_WORK iterations of integer mixing (0: a few instructions).
 * Probe pairs per round: 1000 + 100,000 + 2; plus 1 for main.  Prints a
 * checksum so the work cannot be optimised away.
 *
 * Built with -DHP_INLINED_HELPER (cost_probe_heavy_inl), leaf_add() also
 * calls twist(), an instrumented function always inlined into it: its
 * probes are called from leaf_add's frame (as C++ at -O2 inlines small
 * instrumented functions), 50,000 more pairs per round.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;
static int leaf_work;

#ifdef HP_INLINED_HELPER
static inline __attribute__((always_inline)) unsigned twist(unsigned x)
{
	return (x << 7) ^ (x >> 3);
}
#define TWIST(x) twist(x)
#else
#define TWIST(x) (x)
#endif

__attribute__((noinline)) static unsigned leaf_add(unsigned x)
{
	for (int i = 0; i < leaf_work; i++)
		x = x * 2654435761u + (unsigned)i;
	return TWIST(x) * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned leaf_mix(unsigned x)
{
	for (int i = 0; i < leaf_work; i++)
		x = (x ^ (x >> 13)) * 0x5bd1e995u;
	return (x ^ (x >> 13)) * 0x5bd1e995u;
}

__attribute__((noinline)) static unsigned mid(unsigned x)
{
	for (int i = 0; i < 50; i++)
		x = leaf_add(x) + leaf_mix(x);
	return x;
}

__attribute__((noinline)) static double heavy(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += 1.0 / ((double)i * i);
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	leaf_work = argc > 2 ? atoi(argv[2]) : 0;
	unsigned x = 1;
	double h = 0;
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 1000; k++)
			x = mid(x + (unsigned)k);
		h += heavy(200000);
		h += heavy(100000);
	}
	sink = x;
	printf("probe_heavy %ld rounds: %u %.6f\n", rounds, x, h);
	return 0;
}
