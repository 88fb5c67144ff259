/* tools/view_mpi.c - the MPI views of `hyprof report` (issue 5).
 *
 *   per-rank compensation: wall time measured, locally and parallel
 *     compensated, waiting raw and compensated, reordered wildcard receives;
 *   MPI time by call site (the call path of each MPI call), with waiting;
 *   collectives by communicator size;
 *   the rank-by-rank point-to-point matrix (messages, bytes);
 *   per-function load imbalance over ranks (min, mean, max and their ranks).
 *
 * Reads the sections written by libhyprof_mpi.so (mpiwrap/records.h,
 * docs/mpi.md) straight from the files of the model: HP_SEC_MPI of each
 * per-rank file, or HP_SEC_MPI_RANKS of a merged file (a merged file wins
 * over per-rank files beside it, as in model.c).  Call sites are symbolized
 * with each file's own module table.  The imbalance comes from the model's
 * per-rank trees, or from the merged file's per-function records.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "mpiwrap/records.h"
#include "tools/json.h"
#include "tools/model_build.h"
#include "tools/symbols.h"
#include "tools/util.h"
#include "tools/views.h"

/* ---- ranks --------------------------------------------------------------- */

struct mrank {
	int rank, pid;
	double wall_raw, wall_local, wall_parallel, wait_raw, wait_comp;
	double mpi_time, overhead, delay, pb_cost, wrap_cost, merge_time;
	uint64_t reordered, pb_msgs, pb_applied, calls, untracked;
	uint64_t other_world;         /* calls on communicators reaching another world */
	char compensate[16];
};

struct mview {
	int any;                 /* some MPI section was found */
	int merged;              /* read from a merged file */
	struct mrank *ranks;
	size_t nranks;
	struct hp_kvlist first;  /* the first rank's kv (calibrated costs, settings) */
	int have_first;
	uint64_t missing;        /* merged files: ranks the merge had to leave out
				  * (META merged_missing: a rank whose profile
				  * could not be written, or could not be read) */
	double merge_time;       /* merged files: the merge's cost and depth */
	uint64_t merge_levels;
	const struct hp_prof **profs; /* files used */
	size_t nprofs;
	struct symtab *st;
};

static int use_prof(const struct hp_model *m, const struct hp_prof *p)
{
	int any_merged = 0;
	for (size_t i = 0; i < m->nprofs; i++)
		any_merged |= (m->profs[i]->flags & HP_FILE_MERGED) != 0;
	return !any_merged || (p->flags & HP_FILE_MERGED);
}

static void rank_from_kv(struct mrank *r, const struct hp_kvlist *kv, int pid_def)
{
	memset(r, 0, sizeof(*r));
	r->rank = (int)hp_kv_i64(kv, "rank", -1);
	r->pid = (int)hp_kv_i64(kv, "pid", pid_def);
	r->wall_raw = hp_kv_f64(kv, "wall_raw", 0);
	r->wall_local = hp_kv_f64(kv, "wall_local", 0);
	r->wall_parallel = hp_kv_f64(kv, "wall_parallel", 0);
	r->wait_raw = hp_kv_f64(kv, "wait_raw", 0);
	r->wait_comp = hp_kv_f64(kv, "wait_compensated", 0);
	r->mpi_time = hp_kv_f64(kv, "mpi_time", 0);
	r->overhead = hp_kv_f64(kv, "overhead", 0);
	r->delay = hp_kv_f64(kv, "delay", 0);
	r->pb_cost = hp_kv_f64(kv, "piggyback_cost", 0);
	r->wrap_cost = hp_kv_f64(kv, "wrapper_cost", 0);
	r->merge_time = hp_kv_f64(kv, "merge_time", 0);
	r->reordered = hp_kv_u64(kv, "reordered_receives", 0);
	r->pb_msgs = hp_kv_u64(kv, "piggyback_msgs", 0);
	r->pb_applied = hp_kv_u64(kv, "piggyback_applied", 0);
	r->calls = hp_kv_u64(kv, "mpi_calls", 0);
	r->untracked = hp_kv_u64(kv, "untracked", 0);
	r->other_world = hp_kv_u64(kv, "other_world_calls", 0);
	snprintf(r->compensate, sizeof(r->compensate), "%s", hp_kv_str(kv, "compensate", "?"));
}

