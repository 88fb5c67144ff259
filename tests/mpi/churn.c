/* tests/mpi/churn.c - thousands of short threads in an MPI job.
 *
 * Each rank creates N threads, 8 at a time; thread i calls probe() 3 times
 * and, with MODE "mpi" (MPI_THREAD_MULTIPLE), one MPI_Sendrecv with thread
 * i of the other rank on tag i % 30000, and at its exit, from a key
 * destructor, probe() and an MPI_Sendrecv with itself (MODE "nb": MPI_Irecv,
 * MPI_Isend and MPI_Waitall instead, no destructor).  Every message is checked.  Prints
 * per rank how much VmRSS grew from thread 1000 to the end (stderr, it
 * varies) and one deterministic line (stdout).
 *
 * Usage: mpirun -np 2 mpi_churn N mpi|nb|probes
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 8

static int rank, with_mpi;
static long errors;
volatile long sink;

__attribute__((noinline)) void probe(int x)
{
	sink += x;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char l[256];
	long v = -1;
	while (f && fgets(l, sizeof(l), f))
		if (!strncmp(l, "VmRSS:", 6))
			v = atol(l + 6);
	if (f)
		fclose(f);
	return v;
}

static pthread_key_t late_key;

/* MODE mpi: a destructor that runs after libhyprof_mpi.so's own at thread
 * exit (its key is newer) calls MPI again. */
static void late(void *arg)
{
	int v = (int)(long)arg, r = -1;
	probe(4);
	MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &r, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
	if (r != v)
		__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
}

static void *thr(void *a)
{
	int i = (int)(long)a, v = rank * 100000 + i, r = -1;
	if (with_mpi == 1)
		pthread_setspecific(late_key, (void *)(long)(i + 1));
	probe(1);
	probe(2);
	probe(3);
	if (with_mpi == 2) {
		MPI_Request q[2];
		MPI_Irecv(&r, 1, MPI_INT, 1 - rank, i % 30000, MPI_COMM_WORLD, &q[0]);
		MPI_Isend(&v, 1, MPI_INT, 1 - rank, i % 30000, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	} else if (with_mpi) {
		MPI_Sendrecv(&v, 1, MPI_INT, 1 - rank, i % 30000, &r, 1, MPI_INT, 1 - rank, i % 30000,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (with_mpi) {
		if (r != (1 - rank) * 100000 + i)
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, prov, size;
	with_mpi = argc < 3 ? 0 : !strcmp(argv[2], "mpi") ? 1 : !strcmp(argv[2], "nb") ? 2 : 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || (with_mpi && prov < MPI_THREAD_MULTIPLE)) {
		if (rank == 0)
			printf("skip: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
		MPI_Finalize();
		return 0;
	}
	pthread_key_create(&late_key, late);
	long r0 = rss_kb();
	for (int i = 0; i < n; i += BATCH) {
		pthread_t th[BATCH];
		int k, m = n - i < BATCH ? n - i : BATCH;
		for (k = 0; k < m; k++)
			pthread_create(&th[k], NULL, thr, (void *)(long)(i + k));
		for (k = 0; k < m; k++)
			pthread_join(th[k], NULL);
		if (i == 1000)
			r0 = rss_kb();
	}
	fprintf(stderr, "rank %d rss_growth_kb %ld\n", rank, rss_kb() - r0);
	printf("rank %d threads %d errors %ld\n", rank, n, errors);
	MPI_Finalize();
	return 0;
}
