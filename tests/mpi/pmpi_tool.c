/* tests/mpi/pmpi_tool.c - a PMPI tool beside hyprof (libmpi_pmpi_tool.so).
 *
 * The classic tool: it defines MPI_Send and MPI_Recv, counts them and
 * forwards to PMPI_; at MPI_Finalize it prints its counts.  Linked into
 * mpi_pmpi_app_linked or preloaded into mpi_pmpi_app (e2e.sh pmpitool): under
 * hyprof it must see every call the program made, and its MPI_Finalize
 * must run, as without hyprof.
 */
#include <mpi.h>
#include <stdio.h>

static long nsend, nrecv;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	nsend++;
	return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *st)
{
	nrecv++;
	return PMPI_Recv(buf, count, type, source, tag, comm, st);
}

int MPI_Finalize(void)
{
	int rank;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("tool: rank %d MPI_Send %ld MPI_Recv %ld\n", rank, nsend, nrecv);
	fflush(stdout);
	return PMPI_Finalize();
}
