/* mpiwrap/mpiwrap.h - internals of libhyprof_mpi.so shared by its files.
 *
 * The generated wrappers (build/mpiwrap/wrappers.c, from wrappers.w) call
 * hp_call_enter(), one class function per kind of MPI call (p2p.c,
 * complete.c, coll.c, comm.c, init.c) and hp_call_leave().  Per-thread state
 * is one struct hp_mt per thread that calls MPI, in this library's TLS;
 * process state is struct hp_mpi.  Tables have a fixed size chosen at
 * MPI_Init: nothing grows with run time (ALGORITHMS.md section 5).
 *
 * Wrappers run in the thread that called MPI, never in a signal handler;
 * the section writers (section.c) are the only code called from a signal
 * handler and only read these tables.
 */
#ifndef HYPROF_MPIWRAP_MPIWRAP_H
#define HYPROF_MPIWRAP_MPIWRAP_H

#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/comp.h"
#include "mpiwrap/fn.h" /* generated: enum hp_mpi_fn, hp_mpi_fn_names[] */
#include "mpiwrap/pb.h"
#include "mpiwrap/records.h"
#include "mpiwrap/reqtab.h"
#include "runtime/state.h"

#define HP_MPI_API __attribute__((visibility("default")))
#define HP_LIKELY(x) __builtin_expect(!!(x), 1)
#define HP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- sizes ------------------------------------------------------------ */
#define HP_SITES 512          /* call sites per thread (power of 2) */
#define HP_SPEERS 4096        /* (site, peer) records per thread (power of 2) */
#define HP_COLLS 256          /* (collective, communicator size) per thread */
#define HP_SITE_DEPTH 8       /* return addresses kept per site */
#define HP_TYPECACHE 32       /* datatype facts cached per thread */
#define HP_STRUCTCACHE 16     /* piggyback struct datatypes cached per thread */
#define HP_REORDER 32         /* wildcard-receive trackers per thread */
/* Per-thread memos: sets of 2 entries (a new one goes first, the first one
 * second), so two hot sites whose keys share a set do not evict each other
 * at every call, as they did in a direct-mapped memo (which entry a site
 * got depended on its return address and function id: +116 instructions
 * per message in one build of the same ping-pong).  Entries, powers of 2. */
#define HP_SITE_MEMO 32       /* call sites */
#define HP_SPEER_MEMO 16      /* (site, peer, direction) records */

/* ---- per-thread state ------------------------------------------------- */
/* In memory the statistics are in cycles; section.c converts to ns. */
struct hp_site {
	uint64_t key;                /* 0 = empty */
	uint64_t path[HP_MPI_SITE_DEPTH]; /* immutable once the key is set */
	uint32_t depth, fn, ctx;
	uint64_t calls, bytes, cyc, wait_raw, wait_comp, max_cyc;
	struct hp_speer *last[2];    /* the peer record used last, per direction */
};

struct hp_speer {
	uint64_t key;                /* hash of (site key, peer, dir); 0 = empty */
	uint64_t site;
	int32_t peer;
	uint32_t dir;
	uint64_t msgs, bytes, cyc, wait_raw, wait_comp;
};

struct hp_collstat {
	uint64_t key;                /* (fn, comm size) + 1; 0 = empty */
	uint32_t fn, comm_size;
	uint64_t calls, bytes, cyc, wait_raw, wait_comp;
};

#define HP_MAT_COLS 6            /* per peer: sent msgs, sent bytes, received msgs, received bytes,
                                  * msgs and bytes fetched from it by one-sided calls */

struct hp_typeinfo {             /* facts about a datatype, cached */
	MPI_Datatype type;
	uint64_t epoch;
	int64_t size;                /* MPI_Type_size */
	int64_t extent;
	int contig;                  /* size == extent == true extent, lb == 0 */
	int named;                   /* predefined (MPI_COMBINER_NAMED): never freed */
};

