/* tests/live/mpi_spin.c - an MPI program that runs for a given time with a
 * known profile, for the live-view test under mpirun: every rank runs
 * hot_kernel() (about 3/4 of its CPU time) and cold_kernel() in a loop, and
 * every 0.2 s of its own clock an MPI_Allreduce decides together whether to
 * go on (rank 0's clock), so waiting stays a small part of the time.
 *
 * Usage: mpi_spin SECONDS.  Prints nothing on stdout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin_work.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc < 2) {
		fprintf(stderr, "usage: mpi_spin SECONDS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double end = now_s() + atof(argv[1]), sync = now_s();
	int go = 1;
	while (go) {
		sync += 0.2;
		while (now_s() < sync)
			do_step();
		int mine = rank == 0 ? now_s() < end : 1;
		MPI_Allreduce(&mine, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
