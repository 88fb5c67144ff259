/* tests/mpi/pi.c - the master-worker Monte Carlo pi of the paper's section 5.
 *
 * Malony, Shende, Morris, Wolf 2007, Table 1: the master hands out chunks of
 * random points to whichever worker asks (MPI_Recv from MPI_ANY_SOURCE);
 * workers test each point with small instrumented functions and ask again
 * with their count.  The workers carry the measurement overhead; the master
 * waits for them, so local compensation cannot remove the overhead from the
 * master's time and parallel compensation can.
 *
 * Built twice: mpi_pi with -finstrument-functions (run under hyprof in
 * measured mode) and mpi_pi_plain without (the uninstrumented times).  Each
 * rank prints its time from the end of MPI_Init to MPI_Finalize, the span
 * hyprof's report uses.
 *
 * Usage: mpirun -np N mpi_pi [POINTS [CHUNK]]   (N >= 2)
 * A chunk of 200 points (3200 bytes) stays below Open MPI's eager limit
 * with the piggyback, so the master waits in MPI_Recv as in the paper: a
 * send that waits for its receiver (rendezvous) is not compensated
 * (docs/mpi.md).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NOI __attribute__((no_instrument_function))

/* The worker's instrumented calls: small functions around a little
 * arithmetic per point, so that (as in the paper's program, where TAU timed
 * small routines) the probes cost about as much as the work. */
__attribute__((noinline)) double curve(double x)
{
	double s = 0;
	for (int k = 0; k < 24; k++) /* the midpoint rule on a tiny interval */
		s += 4.0 / (1.0 + (x + k * 1e-9) * (x + k * 1e-9));
	return s / 24;
}

__attribute__((noinline)) int below(double x, double y)
{
	return y * 4.0 <= curve(x);
}

static NOI double lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

enum { TAG_ASK = 1, TAG_WORK = 2 };

int NOI main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double t0 = MPI_Wtime();
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long points = argc > 1 ? atol(argv[1]) : 400000, chunk = argc > 2 ? atol(argv[2]) : 200;
	if (size < 2) {
		fprintf(stderr, "mpi_pi: needs a master and at least one worker\n");
		MPI_Finalize();
		return 2;
	}
	double *buf = malloc(sizeof(double) * 2 * (size_t)chunk);
	long hits = 0, done = 0;
	if (rank == 0) {
		unsigned long long seed = 12345;
		long handed = 0;
		int stopped = 0;
		while (stopped < size - 1) {
			long got[2];
			MPI_Status st;
			MPI_Recv(got, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &st);
			hits += got[0];
			done += got[1];
			long n = points - handed < chunk ? points - handed : chunk;
			for (long i = 0; i < 2 * n; i++)
				buf[i] = lcg(&seed);
			handed += n;
			MPI_Send(buf, (int)(2 * n), MPI_DOUBLE, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
			if (n == 0)
				stopped++;
		}
	} else {
		long mine[2] = {0, 0};
		for (;;) {
			MPI_Status st;
			MPI_Send(mine, 2, MPI_LONG, 0, TAG_ASK, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)(2 * chunk), MPI_DOUBLE, 0, TAG_WORK, MPI_COMM_WORLD, &st);
			int n;
			MPI_Get_count(&st, MPI_DOUBLE, &n);
			if (n == 0)
				break;
			mine[0] = mine[1] = 0;
			for (int i = 0; i < n; i += 2)
				mine[0] += below(buf[i], buf[i + 1]);
			mine[1] = n / 2;
		}
	}
	double t = MPI_Wtime() - t0, all[256];
	MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double pi = 4.0 * (double)hits / (double)(done ? done : 1);
		printf("pi %.4f from %ld points (error %.4f)\n", pi, done, fabs(pi - M_PI));
		for (int r = 0; r < size && r < 256; r++)
			printf("time %d %.6f\n", r, all[r]);
	}
	free(buf);
	MPI_Finalize();
	return 0;
}
