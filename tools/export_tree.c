/* tools/export_tree.c - what the exports share: tree selection and merging,
 * a non-recursive walk with the call path, values, escaping, output files.
 *
 * Thread-safe: yes (no global state).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/export.h"

void export__opts_init(struct export_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = -1;
	o->thread = -1;
	o->min_width = EXPORT_SVG_MIN_WIDTH;
	o->width = EXPORT_SVG_WIDTH;
}

/* ---- hash map ---------------------------------------------------------- */

#define MAP_EMPTY (~(uint64_t)0)

uint64_t export__hash(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a over the bytes, then a 64-bit finalizer (splitmix64). */
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull ^ seed;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

int export__map_init(struct export_map *h, size_t hint)
{
	size_t cap = 64;
	while (cap < hint * 2)
		cap <<= 1;
	h->keys = malloc(cap * sizeof(*h->keys));
	h->vals = malloc(cap * sizeof(*h->vals));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		h->keys = h->vals = NULL;
		return -ENOMEM;
	}
	memset(h->keys, 0xff, cap * sizeof(*h->keys));
	h->cap = cap;
	h->n = 0;
	return 0;
}

void export__map_free(struct export_map *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

static int map_grow(struct export_map *h)
{
	struct export_map g;
	if (export__map_init(&g, h->cap) < 0) /* cap*2 slots */
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		if (h->keys[i] == MAP_EMPTY)
			continue;
		size_t j = mix64(h->keys[i]) & (g.cap - 1);
		while (g.keys[j] != MAP_EMPTY)
			j = (j + 1) & (g.cap - 1);
		g.keys[j] = h->keys[i];
		g.vals[j] = h->vals[i];
		g.n++;
	}
	export__map_free(h);
	*h = g;
	return 0;
}

uint64_t *export__map_get(struct export_map *h, uint64_t key, int *isnew)
{
	if ((h->n + 1) * 2 > h->cap && map_grow(h) < 0)
		return NULL;
	size_t j = mix64(key) & (h->cap - 1);
	while (h->keys[j] != MAP_EMPTY) {
		if (h->keys[j] == key) {
			if (isnew)
				*isnew = 0;
			return &h->vals[j];
		}
		j = (j + 1) & (h->cap - 1);
	}
	h->keys[j] = key;
	h->vals[j] = 0;
	h->n++;
	if (isnew)
		*isnew = 1;
	return &h->vals[j];
}

/* ---- node pool --------------------------------------------------------- */

struct export_pool {
	struct export_pool *next;
	size_t used, cap;
	struct hp_tnode nodes[];
};

static struct hp_tnode *pool_node(struct export_pool **pp)
{
	struct export_pool *p = *pp;
	if (!p || p->used == p->cap) {
		size_t cap = p ? p->cap * 2 : 1024;
		if (cap > 65536)
			cap = 65536;
		struct export_pool *q = malloc(sizeof(*q) + cap * sizeof(struct hp_tnode));
		if (!q)
			return NULL;
		q->next = p;
		q->used = 0;
		q->cap = cap;
		*pp = p = q;
	}
	struct hp_tnode *n = &p->nodes[p->used++];
	memset(n, 0, sizeof(*n));
	n->calls = -1;
	return n;
}

void export__tree_free(struct export_tree *t)
{
	struct export_pool *p = t->pool;
	while (p) {
		struct export_pool *q = p->next;
		free(p);
		p = q;
	}
	memset(t, 0, sizeof(*t));
}

/* ---- walk --------------------------------------------------------------- */

