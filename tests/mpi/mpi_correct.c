/* tests/mpi/mpi_correct.c - MPI semantics the wrappers must not change.
 *
 * Every case prints what the program observed (data, statuses, counts,
 * flags, indices, cancellation, buffer contents past the message) as
 * deterministic text; rank 0 prints everyone's lines in rank order.  The
 * test (e2e.sh correct) runs it without hyprof and under hyprof with each
 * piggyback scheme forced, and requires identical output.  Wildcard
 * receives are printed sorted, so arrival order does not matter.
 *
 * Usage: mpirun -np 2|3 mpi_correct
 */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static char *logbuf;
static size_t loglen, logcap;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (loglen + (size_t)n + 32 > logcap) {
		logcap = (logcap + (size_t)n + 32) * 2;
		logbuf = realloc(logbuf, logcap);
		if (!logbuf)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	loglen += (size_t)sprintf(logbuf + loglen, "[%d] %s\n", rank, line);
}

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "rank %d: %s failed (%d)\n", rank, what, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static unsigned sum_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31u + c[i];
	return s;
}

static void status_line(const char *tag, MPI_Status *st, MPI_Datatype t)
{
	int cnt = -7, el = -7;
	MPI_Get_count(st, t, &cnt);
	MPI_Get_elements(st, t, &el);
	say("%s: source %d tag %d count %d elements %d", tag, st->MPI_SOURCE, st->MPI_TAG, cnt, el);
}

/* ---- cases ------------------------------------------------------------------- */

static void t_modes(void)
{
	static const int sizes[] = {0, 1, 8, 4096, 100000};
	char *buf = malloc(100000 + 64);
	int bsize = 0;
	MPI_Pack_size(100000, MPI_CHAR, MPI_COMM_WORLD, &bsize);
	bsize += MPI_BSEND_OVERHEAD;
	char *battach = malloc((size_t)bsize);
	check(MPI_Buffer_attach(battach, bsize), "Buffer_attach");
	for (int mode = 0; mode < 4; mode++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			int n = sizes[k];
			MPI_Request pre = MPI_REQUEST_NULL;
			/* The receive buffer is filled before any receive into it is
			 * posted: writing it while the ready-mode receive is pending
			 * (MPI 3.1 section 3.7.2 forbids it) raced with the message,
			 * whose first eager fragment could land before the fill and be
			 * overwritten (a sum differing from run to run, with and
			 * without hyprof). */
			if (rank == 1)
				memset(buf, 0x5a, (size_t)n + 64);
			if (rank == 1 && mode == 3) /* ready mode: the receive is posted first */
				check(MPI_Irecv(buf, n + 64, MPI_CHAR, 0, 100 + mode, MPI_COMM_WORLD, &pre), "Irecv");
			MPI_Barrier(MPI_COMM_WORLD);
			if (rank == 0) {
				for (int i = 0; i < n; i++)
					buf[i] = (char)(i * 7 + mode + k);
				int rc = mode == 0   ? MPI_Send(buf, n, MPI_CHAR, 1, 100 + mode, MPI_COMM_WORLD)
					 : mode == 1 ? MPI_Ssend(buf, n, MPI_CHAR, 1, 100 + mode, MPI_COMM_WORLD)
					 : mode == 2 ? MPI_Bsend(buf, n, MPI_CHAR, 1, 100 + mode, MPI_COMM_WORLD)
						     : MPI_Rsend(buf, n, MPI_CHAR, 1, 100 + mode, MPI_COMM_WORLD);
				check(rc, "send mode");
			} else if (rank == 1) {
				MPI_Status st;
				if (mode == 3)
					check(MPI_Wait(&pre, &st), "Wait");
				else
					check(MPI_Recv(buf, n + 64, MPI_CHAR, 0, 100 + mode, MPI_COMM_WORLD, &st), "Recv");
				char tag[64];
				snprintf(tag, sizeof tag, "modes %d size %d", mode, n);
				status_line(tag, &st, MPI_CHAR);
				int past = 1;
				for (int i = n; i < n + 64; i++)
					past &= buf[i] == 0x5a;
				say("modes %d size %d: sum %u, bytes past the message untouched %d", mode, n,
				    sum_bytes(buf, (size_t)n), past);
			}
		}
	}
	void *det = NULL;
	int dsize = 0;
	check(MPI_Buffer_detach(&det, &dsize), "Buffer_detach");
	say("buffer detach: the user's pointer %d, size %d == %d", det == battach, dsize, bsize);
	free(battach);
	free(buf);
}

static void t_wildcard(void)
{
	int v = rank * 100 + 1;
	if (rank != 0) {
		check(MPI_Send(&v, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD), "Send");
		return;
	}
	int got[64][3];
	for (int i = 1; i < size; i++) {
		MPI_Status st;
		int x = -1;
		check(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "Recv");
		got[i][0] = st.MPI_SOURCE;
		got[i][1] = st.MPI_TAG;
		got[i][2] = x;
	}
	for (int s = 1; s < size; s++)
		for (int i = 1; i < size; i++)
			if (got[i][0] == s)
				say("wildcard: from %d tag %d value %d", got[i][0], got[i][1], got[i][2]);
}

static void t_procnull(void)
{
	MPI_Status st;
	int x = 42;
	check(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD), "Send PROC_NULL");
	check(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st), "Recv PROC_NULL");
	say("proc_null: source is PROC_NULL %d, tag is ANY_TAG %d, x %d", st.MPI_SOURCE == MPI_PROC_NULL,
	    st.MPI_TAG == MPI_ANY_TAG, x);
	int cnt = -1;
	MPI_Get_count(&st, MPI_INT, &cnt);
	say("proc_null: count %d", cnt);
	check(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv ignore");
	MPI_Request r;
	check(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r), "Irecv PROC_NULL");
	check(MPI_Wait(&r, &st), "Wait");
	say("proc_null irecv: source PROC_NULL %d, request null %d", st.MPI_SOURCE == MPI_PROC_NULL,
	    r == MPI_REQUEST_NULL);
	int s = 5, rv = 6;
	check(MPI_Sendrecv(&s, 1, MPI_INT, MPI_PROC_NULL, 1, &rv, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
			   &st),
	      "Sendrecv PROC_NULL");
	say("proc_null sendrecv: rv %d", rv);
}

struct pt {
	int a;
	double b;
	char c;
};

static void t_datatypes(void)
{
	/* vector: 4 blocks of 2 ints, stride 3 */
	MPI_Datatype vec, ctg, st_t, abs_t, rsz;
	check(MPI_Type_vector(4, 2, 3, MPI_INT, &vec), "vector");
	MPI_Type_commit(&vec);
	check(MPI_Type_contiguous(3, MPI_INT, &ctg), "contiguous");
	MPI_Type_commit(&ctg);
	int bl[3] = {1, 1, 1};
	MPI_Aint d[3] = {offsetof(struct pt, a), offsetof(struct pt, b), offsetof(struct pt, c)};
	MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
	check(MPI_Type_create_struct(3, bl, d, ty, &st_t), "struct");
	check(MPI_Type_create_resized(st_t, 0, sizeof(struct pt), &rsz), "resized");
	MPI_Type_commit(&rsz);
	int src[12], dst[12];
	for (int i = 0; i < 12; i++)
		src[i] = 1000 + i;
	/* absolute addresses, used with MPI_BOTTOM */
	int x1 = 11, x2 = 22;
	MPI_Aint ad[2];
	MPI_Get_address(&x1, &ad[0]);
	MPI_Get_address(&x2, &ad[1]);
	int abl[2] = {1, 1};
	MPI_Datatype aty[2] = {MPI_INT, MPI_INT};
	check(MPI_Type_create_struct(2, abl, ad, aty, &abs_t), "abs struct");
	MPI_Type_commit(&abs_t);
	MPI_Status st;
	if (rank == 0) {
		check(MPI_Send(src, 1, vec, 1, 20, MPI_COMM_WORLD), "Send vector");
		check(MPI_Send(src, 2, ctg, 1, 21, MPI_COMM_WORLD), "Send contiguous");
		struct pt p[3] = {{1, 1.5, 'a'}, {2, 2.5, 'b'}, {3, 3.5, 'c'}};
		check(MPI_Send(p, 3, rsz, 1, 22, MPI_COMM_WORLD), "Send struct");
		check(MPI_Send(MPI_BOTTOM, 1, abs_t, 1, 23, MPI_COMM_WORLD), "Send BOTTOM");
		/* 5 ints received with a contiguous(3) type: a partial element */
		check(MPI_Send(src, 5, MPI_INT, 1, 24, MPI_COMM_WORLD), "Send 5 ints");
	} else if (rank == 1) {
		memset(dst, 0, sizeof(dst));
		check(MPI_Recv(dst, 8, MPI_INT, 0, 20, MPI_COMM_WORLD, &st), "Recv vector as ints");
		status_line("vector as 8 ints", &st, MPI_INT);
		say("vector: %d %d %d %d %d %d %d %d", dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6],
		    dst[7]);
		memset(dst, 0, sizeof(dst));
		check(MPI_Recv(dst, 1, vec, 0, 21, MPI_COMM_WORLD, &st), "Recv contiguous into vector");
		status_line("contiguous into vector", &st, vec);
		say("into vector: %d %d %d %d %d %d %d %d %d %d %d %d", dst[0], dst[1], dst[2], dst[3], dst[4],
		    dst[5], dst[6], dst[7], dst[8], dst[9], dst[10], dst[11]);
		struct pt q[4];
		memset(q, 0, sizeof(q));
		check(MPI_Recv(q, 4, rsz, 0, 22, MPI_COMM_WORLD, &st), "Recv struct");
		status_line("struct", &st, rsz);
		say("struct: %d %.1f %c %d %.1f %c %d %.1f %c", q[0].a, q[0].b, q[0].c, q[1].a, q[1].b, q[1].c,
		    q[2].a, q[2].b, q[2].c);
		int y[2] = {0, 0};
		MPI_Aint yd[2];
		MPI_Get_address(&y[1], &yd[0]);
		MPI_Get_address(&y[0], &yd[1]);
		MPI_Datatype yt;
		check(MPI_Type_create_struct(2, abl, yd, aty, &yt), "abs recv struct");
		MPI_Type_commit(&yt);
		check(MPI_Recv(MPI_BOTTOM, 1, yt, 0, 23, MPI_COMM_WORLD, &st), "Recv BOTTOM");
		MPI_Type_free(&yt);
		say("bottom: y0 %d y1 %d", y[0], y[1]);
		memset(dst, 0, sizeof(dst));
		check(MPI_Recv(dst, 4, ctg, 0, 24, MPI_COMM_WORLD, &st), "Recv partial");
		status_line("partial element", &st, ctg);
		say("partial: %d %d %d %d %d %d", dst[0], dst[1], dst[2], dst[3], dst[4], dst[5]);
	}
	MPI_Type_free(&vec);
	MPI_Type_free(&ctg);
	MPI_Type_free(&st_t);
	MPI_Type_free(&rsz);
	MPI_Type_free(&abs_t);
}

