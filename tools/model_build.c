/* tools/model_build.c - the pure parts of the model (see model_build.h):
 * function-level trees with recursion folding, the projection join of
 * samples and probe counts, regions, the folding of hyprof's own frames,
 * merging and the flat profile.
 * No files, no symbols: tests drive it with tables of paths.
 */
#include "tools/model_build.h"

#include <stdlib.h>
#include <string.h>

#include "core/cct.h"
#include "tools/util.h"

/* A tree node as the builder allocates it: the public node plus the probe
 * nodes that project on it. */
struct mnode {
	struct hp_tnode t;
	struct pnode *p;      /* first probe node linked */
	struct pnode **more;  /* further distinct probe nodes */
	size_t nmore, capmore;
	int overlay;          /* region overlay: not part of the parent's total */
	struct pnode *proj;   /* projection after this frame (mb__step), first path */
	int proj_multi;       /* reached with another projection too (folding) */
	int touched;          /* time or calls moved away by mb__regions */
};

#define ARENA_CHUNK (1u << 20)
struct chunk {
	struct chunk *next;
	size_t used, cap;
	char mem[];
};

struct mb {
	struct chunk *arena;
	struct u64map tchild;   /* (parent, fn) -> child tnode */
	struct u64map pchild;   /* (parent, fn) -> child pnode */
	struct u64map instr;    /* fn -> (void *)1 when a probe node exists */
	struct u64map funcs;    /* hash(name, module, file) -> chain of funcs */
	struct hp_func **fv;
	size_t nf, capf;
	struct strpool *pool;
	struct mnode **linked;  /* nodes with a probe link, for mb__join */
	size_t nlinked, caplinked;
	size_t joined;          /* linked[0..joined) belong to trees joined already */
};

static void *arena_alloc(struct mb *b, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct chunk *c = b->arena;
	if (!c || c->used + n > c->cap) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = malloc(sizeof *c + cap);
		if (!c)
			abort();
		c->cap = cap;
		c->used = 0;
		c->next = b->arena;
		b->arena = c;
	}
	void *p = c->mem + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

struct mb *mb__new(void)
{
	struct mb *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	u64map__init(&b->tchild);
	u64map__init(&b->pchild);
	u64map__init(&b->instr);
	u64map__init(&b->funcs);
	b->pool = strpool__new();
	return b;
}

void mb__free(struct mb *b)
{
	if (!b)
		return;
	/* mnode->more arrays are malloc'ed: their nodes are listed in linked */
	for (size_t i = 0; i < b->nlinked; i++)
		free(b->linked[i]->more);
	for (struct chunk *c = b->arena, *nx; c; c = nx) {
		nx = c->next;
		free(c);
	}
	free(b->linked);
	for (size_t i = 0; i < b->nf; i++)
		free(b->fv[i]);
	free(b->fv);
	u64map__free(&b->tchild);
	u64map__free(&b->pchild);
	u64map__free(&b->instr);
	u64map__free(&b->funcs);
	strpool__free(b->pool);
	free(b);
}

struct hp_func *mb__func(struct mb *b, const char *name, const char *module, const char *file,
			 int line, int is_region, int is_measurement)
{
	name = strpool__get(b->pool, name ? name : "[unknown]");
	module = strpool__get(b->pool, module ? module : "[unknown]");
	file = strpool__get(b->pool, file);
	uint64_t key = u64_mix(u64_mix((uintptr_t)name, (uintptr_t)module),
			       (uintptr_t)file + (uint64_t)is_region);
	/* The map holds the first func of a chain; chains are rare (hash
	 * collisions), linked through a scan of fv from that index. */
	struct hp_func *f = u64map__get(&b->funcs, key);
	if (f) {
		for (size_t i = f->id; i < b->nf; i++) {
			struct hp_func *g = b->fv[i];
			if (g->name == name && g->module == module && g->file == file &&
			    g->is_region == is_region)
				return g;
		}
	}
	f = calloc(1, sizeof *f);
	if (!f)
		abort();
	f->name = (char *)name;
	f->module = (char *)module;
	f->file = (char *)file;
	f->line = line;
	f->is_region = is_region;
	f->is_measurement = is_measurement;
	b->fv = tool_grow(b->fv, b->nf, &b->capf, sizeof *b->fv);
	f->id = (uint32_t)b->nf;
	b->fv[b->nf++] = f;
	if (!u64map__get(&b->funcs, key))
		u64map__put(&b->funcs, key, f);
	return f;
}

struct hp_func **mb__funcs(struct mb *b, size_t *n)
{
	*n = b->nf;
	return b->fv;
}

static struct mnode *mnode_new(struct mb *b, struct hp_tnode *parent, struct hp_func *fn)
{
	struct mnode *m = arena_alloc(b, sizeof *m);
	m->t.fn = fn;
	m->t.calls = -1;
	m->t.parent = parent;
	if (parent) {
		/* append, keeping first-seen order (stable output) */
		struct hp_tnode **pp = &parent->child;
		while (*pp)
			pp = &(*pp)->sibling;
		*pp = &m->t;
		parent->nchildren++;
	}
	return m;
}

