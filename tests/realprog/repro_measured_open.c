/* repro_measured_open.c - measured mode, a program that ends with exit()
 * called from main (not `return`): main's exit probe never runs, and the
 * report says "total 0 s", every percentage 0.0%, the call tree hidden.
 * Same for _exit, abort, fatal signals and the partial profile at exec.
 * gcc -O1 -g -finstrument-functions repro_measured_open.c -o repro_measured_open
 * hyprof run --mode measured -o out -- ./repro_measured_open ; hyprof report out
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
__attribute__((noinline)) void work(void)
{
	for (unsigned long i = 0; i < 300000000ul; i++)
		sink += i;
}

int main(void)
{
	work();
	printf("%lu\n", sink);
	exit(0);
}