static void t_nonblocking(void)
{
	enum { N = 8 };
	int vals[N][4];
	MPI_Request r[N];
	MPI_Status sts[N];
	if (rank == 0) {
		for (int i = 0; i < N; i++)
			check(MPI_Irecv(vals[i], 4, MPI_INT, 1, 30 + i, MPI_COMM_WORLD, &r[i]), "Irecv");
		int seen[N] = {0};
		for (int k = 0; k < N; k++) {
			int idx;
			MPI_Status s;
			check(MPI_Waitany(N, r, &idx, &s), "Waitany");
			seen[idx] = 1;
			if (vals[idx][0] != 30 + idx || s.MPI_TAG != 30 + idx)
				say("waitany: request %d got tag %d value %d", idx, s.MPI_TAG, vals[idx][0]);
		}
		int all = 1;
		for (int i = 0; i < N; i++)
			all &= seen[i] && r[i] == MPI_REQUEST_NULL;
		say("waitany: every request completed once and nulled %d", all);
		int idx = 5;
		check(MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE), "Waitany all null");
		say("waitany on nulls: index undefined %d", idx == MPI_UNDEFINED);
		/* Testsome / Testall / Testany with statuses ignored */
		for (int i = 0; i < N; i++)
			check(MPI_Irecv(vals[i], 4, MPI_INT, 1, 40 + i, MPI_COMM_WORLD, &r[i]), "Irecv");
		MPI_Barrier(MPI_COMM_WORLD);
		int done = 0, sum = 0;
		while (done < N) {
			int out, idxs[N];
			check(MPI_Testsome(N, r, &out, idxs, sts), "Testsome");
			if (out == MPI_UNDEFINED)
				break;
			for (int k = 0; k < out; k++) {
				int cnt;
				MPI_Get_count(&sts[k], MPI_INT, &cnt);
				sum += vals[idxs[k]][0] * cnt;
			}
			done += out;
		}
		say("testsome: %d completed, sum %d", done, sum);
		for (int i = 0; i < N; i++)
			check(MPI_Irecv(vals[i], 4, MPI_INT, 1, 50 + i, MPI_COMM_WORLD, &r[i]), "Irecv");
		MPI_Barrier(MPI_COMM_WORLD);
		int flag = 0;
		while (!flag)
			check(MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE), "Testall");
		sum = 0;
		for (int i = 0; i < N; i++)
			sum += vals[i][3];
		say("testall: sum %d", sum);
		check(MPI_Irecv(vals[0], 4, MPI_INT, 1, 60, MPI_COMM_WORLD, &r[0]), "Irecv");
		r[1] = MPI_REQUEST_NULL;
		flag = 0;
		int ti = -1;
		MPI_Status s;
		while (!flag)
			check(MPI_Testany(2, r, &ti, &flag, &s), "Testany");
		status_line("testany", &s, MPI_INT);
		say("testany: index %d value %d", ti, vals[0][1]);
		check(MPI_Irecv(vals[0], 4, MPI_INT, 1, 61, MPI_COMM_WORLD, &r[0]), "Irecv");
		flag = 0;
		while (!flag)
			check(MPI_Test(&r[0], &flag, &s), "Test");
		status_line("test", &s, MPI_INT);
		/* Waitall with statuses, any order of sends */
		for (int i = 0; i < N; i++)
			check(MPI_Irecv(vals[i], 4, MPI_INT, 1, 70 + i, MPI_COMM_WORLD, &r[i]), "Irecv");
		check(MPI_Waitall(N, r, sts), "Waitall");
		for (int i = 0; i < N; i++) {
			char t[32];
			snprintf(t, sizeof t, "waitall %d", i);
			status_line(t, &sts[i], MPI_INT);
		}
	} else if (rank != 1) {
		/* the others only take part in the barriers */
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	} else {
		int out[N][4];
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 4; k++)
				out[i][k] = 30 + i + k * 0;
		/* reverse order, completed with Waitsome */
		for (int i = N - 1; i >= 0; i--)
			check(MPI_Isend(out[i], 4, MPI_INT, 0, 30 + i, MPI_COMM_WORLD, &r[i]), "Isend");
		int done = 0;
		while (done < N) {
			int cnt, idxs[N];
			check(MPI_Waitsome(N, r, &cnt, idxs, MPI_STATUSES_IGNORE), "Waitsome");
			done += cnt;
		}
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 0; i < N; i++) {
			for (int k = 0; k < 4; k++)
				out[i][k] = i + k;
			check(MPI_Isend(out[i], 3 + (i & 1), MPI_INT, 0, 40 + i, MPI_COMM_WORLD, &r[i]), "Isend");
		}
		check(MPI_Waitall(N, r, MPI_STATUSES_IGNORE), "Waitall");
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 0; i < N; i++) {
			for (int k = 0; k < 4; k++)
				out[i][k] = 2 * i + k;
			check(MPI_Issend(out[i], 4, MPI_INT, 0, 50 + i, MPI_COMM_WORLD, &r[i]), "Issend");
		}
		check(MPI_Waitall(N, r, MPI_STATUSES_IGNORE), "Waitall");
		int one[4] = {60, 61, 62, 63};
		check(MPI_Send(one, 4, MPI_INT, 0, 60, MPI_COMM_WORLD), "Send");
		check(MPI_Send(one, 2, MPI_INT, 0, 61, MPI_COMM_WORLD), "Send");
		for (int i = N - 1; i >= 0; i--) {
			out[i][0] = 70 + i;
			check(MPI_Send(out[i], 1 + i % 4, MPI_INT, 0, 70 + i, MPI_COMM_WORLD), "Send");
		}
	}
}

static void t_cancel(void)
{
	if (rank != 0)
		return;
	int x = 0;
	MPI_Request r;
	MPI_Status st;
	check(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r), "Irecv");
	check(MPI_Cancel(&r), "Cancel");
	check(MPI_Wait(&r, &st), "Wait");
	int c = 0;
	MPI_Test_cancelled(&st, &c);
	say("cancel: cancelled %d request null %d", c, r == MPI_REQUEST_NULL);
}

static void t_probe(void)
{
	if (rank == 1) {
		double d[37];
		for (int i = 0; i < 37; i++)
			d[i] = i * 0.5;
		check(MPI_Send(d, 37, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD), "Send");
		check(MPI_Send(d, 11, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD), "Send");
		check(MPI_Send(d, 5, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD), "Send");
		check(MPI_Send(d, 3, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD), "Send");
	} else if (rank == 0) {
		MPI_Status st;
		check(MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st), "Probe");
		int n;
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		say("probe: source %d count %d", st.MPI_SOURCE, n);
		double *d = malloc(sizeof(double) * (size_t)n);
		check(MPI_Recv(d, n, MPI_DOUBLE, st.MPI_SOURCE, 5, MPI_COMM_WORLD, &st), "Recv");
		say("probe recv: d[36] %.1f", d[36]);
		free(d);
		int flag = 0;
		while (!flag)
			check(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, &st), "Iprobe");
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		say("iprobe: count %d", n);
		double e[11];
		check(MPI_Recv(e, 11, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv");
		MPI_Message m;
		check(MPI_Mprobe(1, 7, MPI_COMM_WORLD, &m, &st), "Mprobe");
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		double f[8];
		check(MPI_Mrecv(f, n, MPI_DOUBLE, &m, &st), "Mrecv");
		status_line("mrecv", &st, MPI_DOUBLE);
		say("mrecv: count %d f[4] %.1f message null %d", n, f[4], m == MPI_MESSAGE_NULL);
		flag = 0;
		while (!flag)
			check(MPI_Improbe(1, 8, MPI_COMM_WORLD, &flag, &m, &st), "Improbe");
		MPI_Request r;
		check(MPI_Imrecv(f, 8, MPI_DOUBLE, &m, &r), "Imrecv");
		check(MPI_Wait(&r, &st), "Wait");
		status_line("imrecv", &st, MPI_DOUBLE);
		say("imrecv: f[2] %.1f", f[2]);
	}
}

static void t_sendrecv(void)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int s[5], r[7];
	for (int i = 0; i < 5; i++)
		s[i] = rank * 10 + i;
	memset(r, 0, sizeof(r));
	MPI_Status st;
	check(MPI_Sendrecv(s, 5, MPI_INT, right, 80, r, 7, MPI_INT, left, 80, MPI_COMM_WORLD, &st), "Sendrecv");
	status_line("sendrecv", &st, MPI_INT);
	say("sendrecv: %d %d %d %d %d %d", r[0], r[1], r[4], r[5], r[6], r[3]);
	MPI_Datatype vec;
	MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	int b[6] = {rank, -1, rank + 1, -2, rank + 2, -3};
	check(MPI_Sendrecv_replace(b, 1, vec, right, 81, left, 81, MPI_COMM_WORLD, &st), "Sendrecv_replace");
	status_line("sendrecv_replace", &st, vec);
	say("sendrecv_replace: %d %d %d %d %d %d", b[0], b[1], b[2], b[3], b[4], b[5]);
	MPI_Type_free(&vec);
	int c[3] = {rank, rank, rank};
	check(MPI_Sendrecv_replace(c, 3, MPI_INT, right, 82, MPI_ANY_SOURCE, 82, MPI_COMM_WORLD, &st),
	      "Sendrecv_replace any");
	say("sendrecv_replace any: %d from %d", c[0], st.MPI_SOURCE);
}

