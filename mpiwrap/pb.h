/* mpiwrap/pb.h - the piggyback every wrapped message carries.
 *
 * One piggyback per message, of a fixed size agreed by every rank at
 * MPI_Init.  Today it carries the sender's delay for parallel compensation
 * (ALGORITHMS.md section 4) and the send time; the critical-path profiler
 * (issue 6, ALGORITHMS.md section 6) extends it through struct hp_pb_ext
 * below instead of sending a second piggyback.
 *
 * On the wire the piggyback comes first, then the user's data: a receive
 * buffer larger than the message still gets the piggyback at offset 0 and
 * the data right after it, so the two sides never need to agree on the
 * user's counts (docs/mpi.md, "Piggyback").  Only the first hp_mpi.pb_size
 * bytes of the struct are sent: HP_PB_BASE when nothing extends it, the
 * whole struct when an extension is registered.
 */
#ifndef HYPROF_MPIWRAP_PB_H
#define HYPROF_MPIWRAP_PB_H

#include <stddef.h>
#include <stdint.h>

/* critical-path slots carried (issue 6): a share and a zeroing length for
 * each of up to 32 functions; point to point sends only the slots in use
 * (hp_pb_ext.size) */
#define HP_PB_NSHARE 64

struct hp_pb {
	/* parallel compensation */
	int64_t delay_ns;  /* sender's delay x_s when the message left, ns */
	uint64_t send_tsc; /* sender's TSC when the message left */
	/* critical path (issue 6): filled by the registered extension */
	int64_t cp_len_ns;
	int64_t cp_share_ns[HP_PB_NSHARE];
	/* issue 6: control words of the extension used only in the collective
	 * exchange (beyond hp_pb_ext.size, never sent point to point) */
	int64_t cp_coll[2];
};

#define HP_PB_BASE offsetof(struct hp_pb, cp_len_ns) /* 16 bytes */
#define HP_PB_FULL sizeof(struct hp_pb)

/* The compact piggyback of tiny messages.  A message of at most
 * HP_PB_COMPACT_MAX user bytes carries only its sender's delay, in
 * HP_PB_COMPACT bytes (hp_pb_code16), when the piggyback is the delay alone
 * (no extension): 16 more bytes would take an 8-byte message off the MPI
 * library's fastest path (Open MPI's shared-memory fast box holds 10 bytes of
 * payload: 8 B one-way 390 ns, 16 B 485 ns, bench/mpi/RESULTS.md), which
 * alone costs more than the whole piggyback's 10 % latency budget.  The
 * send time is then unknown (0): the receiver applies the rule with its own
 * completion time, as it does across nodes.  The header's size follows from
 * the user's size, so a receiver (or MPI_Probe) tells the two forms apart by
 * the message's length alone: n <= HP_PB_COMPACT + HP_PB_COMPACT_MAX is
 * compact, n >= HP_PB_BASE + HP_PB_COMPACT_MAX + 1 is whole, anything in
 * between carries no piggyback (hp_pb_split() in mpiwrap.h). */
#define HP_PB_COMPACT 2
#define HP_PB_COMPACT_MAX 8

/* 16-bit code of a delay in ns >= 0: exponent e (6 bits) and mantissa m
 * (10 bits), value m << e; exact below 1024 ns, else m in [512, 1023]
 * rounded to nearest: relative error at most 1/1024 (0.1 %), any int64
 * delay representable.  Pure. */
static inline uint16_t hp_pb_code16(int64_t ns)
{
	if (ns <= 0)
		return 0;
	uint64_t v = (uint64_t)ns;
	if (v < 1024)
		return (uint16_t)v;
	int e = 63 - __builtin_clzll(v) - 9; /* v >> e in [512, 1023] */
	uint64_t m = (v + (1ull << (e - 1))) >> e;
	if (m == 1024) {
		m = 512;
		e++;
	}
	return (uint16_t)((unsigned)e << 10 | (unsigned)m);
}

static inline int64_t hp_pb_uncode16(uint16_t c)
{
	unsigned e = c >> 10, m = c & 1023u;
	return e > 53 ? INT64_MAX : (int64_t)((uint64_t)m << e);
}

/* An extension of the piggyback (the critical-path profiler).  Callbacks
 * run inside the wrappers, on the thread making the MPI call, never in a
 * signal handler; they must not call MPI.
 *   send:    fill the extension fields of an outgoing piggyback (p2p send,
 *            start of a persistent send).
 *   recv:    a message carrying `pb` completed on this thread (receive,
 *            Wait/Test).  src_world is the sender's rank in MPI_COMM_WORLD.
 *   coll_in / coll_out: a collective on a communicator of `size` members:
 *            coll_in fills this process's contribution, coll_out receives
 *            the combination of all contributions (the wrappers combine
 *            with `combine`, an associative and commutative operation).
 *   combine: inout = combine(in, inout), both full piggybacks. */
struct hp_pb_ext {
	void (*send)(struct hp_pb *pb);
	void (*recv)(const struct hp_pb *pb, int src_world);
	void (*coll_in)(struct hp_pb *pb);
	void (*coll_out)(const struct hp_pb *pb);
	void (*combine)(const struct hp_pb *in, struct hp_pb *inout);
	/* issue 6 (additive):
	 *   size:    bytes of struct hp_pb sent point to point (a prefix;
	 *            HP_PB_BASE < size <= HP_PB_FULL), 0 = HP_PB_FULL.
	 *   init:    MPI_Init's set-up is done (wrappers on, calibrated); runs
	 *            on the thread that called MPI_Init when every rank agreed
	 *            on the piggyback (hp_mpi.pb_on), and may call PMPI
	 *            collectives on MPI_COMM_WORLD (every rank runs it).
	 *   fini:    MPI_Finalize began (before the merge); same rules. */
	uint32_t size;
	void (*init)(void);
	void (*fini)(void);
};

/* Register the extension before MPI_Init returns (a constructor is the
 * place).  Returns 0, or -EBUSY when one is registered already or MPI is
 * initialized. */
int hp_pb_ext_register(const struct hp_pb_ext *ext);

#endif
