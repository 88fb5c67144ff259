/* mpiwrap/merge.c - the ranks' profiles combined through MPI at MPI_Finalize.
 *
 * Each rank writes its profile (the runtime's writer) and reads it back as
 * its "image": modules, regions, threads' call trees, MPI statistics, its
 * per-rank summary, and per-function sampled time (elfsym.c).  A binomial
 * tree over MPI_COMM_WORLD then reduces the images: at each of the
 * ceil(log2(ranks)) levels a rank receives its child's image, translates the
 * child's addresses into its own address space (same module path, same
 * offset; a module the parent lacks gets a fresh range), and adds it to its
 * own: call trees merged by path (thread k with thread k), statistics
 * summed, per-function time reduced to minimum, sum and maximum with their
 * ranks.  The image stays as large as the union of the call paths, so the
 * merge costs log(ranks) steps, not ranks; only the per-rank summaries
 * (a few hundred bytes each) grow with the ranks.
 *
 * Rank 0 writes the merged profile, flagged HP_FILE_MERGED, as
 * <out>/<program>.merged.<pid>.hyp (docs/mpi.md, "Merged profiles").
 * Without --per-rank the per-rank files go to <out>/.hyprof-ranks/ once the
 * merged file exists (else they stay where they are: they are the profile);
 * the report sums the merged file and reads the per-rank files of the ranks
 * it lists (HP_SEC_MPI_RANKS: rank, pid) only for their own trees (--ranks),
 * wherever they are (tools/model.c).
 *
 * Not signal-safe (allocates, reads and writes files).  Runs in the thread
 * that called MPI_Finalize, before the real MPI_Finalize.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "counting/counting.h"
#include "mpiwrap/elfsym.h"
#include "mpiwrap/mpiwrap.h"
#include "runtime/writer.h"

#define MIMG_MAGIC 0x4d50484du /* "MHPM" */
#define MIMG_VERSION 2u
/* On the merge's own duplicate of MPI_COMM_WORLD; small, since MPI only
 * promises tags up to 32767 (MPICH's MPI_TAG_UB is 2^29 - 1). */
#define TAG_SIZE 1
#define TAG_DATA 2

/* ---- a growable byte buffer ------------------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->oom || n == 0) /* an empty array is NULL: no memcpy from it */
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}
static void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

struct rdr {
	const uint8_t *p;
	size_t n, off;
	int bad;
};
static const void *get(struct rdr *r, size_t n)
{
	if (r->bad || r->off + n > r->n) {
		r->bad = 1;
		return NULL;
	}
	const void *p = r->p + r->off;
	r->off += n;
	return p;
}
static uint32_t get_u32(struct rdr *r)
{
	const void *p = get(r, 4);
	uint32_t v = 0;
	if (p)
		memcpy(&v, p, 4);
	return v;
}
static uint64_t get_u64(struct rdr *r)
{
	const void *p = get(r, 8);
	uint64_t v = 0;
	if (p)
		memcpy(&v, p, 8);
	return v;
}
static char *get_str(struct rdr *r, uint32_t n)
{
	const char *p = get(r, n);
	char *s = p ? malloc(n + 1) : NULL;
	if (s) {
		memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

/* ---- kv lists we can change: parsed, summed, encoded ----------------------------------
 * (struct hp_kvlist is one block, array and strings: it cannot grow) */

struct mkv {
	char *key;
	int type;
	char *s;
	uint64_t u;
	int64_t i;
	double d;
};
struct mkvl {
	struct mkv *v;
	size_t n;
};

static void mkvl_free(struct mkvl *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].s);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static struct mkv *mkvl_get(const struct mkvl *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

static struct mkv *mkvl_new(struct mkvl *l, const char *key, int type)
{
	struct mkv *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	l->v = v;
	struct mkv *d = &l->v[l->n];
	memset(d, 0, sizeof(*d));
	d->key = strdup(key);
	d->type = type;
	if (!d->key)
		return NULL;
	l->n++;
	return d;
}

static int mkvl_from(struct mkvl *dst, const struct hp_kvlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++) {
		const struct hp_kv *k = &src->v[i];
		struct mkv *d = mkvl_new(dst, k->key, k->type);
		if (!d)
			return -ENOMEM;
		d->s = k->type == HP_KV_STR ? strdup(k->s ? k->s : "") : NULL;
		d->u = k->u;
		d->i = k->i;
		d->d = k->d;
	}
	return 0;
}

static int mkvl_parse(struct mkvl *dst, const uint8_t *p, size_t n)
{
	struct hp_kvlist l = {0};
	memset(dst, 0, sizeof(*dst));
	if (n && hp_kv_parse(p, n, &l))
		return -EINVAL;
	int rc = mkvl_from(dst, &l);
	hp_kv_free(&l);
	return rc;
}

static void mkvl_encode(struct buf *b, const struct mkvl *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct mkv *k = &l->v[i];
		uint16_t kl = (uint16_t)strlen(k->key);
		uint8_t hdr[8];
		uint32_t vl = k->type == HP_KV_STR ? (uint32_t)strlen(k->s ? k->s : "") : 8;
		memcpy(hdr, &kl, 2);
		hdr[2] = (uint8_t)k->type;
		hdr[3] = 0;
		memcpy(hdr + 4, &vl, 4);
		put(b, hdr, 8);
		put(b, k->key, kl);
		if (k->type == HP_KV_STR)
			put(b, k->s ? k->s : "", vl);
		else if (k->type == HP_KV_U64)
			put(b, &k->u, 8);
		else if (k->type == HP_KV_I64)
			put(b, &k->i, 8);
		else
			put(b, &k->d, 8);
	}
}

/* Numbers that identify a thread or a process, not amounts: never summed. */
static int identity_key(const char *k)
{
	static const char *const ids[] = {"index", "tid", "pid", "ppid", "rank", "nranks", "start_ns", "end_ns",
					  "exited", "format_version", "duration_ns", "tsc_hz", NULL};
	for (int i = 0; ids[i]; i++)
		if (!strcmp(k, ids[i]))
			return 1;
	return 0;
}

/* dst += src for the numbers (dst keeps its strings and identities). */
static void mkvl_add(struct mkvl *dst, const struct mkvl *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct mkv *s = &src->v[i];
		if (s->type == HP_KV_STR || identity_key(s->key))
			continue;
		struct mkv *d = mkvl_get(dst, s->key);
		if (!d && !(d = mkvl_new(dst, s->key, s->type)))
			return;
		if (d->type != s->type)
			continue;
		if (s->type == HP_KV_U64)
			d->u += s->u;
		else if (s->type == HP_KV_I64)
			d->i += s->i;
		else if (s->type == HP_KV_F64)
			d->d += s->d;
	}
}

static void mkvl_set_i64(struct mkvl *l, const char *key, int64_t v)
{
	struct mkv *d = mkvl_get(l, key);
	if (!d && !(d = mkvl_new(l, key, HP_KV_I64)))
		return;
	free(d->s);
	d->s = NULL;
	d->type = HP_KV_I64;
	d->i = v;
}

/* HP_SEC_COUNTING of two ranks: the counters summed; the in-situ
 * recalibration's per-pair means weighted by each side's probes and its
 * extremes kept; every other value (effective mode, compensation method,
 * the costs in cycles) from the side that ran the most probes, so that a
 * master running no instrumented code does not describe the job. */
