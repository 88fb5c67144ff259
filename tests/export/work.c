/* tests/export/work.c - a workload whose split and counts are known by
 * construction, for the end-to-end export tests (cli_check.sh).
 *
 * main starts one worker thread running light() and itself runs heavy():
 * both call unit(), heavy 3 units per call, light 1, 20 calls each, so
 * heavy's call path takes 75% of heavy+light's CPU time and the calls are
 * exact with -finstrument-functions: heavy 20, light 20, unit 80.  unit()
 * calls an always-inlined step() (not instrumented) so the profile may have
 * an inlined frame; -fno-optimize-sibling-calls keeps every caller on the stack.
 * Usage: hp_export_work [n]   (default n: about 0.8 s of CPU in total) */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline, no_instrument_function)) unsigned long step(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul;
}

__attribute__((noinline)) static void unit(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = step(x);
	sink = x;
}

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

static unsigned long N;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		light(N);
	return NULL;
}

int main(int argc, char **argv)
{
	N = argc > 1 ? strtoul(argv[1], NULL, 0) : 4000000;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (int i = 0; i < 20; i++)
		heavy(N);
	pthread_join(t, NULL);
	return sink == 42 ? 1 : 0;
}
