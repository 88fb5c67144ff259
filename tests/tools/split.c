/* tests/tools/split.c - a workload whose time split and call counts are
 * known by construction: heavy() runs 3 units of work per call, light() 1,
 * both spin on the same loop; main calls heavy 30 times and light 30 times,
 * so heavy takes 75% and light 25% of the CPU time (same code per unit).
 * Built plain (hp_split) and with -finstrument-functions (hp_split_instr).
 * Usage: hp_split [units-per-ms-scale]  (default: about 1 s of CPU) */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

__attribute__((noinline)) void heavy(unsigned long n)
{
	unit(n);
	unit(n);
	unit(n);
}

__attribute__((noinline)) void light(unsigned long n)
{
	unit(n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;
	for (int i = 0; i < 30; i++) {
		heavy(n);
		light(n);
	}
	return sink == 42 ? 1 : 0;
}
