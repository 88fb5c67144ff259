/* mpiwrap/comm.c - communicators: rank translation and the clock they share.
 *
 * Statistics name peers by their rank in MPI_COMM_WORLD, so each
 * communicator the wrappers see gets a table from its ranks (the remote
 * group's for an intercommunicator) to world ranks, built once with
 * MPI_Group_translate_ranks.  It also records whether every member runs on
 * this node with a shared TSC (then send times can be compared, comp.h).
 *
 * One process-wide open-addressing table keyed by the handle value:
 * lookups are lock-free (entries are published with a release store and
 * never change afterwards), inserts take a mutex (communicators are created
 * rarely).  MPI_Comm_free and MPI_Comm_disconnect mark the entry dead, so
 * a handle value reused for a new communicator gets a new entry.
 * Communicators created by calls hyprof does not wrap are added on first
 * use.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/mpiwrap.h"

#define HP_COMMS 1024

static struct hp_comm comms[HP_COMMS];
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t comms_full;

static inline uint32_t comm_hash(uintptr_t k)
{
	return (uint32_t)(((uint64_t)k * 0x9e3779b97f4a7c15ull) >> 44);
}

static const struct hp_comm *find(uintptr_t key)
{
	uint32_t h = comm_hash(key);
	for (uint32_t i = 0; i < HP_COMMS; i++) {
		struct hp_comm *e = &comms[(h + i) % HP_COMMS];
		uintptr_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
		if (!k)
			return NULL;
		if (k == key && !__atomic_load_n(&e->dead, __ATOMIC_ACQUIRE))
			return e;
	}
	return NULL;
}

/* world[i] = the MPI_COMM_WORLD rank of comm's rank i in its remote group
 * (remote = 1, intercommunicators) or its group, -1 for a process of
 * another world (spawn, connect/accept).  Returns 0 or an MPI error. */
static int group_to_world(MPI_Comm comm, int remote, int n, int *world)
{
	if (comm == MPI_COMM_WORLD) {
		for (int i = 0; i < n; i++)
			world[i] = i;
		return MPI_SUCCESS;
	}
	int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!ranks)
		return MPI_ERR_NO_MEM;
	for (int i = 0; i < n; i++)
		ranks[i] = i;
	MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
	int rc = remote ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g);
	if (rc == MPI_SUCCESS)
		rc = PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	if (rc == MPI_SUCCESS)
		rc = PMPI_Group_translate_ranks(g, n, ranks, wg, world);
	if (g != MPI_GROUP_NULL)
		PMPI_Group_free(&g);
	if (wg != MPI_GROUP_NULL)
		PMPI_Group_free(&wg);
	free(ranks);
	for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
		if (world[i] == MPI_UNDEFINED)
			world[i] = -1;
	return rc;
}

static int all_in_world(const int *world, int n)
{
	for (int i = 0; i < n; i++)
		if (world[i] < 0)
			return 0;
	return 1;
}

/* Fill `e` for `comm` (world table, clock, piggyback).  Returns 0 or an
 * MPI error. */