static void t_persistent(void)
{
	int sbuf[6], rbuf[6];
	MPI_Request r[2];
	int peer = rank == 0 ? 1 : 0;
	if (rank > 1)
		return;
	check(MPI_Send_init(sbuf, 6, MPI_INT, peer, 90, MPI_COMM_WORLD, &r[0]), "Send_init");
	check(MPI_Recv_init(rbuf, 6, MPI_INT, peer, 90, MPI_COMM_WORLD, &r[1]), "Recv_init");
	int sum = 0;
	for (int it = 0; it < 5; it++) {
		for (int i = 0; i < 6; i++)
			sbuf[i] = rank * 1000 + it * 10 + i;
		if (it & 1) {
			check(MPI_Startall(2, r), "Startall");
		} else {
			check(MPI_Start(&r[1]), "Start");
			check(MPI_Start(&r[0]), "Start");
		}
		MPI_Status sts[2];
		check(MPI_Waitall(2, r, sts), "Waitall");
		int cnt;
		MPI_Get_count(&sts[1], MPI_INT, &cnt);
		sum += rbuf[5] + cnt;
	}
	/* an inactive persistent request completes at once, empty */
	MPI_Status st;
	check(MPI_Wait(&r[1], &st), "Wait inactive");
	int cnt = -1;
	MPI_Get_count(&st, MPI_INT, &cnt);
	say("persistent: sum %d, inactive wait count %d, handle kept %d", sum, cnt, r[1] != MPI_REQUEST_NULL);
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
	/* a persistent request freed while active: it completes anyway */
	check(MPI_Send_init(sbuf, 6, MPI_INT, peer, 91, MPI_COMM_WORLD, &r[0]), "Send_init");
	sbuf[0] = 4242;
	check(MPI_Start(&r[0]), "Start");
	check(MPI_Request_free(&r[0]), "Request_free active persistent");
	check(MPI_Recv(rbuf, 6, MPI_INT, peer, 91, MPI_COMM_WORLD, &st), "Recv");
	say("persistent freed while active: %d", rbuf[0]);
}

