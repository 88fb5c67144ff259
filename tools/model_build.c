/* tools/model_build.c - the pure parts of the model (see model_build.h):
 * function-level trees with recursion folding, the projection join of
 * samples and probe counts, region overlays, merging and the flat profile.
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
	uint32_t nmore, capmore;
	int overlay;          /* region overlay: not part of the parent's total */
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
	if (b->nf == b->capf) {
		b->capf = b->capf ? b->capf * 2 : 256;
		b->fv = realloc(b->fv, b->capf * sizeof *b->fv);
		if (!b->fv)
			abort();
	}
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
	for (uint32_t i = 0; i < m->nmore; i++)
		if (m->more[i] == p)
			return;
	if (!m->p) {
		m->p = p;
		if (b->nlinked == b->caplinked) {
			b->caplinked = b->caplinked ? b->caplinked * 2 : 1024;
			b->linked = realloc(b->linked, b->caplinked * sizeof *b->linked);
			if (!b->linked)
				abort();
		}
		b->linked[b->nlinked++] = m;
	} else {
		if (m->nmore == m->capmore) {
			m->capmore = m->capmore ? m->capmore * 2 : 2;
			m->more = realloc(m->more, m->capmore * sizeof *m->more);
			if (!m->more)
				abort();
		}
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

static void calls_add(struct hp_tnode *t, const struct pnode *p)
{
	if (t->calls < 0)
		t->calls = 0;
	t->calls += (int64_t)p->calls;
	t->clamped += p->clamped;
	t->skipped += p->skipped;
	if (p->flags & CCT_F_PARTIAL)
		t->flags |= HP_T_PARTIAL;
	if (p->flags & CCT_F_EXCLUDED)
		t->flags |= HP_T_EXCLUDED;
	if (p->flags & CCT_F_FOLDED)
		t->flags |= HP_T_FOLDED;
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
			calls_add(n, c);
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
		calls_add(&m->t, m->p);
		if (!m->p->t || m->t.total > m->p->t->total)
			m->p->t = &m->t;
		for (uint32_t k = 0; k < m->nmore; k++) {
			calls_add(&m->t, m->more[k]);
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

static int regions_rec(struct mb *b, struct hp_tnode *root, struct pnode *q,
		       struct hp_tnode *region_parent, double spp)
{
	int n = 0;
	for (struct pnode *c = q->child; c; c = c->sibling) {
		struct hp_tnode *rp = region_parent;
		if (c->fn && c->fn->is_region) {
			struct hp_tnode *at = region_parent;
			if (!at)
				at = (c->pf && c->pf->fn && c->pf->t) ? c->pf->t : root;
			struct hp_tnode *t = tfind(b, at, c->fn);
			if (!t) {
				t = mb__child(b, at, c->fn, 0);
				n++;
			}
			((struct mnode *)t)->overlay = 1;
			calls_add(t, c);
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
			rp = t;
		} else {
			rp = NULL; /* a function call inside a region leaves the overlay */
		}
		n += regions_rec(b, root, c, rp, spp);
	}
	return n;
}

int mb__regions(struct mb *b, struct hp_tnode *root, struct pnode *full, double spp)
{
	return regions_rec(b, root, full, NULL, spp);
}

static void padd(struct pnode *d, const struct pnode *s)
{
	d->calls += s->calls;
	d->incl += s->incl;
	d->excl += s->excl;
	d->incl_comp += s->incl_comp;
	d->excl_comp += s->excl_comp;
	d->samples += s->samples;
	d->period += s->period;
	d->meas_samples += s->meas_samples;
	d->clamped += s->clamped;
	d->skipped += s->skipped;
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
	d->samples += s->samples;
	d->self += s->self;
	d->total += s->total;
	d->self_raw += s->self_raw;
	d->total_raw += s->total_raw;
	d->sampled_self += s->sampled_self;
	d->sampled_total += s->sampled_total;
	if (s->calls >= 0)
		d->calls = (d->calls < 0 ? 0 : d->calls) + s->calls;
	d->clamped += s->clamped;
	d->skipped += s->skipped;
	d->cost += s->cost;
	d->flags |= s->flags;
	/* probe-only means no thread sampled it: not once another one did */
	if (d->samples > 0 || d->sampled_total > 0)
		d->flags &= ~(uint32_t)HP_T_PROBE_ONLY;
	if (!d->pc)
		d->pc = s->pc;
	if (!d->line)
		d->line = s->line;
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
