/* mpiwrap/reqtab.h - what the wrappers remember about each MPI request.
 *
 * A non-blocking or persistent operation posted through the wrappers gets a
 * struct hp_req: its piggyback slot (sent from, or received into), how the
 * piggyback travels (packed copy or struct datatype), and what the
 * statistics need at completion.  The completion calls find it again by the
 * request handle in one process-wide table:
 *
 *  - open addressing, fixed capacity (a power of two), linear probing of at
 *    most HP_REQ_PROBE slots, slots never return to empty (tombstones are
 *    reused by inserts), so a lookup stops at the first empty slot;
 *  - lock-free: inserts claim a slot with a compare-and-swap on its key;
 *    a completion call claims the entry with a compare-and-swap of the key
 *    to a "claimed" value, and either releases the slot (request finished)
 *    or puts the key back (Test that did not complete).  A claimed entry is
 *    invisible to lookups, so when MPI reuses a handle value that another
 *    thread is still retiring, the new request is found, not the old one;
 *  - when no slot is free within HP_REQ_PROBE, the entry goes to a small
 *    list under a mutex (counted: never on the hot path in practice).
 *
 * struct hp_req objects come from per-thread pools; a thread completing
 * another thread's request returns the object to the owner's lock-free
 * return stack.  An exited thread's pool passes to the next thread that
 * needs one.  Nothing here calls MPI.
 *
 * Thread-safe: every function.  Not signal-safe.
 */
#ifndef HYPROF_MPIWRAP_REQTAB_H
#define HYPROF_MPIWRAP_REQTAB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpiwrap/pb.h"

#define HP_REQ_PROBE 64
#define HP_REQ_INLINE 256 /* user bytes staged inside the object */

enum hp_req_kind {
	HP_RQ_SEND = 1, /* Isend & co. */
	HP_RQ_RECV,     /* Irecv, Imrecv */
	HP_RQ_PSEND,    /* persistent send (Send_init & co.) */
	HP_RQ_PRECV,    /* persistent receive */
	HP_RQ_COLL,     /* non-blocking collective with its delay exchange */
};

enum hp_req_scheme {
	HP_SCH_NONE,    /* no piggyback (compensation off, MPI_PROC_NULL) */
	HP_SCH_PACKED,  /* piggyback and data copied into `stage` */
	HP_SCH_STRUCT,  /* struct datatype {pb, user data} */
};

struct hp_reqpool;

struct hp_req {
	struct hp_reqpool *pool;     /* owner */
	struct hp_req *next;         /* free lists */
	uint8_t kind, scheme, any_source, active;
	uint8_t delivered;           /* receive: this activation's message was taken in
	                              * (packed: data and piggyback copied out of `stage`)
	                              * by MPI_Request_get_status; the completion must
	                              * not copy again nor count it twice */
	uint8_t upin;                /* utype is pinned (hp_type_pin): unpinned when the
	                              * object is given back */
	int tag;                     /* as posted (may be MPI_ANY_TAG) */
	int peer;                    /* as posted, communicator rank (may be ANY_SOURCE) */
	MPI_Comm comm;
	const int *world;            /* comm's ranks -> world ranks, kept from the post:
	                              * valid after MPI_Comm_free (comm.c never frees a
	                              * table), when the handle can no longer be asked */
	int nworld;                  /* entries of world (0: unknown) */
	void *ubuf;                  /* packed receive: where the data goes */
	int ucount;
	MPI_Datatype utype;
	MPI_Datatype st;             /* struct scheme: the datatype */
	int st_owned;                /* st must be freed with the request */
	char *stage;                 /* packed scheme: pb + data */
	size_t stage_cap;            /* bytes of stage (inline or allocated) */
	int posted;                  /* packed receive: bytes posted into stage */
	char *heap_stage;            /* allocated stage kept across reuses */
	size_t heap_cap;
	uint64_t site_key;           /* the posting call site */
	const void *site_meta;       /* struct hp_site of the posting thread (immutable part) */
	uint64_t bytes;              /* user bytes (send: posted; receive: capacity) */
	/* HP_RQ_COLL: the delay exchange started beside the user's collective
	 * (coll.c), completed with it: max over the members that count of
	 * {initiation time, initiation time - delay} */
	MPI_Request xreq;
	int64_t xin[2], xout[2];
	int xjoin;                   /* this member joins the result (its completion waits for them) */
	int xbcast;                  /* the exchange is the root's broadcast: the result is in xin */
	/* a neighbourhood exchange: its in-neighbours' {s, s - x}, ucount
	 * pairs, are in stage (INT64_MIN where none came); stage is NULL for
	 * the other kinds of collective (the fields of a packed receive,
	 * reused: the object stays the size it was) */
	/* MPI_Isendrecv(_replace) with a piggyback: the receive half is this
	 * object (the user's request is its MPI_Irecv), the send half (staging
	 * buffer or struct type, piggyback slot) is `half`, not in the table,
	 * given back with this one, and half_req is its MPI_Isend (complete.c:
	 * the user's request completes when both have) */
	struct hp_req *half;
	MPI_Request half_req;
	/* a large-count call's contiguous type standing for count x utype
	 * (bigcount.c), freed with the request */
	MPI_Datatype big;
	struct hp_pb pb;             /* sent from / received into */
	char inl[HP_PB_FULL + HP_REQ_INLINE] __attribute__((aligned(16)));
};

