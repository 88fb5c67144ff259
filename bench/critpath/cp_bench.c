/* bench/critpath/cp_bench.c - the program of the paper's Figures 6 and 7
 * (Hollingsworth 1996): two processes that compute about 75% of the time and
 * exchange one message per period each.
 *
 *   cp_bench calibrate
 *       (one process, no MPI) prints the loop iterations of one millisecond
 *       of work, so every run of a series does the same work.
 *   mpirun -np 2 cp_bench run RATE BYTES SECONDS LOOPS_PER_MS
 *       RATE messages per second per process: period T = 1/RATE.  In period
 *       i, rank i%2 computes T and the other T/2 (so each computes 75% of
 *       the time on average and waits the rest), the work spread over 32
 *       instrumented functions work00..work31 (the critical-path
 *       candidates), then both exchange BYTES with MPI_Sendrecv.  Rank 0
 *       prints the seconds of the timed loop (MPI_Wtime, after a barrier).
 *   mpirun -np 2 cp_bench pingpong BYTES ROUNDS BATCHES
 *       BATCHES batches of ROUNDS round trips of BYTES between the two
 *       processes, inside the instrumented function pingpong (run.sh
 *       selects it first, so a selected function is active at every event);
 *       rank 0 prints the best batch's microseconds per round trip (the
 *       least disturbed by the rest of the machine).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))

static volatile double sink;

static NOINSTR void burn(long loops)
{
	double x = 1.0;
	for (long i = 0; i < loops; i++)
		x = x * 1.000000001 + 1e-12;
	sink = x;
}

#define W(n) \
	__attribute__((noinline)) void work##n(long loops) { burn(loops); }
W(00) W(01) W(02) W(03) W(04) W(05) W(06) W(07) W(08) W(09) W(10) W(11) W(12) W(13) W(14) W(15)
W(16) W(17) W(18) W(19) W(20) W(21) W(22) W(23) W(24) W(25) W(26) W(27) W(28) W(29) W(30) W(31)
#undef W

typedef void (*work_fn)(long);
static const work_fn works[32] = {
	work00, work01, work02, work03, work04, work05, work06, work07, work08, work09, work10,
	work11, work12, work13, work14, work15, work16, work17, work18, work19, work20, work21,
	work22, work23, work24, work25, work26, work27, work28, work29, work30, work31,
};

static NOINSTR double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static NOINSTR int calibrate(void)
{
	long loops = 1000000;
	double best = 1e9;
	burn(loops); /* warm */
	for (int i = 0; i < 7; i++) {
		double t0 = now_s();
		burn(loops);
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	printf("%.0f\n", (double)loops / (best * 1e3));
	return 0;
}

__attribute__((noinline)) double pingpong(int rank, int bytes, int rounds, int batches)
{
	char *b = calloc((size_t)bytes + 1, 1);
	double best = 1e30;
	for (int k = 0; k < batches; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < rounds; i++) {
			if (rank == 0) {
				MPI_Send(b, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
				MPI_Recv(b, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(b, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(b, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
			}
		}
		double dt = (MPI_Wtime() - t0) / rounds;
		if (dt < best)
			best = dt;
	}
	free(b);
	return best;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "calibrate"))
		return calibrate();
	if (argc == 5 && !strcmp(argv[1], "pingpong")) {
		MPI_Init(&argc, &argv);
		int rank;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		double us = pingpong(rank, atoi(argv[2]), atoi(argv[3]), atoi(argv[4])) * 1e6;
		if (rank == 0)
			printf("%.3f\n", us);
		MPI_Finalize();
		return 0;
	}
	if (argc != 6 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: cp_bench calibrate | run RATE BYTES SECONDS LOOPS_PER_MS | "
				"pingpong BYTES ROUNDS BATCHES\n");
		return 2;
	}
	double rate = atof(argv[2]), secs = atof(argv[4]), lpm = atof(argv[5]);
	int bytes = atoi(argv[3]);
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "cp_bench run needs 2 processes\n");
		MPI_Finalize();
		return 2;
	}
	long periods = (long)(rate * secs + 0.5);
	if (periods < 1)
		periods = 1;
	double T_ms = 1e3 / rate;
	long full = (long)(T_ms * lpm / 32), half = full / 2;
	char *sb = calloc((size_t)bytes + 1, 1), *rb = calloc((size_t)bytes + 1, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long i = 0; i < periods; i++) {
		long loops = (i % 2) == rank ? full : half;
		for (int f = 0; f < 32; f++)
			works[f](loops);
		MPI_Sendrecv(sb, bytes, MPI_BYTE, 1 - rank, 1, rb, bytes, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
	}
	double t1 = MPI_Wtime();
	if (rank == 0)
		printf("%.6f %ld\n", t1 - t0, periods);
	free(sb);
	free(rb);
	MPI_Finalize();
	return 0;
}
