/* mpiwrap/rma.c - one-sided communication: statistics, and the delay
 * exchange at MPI_Win_fence.
 *
 * RMA moves data without a matching call on the target, so nothing can
 * carry a piggyback: hyprof counts, per call site and target, what each
 * operation moves (MPI_Put, MPI_Accumulate: to the target; MPI_Get: from
 * it; the fetching kinds both ways) and the time of every call, and takes
 * the synchronisation calls' whole time as waiting (raw, uncompensated:
 * what they wait for is another process's epoch, which no message tells
 * this one), except MPI_Win_fence, a collective over the window's group:
 * there the members exchange their delays as after a symmetric collective
 * (coll.c), on a duplicate of the window's communicator made when the
 * window is (every member creates it collectively, so the duplicate is
 * made collectively too).  The same duplicate names the targets' world
 * ranks, whether or not the program keeps its communicator.
 *
 * A window's record lives from its creation to MPI_Win_free.  Every
 * member of a window must take part in its fence exchanges, so a window
 * whose duplicate was made is always recorded: the table grows (a member
 * that could not record it frees the duplicate and skips the exchanges,
 * as it would if the duplicate had failed: out of memory, the end of the
 * run is near anyway).
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <pthread.h>

#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

struct hp_win {
	uintptr_t key; /* the window handle's value */
	MPI_Comm comm; /* our duplicate of the window's communicator */
};

static struct hp_win *wins; /* nwins live windows, in no order */
static int nwins, cap_wins;
static pthread_mutex_t wins_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t win_key(MPI_Win w)
{
	uintptr_t k = 0;
	memcpy(&k, &w, sizeof(w) < sizeof(k) ? sizeof(w) : sizeof(k));
	return k;
}

/* Our communicator of window w (MPI_COMM_NULL when not described). */
static MPI_Comm win_comm(MPI_Win w)
{
	uintptr_t k = win_key(w);
	MPI_Comm c = MPI_COMM_NULL;
	pthread_mutex_lock(&wins_lock);
	for (int i = 0; i < nwins; i++)
		if (wins[i].key == k) {
			c = wins[i].comm;
			break;
		}
	pthread_mutex_unlock(&wins_lock);
	return c;
}

/* Free our duplicate, and its record: the handle value may come back for
 * the program's next communicator, which must not inherit it (as
 * MPI_Comm_free's wrapper does, comm.c). */
static void free_comm(MPI_Comm c)
{
	hp_comm_forget(c);
	PMPI_Comm_free(&c);
}

