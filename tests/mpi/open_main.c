/* tests/mpi/open_main.c - an instrumented main that is still open when
 * MPI_Finalize merges the ranks' profiles (measured mode).
 *
 * Programs built whole with -finstrument-functions have main itself
 * probed, and main is on the stack at MPI_Finalize: the merged profile
 * must give it the time of its calls so far (it once gave it 0 s, and every
 * percentage of the report was 0).  main calls work() a known number of
 * times and sleeps a known time itself.
 *
 * Usage: mpirun -np N mpi_open_main [CALLS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) double work(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += 1.0 / i;
	return s;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r, calls = argc > 1 ? atoi(argv[1]) : 20;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	double s = 0, t;
	for (int k = 0; k < calls; k++)
		s += work(200000);
	struct timespec ts = {0, 50000000}; /* 50 ms of main's own */
	nanosleep(&ts, NULL);
	MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (r == 0)
		printf("sum %.6f\n", t);
	MPI_Finalize();
	return 0;
}
