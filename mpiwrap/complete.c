/* mpiwrap/complete.c - Wait, Test and their kinds: the rule at completion.
 *
 * A non-blocking receive's piggyback is only known when the request
 * completes, so the rule of comp.h is applied in the call that completes it,
 * with that call's duration as the wait (ALGORITHMS.md section 4).  When one
 * call completes several receives (Waitall, Waitsome, Testall, ...) their
 * messages are joined into one approximation of the call.  Before calling
 * PMPI the wrapper claims the table entries of the requests it was given
 * (their handles are overwritten by MPI_REQUEST_NULL on completion), then
 * finishes those that completed and puts the others back.
 *
 * A cancelled request, MPI_PROC_NULL, and an inactive persistent request
 * carry no piggyback.  Requests the user frees while active
 * (MPI_Request_free) become orphans: still owned by the wrappers, tested at
 * the end of every later wrapped call, their packed data copied to the
 * user's buffer when they complete.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

/* ---- one completion ------------------------------------------------------------ */

void hp_complete_begin(struct hp_call *c, struct hp_compl *k)
{
	int64_t pre = (int64_t)(c->t1 - c->t0);
	hp_comp_begin(&k->comp, (int64_t)c->t1, (int64_t)*c->mt->x + pre);
	k->last_s = INT64_MIN;
	k->crit_peer = -1;
	k->nmsg = 0;
}

/* Free the datatypes r owns: its struct type, a large-count call's type
 * (MPI keeps a type in use by pending communication). */
static void free_types(struct hp_req *r)
{
	if (r->upin) {
		r->upin = 0;
		hp_type_unpin(r->utype);
	}
	if (r->st_owned && r->st != MPI_DATATYPE_NULL)
		PMPI_Type_free(&r->st);
	if (r->big != MPI_DATATYPE_NULL)
		hp_type_free_own(&r->big);
}

void hp_req_done(struct hp_req *r)
{
	if (r->half)
		hp_req_done(r->half);
	free_types(r);
	hp_req_free(r);
}

/* Give the request's resources back and forget it (non-persistent), or mark
 * it inactive (persistent). */
static void retire(struct hp_req_claim *cl)
{
	struct hp_req *r = cl->r;
	if (r->kind == HP_RQ_PSEND || r->kind == HP_RQ_PRECV) {
		r->active = 0;
		hp_req_unclaim(cl);
		return;
	}
	hp_req_release(cl);
	/* an Isendrecv: its send half too (Wait and Waitall; the other
	 * completion calls see it complete before they let the receive half
	 * complete) */
	if (r->half_req != MPI_REQUEST_NULL)
		PMPI_Wait(&r->half_req, MPI_STATUS_IGNORE);
	if (r->kind == HP_RQ_COLL && r->xreq != MPI_REQUEST_NULL)
		PMPI_Wait(&r->xreq, MPI_STATUS_IGNORE); /* completed in error: the exchange still ends */
	if (HP_LIKELY(!r->half && !r->st_owned && !r->upin && r->big == MPI_DATATYPE_NULL))
		hp_req_free(r); /* owns nothing more (hp_req_done's common case) */
	else
		hp_req_done(r);
}

/* A receive request completed with status st: data, status, statistics;
 * returns 1 with the piggyback in *pb when it carried one. */
