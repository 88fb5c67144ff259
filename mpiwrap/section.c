/* mpiwrap/section.c - this process's MPI sections in its profile.
 *
 * Registered with hp_register_section_writer() at MPI_Init; the runtime
 * calls it whenever it writes the profile: at exit, at exec, from a fatal
 * signal handler, and at MPI_Finalize for the merge.  So it is signal-safe:
 * it only reads the per-thread tables (no locks, no allocation) and writes
 * with the signal-safe writer of core/format.h.  The records are those of
 * mpiwrap/records.h, times converted from cycles to nanoseconds.
 *
 * Signal-safe: every function.
 */
#include <string.h>

#include "core/format.h"
#include "mpiwrap/mpiwrap.h"

static uint64_t ns(uint64_t cyc)
{
	return (uint64_t)((double)cyc * hp_mpi.ns_per_cyc + 0.5);
}

static void cpy_name(char *dst, uint32_t fn)
{
	const char *s = fn < HP_FN_COUNT && hp_mpi_fn_names[fn] ? hp_mpi_fn_names[fn] : "MPI_?";
	size_t n = strlen(s);
	if (n >= HP_MPI_FN_LEN)
		n = HP_MPI_FN_LEN - 1;
	memset(dst, 0, HP_MPI_FN_LEN);
	memcpy(dst, s, n);
}

static const char *comp_name(int c)
{
	return c == HP_COMP_PARALLEL ? "parallel" : c == HP_COMP_LOCAL ? "local" : "none";
}

/* The kv block of HP_SEC_MPI (also one rank's block in HP_SEC_MPI_RANKS). */
int hp_mpi_write_kv(struct hp_writer *w, const struct hp_mpi_rankvals *v, int rank, int pid,
		    uint64_t sites_full)
{
	const struct hp_mpi_totals *t = &v->t;
	hp_writer_kv_i64(w, "rank", rank);
	hp_writer_kv_i64(w, "pid", pid);
	hp_writer_kv_i64(w, "nranks", hp_mpi.size);
	hp_writer_kv_str(w, "compensate", comp_name(hp_mpi.comp));
	hp_writer_kv_u64(w, "piggyback_bytes", hp_mpi.pb_size);
	hp_writer_kv_u64(w, "pack_max", hp_mpi.pack_max);
	hp_writer_kv_u64(w, "shared_clock", (uint64_t)hp_mpi.clock_ok);
	hp_writer_kv_i64(w, "thread_level", hp_mpi.thread_level);
	hp_writer_kv_f64(w, "wall_raw", v->wall_raw);
	hp_writer_kv_f64(w, "wall_local", v->wall_local);
	hp_writer_kv_f64(w, "wall_parallel", v->wall_parallel);
	hp_writer_kv_f64(w, "wait_raw", v->wait_raw);
	hp_writer_kv_f64(w, "wait_compensated", v->wait_comp);
	hp_writer_kv_u64(w, "reordered_receives", t->reordered);
	hp_writer_kv_f64(w, "overhead", v->overhead);
	hp_writer_kv_f64(w, "delay", v->delay);
	hp_writer_kv_f64(w, "mpi_time", v->mpi_time);
	hp_writer_kv_u64(w, "mpi_calls", t->calls);
	hp_writer_kv_u64(w, "piggyback_msgs", t->pb_msgs);
	hp_writer_kv_u64(w, "piggyback_applied", t->pb_recv);
	hp_writer_kv_u64(w, "piggyback_packed", t->packed);
	hp_writer_kv_u64(w, "piggyback_struct", t->structs);
	hp_writer_kv_u64(w, "collective_exchanges", t->xchg);
	hp_writer_kv_f64(w, "piggyback_cost", v->pb_cost);
	hp_writer_kv_f64(w, "wrapper_cost", v->wrap_cost);
	hp_writer_kv_f64(w, "wrapper_ns", hp_mpi.cal.wrap_ns);
	hp_writer_kv_f64(w, "piggyback_packed_ns", hp_mpi.cal.pack_ns);
	hp_writer_kv_f64(w, "piggyback_struct_ns", hp_mpi.cal.struct_ns);
	hp_writer_kv_f64(w, "piggyback_struct_new_ns", hp_mpi.cal.struct_new_ns);
	hp_writer_kv_u64(w, "cancelled", t->cancelled);
	hp_writer_kv_u64(w, "untracked", t->untracked);
	hp_writer_kv_u64(w, "request_overflow", t->req_overflow);
	hp_writer_kv_u64(w, "orphans", t->orphans);
	hp_writer_kv_u64(w, "other_world_calls", t->other_world);
	hp_writer_kv_u64(w, "sites_full", sites_full);
	hp_writer_kv_f64(w, "init_cost", (double)hp_mpi.init_cyc * hp_mpi.ns_per_cyc * 1e-9);
	hp_writer_kv_f64(w, "merge_time", (double)hp_mpi.merge_ns * 1e-9);
	hp_writer_kv_u64(w, "merge_levels", hp_mpi.merge_levels);
	return w->err;
}

