/* mpiwrap/p2p.c - point-to-point wrappers: piggyback and compensation.
 *
 * Every message sent through the wrappers carries struct hp_pb in front of
 * the user's data when parallel compensation is on (hp_mpi.pb_on, the same
 * on every rank, agreed at MPI_Init).  Sends choose a packed copy for small
 * contiguous data and a struct datatype otherwise (types.c); receives
 * choose the same way from their own buffer's capacity, which works because
 * both ways put the same bytes on the wire.  Receives then fix the status
 * (the user's counts never include the piggyback) and apply the rule of
 * comp.h.  MPI_PROC_NULL never carries a piggyback; neither does anything
 * when compensation is off (the wrappers then only keep statistics).
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

/* ---- piggyback helpers ----------------------------------------------------- */

void hp_pb_fill(struct hp_mt *mt, struct hp_pb *pb, uint64_t now, uint64_t pre)
{
	pb->delay_ns = hp_cyc_to_ns((int64_t)(*mt->x + pre));
	pb->send_tsc = now;
	if (hp_mpi.ext && hp_mpi.ext->send)
		hp_mpi.ext->send(pb);
}

uint64_t hp_status_fix(MPI_Status *st)
{
	uint32_t hdr;
	int64_t user = hp_pb_split(hp_status_bytes(st), &hdr);
	if (user < 0)
		return 0; /* no piggyback (not one of ours): the count stands */
	hp_status_set_bytes(st, user);
	return (uint64_t)user;
}

void hp_reorder_note(struct hp_mt *mt, uintptr_t comm, int tag, int src_world, int64_t approx_send)
{
	uint32_t h = (uint32_t)(((uint64_t)comm * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)tag) >> 40);
	struct hp_reorder_slot *s = &mt->ro[h % HP_REORDER];
	if (!s->used || s->comm != comm || s->tag != tag) {
		s->used = 1;
		s->comm = comm;
		s->tag = tag;
		hp_reorder_init(&s->r);
	}
	if (hp_reorder_check(&s->r, src_world, approx_send))
		mt->tot.reordered++;
}

/* The rule for one message received by a blocking call whose PMPI part ran
 * from t1 to t2.  Sets the call's waits and moves x_p. */
static inline __attribute__((always_inline)) void recv_rule(struct hp_call *c, const struct hp_pb *pb,
							     int src_world, int any_source, MPI_Comm comm,
							     int tag)
{
	struct hp_mt *mt = c->mt;
	int64_t pre = (int64_t)(c->t1 - c->t0);
	int64_t xb = (int64_t)*mt->x + pre; /* our delay when the receive began */
	struct hp_comp k;
	hp_comp_begin(&k, (int64_t)c->t1, xb);
	int64_t xs = hp_ns_to_cyc(pb->delay_ns);
	int64_t s = (int64_t)c->t2;
	if (pb->send_tsc && hp_pb_same_clock(src_world) && (int64_t)pb->send_tsc < s)
		s = (int64_t)pb->send_tsc;
	hp_comp_msg(&k, s, xs);
	int64_t xn = hp_comp_delay(&k) - pre;
	*mt->x = xn > 0 ? (uint64_t)xn : 0;
	c->wait_raw = hp_comp_wait_raw(&k);
	c->wait_comp = hp_comp_wait_approx(&k);
	if (any_source)
		hp_reorder_note(mt, (uintptr_t)comm, tag, src_world, s - xs);
	if (hp_mpi.ext && hp_mpi.ext->recv)
		hp_mpi.ext->recv(pb, src_world);
	mt->tot.pb_recv++;
}

/* How a piggyback travels with `bytes` of data of this type: a packed
 * copy for small contiguous data, and for every tiny message when the
 * compact form is on (its 2-byte header cannot be a struct's slot). */
static inline int use_packed(const struct hp_typeinfo *ti, uint64_t bytes)
{
	return (ti->contig && bytes <= hp_mpi.pack_max) ||
	       (hp_mpi.pb_compact && bytes <= HP_PB_COMPACT_MAX);
}

/* The blocking calls' fast path: small contiguous data sent as a packed
 * copy (use_packed) when no extension fills the piggyback: the messages
 * whose latency shows a wrapper's every instruction.  The same bytes on
 * the wire as send_prepare/recv_prepare put there, through a buffer on the
 * stack, without the general plan's steps (bench/mpi: ping-pong, 8 B). */
#define HP_FAST_MAX 512
static inline int fast_ok(const struct hp_typeinfo *ti, uint64_t bytes)
{
	return ti->contig && bytes <= HP_FAST_MAX && !hp_mpi.ext && use_packed(ti, bytes);
}

/* memcpy of the fast path's small sizes: 8 to 16 bytes as two overlapping
 * 8-byte moves, without a call into the C library */
static inline void copy_small(void *dst, const void *src, size_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a, b;
		memcpy(&a, src, 8);
		memcpy(&b, (const char *)src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy((char *)dst + n - 8, &b, 8);
	} else if (n) {
		memcpy(dst, src, n);
	}
}

/* MPI_Pack (pack = 1) or MPI_Unpack of count x dt at ubuf.  MPICH refuses a
 * NULL user buffer, and its MPI_BOTTOM is NULL: data at MPI_BOTTOM
 * (absolute addresses in the type) goes through a one-block hindexed copy
 * of the type displaced by -1, from address 1 (rare: tiny or Sendrecv_replace
 * data with absolute addresses). */
static int pack_user(int pack, void *ubuf, int count, MPI_Datatype dt, void *packed, int size, int *pos,
		     MPI_Comm comm)
{
	MPI_Datatype t = dt;
	if (ubuf == MPI_BOTTOM && ubuf == NULL && count > 0) {
		int bl[1] = {count};
		MPI_Aint d[1] = {-1};
		if (PMPI_Type_create_hindexed(1, bl, d, dt, &t) != MPI_SUCCESS)
			return MPI_ERR_TYPE;
		if (PMPI_Type_commit(&t) != MPI_SUCCESS) {
			PMPI_Type_free(&t);
			return MPI_ERR_TYPE;
		}
		ubuf = (void *)(uintptr_t)1;
		count = 1;
	}
	int rc = pack ? PMPI_Pack(ubuf, count, t, packed, size, pos, comm)
		      : PMPI_Unpack(packed, size, pos, ubuf, count, t, comm);
	if (t != dt)
		PMPI_Type_free(&t);
	return rc;
}

/* The user's data into a packed copy, and out of one (`bytes` of data,
 * at most `cap` delivered); non-contiguous types (tiny ones, see
 * use_packed) through MPI_Pack and MPI_Unpack. */
static void copy_in(char *dst, const void *buf, int count, MPI_Datatype dt,
		    const struct hp_typeinfo *ti, uint64_t bytes)
{
	if (!bytes)
		return;
	if (ti->contig) {
		memcpy(dst, buf, bytes);
	} else {
		int pos = 0;
		pack_user(1, (void *)(uintptr_t)buf, count, dt, dst, (int)bytes, &pos, MPI_COMM_WORLD);
	}
}

