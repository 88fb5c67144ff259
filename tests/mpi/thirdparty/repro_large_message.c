/* A message larger than INT_MAX bytes: 2^28 long longs = 2 GiB.
 *   mpirun -np 2 ./repro_large_message   (about 4 GiB of memory; expect count 268435456) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	const int cnt = 1 << 28;
	long long *v = malloc((size_t)cnt * sizeof(long long));
	if (!v)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		for (int i = 0; i < cnt; i++)
			v[i] = i;
		MPI_Send(v, cnt, MPI_LONG_LONG, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Status st;
		int n = -1, bad = 0;
		MPI_Count elems = -1;
		MPI_Recv(v, cnt, MPI_LONG_LONG, 0, 0, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_LONG_LONG, &n);
		MPI_Get_elements_x(&st, MPI_BYTE, &elems);
		for (int i = 0; i < cnt; i++)
			bad += v[i] != i;
		printf("count %d (expect %d), bytes %lld (expect %lld), wrong elements %d\n", n, cnt,
		       (long long)elems, (long long)cnt * 8, bad);
	}
	free(v);
	MPI_Finalize();
	return 0;
}
