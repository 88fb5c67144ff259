/* mpi4: MPI-4's point-to-point entry points, whose results must be the same
 * with and without hyprof: MPI_Isendrecv and MPI_Isendrecv_replace (a
 * contiguous and a strided datatype, MPI_ANY_SOURCE, MPI_PROC_NULL, small
 * and large messages, completed by Wait, a Test loop and Waitall), matched
 * against plain Send/Recv on the other side; the large-count MPI_X_c calls
 * (Send_c, Ssend_c, Bsend_c, Recv_c, Isend_c, Irecv_c, Sendrecv_c,
 * Sendrecv_replace_c, Send_init_c, Recv_init_c, Mrecv_c, Imrecv_c,
 * MPI_Get_count_c) and collectives (Allreduce_c, Bcast_c, Allgather_c,
 * Scan_c, Gather_c, Iallreduce_c); partitioned communication (Psend_init, Precv_init,
 * Pready, Parrived).  Every rank's lines are gathered to rank 0, which
 * prints them in rank order.  Built where the MPI declares these (MPICH 4).
 * Lines with "truth" check a result against what the program knows it must
 * be (ok or BAD): MPICH 4.0 gets some of these wrong by itself (the status
 * of MPI_Isendrecv is left empty; MPI_Isendrecv_replace with a derived
 * datatype delivers wrong data, then MPI_Type_free fails an assertion), so
 * a test compares the other lines with a plain run and wants the truth
 * lines ok under hyprof's piggyback, which posts the halves itself.  The
 * strided Isendrecv_replace and a cancelled Isendrecv run only with
 * HP_MPI4_HALVES=1 (each aborts a plain MPICH 4.0 run: MPI_Cancel there
 * refuses an Isendrecv request).
 * Usage: mpi4 [big]   big: also one message of INT_MAX + 16 chars (4 GB of
 * memory per pair of ranks, a few seconds).
 *        mpi4 sessions  the Sessions model only (no MPI_Init): a ring and a
 * sum on a communicator made from the "mpi://WORLD" process set. */
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lines.h"

/* this thread's CPU time, seconds */
static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void truth(const char *what, int ok)
{
	say("truth %s: %s", what, ok ? "ok" : "BAD");
}

static long sum_int(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s = s * 31 + v[i];
	return s;
}

static double sum_dbl(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * (i % 7 + 1);
	return s;
}

/* The Sessions model alone: hyprof's wrappers start at MPI_Init, so they
 * pass these calls to MPI, and rank 0 says the program is not profiled. */
