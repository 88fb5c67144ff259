/* bench/mpi/pingpong.c - ping-pong latency and bandwidth between ranks 0 and 1,
 * through the wrapped entry points (MPI_Send/MPI_Recv) and, interleaved with
 * them batch by batch in the same process, through the PMPI_ ones, which no
 * wrapper intercepts: the difference of the two is what the wrappers (and
 * the piggyback) add, measured under the same conditions.  Run without
 * hyprof the two are the same code (the difference is the method's noise).
 *
 * Usage: mpirun -np 2 pingpong [MIN_BYTES MAX_BYTES [MODE]]
 * MODE: blocking (Send/Recv, default) or nonblocking (Irecv, Isend, Wait,
 * Waitall).  For each size (powers of 2 from MIN to MAX), R rounds; a round
 * is one short batch through PMPI_ and one through MPI_ (in alternating
 * order).  Prints one line per size:
 *   bytes  pmpi_best  mpi_best  pmpi_median  mpi_median  diff_median_ns  rounds
 * (one-way latency in us: the round trip over 2; best and median over the
 * batches; diff_median_ns: the median over rounds of the MPI_ batch minus
 * the PMPI_ batch of the same round, in ns per one-way message).  Then, on
 * each rank after MPI_Finalize: "mem RANK VmHWM_kB VmRSS_kB".
 * The data is checked at every exchange (a wrong byte exits 1).
 * bench/mpi/run.sh runs it plain and under `hyprof run`.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nonblocking;
static unsigned char *sb, *rb;

/* One round trip of n bytes; wrapped: through MPI_, else PMPI_. */
static void exchange(int rank, long n, int wrapped, unsigned char v)
{
	int peer = 1 - rank, c = (int)n;
	MPI_Request r[2];
	if (rank == 0) {
		sb[0] = v;
		sb[n - 1] = v;
	}
	if (wrapped) {
		if (nonblocking) {
			if (rank == 0) {
				MPI_Isend(sb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
				MPI_Irecv(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[1]);
			} else {
				MPI_Irecv(rb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
				MPI_Wait(&r[1], MPI_STATUS_IGNORE);
				MPI_Isend(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[0]);
			}
			MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		} else if (rank == 0) {
			MPI_Send(sb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			MPI_Recv(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(rb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
		}
	} else {
		if (nonblocking) {
			if (rank == 0) {
				PMPI_Isend(sb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
				PMPI_Irecv(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[1]);
			} else {
				PMPI_Irecv(rb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
				PMPI_Wait(&r[1], MPI_STATUS_IGNORE);
				PMPI_Isend(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[0]);
			}
			PMPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		} else if (rank == 0) {
			PMPI_Send(sb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			PMPI_Recv(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			PMPI_Recv(rb, c, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			PMPI_Send(rb, c, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
		}
	}
	if (rb[0] != v || rb[n - 1] != v) {
		fprintf(stderr, "pingpong: rank %d: wrong data at %ld bytes (%s)\n", rank, n,
			wrapped ? "MPI_" : "PMPI_");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_mem(int rank)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long hwm = -1, rss = -1;
	while (f && fgets(line, sizeof line, f)) {
		sscanf(line, "VmHWM: %ld", &hwm);
		sscanf(line, "VmRSS: %ld", &rss);
	}
	if (f)
		fclose(f);
	printf("mem %d %ld %ld\n", rank, hwm, rss);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long lo = argc > 1 ? atol(argv[1]) : 8, hi = argc > 2 ? atol(argv[2]) : 4 << 20;
	nonblocking = argc > 3 && !strcmp(argv[3], "nonblocking");
	if (size != 2 || lo < 1 || hi < lo || hi > (1L << 30)) {
		if (!rank)
			fprintf(stderr, "usage: mpirun -np 2 pingpong [MIN MAX [blocking|nonblocking]]\n");
		MPI_Finalize();
		return 2;
	}
	sb = malloc((size_t)hi);
	rb = malloc((size_t)hi);
	if (!sb || !rb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sb, 0, (size_t)hi);
	memset(rb, 0, (size_t)hi);
	enum { MAXR = 200 };
	static double t[2][MAXR], d[MAXR];
	for (long n = lo; n <= hi; n *= 2) {
		/* short batches (~0.1 to 4 ms), many rounds: the best and the
		 * median are both of batches the host did not interrupt much */
		int it = n <= 4096 ? 50 : n <= 65536 ? 10 : n <= (1 << 20) ? 2 : 1;
		int rounds = n <= 65536 ? MAXR : n <= (1 << 20) ? 120 : 50;
		for (int w = 0; w < 2; w++) /* warm up both paths */
			for (int i = 0; i < it; i++)
				exchange(rank, n, w, (unsigned char)(0x80 + i));
		for (int k = 0; k < rounds; k++) {
			for (int j = 0; j < 2; j++) {
				int wrapped = (j + k) & 1; /* alternate which goes first */
				PMPI_Barrier(MPI_COMM_WORLD);
				double t0 = MPI_Wtime();
				for (int i = 0; i < it; i++)
					exchange(rank, n, wrapped, (unsigned char)(i + 3 * k + j));
				t[wrapped][k] = (MPI_Wtime() - t0) / it / 2 * 1e6;
			}
			d[k] = (t[1][k] - t[0][k]) * 1e3;
		}
		if (!rank) {
			double best[2] = {1e30, 1e30};
			for (int k = 0; k < rounds; k++)
				for (int w = 0; w < 2; w++)
					if (t[w][k] < best[w])
						best[w] = t[w][k];
			double m0 = median(t[0], rounds), m1 = median(t[1], rounds), md = median(d, rounds);
			printf("%10ld %10.3f %10.3f %10.3f %10.3f %10.1f %6d\n", n, best[0], best[1], m0, m1, md,
			       rounds);
			fflush(stdout);
		}
	}
	free(sb);
	free(rb);
	MPI_Finalize();
	print_mem(rank);
	return 0;
}
