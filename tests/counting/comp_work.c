/* tests/counting/comp_work.c - the work of the compensation programs:
 * tiny() (a few ns: its probes cost many times its body), heavy_a() and
 * heavy_b() (pure loops, no calls) and phase(), which makes T calls of
 * tiny() and one call of each heavy function, timing the heavy calls in
 * wall time (CLOCK_MONOTONIC) and thread CPU time into comp_t_a/comp_t_b
 * and comp_c_a/comp_c_b.
 *
 * Compiled into comp.c (one program, built with and without
 * -finstrument-functions) and twice into comp_twin (once instrumented,
 * once, through comp_work_plain.c, without instrumentation and with every
 * name suffixed _plain): COMP_SUFFIX names the copy.
 */
#include <stdint.h>
#include <time.h>

#ifndef COMP_SUFFIX
#define COMP_SUFFIX
#endif
#define COMP_CAT_(a, b) a##b
#define COMP_CAT(a, b) COMP_CAT_(a, b)
#define N(x) COMP_CAT(x, COMP_SUFFIX)

#define NOINL __attribute__((noinline))
#define NOINSTR __attribute__((no_instrument_function))

static NOINSTR inline double comp_clock(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

volatile uint64_t N(comp_sink);
double N(comp_t_a), N(comp_t_b), N(comp_c_a), N(comp_c_b);

NOINL uint64_t N(tiny)(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2654435761u + 1;
}

NOINL uint64_t N(heavy_a)(uint64_t n)
{
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

NOINL uint64_t N(heavy_b)(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

NOINL void N(phase)(long tiny_calls, uint64_t heavy)
{
	uint64_t s = 0;
	for (long i = 0; i < tiny_calls; i++)
		s += N(tiny)((uint64_t)i);
	double w0 = comp_clock(CLOCK_MONOTONIC), c0 = comp_clock(CLOCK_THREAD_CPUTIME_ID);
	s += N(heavy_a)(heavy);
	double w1 = comp_clock(CLOCK_MONOTONIC), c1 = comp_clock(CLOCK_THREAD_CPUTIME_ID);
	s += N(heavy_b)(heavy);
	double w2 = comp_clock(CLOCK_MONOTONIC), c2 = comp_clock(CLOCK_THREAD_CPUTIME_ID);
	N(comp_t_a) += w1 - w0;
	N(comp_t_b) += w2 - w1;
	N(comp_c_a) += c1 - c0;
	N(comp_c_b) += c2 - c1;
	N(comp_sink) += s;
}
