/* tests/mpi/spawn.c - MPI_Comm_spawn: messages between two worlds.
 *
 * The parents (this program's first world) spawn two children (the same
 * program) and talk to them over the intercommunicator and over its merge:
 * blocking and non-blocking point to point, small (the wrappers' fast path)
 * and large (struct datatype) messages both ways, a matched probe and
 * receive of a child's message, collectives on the merged communicator;
 * then the parents talk among themselves on a duplicate of their world.
 * The children run with or without hyprof (a spawned process inherits the
 * daemon's environment, not the parent's LD_PRELOAD), so the wrappers must
 * not piggyback on a communicator that reaches another world, and keep
 * piggybacking inside their own.  Every line printed is a fact of the
 * program's results; tests/mpi/e2e.sh compares them with a plain run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 5000 /* doubles: above the packed copy's limit */

static double sum(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void fill(double *v, int n, double base)
{
	for (int i = 0; i < n; i++)
		v[i] = base + i * 0.25;
}

/* Both sides of the intercommunicator: rank 0 of each side talks to rank 0
 * of the other (`first` sends first). */
static void talk(MPI_Comm inter, int rank, int first, const char *who)
{
	static double big[BIG], got[BIG];
	int small = 100 + rank, in = -1;
	if (rank != 0)
		return;
	if (first) {
		MPI_Send(&small, 1, MPI_INT, 0, 1, inter);
		fill(big, BIG, 1.0);
		MPI_Send(big, BIG, MPI_DOUBLE, 0, 2, inter);
		MPI_Recv(&in, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
		MPI_Request r[2];
		MPI_Irecv(got, BIG, MPI_DOUBLE, 0, 4, inter, &r[0]);
		MPI_Isend(&small, 1, MPI_INT, 0, 5, inter, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	} else {
		MPI_Status st;
		int n = 0;
		MPI_Recv(&in, 1, MPI_INT, 0, 1, inter, &st);
		MPI_Get_count(&st, MPI_INT, &n);
		printf("%s got small %d count %d\n", who, in, n);
		MPI_Recv(got, BIG, MPI_DOUBLE, 0, 2, inter, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		printf("%s got big sum %.2f count %d\n", who, sum(got, BIG), n);
		MPI_Send(&small, 1, MPI_INT, 0, 3, inter);
		fill(big, BIG, 2.0);
		MPI_Request r;
		MPI_Isend(big, BIG, MPI_DOUBLE, 0, 4, inter, &r);
		MPI_Recv(&in, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		return;
	}
	printf("%s got small %d big sum %.2f\n", who, in, sum(got, BIG));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm parent, inter, merged;
	MPI_Comm_get_parent(&parent);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int child = parent != MPI_COMM_NULL;
	const char *who = child ? "child" : "parent";
	if (child) {
		inter = parent;
	} else {
		int errs[2];
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
	}
	talk(inter, rank, !child, who);

	/* a child's message received by a matched probe on the parents' side */
	if (child && rank == 1) {
		double v[3] = {7.5, 8.5, 9.5};
		MPI_Send(v, 3, MPI_DOUBLE, 0, 6, inter);
	} else if (!child && rank == 0) {
		MPI_Message m;
		MPI_Status st;
		int n = 0;
		double v[4] = {0};
		MPI_Mprobe(MPI_ANY_SOURCE, 6, inter, &m, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		MPI_Mrecv(v, n, MPI_DOUBLE, &m, &st);
		printf("parent mprobe from child %d count %d sum %.1f\n", st.MPI_SOURCE, n, sum(v, 3));
	}

	/* collectives across both worlds */
	MPI_Intercomm_merge(inter, child, &merged);
	int mrank, msize, s = 10 * (rank + 1) + child, tot = 0, root_val = 0;
	MPI_Comm_rank(merged, &mrank);
	MPI_Comm_size(merged, &msize);
	MPI_Allreduce(&s, &tot, 1, MPI_INT, MPI_SUM, merged);
	if (mrank == 0)
		root_val = 4242;
	MPI_Bcast(&root_val, 1, MPI_INT, 0, merged);
	int *all = malloc(sizeof(int) * (size_t)msize);
	MPI_Allgather(&mrank, 1, MPI_INT, all, 1, MPI_INT, merged);
	int ok = 1;
	for (int i = 0; i < msize; i++)
		ok &= all[i] == i;
	free(all);
	MPI_Barrier(merged);
	printf("%s %d merged rank %d of %d sum %d bcast %d gather %s\n", who, rank, mrank, msize, tot, root_val,
	       ok ? "ok" : "WRONG");

	/* and inside one world again: the parents among themselves */
	if (!child && size > 1) {
		MPI_Comm d;
		MPI_Comm_dup(MPI_COMM_WORLD, &d);
		int x = rank * 3, y = -1;
		MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 7, &y, 1, MPI_INT, (rank + size - 1) % size, 7, d,
			     MPI_STATUS_IGNORE);
		printf("parent %d within its world got %d\n", rank, y);
		MPI_Comm_free(&d);
	}
	MPI_Comm_free(&merged);
	MPI_Comm_disconnect(&inter);
	/* communicators made after the disconnect may get its handle value
	 * back: their messages are within the parents' world again */
	if (!child && size > 1) {
		MPI_Comm d[3];
		for (int i = 0; i < 3; i++)
			MPI_Comm_dup(MPI_COMM_WORLD, &d[i]);
		for (int i = 0; i < 3; i++) {
			int x = rank * 5 + i, y = -1;
			MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 8, &y, 1, MPI_INT, (rank + size - 1) % size, 8,
				     d[i], MPI_STATUS_IGNORE);
			printf("parent %d after the disconnect got %d\n", rank, y);
		}
		for (int i = 0; i < 3; i++)
			MPI_Comm_free(&d[i]);
	}
	MPI_Finalize();
	return 0;
}