static int sessions(void)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int r, n, got = -1, sum = 0;
	if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s) != MPI_SUCCESS)
		return 1;
	MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
	MPI_Comm_create_from_group(g, "hyprof.mpi4", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 1, &got, 1, MPI_INT, (r + n - 1) % n, 1, c, MPI_STATUS_IGNORE);
	MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c);
	printf("session rank %d of %d: got %d sum %d\n", r, n, got, sum);
	MPI_Group_free(&g);
	MPI_Comm_free(&c);
	MPI_Session_finalize(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sessions"))
		return sessions();
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Status st;
	MPI_Request rq, rqs[4];

	/* Isendrecv around the ring: 4 ints (packed piggyback), 5000 doubles
	 * (struct piggyback) */
	{
		int s[4], r[4] = {0};
		for (int i = 0; i < 4; i++)
			s[i] = rank * 100 + i;
		MPI_Isendrecv(s, 4, MPI_INT, right, 1, r, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, &st);
		int n;
		MPI_Get_count(&st, MPI_INT, &n);
		say("isendrecv small: sum %ld", sum_int(r, 4));
		truth("isendrecv status", st.MPI_SOURCE == left && st.MPI_TAG == 1 && n == 4);
		double *ds = malloc(5000 * sizeof(double)), *dr = calloc(5000, sizeof(double));
		for (int i = 0; i < 5000; i++)
			ds[i] = rank + i * 0.5;
		MPI_Isendrecv(ds, 5000, MPI_DOUBLE, left, 2, dr, 5000, MPI_DOUBLE, MPI_ANY_SOURCE, 2,
			      MPI_COMM_WORLD, &rq);
		int flag = 0;
		while (!flag)
			MPI_Test(&rq, &flag, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		say("isendrecv large any_source (Test): sum %.1f", sum_dbl(dr, 5000));
		truth("isendrecv any_source status", st.MPI_SOURCE == right && n == 5000);
		free(ds);
		free(dr);
	}
	/* Isendrecv against plain Recv/Send: rank 0 Isendrecv with rank 1,
	 * rank 1 plain Recv then Send */
	if (size >= 2 && rank < 2) {
		int v = 7000 + rank, w = -1;
		if (rank == 0) {
			MPI_Isendrecv(&v, 1, MPI_INT, 1, 3, &w, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&w, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
		}
		say("isendrecv vs plain: got %d", w);
	}
	/* MPI_PROC_NULL on either half (a non-periodic line) */
	{
		int v = rank, w = -5;
		int dst = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, src = rank > 0 ? rank - 1 : MPI_PROC_NULL;
		MPI_Isendrecv(&v, 1, MPI_INT, dst, 5, &w, 1, MPI_INT, src, 5, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, &st);
		say("isendrecv line: got %d", w);
		/* from MPI_PROC_NULL MPICH sets MPI_SOURCE 0 even for MPI_Irecv
		 * (pmodels/mpich#6805): only the real source is checked */
		if (src != MPI_PROC_NULL)
			truth("isendrecv line status", st.MPI_SOURCE == src);
	}
	/* An Isendrecv whose receive half is done long before its send half
	 * (16 MB, which the peer receives 0.4 s later): each Test kind must
	 * leave it pending until the send half is done too, and return at once
	 * (a call that waited for the send half would be most of the 0.4 s;
	 * half of it leaves room for a preempted call in an oversubscribed
	 * run; a truth line, since MPICH's own Isendrecv is not always so).
	 * Waitany and Waitsome over it and a receive of a message the
	 * peer sends 0.2 s in must report that receive first.  Only with 2
	 * ranks: a third one busy-polls MPI meanwhile. */
	if (size == 2) {
		const int big = 2 << 20;
		double *d = malloc(big * sizeof(double));
		for (int i = 0; i < big; i++)
			d[i] = i;
		for (int how = 0; how < 5; how++) {
			int v = 1, w = 0;
			if (rank == 0 && how >= 3) {
				int x = 0, idx[2] = {-1, -1}, outc = 0;
				MPI_Request two[2];
				MPI_Isendrecv(d, big, MPI_DOUBLE, 1, 50, &w, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, &two[0]);
				MPI_Irecv(&x, 1, MPI_INT, 1, 53, MPI_COMM_WORLD, &two[1]);
				MPI_Send(&v, 1, MPI_INT, 1, 52, MPI_COMM_WORLD);
				if (how == 3) {
					MPI_Waitany(2, two, &idx[0], MPI_STATUS_IGNORE);
					MPI_Waitany(2, two, &idx[1], MPI_STATUS_IGNORE);
					say("isendrecv waitany: first %d, then %d (x %d, w %d)", idx[0], idx[1], x, w);
				} else {
					MPI_Waitsome(2, two, &outc, idx, MPI_STATUSES_IGNORE);
					int first = outc == 1 ? idx[0] : -1;
					MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
					say("isendrecv waitsome: first %d of %d (x %d, w %d)", first, outc, x, w);
				}
			} else if (rank == 0) {
				double t0 = MPI_Wtime();
				MPI_Isendrecv(d, big, MPI_DOUBLE, 1, 50, &w, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, &rq);
				/* the peer's 0.4 s start now, not before this post */
				MPI_Send(&v, 1, MPI_INT, 1, 52, MPI_COMM_WORLD);
				int flag = 0, idx = -1, outc = 0;
				double longest = 0, longest_cpu = 0;
				while (!flag) {
					double c0 = MPI_Wtime(), u0 = thread_cpu();
					if (how == 0) {
						MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE);
						if (flag)
							MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
					} else if (how == 1) {
						MPI_Testany(1, &rq, &idx, &flag, MPI_STATUS_IGNORE);
					} else {
						MPI_Testsome(1, &rq, &outc, &idx, MPI_STATUSES_IGNORE);
						flag = outc == 1;
					}
					double c1 = MPI_Wtime(), u1 = thread_cpu();
					if (c1 - c0 > longest) {
						longest = c1 - c0;
						longest_cpu = u1 - u0;
					}
				}
				double t = MPI_Wtime() - t0;
				const char *kind = how == 0 ? "get_status/test" : how == 1 ? "testany" : "testsome";
				say("isendrecv %s: pending until the peer received: %s (w %d, request %s)", kind,
				    t > 0.3 ? "yes" : "no", w, rq == MPI_REQUEST_NULL ? "null" : "set");
				/* a truth line: MPICH's own Isendrecv request sometimes
				 * keeps a Request_get_status call for half the wait.
				 * A call that waits for the send half polls MPI, on the
				 * CPU for the share of the wait the host gives it (all of
				 * it on a quiet one); a call merely preempted by a loaded
				 * host (a CI run once saw one of over 0.2 s) is off it: so
				 * a long call is a wait only if it was mostly on the CPU */
				int ok = longest < 0.5 * t || longest_cpu < 0.25 * longest;
				char what[120];
				int n = snprintf(what, sizeof(what), "isendrecv %s returned at once", kind);
				if (!ok)
					snprintf(what + n, sizeof(what) - n, " (a call of %.3f s of %.3f, %.3f s on the CPU)",
						 longest, t, longest_cpu);
				truth(what, ok);
			} else {
				MPI_Recv(&w, 1, MPI_INT, 0, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&v, 1, MPI_INT, 0, 51, MPI_COMM_WORLD);
				double t0 = MPI_Wtime();
				while (how >= 3 && MPI_Wtime() - t0 < 0.2)
					;
				if (how >= 3)
					MPI_Send(&v, 1, MPI_INT, 0, 53, MPI_COMM_WORLD);
				while (MPI_Wtime() - t0 < 0.4)
					;
				MPI_Recv(d, big, MPI_DOUBLE, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				say("isendrecv peer %d: %.0f", how, d[big - 1]);
			}
		}
		free(d);
	}
	/* Isendrecv_replace: contiguous, two at once completed by Waitall;
	 * every other int of 128 (strided) with HP_MPI4_HALVES=1 */
	{
		int a[8], a2[8], b[128];
		for (int i = 0; i < 8; i++) {
			a[i] = rank * 10 + i;
			a2[i] = rank * 20 + i;
		}
		MPI_Isendrecv_replace(a, 8, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, &rqs[0]);
		MPI_Isendrecv_replace(a2, 8, MPI_INT, left, 7, right, 7, MPI_COMM_WORLD, &rqs[1]);
		MPI_Status sts[2];
		MPI_Waitall(2, rqs, sts);
		say("isendrecv_replace: %ld %ld", sum_int(a, 8), sum_int(a2, 8));
		int ok = 1;
		for (int i = 0; i < 8; i++)
			ok &= a[i] == left * 10 + i && a2[i] == right * 20 + i;
		truth("isendrecv_replace data", ok);
		const char *e = getenv("HP_MPI4_HALVES");
		if (e && *e == '1') {
			for (int i = 0; i < 128; i++)
				b[i] = rank * 1000 + i;
			MPI_Datatype vec;
			MPI_Type_vector(64, 1, 2, MPI_INT, &vec);
			MPI_Type_commit(&vec);
			MPI_Isendrecv_replace(b, 1, vec, left, 8, right, 8, MPI_COMM_WORLD, &rq);
			int flag = 0;
			while (!flag)
				MPI_Test(&rq, &flag, &st);
			int n;
			MPI_Get_count(&st, vec, &n);
			ok = n == 1 && st.MPI_SOURCE == right;
			for (int i = 0; i < 128; i++)
				ok &= b[i] == (i % 2 ? rank : right) * 1000 + i;
			truth("isendrecv_replace strided", ok);
			MPI_Type_free(&vec);
		}
		/* a cancelled Isendrecv whose receive never matches: both halves
		 * are cancelled, and its completion does not wait for a send half
		 * that may not be (MPI may fail to cancel a send: then it
		 * completes once received, as here) */
		if (e && *e == '1' && rank < 2 && size >= 2) {
			int s8[8], r8[8] = {0};
			for (int i = 0; i < 8; i++)
				s8[i] = 300 + i;
			if (rank == 0) {
				MPI_Isendrecv(s8, 8, MPI_INT, 1, 60, r8, 8, MPI_INT, 1, 61, MPI_COMM_WORLD, &rq);
				MPI_Cancel(&rq);
				MPI_Barrier(MPI_COMM_WORLD);
				MPI_Wait(&rq, &st);
				int c = 0;
				MPI_Test_cancelled(&st, &c);
				truth("isendrecv cancelled", c && rq == MPI_REQUEST_NULL && r8[0] == 0);
			} else {
				/* after rank 0's cancel: the message, unless cancelled */
				MPI_Request r1;
				int got = 0;
				MPI_Barrier(MPI_COMM_WORLD);
				MPI_Irecv(r8, 8, MPI_INT, 0, 60, MPI_COMM_WORLD, &r1);
				double t0 = MPI_Wtime();
				while (!got && MPI_Wtime() - t0 < 2)
					MPI_Test(&r1, &got, MPI_STATUS_IGNORE);
				if (!got) {
					MPI_Cancel(&r1);
					MPI_Wait(&r1, MPI_STATUS_IGNORE);
				}
				truth("isendrecv cancelled: its send delivered or cancelled",
				      !got || (r8[0] == 300 && r8[7] == 307));
			}
		} else if (e && *e == '1') {
			MPI_Barrier(MPI_COMM_WORLD);
		}
	}
	/* large-count calls with ordinary counts */
	{
		MPI_Count c;
		int s[16], r[16] = {0};
		for (int i = 0; i < 16; i++)
			s[i] = rank + i * i;
		MPI_Sendrecv_c(s, 16, MPI_INT, right, 10, r, 16, MPI_INT, left, 10, MPI_COMM_WORLD, &st);
		MPI_Get_count_c(&st, MPI_INT, &c);
		say("sendrecv_c: %ld count %lld", sum_int(r, 16), (long long)c);
		MPI_Sendrecv_replace_c(s, 16, MPI_INT, right, 11, left, 11, MPI_COMM_WORLD, &st);
		say("sendrecv_replace_c: %ld", sum_int(s, 16));
		if (rank == 0) {
			for (int p = 1; p < size; p++) {
				MPI_Send_c(s, 3, MPI_INT, p, 12, MPI_COMM_WORLD);
				MPI_Ssend_c(s, 16, MPI_INT, p, 13, MPI_COMM_WORLD);
			}
		} else {
			MPI_Recv_c(r, 16, MPI_INT, 0, 12, MPI_COMM_WORLD, &st);
			MPI_Get_count_c(&st, MPI_INT, &c);
			say("send_c/recv_c: %ld count %lld", sum_int(r, 3), (long long)c);
			MPI_Recv_c(r, 16, MPI_INT, 0, 13, MPI_COMM_WORLD, &st);
			say("ssend_c: %ld", sum_int(r, 16));
		}
		/* buffered */
		int bsz = 4096;
		void *buf = malloc(bsz);
		MPI_Buffer_attach(buf, bsz);
		MPI_Bsend_c(s, 16, MPI_INT, right, 14, MPI_COMM_WORLD);
		MPI_Recv(r, 16, MPI_INT, left, 14, MPI_COMM_WORLD, &st);
		MPI_Buffer_detach(&buf, &bsz);
		free(buf);
		say("bsend_c: %ld", sum_int(r, 16));
		/* non-blocking */
		double ds[3000], dr[3000];
		for (int i = 0; i < 3000; i++)
			ds[i] = rank * 0.25 + i;
		MPI_Irecv_c(dr, 3000, MPI_DOUBLE, left, 15, MPI_COMM_WORLD, &rqs[0]);
		MPI_Isend_c(ds, 3000, MPI_DOUBLE, right, 15, MPI_COMM_WORLD, &rqs[1]);
		MPI_Irecv_c(r, 16, MPI_INT, right, 16, MPI_COMM_WORLD, &rqs[2]);
		MPI_Issend_c(s, 16, MPI_INT, left, 16, MPI_COMM_WORLD, &rqs[3]);
		MPI_Status sts[4];
		MPI_Waitall(4, rqs, sts);
		MPI_Get_count_c(&sts[0], MPI_DOUBLE, &c);
		say("isend_c/irecv_c: %.2f count %lld, %ld", sum_dbl(dr, 3000), (long long)c, sum_int(r, 16));
		/* persistent, started twice */
		MPI_Send_init_c(s, 16, MPI_INT, right, 17, MPI_COMM_WORLD, &rqs[0]);
		MPI_Recv_init_c(r, 16, MPI_INT, left, 17, MPI_COMM_WORLD, &rqs[1]);
		for (int k = 0; k < 2; k++) {
			s[0] = 500 + k + rank;
			MPI_Startall(2, rqs);
			MPI_Waitall(2, rqs, MPI_STATUSES_IGNORE);
			say("send_init_c round %d: %ld", k, sum_int(r, 16));
		}
		MPI_Request_free(&rqs[0]);
		MPI_Request_free(&rqs[1]);
		/* matched probes */
		MPI_Send(s, 5, MPI_INT, right, 18, MPI_COMM_WORLD);
		MPI_Message m;
		MPI_Mprobe(left, 18, MPI_COMM_WORLD, &m, &st);
		MPI_Get_count_c(&st, MPI_INT, &c);
		MPI_Mrecv_c(r, c, MPI_INT, &m, &st);
		say("mprobe/mrecv_c: %ld count %lld", sum_int(r, 5), (long long)c);
		MPI_Send(s, 7, MPI_INT, right, 19, MPI_COMM_WORLD);
		int flag = 0;
		while (!flag)
			MPI_Improbe(left, 19, MPI_COMM_WORLD, &flag, &m, &st);
		MPI_Imrecv_c(r, 16, MPI_INT, &m, &rq);
		MPI_Wait(&rq, &st);
		MPI_Get_count_c(&st, MPI_INT, &c);
		say("improbe/imrecv_c: %ld count %lld", sum_int(r, 7), (long long)c);
		MPI_Isendrecv_c(s, 16, MPI_INT, right, 20, r, 16, MPI_INT, left, 20, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		say("isendrecv_c: %ld", sum_int(r, 16));
		MPI_Isendrecv_replace_c(s, 16, MPI_INT, right, 21, left, 21, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		say("isendrecv_replace_c: %ld", sum_int(s, 16));
	}
	/* large-count collectives with ordinary counts */
	{
		int v = rank + 1, sum = 0, all[64], g[64], scan = 0, imax = 0, root_v = rank == 0 ? 77 : 0;
		MPI_Allreduce_c(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Bcast_c(&root_v, 1, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Allgather_c(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
		MPI_Scan_c(&v, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Gather_c(&v, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Iallreduce_c(&v, &imax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		say("collectives_c: sum %d bcast %d allgather %ld scan %d gather %ld max %d", sum, root_v,
		    sum_int(all, size), scan, rank == 0 ? sum_int(g, size) : 0L, imax);
	}
	/* partitioned: 4 partitions of 8 ints, two rounds */
	{
		int s[32], r[32];
		MPI_Request ps, pr;
		MPI_Psend_init(s, 4, 8, MPI_INT, right, 30, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
		MPI_Precv_init(r, 4, 8, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
		for (int k = 0; k < 2; k++) {
			for (int i = 0; i < 32; i++)
				s[i] = rank * 100 + i + k;
			memset(r, 0, sizeof(r));
			MPI_Start(&pr);
			MPI_Start(&ps);
			for (int p = 3; p >= 0; p--)
				MPI_Pready(p, ps);
			int arrived = 0;
			while (!arrived)
				MPI_Parrived(pr, 3, &arrived);
			MPI_Wait(&ps, MPI_STATUS_IGNORE);
			MPI_Wait(&pr, MPI_STATUS_IGNORE);
			say("partitioned round %d: %ld", k, sum_int(r, 32));
		}
		MPI_Request_free(&ps);
		MPI_Request_free(&pr);
	}
	/* more than INT_MAX elements in one message */
	if (argc > 1 && !strcmp(argv[1], "big") && size >= 2 && rank < 2) {
		MPI_Count n = (MPI_Count)INT_MAX + 16;
		char *b = malloc((size_t)n);
		if (!b) {
			say("big: no memory");
		} else if (rank == 0) {
			memset(b, 'a', (size_t)n);
			b[n - 1] = 'z';
			MPI_Send_c(b, n, MPI_CHAR, 1, 40, MPI_COMM_WORLD);
			say("big: sent %lld", (long long)n);
		} else {
			memset(b, 0, (size_t)n);
			MPI_Count c;
			MPI_Recv_c(b, n, MPI_CHAR, 0, 40, MPI_COMM_WORLD, &st);
			MPI_Get_count_c(&st, MPI_CHAR, &c);
			say("big: count %lld first %c last %c", (long long)c, b[0], b[n - 1]);
		}
		free(b);
	}

	lines_print("rank");
	MPI_Finalize();
	return 0;
}
