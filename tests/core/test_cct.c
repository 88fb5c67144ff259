/* tests/core/test_cct.c - calling context tree: insert, find, sibling
 * reordering, full trees and truncation, reset, merge (metrics, flags,
 * redirects). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cct.h"
#include "treewalk.h"

#define NMETRICS 11

/* Every metric of a node, in a fixed order, to compare and sum them. */
static void metrics_of(const struct cct_node *n, uint64_t m[NMETRICS])
{
	m[0] = n->samples;
	m[1] = n->period;
	m[2] = n->calls;
	m[3] = n->incl;
	m[4] = n->excl;
	m[5] = n->incl_comp;
	m[6] = n->excl_comp;
	m[7] = n->probes_inside;
	m[8] = n->clamped;
	m[9] = n->skipped;
	m[10] = n->meas_samples;
}

/* Distinct multipliers, so a metric summed into the wrong field shows. */
static void set_metrics(struct cct_node *n, uint64_t v)
{
	n->samples += v;
	n->period += v * 3;
	n->calls += v * 5;
	n->incl += v * 7;
	n->excl += v * 11;
	n->incl_comp += v * 13;
	n->excl_comp += v * 17;
	n->probes_inside += v * 19;
	n->clamped += v * 23;
	n->skipped += v * 29;
	n->meas_samples += v * 31;
}

static uint32_t find_path(const struct cct *t, const uint64_t *keys, int n)
{
	uint32_t cur = CCT_ROOT;
	for (int i = 0; i < n && cur != CCT_NONE; i++)
		cur = cct__find(t, cur, keys[i]);
	return cur;
}

/* ---- insertion, in sequence on one small tree (cap 8) ---------------------- */

struct path_case {
	int line;
	const char *name;
	int nkeys;
	uint64_t keys[8];
	uint32_t n_after;    /* nodes in use after the insert */
	int depth;           /* depth of the node returned */
	uint64_t full_after; /* refused inserts so far */
	int truncated;       /* returned node flagged CCT_F_TRUNCATED */
};

static const struct path_case path_cases[] = {
	{__LINE__, "first path", 3, {1, 2, 3}, 4, 3, 0, 0},
	{__LINE__, "same path again adds nothing", 3, {1, 2, 3}, 4, 3, 0, 0},
	{__LINE__, "shared prefix adds one node", 3, {1, 2, 4}, 5, 3, 0, 0},
	{__LINE__, "empty path is the root", 0, {0}, 5, 0, 0, 0},
	{__LINE__, "second top-level frame", 1, {9}, 6, 1, 0, 0},
	{__LINE__, "key 0 is an ordinary key", 1, {0}, 7, 1, 0, 0},
	{__LINE__, "fills the tree: cut below {1,5}", 4, {1, 5, 6, 7}, 8, 2, 1, 1},
	{__LINE__, "full: an existing path is still found", 3, {1, 2, 4}, 8, 3, 1, 0},
	{__LINE__, "full: a new top-level frame stops at the root", 1, {42}, 8, 0, 2, 1},
	{__LINE__, "full: a longer known path stops at its end", 5, {1, 2, 3, 8, 9}, 8, 3, 3, 1},
};

