/* mpiwrap/calibrate.c - what one wrapper and one piggyback cost.
 *
 * At MPI_Init, before the program's first wrapped call: the bookkeeping of
 * a wrapped call (enter, site lookup, statistics, leave) around nothing,
 * and the CPU work of one piggyback for each way it travels (ALGORITHMS.md
 * section 3: "the cost of one piggyback").  Each is timed in batches with
 * the TSC; the median batch gives the value, min and p10..p90 the spread.
 * The bookkeeping cost is charged to o_p and x_p at every wrapped call; the
 * piggyback work is timed at each message (its median is reported here and
 * in hp_calib.piggyback).  Extra bytes on the wire are not CPU work and are
 * measured by bench/mpi, not here.
 *
 * Runs in the thread that called MPI_Init.  Not signal-safe.
 */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

#define BATCHES 15
#define PER_BATCH 200

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct hp_dist dist(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	struct hp_dist d = {.min = v[0], .median = v[n / 2], .spread = v[(n * 9) / 10] - v[n / 10],
			    .n = (uint32_t)n};
	return d;
}

static char fake_site; /* the calibration's own call site */

static int null_send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
	(void)buf, (void)count, (void)t, (void)dest, (void)tag, (void)comm;
	__asm__ volatile("" ::: "memory");
	return MPI_SUCCESS;
}

/* Time `body` PER_BATCH times per batch, BATCHES batches: median ns. */
#define MEASURE(out, per, ...)                                                        \
	do {                                                                          \
		double v_[BATCHES];                                                   \
		for (int b_ = 0; b_ < BATCHES; b_++) {                                \
			uint64_t t_ = hp_rdtsc();                                     \
			for (int i_ = 0; i_ < (per); i_++) {                          \
				__VA_ARGS__;                                          \
			}                                                             \
			v_[b_] = (double)(hp_rdtsc() - t_) / (per) * hp_mpi.ns_per_cyc; \
		}                                                                     \
		out = dist(v_, BATCHES);                                              \
	} while (0)

static inline uint64_t cyc(double ns)
{
	return ns > 0 ? (uint64_t)(ns * hp_mpi.cyc_per_ns + 0.5) : 0;
}