/* Set up the table with `cap` slots (rounded up to a power of two).
 * Returns 0 or -ENOMEM.  Not thread-safe (MPI_Init). */
int hp_reqtab_init(uint32_t cap);
void hp_reqtab_fini(void);

/* At MPI_Init: whether a piggyback extension is registered (a fresh
 * object's whole slot is zeroed then, else only its base part). */
void hp_req_clear_ext(int ext);
/* A fresh object from the calling thread's pool (NULL: out of memory). */
struct hp_req *hp_req_alloc(void);
/* Give an object back (any thread). */
void hp_req_free(struct hp_req *r);
/* n bytes of staging that live with the object: inside it, or allocated
 * and kept across its reuses (NULL: out of memory); inline, as it is on
 * every non-blocking message's path. */
char *hp_req_stage_heap(struct hp_req *r, size_t n);
static inline char *hp_req_stage(struct hp_req *r, size_t n)
{
	if (n <= sizeof(r->inl))
		return r->inl;
	if (n > r->heap_cap)
		return hp_req_stage_heap(r, n);
	return r->heap_stage;
}

/* Remember `r` under handle value `key` (never 0).  Returns 1 if it went to
 * the overflow list, 0 otherwise. */
/* The table's key of a request handle: a pointer (Open MPI) or a 32-bit
 * integer (MPICH and its derivatives), whose negative values must not be
 * sign-extended into the key's reserved top bit. */
static inline uintptr_t hp_req_key(MPI_Request req)
{
	if (sizeof(req) == sizeof(uint32_t)) {
		uint32_t v;
		memcpy(&v, &req, sizeof(v));
		return (uintptr_t)v;
	}
	uintptr_t v = 0;
	memcpy(&v, &req, sizeof(req) < sizeof(v) ? sizeof(req) : sizeof(v));
	return v;
}

int hp_req_insert(uintptr_t key, struct hp_req *r);

/* A claimed entry: where it sits, so it can be released or put back. */
struct hp_req_claim {
	struct hp_req *r;            /* NULL: not found */
	void *slot;                  /* table slot, or overflow node */
	uintptr_t key;
};
/* Find and claim the entry of `key`.  Returns 1 if found. */
int hp_req_claim(uintptr_t key, struct hp_req_claim *c);
/* The request finished: forget it (the object is not freed). */
void hp_req_release(struct hp_req_claim *c);
/* The request is still pending (or persistent and inactive): put it back. */
void hp_req_unclaim(struct hp_req_claim *c);

/* Statistics for the report and the tests. */
struct hp_reqtab_stats {
	uint32_t cap;
	uint64_t inserts, overflow, live_max;
	uint64_t probes_max;
};
void hp_reqtab_stats(struct hp_reqtab_stats *s);

/* World rank of rank r of the request's communicator; -1 if unknown. */
static inline int hp_req_world(const struct hp_req *q, int r)
{
	return q->world && r >= 0 && r < q->nworld ? q->world[r] : -1;
}

#endif