static void add_rank(struct mview *v, const struct hp_kvlist *kv, int pid_def)
{
	struct mrank *n = realloc(v->ranks, (v->nranks + 1) * sizeof(*n));
	if (!n)
		abort();
	v->ranks = n;
	rank_from_kv(&v->ranks[v->nranks++], kv, pid_def);
	if (!v->have_first) {
		/* keep a copy: the kv list points into the file's buffer */
		v->first = *kv;
		v->have_first = 1;
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct mrank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void gather(struct hp_model *m, struct mview *v)
{
	memset(v, 0, sizeof(*v));
	v->profs = calloc(m->nprofs ? m->nprofs : 1, sizeof(*v->profs));
	if (!v->profs)
		abort();
	for (size_t i = 0; i < m->nprofs; i++) {
		const struct hp_prof *p = m->profs[i];
		if (!use_prof(m, p))
			continue;
		int pid = (int)hp_kv_i64(&p->meta, "pid", 0);
		const struct hp_section *rs = hp_prof_section(p, HP_SEC_MPI_RANKS);
		const struct hp_section *ms = hp_prof_section(p, HP_SEC_MPI);
		if (!rs && !ms)
			continue;
		v->any = 1;
		v->profs[v->nprofs++] = p;
		if (rs && rs->len >= 4) {
			v->merged = 1;
			v->missing += hp_kv_u64(&p->meta, "merged_missing", 0);
			struct hp_kvlist mk = {0};
			if (ms && hp_kv_parse(ms->data, ms->len, &mk) == 0) {
				v->merge_time = hp_kv_f64(&mk, "merge_time", 0);
				v->merge_levels = hp_kv_u64(&mk, "merge_levels", 0);
				hp_kv_free(&mk);
			}
			uint32_t n;
			memcpy(&n, rs->data, 4);
			size_t off = 4;
			for (uint32_t k = 0; k < n && off + 4 <= rs->len; k++) {
				uint32_t len;
				memcpy(&len, rs->data + off, 4);
				off += 4;
				if (off + len > rs->len)
					break;
				struct hp_kvlist kv = {0};
				if (hp_kv_parse(rs->data + off, len, &kv) == 0)
					add_rank(v, &kv, 0);
				if (v->have_first && v->first.v == kv.v)
					; /* kept as v->first */
				else
					hp_kv_free(&kv);
				off += len;
			}
		} else if (ms) {
			struct hp_kvlist kv = {0};
			if (hp_kv_parse(ms->data, ms->len, &kv) == 0) {
				add_rank(v, &kv, pid);
				if (!(v->have_first && v->first.v == kv.v))
					hp_kv_free(&kv);
			}
		}
	}
	if (v->nranks > 1)
		qsort(v->ranks, v->nranks, sizeof(*v->ranks), cmp_rank);
	v->st = symtab__new();
}

static void release(struct mview *v)
{
	if (v->have_first)
		hp_kv_free(&v->first);
	free(v->ranks);
	free(v->profs);
	if (v->st)
		symtab__free(v->st);
}

/* ---- the records of HP_SEC_MPI_SITES --------------------------------------- */

struct recs {
	const struct hp_prof *p;
	struct hp_mpi_sites_hdr h;
	const uint8_t *site, *peer, *coll, *mat, *func;
};

static int read_recs(const struct hp_prof *p, struct recs *r)
{
	memset(r, 0, sizeof(*r));
	const struct hp_section *s = hp_prof_section(p, HP_SEC_MPI_SITES);
	if (!s || s->len < sizeof(r->h))
		return 0;
	memcpy(&r->h, s->data, sizeof(r->h));
	const struct hp_mpi_sites_hdr *h = &r->h;
	if (!hp_mpi_sites_fit(h, s->len))
		return 0;
	r->p = p;
	r->site = s->data + sizeof(*h);
	r->peer = r->site + (size_t)h->nsites * h->site_size;
	r->coll = r->peer + (size_t)h->npeers * h->peer_size;
	r->mat = r->coll + (size_t)h->ncolls * h->coll_size;
	r->func = r->mat + (size_t)h->nmat * h->mat_size;
	return 1;
}

/* Copy record i of size `have` into a zeroed struct of size `want`. */
#define REC(dst, base, size, i)                                                         \
	do {                                                                            \
		memset(&(dst), 0, sizeof(dst));                                         \
		memcpy(&(dst), (base) + (size_t)(i) * (size), (size) < sizeof(dst) ? (size) : sizeof(dst)); \
	} while (0)

/* ---- call sites ---------------------------------------------------------- */

struct site_row {
	char fn[HP_MPI_FN_LEN];
	char *where;            /* caller function (file:line) */
	char *path;             /* callers outwards, "a <- b <- c" */
	uint64_t calls, bytes;
	double time, wait_raw, wait_comp, max;
	int nranks, last_rank;
};

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* "function (file:line)" of a return address. */
static void where(struct sym_space *sp, uint64_t pc, char *buf, size_t len)
{
	const struct sym_loc *l = sym_space__resolve(sp, pc, 1);
	const struct sym_frame *f = &l->frames[l->nframes - 1];
	if (l->unknown)
		snprintf(buf, len, "%s", l->where);
	else if (f->src && f->line > 0)
		snprintf(buf, len, "%s (%s:%d)", f->name, base(f->src), f->line);
	else
		snprintf(buf, len, "%s", f->name);
}

static int cmp_site(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;
	return (x->time < y->time) - (x->time > y->time);
}

static struct site_row *sites(struct mview *v, size_t *n)
{
	struct site_row *rows = NULL;
	size_t nr = 0, cap = 0;
	for (size_t i = 0; i < v->nprofs; i++) {
		struct recs r;
		if (!read_recs(v->profs[i], &r))
			continue;
		struct sym_space *sp = symtab__space(v->st, r.p->modules, r.p->nmodules);
		for (uint32_t k = 0; k < r.h.nsites; k++) {
			struct hp_mpi_site_rec s;
			REC(s, r.site, r.h.site_size, k);
			s.fn[HP_MPI_FN_LEN - 1] = 0;
			char w[512] = "[other call sites]", path[1024] = "";
			if (sp && s.depth > 0) {
				where(sp, s.path[0], w, sizeof(w));
				size_t off = 0;
				for (uint32_t d = 1; d < s.depth && d < HP_MPI_SITE_DEPTH && off < sizeof(path); d++) {
					const struct sym_loc *l = sym_space__resolve(sp, s.path[d], 1);
					const char *name = l->unknown ? l->where : l->frames[l->nframes - 1].name;
					off += (size_t)snprintf(path + off, sizeof(path) - off, "%s%s", d > 1 ? " <- " : "",
								name);
				}
			}
			size_t j;
			for (j = 0; j < nr; j++)
				if (!strcmp(rows[j].fn, s.fn) && !strcmp(rows[j].where, w) && !strcmp(rows[j].path, path))
					break;
			if (j == nr) {
				if (nr == cap) {
					cap = cap ? cap * 2 : 64;
					rows = realloc(rows, cap * sizeof(*rows));
					if (!rows)
						abort();
				}
				memset(&rows[nr], 0, sizeof(rows[nr]));
				memcpy(rows[nr].fn, s.fn, sizeof(s.fn));
				rows[nr].where = strdup(w);
				rows[nr].path = strdup(path);
				rows[nr].last_rank = -2;
				nr++;
			}
			struct site_row *o = &rows[j];
			o->calls += s.calls;
			o->bytes += s.bytes;
			o->time += (double)s.time_ns * 1e-9;
			o->wait_raw += (double)s.wait_raw_ns * 1e-9;
			o->wait_comp += (double)s.wait_comp_ns * 1e-9;
			if ((double)s.max_ns * 1e-9 > o->max)
				o->max = (double)s.max_ns * 1e-9;
			if (s.rank < 0) {
				/* summed over ranks (merged): the count it carries (the
				 * row may join several such records: the largest) */
				int k = s.nranks ? (int)s.nranks : 1; /* older files: unknown */
				if (k > o->nranks)
					o->nranks = k;
			} else if (s.rank != o->last_rank) {
				o->nranks++;
				o->last_rank = s.rank;
			}
		}
	}
	if (nr > 1)
		qsort(rows, nr, sizeof(*rows), cmp_site);
	*n = nr;
	return rows;
}

static void free_sites(struct site_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].where);
		free(rows[i].path);
	}
	free(rows);
}

