/* MPI_Comm_free while a receive on the communicator is still pending, then
 * MPI_Wait: legal (MPI 3.1 section 6.4.3: "pending operations that use this
 * communicator will complete normally").  From MPICH's test/mpi/comm/cmfree2.c.
 *   mpirun -np 2 ./repro_comm_free_pending */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, v = -1;
	MPI_Comm comm;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	if (rank == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		v = 42;
		MPI_Ssend(&v, 1, MPI_INT, 1, 0, comm);
		MPI_Comm_free(&comm);
	} else if (rank == 1) {
		MPI_Request req;
		MPI_Irecv(&v, 1, MPI_INT, 0, 0, comm, &req);
		MPI_Comm_free(&comm);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		printf("rank 1 received %d (expect 42)\n", v);
	} else {
		MPI_Comm_free(&comm);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