struct hp_tnode *mb__root(struct mb *b)
{
	return &mnode_new(b, NULL, NULL)->t;
}

static struct hp_tnode *tfind(struct mb *b, struct hp_tnode *parent, const struct hp_func *fn)
{
	return u64map__get(&b->tchild, u64_mix((uintptr_t)parent, (uintptr_t)fn));
}

struct hp_tnode *mb__child(struct mb *b, struct hp_tnode *parent, struct hp_func *fn, int fold)
{
	/* "[unknown]" stands for any function without a symbol: two of them on
	 * one path are not a recursion, so they never fold */
	if (fold && strcmp(fn->name, "[unknown]") != 0) {
		struct hp_tnode *hit = NULL;
		for (struct hp_tnode *q = parent; q && q->fn; q = q->parent)
			if (q->fn == fn)
				hit = q; /* keep going: the outermost occurrence wins */
		if (hit) {
			hit->flags |= HP_T_FOLDED;
			return hit;
		}
	}
	struct hp_tnode *c = tfind(b, parent, fn);
	if (c)
		return c;
	/* appending walks the sibling list: keep a fast path for wide nodes by
	 * inserting at the head when the node already has many children */
	struct mnode *m;
	if (parent->nchildren > 64) {
		m = arena_alloc(b, sizeof *m);
		m->t.fn = fn;
		m->t.calls = -1;
		m->t.parent = parent;
		m->t.sibling = parent->child;
		parent->child = &m->t;
		parent->nchildren++;
	} else {
		m = mnode_new(b, parent, fn);
	}
	u64map__put(&b->tchild, u64_mix((uintptr_t)parent, (uintptr_t)fn), &m->t);
	return &m->t;
}

struct pnode *mb__proot(struct mb *b)
{
	return arena_alloc(b, sizeof(struct pnode));
}

struct pnode *mb__pchild(struct mb *b, struct pnode *parent, struct hp_func *fn)
{
	uint64_t key = u64_mix((uintptr_t)parent, (uintptr_t)fn);
	struct pnode *c = u64map__get(&b->pchild, key);
	if (c)
		return c;
	c = arena_alloc(b, sizeof *c);
	c->fn = fn;
	c->parent = parent;
	struct pnode **pp = &parent->child;
	while (*pp)
		pp = &(*pp)->sibling;
	*pp = c;
	u64map__put(&b->pchild, key, c);
	u64map__put(&b->instr, (uintptr_t)fn, (void *)1);
	return c;
}

int mb__instrumented(struct mb *b, const struct hp_func *fn)
{
	return u64map__get(&b->instr, (uintptr_t)fn) != NULL;
}

static void link_probe(struct mb *b, struct hp_tnode *t, struct pnode *p)
{
	struct mnode *m = (struct mnode *)t;
	if (m->p == p)
		return;
	for (size_t i = 0; i < m->nmore; i++)
		if (m->more[i] == p)
			return;
	if (!m->p) {
		m->p = p;
		b->linked = tool_grow(b->linked, b->nlinked, &b->caplinked, sizeof *b->linked);
		b->linked[b->nlinked++] = m;
	} else {
		m->more = tool_grow(m->more, m->nmore, &m->capmore, sizeof *m->more);
		m->more[m->nmore++] = p;
	}
	p->matched = 1;
	p->nmapped++;
}

struct mb_pos mb__step(struct mb *b, struct mb_pos pos, struct hp_func *fn, uint32_t tflags)
{
	struct mb_pos r;
	r.t = mb__child(b, pos.t, fn, 1);
	r.t->flags |= tflags;
	r.p = pos.p;
	struct mnode *mn = (struct mnode *)r.t;
	if (pos.p && mb__instrumented(b, fn)) {
		/* the probes' rule: a function already on the probe path continues
		 * at its outermost node; otherwise its child */
		struct pnode *hit = NULL;
		for (struct pnode *q = pos.p; q && q->fn; q = q->parent)
			if (q->fn == fn)
				hit = q;
		if (!hit)
			hit = u64map__get(&b->pchild, u64_mix((uintptr_t)pos.p, (uintptr_t)fn));
		r.p = hit;
		if (hit)
			link_probe(b, r.t, hit);
	}
	if (r.p) {
		if (!mn->proj)
			mn->proj = r.p;
		else if (mn->proj != r.p)
			mn->proj_multi = 1;
	}
	return r;
}

int mb__is_overlay(const struct hp_tnode *n)
{
	return ((const struct mnode *)n)->overlay;
}