static int recv_done(struct hp_mt *mt, struct hp_req *r, MPI_Status *st, struct hp_pb *pb,
		     uint64_t *user)
{
	*user = 0;
	int64_t n = hp_status_bytes(st);
	if (n == MPI_UNDEFINED)
		n = 0;
	if (r->scheme == HP_SCH_NONE) {
		*user = n > 0 ? (uint64_t)n : 0;
		return 0;
	}
	/* r->bytes is the receive's capacity: a truncated message reports its
	 * whole length in the status (Open MPI) while only the capacity
	 * arrived, so no copy goes past it */
	uint32_t hdr = 0;
	int64_t u = hp_pb_split(n, &hdr);
	if (u < 0) {
		if (!r->delivered) {
			mt->tot.untracked++;
			if (r->scheme == HP_SCH_PACKED && n > 0)
				hp_copy_out(mt, r->ubuf, r->utype, r->stage, (uint64_t)n, r->bytes);
		}
		r->delivered = 1;
		*user = n > 0 ? (uint64_t)n : 0;
		return 0;
	}
	*user = (uint64_t)u;
	if (!r->delivered) {
		if (r->scheme == HP_SCH_PACKED) {
			/* the piggyback goes to the request's slot too, where a
			 * completion after MPI_Request_get_status finds it; a
			 * truncated message delivers no more than was posted */
			uint64_t got = (uint64_t)r->posted > hdr ? (uint64_t)r->posted - hdr : 0;
			if ((uint64_t)r->posted >= hdr)
				hp_pb_get(&r->pb, r->stage, hdr);
			hp_copy_out(mt, r->ubuf, r->utype, r->stage + hdr, *user < got ? *user : got, r->bytes);
		} else if (hdr == HP_PB_COMPACT) {
			/* a tiny message into a struct receive: all in the slot */
			hp_copy_out(mt, r->ubuf, r->utype, (const char *)&r->pb + HP_PB_COMPACT, *user, r->bytes);
			hp_pb_get(&r->pb, &r->pb, hdr);
		}
	}
	r->delivered = 1;
	memcpy(pb, &r->pb, hp_mpi.pb_size);
	hp_status_set_bytes(st, (int64_t)*user);
	return 1;
}

/* A receive that completed in error: with MPI_ERR_TRUNCATE the buffer holds
 * the message's first `capacity` bytes, as without the wrappers, and the
 * status counts the user's bytes; no rule (the message is not what the
 * program expected).  Other errors leave the buffer undefined. */
static void recv_failed(struct hp_call *c, struct hp_req *r, MPI_Status *st, int err)
{
	if (err != MPI_ERR_TRUNCATE || !r->active || (r->kind != HP_RQ_RECV && r->kind != HP_RQ_PRECV) ||
	    st->MPI_SOURCE == MPI_PROC_NULL)
		return;
	struct hp_pb pb;
	uint64_t user;
	recv_done(c->mt, r, st, &pb, &user);
	c->bytes += user;
}

/* A non-blocking collective completed: its delay exchange (coll.c),
 * started by every member right after its initiation, is complete or about
 * to be (the user's collective needed every member's initiation too); the
 * members that count join the call's rule as one event. */
static void coll_done(struct hp_call *c, struct hp_compl *k, struct hp_req *r)
{
	uint64_t t0 = hp_rdtsc();
	int rc = PMPI_Wait(&r->xreq, MPI_STATUS_IGNORE);
	hp_charge_pb(c, hp_rdtsc() - t0);
	if (rc != MPI_SUCCESS || !r->xjoin)
		return;
	if (r->stage) { /* a neighbourhood collective: its in-neighbours (reqtab.h) */
		for (int i = 0; i < r->ucount; i++) {
			const int64_t *e = (const int64_t *)(const void *)r->stage + 2 * i;
			if (e[0] == INT64_MIN)
				continue;
			hp_comp_join_max(&k->comp, e[0], e[1]);
			k->nmsg++;
		}
		return;
	}
	const int64_t *v = r->xbcast ? r->xin : r->xout; /* a broadcast's result is in place */
	hp_comp_join_max(&k->comp, v[0], v[1]);
	k->nmsg++;
}