void hp_copy_out(struct hp_mt *mt, void *ubuf, MPI_Datatype dt, const char *src, uint64_t bytes,
		 uint64_t cap)
{
	uint64_t n = bytes < cap ? bytes : cap;
	if (!n)
		return;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, dt);
	if (ti->contig || ti->size <= 0) {
		memcpy(ubuf, src, n);
	} else {
		/* whole elements by MPI_Unpack; a partial last element (a
		 * message shorter than the type, MPI 3.1 section 3.3.1, into
		 * the slot of a struct receive or a packed copy) would be lost
		 * by it: that element's current contents are packed, its first
		 * bytes replaced by the received ones, and all unpacked back */
		uint64_t whole = n / (uint64_t)ti->size, rest = n % (uint64_t)ti->size;
		int pos = 0;
		if (whole)
			pack_user(0, ubuf, (int)whole, dt, (void *)(uintptr_t)src, (int)(whole * (uint64_t)ti->size),
				  &pos, MPI_COMM_WORLD);
		char *tmp = rest ? malloc((size_t)ti->size) : NULL;
		if (tmp) {
			void *last = (char *)ubuf + (int64_t)whole * ti->extent;
			pos = 0;
			pack_user(1, last, 1, dt, tmp, (int)ti->size, &pos, MPI_COMM_WORLD);
			memcpy(tmp, src + whole * (uint64_t)ti->size, rest);
			pos = 0;
			pack_user(0, last, 1, dt, tmp, (int)ti->size, &pos, MPI_COMM_WORLD);
			free(tmp);
		}
	}
}

/* ---- sends ------------------------------------------------------------------ */

/* Prepare the message of a blocking send: returns the buffer, count and type
 * to hand to PMPI, in *b, *n, *t.  Fills the piggyback at the last moment.
 * Returns 0, or an MPI error code (out of memory). */
static int send_prepare(struct hp_call *c, const void *buf, int count, MPI_Datatype dt,
			const struct hp_typeinfo *ti, const void **b, int *n, MPI_Datatype *t)
{
	struct hp_mt *mt = c->mt;
	uint64_t bytes = (uint64_t)count * (uint64_t)ti->size;
	if (use_packed(ti, bytes)) {
		uint32_t hdr = hp_pb_hdr(bytes);
		char *st = hp_stage(mt, 0, hdr + bytes);
		if (!st)
			return MPI_ERR_NO_MEM;
		copy_in(st + hdr, buf, count, dt, ti, bytes);
		uint64_t cost = hp_pbc_packed(hp_mpi.pbc_send, bytes);
		hp_pb_fill(mt, &mt->pb_s, c->t0, cost);
		hp_pb_put(st, &mt->pb_s, hdr);
		*b = st;
		*n = (int)(hdr + bytes);
		*t = MPI_PACKED;
		mt->tot.packed++;
		hp_charge_pb(c, cost);
	} else {
		int owned, built;
		MPI_Datatype s = hp_pb_struct(mt, &mt->pb_s, buf, count, dt, 1, &owned, &built);
		if (s == MPI_DATATYPE_NULL)
			return MPI_ERR_TYPE;
		uint64_t cost = hp_mpi.pbc_struct_send + (built ? hp_mpi.pbc_struct_new : 0);
		hp_pb_fill(mt, &mt->pb_s, c->t0, cost);
		*b = MPI_BOTTOM;
		*n = 1;
		*t = s;
		mt->tot.structs++;
		hp_charge_pb(c, cost);
	}
	mt->tot.pb_msgs++;
	return MPI_SUCCESS;
}

/* cm: the communicator's record when the caller has it, else NULL */
static void send_stats(struct hp_call *c, MPI_Comm comm, const struct hp_comm *cm, int dest, uint64_t bytes)
{
	c->bytes = bytes;
	if (dest == MPI_PROC_NULL)
		return;
	if (!cm)
		cm = hp_comm_get(c->mt, comm);
	c->peer = hp_comm_world(cm, dest);
	struct hp_site *s = hp_site_get(c);
	hp_site_peer_add(c->mt, s, c->peer, 0, 1, bytes, (int64_t)(c->t2 - c->t1), 0, 0);
}

int hp_w_send(struct hp_call *c, __typeof__(&PMPI_Send) pmpi, const void *buf, int count,
	      MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	const struct hp_typeinfo *ti = hp_typeinfo(c->mt, datatype);
	uint64_t bytes = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	const struct hp_comm *cm;
	int rc;
	if (!hp_comm_pb(c->mt, comm, &cm) || dest == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(c->mt, cm);
		rc = pmpi(buf, count, datatype, dest, tag, comm);
	} else if (fast_ok(ti, bytes)) {
		/* send_prepare's packed copy, on the stack */
		struct hp_mt *mt = c->mt;
		char st[HP_PB_BASE + HP_FAST_MAX];
		uint32_t hdr = hp_pb_hdr(bytes);
		uint64_t cost = hp_pbc_packed(hp_mpi.pbc_send, bytes);
		struct hp_pb pb; /* its first hdr <= HP_PB_BASE bytes: no extension */
		hp_pb_fill(mt, &pb, c->t0, cost);
		hp_pb_put(st, &pb, hdr);
		copy_small(st + hdr, buf, bytes);
		mt->tot.packed++;
		mt->tot.pb_msgs++;
		hp_charge_pb(c, cost);
		rc = pmpi(st, (int)(hdr + bytes), MPI_PACKED, dest, tag, comm);
	} else {
		const void *b;
		int n;
		MPI_Datatype t;
		rc = send_prepare(c, buf, count, datatype, ti, &b, &n, &t);
		if (rc == MPI_SUCCESS)
			rc = pmpi(b, n, t, dest, tag, comm);
	}
	hp_call_t2(c);
	send_stats(c, comm, cm, dest, bytes);
	return rc;
}

/* ---- receives ----------------------------------------------------------------- */

struct recv_plan {
	int packed;          /* into the staging buffer */
	void *b;             /* what PMPI receives into */
	int n;
	MPI_Datatype t;
	char *stage;
	void *ubuf;
	MPI_Datatype utype;
	int ucontig;         /* the user's type is contiguous (a plain copy) */
	uint64_t cap;        /* user capacity in bytes */
	struct hp_pb *slot;
	uint64_t cost;       /* calibrated piggyback work (cycles) */
	int owned;           /* t must be freed after the call */
};

/* `cache`: the struct datatype may come from (and go to) the per-thread
 * cache; 0 when the call already holds another cached type, which a cache
 * eviction would free before its use. */
static int recv_prepare(struct hp_call *c, void *buf, int count, MPI_Datatype dt, struct hp_pb *slot,
			int which, int cache, struct recv_plan *p)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, dt);
	p->cap = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	p->owned = 0;
	p->ubuf = buf;
	p->slot = slot;
	p->utype = dt;
	p->ucontig = ti->contig;
	if (use_packed(ti, p->cap)) {
		/* room for the piggyback of a message as large as the capacity:
		 * a longer one is truncated by MPI, as without the wrappers */
		uint32_t hdr = hp_pb_hdr(p->cap);
		p->stage = hp_stage(mt, which, hdr + p->cap);
		if (!p->stage)
			return MPI_ERR_NO_MEM;
		p->packed = 1;
		p->b = p->stage;
		p->n = (int)(hdr + p->cap);
		p->t = MPI_PACKED;
		p->cost = hp_mpi.pbc_recv; /* + the copy, once its size is known */
	} else {
		int owned, built;
		p->packed = 0;
		p->t = hp_pb_struct(mt, slot, buf, count, dt, cache, &owned, &built);
		p->owned = owned;
		if (p->t == MPI_DATATYPE_NULL)
			return MPI_ERR_TYPE;
		p->b = MPI_BOTTOM;
		p->n = 1;
		p->cost = hp_mpi.pbc_struct_recv + (built ? hp_mpi.pbc_struct_new : 0);
	}
	return MPI_SUCCESS;
}

