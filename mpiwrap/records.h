/* mpiwrap/records.h - the records of hyprof's MPI sections (docs/mpi.md).
 *
 * Written by libhyprof_mpi.so (section.c, merge.c) and read by the tools
 * (tools/view_mpi.c), so this header needs neither MPI nor the runtime.
 * Little-endian, fixed sizes; times in nanoseconds.
 *
 *   HP_SEC_MPI        kv block: this process's MPI summary (keys in docs/mpi.md)
 *   HP_SEC_MPI_SITES  struct hp_mpi_sites_hdr, then nsites hp_mpi_site_rec,
 *                     npeers hp_mpi_peer_rec, ncolls hp_mpi_coll_rec,
 *                     nmat hp_mpi_mat_rec, nfuncs hp_mpi_func_rec
 *   HP_SEC_MPI_RANKS  (merged files) u32 count, then per rank u32 length and
 *                     a kv block with the keys of HP_SEC_MPI
 *
 * A record whose `rank` is -1 sums several ranks (merged files).  Readers
 * use the sizes in the header, so records may grow at their end.
 */
#ifndef HYPROF_MPIWRAP_RECORDS_H
#define HYPROF_MPIWRAP_RECORDS_H

#include <stdint.h>

#define HP_MPI_SITES_VERSION 1u
#define HP_MPI_SITE_DEPTH 8 /* return addresses kept per call site */
#define HP_MPI_FN_LEN 32    /* "MPI_Reduce_scatter_block" + NUL fits */

struct hp_mpi_sites_hdr {
	uint32_t version;
	uint32_t site_size, peer_size, coll_size, mat_size, func_size;
	uint32_t nsites, npeers, ncolls, nmat, nfuncs;
	uint32_t flags;       /* 1 = merged over ranks */
};

/* 1 if the five record arrays that `h` announces lie within a section of
 * `len` bytes (header included) and it is this version.  Each array is
 * checked against what is left, one at a time: the sum of the five
 * count * size products can wrap 64 bits (4 x 2^31 x 2^31), and a count
 * with size 0 would fit any section however large the count, making a
 * reader loop 2^32 times over nothing. */
static inline int hp_mpi_sites_fit(const struct hp_mpi_sites_hdr *h, uint64_t len)
{
	const uint32_t n[5] = {h->nsites, h->npeers, h->ncolls, h->nmat, h->nfuncs};
	const uint32_t size[5] = {h->site_size, h->peer_size, h->coll_size, h->mat_size,
				  h->func_size};
	if (h->version != HP_MPI_SITES_VERSION || len < sizeof(*h))
		return 0;
	uint64_t left = len - sizeof(*h);
	for (int i = 0; i < 5; i++) {
		uint64_t bytes = (uint64_t)n[i] * size[i];
		if ((n[i] && !size[i]) || bytes > left)
			return 0;
		left -= bytes;
	}
	return 1;
}

/* One call site of one MPI function: the call path (return addresses, the
 * caller's first) plus the probe context when probes run. */
struct hp_mpi_site_rec {
	uint64_t key;         /* hash of (function, call site, probe context) */
	uint64_t path[HP_MPI_SITE_DEPTH]; /* path[0]: return address into the caller */
	char fn[HP_MPI_FN_LEN];
	uint32_t depth;       /* entries of path in use */
	uint32_t ctx;         /* probe-tree node of the caller, 0xffffffff if none */
	int32_t rank;         /* -1: summed over ranks */
	uint32_t thread;      /* thread index in the process, 0xffffffff if summed */
	uint64_t calls;
	uint64_t bytes;       /* user bytes sent or received by these calls */
	uint64_t time_ns;     /* inside the calls */
	uint64_t wait_raw_ns; /* waiting for the partner, as measured */
	uint64_t wait_comp_ns;/* the same after parallel compensation */
	uint64_t max_ns;      /* the longest call */
	uint32_t nranks;      /* ranks whose calls these are (0 in older files: unknown) */
	uint32_t reserved;
};

/* Messages of one call site with one peer (world ranks). */
struct hp_mpi_peer_rec {
	uint64_t site;        /* hp_mpi_site_rec.key */
	int32_t peer;         /* world rank of the partner */
	uint32_t dir;         /* 0 sent, 1 received */
	uint64_t msgs, bytes;
	uint64_t time_ns, wait_raw_ns, wait_comp_ns;
	int32_t rank;
	uint32_t thread;
};

/* One collective on communicators of one size. */
struct hp_mpi_coll_rec {
	char fn[HP_MPI_FN_LEN];
	uint32_t comm_size;
	int32_t rank;
	uint64_t calls, bytes;
	uint64_t time_ns, wait_raw_ns, wait_comp_ns;
};

/* Traffic from one world rank to another: as sent, and what one-sided
 * calls of `to` fetched from `from`. */
struct hp_mpi_mat_rec {
	int32_t from, to;
	uint64_t msgs, bytes;
};

/* Per-function time over ranks (merged files): the function's entry
 * address in the merged file's address space, its sampled self and total
 * time, minimum, sum and maximum over the ranks and where the extremes are. */
struct hp_mpi_func_rec {
	uint64_t addr;
	uint32_t nranks;      /* ranks where the function was seen */
	uint32_t flags;       /* 2 = sampled time; 4 = in the sample source's unit,
			       * not seconds (a hardware event) */
	double self_min, self_sum, self_max;
	double total_min, total_sum, total_max;
	int32_t self_min_rank, self_max_rank, total_min_rank, total_max_rank;
};

/* Totals of one thread or process (cycles unless said). */
struct hp_mpi_totals {
	uint64_t calls;
	uint64_t time_cyc;    /* inside MPI */
	uint64_t wait_raw, wait_comp;
	uint64_t reordered;   /* wildcard receives whose order compensation would change */
	uint64_t pb_msgs;     /* messages sent with a piggyback */
	uint64_t pb_recv;     /* piggybacks applied */
	uint64_t pb_cyc;      /* cycles of piggyback work and collective exchanges */
	uint64_t wrap_cyc;    /* cycles of the wrappers' bookkeeping */
	uint64_t packed, structs; /* messages sent by each scheme */
	uint64_t xchg;        /* collective delay exchanges */
	uint64_t cancelled;
	uint64_t untracked;   /* completions of requests the wrappers did not see posted */
	uint64_t req_overflow;/* requests kept outside the lock-free table */
	uint64_t orphans;     /* requests freed by the user before completion */
	uint64_t other_world; /* calls on communicators reaching another MPI world (no
	                       * piggyback, no delay exchange: uncompensated) */
};

/* Calibrated at MPI_Init (ns, medians). */
struct hp_mpi_calib {
	double wrap_ns;       /* one wrapper's bookkeeping */
	double pack_ns;       /* piggyback by packed copy of an 8-byte message */
	double struct_ns;     /* piggyback by a cached struct datatype */
	double struct_new_ns; /* piggyback by a new struct datatype */
};

#endif
