/* omp_split.c - OpenMP, two threads, work split 75% heavy() / 25% light().
 * gcc -O2 -g -fopenmp omp_split.c -o omp_split   (add -finstrument-functions for measured/hybrid)
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noipa)) double heavy(long n)
{
	double s = 0;
	for (long i = 0; i < 3 * n; i++)
		s += (double)(i % 7) * 0.5;
	return s;
}

__attribute__((noinline, noipa)) double light(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)(i % 7) * 0.5;
	return s;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 400;
	long n = 1000000;
	double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) num_threads(2)
	for (long k = 0; k < iters; k++)
		total += heavy(n + (k & 1)) + light(n + (k & 1));
	printf("%.1f\n", total);
	return 0;
}