static void t_request_free(void)
{
	if (rank > 1)
		return;
	int a[3] = {7, 8, 9}, b[3] = {0, 0, 0}, c = 0;
	if (rank == 0) {
		MPI_Request r;
		check(MPI_Isend(a, 3, MPI_INT, 1, 95, MPI_COMM_WORLD, &r), "Isend");
		check(MPI_Request_free(&r), "Request_free");
		say("request_free: nulled %d", r == MPI_REQUEST_NULL);
		int z = 5;
		check(MPI_Send(&z, 1, MPI_INT, 1, 96, MPI_COMM_WORLD), "Send");
	} else {
		MPI_Request r;
		check(MPI_Irecv(b, 3, MPI_INT, 0, 95, MPI_COMM_WORLD, &r), "Irecv");
		check(MPI_Request_free(&r), "Request_free recv");
		/* the second message is matched after the first (same source,
		 * same communicator): once it is here the first is complete */
		check(MPI_Recv(&c, 1, MPI_INT, 0, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv");
		MPI_Barrier(MPI_COMM_SELF);
		say("request_free: received %d %d %d then %d", b[0], b[1], b[2], c);
	}
	/* Request_get_status leaves the request */
	if (rank == 0) {
		int v[2] = {1, 2};
		check(MPI_Send(v, 2, MPI_INT, 1, 97, MPI_COMM_WORLD), "Send");
	} else {
		int v[4] = {0, 0, 0, 0};
		MPI_Request r;
		check(MPI_Irecv(v, 4, MPI_INT, 0, 97, MPI_COMM_WORLD, &r), "Irecv");
		int flag = 0;
		MPI_Status st;
		while (!flag)
			check(MPI_Request_get_status(r, &flag, &st), "Request_get_status");
		status_line("get_status", &st, MPI_INT);
		say("get_status: request still there %d", r != MPI_REQUEST_NULL);
		check(MPI_Wait(&r, &st), "Wait");
		status_line("get_status then wait", &st, MPI_INT);
		say("get_status data %d %d", v[0], v[1]);
	}
}

static void absmax(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	int *a = in, *b = inout;
	for (int i = 0; i < *len; i++)
		b[i] = abs(a[i]) > abs(b[i]) ? a[i] : b[i];
}

static void t_collectives(void)
{
	int n = size;
	int *all = calloc((size_t)n * 4, sizeof(int)), *cnts = calloc((size_t)n, sizeof(int)),
	    *disp = calloc((size_t)n, sizeof(int));
	int v[4] = {rank, rank * 2, rank * 3, -rank * 4}, out[4];
	check(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
	int b[3] = {0, 0, 0};
	if (rank == n - 1)
		b[0] = 5, b[1] = 6, b[2] = 7;
	check(MPI_Bcast(b, 3, MPI_INT, n - 1, MPI_COMM_WORLD), "Bcast");
	say("bcast: %d %d %d", b[0], b[1], b[2]);
	check(MPI_Bcast(b, 0, MPI_INT, 0, MPI_COMM_WORLD), "Bcast 0");
	check(MPI_Gather(v, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD), "Gather");
	if (!rank)
		say("gather: %d %d %d %d", all[0], all[1], all[2], all[3]);
	for (int i = 0; i < n; i++) {
		cnts[i] = i + 1;
		disp[i] = i * 4;
	}
	memset(all, 0, sizeof(int) * (size_t)n * 4);
	if (!rank) {
		all[0] = 99;
		check(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, cnts, disp, MPI_INT, 0, MPI_COMM_WORLD),
		      "Gatherv in place");
		say("gatherv: %d %d %d", all[0], all[4], all[5]);
	} else {
		check(MPI_Gatherv(v, rank + 1, MPI_INT, all, cnts, disp, MPI_INT, 0, MPI_COMM_WORLD), "Gatherv");
	}
	for (int i = 0; i < n * 4; i++)
		all[i] = 100 + i;
	check(MPI_Scatter(all, 3, MPI_INT, out, 3, MPI_INT, 0, MPI_COMM_WORLD), "Scatter");
	say("scatter: %d %d %d", out[0], out[1], out[2]);
	memset(out, 0, sizeof(out));
	check(MPI_Scatterv(all, cnts, disp, MPI_INT, out, rank + 1, MPI_INT, 0, MPI_COMM_WORLD), "Scatterv");
	say("scatterv: %d %d", out[0], out[rank]);
	check(MPI_Allgather(v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD), "Allgather");
	say("allgather: %d %d", all[0], all[n - 1]);
	for (int i = 0; i < n; i++)
		all[i] = i == rank ? rank * 7 : -1;
	check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD),
	      "Allgather in place");
	say("allgather in place: %d %d", all[0], all[n - 1]);
	for (int i = 0; i < n; i++) {
		cnts[i] = 1 + (i & 1);
		disp[i] = i * 2;
	}
	check(MPI_Allgatherv(v, 1 + (rank & 1), MPI_INT, all, cnts, disp, MPI_INT, MPI_COMM_WORLD), "Allgatherv");
	say("allgatherv: %d %d", all[0], all[2 * (n - 1)]);
	int *a2 = calloc((size_t)n, sizeof(int)), *a3 = calloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		a2[i] = rank * 100 + i;
	check(MPI_Alltoall(a2, 1, MPI_INT, a3, 1, MPI_INT, MPI_COMM_WORLD), "Alltoall");
	say("alltoall: %d %d", a3[0], a3[n - 1]);
	for (int i = 0; i < n; i++) {
		cnts[i] = 1;
		disp[i] = i;
	}
	check(MPI_Alltoallv(a2, cnts, disp, MPI_INT, a3, cnts, disp, MPI_INT, MPI_COMM_WORLD), "Alltoallv");
	say("alltoallv: %d", a3[n - 1]);
	MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
	int *bdisp = calloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		types[i] = MPI_INT;
		bdisp[i] = i * (int)sizeof(int);
	}
	check(MPI_Alltoallw(a2, cnts, bdisp, types, a3, cnts, bdisp, types, MPI_COMM_WORLD), "Alltoallw");
	say("alltoallw: %d", a3[0]);
	MPI_Op op;
	MPI_Op_create(absmax, 1, &op);
	check(MPI_Reduce(v, out, 4, MPI_INT, op, 0, MPI_COMM_WORLD), "Reduce user op");
	if (!rank)
		say("reduce absmax: %d %d %d %d", out[0], out[1], out[2], out[3]);
	int w[4] = {v[0], v[1], v[2], v[3]};
	if (!rank)
		check(MPI_Reduce(MPI_IN_PLACE, w, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), "Reduce in place");
	else
		check(MPI_Reduce(w, NULL, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), "Reduce");
	if (!rank)
		say("reduce in place: %d %d", w[1], w[3]);
	memcpy(w, v, sizeof(w));
	check(MPI_Allreduce(MPI_IN_PLACE, w, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "Allreduce in place");
	say("allreduce: %d %d", w[0], w[3]);
	check(MPI_Allreduce(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Allreduce 0");
	int *rs = calloc((size_t)n * 2, sizeof(int));
	for (int i = 0; i < 2 * n; i++)
		rs[i] = rank + i;
	for (int i = 0; i < n; i++)
		cnts[i] = 2;
	check(MPI_Reduce_scatter(rs, out, cnts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Reduce_scatter");
	say("reduce_scatter: %d %d", out[0], out[1]);
	check(MPI_Reduce_scatter_block(rs, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Reduce_scatter_block");
	say("reduce_scatter_block: %d %d", out[0], out[1]);
	check(MPI_Scan(v, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Scan");
	say("scan: %d %d", out[0], out[1]);
	out[0] = out[1] = -5;
	check(MPI_Exscan(v, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Exscan");
	if (rank)
		say("exscan: %d %d", out[0], out[1]);
	MPI_Op_free(&op);
	free(all);
	free(cnts);
	free(disp);
	free(a2);
	free(a3);
	free(types);
	free(bdisp);
	free(rs);
}

/* Non-blocking collectives (MPI 3), overlapped with point-to-point traffic
 * that carries the piggyback, completed in every way: the wrappers only
 * count them and must not change a value. */
static void t_icollectives(void)
{
	int n = size, right = (rank + 1) % n, left = (rank + n - 1) % n;
	int *all = calloc((size_t)n * 4, sizeof(int)), *cnts = calloc((size_t)n, sizeof(int)),
	    *disp = calloc((size_t)n, sizeof(int)), *a2 = calloc((size_t)n, sizeof(int)),
	    *a3 = calloc((size_t)n, sizeof(int));
	int v[4] = {rank + 1, rank * 2, rank * 3, -rank * 4}, out[4] = {0}, w[4], b[3] = {0, 0, 0};
	MPI_Request q[8];
	MPI_Status st[8];
	/* Iallreduce beside a ring exchange, completed by one Waitall */
	int tok = rank * 11, got = -1;
	check(MPI_Iallreduce(v, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]), "Iallreduce");
	check(MPI_Irecv(&got, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &q[1]), "Irecv ring");
	check(MPI_Isend(&tok, 1, MPI_INT, right, 31, MPI_COMM_WORLD, &q[2]), "Isend ring");
	check(MPI_Waitall(3, q, st), "Waitall icoll+p2p");
	say("iallreduce: %d %d %d %d, ring %d from %d", out[0], out[1], out[2], out[3], got, st[1].MPI_SOURCE);
	/* Ibcast from the last rank, tested to completion */
	if (rank == n - 1)
		b[0] = 15, b[1] = 16, b[2] = 17;
	check(MPI_Ibcast(b, 3, MPI_INT, n - 1, MPI_COMM_WORLD, &q[0]), "Ibcast");
	for (int f = 0; !f;)
		check(MPI_Test(&q[0], &f, MPI_STATUS_IGNORE), "Test Ibcast");
	say("ibcast: %d %d %d", b[0], b[1], b[2]);
	/* Igather, Igatherv in place at the root, Iscatter(v), by Waitany */
	for (int i = 0; i < n; i++) {
		cnts[i] = i + 1;
		disp[i] = i * 4;
	}
	int *all2 = calloc((size_t)n * 4, sizeof(int));
	check(MPI_Igather(v, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &q[0]), "Igather");
	if (!rank) {
		all2[0] = 77;
		check(MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INT, all2, cnts, disp, MPI_INT, 0, MPI_COMM_WORLD, &q[1]),
		      "Igatherv in place");
	} else {
		check(MPI_Igatherv(v, rank + 1, MPI_INT, all2, cnts, disp, MPI_INT, 0, MPI_COMM_WORLD, &q[1]),
		      "Igatherv");
	}
	for (int done = 0; done < 2; done++) {
		int idx;
		check(MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE), "Waitany igather");
	}
	if (!rank)
		say("igather: %d %d %d %d; igatherv: %d %d %d", all[0], all[1], all[2], all[3], all2[0], all2[4],
		    all2[5]);
	int sc[4 * 16];
	for (int i = 0; i < 4 * n && i < 4 * 16; i++)
		sc[i] = 200 + i;
	memset(out, 0, sizeof(out));
	check(MPI_Iscatter(sc, 3, MPI_INT, out, 3, MPI_INT, 0, MPI_COMM_WORLD, &q[0]), "Iscatter");
	check(MPI_Wait(&q[0], MPI_STATUS_IGNORE), "Wait iscatter");
	say("iscatter: %d %d %d", out[0], out[1], out[2]);
	memset(out, 0, sizeof(out));
	check(MPI_Iscatterv(sc, cnts, disp, MPI_INT, out, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &q[0]),
	      "Iscatterv");
	check(MPI_Wait(&q[0], MPI_STATUS_IGNORE), "Wait iscatterv");
	say("iscatterv: %d %d", out[0], out[rank]);
	/* Iallgather(v) in place, Ialltoall(v,w), by Testall */
	for (int i = 0; i < n; i++)
		all[i] = i == rank ? rank * 9 : -1;
	check(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD, &q[0]),
	      "Iallgather in place");
	for (int i = 0; i < n; i++) {
		cnts[i] = 1 + (i & 1);
		disp[i] = i * 2;
		a2[i] = rank * 100 + i;
	}
	check(MPI_Iallgatherv(v, 1 + (rank & 1), MPI_INT, all2, cnts, disp, MPI_INT, MPI_COMM_WORLD, &q[1]),
	      "Iallgatherv");
	check(MPI_Ialltoall(a2, 1, MPI_INT, a3, 1, MPI_INT, MPI_COMM_WORLD, &q[2]), "Ialltoall");
	for (int f = 0; !f;)
		check(MPI_Testall(3, q, &f, MPI_STATUSES_IGNORE), "Testall");
	say("iallgather in place: %d %d; iallgatherv: %d %d; ialltoall: %d %d", all[0], all[n - 1], all2[0],
	    all2[2 * (n - 1)], a3[0], a3[n - 1]);
	int *c1 = calloc((size_t)n, sizeof(int)), *d1 = calloc((size_t)n, sizeof(int));
	int *bd = calloc((size_t)n, sizeof(int));
	MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
	for (int i = 0; i < n; i++) {
		c1[i] = 1;
		d1[i] = i;
		bd[i] = i * (int)sizeof(int);
		types[i] = MPI_INT;
	}
	int *a4 = calloc((size_t)n, sizeof(int));
	check(MPI_Ialltoallv(a2, c1, d1, MPI_INT, a3, c1, d1, MPI_INT, MPI_COMM_WORLD, &q[0]), "Ialltoallv");
	check(MPI_Ialltoallw(a2, c1, bd, types, a4, c1, bd, types, MPI_COMM_WORLD, &q[1]), "Ialltoallw");
	int outcount, idx[2], ndone = 0;
	while (ndone < 2) {
		check(MPI_Waitsome(2, q, &outcount, idx, MPI_STATUSES_IGNORE), "Waitsome");
		ndone += outcount == MPI_UNDEFINED ? 2 : outcount;
	}
	say("ialltoallv: %d; ialltoallw: %d", a3[n - 1], a4[0]);
	/* Ireduce (in place at the root), Iscan, Iexscan, Ireduce_scatter(_block), Ibarrier */
	memcpy(w, v, sizeof(w));
	if (!rank)
		check(MPI_Ireduce(MPI_IN_PLACE, w, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &q[0]), "Ireduce in place");
	else
		check(MPI_Ireduce(w, NULL, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &q[0]), "Ireduce");
	int sc1[2], ex[2] = {-5, -5};
	check(MPI_Iscan(v, sc1, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]), "Iscan");
	check(MPI_Iexscan(v, ex, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[2]), "Iexscan");
	int *rs = calloc((size_t)n * 2, sizeof(int)), rsv[2] = {0, 0}, rsb[2] = {0, 0};
	for (int i = 0; i < 2 * n; i++)
		rs[i] = rank + i;
	for (int i = 0; i < n; i++)
		cnts[i] = 2;
	check(MPI_Ireduce_scatter(rs, rsv, cnts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[3]), "Ireduce_scatter");
	check(MPI_Ireduce_scatter_block(rs, rsb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[4]),
	      "Ireduce_scatter_block");
	check(MPI_Ibarrier(MPI_COMM_WORLD, &q[5]), "Ibarrier");
	check(MPI_Waitall(6, q, MPI_STATUSES_IGNORE), "Waitall reductions");
	if (!rank)
		say("ireduce in place: %d %d", w[0], w[3]);
	say("iscan: %d %d; ireduce_scatter: %d %d; block: %d %d", sc1[0], sc1[1], rsv[0], rsv[1], rsb[0], rsb[1]);
	if (rank)
		say("iexscan: %d %d", ex[0], ex[1]);
	/* an empty Iallreduce */
	check(MPI_Iallreduce(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]), "Iallreduce 0");
	check(MPI_Wait(&q[0], MPI_STATUS_IGNORE), "Wait empty");
	free(all);
	free(all2);
	free(cnts);
	free(disp);
	free(a2);
	free(a3);
	free(a4);
	free(c1);
	free(d1);
	free(bd);
	free(types);
	free(rs);
}

/* Neighbourhood collectives (MPI 3) on a periodic ring (Cart), a line,
 * distributed graphs and a graph: the results as without the wrappers
 * (which count them and exchange the delays beside them). */
static void t_neighbours(void)
{
	int n = size, dims[1] = {n}, per[1] = {1};
	MPI_Comm ring, dg;
	check(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring), "Cart_create ring");
	int sb[2] = {rank * 10 + 1, rank * 10 + 2}, rb[2] = {-1, -1}, one = rank + 100;
	check(MPI_Neighbor_allgather(&one, 1, MPI_INT, rb, 1, MPI_INT, ring), "Neighbor_allgather");
	say("neighbor_allgather: %d %d", rb[0], rb[1]);
	check(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ring), "Neighbor_alltoall");
	say("neighbor_alltoall: %d %d", rb[0], rb[1]);
	int c2[2] = {1, 1}, d2[2] = {0, 1};
	check(MPI_Neighbor_allgatherv(&one, 1, MPI_INT, rb, c2, d2, MPI_INT, ring), "Neighbor_allgatherv");
	check(MPI_Neighbor_alltoallv(sb, c2, d2, MPI_INT, rb, c2, d2, MPI_INT, ring), "Neighbor_alltoallv");
	say("neighbor_alltoallv: %d %d", rb[0], rb[1]);
	MPI_Aint bd[2] = {0, sizeof(int)};
	MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
	check(MPI_Neighbor_alltoallw(sb, c2, bd, ty, rb, c2, bd, ty, ring), "Neighbor_alltoallw");
	say("neighbor_alltoallw: %d %d", rb[0], rb[1]);
	MPI_Request q[3];
	int ib[2] = {-1, -1}, jb[2] = {-1, -1};
	check(MPI_Ineighbor_allgather(&one, 1, MPI_INT, ib, 1, MPI_INT, ring, &q[0]), "Ineighbor_allgather");
	check(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, jb, 1, MPI_INT, ring, &q[1]), "Ineighbor_alltoall");
	check(MPI_Waitall(2, q, MPI_STATUSES_IGNORE), "Waitall ineighbor");
	say("ineighbor_allgather: %d %d; ineighbor_alltoall: %d %d", ib[0], ib[1], jb[0], jb[1]);
	check(MPI_Ineighbor_allgatherv(&one, 1, MPI_INT, ib, c2, d2, MPI_INT, ring, &q[0]), "Ineighbor_allgatherv");
	check(MPI_Ineighbor_alltoallv(sb, c2, d2, MPI_INT, jb, c2, d2, MPI_INT, ring, &q[1]), "Ineighbor_alltoallv");
	int kb[2] = {-1, -1};
	check(MPI_Ineighbor_alltoallw(sb, c2, bd, ty, kb, c2, bd, ty, ring, &q[2]), "Ineighbor_alltoallw");
	check(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), "Waitall ineighbor v/w");
	say("ineighbor v: %d %d, %d %d; w: %d %d", ib[0], ib[1], jb[0], jb[1], kb[0], kb[1]);
	/* a distributed graph: each rank sends to the next, receives from the previous */
	int src[1] = {(rank + n - 1) % n}, dst[1] = {(rank + 1) % n}, wt[1] = {1}, got = -1;
	check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, wt, 1, dst, wt, MPI_INFO_NULL, 0, &dg),
	      "Dist_graph_create_adjacent");
	check(MPI_Neighbor_alltoall(&one, 1, MPI_INT, &got, 1, MPI_INT, dg), "Neighbor_alltoall dist graph");
	say("dist graph neighbor_alltoall: %d", got);
	MPI_Comm_free(&dg);
	MPI_Comm_free(&ring);
	/* a line (not periodic: the ends' MPI_PROC_NULL slots stay untouched),
	 * blocking and not; a chain as a distributed graph whose first rank
	 * receives from nobody; a graph (MPI_Graph_create) of the ring */
	MPI_Comm line, chain, graph;
	per[0] = 0;
	check(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &line), "Cart_create line");
	rb[0] = rb[1] = -1;
	check(MPI_Neighbor_allgather(&one, 1, MPI_INT, rb, 1, MPI_INT, line), "Neighbor_allgather line");
	ib[0] = ib[1] = -1;
	check(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, ib, 1, MPI_INT, line, &q[0]), "Ineighbor_alltoall line");
	check(MPI_Wait(&q[0], MPI_STATUS_IGNORE), "Wait ineighbor line");
	say("line neighbor_allgather: %d %d; ineighbor_alltoall: %d %d", rb[0], rb[1], ib[0], ib[1]);
	int csrc = rank - 1, cdst = rank + 1;
	check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank > 0, &csrc, wt, rank + 1 < n, &cdst, wt,
					     MPI_INFO_NULL, 0, &chain),
	      "Dist_graph_create_adjacent chain");
	got = -1;
	check(MPI_Neighbor_allgather(&one, 1, MPI_INT, &got, 1, MPI_INT, chain), "Neighbor_allgather chain");
	say("chain neighbor_allgather: %d", got);
	int *gi = malloc(sizeof(int) * (size_t)n), *ge = malloc(sizeof(int) * 2 * (size_t)n);
	for (int i = 0; i < n; i++) {
		gi[i] = 2 * (i + 1);
		ge[2 * i] = (i + n - 1) % n;
		ge[2 * i + 1] = (i + 1) % n;
	}
	check(MPI_Graph_create(MPI_COMM_WORLD, n, gi, ge, 0, &graph), "Graph_create");
	rb[0] = rb[1] = -1;
	check(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, graph), "Neighbor_alltoall graph");
	say("graph neighbor_alltoall: %d %d", rb[0], rb[1]);
	free(gi);
	free(ge);
	MPI_Comm_free(&graph);
	MPI_Comm_free(&chain);
	MPI_Comm_free(&line);
}