void hp_mpi_calibrate(void)
{
	struct hp_mt *mt = hp_mt_tls;
	if (!mt)
		return;
	uint64_t x0 = *mt->x, o0 = *mt->o;
	hp_mpi.wrap_cyc = 0;
	struct hp_dist d;

	/* 1. the bookkeeping of one wrapped call: a send through its class
	 * function (datatype, communicator, call site, peer, matrix), to an
	 * MPI that does nothing, without piggyback */
	int pb_on = hp_mpi.pb_on;
	hp_mpi.pb_on = 0;
	int sink = 0;
	MEASURE(d, PER_BATCH, {
		struct hp_call c;
		if (!hp_call_enter(&c, HP_FN_MPI_Send, &fake_site))
			break;
		hp_w_send(&c, null_send, &sink, 1, MPI_INT, hp_mpi.size > 1 ? 1 : 0, 0, MPI_COMM_WORLD);
		hp_call_leave(&c);
	});
	hp_mpi.pb_on = pb_on;
	hp_mpi.wrap_cyc = cyc(d.median);
	hp_mpi.cal.wrap_ns = d.median;

	/* 2. the piggyback by packed copy of an 8-byte message, each side */
	char data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
	uint32_t pbs = hp_mpi.pb_size ? hp_mpi.pb_size : (uint32_t)HP_PB_BASE;
	struct hp_pb pb, in;
	MPI_Status st;
	memset(&st, 0, sizeof(st));
	char *stage = hp_stage(mt, 0, HP_PB_FULL + HP_MPI_PACK_MAX_DEFAULT);
	if (!stage)
		return;
	struct hp_dist send, recv, copy;
	MEASURE(send, PER_BATCH, {
		memcpy(stage + pbs, data, sizeof(data));
		hp_pb_fill(mt, &pb, hp_mpi.t_init0, 0);
		memcpy(stage, &pb, pbs);
		__asm__ volatile("" ::: "memory");
	});
	hp_status_set_bytes(&st, (int)(pbs + sizeof(data)));
	MEASURE(recv, PER_BATCH, {
		int n = hp_status_bytes(&st);
		memcpy(&in, stage, pbs);
		memcpy(out, stage + pbs, (size_t)n - pbs);
		hp_status_set_bytes(&st, n - (int)pbs);
		struct hp_comp k;
		hp_comp_begin(&k, (int64_t)hp_mpi.t_init0, (int64_t)*mt->x);
		hp_comp_msg(&k, hp_pb_same_clock(0) ? (int64_t)in.send_tsc : (int64_t)hp_mpi.t_init0,
			    hp_ns_to_cyc(in.delay_ns));
		__asm__ volatile("" : : "r"(hp_comp_delay(&k)) : "memory");
		hp_status_set_bytes(&st, n);
	});
	/* the copy itself, per byte, on a buffer of the largest packed size */
	static char big[HP_MPI_PACK_MAX_DEFAULT];
	MEASURE(copy, PER_BATCH / 10, {
		memcpy(stage + pbs, big, sizeof(big));
		__asm__ volatile("" ::: "memory");
	});
	hp_mpi.pbc_send = cyc(send.median);
	hp_mpi.pbc_recv = cyc(recv.median);
	hp_mpi.pbc_byte = copy.median * hp_mpi.cyc_per_ns / (double)sizeof(big);
	hp_mpi.cal.pack_ns = send.median + recv.median;

	/* 3. the struct datatype: found in the per-thread cache; built anew */
	struct hp_dist ssend, snew;
	MEASURE(ssend, PER_BATCH, {
		int owned, built;
		MPI_Datatype s = hp_pb_struct(mt, &pb, data, 8, MPI_BYTE, 1, &owned, &built);
		hp_pb_fill(mt, &pb, hp_mpi.t_init0, 0);
		__asm__ volatile("" : : "r"(s) : "memory");
	});
	MEASURE(snew, PER_BATCH / 10, {
		int owned, built;
		MPI_Datatype s = hp_pb_struct(mt, &pb, data, 8, MPI_BYTE, 0, &owned, &built);
		if (s != MPI_DATATYPE_NULL)
			PMPI_Type_free(&s);
	});
	hp_mpi.pbc_struct_send = cyc(ssend.median);
	/* the receiving side of a struct: the status and the rule, no copy */
	hp_mpi.pbc_struct_recv = hp_mpi.pbc_recv > cyc(copy.median * 8 / sizeof(big))
					 ? hp_mpi.pbc_recv - cyc(copy.median * 8 / sizeof(big))
					 : hp_mpi.pbc_recv;
	hp_mpi.pbc_struct_new = cyc(snew.median);
	hp_mpi.cal.struct_ns = ssend.median + (double)hp_mpi.pbc_struct_recv * hp_mpi.ns_per_cyc;
	hp_mpi.cal.struct_new_ns = hp_mpi.cal.struct_ns + snew.median;

	/* 4. remembering a request and finding it again */
	struct hp_dist req;
	MEASURE(req, PER_BATCH, {
		struct hp_req *r = hp_req_alloc();
		if (!r)
			break;
		uintptr_t key = (uintptr_t)r | 0x1000;
		hp_req_insert(key, r);
		struct hp_req_claim cl;
		if (hp_req_claim(key, &cl))
			hp_req_release(&cl);
		hp_req_free(r);
	});
	hp_mpi.pbc_req = cyc(req.median);

	/* the calibration is not the program's: forget what it recorded */
	memset(mt->sites, 0, sizeof(struct hp_site) * (HP_SITES + 1));
	memset(mt->memo, 0, sizeof(mt->memo));   /* they point into the tables */
	memset(mt->pmemo, 0, sizeof(mt->pmemo));
	memset(mt->speers, 0, sizeof(struct hp_speer) * HP_SPEERS);
	memset(mt->colls, 0, sizeof(struct hp_collstat) * HP_COLLS);
	memset(&mt->tot, 0, sizeof(mt->tot));
	if (mt->mat)
		memset(mt->mat, 0, sizeof(uint64_t) * HP_MAT_COLS * (size_t)hp_mpi.size);
	mt->sites_full = mt->speers_full = mt->colls_full = 0;
	*mt->x = x0;
	*mt->o = o0;
	if (hp_mpi.pb_on) {
		/* one piggyback, both sides, 8 bytes (ALGORITHMS.md section 3) */
		struct hp_dist one = send;
		one.min += recv.min;
		one.median += recv.median;
		one.spread += recv.spread;
		hp_calib.piggyback = one;
	}
}