static void totals_rec(struct hp_tnode *n)
{
	if (((struct mnode *)n)->overlay) {
		for (struct hp_tnode *c = n->child; c; c = c->sibling)
			totals_rec(c);
		return;
	}
	double t = n->self, tr = n->self_raw, ts = n->sampled_self;
	for (struct hp_tnode *c = n->child; c; c = c->sibling) {
		totals_rec(c);
		if (((struct mnode *)c)->overlay)
			continue;
		t += c->total;
		tr += c->total_raw;
		ts += c->sampled_total;
	}
	n->total = t;
	n->total_raw = tr;
	n->sampled_total = ts;
}

void mb__totals(struct hp_tnode *root)
{
	totals_rec(root);
}

void mb__calls_add(struct hp_tnode *t, const struct pnode *p)
{
	/* A function filtered out at run time (--filter) has a node marked
	 * excluded whose probes counted nothing: its calls are unknown
	 * (null, '-'), not 0. */
	if (p->flags & CCT_F_EXCLUDED) {
		t->flags |= mb__tflags(p->flags & ~(uint32_t)CCT_F_TRUNCATED);
		return;
	}
	if (t->calls < 0)
		t->calls = 0;
	t->calls += (int64_t)p->calls;
	t->clamped += p->clamped;
	t->skipped += p->skipped;
	t->flags |= mb__tflags(p->flags & ~(uint32_t)CCT_F_TRUNCATED);
}
static int attach_unmatched(struct mb *b, struct hp_tnode *root, struct pnode *q)
{
	int added = 0;
	for (struct pnode *c = q->child; c; c = c->sibling) {
		if (!c->t) {
			struct hp_tnode *at = q->fn ? q->t : root;
			if (!at)
				at = root;
			struct hp_tnode *n = tfind(b, at, c->fn);
			if (!n) {
				n = mb__child(b, at, c->fn, 0);
				n->flags |= HP_T_PROBE_ONLY;
				added++;
			}
			mb__calls_add(n, c);
			c->t = n;
		}
		added += attach_unmatched(b, root, c);
	}
	return added;
}

int mb__join(struct mb *b, struct hp_tnode *root, struct pnode *proot)
{
	mb__totals(root);
	/* calls of every linked node of this tree; each probe node shows on the
	 * linked node with the most time */
	for (size_t i = b->joined; i < b->nlinked; i++) {
		struct mnode *m = b->linked[i];
		mb__calls_add(&m->t, m->p);
		if (!m->p->t || m->t.total > m->p->t->total)
			m->p->t = &m->t;
		for (size_t k = 0; k < m->nmore; k++) {
			mb__calls_add(&m->t, m->more[k]);
			if (!m->more[k]->t || m->t.total > m->more[k]->t->total)
				m->more[k]->t = &m->t;
		}
	}
	b->joined = b->nlinked;
	return attach_unmatched(b, root, proot);
}

static uint64_t psub_period(const struct pnode *q)
{
	uint64_t s = q->period;
	for (const struct pnode *c = q->child; c; c = c->sibling)
		s += psub_period(c);
	return s;
}

/* ---- regions in a sampled tree (mb__regions) ----------------------------
 *
 * Samples never name a region, but in hybrid mode every sample is also
 * counted on the probe node that was innermost when it was taken (the full
 * probe tree, regions included).  A sampled node whose path projects on the
 * function-only probe node g was therefore taken at one of the full nodes
 * that splice into g: outside any region, or inside one (x, whose path has
 * regions).  Each such x takes its share period(x) / period(every full node
 * of g) of the sampled time of g, from the sampled nodes that can have been
 * inside its regions, and that time moves to a copy of their path with x's
 * regions inserted: a function sampled inside a region shows under it.
 *
 * Where a region goes in a sampled path: between the frames of the
 * instrumented functions that enclose it on x's path; among those frames,
 * under the one whose function contains the region's BEGIN (same source
 * file, the latest definition line not after the BEGIN line), else right
 * under the enclosing instrumented function.  A frame called from a line
 * before that BEGIN line was not inside the region.  Without any of these
 * (no instrumented function, no source position) the region cannot be
 * placed and stays an overlay as before.  Calls are exact: each full node
 * inside a region gives its calls to the node that shows it, and the node
 * of its function-only path keeps the calls made outside regions. */

#define RG_MAXPATH 256

struct rgleaf {
	struct mnode *n;
	struct pnode *proj;
	double self, self_raw, sampled_self, samples; /* before any move */
	double give;                                  /* seconds asked by contexts */
};

struct rgmove {
	struct pnode *x;
	size_t leaf;
	double w;
};

struct rgctx {                     /* the full probe path of one node x */
	struct pnode *el[RG_MAXPATH];  /* elements root-first (root excluded) */
	int after[RG_MAXPATH];         /* regions: function elements before it */
	struct pnode *fn[RG_MAXPATH];  /* function elements */
	int d, m;
};

struct rgpath {                    /* a sampled path and where x's regions go */
	struct hp_tnode *f[RG_MAXPATH + 1]; /* f[0] = root */
	int n;
	int a[RG_MAXPATH + 1];         /* a[j]: frame of function element j (1-based) */
	int k[RG_MAXPATH + 1];         /* k[j]: region group j goes under frame k[j] */
};

