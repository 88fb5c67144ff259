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

void hp_mpi_calibrate(void)
{
	struct hp_mt *mt = hp_mt_tls;
	if (!mt)
		return;
	uint64_t x0 = *mt->x, o0 = *mt->o;
	double ns[BATCHES];
	hp_mpi.wrap_cyc = 0;

	/* 1. the bookkeeping of one wrapped call */
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t = hp_rdtsc();
		for (int i = 0; i < PER_BATCH; i++) {
			struct hp_call c;
			if (!hp_call_enter(&c, HP_FN_MPI_Send, &fake_site))
				return;
			hp_call_t1(&c);
			hp_call_t2(&c);
			hp_call_leave(&c);
		}
		ns[b] = (double)(hp_rdtsc() - t) / PER_BATCH * hp_mpi.ns_per_cyc;
	}
	struct hp_dist wrap = dist(ns, BATCHES);
	hp_mpi.wrap_cyc = (uint64_t)(wrap.median * hp_mpi.cyc_per_ns + 0.5);
	hp_mpi.cal.wrap_ns = wrap.median;

	/* 2. one piggyback by packed copy: an 8-byte message, both sides */
	char data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
	char stage[HP_PB_FULL + 8];
	struct hp_pb pb, in;
	MPI_Status st;
	memset(&st, 0, sizeof(st));
	uint32_t pbs = hp_mpi.pb_size ? hp_mpi.pb_size : (uint32_t)HP_PB_BASE;
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t = hp_rdtsc();
		for (int i = 0; i < PER_BATCH; i++) {
			memcpy(stage + pbs, data, sizeof(data));
			uint64_t now = hp_rdtsc();
			hp_pb_fill(mt, &pb, now, 0);
			memcpy(stage, &pb, pbs);
			__asm__ volatile("" ::: "memory");
			PMPI_Status_set_elements(&st, MPI_BYTE, (int)(pbs + sizeof(data)));
			int n = 0;
			PMPI_Get_count(&st, MPI_BYTE, &n);
			memcpy(&in, stage, pbs);
			memcpy(out, stage + pbs, (size_t)n - pbs);
			PMPI_Status_set_elements(&st, MPI_BYTE, n - (int)pbs);
			struct hp_comp k;
			hp_comp_begin(&k, (int64_t)now, (int64_t)*mt->x);
			hp_comp_msg(&k, (int64_t)in.send_tsc, hp_ns_to_cyc(in.delay_ns));
			__asm__ volatile("" : : "r"(hp_comp_delay(&k)) : "memory");
		}
		ns[b] = (double)(hp_rdtsc() - t) / PER_BATCH * hp_mpi.ns_per_cyc;
	}
	struct hp_dist packed = dist(ns, BATCHES);
	hp_mpi.cal.pack_ns = packed.median;

	/* 3. the struct datatype: found in the per-thread cache, and built anew */
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t = hp_rdtsc();
		for (int i = 0; i < PER_BATCH; i++) {
			int owned;
			MPI_Datatype s = hp_pb_struct(mt, &pb, data, 8, MPI_BYTE, 1, &owned);
			__asm__ volatile("" : : "r"(s) : "memory");
		}
		ns[b] = (double)(hp_rdtsc() - t) / PER_BATCH * hp_mpi.ns_per_cyc;
	}
	hp_mpi.cal.struct_ns = dist(ns, BATCHES).median;
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t = hp_rdtsc();
		for (int i = 0; i < PER_BATCH / 10; i++) {
			int owned;
			MPI_Datatype s = hp_pb_struct(mt, &pb, data, 8, MPI_BYTE, 0, &owned);
			if (s != MPI_DATATYPE_NULL)
				PMPI_Type_free(&s);
		}
		ns[b] = (double)(hp_rdtsc() - t) / (PER_BATCH / 10) * hp_mpi.ns_per_cyc;
	}
	hp_mpi.cal.struct_new_ns = dist(ns, BATCHES).median;

	/* the calibration is not the program's: forget what it recorded */
	memset(mt->sites, 0, sizeof(struct hp_site) * (HP_SITES + 1));
	memset(mt->speers, 0, sizeof(struct hp_speer) * HP_SPEERS);
	memset(mt->colls, 0, sizeof(struct hp_collstat) * HP_COLLS);
	memset(&mt->tot, 0, sizeof(mt->tot));
	mt->sites_full = mt->speers_full = mt->colls_full = 0;
	*mt->x = x0;
	*mt->o = o0;
	if (hp_mpi.pb_on)
		hp_calib.piggyback = packed;
}