/* `bytes` at src into the receive's buffer, at most its capacity. */
static inline void plan_copy_out(struct hp_mt *mt, const struct recv_plan *p, const char *src,
				 uint64_t bytes)
{
	if (p->ucontig) {
		uint64_t n = bytes < p->cap ? bytes : p->cap;
		if (n)
			memcpy(p->ubuf, src, n);
	} else {
		hp_copy_out(mt, p->ubuf, p->utype, src, bytes, p->cap);
	}
}

/* After the PMPI receive: move packed data, fix the status.  Returns the
 * user bytes received; *ok = 0 when the message carried no piggyback. */
static uint64_t recv_finish(struct hp_call *c, struct recv_plan *p, MPI_Status *st, int *ok)
{
	struct hp_mt *mt = c->mt;
	*ok = 0;
	hp_charge_pb(c, p->cost);
	int64_t n = hp_status_bytes(st);
	uint32_t hdr = 0;
	int64_t u = hp_pb_split(n, &hdr);
	/* A truncated message (MPI_ERR_TRUNCATE) reports its whole length in
	 * the status (Open MPI) while only what was posted arrived: every copy
	 * out of the staging buffer stops at the user's capacity and at what
	 * arrived. */
	if (u < 0) {
		/* not one of ours: a sender without hyprof, or an empty message */
		mt->tot.untracked++;
		if (p->packed && n > 0 && n != MPI_UNDEFINED)
			plan_copy_out(mt, p, p->stage, (uint64_t)n);
		return n > 0 && n != MPI_UNDEFINED ? (uint64_t)n : 0;
	}
	uint64_t user = (uint64_t)u;
	if (p->packed) {
		uint64_t got = (uint64_t)p->n > hdr ? (uint64_t)p->n - hdr : 0;
		if ((uint64_t)p->n >= hdr)
			hp_pb_get(p->slot, p->stage, hdr);
		plan_copy_out(mt, p, p->stage + hdr, user < got ? user : got);
	} else if (hdr == HP_PB_COMPACT) {
		/* a tiny message into a struct receive: all of it is in the slot */
		plan_copy_out(mt, p, (const char *)p->slot + HP_PB_COMPACT, user);
		hp_pb_get(p->slot, p->slot, hdr);
	}
	hp_status_set_bytes(st, (int64_t)user);
	*ok = 1;
	if (p->packed)
		hp_charge_pb(c, (uint64_t)(hp_mpi.pbc_byte * (double)user));
	return user;
}

/* cm: the communicator's record when the caller has it, else NULL */
static void recv_stats(struct hp_call *c, MPI_Comm comm, const struct hp_comm *cm, int src, uint64_t bytes)
{
	c->bytes = bytes;
	if (src == MPI_PROC_NULL || src < 0)
		return;
	if (!cm)
		cm = hp_comm_get(c->mt, comm);
	c->peer = hp_comm_world(cm, src);
	struct hp_site *s = hp_site_get(c);
	hp_site_peer_add(c->mt, s, c->peer, 1, 1, bytes, (int64_t)(c->t2 - c->t1), c->wait_raw, c->wait_comp);
}

static int pmpi_ok(int rc)
{
	return rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE;
}

int hp_w_recv(struct hp_call *c, __typeof__(&PMPI_Recv) pmpi, void *buf, int count,
	      MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	const struct hp_comm *cm;
	int rc;
	if (!hp_comm_pb(c->mt, comm, &cm) || source == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(c->mt, cm);
		rc = pmpi(buf, count, datatype, source, tag, comm, st);
		hp_call_t2(c);
		c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
		uint64_t n = 0;
		int64_t k = rc == MPI_SUCCESS ? hp_status_bytes(st) : 0;
		if (k > 0)
			n = (uint64_t)k;
		recv_stats(c, comm, cm, rc == MPI_SUCCESS ? st->MPI_SOURCE : -1, n);
		return rc;
	}
	struct hp_mt *mt = c->mt;
	struct recv_plan p;
	char small[HP_PB_BASE + HP_FAST_MAX];
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t cap = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	uint64_t user = 0;
	if (fast_ok(ti, cap)) {
		int room = (int)(hp_pb_hdr(cap) + cap);
		rc = pmpi(small, room, MPI_PACKED, source, tag, comm, st);
		hp_call_t2(c);
		int64_t n = rc == MPI_SUCCESS && st->MPI_SOURCE != MPI_PROC_NULL ? hp_status_bytes(st) : -1;
		uint32_t hdr = 0;
		int64_t u = n <= room ? hp_pb_split(n, &hdr) : -1;
		if (u >= 0) {
			/* recv_finish and the rule for a piggybacked message that fit */
			user = (uint64_t)u;
			hp_pb_get(&mt->pb_r, small, hdr);
			copy_small(buf, small + hdr, user);
			hp_status_set_bytes(st, u);
			hp_charge_pb(c, hp_pbc_packed(hp_mpi.pbc_recv, user));
			recv_rule(c, &mt->pb_r, hp_comm_world(cm, st->MPI_SOURCE), source == MPI_ANY_SOURCE,
				  comm, tag);
			recv_stats(c, comm, cm, st->MPI_SOURCE, user);
			return rc;
		}
		/* anything else (an error, a truncation, a sender without
		 * hyprof) as the general path would have planned it */
		p = (struct recv_plan){.packed = 1, .b = small, .n = room, .t = MPI_PACKED, .stage = small,
				       .ubuf = buf, .utype = datatype, .ucontig = 1, .cap = cap,
				       .slot = &mt->pb_r, .cost = hp_mpi.pbc_recv};
	} else {
		rc = recv_prepare(c, buf, count, datatype, &mt->pb_r, 1, 1, &p);
		if (rc != MPI_SUCCESS)
			return rc;
		rc = pmpi(p.b, p.n, p.t, source, tag, comm, st);
		hp_call_t2(c);
	}
	if (pmpi_ok(rc) && st->MPI_SOURCE != MPI_PROC_NULL) {
		int ok;
		user = recv_finish(c, &p, st, &ok);
		if (ok && rc == MPI_SUCCESS)
			recv_rule(c, &mt->pb_r, hp_comm_world(cm, st->MPI_SOURCE), source == MPI_ANY_SOURCE,
				  comm, tag);
	}
	recv_stats(c, comm, cm, pmpi_ok(rc) ? st->MPI_SOURCE : -1, user);
	return rc;
}

/* ---- probes --------------------------------------------------------------------- */

int hp_w_probe(struct hp_call *c, __typeof__(&PMPI_Probe) pmpi, int source, int tag, MPI_Comm comm,
	       MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int rc = pmpi(source, tag, comm, st);
	hp_call_t2(c);
	/* waiting in a probe is measured, but the piggyback is only read by the
	 * receive that follows: counted raw on both sides (docs/mpi.md) */
	c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	if (rc == MPI_SUCCESS && hp_comm_carries_pb(c->mt, comm) && st->MPI_SOURCE != MPI_PROC_NULL)
		hp_status_fix(st);
	return rc;
}

int hp_w_iprobe(struct hp_call *c, __typeof__(&PMPI_Iprobe) pmpi, int source, int tag, MPI_Comm comm,
		int *flag, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int rc = pmpi(source, tag, comm, flag, st);
	hp_call_t2(c);
	if (rc == MPI_SUCCESS && *flag && hp_comm_carries_pb(c->mt, comm) && st->MPI_SOURCE != MPI_PROC_NULL)
		hp_status_fix(st);
	return rc;
}

