/* tests/critpath/cp_progs.c - MPI programs whose critical path is known by
 * construction (tests/critpath/run.sh checks hyprof's against it).
 *
 * "Work" sleeps until an absolute CLOCK_MONOTONIC deadline: the function
 * then lasts that long to within the timer's slack whatever else runs on
 * the machine (a busy loop would be stretched by the scheduler on a
 * shared, oversubscribed machine), and hyprof's path clock counts it like
 * computation (time not waiting inside MPI).  The lengths below follow from
 * the message pattern alone.
 *
 *   pipeline N A B C   (3 ranks) N items flow rank 0 -> 1 -> 2; each rank
 *       runs its stage's work per item: stage0_work A ms, stage1_work B ms
 *       (inside region "bottleneck"), stage2_work C ms.  With B > A, C the
 *       critical path is A + N*B + C, ends on rank 2; stage1_work's share is
 *       N*B; zeroing stage1_work leaves N*A + C (rank 0's items, then the
 *       last item through stage 2).
 *   is S I R           (2 or more ranks) the NAS IS create_seq case: rank 0
 *       alone makes the sequence (create_seq, S ms) and broadcasts it, then
 *       every rank ranks its part (do_rank, R ms) I times, with an
 *       MPI_Allreduce after each, and an MPI_Reduce at the end.  Path S +
 *       I*R; create_seq has S of it although its CPU time is S out of
 *       S + ranks*I*R.
 *   branch N F G H     (3 ranks) N rounds of two branches: rank 0 runs f
 *       (F ms) and sends to rank 2 (Isend/Wait), rank 1 runs g (G ms) and
 *       sends to rank 2; rank 2 receives both (Irecv/Waitall), runs h (H ms);
 *       then everyone joins in an MPI_Allreduce.  With F > G the path is
 *       N*(F+H), f's share N*F; zeroing f leaves N*(G+H): the reduction
 *       N*(F-G) is less than the share by N*G, because g's branch becomes
 *       critical.
 *   nbr S R            (3 ranks) a chain 0 -> 1 -> 2 as a distributed graph,
 *       with neighbourhood collectives only: rank 0 runs chain_head (S ms),
 *       then two MPI_Neighbor_allgather; rank 1 the first (it waits for
 *       rank 0), chain_link (R ms), the second; rank 2 both (the second
 *       waits for rank 1), then chain_link.  Path S + 2R on rank 2,
 *       chain_head's share S, chain_link's 2R: only if the path travels
 *       through the neighbourhood collectives.
 *   loop N W           (2 or more ranks) the main loop inside one call:
 *       solver runs N rounds of W ms of its own work and an
 *       MPI_Allreduce, and returns only at the end (as a Fortran main
 *       program does): auto must find its own time while it is still open.
 */
#include <hyprof.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))
#define WORK __attribute__((noinline))

static NOINSTR void work_for(double ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	long long ns = (long long)t.tv_nsec + (long long)(ms * 1e6);
	t.tv_sec += (time_t)(ns / 1000000000);
	t.tv_nsec = (long)(ns % 1000000000);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0)
		;
}

/* ---- pipeline ---------------------------------------------------------------- */
WORK void stage0_work(double ms) { work_for(ms); }
WORK void stage1_work(double ms) { work_for(ms); }
WORK void stage2_work(double ms) { work_for(ms); }

