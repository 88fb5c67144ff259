/* mpiwrap/bigcount.c - MPI-4's large-count point-to-point entry points.
 *
 * MPI_Send_c, MPI_Recv_c, ... take an MPI_Count.  Each goes through the
 * wrapper of its int-count twin, so the piggyback, the statistics and the
 * rule are the same code: a count that fits in an int is passed as is (the
 * int function is the same operation); a larger one becomes one element of
 * a contiguous type of `count` elements (MPI_Type_contiguous_c), the same
 * type map, so the same bytes on the wire and the same matching.  That type
 * lives as long as the call (blocking) or the request (freed with it, or
 * right away when the request is not one the wrappers track).  A status
 * carries bytes, so MPI_Get_count_c on the user's datatype is unchanged.
 *
 * Only where the MPI has them (HP_HAVE_MPI_BIGCOUNT, mpiwrap/CMakeLists.txt).
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <limits.h>

#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

#if defined(HP_HAVE_MPI_BIGCOUNT)

struct big {
	int n;             /* the count to pass on */
	MPI_Datatype t;    /* and its datatype */
	MPI_Datatype own;  /* the contiguous type made here, or MPI_DATATYPE_NULL */
};

static int big_in(MPI_Count count, MPI_Datatype dt, struct big *b)
{
	b->own = MPI_DATATYPE_NULL;
	b->t = dt;
	if (count <= INT_MAX) {
		/* a negative count stays negative: MPI reports it */
		b->n = count < INT_MIN ? INT_MIN : (int)count;
		return MPI_SUCCESS;
	}
	int rc = PMPI_Type_contiguous_c(count, dt, &b->own);
	if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&b->own)) != MPI_SUCCESS)
		hp_type_free_own(&b->own);
	if (rc != MPI_SUCCESS) {
		b->own = MPI_DATATYPE_NULL;
		return rc;
	}
	b->n = 1;
	b->t = b->own;
	return MPI_SUCCESS;
}

/* After a blocking call. */
static void big_done(struct big *b)
{
	if (b->own != MPI_DATATYPE_NULL)
		hp_type_free_own(&b->own);
}

/* Both counts of a send-receive call; on an error no type is left made. */
static int big_in2(MPI_Count scount, MPI_Datatype stype, MPI_Count rcount, MPI_Datatype rtype, struct big *s,
		   struct big *r)
{
	int rc = big_in(scount, stype, s);
	if (rc == MPI_SUCCESS && (rc = big_in(rcount, rtype, r)) != MPI_SUCCESS)
		big_done(s);
	return rc;
}

/* After a call that posted `req`: the request keeps the type (freed with
 * it: a receive may copy a tiny message out with it at completion, a
 * persistent request uses it at every start); untracked requests need it
 * no more (MPI keeps a type that pending communication uses). */
static void big_keep(struct big *b, int rc, MPI_Request req)
{
	if (b->own == MPI_DATATYPE_NULL)
		return;
	struct hp_req_claim cl;
	if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(req), &cl)) {
		if (cl.r->big == MPI_DATATYPE_NULL) {
			cl.r->big = b->own;
			b->own = MPI_DATATYPE_NULL;
		}
		hp_req_unclaim(&cl);
	}
	big_done(b);
}

/* The body of a large-count entry point: `call` is its twin's wrapper
 * with the count and type in b_.n, b_.t; `after` frees or keeps the type
 * (rc_ is the call's result). */
#define BIG(count, dt, call, after)                                                              \
	do {                                                                                     \
		struct big b_;                                                                   \
		int rc_ = big_in(count, dt, &b_);                                                \
		if (rc_ != MPI_SUCCESS)                                                          \
			return rc_;                                                              \
		rc_ = call;                                                                      \
		after;                                                                           \
		return rc_;                                                                      \
	} while (0)

int hp_w_send_c(struct hp_call *c, __typeof__(&PMPI_Send) pmpi, const void *buf, MPI_Count count,
		MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	BIG(count, datatype, hp_w_send(c, pmpi, buf, b_.n, b_.t, dest, tag, comm), big_done(&b_));
}