/* A matched probe (MPI_Mprobe, MPI_Improbe) hands out a message that
 * MPI_Mrecv/MPI_Imrecv receive later without naming the communicator.  A
 * message matched on a communicator that carries no piggyback (one
 * reaching another world, comm.c) is remembered here until its receive:
 * process-wide (another thread may receive it), and only ever filled when
 * such communicators exist. */
static MPI_Message *plain_msgs;
static int plain_n, plain_cap, plain_full_logged;
static pthread_mutex_t plain_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether the message m, matched on comm, carries a piggyback. */
static int matched_pb(struct hp_call *c, MPI_Comm comm, MPI_Message m)
{
	if (hp_comm_carries_pb(c->mt, comm))
		return 1;
	if (!hp_mpi.pb_on)
		return 0;
	pthread_mutex_lock(&plain_lock);
	plain_msgs = hp_grow(plain_msgs, plain_n, &plain_cap, 64, sizeof(*plain_msgs));
	if (plain_n < plain_cap) {
		plain_msgs[plain_n] = m;
		__atomic_store_n(&plain_n, plain_n + 1, __ATOMIC_RELEASE);
	} else if (!plain_full_logged) {
		plain_full_logged = 1;
		hp_log("mpi: out of memory for matched messages from another world: later ones are "
		       "received as piggybacked");
	}
	pthread_mutex_unlock(&plain_lock);
	return 0;
}

/* At the receive of a matched message: whether it was matched without a
 * piggyback (and forget it). */
static int plain_message_take(MPI_Message m)
{
	if (HP_LIKELY(!__atomic_load_n(&plain_n, __ATOMIC_ACQUIRE)))
		return 0;
	int found = 0;
	pthread_mutex_lock(&plain_lock);
	for (int i = 0; i < plain_n; i++)
		if (plain_msgs[i] == m) {
			plain_msgs[i] = plain_msgs[plain_n - 1];
			__atomic_store_n(&plain_n, plain_n - 1, __ATOMIC_RELEASE);
			found = 1;
			break;
		}
	pthread_mutex_unlock(&plain_lock);
	return found;
}

int hp_w_mprobe(struct hp_call *c, __typeof__(&PMPI_Mprobe) pmpi, int source, int tag, MPI_Comm comm,
		MPI_Message *message, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int rc = pmpi(source, tag, comm, message, st);
	hp_call_t2(c);
	c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
	if (rc == MPI_SUCCESS && *message != MPI_MESSAGE_NO_PROC && matched_pb(c, comm, *message))
		hp_status_fix(st);
	return rc;
}

int hp_w_improbe(struct hp_call *c, __typeof__(&PMPI_Improbe) pmpi, int source, int tag, MPI_Comm comm,
		 int *flag, MPI_Message *message, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int rc = pmpi(source, tag, comm, flag, message, st);
	hp_call_t2(c);
	if (rc == MPI_SUCCESS && *flag && *message != MPI_MESSAGE_NO_PROC && matched_pb(c, comm, *message))
		hp_status_fix(st);
	return rc;
}

int hp_w_mrecv(struct hp_call *c, __typeof__(&PMPI_Mrecv) pmpi, void *buf, int count,
	       MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	int rc;
	if (!hp_mpi.pb_on || *message == MPI_MESSAGE_NO_PROC || *message == MPI_MESSAGE_NULL ||
	    plain_message_take(*message) || count < 0) {
		rc = pmpi(buf, count, datatype, message, st);
		hp_call_t2(c);
		int64_t k = rc == MPI_SUCCESS ? hp_status_bytes(st) : 0;
		uint64_t n = 0;
		if (k > 0)
			n = (uint64_t)k;
		c->bytes = n;
		return rc;
	}
	struct recv_plan p;
	rc = recv_prepare(c, buf, count, datatype, &c->mt->pb_r, 1, 1, &p);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = pmpi(p.b, p.n, p.t, message, st);
	hp_call_t2(c);
	uint64_t user = 0;
	int src = -1;
	if (pmpi_ok(rc) && st->MPI_SOURCE != MPI_PROC_NULL) {
		int ok;
		user = recv_finish(c, &p, st, &ok);
		src = st->MPI_SOURCE;
		/* the matched probe fixed the order already: no wildcard check,
		 * and the communicator is not known here, only the world rank
		 * through MPI_COMM_WORLD when it is the one */
		if (ok && rc == MPI_SUCCESS) {
			const struct hp_pb *pb = &c->mt->pb_r;
			struct hp_mt *mt = c->mt;
			int64_t pre = (int64_t)(c->t1 - c->t0);
			struct hp_comp k;
			hp_comp_begin(&k, (int64_t)c->t1, (int64_t)*mt->x + pre);
			hp_comp_msg(&k, (int64_t)c->t2, hp_ns_to_cyc(pb->delay_ns));
			int64_t xn = hp_comp_delay(&k) - pre;
			*mt->x = xn > 0 ? (uint64_t)xn : 0;
			c->wait_raw = hp_comp_wait_raw(&k);
			c->wait_comp = hp_comp_wait_approx(&k);
			if (hp_mpi.ext && hp_mpi.ext->recv) /* issue 6 */
				hp_mpi.ext->recv(pb, -1);
			mt->tot.pb_recv++;
		}
	}
	(void)src;
	c->bytes = user;
	return rc;
}

/* ---- combined send and receive ---------------------------------------------------- */

/* The body of Sendrecv and Sendrecv_replace.  When `ready` the send half
 * (sb, sn, stt) already carries its piggyback. */
static int sendrecv_core(struct hp_call *c, __typeof__(&PMPI_Sendrecv) pmpi, const void *sb, int sn,
			 MPI_Datatype stt, uint64_t sbytes, int ready, int dest, int sendtag,
			 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
			 MPI_Comm comm, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	struct hp_mt *mt = c->mt;
	struct recv_plan p = {.b = recvbuf, .n = recvcount, .t = recvtype};
	const struct hp_comm *cm;
	int pb = hp_comm_pb(mt, comm, &cm);
	if (!pb)
		hp_note_other_world(mt, cm);
	int pb_send = !ready && pb && dest != MPI_PROC_NULL && sn >= 0;
	int pb_recv = pb && source != MPI_PROC_NULL && recvcount >= 0;
	int rc = MPI_SUCCESS;
	if (pb_send)
		rc = send_prepare(c, sb, sn, stt, hp_typeinfo(mt, stt), &sb, &sn, &stt);
	/* a struct type for the send half is cached: the receive half's must
	 * not evict it before the call */
	if (rc == MPI_SUCCESS && pb_recv)
		rc = recv_prepare(c, recvbuf, recvcount, recvtype, &mt->pb_r, 1,
				  !(pb_send && stt != MPI_PACKED), &p);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = pmpi(sb, sn, stt, dest, sendtag, p.b, p.n, p.t, source, recvtag, comm, st);
	hp_call_t2(c);
	if (p.owned)
		PMPI_Type_free(&p.t);
	uint64_t user = 0;
	if (pmpi_ok(rc) && st->MPI_SOURCE != MPI_PROC_NULL) {
		if (pb_recv) {
			int ok;
			user = recv_finish(c, &p, st, &ok);
			if (ok && rc == MPI_SUCCESS)
				recv_rule(c, &mt->pb_r, hp_comm_world(cm, st->MPI_SOURCE),
					  source == MPI_ANY_SOURCE, comm, recvtag);
		} else {
			int64_t k = hp_status_bytes(st);
			if (k > 0)
				user = (uint64_t)k;
			c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
		}
	}
	struct hp_site *s = hp_site_get(c);
	if (dest != MPI_PROC_NULL)
		hp_peer_add(mt, s->key, hp_comm_world(cm, dest), 0, 1, sbytes, 0, 0, 0);
	if (pmpi_ok(rc) && st->MPI_SOURCE != MPI_PROC_NULL && st->MPI_SOURCE >= 0)
		hp_peer_add(mt, s->key, hp_comm_world(cm, st->MPI_SOURCE), 1, 1, user,
			    (int64_t)(c->t2 - c->t1), c->wait_raw, c->wait_comp);
	c->bytes = sbytes + user;
	return rc;
}

