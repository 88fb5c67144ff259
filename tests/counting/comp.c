/* tests/counting/comp.c - a probe-heavy program for local compensation.
 *
 * main -> phase() x P; each phase makes T calls of tiny() (a few ns of
 * work: probes cost many times its body) and one call each of heavy_a()
 * and heavy_b() (pure loops, no calls).  The program times itself with
 * CLOCK_MONOTONIC and prints
 *   main_s heavy_a_s heavy_b_s tiny_calls
 * Built twice: without instrumentation (the truth) and with
 * -finstrument-functions (measured under hyprof: compensated main total and
 * heavy exclusive times should approach the truth; raw ones do not).
 * usage: comp [PHASES [TINY_PER_PHASE [HEAVY_ITERS]]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINL __attribute__((noinline))

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

volatile uint64_t sink;

NOINL uint64_t tiny(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2654435761u + 1;
}

NOINL uint64_t heavy_a(uint64_t n)
{
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

NOINL uint64_t heavy_b(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static double t_a, t_b;

NOINL void phase(long tiny_calls, uint64_t heavy)
{
	uint64_t s = 0;
	for (long i = 0; i < tiny_calls; i++)
		s += tiny((uint64_t)i);
	double t0 = now_s();
	s += heavy_a(heavy);
	double t1 = now_s();
	s += heavy_b(heavy);
	double t2 = now_s();
	t_a += t1 - t0;
	t_b += t2 - t1;
	sink += s;
}

int main(int argc, char **argv)
{
	long phases = argc > 1 ? atol(argv[1]) : 10;
	long tinyn = argc > 2 ? atol(argv[2]) : 200000;
	uint64_t heavy = argc > 3 ? strtoull(argv[3], NULL, 10) : 5000000;
	double t0 = now_s();
	for (long p = 0; p < phases; p++)
		phase(tinyn, heavy);
	double t1 = now_s();
	printf("%.9f %.9f %.9f %ld\n", t1 - t0, t_a, t_b, phases * tinyn);
	return 0;
}