struct hp_structtype {           /* {piggyback slot, count x type at buf} */
	const void *buf;
	const void *slot;
	MPI_Datatype type;
	int count;
	uint64_t epoch;
	MPI_Datatype st;             /* committed, MPI_DATATYPE_NULL if empty */
	uint32_t pb_size;
};

struct hp_reorder_slot {
	uintptr_t comm;
	int tag;
	int used;
	struct hp_reorder r;
};

struct hp_site_memo {           /* a call site found recently */
	uintptr_t ra;
	uint32_t fn, ctx;
	struct hp_site *site;
};

struct hp_speer_memo {          /* a (site, peer, direction) record found recently */
	uint64_t site;
	int peer, dir;
	struct hp_speer *p;
};

struct hp_mt {
	struct hp_thread *t;         /* the runtime's thread (NULL if none) */
	uint64_t *x, *o;             /* delay x_p and overhead o_p (cycles) */
	uint64_t own_x, own_o;       /* used when there is no runtime thread */
	int depth;                   /* wrapper nesting: inner calls pass through */
	uint32_t index;              /* creation order, 0 = first thread in MPI */
	int tid;

	struct hp_site *sites;       /* HP_SITES + 1, [HP_SITES] = "[other]" when full */
	struct hp_speer *speers;     /* HP_SPEERS */
	struct hp_collstat *colls;   /* HP_COLLS */
	uint64_t *mat;               /* world size x HP_MAT_COLS */
	uint64_t sites_full, speers_full, colls_full;

	struct hp_pb pb_s, pb_r;     /* piggyback slots of blocking calls */
	char *stage[2];              /* packed copies of blocking calls: send, receive */
	size_t stage_cap[2];
	struct hp_typeinfo ti[HP_TYPECACHE];
	struct hp_structtype sts[HP_STRUCTCACHE];
	struct hp_reorder_slot ro[HP_REORDER];
	struct hp_site_memo memo[HP_SITE_MEMO]; /* recent call sites (stats.c) */
	struct hp_speer_memo pmemo[HP_SPEER_MEMO]; /* recent peer records (stats.c) */
	uintptr_t comm_key;          /* the communicator used last, and its entry */
	uint64_t comm_epoch;
	const struct hp_comm *comm_last;
	void *scratch;               /* request/status arrays of Waitall & co. */
	size_t scratch_cap;

	struct hp_mpi_totals tot;
	struct hp_mt *next;          /* hp_mpi.threads list */
	struct hp_mt *free_next;     /* exited threads' states (init.c) */
	/* issue 6: the wrapped call in progress (set by hp_call_enter, stale
	 * after hp_call_leave): the critical path's callbacks read its entry
	 * time t1, and charge their cost to it */
	struct hp_call *call;
};

/* ---- process state ---------------------------------------------------- */
struct hp_mpi {
	int active;                  /* between MPI_Init and MPI_Finalize */
	int initialized;             /* MPI_Init done (stays 1 after Finalize) */
	int comp;                    /* HP_COMP_* in effect on every rank */
	int fold;                    /* comp != none: the samples' cost joins o_p and x_p */
	int pb_on;                   /* messages carry a piggyback */
	int foreign;                 /* a communicator reaches another world: some carry none */
	uint32_t pb_size;            /* its bytes on the wire */
	int pb_compact;              /* tiny messages carry the compact form (pb.h) */
	size_t pack_max;             /* packed copy up to this many user bytes */
	int clock_ok;                /* this node's TSC is one clock for its ranks */
	int rank, size;              /* in MPI_COMM_WORLD */
	int thread_level;            /* provided */
	uint64_t node;               /* this node's id */
	uint64_t *nodes;             /* node id per world rank */
	double tsc_hz, ns_per_cyc, cyc_per_ns;
	uint64_t wrap_cyc;           /* calibrated bookkeeping of one wrapper call */
	uint64_t type_epoch;         /* bumped by MPI_Type_free */
	uint64_t comm_epoch;         /* bumped by MPI_Comm_free */
	uint64_t t_start;            /* TSC at library load */
	uint64_t t_init0, t_init1;   /* TSC around MPI_Init */
	uint64_t o_init;             /* o_p of the MPI_Init thread when MPI_Init returned */
	uint64_t init_cyc;           /* our set-up in MPI_Init (calibration, agreement) */
	uint64_t t_fin;              /* TSC when MPI_Finalize began */
	uint64_t merge_ns;           /* the merge's cost at finalize */
	uint32_t merge_levels;
	const struct hp_pb_ext *ext; /* piggyback extension (issue 6) */
	struct hp_mt *threads;       /* every thread that called MPI */
	uint32_t nthreads;
	struct hp_mpi_calib cal;     /* piggyback schemes measured at MPI_Init */
	/* the piggyback's CPU work per message, calibrated (cycles): charged
	 * to o_p and x_p instead of reading the TSC around each piece */
	uint64_t pbc_send, pbc_recv;     /* packed copy, without the copy itself */
	double pbc_byte;                 /* the copy, per byte */
	uint64_t pbc_struct_send, pbc_struct_recv, pbc_struct_new;
	uint64_t pbc_req;                /* remembering a request and finding it again */
	void *user_bsend;            /* the buffer the user attached, and its size */
	int user_bsend_size;
	void *own_bsend;             /* the larger buffer attached instead */
};