int hp_w_sendrecv(struct hp_call *c, __typeof__(&PMPI_Sendrecv) pmpi, const void *sendbuf, int sendcount,
		  MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	const struct hp_typeinfo *ti = hp_typeinfo(c->mt, sendtype);
	uint64_t sbytes = sendcount > 0 ? (uint64_t)sendcount * (uint64_t)ti->size : 0;
	return sendrecv_core(c, pmpi, sendbuf, sendcount, sendtype, sbytes, 0, dest, sendtag, recvbuf,
			     recvcount, recvtype, source, recvtag, comm, status);
}

/* The outgoing half of a *_replace call: count x dt packed with MPI_Pack
 * (any datatype) at out + hdr, behind its piggyback *pb filled now (cost:
 * the packed copy's, plus `extra`); *pos: the bytes to send. */
static int replace_pack(struct hp_call *c, void *buf, int count, MPI_Datatype dt, MPI_Comm comm, char *out,
			uint32_t hdr, int psize, struct hp_pb *pb, uint64_t extra, int *pos)
{
	struct hp_mt *mt = c->mt;
	*pos = (int)hdr;
	int rc = pack_user(1, buf, count, dt, out, (int)hdr + psize, pos, comm);
	if (rc != MPI_SUCCESS)
		return rc;
	uint64_t cost = hp_pbc_packed(hp_mpi.pbc_send, (uint64_t)psize) + extra;
	hp_pb_fill(mt, pb, c->t0, cost);
	hp_pb_put(out, pb, hdr);
	mt->tot.pb_msgs++;
	mt->tot.packed++;
	hp_charge_pb(c, cost);
	return MPI_SUCCESS;
}

int hp_w_sendrecv_replace(struct hp_call *c, __typeof__(&PMPI_Sendrecv_replace) pmpi, void *buf,
			  int count, MPI_Datatype datatype, int dest, int sendtag, int source,
			  int recvtag, MPI_Comm comm, MPI_Status *status)
{
	const struct hp_comm *cm;
	if (!hp_comm_pb(c->mt, comm, &cm) || count < 0) {
		hp_note_other_world(c->mt, cm);
		MPI_Status lst;
		MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
		int rc = pmpi(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
		hp_call_t2(c);
		c->wait_raw = c->wait_comp = (int64_t)(c->t2 - c->t1);
		return rc;
	}
	/* As MPI does internally: the outgoing data is copied out first (with
	 * MPI_Pack, so any datatype works) behind the piggyback, then the
	 * incoming message is received in place. */
	struct hp_mt *mt = c->mt;
	int psize = 0;
	int rc = PMPI_Pack_size(count, datatype, comm, &psize);
	if (rc != MPI_SUCCESS)
		return rc;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t sbytes = (uint64_t)count * (uint64_t)ti->size;
	uint32_t hdr = hp_pb_hdr(sbytes);
	char *out = malloc(hdr + (size_t)psize + 1);
	if (!out)
		return MPI_ERR_NO_MEM;
	int pos = (int)hdr;
	if (dest != MPI_PROC_NULL)
		rc = replace_pack(c, buf, count, datatype, comm, out, hdr, psize, &mt->pb_s, 0, &pos);
	if (rc != MPI_SUCCESS) {
		free(out);
		return rc;
	}
	rc = sendrecv_core(c, PMPI_Sendrecv, out, pos, MPI_PACKED, dest == MPI_PROC_NULL ? 0 : sbytes, 1,
			   dest, sendtag, buf, count, datatype, source, recvtag, comm, status);
	free(out);
	return rc;
}

/* ---- non-blocking ------------------------------------------------------------------ */

/* A request remembers its communicator's rank table when it is posted:
 * MPI_Comm_free may come before the completion ("pending operations will
 * complete normally", MPI 3.1 section 6.4.3), and a freed handle cannot be
 * asked for its group. */
static void req_comm(struct hp_mt *mt, struct hp_req *r, MPI_Comm comm)
{
	const struct hp_comm *cm = comm != MPI_COMM_NULL ? hp_comm_get(mt, comm) : NULL;
	r->comm = comm;
	r->world = cm ? cm->world : NULL;
	r->nworld = cm ? (cm->inter ? cm->remote_size : cm->size) : 0;
}

/* A send request object (kind HP_RQ_SEND or HP_RQ_PSEND) for `bytes` to
 * dest on comm with tag. */
static struct hp_req *send_req(struct hp_mt *mt, int kind, MPI_Comm comm, int dest, int tag, uint64_t bytes)
{
	struct hp_req *r = hp_req_alloc();
	if (!r)
		return NULL;
	r->kind = (uint8_t)kind;
	req_comm(mt, r, comm);
	r->peer = dest;
	r->tag = tag;
	r->bytes = bytes;
	return r;
}

/* Stage the send half of a non-blocking post in request object r: the
 * packed copy behind the piggyback, or the struct datatype; the piggyback
 * is filled now (the delay at the post).  Sets what to hand to PMPI. */
static int post_send(struct hp_call *c, struct hp_req *r, const struct hp_typeinfo *ti, const void *buf,
		     int count, MPI_Datatype datatype, const void **b, int *n, MPI_Datatype *t)
{
	struct hp_mt *mt = c->mt;
	uint64_t bytes = r->bytes;
	if (use_packed(ti, bytes)) {
		uint32_t hdr = hp_pb_hdr(bytes);
		char *st = hp_req_stage(r, hdr + bytes);
		if (!st)
			return MPI_ERR_NO_MEM;
		copy_in(st + hdr, buf, count, datatype, ti, bytes);
		uint64_t cost = hp_pbc_packed(hp_mpi.pbc_send, bytes) + hp_mpi.pbc_req;
		hp_pb_fill(mt, &r->pb, c->t0, cost);
		hp_pb_put(st, &r->pb, hdr);
		r->scheme = HP_SCH_PACKED;
		r->stage = st;
		*b = st;
		*n = (int)(hdr + bytes);
		*t = MPI_PACKED;
		mt->tot.packed++;
		hp_charge_pb(c, cost);
	} else {
		int owned, built;
		r->st = hp_pb_struct(mt, &r->pb, buf, count, datatype, 1, &owned, &built);
		if (r->st == MPI_DATATYPE_NULL)
			return MPI_ERR_TYPE;
		r->st_owned = owned;
		uint64_t cost = hp_mpi.pbc_struct_send + (built ? hp_mpi.pbc_struct_new : 0) + hp_mpi.pbc_req;
		hp_pb_fill(mt, &r->pb, c->t0, cost);
		r->scheme = HP_SCH_STRUCT;
		*b = MPI_BOTTOM;
		*n = 1;
		*t = r->st;
		mt->tot.structs++;
		hp_charge_pb(c, cost);
	}
	mt->tot.pb_msgs++;
	return MPI_SUCCESS;
}

int hp_w_isend(struct hp_call *c, __typeof__(&PMPI_Isend) pmpi, const void *buf, int count,
	       MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t bytes = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	const struct hp_comm *cm;
	int rc;
	if (!hp_comm_pb(mt, comm, &cm) || dest == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(mt, cm);
		rc = pmpi(buf, count, datatype, dest, tag, comm, request);
		hp_call_t2(c);
		send_stats(c, comm, cm, dest, bytes);
		return rc;
	}
	struct hp_req *r = send_req(mt, HP_RQ_SEND, comm, dest, tag, bytes);
	if (!r)
		return MPI_ERR_NO_MEM;
	const void *b;
	int n;
	MPI_Datatype t;
	rc = post_send(c, r, ti, buf, count, datatype, &b, &n, &t);
	if (rc != MPI_SUCCESS) {
		hp_req_free(r);
		return rc;
	}
	r->active = 1;
	rc = pmpi(b, n, t, dest, tag, comm, request);
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	send_stats(c, comm, cm, dest, bytes);
	return rc;
}

/* A receive request object for a post on comm from source with tag (its
 * scheme none until post_recv stages it). */
static struct hp_req *recv_req(struct hp_mt *mt, MPI_Comm comm, int source, int tag)
{
	struct hp_req *r = hp_req_alloc();
	if (!r)
		return NULL;
	r->kind = HP_RQ_RECV;
	r->scheme = HP_SCH_NONE;
	req_comm(mt, r, comm);
	r->tag = tag;
	r->peer = source;
	r->any_source = source == MPI_ANY_SOURCE;
	r->active = 1;
	return r;
}

/* Post a receive into request object r (scheme by capacity). */
static int post_recv(struct hp_call *c, struct hp_req *r, void *buf, int count, MPI_Datatype datatype,
		     int cache, void **b, int *n, MPI_Datatype *t)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t cap = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	r->bytes = cap;
	r->ubuf = buf;
	r->ucount = count;
	r->utype = datatype;
	if (use_packed(ti, cap)) {
		uint32_t hdr = hp_pb_hdr(cap);
		char *st = hp_req_stage(r, hdr + cap);
		if (!st)
			return MPI_ERR_NO_MEM;
		r->scheme = HP_SCH_PACKED;
		r->stage = st;
		r->posted = (int)(hdr + cap);
		r->upin = (uint8_t)hp_type_pin(mt, datatype); /* unpacked into at completion */
		*b = st;
		*n = (int)(hdr + cap);
		*t = MPI_PACKED;
		hp_charge_pb(c, hp_mpi.pbc_req);
	} else {
		int owned, built;
		r->st = hp_pb_struct(mt, &r->pb, buf, count, datatype, cache, &owned, &built);
		if (r->st == MPI_DATATYPE_NULL)
			return MPI_ERR_TYPE;
		r->st_owned = owned;
		hp_charge_pb(c, hp_mpi.pbc_req + (built ? hp_mpi.pbc_struct_new : 0));
		r->scheme = HP_SCH_STRUCT;
		*b = MPI_BOTTOM;
		*n = 1;
		*t = r->st;
	}
	return MPI_SUCCESS;
}