static int rg_ctx(struct rgctx *c, struct pnode *x)
{
	struct pnode *st[RG_MAXPATH];
	int n = 0;
	for (struct pnode *q = x; q && q->fn; q = q->parent) {
		if (n == RG_MAXPATH)
			return -1;
		st[n++] = q;
	}
	c->d = c->m = 0;
	int any = 0;
	while (n-- > 0) {
		struct pnode *q = st[n];
		c->el[c->d] = q;
		c->after[c->d] = c->m;
		c->d++;
		if (q->fn->is_region)
			any = 1;
		else
			c->fn[c->m++] = q;
	}
	return any ? 0 : -1;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static int same_file(const char *a, const char *b)
{
	if (!a || !b || !*a || !*b)
		return 0;
	return a == b || strcmp(a, b) == 0 || strcmp(base_name(a), base_name(b)) == 0;
}

/* Frames of leaf L, the frames of x's functions and the region groups'
 * places; 0, or -1 when L cannot have been inside x's regions. */
static int rg_place(const struct rgctx *c, struct hp_tnode *leaf, struct rgpath *p)
{
	struct hp_tnode *st[RG_MAXPATH];
	int n = 0;
	for (struct hp_tnode *t = leaf; t && t->fn; t = t->parent) {
		if (n == RG_MAXPATH)
			return -1;
		st[n++] = t;
	}
	p->n = n;
	p->f[0] = leaf;
	while (p->f[0]->parent)
		p->f[0] = p->f[0]->parent;
	for (int i = 1; i <= n; i++)
		p->f[i] = st[n - i];
	/* the frames where the projection reaches each function element */
	p->a[0] = 0;
	for (int j = 1, i = 1; j <= c->m; j++) {
		struct pnode *want = c->fn[j - 1]->pf;
		while (i <= n && ((struct mnode *)p->f[i])->proj != want)
			i++;
		if (i > n)
			return -1;
		p->a[j] = i++;
	}
	for (int j = 0; j <= c->m; j++) {
		const struct hp_func *r = NULL;
		for (int e = 0; e < c->d && !r; e++)
			if (c->el[e]->fn->is_region && c->after[e] == j)
				r = c->el[e]->fn;
		p->k[j] = -1;
		if (!r)
			continue;
		int lo = p->a[j], hi = j < c->m ? p->a[j + 1] - 1 : n, best = -1;
		for (int i = lo > 1 ? lo : 1; i <= hi; i++) {
			const struct hp_func *g = p->f[i]->fn;
			if (r->line > 0 && g->line > 0 && g->line <= r->line && same_file(g->file, r->file) &&
			    (best < 0 || g->line >= p->f[best]->fn->line))
				best = i;
		}
		if (best >= 0) {
			/* called from before the BEGIN: not inside */
			if (best < n && p->f[best + 1]->line > 0 && p->f[best + 1]->line < r->line)
				return -1;
			p->k[j] = best;
		} else if (lo > 0) {
			p->k[j] = lo;
		} else if (j < c->m) {
			p->k[j] = hi;
		} else {
			return -1;
		}
	}
	return 0;
}

static void rg_touch(struct hp_tnode *t)
{
	for (; t; t = t->parent)
		((struct mnode *)t)->touched = 1;
}

/* q's calls shown on t (once per full node); a copy takes them from the
 * node of the same function-only path. */
static void rg_calls(struct pnode *q, struct hp_tnode *t, struct hp_tnode *orig)
{
	if (q->t)
		return;
	q->t = t;
	if (t == orig)
		return;
	mb__calls_add(t, q);
	if (orig && orig->calls > 0) {
		orig->calls -= (int64_t)q->calls;
		if (orig->calls < 0)
			orig->calls = 0;
		rg_touch(orig);
		if (q->pf && q->pf->t == orig)
			q->pf->t = t;
	}
}

static struct hp_tnode *rg_copy_child(struct mb *b, struct hp_tnode *at, const struct hp_tnode *like)
{
	struct hp_tnode *n = mb__child(b, at, like->fn, 0);
	if (n != like) {
		n->flags |= like->flags & (HP_T_INLINED | HP_T_FOLDED | HP_T_TRUNCATED);
		if (!n->pc)
			n->pc = like->pc;
		if (!n->line)
			n->line = like->line;
	}
	return n;
}

/* Move `frac` of leaf L's sampled time to the copy of its path with x's
 * regions inserted. */
static void rg_apply(struct mb *b, const struct rgctx *c, const struct rgpath *p,
		     const struct rgleaf *L, double frac)
{
	struct hp_tnode *cur = p->f[0];
	int j = 0; /* function elements passed */
	for (int i = 0; i <= p->n; i++) {
		if (i > 0) {
			cur = rg_copy_child(b, cur, p->f[i]);
			if (j < c->m && p->a[j + 1] == i) {
				rg_calls(c->fn[j], cur, p->f[i]);
				j++;
			}
		}
		if (p->k[j] == i) {
			for (int e = 0; e < c->d; e++) {
				if (!c->el[e]->fn->is_region || c->after[e] != j)
					continue;
				cur = mb__child(b, cur, c->el[e]->fn, 0);
				rg_calls(c->el[e], cur, NULL);
			}
		}
	}
	struct hp_tnode *src = &L->n->t;
	double self = L->self * frac, raw = L->self_raw * frac, ss = L->sampled_self * frac;
	cur->self += self;
	cur->self_raw += raw;
	cur->sampled_self += ss;
	cur->samples += L->samples * frac;
	cur->flags |= src->flags & HP_T_TRUNCATED;
	src->self -= self;
	src->self_raw -= raw;
	src->sampled_self -= ss;
	src->samples -= L->samples * frac;
	if (src->self < 1e-15 && src->self > -1e-15)
		src->self = src->self_raw = src->sampled_self = src->samples = 0;
	rg_touch(src);
}

static void rg_leaves(struct hp_tnode *t, struct rgleaf **v, size_t *n, size_t *cap)
{
	struct mnode *m = (struct mnode *)t;
	if (t->fn && t->self > 0 && m->proj && !m->proj_multi && !m->overlay) {
		*v = tool_grow(*v, *n, cap, sizeof **v);
		(*v)[(*n)++] = (struct rgleaf){m, m->proj, t->self, t->self_raw, t->sampled_self,
					       t->samples, 0};
	}
	for (struct hp_tnode *c = t->child; c; c = c->sibling)
		rg_leaves(c, v, n, cap);
}

static int cmp_leaf(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct rgleaf *)a)->proj;
	uintptr_t y = (uintptr_t)((const struct rgleaf *)b)->proj;
	return (x > y) - (x < y);
}