/* A window was created over comm (collectively). */
void hp_win_add(MPI_Win w, MPI_Comm comm)
{
	uintptr_t k = win_key(w);
	if (!k || comm == MPI_COMM_NULL)
		return;
	MPI_Comm dup = MPI_COMM_NULL;
	if (PMPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
		return;
	pthread_mutex_lock(&wins_lock);
	wins = hp_grow(wins, nwins, &cap_wins, 16, sizeof(*wins));
	if (nwins < cap_wins) {
		wins[nwins].key = k;
		wins[nwins].comm = dup;
		nwins++;
		dup = MPI_COMM_NULL;
	}
	pthread_mutex_unlock(&wins_lock);
	if (dup != MPI_COMM_NULL)
		free_comm(dup); /* no memory: not described */
}

/* Window w was freed (its handle value, read before the free). */
void hp_win_forget(MPI_Win w)
{
	uintptr_t k = win_key(w);
	MPI_Comm c = MPI_COMM_NULL;
	pthread_mutex_lock(&wins_lock);
	for (int i = 0; i < nwins && k; i++)
		if (wins[i].key == k) {
			c = wins[i].comm;
			wins[i] = wins[--nwins];
			break;
		}
	pthread_mutex_unlock(&wins_lock);
	if (c != MPI_COMM_NULL)
		free_comm(c);
}

/* An RMA operation on `target` (its rank in the window's group) moved
 * `out` bytes to it and `in` bytes from it. */
static void rma_op(struct hp_call *c, MPI_Win win, int target, uint64_t out, uint64_t in)
{
	hp_call_t2(c);
	c->bytes = out + in;
	if (target == MPI_PROC_NULL)
		return;
	MPI_Comm comm = win_comm(win);
	if (comm == MPI_COMM_NULL)
		return;
	c->peer = hp_comm_world(hp_comm_get(c->mt, comm), target);
	struct hp_site *s = hp_site_get(c);
	int64_t dt = (int64_t)(c->t2 - c->t1);
	/* a fetching operation is a message each way; its time is the going one's */
	if (out || !in)
		hp_site_peer_add(c->mt, s, c->peer, 0, 1, out, dt, 0, 0);
	if (in) {
		hp_site_peer_add(c->mt, s, c->peer, 1, 1, in, out ? 0 : dt, 0, 0);
		/* the target sent it, but only this rank knows */
		hp_mat_fetched(c->mt, c->peer, 1, in);
	}
}

/* ---- window life cycle -------------------------------------------------------- */

/* After the user's window creation: describe it; our duplicate's time is
 * measurement (the user's call ended before it). */
static int win_made(struct hp_call *c, int rc, MPI_Win w, MPI_Comm comm)
{
	hp_call_t2(c);
	if (rc == MPI_SUCCESS) {
		uint64_t t = hp_rdtsc();
		hp_win_add(w, comm);
		hp_charge_pb(c, hp_rdtsc() - t);
	}
	return rc;
}

int hp_w_win_create(struct hp_call *c, __typeof__(&PMPI_Win_create) pmpi, void *base, MPI_Aint size,
		    int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	int rc = pmpi(base, size, disp_unit, info, comm, win);
	return win_made(c, rc, *win, comm);
}

int hp_w_win_allocate(struct hp_call *c, __typeof__(&PMPI_Win_allocate) pmpi, MPI_Aint size, int disp_unit,
		      MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	int rc = pmpi(size, disp_unit, info, comm, baseptr, win);
	return win_made(c, rc, *win, comm);
}

int hp_w_win_create_dynamic(struct hp_call *c, __typeof__(&PMPI_Win_create_dynamic) pmpi, MPI_Info info,
			    MPI_Comm comm, MPI_Win *win)
{
	int rc = pmpi(info, comm, win);
	return win_made(c, rc, *win, comm);
}

int hp_w_win_free(struct hp_call *c, __typeof__(&PMPI_Win_free) pmpi, MPI_Win *win)
{
	MPI_Win w = *win;
	int rc = pmpi(win);
	hp_call_t2(c);
	/* waits for the other members (MPI 3.1 section 11.2.5) */
	c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	if (rc == MPI_SUCCESS) {
		uint64_t t = hp_rdtsc();
		hp_win_forget(w);
		hp_charge_pb(c, hp_rdtsc() - t);
	}
	return rc;
}

/* ---- operations ------------------------------------------------------------------ */

int hp_w_rma_put(struct hp_call *c, __typeof__(&PMPI_Put) pmpi, const void *origin_addr, int origin_count,
		 MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		 MPI_Datatype target_datatype, MPI_Win win)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, win);
	rma_op(c, win, target_rank, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0, 0);
	return rc;
}

int hp_w_rma_get(struct hp_call *c, __typeof__(&PMPI_Get) pmpi, void *origin_addr, int origin_count,
		 MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		 MPI_Datatype target_datatype, MPI_Win win)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, win);
	rma_op(c, win, target_rank, 0, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0);
	return rc;
}

int hp_w_rma_acc(struct hp_call *c, __typeof__(&PMPI_Accumulate) pmpi, const void *origin_addr, int origin_count,
		 MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, op, win);
	rma_op(c, win, target_rank, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0, 0);
	return rc;
}

int hp_w_rma_rput(struct hp_call *c, __typeof__(&PMPI_Rput) pmpi, const void *origin_addr, int origin_count,
		  MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, win, request);
	rma_op(c, win, target_rank, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0, 0);
	return rc;
}

int hp_w_rma_rget(struct hp_call *c, __typeof__(&PMPI_Rget) pmpi, void *origin_addr, int origin_count,
		  MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, win, request);
	rma_op(c, win, target_rank, 0, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0);
	return rc;
}

int hp_w_rma_racc(struct hp_call *c, __typeof__(&PMPI_Raccumulate) pmpi, const void *origin_addr,
		  int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
		  int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
		      target_datatype, op, win, request);
	rma_op(c, win, target_rank, rc == MPI_SUCCESS ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0, 0);
	return rc;
}

