/* tests/mpi/mpi_threads.c - MPI_THREAD_MULTIPLE through the wrappers.
 *
 * Ranks 0 and 1 each run NT threads; thread t of one rank exchanges with
 * thread t of the other on its own tag: blocking, non-blocking, wildcard
 * receives, and requests posted by one thread and completed by another
 * (the request table is shared).  Every message is checked; the output is
 * one deterministic line per thread and must not change under hyprof.
 *
 * Usage: mpirun -np 2 mpi_threads [ITERATIONS]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4

static int rank, iters = 2000;
static long errors;
static unsigned long sums[NT];

/* A request handed from a posting thread to a completing thread. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	MPI_Request req[NT];
	int ready[NT];
	int buf[NT][8];
} hand = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void *worker(void *arg)
{
	int t = (int)(long)arg, peer = 1 - rank, tag = 100 + t;
	unsigned long sum = 0;
	int s[16], r[16];
	for (int i = 0; i < iters; i++) {
		for (int k = 0; k < 16; k++)
			s[k] = rank * 1000000 + t * 10000 + i + k;
		MPI_Request q[2];
		MPI_Status st[2];
		MPI_Irecv(r, 16, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[0]);
		MPI_Isend(s, 1 + i % 16, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, st);
		int n;
		MPI_Get_count(&st[0], MPI_INT, &n);
		if (n != 1 + i % 16 || r[0] != peer * 1000000 + t * 10000 + i || st[0].MPI_TAG != tag)
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		sum += (unsigned long)r[n - 1];
		/* blocking, and a wildcard source on our own tag */
		if (rank == 0) {
			MPI_Send(s, 3, MPI_INT, peer, tag + 50, MPI_COMM_WORLD);
			MPI_Recv(r, 16, MPI_INT, MPI_ANY_SOURCE, tag + 60, MPI_COMM_WORLD, &st[0]);
		} else {
			MPI_Recv(r, 16, MPI_INT, 0, tag + 50, MPI_COMM_WORLD, &st[0]);
			MPI_Send(s, 4, MPI_INT, peer, tag + 60, MPI_COMM_WORLD);
		}
		MPI_Get_count(&st[0], MPI_INT, &n);
		sum += (unsigned long)(n * 7 + r[2] % 1000);
	}
	/* thread t posts a receive that thread (t+1) % NT completes */
	MPI_Request q;
	MPI_Irecv(hand.buf[t], 8, MPI_INT, peer, tag + 70, MPI_COMM_WORLD, &q);
	pthread_mutex_lock(&hand.lock);
	hand.req[t] = q;
	hand.ready[t] = 1;
	pthread_cond_broadcast(&hand.cond);
	int o = (t + NT - 1) % NT;
	while (!hand.ready[o])
		pthread_cond_wait(&hand.cond, &hand.lock);
	MPI_Request mine = hand.req[o];
	pthread_mutex_unlock(&hand.lock);
	int v[8] = {t, t, t, t, t, t, t, t};
	MPI_Send(v, 5, MPI_INT, peer, tag + 70, MPI_COMM_WORLD);
	MPI_Status st;
	MPI_Wait(&mine, &st);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	sum += (unsigned long)(n * 100 + hand.buf[o][4]);
	sums[t] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	int size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		iters = atoi(argv[1]);
	if (provided < MPI_THREAD_MULTIPLE || size != 2) {
		if (!rank)
			printf("skip: needs MPI_THREAD_MULTIPLE (provided %d) and 2 ranks\n", provided);
		MPI_Finalize();
		return 77;
	}
	pthread_t th[NT];
	for (int t = 0; t < NT; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	unsigned long all[2 * NT];
	MPI_Gather(sums, NT, MPI_UNSIGNED_LONG, all, NT, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
	long errs = 0;
	MPI_Reduce(&errors, &errs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank) {
		for (int i = 0; i < 2 * NT; i++)
			printf("rank %d thread %d sum %lu\n", i / NT, i % NT, all[i]);
		printf("errors %ld\n", errs);
	}
	MPI_Finalize();
	return errs ? 1 : 0;
}