void hp_complete_one(struct hp_call *c, struct hp_compl *k, struct hp_req *r, MPI_Status *st)
{
	struct hp_mt *mt = c->mt;
	if (!r->active)
		return; /* inactive persistent request: empty status */
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	if (cancelled) {
		mt->tot.cancelled++;
		return;
	}
	if (r->kind == HP_RQ_COLL) {
		coll_done(c, k, r);
		return;
	}
	if (r->kind != HP_RQ_RECV && r->kind != HP_RQ_PRECV)
		return; /* sends: counted when posted */
	if (st->MPI_SOURCE == MPI_PROC_NULL)
		return;
	struct hp_pb pb;
	uint64_t user;
	int has = recv_done(mt, r, st, &pb, &user);
	hp_charge_pb(c, hp_mpi.pbc_req + (r->scheme == HP_SCH_PACKED
						 ? hp_pbc_packed(hp_mpi.pbc_recv, user)
						 : r->scheme == HP_SCH_STRUCT ? hp_mpi.pbc_struct_recv : 0));
	/* the table kept from the post: the communicator may be freed by now */
	int src_world = hp_req_world(r, st->MPI_SOURCE);
	hp_site_add_bytes(mt, (const struct hp_site *)r->site_meta, user);
	hp_peer_add(mt, r->site_key, src_world, 1, 1, user, 0, 0, 0);
	c->bytes += user;
	if (has) {
		int64_t xs = hp_ns_to_cyc(pb.delay_ns);
		int64_t s = (int64_t)c->t2;
		if (pb.send_tsc && hp_pb_same_clock(src_world) && (int64_t)pb.send_tsc < s)
			s = (int64_t)pb.send_tsc;
		hp_comp_msg(&k->comp, s, xs);
		if (s > k->last_s) {
			k->last_s = s;
			k->crit_peer = src_world;
		}
		k->nmsg++;
		if (r->any_source && r->comm != MPI_COMM_NULL)
			hp_reorder_note(mt, (uintptr_t)r->comm, r->tag, src_world, s - xs);
		if (hp_mpi.ext && hp_mpi.ext->recv)
			hp_mpi.ext->recv(&pb, src_world);
		mt->tot.pb_recv++;
	} else if (k->crit_peer < 0) {
		k->crit_peer = src_world;
	}
}

void hp_complete_end(struct hp_call *c, struct hp_compl *k)
{
	struct hp_mt *mt = c->mt;
	if (k->nmsg > 0) {
		int64_t pre = (int64_t)(c->t1 - c->t0);
		int64_t xn = hp_comp_delay(&k->comp) - pre;
		*mt->x = xn > 0 ? (uint64_t)xn : 0;
		c->wait_raw = hp_comp_wait_raw(&k->comp);
		c->wait_comp = hp_comp_wait_approx(&k->comp);
	} else if (k->crit_peer >= 0) {
		/* receives without piggyback (compensation off): the call's time */
		c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	}
	if (k->crit_peer >= 0) {
		struct hp_site *s = hp_site_get(c);
		hp_peer_add(mt, s->key, k->crit_peer, 1, 0, 0, (int64_t)(c->t2 - c->t1), c->wait_raw,
			    c->wait_comp);
	}
}

/* ---- claims over arrays -------------------------------------------------------- */

static struct hp_req_claim *claim_all(struct hp_call *c, int n, const MPI_Request *reqs, int *any)
{
	*any = 0;
	if (n <= 0)
		return NULL;
	struct hp_req_claim *cl = hp_scratch(c->mt, sizeof(*cl) * (size_t)n + sizeof(MPI_Status) * (size_t)n);
	if (!cl)
		return NULL;
	for (int i = 0; i < n; i++) {
		cl[i].r = NULL;
		if (reqs[i] != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(reqs[i]), &cl[i]))
			*any = 1;
	}
	return cl;
}

/* Statuses the wrapper needs even when the user ignores them. */
static MPI_Status *statuses(struct hp_req_claim *cl, int n, MPI_Status *user)
{
	if (user != MPI_STATUSES_IGNORE)
		return user;
	return (MPI_Status *)(void *)(cl + n);
}

static void unclaim_rest(struct hp_req_claim *cl, int n)
{
	for (int i = 0; i < n; i++)
		if (cl[i].r)
			hp_req_unclaim(&cl[i]);
}

static void finish_one(struct hp_call *c, struct hp_compl *k, struct hp_req_claim *cl, MPI_Status *st)
{
	hp_complete_one(c, k, cl->r, st);
	retire(cl);
}

/* The request completed with error `err`: what a truncated receive
 * delivers, then forget it. */
static void finish_failed(struct hp_call *c, struct hp_req_claim *cl, MPI_Status *st, int err)
{
	recv_failed(c, cl->r, st, err);
	retire(cl);
}

/* ---- Isendrecv's send half --------------------------------------------------------- */

/* Whether r is an Isendrecv whose send half is still in flight (tested
 * now: the user's request must not complete before it). */
