/* mpiwrap/coll.c - collectives: statistics and the delay exchange.
 *
 * A collective's data is the user's business (MPI_IN_PLACE, user-defined
 * operations, v-variants): the wrappers never touch it.  After the user's
 * collective, when parallel compensation is on, the members exchange their
 * delays with one small collective of the matching shape on the same
 * communicator (every member calls it right after the same user call, so
 * collective ordering is kept), and apply the rule of comp.h:
 *
 *  - symmetric kinds (Allreduce, Allgather(v), Alltoall(v,w),
 *    Reduce_scatter(_block), Barrier): everyone completes when the last one
 *    arrived; Allreduce(MIN) of (w_i + x_i) and of w_i, w_i the call's
 *    duration on member i, gives the approximated arrival of the last one
 *    without a shared clock (ns, so nodes may differ):
 *        T = t2 - min w,  T' = t2 - min (w + x)
 *    (members that share the clock exchange Allreduce(MAX) of (entry,
 *    entry - x) instead: the rule above assumes every member left at our
 *    t2, and misses the wait when another member left later);
 *    MPI_Barrier on a communicator whose members share the clock is itself
 *    replaced by an Allreduce(MAX) of (entry, entry - x): one collective;
 *  - Reduce, Gather(v) (the root needs everyone): Reduce(MAX) to the root
 *    of (entry, entry - x, -x); the root joins them (shared clock) or takes
 *    the minimum delay at the end of its call (the paper's rule);
 *  - Bcast, Scatter(v) (everyone needs the root): Bcast of the root's
 *    (entry, x); each member applies the point-to-point rule;
 *  - Scan, Exscan: Scan(MIN) of (w + x, w), the symmetric rule over the
 *    prefix;
 *  - neighbourhood collectives (a member needs its in-neighbours):
 *    Neighbor_allgather of (entry, entry - x, x); each member joins its
 *    sources as the root of a Reduce joins the members.
 * The exchange's own time is measurement overhead (o_p, x_p).
 * Intercommunicators are timed but not compensated.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <pthread.h>
#include <string.h>

#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

enum shape { SYM, ROOT_IN, ROOT_OUT, SCAN, NBR };

/* ---- the exchange's transport ------------------------------------------------
 * Normally a few int64 with MPI_MIN or MPI_MAX.  With a piggyback extension
 * (the critical path, pb.h) the exchange carries its piggyback too, in one
 * collective: {values, pb} combined by a user operation (the values
 * elementwise, the piggyback by the extension's combine). */
struct xbuf {
	int64_t v[4];
	struct hp_pb pb;
};
enum xkind { X_ALLREDUCE, X_SCAN, X_REDUCE, X_BCAST };

static MPI_Datatype xtype = MPI_DATATYPE_NULL;
static MPI_Op xop_min = MPI_OP_NULL, xop_max = MPI_OP_NULL;
static pthread_once_t xonce = PTHREAD_ONCE_INIT;

static void xcombine(const struct xbuf *in, struct xbuf *io, int len, int is_min)
{
	for (int i = 0; i < len; i++) {
		for (int k = 0; k < 4; k++)
			io[i].v[k] = is_min ? (in[i].v[k] < io[i].v[k] ? in[i].v[k] : io[i].v[k])
					    : (in[i].v[k] > io[i].v[k] ? in[i].v[k] : io[i].v[k]);
		if (hp_mpi.ext && hp_mpi.ext->combine)
			hp_mpi.ext->combine(&in[i].pb, &io[i].pb);
	}
}
static void xop_min_fn(void *in, void *io, int *len, MPI_Datatype *t)
{
	(void)t;
	xcombine(in, io, *len, 1);
}
static void xop_max_fn(void *in, void *io, int *len, MPI_Datatype *t)
{
	(void)t;
	xcombine(in, io, *len, 0);
}
static void xsetup(void)
{
	if (PMPI_Type_contiguous((int)sizeof(struct xbuf), MPI_BYTE, &xtype) == MPI_SUCCESS)
		PMPI_Type_commit(&xtype);
	PMPI_Op_create(xop_min_fn, 1, &xop_min);
	PMPI_Op_create(xop_max_fn, 1, &xop_max);
}

void hp_coll_release(void)
{
	if (xtype != MPI_DATATYPE_NULL)
		PMPI_Type_free(&xtype);
	if (xop_min != MPI_OP_NULL)
		PMPI_Op_free(&xop_min);
	if (xop_max != MPI_OP_NULL)
		PMPI_Op_free(&xop_max);
}