int hp_w_irecv(struct hp_call *c, __typeof__(&PMPI_Irecv) pmpi, void *buf, int count,
	       MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	const struct hp_comm *cm;
	if (!hp_comm_pb(c->mt, comm, &cm) || source == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(c->mt, cm);
		int rc = pmpi(buf, count, datatype, source, tag, comm, request);
		hp_call_t2(c);
		/* tracked anyway (no piggyback) so completion knows the site */
		if (rc == MPI_SUCCESS && source != MPI_PROC_NULL && *request != MPI_REQUEST_NULL) {
			struct hp_req *r = recv_req(c->mt, comm, source, tag);
			if (r)
				hp_req_track(c, r, rc, *request);
		}
		return rc;
	}
	struct hp_req *r = recv_req(c->mt, comm, source, tag);
	if (!r)
		return MPI_ERR_NO_MEM;
	void *b;
	int n;
	MPI_Datatype t;
	int rc = post_recv(c, r, buf, count, datatype, 1, &b, &n, &t);
	if (rc != MPI_SUCCESS) {
		hp_req_free(r);
		return rc;
	}
	rc = pmpi(b, n, t, source, tag, comm, request);
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	return rc;
}

int hp_w_imrecv(struct hp_call *c, __typeof__(&PMPI_Imrecv) pmpi, void *buf, int count,
		MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
	if (!hp_mpi.pb_on || *message == MPI_MESSAGE_NO_PROC || *message == MPI_MESSAGE_NULL ||
	    plain_message_take(*message) || count < 0) {
		int rc = pmpi(buf, count, datatype, message, request);
		hp_call_t2(c);
		return rc;
	}
	struct hp_req *r = hp_req_alloc();
	if (!r)
		return MPI_ERR_NO_MEM;
	r->kind = HP_RQ_RECV;
	req_comm(c->mt, r, MPI_COMM_NULL); /* the message knows; the matched probe fixed the order */
	r->peer = MPI_ANY_SOURCE;
	r->active = 1;
	void *b;
	int n;
	MPI_Datatype t;
	int rc = post_recv(c, r, buf, count, datatype, 1, &b, &n, &t);
	if (rc != MPI_SUCCESS) {
		hp_req_free(r);
		return rc;
	}
	rc = pmpi(b, n, t, message, request);
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	return rc;
}

#if defined(HP_HAVE_MPI_ISENDRECV)
/* MPI_Isendrecv(_replace) (MPI-4).  With a piggyback each half carries its
 * own, as an Irecv and an Isend would, and they are posted as those two:
 * the user's request is the MPI_Irecv's (its object in the table is the
 * receive half, completed like an Irecv's, with the true status), the
 * MPI_Isend and its staging ride along in r->half / r->half_req, and a
 * completion call reports the request complete only when both are
 * (complete.c).  Not through PMPI_Isendrecv: MPICH 4.0 leaves its status
 * empty, and the receive half's length is how the piggyback is found.
 * Without a piggyback the call passes through. */
static struct hp_req *isendrecv_half(struct hp_req *r, uint64_t sbytes)
{
	struct hp_req *h = hp_req_alloc();
	if (h) {
		h->kind = HP_RQ_SEND;
		h->bytes = sbytes;
		r->half = h;
	}
	return h;
}

/* What one half hands to PMPI. */
struct half_msg {
	const void *b;
	int n;
	MPI_Datatype t;
};

/* After both halves are staged (rc: how that went): the receive first (a
 * message to oneself matches it), then the send; the user's request is the
 * receive's. */
static int isendrecv_post(struct hp_call *c, struct hp_req *r, int rc, const struct half_msg *s, int dest,
			  int sendtag, const struct half_msg *v, int source, int recvtag, MPI_Comm comm,
			  MPI_Request *request, const struct hp_comm *cm, uint64_t sbytes)
{
	if (rc != MPI_SUCCESS) {
		hp_req_done(r);
		return rc;
	}
	rc = PMPI_Irecv((void *)(uintptr_t)v->b, v->n, v->t, source, recvtag, comm, request);
	if (rc == MPI_SUCCESS) {
		rc = PMPI_Isend(s->b, s->n, s->t, dest, sendtag, comm, &r->half_req);
		if (rc != MPI_SUCCESS) {
			r->half_req = MPI_REQUEST_NULL;
			PMPI_Cancel(request);
			PMPI_Wait(request, MPI_STATUS_IGNORE);
		}
	}
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	send_stats(c, comm, cm, dest, sbytes);
	return rc;
}

/* Without a piggyback: MPI's own call, tracked for the receive's statistics. */
static int isendrecv_plain(struct hp_call *c, struct hp_req *r, int rc, MPI_Request *request)
{
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	return rc;
}