static int half_pending(struct hp_req *r)
{
	if (r->half_req == MPI_REQUEST_NULL)
		return 0;
	int flag = 0;
	if (PMPI_Test(&r->half_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		r->half_req = MPI_REQUEST_NULL; /* in error: it will not complete */
		return 0;
	}
	return !flag;
}

/* Before a Test call over an array: the requests whose send half is in
 * flight are hidden from MPI (MPI_REQUEST_NULL in the user's array for the
 * call, put back by show_halves).  Returns the saved handles (NULL: none
 * hidden, or no memory: then nothing is hidden and a completion may wait
 * for a send half). */
static MPI_Request *hide_halves(struct hp_req_claim *cl, int n, MPI_Request *reqs)
{
	MPI_Request *saved = NULL;
	for (int i = 0; i < n; i++) {
		if (!cl[i].r || !half_pending(cl[i].r))
			continue;
		if (!saved) {
			saved = malloc(sizeof(*saved) * (size_t)n);
			if (!saved)
				return NULL;
			for (int j = 0; j < n; j++)
				saved[j] = MPI_REQUEST_NULL;
		}
		saved[i] = reqs[i];
		reqs[i] = MPI_REQUEST_NULL;
	}
	return saved;
}

static void show_halves(MPI_Request *saved, int n, MPI_Request *reqs)
{
	if (!saved)
		return;
	for (int i = 0; i < n; i++)
		if (saved[i] != MPI_REQUEST_NULL)
			reqs[i] = saved[i];
	free(saved);
}

/* A Test kind that found an Isendrecv's send half in flight (its claims
 * given back): not complete, nothing changed. */
static int not_complete(struct hp_call *c, int *flag)
{
	*flag = 0;
	hp_call_t2(c);
	return MPI_SUCCESS;
}

/* Whether a claimed entry is an Isendrecv whose send half is in flight:
 * Waitany and Waitsome then poll (the Test kind with those hidden) so that
 * another request completing first is reported first, as MPI's own
 * Isendrecv request would let it. */
static int any_half_pending(const struct hp_req_claim *cl, int n)
{
	for (int i = 0; i < n; i++)
		if (cl[i].r && half_pending(cl[i].r))
			return 1;
	return 0;
}

/* ---- the wrappers ---------------------------------------------------------------- */

int hp_w_wait(struct hp_call *c, __typeof__(&PMPI_Wait) pmpi, MPI_Request *request, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	struct hp_req_claim cl;
	int known = *request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(*request), &cl);
	int rc = pmpi(request, st);
	hp_call_t2(c);
	if (known) {
		struct hp_compl k;
		hp_complete_begin(c, &k);
		if (rc == MPI_SUCCESS)
			finish_one(c, &k, &cl, st);
		else if (*request == MPI_REQUEST_NULL || rc == MPI_ERR_TRUNCATE)
			finish_failed(c, &cl, st, rc); /* completed in error */
		else
			hp_req_unclaim(&cl);
		hp_complete_end(c, &k);
	}
	return rc;
}

int hp_w_test(struct hp_call *c, __typeof__(&PMPI_Test) pmpi, MPI_Request *request, int *flag,
	      MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	struct hp_req_claim cl;
	int known = *request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(*request), &cl);
	if (known && half_pending(cl.r)) {
		hp_req_unclaim(&cl);
		return not_complete(c, flag);
	}
	int rc = pmpi(request, flag, st);
	hp_call_t2(c);
	if (known) {
		struct hp_compl k;
		hp_complete_begin(c, &k);
		if (rc == MPI_SUCCESS && *flag)
			finish_one(c, &k, &cl, st);
		else if (rc != MPI_SUCCESS && (*request == MPI_REQUEST_NULL || rc == MPI_ERR_TRUNCATE))
			finish_failed(c, &cl, st, rc); /* completed in error */
		else
			hp_req_unclaim(&cl);
		hp_complete_end(c, &k);
	}
	return rc;
}

/* After Waitall or Testall returned rc having completed all (done = 1) or,
 * with MPI_ERR_IN_STATUS, those whose status says so. */