/* Exchange n (<= 4) values: returns 1 when v holds the combination here. */
static int xchg(enum xkind kind, int is_min, int64_t *v, int n, int root, int me_root, MPI_Comm comm)
{
	int rc;
	if (!hp_mpi.ext) {
		int64_t out[4];
		MPI_Op op = is_min ? MPI_MIN : MPI_MAX;
		switch (kind) {
		case X_ALLREDUCE:
			rc = PMPI_Allreduce(v, out, n, MPI_INT64_T, op, comm);
			break;
		case X_SCAN:
			rc = PMPI_Scan(v, out, n, MPI_INT64_T, op, comm);
			break;
		case X_REDUCE:
			rc = PMPI_Reduce(v, out, n, MPI_INT64_T, op, root, comm);
			break;
		default:
			rc = PMPI_Bcast(v, n, MPI_INT64_T, root, comm);
			return rc == MPI_SUCCESS;
		}
		if (rc != MPI_SUCCESS || (kind == X_REDUCE && !me_root))
			return 0;
		memcpy(v, out, sizeof(int64_t) * (size_t)n);
		return 1;
	}
	pthread_once(&xonce, xsetup);
	if (xtype == MPI_DATATYPE_NULL || xop_min == MPI_OP_NULL || xop_max == MPI_OP_NULL)
		return 0;
	struct xbuf in, out;
	memset(&in, 0, sizeof(in));
	for (int k = 0; k < 4; k++)
		in.v[k] = k < n ? v[k] : is_min ? INT64_MAX : INT64_MIN;
	if (hp_mpi.ext->coll_in && (kind != X_BCAST || me_root))
		hp_mpi.ext->coll_in(&in.pb);
	MPI_Op op = is_min ? xop_min : xop_max;
	switch (kind) {
	case X_ALLREDUCE:
		rc = PMPI_Allreduce(&in, &out, 1, xtype, op, comm);
		break;
	case X_SCAN:
		rc = PMPI_Scan(&in, &out, 1, xtype, op, comm);
		break;
	case X_REDUCE:
		rc = PMPI_Reduce(&in, &out, 1, xtype, op, root, comm);
		break;
	default:
		rc = PMPI_Bcast(&in, 1, xtype, root, comm);
		out = in;
		break;
	}
	if (rc != MPI_SUCCESS || (kind == X_REDUCE && !me_root))
		return 0;
	memcpy(v, out.v, sizeof(int64_t) * (size_t)n);
	if (hp_mpi.ext->coll_out && !(kind == X_BCAST && me_root))
		hp_mpi.ext->coll_out(&out.pb);
	return 1;
}

static int nbr_join(struct hp_mt *mt, struct hp_comp *k, const struct hp_comm *cm, MPI_Comm comm, int64_t t1,
		    int64_t xb, int64_t t2);
static int neighbours(MPI_Comm comm, int *in, int *out);

/* The delay exchange after a collective whose PMPI part ran t1..t2. */
static void exchange(struct hp_call *c, enum shape shape, MPI_Comm comm, const struct hp_comm *cm,
		     int root)
{
	struct hp_mt *mt = c->mt;
	int64_t w = (int64_t)(c->t2 - c->t1);
	/* without an exchange the whole call counts as waiting, raw */
	c->wait_raw = c->wait_comp = w;
	if (!cm || !cm->pb || cm->inter || cm->size < 2) {
		hp_note_other_world(mt, cm);
		return;
	}
	c->wait_raw = c->wait_comp = 0; /* a member that waits for nobody */
	int64_t pre = (int64_t)(c->t1 - c->t0);
	int64_t xb = (int64_t)*mt->x + pre; /* delay at entry */
	uint64_t tx = c->t2; /* the exchange starts right after the user's call */
	struct hp_comp k;
	hp_comp_begin(&k, (int64_t)c->t1, xb);
	int joined = 0;
	switch (shape) {
	case SYM:
	case SCAN: {
		if (cm->clock) {
			/* a shared clock: the last member's entry itself, not
			 * t2 - min w (which assumes every member left at our t2
			 * and misses the wait when another member left late) */
			int64_t v[2] = {(int64_t)c->t1, (int64_t)c->t1 - xb};
			if (xchg(shape == SYM ? X_ALLREDUCE : X_SCAN, 0, v, 2, 0, 0, comm)) {
				int64_t t2 = (int64_t)c->t2;
				hp_comp_join_max(&k, v[0] < t2 ? v[0] : t2, v[1] < t2 ? v[1] : t2);
				joined = 1;
			}
			break;
		}
		int64_t v[2] = {hp_cyc_to_ns(w + xb), hp_cyc_to_ns(w)};
		if (xchg(shape == SYM ? X_ALLREDUCE : X_SCAN, 1, v, 2, 0, 0, comm)) {
			int64_t t2 = (int64_t)c->t2;
			hp_comp_join_max(&k, t2 - hp_ns_to_cyc(v[1]), t2 - hp_ns_to_cyc(v[0]));
			joined = 1;
		}
		break;
	}
	case ROOT_IN: {
		int me = cm->rank == root;
		int64_t v[3] = {me ? INT64_MIN : (int64_t)c->t1, me ? INT64_MIN : (int64_t)c->t1 - xb,
				me ? INT64_MIN : -hp_cyc_to_ns(xb)};
		if (xchg(X_REDUCE, 0, v, 3, root, me, comm) && v[2] != INT64_MIN) {
			if (cm->clock)
				hp_comp_join_max(&k, v[0], v[1]);
			else
				hp_comp_msg(&k, (int64_t)c->t2, hp_ns_to_cyc(-v[2]));
			joined = 1;
		}
		break;
	}
	case ROOT_OUT: {
		int me = cm->rank == root;
		int64_t v[2] = {(int64_t)c->t1, hp_cyc_to_ns(xb)};
		if (xchg(X_BCAST, 0, v, 2, root, me, comm) && !me) {
			int64_t s = cm->clock ? v[0] : (int64_t)c->t2;
			if (s > (int64_t)c->t2)
				s = (int64_t)c->t2;
			hp_comp_msg(&k, s, hp_ns_to_cyc(v[1]));
			joined = 1;
		}
		break;
	}
	case NBR:
		joined = nbr_join(mt, &k, cm, comm, (int64_t)c->t1, xb, (int64_t)c->t2);
		break;
	}
	if (joined) {
		int64_t xn = hp_comp_delay(&k) - pre;
		*mt->x = xn > 0 ? (uint64_t)xn : 0;
		c->wait_raw = hp_comp_wait_raw(&k);
		c->wait_comp = hp_comp_wait_approx(&k);
	}
	hp_charge_pb(c, hp_rdtsc() - tx);
	mt->tot.xchg++;
}

