/* core/cct.c - calling context tree in memory mapped up front.
 *
 * Signal-safe: cct__child(), cct__insert_path(), cct__reset(), cct__find(),
 * cct__depth() (no malloc, no locks, no stdio).  They run in the sample
 * handler and on every probe entry.
 *
 * Layout: nodes live in one array; node 0 is the root; a node's children are
 * a singly linked list (first_child, next_sibling).  A child is always
 * appended after its parent, so parent < index for every node but the root;
 * the reader (core/format.c) and cct__merge() rely on that.
 *
 * Another thread may read a tree while its owner inserts (the profile is
 * written at exit while other threads run, and from a fatal signal that may
 * interrupt an insert).  Stores that link a node are ordered so that a
 * reader interrupting them sees a new or moved node *missing* from its list
 * (its parent pointer stays right), never a dangling index: a new node is
 * complete before t->n counts it, and counted before its parent links it.
 * The writer skips links >= the n it read; the reader rebuilds lists from
 * the parent pointers when they do not check out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cct.h"

_Static_assert(sizeof(struct cct_node) == 128, "struct cct_node is part of the file format");

/* Self-organizing sibling lists: a child found at position CCT_SWAP_POS or
 * deeper swaps places with its predecessor when it was used more often
 * (calls + samples, the counts the probe and the sampler keep), so the list
 * tends to frequency order.  bench/core/bench_cct compares it with no
 * reordering: plain transposition and move-to-front both lose on loops that
 * call their callees in turn (1.4x and 5x slower at 32 children: the key
 * looked up was always moved away), while the frequency test never swaps
 * there (counts differ by at most one) and still wins 3-6x on skewed
 * patterns.  The first positions are left alone: scanning them costs less
 * than the three stores of a swap. */
#ifndef CCT_SWAP_POS
#define CCT_SWAP_POS 3
#endif
_Static_assert(CCT_SWAP_POS >= 1, "position 0 has no predecessor");

static inline uint64_t node_weight(const struct cct_node *c)
{
	return c->calls + c->samples;
}

#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static inline void node_init(struct cct_node *c, uint64_t key, uint32_t parent)
{
	*c = (struct cct_node){
		.key = key,
		.parent = parent,
		.first_child = CCT_NONE,
		.next_sibling = CCT_NONE,
		.target = CCT_NONE,
	};
}

int cct__init(struct cct *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	if (cap == 0 || cap == CCT_NONE)
		return -EINVAL;
	size_t bytes = (size_t)cap * sizeof(struct cct_node);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->nodes = p;
	t->cap = cap;
	t->bytes = bytes;
	node_init(&t->nodes[CCT_ROOT], 0, CCT_NONE);
	t->n = 1;
	return 0;
}

void cct__destroy(struct cct *t)
{
	if (t->nodes)
		munmap(t->nodes, t->bytes);
	memset(t, 0, sizeof(*t));
}

void cct__reset(struct cct *t)
{
	if (!t->nodes)
		return;
	STORE_REL(&t->n, 1u);
	node_init(&t->nodes[CCT_ROOT], 0, CCT_NONE);
	t->full = 0;
}

/* Append a new child of `parent` with `key` at the front of its list,
 * without looking for an existing one. */
static inline uint32_t cct_append(struct cct *t, uint32_t parent, uint64_t key)
{
	uint32_t i = t->n;
	if (__builtin_expect(i >= t->cap, 0)) {
		t->full++;
		return CCT_NONE;
	}
	struct cct_node *p = &t->nodes[parent];
	struct cct_node *c = &t->nodes[i];
	node_init(c, key, parent);
	c->next_sibling = p->first_child;
	STORE_REL(&t->n, i + 1);         /* complete before counted */
	STORE_REL(&p->first_child, i);   /* counted before linked */
	return i;
}

