/* mpiwrap/stats.c - communication statistics: summary records, no traces.
 *
 * ALGORITHMS.md section 5 (Li & Zhang): per call site and per peer, calls,
 * bytes, time in the call, waiting time raw and compensated; per collective
 * and communicator size; the point-to-point matrix by world rank.  Every
 * table is per thread (no atomics on the hot path) and fixed in size at
 * creation, so a longer run never grows the profile: when a table is full
 * the record goes to its first slot, "[other]", and the overflow is counted.
 *
 * A call site is the MPI function, the return address into its caller and
 * the caller's probe-tree node when probes run (t->probe_cur), so the same
 * line reached through different instrumented paths stays apart.  The first
 * call at a site also records up to HP_MPI_SITE_DEPTH return addresses with
 * libunwind (outside any signal handler; samples are held off meanwhile).
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>

#include "mpiwrap/mpiwrap.h"

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

uint64_t hp_site_key(uint32_t fn, uintptr_t ra, uint32_t ctx)
{
	uint64_t k = mix((uint64_t)ra ^ ((uint64_t)fn << 48) ^ ((uint64_t)ctx * 0x9e3779b97f4a7c15ull));
	return k < 2 ? k + 2 : k; /* 0 = empty, 1 = "[other]" */
}

/* Up to HP_MPI_SITE_DEPTH return addresses from the one into the caller of
 * the MPI entry point (`ra`) outwards. */
static uint32_t capture_path(struct hp_mt *mt, uintptr_t ra, uint64_t *path)
{
	void *frames[HP_MPI_SITE_DEPTH + 24];
	if (mt->t)
		mt->t->busy++; /* libunwind is not reentrant under our own sampler */
	int n = unw_backtrace(frames, (int)(sizeof(frames) / sizeof(frames[0])));
	if (mt->t)
		mt->t->busy--;
	uint32_t d = 0;
	int start = -1;
	for (int i = 0; i < n; i++)
		if ((uintptr_t)frames[i] == ra) {
			start = i;
			break;
		}
	if (start < 0) {
		path[0] = ra; /* unwinding lost the frame: keep the call site alone */
		return 1;
	}
	for (int i = start; i < n && d < HP_MPI_SITE_DEPTH; i++)
		path[d++] = (uint64_t)(uintptr_t)frames[i];
	return d;
}

/* m: the call's memo set (both missed): a site found goes first, the first
 * one second. */
struct hp_site *hp_site_find(struct hp_call *c, uint32_t ctx, struct hp_site_memo *m)
{
	struct hp_mt *mt = c->mt;
	struct hp_site_memo prev = m[0];
	uint64_t key = hp_site_key(c->fn, (uintptr_t)c->ra, ctx);
	uint32_t h = (uint32_t)(key >> 20);
	for (uint32_t i = 0; i < 32; i++) {
		struct hp_site *s = &mt->sites[(h + i) & (HP_SITES - 1)];
		if (HP_LIKELY(s->key == key)) {
			m[1] = prev;
			m[0] = (struct hp_site_memo){(uintptr_t)c->ra, c->fn, ctx, s};
			c->site = s;
			return s;
		}
		if (s->key == 0) {
			uint64_t t = hp_rdtsc();
			s->depth = capture_path(mt, (uintptr_t)c->ra, s->path);
			s->fn = c->fn;
			s->ctx = ctx;
			s->key = key;
			c->extra += hp_rdtsc() - t;
			c->site = s;
			return s;
		}
	}
	mt->sites_full++;
	struct hp_site *o = &mt->sites[HP_SITES];
	if (!o->key) {
		o->key = 1;
		o->fn = c->fn;
		o->ctx = 0xffffffffu;
		o->depth = 0;
	}
	c->site = o;
	return o;
}

