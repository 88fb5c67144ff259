/* tests/mpi/abort.c - a job that ends in MPI_Abort.
 *
 * Both ranks work (main -> work, so the profiles have call paths), meet in
 * an Allreduce, then rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while rank 0
 * keeps working: mpirun kills rank 0 (SIGTERM for Open MPI, SIGKILL for
 * MPICH's hydra).  Under hyprof the aborting rank must have written its
 * profile before the job ended.
 * Usage: mpirun -np 2 mpi_abort
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void work(int n)
{
	for (int i = 0; i < n * 1000000; i++)
		sink += i * 0.5;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	work(100);
	int x = r;
	MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (r == 1) {
		fprintf(stderr, "rank 1 aborts\n");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	for (;;) {
		work(10);
		usleep(1000);
	}
}
