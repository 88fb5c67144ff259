/* bench/counting/fpchain_twin.c - what a timed probe pair costs in situ,
 * against a body that ends in a long dependency chain (docs/probes.md,
 * "Where compensation cannot reach").
 *
 * The same functions (fpchain_work.c) compiled twice into this program,
 * instrumented and not; the two copies run alternately, 15 rounds of N
 * points each, and the program prints the median over rounds of
 * (instrumented - uninstrumented) / probe pairs, in ns: the actual cost of a
 * pair in this context, to compare with what the profile says (calibrated F,
 * in-situ F, sampled direct cost per pair).
 *
 * Usage: hyprof run --mode measured -- bench_fpchain_twin N SHAPE W
 *   SHAPE 0 flat, 1 nested, 2 two siblings; W divisions in the body (24 as
 *   in tests/mpi/pi.c, 0 = empty body)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOI __attribute__((no_instrument_function))

int fp_w;
long fp_loop_i(long n, int shape);
long fp_loop_p(long n, int shape);

static NOI double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static NOI int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

NOI int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_fpchain_twin N SHAPE W\n");
		return 2;
	}
	long n = atol(argv[1]);
	int shape = atoi(argv[2]);
	fp_w = atoi(argv[3]);
	enum { R = 15 };
	double d[R];
	long h = 0;
	double pairs = (double)n * (shape == 2 ? 3 : shape + 1);
	for (int r = 0; r < R; r++) {
		double a = now();
		h += fp_loop_p(n, shape);
		double b = now();
		h += fp_loop_i(n, shape);
		double c = now();
		d[r] = ((c - b) - (b - a)) / pairs * 1e9;
	}
	qsort(d, R, sizeof(double), cmp);
	printf("actual ns per pair: median %.1f (p25 %.1f, p75 %.1f) [%ld]\n", d[R / 2], d[R / 4],
	       d[3 * R / 4], h);
	return 0;
}
