/* bench/counting/fpchain_work.c - the work of bench_fpchain_twin, compiled
 * twice into it: once with -finstrument-functions (FP_SUFFIX _i), once
 * without (_p).  curve() is pi.c's worker function (tests/mpi/pi.c): a body
 * ending in a long dependency chain; W = 0 leaves it empty. */
#define FP_CAT_(a, b) a##b
#define FP_CAT(a, b) FP_CAT_(a, b)
#define N(x) FP_CAT(x, FP_SUFFIX)

extern int fp_w;

__attribute__((noinline)) double N(curve)(double x)
{
	double s = 0;
	for (int k = 0; k < fp_w; k++)
		s += 4.0 / (1.0 + (x + k * 1e-9) * (x + k * 1e-9));
	return s / 24;
}

__attribute__((noinline)) int N(below)(double x, double y)
{
	return y * 4.0 <= N(curve)(x);
}

__attribute__((noinline)) int N(siblings)(double x, double y)
{
	return y * 4.0 <= N(curve)(x) + N(curve)(x + 1e-3);
}

/* n points; shape 0: main -> curve, 1: main -> below -> curve, 2: main ->
 * siblings -> curve x 2.  Not instrumented in either copy. */
__attribute__((no_instrument_function)) long N(fp_loop)(long n, int shape)
{
	unsigned long long s = 1;
	long h = 0;
	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		double x = (double)(s >> 11) / 9007199254740992.0;
		if (shape == 1)
			h += N(below)(x, 0.5);
		else if (shape == 2)
			h += N(siblings)(x, 0.5);
		else
			h += N(curve)(x) > 3.0;
	}
	return h;
}