/* Full nodes in preorder, and the period of each function-only group. */
static void rg_full(struct pnode *q, struct pnode ***v, size_t *n, size_t *cap)
{
	for (struct pnode *c = q->child; c; c = c->sibling) {
		*v = tool_grow(*v, *n, cap, sizeof **v);
		(*v)[(*n)++] = c;
		rg_full(c, v, n, cap);
	}
}

/* The old overlay, for regions that could not be placed: calls exact, time
 * its probe subtree's sampled time, not in the parent's total. */
static int rg_overlay(struct mb *b, struct hp_tnode *root, struct pnode *c, double spp)
{
	struct hp_tnode *at = NULL;
	struct pnode *par = c->parent;
	if (par && par->fn && par->fn->is_region)
		at = par->t;
	else if (par && par->fn)
		at = par->t ? par->t : par->pf ? par->pf->t : NULL;
	if (!at)
		at = (c->pf && c->pf->fn && c->pf->t) ? c->pf->t : root;
	struct hp_tnode *t = tfind(b, at, c->fn);
	int made = !t;
	if (!t)
		t = mb__child(b, at, c->fn, 0);
	((struct mnode *)t)->overlay = 1;
	t->flags |= HP_T_OVERLAY;
	mb__calls_add(t, c);
	double self = (double)c->period * spp;
	double tot = (double)psub_period(c) * spp;
	t->self += self;
	t->self_raw += self;
	t->sampled_self += self;
	t->total += tot;
	t->total_raw += tot;
	t->sampled_total += tot;
	t->samples += (double)c->samples;
	c->t = t;
	return made;
}

/* Drop the nodes a move emptied: no time, no calls, no children. */
static void rg_prune(struct mb *b, struct hp_tnode *t)
{
	struct hp_tnode **pp = &t->child;
	while (*pp) {
		struct hp_tnode *c = *pp;
		rg_prune(b, c);
		struct mnode *m = (struct mnode *)c;
		if (m->touched && !m->overlay && !c->child && c->calls <= 0 && c->self == 0 &&
		    c->total == 0 && c->samples == 0 && c->cost == 0) {
			*pp = c->sibling;
			t->nchildren--;
			u64map__put(&b->tchild, u64_mix((uintptr_t)t, (uintptr_t)c->fn), NULL);
			continue;
		}
		pp = &c->sibling;
	}
}