static int describe(struct hp_comm *e, MPI_Comm comm)
{
	int inter = 0, size = 0, rank = 0, rsize = 0;
	int rc = PMPI_Comm_test_inter(comm, &inter);
	if (rc == MPI_SUCCESS)
		rc = PMPI_Comm_size(comm, &size);
	if (rc == MPI_SUCCESS)
		rc = PMPI_Comm_rank(comm, &rank);
	if (rc == MPI_SUCCESS && inter)
		rc = PMPI_Comm_remote_size(comm, &rsize);
	if (rc != MPI_SUCCESS)
		return rc;
	int n = inter ? rsize : size;
	int *world = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!world)
		return MPI_ERR_NO_MEM;
	rc = group_to_world(comm, inter, n, world);
	if (rc != MPI_SUCCESS) {
		free(world);
		return rc;
	}
	/* Messages on it carry the piggyback only when every member is a
	 * process of this MPI_COMM_WORLD, which agreed on it at MPI_Init: a
	 * communicator that reaches processes of another world (MPI_Comm_spawn,
	 * connect/accept, join, and whatever is built from those) carries
	 * the user's messages alone, as the other side, with or without
	 * hyprof, decides the same way.  An intercommunicator's local group
	 * is checked too (it may come from a merge with another world). */
	int pb = hp_mpi.pb_on && all_in_world(world, n);
	if (pb && inter) {
		int *local = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
		pb = local && group_to_world(comm, 0, size, local) == MPI_SUCCESS && all_in_world(local, size);
		free(local);
	}
	if (!pb && hp_mpi.pb_on)
		__atomic_store_n(&hp_mpi.foreign, 1, __ATOMIC_RELEASE);
	/* the clock is shared when every member is on this node */
	int clock = hp_mpi.clock_ok && !inter;
	for (int i = 0; clock && i < n; i++)
		clock = world[i] >= 0 && world[i] < hp_mpi.size && hp_mpi.nodes &&
			hp_mpi.nodes[world[i]] == hp_mpi.node;
	e->size = size;
	e->rank = rank;
	e->inter = inter;
	e->remote_size = rsize;
	e->world = world;
	e->clock = clock;
	e->pb = pb;
	e->dead = 0;
	return MPI_SUCCESS;
}

const struct hp_comm *hp_comm_lookup(struct hp_mt *mt, MPI_Comm comm)
{
	uintptr_t key = (uintptr_t)comm;
	if (comm == MPI_COMM_NULL || !key)
		return NULL;
	uint64_t epoch = __atomic_load_n(&hp_mpi.comm_epoch, __ATOMIC_RELAXED);
	const struct hp_comm *e = find(key);
	if (HP_LIKELY(e != NULL)) {
		if (mt) {
			mt->comm_key = key;
			mt->comm_epoch = epoch;
			mt->comm_last = e;
		}
		return e;
	}
	struct hp_comm tmp;
	memset(&tmp, 0, sizeof(tmp));
	if (describe(&tmp, comm) != MPI_SUCCESS)
		return NULL;
	pthread_mutex_lock(&comm_lock);
	const struct hp_comm *again = find(key);
	if (again) {
		pthread_mutex_unlock(&comm_lock);
		free(tmp.world);
		return again;
	}
	uint32_t h = comm_hash(key);
	struct hp_comm *slot = NULL;
	for (uint32_t i = 0; i < HP_COMMS && !slot; i++) {
		struct hp_comm *s = &comms[(h + i) % HP_COMMS];
		if (!s->key || s->dead)
			slot = s;
	}
	if (!slot) {
		comms_full++;
		pthread_mutex_unlock(&comm_lock);
		free(tmp.world);
		return NULL;
	}
	/* a dead slot is reused: its old world table is left allocated, since
	 * only an erroneous program could still be reading it */
	__atomic_store_n(&slot->dead, 1, __ATOMIC_RELEASE);
	slot->epoch = tmp.epoch;
	slot->size = tmp.size;
	slot->rank = tmp.rank;
	slot->inter = tmp.inter;
	slot->remote_size = tmp.remote_size;
	slot->clock = tmp.clock;
	slot->pb = tmp.pb;
	slot->world = tmp.world;
	__atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
	__atomic_store_n(&slot->dead, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comm_lock);
	return slot;
}

void hp_comm_forget(MPI_Comm comm)
{
	uintptr_t key = (uintptr_t)comm;
	pthread_mutex_lock(&comm_lock);
	struct hp_comm *e = (struct hp_comm *)find(key);
	/* the world table stays allocated: a reader may still hold the entry */
	if (e)
		__atomic_store_n(&e->dead, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comm_lock);
	__atomic_add_fetch(&hp_mpi.comm_epoch, 1, __ATOMIC_RELAXED);
}

