/* tools/model.c - load a profile directory into struct hp_model (model.h).
 *
 * Per thread: the probe tree (function entry addresses and region ids) is
 * turned into a function-level probe tree; the sample tree (PCs) is
 * symbolized frame by frame (inlined frames expanded, return addresses
 * resolved at pc-1) into a function-level tree with recursion folding, and
 * the two are joined (model_build.h, docs/cmd-report.md), regions placed in
 * the sampled paths.  Measured mode shows the probe tree itself with
 * compensated times.  hyprof's own frames (the MPI wrappers) are folded in
 * each thread's tree (mb__fold_hyprof) unless MODEL_NO_FOLD.  Trees are
 * merged over threads and processes by function path.
 *
 * Files: every *.hyp of the directory and of its .hyprof-ranks/ (the MPI
 * merge's per-rank files); a merged file stands for the ranks it lists,
 * whose own files then only give the per-rank trees (classify() below).
 *
 * Period to seconds (docs/cmd-report.md "Units"): unit "ns" -> period *
 * 1e-9; unit "events" of a cycles event -> period / frequency (META
 * "event_hz" when the runtime recorded it, else the TSC frequency); any
 * other event -> the thread's CPU time split in proportion to the period.
 */
#include "tools/model.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cct.h"
#include "tools/model_build.h"
#include "tools/symbols.h"
#include "tools/util.h"

/* Where the MPI merge at finalize puts the per-rank files (mpiwrap/merge.c,
 * docs/mpi.md "Merged profiles and per-rank files"). */
#define MODEL_RANKS_DIR ".hyprof-ranks"

struct mthread {
	struct pnode *full;  /* full probe tree, NULL when no probe ran */
	struct pnode *pf;    /* function-only probe tree */
	double spp;          /* seconds per unit of period */
	int use;             /* part of the model (not a per-rank duplicate) */
	int part;            /* shown by --ranks (model__rank_tree) */
	int merged;          /* a thread of a merged file (rank -1) */
	int nranks;          /* merged: the ranks whose thread of this index it holds */
};

struct mpriv {
	struct mb *b;
	struct symtab *st;
	struct mthread *th;  /* parallel to m->threads, then m->rank_threads */
	size_t nth;          /* entries of th */
	int any_probes, any_regions;
	double sampled_s, matched_s, unprobed_s;
	size_t probe_paths, probe_only, shared, overlays, regions_placed;
	int fold;            /* fold hyprof's own frames (MODEL_NO_FOLD unset) */
	size_t folded;       /* hyprof nodes folded away, model threads */
	char *cost_keys[64];
};

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

static const char *meta_str(const struct hp_prof *p, const char *k1, const char *k2)
{
	const char *s = hp_kv_str(&p->meta, k1, NULL);
	if (!s && k2)
		s = hp_kv_str(&p->meta, k2, NULL);
	return s;
}

/* numeric kv of any numeric type, or def */
static double kv_num(const struct hp_kvlist *l, const char *key, double def)
{
	const struct hp_kv *v = hp_kv_get(l, key);
	if (!v)
		return def;
	switch (v->type) {
	case HP_KV_U64: return (double)v->u;
	case HP_KV_I64: return (double)v->i;
	case HP_KV_F64: return v->d;
	case HP_KV_STR: return v->s ? strtod(v->s, NULL) : def;
	}
	return def;
}

static double prof_tsc_hz(const struct hp_prof *p)
{
	double hz = kv_num(&p->meta, "tsc_hz", 0);
	if (hz <= 0)
		hz = kv_num(&p->calib, "tsc_hz", 0);
	return hz;
}

static double prof_wall(const struct hp_prof *p)
{
	double w = kv_num(&p->meta, "duration_ns", -1);
	if (w < 0)
		w = kv_num(&p->meta, "wall_ns", -1);
	if (w >= 0)
		return w * 1e-9;
	double s = kv_num(&p->meta, "start_ns", 0), e = kv_num(&p->meta, "end_ns", 0);
	if (e > s)
		return (e - s) * 1e-9;
	/* fall back on the longest thread */
	double best = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		double ts = kv_num(&p->threads[i].kv, "start_ns", 0);
		double te = kv_num(&p->threads[i].kv, "end_ns", 0);
		if (te > ts && (te - ts) * 1e-9 > best)
			best = (te - ts) * 1e-9;
	}
	return best;
}

static int is_cycles_event(const char *ev)
{
	return ev && (strstr(ev, "cycles") || strstr(ev, "CYC") || strcmp(ev, "cpu-cycles") == 0);
}

/* ---- loading files ----------------------------------------------------- */

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the *.hyp of directory `dir` to *out.  Counts the entries and the
 * temporary files seen (for the error message).  0 or -errno. */
static int scan_dir(const char *dir, char ***out, size_t *n, size_t *cap, size_t *entries,
		    size_t *tmps)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		(*entries)++;
		if (strstr(de->d_name, HP_FILE_EXT ".tmp"))
			(*tmps)++;
		if (!ends_with(de->d_name, HP_FILE_EXT))
			continue;
		*out = tool_grow(*out, *n, cap, sizeof **out);
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		char *fp = malloc(len);
		if (!fp)
			abort();
		snprintf(fp, len, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", de->d_name);
		(*out)[(*n)++] = fp;
	}
	closedir(d);
	return 0;
}

/* The live statistics' snapshots in PATH/.live (*ldir: that directory,
 * for messages), a list to free with free_list().  0 if it could be read. */