int mb__regions(struct mb *b, struct hp_tnode *root, struct pnode *full, double spp, int *placed)
{
	int overlays = 0;
	if (placed)
		*placed = 0;
	struct pnode **fv = NULL;
	size_t nf = 0, capf = 0;
	rg_full(full, &fv, &nf, &capf);
	/* each function-only group's sampled amount, over the full nodes */
	if (full->pf)
		full->pf->grp_period = 0;
	for (size_t i = 0; i < nf; i++)
		if (fv[i]->pf)
			fv[i]->pf->grp_period = 0;
	if (full->pf)
		full->pf->grp_period += full->period;
	for (size_t i = 0; i < nf; i++)
		if (fv[i]->pf)
			fv[i]->pf->grp_period += fv[i]->period;

	struct rgleaf *lv = NULL;
	size_t nl = 0, capl = 0;
	rg_leaves(root, &lv, &nl, &capl);
	if (nl > 1) /* lv is NULL when there is none */
		qsort(lv, nl, sizeof *lv, cmp_leaf);

	struct rgctx *c = malloc(sizeof *c);
	struct rgpath *p = malloc(sizeof *p);
	if (!c || !p)
		abort();
	struct rgmove *mv = NULL;
	size_t nm = 0, capm = 0;
	for (size_t i = 0; i < nf; i++) {
		struct pnode *x = fv[i];
		struct pnode *g = x->pf;
		if (!x->period || !g || !g->grp_period || rg_ctx(c, x) < 0)
			continue;
		/* the sampled nodes of group g */
		size_t lo = 0, hi = nl;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if ((uintptr_t)lv[mid].proj < (uintptr_t)g)
				lo = mid + 1;
			else
				hi = mid;
		}
		double sg = 0, cand = 0;
		size_t first = lo, end = lo;
		for (; end < nl && lv[end].proj == g; end++) {
			sg += lv[end].self;
			if (rg_place(c, &lv[end].n->t, p) == 0)
				cand += lv[end].self;
		}
		if (cand <= 0)
			continue;
		double want = sg * (double)x->period / (double)g->grp_period;
		for (size_t l = first; l < end; l++) {
			if (rg_place(c, &lv[l].n->t, p) < 0)
				continue;
			double w = want * lv[l].self / cand;
			mv = tool_grow(mv, nm, &capm, sizeof *mv);
			mv[nm++] = (struct rgmove){x, l, w};
			lv[l].give += w;
		}
	}
	/* a node gives at most its own time */
	for (size_t i = 0; i < nm; i++) {
		struct rgleaf *L = &lv[mv[i].leaf];
		double w = L->give > L->self ? mv[i].w * L->self / L->give : mv[i].w;
		if (rg_ctx(c, mv[i].x) < 0 || rg_place(c, &L->n->t, p) < 0 || L->self <= 0)
			continue;
		rg_apply(b, c, p, L, w / L->self);
	}
	/* probe paths inside regions that no sampled node showed */
	for (size_t i = 0; i < nf; i++) {
		struct pnode *q = fv[i];
		if (q->t)
			continue;
		int in_region = 0;
		for (struct pnode *a = q; a && a->fn && !in_region; a = a->parent)
			in_region = a->fn->is_region;
		if (!in_region)
			continue;
		if (q->fn->is_region) {
			overlays += rg_overlay(b, root, q, spp);
			continue;
		}
		struct hp_tnode *at = q->parent ? q->parent->t : NULL;
		if (!at || ((struct mnode *)at)->overlay)
			continue; /* no calls under an overlay, as before */
		struct hp_tnode *t = tfind(b, at, q->fn);
		if (!t) {
			t = mb__child(b, at, q->fn, 0);
			t->flags |= HP_T_PROBE_ONLY;
		}
		rg_calls(q, t, q->pf ? q->pf->t : NULL);
	}
	for (size_t i = 0; i < nf; i++)
		if (fv[i]->fn->is_region && fv[i]->t && !((struct mnode *)fv[i]->t)->overlay && placed)
			(*placed)++;
	mb__totals(root);
	rg_prune(b, root);
	free(mv);
	free(lv);
	free(fv);
	free(c);
	free(p);
	return overlays;
}

static void padd(struct pnode *d, const struct pnode *s)
{
	MB_PNODE_ADD(d, s);
	d->flags |= s->flags;
}

static void splice_rec(struct mb *b, struct pnode *q, struct pnode *fparent)
{
	for (struct pnode *c = q->child; c; c = c->sibling) {
		struct pnode *fp = fparent;
		if (c->fn && !c->fn->is_region) {
			fp = mb__pchild(b, fparent, c->fn);
			padd(fp, c);
			c->pf = fp;
		} else {
			c->pf = fparent;
		}
		splice_rec(b, c, fp);
	}
}

struct pnode *mb__splice_regions(struct mb *b, struct pnode *full)
{
	struct pnode *r = mb__proot(b);
	full->pf = r;
	splice_rec(b, full, r);
	return r;
}

static void merge_rec(struct mb *b, struct hp_tnode *d, const struct hp_tnode *s)
{
	hp_tnode_add(d, s);
	/* probe-only means no thread sampled it: not once another one did */
	if (d->samples > 0 || d->sampled_total > 0)
		d->flags &= ~(uint32_t)HP_T_PROBE_ONLY;
	if (((const struct mnode *)s)->overlay)
		((struct mnode *)d)->overlay = 1;
	for (const struct hp_tnode *c = s->child; c; c = c->sibling) {
		struct hp_tnode *dc = mb__child(b, d, c->fn, 0);
		merge_rec(b, dc, c);
	}
}

void mb__merge(struct mb *b, struct hp_tnode *dst, const struct hp_tnode *src)
{
	merge_rec(b, dst, src);
}

