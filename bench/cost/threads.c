/* bench/cost/threads.c - multi-threaded: two worker threads, each a mix of
 * small calls and a floating-point loop, the main thread waiting.
 *
 * Usage: threads [SCALE [THREADS]]   (default 25 and 2: about 2 s of CPU per
 * thread on the reference VM)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

static int scale = 25;

__attribute__((noinline)) static unsigned mix(unsigned x)
{
	for (int i = 0; i < 60; i++)
		x = (x ^ (x >> 11)) * 0x9e3779b1u + (unsigned)i;
	return x;
}

__attribute__((noinline)) static double series(int n, double a)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += a / ((double)i * i + a);
	return s;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	unsigned x = (unsigned)(uintptr_t)arg;
	double s = 0;
	for (int r = 0; r < scale; r++) {
		for (int k = 0; k < 300000; k++)
			x = mix(x + (unsigned)k);
		s += series(20000000, 1.0 + r);
	}
	return (void *)(uintptr_t)(x + (unsigned)s);
}

int main(int argc, char **argv)
{
	scale = argc > 1 ? atoi(argv[1]) : 25;
	int nt = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t th[64];
	if (nt < 1 || nt > 64)
		nt = 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	uintptr_t sum = 0;
	for (int i = 0; i < nt; i++) {
		void *r;
		pthread_join(th[i], &r);
		sum += (uintptr_t)r;
	}
	printf("threads %d x %d: %lu\n", nt, scale, (unsigned long)sum);
	return 0;
}