static void test_paths(void)
{
	struct cct t;
	CHECK(cct__init(&t, 8) == 0, "init");
	CHECK(t.n == 1 && t.cap == 8 && t.nodes[0].parent == CCT_NONE &&
		      t.nodes[0].first_child == CCT_NONE,
	      "fresh tree has only the root");
	for (size_t i = 0; i < sizeof(path_cases) / sizeof(path_cases[0]); i++) {
		const struct path_case *c = &path_cases[i];
		uint32_t leaf = cct__insert_path(&t, c->keys, c->nkeys);
		CASE_CHECK(c, leaf < t.n, "leaf %u n %u", leaf, t.n);
		CASE_CHECK(c, t.n == c->n_after, "n %u, want %u", t.n, c->n_after);
		CASE_CHECK(c, cct__depth(&t, leaf) == c->depth, "depth %d, want %d",
			   cct__depth(&t, leaf), c->depth);
		CASE_CHECK(c, t.full == c->full_after, "full %llu, want %llu",
			   (unsigned long long)t.full, (unsigned long long)c->full_after);
		CASE_CHECK(c, !!(t.nodes[leaf].flags & CCT_F_TRUNCATED) == c->truncated,
			   "flags %#x", t.nodes[leaf].flags);
		if (!c->truncated)
			CASE_CHECK(c, find_path(&t, c->keys, c->nkeys) == leaf, "find %u, leaf %u",
				   find_path(&t, c->keys, c->nkeys), leaf);
		else
			CASE_CHECK(c, find_path(&t, c->keys, c->depth) == leaf,
				   "the cut node is the path's prefix");
		const char *bad = tree_walk_check(t.nodes, t.n);
		CASE_CHECK(c, bad == NULL, "tree: %s", bad);
	}
	/* guards */
	CHECK(cct__child(&t, CCT_NONE, 1) == CCT_NONE, "parent CCT_NONE");
	CHECK(cct__child(&t, t.n, 1) == CCT_NONE, "parent past the end");
	CHECK(cct__find(&t, 1, 12345) == CCT_NONE, "find missing key");
	CHECK(cct__depth(&t, t.n) == -1, "depth of a bad index");

	/* reset: only the root is left, and inserting starts over */
	t.nodes[0].samples = 5;
	cct__reset(&t);
	CHECK(t.n == 1 && t.full == 0 && t.nodes[0].first_child == CCT_NONE &&
		      t.nodes[0].samples == 0 && t.nodes[0].flags == 0,
	      "reset leaves a bare root");
	uint64_t k[2] = {77, 78};
	uint32_t leaf = cct__insert_path(&t, k, 2);
	CHECK(leaf == 2 && t.n == 3 && t.nodes[1].key == 77 && t.nodes[2].key == 78 &&
		      t.nodes[2].first_child == CCT_NONE && t.nodes[2].flags == 0 &&
		      t.nodes[2].samples == 0,
	      "after reset, nodes are reused clean (leaf %u)", leaf);
	cct__destroy(&t);
	CHECK(t.nodes == NULL && t.n == 0, "destroy clears");
	cct__destroy(&t); /* twice is harmless */
	CHECK(cct__insert_path(&t, k, 2) == CCT_NONE, "insert into a destroyed tree");

	CHECK(cct__init(&t, 0) == -EINVAL, "cap 0 refused");
}

/* ---- sibling reordering (frequency transposition) ---------------------------- */

struct swap_case {
	int line;
	const char *name;
	uint64_t key;   /* looked up under the root ... */
	int repeat;     /* ... this many times, */
	uint64_t calls; /* adding this many calls after each lookup (as the probe does) */
	int pos;        /* its position in the root's list afterwards */
};

/* Children 100..119 are inserted in order, so the list starts 119, 118, ...
 * and key k is at position 119 - k. */
static const struct swap_case swap_cases[] = {
	{__LINE__, "front stays", 119, 1, 0, 0},
	{__LINE__, "equal counts never swap (loops over callees stay put)", 100, 5, 0, 19},
	{__LINE__, "first call: weight 0 = predecessor's, no swap", 100, 1, 1, 19},
	{__LINE__, "busier than its predecessor: one place up", 100, 1, 1, 18},
	{__LINE__, "stops short of the first positions (CCT_SWAP_POS-1)", 100, 30, 1, 2},
	{__LINE__, "a second hot child stops behind the busier one", 101, 20, 1, 3},
	{__LINE__, "... and passes it once it is busier", 101, 20, 1, 2},
};

static int list_pos(const struct cct *t, uint32_t parent, uint64_t key)
{
	int pos = 0;
	for (uint32_t c = t->nodes[parent].first_child; c != CCT_NONE; c = t->nodes[c].next_sibling) {
		if (t->nodes[c].key == key)
			return pos;
		pos++;
	}
	return -1;
}