struct flatctx {
	struct hp_fstat *rows;
	uint32_t *onpath;
	size_t nf;
};

static void flat_rec(struct flatctx *fc, const struct hp_tnode *n)
{
	uint32_t id = 0;
	if (n->fn) {
		id = n->fn->id;
		struct hp_fstat *r = &fc->rows[id];
		r->fn = n->fn;
		r->self += n->self;
		r->self_raw += n->self_raw;
		r->sampled_self += n->sampled_self;
		r->cost += n->cost;
		if (fc->onpath[id] == 0) {
			r->total += n->total;
			r->total_raw += n->total_raw;
		}
		if (n->calls >= 0)
			r->calls = (r->calls < 0 ? 0 : r->calls) + n->calls;
		fc->onpath[id]++;
	}
	for (const struct hp_tnode *c = n->child; c; c = c->sibling)
		flat_rec(fc, c);
	if (n->fn)
		fc->onpath[id]--;
}

static int cmp_flat(const void *a, const void *b)
{
	const struct hp_fstat *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->fn->name, y->fn->name);
}

size_t mb__flat(struct mb *b, const struct hp_tnode *root, struct hp_fstat **out)
{
	struct flatctx fc = {calloc(b->nf + 1, sizeof(struct hp_fstat)),
			     calloc(b->nf + 1, sizeof(uint32_t)), b->nf};
	if (!fc.rows || !fc.onpath)
		abort();
	for (size_t i = 0; i < b->nf; i++)
		fc.rows[i].calls = -1;
	flat_rec(&fc, root);
	size_t k = 0;
	for (size_t i = 0; i < b->nf; i++)
		if (fc.rows[i].fn)
			fc.rows[k++] = fc.rows[i];
	qsort(fc.rows, k, sizeof *fc.rows, cmp_flat);
	free(fc.onpath);
	*out = fc.rows;
	return k;
}

const char *mb__path(const struct hp_tnode *n, char *buf, size_t len)
{
	const struct hp_tnode *st[1024];
	int k = 0;
	for (; n && n->fn && k < 1024; n = n->parent)
		st[k++] = n;
	size_t o = 0;
	buf[0] = 0;
	while (k-- > 0 && o < len) {
		int w = snprintf(buf + o, len - o, "%s%s", o ? ";" : "", st[k]->fn->name);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	return buf;
}

/* ---- folding hyprof's own frames (mb__fold_hyprof) ----------------------
 *
 * A run is a maximal sequence of nodes of hyprof's own code (fn
 * is_measurement) on a path.  Its MPI call E comes from its frames: the
 * exported entry point (MPI_Xxx, a Fortran alias mpi_xxx_ or MPI_XXX, the
 * Fortran shim hp_f_Xxx), the inlined envelope hpw_MPI_Xxx, or, as the first
 * frame of the run, hp_w_xxx (MPI_Init, MPI_Init_thread and MPI_Finalize
 * tail-call it: their entry frame is not on the stack). */

static char fold_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Equal but for ASCII case (MPI names: MPI_Send, MPI_SEND). */
static int fold_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (fold_lower(*a) != fold_lower(*b))
			return 0;
	return *a == *b;
}

/* "MPI_" + X with the MPI spelling (first letter upper, the rest lower). */
static const char *fold_mpi_name(char *buf, size_t len, const char *x, size_t xlen)
{
	if (xlen == 0 || xlen + 5 > len)
		return NULL;
	memcpy(buf, "MPI_", 4);
	for (size_t i = 0; i < xlen; i++) {
		char c = x[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return NULL;
		buf[4 + i] = (char)(i == 0 ? (c >= 'a' && c <= 'z' ? c - 32 : c)
					   : (c >= 'A' && c <= 'Z' ? c + 32 : c));
	}
	buf[4 + xlen] = 0;
	return buf;
}

/* The MPI call a hyprof frame stands for, or NULL. */
static const char *fold_entry(const char *name, int first, char *buf, size_t len)
{
	size_t n = strlen(name);
	if (strncmp(name, "hpw_MPI_", 8) == 0)
		return fold_mpi_name(buf, len, name + 8, n - 8);
	if (strncmp(name, "hp_f_", 5) == 0)
		return fold_mpi_name(buf, len, name + 5, n - 5);
	if (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "mpi_", 4) == 0) {
		/* the C entry point as it is spelled (MPI_T_init_thread) */
		if (name[0] == 'M' && name[4] >= 'A' && name[4] <= 'Z' && n < len &&
		    strpbrk(name + 5, "abcdefghijklmnopqrstuvwxyz") && !strpbrk(name, " (<:")) {
			memcpy(buf, name, n + 1);
			return buf;
		}
		const char *x = name + 4;
		size_t xl = n - 4;
		/* Fortran spellings: mpi_send_, mpi_send__, mpi_send_f08_ */
		if (xl > 5 && strcmp(x + xl - 5, "_f08_") == 0)
			xl -= 5;
		while (xl > 0 && x[xl - 1] == '_')
			xl--;
		return fold_mpi_name(buf, len, x, xl);
	}
	if (first && strncmp(name, "hp_w_", 5) == 0)
		return fold_mpi_name(buf, len, name + 5, n - 5);
	return NULL;
}