static void t_comms(void)
{
	MPI_Comm half, dup, inter, merged, cart, sub;
	check(MPI_Comm_split(MPI_COMM_WORLD, rank & 1, -rank, &half), "Comm_split");
	int hr, hs;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	int x = rank, y = -1;
	if (hs > 1) {
		MPI_Status st;
		check(MPI_Sendrecv(&x, 1, MPI_INT, (hr + 1) % hs, 1, &y, 1, MPI_INT, (hr + hs - 1) % hs, 1, half, &st),
		      "Sendrecv half");
		say("split: half rank %d of %d got %d from %d", hr, hs, y, st.MPI_SOURCE);
	} else {
		say("split: half rank %d of %d", hr, hs);
	}
	check(MPI_Comm_dup(half, &dup), "Comm_dup");
	int s = 0;
	check(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, dup), "Allreduce dup");
	say("dup: sum %d", s);
	/* intercommunicator between the halves */
	/* the leaders are the largest ranks of each half (keys were -rank) */
	int last = size - 1, even_leader = last & ~1, odd_leader = (last & 1) ? last : last - 1;
	check(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, (rank & 1) ? even_leader : odd_leader, 7, &inter),
	      "Intercomm_create");
	int rs;
	MPI_Comm_remote_size(inter, &rs);
	if (hr == 0) {
		MPI_Status st;
		int z = rank + 500, got = -1;
		check(MPI_Sendrecv(&z, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter, &st), "Sendrecv inter");
		say("inter: remote size %d got %d from remote %d", rs, got, st.MPI_SOURCE);
	}
	int gsum = 0;
	check(MPI_Allreduce(&x, &gsum, 1, MPI_INT, MPI_SUM, inter), "Allreduce inter");
	say("inter allreduce: %d", gsum);
	check(MPI_Intercomm_merge(inter, rank & 1, &merged), "Intercomm_merge");
	int mr;
	MPI_Comm_rank(merged, &mr);
	say("merged rank %d", mr);
	int dims[1] = {size}, per[1] = {1};
	check(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart), "Cart_create");
	int src, dst;
	MPI_Cart_shift(cart, 0, 1, &src, &dst);
	y = -1;
	check(MPI_Sendrecv(&x, 1, MPI_INT, dst, 4, &y, 1, MPI_INT, src, 4, cart, MPI_STATUS_IGNORE), "Sendrecv cart");
	say("cart: got %d", y);
	int remain[1] = {0};
	check(MPI_Cart_sub(cart, remain, &sub), "Cart_sub");
	MPI_Group wg, g;
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	int incl[1] = {0};
	MPI_Group_incl(wg, 1, incl, &g);
	MPI_Comm solo;
	check(MPI_Comm_create(MPI_COMM_WORLD, g, &solo), "Comm_create");
	say("comm_create: member %d", solo != MPI_COMM_NULL);
	if (solo != MPI_COMM_NULL)
		MPI_Comm_free(&solo);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	MPI_Comm_free(&sub);
	MPI_Comm_free(&cart);
	MPI_Comm_free(&merged);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&half);
}

/* A message longer than the receive: MPI_ERR_TRUNCATE (errors return on
 * MPI_COMM_WORLD), the buffer holds the first `count` elements and nothing
 * past them, the status counts the whole message (Open MPI), for each way
 * of completing.  Then a receive that MPI_Request_get_status reports
 * complete: its data must be in the buffer before the Wait, and the Wait
 * must not write it again. */
static void t_truncate(void)
{
	if (rank > 1)
		return;
	static int a[600];
	for (int i = 0; i < 600; i++)
		a[i] = 200 + i;
	if (rank == 0) {
		/* small (packed copy by default) and large (struct) messages */
		static const int n[] = {10, 600};
		for (int k = 0; k < 2; k++)
			for (int t = 0; t < 4; t++)
				check(MPI_Send(a, n[k], MPI_INT, 1, 110 + t, MPI_COMM_WORLD), "Send");
		check(MPI_Send(a, 3, MPI_INT, 1, 114, MPI_COMM_WORLD), "Send");
		int v[2] = {7, 8};
		check(MPI_Send(v, 2, MPI_INT, 1, 115, MPI_COMM_WORLD), "Send");
		return;
	}
	for (int k = 0; k < 2; k++) {
		static int b[640];
		int cap = k ? 500 : 4, cnt, rc;
		MPI_Status st, sts[2];
		MPI_Request r, rr[2];
		/* blocking */
		memset(b, 0x11, sizeof(b));
		rc = MPI_Recv(b, cap, MPI_INT, 0, 110, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_INT, &cnt);
		say("truncate %d recv: rc truncate %d count %d last %d past %d", k, rc == MPI_ERR_TRUNCATE, cnt,
		    b[cap - 1], b[cap] == 0x11111111);
		/* Wait */
		memset(b, 0x11, sizeof(b));
		check(MPI_Irecv(b, cap, MPI_INT, 0, 111, MPI_COMM_WORLD, &r), "Irecv");
		rc = MPI_Wait(&r, &st);
		MPI_Get_count(&st, MPI_INT, &cnt);
		say("truncate %d wait: rc truncate %d count %d last %d past %d null %d", k, rc == MPI_ERR_TRUNCATE,
		    cnt, b[cap - 1], b[cap] == 0x11111111, r == MPI_REQUEST_NULL);
		/* Test */
		memset(b, 0x11, sizeof(b));
		check(MPI_Irecv(b, cap, MPI_INT, 0, 112, MPI_COMM_WORLD, &r), "Irecv");
		int flag = 0;
		rc = MPI_SUCCESS;
		while (!flag && rc == MPI_SUCCESS)
			rc = MPI_Test(&r, &flag, &st);
		MPI_Get_count(&st, MPI_INT, &cnt);
		say("truncate %d test: rc truncate %d count %d last %d past %d", k, rc == MPI_ERR_TRUNCATE, cnt,
		    b[cap - 1], b[cap] == 0x11111111);
		/* Waitall: the truncated one and a good one, error in status */
		memset(b, 0x11, sizeof(b));
		check(MPI_Irecv(b, cap, MPI_INT, 0, 113, MPI_COMM_WORLD, &rr[0]), "Irecv");
		if (k) {
			check(MPI_Irecv(b + 600, 4, MPI_INT, 0, 114, MPI_COMM_WORLD, &rr[1]), "Irecv");
		} else {
			rr[1] = MPI_REQUEST_NULL;
		}
		rc = MPI_Waitall(2, rr, sts);
		int c2 = -1;
		MPI_Get_count(&sts[0], MPI_INT, &cnt);
		/* the good one may be left pending (MPI_ERR_PENDING): Open MPI
		 * stops at the error; complete it */
		if (k && rr[1] != MPI_REQUEST_NULL)
			check(MPI_Wait(&rr[1], &sts[1]), "Wait pending");
		if (k)
			MPI_Get_count(&sts[1], MPI_INT, &c2);
		say("truncate %d waitall: rc in status %d error truncate %d count %d %d last %d past %d second %d", k,
		    rc == MPI_ERR_IN_STATUS, sts[0].MPI_ERROR == MPI_ERR_TRUNCATE, cnt, c2, b[cap - 1],
		    b[cap] == 0x11111111, b[602]);
	}
	int v[4] = {0, 0, 0, 0}, flag = 0;
	MPI_Request r;
	MPI_Status st;
	check(MPI_Irecv(v, 4, MPI_INT, 0, 115, MPI_COMM_WORLD, &r), "Irecv");
	while (!flag)
		check(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE), "Request_get_status");
	say("get_status complete: data %d %d", v[0], v[1]);
	v[0] = 55;
	check(MPI_Wait(&r, &st), "Wait");
	status_line("get_status complete then wait", &st, MPI_INT);
	say("get_status complete then wait: data %d %d (the program's own write kept)", v[0], v[1]);
}

