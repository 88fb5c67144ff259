/* A tight loop of MPI_Comm_split + MPI_Comm_free on every rank (the shape
 * of MPICH's test/mpi/comm/ctxsplit.c).  Under `hyprof run` (hybrid mode,
 * 4 ranks on 2 CPUs) a rank was seen to die of SIGIO (signal 29, "I/O
 * possible"), about one run in three; never without hyprof.
 *   mpirun --oversubscribe -np 4 ./repro_sigio_split [loops] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int rank, n = argc > 1 ? atoi(argv[1]) : 100000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	srand(1);
	for (int i = 0; i < n; i++) {
		MPI_Comm c;
		if (rand() % (rank + 2) == 0) {
			MPI_Comm_split(MPI_COMM_WORLD, 1, rank, &c);
			MPI_Comm_free(&c);
		} else {
			MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &c);
		}
	}
	if (rank == 0)
		printf("done %d loops\n", n);
	MPI_Finalize();
	return 0;
}