static int write_mpi(struct hp_writer *w, void *arg)
{
	(void)arg;
	if (!hp_mpi.initialized)
		return 0;
	struct hp_mpi_rankvals v;
	hp_mpi_rank_values(&v);
	uint64_t full = 0;
	for (struct hp_mt *mt = __atomic_load_n(&hp_mpi.threads, __ATOMIC_ACQUIRE); mt; mt = mt->next)
		full += mt->sites_full + mt->speers_full + mt->colls_full;
	hp_writer_begin(w, HP_SEC_MPI);
	hp_mpi_write_kv(w, &v, hp_mpi.rank, (int)hp_rt.pid, full);
	return hp_writer_end(w);
}

/* Records of one thread: write at most *left of them (count them all when
 * w is NULL).  Returns the number found. */
static uint32_t sites_of(const struct hp_mt *mt, struct hp_writer *w, uint32_t *left)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i <= HP_SITES; i++) {
		const struct hp_site *s = &mt->sites[i];
		if (!s->key || (!s->calls && !s->bytes))
			continue;
		n++;
		if (!w)
			continue;
		if (!*left)
			break;
		(*left)--;
		struct hp_mpi_site_rec r;
		memset(&r, 0, sizeof(r));
		r.key = s->key;
		memcpy(r.path, s->path, sizeof(r.path));
		cpy_name(r.fn, s->fn);
		r.depth = s->depth;
		r.ctx = s->ctx;
		r.rank = hp_mpi.rank;
		r.thread = mt->index;
		r.calls = s->calls;
		r.bytes = s->bytes;
		r.time_ns = ns(s->cyc);
		r.wait_raw_ns = ns(s->wait_raw);
		r.wait_comp_ns = ns(s->wait_comp);
		r.max_ns = ns(s->max_cyc);
		r.nranks = 1;
		hp_writer_bytes(w, &r, sizeof(r));
	}
	return n;
}

static uint32_t peers_of(const struct hp_mt *mt, struct hp_writer *w, uint32_t *left)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < HP_SPEERS; i++) {
		const struct hp_speer *p = &mt->speers[i];
		if (!p->key)
			continue;
		n++;
		if (!w)
			continue;
		if (!*left)
			break;
		(*left)--;
		struct hp_mpi_peer_rec r;
		memset(&r, 0, sizeof(r));
		r.site = p->site;
		r.peer = p->peer;
		r.dir = p->dir;
		r.msgs = p->msgs;
		r.bytes = p->bytes;
		r.time_ns = ns(p->cyc);
		r.wait_raw_ns = ns(p->wait_raw);
		r.wait_comp_ns = ns(p->wait_comp);
		r.rank = hp_mpi.rank;
		r.thread = mt->index;
		hp_writer_bytes(w, &r, sizeof(r));
	}
	return n;
}

