/* tests/tools/spin.h - the unit of work of the test programs whose time
 * split is known by construction (split.c, region.c): the same loop for
 * every unit, so time is in proportion to the units run. */
#ifndef HYPROF_TESTS_TOOLS_SPIN_H
#define HYPROF_TESTS_TOOLS_SPIN_H

static volatile unsigned long sink;

__attribute__((noinline)) static void unit(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

#endif