/* The library's own function of call E: PMPI_Xxx, or MPI_Xxx when the
 * symbolizer chose the other name of that address. */
static int fold_is_pmpi(const char *name, const char *e)
{
	return (name[0] == 'P' && fold_name_eq(name + 1, e)) || fold_name_eq(name, e);
}

struct foldctx {
	struct mb *b;
	size_t folded;           /* hyprof frames that disappeared */
};

struct foldrun {
	struct hp_tnode *at;     /* where the run's nodes go in the new tree */
	struct hp_func *call;    /* the MPI call node's function, or NULL */
	const struct hp_tnode *first; /* the run's outermost frame */
	int depth;               /* frames of the run so far */
};

/* Everything of s but the totals (recomputed) into d; an overlay keeps its
 * totals, which are not the sum of its children. */
static void fold_add(struct hp_tnode *d, const struct hp_tnode *s)
{
	struct hp_tnode x = *s;
	if (!((const struct mnode *)s)->overlay)
		x.total = x.total_raw = x.sampled_total = 0;
	else
		((struct mnode *)d)->overlay = 1;
	hp_tnode_add(d, &x);
}

static void fold_copy(struct foldctx *fc, const struct hp_tnode *s, struct hp_tnode *d);

/* The node of the run's MPI call (the run's place when it has none); it is
 * called from where the run's first frame was. */
static struct hp_tnode *fold_call_node(struct foldctx *fc, const struct foldrun *r)
{
	if (!r->call)
		return r->at;
	struct hp_tnode *n = mb__child(fc->b, r->at, r->call, 0);
	if (!n->line)
		n->line = r->first->line;
	return n;
}

static void fold_run(struct foldctx *fc, const struct hp_tnode *h, struct foldrun r)
{
	char buf[256];
	if (!r.call) {
		const char *e = fold_entry(h->fn->name, r.depth == 0, buf, sizeof buf);
		if (e)
			r.call = mb__func(fc->b, e, "[mpi]", NULL, 0, 0, 0);
	}
	r.depth++;
	/* time spent in this frame itself: hyprof's cost, one node under the call */
	int own = h->self != 0 || h->samples != 0 || h->cost != 0 || h->calls >= 0 ||
		  h->sampled_self != 0 || ((const struct mnode *)h)->overlay;
	if (own)
		fold_add(mb__child(fc->b, fold_call_node(fc, &r), h->fn, 0), h);
	int through = 0; /* children not folded into the call: this frame shows */
	for (const struct hp_tnode *c = h->child; c; c = c->sibling) {
		if (c->fn->is_measurement) {
			fold_run(fc, c, r);
			continue;
		}
		struct hp_tnode *d;
		if (r.call && fold_is_pmpi(c->fn->name, r.call->name)) {
			/* the wrapper passes the user's call on: the library's
			 * function is the call's node */
			d = fold_call_node(fc, &r);
		} else {
			/* hyprof's own work calling out (the merge at
			 * finalize, set-up): kept under this frame */
			struct hp_tnode *hn = mb__child(fc->b, fold_call_node(fc, &r), h->fn, 0);
			hn->flags |= h->flags & HP_T_INLINED;
			if (!hn->pc)
				hn->pc = h->pc;
			if (!hn->line)
				hn->line = h->line;
			through = 1;
			d = mb__child(fc->b, hn, c->fn, 0);
		}
		fold_add(d, c);
		fold_copy(fc, c, d);
	}
	if (!own && !through)
		fc->folded++;
}

static void fold_copy(struct foldctx *fc, const struct hp_tnode *s, struct hp_tnode *d)
{
	for (const struct hp_tnode *c = s->child; c; c = c->sibling) {
		if (c->fn->is_measurement) {
			fold_run(fc, c, (struct foldrun){d, NULL, c, 0});
			continue;
		}
		struct hp_tnode *n = mb__child(fc->b, d, c->fn, 0);
		fold_add(n, c);
		fold_copy(fc, c, n);
	}
}

static int fold_any(const struct hp_tnode *n)
{
	if (n->fn && n->fn->is_measurement)
		return 1;
	for (const struct hp_tnode *c = n->child; c; c = c->sibling)
		if (fold_any(c))
			return 1;
	return 0;
}

struct hp_tnode *mb__fold_hyprof(struct mb *b, struct hp_tnode *root, size_t *folded)
{
	if (folded)
		*folded = 0;
	if (!fold_any(root))
		return root;
	struct foldctx fc = {b, 0};
	struct hp_tnode *r = mb__root(b);
	fold_add(r, root);
	fold_copy(&fc, root, r);
	mb__totals(r);
	if (folded)
		*folded = fc.folded;
	return r;
}
