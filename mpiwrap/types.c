/* mpiwrap/types.c - datatype facts, piggyback struct datatypes, buffers.
 *
 * The piggyback travels in front of the user's data (pb.h).  Two ways:
 *  - packed copy: piggyback and data copied into one contiguous buffer and
 *    sent as MPI_PACKED, which matches any type on the other side (MPI 3.1
 *    section 3.3.1); used for contiguous data up to hp_mpi.pack_max bytes;
 *  - struct datatype: {pb_size bytes at the slot, count x type at buf} with
 *    absolute addresses, sent from MPI_BOTTOM: no copy of the user's data.
 * Both put the same bytes on the wire, so each side chooses by itself.
 * Committed struct types are cached per thread by (slot, buf, count, type):
 * a loop that sends from the same buffer builds its type once.  Datatype
 * handles can be reused after MPI_Type_free, which bumps hp_mpi.type_epoch
 * and so empties every cache.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/mpiwrap.h"

/* Whether t's typemap is its memory in order: a predefined type, or a
 * duplicate or contiguous repetition of one.  Size == extent == true
 * extent is not enough: an indexed type {int at 4, int at 0} fills its
 * memory exactly but puts it on the wire in another order, and a plain
 * copy would reorder the data.  Anything else counts as not contiguous
 * (the struct datatype or MPI_Pack then carry it: always correct). */
static int memory_order(MPI_Datatype t, int depth)
{
	int ni = 0, na = 0, nd = 0, comb = 0;
	if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return 0;
	if (comb == MPI_COMBINER_NAMED)
		return 1;
	if (depth > 16 || (comb != MPI_COMBINER_DUP && comb != MPI_COMBINER_CONTIGUOUS) || ni > 1 ||
	    na != 0 || nd != 1)
		return 0;
	int ints[1];
	MPI_Aint addrs[1];
	MPI_Datatype inner = MPI_DATATYPE_NULL;
	if (PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &inner) != MPI_SUCCESS)
		return 0;
	int r = memory_order(inner, depth + 1);
	/* get_contents returns new handles for derived types (MPI 3.1 4.1.13) */
	int ni2, na2, nd2, comb2;
	if (PMPI_Type_get_envelope(inner, &ni2, &na2, &nd2, &comb2) == MPI_SUCCESS &&
	    comb2 != MPI_COMBINER_NAMED)
		PMPI_Type_free(&inner);
	return r;
}

const struct hp_typeinfo *hp_typeinfo_fill(struct hp_typeinfo *ti, MPI_Datatype t, uint64_t epoch)
{
	ti->type = t;
	ti->epoch = epoch;
	/* _x: a type of more than 2 GB (a large-count call's, bigcount.c) has
	 * no int size (MPI_Type_size says MPI_UNDEFINED) */
	MPI_Count size = 0;
	MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
	if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size == MPI_UNDEFINED ||
	    PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS) {
		/* an invalid type: let MPI report it in the call itself */
		ti->size = 0;
		ti->extent = 0;
		ti->contig = 0;
		ti->type = MPI_DATATYPE_NULL;
		return ti;
	}
	ti->size = size;
	ti->extent = extent;
	/* data of count elements is the bytes [buf, buf + count * size).  A
	 * type over INT_MAX bytes counts as not contiguous without asking its
	 * envelope (MPICH wants MPI_Type_get_envelope_c for a large-count
	 * type, and an error here would be fatal): the struct type carries it */
	int ni = 0, na = 0, nd = 0, comb = 0;
	ti->named = size <= INT_MAX && PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
		    comb == MPI_COMBINER_NAMED;
	ti->contig = size > 0 && size <= INT_MAX && lb == 0 && tlb == 0 && extent == size && textent == size &&
		     (ti->named || memory_order(t, 0));
	return ti;
}

/* ---- datatypes that pending requests use --------------------------------------
 * MPI lets a program free a datatype while a non-blocking operation that
 * uses it is pending (it "will complete normally", MPI 3.1 section 4.1.9),
 * and keeps the type alive for its own requests.  A packed receive is an
 * MPI_PACKED request to MPI, yet unpacks into the user's type at its
 * completion; a persistent request's packed copy packs at each start: such
 * a request pins its type (a count per type), and MPI_Type_free of a pinned
 * type is deferred until the last pin goes (the program's handle becomes
 * MPI_DATATYPE_NULL at once, as with a free).  Few types are pinned at a
 * time: a short array searched under a lock. */
struct pin {
	MPI_Datatype t;
	int n;        /* requests pinning it */
	int deferred; /* the program freed it: free at the last unpin */
};
static struct pin *pins;
static int npins, cap_pins;
static pthread_mutex_t pins_lock = PTHREAD_MUTEX_INITIALIZER;

static int pin_find(MPI_Datatype t)
{
	for (int i = 0; i < npins; i++)
		if (pins[i].t == t)
			return i;
	return -1;
}

int hp_type_pin(struct hp_mt *mt, MPI_Datatype t)
{
	if (t == MPI_DATATYPE_NULL || hp_typeinfo(mt, t)->named)
		return 0;
	int ok = 1;
	pthread_mutex_lock(&pins_lock);
	int i = pin_find(t);
	if (i < 0) {
		pins = hp_grow(pins, npins, &cap_pins, 16, sizeof(*pins));
		if (npins < cap_pins) {
			i = npins++;
			pins[i].t = t;
			pins[i].n = 0;
			pins[i].deferred = 0;
		} else {
			ok = 0;
		}
	}
	if (ok)
		pins[i].n++;
	pthread_mutex_unlock(&pins_lock);
	return ok;
}