int hp_w_isendrecv(struct hp_call *c, __typeof__(&PMPI_Isendrecv) pmpi, const void *sendbuf, int sendcount,
		   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, sendtype);
	uint64_t sbytes = sendcount > 0 ? (uint64_t)sendcount * (uint64_t)ti->size : 0;
	const struct hp_comm *cm;
	int pb = hp_comm_pb(mt, comm, &cm);
	struct hp_req *r = recv_req(mt, comm, source, recvtag);
	if (!r)
		return MPI_ERR_NO_MEM;
	int rc;
	if (!pb || sendcount < 0 || recvcount < 0) {
		hp_note_other_world(mt, cm);
		rc = isendrecv_plain(c, r, pmpi(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
						recvtype, source, recvtag, comm, request), request);
		send_stats(c, comm, cm, dest, sbytes);
		return rc;
	}
	struct half_msg sm = {sendbuf, sendcount, sendtype};
	void *rb = recvbuf;
	int rn = recvcount;
	MPI_Datatype rt = recvtype;
	rc = MPI_SUCCESS;
	if (dest != MPI_PROC_NULL) {
		struct hp_req *h = isendrecv_half(r, sbytes);
		rc = h ? post_send(c, h, ti, sendbuf, sendcount, sendtype, &sm.b, &sm.n, &sm.t) : MPI_ERR_NO_MEM;
	}
	/* the send half's struct type may be a cached one: the receive half
	 * must not evict it before the call */
	if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
		rc = post_recv(c, r, recvbuf, recvcount, recvtype, !(r->half && r->half->scheme == HP_SCH_STRUCT),
			       &rb, &rn, &rt);
	struct half_msg rm = {rb, rn, rt};
	return isendrecv_post(c, r, rc, &sm, dest, sendtag, &rm, source, recvtag, comm, request, cm, sbytes);
}

int hp_w_isendrecv_replace(struct hp_call *c, __typeof__(&PMPI_Isendrecv_replace) pmpi, void *buf,
			   int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
			   MPI_Comm comm, MPI_Request *request)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t sbytes = count > 0 && dest != MPI_PROC_NULL ? (uint64_t)count * (uint64_t)ti->size : 0;
	const struct hp_comm *cm;
	int pb = hp_comm_pb(mt, comm, &cm);
	struct hp_req *r = recv_req(mt, comm, source, recvtag);
	if (!r)
		return MPI_ERR_NO_MEM;
	int rc;
	if (!pb || count < 0) {
		hp_note_other_world(mt, cm);
		rc = isendrecv_plain(c, r, pmpi(buf, count, datatype, dest, sendtag, source, recvtag, comm, request),
				     request);
		send_stats(c, comm, cm, dest, sbytes);
		return rc;
	}
	/* As Sendrecv_replace: the outgoing data is packed (MPI_Pack: any
	 * datatype) behind its piggyback into the send half's stage at the
	 * post, and the incoming message is received into the buffer. */
	struct half_msg sm = {NULL, 0, MPI_PACKED};
	rc = MPI_SUCCESS;
	if (dest != MPI_PROC_NULL) {
		int psize = 0;
		struct hp_req *h = isendrecv_half(r, sbytes);
		rc = h ? PMPI_Pack_size(count, datatype, comm, &psize) : MPI_ERR_NO_MEM;
		uint32_t hdr = hp_pb_hdr(sbytes);
		char *out = rc == MPI_SUCCESS ? hp_req_stage(h, hdr + (size_t)psize + 1) : NULL;
		if (rc == MPI_SUCCESS && !out)
			rc = MPI_ERR_NO_MEM;
		int pos = (int)hdr;
		if (rc == MPI_SUCCESS)
			rc = replace_pack(c, buf, count, datatype, comm, out, hdr, psize, &h->pb, hp_mpi.pbc_req, &pos);
		if (rc == MPI_SUCCESS) {
			h->scheme = HP_SCH_PACKED;
			h->stage = out;
			sm.b = out;
			sm.n = pos;
		}
	}
	void *rb = buf;
	int rn = count;
	MPI_Datatype rt = datatype;
	if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
		rc = post_recv(c, r, buf, count, datatype, 1, &rb, &rn, &rt);
	struct half_msg rm = {rb, rn, rt};
	return isendrecv_post(c, r, rc, &sm, dest, sendtag, &rm, source, recvtag, comm, request, cm, sbytes);
}
#endif

#if defined(HP_HAVE_MPI_PARTITIONED)
/* Partitioned communication (MPI-4): the partitions go straight between
 * the user's buffers as each becomes ready, so no piggyback can travel in
 * front of them; both sides pass through here, so neither expects one.
 * The statistics count the channel at its set-up (calls, bytes of one
 * transfer, the peer); its waiting is in the Wait/Test that completes it. */
static uint64_t part_bytes(struct hp_call *c, int partitions, MPI_Count count, MPI_Datatype datatype)
{
	const struct hp_typeinfo *ti = hp_typeinfo(c->mt, datatype);
	return partitions > 0 && count > 0 ? (uint64_t)partitions * (uint64_t)count * (uint64_t)ti->size : 0;
}

int hp_w_psend_part(struct hp_call *c, __typeof__(&PMPI_Psend_init) pmpi, const void *buf, int partitions,
		    MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info,
		    MPI_Request *request)
{
	int rc = pmpi(buf, partitions, count, datatype, dest, tag, comm, info, request);
	hp_call_t2(c);
	send_stats(c, comm, NULL, dest, part_bytes(c, partitions, count, datatype));
	return rc;
}

int hp_w_precv_part(struct hp_call *c, __typeof__(&PMPI_Precv_init) pmpi, void *buf, int partitions,
		    MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info,
		    MPI_Request *request)
{
	int rc = pmpi(buf, partitions, count, datatype, source, tag, comm, info, request);
	hp_call_t2(c);
	recv_stats(c, comm, NULL, source, part_bytes(c, partitions, count, datatype));
	return rc;
}
#endif

/* ---- persistent requests ------------------------------------------------------------ */

int hp_w_psend(struct hp_call *c, __typeof__(&PMPI_Send_init) pmpi, const void *buf, int count,
	       MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	struct hp_mt *mt = c->mt;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	struct hp_req *r = send_req(mt, HP_RQ_PSEND, comm, dest, tag,
				    count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0);
	if (!r)
		return MPI_ERR_NO_MEM;
	int rc;
	const struct hp_comm *cm;
	if (!hp_comm_pb(mt, comm, &cm) || dest == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(mt, cm);
		r->scheme = HP_SCH_NONE;
		rc = pmpi(buf, count, datatype, dest, tag, comm, request);
	} else if (hp_mpi.pb_compact && r->bytes <= HP_PB_COMPACT_MAX) {
		/* tiny: the compact form, copied into the request's own stage at
		 * each MPI_Start (the user refills the buffer between starts) */
		r->stage = hp_req_stage(r, HP_PB_COMPACT + r->bytes);
		r->scheme = HP_SCH_PACKED;
		r->ubuf = (void *)buf;
		r->ucount = count;
		r->utype = datatype;
		r->upin = (uint8_t)hp_type_pin(mt, datatype); /* packed from at each start */
		rc = pmpi(r->stage, (int)(HP_PB_COMPACT + r->bytes), MPI_PACKED, dest, tag, comm, request);
	} else {
		/* persistent: the struct datatype, its piggyback slot filled at
		 * each MPI_Start (the user refills the buffer between starts) */
		int owned, built;
		r->st = hp_pb_struct(mt, &r->pb, buf, count, datatype, 0, &owned, &built);
		if (r->st == MPI_DATATYPE_NULL) {
			hp_req_free(r);
			return MPI_ERR_TYPE;
		}
		r->st_owned = 1;
		r->scheme = HP_SCH_STRUCT;
		rc = pmpi(MPI_BOTTOM, 1, r->st, dest, tag, comm, request);
	}
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	return rc;
}