/* What third-party codes do, in one place: a halo exchange with derived
 * vector types on a split communicator, MPI_ANY_SOURCE receives into larger
 * buffers read back with MPI_Get_count, Issend completed by Testsome,
 * Bsend into a buffer attached to the byte, Sendrecv_replace around a ring,
 * collectives on the sub-communicators. */
static void t_apps(void)
{
	MPI_Comm row;
	check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &row), "Comm_split");
	int rr, rs;
	MPI_Comm_rank(row, &rr);
	MPI_Comm_size(row, &rs);
	/* a 6x5 grid of doubles: send column 1 and row 1, strided */
	double g[6][5];
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 5; j++)
			g[i][j] = rank * 100 + i * 10 + j;
	MPI_Datatype col;
	check(MPI_Type_vector(6, 1, 5, MPI_DOUBLE, &col), "vector");
	MPI_Type_commit(&col);
	int up = (rank + 1) % size, down = (rank + size - 1) % size;
	double h[6][5];
	memset(h, 0, sizeof(h));
	MPI_Request q[4];
	MPI_Status qs[4];
	check(MPI_Irecv(&h[0][4], 1, col, down, 120, MPI_COMM_WORLD, &q[0]), "Irecv col");
	check(MPI_Irecv(h[5], 5, MPI_DOUBLE, down, 121, MPI_COMM_WORLD, &q[1]), "Irecv row");
	check(MPI_Isend(&g[0][1], 1, col, up, 120, MPI_COMM_WORLD, &q[2]), "Isend col");
	check(MPI_Isend(g[1], 5, MPI_DOUBLE, up, 121, MPI_COMM_WORLD, &q[3]), "Isend row");
	check(MPI_Waitall(4, q, qs), "Waitall halo");
	int cnt;
	MPI_Get_count(&qs[0], col, &cnt);
	say("halo: column count %d: %.0f %.0f %.0f, row %.0f %.0f", cnt, h[0][4], h[3][4], h[5][4], h[5][0], h[5][4]);
	/* wildcard receives of different lengths into larger buffers */
	if (rank == 0) {
		int got[64];
		for (int i = 1; i < size; i++) {
			int buf[4096];
			MPI_Status st;
			check(MPI_Recv(buf, 4096, MPI_INT, MPI_ANY_SOURCE, 122, MPI_COMM_WORLD, &st), "Recv any");
			MPI_Get_count(&st, MPI_INT, &cnt);
			int ok = 1;
			for (int k = 0; k < cnt; k++)
				ok &= buf[k] == st.MPI_SOURCE * 7 + k;
			got[st.MPI_SOURCE] = cnt * 2 + ok;
		}
		for (int i = 1; i < size; i++)
			say("any_source: from %d count %d data ok %d", i, got[i] / 2, got[i] & 1);
	} else {
		int n = rank == 1 ? 3 : 1500, *buf = malloc(sizeof(int) * (size_t)n);
		for (int k = 0; k < n; k++)
			buf[k] = rank * 7 + k;
		check(MPI_Send(buf, n, MPI_INT, 0, 122, MPI_COMM_WORLD), "Send any");
		free(buf);
	}
	/* Issend completed by Testsome; the receiver takes them with Irecv
	 * from MPI_ANY_SOURCE and Waitany */
	enum { M = 6 };
	if (rank == 1) {
		static int out[M][700];
		MPI_Request s[M];
		for (int i = 0; i < M; i++) {
			int n = i & 1 ? 700 : 2 + i;
			for (int k = 0; k < n; k++)
				out[i][k] = i * 1000 + k;
			check(MPI_Issend(out[i], n, MPI_INT, 0, 123, MPI_COMM_WORLD, &s[i]), "Issend");
		}
		int done = 0, polls = 0;
		while (done < M) {
			int outc, idx[M];
			MPI_Status sts[M];
			check(MPI_Testsome(M, s, &outc, idx, sts), "Testsome");
			done += outc == MPI_UNDEFINED ? 0 : outc;
			polls++;
		}
		say("issend testsome: %d completed", done);
	} else if (rank == 0) {
		static int in[M][800];
		MPI_Request r[M];
		for (int i = 0; i < M; i++)
			check(MPI_Irecv(in[i], 800, MPI_INT, MPI_ANY_SOURCE, 123, MPI_COMM_WORLD, &r[i]), "Irecv");
		long sum = 0;
		int lens = 0;
		for (int k = 0; k < M; k++) {
			int idx;
			MPI_Status st;
			check(MPI_Waitany(M, r, &idx, &st), "Waitany");
			MPI_Get_count(&st, MPI_INT, &cnt);
			lens += cnt;
			for (int j = 0; j < cnt; j++)
				sum += in[idx][j];
		}
		say("issend waitany: %d ints, sum %ld", lens, sum);
	}
	/* Bsend: a buffer attached for exactly these messages */
	if (rank < 2) {
		int bs = 0, one = 0;
		for (int i = 0; i < 5; i++) {
			MPI_Pack_size(10 * i + 1, MPI_INT, MPI_COMM_WORLD, &one);
			bs += one + MPI_BSEND_OVERHEAD;
		}
		char *bb = malloc((size_t)bs);
		check(MPI_Buffer_attach(bb, bs), "Buffer_attach");
		int msg[41];
		for (int i = 0; i < 41; i++)
			msg[i] = rank * 50 + i;
		for (int i = 0; i < 5; i++)
			check(MPI_Bsend(msg, 10 * i + 1, MPI_INT, 1 - rank, 124 + i, MPI_COMM_WORLD), "Bsend");
		int tot = 0;
		for (int i = 4; i >= 0; i--) {
			int in[64];
			MPI_Status st;
			check(MPI_Recv(in, 64, MPI_INT, 1 - rank, 124 + i, MPI_COMM_WORLD, &st), "Recv bsend");
			MPI_Get_count(&st, MPI_INT, &cnt);
			tot += cnt + in[cnt - 1];
		}
		void *det;
		int dsz;
		check(MPI_Buffer_detach(&det, &dsz), "Buffer_detach");
		say("bsend to the byte: %d, detached the user's %d size %d", tot, det == bb, dsz == bs);
		free(bb);
	}
	/* Sendrecv_replace around the row communicator, strided */
	double ring[6][5];
	memcpy(ring, g, sizeof(ring));
	MPI_Status st;
	check(MPI_Sendrecv_replace(&ring[0][2], 1, col, (rr + 1) % rs, 125, (rr + rs - 1) % rs, 125, row, &st),
	      "Sendrecv_replace row");
	MPI_Get_count(&st, col, &cnt);
	say("row ring: from %d count %d %.0f %.0f untouched %.0f", st.MPI_SOURCE, cnt, ring[0][2], ring[5][2],
	    ring[5][3]);
	/* collectives on the sub-communicator */
	double sum[5], mx;
	check(MPI_Allreduce(g[2], sum, 5, MPI_DOUBLE, MPI_SUM, row), "Allreduce row");
	check(MPI_Reduce(&g[0][0], &mx, 1, MPI_DOUBLE, MPI_MAX, rs - 1, row), "Reduce row");
	int b3[3] = {rr, rr, rr};
	check(MPI_Bcast(b3, 3, MPI_INT, rs - 1, row), "Bcast row");
	int *ag = calloc((size_t)rs, sizeof(int)), *a2 = calloc((size_t)rs, sizeof(int)),
	    *a3 = calloc((size_t)rs, sizeof(int));
	check(MPI_Allgather(&rank, 1, MPI_INT, ag, 1, MPI_INT, row), "Allgather row");
	for (int i = 0; i < rs; i++)
		a2[i] = rank * 10 + i;
	check(MPI_Alltoall(a2, 1, MPI_INT, a3, 1, MPI_INT, row), "Alltoall row");
	say("row %d of %d: sum %.0f %.0f bcast %d allgather %d %d alltoall %d", rr, rs, sum[0], sum[4], b3[0], ag[0],
	    ag[rs - 1], a3[rs - 1]);
	if (rr == rs - 1)
		say("row reduce: %.0f", mx);
	free(ag);
	free(a2);
	free(a3);
	MPI_Type_free(&col);
	MPI_Comm_free(&row);
}

static void t_large(void)
{
	/* rendezvous sizes, non-blocking synchronous send polled with Test */
	int n = 1 << 20;
	char *buf = malloc((size_t)n);
	if (rank == 0) {
		for (int i = 0; i < n; i++)
			buf[i] = (char)(i % 251);
		MPI_Request r;
		check(MPI_Issend(buf, n, MPI_CHAR, 1, 99, MPI_COMM_WORLD, &r), "Issend");
		int flag = 0;
		while (!flag)
			check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), "Test");
		check(MPI_Ssend(buf, n / 2, MPI_CHAR, 1, 98, MPI_COMM_WORLD), "Ssend");
	} else if (rank == 1) {
		MPI_Status st;
		memset(buf, 0, (size_t)n);
		check(MPI_Recv(buf, n, MPI_CHAR, 0, 99, MPI_COMM_WORLD, &st), "Recv");
		status_line("large", &st, MPI_CHAR);
		say("large: sum %u", sum_bytes(buf, (size_t)n));
		check(MPI_Recv(buf, n, MPI_CHAR, MPI_ANY_SOURCE, 98, MPI_COMM_WORLD, &st), "Recv");
		status_line("large ssend", &st, MPI_CHAR);
		say("large ssend: sum %u", sum_bytes(buf, (size_t)n / 2));
	}
	free(buf);
}

