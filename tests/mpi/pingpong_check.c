/* tests/mpi/pingpong_check.c - a ping-pong whose traffic is known exactly.
 *
 * N round trips of 100 ints between ranks 0 and 1, one MPI_Allreduce and one
 * MPI_Barrier; e2e.sh json checks the report's matrix, call sites and
 * collectives against these counts.  Usage: mpirun -np 2 mpi_pingpong_check N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r, n = argc > 1 ? atoi(argv[1]) : 1000, buf[100];
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	for (int it = 0; it < n; it++) {
		if (r == 0) {
			for (int i = 0; i < 100; i++)
				buf[i] = it + i;
			MPI_Send(buf, 100, MPI_INT, 1, 7, MPI_COMM_WORLD);
			MPI_Recv(buf, 100, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (r == 1) {
			MPI_Status st;
			int c;
			MPI_Recv(buf, 100, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_INT, &c);
			if (c != 100 || buf[5] != it + 5) {
				fprintf(stderr, "bad message %d: count %d, buf[5] %d\n", it, c, buf[5]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			MPI_Send(buf, 100, MPI_INT, 0, 8, MPI_COMM_WORLD);
		}
	}
	double x = r, s;
	MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0)
		printf("ok sum %g\n", s);
	MPI_Finalize();
	return 0;
}
