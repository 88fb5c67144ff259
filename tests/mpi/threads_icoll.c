/* tests/mpi/threads_icoll.c - non-blocking collectives from several threads.
 *
 * MPI_THREAD_MULTIPLE; each of NT threads runs Iallreduce (completed by an
 * MPI_Test loop), Ibcast and Igather (completed by MPI_Wait) on its own
 * duplicate of MPI_COMM_WORLD, ROUNDS times.  Under --compensate parallel
 * every member starts a delay exchange beside each of them (mpiwrap/coll.c)
 * and completes it with the user's request: the results, printed per rank
 * and thread, must be those of the run without hyprof, and nothing may
 * hang (tests/mpi/e2e.sh threads_icoll).
 *
 * Usage: mpirun -np N threads_icoll [ROUNDS]   (prints "skip ..." without
 * MPI_THREAD_MULTIPLE)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 3

static MPI_Comm comms[NT];
static long results[NT];
static int rounds = 300;

static void *worker(void *a)
{
	int t = (int)(long)a, r, n;
	MPI_Comm_rank(comms[t], &r);
	MPI_Comm_size(comms[t], &n);
	long acc = 0, *g = calloc((size_t)n, sizeof(long));
	if (!g)
		return NULL;
	for (int i = 0; i < rounds; i++) {
		long v = r + i + t, s = 0;
		MPI_Request q;
		int done = 0;
		MPI_Iallreduce(&v, &s, 1, MPI_LONG, MPI_SUM, comms[t], &q);
		while (!done)
			MPI_Test(&q, &done, MPI_STATUS_IGNORE);
		long b = r == 0 ? i * 7 + t : -1;
		MPI_Ibcast(&b, 1, MPI_LONG, 0, comms[t], &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Igather(&v, 1, MPI_LONG, g, 1, MPI_LONG, 0, comms[t], &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		acc += s + b + (r == 0 ? g[n - 1] : 0);
	}
	free(g);
	results[t] = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	int prov, r;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	if (argc > 1)
		rounds = atoi(argv[1]);
	if (prov < MPI_THREAD_MULTIPLE) {
		if (r == 0)
			printf("skip: MPI_THREAD_MULTIPLE not provided\n");
		MPI_Finalize();
		return 0;
	}
	for (int t = 0; t < NT; t++)
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
	pthread_t th[NT];
	for (long t = 0; t < NT; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < NT; t++)
		printf("rank %d thread %d sum %ld\n", r, t, results[t]);
	for (int t = 0; t < NT; t++)
		MPI_Comm_free(&comms[t]);
	MPI_Finalize();
	return 0;
}
