/* examples/mpi_demo.c - the example `make demo` profiles: a small MPI
 * "solver" whose time is split unevenly across ranks and functions.
 *
 * Every rank runs 20 time steps of:
 *   compute_interior  heavy, and (rank + 1) times heavier on higher ranks:
 *                     the imbalance the lower ranks wait for
 *   compute_boundary  light, the same on every rank
 *   exchange_halo     MPI_Sendrecv with both ring neighbours
 *   global_residual   MPI_Allreduce: where the faster ranks wait
 * and rank 0 also runs write_checkpoint every 5 steps.
 *
 * Usage: mpi_demo [SCALE]   SCALE multiplies the work (default 1: about
 * 2 s on the slowest rank here).  Built with -g so the report names lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 20
#define N 4096

static double grid[N], next[N];
static volatile double sink;

/* A unit of floating-point work over the grid. */
static void relax(long sweeps)
{
	for (long s = 0; s < sweeps; s++) {
		for (int i = 1; i < N - 1; i++)
			next[i] = 0.25 * (grid[i - 1] + 2.0 * grid[i] + grid[i + 1]);
		for (int i = 1; i < N - 1; i++)
			grid[i] = next[i];
	}
}

void compute_interior(long sweeps, int rank)
{
	relax(sweeps * (rank + 1));
}

void compute_boundary(long sweeps)
{
	relax(sweeps / 4 + 1);
}

void exchange_halo(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Sendrecv(&grid[1], 1, MPI_DOUBLE, left, 0, &grid[N - 1], 1, MPI_DOUBLE, right, 0,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(&grid[N - 2], 1, MPI_DOUBLE, right, 1, &grid[0], 1, MPI_DOUBLE, left, 1,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

double global_residual(void)
{
	double local = 0, global = 0;
	for (int i = 0; i < N; i++)
		local += grid[i] * grid[i];
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return global;
}

void write_checkpoint(long sweeps)
{
	relax(sweeps / 2 + 1);
	sink = grid[N / 2];
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	if (scale <= 0)
		scale = 1.0;
	long sweeps = (long)(4000 * scale / size) + 1;
	for (int i = 0; i < N; i++)
		grid[i] = (double)((i * 7 + rank) % 13);
	double res = 0;
	for (int step = 0; step < STEPS; step++) {
		compute_interior(sweeps, rank);
		compute_boundary(sweeps);
		exchange_halo(rank, size);
		res = global_residual();
		if (rank == 0 && step % 5 == 4)
			write_checkpoint(sweeps);
	}
	if (rank == 0)
		fprintf(stderr, "mpi_demo: %d ranks, %d steps, residual %.3e\n", size, STEPS, res);
	MPI_Finalize();
	return 0;
}
