/* tests/mpi/mpi_io.c - MPI-IO with results that must be the same with and
 * without hyprof (tests/mpi/e2e.sh io), and known calls and bytes.
 *
 * Each rank writes 100 ints at its own offset (MPI_File_write_at), 50
 * more collectively through a view (MPI_File_write_all), 10 with
 * MPI_File_iwrite_at completed by MPI_Wait, and 1 int through the shared
 * pointer (MPI_File_write_ordered); then reads back: 100 with
 * MPI_File_read_at (status ignored), 50 with MPI_File_read_all, 10 with
 * MPI_File_iread_at, and 40 asked at the last region, which holds one int
 * per rank (MPI_File_read_at: a short read, counted as what it got).
 * Usage: mpirun -np N mpi_io FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		if (!rank)
			fprintf(stderr, "usage: mpi_io FILE\n");
		MPI_Finalize();
		return 2;
	}
	int a[100], b[100] = {0};
	for (int i = 0; i < 100; i++)
		a[i] = rank * 1000 + i;
	MPI_File fh;
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_set_size(fh, 0);
	/* region 1: 100 ints per rank at rank * 400 */
	MPI_Offset off = (MPI_Offset)rank * 100 * sizeof(int);
	MPI_Status st;
	MPI_File_write_at(fh, off, a, 100, MPI_INT, &st);
	/* region 2 (after all of region 1): 50 ints per rank, interleaved in
	 * blocks of 10 through a view */
	MPI_Datatype ft;
	MPI_Type_vector(5, 10, 10 * size, MPI_INT, &ft);
	MPI_Type_commit(&ft);
	MPI_Offset r2 = (MPI_Offset)size * 100 * sizeof(int);
	MPI_File_set_view(fh, r2 + (MPI_Offset)rank * 10 * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, a, 50, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	/* region 3: 10 ints per rank, non-blocking */
	MPI_Offset r3 = r2 + (MPI_Offset)size * 50 * sizeof(int);
	MPI_Request rq;
	MPI_File_iwrite_at(fh, r3 + (MPI_Offset)rank * 10 * sizeof(int), a + 90, 10, MPI_INT, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	/* region 4: one int per rank in rank order (shared pointer) */
	MPI_Offset r4 = r3 + (MPI_Offset)size * 10 * sizeof(int);
	MPI_File_seek_shared(fh, r4, MPI_SEEK_SET);
	MPI_File_write_ordered(fh, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);

	/* read back the left neighbour's region 1 */
	int left = (rank + size - 1) % size;
	MPI_File_read_at(fh, (MPI_Offset)left * 100 * sizeof(int), b, 100, MPI_INT, MPI_STATUS_IGNORE);
	long s1 = 0;
	for (int i = 0; i < 100; i++)
		s1 += b[i];
	/* region 2 through the view, collectively */
	MPI_File_set_view(fh, r2 + (MPI_Offset)rank * 10 * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
	MPI_File_read_all(fh, b, 50, MPI_INT, &st);
	int n2 = -1;
	MPI_Get_count(&st, MPI_INT, &n2);
	long s2 = 0;
	for (int i = 0; i < 50; i++)
		s2 += b[i];
	MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	/* region 3 of the right neighbour, non-blocking */
	int right = (rank + 1) % size, c[10] = {0};
	MPI_File_iread_at(fh, r3 + (MPI_Offset)right * 10 * sizeof(int), c, 10, MPI_INT, &rq);
	MPI_Wait(&rq, &st);
	/* past the end: region 4 has `size` ints; ask 40 from its start */
	int d[40];
	MPI_File_read_at(fh, r4, d, 40, MPI_INT, &st);
	int n4 = -1;
	MPI_Get_count(&st, MPI_INT, &n4);
	MPI_Type_free(&ft);
	MPI_File_close(&fh);

	long all[5] = {s1, s2, n2, c[9], n4}, tot[5];
	MPI_Reduce(all, tot, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("sums %ld %ld counts %ld %ld last %ld\n", tot[0], tot[1], tot[2], tot[4], tot[3]);
		printf("done %d ranks\n", size);
	}
	MPI_Finalize();
	return 0;
}
