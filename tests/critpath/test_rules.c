/* tests/critpath/test_rules.c - the online rules (mpiwrap/critical_path_rules.h)
 * against the offline algorithm, on random message-passing programs.
 *
 * Each case of the table generates programs of P processes: compute
 * segments (random lengths, inside a random nesting of the selected
 * functions), point-to-point messages (a send now, its receive later, in
 * any order with other traffic) and collectives over all processes.  Two
 * computations run side by side:
 *   online:  the rules as critical_path.c applies them: each process
 *            advances at its events, a send carries its packed path, a
 *            receive merges it, a collective combines every member's path
 *            (in a random order: the combination must not depend on it) and
 *            every member merges the result;
 *   offline: the program activity graph built explicitly (the paper's
 *            Figure 2): nodes per event, local edges weighted with the
 *            compute between events (and each function's part of it),
 *            message and collective edges of weight 0; the longest path by
 *            dynamic programming with predecessors, its per-function time by
 *            walking it back from the last node; for zeroing, the longest
 *            path with each function's weight removed.
 * They must agree exactly: the critical path's length, the shares of the
 * process where it ends, and every function's zeroing length.  A failure
 * prints the case (its line), the seed and the values.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/critical_path_rules.h"

#define MAXP 8
#define MAXF 6
#define MAXN 20000
#define MAXE 60000

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static int64_t rndin(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ---- offline: the program activity graph ------------------------------------ */
struct edge {
	int from, to;
	int64_t w, wf[MAXF];
};
static struct edge E[MAXE];
static int nE, nN;
static int64_t dist[MAXN], pred_e[MAXN];

static int node_new(void) { return nN++; }
static void edge_add(int from, int to, int64_t w, const int64_t *wf, int nf)
{
	struct edge *e = &E[nE++];
	e->from = from;
	e->to = to;
	e->w = w;
	for (int f = 0; f < nf; f++)
		e->wf[f] = wf ? wf[f] : 0;
}

/* Longest path with weights w - wf[zero] (zero < 0: plain); nodes are
 * numbered in a topological order and edges added in that order. */
static void longest(int zero)
{
	for (int v = 0; v < nN; v++) {
		dist[v] = 0;
		pred_e[v] = -1;
	}
	for (int i = 0; i < nE; i++) {
		const struct edge *e = &E[i];
		int64_t d = dist[e->from] + e->w - (zero >= 0 ? e->wf[zero] : 0);
		if (pred_e[e->to] < 0 || d > dist[e->to]) {
			dist[e->to] = d;
			pred_e[e->to] = i;
		}
	}
}

/* ---- the simulation ----------------------------------------------------------- */
struct proc {
	/* online */
	int64_t len, share[MAXF], net[MAXF];
	/* since the last event: compute time and each function's part */
	int64_t dP, dF[MAXF];
	/* offline */
	int node;
};

struct msg {
	int from, to, node, live;
	int64_t len, sn[2 * MAXF];
};

struct tcase {
	int line;
	int np, nf, steps;
	int pct_msg, pct_coll; /* the rest is compute */
	int seeds;
};

static const struct tcase cases[] = {
	{__LINE__, 2, 1, 50, 40, 0, 200},
	{__LINE__, 2, 3, 200, 40, 5, 200},
	{__LINE__, 3, 3, 300, 50, 5, 200},
	{__LINE__, 4, 4, 400, 35, 10, 200},
	{__LINE__, 5, 6, 600, 45, 3, 100},
	{__LINE__, 8, 6, 1200, 50, 2, 50},
	{__LINE__, 3, 2, 300, 0, 20, 100}, /* collectives only */
	{__LINE__, 6, 5, 800, 70, 0, 100}, /* messages only, many in flight */
};

static int fail;

/* An event of process p: advance the online path, close the offline edge. */
static void event(struct proc *P, int p, int nf)
{
	struct proc *x = &P[p];
	hp_cp_advance(&x->len, x->share, x->net, nf, x->dP, x->dF);
	int v = node_new();
	edge_add(x->node, v, x->dP, x->dF, nf);
	x->node = v;
	x->dP = 0;
	memset(x->dF, 0, sizeof(x->dF));
}