/* ---- collectives ----------------------------------------------------------- */

struct coll_row {
	char fn[HP_MPI_FN_LEN];
	uint32_t size;
	uint64_t calls, bytes;
	double time, wait_raw, wait_comp;
};

/* Most time first; then by name and communicator size (a stable order for
 * equal times, whatever order the records came in). */
static int coll_cmp(const void *a, const void *b)
{
	const struct coll_row *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	int c = strcmp(x->fn, y->fn);
	return c ? c : (x->size > y->size) - (x->size < y->size);
}

static struct coll_row *colls(struct mview *v, size_t *n)
{
	struct coll_row *rows = NULL;
	size_t nr = 0;
	for (size_t i = 0; i < v->nprofs; i++) {
		struct recs r;
		if (!read_recs(v->profs[i], &r))
			continue;
		for (uint32_t k = 0; k < r.h.ncolls; k++) {
			struct hp_mpi_coll_rec c;
			REC(c, r.coll, r.h.coll_size, k);
			c.fn[HP_MPI_FN_LEN - 1] = 0;
			size_t j;
			for (j = 0; j < nr; j++)
				if (!strcmp(rows[j].fn, c.fn) && rows[j].size == c.comm_size)
					break;
			if (j == nr) {
				rows = realloc(rows, (nr + 1) * sizeof(*rows));
				if (!rows)
					abort();
				memset(&rows[nr], 0, sizeof(rows[nr]));
				memcpy(rows[nr].fn, c.fn, sizeof(c.fn));
				rows[nr].size = c.comm_size;
				nr++;
			}
			rows[j].calls += c.calls;
			rows[j].bytes += c.bytes;
			rows[j].time += (double)c.time_ns * 1e-9;
			rows[j].wait_raw += (double)c.wait_raw_ns * 1e-9;
			rows[j].wait_comp += (double)c.wait_comp_ns * 1e-9;
		}
	}
	if (nr > 1)
		qsort(rows, nr, sizeof(*rows), coll_cmp);
	*n = nr;
	return rows;
}