static void test_reorder(void)
{
	struct cct t;
	CHECK(cct__init(&t, 1024) == 0, "init");
	uint32_t idx[120];
	for (uint64_t k = 100; k < 120; k++)
		idx[k] = cct__child(&t, CCT_ROOT, k);
	for (size_t i = 0; i < sizeof(swap_cases) / sizeof(swap_cases[0]); i++) {
		const struct swap_case *c = &swap_cases[i];
		uint32_t n_before = t.n;
		for (int r = 0; r < c->repeat; r++) {
			uint32_t got = cct__child(&t, CCT_ROOT, c->key);
			CASE_CHECK(c, got == idx[c->key], "got %u, want %u", got, idx[c->key]);
			t.nodes[got].calls += c->calls;
		}
		CASE_CHECK(c, t.n == n_before, "no insert");
		CASE_CHECK(c, list_pos(&t, CCT_ROOT, c->key) == c->pos, "position %d, want %d",
			   list_pos(&t, CCT_ROOT, c->key), c->pos);
		const char *bad = tree_walk_check(t.nodes, t.n);
		CASE_CHECK(c, bad == NULL, "tree: %s", bad);
	}
	/* a long pseudo-random sequence with counts keeps the list a permutation */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t key = 100 + (x % 10 < 7 ? (x >> 20) % 5 : (x >> 20) % 40); /* skewed */
		uint32_t got = cct__child(&t, CCT_ROOT, key);
		if (got == CCT_NONE || t.nodes[got].key != key || t.nodes[got].parent != CCT_ROOT) {
			CHECK(0, "lookup %d of key %llu gave %u", i, (unsigned long long)key, got);
			break;
		}
		t.nodes[got].calls++;
	}
	CHECK(t.n == 1 + 40, "40 distinct keys + root: n %u", t.n);
	const char *bad = tree_walk_check(t.nodes, t.n);
	CHECK(bad == NULL, "tree after random lookups: %s", bad);
	for (uint64_t k = 100; k < 105; k++)
		CHECK(list_pos(&t, CCT_ROOT, k) < 8, "hot key %llu near the front: %d",
		      (unsigned long long)k, list_pos(&t, CCT_ROOT, k));
	cct__destroy(&t);
}

/* ---- merge ------------------------------------------------------------------------ */

struct tpath {
	int nkeys;
	uint64_t keys[6];
	uint64_t v;     /* metrics added at the leaf (see set_metrics) */
	uint32_t flags; /* ORed into the leaf */
};

#define MAXP 8
struct merge_case {
	int line;
	const char *name;
	uint32_t dst_cap;
	struct tpath dst[MAXP];
	struct tpath src[MAXP];
	int rc;
};

static const struct merge_case merge_cases[] = {
	{__LINE__, "disjoint trees", 64,
	 {{1, {1}, 1, 0}, {2, {1, 2}, 2, 0}},
	 {{1, {3}, 4, 0}, {2, {3, 4}, 8, 0}}, 0},
	{__LINE__, "identical trees double", 64,
	 {{2, {1, 2}, 3, 0}, {2, {1, 3}, 5, 0}},
	 {{2, {1, 2}, 3, 0}, {2, {1, 3}, 5, 0}}, 0},
	{__LINE__, "overlap: sums, flags ORed, new leaf", 64,
	 {{2, {1, 2}, 1, CCT_F_PROBE}, {1, {1}, 7, 0}},
	 {{2, {1, 2}, 2, CCT_F_PARTIAL}, {3, {1, 2, 5}, 9, CCT_F_EXCLUDED}}, 0},
	{__LINE__, "into a bare root", 64,
	 {{0, {0}, 0, 0}},
	 {{3, {4, 5, 6}, 2, 0}, {2, {4, 7}, 3, CCT_F_MEASUREMENT}, {0, {0}, 1, 0}}, 0},
	{__LINE__, "from a bare root", 64,
	 {{2, {4, 5}, 2, 0}},
	 {{0, {0}, 6, 0}}, 0},
	{__LINE__, "same key under different parents stays apart", 64,
	 {{2, {1, 9}, 1, 0}, {2, {2, 9}, 2, 0}},
	 {{2, {2, 9}, 4, 0}, {3, {1, 2, 9}, 8, 0}}, 0},
	{__LINE__, "full dst: metrics go to the deepest ancestor", 5,
	 {{2, {1, 2}, 1, 0}},
	 {{4, {1, 2, 3, 4}, 2, 0}, {3, {1, 2, 5}, 4, 0}, {1, {6}, 8, 0}}, -ENOSPC},
};

static void build(struct cct *t, const struct tpath *p)
{
	for (int i = 0; i < MAXP; i++) {
		if (p[i].v == 0 && p[i].nkeys == 0 && p[i].flags == 0)
			continue;
		uint32_t leaf = cct__insert_path(t, p[i].keys, p[i].nkeys);
		set_metrics(&t->nodes[leaf], p[i].v);
		t->nodes[leaf].flags |= p[i].flags;
	}
}