static void finish_all(struct hp_call *c, struct hp_req_claim *cl, int n, MPI_Status *sts, int rc,
		       int done)
{
	struct hp_compl k;
	hp_complete_begin(c, &k);
	for (int i = 0; i < n; i++) {
		if (!cl[i].r)
			continue;
		if (rc == MPI_SUCCESS && done) {
			finish_one(c, &k, &cl[i], &sts[i]);
		} else if (rc == MPI_ERR_IN_STATUS && sts != MPI_STATUSES_IGNORE) {
			if (sts[i].MPI_ERROR == MPI_SUCCESS)
				finish_one(c, &k, &cl[i], &sts[i]);
			else if (sts[i].MPI_ERROR == MPI_ERR_PENDING)
				hp_req_unclaim(&cl[i]);
			else
				finish_failed(c, &cl[i], &sts[i], sts[i].MPI_ERROR);
		} else {
			hp_req_unclaim(&cl[i]);
		}
	}
	hp_complete_end(c, &k);
}

int hp_w_waitall(struct hp_call *c, __typeof__(&PMPI_Waitall) pmpi, int count,
		 MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
	int any;
	struct hp_req_claim *cl = claim_all(c, count, array_of_requests, &any);
	if (!any) {
			int rc = pmpi(count, array_of_requests, array_of_statuses);
		hp_call_t2(c);
		return rc;
	}
	MPI_Status *sts = statuses(cl, count, array_of_statuses);
	int rc = pmpi(count, array_of_requests, sts);
	hp_call_t2(c);
	finish_all(c, cl, count, sts, rc, 1);
	return rc;
}

int hp_w_testall(struct hp_call *c, __typeof__(&PMPI_Testall) pmpi, int count,
		 MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
	int any;
	struct hp_req_claim *cl = claim_all(c, count, array_of_requests, &any);
	if (!any) {
			int rc = pmpi(count, array_of_requests, flag, array_of_statuses);
		hp_call_t2(c);
		return rc;
	}
	for (int i = 0; i < count; i++) {
		if (cl[i].r && half_pending(cl[i].r)) {
			unclaim_rest(cl, count); /* not all complete: none changes */
			return not_complete(c, flag);
		}
	}
	MPI_Status *sts = statuses(cl, count, array_of_statuses);
	int rc = pmpi(count, array_of_requests, flag, sts);
	hp_call_t2(c);
	finish_all(c, cl, count, sts, rc, rc == MPI_SUCCESS && *flag);
	return rc;
}

/* Waitany / Testany: one completed at *index (or none). */
static void finish_index(struct hp_call *c, struct hp_req_claim *cl, int n, int idx, MPI_Status *st,
			 int rc)
{
	struct hp_compl k;
	hp_complete_begin(c, &k);
	for (int i = 0; i < n; i++) {
		if (!cl[i].r)
			continue;
		if (i == idx && rc == MPI_SUCCESS)
			finish_one(c, &k, &cl[i], st);
		else if (i == idx)
			finish_failed(c, &cl[i], st, rc); /* completed in error */
		else
			hp_req_unclaim(&cl[i]);
	}
	hp_complete_end(c, &k);
}

int hp_w_waitany(struct hp_call *c, __typeof__(&PMPI_Waitany) pmpi, int count,
		 MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int any;
	struct hp_req_claim *cl = claim_all(c, count, array_of_requests, &any);
	int rc;
	if (any && any_half_pending(cl, count)) {
		for (;;) {
			int flag = 0;
			MPI_Request *hidden = hide_halves(cl, count, array_of_requests);
			rc = PMPI_Testany(count, array_of_requests, index, &flag, st);
			show_halves(hidden, count, array_of_requests);
			if (rc != MPI_SUCCESS || (flag && (*index != MPI_UNDEFINED || !hidden)))
				break;
		}
	} else {
		rc = pmpi(count, array_of_requests, index, st);
	}
	hp_call_t2(c);
	if (any)
		finish_index(c, cl, count, *index == MPI_UNDEFINED ? -1 : *index, st, rc);
	return rc;
}