WORK static void pipeline(int rank, int n, double a, double b, double c)
{
	int item = 0;
	for (int i = 0; i < n; i++) {
		if (rank > 0)
			MPI_Recv(&item, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (rank == 0) {
			item = i;
			stage0_work(a);
		} else if (rank == 1) {
			HYPROF_REGION_BEGIN("bottleneck");
			stage1_work(b);
			HYPROF_REGION_END("bottleneck");
		} else {
			stage2_work(c);
		}
		if (rank < 2)
			MPI_Send(&item, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD);
	}
}

/* ---- NAS IS: create_seq ------------------------------------------------------ */
static int seq[4096];

WORK void create_seq(double ms)
{
	work_for(ms);
	for (int i = 0; i < 4096; i++)
		seq[i] = (i * 7919) % 4096;
}

WORK long do_rank(double ms, int it)
{
	work_for(ms);
	long s = 0;
	for (int i = 0; i < 4096; i++)
		s += seq[i] ^ it;
	return s;
}

WORK static void nas_is_ben(int rank, double s, int iters, double r)
{
	if (rank == 0)
		create_seq(s);
	MPI_Bcast(seq, 4096, MPI_INT, 0, MPI_COMM_WORLD);
	long tot = 0;
	for (int it = 0; it < iters; it++) {
		long mine = do_rank(r, it), sum = 0;
		MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		tot += sum;
	}
	long all = 0;
	MPI_Reduce(&tot, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("is checksum %ld\n", all);
}

/* ---- two branches ------------------------------------------------------------ */
WORK void f(double ms) { work_for(ms); }
WORK void g(double ms) { work_for(ms); }
WORK void h(double ms) { work_for(ms); }

WORK static void branches(int rank, int n, double fm, double gm, double hm)
{
	for (int i = 0; i < n; i++) {
		int v = i, w[2];
		MPI_Request rq[2];
		if (rank == 0) {
			f(fm);
			MPI_Isend(&v, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, &rq[0]);
			MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			g(gm);
			MPI_Send(&v, 1, MPI_INT, 2, 4, MPI_COMM_WORLD);
		} else if (rank == 2) {
			MPI_Irecv(&w[0], 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &rq[0]);
			MPI_Irecv(&w[1], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq[1]);
			MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
			h(hm);
		}
		int go = 1, all = 0;
		MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
}

/* ---- a chain of neighbourhood collectives ------------------------------------- */
WORK void chain_head(double ms) { work_for(ms); }
WORK void chain_link(double ms) { work_for(ms); }

WORK static void nbr_chain(int rank, int size, double s, double r)
{
	MPI_Comm chain;
	int src = rank - 1, dst = rank + 1, one = 1, in = rank, got = -1;
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank > 0, &src, &one, rank + 1 < size, &dst, &one,
				       MPI_INFO_NULL, 0, &chain);
	if (rank == 0)
		chain_head(s);
	MPI_Neighbor_allgather(&in, 1, MPI_INT, &got, 1, MPI_INT, chain);
	if (rank == 1)
		chain_link(r);
	MPI_Neighbor_allgather(&in, 1, MPI_INT, &got, 1, MPI_INT, chain);
	if (rank == 2)
		chain_link(r);
	MPI_Comm_free(&chain);
}

/* ---- the main loop in one open call ------------------------------------------ */
WORK static void solver(int n, double w)
{
	for (int i = 0; i < n; i++) {
		int go = 1, all = 0;
		work_for(w); /* not instrumented: solver's own time */
		MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "pipeline") && argc == 6 && size == 3) {
		pipeline(rank, atoi(argv[2]), atof(argv[3]), atof(argv[4]), atof(argv[5]));
	} else if (!strcmp(what, "is") && argc == 5 && size >= 2) {
		nas_is_ben(rank, atof(argv[2]), atoi(argv[3]), atof(argv[4]));
	} else if (!strcmp(what, "branch") && argc == 6 && size == 3) {
		branches(rank, atoi(argv[2]), atof(argv[3]), atof(argv[4]), atof(argv[5]));
	} else if (!strcmp(what, "nbr") && argc == 4 && size == 3) {
		nbr_chain(rank, size, atof(argv[2]), atof(argv[3]));
	} else if (!strcmp(what, "loop") && argc == 4 && size >= 2) {
		solver(atoi(argv[2]), atof(argv[3]));
	} else {
		if (rank == 0)
			fprintf(stderr, "usage: cp_progs pipeline N A B C (3 ranks) | is S I R (2+ ranks) | "
					"branch N F G H (3 ranks) | nbr S R (3 ranks) | loop N W (2+ ranks)\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Finalize();
	if (rank == 0)
		printf("done %s\n", what);
	return 0;
}
