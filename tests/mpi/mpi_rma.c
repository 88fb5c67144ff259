/* tests/mpi/mpi_rma.c - one-sided communication, with results that must be
 * the same with and without hyprof (tests/mpi/e2e.sh rma), and known
 * numbers of calls and bytes for the report.
 *
 * On a window of 64 ints per rank (MPI_Win_create), each epoch kind:
 *   fence      every rank puts 4 ints to its right neighbour, gets 2 from its
 *              left, accumulates 1 (MPI_SUM) into rank 0; fences around
 *   pscw       rank 0 exposes (post/wait), the others access (start/complete)
 *              and put 1 int each
 *   lock       each rank locks its right neighbour exclusively, puts 3 ints,
 *              unlocks; then shared: a Get_accumulate (MPI_NO_OP) of 2
 *   lock_all   Fetch_and_op and Compare_and_swap on rank 0, flushed; Rput
 *              and Rget completed by MPI_Wait, flush_all
 * then MPI_Win_allocate (8 doubles) with a fence epoch, a dynamic window
 * with one attached buffer, and 40 windows alive at once, two fences and
 * an MPI_Accumulate (MPI_REPLACE) each.  Every rank prints what it holds; rank 0 the
 * sums.  Output order: ranks' lines gathered to rank 0.
 * Usage: mpirun -np N mpi_rma   (N >= 2)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINES_MAX 16
#include "lines.h"

static int rank, size;

static long sum(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (long)v[i] * (i + 1);
	return s;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (!rank)
			fprintf(stderr, "mpi_rma needs 2 or more ranks\n");
		MPI_Finalize();
		return 2;
	}
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int *mem = calloc(64, sizeof(int));
	MPI_Win win;
	/* a communicator of our own, freed before the window: the window's
	 * targets must still be known */
	MPI_Comm comm;
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Win_create(mem, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &win);
	MPI_Comm_free(&comm);

	/* fence */
	int src[8], got[8] = {0};
	for (int i = 0; i < 8; i++)
		src[i] = rank * 100 + i;
	MPI_Win_fence(0, win);
	MPI_Put(src, 4, MPI_INT, right, 0, 4, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Get(got, 2, MPI_INT, left, 0, 2, MPI_INT, win);
	int one = rank + 1;
	MPI_Accumulate(&one, 1, MPI_INT, 0, 10, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	say("fence: mem %d %d %d %d got %d %d acc %d", mem[0], mem[1], mem[2], mem[3], got[0], got[1], mem[10]);

	/* post/start/complete/wait */
	MPI_Group world, g;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	if (rank == 0) {
		int n = size - 1, *rs = malloc(sizeof(int) * (size_t)n);
		for (int i = 0; i < n; i++)
			rs[i] = i + 1;
		MPI_Group_incl(world, n, rs, &g);
		free(rs);
		MPI_Win_post(g, 0, win);
		MPI_Win_wait(win);
	} else {
		int zero = 0;
		MPI_Group_incl(world, 1, &zero, &g);
		MPI_Win_start(g, 0, win);
		int v = 1000 + rank;
		MPI_Put(&v, 1, MPI_INT, 0, 20 + rank, 1, MPI_INT, win);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&g);
	MPI_Group_free(&world);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		long s = 0;
		for (int i = 1; i < size; i++)
			s += mem[20 + i];
		say("pscw: rank 0 got %ld", s);
	}

	/* passive target: exclusive lock, then shared */
	int three[3] = {7 * rank, 7 * rank + 1, 7 * rank + 2};
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
	MPI_Put(three, 3, MPI_INT, right, 30, 3, MPI_INT, win);
	MPI_Win_unlock(right, win);
	MPI_Barrier(MPI_COMM_WORLD);
	int res[2] = {-1, -1};
	MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
	MPI_Get_accumulate(NULL, 0, MPI_INT, res, 2, MPI_INT, left, 30, 2, MPI_INT, MPI_NO_OP, win);
	MPI_Win_flush(left, win);
	MPI_Win_flush_local(left, win);
	MPI_Win_unlock(left, win);
	say("lock: mem %d %d %d, left holds %d %d", mem[30], mem[31], mem[32], res[0], res[1]);
	MPI_Barrier(MPI_COMM_WORLD);

	/* lock_all: atomics on rank 0, request-based put/get */
	MPI_Win_lock_all(0, win);
	int inc = 1, old = -1;
	MPI_Fetch_and_op(&inc, &old, MPI_INT, 0, 40, MPI_SUM, win);
	MPI_Win_flush(0, win);
	MPI_Win_flush_all(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	int cmp = size, nv = -7, was = -1;
	MPI_Compare_and_swap(&nv, &cmp, &was, MPI_INT, 0, 40, win); /* the count reached size: swapped once */
	MPI_Win_flush_local_all(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Request rq[2];
	int pv = 500 + rank, gv = -1;
	MPI_Win_lock_all(0, win);
	MPI_Rput(&pv, 1, MPI_INT, right, 50, 1, MPI_INT, win, &rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	MPI_Win_flush(right, win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	MPI_Rget(&gv, 1, MPI_INT, left, 50, 1, MPI_INT, win, &rq[1]);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	MPI_Win_sync(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	say("atomics: old %s, cas %s, final %d; rput/rget: mem %d got %d", old >= 0 && old < size ? "ok" : "BAD",
	    was == size || was == -7 ? "ok" : "BAD", rank == 0 ? mem[40] : 0, mem[50], gv);
	MPI_Win_free(&win);

	/* MPI_Win_allocate */
	double *base = NULL;
	MPI_Win w2;
	MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w2);
	for (int i = 0; i < 8; i++)
		base[i] = 0;
	double d[2] = {rank + 0.5, rank + 0.25};
	MPI_Win_fence(MPI_MODE_NOPRECEDE, w2);
	MPI_Put(d, 2, MPI_DOUBLE, right, 2, 2, MPI_DOUBLE, w2);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, w2);
	say("allocate: %.2f %.2f", base[2], base[3]);
	MPI_Win_free(&w2);

	/* a dynamic window with one attached buffer */
	MPI_Win w3;
	int *dyn = calloc(4, sizeof(int));
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
	MPI_Win_attach(w3, dyn, 4 * sizeof(int));
	MPI_Aint addr, raddr;
	MPI_Get_address(dyn, &addr);
	MPI_Sendrecv(&addr, 1, MPI_AINT, left, 9, &raddr, 1, MPI_AINT, right, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	int dv = 60 + rank;
	MPI_Win_fence(0, w3);
	MPI_Put(&dv, 1, MPI_INT, right, raddr, 1, MPI_INT, w3);
	MPI_Win_fence(0, w3);
	MPI_Win_detach(w3, dyn);
	MPI_Win_free(&w3);
	say("dynamic: %d", dyn[0]);

	/* many windows alive at once (hyprof's table of windows grows), one
	 * fence each, freed in another order than made */
	enum { NW = 40 };
	MPI_Win many[NW];
	int cells[NW];
	for (int i = 0; i < NW; i++) {
		cells[i] = 0;
		MPI_Win_create(&cells[i], sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &many[i]);
	}
	for (int i = 0; i < NW; i++) {
		int v = i * 10 + rank;
		MPI_Win_fence(0, many[i]);
		MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_REPLACE, many[i]);
		MPI_Win_fence(0, many[i]);
	}
	for (int i = 0; i < NW; i += 2)
		MPI_Win_free(&many[i]);
	for (int i = 1; i < NW; i += 2)
		MPI_Win_free(&many[i]);
	long cs = 0;
	for (int i = 0; i < NW; i++)
		cs += cells[i];
	say("many windows: %ld", cs);

	/* a window of rank 0 alone (MPI_COMM_SELF), then a new communicator,
	 * which may get the handle value of the one hyprof made for that
	 * window and freed with it (its record must not survive: found by a
	 * helper running MPICH's rma tests; Allreduce gave wrong sums) */
	if (rank == 0) {
		int *sb = NULL, onev = 1;
		MPI_Win ws;
		MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &sb, &ws);
		MPI_Win_fence(0, ws);
		MPI_Put(&onev, 1, MPI_INT, 0, 0, 1, MPI_INT, ws);
		MPI_Win_fence(0, ws);
		MPI_Win_free(&ws);
	}
	MPI_Comm after;
	MPI_Comm_dup(MPI_COMM_WORLD, &after);
	int bad = 0;
	for (int i = 0; i < 10; i++) {
		int v = rank + i, sm = -1;
		MPI_Allreduce(&v, &sm, 1, MPI_INT, MPI_SUM, after);
		bad += sm != size * (size - 1) / 2 + size * i;
	}
	MPI_Comm_free(&after);
	say("after a window on MPI_COMM_SELF: %d wrong sums", bad);
	say("sums %ld", sum(mem, 64));
	free(dyn);
	free(mem);

	lines_print(NULL);
	MPI_Finalize();
	return 0;
}
