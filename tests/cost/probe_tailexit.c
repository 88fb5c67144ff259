/* tests/cost/probe_tailexit.c - a probe-heavy program whose hot leaf is a
 * void function: gcc -O2 -finstrument-functions ends it with its epilogue
 * and then `jmp __cyg_profile_func_exit` (a tail call), so its exit probe
 * runs above the frame its entry probe ran in.  When the budget regulates
 * leaf_store (and not mid), each skipped activation's exit must still close
 * its skip region (it once counted as a reset and then matched no entry).
 *
 * Usage: probe_tailexit [ROUNDS [LEAF_WORK]]
 * Each round: 1000 calls of mid(), each making 100 calls of leaf_store()
 * (100,000 leaf calls).  Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
static int leaf_work;
static volatile unsigned sink;
__attribute__((noinline)) static void leaf_store(unsigned *p, unsigned x)
{
	for (int i = 0; i < leaf_work; i++)
		x = x * 2654435761u + (unsigned)i;
	*p = x * 2654435761u + 1;
}
__attribute__((noinline)) static unsigned mid(unsigned x)
{
	for (int i = 0; i < 100; i++)
		leaf_store(&x, x + (unsigned)i);
	return x;
}
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	leaf_work = argc > 2 ? atoi(argv[2]) : 0;
	unsigned x = 1;
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < 1000; k++)
			x = mid(x + (unsigned)k);
	sink = x;
	printf("voidleaf %ld rounds: %u\n", rounds, x);
	return 0;
}