void hp_call_leave(struct hp_call *c)
{
	struct hp_mt *mt = c->mt;
	uint64_t t2 = c->t2 ? c->t2 : hp_rdtsc();
	uint64_t dt = t2 - c->t1;
	struct hp_site *s = c->site ? c->site : hp_site_get(c);
	s->calls++;
	s->bytes += c->bytes;
	s->cyc += dt;
	if (dt > s->max_cyc)
		s->max_cyc = dt;
	if (c->wait_raw > 0)
		s->wait_raw += (uint64_t)c->wait_raw;
	if (c->wait_comp > 0)
		s->wait_comp += (uint64_t)c->wait_comp;
	struct hp_mpi_totals *t = &mt->tot;
	t->calls++;
	t->time_cyc += dt;
	if (c->wait_raw > 0)
		t->wait_raw += (uint64_t)c->wait_raw;
	if (c->wait_comp > 0)
		t->wait_comp += (uint64_t)c->wait_comp;
	/* our own cost: the calibrated bookkeeping plus what was measured */
	uint64_t charge = hp_mpi.wrap_cyc + c->extra;
	*mt->o += charge;
	*mt->x += charge;
	/* samples taken during the call (the entry folded those before it) */
	hp_sampler_fold(mt, c->wait_raw > 0 ? (uint64_t)c->wait_raw : 0);
	t->wrap_cyc += hp_mpi.wrap_cyc;
	/* requests the user freed while active: their data may have arrived */
	if (HP_UNLIKELY(__atomic_load_n(&hp_orphans_pending, __ATOMIC_RELAXED)))
		hp_orphans_poll(mt);
	mt->depth = 0;
}

static inline void speer_add(struct hp_speer *p, uint64_t msgs, uint64_t bytes, int64_t cyc, int64_t wait_raw,
			     int64_t wait_comp)
{
	p->msgs += msgs;
	p->bytes += bytes;
	if (cyc > 0)
		p->cyc += (uint64_t)cyc;
	if (wait_raw > 0)
		p->wait_raw += (uint64_t)wait_raw;
	if (wait_comp > 0)
		p->wait_comp += (uint64_t)wait_comp;
}

static struct hp_speer *speer_find(struct hp_mt *mt, uint64_t site_key, int peer, int dir);

void hp_site_peer_add(struct hp_mt *mt, struct hp_site *s, int peer, int dir, uint64_t msgs, uint64_t bytes,
		      int64_t cyc, int64_t wait_raw, int64_t wait_comp)
{
	if (peer < 0)
		return;
	if (mt->mat && peer < hp_mpi.size) {
		uint64_t *row = &mt->mat[(size_t)peer * HP_MAT_COLS + (dir ? 2 : 0)];
		row[0] += msgs;
		row[1] += bytes;
	}
	struct hp_speer *p = s->last[dir & 1];
	if (!p || p->peer != peer || p->site != s->key) {
		p = speer_find(mt, s->key, peer, dir);
		if (!p)
			return;
		s->last[dir & 1] = p;
	}
	speer_add(p, msgs, bytes, cyc, wait_raw, wait_comp);
}

void hp_peer_add(struct hp_mt *mt, uint64_t site_key, int peer, int dir, uint64_t msgs, uint64_t bytes,
		 int64_t cyc, int64_t wait_raw, int64_t wait_comp)
{
	if (peer < 0)
		return;
	if (mt->mat && peer < hp_mpi.size) {
		uint64_t *row = &mt->mat[(size_t)peer * HP_MAT_COLS + (dir ? 2 : 0)];
		row[0] += msgs;
		row[1] += bytes;
	}
	struct hp_speer *p = speer_find(mt, site_key, peer, dir);
	if (p)
		speer_add(p, msgs, bytes, cyc, wait_raw, wait_comp);
}

void hp_mat_fetched(struct hp_mt *mt, int peer, uint64_t msgs, uint64_t bytes)
{
	if (!mt->mat || peer < 0 || peer >= hp_mpi.size)
		return;
	uint64_t *row = &mt->mat[(size_t)peer * HP_MAT_COLS + 4];
	row[0] += msgs;
	row[1] += bytes;
}

static struct hp_speer *speer_lookup(struct hp_mt *mt, uint64_t site_key, int peer, int dir);

