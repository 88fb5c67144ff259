/* bench/cost/probe_heavy.c - probe-heavy: millions of calls of small
 * functions (20 to 350 ns bodies: 7.2 million probe pairs at the default
 * scale) under a two-level driver, beside two heavy grid loops.  Its
 * unregulated measured-mode overhead is about a third of its run time on the
 * reference VM; it is also the budget target's program.
 *
 * Time shares by design (uninstrumented): relax ~40%, smooth ~35%,
 * kernel_a ~10%, kernel_b ~8%, clamp_add ~2%, step the rest.
 *
 * Usage: probe_heavy [SCALE [CALLS]]   (default 18: about 2 s on the reference
 * VM; CALLS multiplies the calls of step(), default 1: the budget target
 * runs it with 2, for an unregulated overhead of 30% or more)
 */
#include <stdio.h>
#include <stdlib.h>

#define GRID 256
#ifndef RELAX_ITERS
#define RELAX_ITERS 700
#endif
#ifndef SMOOTH_ITERS
#define SMOOTH_ITERS 400
#endif
#ifndef STEPS
#define STEPS 40000 /* calls of step() per scale unit: 10 probe pairs each */
#endif

static double grid[GRID][GRID], tmp[GRID][GRID];
static volatile unsigned sink;

__attribute__((noinline)) static unsigned kernel_a(unsigned x)
{
	for (int i = 0; i < 48; i++)
		x = x * 2654435761u + (unsigned)i;
	return x;
}

__attribute__((noinline)) static unsigned kernel_b(unsigned x)
{
	for (int i = 0; i < 120; i++)
		x = (x ^ (x >> 13)) * 0x5bd1e995u;
	return x;
}

__attribute__((noinline)) static unsigned clamp_add(unsigned x, unsigned y)
{
	unsigned s = x + y;
	for (int i = 0; i < 12; i++)
		s = (s >> 1) ^ (s << 3) ^ (unsigned)i;
	return s;
}

__attribute__((noinline)) static unsigned step(unsigned x)
{
	for (int i = 0; i < 4; i++)
		x = clamp_add(kernel_a(x), x);
	return kernel_b(x);
}

__attribute__((noinline)) static void relax(int iters)
{
	for (int it = 0; it < iters; it++) {
		for (int i = 1; i < GRID - 1; i++)
			for (int j = 1; j < GRID - 1; j++)
				tmp[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] +
						    grid[i][j + 1]);
		for (int i = 1; i < GRID - 1; i++)
			for (int j = 1; j < GRID - 1; j++)
				grid[i][j] = tmp[i][j];
	}
}

__attribute__((noinline)) static double smooth(int iters)
{
	double s = 0;
	for (int it = 0; it < iters; it++)
		for (int i = 0; i < GRID; i++)
			for (int j = 0; j < GRID; j++)
				s += grid[i][j] * (1.0 + 1e-9 * (i ^ j ^ it));
	return s;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 18;
	int calls = argc > 2 ? atoi(argv[2]) : 1;
	for (int i = 0; i < GRID; i++)
		grid[i][0] = grid[0][i] = 1.0;
	unsigned x = 1;
	double h = 0;
	for (int s = 0; s < scale; s++) {
		for (int k = 0; k < STEPS * calls; k++)
			x = step(x + (unsigned)k);
		relax(RELAX_ITERS);
		h += smooth(SMOOTH_ITERS);
	}
	sink = x;
	printf("probe_heavy %d: %u %.3f\n", scale, x, h);
	return 0;
}
