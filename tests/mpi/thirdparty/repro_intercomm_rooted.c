/* Rooted collectives on an intercommunicator, MPI 3.1 sections 5.5, 5.6:
 * at the root (MPI_ROOT) the send arguments of MPI_Gather and the receive
 * arguments of MPI_Scatter are insignificant; at the other members of the
 * root's group (MPI_PROC_NULL) every argument but root and comm is.  This
 * program passes junk there on purpose, as it may.
 * Group A = world ranks {0, 1} (0 is the root, 1 passes MPI_PROC_NULL),
 * group B = {2 .. n-1}.  Run with 3 or more ranks:
 *   mpirun -np 4 ./repro_intercomm_rooted [gather|scatter|all]
 * (MPI_Bcast is left out: Open MPI itself checks its datatype at MPI_PROC_NULL.) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	int wrank, wsize;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	if (wsize < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	const char *what = argc > 1 ? argv[1] : "all";
	int all = !strcmp(what, "all");
	int color = wrank < 2 ? 0 : 1;
	MPI_Comm local, inter;
	MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
	MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 2 : 0, 99, &inter);
	MPI_Datatype junk = (MPI_Datatype)(uintptr_t)0x10; /* not a datatype */
	int rsize, ok = 1, v = -1, buf[64] = {0};
	MPI_Comm_remote_size(inter, &rsize);
	int root = wrank == 0 ? MPI_ROOT : wrank == 1 ? MPI_PROC_NULL : 0;
	if (all || !strcmp(what, "gather")) {
		if (wrank == 0) {
			MPI_Gather(NULL, 7, junk, buf, 1, MPI_INT, root, inter);
			for (int i = 0; i < rsize; i++)
				ok &= buf[i] == 10 + i;
		} else if (wrank == 1) {
			MPI_Gather(NULL, 7, junk, NULL, 7, junk, root, inter);
		} else {
			v = 10 + wrank - 2;
			MPI_Gather(&v, 1, MPI_INT, NULL, 7, junk, root, inter);
		}
	}
	if (all || !strcmp(what, "scatter")) {
		if (wrank == 0) {
			for (int i = 0; i < rsize; i++)
				buf[i] = 20 + i;
			MPI_Scatter(buf, 1, MPI_INT, NULL, 7, junk, root, inter);
		} else if (wrank == 1) {
			MPI_Scatter(NULL, 7, junk, NULL, 7, junk, root, inter);
		} else {
			MPI_Scatter(NULL, 7, junk, &v, 1, MPI_INT, root, inter);
			ok &= v == 20 + wrank - 2;
		}
	}
	printf("rank %d: %s on an intercommunicator %s\n", wrank, what, ok ? "ok" : "WRONG");
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
	MPI_Finalize();
	return 0;
}