/* A symmetric collective's exchange on comm, for a collective that is not
 * MPI's own (MPI_Win_fence, rma.c), with its per-size statistics. */
void hp_coll_exchange_sym(struct hp_call *c, MPI_Comm comm)
{
	const struct hp_comm *cm = hp_comm_get(c->mt, comm);
	exchange(c, SYM, comm, cm, 0);
	hp_coll_add(c->mt, c->fn, cm ? cm->size : 0, 0, (int64_t)(c->t2 - c->t1), c->wait_raw, c->wait_comp);
}

static uint64_t tsize(struct hp_mt *mt, MPI_Datatype t)
{
	return t == MPI_DATATYPE_NULL ? 0 : (uint64_t)hp_typeinfo(mt, t)->size;
}

static uint64_t sum(const int *v, int n)
{
	uint64_t s = 0;
	for (int i = 0; v && i < n; i++)
		if (v[i] > 0)
			s += (uint64_t)v[i];
	return s;
}

/* Elements over n peers: counts[0..n) (the v kinds), or count to each. */
static uint64_t per_peer(int count, const int *counts, int n)
{
	return counts ? sum(counts, n) : (uint64_t)(count > 0 ? count : 0) * (uint64_t)n;
}

/* The processes a per-peer array of this communicator counts: the remote
 * group's on an intercommunicator (MPI 3.1 section 5.2.2). */
static int peers(const struct hp_comm *cm)
{
	return cm ? (cm->inter ? cm->remote_size : cm->size) : 0;
}

/* This process's part in a rooted collective, which decides which of its
 * arguments are significant (MPI 3.1 sections 5.2.2, 5.5, 5.6): on an
 * intercommunicator the root passes MPI_ROOT, the rest of its group
 * MPI_PROC_NULL (nothing significant but root and comm), the other group
 * the root's rank.  Only significant arguments are read: the others may be
 * anything, even invalid handles. */
enum role { R_NONE, R_ROOT, R_MEMBER };
static enum role role(const struct hp_comm *cm, int root)
{
	if (cm && cm->inter)
		return root == MPI_ROOT ? R_ROOT : root == MPI_PROC_NULL ? R_NONE : R_MEMBER;
	return cm && cm->rank == root ? R_ROOT : R_MEMBER;
}

/* Time the call, set its waits (`waits`, a statement that may use rc_ and
 * cm), record.  `bytes` = data this rank sends (or receives when it only
 * receives); evaluated after a successful call only, so it never reads an
 * argument the call did not accept. */
#define COLL_RECORD(waits, bytes_expr, call)                                     \
	do {                                                                     \
		const struct hp_comm *cm = hp_comm_get(c->mt, comm);             \
		int rc_ = (call);                                                \
		hp_call_t2(c);                                                   \
		c->wait_raw = c->wait_comp = 0;                                  \
		waits;                                                           \
		c->bytes = rc_ == MPI_SUCCESS ? (bytes_expr) : 0;                \
		hp_coll_add(c->mt, c->fn, cm ? cm->size : 0, c->bytes,           \
			    (int64_t)(c->t2 - c->t1), c->wait_raw, c->wait_comp);\
		return rc_;                                                      \
	} while (0)

/* A blocking collective: its waits come from the delay exchange. */
#define COLL(shape, root, bytes_expr, call)                                      \
	COLL_RECORD(if (rc_ == MPI_SUCCESS) exchange(c, shape, comm, cm, root), bytes_expr, call)

int hp_w_barrier(struct hp_call *c, __typeof__(&PMPI_Barrier) pmpi, MPI_Comm comm)
{
	const struct hp_comm *cm = hp_comm_get(c->mt, comm);
	if (cm && cm->pb && cm->clock && !cm->inter && cm->size > 1) {
		/* one Allreduce is the barrier and the exchange */
		struct hp_mt *mt = c->mt;
		int64_t pre = 0; /* t1 = t0: the entry */
		int64_t xb = (int64_t)*mt->x + pre;
		int64_t v[2] = {(int64_t)c->t1, (int64_t)c->t1 - xb};
		int ok = xchg(X_ALLREDUCE, 0, v, 2, 0, 0, comm);
		int rc = ok ? MPI_SUCCESS : MPI_ERR_OTHER;
		hp_call_t2(c);
		if (ok) {
			struct hp_comp k;
			hp_comp_begin(&k, (int64_t)c->t1, xb);
			hp_comp_join_max(&k, v[0], v[1]);
			int64_t xn = hp_comp_delay(&k) - pre;
			*mt->x = xn > 0 ? (uint64_t)xn : 0;
			c->wait_raw = hp_comp_wait_raw(&k);
			c->wait_comp = hp_comp_wait_approx(&k);
			mt->tot.xchg++;
		}
		hp_coll_add(mt, c->fn, cm->size, 0, (int64_t)(c->t2 - c->t1), c->wait_raw, c->wait_comp);
		return rc;
	}
	COLL(SYM, 0, 0, pmpi(comm));
}