/* ---- matrix ------------------------------------------------------------------ */

struct pair {
	int from, to;
	uint64_t msgs, bytes;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->from != y->from)
		return (x->from > y->from) - (x->from < y->from);
	return (x->to > y->to) - (x->to < y->to);
}

/* A world rank a file can hold: ranks are below the world's size, an int,
 * so INT_MAX is damage (and would overflow the matrix's size, maxr + 1). */
static int world_rank(int r)
{
	return r >= 0 && r < INT_MAX;
}

static struct pair *matrix(struct mview *v, size_t *n, int *nranks)
{
	struct pair *ps = NULL;
	size_t np = 0;
	int maxr = -1;
	for (size_t i = 0; i < v->nranks; i++)
		if (world_rank(v->ranks[i].rank) && v->ranks[i].rank > maxr)
			maxr = v->ranks[i].rank;
	for (size_t i = 0; i < v->nprofs; i++) {
		struct recs r;
		if (!read_recs(v->profs[i], &r))
			continue;
		for (uint32_t k = 0; k < r.h.nmat; k++) {
			struct hp_mpi_mat_rec mr;
			REC(mr, r.mat, r.h.mat_size, k);
			if (!world_rank(mr.from) || !world_rank(mr.to))
				continue;
			size_t j;
			for (j = 0; j < np; j++)
				if (ps[j].from == mr.from && ps[j].to == mr.to)
					break;
			if (j == np) {
				ps = realloc(ps, (np + 1) * sizeof(*ps));
				if (!ps)
					abort();
				ps[np++] = (struct pair){mr.from, mr.to, 0, 0};
			}
			ps[j].msgs += mr.msgs;
			ps[j].bytes += mr.bytes;
			if (mr.from > maxr)
				maxr = mr.from;
			if (mr.to > maxr)
				maxr = mr.to;
		}
	}
	if (np > 1)
		qsort(ps, np, sizeof(*ps), cmp_pair);
	*n = np;
	*nranks = maxr + 1;
	return ps;
}

/* ---- load imbalance ------------------------------------------------------------ */

struct imb_row {
	char *fn;
	double min, max, sum;
	int min_rank, max_rank, nranks;
};

static int cmp_imb(const void *a, const void *b)
{
	const struct imb_row *x = a, *y = b;
	return (x->max < y->max) - (x->max > y->max);
}