static int run_one(const struct tcase *c, uint64_t seed)
{
	static struct msg M[MAXE];
	int nm = 0;
	struct proc P[MAXP];
	memset(P, 0, sizeof(P));
	nN = nE = 0;
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	int start = node_new();
	for (int p = 0; p < c->np; p++) {
		P[p].node = node_new();
		edge_add(start, P[p].node, 0, NULL, c->nf);
	}
	for (int s = 0; s < c->steps; s++) {
		int r = (int)(rnd() % 100);
		int p = (int)(rnd() % (uint64_t)c->np);
		if (r < c->pct_coll) {
			/* a collective over everyone: each advances and contributes,
			 * the contributions are combined in a random order, every
			 * member merges the combination */
			int64_t clen = 0, csn[2 * MAXF];
			int order[MAXP];
			for (int q = 0; q < c->np; q++)
				order[q] = q;
			for (int q = c->np - 1; q > 0; q--) {
				int j = (int)(rnd() % (uint64_t)(q + 1)), t = order[q];
				order[q] = order[j];
				order[j] = t;
			}
			int join = -1;
			for (int i = 0; i < c->np; i++) {
				int q = order[i];
				event(P, q, c->nf);
				int64_t l, sn[2 * MAXF];
				hp_cp_pack(&l, sn, P[q].len, P[q].share, P[q].net, c->nf);
				if (i == 0) {
					clen = l;
					memcpy(csn, sn, sizeof(sn));
					join = node_new();
				} else {
					hp_cp_combine(l, sn, &clen, csn, c->nf);
				}
				edge_add(P[q].node, join, 0, NULL, c->nf);
			}
			for (int q = 0; q < c->np; q++) {
				hp_cp_merge(&P[q].len, P[q].share, P[q].net, c->nf, clen, csn);
				int v = node_new();
				edge_add(P[q].node, v, 0, NULL, c->nf);
				edge_add(join, v, 0, NULL, c->nf);
				P[q].node = v;
			}
		} else if (r < c->pct_coll + c->pct_msg) {
			/* half the time a send, half a receive of a message in flight */
			int live = 0;
			for (int i = 0; i < nm; i++)
				live += M[i].live;
			if (live && (rnd() & 1)) {
				int k = (int)(rnd() % (uint64_t)live), i = 0;
				for (;; i++)
					if (M[i].live && k-- == 0)
						break;
				struct msg *m = &M[i];
				event(P, m->to, c->nf);
				hp_cp_merge(&P[m->to].len, P[m->to].share, P[m->to].net, c->nf, m->len, m->sn);
				int v = node_new();
				edge_add(P[m->to].node, v, 0, NULL, c->nf);
				edge_add(m->node, v, 0, NULL, c->nf);
				P[m->to].node = v;
				m->live = 0;
			} else if (nm < MAXE) {
				int q = (int)(rnd() % (uint64_t)(c->np - 1));
				q += q >= p;
				event(P, p, c->nf);
				struct msg *m = &M[nm++];
				m->from = p;
				m->to = q;
				m->node = P[p].node;
				m->live = 1;
				hp_cp_pack(&m->len, m->sn, P[p].len, P[p].share, P[p].net, c->nf);
			}
		} else {
			/* compute inside a random nest of the functions: f is active
			 * with probability 1/2 for each, inclusive */
			int64_t d = rndin(1, 1000000);
			P[p].dP += d;
			for (int f = 0; f < c->nf; f++)
				if (rnd() & 1)
					P[p].dF[f] += d;
		}
		if (nN > MAXN - 3 * MAXP || nE > MAXE - 3 * MAXP)
			break;
	}
	/* the end: every process computes a last segment (no ties at the end) */
	int end = node_new();
	for (int p = 0; p < c->np; p++) {
		P[p].dP += rndin(1, 1000000);
		event(P, p, c->nf);
		edge_add(P[p].node, end, 0, NULL, c->nf);
	}
	/* online result: the longest process, its shares; nets: the maxima */
	int best = 0;
	for (int p = 1; p < c->np; p++)
		if (P[p].len > P[best].len)
			best = p;
	/* offline: the longest path and its per-function time */
	longest(-1);
	int64_t L = dist[end], sh[MAXF] = {0};
	for (int v = end; pred_e[v] >= 0; v = E[pred_e[v]].from)
		for (int f = 0; f < c->nf; f++)
			sh[f] += E[pred_e[v]].wf[f];
	int bad = 0;
	if (P[best].len != L) {
		printf("case line %d seed %llu: length online %lld, offline %lld\n", c->line,
		       (unsigned long long)seed, (long long)P[best].len, (long long)L);
		bad = 1;
	}
	for (int f = 0; f < c->nf && !bad; f++)
		if (P[best].share[f] != sh[f]) {
			printf("case line %d seed %llu: share of f%d online %lld, offline %lld\n", c->line,
			       (unsigned long long)seed, f, (long long)P[best].share[f], (long long)sh[f]);
			bad = 1;
		}
	for (int f = 0; f < c->nf && !bad; f++) {
		int64_t on = P[0].net[f];
		for (int p = 1; p < c->np; p++)
			if (P[p].net[f] > on)
				on = P[p].net[f];
		longest(f);
		if (on != dist[end]) {
			printf("case line %d seed %llu: zeroing f%d online %lld, offline %lld\n", c->line,
			       (unsigned long long)seed, f, (long long)on, (long long)dist[end]);
			bad = 1;
		}
		if (!bad && (L - on > sh[f] || on > L)) {
			printf("case line %d seed %llu: zeroing f%d reduction %lld outside [0, share %lld]\n",
			       c->line, (unsigned long long)seed, f, (long long)(L - on), (long long)sh[f]);
			bad = 1;
		}
	}
	return bad;
}

