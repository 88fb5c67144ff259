/* bench/mpi/pp_loop.c - N round trips of BYTES between ranks 0 and 1 with
 * blocking MPI_Send/MPI_Recv, nothing else: the program bench/mpi/instr.sh
 * runs under callgrind to count the instructions the wrappers add per call
 * (a count, unlike a time, does not move with the machine's load).
 *
 * Usage: mpirun -np 2 pp_loop [N [BYTES [nonblocking]]]   (default 20000 round
 * trips of 8 B; nonblocking: Isend/Irecv/Wait/Waitall as bench_mpi_pingpong
 * does, 7 calls per round trip)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int bytes = argc > 2 ? atoi(argv[2]) : 8;
	char *b = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
	if (!b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	int nb = argc > 3 && !strcmp(argv[3], "nonblocking");
	for (long i = 0; i < n && rank < 2; i++) {
		MPI_Request r[2];
		if (nb) {
			if (rank == 0) {
				MPI_Isend(b, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[0]);
				MPI_Irecv(b, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &r[1]);
			} else {
				MPI_Irecv(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[1]);
				MPI_Wait(&r[1], MPI_STATUS_IGNORE);
				MPI_Isend(b, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[0]);
			}
			MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		} else if (rank == 0) {
			MPI_Send(b, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(b, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(b, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
	}
	free(b);
	MPI_Finalize();
	return 0;
}