static struct imb_row *imbalance(struct hp_model *m, struct mview *v, size_t *n, int *nranks_out)
{
	struct imb_row *rows = NULL;
	size_t nr = 0;
	*n = 0;
	*nranks_out = 0;
	if (v->merged) {
		/* per-function records reduced at MPI_Finalize (merged files) */
		for (size_t i = 0; i < v->nprofs; i++) {
			struct recs r;
			if (!read_recs(v->profs[i], &r) || !r.h.nfuncs)
				continue;
			struct sym_space *sp = symtab__space(v->st, r.p->modules, r.p->nmodules);
			rows = calloc(r.h.nfuncs, sizeof(*rows));
			if (!rows)
				abort();
			for (uint32_t k = 0; k < r.h.nfuncs; k++) {
				struct hp_mpi_func_rec f;
				REC(f, r.func, r.h.func_size, k);
				if (f.self_max <= 0)
					continue; /* only total time: not a row of self time */
				const struct sym_loc *l = sp ? sym_space__resolve(sp, f.addr, 0) : NULL;
				/* named as the flat profile names it: "[module+0xSTART]" when
				 * only the unwind table knows the function */
				char nm[600];
				if (l && l->unknown)
					snprintf(nm, sizeof nm, "[%s]", l->where);
				rows[nr].fn = strdup(l ? (l->unknown ? nm : l->frames[0].name) : "?");
				rows[nr].min = f.self_min;
				rows[nr].max = f.self_max;
				rows[nr].sum = f.self_sum;
				rows[nr].min_rank = f.self_min_rank;
				rows[nr].max_rank = f.self_max_rank;
				rows[nr].nranks = (int)f.nranks;
				nr++;
			}
			*nranks_out = (int)v->nranks;
			break;
		}
	} else {
		/* from the model's per-rank trees, each flat profile made once */
		int nr_ranks = (int)v->nranks;
		struct hp_fstat **fls = calloc(v->nranks ? v->nranks : 1, sizeof(*fls));
		size_t *nfs = calloc(v->nranks ? v->nranks : 1, sizeof(*nfs));
		if (!fls || !nfs)
			abort();
		for (size_t i = 0; i < v->nranks; i++) {
			int rank = v->ranks[i].rank;
			nfs[i] = model__flat(m, rank, -1, &fls[i]);
			for (size_t k = 0; k < nfs[i]; k++) {
				struct hp_fstat *f = &fls[i][k];
				if (!f->fn || f->fn->is_measurement || f->self <= 0)
					continue;
				size_t j;
				for (j = 0; j < nr; j++)
					if (!strcmp(rows[j].fn, f->fn->name))
						break;
				if (j == nr) {
					rows = realloc(rows, (nr + 1) * sizeof(*rows));
					if (!rows)
						abort();
					rows[nr] = (struct imb_row){strdup(f->fn->name), INFINITY, -1, 0, -1, -1, 0};
					nr++;
				}
				struct imb_row *o = &rows[j];
				o->sum += f->self;
				o->nranks++;
				if (f->self > o->max) {
					o->max = f->self;
					o->max_rank = rank;
				}
				if (f->self < o->min) {
					o->min = f->self;
					o->min_rank = rank;
				}
			}
		}
		/* a rank where the function never ran had 0 of it */
		for (size_t j = 0; j < nr; j++) {
			if (rows[j].nranks < nr_ranks) {
				rows[j].min = 0;
				rows[j].min_rank = -1;
				for (size_t i = 0; i < v->nranks && rows[j].min_rank < 0; i++) {
					int seen = 0;
					for (size_t k = 0; k < nfs[i] && !seen; k++)
						seen = fls[i][k].fn && fls[i][k].self > 0 &&
						       !strcmp(fls[i][k].fn->name, rows[j].fn);
					if (!seen)
						rows[j].min_rank = v->ranks[i].rank;
				}
			}
			if (isinf(rows[j].min))
				rows[j].min = 0;
		}
		for (size_t i = 0; i < v->nranks; i++)
			free(fls[i]);
		free(fls);
		free(nfs);
		*nranks_out = nr_ranks;
	}
	if (nr > 1)
		qsort(rows, nr, sizeof(*rows), cmp_imb);
	*n = nr;
	return rows;
}

static void free_imb(struct imb_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].fn);
	free(rows);
}

/* ---- text --------------------------------------------------------------------- */

static const char *secs(double s, char *b, size_t n)
{
	return tool_fmt_secs(s, b, n);
}