int export__walk(struct hp_tnode *root, export_visit pre, export_visit post, void *arg)
{
	size_t cap = 128;
	struct hp_tnode **path = malloc(cap * sizeof(*path));
	int depth = 0, rc = 0;
	struct hp_tnode *n = root ? root->child : NULL;

	if (!path)
		return -ENOMEM;
	while (n) {
		if ((size_t)depth + 1 >= cap) {
			struct hp_tnode **np = realloc(path, cap * 2 * sizeof(*path));
			if (!np) {
				rc = -ENOMEM;
				break;
			}
			path = np;
			cap *= 2;
		}
		path[depth++] = n;
		int r = pre ? pre(n, path, depth, arg) : 0;
		if (r < 0) {
			rc = r;
			break;
		}
		if (r == 0 && n->child) {
			n = n->child;
			continue;
		}
		for (;;) {
			if (post && (r = post(n, path, depth, arg)) < 0) {
				rc = r;
				goto out;
			}
			depth--;
			if (n->sibling) {
				n = n->sibling;
				break;
			}
			if (depth == 0) {
				n = NULL;
				break;
			}
			n = path[depth - 1];
		}
	}
out:
	free(path);
	return rc;
}

/* ---- merge by function path ---------------------------------------------- */

struct merge_ctx {
	struct export_tree *t;
	struct export_map map;
	struct hp_tnode **dst; /* dst node per depth (dst[0] = merged root) */
	size_t dcap;
};

static uint64_t child_key(const struct hp_tnode *parent, const struct hp_func *fn,
			  uint32_t flags)
{
	uintptr_t k[3] = {(uintptr_t)parent, (uintptr_t)fn, flags & HP_T_INLINED};
	uint64_t h = export__hash(k, sizeof(k), 7);
	return h == MAP_EMPTY ? 0 : h;
}

static struct hp_tnode *merge_child(struct merge_ctx *c, struct hp_tnode *parent,
				    const struct hp_tnode *s)
{
	int isnew;
	uint64_t *slot = export__map_get(&c->map, child_key(parent, s->fn, s->flags), &isnew);
	if (!slot)
		return NULL;
	if (!isnew) {
		struct hp_tnode *d = (struct hp_tnode *)(uintptr_t)*slot;
		if (d->parent == parent && d->fn == s->fn &&
		    (d->flags & HP_T_INLINED) == (s->flags & HP_T_INLINED))
			return d;
		/* 64-bit hash collision: look among the children. */
		for (d = parent->child; d; d = d->sibling)
			if (d->fn == s->fn && (d->flags & HP_T_INLINED) == (s->flags & HP_T_INLINED))
				return d;
	}
	struct hp_tnode *d = pool_node(&c->t->pool);
	if (!d)
		return NULL;
	d->fn = s->fn;
	d->parent = parent;
	d->sibling = parent->child;
	parent->child = d;
	parent->nchildren++;
	if (isnew)
		*slot = (uint64_t)(uintptr_t)d;
	return d;
}

static int merge_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct merge_ctx *c = arg;
	(void)path;
	if ((size_t)depth + 1 >= c->dcap) {
		size_t ncap = c->dcap * 2;
		struct hp_tnode **nd = realloc(c->dst, ncap * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		c->dst = nd;
		c->dcap = ncap;
	}
	struct hp_tnode *d = merge_child(c, c->dst[depth - 1], n);
	if (!d)
		return -ENOMEM;
	hp_tnode_add(d, n);
	c->dst[depth] = d;
	return 0;
}

int export__merge(struct hp_tnode **roots, size_t n, struct export_tree *t)
{
	struct merge_ctx c = {.t = t};
	int rc = 0;

	memset(t, 0, sizeof(*t));
	c.dcap = 128;
	c.dst = malloc(c.dcap * sizeof(*c.dst));
	if (!c.dst || export__map_init(&c.map, 1024) < 0) {
		free(c.dst);
		return -ENOMEM;
	}
	t->root = pool_node(&t->pool);
	if (!t->root) {
		rc = -ENOMEM;
		goto out;
	}
	c.dst[0] = t->root;
	for (size_t i = 0; i < n; i++) {
		if (!roots[i])
			continue;
		hp_tnode_add(t->root, roots[i]);
		rc = export__walk(roots[i], merge_pre, NULL, &c);
		if (rc < 0)
			goto out;
	}
	t->root->fn = NULL;
	t->nmatched = (int)n;
out:
	export__map_free(&c.map);
	free(c.dst);
	if (rc < 0)
		export__tree_free(t);
	return rc;
}