uint32_t cct__child(struct cct *t, uint32_t parent, uint64_t key)
{
	if (__builtin_expect(parent >= t->n, 0))
		return CCT_NONE; /* parent is CCT_NONE (a refused insert) or bad */
	struct cct_node *nodes = t->nodes;
	uint32_t pprev = CCT_NONE, prev = CCT_NONE;
	uint32_t i = nodes[parent].first_child;
	unsigned pos = 0;
	while (i != CCT_NONE) {
		struct cct_node *c = &nodes[i];
		if (c->key == key) {
			if (pos >= CCT_SWAP_POS && node_weight(c) > node_weight(&nodes[prev])) {
				/* pprev -> prev -> c -> next  becomes
				 * pprev -> c -> prev -> next.  Unlink c first:
				 * a reader in between sees c missing, never a
				 * cycle. */
				STORE_REL(&nodes[prev].next_sibling, c->next_sibling);
				STORE_REL(&c->next_sibling, prev);
				STORE_REL(pprev == CCT_NONE ? &nodes[parent].first_child
							    : &nodes[pprev].next_sibling,
					  i);
			}
			return i;
		}
		pprev = prev;
		prev = i;
		i = c->next_sibling;
		pos++;
	}
	return cct_append(t, parent, key);
}

uint32_t cct__find(const struct cct *t, uint32_t parent, uint64_t key)
{
	if (parent >= t->n)
		return CCT_NONE;
	uint32_t i = t->nodes[parent].first_child;
	uint32_t steps = 0;
	while (i != CCT_NONE && i < t->n && steps++ < t->n) {
		if (t->nodes[i].key == key)
			return i;
		i = t->nodes[i].next_sibling;
	}
	return CCT_NONE;
}

uint32_t cct__insert_path(struct cct *t, const uint64_t *keys, int n)
{
	if (t->n == 0)
		return CCT_NONE;
	uint32_t cur = CCT_ROOT;
	for (int k = 0; k < n; k++) {
		uint32_t c = cct__child(t, cur, keys[k]);
		if (c == CCT_NONE) {
			t->nodes[cur].flags |= CCT_F_TRUNCATED;
			return cur;
		}
		cur = c;
	}
	return cur;
}

int cct__depth(const struct cct *t, uint32_t i)
{
	if (i >= t->n)
		return -1;
	int d = 0;
	while (t->nodes[i].parent != CCT_NONE) {
		i = t->nodes[i].parent;
		if (i >= t->n || (uint32_t)d >= t->n)
			return -1; /* broken parent chain */
		d++;
	}
	return d;
}

/* ---- merge ------------------------------------------------------------ */

/* Open-addressing table (dst parent, key) -> dst node, so a merge is linear
 * in the sizes of both trees even when a node has thousands of children
 * (sample trees keyed by PC are wide). */
struct mtab {
	uint32_t *slot; /* dst index, CCT_NONE = empty */
	size_t mask;
};

