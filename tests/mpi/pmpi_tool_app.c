/* tests/mpi/pmpi_tool_app.c - the program under the PMPI tool of
 * pmpi_tool.c: every rank but 0 sends rank 0 five messages of tag 4 and one
 * of tag 3; rank 0 receives them all, 6 (NP - 1) MPI_Recv. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, i, v, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		for (i = 0; i < 6 * (size - 1); i++) {
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			sum += v;
		}
		printf("sum %d\n", sum);
	} else {
		for (i = 0; i < 5; i++) {
			v = rank * 10 + i;
			MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
		}
		MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