int hp_w_bcast(struct hp_call *c, __typeof__(&PMPI_Bcast) pmpi, void *buffer, int count,
	       MPI_Datatype datatype, int root, MPI_Comm comm)
{
	COLL(ROOT_OUT, root,
	     role(cm, root) == R_NONE ? 0 : (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
	     pmpi(buffer, count, datatype, root, comm));
}

/* Gather's and Scatter's data at this process: what it sends (gather) or
 * receives (scatter) as a member, the whole of it at an intercommunicator's
 * root, its own part at an intracommunicator's root. */
static uint64_t gather_bytes(struct hp_mt *mt, const struct hp_comm *cm, int root, const void *sendbuf,
			     int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype)
{
	switch (role(cm, root)) {
	case R_NONE:
		return 0;
	case R_ROOT:
		if (cm && cm->inter)
			return (uint64_t)(recvcount > 0 ? recvcount : 0) * tsize(mt, recvtype) *
			       (uint64_t)peers(cm);
		if (sendbuf == MPI_IN_PLACE)
			return (uint64_t)(recvcount > 0 ? recvcount : 0) * tsize(mt, recvtype);
		/* the root sends its own part */
		__attribute__((fallthrough));
	default:
		return (uint64_t)(sendcount > 0 ? sendcount : 0) * tsize(mt, sendtype);
	}
}

int hp_w_gather(struct hp_call *c, __typeof__(&PMPI_Gather) pmpi, const void *sendbuf, int sendcount,
		MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	COLL(ROOT_IN, root, gather_bytes(c->mt, cm, root, sendbuf, sendcount, sendtype, recvcount, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

static uint64_t gatherv_bytes(struct hp_mt *mt, const struct hp_comm *cm, int root, const void *sendbuf,
			      int sendcount, MPI_Datatype sendtype, const int *recvcounts,
			      MPI_Datatype recvtype)
{
	switch (role(cm, root)) {
	case R_NONE:
		return 0;
	case R_ROOT:
		if (cm && cm->inter)
			return sum(recvcounts, peers(cm)) * tsize(mt, recvtype);
		if (sendbuf == MPI_IN_PLACE)
			return cm && recvcounts && cm->rank >= 0 && recvcounts[cm->rank] > 0
				       ? (uint64_t)recvcounts[cm->rank] * tsize(mt, recvtype)
				       : 0;
		__attribute__((fallthrough));
	default:
		return (uint64_t)(sendcount > 0 ? sendcount : 0) * tsize(mt, sendtype);
	}
}

int hp_w_gatherv(struct hp_call *c, __typeof__(&PMPI_Gatherv) pmpi, const void *sendbuf, int sendcount,
		 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
		 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(ROOT_IN, root, gatherv_bytes(c->mt, cm, root, sendbuf, sendcount, sendtype, recvcounts, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
}

/* Scatter's and Scatterv's data at this process: all it sends at the root
 * (`counts` per peer, or `count` each when counts is NULL), what it
 * receives as a member. */
static uint64_t scatter_bytes(struct hp_mt *mt, const struct hp_comm *cm, int root, int count,
			      const int *counts, MPI_Datatype sendtype, int recvcount,
			      MPI_Datatype recvtype)
{
	switch (role(cm, root)) {
	case R_NONE:
		return 0;
	case R_ROOT:
		return per_peer(count, counts, peers(cm)) * tsize(mt, sendtype);
	default:
		return (uint64_t)(recvcount > 0 ? recvcount : 0) * tsize(mt, recvtype);
	}
}

int hp_w_scatter(struct hp_call *c, __typeof__(&PMPI_Scatter) pmpi, const void *sendbuf, int sendcount,
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	COLL(ROOT_OUT, root, scatter_bytes(c->mt, cm, root, sendcount, NULL, sendtype, recvcount, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int hp_w_scatterv(struct hp_call *c, __typeof__(&PMPI_Scatterv) pmpi, const void *sendbuf,
		  const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(ROOT_OUT, root, scatter_bytes(c->mt, cm, root, 0, sendcounts, sendtype, recvcount, recvtype),
	     pmpi(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

/* What this process contributes to an Allgather(v) (`counts` for the v
 * variant): its send buffer, or with MPI_IN_PLACE its own part of the
 * receive buffer.  alltoall_bytes(): the same for Alltoall(v), a part for
 * every peer. */
static uint64_t allgather_bytes(struct hp_mt *mt, const struct hp_comm *cm, const void *sendbuf,
				int sendcount, MPI_Datatype sendtype, int recvcount, const int *counts,
				MPI_Datatype recvtype)
{
	if (sendbuf != MPI_IN_PLACE)
		return (uint64_t)(sendcount > 0 ? sendcount : 0) * tsize(mt, sendtype);
	if (!counts)
		return (uint64_t)(recvcount > 0 ? recvcount : 0) * tsize(mt, recvtype);
	return cm && cm->rank >= 0 && counts[cm->rank] > 0 ? (uint64_t)counts[cm->rank] * tsize(mt, recvtype)
							   : 0;
}

static uint64_t alltoall_bytes(struct hp_mt *mt, const struct hp_comm *cm, const void *sendbuf,
			       int sendcount, const int *sendcounts, MPI_Datatype sendtype, int recvcount,
			       const int *recvcounts, MPI_Datatype recvtype)
{
	int n = cm ? peers(cm) : 1;
	if (sendbuf == MPI_IN_PLACE)
		return per_peer(recvcount, recvcounts, n) * tsize(mt, recvtype);
	return per_peer(sendcount, sendcounts, n) * tsize(mt, sendtype);
}

int hp_w_allgather(struct hp_call *c, __typeof__(&PMPI_Allgather) pmpi, const void *sendbuf,
		   int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(SYM, 0, allgather_bytes(c->mt, cm, sendbuf, sendcount, sendtype, recvcount, NULL, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int hp_w_allgatherv(struct hp_call *c, __typeof__(&PMPI_Allgatherv) pmpi, const void *sendbuf,
		    int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(SYM, 0, allgather_bytes(c->mt, cm, sendbuf, sendcount, sendtype, 0, recvcounts, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

int hp_w_alltoall(struct hp_call *c, __typeof__(&PMPI_Alltoall) pmpi, const void *sendbuf,
		  int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(SYM, 0, alltoall_bytes(c->mt, cm, sendbuf, sendcount, NULL, sendtype, recvcount, NULL, recvtype),
	     pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int hp_w_alltoallv(struct hp_call *c, __typeof__(&PMPI_Alltoallv) pmpi, const void *sendbuf,
		   const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(SYM, 0, alltoall_bytes(c->mt, cm, sendbuf, 0, sendcounts, sendtype, 0, recvcounts, recvtype),
	     pmpi(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

static uint64_t alltoallw_bytes(struct hp_mt *mt, int n, const int *cnt, const MPI_Datatype *ty)
{
	uint64_t b = 0;
	for (int i = 0; cnt && ty && i < n; i++)
		if (cnt[i] > 0) /* a count of 0 may come with any type */
			b += (uint64_t)cnt[i] * tsize(mt, ty[i]);
	return b;
}

int hp_w_alltoallw(struct hp_call *c, __typeof__(&PMPI_Alltoallw) pmpi, const void *sendbuf,
		   const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
		   void *recvbuf, const int recvcounts[], const int rdispls[],
		   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	COLL(SYM, 0,
	     alltoallw_bytes(c->mt, peers(cm), sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts,
			     sendbuf == MPI_IN_PLACE ? recvtypes : sendtypes),
	     pmpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
}

int hp_w_reduce(struct hp_call *c, __typeof__(&PMPI_Reduce) pmpi, const void *sendbuf, void *recvbuf,
		int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	COLL(ROOT_IN, root,
	     role(cm, root) == R_NONE ? 0 : (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
	     pmpi(sendbuf, recvbuf, count, datatype, op, root, comm));
}

/* Allreduce, and Scan and Exscan (same parameters): c->fn tells them apart. */
int hp_w_allreduce(struct hp_call *c, __typeof__(&PMPI_Allreduce) pmpi, const void *sendbuf,
		   void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	enum shape s = (c->fn == HP_FN_MPI_Scan || c->fn == HP_FN_MPI_Exscan) ? SCAN : SYM;
	COLL(s, 0, (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
	     pmpi(sendbuf, recvbuf, count, datatype, op, comm));
}

/* Reduce_scatter(_block)'s data: the whole vector this process contributes
 * (`counts` per member, or `count` each when counts is NULL). */
static uint64_t reduce_scatter_bytes(struct hp_mt *mt, const struct hp_comm *cm, int count,
				     const int *counts, MPI_Datatype datatype)
{
	int n = cm ? cm->size : 1;
	return per_peer(count, counts, n) * tsize(mt, datatype);
}

int hp_w_reduce_scatter(struct hp_call *c, __typeof__(&PMPI_Reduce_scatter) pmpi, const void *sendbuf,
			void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
			MPI_Comm comm)
{
	COLL(SYM, 0, reduce_scatter_bytes(c->mt, cm, 0, recvcounts, datatype),
	     pmpi(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

int hp_w_reduce_scatter_block(struct hp_call *c, __typeof__(&PMPI_Reduce_scatter_block) pmpi,
			      const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
			      MPI_Op op, MPI_Comm comm)
{
	COLL(SYM, 0, reduce_scatter_bytes(c->mt, cm, recvcount, NULL, datatype),
	     pmpi(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

/* ---- non-blocking collectives -------------------------------------------------
 * The initiation is timed and recorded, per call site and per communicator
 * size, with the data this process contributes (the same count as the
 * blocking kind's).  The delay travels in an exchange started right after
 * the user's collective, non-blocking too, over {s, s - x}, each member's
 * initiation time s and s minus its delay x there (MPI_Iallreduce of
 * MPI_MAX, MPI_Iscan for the scans, MPI_Ireduce to the root of Ireduce and
 * Igather, MPI_Ibcast of the root's values for Ibcast and Iscatter), tracked
 * under the user's request and completed by the Wait or
 * Test that completes it, where the rule joins it like a message (complete.c):
 * the collective cannot complete before the last member that counts
 * initiated it (every member for the symmetric kinds, the root for Ibcast
 * and Iscatter, ranks 0..i for Iscan and Iexscan; the root of Ireduce and
 * Igather waits for every member, the others for nobody).  Every member
 * starts the exchange right after its own initiation, so the exchanges
 * match as the collectives do.  Only on a communicator whose members share
 * this process's clock (the initiation times are compared) and without a
 * piggyback extension; elsewhere the request is completed untracked and
 * its waiting is not compensated.  The neighbourhood kinds exchange with
 * MPI_Ineighbor_allgather: each member joins its in-neighbours. */
static void ixchg_start(struct hp_call *c, enum shape shape, MPI_Comm comm, const struct hp_comm *cm,
			int root, MPI_Request req)
{
	struct hp_mt *mt = c->mt;
	if (req == MPI_REQUEST_NULL || !cm || !cm->pb || !cm->clock || cm->inter || cm->size < 2 ||
	    hp_mpi.ext) {
		hp_note_other_world(mt, cm);
		return;
	}
	uint64_t t0 = hp_rdtsc();
	/* every member decides alike up to here; a member out of memory for
	 * the record would leave the others' exchanges unmatched (out of memory
	 * is the end of the run anyway) */
	struct hp_req *r = hp_req_alloc();
	if (!r)
		return;
	int me = cm->rank == root;
	int64_t x = (int64_t)*mt->x + (int64_t)(c->t1 - c->t0); /* delay at initiation */
	r->kind = HP_RQ_COLL;
	r->xin[0] = (int64_t)c->t1;
	r->xin[1] = (int64_t)c->t1 - x;
	r->xjoin = shape == SYM || shape == SCAN || shape == NBR || (shape == ROOT_IN && me) ||
		   (shape == ROOT_OUT && !me);
	r->xbcast = shape == ROOT_OUT;
	/* the exchange waits for no more members than the user's collective
	 * needs at each member, so completing both never adds synchronisation:
	 * the root's values broadcast, the members' reduced to the root */
	int rc;
	switch (shape) {
	case SCAN:
		rc = PMPI_Iscan(r->xin, r->xout, 2, MPI_INT64_T, MPI_MAX, comm, &r->xreq);
		break;
	case ROOT_IN:
		rc = PMPI_Ireduce(r->xin, r->xout, 2, MPI_INT64_T, MPI_MAX, root, comm, &r->xreq);
		break;
	case ROOT_OUT:
		rc = PMPI_Ibcast(r->xin, 2, MPI_INT64_T, root, comm, &r->xreq); /* the result in xin */
		break;
	case NBR: {
		/* each in-neighbour's pair (a Cartesian MPI_PROC_NULL one sends
		 * none: its slot keeps INT64_MIN) */
		int nin, nout;
		neighbours(comm, &nin, &nout);
		int64_t *v = (int64_t *)(void *)hp_req_stage(r, sizeof(int64_t) * 2 * (size_t)(nin > 0 ? nin : 1));
		if (!v) {
			hp_req_free(r); /* as above: out of memory */
			return;
		}
		for (int i = 0; i < 2 * nin; i++)
			v[i] = INT64_MIN;
		r->ucount = nin;
		r->stage = (char *)v;
		rc = PMPI_Ineighbor_allgather(r->xin, 2, MPI_INT64_T, v, 2, MPI_INT64_T, comm, &r->xreq);
		break;
	}
	default:
		rc = PMPI_Iallreduce(r->xin, r->xout, 2, MPI_INT64_T, MPI_MAX, comm, &r->xreq);
		break;
	}
	if (rc != MPI_SUCCESS) {
		hp_req_free(r);
		return;
	}
	r->comm = comm;
	r->active = 1;
	hp_req_track(c, r, MPI_SUCCESS, req);
	hp_charge_pb(c, hp_rdtsc() - t0);
	mt->tot.xchg++;
}

#define ICOLL_X(shape, root, bytes_expr, call)                                   \
	COLL_RECORD(if (rc_ == MPI_SUCCESS) ixchg_start(c, shape, comm, cm, root, *request), \
		    bytes_expr, call)
#define ICOLL(bytes_expr, call) ICOLL_X(SYM, 0, bytes_expr, call)
#define ICOLL_NBR(bytes_expr, call) ICOLL_X(NBR, 0, bytes_expr, call)

int hp_w_ibarrier(struct hp_call *c, __typeof__(&PMPI_Ibarrier) pmpi, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(0, pmpi(comm, request));
}

int hp_w_ibcast(struct hp_call *c, __typeof__(&PMPI_Ibcast) pmpi, void *buffer, int count,
		MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_OUT, root,
		role(cm, root) == R_NONE ? 0 : (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
		pmpi(buffer, count, datatype, root, comm, request));
}

int hp_w_igather(struct hp_call *c, __typeof__(&PMPI_Igather) pmpi, const void *sendbuf, int sendcount,
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		 MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_IN, root, gather_bytes(c->mt, cm, root, sendbuf, sendcount, sendtype, recvcount, recvtype),
		pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int hp_w_igatherv(struct hp_call *c, __typeof__(&PMPI_Igatherv) pmpi, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
		  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_IN, root, gatherv_bytes(c->mt, cm, root, sendbuf, sendcount, sendtype, recvcounts, recvtype),
		pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request));
}

int hp_w_iscatter(struct hp_call *c, __typeof__(&PMPI_Iscatter) pmpi, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_OUT, root, scatter_bytes(c->mt, cm, root, sendcount, NULL, sendtype, recvcount, recvtype),
		pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int hp_w_iscatterv(struct hp_call *c, __typeof__(&PMPI_Iscatterv) pmpi, const void *sendbuf,
		   const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_OUT, root, scatter_bytes(c->mt, cm, root, 0, sendcounts, sendtype, recvcount, recvtype),
		pmpi(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int hp_w_iallgather(struct hp_call *c, __typeof__(&PMPI_Iallgather) pmpi, const void *sendbuf,
		    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(allgather_bytes(c->mt, cm, sendbuf, sendcount, sendtype, recvcount, NULL, recvtype),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int hp_w_iallgatherv(struct hp_call *c, __typeof__(&PMPI_Iallgatherv) pmpi, const void *sendbuf,
		     int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(allgather_bytes(c->mt, cm, sendbuf, sendcount, sendtype, 0, recvcounts, recvtype),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request));
}

int hp_w_ialltoall(struct hp_call *c, __typeof__(&PMPI_Ialltoall) pmpi, const void *sendbuf,
		   int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(alltoall_bytes(c->mt, cm, sendbuf, sendcount, NULL, sendtype, recvcount, NULL, recvtype),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int hp_w_ialltoallv(struct hp_call *c, __typeof__(&PMPI_Ialltoallv) pmpi, const void *sendbuf,
		    const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request)
{
	ICOLL(alltoall_bytes(c->mt, cm, sendbuf, 0, sendcounts, sendtype, 0, recvcounts, recvtype),
	      pmpi(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
		   request));
}

int hp_w_ialltoallw(struct hp_call *c, __typeof__(&PMPI_Ialltoallw) pmpi, const void *sendbuf,
		    const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
		    void *recvbuf, const int recvcounts[], const int rdispls[],
		    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	ICOLL(alltoallw_bytes(c->mt, peers(cm), sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts,
			      sendbuf == MPI_IN_PLACE ? recvtypes : sendtypes),
	      pmpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
		   request));
}

int hp_w_ireduce(struct hp_call *c, __typeof__(&PMPI_Ireduce) pmpi, const void *sendbuf, void *recvbuf,
		 int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_X(ROOT_IN, root,
		role(cm, root) == R_NONE ? 0 : (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
		pmpi(sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

/* Iallreduce, and Iscan and Iexscan (same parameters). */
int hp_w_iallreduce(struct hp_call *c, __typeof__(&PMPI_Iallreduce) pmpi, const void *sendbuf,
		    void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Request *request)
{
	enum shape s = (c->fn == HP_FN_MPI_Iscan || c->fn == HP_FN_MPI_Iexscan) ? SCAN : SYM;
	ICOLL_X(s, 0, (uint64_t)(count > 0 ? count : 0) * tsize(c->mt, datatype),
		pmpi(sendbuf, recvbuf, count, datatype, op, comm, request));
}

int hp_w_ireduce_scatter(struct hp_call *c, __typeof__(&PMPI_Ireduce_scatter) pmpi, const void *sendbuf,
			 void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
			 MPI_Comm comm, MPI_Request *request)
{
	ICOLL(reduce_scatter_bytes(c->mt, cm, 0, recvcounts, datatype),
	      pmpi(sendbuf, recvbuf, recvcounts, datatype, op, comm, request));
}

int hp_w_ireduce_scatter_block(struct hp_call *c, __typeof__(&PMPI_Ireduce_scatter_block) pmpi,
			       const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(reduce_scatter_bytes(c->mt, cm, recvcount, NULL, datatype),
	      pmpi(sendbuf, recvbuf, recvcount, datatype, op, comm, request));
}

/* ---- neighbourhood collectives --------------------------------------------------
 * Statistics: the data this process sends to its out-neighbours (MPI 3.1
 * section 7.6), the call's time.  The delay: a blocking one exchanges the
 * members' entries and delays with one Neighbor_allgather (nbr_join), a
 * non-blocking one with an Ineighbor_allgather (ixchg_start) completed
 * with it, where each member joins its in-neighbours. */

/* In- and out-neighbours of a communicator with a process topology (0
 * without; a Cartesian one counts its MPI_PROC_NULL neighbours, as MPI's
 * buffers do).  Returns the topology (MPI_Topo_test's kind). */
static int neighbours(MPI_Comm comm, int *in, int *out)
{
	int kind = MPI_UNDEFINED, n = 0, m = 0;
	if (PMPI_Topo_test(comm, &kind) == MPI_SUCCESS) {
		if (kind == MPI_CART) {
			int nd = 0;
			if (PMPI_Cartdim_get(comm, &nd) == MPI_SUCCESS)
				n = m = 2 * nd;
		} else if (kind == MPI_GRAPH) {
			int me = 0;
			if (PMPI_Comm_rank(comm, &me) == MPI_SUCCESS &&
			    PMPI_Graph_neighbors_count(comm, me, &n) == MPI_SUCCESS)
				m = n;
		} else if (kind == MPI_DIST_GRAPH) {
			int weighted = 0;
			if (PMPI_Dist_graph_neighbors_count(comm, &m, &n, &weighted) != MPI_SUCCESS)
				n = m = 0;
		}
	}
	*in = m > 0 ? m : 0;
	*out = n > 0 ? n : 0;
	return kind;
}

/* The exchange of a neighbourhood collective: every member sends (entry,
 * entry - x, x in ns) to its out-neighbours and joins what its
 * in-neighbours sent, with a shared clock as the root of a Reduce joins
 * the members (the last arrival, measured and approximated), else by the
 * point-to-point rule with each delay at the end of the call.  With a
 * piggyback extension (the critical path) the entries are struct xbuf
 * with the member's piggyback, and the in-neighbours' are combined with
 * this member's, which is what its completion depended on.  A Cartesian
 * MPI_PROC_NULL neighbour sends nothing: its slot keeps INT64_MIN.  Every
 * member calls the Neighbor_allgather (it is collective): when no buffer
 * can be had for many in-neighbours, a static one serves, one thread at a
 * time.  Returns whether anything was joined. */
#define NBR_STATIC 256
static struct xbuf nbr_static[NBR_STATIC];
static pthread_mutex_t nbr_static_lock = PTHREAD_MUTEX_INITIALIZER;

static int nbr_join(struct hp_mt *mt, struct hp_comp *k, const struct hp_comm *cm, MPI_Comm comm, int64_t t1,
		    int64_t xb, int64_t t2)
{
	int nin, nout;
	neighbours(comm, &nin, &nout);
	const struct hp_pb_ext *ext = hp_mpi.ext;
	if (ext) {
		pthread_once(&xonce, xsetup);
		if (xtype == MPI_DATATYPE_NULL)
			return 0; /* as xchg() */
	}
	/* entries of esz bytes, values first */
	size_t esz = ext ? sizeof(struct xbuf) : 3 * sizeof(int64_t);
	struct xbuf me, local[4];
	char *v = (char *)local;
	int locked = 0;
	if ((size_t)nin * esz > sizeof(local) && !(v = hp_scratch(mt, esz * (size_t)nin))) {
		if ((size_t)nin * esz > sizeof(nbr_static))
			return 0; /* not even that: this member cannot take part */
		pthread_mutex_lock(&nbr_static_lock);
		v = (char *)nbr_static;
		locked = 1;
	}
	for (int i = 0; i < nin; i++)
		((int64_t *)(void *)(v + esz * (size_t)i))[0] = INT64_MIN;
	memset(&me, 0, sizeof(me));
	me.v[0] = t1;
	me.v[1] = t1 - xb;
	me.v[2] = hp_cyc_to_ns(xb);
	int rc;
	if (ext) {
		if (ext->coll_in)
			ext->coll_in(&me.pb);
		rc = PMPI_Neighbor_allgather(&me, 1, xtype, v, 1, xtype, comm);
	} else {
		rc = PMPI_Neighbor_allgather(me.v, 3, MPI_INT64_T, v, 3, MPI_INT64_T, comm);
	}
	int joined = 0;
	if (rc == MPI_SUCCESS) {
		for (int i = 0; i < nin; i++) {
			const int64_t *e = (const int64_t *)(const void *)(v + esz * (size_t)i);
			if (e[0] == INT64_MIN)
				continue;
			if (cm->clock)
				hp_comp_join_max(k, e[0], e[1]);
			else
				hp_comp_msg(k, t2, hp_ns_to_cyc(e[2]));
			if (ext && ext->combine)
				ext->combine(&((const struct xbuf *)(const void *)e)->pb, &me.pb);
			joined = 1;
		}
		if (ext && ext->coll_out)
			ext->coll_out(&me.pb);
	}
	if (locked)
		pthread_mutex_unlock(&nbr_static_lock);
	return joined;
}

#define NCOLL(bytes_expr, call) COLL(NBR, 0, bytes_expr, call)

/* Whether out-neighbour slot i of a Cartesian communicator is a process:
 * slots 2d and 2d + 1 are dimension d's lower and upper neighbours, and
 * on a border without periodicity MPI_PROC_NULL, to which nothing goes. */
static int cart_slot_real(MPI_Comm comm, int i)
{
	int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
	if (PMPI_Cart_shift(comm, i / 2, 1, &lo, &hi) != MPI_SUCCESS)
		return 1;
	return (i % 2 ? hi : lo) != MPI_PROC_NULL;
}

/* What a neighbourhood Allgather(v) or Alltoall sends: count x type to each
 * out-neighbour; Alltoallv: counts[i] x type; Alltoallw: counts[i] x
 * types[i]; nothing to a Cartesian MPI_PROC_NULL neighbour. */
static uint64_t nbr_bytes(struct hp_mt *mt, MPI_Comm comm, int count, const int *counts,
			  MPI_Datatype type, const MPI_Datatype *types)
{
	int in, n;
	if (neighbours(comm, &in, &n) != MPI_CART) {
		if (types)
			return alltoallw_bytes(mt, n, counts, types);
		return per_peer(count, counts, n) * tsize(mt, type);
	}
	uint64_t b = 0;
	for (int i = 0; i < n; i++) {
		int k = counts ? counts[i] : count;
		if (k > 0 && cart_slot_real(comm, i))
			b += (uint64_t)k * tsize(mt, types ? types[i] : type);
	}
	return b;
}

/* Neighbor_allgather, and Neighbor_alltoall (same parameters and count:
 * sendcount x sendtype to each out-neighbour). */
int hp_w_neighbor_allgather(struct hp_call *c, __typeof__(&PMPI_Neighbor_allgather) pmpi, const void *sendbuf,
			    int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
			    MPI_Datatype recvtype, MPI_Comm comm)
{
	NCOLL(nbr_bytes(c->mt, comm, sendcount, NULL, sendtype, NULL),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int hp_w_neighbor_allgatherv(struct hp_call *c, __typeof__(&PMPI_Neighbor_allgatherv) pmpi,
			     const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	NCOLL(nbr_bytes(c->mt, comm, sendcount, NULL, sendtype, NULL),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

int hp_w_neighbor_alltoallv(struct hp_call *c, __typeof__(&PMPI_Neighbor_alltoallv) pmpi,
			    const void *sendbuf, const int sendcounts[], const int sdispls[],
			    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
			    MPI_Datatype recvtype, MPI_Comm comm)
{
	NCOLL(nbr_bytes(c->mt, comm, 0, sendcounts, sendtype, NULL),
	      pmpi(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

int hp_w_neighbor_alltoallw(struct hp_call *c, __typeof__(&PMPI_Neighbor_alltoallw) pmpi,
			    const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	NCOLL(nbr_bytes(c->mt, comm, 0, sendcounts, MPI_DATATYPE_NULL, sendtypes),
	      pmpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
}

/* Ineighbor_allgather and Ineighbor_alltoall. */
int hp_w_ineighbor_allgather(struct hp_call *c, __typeof__(&PMPI_Ineighbor_allgather) pmpi,
			     const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_NBR(nbr_bytes(c->mt, comm, sendcount, NULL, sendtype, NULL),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int hp_w_ineighbor_allgatherv(struct hp_call *c, __typeof__(&PMPI_Ineighbor_allgatherv) pmpi,
			      const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			      const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
			      MPI_Request *request)
{
	ICOLL_NBR(nbr_bytes(c->mt, comm, sendcount, NULL, sendtype, NULL),
	      pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request));
}

int hp_w_ineighbor_alltoallv(struct hp_call *c, __typeof__(&PMPI_Ineighbor_alltoallv) pmpi,
			     const void *sendbuf, const int sendcounts[], const int sdispls[],
			     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
			     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_NBR(nbr_bytes(c->mt, comm, 0, sendcounts, sendtype, NULL),
	      pmpi(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
		   request));
}

int hp_w_ineighbor_alltoallw(struct hp_call *c, __typeof__(&PMPI_Ineighbor_alltoallw) pmpi,
			     const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
			     MPI_Request *request)
{
	ICOLL_NBR(nbr_bytes(c->mt, comm, 0, sendcounts, MPI_DATATYPE_NULL, sendtypes),
	      pmpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
		   request));
}