static void counting_add(struct mkvl *dst, const struct mkvl *src)
{
	static const char *const sums[] = {"probes_seen", "threads_with_probes", "folded_nodes",
					   "folded_paths", "excluded_nodes", "stack_overflow", "exit_mismatch",
					   "tree_full", "comp.removed_cycles", "comp.removed_s", "comp.clamped",
					   "comp.recal_bursts", "comp.recal_s", NULL};
	static const char *const means[] = {"comp.insitu_pair_cycles.mean", "comp.insitu_di_cycles.last", NULL};
	const struct mkv *sp = mkvl_get(src, "probes_seen"), *dp = mkvl_get(dst, "probes_seen");
	uint64_t ns = sp ? sp->u : 0, nd = dp ? dp->u : 0;
	struct mkvl *from = ns > nd ? (struct mkvl *)src : NULL;
	for (size_t i = 0; i < src->n; i++) {
		const struct mkv *s = &src->v[i];
		struct mkv *d = mkvl_get(dst, s->key);
		if (!d && !(d = mkvl_new(dst, s->key, s->type)))
			return;
		int k = -1, is_sum = 0, is_mean = 0;
		for (k = 0; sums[k] && !is_sum; k++)
			is_sum = !strcmp(s->key, sums[k]);
		for (k = 0; means[k] && !is_mean; k++)
			is_mean = !strcmp(s->key, means[k]);
		if (is_sum && d->type == s->type) {
			if (s->type == HP_KV_U64)
				d->u += s->u;
			else if (s->type == HP_KV_F64)
				d->d += s->d;
		} else if (is_mean && s->type == HP_KV_F64 && d->type == s->type) {
			d->d = ns + nd ? (d->d * (double)nd + s->d * (double)ns) / (double)(ns + nd) : 0;
		} else if (!strcmp(s->key, "comp.insitu_pair_cycles.min") && s->type == HP_KV_U64) {
			if (s->u && (!d->u || s->u < d->u))
				d->u = s->u;
		} else if (!strcmp(s->key, "comp.insitu_pair_cycles.max") && s->type == HP_KV_U64) {
			if (s->u > d->u)
				d->u = s->u;
		} else if (from) {
			char *str = s->type == HP_KV_STR ? strdup(s->s ? s->s : "") : NULL;
			if (s->type == HP_KV_STR && !str)
				return;
			free(d->s);
			d->s = str;
			d->type = s->type;
			d->u = s->u;
			d->i = s->i;
			d->d = s->d;
		}
	}
}

/* ---- the image --------------------------------------------------------------------- */

struct mmod {
	struct hp_module_rec rec;
	char *path;
};
struct mreg {
	uint64_t id;
	uint32_t line;
	char *name, *file;
};
struct mthr {
	struct mkvl kv;       /* first contributor's, numbers summed */
	struct cct sample, probe;
	uint32_t nranks;
	uint32_t idx;         /* the threads' index in their processes */
};
struct fnv { /* one function's time in one image */
	struct hp_mpi_func_rec r;
};

struct mimg {
	uint32_t nranks, missing;
	struct mmod *mods;
	size_t nmods;
	struct mreg *regs;
	size_t nregs;
	struct mthr *thr;
	size_t nthr;
	struct hp_mpi_site_rec *sites;
	size_t nsites;
	struct hp_mpi_peer_rec *peers;
	size_t npeers;
	struct hp_mpi_coll_rec *colls;
	size_t ncolls;
	struct hp_mpi_mat_rec *mat;
	size_t nmat;
	struct hp_mpi_func_rec *funcs;
	size_t nfuncs;
	struct buf rankkv;    /* u32 length + kv block, per rank */
	uint32_t nrankkv;
	struct mkvl cost;
	struct mkvl counting; /* HP_SEC_COUNTING (counting_add()) */
};

#define GROW(arr, n, extra)                                                                  \
	({                                                                                   \
		__typeof__(arr) g_ = realloc((arr), ((n) + (extra)) * sizeof(*(arr)));        \
		g_ ? ((arr) = g_, 1) : 0;                                                    \
	})

static void img_free(struct mimg *m)
{
	for (size_t i = 0; i < m->nmods; i++)
		free(m->mods[i].path);
	free(m->mods);
	for (size_t i = 0; i < m->nregs; i++) {
		free(m->regs[i].name);
		free(m->regs[i].file);
	}
	free(m->regs);
	for (size_t i = 0; i < m->nthr; i++) {
		mkvl_free(&m->thr[i].kv);
		cct__destroy(&m->thr[i].sample);
		cct__destroy(&m->thr[i].probe);
	}
	free(m->thr);
	free(m->sites);
	free(m->peers);
	free(m->colls);
	free(m->mat);
	free(m->funcs);
	free(m->rankkv.p);
	mkvl_free(&m->cost);
	mkvl_free(&m->counting);
	memset(m, 0, sizeof(*m));
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* A site's key in merged files: the function and the call path. */
static uint64_t site_key(const struct hp_mpi_site_rec *s)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (const char *c = s->fn; *c && c < s->fn + HP_MPI_FN_LEN; c++)
		h = mix64(h ^ (uint64_t)(unsigned char)*c);
	for (uint32_t d = 0; d < s->depth && d < HP_MPI_SITE_DEPTH; d++)
		h = mix64(h ^ s->path[d]);
	return h < 2 ? h + 2 : h;
}

/* A tree of n nodes copied into a mapped struct cct with room for `extra`. */
static int tree_from(struct cct *t, const struct cct_node *nodes, uint32_t n, uint32_t extra)
{
	if (cct__init(t, n + extra + 1) != 0)
		return -ENOMEM;
	if (n) {
		memcpy(t->nodes, nodes, sizeof(*nodes) * n);
		t->n = n;
	}
	return 0;
}

/* ---- sites, peers and the rest: add one record to an array ------------------------ */

/* `other_ranks`: s comes from ranks not yet in m (the tree's merge), not
 * from another thread of the same rank (its own image). */
static void add_site(struct mimg *m, const struct hp_mpi_site_rec *s, int other_ranks)
{
	for (size_t i = 0; i < m->nsites; i++) {
		struct hp_mpi_site_rec *d = &m->sites[i];
		if (d->key != s->key)
			continue;
		if (other_ranks)
			d->nranks += s->nranks;
		d->calls += s->calls;
		d->bytes += s->bytes;
		d->time_ns += s->time_ns;
		d->wait_raw_ns += s->wait_raw_ns;
		d->wait_comp_ns += s->wait_comp_ns;
		if (s->max_ns > d->max_ns)
			d->max_ns = s->max_ns;
		return;
	}
	if (!GROW(m->sites, m->nsites, 1))
		return;
	m->sites[m->nsites] = *s;
	m->sites[m->nsites].rank = -1;
	m->sites[m->nsites].thread = 0xffffffffu;
	m->sites[m->nsites].ctx = 0xffffffffu;
	m->nsites++;
}

static void add_peer(struct mimg *m, const struct hp_mpi_peer_rec *p)
{
	for (size_t i = 0; i < m->npeers; i++) {
		struct hp_mpi_peer_rec *d = &m->peers[i];
		if (d->site != p->site || d->peer != p->peer || d->dir != p->dir)
			continue;
		d->msgs += p->msgs;
		d->bytes += p->bytes;
		d->time_ns += p->time_ns;
		d->wait_raw_ns += p->wait_raw_ns;
		d->wait_comp_ns += p->wait_comp_ns;
		return;
	}
	if (!GROW(m->peers, m->npeers, 1))
		return;
	m->peers[m->npeers] = *p;
	m->peers[m->npeers].rank = -1;
	m->peers[m->npeers].thread = 0xffffffffu;
	m->npeers++;
}