static int live_list(const char *path, char **ldir, char ***live, size_t *nlive)
{
	size_t cap = 0, entries = 0, tmps = 0;
	size_t len = strlen(path) + sizeof("/.live");
	*live = NULL;
	*nlive = 0;
	*ldir = malloc(len);
	if (!*ldir)
		abort();
	snprintf(*ldir, len, "%s%s.live", path, ends_with(path, "/") ? "" : "/");
	return scan_dir(*ldir, live, nlive, &cap, &entries, &tmps);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A directory without finished profiles whose processes were killed
 * before they could write (SIGKILL, the OOM killer): the live statistics'
 * last snapshots are in PATH/.live.  Says so in err; returns 1 if any. */
static int live_hint(const char *path, char *err, size_t errlen)
{
	char **live, *ldir;
	size_t nlive;
	if (live_list(path, &ldir, &live, &nlive) == 0 && nlive > 0)
		snprintf(err, errlen,
			 "%s: no finished profile; %zu live snapshot(s) of process(es) that did not "
			 "finish (killed by SIGKILL?): hyprof report %s",
			 path, nlive, ldir);
	free_list(live, nlive);
	free(ldir);
	return nlive > 0;
}

/* Live snapshots in PATH/.live of processes that left no profile among
 * PATHS (same file name: the snapshot is named as its process's profile):
 * killed by SIGKILL, or their write failed.  Beside finished profiles
 * (one rank of a job killed) they were not mentioned at all. */
static int count_unfinished(const char *path, char **paths, size_t np)
{
	struct stat sb;
	if (stat(path, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return 0;
	char **live, *ldir;
	size_t nlive;
	int n = 0;
	if (live_list(path, &ldir, &live, &nlive) == 0) {
		for (size_t i = 0; i < nlive; i++) {
			const char *base = strrchr(live[i], '/') + 1;
			int found = 0;
			for (size_t k = 0; k < np && !found; k++) {
				const char *b = strrchr(paths[k], '/');
				found = !strcmp(b ? b + 1 : paths[k], base);
			}
			n += !found;
		}
	}
	free_list(live, nlive);
	free(ldir);
	return n;
}

/* Every profile of `path`: the file itself, or the *.hyp of the directory
 * and of its MODEL_RANKS_DIR (where the MPI merge puts the per-rank files,
 * docs/mpi.md); which of them make the model is decided once they are read
 * (classify()).  Sorted by path within each directory. */
static int list_profiles(const char *path, char ***out, size_t *n, char *err, size_t errlen)
{
	struct stat sb;
	*out = NULL;
	*n = 0;
	if (stat(path, &sb) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISDIR(sb.st_mode)) {
		*out = malloc(sizeof **out);
		if (!*out)
			abort();
		(*out)[0] = xstrdup(path);
		*n = 1;
		return 0;
	}
	size_t cap = 0, entries = 0, tmps = 0;
	int rc = scan_dir(path, out, n, &cap, &entries, &tmps);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (*n > 1) /* *out is NULL when none: qsort's arguments must not be */
		qsort(*out, *n, sizeof **out, cmp_str);
	size_t top = *n;
	size_t len = strlen(path) + sizeof(MODEL_RANKS_DIR) + 2;
	char *hidden = malloc(len);
	if (!hidden)
		abort();
	snprintf(hidden, len, "%s%s%s", path, ends_with(path, "/") ? "" : "/", MODEL_RANKS_DIR);
	/* a missing or unreadable ranks directory only means no per-rank files */
	if (stat(hidden, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    scan_dir(hidden, out, n, &cap, &entries, &tmps) == 0 && *n - top > 1)
		qsort(*out + top, *n - top, sizeof **out, cmp_str);
	free(hidden);
	if (*n == 0) {
		if (live_hint(path, err, errlen)) {
			/* err names the snapshots to report */
		} else if (entries == 0)
			snprintf(err, errlen,
				 "%s: empty directory, no profiles: run `hyprof run -o %s -- PROGRAM` first",
				 path, path);
		else if (tmps)
			snprintf(err, errlen,
				 "%s: no finished profile (*" HP_FILE_EXT "), only %zu temporary file(s): "
				 "the program is still running or was killed before writing",
				 path, tmps);
		else
			snprintf(err, errlen,
				 "%s: no profiles (*" HP_FILE_EXT ") in this directory: is it a hyprof "
				 "output directory?",
				 path);
		free(*out);
		*out = NULL;
		return -ENOENT;
	}
	return 0;
}

/* ---- symbolization helpers --------------------------------------------- */

static struct hp_func *func_of(struct mpriv *pv, const struct sym_loc *l, int k)
{
	const struct sym_frame *f = &l->frames[k];
	return mb__func(pv->b, f->name, l->module, f->file, f->decl_line, 0, l->measurement);
}

static struct hp_func *region_func(struct mpriv *pv, const struct hp_prof *p, uint64_t id)
{
	for (size_t i = 0; i < p->nregions; i++) {
		const struct hp_region *r = &p->regions[i];
		if (r->id == id)
			return mb__func(pv->b, r->name, "[region]", r->file, (int)r->line, 1, 0);
	}
	char buf[64];
	snprintf(buf, sizeof buf, "[region %llu]", (unsigned long long)id);
	return mb__func(pv->b, buf, "[region]", NULL, 0, 1, 0);
}

/* ---- probe trees ------------------------------------------------------- */

struct pctx {
	struct mpriv *pv;
	const struct hp_prof *prof;
	struct sym_space *sp;
	const struct cct_node *nodes;
	uint32_t n;
	struct pnode **map;
	int has_regions;
};

/* Deepest tree path the recursive walks below (pdfs, sdfs) follow.  The
 * runtime writes none deeper than its shadow stack (HP_STACK_MAX, 4096
 * probe frames) or its unwind (HP_UNWIND_MAX, 512 frames); a damaged or
 * hand-made file may chain any number of nodes, and a walk of ~50000
 * frames overflowed the 8 MB main stack (SIGSEGV).  Deeper nodes are left
 * out of the model. */
#define MODEL_MAX_DEPTH 16384

static void padd_node(struct pnode *q, const struct cct_node *nd)
{
	MB_PNODE_ADD(q, nd);
	q->flags |= nd->flags & ~(CCT_F_REDIRECT | CCT_F_PROBE | CCT_F_REGION);
}

static void pdfs(struct pctx *c, uint32_t i, struct pnode *parent, int depth)
{
	if (depth > MODEL_MAX_DEPTH)
		return;
	for (uint32_t ci = c->nodes[i].first_child, guard = 0; ci < c->n && guard <= c->n;
	     ci = c->nodes[ci].next_sibling, guard++) {
		const struct cct_node *nd = &c->nodes[ci];
		if (nd->flags & CCT_F_REDIRECT) {
			struct pnode *tg = nd->target < c->n ? c->map[nd->target] : NULL;
			if (tg) {
				padd_node(tg, nd);
				tg->flags |= CCT_F_FOLDED;
				c->map[ci] = tg;
				pdfs(c, ci, tg, depth + 1);
			}
			continue;
		}
		struct hp_func *fn;
		if (nd->flags & CCT_F_REGION) {
			fn = region_func(c->pv, c->prof, nd->key);
			c->has_regions = 1;
		} else {
			const struct sym_loc *l = sym_space__resolve(c->sp, nd->key, 0);
			fn = func_of(c->pv, l, 0);
		}
		struct pnode *q = mb__pchild(c->pv->b, parent, fn);
		padd_node(q, nd);
		c->map[ci] = q;
		pdfs(c, ci, q, depth + 1);
	}
}

/* ---- sample trees ------------------------------------------------------ */

struct sctx {
	struct mpriv *pv;
	struct sym_space *sp;
	const struct cct_node *nodes;
	uint32_t n;
	double spp;
	int join; /* probe cursor active */
};

static struct mb_pos step_loc(struct sctx *c, struct mb_pos pos, const struct sym_loc *l,
			      uint64_t pc, int line_in_parent, int *line_out)
{
	int line = line_in_parent;
	for (int k = 0; k < l->nframes; k++) {
		struct hp_func *fn = func_of(c->pv, l, k);
		pos = mb__step(c->pv->b, pos, fn, l->frames[k].inlined ? HP_T_INLINED : 0);
		if (!pos.t->pc)
			pos.t->pc = (uintptr_t)pc;
		if (!pos.t->line)
			pos.t->line = line;
		line = l->frames[k].line;
	}
	*line_out = line;
	return pos;
}

static void sdfs(struct sctx *c, uint32_t i, struct mb_pos parent, int pline, int depth)
{
	const struct cct_node *nd = &c->nodes[i];
	if (depth > MODEL_MAX_DEPTH)
		return;
	int kids = nd->first_child < c->n;
	struct mb_pos pos = parent;
	const struct sym_loc *lr = NULL;
	int line = pline;
	if (kids) {
		lr = sym_space__resolve(c->sp, nd->key, 1);
		pos = step_loc(c, parent, lr, nd->key, pline, &line);
		for (uint32_t ci = nd->first_child, guard = 0; ci < c->n && guard <= c->n;
		     ci = c->nodes[ci].next_sibling, guard++)
			sdfs(c, ci, pos, line, depth + 1);
	}
	if (nd->samples || nd->period) {
		const struct sym_loc *ll = sym_space__resolve(c->sp, nd->key, 0);
		struct mb_pos lp = pos;
		int dummy;
		if (ll != lr)
			lp = step_loc(c, parent, ll, nd->key, pline, &dummy);
		double secs = (double)nd->period * c->spp;
		lp.t->samples += (double)nd->samples;
		lp.t->self += secs;
		lp.t->self_raw += secs;
		lp.t->sampled_self += secs;
		if (nd->flags & CCT_F_TRUNCATED)
			lp.t->flags |= HP_T_TRUNCATED;
		c->pv->sampled_s += secs;
		if (c->join && lp.p)
			c->pv->matched_s += secs;
	}
	if ((nd->flags & CCT_F_TRUNCATED) && kids)
		pos.t->flags |= HP_T_TRUNCATED;
}

/* ---- measured mode: the probe tree is the tree -------------------------- */

static void mdfs(struct mb *b, const struct pnode *q, struct hp_tnode *t, double c2s, double spp,
		 int use_raw)
{
	for (struct pnode *c = q->child; c; c = c->sibling) {
		struct hp_tnode *n = mb__child(b, t, c->fn, 0);
		mb__calls_add(n, c);
		n->flags |= mb__tflags(c->flags & CCT_F_TRUNCATED);
		n->self_raw += (double)c->excl * c2s;
		n->total_raw += (double)c->incl * c2s;
		n->self += (double)(use_raw ? c->excl : c->excl_comp) * c2s;
		n->total += (double)(use_raw ? c->incl : c->incl_comp) * c2s;
		n->sampled_self += (double)c->period * spp;
		n->samples += (double)c->samples;
		mdfs(b, c, n, c2s, spp, use_raw);
		/* A frame still open when the file was written (a live snapshot,
		 * a thread still running at exit) has no inclusive time of its
		 * own yet: give it at least what its closed descendants took,
		 * or the root total (and every percentage) is 0. */
		if (c->incl == 0 && c->calls > 0) {
			double t = n->self, tr = n->self_raw;
			for (struct hp_tnode *k = n->child; k; k = k->sibling) {
				t += k->total;
				tr += k->total_raw;
			}
			if (n->total < t)
				n->total = t;
			if (n->total_raw < tr)
				n->total_raw = tr;
		}
	}
}

static double sampled_totals(struct hp_tnode *n)
{
	double s = n->sampled_self;
	for (struct hp_tnode *c = n->child; c; c = c->sibling)
		s += sampled_totals(c);
	return n->sampled_total = s;
}

static int comp_present(const struct pnode *q)
{
	if (q->incl_comp || q->excl_comp)
		return 1;
	for (const struct pnode *c = q->child; c; c = c->sibling)
		if (comp_present(c))
			return 1;
	return 0;
}

/* Measurement samples of each probe path, as seconds, on the node that
 * shows it (ALGORITHMS.md section 3: the direct observed cost). */
static void cost_rec(const struct pnode *q, double cps)
{
	for (const struct pnode *c = q->child; c; c = c->sibling) {
		if (c->t)
			c->t->cost += (double)c->meas_samples * cps;
		cost_rec(c, cps);
	}
}

/* ---- cost kv: summed over processes ------------------------------------ */

static void cost_add(struct hp_model *m, const struct hp_kvlist *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct hp_kv *s = &src->v[i];
		struct hp_kv *d = NULL;
		for (size_t k = 0; k < m->cost.n; k++)
			if (strcmp(m->cost.v[k].key, s->key) == 0)
				d = &m->cost.v[k];
		if (!d) {
			m->cost.v = realloc(m->cost.v, (m->cost.n + 1) * sizeof *m->cost.v);
			if (!m->cost.v)
				abort();
			d = &m->cost.v[m->cost.n++];
			*d = *s;
			d->key = xstrdup(s->key);
			d->s = xstrdup(s->s);
			continue;
		}
		if (d->type == HP_KV_U64 && s->type == HP_KV_U64)
			d->u += s->u;
		else if (d->type == HP_KV_I64 && s->type == HP_KV_I64)
			d->i += s->i;
		else if (d->type == HP_KV_F64 && s->type == HP_KV_F64)
			d->d += s->d;
	}
}

/* ---- the model --------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
}

/* Samples a thread dropped (*sum), and by reason into the model's
 * dropped_by when `count`. */
static void thread_dropped(struct hp_model *m, const struct hp_kvlist *kv, uint64_t *sum, int count)
{
	*sum = 0;
	for (size_t i = 0; i < kv->n; i++) {
		const char *k = kv->v[i].key;
		if (strncmp(k, "dropped.", 8) != 0 || kv->v[i].type == HP_KV_STR)
			continue;
		uint64_t v = kv->v[i].type == HP_KV_U64 ? kv->v[i].u : (uint64_t)kv_num(kv, k, 0);
		*sum += v;
		if (!count)
			continue;
		int r;
		for (r = 0; r < m->ndrop; r++)
			if (strcmp(m->drop_names[r], k + 8) == 0)
				break;
		if (r == m->ndrop) {
			if (m->ndrop == 8)
				r = 7; /* more reasons than slots: the last one gathers them */
			else
				m->drop_names[m->ndrop++] = k + 8;
		}
		m->dropped_by[r] += v;
	}
	if (*sum == 0) {
		double d = kv_num(kv, "dropped", 0);
		*sum = d > 0 ? (uint64_t)d : 0;
	}
}

static void free_paths(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- which files make the model ----------------------------------------
 *
 * A merged file (the MPI merge at finalize, HP_FILE_MERGED) holds every rank
 * listed in its HP_SEC_MPI_RANKS section (rank, pid).  The per-rank file of
 * a listed process (kept beside it with --per-rank, or in MODEL_RANKS_DIR)
 * is then not part of the merged model, which would count it twice, but it
 * is still read: it gives that rank its own tree for --ranks.  Every other
 * file is part of the model: a rank the merge lacks (it could not add its
 * profile), a process forked by a rank, a non-MPI process, or every rank
 * when no merge happened (HYPROF_MPI_MERGE=0, a rank died, rank 0 could not
 * write).  The same process image found twice (a copied file) counts once:
 * the copy that covers the longer run. */

enum { F_MODEL = 0, F_RANK_DETAIL = 1, F_DUPLICATE = 2 };

struct covered {
	int64_t rank, pid;
};

/* The (rank, pid) list of a merged file; -1 when it has none (readers of
 * files from before the section existed fall back on the ranks' number). */
static long merged_ranks(const struct hp_prof *p, struct covered **out)
{
	*out = NULL;
	const struct hp_section *s = hp_prof_section(p, HP_SEC_MPI_RANKS);
	if (!s || s->len < 4)
		return -1;
	uint32_t count;
	memcpy(&count, s->data, 4);
	if (count > (s->len - 4) / 4)
		return -1;
	struct covered *v = calloc(count ? count : 1, sizeof *v);
	if (!v)
		abort();
	size_t off = 4;
	long n = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t len;
		if (off + 4 > s->len)
			break;
		memcpy(&len, s->data + off, 4);
		off += 4;
		if (len > s->len - off)
			break;
		struct hp_kvlist kv = {0};
		if (hp_kv_parse(s->data + off, len, &kv) == 0) {
			v[n].rank = (int64_t)kv_num(&kv, "rank", -1);
			v[n].pid = (int64_t)kv_num(&kv, "pid", -1);
			if (v[n].rank >= 0)
				n++;
			hp_kv_free(&kv);
		}
		off += len;
	}
	*out = v;
	return n;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Same process image: pid, rank, host, program and start time. */
static int same_image(const struct hp_prof *a, const struct hp_prof *b)
{
	return kv_num(&a->meta, "pid", -1) == kv_num(&b->meta, "pid", -2) &&
	       kv_num(&a->meta, "rank", -1) == kv_num(&b->meta, "rank", -1) &&
	       kv_num(&a->meta, "start_ns", -1) == kv_num(&b->meta, "start_ns", -2) &&
	       same_str(meta_str(a, "hostname", NULL), meta_str(b, "hostname", NULL)) &&
	       same_str(meta_str(a, "program", NULL), meta_str(b, "program", NULL));
}

/* The better of two copies of one image: whole rather than partial, then the
 * one written last. */
static int better_copy(const struct hp_prof *a, const struct hp_prof *b)
{
	int pa = (a->flags & HP_FILE_PARTIAL) != 0, pb = (b->flags & HP_FILE_PARTIAL) != 0;
	if (pa != pb)
		return pa < pb;
	return kv_num(&a->meta, "end_ns", 0) > kv_num(&b->meta, "end_ns", 0);
}


/* m->progs: the distinct programs of the profiles, in the order they first
 * started (a run's launched command first), each with its process count;
 * the names stay owned by the profiles.  One pass over the profiles keeps
 * each program's earliest start; only the programs are sorted. */
struct prog_start {
	struct hp_prog p;
	double first; /* earliest start_ns of its processes */
	size_t seen;  /* order of appearance: ties keep it */
};

static int cmp_prog_start(const void *a, const void *b)
{
	const struct prog_start *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return (x->seen > y->seen) - (x->seen < y->seen);
}

static void list_programs(struct hp_model *m)
{
	size_t n = m->nprofs, np = 0;
	struct prog_start *v = malloc(sizeof(*v) * (n ? n : 1));
	m->progs = malloc(sizeof(*m->progs) * (n ? n : 1));
	if (!v || !m->progs)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct hp_prof *p = m->profs[i];
		const char *name = meta_str(p, "program", NULL);
		if (!name)
			continue;
		double start = kv_num(&p->meta, "start_ns", 0);
		size_t k = 0;
		while (k < np && strcmp(v[k].p.name, name) != 0)
			k++;
		if (k == np)
			v[np++] = (struct prog_start){{name, 0}, start, k};
		else if (start < v[k].first)
			v[k].first = start;
		v[k].p.procs += (p->flags & HP_FILE_MERGED) ? (int)kv_num(&p->meta, "nranks", 1) : 1;
	}
	qsort(v, np, sizeof(*v), cmp_prog_start);
	for (size_t k = 0; k < np; k++)
		m->progs[k] = v[k].p;
	m->nprogs = (int)np;
	free(v);
}

/* role[i] for every file; returns the number of files in the model. */
static size_t classify(struct hp_prof **profs, size_t n, int *role)
{
	for (size_t i = 0; i < n; i++)
		role[i] = F_MODEL;
	for (size_t i = 0; i < n; i++) {
		if (profs[i]->flags & HP_FILE_MERGED)
			continue;
		for (size_t k = i + 1; k < n && role[i] != F_DUPLICATE; k++) {
			if ((profs[k]->flags & HP_FILE_MERGED) || role[k] == F_DUPLICATE ||
			    !same_image(profs[i], profs[k]))
				continue;
			if (better_copy(profs[k], profs[i]))
				role[i] = F_DUPLICATE;
			else
				role[k] = F_DUPLICATE;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct hp_prof *mp = profs[i];
		if (!(mp->flags & HP_FILE_MERGED))
			continue;
		struct covered *cv;
		long nc = merged_ranks(mp, &cv);
		double nranks = kv_num(&mp->meta, "nranks", 0);
		const char *prog = meta_str(mp, "program", NULL);
		for (size_t k = 0; k < n; k++) {
			const struct hp_prof *p = profs[k];
			if (role[k] != F_MODEL || (p->flags & HP_FILE_MERGED))
				continue;
			double r = kv_num(&p->meta, "rank", -1), pid = kv_num(&p->meta, "pid", -1);
			int hit = 0;
			if (nc >= 0) {
				for (long c = 0; c < nc && !hit; c++)
					hit = (double)cv[c].rank == r && (double)cv[c].pid == pid;
			} else {
				hit = r >= 0 && r < nranks && same_str(prog, meta_str(p, "program", NULL));
			}
			if (hit)
				role[k] = F_RANK_DETAIL;
		}
		free(cv);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += role[i] == F_MODEL;
	return k;
}

/* Threads of one file: symbolized, joined, appended at m->threads[*nt].
 * `detail`: a per-rank file a merged file covers (--ranks only): its
 * threads are built the same way but kept out of the model's sums. */
static int load_file(struct hp_model *m, struct mpriv *pv, struct hp_prof *p, int detail,
		     size_t *nt, int measured, char *err, size_t errlen)
{
	/* m->ranks lists the model's files; a detail file's entry is local */
	struct hp_rankinfo dri = {0};
	struct hp_rankinfo *ri = detail ? &dri : &m->ranks[m->nranks++];
	ri->rank = (int)kv_num(&p->meta, "rank", -1);
	ri->pid = (int)kv_num(&p->meta, "pid", 0);
	ri->prof = p;
	ri->wall_raw = prof_wall(p);
	const struct hp_section *ms = hp_prof_section(p, HP_SEC_MPI);
	struct hp_kvlist mk = {0};
	if (ms && hp_kv_parse(ms->data, ms->len, &mk) == 0) {
		ri->wall_local = kv_num(&mk, "wall_local", 0);
		ri->wall_parallel = kv_num(&mk, "wall_parallel", 0);
		ri->wait_raw = kv_num(&mk, "wait_raw", 0);
		ri->wait_compensated = kv_num(&mk, "wait_compensated", 0);
		ri->reordered_receives = (uint64_t)kv_num(&mk, "reordered_receives", 0);
		hp_kv_free(&mk);
	}
	if (!detail) {
		m->nprocs += (p->flags & HP_FILE_MERGED) ? (int)kv_num(&p->meta, "nranks", 1) : 1;
		if ((p->flags & HP_FILE_PARTIAL) || kv_num(&p->meta, "partial", 0) > 0)
			m->partial = 1;
		if (ri->wall_raw > m->duration)
			m->duration = ri->wall_raw;
		cost_add(m, &p->cost);
	}

	struct sym_space *sp = symtab__space(pv->st, p->modules, p->nmodules);
	if (!sp) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the join's statistics describe the model: a detail file leaves them */
	double s_sampled = pv->sampled_s, s_matched = pv->matched_s, s_unprobed = pv->unprobed_s;
	size_t s_po = pv->probe_only, s_ov = pv->overlays, s_rp = pv->regions_placed;
	int s_probes = pv->any_probes, s_regions = pv->any_regions;

	double tsc_hz = prof_tsc_hz(p);
	const char *unit = meta_str(p, "unit", NULL);
	const char *pev = meta_str(p, "event", "source_event");
	double ev_hz = kv_num(&p->meta, "event_hz", 0);
	size_t base = *nt;
	int has_regions = 0;
	for (size_t t = 0; t < p->nthreads; t++) {
		const struct hp_prof_thread *pt = &p->threads[t];
		struct hp_threadinfo *ti = &m->threads[*nt];
		struct mthread *mt = &pv->th[*nt];
		(*nt)++;
		mt->use = !detail;
		mt->part = detail || !(p->flags & HP_FILE_MERGED);
		mt->merged = (p->flags & HP_FILE_MERGED) != 0;
		ti->all_ranks = mt->merged;
		ti->rank = (int)kv_num(&pt->kv, "rank", ri->rank);
		ti->pid = (int)kv_num(&pt->kv, "pid", ri->pid);
		ti->tid = (int)kv_num(&pt->kv, "tid", 0);
		ti->index = (int)kv_num(&pt->kv, "index", (double)t);
		ti->merged = (int)kv_num(&pt->kv, "merged_threads", 1);
		if (ti->merged < 1)
			ti->merged = 1;
		mt->nranks = mt->merged ? (int)kv_num(&pt->kv, "merged_ranks", 1) : 1;
		double ts = kv_num(&pt->kv, "start_ns", 0), te = kv_num(&pt->kv, "end_ns", 0);
		ti->wall = te > ts ? (te - ts) * 1e-9 : ri->wall_raw;
		ti->cpu = kv_num(&pt->kv, "cpu_ns", 0) * 1e-9;
		uint64_t tot_period = 0, tot_samples = 0;
		for (uint32_t k = 0; k < pt->nsample; k++) {
			tot_period += pt->sample[k].period;
			tot_samples += pt->sample[k].samples;
		}
		ti->samples = (uint64_t)kv_num(&pt->kv, "samples", (double)tot_samples);
		thread_dropped(m, &pt->kv, &ti->dropped, !detail);
		if (!detail) {
			m->samples += ti->samples;
			m->dropped += ti->dropped;
		}
		/* seconds per unit of period */
		if (!unit || strcmp(unit, "ns") == 0)
			mt->spp = 1e-9;
		else if (is_cycles_event(pev) && (ev_hz > 0 || tsc_hz > 0))
			mt->spp = 1.0 / (ev_hz > 0 ? ev_hz : tsc_hz);
		else if (ti->cpu > 0 && tot_period > 0)
			mt->spp = ti->cpu / (double)tot_period;
		else
			mt->spp = tsc_hz > 0 ? 1.0 / tsc_hz : 1e-9;

		if (pt->nprobe > 1) {
			struct pctx pc = {pv, p, sp, pt->probe, pt->nprobe, NULL, 0};
			pc.map = calloc(pt->nprobe, sizeof *pc.map);
			if (!pc.map)
				abort();
			mt->full = mb__proot(pv->b);
			pc.map[0] = mt->full;
			padd_node(mt->full, &pt->probe[0]);
			pdfs(&pc, 0, mt->full, 0);
			free(pc.map);
			if (mt->full->child) {
				mt->pf = mb__splice_regions(pv->b, mt->full);
				pv->any_probes = 1;
				has_regions |= pc.has_regions;
			} else {
				mt->full = NULL;
			}
		}
	}
	pv->any_regions |= has_regions;
	/* sampled trees once this process's probe trees exist: the join asks
	 * which functions are instrumented */
	for (size_t t = 0; t < p->nthreads; t++) {
		const struct hp_prof_thread *pt = &p->threads[t];
		struct hp_threadinfo *ti = &m->threads[base + t];
		struct mthread *mt = &pv->th[base + t];
		ti->root = mb__root(pv->b);
		double cps = (double)m->period * mt->spp; /* one sample, seconds */
		if (measured && mt->full) {
			int use_raw = !comp_present(mt->full);
			double c2s = tsc_hz > 0 ? 1.0 / tsc_hz : 0;
			mdfs(pv->b, mt->full, ti->root, c2s, mt->spp, use_raw);
			/* nodes of the full tree map 1:1 on tree nodes */
			struct hp_tnode *r = ti->root;
			r->total = r->total_raw = 0;
			for (struct hp_tnode *c = r->child; c; c = c->sibling) {
				r->total += c->total;
				r->total_raw += c->total_raw;
			}
			sampled_totals(r);
			pv->unprobed_s += (double)mt->full->period * mt->spp;
			continue;
		}
		if (pt->nsample > 0) {
			struct sctx sc = {pv, sp, pt->sample, pt->nsample, mt->spp, mt->pf != NULL};
			struct mb_pos pos = {ti->root, mt->pf};
			for (uint32_t ci = pt->sample[0].first_child, guard = 0;
			     ci < pt->nsample && guard <= pt->nsample;
			     ci = pt->sample[ci].next_sibling, guard++)
				sdfs(&sc, ci, pos, 0, 1);
			/* samples at the root itself: no frame at all */
			if (pt->sample[0].period) {
				double secs = (double)pt->sample[0].period * mt->spp;
				ti->root->self += secs;
				ti->root->self_raw += secs;
				ti->root->sampled_self += secs;
				pv->sampled_s += secs;
			}
		}
		if (mt->pf) {
			pv->probe_only += (size_t)mb__join(pv->b, ti->root, mt->pf);
			if (has_regions) {
				int placed = 0;
				pv->overlays += (size_t)mb__regions(pv->b, ti->root, mt->full,
								    mt->spp, &placed);
				pv->regions_placed += (size_t)placed;
			}
			cost_rec(mt->pf, cps);
		} else {
			mb__totals(ti->root);
		}
		if (pv->fold) {
			size_t nf = 0;
			ti->root = mb__fold_hyprof(pv->b, ti->root, &nf);
			if (!detail)
				pv->folded += nf;
		}
	}
	if (detail) {
		pv->sampled_s = s_sampled;
		pv->matched_s = s_matched;
		pv->unprobed_s = s_unprobed;
		pv->probe_only = s_po;
		pv->overlays = s_ov;
		pv->regions_placed = s_rp;
		pv->any_probes = s_probes;
		pv->any_regions = s_regions;
	}
	return 0;
}

int model__load(struct hp_model *m, const char *path, char *err, size_t errlen)
{
	return model__load_opts(m, path, 0, err, errlen);
}

int model__load_opts(struct hp_model *m, const char *path, unsigned opts, char *err,
		     size_t errlen)
{
	char **paths;
	size_t np;
	memset(m, 0, sizeof *m);
	int rc = list_profiles(path, &paths, &np, err, errlen);
	if (rc < 0)
		return rc;
	struct mpriv *pv = calloc(1, sizeof *pv);
	if (!pv)
		abort();
	m->priv = pv;
	pv->fold = !(opts & MODEL_NO_FOLD);
	m->dir = xstrdup(path);
	pv->b = mb__new();
	pv->st = symtab__new();
	if (!pv->b || !pv->st) {
		free_paths(paths, np);
		model__free(m);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct hp_prof **all = calloc(np, sizeof *all);
	int *role = calloc(np, sizeof *role);
	m->profs = calloc(np, sizeof *m->profs);
	m->rank_profs = calloc(np, sizeof *m->rank_profs);
	if (!all || !role || !m->profs || !m->rank_profs)
		abort();
	for (size_t i = 0; i < np; i++) {
		char e[512] = "";
		rc = hp_prof_read(paths[i], &all[i], e, sizeof e);
		if (rc < 0) {
			/* the reader's message names the file already */
			if (e[0] && strncmp(e, paths[i], strlen(paths[i])) == 0)
				snprintf(err, errlen, "%s", e);
			else
				set_err(err, errlen, "%s: %s", paths[i], e[0] ? e : strerror(-rc));
			for (size_t k = 0; k < i; k++)
				hp_prof_free(all[k]);
			free(all);
			free(role);
			free_paths(paths, np);
			model__free(m);
			return rc;
		}
	}
	m->unfinished = count_unfinished(path, paths, np);
	free_paths(paths, np);
	classify(all, np, role);
	for (size_t i = 0; i < np; i++) {
		if (role[i] == F_MODEL)
			m->profs[m->nprofs++] = all[i];
		else if (role[i] == F_RANK_DETAIL)
			m->rank_profs[m->nrank_profs++] = all[i];
		else
			hp_prof_free(all[i]);
	}
	free(all);
	free(role);

	const struct hp_prof *first = m->profs[0];
	list_programs(m);
	m->program = xstrdup(m->nprogs ? m->progs[0].name : "[unknown program]");
	m->mode = xstrdup(meta_str(first, "mode", NULL) ? meta_str(first, "mode", NULL) : "sampled");
	const char *ev = meta_str(first, "event", "source_event");
	const char *src = meta_str(first, "source", NULL);
	m->source = xstrdup(ev ? ev : src ? src : "[unknown]");
	m->source_why = xstrdup(meta_str(first, "source_why", NULL));
	m->unit = xstrdup(meta_str(first, "unit", NULL) ? meta_str(first, "unit", NULL) : "ns");
	m->period = (uint64_t)kv_num(&first->meta, "period", 0);
	m->calib = first->calib;
	int measured = strcmp(m->mode, "measured") == 0;

	/* threads and ranks: the model's first, then the per-rank details */
	size_t nth = 0, nt = 0;
	for (size_t i = 0; i < m->nprofs; i++)
		nth += m->profs[i]->nthreads;
	for (size_t i = 0; i < m->nrank_profs; i++)
		nth += m->rank_profs[i]->nthreads;
	m->threads = calloc(nth ? nth : 1, sizeof *m->threads);
	pv->th = calloc(nth ? nth : 1, sizeof *pv->th);
	m->ranks = calloc(m->nprofs + m->nrank_profs, sizeof *m->ranks);
	if (!m->threads || !pv->th || !m->ranks)
		abort();
	for (size_t i = 0; i < m->nprofs + m->nrank_profs; i++) {
		int detail = i >= m->nprofs;
		struct hp_prof *p = detail ? m->rank_profs[i - m->nprofs] : m->profs[i];
		rc = load_file(m, pv, p, detail, &nt, measured, err, errlen);
		if (rc < 0) {
			model__free(m);
			return rc;
		}
		if (!detail)
			m->nthreadinfo = nt;
	}
	pv->nth = nt;
	m->rank_threads = m->threads + m->nthreadinfo;
	m->nrank_threads = nt - m->nthreadinfo;
	/* a merged file's threads (rank -1) stand for its ranks in --ranks only
	 * when no per-rank file of them was found */
	for (size_t t = 0; t < nt; t++)
		if (pv->th[t].merged && m->nrank_profs == 0)
			pv->th[t].part = 1;

	/* measured mode: the cost of each node from its measurement samples */
	if (measured) {
		for (size_t t = 0; t < nt; t++) {
			struct mthread *mt = &pv->th[t];
			if (!mt->full)
				continue;
			/* walk the full probe tree and the thread tree together */
			struct hp_tnode *stack_t[4096];
			const struct pnode *stack_q[4096];
			int sp_ = 0;
			stack_t[sp_] = m->threads[t].root;
			stack_q[sp_++] = mt->full;
			double cps = (double)m->period * mt->spp;
			while (sp_ > 0) {
				struct hp_tnode *tn = stack_t[--sp_];
				const struct pnode *q = stack_q[sp_];
				for (const struct pnode *c = q->child; c; c = c->sibling) {
					struct hp_tnode *cn = mb__child(pv->b, tn, c->fn, 0);
					cn->cost += (double)c->meas_samples * cps;
					if (sp_ < 4096) {
						stack_t[sp_] = cn;
						stack_q[sp_++] = c;
					}
				}
			}
		}
	}

	/* statistics of the join */
	for (size_t t = 0; t < m->nthreadinfo; t++) {
		struct mthread *mt = &pv->th[t];
		if (!mt->pf || !mt->use)
			continue;
		struct pnode *stk[4096];
		int k = 0;
		stk[k++] = mt->pf;
		while (k > 0) {
			struct pnode *q = stk[--k];
			if (q->fn) {
				pv->probe_paths++;
				if (q->nmapped > 1)
					pv->shared++;
			}
			for (struct pnode *c = q->child; c; c = c->sibling)
				if (k < 4096)
					stk[k++] = c;
		}
	}

	/* threads, counting those the runtime merged into one record */
	m->nthreads = 0;
	for (size_t t = 0; t < m->nthreadinfo; t++) /* a merged file's: every rank's */
		m->nthreads += m->threads[t].merged > pv->th[t].nranks ? m->threads[t].merged : pv->th[t].nranks;
	m->funcs = mb__funcs(pv->b, &m->nfuncs);
	m->root = model__tree(m, -1, -1);
	m->total = m->root->total;
	m->nflat = model__flat(m, -1, -1, &m->flat);

	/* how samples and counts were joined */
	char note[2048];
	m->timed = measured && pv->any_probes;
	if (m->timed) {
		snprintf(note, sizeof note,
			 "measured: the tree is the probe tree (instrumented functions and regions); "
			 "times come from entry/exit timestamps with the calibrated probe cost "
			 "removed (raw values beside them); time in uninstrumented callees is in "
			 "the caller's self time; sampled time per probe path is kept as "
			 "sampled_self; %.3f s were sampled while no probe was active",
			 pv->unprobed_s);
	} else if (pv->any_probes) {
		int k = snprintf(
			note, sizeof note,
			"hybrid: time from samples, calls from probes; a sampled call path shows the "
			"calls of the probe path made of its instrumented functions in order "
			"(recursion folded the same way on both sides); %zu of %zu probe paths were "
			"reached by samples, %zu added as probe-only nodes (time 0); %.1f%% of sampled "
			"time fell on a known probe path",
			pv->probe_paths - pv->probe_only, pv->probe_paths, pv->probe_only,
			pv->sampled_s > 0 ? 100.0 * pv->matched_s / pv->sampled_s : 100.0);
		if (pv->shared && k > 0 && (size_t)k < sizeof note)
			k += snprintf(note + k, sizeof note - k,
				      "; %zu probe paths show under several sampled paths that differ "
				      "only in uninstrumented frames (their calls repeat there; the flat "
				      "profile counts each call once)",
				      pv->shared);
		if (pv->regions_placed && k > 0 && (size_t)k < sizeof note)
			k += snprintf(note + k, sizeof note - k,
				      "; regions are placed in the sampled paths: each probe path inside "
				      "a region takes its share of the sampled time of its function path "
				      "(the samples counted while it was innermost), from the paths that "
				      "can have been inside the region");
		if (pv->overlays && k > 0 && (size_t)k < sizeof note)
			snprintf(note + k, sizeof note - k,
				 "; %zu regions could not be placed (no enclosing instrumented function "
				 "or source position) and are overlays: their time is also in the "
				 "functions beside them",
				 pv->overlays);
	} else if (strcmp(m->mode, "sampled") == 0) {
		snprintf(note, sizeof note, "sampled: no probes; calls unknown");
	} else {
		snprintf(note, sizeof note,
			 "%s: no probe ran (the program was not built with -finstrument-functions "
			 "and used no region): calls unknown",
			 m->mode);
	}
	if (pv->folded) {
		size_t k = strlen(note);
		snprintf(note + k, sizeof note - k,
			 "; hyprof's own frames folded: MPI wrappers show as the MPI call, "
			 "hyprof's own work as one [hyprof] node (--no-fold shows every frame)");
	}
	m->join_note = xstrdup(note);
	return 0;
}

struct mb *model__builder(struct hp_model *m)
{
	return ((struct mpriv *)m->priv)->b;
}

/* Thread i in a selection: rank -1 = the model (every process, ranks merged
 * or not), else the processes of that rank, their own per-rank files
 * included; `exact`: rank -1 means the processes without a rank, and with
 * pid > 0 that process only (they are shown one by one). */
static int selected(const struct hp_model *m, size_t i, int rank, int thread, int exact, int pid)
{
	const struct mpriv *pv = m->priv;
	const struct hp_threadinfo *ti = &m->threads[i];
	const struct mthread *mt = &pv->th[i];
	if (thread >= 0 && ti->index != thread)
		return 0;
	if (rank < 0 && !exact)
		return mt->use;
	return mt->part && ti->rank == rank && (rank >= 0 || pid <= 0 || ti->pid == pid);
}

static struct hp_tnode *tree_of(struct hp_model *m, int rank, int thread, int exact, int pid)
{
	struct mpriv *pv = m->priv;
	struct hp_tnode *root = mb__root(pv->b);
	for (size_t i = 0; i < pv->nth; i++)
		if (selected(m, i, rank, thread, exact, pid))
			mb__merge(pv->b, root, m->threads[i].root);
	/* the root's total is the sum of the merged thread totals */
	return root;
}

struct hp_tnode *model__tree(struct hp_model *m, int rank, int thread)
{
	if (rank < 0 && thread < 0 && m->root)
		return m->root;
	return tree_of(m, rank, thread, 0, 0);
}

struct hp_tnode *model__rank_tree(struct hp_model *m, const struct hp_rankpart *p)
{
	return tree_of(m, p->rank, -1, 1, p->pid);
}

static int cmp_rankpart(const void *a, const void *b)
{
	const struct hp_rankpart *x = a, *y = b;
	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

size_t model__rank_list(struct hp_model *m, struct hp_rankpart **out)
{
	struct mpriv *pv = m->priv;
	struct hp_rankpart *v = calloc(pv->nth ? pv->nth : 1, sizeof *v);
	if (!v)
		abort();
	size_t n = 0;
	for (size_t i = 0; i < pv->nth; i++) {
		if (!pv->th[i].part)
			continue;
		/* one part per rank; per process for the processes without one */
		int r = m->threads[i].rank, pid = m->threads[i].pid;
		size_t k;
		for (k = 0; k < n && !(v[k].rank == r && (r >= 0 || v[k].pid == pid)); k++)
			;
		if (k == n)
			v[n++] = (struct hp_rankpart){r, pid};
	}
	qsort(v, n, sizeof *v, cmp_rankpart);
	*out = v;
	return n;
}

static void pcalls(const struct pnode *q, int64_t *calls)
{
	for (const struct pnode *c = q->child; c; c = c->sibling) {
		int64_t *v = &calls[c->fn->id];
		/* an excluded node (--filter) counted nothing: unknown, not 0 */
		if (!(c->flags & CCT_F_EXCLUDED))
			*v = (*v < 0 ? 0 : *v) + (int64_t)c->calls;
		pcalls(c, calls);
	}
}

/* The calls of the flat profile rows[0..n) from the probe trees of the
 * threads selected (thread `only` >= 0 alone): exact, each call once. */
static void flat_calls(struct hp_model *m, struct hp_fstat *rows, size_t n, long only, int rank,
		       int thread, int exact, int pid)
{
	struct mpriv *pv = m->priv;
	size_t nf;
	mb__funcs(pv->b, &nf);
	int64_t *calls = malloc((nf + 1) * sizeof *calls);
	if (!calls)
		abort();
	for (size_t i = 0; i < nf; i++)
		calls[i] = -1;
	for (size_t i = 0; i < pv->nth; i++)
		if (pv->th[i].full &&
		    (only >= 0 ? i == (size_t)only : selected(m, i, rank, thread, exact, pid)))
			pcalls(pv->th[i].full, calls);
	for (size_t i = 0; i < n; i++)
		rows[i].calls = calls[rows[i].fn->id];
	free(calls);
}

static size_t flat_of(struct hp_model *m, int rank, int thread, int exact, int pid, struct hp_fstat **out)
{
	struct mpriv *pv = m->priv;
	struct hp_tnode *root = rank < 0 && thread < 0 && !exact && m->root ? m->root
						: tree_of(m, rank, thread, exact, pid);
	size_t n = mb__flat(pv->b, root, out);
	if (pv->any_probes)
		flat_calls(m, *out, n, -1, rank, thread, exact, pid);
	return n;
}

size_t model__flat(struct hp_model *m, int rank, int thread, struct hp_fstat **out)
{
	return flat_of(m, rank, thread, 0, 0, out);
}

size_t model__rank_flat(struct hp_model *m, const struct hp_rankpart *p, struct hp_fstat **out)
{
	return flat_of(m, p->rank, -1, 1, p->pid, out);
}

size_t model__thread_flat(struct hp_model *m, size_t i, struct hp_fstat **out)
{
	struct mpriv *pv = m->priv;
	size_t n = mb__flat(pv->b, m->threads[i].root, out);
	if (pv->th[i].full)
		flat_calls(m, *out, n, (long)i, -1, -1, 0, 0);
	return n;
}

int model__walk(struct hp_tnode *root, hp_tnode_visit fn, void *arg)
{
	/* iterative pre-order walk with depth */
	struct item {
		struct hp_tnode *n;
		int depth;
	};
	size_t cap = 1024, k = 0;
	struct item *st = malloc(cap * sizeof *st);
	if (!st)
		return -ENOMEM;
	st[k++] = (struct item){root, 0};
	int rc = 0;
	while (k > 0) {
		struct item it = st[--k];
		rc = fn(it.n, it.depth, arg);
		if (rc < 0)
			break;
		if (rc > 0) { /* skip children */
			rc = 0;
			continue;
		}
		/* push children in reverse so they are visited in order */
		uint32_t nc = 0;
		for (struct hp_tnode *c = it.n->child; c; c = c->sibling)
			nc++;
		if (k + nc > cap) {
			cap = (k + nc) * 2;
			struct item *ns = realloc(st, cap * sizeof *st);
			if (!ns) {
				free(st);
				return -ENOMEM;
			}
			st = ns;
		}
		size_t at = k + nc;
		for (struct hp_tnode *c = it.n->child; c; c = c->sibling)
			st[--at] = (struct item){c, it.depth + 1};
		k += nc;
	}
	free(st);
	return rc;
}

void model__free(struct hp_model *m)
{
	struct mpriv *pv = m->priv;
	for (size_t i = 0; i < m->nprofs; i++)
		hp_prof_free(m->profs[i]);
	free(m->profs);
	for (size_t i = 0; i < m->nrank_profs; i++)
		hp_prof_free(m->rank_profs[i]);
	free(m->rank_profs);
	for (size_t i = 0; i < m->cost.n; i++) {
		free((char *)m->cost.v[i].key);
		free((char *)m->cost.v[i].s);
	}
	free(m->cost.v);
	free(m->flat);
	free(m->threads);
	free(m->ranks);
	free(m->dir);
	free(m->program);
	free(m->progs);
	free(m->mode);
	free(m->source);
	free(m->source_why);
	free(m->unit);
	free(m->join_note);
	if (pv) {
		mb__free(pv->b);
		symtab__free(pv->st);
		free(pv->th);
		free(pv);
	}
	memset(m, 0, sizeof *m);
}