/* A (site, peer, direction) record found recently is answered from the
 * thread's memo (completions name their site by key, without the site's
 * own last-peer cache); a record never moves. */
static struct hp_speer *speer_find(struct hp_mt *mt, uint64_t site_key, int peer, int dir)
{
	struct hp_speer_memo *m = &mt->pmemo[2 * ((site_key ^ (uint64_t)(uint32_t)peer * 2 ^ (uint64_t)dir) &
						 (HP_SPEER_MEMO / 2 - 1))];
	for (int w = 0; w < 2; w++)
		if (HP_LIKELY(m[w].p && m[w].site == site_key && m[w].peer == peer && m[w].dir == dir))
			return m[w].p;
	struct hp_speer_memo prev = m[0];
	struct hp_speer *p = speer_lookup(mt, site_key, peer, dir);
	if (p) {
		m[1] = prev;
		m[0] = (struct hp_speer_memo){site_key, peer, dir, p};
	}
	return p;
}

static struct hp_speer *speer_lookup(struct hp_mt *mt, uint64_t site_key, int peer, int dir)
{
	uint64_t key = mix(site_key ^ ((uint64_t)(uint32_t)peer << 1) ^ (uint64_t)dir) | 1;
	uint32_t h = (uint32_t)(key >> 24);
	struct hp_speer *p = NULL;
	for (uint32_t i = 0; i < 32; i++) {
		struct hp_speer *q = &mt->speers[(h + i) % HP_SPEERS];
		if (q->key == key && q->site == site_key && q->peer == peer && q->dir == (uint32_t)dir) {
			p = q;
			break;
		}
		if (q->key == 0) {
			q->key = key;
			q->site = site_key;
			q->peer = peer;
			q->dir = (uint32_t)dir;
			p = q;
			break;
		}
	}
	if (!p)
		mt->speers_full++; /* the matrix and the site still have it */
	return p;
}

void hp_coll_add(struct hp_mt *mt, uint32_t fn, int comm_size, uint64_t bytes, int64_t cyc,
		 int64_t wait_raw, int64_t wait_comp)
{
	uint64_t key = (((uint64_t)fn << 32) | (uint32_t)comm_size) + 1;
	uint32_t h = (uint32_t)mix(key);
	struct hp_collstat *p = NULL;
	for (uint32_t i = 0; i < 16; i++) {
		struct hp_collstat *q = &mt->colls[(h + i) % HP_COLLS];
		if (q->key == key) {
			p = q;
			break;
		}
		if (q->key == 0) {
			q->key = key;
			q->fn = fn;
			q->comm_size = (uint32_t)comm_size;
			p = q;
			break;
		}
	}
	if (!p) {
		mt->colls_full++;
		return;
	}
	p->calls++;
	p->bytes += bytes;
	if (cyc > 0)
		p->cyc += (uint64_t)cyc;
	if (wait_raw > 0)
		p->wait_raw += (uint64_t)wait_raw;
	if (wait_comp > 0)
		p->wait_comp += (uint64_t)wait_comp;
}

/* Bytes received by a request posted at another site (Irecv): they belong
 * to the posting site, which may be another thread's, so the record is
 * created here from the posting site's immutable part. */
void hp_site_add_bytes(struct hp_mt *mt, const struct hp_site *origin, uint64_t bytes)
{
	if (!origin || !origin->key)
		return;
	uint64_t key = origin->key;
	if (key == 1)
		return;
	uint32_t h = (uint32_t)(key >> 20);
	for (uint32_t i = 0; i < 32; i++) {
		struct hp_site *s = &mt->sites[(h + i) & (HP_SITES - 1)];
		if (s->key == key) {
			s->bytes += bytes;
			return;
		}
		if (s->key == 0) {
			memcpy(s->path, origin->path, sizeof(s->path));
			s->depth = origin->depth;
			s->fn = origin->fn;
			s->ctx = origin->ctx;
			s->key = key;
			s->bytes += bytes;
			return;
		}
	}
	mt->sites_full++;
}
