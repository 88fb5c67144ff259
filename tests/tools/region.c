/* tests/tools/region.c - a region around a known hot function: each of 30
 * iterations calls prepare() (1 unit of work) before the region "solver"
 * and solve() (3 units) inside it, so solve() runs only inside the region
 * and prepare() only outside it, and the region holds 75% of the CPU time.
 * Built with the region API only (hp_region) and also with
 * -finstrument-functions (hp_region_instr).
 * Usage: hp_region [units]  (default: about 1 s of CPU) */
#include <stdio.h>
#include <stdlib.h>

#include "hyprof.h"

#include "spin.h"

__attribute__((noinline)) void prepare(unsigned long n)
{
	unit(n);
}

__attribute__((noinline)) void solve(unsigned long n)
{
	unit(n);
	unit(n);
	unit(n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;
	for (int i = 0; i < 30; i++) {
		prepare(n);
		HYPROF_REGION_BEGIN("solver");
		solve(n);
		HYPROF_REGION_END("solver");
	}
	return sink == 42 ? 1 : 0;
}