/* The combination is commutative and associative (MPI reduces in any
 * order), including ties of length. */
static int check_combine(void)
{
	int bad = 0;
	rng = 12345;
	for (int i = 0; i < 20000 && !bad; i++) {
		int n = 1 + (int)(rnd() % 4);
		int64_t l[3], sn[3][2 * MAXF];
		for (int k = 0; k < 3; k++) {
			l[k] = rndin(0, 3); /* small: many ties */
			for (int f = 0; f < 2 * n; f++)
				sn[k][f] = rndin(0, 3);
		}
		/* (a + b) + c and a + (b + c), and b + a */
		int64_t l1 = l[1], s1[2 * MAXF], l2 = l[2], s2[2 * MAXF], lb = l[0], sb[2 * MAXF];
		memcpy(s1, sn[1], sizeof(s1));
		hp_cp_combine(l[0], sn[0], &l1, s1, n); /* a + b */
		hp_cp_combine(l[2], sn[2], &l1, s1, n); /* (a + b) + c */
		memcpy(s2, sn[2], sizeof(s2));
		hp_cp_combine(l[1], sn[1], &l2, s2, n); /* b + c */
		hp_cp_combine(l[0], sn[0], &l2, s2, n); /* a + (b + c) */
		memcpy(sb, sn[0], sizeof(sb));
		hp_cp_combine(l[1], sn[1], &lb, sb, n); /* b + a */
		int64_t la = l[1], sa[2 * MAXF];
		memcpy(sa, sn[1], sizeof(sa));
		hp_cp_combine(l[0], sn[0], &la, sa, n); /* a + b again, for commutativity */
		if (l1 != l2 || memcmp(s1, s2, sizeof(int64_t) * 2 * (size_t)n) || la != lb ||
		    memcmp(sa, sb, sizeof(int64_t) * 2 * (size_t)n)) {
			printf("combine is not associative/commutative at iteration %d (n %d)\n", i, n);
			bad = 1;
		}
	}
	return bad;
}

int main(void)
{
	int total = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];
		int bad = 0;
		for (int s = 0; s < c->seeds; s++)
			bad += run_one(c, (uint64_t)s + 1);
		printf("%s case line %d: %d processes, %d functions, %d steps, %d seeds: %d failed\n",
		       bad ? "FAIL" : "ok  ", c->line, c->np, c->nf, c->steps, c->seeds, bad);
		total += c->seeds;
		fail += bad;
	}
	int cb = check_combine();
	printf("%s combine: commutative and associative over 20000 random triples\n", cb ? "FAIL" : "ok  ");
	fail += cb;
	printf("%d programs checked, %d failures\n", total, fail);
	return fail ? 1 : 0;
}