int hp_w_recv_c(struct hp_call *c, __typeof__(&PMPI_Recv) pmpi, void *buf, MPI_Count count,
		MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	BIG(count, datatype, hp_w_recv(c, pmpi, buf, b_.n, b_.t, source, tag, comm, status), big_done(&b_));
}

int hp_w_isend_c(struct hp_call *c, __typeof__(&PMPI_Isend) pmpi, const void *buf, MPI_Count count,
		 MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	BIG(count, datatype, hp_w_isend(c, pmpi, buf, b_.n, b_.t, dest, tag, comm, request),
	    big_keep(&b_, rc_, *request));
}

int hp_w_irecv_c(struct hp_call *c, __typeof__(&PMPI_Irecv) pmpi, void *buf, MPI_Count count,
		 MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	BIG(count, datatype, hp_w_irecv(c, pmpi, buf, b_.n, b_.t, source, tag, comm, request),
	    big_keep(&b_, rc_, *request));
}

int hp_w_psend_c(struct hp_call *c, __typeof__(&PMPI_Send_init) pmpi, const void *buf, MPI_Count count,
		 MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	BIG(count, datatype, hp_w_psend(c, pmpi, buf, b_.n, b_.t, dest, tag, comm, request),
	    big_keep(&b_, rc_, *request));
}

int hp_w_precv_c(struct hp_call *c, __typeof__(&PMPI_Recv_init) pmpi, void *buf, MPI_Count count,
		 MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	BIG(count, datatype, hp_w_precv(c, pmpi, buf, b_.n, b_.t, source, tag, comm, request),
	    big_keep(&b_, rc_, *request));
}

int hp_w_mrecv_c(struct hp_call *c, __typeof__(&PMPI_Mrecv) pmpi, void *buf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
	BIG(count, datatype, hp_w_mrecv(c, pmpi, buf, b_.n, b_.t, message, status), big_done(&b_));
}

int hp_w_imrecv_c(struct hp_call *c, __typeof__(&PMPI_Imrecv) pmpi, void *buf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
	BIG(count, datatype, hp_w_imrecv(c, pmpi, buf, b_.n, b_.t, message, request),
	    big_keep(&b_, rc_, *request));
}

int hp_w_sendrecv_replace_c(struct hp_call *c, __typeof__(&PMPI_Sendrecv_replace) pmpi, void *buf,
			    MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
			    int recvtag, MPI_Comm comm, MPI_Status *status)
{
	BIG(count, datatype,
	    hp_w_sendrecv_replace(c, pmpi, buf, b_.n, b_.t, dest, sendtag, source, recvtag, comm, status),
	    big_done(&b_));
}

/* Two counts: the send half's type is done with once posted (its data was
 * staged or its struct type built), the receive half's as above. */
int hp_w_sendrecv_c(struct hp_call *c, __typeof__(&PMPI_Sendrecv) pmpi, const void *sendbuf,
		    MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		    MPI_Status *status)
{
	struct big s, r;
	int rc = big_in2(sendcount, sendtype, recvcount, recvtype, &s, &r);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = hp_w_sendrecv(c, pmpi, sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm,
			   status);
	big_done(&s);
	big_done(&r);
	return rc;
}

#if defined(HP_HAVE_MPI_ISENDRECV)
int hp_w_isendrecv_c(struct hp_call *c, __typeof__(&PMPI_Isendrecv) pmpi, const void *sendbuf,
		     MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		     MPI_Request *request)
{
	struct big s, r;
	int rc = big_in2(sendcount, sendtype, recvcount, recvtype, &s, &r);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = hp_w_isendrecv(c, pmpi, sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm,
			    request);
	big_done(&s); /* the send half was staged or its struct type built at the post */
	big_keep(&r, rc, *request);
	return rc;
}

int hp_w_isendrecv_replace_c(struct hp_call *c, __typeof__(&PMPI_Isendrecv_replace) pmpi, void *buf,
			     MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
			     int recvtag, MPI_Comm comm, MPI_Request *request)
{
	BIG(count, datatype,
	    hp_w_isendrecv_replace(c, pmpi, buf, b_.n, b_.t, dest, sendtag, source, recvtag, comm, request),
	    big_keep(&b_, rc_, *request));
}
#endif

#endif /* HP_HAVE_MPI_BIGCOUNT */
