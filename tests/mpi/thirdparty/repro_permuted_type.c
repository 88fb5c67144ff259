/* A datatype whose typemap is a permutation of contiguous memory: size ==
 * extent == true extent, lb 0, but the order on the wire is not memory order.
 *   mpirun -np 2 ./repro_permuted_type   (expect "2 1" twice; hyprof --compensate parallel gives "1 2") */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int bl[2] = {1, 1}, disp[2] = {1, 0};
	MPI_Datatype perm;
	MPI_Type_indexed(2, bl, disp, MPI_INT, &perm); /* {int at 4, int at 0} */
	MPI_Type_commit(&perm);
	int a[2] = {0, 0};
	if (rank == 0) {
		int s[2] = {1, 2};
		MPI_Send(s, 1, perm, 1, 0, MPI_COMM_WORLD);   /* wire: 2 1 */
		MPI_Send(s, 2, MPI_INT, 1, 1, MPI_COMM_WORLD); /* wire: 1 2 */
	} else if (rank == 1) {
		MPI_Recv(a, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("send perm,  recv int: %d %d (expect 2 1)\n", a[0], a[1]);
		MPI_Recv(a, 1, perm, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("send int,   recv perm: %d %d (expect 2 1)\n", a[0], a[1]);
	}
	MPI_Type_free(&perm);
	MPI_Finalize();
	return 0;
}