void hp_type_unpin(MPI_Datatype t)
{
	MPI_Datatype dead = MPI_DATATYPE_NULL;
	pthread_mutex_lock(&pins_lock);
	int i = pin_find(t);
	if (i >= 0 && --pins[i].n <= 0) {
		if (pins[i].deferred)
			dead = t;
		pins[i] = pins[--npins];
	}
	pthread_mutex_unlock(&pins_lock);
	if (dead != MPI_DATATYPE_NULL) {
		PMPI_Type_free(&dead);
		hp_types_forget(); /* the handle may come back */
	}
}

int hp_type_free_deferred(MPI_Datatype *t)
{
	int deferred = 0;
	pthread_mutex_lock(&pins_lock);
	int i = npins ? pin_find(*t) : -1;
	if (i >= 0 && pins[i].n > 0 && !pins[i].deferred) {
		pins[i].deferred = 1;
		deferred = 1;
	}
	pthread_mutex_unlock(&pins_lock);
	if (deferred)
		*t = MPI_DATATYPE_NULL;
	return deferred;
}

static MPI_Datatype build(const void *slot, const void *buf, int count, MPI_Datatype type)
{
	int bl[2] = {(int)hp_mpi.pb_size, count};
	MPI_Aint d[2];
	MPI_Datatype ty[2] = {MPI_BYTE, type};
	MPI_Datatype st = MPI_DATATYPE_NULL;
	PMPI_Get_address(slot, &d[0]);
	/* MPI_BOTTOM is a valid user buffer (absolute addresses in the type) */
	if (buf == MPI_BOTTOM)
		d[1] = 0;
	else
		PMPI_Get_address(buf, &d[1]);
	if (PMPI_Type_create_struct(2, bl, d, ty, &st) != MPI_SUCCESS)
		return MPI_DATATYPE_NULL;
	if (PMPI_Type_commit(&st) != MPI_SUCCESS) {
		PMPI_Type_free(&st);
		return MPI_DATATYPE_NULL;
	}
	return st;
}

MPI_Datatype hp_pb_struct(struct hp_mt *mt, const void *slot, const void *buf, int count,
			  MPI_Datatype type, int cache, int *owned, int *built)
{
	*owned = 0;
	*built = 1;
	if (!cache) {
		*owned = 1;
		return build(slot, buf, count, type);
	}
	uint64_t epoch = __atomic_load_n(&hp_mpi.type_epoch, __ATOMIC_RELAXED);
	uint32_t h = hp_ptr_hash((uintptr_t)buf ^ ((uintptr_t)slot << 7) ^ (uintptr_t)type ^ (uintptr_t)count);
	struct hp_structtype *e = &mt->sts[h % HP_STRUCTCACHE];
	if (e->st != MPI_DATATYPE_NULL && e->buf == buf && e->slot == slot && e->count == count &&
	    e->type == type && e->epoch == epoch && e->pb_size == hp_mpi.pb_size) {
		*built = 0;
		return e->st;
	}
	/* evict: freeing a type that a pending request still uses is allowed,
	 * the communication completes normally (MPI 3.1 section 4.1.9) */
	if (e->st != MPI_DATATYPE_NULL)
		PMPI_Type_free(&e->st);
	e->st = build(slot, buf, count, type);
	e->buf = buf;
	e->slot = slot;
	e->count = count;
	e->type = type;
	e->epoch = epoch;
	e->pb_size = hp_mpi.pb_size;
	return e->st;
}

void hp_types_forget(void)
{
	__atomic_add_fetch(&hp_mpi.type_epoch, 1, __ATOMIC_RELAXED);
}

/* MPI_Type_free of t by the program: a cached struct type built on t holds
 * a reference to it (MPI_Type_create_struct), so t would live on, and its
 * attributes' delete callbacks would not run, until the entry happened to
 * be evicted.  Drop this thread's entries that use t (a pending request
 * that uses one keeps it alive, MPI 3.1 section 4.1.9); another thread's
 * entry goes when its slot is next used (the epoch check fails). */
void hp_types_evict(struct hp_mt *mt, MPI_Datatype t)
{
	if (!mt || t == MPI_DATATYPE_NULL)
		return;
	for (int i = 0; i < HP_STRUCTCACHE; i++)
		if (mt->sts[i].st != MPI_DATATYPE_NULL && mt->sts[i].type == t)
			PMPI_Type_free(&mt->sts[i].st);
}

void hp_type_free_own(MPI_Datatype *t)
{
	PMPI_Type_free(t);
	hp_types_forget();
}

void hp_types_release(void)
{
	for (struct hp_mt *mt = hp_mpi.threads; mt; mt = mt->next)
		for (int i = 0; i < HP_STRUCTCACHE; i++)
			if (mt->sts[i].st != MPI_DATATYPE_NULL)
				PMPI_Type_free(&mt->sts[i].st);
}

char *hp_stage_grow(struct hp_mt *mt, int which, size_t n)
{
	if (n <= mt->stage_cap[which])
		return mt->stage[which];
	size_t cap = mt->stage_cap[which] ? mt->stage_cap[which] : 256;
	while (cap < n)
		cap *= 2;
	char *p = realloc(mt->stage[which], cap);
	if (!p)
		return NULL;
	mt->stage[which] = p;
	mt->stage_cap[which] = cap;
	return p;
}

void *hp_scratch(struct hp_mt *mt, size_t n)
{
	if (n <= mt->scratch_cap)
		return mt->scratch;
	size_t cap = mt->scratch_cap ? mt->scratch_cap : 1024;
	while (cap < n)
		cap *= 2;
	void *p = realloc(mt->scratch, cap);
	if (!p)
		return NULL;
	mt->scratch = p;
	mt->scratch_cap = cap;
	return p;
}