int hp_w_precv(struct hp_call *c, __typeof__(&PMPI_Recv_init) pmpi, void *buf, int count,
	       MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	struct hp_mt *mt = c->mt;
	struct hp_req *r = hp_req_alloc();
	if (!r)
		return MPI_ERR_NO_MEM;
	r->kind = HP_RQ_PRECV;
	req_comm(c->mt, r, comm);
	r->peer = source;
	r->tag = tag;
	r->any_source = source == MPI_ANY_SOURCE;
	int rc;
	const struct hp_typeinfo *ti = hp_typeinfo(mt, datatype);
	uint64_t cap = count > 0 ? (uint64_t)count * (uint64_t)ti->size : 0;
	const struct hp_comm *cm;
	if (!hp_comm_pb(mt, comm, &cm) || source == MPI_PROC_NULL || count < 0) {
		hp_note_other_world(mt, cm);
		r->scheme = HP_SCH_NONE;
		rc = pmpi(buf, count, datatype, source, tag, comm, request);
	} else if (hp_mpi.pb_compact && cap <= HP_PB_COMPACT_MAX) {
		/* tiny: into the request's stage (a struct's slot cannot hold
		 * the compact form in front of the data), copied out at each
		 * completion */
		r->stage = hp_req_stage(r, HP_PB_COMPACT + cap);
		r->scheme = HP_SCH_PACKED;
		r->posted = (int)(HP_PB_COMPACT + cap);
		r->bytes = cap;
		r->ubuf = buf;
		r->ucount = count;
		r->utype = datatype;
		r->upin = (uint8_t)hp_type_pin(mt, datatype); /* unpacked into at each completion */
		rc = pmpi(r->stage, r->posted, MPI_PACKED, source, tag, comm, request);
	} else {
		int owned, built;
		r->st = hp_pb_struct(mt, &r->pb, buf, count, datatype, 0, &owned, &built);
		if (r->st == MPI_DATATYPE_NULL) {
			hp_req_free(r);
			return MPI_ERR_TYPE;
		}
		r->st_owned = 1;
		r->scheme = HP_SCH_STRUCT;
		r->bytes = cap; /* a tiny message lands in the slot: copied out */
		r->ubuf = buf;
		r->ucount = count;
		r->utype = datatype;
		r->upin = (uint8_t)hp_type_pin(mt, datatype);
		rc = pmpi(MPI_BOTTOM, 1, r->st, source, tag, comm, request);
	}
	hp_call_t2(c);
	hp_req_track(c, r, rc, *request);
	return rc;
}

/* Activate one persistent request we know: fill the send piggyback now. */
static void start_one(struct hp_call *c, struct hp_req *r)
{
	struct hp_mt *mt = c->mt;
	r->active = 1;
	r->delivered = 0;
	if (r->kind == HP_RQ_PSEND) {
		if (r->scheme == HP_SCH_STRUCT) {
			hp_pb_fill(mt, &r->pb, c->t0, hp_mpi.pbc_struct_send);
			mt->tot.pb_msgs++;
			mt->tot.structs++;
			hp_charge_pb(c, hp_mpi.pbc_struct_send + hp_mpi.pbc_req);
		} else if (r->scheme == HP_SCH_PACKED) {
			copy_in(r->stage + HP_PB_COMPACT, r->ubuf, r->ucount, r->utype,
				hp_typeinfo(mt, r->utype), r->bytes);
			uint64_t cost = hp_pbc_packed(hp_mpi.pbc_send, r->bytes);
			hp_pb_fill(mt, &r->pb, c->t0, cost);
			hp_pb_put(r->stage, &r->pb, HP_PB_COMPACT);
			mt->tot.pb_msgs++;
			mt->tot.packed++;
			hp_charge_pb(c, cost + hp_mpi.pbc_req);
		}
		if (r->peer != MPI_PROC_NULL) {
			hp_peer_add(mt, r->site_key, hp_req_world(r, r->peer), 0, 1, r->bytes, 0, 0, 0);
			c->bytes += r->bytes;
		}
	}
}

int hp_w_start(struct hp_call *c, __typeof__(&PMPI_Start) pmpi, MPI_Request *request)
{
	struct hp_req_claim cl;
	int known = *request != MPI_REQUEST_NULL && hp_req_claim(hp_req_key(*request), &cl);
	if (known)
		start_one(c, cl.r);
	int rc = pmpi(request);
	hp_call_t2(c);
	if (known)
		hp_req_unclaim(&cl);
	return rc;
}

int hp_w_startall(struct hp_call *c, __typeof__(&PMPI_Startall) pmpi, int count,
		  MPI_Request array_of_requests[])
{
	struct hp_req_claim *cl = NULL;
	if (count > 0) {
		cl = hp_scratch(c->mt, sizeof(*cl) * (size_t)count);
		if (!cl)
			return MPI_ERR_NO_MEM;
		for (int i = 0; i < count; i++) {
			cl[i].r = NULL;
			if (array_of_requests[i] != MPI_REQUEST_NULL &&
			    hp_req_claim(hp_req_key(array_of_requests[i]), &cl[i]))
				start_one(c, cl[i].r);
		}
	}
	int rc = pmpi(count, array_of_requests);
	hp_call_t2(c);
	for (int i = 0; i < count; i++)
		if (cl[i].r)
			hp_req_unclaim(&cl[i]);
	return rc;
}

/* ---- buffered mode --------------------------------------------------------------------- */

/* Each buffered message takes pb_size more bytes of the attached buffer than
 * the user planned for, so a larger buffer is attached instead of the
 * user's: room for as many extra piggybacks as messages could fit. */
int hp_w_buffer_attach(struct hp_call *c, __typeof__(&PMPI_Buffer_attach) pmpi, void *buffer, int size)
{
	int rc;
	if (!hp_mpi.pb_on || size <= 0) {
		rc = pmpi(buffer, size);
	} else {
		long extra = ((long)size / MPI_BSEND_OVERHEAD + 1) * ((long)hp_mpi.pb_size + 16);
		long total = (long)size + extra;
		void *own = total < 0x7fffffffL ? malloc((size_t)total) : NULL;
		if (!own) {
			rc = pmpi(buffer, size); /* correct unless the user fills it to the byte */
		} else {
			rc = pmpi(own, (int)total);
			if (rc == MPI_SUCCESS) {
				hp_mpi.user_bsend = buffer;
				hp_mpi.user_bsend_size = size;
				hp_mpi.own_bsend = own;
			} else {
				free(own);
			}
		}
	}
	hp_call_t2(c);
	return rc;
}

int hp_w_buffer_detach(struct hp_call *c, __typeof__(&PMPI_Buffer_detach) pmpi, void *buffer_addr,
		       int *size)
{
	int rc = pmpi(buffer_addr, size);
	hp_call_t2(c);
	if (rc == MPI_SUCCESS && hp_mpi.own_bsend && *(void **)buffer_addr == hp_mpi.own_bsend) {
		free(hp_mpi.own_bsend);
		hp_mpi.own_bsend = NULL;
		*(void **)buffer_addr = hp_mpi.user_bsend;
		*size = hp_mpi.user_bsend_size;
	}
	return rc;
}