/* Tiny messages, 0 to 12 bytes: the range of the compact piggyback (8 bytes
 * or less) and its borders, probed, into exact, larger and much larger
 * buffers (packed and struct schemes), from and into non-contiguous types,
 * non-blocking, persistent, Sendrecv_replace, and truncated. */
static void t_tiny(void)
{
	if (rank > 1)
		return;
	unsigned char src[16], big[4096];
	for (int i = 0; i < 16; i++)
		src[i] = (unsigned char)(0x40 + i);
	MPI_Status st;
	int cnt;
	/* two ints with a hole between them: 8 bytes of data, not contiguous */
	MPI_Datatype gap;
	check(MPI_Type_vector(2, 1, 2, MPI_INT, &gap), "Type_vector");
	check(MPI_Type_commit(&gap), "Type_commit");
	if (rank == 0) {
		for (int n = 0; n <= 12; n++) {
			check(MPI_Send(src, n, MPI_BYTE, 1, 300 + n, MPI_COMM_WORLD), "Send");
			check(MPI_Send(src, n, MPI_BYTE, 1, 320 + n, MPI_COMM_WORLD), "Send");
		}
		int g[3] = {11, -1, 22}, two[2] = {33, 44};
		check(MPI_Send(g, 1, gap, 1, 340, MPI_COMM_WORLD), "Send gap");
		check(MPI_Send(two, 2, MPI_INT, 1, 341, MPI_COMM_WORLD), "Send two");
		MPI_Request r;
		check(MPI_Isend(g, 1, gap, 1, 342, MPI_COMM_WORLD, &r), "Isend gap");
		check(MPI_Wait(&r, MPI_STATUS_IGNORE), "Wait");
		double d = 1.5;
		check(MPI_Send_init(&d, 1, MPI_DOUBLE, 1, 343, MPI_COMM_WORLD, &r), "Send_init");
		for (int k = 0; k < 3; k++) {
			d = 1.5 + k;
			check(MPI_Start(&r), "Start");
			check(MPI_Wait(&r, MPI_STATUS_IGNORE), "Wait");
		}
		check(MPI_Request_free(&r), "Request_free");
		int v = 5;
		check(MPI_Sendrecv_replace(&v, 1, MPI_INT, 1, 344, 1, 345, MPI_COMM_WORLD, &st), "Sendrecv_replace");
		say("tiny replace: %d", v);
		check(MPI_Send(src, 8, MPI_BYTE, 1, 346, MPI_COMM_WORLD), "Send");
		check(MPI_Send(src, 12, MPI_BYTE, 1, 347, MPI_COMM_WORLD), "Send");
		check(MPI_Send(src, 8, MPI_BYTE, 1, 348, MPI_COMM_WORLD), "Send");
	} else {
		for (int n = 0; n <= 12; n++) {
			unsigned char b[16];
			memset(b, 0xee, sizeof(b));
			check(MPI_Probe(0, 300 + n, MPI_COMM_WORLD, &st), "Probe");
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			check(MPI_Recv(b, n, MPI_BYTE, 0, 300 + n, MPI_COMM_WORLD, &st), "Recv exact");
			say("tiny %d exact: probed %d", n, cnt);
			status_line("  status", &st, MPI_BYTE);
			say("  data %u past %d", sum_bytes(b, (size_t)n), b[n]);
			memset(big, 0xee, sizeof(big));
			check(MPI_Recv(big, (int)sizeof(big), MPI_BYTE, 0, 320 + n, MPI_COMM_WORLD, &st), "Recv big");
			status_line("  big status", &st, MPI_BYTE);
			say("  big data %u past %d", sum_bytes(big, (size_t)n), big[n]);
		}
		int g[3] = {0, -9, 0}, two[2] = {0, 0};
		check(MPI_Recv(two, 2, MPI_INT, 0, 340, MPI_COMM_WORLD, &st), "Recv two");
		status_line("tiny gap->two", &st, MPI_INT);
		say("  %d %d", two[0], two[1]);
		check(MPI_Recv(g, 1, gap, 0, 341, MPI_COMM_WORLD, &st), "Recv gap");
		status_line("tiny two->gap", &st, gap);
		say("  %d %d %d", g[0], g[1], g[2]);
		g[0] = g[2] = 0;
		MPI_Request r;
		check(MPI_Irecv(g, 1, gap, 0, 342, MPI_COMM_WORLD, &r), "Irecv gap");
		check(MPI_Wait(&r, &st), "Wait");
		status_line("tiny igap", &st, gap);
		say("  %d %d %d", g[0], g[1], g[2]);
		double d = 0, dbig[600];
		check(MPI_Recv_init(&d, 1, MPI_DOUBLE, 0, 343, MPI_COMM_WORLD, &r), "Recv_init");
		for (int k = 0; k < 2; k++) {
			check(MPI_Start(&r), "Start");
			check(MPI_Wait(&r, &st), "Wait");
			status_line("tiny persistent", &st, MPI_DOUBLE);
			say("  %.1f", d);
		}
		check(MPI_Request_free(&r), "Request_free");
		/* the third one into a persistent receive of a large buffer */
		check(MPI_Recv_init(dbig, 600, MPI_DOUBLE, 0, 343, MPI_COMM_WORLD, &r), "Recv_init big");
		check(MPI_Start(&r), "Start");
		check(MPI_Wait(&r, &st), "Wait");
		status_line("tiny persistent big", &st, MPI_DOUBLE);
		say("  %.1f", dbig[0]);
		check(MPI_Request_free(&r), "Request_free");
		int v = 6;
		check(MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 345, 0, 344, MPI_COMM_WORLD, &st), "Sendrecv_replace");
		status_line("tiny replace", &st, MPI_INT);
		say("  %d", v);
		/* truncated: 8 bytes into 4 (the message's first 4 bytes arrive),
		 * 12 bytes into 8 and 8 into 0 (error only) */
		unsigned char b[16];
		memset(b, 0xee, sizeof(b));
		int rc = MPI_Recv(b, 4, MPI_BYTE, 0, 346, MPI_COMM_WORLD, &st);
		int cls = -1;
		MPI_Error_class(rc, &cls);
		say("tiny truncate 8 into 4: class truncate %d data %u past %d", cls == MPI_ERR_TRUNCATE, sum_bytes(b, 4), b[4]);
		rc = MPI_Recv(b, 8, MPI_BYTE, 0, 347, MPI_COMM_WORLD, &st);
		MPI_Error_class(rc, &cls);
		say("tiny truncate 12 into 8: class truncate %d past %d", cls == MPI_ERR_TRUNCATE, b[8]);
		rc = MPI_Recv(b, 0, MPI_BYTE, 0, 348, MPI_COMM_WORLD, &st);
		MPI_Error_class(rc, &cls);
		say("tiny truncate 8 into 0: class truncate %d", cls == MPI_ERR_TRUNCATE);
	}
	MPI_Type_free(&gap);
}

/* A datatype that fills its memory exactly but in another order on the
 * wire ({int at 4, int at 0}): never copied as plain bytes. */
static void t_permuted(void)
{
	if (rank > 1)
		return;
	int bl[2] = {1, 1}, disp[2] = {1, 0};
	MPI_Datatype perm;
	check(MPI_Type_indexed(2, bl, disp, MPI_INT, &perm), "Type_indexed");
	check(MPI_Type_commit(&perm), "Type_commit");
	static int s[200], a[200];
	for (int i = 0; i < 200; i++)
		s[i] = i + 1;
	static const int counts[] = {1, 50};
	for (int k = 0; k < 2; k++) {
		int n = counts[k];
		if (rank == 0) {
			check(MPI_Send(s, n, perm, 1, 400 + k, MPI_COMM_WORLD), "Send perm");
			check(MPI_Send(s, 2 * n, MPI_INT, 1, 410 + k, MPI_COMM_WORLD), "Send int");
		} else {
			memset(a, 0, sizeof(a));
			check(MPI_Recv(a, 2 * n, MPI_INT, 0, 400 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv int");
			say("perm %d -> int: %d %d %d %u", n, a[0], a[1], a[2 * n - 1], sum_bytes(a, sizeof(int) * 2 * (size_t)n));
			memset(a, 0, sizeof(a));
			MPI_Request r;
			check(MPI_Irecv(a, n, perm, 0, 410 + k, MPI_COMM_WORLD, &r), "Irecv perm");
			check(MPI_Wait(&r, MPI_STATUS_IGNORE), "Wait");
			say("int -> perm %d: %d %d %d %u", n, a[0], a[1], a[2 * n - 1], sum_bytes(a, sizeof(int) * 2 * (size_t)n));
		}
	}
	MPI_Type_free(&perm);
}

/* Communicators freed with operations pending: "pending operations that
 * use this communicator will complete normally" (MPI 3.1 section 6.4.3;
 * MPICH's test/mpi/comm/cmfree2.c).  The completion must not ask the freed
 * handle for its group.  A receive and a persistent send. */
static void t_comm_free_pending(void)
{
	MPI_Comm comm;
	check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "Comm_dup");
	int v = -1, w = -1;
	if (rank == 0) {
		MPI_Request p;
		v = 42;
		check(MPI_Send_init(&v, 1, MPI_INT, 1, 7, comm, &p), "Send_init");
		check(MPI_Comm_free(&comm), "Comm_free");
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_Ssend(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD), "Ssend");
		check(MPI_Start(&p), "Start");
		check(MPI_Wait(&p, MPI_STATUS_IGNORE), "Wait send");
		check(MPI_Request_free(&p), "Request_free");
	} else if (rank == 1) {
		MPI_Request r[2];
		MPI_Status st[2];
		check(MPI_Irecv(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r[0]), "Irecv world");
		check(MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, &r[1]), "Irecv freed");
		check(MPI_Comm_free(&comm), "Comm_free");
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_Waitall(2, r, st), "Waitall");
		say("comm freed, pending: %d %d source %d tag %d", v, w, st[1].MPI_SOURCE, st[1].MPI_TAG);
	} else {
		check(MPI_Comm_free(&comm), "Comm_free");
		MPI_Barrier(MPI_COMM_WORLD);
	}
}