int hp_w_testany(struct hp_call *c, __typeof__(&PMPI_Testany) pmpi, int count,
		 MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int any;
	struct hp_req_claim *cl = claim_all(c, count, array_of_requests, &any);
	MPI_Request *hidden = any ? hide_halves(cl, count, array_of_requests) : NULL;
	int rc = pmpi(count, array_of_requests, index, flag, st);
	hp_call_t2(c);
	show_halves(hidden, count, array_of_requests);
	if (hidden && rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED)
		*flag = 0; /* "no active request" is not true: one is pending */
	if (any)
		finish_index(c, cl, count, (*flag && *index != MPI_UNDEFINED) ? *index : -1, st, rc);
	return rc;
}

/* Waitsome and Testsome (one class: the same parameters). */
int hp_w_waitsome(struct hp_call *c, __typeof__(&PMPI_Waitsome) pmpi, int incount,
		  MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
		  MPI_Status array_of_statuses[])
{
	int any;
	struct hp_req_claim *cl = claim_all(c, incount, array_of_requests, &any);
	if (!any) {
			int rc = pmpi(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
		hp_call_t2(c);
		return rc;
	}
	MPI_Status *sts = statuses(cl, incount, array_of_statuses);
	int rc;
	if (pmpi == PMPI_Testsome) {
		/* no send half in flight may complete here */
		MPI_Request *hidden = hide_halves(cl, incount, array_of_requests);
		rc = pmpi(incount, array_of_requests, outcount, array_of_indices, sts);
		show_halves(hidden, incount, array_of_requests);
		if (hidden && rc == MPI_SUCCESS && *outcount == MPI_UNDEFINED)
			*outcount = 0; /* "no active request" is not true: one is pending */
	} else if (any_half_pending(cl, incount)) {
		for (;;) {
			MPI_Request *hidden = hide_halves(cl, incount, array_of_requests);
			rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, sts);
			show_halves(hidden, incount, array_of_requests);
			if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount > 0 ||
			    (*outcount == MPI_UNDEFINED && !hidden))
				break;
		}
	} else {
		rc = pmpi(incount, array_of_requests, outcount, array_of_indices, sts);
	}
	hp_call_t2(c);
	struct hp_compl k;
	hp_complete_begin(c, &k);
	if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
		for (int j = 0; j < *outcount; j++) {
			int i = array_of_indices[j];
			if (i < 0 || i >= incount || !cl[i].r)
				continue;
			/* statuses are in the order of the indices */
			if (rc == MPI_SUCCESS || sts[j].MPI_ERROR == MPI_SUCCESS)
				finish_one(c, &k, &cl[i], &sts[j]);
			else
				finish_failed(c, &cl[i], &sts[j], sts[j].MPI_ERROR);
		}
	}
	unclaim_rest(cl, incount);
	hp_complete_end(c, &k);
	return rc;
}

int hp_w_request_get_status(struct hp_call *c, __typeof__(&PMPI_Request_get_status) pmpi,
			    MPI_Request request, int *flag, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	struct hp_req_claim cl;
	int known = request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(request), &cl);
	if (known && half_pending(cl.r)) {
		hp_req_unclaim(&cl);
		return not_complete(c, flag);
	}
	int rc = pmpi(request, flag, st);
	hp_call_t2(c);
	if (known) {
		/* The request stays, but the operation is complete: the user may
		 * read the buffer now, so a packed receive's data is copied out
		 * (once: the completion that follows takes the piggyback from the
		 * request and does not copy again), and the status is fixed.  The
		 * rule waits for the call that completes the request. */
		struct hp_req *r = cl.r;
		int cancelled = 0;
		if (rc == MPI_SUCCESS && *flag && r->active && r->scheme != HP_SCH_NONE &&
		    (r->kind == HP_RQ_RECV || r->kind == HP_RQ_PRECV) && st->MPI_SOURCE != MPI_PROC_NULL &&
		    PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && !cancelled) {
			struct hp_pb pb;
			uint64_t user;
			recv_done(c->mt, r, st, &pb, &user);
		}
		hp_req_unclaim(&cl);
	}
	return rc;
}

/* MPI_Cancel: an Isendrecv posted as two halves cancels both (cancelling
 * the user's request, the receive half, alone would leave its completion
 * waiting for a send half that no receive may ever match).  Its status is
 * the receive half's. */
