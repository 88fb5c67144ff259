/* tests/mpi/dlopen_mpi.c - an MPI program that loads libmpi at run time, as
 * Python with mpi4py (and R, Julia, plugins) do: it is not linked with MPI,
 * so only the MPI launcher that started it says it is one.
 *
 * Compiled with mpi.h for the types and constants, linked only with libdl.
 * Usage: mpirun -np N mpi_dlopen LIBMPI [BARRIERS]
 * Prints "ranks N barriers B" on rank 0.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: mpi_dlopen LIBMPI [BARRIERS]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "mpi_dlopen: %s\n", dlerror());
		return 1;
	}
	int nb = argc > 2 ? atoi(argv[2]) : 100;
	/* through the global scope, as a dlopened Python module resolves them:
	 * the profiler's wrappers first when they are there */
	int (*init)(int *, char ***) = (int (*)(int *, char ***))dlsym(RTLD_DEFAULT, "MPI_Init");
	int (*fin)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "MPI_Finalize");
	int (*rank)(MPI_Comm, int *) = (int (*)(MPI_Comm, int *))dlsym(RTLD_DEFAULT, "MPI_Comm_rank");
	int (*size)(MPI_Comm, int *) = (int (*)(MPI_Comm, int *))dlsym(RTLD_DEFAULT, "MPI_Comm_size");
	int (*bar)(MPI_Comm) = (int (*)(MPI_Comm))dlsym(RTLD_DEFAULT, "MPI_Barrier");
	if (!init || !fin || !rank || !size || !bar) {
		fprintf(stderr, "mpi_dlopen: %s has no MPI_Init ... MPI_Barrier\n", argv[1]);
		return 1;
	}
#ifdef OMPI_MAJOR_VERSION
	MPI_Comm world = (MPI_Comm)dlsym(h, "ompi_mpi_comm_world"); /* &ompi_mpi_comm_world */
#else
	MPI_Comm world = MPI_COMM_WORLD; /* a constant in MPICH */
#endif
	int r, n;
	init(&argc, &argv);
	rank(world, &r);
	size(world, &n);
	for (int i = 0; i < nb; i++)
		bar(world);
	if (r == 0)
		printf("ranks %d barriers %d\n", n, nb);
	fin();
	return 0;
}