static int same_path(const struct tpath *a, const uint64_t *keys, int n)
{
	if (a->nkeys != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (a->keys[i] != keys[i])
			return 0;
	return 1;
}

static void totals(const struct cct *t, uint64_t m[NMETRICS])
{
	memset(m, 0, NMETRICS * sizeof(uint64_t));
	for (uint32_t i = 0; i < t->n; i++) {
		uint64_t x[NMETRICS];
		metrics_of(&t->nodes[i], x);
		for (int k = 0; k < NMETRICS; k++)
			m[k] += x[k];
	}
}

static void test_merge_table(void)
{
	for (size_t i = 0; i < sizeof(merge_cases) / sizeof(merge_cases[0]); i++) {
		const struct merge_case *c = &merge_cases[i];
		struct cct dst, src;
		CHECK(cct__init(&dst, c->dst_cap) == 0 && cct__init(&src, 64) == 0, "init");
		build(&dst, c->dst);
		build(&src, c->src);
		uint64_t before[NMETRICS], add[NMETRICS], after[NMETRICS];
		totals(&dst, before);
		totals(&src, add);
		int rc = cct__merge(&dst, &src);
		CASE_CHECK(c, rc == c->rc, "rc %d, want %d", rc, c->rc);
		totals(&dst, after);
		for (int k = 0; k < NMETRICS; k++)
			CASE_CHECK(c, after[k] == before[k] + add[k], "metric %d: %llu != %llu + %llu",
				   k, (unsigned long long)after[k], (unsigned long long)before[k],
				   (unsigned long long)add[k]);
		const char *bad = tree_walk_check(dst.nodes, dst.n);
		CASE_CHECK(c, bad == NULL, "merged tree: %s", bad);
		if (c->rc == 0) {
			/* every src node's path is in dst with the summed metrics */
			for (uint32_t s = 0; s < src.n; s++) {
				uint64_t keys[64];
				int n = 0;
				for (uint32_t u = s; u != CCT_ROOT; u = src.nodes[u].parent)
					n++;
				int k = n;
				for (uint32_t u = s; u != CCT_ROOT; u = src.nodes[u].parent)
					keys[--k] = src.nodes[u].key;
				uint32_t d = find_path(&dst, keys, n);
				CASE_CHECK(c, d != CCT_NONE, "src node %u's path missing", s);
				if (d == CCT_NONE)
					continue;
				uint64_t want = 0;
				uint32_t wflags = 0;
				for (int j = 0; j < MAXP; j++) {
					if (same_path(&c->src[j], keys, n))
						want += c->src[j].v, wflags |= c->src[j].flags;
					if (same_path(&c->dst[j], keys, n))
						want += c->dst[j].v, wflags |= c->dst[j].flags;
				}
				struct cct_node ref = {0};
				set_metrics(&ref, want);
				uint64_t a[NMETRICS], b[NMETRICS];
				metrics_of(&dst.nodes[d], a);
				metrics_of(&ref, b);
				CASE_CHECK(c, memcmp(a, b, sizeof(a)) == 0,
					   "node of depth %d: samples %llu want %llu", n,
					   (unsigned long long)a[0], (unsigned long long)b[0]);
				CASE_CHECK(c, (dst.nodes[d].flags & wflags) == wflags,
					   "flags %#x lack %#x", dst.nodes[d].flags, wflags);
			}
		} else {
			int cut = 0;
			for (uint32_t d = 0; d < dst.n; d++)
				cut += !!(dst.nodes[d].flags & CCT_F_TRUNCATED);
			CASE_CHECK(c, cut > 0, "a full merge flags where it cut");
			CASE_CHECK(c, dst.n == dst.cap, "dst filled up");
		}
		cct__destroy(&dst);
		cct__destroy(&src);
	}
}

/* Recursion fold links: src indices must become dst indices. */
static void test_merge_redirect(void)
{
	struct cct dst, src;
	CHECK(cct__init(&dst, 64) == 0 && cct__init(&src, 64) == 0, "init");
	/* dst has other nodes first so the indices differ */
	uint64_t other[3] = {50, 51, 52};
	cct__insert_path(&dst, other, 3);
	/* src: root -> f -> g -> f' where f' redirects to f */
	uint64_t p[3] = {10, 20, 10};
	uint32_t leaf = cct__insert_path(&src, p, 3);
	uint32_t f = find_path(&src, p, 1);
	src.nodes[leaf].flags |= CCT_F_REDIRECT | CCT_F_PROBE;
	src.nodes[leaf].target = f;
	src.nodes[f].flags |= CCT_F_FOLDED;
	src.nodes[leaf].calls = 4;
	CHECK(cct__merge(&dst, &src) == 0, "merge");
	uint32_t dleaf = find_path(&dst, p, 3), df = find_path(&dst, p, 1);
	CHECK(dleaf != CCT_NONE && df != CCT_NONE, "paths present");
	CHECK(df != f, "test needs different indices (%u)", df);
	CHECK((dst.nodes[dleaf].flags & CCT_F_REDIRECT) && dst.nodes[dleaf].target == df,
	      "redirect target remapped: %u, want %u", dst.nodes[dleaf].target, df);
	CHECK(dst.nodes[df].flags & CCT_F_FOLDED, "folded flag kept");
	CHECK(dst.nodes[dleaf].calls == 4, "calls");
	/* merging again keeps the (already right) target and sums */
	CHECK(cct__merge(&dst, &src) == 0, "merge again");
	CHECK(dst.nodes[dleaf].target == df && dst.nodes[dleaf].calls == 8, "second merge");
	const char *bad = tree_walk_check(dst.nodes, dst.n);
	CHECK(bad == NULL, "tree: %s", bad);

	/* a redirect whose target does not fit: no dangling link is left */
	struct cct small;
	CHECK(cct__init(&small, 3) == 0, "init small");
	uint64_t q[2] = {60, 61};
	cct__insert_path(&small, q, 2); /* full now */
	struct cct s2;
	CHECK(cct__init(&s2, 8) == 0, "init s2");
	uint64_t r[2] = {60, 61};
	uint32_t l2 = cct__insert_path(&s2, r, 2);
	s2.nodes[l2].flags |= CCT_F_REDIRECT;
	s2.nodes[l2].target = 7; /* bad index in src */
	CHECK(cct__merge(&small, &s2) == 0, "merge with a bad src target");
	CHECK(!(small.nodes[2].flags & CCT_F_REDIRECT), "bad target dropped, flags %#x",
	      small.nodes[2].flags);
	cct__destroy(&small);
	cct__destroy(&s2);
	cct__destroy(&dst);
	cct__destroy(&src);
}

static void test_merge_misc(void)
{
	/* wide: 5000 children, half shared (the hash path) */
	struct cct a, b;
	CHECK(cct__init(&a, 20000) == 0 && cct__init(&b, 20000) == 0, "init");
	for (uint64_t k = 0; k < 5000; k++) {
		uint64_t pa[2] = {1, k}, pb[2] = {1, k + 2500};
		a.nodes[cct__insert_path(&a, pa, 2)].samples += 1;
		b.nodes[cct__insert_path(&b, pb, 2)].samples += 2;
	}
	CHECK(cct__merge(&a, &b) == 0, "wide merge");
	CHECK(a.n == 1 + 1 + 7500, "nodes %u", a.n);
	int ok = 1;
	for (uint64_t k = 0; k < 7500; k++) {
		uint64_t p[2] = {1, k};
		uint32_t d = find_path(&a, p, 2);
		uint64_t want = (k < 5000 ? 1 : 0) + (k >= 2500 ? 2 : 0);
		if (d == CCT_NONE || a.nodes[d].samples != want) {
			ok = 0;
			CHECK(0, "key %llu: samples %llu want %llu", (unsigned long long)k,
			      d == CCT_NONE ? 0ull : (unsigned long long)a.nodes[d].samples,
			      (unsigned long long)want);
			break;
		}
	}
	CHECK(ok, "wide merge sums");
	const char *bad = tree_walk_check(a.nodes, a.n);
	CHECK(bad == NULL, "tree: %s", bad);

	/* full counters add up */
	a.full = 3;
	b.full = 4;
	CHECK(cct__merge(&a, &b) == 0 && a.full == 7, "full %llu", (unsigned long long)a.full);

	/* merging a tree into itself doubles it */
	uint64_t before[NMETRICS], after[NMETRICS];
	totals(&b, before);
	uint32_t n = b.n;
	CHECK(cct__merge(&b, &b) == 0 && b.n == n, "self merge");
	totals(&b, after);
	CHECK(after[0] == 2 * before[0] && after[1] == 2 * before[1], "self merge doubles");

	/* bad input: a child before its parent; an unmapped dst */
	struct cct bad_src = b;
	struct cct_node *copy = malloc(b.n * sizeof(*copy));
	memcpy(copy, b.nodes, b.n * sizeof(*copy));
	bad_src.nodes = copy;
	copy[5].parent = 9;
	uint32_t an = a.n;
	CHECK(cct__merge(&a, &bad_src) == -EINVAL && a.n == an, "child before parent refused");
	free(copy);
	struct cct none = {0};
	CHECK(cct__merge(&none, &b) == -EINVAL, "dst without a root");
	CHECK(cct__merge(&a, &none) == 0, "empty src");
	cct__destroy(&a);
	cct__destroy(&b);
}

int main(void)
{
	test_paths();
	test_reorder();
	test_merge_table();
	test_merge_redirect();
	test_merge_misc();
	return check_status("test_cct");
}
