/* bench/mpi/designs.c - the piggyback designs, each on its own, no hyprof.
 *
 * Ping-pong one-way latency (us; the best of many short batches, the designs
 * interleaved batch by batch) of a 16-byte piggyback carried
 *   plain       no piggyback
 *   plain+16B   no piggyback, 16 bytes more in the message: the floor of
 *               any piggyback carried in the message itself
 *   struct_new  a struct datatype {pb, data} built, committed, freed per message
 *   struct      the same datatype cached (built once per buffer)
 *   packed      pb and data copied into one buffer, sent as MPI_PACKED
 *   packed2     the same with a 2-byte piggyback (the wrappers' compact form
 *               of messages up to 8 bytes, pb.h), whatever the size here
 *   shadow      a second message on a duplicate communicator (Isend + free)
 * The wrappers use packed up to HYPROF_MPI_PACK_MAX and the cached struct
 * above (docs/mpi.md, "The piggyback"); shadow is correct too but pays a
 * message.  Usage: mpirun -np 2 bench_mpi_designs [MAX_BYTES [MIN_BYTES [FACTOR]]]
 * (sizes MIN, MIN*FACTOR, ... up to MAX; default 8 to 1 MB by 4).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pb {
	int64_t delay;
	uint64_t tsc;
};
enum { PLAIN, PLAIN16, STRUCT_NEW, STRUCT, PACKED, PACKED2, SHADOW, NS };
static const char *names[NS] = {"plain", "plain+16B", "struct_new", "struct", "packed", "packed2", "shadow"};
static MPI_Comm shadow;
static char *stage;
static struct pb spb, rpb;
static MPI_Datatype cached[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
static void *cbuf[2];
static int cn[2];

static MPI_Datatype mk(struct pb *slot, void *buf, int n)
{
	MPI_Datatype t;
	int bl[2] = {(int)sizeof(struct pb), n};
	MPI_Aint d[2];
	MPI_Datatype ty[2] = {MPI_BYTE, MPI_BYTE};
	MPI_Get_address(slot, &d[0]);
	MPI_Get_address(buf, &d[1]);
	MPI_Type_create_struct(2, bl, d, ty, &t);
	MPI_Type_commit(&t);
	return t;
}

static MPI_Datatype get(int side, struct pb *slot, void *buf, int n)
{
	if (cached[side] == MPI_DATATYPE_NULL || cbuf[side] != buf || cn[side] != n) {
		if (cached[side] != MPI_DATATYPE_NULL)
			MPI_Type_free(&cached[side]);
		cached[side] = mk(slot, buf, n);
		cbuf[side] = buf;
		cn[side] = n;
	}
	return cached[side];
}

static void xsend(int s, void *buf, int n, int peer)
{
	MPI_Datatype t;
	MPI_Request r;
	switch (s) {
	case PLAIN:
		MPI_Send(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
		break;
	case PLAIN16:
		MPI_Send(stage, n + (int)sizeof(spb), MPI_BYTE, peer, 0, MPI_COMM_WORLD);
		break;
	case STRUCT_NEW:
		t = mk(&spb, buf, n);
		MPI_Send(MPI_BOTTOM, 1, t, peer, 0, MPI_COMM_WORLD);
		MPI_Type_free(&t);
		break;
	case STRUCT:
		MPI_Send(MPI_BOTTOM, 1, get(0, &spb, buf, n), peer, 0, MPI_COMM_WORLD);
		break;
	case PACKED:
		memcpy(stage, &spb, sizeof(spb));
		memcpy(stage + sizeof(spb), buf, (size_t)n);
		MPI_Send(stage, n + (int)sizeof(spb), MPI_PACKED, peer, 0, MPI_COMM_WORLD);
		break;
	case PACKED2:
		memcpy(stage, &spb, 2);
		memcpy(stage + 2, buf, (size_t)n);
		MPI_Send(stage, n + 2, MPI_PACKED, peer, 0, MPI_COMM_WORLD);
		break;
	case SHADOW:
		MPI_Isend(&spb, sizeof(spb), MPI_BYTE, peer, 0, shadow, &r);
		MPI_Request_free(&r);
		MPI_Send(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
		break;
	}
}

static void xrecv(int s, void *buf, int n, int peer)
{
	MPI_Datatype t;
	MPI_Status st;
	int c;
	switch (s) {
	case PLAIN:
		MPI_Recv(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
		break;
	case PLAIN16:
		MPI_Recv(stage, n + (int)sizeof(rpb), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
		break;
	case STRUCT_NEW:
		t = mk(&rpb, buf, n);
		MPI_Recv(MPI_BOTTOM, 1, t, peer, 0, MPI_COMM_WORLD, &st);
		MPI_Type_free(&t);
		break;
	case STRUCT:
		MPI_Recv(MPI_BOTTOM, 1, get(1, &rpb, buf, n), peer, 0, MPI_COMM_WORLD, &st);
		break;
	case PACKED:
		MPI_Recv(stage, n + (int)sizeof(rpb), MPI_PACKED, peer, 0, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &c);
		memcpy(&rpb, stage, sizeof(rpb));
		memcpy(buf, stage + sizeof(rpb), (size_t)c - sizeof(rpb));
		break;
	case PACKED2:
		MPI_Recv(stage, n + 2, MPI_PACKED, peer, 0, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &c);
		memcpy(&rpb, stage, 2);
		memcpy(buf, stage + 2, (size_t)c - 2);
		break;
	case SHADOW:
		MPI_Recv(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
		MPI_Recv(&rpb, sizeof(rpb), MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, shadow, MPI_STATUS_IGNORE);
		break;
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_dup(MPI_COMM_WORLD, &shadow);
	int max = argc > 1 ? atoi(argv[1]) : 1 << 20;
	int min = argc > 2 ? atoi(argv[2]) : 8;
	int fac = argc > 3 ? atoi(argv[3]) : 4;
	if (min < 1 || fac < 2 || max < min) {
		if (!r)
			fprintf(stderr, "usage: bench_mpi_designs [MAX [MIN [FACTOR]]]\n");
		MPI_Finalize();
		return 2;
	}
	char *buf = malloc((size_t)max);
	memset(buf, 1, (size_t)max);
	stage = malloc((size_t)max + 64);
	if (!r) {
		printf("%10s", "bytes");
		for (int s = 0; s < NS; s++)
			printf(" %11s", names[s]);
		printf("   (one-way us, best batch)\n");
	}
	for (long nl = min; nl <= max; nl *= fac) {
		int n = (int)nl;
		/* The designs interleaved batch by batch, each keeping its best
		 * short batch: on a shared machine (and a VM whose CPUs the host
		 * moves) they see the same conditions. */
		int it = n <= 4096 ? 100 : n <= 65536 ? 20 : 2;
		int reps = n <= 65536 ? 300 : 40;
		double best[NS];
		for (int s = 0; s < NS; s++)
			best[s] = 1e9;
		MPI_Barrier(MPI_COMM_WORLD);
		for (int rep = 0; rep < reps; rep++) {
			for (int s = 0; s < NS; s++) {
				double t0 = MPI_Wtime();
				for (int i = 0; i < it && r < 2; i++) {
					if (!r) {
						xsend(s, buf, n, 1);
						xrecv(s, buf, n, 1);
					} else {
						xrecv(s, buf, n, 0);
						xsend(s, buf, n, 0);
					}
				}
				double t = (MPI_Wtime() - t0) / it / 2 * 1e6; /* rank 0: round trips */
				if (t < best[s])
					best[s] = t;
			}
		}
		if (!r) {
			printf("%10d", n);
			for (int s = 0; s < NS; s++)
				printf(" %11.3f", best[s]);
			printf("\n");
		}
	}
	MPI_Finalize();
	return 0;
}