extern struct hp_mpi hp_mpi;

/* The calling thread's state, created on first use (not signal-safe).
 * NULL only when memory ran out. */
struct hp_mt *hp_mt_get(void);
extern __thread struct hp_mt *hp_mt_tls;

/* ---- one wrapped call ------------------------------------------------- */
struct hp_call {
	struct hp_mt *mt;
	uint32_t fn;                 /* enum hp_mpi_fn */
	void *ra;                    /* the call site */
	uint64_t t0;                 /* TSC at entry */
	uint64_t t1, t2;             /* the call began (= t0), the PMPI call ended (0: not yet) */
	uint64_t extra;              /* cycles inside t1..t2 that are measurement */
	uint64_t bytes;              /* user bytes moved by this call */
	int peer;                    /* world rank of the peer, -1 if none or many */
	int64_t wait_raw, wait_comp; /* cycles */
	struct hp_site *site;
};

/* The sampler's cost joins the overhead o_p and the delay x_p, as the
 * probes' and the wrappers' do: a sample delays the process as much as a
 * probe does (ALGORITHMS.md section 4 counts all measurement).  The signal
 * handler only adds to its thread's comp_cycles (handler time plus the
 * calibrated kernel part per signal); the thread itself moves the new part
 * into o_p and x_p, at the entry of each wrapped call and at its leave
 * (hp_call_leave()), so the rules' read-modify-write of x_p never races
 * with a handler.  Up to `absorbed` cycles of the new part stay out of x_p:
 * at a leave, the call's raw wait (a sample that came while the call
 * waited for its partner delayed nothing). */
static inline void hp_sampler_fold(struct hp_mt *mt, uint64_t absorbed)
{
	struct hp_thread *t = mt->t;
	if (!t || !hp_mpi.fold)
		return;
	uint64_t now = __atomic_load_n(&t->comp_cycles, __ATOMIC_RELAXED);
	uint64_t d = now - t->comp_folded;
	if (d) {
		t->comp_folded = now;
		*mt->o += d;
		*mt->x += d > absorbed ? d - absorbed : 0;
	}
}

/* The MPI_X after hyprof's in the lookup order: another PMPI tool's, else
 * PMPI_X (next.c).  HP_NEXT(MPI_X) resolves it once per function into
 * hp_next_MPI_X (wrappers.c); every thread that races the first call
 * stores the same value. */