int export__thread_node(const struct hp_model *m, const struct hp_threadinfo *ti)
{
	if (ti->rank >= 0)
		return ti->rank;
	/* Without MPI: the index of the thread's process, in order of appearance. */
	int idx = 0;
	for (size_t i = 0; i < m->nthreadinfo; i++) {
		const struct hp_threadinfo *o = &m->threads[i];
		if (o == ti || o->pid == ti->pid)
			break;
		size_t k;
		for (k = 0; k < i; k++)
			if (m->threads[k].pid == o->pid)
				break;
		if (k == i)
			idx++;
	}
	return idx;
}

struct hp_threadinfo **export__threads(const struct hp_model *m, size_t *n)
{
	struct hp_threadinfo **v = calloc(m->nthreadinfo + m->nrank_threads + 1, sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->nthreadinfo; i++)
		if (!(m->threads[i].all_ranks && m->nrank_threads))
			v[(*n)++] = &m->threads[i];
	for (size_t i = 0; i < m->nrank_threads; i++)
		v[(*n)++] = &m->rank_threads[i];
	return v;
}

int export__select(struct hp_model *m, int rank, int thread, struct export_tree *t,
		   char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (rank < 0 && thread < 0) {
		t->root = m->root;
		t->nmatched = (int)m->nthreadinfo;
		if (!t->root) {
			snprintf(err, errlen, "the profile has no call tree");
			return -ENOENT;
		}
		return 0;
	}
	size_t nth;
	struct hp_threadinfo **th = export__threads(m, &nth);
	struct hp_tnode **roots = calloc(nth + 1, sizeof(*roots));
	size_t n = 0;
	int maxnode = -1, maxthread = -1;
	if (!roots || !th) {
		free(roots);
		free(th);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nth; i++) {
		struct hp_threadinfo *ti = th[i];
		int node = export__thread_node(m, ti);
		if (node > maxnode)
			maxnode = node;
		if (ti->index > maxthread)
			maxthread = ti->index;
		if ((rank < 0 || node == rank) && (thread < 0 || ti->index == thread) && ti->root)
			roots[n++] = ti->root;
	}
	int rc = 0;
	if (n == 0) {
		snprintf(err, errlen,
			 "no thread matches --rank %d --thread %d: ranks (or processes) are 0..%d, "
			 "threads 0..%d",
			 rank, thread, maxnode, maxthread);
		rc = -ENOENT;
	} else if (n == 1) {
		t->root = roots[0];
		t->nmatched = 1;
	} else {
		rc = export__merge(roots, n, t);
		if (rc < 0)
			snprintf(err, errlen, "out of memory merging %zu threads", n);
	}
	free(roots);
	free(th);
	return rc;
}

/* ---- values ------------------------------------------------------------- */

double export__self(const struct hp_tnode *n, enum export_value v)
{
	switch (v) {
	case EXPORT_V_SAMPLES:
		return n->samples;
	case EXPORT_V_CALLS:
		return n->calls > 0 ? (double)n->calls : 0.0;
	default:
		return n->self;
	}
}

double export__total(const struct hp_tnode *n, enum export_value v)
{
	switch (v) {
	case EXPORT_V_TIME:
	case EXPORT_V_DEFAULT:
		return n->total;
	default:
		break;
	}
	/* samples and calls have no stored total: sum the subtree. */
	double sum = export__self(n, v);
	for (struct hp_tnode *c = n->child; c; c = c->sibling)
		sum += export__total(c, v);
	return sum;
}

static int has_calls_pre(struct hp_tnode *n, struct hp_tnode **p, int d, void *arg)
{
	(void)p;
	(void)d;
	(void)arg;
	return n->calls >= 0 ? -1 : 0;
}