static inline size_t mhash(uint32_t parent, uint64_t key)
{
	uint64_t h = (key ^ ((uint64_t)parent << 32 | parent)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static uint32_t mtab_find(const struct mtab *m, const struct cct *t, uint32_t parent,
			  uint64_t key)
{
	for (size_t h = mhash(parent, key) & m->mask;; h = (h + 1) & m->mask) {
		uint32_t i = m->slot[h];
		if (i == CCT_NONE)
			return CCT_NONE;
		if (t->nodes[i].parent == parent && t->nodes[i].key == key)
			return i;
	}
}

static void mtab_put(struct mtab *m, const struct cct *t, uint32_t i)
{
	size_t h = mhash(t->nodes[i].parent, t->nodes[i].key) & m->mask;
	while (m->slot[h] != CCT_NONE)
		h = (h + 1) & m->mask;
	m->slot[h] = i;
}

static void add_metrics(struct cct_node *d, const struct cct_node *s)
{
	d->samples += s->samples;
	d->period += s->period;
	d->calls += s->calls;
	d->incl += s->incl;
	d->excl += s->excl;
	d->incl_comp += s->incl_comp;
	d->excl_comp += s->excl_comp;
	d->probes_inside += s->probes_inside;
	d->clamped += s->clamped;
	d->skipped += s->skipped;
	d->meas_samples += s->meas_samples;
}

int cct__merge(struct cct *dst, const struct cct *src)
{
	uint32_t sn = src->n; /* snapshot: dst may be src */
	if (sn == 0)
		return 0;
	if (dst->n == 0 || !src->nodes)
		return -EINVAL;
	if (src->nodes[CCT_ROOT].parent != CCT_NONE)
		return -EINVAL;
	for (uint32_t i = 1; i < sn; i++)
		if (src->nodes[i].parent >= i)
			return -EINVAL;

	/* map[i]: the dst node that takes src node i's metrics; cut[i]: it is
	 * an ancestor standing in for a node dst had no room for. */
	uint32_t *map = malloc((size_t)sn * sizeof(*map));
	uint8_t *cut = calloc(sn, 1);
	size_t want = 2 * ((size_t)dst->n + sn), cap = 16;
	while (cap < want)
		cap <<= 1;
	struct mtab m = {.slot = malloc(cap * sizeof(uint32_t)), .mask = cap - 1};
	if (!map || !cut || !m.slot) {
		free(map);
		free(cut);
		free(m.slot);
		return -ENOMEM;
	}
	memset(m.slot, 0xff, cap * sizeof(uint32_t));
	for (uint32_t i = 1; i < dst->n; i++)
		if (dst->nodes[i].parent < i)
			mtab_put(&m, dst, i);

	int rc = 0;
	map[CCT_ROOT] = CCT_ROOT;
	{
		struct cct_node root = src->nodes[CCT_ROOT];
		add_metrics(&dst->nodes[CCT_ROOT], &root);
		dst->nodes[CCT_ROOT].flags |= root.flags & ~(uint32_t)CCT_F_REDIRECT;
	}
	for (uint32_t i = 1; i < sn; i++) {
		struct cct_node s = src->nodes[i]; /* copy: dst may alias src */
		uint32_t dp = map[s.parent];
		uint32_t d;
		if (cut[s.parent]) {
			d = dp;
			cut[i] = 1;
		} else {
			d = mtab_find(&m, dst, dp, s.key);
			if (d == CCT_NONE) {
				d = cct_append(dst, dp, s.key);
				if (d == CCT_NONE) {
					d = dp;
					cut[i] = 1;
					dst->nodes[dp].flags |= CCT_F_TRUNCATED;
					rc = -ENOSPC;
				} else {
					mtab_put(&m, dst, d);
				}
			}
		}
		map[i] = d;
		add_metrics(&dst->nodes[d], &s);
		if (!cut[i])
			dst->nodes[d].flags |= s.flags & ~(uint32_t)CCT_F_REDIRECT;
	}

	/* Fold links: a REDIRECT node's target is a src index; point it at the
	 * dst node of the same key path.  A dst node that already redirects
	 * keeps its own (valid) target. */
	for (uint32_t i = 1; i < sn; i++) {
		const struct cct_node *s = &src->nodes[i];
		if (!(s->flags & CCT_F_REDIRECT) || cut[i])
			continue;
		struct cct_node *d = &dst->nodes[map[i]];
		if ((d->flags & CCT_F_REDIRECT) && d->target < dst->n && d != s)
			continue;
		if (s->target < sn && !cut[s->target]) {
			d->target = map[s->target];
			d->flags |= CCT_F_REDIRECT;
		} else if (d != s) {
			/* target lost (dst full or bad index): keep the node
			 * as an ordinary one rather than a dangling link */
			d->flags &= ~(uint32_t)CCT_F_REDIRECT;
			d->target = CCT_NONE;
		}
	}
	if (dst != src)
		dst->full += src->full;
	free(map);
	free(cut);
	free(m.slot);
	return rc;
}