static uint32_t colls_of(const struct hp_mt *mt, struct hp_writer *w, uint32_t *left)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < HP_COLLS; i++) {
		const struct hp_collstat *p = &mt->colls[i];
		if (!p->key)
			continue;
		n++;
		if (!w)
			continue;
		if (!*left)
			break;
		(*left)--;
		struct hp_mpi_coll_rec r;
		memset(&r, 0, sizeof(r));
		cpy_name(r.fn, p->fn);
		r.comm_size = p->comm_size;
		r.rank = hp_mpi.rank;
		r.calls = p->calls;
		r.bytes = p->bytes;
		r.time_ns = ns(p->cyc);
		r.wait_raw_ns = ns(p->wait_raw);
		r.wait_comp_ns = ns(p->wait_comp);
		hp_writer_bytes(w, &r, sizeof(r));
	}
	return n;
}

/* One matrix record, from -> to (written when w, at most *left of them). */
static uint32_t mat_rec(struct hp_writer *w, uint32_t *left, int from, int to, const uint64_t *cell)
{
	if (!cell[0])
		return 0;
	if (w) {
		if (!*left)
			return 0;
		(*left)--;
		struct hp_mpi_mat_rec r = {.from = from, .to = to, .msgs = cell[0], .bytes = cell[1]};
		hp_writer_bytes(w, &r, sizeof(r));
	}
	return 1;
}

/* What this rank sent to each peer, and what its one-sided calls fetched
 * from the peer (sent by the peer, recorded here). */
static uint32_t mat_of(const struct hp_mt *mt, struct hp_writer *w, uint32_t *left)
{
	uint32_t n = 0;
	if (!mt->mat)
		return 0;
	for (int p = 0; p < hp_mpi.size; p++) {
		const uint64_t *row = &mt->mat[(size_t)p * HP_MAT_COLS];
		n += mat_rec(w, left, hp_mpi.rank, p, row);
		n += mat_rec(w, left, p, hp_mpi.rank, row + 4);
	}
	return n;
}

static int write_sites(struct hp_writer *w, void *arg)
{
	(void)arg;
	if (!hp_mpi.initialized)
		return 0;
	struct hp_mpi_sites_hdr h = {
		.version = HP_MPI_SITES_VERSION,
		.site_size = sizeof(struct hp_mpi_site_rec),
		.peer_size = sizeof(struct hp_mpi_peer_rec),
		.coll_size = sizeof(struct hp_mpi_coll_rec),
		.mat_size = sizeof(struct hp_mpi_mat_rec),
		.func_size = sizeof(struct hp_mpi_func_rec),
	};
	struct hp_mt *head = __atomic_load_n(&hp_mpi.threads, __ATOMIC_ACQUIRE);
	for (struct hp_mt *mt = head; mt; mt = mt->next) {
		h.nsites += sites_of(mt, NULL, NULL);
		h.npeers += peers_of(mt, NULL, NULL);
		h.ncolls += colls_of(mt, NULL, NULL);
		h.nmat += mat_of(mt, NULL, NULL);
	}
	hp_writer_begin(w, HP_SEC_MPI_SITES);
	hp_writer_bytes(w, &h, sizeof(h));
	/* Threads may still be adding records: tables only grow, so each pass
	 * finds at least what was counted and writes exactly that many. */
	uint32_t left[4] = {h.nsites, h.npeers, h.ncolls, h.nmat};
	for (struct hp_mt *mt = head; mt; mt = mt->next)
		sites_of(mt, w, &left[0]);
	for (struct hp_mt *mt = head; mt; mt = mt->next)
		peers_of(mt, w, &left[1]);
	for (struct hp_mt *mt = head; mt; mt = mt->next)
		colls_of(mt, w, &left[2]);
	for (struct hp_mt *mt = head; mt; mt = mt->next)
		mat_of(mt, w, &left[3]);
	return hp_writer_end(w);
}

int hp_sections_register(void)
{
	int rc = hp_register_section_writer(write_mpi, NULL);
	if (!rc)
		rc = hp_register_section_writer(write_sites, NULL);
	if (rc)
		hp_log("mpi: cannot register the MPI profile sections (%d)", rc);
	return rc;
}