int hp_comm_init(void)
{
	return hp_comm_get(NULL, MPI_COMM_WORLD) ? 0 : -1;
}

/* ---- wrapped communicator calls ------------------------------------------ */
#include "mpiwrap/classes.h"

static void note_new(struct hp_call *c, int rc, MPI_Comm newcomm)
{
	if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
		hp_comm_get(c->mt, newcomm);
}

int hp_w_comm_new(struct hp_call *c, __typeof__(&PMPI_Comm_dup) pmpi, MPI_Comm comm, MPI_Comm *newcomm)
{
	int rc = pmpi(comm, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_comm_split(struct hp_call *c, __typeof__(&PMPI_Comm_split) pmpi, MPI_Comm comm, int color,
		    int key, MPI_Comm *newcomm)
{
	int rc = pmpi(comm, color, key, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_comm_split_type(struct hp_call *c, __typeof__(&PMPI_Comm_split_type) pmpi, MPI_Comm comm,
			 int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
	int rc = pmpi(comm, split_type, key, info, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_comm_create(struct hp_call *c, __typeof__(&PMPI_Comm_create) pmpi, MPI_Comm comm,
		     MPI_Group group, MPI_Comm *newcomm)
{
	int rc = pmpi(comm, group, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_comm_create_group(struct hp_call *c, __typeof__(&PMPI_Comm_create_group) pmpi, MPI_Comm comm,
			   MPI_Group group, int tag, MPI_Comm *newcomm)
{
	int rc = pmpi(comm, group, tag, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_intercomm_create(struct hp_call *c, __typeof__(&PMPI_Intercomm_create) pmpi,
			  MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
			  int tag, MPI_Comm *newintercomm)
{
	int rc = pmpi(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
	hp_call_t2(c);
	note_new(c, rc, *newintercomm);
	return rc;
}

int hp_w_intercomm_merge(struct hp_call *c, __typeof__(&PMPI_Intercomm_merge) pmpi, MPI_Comm intercomm,
			 int high, MPI_Comm *newintracomm)
{
	int rc = pmpi(intercomm, high, newintracomm);
	hp_call_t2(c);
	note_new(c, rc, *newintracomm);
	return rc;
}

int hp_w_cart_create(struct hp_call *c, __typeof__(&PMPI_Cart_create) pmpi, MPI_Comm comm_old,
		     int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart)
{
	int rc = pmpi(comm_old, ndims, dims, periods, reorder, comm_cart);
	hp_call_t2(c);
	note_new(c, rc, *comm_cart);
	return rc;
}

int hp_w_cart_sub(struct hp_call *c, __typeof__(&PMPI_Cart_sub) pmpi, MPI_Comm comm,
		  const int remain_dims[], MPI_Comm *newcomm)
{
	int rc = pmpi(comm, remain_dims, newcomm);
	hp_call_t2(c);
	note_new(c, rc, *newcomm);
	return rc;
}

int hp_w_comm_free(struct hp_call *c, __typeof__(&PMPI_Comm_free) pmpi, MPI_Comm *comm)
{
	MPI_Comm old = *comm;
	int rc = pmpi(comm);
	hp_call_t2(c);
	if (rc == MPI_SUCCESS)
		hp_comm_forget(old);
	return rc;
}

int hp_w_type_free(struct hp_call *c, __typeof__(&PMPI_Type_free) pmpi, MPI_Datatype *datatype)
{
	/* the struct-type cache must not keep it alive */
	hp_types_evict(c->mt, *datatype);
	/* a pending packed request still unpacks into it: freed at its end */
	if (hp_type_free_deferred(datatype))
		return MPI_SUCCESS;
	int rc = pmpi(datatype);
	hp_call_t2(c);
	/* the handle value may come back for another type: empty the caches */
	if (rc == MPI_SUCCESS)
		hp_types_forget();
	return rc;
}