int hp_w_cancel(struct hp_call *c, __typeof__(&PMPI_Cancel) pmpi, MPI_Request *request)
{
	struct hp_req_claim cl;
	int known = *request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(*request), &cl);
	int rc = pmpi(request);
	if (known) {
		if (rc == MPI_SUCCESS && cl.r->half_req != MPI_REQUEST_NULL)
			PMPI_Cancel(&cl.r->half_req);
		hp_req_unclaim(&cl);
	}
	hp_call_t2(c);
	return rc;
}

/* ---- requests the user frees while active --------------------------------------- */

struct orphan {
	struct orphan *next;
	MPI_Request req;
	struct hp_req *r;
};

static pthread_mutex_t orphan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct orphan *orphans;
int hp_orphans_pending;

int hp_w_request_free(struct hp_call *c, __typeof__(&PMPI_Request_free) pmpi, MPI_Request *request)
{
	struct hp_req_claim cl;
	int known = *request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(*request), &cl);
	if (known && cl.r->active &&
	    ((cl.r->scheme == HP_SCH_PACKED && (cl.r->kind == HP_RQ_RECV || cl.r->kind == HP_RQ_SEND)) ||
	     (cl.r->half && cl.r->half->scheme != HP_SCH_NONE))) {
		/* our staging buffer (or an Isendrecv's send half) must outlive
		 * the request: keep it */
		struct orphan *o = malloc(sizeof(*o));
		if (o) {
			o->req = *request;
			o->r = cl.r;
			hp_req_release(&cl);
			pthread_mutex_lock(&orphan_lock);
			o->next = orphans;
			orphans = o;
			__atomic_store_n(&hp_orphans_pending, 1, __ATOMIC_RELEASE);
			pthread_mutex_unlock(&orphan_lock);
			c->mt->tot.orphans++;
			*request = MPI_REQUEST_NULL;
			return MPI_SUCCESS;
		}
	}
	int rc = pmpi(request);
	hp_call_t2(c);
	if (known) {
		if (rc == MPI_SUCCESS) {
			/* persistent, or the struct scheme whose data lands in place:
			 * MPI completes it; our datatype may be freed now (MPI keeps
			 * it while in use), the piggyback slot must stay */
			struct hp_req *r = cl.r;
			hp_req_release(&cl);
			free_types(r);
			if ((!r->active || r->scheme == HP_SCH_NONE) && r->half_req == MPI_REQUEST_NULL)
				hp_req_done(r);
			/* else: an active request (struct scheme, or persistent and
			 * started, or packed or an Isendrecv's send half when no
			 * orphan could be allocated) whose piggyback slot or staging
			 * buffer is part of a message still in flight: the object is
			 * left allocated */
		} else {
			hp_req_unclaim(&cl);
		}
	}
	return rc;
}

void hp_orphans_poll(struct hp_mt *mt)
{
	if (pthread_mutex_trylock(&orphan_lock) != 0)
		return; /* another thread is at it */
	struct orphan **pp = &orphans;
	while (*pp) {
		struct orphan *o = *pp;
		int flag = 1;
		MPI_Status st;
		if (o->req != MPI_REQUEST_NULL) {
			int ok = PMPI_Test(&o->req, &flag, &st) == MPI_SUCCESS;
			if (!ok) {
				flag = 1;
				o->req = MPI_REQUEST_NULL;
			}
			if (ok && flag && o->r->kind == HP_RQ_RECV) {
				int cancelled = 0;
				PMPI_Test_cancelled(&st, &cancelled);
				struct hp_pb pb;
				uint64_t user;
				if (!cancelled && st.MPI_SOURCE != MPI_PROC_NULL)
					recv_done(mt, o->r, &st, &pb, &user);
			}
		}
		/* an Isendrecv's send half ends too before its staging goes */
		if (flag && o->r->half_req != MPI_REQUEST_NULL &&
		    PMPI_Test(&o->r->half_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			flag = 1;
			o->r->half_req = MPI_REQUEST_NULL;
		}
		if (flag) {
			*pp = o->next;
			hp_req_done(o->r);
			free(o);
		} else {
			pp = &o->next; /* never completed: left to MPI_Finalize */
		}
	}
	__atomic_store_n(&hp_orphans_pending, orphans != NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&orphan_lock);
}