void *hp_mpi_next(const char *name, void *pmpi);
#define HP_NEXT(name) \
	(__extension__({ \
		__typeof__(&P##name) hp_n_ = __atomic_load_n(&hp_next_##name, __ATOMIC_RELAXED); \
		if (HP_UNLIKELY(!hp_n_)) { \
			hp_n_ = (__typeof__(&P##name))hp_mpi_next(#name, (void *)P##name); \
			__atomic_store_n(&hp_next_##name, hp_n_, __ATOMIC_RELAXED); \
		} \
		hp_n_; \
	}))

/* Enter a wrapper: returns 0 when the call must just be passed to PMPI
 * (MPI not initialised by us, or a nested call), 1 otherwise. */
static inline int hp_call_enter(struct hp_call *c, uint32_t fn, void *ra)
{
	struct hp_mt *mt = hp_mt_tls;
	if (HP_UNLIKELY(!mt)) {
		if (!hp_mpi.active)
			return 0;
		mt = hp_mt_get();
		if (!mt)
			return 0;
	}
	if (HP_UNLIKELY(mt->depth) || HP_UNLIKELY(!hp_mpi.active))
		return 0;
	mt->depth = 1;
	mt->call = c; /* issue 6 */
	c->mt = mt;
	hp_sampler_fold(mt, 0);
	c->fn = fn;
	c->ra = ra;
	c->t1 = c->t0 = hp_rdtsc();
	c->t2 = 0;
	c->extra = 0;
	c->bytes = 0;
	c->peer = -1;
	c->wait_raw = c->wait_comp = 0;
	c->site = NULL;
	return 1;
}

/* A wrapped call reads the TSC twice: at entry (t0, also the time the call
 * began for the rule, t1 = t0) and right after the PMPI call (t2).  The
 * piggyback's work around the PMPI call is charged from its calibrated
 * cost (calibrate.c) instead of more TSC reads, which cost tens of ns each
 * on a VM. */
static inline void hp_call_t2(struct hp_call *c) { c->t2 = hp_rdtsc(); }

/* A large-count collective (wrappers.w) goes through its int-count twin's
 * wrapper when its counts fit an int; else straight to MPI (no piggyback
 * travels with a collective's data), timed as a plain call. */
#define HP_FITS_INT(x) ((x) >= INT_MIN && (x) <= INT_MAX)
static inline int hp_call_pass(struct hp_call *c, int rc)
{
	hp_call_t2(c);
	return rc;
}

/* Leave: record the call in its site (and peer), charge the wrapper's own
 * cost to o_p and x_p.  Defined in stats.c. */
void hp_call_leave(struct hp_call *c);

/* Add measurement cycles spent now to o_p and x_p. */
static inline void hp_charge(struct hp_mt *mt, uint64_t cyc)
{
	*mt->o += cyc;
	*mt->x += cyc;
}

/* Piggyback work of this call, charged at hp_call_leave(). */
static inline void hp_charge_pb(struct hp_call *c, uint64_t cyc)
{
	c->extra += cyc;
	c->mt->tot.pb_cyc += cyc;
}
static inline uint64_t hp_pbc_packed(uint64_t fixed, uint64_t bytes)
{
	return fixed + (uint64_t)(hp_mpi.pbc_byte * (double)bytes);
}

/* ---- stats.c ---------------------------------------------------------- */
/* The call's site record (created at its first call).  A site found
 * recently is answered from the thread's memo, inline, without hashing
 * (a site never moves); hp_site_find() does the rest. */
struct hp_site *hp_site_find(struct hp_call *c, uint32_t ctx, struct hp_site_memo *m);
static inline uint32_t hp_ptr_hash(uintptr_t p);
static inline struct hp_site *hp_site_get(struct hp_call *c)
{
	struct hp_mt *mt = c->mt;
	uint32_t ctx = mt->t ? mt->t->probe_cur : 0xffffffffu;
	uint32_t set = hp_ptr_hash((uintptr_t)c->ra ^ (uintptr_t)c->fn) & (HP_SITE_MEMO / 2 - 1);
	struct hp_site_memo *m = &mt->memo[2 * set];
	for (int w = 0; w < 2; w++)
		if (HP_LIKELY(m[w].ra == (uintptr_t)c->ra && m[w].fn == c->fn && m[w].ctx == ctx && m[w].site))
			return c->site = m[w].site;
	return hp_site_find(c, ctx, m);
}
/* Record a message to/from world rank `peer` (matrix and the site's peer
 * record).  dir 0 = sent, 1 = received. */
void hp_peer_add(struct hp_mt *mt, uint64_t site_key, int peer, int dir, uint64_t msgs,
		 uint64_t bytes, int64_t cyc, int64_t wait_raw, int64_t wait_comp);
/* The same for a site of this thread, remembering its last peer record. */
void hp_site_peer_add(struct hp_mt *mt, struct hp_site *s, int peer, int dir, uint64_t msgs,
		      uint64_t bytes, int64_t cyc, int64_t wait_raw, int64_t wait_comp);
/* Data this rank's one-sided call fetched from world rank `peer`: the
 * matrix's row of that peer (which made no call to record it). */
void hp_mat_fetched(struct hp_mt *mt, int peer, uint64_t msgs, uint64_t bytes);
/* Bytes received by a request posted at `origin` (possibly another thread's site). */
void hp_site_add_bytes(struct hp_mt *mt, const struct hp_site *origin, uint64_t bytes);
void hp_coll_add(struct hp_mt *mt, uint32_t fn, int comm_size, uint64_t bytes, int64_t cyc,
		 int64_t wait_raw, int64_t wait_comp);
uint64_t hp_site_key(uint32_t fn, uintptr_t ra, uint32_t ctx);

/* ---- datatypes (types.c) ---------------------------------------------- */
/* Empty the per-thread type caches, whose keys are handle values MPI may
 * reuse once a type is freed. */
void hp_types_forget(void);
void hp_types_evict(struct hp_mt *mt, MPI_Datatype t);
/* Free a datatype hyprof made from a user's one (bigcount.c), and forget. */
void hp_type_free_own(MPI_Datatype *t);

static inline uint32_t hp_ptr_hash(uintptr_t p)
{
	uint64_t x = (uint64_t)p * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(x >> 40);
}
/* Facts about t, from the calling thread's cache (a miss asks MPI). */
const struct hp_typeinfo *hp_typeinfo_fill(struct hp_typeinfo *ti, MPI_Datatype t, uint64_t epoch);
static inline const struct hp_typeinfo *hp_typeinfo(struct hp_mt *mt, MPI_Datatype t)
{
	uint64_t epoch = __atomic_load_n(&hp_mpi.type_epoch, __ATOMIC_RELAXED);
	struct hp_typeinfo *ti = &mt->ti[hp_ptr_hash((uintptr_t)t) % HP_TYPECACHE];
	if (HP_LIKELY(ti->type == t && ti->epoch == epoch && ti->size >= 0))
		return ti;
	return hp_typeinfo_fill(ti, t, epoch);
}
/* The bytes of count elements of type t (0 for no elements or no type). */
static inline uint64_t hp_type_bytes(struct hp_mt *mt, int count, MPI_Datatype t)
{
	return count > 0 && t != MPI_DATATYPE_NULL ? (uint64_t)count * (uint64_t)hp_typeinfo(mt, t)->size : 0;
}
/* A growing array a of n elements of elem bytes in *cap slots: when full,
 * doubled (first: its first size).  Returns the array to use; the caller
 * has room for one more when n < *cap afterwards (not when out of memory:
 * the array is left as it was).  For the runtime's few tables that grow
 * with what the program makes (windows, pinned types, messages of another
 * world), never with run time. */
static inline void *hp_grow(void *a, int n, int *cap, int first, size_t elem)
{
	if (n < *cap)
		return a;
	int c = *cap ? 2 * *cap : first;
	void *p = realloc(a, elem * (size_t)c);
	if (!p)
		return a;
	*cap = c;
	return p;
}
/* A committed struct {pb slot (pb_size bytes), count x type at buf} with
 * absolute addresses (use with MPI_BOTTOM).  Cached when `cache`; returns
 * MPI_DATATYPE_NULL on failure.  *owned = 1 when the caller must free it;
 * *built = 1 when it was made now (not found in the cache). */
MPI_Datatype hp_pb_struct(struct hp_mt *mt, const void *slot, const void *buf, int count,
			  MPI_Datatype type, int cache, int *owned, int *built);
/* A datatype that a request uses after the call (a packed receive unpacks
 * into it at completion, a persistent packed send packs from it at each
 * start) is pinned by the request: MPI_Type_free of a pinned type is
 * deferred until the last such request lets go (types.c).  hp_type_pin
 * returns 1 when it pinned t (a derived type), 0 when t needs no pin
 * (predefined) or could not be pinned (no memory: then, as before, such a
 * request needs the program to keep its type). */
int hp_type_pin(struct hp_mt *mt, MPI_Datatype t);
void hp_type_unpin(MPI_Datatype t);
/* MPI_Type_free's wrapper: 1 when t is pinned (its free deferred, *t set to
 * MPI_DATATYPE_NULL as a free would), 0 when it must be freed now. */
int hp_type_free_deferred(MPI_Datatype *t);
/* At MPI_Finalize: free every thread's cached struct types (MPICH reports
 * a datatype still allocated at its finalize as a leak, on stderr). */
void hp_types_release(void);
/* At MPI_Finalize: free the delay exchange's datatype and operations. */
void hp_coll_release(void);
/* The delay exchange of a symmetric collective on comm, after a call that
 * is one without being MPI's collective (MPI_Win_fence), and its
 * statistics per communicator size (coll.c). */
void hp_coll_exchange_sym(struct hp_call *c, MPI_Comm comm);
/* One-sided windows (rma.c): a window created over comm, and forgotten. */
void hp_win_add(MPI_Win w, MPI_Comm comm);
void hp_win_forget(MPI_Win w);
/* The per-thread staging buffer `which` (0 send, 1 receive) of at least n
 * bytes; NULL when out of memory. */
char *hp_stage_grow(struct hp_mt *mt, int which, size_t n);
static inline char *hp_stage(struct hp_mt *mt, int which, size_t n)
{
	if (__builtin_expect(n <= mt->stage_cap[which], 1))
		return mt->stage[which];
	return hp_stage_grow(mt, which, n);
}
void *hp_scratch(struct hp_mt *mt, size_t n);

/* ---- communicators (comm.c) ------------------------------------------- */
struct hp_comm {
	uintptr_t key;               /* the handle's value; 0 empty */
	uint64_t epoch;
	int size, rank, inter, remote_size;
	int clock;                   /* every member shares this process's clock */
	int pb;                      /* messages on it carry the piggyback (comm.c) */
	int *world;                  /* rank (remote rank for intercomms) -> world rank */
	int dead;
};
/* The record of comm (described on first use), NULL for MPI_COMM_NULL or
 * when it cannot be described.  The calling thread's last communicator is
 * answered inline, unless one was freed since. */
const struct hp_comm *hp_comm_lookup(struct hp_mt *mt, MPI_Comm comm);
static inline const struct hp_comm *hp_comm_get(struct hp_mt *mt, MPI_Comm comm)
{
	if (HP_LIKELY(mt && mt->comm_key == (uintptr_t)comm && mt->comm_last &&
		      mt->comm_epoch == __atomic_load_n(&hp_mpi.comm_epoch, __ATOMIC_RELAXED)))
		return mt->comm_last;
	return hp_comm_lookup(mt, comm);
}
static inline int hp_comm_world(const struct hp_comm *cm, int r)
{
	return cm && r >= 0 && r < (cm->inter ? cm->remote_size : cm->size) ? cm->world[r] : -1;
}
void hp_comm_forget(MPI_Comm comm);
/* Whether messages on comm carry the piggyback: compensation is on and
 * every member belongs to this MPI_COMM_WORLD (comm.c).  *cm gets the
 * communicator's record (NULL when it cannot be described). */
static inline int hp_comm_pb(struct hp_mt *mt, MPI_Comm comm, const struct hp_comm **cm)
{
	*cm = hp_comm_get(mt, comm);
	return *cm ? (*cm)->pb : hp_mpi.pb_on && !__atomic_load_n(&hp_mpi.foreign, __ATOMIC_ACQUIRE);
}
/* Count a call on a communicator that carries no piggyback although
 * compensation is on (it reaches another world): reported as uncompensated. */
static inline void hp_note_other_world(struct hp_mt *mt, const struct hp_comm *cm)
{
	if (HP_UNLIKELY(hp_mpi.pb_on && cm && !cm->pb))
		mt->tot.other_world++;
}
static inline int hp_comm_carries_pb(struct hp_mt *mt, MPI_Comm comm)
{
	const struct hp_comm *cm;
	return hp_comm_pb(mt, comm, &cm);
}
int hp_comm_init(void);

/* ---- piggyback (p2p.c) ------------------------------------------------- */
/* Fill an outgoing piggyback: the delay now (x_p plus `pre` cycles of this
 * call's own work so far) and the send time. */
void hp_pb_fill(struct hp_mt *mt, struct hp_pb *pb, uint64_t now, uint64_t pre);
/* Do this process and world rank src share a clock (same node, TSC)? */
static inline int hp_pb_same_clock(int src_world)
{
	return hp_mpi.clock_ok && src_world >= 0 && src_world < hp_mpi.size &&
	       hp_mpi.nodes[src_world] == hp_mpi.node;
}
/* A wildcard receive on (comm, tag) matched a message from src_world whose
 * approximated send time was `approx_send`: count it if the order differs. */
void hp_reorder_note(struct hp_mt *mt, uintptr_t comm, int tag, int src_world, int64_t approx_send);
/* Remove the piggyback's bytes from a status's count.  Returns the user
 * bytes received. */
uint64_t hp_status_fix(MPI_Status *st);
/* `bytes` of data at src to the user's receive buffer of type dt, at most
 * `cap` bytes (a non-contiguous type through MPI_Unpack). */
void hp_copy_out(struct hp_mt *mt, void *ubuf, MPI_Datatype dt, const char *src, uint64_t bytes,
		 uint64_t cap);
/* Complete requests the user freed while active (MPI_Request_free):
 * copy packed data to the user's buffer, free our resources. */
void hp_orphans_poll(struct hp_mt *mt);
extern int hp_orphans_pending; /* atomic: orphans exist somewhere */

/* ---- requests (complete.c) --------------------------------------------- */
/* Give back a request object no longer in the table, with what it owns:
 * its struct datatype, a large-count call's type, an Isendrecv's send half
 * (MPI keeps a type in use by pending communication: MPI 3.1 4.1.9). */
void hp_req_done(struct hp_req *r);
/* After a call that posted request `req` with result rc: remember r under
 * it with the call's site, or give r back when nothing was posted.  Inline:
 * every non-blocking post and the collectives' exchanges pass here. */
static inline __attribute__((always_inline)) void hp_req_track(struct hp_call *c, struct hp_req *r, int rc,
								  MPI_Request req)
{
	if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) {
		struct hp_site *s = hp_site_get(c);
		r->site_key = s->key;
		r->site_meta = s;
		if (hp_req_insert(hp_req_key(req), r))
			c->mt->tot.req_overflow++;
	} else {
		hp_req_done(r);
	}
}

/* Called after a PMPI completion call: process the entries claimed before
 * it, in the order of `done` (indices into ents/statuses). */
struct hp_compl {
	struct hp_comp comp;         /* the rule for the whole call */
	int64_t last_s;              /* send time of the critical message */
	int crit_peer;
	int nmsg;
};
void hp_complete_begin(struct hp_call *c, struct hp_compl *k);
void hp_complete_one(struct hp_call *c, struct hp_compl *k, struct hp_req *e, MPI_Status *st);
void hp_complete_end(struct hp_call *c, struct hp_compl *k);

/* ---- init.c / calibrate.c / merge.c / section.c ------------------------ */
int hp_sections_register(void);
int hp_merge_at_finalize(void);
/* Measure the wrappers' bookkeeping and the piggyback's cost (MPI_Init). */
void hp_mpi_calibrate(void);
/* Totals over every thread. */
void hp_mpi_summary(struct hp_mpi_totals *sum);
/* The per-rank values of the report, in seconds (frozen at MPI_Finalize). */
struct hp_mpi_rankvals {
	double wall_raw, wall_local, wall_parallel, wait_raw, wait_comp;
	double overhead, delay, mpi_time, pb_cost, wrap_cost;
	struct hp_mpi_totals t;
};
void hp_mpi_rank_values(struct hp_mpi_rankvals *v);
/* The kv block of HP_SEC_MPI for these values (section.c).  Signal-safe. */
struct hp_writer;
int hp_mpi_write_kv(struct hp_writer *w, const struct hp_mpi_rankvals *v, int rank, int pid,
		    uint64_t sites_full);

/* Bytes received according to a status, and setting them (what the user's
 * MPI_Get_count then reads).  Open MPI 4 keeps the byte count in the
 * status itself (_ucount): read and written directly, two calls fewer per
 * message; any other MPI goes through the API. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
static inline int64_t hp_status_bytes(const MPI_Status *st)
{
	return st->_ucount > (size_t)INT64_MAX ? MPI_UNDEFINED : (int64_t)st->_ucount;
}
static inline void hp_status_set_bytes(MPI_Status *st, int64_t n)
{
	st->_ucount = (size_t)n;
}
#else
static inline int64_t hp_status_bytes(const MPI_Status *st)
{
	MPI_Count n = MPI_UNDEFINED;
	PMPI_Get_elements_x(st, MPI_BYTE, &n);
	return (int64_t)n;
}
static inline void hp_status_set_bytes(MPI_Status *st, int64_t n)
{
	PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)n);
}
#endif

/* Units. */
static inline int64_t hp_cyc_to_ns(int64_t c) { return (int64_t)((double)c * hp_mpi.ns_per_cyc); }

/* The piggyback's size in front of `user` bytes (pb.h: compact form). */
static inline uint32_t hp_pb_hdr(uint64_t user)
{
	return hp_mpi.pb_compact && user <= HP_PB_COMPACT_MAX ? (uint32_t)HP_PB_COMPACT : hp_mpi.pb_size;
}

/* A message of n bytes on the wire: its user bytes, with the piggyback's
 * size in *hdr; -1 when it cannot carry one (a sender without hyprof, an
 * empty message, MPI_UNDEFINED). */
static inline int64_t hp_pb_split(int64_t n, uint32_t *hdr)
{
	if (n == MPI_UNDEFINED || n < 0)
		return -1;
	if (hp_mpi.pb_compact && n >= HP_PB_COMPACT && n <= HP_PB_COMPACT + HP_PB_COMPACT_MAX) {
		*hdr = HP_PB_COMPACT;
		return n - HP_PB_COMPACT;
	}
	uint32_t min = hp_mpi.pb_size + (hp_mpi.pb_compact ? HP_PB_COMPACT_MAX + 1 : 0);
	if (n < (int64_t)min)
		return -1;
	*hdr = hp_mpi.pb_size;
	return n - hp_mpi.pb_size;
}

/* Write the piggyback's `hdr` bytes on the wire at dst, or read them from
 * src (the compact form: the delay only, no send time).  src may be pb. */
static inline void hp_pb_put(void *dst, const struct hp_pb *pb, uint32_t hdr)
{
	if (hdr == HP_PB_COMPACT) {
		uint16_t code = hp_pb_code16(pb->delay_ns);
		memcpy(dst, &code, sizeof(code));
	} else {
		memcpy(dst, pb, hdr);
	}
}

static inline void hp_pb_get(struct hp_pb *pb, const void *src, uint32_t hdr)
{
	if (hdr == HP_PB_COMPACT) {
		uint16_t code;
		memcpy(&code, src, sizeof(code));
		pb->delay_ns = hp_pb_uncode16(code);
		pb->send_tsc = 0;
	} else if ((const void *)pb != src) {
		memcpy(pb, src, hdr);
	}
}
static inline int64_t hp_ns_to_cyc(int64_t n) { return (int64_t)((double)n * hp_mpi.cyc_per_ns); }

/* Fortran. */
#define HP_F_TRUE 1

#endif