int export__has_calls(struct hp_tnode *root)
{
	return export__walk(root, has_calls_pre, NULL, NULL) == -1;
}

int export__measured(const struct hp_model *m)
{
	return m->timed; /* measured mode without probes has sampled times */
}

const char *export__name(const struct hp_tnode *n)
{
	if (!n->fn)
		return "[root]";
	return n->fn->name && n->fn->name[0] ? n->fn->name : "[unknown]";
}

/* ---- escaping ----------------------------------------------------------- */

void export__json_str(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	if (!s) {
		fputs("null", out);
		return;
	}
	putc_unlocked('"', out);
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (; *p; p++) {
		unsigned char ch = *p;
		const char *esc = NULL;
		char buf[8];
		if (ch == '"')
			esc = "\\\"";
		else if (ch == '\\')
			esc = "\\\\";
		else if (ch == '\n')
			esc = "\\n";
		else if (ch == '\t')
			esc = "\\t";
		else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') {
			buf[0] = '\\';
			buf[1] = 'u';
			buf[2] = '0';
			buf[3] = '0';
			buf[4] = hex[ch >> 4];
			buf[5] = hex[ch & 15];
			buf[6] = 0;
			esc = buf;
		} else if (ch == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			fwrite(run, 1, (size_t)(p - run), out);
			fputs(p[2] == 0xa8 ? "\\u2028" : "\\u2029", out);
			p += 2;
			run = p + 1;
			continue;
		}
		if (esc) {
			fwrite(run, 1, (size_t)(p - run), out);
			fputs(esc, out);
			run = p + 1;
		}
	}
	fwrite(run, 1, (size_t)(p - run), out);
	putc_unlocked('"', out);
}

void export__put_u64(FILE *out, uint64_t v)
{
	char buf[24];
	int i = sizeof(buf);
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + i, 1, sizeof(buf) - (size_t)i, out);
}

void export__json_num(FILE *out, double v, int digits)
{
	if (!isfinite(v) || v == 0) {
		putc_unlocked('0', out);
		return;
	}
	if (v == (double)(int64_t)v && fabs(v) < 1e15) {
		if (v < 0)
			putc_unlocked('-', out);
		export__put_u64(out, (uint64_t)fabs(v));
		return;
	}
	fprintf(out, "%.*g", digits, v);
}

void export__xml_str(FILE *out, const char *s)
{
	if (!s)
		return;
	const char *run = s, *p = s;
	for (; *p; p++) {
		const char *esc = NULL;
		switch (*p) {
		case '&': esc = "&amp;"; break;
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		default:
			if ((unsigned char)*p < 0x20 && *p != '\t')
				esc = " "; /* not allowed in XML 1.0 */
		}
		if (esc) {
			fwrite(run, 1, (size_t)(p - run), out);
			fputs(esc, out);
			run = p + 1;
		}
	}
	fwrite(run, 1, (size_t)(p - run), out);
}

/* ---- output files --------------------------------------------------------- */

FILE *export__open(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen)
{
	if (!path || strcmp(path, "-") == 0) {
		tmp[0] = 0;
		return stdout;
	}
	snprintf(tmp, tmplen, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "wb");
	/* the error names the file the user asked for: the temporary name
	 * beside it is ours */
	if (!f)
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
	return f;
}

int export__commit(FILE *f, const char *tmp, const char *path, int rc, char *err,
		   size_t errlen)
{
	if (f == stdout) {
		if (fflush(stdout) != 0 && rc == 0) {
			snprintf(err, errlen, "writing the standard output: %s", strerror(errno));
			rc = -EIO;
		}
		return rc;
	}
	if (rc == 0 && (fflush(f) != 0 || ferror(f))) {
		snprintf(err, errlen, "writing %s: %s", path, strerror(errno ? errno : EIO));
		rc = -EIO;
	}
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "closing %s: %s", path, strerror(errno));
		rc = -EIO;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		rc = -errno;
	}
	if (rc != 0)
		unlink(tmp);
	return rc;
}
