/* MPI_Alltoallw on an intercommunicator whose local group (3 ranks) is
 * larger than its remote group (1 rank).  The per-peer arrays have
 * remote_size entries (MPI 3.1 section 5.8: "one entry per process of the
 * remote group"); what lies past them is none of MPI's business, so it is
 * filled with junk here on purpose.
 *   mpirun --oversubscribe -np 4 ./repro_intercomm_alltoallw */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int wrank, wsize;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	int color = wrank == 0 ? 0 : 1; /* group A = {0}, group B = {1..n-1} */
	MPI_Comm local, inter;
	MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
	MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 99, &inter);
	int rsize;
	MPI_Comm_remote_size(inter, &rsize);
	/* arrays of rsize entries, then junk */
	int counts[8], displs[8];
	MPI_Datatype types[8];
	for (int i = 0; i < 8; i++) {
		counts[i] = 1000;
		displs[i] = 0;
		types[i] = (MPI_Datatype)(uintptr_t)0x10; /* junk */
	}
	int sbuf[8], rbuf[8];
	for (int i = 0; i < rsize; i++) {
		counts[i] = 1;
		displs[i] = i * (int)sizeof(int);
		types[i] = MPI_INT;
		sbuf[i] = 100 * wrank + i;
		rbuf[i] = -1;
	}
	MPI_Alltoallw(sbuf, counts, displs, types, rbuf, counts, displs, types, inter);
	int ok = 1;
	for (int i = 0; i < rsize; i++) {
		int src = color == 0 ? i + 1 : 0;           /* world rank of remote i */
		int myidx = color == 0 ? 0 : wrank - 1;      /* my rank in my group */
		if (rbuf[i] != 100 * src + myidx)
			ok = 0;
	}
	printf("rank %d: alltoallw on intercomm %s\n", wrank, ok ? "ok" : "WRONG");
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
	MPI_Finalize();
	return 0;
}