static void add_coll(struct mimg *m, const struct hp_mpi_coll_rec *c)
{
	for (size_t i = 0; i < m->ncolls; i++) {
		struct hp_mpi_coll_rec *d = &m->colls[i];
		if (d->comm_size != c->comm_size || strncmp(d->fn, c->fn, HP_MPI_FN_LEN))
			continue;
		d->calls += c->calls;
		d->bytes += c->bytes;
		d->time_ns += c->time_ns;
		d->wait_raw_ns += c->wait_raw_ns;
		d->wait_comp_ns += c->wait_comp_ns;
		return;
	}
	if (!GROW(m->colls, m->ncolls, 1))
		return;
	m->colls[m->ncolls] = *c;
	m->colls[m->ncolls].rank = -1;
	m->ncolls++;
}

static void add_mat(struct mimg *m, const struct hp_mpi_mat_rec *r)
{
	for (size_t i = 0; i < m->nmat; i++)
		if (m->mat[i].from == r->from && m->mat[i].to == r->to) {
			m->mat[i].msgs += r->msgs;
			m->mat[i].bytes += r->bytes;
			return;
		}
	if (!GROW(m->mat, m->nmat, 1))
		return;
	m->mat[m->nmat++] = *r;
}

static void add_func(struct mimg *m, const struct hp_mpi_func_rec *f)
{
	for (size_t i = 0; i < m->nfuncs; i++) {
		struct hp_mpi_func_rec *d = &m->funcs[i];
		if (d->addr != f->addr)
			continue;
		if (f->self_min < d->self_min) {
			d->self_min = f->self_min;
			d->self_min_rank = f->self_min_rank;
		}
		if (f->self_max > d->self_max) {
			d->self_max = f->self_max;
			d->self_max_rank = f->self_max_rank;
		}
		if (f->total_min < d->total_min) {
			d->total_min = f->total_min;
			d->total_min_rank = f->total_min_rank;
		}
		if (f->total_max > d->total_max) {
			d->total_max = f->total_max;
			d->total_max_rank = f->total_max_rank;
		}
		d->self_sum += f->self_sum;
		d->total_sum += f->total_sum;
		d->nranks += f->nranks;
		d->flags |= f->flags;
		return;
	}
	if (!GROW(m->funcs, m->nfuncs, 1))
		return;
	m->funcs[m->nfuncs++] = *f;
}

/* ---- this rank's image ------------------------------------------------------------- */

struct mod_syms {
	struct hp_syms s;
	int tried;
};

static const struct mmod *mod_of(const struct mimg *m, uint64_t a, size_t *idx)
{
	for (size_t i = 0; i < m->nmods; i++)
		if (a >= m->mods[i].rec.lo && a < m->mods[i].rec.hi) {
			if (idx)
				*idx = i;
			return &m->mods[i];
		}
	return NULL;
}

/* The function starting address of pc (a return address when ret). */
static uint64_t func_of(const struct mimg *m, struct mod_syms *ms, uint64_t pc, int ret)
{
	size_t i;
	uint64_t a = ret && pc ? pc - 1 : pc;
	const struct mmod *mod = mod_of(m, a, &i);
	if (!mod || (mod->rec.flags & 4)) /* unknown, or the vDSO */
		return 0;
	if (!ms[i].tried) {
		ms[i].tried = 1;
		hp_syms_load(mod->path, mod->rec.base, &ms[i].s);
	}
	return hp_syms_find(&ms[i].s, a);
}

/* Sampled self and total time per function, this rank (merged over its
 * threads), into img->funcs.  Units: seconds when the sample source counts
 * nanoseconds, else its own unit (flags say which). */
static void own_functions(struct mimg *img, const struct hp_prof *p, int rank)
{
	const char *unit = hp_kv_str(&p->meta, "unit", "ns");
	double scale = !strcmp(unit, "ns") ? 1e-9 : 1.0;
	struct mod_syms *ms = calloc(img->nmods ? img->nmods : 1, sizeof(*ms));
	if (!ms)
		return;
	for (size_t t = 0; t < p->nthreads; t++) {
		const struct hp_prof_thread *th = &p->threads[t];
		uint32_t n = th->nsample;
		uint64_t *fn = calloc(n ? n : 1, sizeof(uint64_t));
		uint64_t seen[HP_UNWIND_MAX];
		if (!fn)
			continue;
		for (uint32_t i = 1; i < n; i++) /* a node's own key: leaf if it has samples */
			fn[i] = func_of(img, ms, th->sample[i].key, th->sample[i].first_child != CCT_NONE);
		for (uint32_t i = 1; i < n; i++) {
			const struct cct_node *nd = &th->sample[i];
			if (!nd->period)
				continue;
			double v = (double)nd->period * scale;
			/* self: the leaf's function (its key is the interrupted pc) */
			uint64_t leaf = func_of(img, ms, nd->key, 0);
			int nseen = 0;
			for (uint32_t j = i; j != CCT_NONE && j != 0 && j < n; j = th->sample[j].parent) {
				uint64_t f = j == i ? leaf : fn[j];
				if (!f)
					continue;
				int dup = 0;
				for (int k = 0; k < nseen && !dup; k++)
					dup = seen[k] == f;
				if (dup || nseen == HP_UNWIND_MAX)
					continue;
				seen[nseen++] = f;
				struct hp_mpi_func_rec r = {.addr = f, .nranks = 1, .flags = scale == 1e-9 ? 2 : 6};
				r.self_min = r.self_max = r.self_sum = j == i ? v : 0;
				r.total_min = r.total_max = r.total_sum = v;
				r.self_min_rank = r.self_max_rank = r.total_min_rank = r.total_max_rank = rank;
				/* within one rank, amounts add up */
				size_t k;
				for (k = 0; k < img->nfuncs; k++)
					if (img->funcs[k].addr == f)
						break;
				if (k == img->nfuncs) {
					if (!GROW(img->funcs, img->nfuncs, 1))
						continue;
					memset(&img->funcs[k], 0, sizeof(img->funcs[k]));
					img->funcs[k] = r;
					img->funcs[k].self_min = img->funcs[k].self_max = img->funcs[k].self_sum = 0;
					img->funcs[k].total_min = img->funcs[k].total_max = img->funcs[k].total_sum = 0;
					img->nfuncs++;
				}
				struct hp_mpi_func_rec *d = &img->funcs[k];
				d->self_sum += r.self_sum;
				d->total_sum += r.total_sum;
				d->self_min = d->self_max = d->self_sum;
				d->total_min = d->total_max = d->total_sum;
			}
		}
		free(fn);
	}
	for (size_t i = 0; i < img->nmods; i++)
		hp_syms_free(&ms[i].s);
	free(ms);
}

