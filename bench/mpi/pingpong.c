/* bench/mpi/pingpong.c - ping-pong latency and bandwidth between ranks 0 and 1.
 *
 * Usage: mpirun -np 2 pingpong [MIN_BYTES MAX_BYTES [MODE]]
 * MODE: blocking (MPI_Send/MPI_Recv, default) or nonblocking (Irecv, Isend,
 * Waitall).  For each size (powers of 2 from MIN to MAX) prints one line:
 *   bytes  one-way latency in us (best of 7 repetitions)  bandwidth MB/s
 * The data is checked at every exchange (a wrong byte exits 1).  Run it
 * plain and under `hyprof run`: bench/mpi/run.sh prints the ratios.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long lo = argc > 1 ? atol(argv[1]) : 8, hi = argc > 2 ? atol(argv[2]) : 4 << 20;
	int nonblocking = argc > 3 && !strcmp(argv[3], "nonblocking");
	if (size < 2 || lo < 1 || hi < lo) {
		if (!rank)
			fprintf(stderr, "usage: mpirun -np 2 pingpong [MIN MAX [blocking|nonblocking]]\n");
		MPI_Finalize();
		return 2;
	}
	unsigned char *sb = malloc((size_t)hi), *rb = malloc((size_t)hi);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (long n = lo; n <= hi; n *= 2) {
		int iters = n <= 4096 ? 20000 : n <= 65536 ? 4000 : n <= (1 << 20) ? 400 : 100;
		double best = 1e30;
		for (int rep = 0; rep < 7; rep++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < iters && rank < 2; i++) {
				unsigned char v = (unsigned char)(i + rep);
				if (rank == 0) {
					sb[0] = v;
					sb[n - 1] = v;
				}
				int peer = 1 - rank;
				if (nonblocking) {
					MPI_Request r[2];
					if (rank == 0) {
						MPI_Isend(sb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
						MPI_Irecv(rb, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[1]);
					} else {
						MPI_Irecv(rb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
						MPI_Wait(&r[1], MPI_STATUS_IGNORE);
						MPI_Isend(rb, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[0]);
					}
					MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
				} else if (rank == 0) {
					MPI_Send(sb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
					MPI_Recv(rb, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else {
					MPI_Recv(rb, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(rb, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
				}
				if (rb[0] != v || rb[n - 1] != v) {
					fprintf(stderr, "pingpong: rank %d: wrong data at %ld bytes\n", rank, n);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
			double t = (MPI_Wtime() - t0) / iters / 2;
			MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			if (t < best)
				best = t;
		}
		if (!rank)
			printf("%10ld %12.3f %12.1f\n", n, best * 1e6, (double)n / best / 1e6);
	}
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