int hp_w_rma_getacc(struct hp_call *c, __typeof__(&PMPI_Get_accumulate) pmpi, const void *origin_addr,
		    int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count,
		    MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
		      target_rank, target_disp, target_count, target_datatype, op, win);
	int ok = rc == MPI_SUCCESS;
	/* MPI_NO_OP: the origin buffer is ignored */
	rma_op(c, win, target_rank, ok && op != MPI_NO_OP ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0,
	       ok ? hp_type_bytes(c->mt, result_count, result_datatype) : 0);
	return rc;
}

int hp_w_rma_rgetacc(struct hp_call *c, __typeof__(&PMPI_Rget_accumulate) pmpi, const void *origin_addr,
		     int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count,
		     MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,
		     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	int rc = pmpi(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
		      target_rank, target_disp, target_count, target_datatype, op, win, request);
	int ok = rc == MPI_SUCCESS;
	rma_op(c, win, target_rank, ok && op != MPI_NO_OP ? hp_type_bytes(c->mt, origin_count, origin_datatype) : 0,
	       ok ? hp_type_bytes(c->mt, result_count, result_datatype) : 0);
	return rc;
}

int hp_w_rma_fop(struct hp_call *c, __typeof__(&PMPI_Fetch_and_op) pmpi, const void *origin_addr,
		 void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op,
		 MPI_Win win)
{
	int rc = pmpi(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
	uint64_t b = rc == MPI_SUCCESS ? hp_type_bytes(c->mt, 1, datatype) : 0;
	rma_op(c, win, target_rank, op != MPI_NO_OP ? b : 0, b);
	return rc;
}

int hp_w_rma_cas(struct hp_call *c, __typeof__(&PMPI_Compare_and_swap) pmpi, const void *origin_addr,
		 const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
		 MPI_Aint target_disp, MPI_Win win)
{
	int rc = pmpi(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win);
	uint64_t b = rc == MPI_SUCCESS ? hp_type_bytes(c->mt, 1, datatype) : 0;
	rma_op(c, win, target_rank, 2 * b, b); /* origin and compare values go, the old one comes */
	return rc;
}

/* ---- synchronisation ------------------------------------------------------------- */

/* MPI_Win_fence: a collective over the window's group; the delay exchange
 * of a symmetric collective on our communicator (coll.c). */
int hp_w_win_fence(struct hp_call *c, __typeof__(&PMPI_Win_fence) pmpi, int assert, MPI_Win win)
{
	int rc = pmpi(assert, win);
	hp_call_t2(c);
	c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	MPI_Comm comm = win_comm(win);
	if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL)
		hp_coll_exchange_sym(c, comm);
	return rc;
}

/* The other synchronisation calls: their time is waiting, raw. */
static int sync_done(struct hp_call *c, int rc)
{
	hp_call_t2(c);
	c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	return rc;
}


/* Win_complete, Win_wait, Win_unlock_all, Win_flush_all, Win_flush_local_all, Win_sync */
int hp_w_win_sync(struct hp_call *c, __typeof__(&PMPI_Win_complete) pmpi, MPI_Win win)
{
	return sync_done(c, pmpi(win));
}

/* Win_lock_all */
int hp_w_win_lock_all(struct hp_call *c, __typeof__(&PMPI_Win_lock_all) pmpi, int assert, MPI_Win win)
{
	return sync_done(c, pmpi(assert, win));
}

/* Win_start, Win_post */
int hp_w_win_start(struct hp_call *c, __typeof__(&PMPI_Win_start) pmpi, MPI_Group group, int assert, MPI_Win win)
{
	return sync_done(c, pmpi(group, assert, win));
}

int hp_w_win_test(struct hp_call *c, __typeof__(&PMPI_Win_test) pmpi, MPI_Win win, int *flag)
{
	return sync_done(c, pmpi(win, flag));
}

int hp_w_win_lock(struct hp_call *c, __typeof__(&PMPI_Win_lock) pmpi, int lock_type, int rank, int assert,
		  MPI_Win win)
{
	return sync_done(c, pmpi(lock_type, rank, assert, win));
}

/* Win_unlock, Win_flush, Win_flush_local */
int hp_w_win_unlock(struct hp_call *c, __typeof__(&PMPI_Win_unlock) pmpi, int rank, MPI_Win win)
{
	return sync_done(c, pmpi(rank, win));
}