/* Read the MPI sections of a profile file into the image (sites re-keyed). */
static void own_mpi(struct mimg *img, const struct hp_prof *p)
{
	const struct hp_section *s = hp_prof_section(p, HP_SEC_MPI_SITES);
	if (s && s->len >= sizeof(struct hp_mpi_sites_hdr)) {
		struct hp_mpi_sites_hdr h;
		memcpy(&h, s->data, sizeof(h));
		const uint8_t *q = s->data + sizeof(h);
		if (hp_mpi_sites_fit(&h, s->len)) {
			/* a thread's site key -> the merged key, for the peers */
			uint64_t *from = calloc(h.nsites ? h.nsites : 1, sizeof(uint64_t));
			uint64_t *to = calloc(h.nsites ? h.nsites : 1, sizeof(uint64_t));
			for (uint32_t i = 0; i < h.nsites; i++, q += h.site_size) {
				struct hp_mpi_site_rec r;
				memset(&r, 0, sizeof(r));
				memcpy(&r, q, h.site_size < sizeof(r) ? h.site_size : sizeof(r));
				if (from && to) {
					from[i] = r.key;
					to[i] = r.key = site_key(&r);
				}
				r.nranks = 1; /* this rank, whatever thread */
				add_site(img, &r, 0);
			}
			for (uint32_t i = 0; i < h.npeers; i++, q += h.peer_size) {
				struct hp_mpi_peer_rec r;
				memset(&r, 0, sizeof(r));
				memcpy(&r, q, h.peer_size < sizeof(r) ? h.peer_size : sizeof(r));
				for (uint32_t k = 0; from && to && k < h.nsites; k++)
					if (from[k] == r.site) {
						r.site = to[k];
						break;
					}
				add_peer(img, &r);
			}
			for (uint32_t i = 0; i < h.ncolls; i++, q += h.coll_size) {
				struct hp_mpi_coll_rec r;
				memset(&r, 0, sizeof(r));
				memcpy(&r, q, h.coll_size < sizeof(r) ? h.coll_size : sizeof(r));
				add_coll(img, &r);
			}
			for (uint32_t i = 0; i < h.nmat; i++, q += h.mat_size) {
				struct hp_mpi_mat_rec r;
				memset(&r, 0, sizeof(r));
				memcpy(&r, q, h.mat_size < sizeof(r) ? h.mat_size : sizeof(r));
				add_mat(img, &r);
			}
			free(from);
			free(to);
		}
	}
	const struct hp_section *k = hp_prof_section(p, HP_SEC_MPI);
	if (k) {
		put_u32(&img->rankkv, (uint32_t)k->len);
		put(&img->rankkv, k->data, k->len);
		img->nrankkv++;
	}
}