/* A datatype freed while a non-blocking operation that uses it is pending
 * (MPI 3.1 section 4.1.9: the operation completes normally): Irecv with a
 * strided and with a contiguous derived type, and a persistent Recv_init
 * and Send_init of a tiny derived type started after the free (found by
 * MPICH's test suite pattern: the packed receive unpacked through the freed
 * handle at completion, and crashed). */
static void t_type_free_pending(void)
{
	int disp[2] = {0, 2};
	MPI_Datatype strided, contig, tiny;
	check(MPI_Type_create_indexed_block(2, 1, disp, MPI_INT, &strided), "Type_create_indexed_block");
	check(MPI_Type_commit(&strided), "Type_commit strided");
	check(MPI_Type_contiguous(3, MPI_INT, &contig), "Type_contiguous");
	check(MPI_Type_commit(&contig), "Type_commit contig");
	check(MPI_Type_contiguous(2, MPI_SHORT, &tiny), "Type_contiguous tiny");
	check(MPI_Type_commit(&tiny), "Type_commit tiny");
	int a[4] = {11, -1, 12, -1}, c3[3] = {21, 22, 23};
	short t2[2] = {31, 32};
	if (rank == 0) {
		MPI_Request p;
		check(MPI_Send_init(t2, 1, tiny, 1, 84, MPI_COMM_WORLD, &p), "Send_init tiny");
		check(MPI_Type_free(&tiny), "Type_free tiny (send)");
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_Send(a, 1, strided, 1, 81, MPI_COMM_WORLD), "Send strided");
		check(MPI_Send(c3, 1, contig, 1, 82, MPI_COMM_WORLD), "Send contig");
		for (int k = 0; k < 2; k++) {
			t2[0] = (short)(31 + k);
			check(MPI_Start(&p), "Start tiny");
			check(MPI_Wait(&p, MPI_STATUS_IGNORE), "Wait tiny");
		}
		check(MPI_Request_free(&p), "Request_free tiny");
	} else if (rank == 1) {
		int ra[4] = {0, 0, 0, 0}, rc3[3] = {0, 0, 0};
		short rt[2] = {0, 0};
		MPI_Request r[3];
		check(MPI_Irecv(ra, 1, strided, 0, 81, MPI_COMM_WORLD, &r[0]), "Irecv strided");
		check(MPI_Irecv(rc3, 1, contig, 0, 82, MPI_COMM_WORLD, &r[1]), "Irecv contig");
		check(MPI_Recv_init(rt, 1, tiny, 0, 84, MPI_COMM_WORLD, &r[2]), "Recv_init tiny");
		check(MPI_Type_free(&strided), "Type_free strided (pending)");
		check(MPI_Type_free(&contig), "Type_free contig (pending)");
		check(MPI_Type_free(&tiny), "Type_free tiny (recv)");
		MPI_Barrier(MPI_COMM_WORLD);
		check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "Waitall freed types");
		say("type freed, pending: %d %d %d %d / %d %d %d", ra[0], ra[1], ra[2], ra[3], rc3[0], rc3[1], rc3[2]);
		for (int k = 0; k < 2; k++) {
			check(MPI_Start(&r[2]), "Start tiny recv");
			check(MPI_Wait(&r[2], MPI_STATUS_IGNORE), "Wait tiny recv");
			say("type freed, persistent round %d: %d %d", k, rt[0], rt[1]);
		}
		check(MPI_Request_free(&r[2]), "Request_free tiny recv");
	} else {
		check(MPI_Type_free(&tiny), "Type_free tiny");
		MPI_Barrier(MPI_COMM_WORLD);
	}
	/* the freed handles are MPI_DATATYPE_NULL, as after any free */
	if (rank == 1)
		say("types freed: handles %s", tiny == MPI_DATATYPE_NULL && strided == MPI_DATATYPE_NULL ? "null" : "set");
	if (rank != 1) {
		check(MPI_Type_free(&strided), "Type_free strided");
		check(MPI_Type_free(&contig), "Type_free contig");
	}
}

/* A message shorter than one element of the receive type fills the first
 * bytes of that element (MPI 3.1 section 3.3.1): one int into a struct of
 * ints at 0, 4 and 12, by blocking, non-blocking and matched receives.  The
 * piggyback's compact form once dropped such a partial element. */
static void t_partial_element(void)
{
	if (rank > 1)
		return;
	int bl[3] = {1, 1, 1};
	MPI_Aint dp[3] = {0, 4, 12};
	MPI_Datatype ty[3] = {MPI_INT, MPI_INT, MPI_INT}, st3;
	check(MPI_Type_create_struct(3, bl, dp, ty, &st3), "Type_create_struct");
	check(MPI_Type_commit(&st3), "Type_commit");
	if (rank == 0) {
		int v = 42, w[2] = {43, 44};
		for (int k = 0; k < 3; k++)
			check(MPI_Send(&v, 1, MPI_INT, 1, 400 + k, MPI_COMM_WORLD), "Send one int");
		check(MPI_Send(w, 2, MPI_INT, 1, 403, MPI_COMM_WORLD), "Send two ints");
	} else {
		int b[3][4];
		MPI_Status stt;
		MPI_Request r;
		MPI_Message m;
		memset(b, 0xff, sizeof(b));
		check(MPI_Recv(b[0], 1, st3, 0, 400, MPI_COMM_WORLD, &stt), "Recv partial");
		status_line("partial element, Recv", &stt, st3);
		check(MPI_Irecv(b[1], 1, st3, 0, 401, MPI_COMM_WORLD, &r), "Irecv partial");
		check(MPI_Wait(&r, &stt), "Wait partial");
		status_line("partial element, Irecv", &stt, st3);
		check(MPI_Mprobe(0, 402, MPI_COMM_WORLD, &m, &stt), "Mprobe partial");
		check(MPI_Mrecv(b[2], 1, st3, &m, &stt), "Mrecv partial");
		status_line("partial element, Mrecv", &stt, st3);
		for (int k = 0; k < 3; k++)
			say("partial element %d: %d %d %d %d", k, b[k][0], b[k][1], b[k][2], b[k][3]);
		int two[4];
		memset(two, 0xff, sizeof(two));
		check(MPI_Recv(two, 1, st3, 0, 403, MPI_COMM_WORLD, &stt), "Recv two of three");
		status_line("two of three", &stt, st3);
		say("two of three: %d %d %d %d", two[0], two[1], two[2], two[3]);
	}
	check(MPI_Type_free(&st3), "Type_free");
}

/* A type's attributes are deleted when the program frees it, also after
 * a message went with it (a cached struct type built on it once kept it
 * alive, and its delete callback did not run). */
static int deleted;
static int count_delete(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t, (void)key, (void)val, (void)extra;
	deleted++;
	return MPI_SUCCESS;
}

static void t_type_attr_free(void)
{
	if (rank > 1)
		return;
	int key;
	check(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &key, NULL), "Type_create_keyval");
	for (int round = 0; round < 2; round++) {
		MPI_Datatype v;
		int buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		check(MPI_Type_vector(2, 1, 3, MPI_INT, &v), "Type_vector");
		check(MPI_Type_commit(&v), "Type_commit");
		check(MPI_Type_set_attr(v, key, &deleted), "Type_set_attr");
		if (rank == 0)
			check(MPI_Send(buf, 2, v, 1, 410 + round, MPI_COMM_WORLD), "Send vector");
		else
			check(MPI_Recv(buf, 2, v, 0, 410 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Recv vector");
		int before = deleted;
		check(MPI_Type_free(&v), "Type_free");
		say("type attribute deleted at free, round %d: %d", round, deleted - before);
	}
	check(MPI_Type_free_keyval(&key), "Type_free_keyval");
}

/* MPI_INFO_ENV names the program and its arguments, not the launcher
 * (`hyprof run` execs the program: Open MPI read them from OMPI_COMMAND
 * and OMPI_ARGV, which mpirun set for hyprof). */
static void t_info_env(int argc, char **argv)
{
	char cmd[256] = "", args[256] = "";
	int flag = 0;
	MPI_Info_get(MPI_INFO_ENV, "command", (int)sizeof(cmd) - 1, cmd, &flag);
	if (!flag) /* an MPI that does not give it */
		return;
	MPI_Info_get(MPI_INFO_ENV, "argv", (int)sizeof(args) - 1, args, &flag);
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	char want[256] = "";
	for (int i = 1; i < argc; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i > 1 ? " " : "", argv[i]);
	say("MPI_INFO_ENV command %s, argv %s", !strcmp(cmd, base) ? "the program's" : cmd,
	    !flag ? (argc > 1 ? "absent" : "none") : !strcmp(args, want) ? "the program's" : args);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (!rank)
			fprintf(stderr, "mpi_correct: needs 2 or more ranks\n");
		MPI_Finalize();
		return 77;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	t_modes();
	t_wildcard();
	t_procnull();
	t_datatypes();
	t_nonblocking();
	t_cancel();
	t_probe();
	t_sendrecv();
	t_persistent();
	t_request_free();
	t_collectives();
	t_icollectives();
	t_neighbours();
	t_comms();
	t_truncate();
	t_apps();
	t_large();
	t_tiny();
	t_permuted();
	t_comm_free_pending();
	t_type_free_pending();
	t_partial_element();
	t_type_attr_free();
	t_info_env(argc, argv);
	MPI_Barrier(MPI_COMM_WORLD);
	/* everyone's lines, in rank order */
	int len = (int)loglen, *lens = NULL, *displs = NULL;
	char *all = NULL;
	if (!rank) {
		lens = calloc((size_t)size, sizeof(int));
		displs = calloc((size_t)size, sizeof(int));
	}
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int tot = 0;
	if (!rank) {
		for (int i = 0; i < size; i++) {
			displs[i] = tot;
			tot += lens[i];
		}
		all = malloc((size_t)tot + 1);
	}
	MPI_Gatherv(logbuf, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (!rank) {
		fwrite(all, 1, (size_t)tot, stdout);
		printf("done %d ranks\n", size);
	}
	MPI_Finalize();
	return 0;
}