static const char *bytes_h(uint64_t v, char *b, size_t n)
{
	if (v >= (1ull << 30))
		snprintf(b, n, "%.1f GiB", (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(b, n, "%.1f MiB", (double)v / (1ull << 20));
	else if (v >= 1024)
		snprintf(b, n, "%.1f KiB", (double)v / 1024);
	else
		snprintf(b, n, "%llu B", (unsigned long long)v);
	return b;
}

#define TOP_SITES 25
#define TOP_FUNCS 15

void view_mpi_text(struct hp_model *m, FILE *out)
{
	struct mview v;
	gather(m, &v);
	if (!v.any) {
		release(&v);
		return;
	}
	char a[32], b[32], c[32], d[32], e[32], f[32];
	const struct hp_kvlist *k = &v.first;
	fprintf(out, "MPI: %zu rank%s%s, compensation %s, piggyback %llu bytes per message%s\n", v.nranks,
		v.nranks == 1 ? "" : "s", v.merged ? " (merged at MPI_Finalize)" : "",
		hp_kv_str(k, "compensate", "?"), (unsigned long long)hp_kv_u64(k, "piggyback_bytes", 0),
		hp_kv_u64(k, "shared_clock", 0) ? ", send times compared on a shared clock" : "");
	fprintf(out, "     cost: wrapper %.0f ns per call, piggyback %.0f ns (packed copy), %.0f ns "
		     "(cached struct type), %.0f ns (new struct type)\n",
		hp_kv_f64(k, "wrapper_ns", 0), hp_kv_f64(k, "piggyback_packed_ns", 0),
		hp_kv_f64(k, "piggyback_struct_ns", 0), hp_kv_f64(k, "piggyback_struct_new_ns", 0));
	if (v.missing)
		fprintf(out, "     MISSING: %llu rank%s left out of the merge (%s profile could not be written "
			     "or read: the job's stderr says why); the figures cover %zu rank%s\n",
			(unsigned long long)v.missing, v.missing == 1 ? "" : "s",
			v.missing == 1 ? "its" : "their", v.nranks, v.nranks == 1 ? "" : "s");
	if (v.merged)
		fprintf(out, "     merge at MPI_Finalize: %s over %llu tree levels\n", secs(v.merge_time, a, sizeof a),
			(unsigned long long)v.merge_levels);

	fprintf(out, "\nPer-rank compensation (wall = end of MPI_Init to MPI_Finalize)\n");
	fprintf(out, "%5s %12s %12s %12s %12s %12s %9s %12s %12s\n", "rank", "wall raw", "wall local",
		"wall parallel", "wait raw", "wait comp", "reordered", "MPI time", "hyprof cost");
	double pbc = 0;
	uint64_t reo = 0, other = 0;
	for (size_t i = 0; i < v.nranks; i++) {
		const struct mrank *r = &v.ranks[i];
		char g[32], h[32];
		fprintf(out, "%5d %12s %12s %12s %12s %12s %9llu %12s %12s\n", r->rank,
			secs(r->wall_raw, a, sizeof a), secs(r->wall_local, b, sizeof b),
			secs(r->wall_parallel, c, sizeof c), secs(r->wait_raw, d, sizeof d),
			secs(r->wait_comp, e, sizeof e), (unsigned long long)r->reordered,
			secs(r->mpi_time, f, sizeof f), secs(r->pb_cost + r->wrap_cost, g, sizeof g));
		(void)h;
		pbc += r->pb_cost;
		reo += r->reordered;
		other += r->other_world;
	}
	fprintf(out, "(hyprof cost = wrappers + piggyback; piggyback alone %s in total.  wall local = wall raw "
		     "minus all the rank's measurement overhead since MPI_Init: probes, samples, wrappers)\n",
		secs(pbc, a, sizeof a));
	if (reo)
		fprintf(out, "%llu receive%s from MPI_ANY_SOURCE would have matched in another order "
			     "without measurement: compensation keeps the measured order\n",
			(unsigned long long)reo, reo == 1 ? "" : "s");
	if (other)
		fprintf(out, "%llu call%s on communicators reaching another MPI world (MPI_Comm_spawn, "
			     "connect/accept, join) carried no piggyback: their waiting is not compensated\n",
			(unsigned long long)other, other == 1 ? "" : "s");

	size_t ns;
	struct site_row *sr = sites(&v, &ns);
	if (ns) {
		double tot = 0;
		for (size_t i = 0; i < ns; i++)
			tot += sr[i].time;
		/* A site is the MPI function and its caller (and probe node): the
		 * callers beyond it are those of the site's first call only. */
		fprintf(out, "\nMPI time by call site (all ranks; top %d; the path after the caller is "
			     "its first call's)\n",
			TOP_SITES);
		fprintf(out, "%6s %12s %12s %12s %10s %12s  %s\n", "time%", "time", "wait raw", "wait comp",
			"calls", "bytes", "call site");
		for (size_t i = 0; i < ns && i < TOP_SITES; i++) {
			fprintf(out, "%6.1f %12s %12s %12s %10llu %12s  %s in %s%s%s\n",
				tot > 0 ? 100.0 * sr[i].time / tot : 0.0, secs(sr[i].time, a, sizeof a),
				secs(sr[i].wait_raw, b, sizeof b), secs(sr[i].wait_comp, c, sizeof c),
				(unsigned long long)sr[i].calls, bytes_h(sr[i].bytes, d, sizeof d), sr[i].fn,
				sr[i].where, sr[i].path[0] ? " <- " : "", sr[i].path);
		}
	}
	free_sites(sr, ns);

	size_t nc;
	struct coll_row *cr = colls(&v, &nc);
	if (nc) {
		fprintf(out, "\nCollectives by communicator size (all ranks)\n");
		fprintf(out, "%-26s %6s %10s %12s %12s %12s %12s\n", "collective", "size", "calls", "time",
			"wait raw", "wait comp", "bytes");
		for (size_t i = 0; i < nc; i++)
			fprintf(out, "%-26s %6u %10llu %12s %12s %12s %12s\n", cr[i].fn, cr[i].size,
				(unsigned long long)cr[i].calls, secs(cr[i].time, a, sizeof a),
				secs(cr[i].wait_raw, b, sizeof b), secs(cr[i].wait_comp, c, sizeof c),
				bytes_h(cr[i].bytes, d, sizeof d));
	}
	free(cr);

	size_t np;
	int nr;
	struct pair *ps = matrix(&v, &np, &nr);
	if (np) {
		fprintf(out, "\nPoint-to-point matrix (row sends to column)\n");
		if (nr <= 16) {
			for (int pass = 0; pass < 2; pass++) {
				fprintf(out, "%s\n%6s", pass ? "bytes" : "messages", "");
				for (int t = 0; t < nr; t++)
					fprintf(out, " %9d", t);
				fputc('\n', out);
				for (int s = 0; s < nr; s++) {
					fprintf(out, "%6d", s);
					for (int t = 0; t < nr; t++) {
						uint64_t val = 0;
						for (size_t i = 0; i < np; i++)
							if (ps[i].from == s && ps[i].to == t)
								val = pass ? ps[i].bytes : ps[i].msgs;
						if (pass)
							fprintf(out, " %9s", val ? bytes_h(val, a, sizeof a) : ".");
						else if (val)
							fprintf(out, " %9llu", (unsigned long long)val);
						else
							fprintf(out, " %9s", ".");
					}
					fputc('\n', out);
				}
			}
		} else {
			fprintf(out, "%6s %6s %12s %12s\n", "from", "to", "messages", "bytes");
			for (size_t i = 0; i < np; i++)
				fprintf(out, "%6d %6d %12llu %12s\n", ps[i].from, ps[i].to,
					(unsigned long long)ps[i].msgs, bytes_h(ps[i].bytes, a, sizeof a));
		}
	}
	free(ps);

	size_t ni;
	int nir;
	struct imb_row *ir = imbalance(m, &v, &ni, &nir);
	if (ni && nir > 1) {
		fprintf(out, "\nLoad imbalance over %d ranks (self time per function; top %d by maximum)\n", nir,
			TOP_FUNCS);
		fprintf(out, "%12s %5s %12s %12s %5s %8s  %s\n", "min", "rank", "mean", "max", "rank",
			"max/mean", "function");
		int absent = 0;
		for (size_t i = 0; i < ni && i < TOP_FUNCS; i++) {
			double mean = ir[i].sum / nir;
			/* min rank -1: the function is absent from some rank (the
			 * merged record does not say which) */
			char mr[16] = "-";
			if (ir[i].min_rank >= 0)
				snprintf(mr, sizeof mr, "%d", ir[i].min_rank);
			absent |= ir[i].min_rank < 0;
			fprintf(out, "%12s %5s %12s %12s %5d %8.2f  %s\n", secs(ir[i].min, a, sizeof a), mr,
				secs(mean, b, sizeof b), secs(ir[i].max, c, sizeof c), ir[i].max_rank,
				mean > 0 ? ir[i].max / mean : 0.0, ir[i].fn);
		}
		if (absent)
			fprintf(out, "(rank -: the function ran on only some ranks; `hyprof report --ranks` shows which)\n");
	}
	free_imb(ir, ni);
	release(&v);
}

/* ---- JSON ----------------------------------------------------------------------- */

void view_mpi_json(struct hp_model *m, struct json *j)
{
	struct mview v;
	gather(m, &v);
	if (!v.any) {
		release(&v);
		return;
	}
	const struct hp_kvlist *k = &v.first;
	json__key(j, "mpi");
	json__obj_begin(j);
	json__key(j, "nranks");
	json__int(j, (int64_t)v.nranks);
	json__key(j, "merged");
	json__bool(j, v.merged);
	json__key(j, "missing_ranks");
	json__uint(j, v.missing);
	json__key(j, "compensate");
	json__str(j, hp_kv_str(k, "compensate", NULL));
	json__key(j, "piggyback_bytes");
	json__uint(j, hp_kv_u64(k, "piggyback_bytes", 0));
	json__key(j, "pack_max");
	json__uint(j, hp_kv_u64(k, "pack_max", 0));
	json__key(j, "shared_clock");
	json__bool(j, (int)hp_kv_u64(k, "shared_clock", 0));
	json__key(j, "wrapper_ns");
	json__num(j, hp_kv_f64(k, "wrapper_ns", 0));
	json__key(j, "piggyback_packed_ns");
	json__num(j, hp_kv_f64(k, "piggyback_packed_ns", 0));
	json__key(j, "piggyback_struct_ns");
	json__num(j, hp_kv_f64(k, "piggyback_struct_ns", 0));
	json__key(j, "piggyback_struct_new_ns");
	json__num(j, hp_kv_f64(k, "piggyback_struct_new_ns", 0));
	json__key(j, "merge_time");
	json__num(j, v.merge_time);
	json__key(j, "merge_levels");
	json__uint(j, v.merge_levels);
	json__obj_end(j);

	json__key(j, "ranks");
	json__arr_begin(j);
	for (size_t i = 0; i < v.nranks; i++) {
		const struct mrank *r = &v.ranks[i];
		json__obj_begin(j);
		json__key(j, "rank");
		json__int(j, r->rank);
		json__key(j, "pid");
		json__int(j, r->pid);
		json__key(j, "wall_raw");
		json__num(j, r->wall_raw);
		json__key(j, "wall_local");
		json__num(j, r->wall_local);
		json__key(j, "wall_parallel");
		json__num(j, r->wall_parallel);
		json__key(j, "wait_raw");
		json__num(j, r->wait_raw);
		json__key(j, "wait_compensated");
		json__num(j, r->wait_comp);
		json__key(j, "reordered_receives");
		json__uint(j, r->reordered);
		json__key(j, "mpi_time");
		json__num(j, r->mpi_time);
		json__key(j, "mpi_calls");
		json__uint(j, r->calls);
		json__key(j, "overhead");
		json__num(j, r->overhead);
		json__key(j, "delay");
		json__num(j, r->delay);
		json__key(j, "piggyback_msgs");
		json__uint(j, r->pb_msgs);
		json__key(j, "piggyback_applied");
		json__uint(j, r->pb_applied);
		json__key(j, "piggyback_cost");
		json__num(j, r->pb_cost);
		json__key(j, "wrapper_cost");
		json__num(j, r->wrap_cost);
		json__key(j, "untracked");
		json__uint(j, r->untracked);
		json__key(j, "other_world_calls");
		json__uint(j, r->other_world);
		json__key(j, "compensate");
		json__str(j, r->compensate);
		json__obj_end(j);
	}
	json__arr_end(j);

	size_t ns;
	struct site_row *sr = sites(&v, &ns);
	json__key(j, "mpi_sites");
	json__arr_begin(j);
	for (size_t i = 0; i < ns; i++) {
		json__obj_begin(j);
		json__key(j, "function");
		json__str(j, sr[i].fn);
		json__key(j, "site");
		json__str(j, sr[i].where);
		json__key(j, "callers");
		json__str(j, sr[i].path);
		json__key(j, "calls");
		json__uint(j, sr[i].calls);
		json__key(j, "bytes");
		json__uint(j, sr[i].bytes);
		json__key(j, "time");
		json__num(j, sr[i].time);
		json__key(j, "wait_raw");
		json__num(j, sr[i].wait_raw);
		json__key(j, "wait_compensated");
		json__num(j, sr[i].wait_comp);
		json__key(j, "max");
		json__num(j, sr[i].max);
		json__key(j, "ranks");
		json__int(j, sr[i].nranks);
		json__obj_end(j);
	}
	json__arr_end(j);
	free_sites(sr, ns);

	size_t nc;
	struct coll_row *cr = colls(&v, &nc);
	json__key(j, "mpi_collectives");
	json__arr_begin(j);
	for (size_t i = 0; i < nc; i++) {
		json__obj_begin(j);
		json__key(j, "function");
		json__str(j, cr[i].fn);
		json__key(j, "comm_size");
		json__uint(j, cr[i].size);
		json__key(j, "calls");
		json__uint(j, cr[i].calls);
		json__key(j, "bytes");
		json__uint(j, cr[i].bytes);
		json__key(j, "time");
		json__num(j, cr[i].time);
		json__key(j, "wait_raw");
		json__num(j, cr[i].wait_raw);
		json__key(j, "wait_compensated");
		json__num(j, cr[i].wait_comp);
		json__obj_end(j);
	}
	json__arr_end(j);
	free(cr);

	size_t np;
	int nr;
	struct pair *ps = matrix(&v, &np, &nr);
	json__key(j, "mpi_matrix");
	json__obj_begin(j);
	json__key(j, "nranks");
	json__int(j, nr);
	json__key(j, "pairs");
	json__arr_begin(j);
	for (size_t i = 0; i < np; i++) {
		json__obj_begin(j);
		json__key(j, "from");
		json__int(j, ps[i].from);
		json__key(j, "to");
		json__int(j, ps[i].to);
		json__key(j, "messages");
		json__uint(j, ps[i].msgs);
		json__key(j, "bytes");
		json__uint(j, ps[i].bytes);
		json__obj_end(j);
	}
	json__arr_end(j);
	json__obj_end(j);
	free(ps);

	size_t ni;
	int nir;
	struct imb_row *ir = imbalance(m, &v, &ni, &nir);
	json__key(j, "mpi_imbalance");
	json__arr_begin(j);
	for (size_t i = 0; i < ni && nir > 0; i++) {
		json__obj_begin(j);
		json__key(j, "function");
		json__str(j, ir[i].fn);
		json__key(j, "min");
		json__num(j, ir[i].min);
		json__key(j, "min_rank");
		json__int(j, ir[i].min_rank);
		json__key(j, "mean");
		json__num(j, ir[i].sum / nir);
		json__key(j, "max");
		json__num(j, ir[i].max);
		json__key(j, "max_rank");
		json__int(j, ir[i].max_rank);
		json__key(j, "ranks");
		json__int(j, ir[i].nranks);
		json__obj_end(j);
	}
	json__arr_end(j);
	free_imb(ir, ni);
	release(&v);
}