static int thr_cmp(const void *a, const void *b)
{
	const struct mthr *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void thr_free(struct mthr *t)
{
	mkvl_free(&t->kv);
	cct__destroy(&t->sample);
	cct__destroy(&t->probe);
	memset(t, 0, sizeof(*t));
}

/* Sort by index; of two threads with one index keep the first. */
static void thr_sort(struct mimg *m)
{
	if (!m->nthr)
		return;
	qsort(m->thr, m->nthr, sizeof(*m->thr), thr_cmp);
	size_t n = 1;
	for (size_t i = 1; i < m->nthr; i++) {
		if (m->thr[i].idx == m->thr[n - 1].idx)
			thr_free(&m->thr[i]);
		else
			m->thr[n++] = m->thr[i];
	}
	m->nthr = n;
}

static int own_image(struct mimg *img, const struct hp_prof *p, int rank)
{
	memset(img, 0, sizeof(*img));
	img->nranks = 1;
	if (p->nmodules && !(img->mods = calloc(p->nmodules, sizeof(*img->mods))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nmodules; i++) {
		img->mods[i].rec = p->modules[i].rec;
		img->mods[i].path = strdup(p->modules[i].path ? p->modules[i].path : "");
	}
	img->nmods = p->nmodules;
	if (p->nregions && !(img->regs = calloc(p->nregions, sizeof(*img->regs))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nregions; i++) {
		img->regs[i].id = p->regions[i].id;
		img->regs[i].line = p->regions[i].line;
		img->regs[i].name = strdup(p->regions[i].name ? p->regions[i].name : "");
		img->regs[i].file = strdup(p->regions[i].file ? p->regions[i].file : "");
	}
	img->nregs = p->nregions;
	/* threads by their index in the process, in index order (any index:
	 * a program that ran through thousands of threads has records with
	 * large ones, "[exited]" and the threads still kept) */
	if (p->nthreads && !(img->thr = calloc(p->nthreads, sizeof(*img->thr))))
		return -ENOMEM;
	for (size_t t = 0; t < p->nthreads; t++) {
		const struct hp_prof_thread *th = &p->threads[t];
		struct mthr *d = &img->thr[img->nthr++];
		d->idx = (uint32_t)hp_kv_u64(&th->kv, "index", t);
		if (mkvl_from(&d->kv, &th->kv) || tree_from(&d->sample, th->sample, th->nsample, 0) ||
		    tree_from(&d->probe, th->probe, th->nprobe, 0))
			return -ENOMEM;
		d->nranks = 1;
	}
	thr_sort(img);
	mkvl_from(&img->cost, &p->cost);
	const struct hp_section *cs = hp_prof_section(p, HP_SEC_COUNTING);
	if (cs)
		mkvl_parse(&img->counting, cs->data, cs->len);
	own_mpi(img, p);
	own_functions(img, p, rank);
	return 0;
}

/* ---- serialization -------------------------------------------------------------------- */

static void ser_tree(struct buf *b, const struct cct *t)
{
	put_u32(b, t->n);
	put(b, t->nodes, sizeof(struct cct_node) * t->n);
}

static void serialize(const struct mimg *m, struct buf *b)
{
	put_u32(b, MIMG_MAGIC);
	put_u32(b, MIMG_VERSION);
	put_u32(b, m->nranks);
	put_u32(b, m->missing);
	put_u32(b, (uint32_t)m->nmods);
	for (size_t i = 0; i < m->nmods; i++) {
		uint32_t l = (uint32_t)strlen(m->mods[i].path);
		put(b, &m->mods[i].rec, sizeof(m->mods[i].rec));
		put_u32(b, l);
		put(b, m->mods[i].path, l);
	}
	put_u32(b, (uint32_t)m->nregs);
	for (size_t i = 0; i < m->nregs; i++) {
		uint32_t nl = (uint32_t)strlen(m->regs[i].name), fl = (uint32_t)strlen(m->regs[i].file);
		put_u64(b, m->regs[i].id);
		put_u32(b, m->regs[i].line);
		put_u32(b, nl);
		put_u32(b, fl);
		put(b, m->regs[i].name, nl);
		put(b, m->regs[i].file, fl);
	}
	put_u32(b, (uint32_t)m->nthr);
	for (size_t i = 0; i < m->nthr; i++) {
		const struct mthr *t = &m->thr[i];
		put_u32(b, t->idx);
		put_u32(b, t->nranks);
		if (!t->nranks)
			continue;
		struct buf kv = {0};
		mkvl_encode(&kv, &t->kv);
		put_u32(b, (uint32_t)kv.n);
		put(b, kv.p, kv.n);
		free(kv.p);
		ser_tree(b, &t->sample);
		ser_tree(b, &t->probe);
	}
	put_u32(b, (uint32_t)m->nsites);
	put(b, m->sites, sizeof(*m->sites) * m->nsites);
	put_u32(b, (uint32_t)m->npeers);
	put(b, m->peers, sizeof(*m->peers) * m->npeers);
	put_u32(b, (uint32_t)m->ncolls);
	put(b, m->colls, sizeof(*m->colls) * m->ncolls);
	put_u32(b, (uint32_t)m->nmat);
	put(b, m->mat, sizeof(*m->mat) * m->nmat);
	put_u32(b, (uint32_t)m->nfuncs);
	put(b, m->funcs, sizeof(*m->funcs) * m->nfuncs);
	put_u32(b, m->nrankkv);
	put_u64(b, m->rankkv.n);
	put(b, m->rankkv.p, m->rankkv.n);
	const struct mkvl *kvs[2] = {&m->cost, &m->counting};
	for (int i = 0; i < 2; i++) {
		struct buf kv = {0};
		mkvl_encode(&kv, kvs[i]);
		put_u32(b, (uint32_t)kv.n);
		put(b, kv.p, kv.n);
		free(kv.p);
	}
}

#define GET_ARRAY(r, arr, n)                                                          \
	do {                                                                          \
		n = get_u32(r);                                                       \
		const void *src_ = get(r, sizeof(*(arr)) * (size_t)(n));              \
		if (!src_ || !(n))                                                    \
			break;                                                        \
		arr = malloc(sizeof(*(arr)) * (size_t)(n));                           \
		if (!(arr)) {                                                         \
			(r)->bad = 1;                                                 \
			break;                                                        \
		}                                                                     \
		memcpy(arr, src_, sizeof(*(arr)) * (size_t)(n));                      \
	} while (0)

static int deser_tree(struct rdr *r, struct cct *t)
{
	uint32_t n = get_u32(r);
	const void *nodes = get(r, sizeof(struct cct_node) * (size_t)n);
	if (!nodes && n)
		return -EINVAL;
	if (n == 0)
		return cct__init(t, 1);
	/* copied before it is looked at: the image's nodes sit at any byte
	 * offset, and reading them in place is a misaligned access */
	if (tree_from(t, nodes, n, 0) != 0)
		return -ENOMEM;
	/* the reader's checks, short: a root, every parent before its child
	 * (img_free() destroys t if not) */
	if (t->nodes[0].parent != CCT_NONE)
		return -EINVAL;
	for (uint32_t i = 1; i < n; i++)
		if (t->nodes[i].parent >= i)
			return -EINVAL;
	return 0;
}

static int deserialize(const uint8_t *p, size_t n, struct mimg *m)
{
	memset(m, 0, sizeof(*m));
	struct rdr r = {p, n, 0, 0};
	if (get_u32(&r) != MIMG_MAGIC || get_u32(&r) != MIMG_VERSION)
		return -EINVAL;
	m->nranks = get_u32(&r);
	m->missing = get_u32(&r);
	uint32_t nm = get_u32(&r);
	if (nm > 1000000 || r.bad)
		return -EINVAL;
	m->mods = calloc(nm ? nm : 1, sizeof(*m->mods));
	if (!m->mods)
		return -ENOMEM;
	for (uint32_t i = 0; i < nm && !r.bad; i++) {
		const void *rec = get(&r, sizeof(struct hp_module_rec));
		if (rec)
			memcpy(&m->mods[i].rec, rec, sizeof(struct hp_module_rec));
		m->mods[i].path = get_str(&r, get_u32(&r));
		m->nmods++;
	}
	uint32_t nr = get_u32(&r);
	if (nr > 1000000 || r.bad)
		return -EINVAL;
	m->regs = calloc(nr ? nr : 1, sizeof(*m->regs));
	if (!m->regs)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !r.bad; i++) {
		m->regs[i].id = get_u64(&r);
		m->regs[i].line = get_u32(&r);
		uint32_t nl = get_u32(&r), fl = get_u32(&r);
		m->regs[i].name = get_str(&r, nl);
		m->regs[i].file = get_str(&r, fl);
		m->nregs++;
	}
	uint32_t nt = get_u32(&r);
	if (nt > n / 8 || r.bad) /* each thread takes at least 8 bytes */
		return -EINVAL;
	m->thr = calloc(nt ? nt : 1, sizeof(*m->thr));
	if (!m->thr)
		return -ENOMEM;
	m->nthr = nt;
	for (uint32_t i = 0; i < nt && !r.bad; i++) {
		struct mthr *t = &m->thr[i];
		t->idx = get_u32(&r);
		t->nranks = get_u32(&r);
		if (i && t->idx <= m->thr[i - 1].idx)
			return -EINVAL; /* serialized in index order */
		if (!t->nranks)
			continue;
		uint32_t kl = get_u32(&r);
		const uint8_t *kv = get(&r, kl);
		if (!kv || mkvl_parse(&t->kv, kv, kl) || deser_tree(&r, &t->sample) || deser_tree(&r, &t->probe))
			return -EINVAL;
	}
	GET_ARRAY(&r, m->sites, m->nsites);
	GET_ARRAY(&r, m->peers, m->npeers);
	GET_ARRAY(&r, m->colls, m->ncolls);
	GET_ARRAY(&r, m->mat, m->nmat);
	GET_ARRAY(&r, m->funcs, m->nfuncs);
	m->nrankkv = get_u32(&r);
	uint64_t kn = get_u64(&r);
	const void *kb = get(&r, (size_t)kn);
	if (kb)
		put(&m->rankkv, kb, (size_t)kn);
	struct mkvl *kvs[2] = {&m->cost, &m->counting};
	for (int i = 0; i < 2; i++) {
		uint32_t cl = get_u32(&r);
		const uint8_t *ck = get(&r, cl);
		if (ck && cl)
			mkvl_parse(kvs[i], ck, cl);
	}
	return r.bad || m->rankkv.oom ? -EINVAL : 0;
}

/* ---- merging a child into its parent ----------------------------------------------- */

struct xlate {
	size_t *map;     /* child module -> parent module, (size_t)-1 if none */
	struct mimg *parent;
	const struct mimg *child;
	uint64_t *reg_from, *reg_to; /* child region id -> parent region id */
	size_t nreg;
};

static uint64_t addr_in_parent(struct xlate *x, uint64_t a)
{
	size_t i;
	const struct mmod *cm = mod_of(x->child, a, &i);
	if (!cm)
		return a; /* an address of no module: kept as it is */
	if (x->map[i] == (size_t)-1) {
		/* the parent lacks this object: give it a range of its own */
		uint64_t top = 0;
		for (size_t k = 0; k < x->parent->nmods; k++)
			if (x->parent->mods[k].rec.hi > top)
				top = x->parent->mods[k].rec.hi;
		uint64_t lo = (top + (1ull << 32)) & ~((1ull << 32) - 1);
		if (!GROW(x->parent->mods, x->parent->nmods, 1))
			return a;
		struct mmod *pm = &x->parent->mods[x->parent->nmods];
		pm->rec = cm->rec;
		pm->rec.lo = lo;
		pm->rec.hi = lo + (cm->rec.hi - cm->rec.lo);
		pm->rec.base = cm->rec.base + (lo - cm->rec.lo);
		pm->path = strdup(cm->path);
		x->map[i] = x->parent->nmods++;
	}
	const struct mmod *pm = &x->parent->mods[x->map[i]];
	return pm->rec.base + (a - cm->rec.base);
}

static uint64_t region_in_parent(struct xlate *x, uint64_t id)
{
	for (size_t i = 0; i < x->nreg; i++)
		if (x->reg_from[i] == id)
			return x->reg_to[i];
	return id;
}

static void xlate_init(struct xlate *x, struct mimg *parent, const struct mimg *child)
{
	memset(x, 0, sizeof(*x));
	x->parent = parent;
	x->child = child;
	x->map = malloc(sizeof(size_t) * (child->nmods ? child->nmods : 1));
	for (size_t i = 0; x->map && i < child->nmods; i++) {
		x->map[i] = (size_t)-1;
		for (size_t k = 0; k < parent->nmods; k++)
			if (!strcmp(parent->mods[k].path, child->mods[i].path) &&
			    (parent->mods[k].rec.flags & 4) == (child->mods[i].rec.flags & 4)) {
				x->map[i] = k;
				break;
			}
	}
	/* regions by name, file and line; ids the parent lacks get new ones */
	x->reg_from = calloc(child->nregs ? child->nregs : 1, sizeof(uint64_t));
	x->reg_to = calloc(child->nregs ? child->nregs : 1, sizeof(uint64_t));
	uint64_t next = 1;
	for (size_t k = 0; k < parent->nregs; k++)
		if (parent->regs[k].id >= next)
			next = parent->regs[k].id + 1;
	for (size_t i = 0; x->reg_from && x->reg_to && i < child->nregs; i++) {
		const struct mreg *c = &child->regs[i];
		uint64_t to = 0;
		for (size_t k = 0; k < parent->nregs && !to; k++)
			if (parent->regs[k].line == c->line && !strcmp(parent->regs[k].name, c->name) &&
			    !strcmp(parent->regs[k].file, c->file))
				to = parent->regs[k].id;
		if (!to && GROW(parent->regs, parent->nregs, 1)) {
			to = next++;
			parent->regs[parent->nregs].id = to;
			parent->regs[parent->nregs].line = c->line;
			parent->regs[parent->nregs].name = strdup(c->name);
			parent->regs[parent->nregs].file = strdup(c->file);
			parent->nregs++;
		}
		x->reg_from[x->nreg] = c->id;
		x->reg_to[x->nreg] = to ? to : c->id;
		x->nreg++;
	}
}

static void xlate_free(struct xlate *x)
{
	free(x->map);
	free(x->reg_from);
	free(x->reg_to);
}

/* dst (may be empty) += src translated.  Returns 0 or -errno. */
static int merge_tree(struct xlate *x, struct cct *dst, struct cct *src, int probe)
{
	for (uint32_t i = 1; i < src->n; i++) {
		struct cct_node *n = &src->nodes[i];
		if (probe && (n->flags & CCT_F_REGION))
			n->key = region_in_parent(x, n->key);
		else
			n->key = addr_in_parent(x, n->key);
		n->active = 0;
	}
	struct cct out;
	if (cct__init(&out, dst->n + src->n + 1) != 0)
		return -ENOMEM;
	int rc = dst->n > 1 || dst->nodes ? cct__merge(&out, dst) : 0;
	if (!rc)
		rc = cct__merge(&out, src);
	cct__destroy(dst);
	*dst = out;
	return rc == -ENOSPC ? 0 : rc;
}

/* dst gets an empty thread for each index of src it lacks, in order. */
static int thr_union(struct mimg *dst, const struct mimg *src)
{
	size_t add = 0;
	for (size_t i = 0, j = 0; i < src->nthr; i++) {
		while (j < dst->nthr && dst->thr[j].idx < src->thr[i].idx)
			j++;
		add += j == dst->nthr || dst->thr[j].idx != src->thr[i].idx;
	}
	if (!add)
		return 0;
	if (!GROW(dst->thr, dst->nthr, add))
		return -ENOMEM;
	size_t n0 = dst->nthr; /* the sorted part */
	for (size_t i = 0; i < src->nthr; i++) {
		if (bsearch(&src->thr[i], dst->thr, n0, sizeof(*dst->thr), thr_cmp))
			continue;
		memset(&dst->thr[dst->nthr], 0, sizeof(*dst->thr));
		dst->thr[dst->nthr++].idx = src->thr[i].idx;
	}
	qsort(dst->thr, dst->nthr, sizeof(*dst->thr), thr_cmp);
	return 0;
}

static int merge_into(struct mimg *dst, struct mimg *src)
{
	struct xlate x;
	xlate_init(&x, dst, src);
	if (!x.map)
		return -ENOMEM;
	int rc = thr_union(dst, src);
	for (size_t i = 0, j = 0; i < src->nthr && !rc; i++) {
		struct mthr *s = &src->thr[i];
		if (!s->nranks)
			continue;
		while (dst->thr[j].idx < s->idx)
			j++; /* there: thr_union() */
		struct mthr *d = &dst->thr[j];
		if (!d->nranks) {
			struct buf kb = {0};
			mkvl_encode(&kb, &s->kv);
			int bad = kb.oom || mkvl_parse(&d->kv, kb.p, kb.n);
			free(kb.p);
			if (bad || cct__init(&d->sample, 1) || cct__init(&d->probe, 1)) {
				rc = -ENOMEM;
				break;
			}
		} else {
			mkvl_add(&d->kv, &s->kv);
		}
		d->nranks += s->nranks;
		rc = merge_tree(&x, &d->sample, &s->sample, 0);
		if (!rc)
			rc = merge_tree(&x, &d->probe, &s->probe, 1);
	}
	/* sites: paths translated, keys recomputed, and the peers follow */
	for (size_t i = 0; i < src->nsites; i++) {
		struct hp_mpi_site_rec r = src->sites[i];
		uint64_t old = r.key;
		for (uint32_t d = 0; d < r.depth && d < HP_MPI_SITE_DEPTH; d++)
			r.path[d] = addr_in_parent(&x, r.path[d]);
		r.key = site_key(&r);
		for (size_t k = 0; k < src->npeers; k++)
			if (src->peers[k].site == old)
				src->peers[k].site = r.key | 0x8000000000000000ull; /* done: not again */
		add_site(dst, &r, 1);
	}
	for (size_t k = 0; k < src->npeers; k++) {
		struct hp_mpi_peer_rec p = src->peers[k];
		p.site &= ~0x8000000000000000ull;
		add_peer(dst, &p);
	}
	for (size_t i = 0; i < src->ncolls; i++)
		add_coll(dst, &src->colls[i]);
	for (size_t i = 0; i < src->nmat; i++)
		add_mat(dst, &src->mat[i]);
	for (size_t i = 0; i < src->nfuncs; i++) {
		struct hp_mpi_func_rec f = src->funcs[i];
		f.addr = addr_in_parent(&x, f.addr);
		add_func(dst, &f);
	}
	put(&dst->rankkv, src->rankkv.p, src->rankkv.n);
	dst->nrankkv += src->nrankkv;
	mkvl_add(&dst->cost, &src->cost);
	counting_add(&dst->counting, &src->counting);
	dst->nranks += src->nranks;
	dst->missing += src->missing;
	xlate_free(&x);
	return rc;
}

/* ---- the tree over MPI -------------------------------------------------------------------- */

static int send_bytes(const struct buf *b, int to, MPI_Comm comm)
{
	uint64_t n = b->oom ? 0 : b->n;
	int rc = PMPI_Send(&n, 1, MPI_UINT64_T, to, TAG_SIZE, comm);
	for (uint64_t off = 0; rc == MPI_SUCCESS && off < n;) {
		int chunk = n - off > (1u << 30) ? 1 << 30 : (int)(n - off);
		rc = PMPI_Send(b->p + off, chunk, MPI_BYTE, to, TAG_DATA, comm);
		off += (uint64_t)chunk;
	}
	return rc;
}

static uint8_t *recv_bytes(int from, MPI_Comm comm, uint64_t *len)
{
	uint64_t n = 0;
	*len = 0;
	if (PMPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_SIZE, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return NULL;
	uint8_t *p = malloc(n ? n : 1);
	/* the data is received even without memory, to keep the tree going */
	for (uint64_t off = 0; off < n;) {
		int chunk = n - off > (1u << 30) ? 1 << 30 : (int)(n - off);
		if (p)
			PMPI_Recv(p + off, chunk, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
		else {
			void *tmp = malloc((size_t)chunk);
			PMPI_Recv(tmp, chunk, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE);
			free(tmp);
		}
		off += (uint64_t)chunk;
	}
	*len = n;
	return p;
}

/* ---- this rank's profile file -------------------------------------------------------------- */

/* The file hp_write_profile() just wrote: <dir>/<program>.<rank>.<pid>.hyp. */
static int own_file(const char *dir, char *path, size_t len)
{
	char want[64];
	snprintf(want, sizeof(want), ".%05d.%d.hyp", hp_mpi.rank, (int)getpid());
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *e;
	int rc = -ENOENT;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), w = strlen(want);
		if (l > w && !strcmp(e->d_name + l - w, want)) {
			int k = snprintf(path, len, "%s/%s", dir, e->d_name);
			rc = k > 0 && (size_t)k < len ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	closedir(d);
	return rc;
}

/* ---- rank 0 writes the merged file --------------------------------------------------------- */

static void write_kv_list(struct hp_writer *w, const struct mkvl *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct mkv *k = &l->v[i];
		if (k->type == HP_KV_STR)
			hp_writer_kv_str(w, k->key, k->s ? k->s : "");
		else if (k->type == HP_KV_U64)
			hp_writer_kv_u64(w, k->key, k->u);
		else if (k->type == HP_KV_I64)
			hp_writer_kv_i64(w, k->key, k->i);
		else
			hp_writer_kv_f64(w, k->key, k->d);
	}
}

static int write_merged(const struct hp_prof *p0, struct mimg *m, const char *dir, uint64_t merge_ns)
{
	char path[PATH_MAX];
	const char *prog = hp_kv_str(&p0->meta, "program", "program");
	int k = snprintf(path, sizeof(path), "%s/%s.merged.%d.hyp", dir, prog, (int)getpid());
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	static struct hp_writer w; /* large: not on the stack */
	int rc = hp_writer_open(&w, path, HP_FILE_MERGED);
	if (rc)
		return rc;
	/* META: rank 0's, as the merged job */
	struct mkvl meta;
	if (mkvl_from(&meta, &p0->meta) == 0) {
		mkvl_set_i64(&meta, "rank", -1);
		mkvl_set_i64(&meta, "nranks", (int64_t)m->nranks);
		mkvl_set_i64(&meta, "merged_ranks", (int64_t)m->nranks);
		mkvl_set_i64(&meta, "merged_missing", (int64_t)m->missing);
		hp_writer_begin(&w, HP_SEC_META);
		write_kv_list(&w, &meta);
		hp_writer_end(&w);
	}
	mkvl_free(&meta);
	/* the sections rank 0 has and the merge does not combine: copied */
	for (size_t i = 0; i < p0->nsecs; i++) {
		uint32_t t = p0->secs[i].type;
		if (t == HP_SEC_META || t == HP_SEC_MODULES || t == HP_SEC_THREAD || t == HP_SEC_REGIONS ||
		    t == HP_SEC_COST || t == HP_SEC_MPI || t == HP_SEC_MPI_SITES || t == HP_SEC_MPI_RANKS ||
		    t == HP_SEC_TRAILER || (t == HP_SEC_COUNTING && m->counting.n))
			continue;
		hp_writer_begin(&w, t);
		hp_writer_bytes(&w, p0->secs[i].data, p0->secs[i].len);
		hp_writer_end(&w);
	}
	hp_writer_begin(&w, HP_SEC_MODULES);
	hp_writer_u32(&w, (uint32_t)m->nmods);
	for (size_t i = 0; i < m->nmods; i++) {
		struct hp_module_rec rec = m->mods[i].rec;
		rec.path_len = (uint32_t)strlen(m->mods[i].path);
		hp_writer_bytes(&w, &rec, sizeof(rec));
		hp_writer_bytes(&w, m->mods[i].path, rec.path_len);
	}
	hp_writer_end(&w);
	if (m->nregs) {
		hp_writer_begin(&w, HP_SEC_REGIONS);
		hp_writer_u32(&w, (uint32_t)m->nregs);
		for (size_t i = 0; i < m->nregs; i++) {
			struct hp_region_rec rr = {.id = m->regs[i].id, .line = m->regs[i].line,
						   .name_len = (uint16_t)strlen(m->regs[i].name),
						   .file_len = (uint16_t)strlen(m->regs[i].file)};
			hp_writer_bytes(&w, &rr, sizeof(rr));
			hp_writer_bytes(&w, m->regs[i].name, rr.name_len);
			hp_writer_bytes(&w, m->regs[i].file, rr.file_len);
		}
		hp_writer_end(&w);
	}
	for (size_t i = 0; i < m->nthr; i++) {
		struct mthr *t = &m->thr[i];
		if (!t->nranks)
			continue;
		mkvl_set_i64(&t->kv, "rank", -1);
		mkvl_set_i64(&t->kv, "merged_ranks", (int64_t)t->nranks);
		struct buf kv = {0};
		mkvl_encode(&kv, &t->kv);
		hp_writer_begin(&w, HP_SEC_THREAD);
		hp_writer_u32(&w, (uint32_t)kv.n);
		hp_writer_bytes(&w, kv.p, kv.n);
		hp_writer_u32(&w, t->sample.n);
		hp_writer_u32(&w, t->probe.n);
		hp_writer_bytes(&w, t->sample.nodes, sizeof(struct cct_node) * t->sample.n);
		hp_writer_bytes(&w, t->probe.nodes, sizeof(struct cct_node) * t->probe.n);
		hp_writer_end(&w);
		free(kv.p);
	}
	if (m->cost.n) {
		hp_writer_begin(&w, HP_SEC_COST);
		write_kv_list(&w, &m->cost);
		hp_writer_end(&w);
	}
	if (m->counting.n) {
		hp_writer_begin(&w, HP_SEC_COUNTING);
		write_kv_list(&w, &m->counting);
		hp_writer_end(&w);
	}
	/* HP_SEC_MPI: the job as a whole (the longest rank's walls) */
	struct hp_mpi_rankvals v;
	hp_mpi_rank_values(&v);
	double wr = 0, wl = 0, wp = 0, war = 0, wac = 0;
	uint64_t reo = 0;
	struct rdr rk = {m->rankkv.p, m->rankkv.n, 0, 0};
	for (uint32_t i = 0; i < m->nrankkv; i++) {
		uint32_t l = get_u32(&rk);
		const uint8_t *b = get(&rk, l);
		struct hp_kvlist kv = {0};
		if (!b || hp_kv_parse(b, l, &kv))
			break;
#define MAXF(v_, k_)                                   \
	do {                                           \
		double d_ = hp_kv_f64(&kv, k_, 0);     \
		if (d_ > v_)                           \
			v_ = d_;                       \
	} while (0)
		MAXF(wr, "wall_raw");
		MAXF(wl, "wall_local");
		MAXF(wp, "wall_parallel");
		war += hp_kv_f64(&kv, "wait_raw", 0);
		wac += hp_kv_f64(&kv, "wait_compensated", 0);
		reo += hp_kv_u64(&kv, "reordered_receives", 0);
		hp_kv_free(&kv);
	}
	v.wall_raw = wr;
	v.wall_local = wl;
	v.wall_parallel = wp;
	v.wait_raw = war;
	v.wait_comp = wac;
	v.t.reordered = reo;
	hp_mpi.merge_ns = merge_ns;
	hp_writer_begin(&w, HP_SEC_MPI);
	hp_mpi_write_kv(&w, &v, -1, (int)getpid(), 0);
	hp_writer_end(&w);
	/* the merged statistics */
	struct hp_mpi_sites_hdr h = {
		.version = HP_MPI_SITES_VERSION,
		.site_size = sizeof(struct hp_mpi_site_rec),
		.peer_size = sizeof(struct hp_mpi_peer_rec),
		.coll_size = sizeof(struct hp_mpi_coll_rec),
		.mat_size = sizeof(struct hp_mpi_mat_rec),
		.func_size = sizeof(struct hp_mpi_func_rec),
		.nsites = (uint32_t)m->nsites,
		.npeers = (uint32_t)m->npeers,
		.ncolls = (uint32_t)m->ncolls,
		.nmat = (uint32_t)m->nmat,
		.nfuncs = (uint32_t)m->nfuncs,
		.flags = 1,
	};
	/* a function absent from some ranks had its minimum there: 0 */
	for (size_t i = 0; i < m->nfuncs; i++) {
		struct hp_mpi_func_rec *f = &m->funcs[i];
		if (f->nranks < m->nranks) {
			f->self_min = f->total_min = 0;
			f->self_min_rank = f->total_min_rank = -1;
		}
	}
	hp_writer_begin(&w, HP_SEC_MPI_SITES);
	hp_writer_bytes(&w, &h, sizeof(h));
	hp_writer_bytes(&w, m->sites, sizeof(*m->sites) * m->nsites);
	hp_writer_bytes(&w, m->peers, sizeof(*m->peers) * m->npeers);
	hp_writer_bytes(&w, m->colls, sizeof(*m->colls) * m->ncolls);
	hp_writer_bytes(&w, m->mat, sizeof(*m->mat) * m->nmat);
	hp_writer_bytes(&w, m->funcs, sizeof(*m->funcs) * m->nfuncs);
	hp_writer_end(&w);
	hp_writer_begin(&w, HP_SEC_MPI_RANKS);
	hp_writer_u32(&w, m->nrankkv);
	hp_writer_bytes(&w, m->rankkv.p, m->rankkv.n);
	hp_writer_end(&w);
	return hp_writer_finish(&w);
}

/* ---- the whole merge ------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int hp_merge_at_finalize(void)
{
	if (!hp_mpi.initialized || hp_mpi.size < 1)
		return 0;
	if (hp_rt.initialized && !hp_rt.cfg.mpi_merge) /* HYPROF_MPI_MERGE=0 */
		return 0;
	char dir[sizeof(hp_rt.out_dir)];
	snprintf(dir, sizeof(dir), "%s", hp_rt.out_dir[0] ? hp_rt.out_dir : ".");
	MPI_Comm comm;
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
		return -1;
	/* every rank starts together, so the time measured is the merge's */
	PMPI_Barrier(comm);
	uint64_t t0 = now_ns();

	/* 1. this rank's profile, written and read back */
	struct mimg img;
	memset(&img, 0, sizeof(img));
	struct hp_prof *p = NULL;
	char path[PATH_MAX] = "", err[PATH_MAX + 256] = "";
	/* main and the functions above MPI_Finalize are still open: in
	 * measured mode they carry their time so far into this profile (and
	 * the merge), then reopen as they were for the rest of the run (the
	 * file written at exit has it all) */
	struct hp_open_save open_save;
	int reopen = hp_counting_open_close(hp_thread_self(), &open_save) > 0;
	int wrc = hp_write_profile(0, "mpi-finalize"), frc = 0;
	if (reopen)
		hp_counting_open_restore(hp_thread_self(), &open_save);
	if (wrc)
		snprintf(err, sizeof(err), "writing it failed: %s", strerror(wrc < 0 ? -wrc : wrc));
	else if ((frc = own_file(dir, path, sizeof(path))) != 0)
		snprintf(err, sizeof(err), "no file *.%05d.%d.hyp in %.4000s: %s", hp_mpi.rank,
			 (int)getpid(), dir, strerror(-frc));
	int ok = !wrc && !frc && hp_prof_read(path, &p, err, sizeof(err)) == 0;
	if (ok && own_image(&img, p, hp_mpi.rank) != 0) {
		snprintf(err, sizeof(err), "%s: out of memory", path);
		ok = 0;
	}
	if (!ok) {
		hp_log("mpi: rank %d cannot add its profile to the merge (%s); the merged profile will lack it",
		       hp_mpi.rank, err[0] ? err : "no profile written");
		img_free(&img);
		memset(&img, 0, sizeof(img));
		img.missing = 1;
	}

	/* 2. the binomial tree: children send, parents merge */
	uint32_t levels = 0;
	int sent = 0;
	for (int mask = 1; mask < hp_mpi.size; mask <<= 1) {
		levels++;
		if (hp_mpi.rank & mask) {
			struct buf b = {0};
			serialize(&img, &b);
			send_bytes(&b, hp_mpi.rank - mask, comm);
			free(b.p);
			sent = 1;
			break;
		}
		int child = hp_mpi.rank + mask;
		if (child >= hp_mpi.size)
			continue;
		uint64_t len;
		uint8_t *bytes = recv_bytes(child, comm, &len);
		struct mimg c;
		memset(&c, 0, sizeof(c)); /* img_free() below, whatever deserialize() did */
		if (bytes && deserialize(bytes, len, &c) == 0) {
			if (merge_into(&img, &c) != 0)
				hp_log("mpi: merging rank %d's profile ran out of memory", child);
		} else {
			hp_log("mpi: the profile sent by rank %d could not be read: it is left out", child);
			img.missing++;
		}
		img_free(&c);
		free(bytes);
	}
	hp_mpi.merge_levels = levels;

	/* 3. rank 0 writes the merged profile */
	int rc = 0;
	if (hp_mpi.rank == 0 && !sent) {
		uint64_t t1 = now_ns();
		hp_mpi.merge_ns = t1 - t0;
		if (p) {
			struct hp_xfsz xfsz;
			hp_xfsz_hold(&xfsz); /* EFBIG, not SIGXFSZ */
			rc = write_merged(p, &img, dir, t1 - t0);
			hp_xfsz_release(&xfsz);
			if (rc)
				hp_log("mpi: cannot write the merged profile in %s (%s)", dir, strerror(-rc));
		} else {
			hp_log("mpi: rank 0 has no profile of its own: no merged profile written");
		}
	}
	/* everyone reports rank 0's figure, and learns whether the merged file
	 * exists: without it the per-rank files are the profile */
	uint64_t res[2] = {now_ns() - t0, hp_mpi.rank == 0 && !sent && p && rc == 0};
	PMPI_Bcast(res, 2, MPI_UINT64_T, 0, comm);
	hp_mpi.merge_ns = res[0];
	int written = res[1] != 0;
	PMPI_Comm_free(&comm);

	/* 4. per-rank files: kept beside the merged one with --per-rank, else
	 * out of the way (the runtime writes this process's file again at
	 * exit, into the directory it is given here).  A rank whose profile
	 * the merge lacks keeps its file in place: the report adds it. */
	if (!hp_rt.cfg.per_rank && ok && written) {
		char hidden[sizeof(hp_rt.out_dir)];
		int n = snprintf(hidden, sizeof(hidden), "%s/.hyprof-ranks", dir);
		if (n > 0 && (size_t)n < sizeof(hidden) && (mkdir(hidden, 0755) == 0 || errno == EEXIST)) {
			unlink(path);
			memcpy(hp_rt.out_dir, hidden, (size_t)n + 1);
		}
	}
	if (p)
		hp_prof_free(p);
	img_free(&img);
	return rc;
}
