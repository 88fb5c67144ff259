/* tests/counting/test_probe_unit.c - table-driven tests of the probes' pure
 * parts: the compensation arithmetic (counting/comp.h), and the probe hot
 * path with recursion folding, exit mismatch and shadow-stack overflow
 * (counting/probe_impl.h + counting/probe_core.c) driven with synthetic
 * timestamps on a private thread state.
 *
 * Each case is a script of enter/exit events at given times and the
 * expected metrics of nodes named by their key path.  A failure prints the
 * case name, its line and the node.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "counting/comp.h"
#include "counting/probe_impl.h"

void hp_log(const char *fmt, ...)
{
	(void)fmt;
}

static int failures;

#define CHECK(cond, ...)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			failures++;                                                             \
			fprintf(stderr, __VA_ARGS__);                                           \
			fputc('\n', stderr);                                                    \
		}                                                                               \
	} while (0)

/* ---- 1. the arithmetic ------------------------------------------------ */

struct arith_case {
	int line;
	struct hp_comp_call k; /* raw, own (Di), inside_cost (n*F), child_raw, child_comp, sampler */
	struct hp_comp_result want;
};

/* Di = 10, F = 30 unless said otherwise */
static const struct arith_case arith[] = {
	/* a null-ish call: only its own Di removed */
	{__LINE__, {100, 10, 0, 0, 0, 0}, {100, 100, 90, 90}},
	/* two children of 100 raw each (90 compensated): paper's form
	 * excl_comp = raw_excl - Di - L*De = 800 - 10 - 2*20 */
	{__LINE__, {1000, 10, 60, 200, 180, 0}, {1000, 800, 930, 750}},
	/* deeper descendants: n counts every pair inside, not only children */
	{__LINE__, {1000, 10, 150, 400, 310, 0}, {1000, 600, 840, 530}},
	/* cost larger than the interval: negative, not clamped per call */
	{__LINE__, {5, 10, 0, 0, 0, 0}, {5, 5, -5, -5}},
	/* inclusive fine, children's compensated sum larger: negative excl */
	{__LINE__, {100, 10, 60, 20, 95, 0}, {100, 80, 30, -65}},
	/* children overcompensated (their sum is negative): it adds back,
	 * keeping excl_comp = raw_excl - Di - L*De = 900 - 10 - 20 */
	{__LINE__, {1000, 10, 30, 100, -20, 0}, {1000, 900, 960, 980}},
	/* sampler cost inside the interval is removed */
	{__LINE__, {1000, 10, 0, 0, 0, 90}, {1000, 1000, 900, 900}},
	/* no costs (compensation none): comp == raw */
	{__LINE__, {1234, 0, 0, 234, 234, 0}, {1234, 1000, 1234, 1000}},
	/* raw children larger than raw (clock skew): raw excl 0, not wrapped */
	{__LINE__, {100, 0, 0, 150, 150, 0}, {100, 0, 100, -50}},
};

struct accum_case {
	int line;
	uint64_t total;
	int64_t v;
	uint64_t want;
	int want_clamped;
};

static const struct accum_case accum[] = {
	{__LINE__, 100, 20, 120, 0},
	{__LINE__, 100, -30, 70, 0},
	{__LINE__, 100, -100, 0, 0},  /* exactly zero is not a clamp */
	{__LINE__, 100, -130, 0, 1},
	{__LINE__, 0, -1, 0, 1},
	{__LINE__, 1ull << 62, 5, (1ull << 62) + 5, 0},
};

static void test_arith(void)
{
	for (size_t i = 0; i < sizeof(arith) / sizeof(arith[0]); i++) {
		const struct arith_case *a = &arith[i];
		struct hp_comp_result r = hp_comp_call(&a->k);
		CHECK(r.incl == a->want.incl && r.excl == a->want.excl &&
			      r.incl_comp == a->want.incl_comp && r.excl_comp == a->want.excl_comp,
		      "arith case at line %d: got incl %llu excl %llu incl_comp %lld excl_comp %lld; "
		      "want %llu %llu %lld %lld",
		      a->line, (unsigned long long)r.incl, (unsigned long long)r.excl,
		      (long long)r.incl_comp, (long long)r.excl_comp,
		      (unsigned long long)a->want.incl, (unsigned long long)a->want.excl,
		      (long long)a->want.incl_comp, (long long)a->want.excl_comp);
	}
	for (size_t i = 0; i < sizeof(accum) / sizeof(accum[0]); i++) {
		const struct accum_case *a = &accum[i];
		int cl = 0;
		uint64_t got = hp_comp_accum(a->total, a->v, &cl);
		CHECK(got == a->want && cl == a->want_clamped,
		      "accum case at line %d: got %llu clamped %d; want %llu %d", a->line,
		      (unsigned long long)got, cl, (unsigned long long)a->want, a->want_clamped);
	}
}

/* ---- 2. scripts through the real probe path --------------------------- */

#define MAXEV 64
#define MAXNODE 8
#define KEYS 6
#define ANY ~0ull

enum { END = 0, E, X, SAMPLE, RECAL };

struct ev {
	int op;        /* E enter, X exit, SAMPLE: handler ran `t` cycles + 1 sample,
			* RECAL: the thread's F becomes `t` (in-situ recalibration) */
	uint64_t key;  /* function key (small numbers are fine here) */
	uint64_t t;    /* timestamp */
};

struct want_node {
	uint64_t path[KEYS]; /* key path from the root, 0-terminated */
	uint64_t calls, incl, excl, incl_comp, excl_comp, clamped;
	uint32_t flags;      /* flags that must be set */
	int redirect_to_depth; /* >0: node is a REDIRECT to the path prefix of that depth */
};

struct script_case {
	const char *name;
	int line;
	int timed;
	struct hp_comp_costs costs;
	struct ev ev[MAXEV];
	struct want_node want[MAXNODE];
	uint32_t want_nodes;   /* tree size including root (0 = do not check) */
	uint64_t want_mismatch;
	uint32_t want_sp;
};

/* Keys: code addresses are never this small in real runs, and regions use
 * 1..65535; the probe path does not care. */
enum { F = 0x1000, G = 0x2000, H = 0x3000, M = 0x4000 };

static const struct script_case scripts[] = {
	{"single call", __LINE__, 1, {10, 30, 0},
	 {{E, F, 100}, {X, F, 200}},
	 {{{F}, 1, 100, 100, 90, 90, 0, CCT_F_PROBE, 0}}, 2, 0, 0},
	{"two children", __LINE__, 1, {10, 30, 0},
	 {{E, F, 0}, {E, G, 100}, {X, G, 200}, {E, G, 300}, {X, G, 400}, {X, F, 1000}},
	 {{{F}, 1, 1000, 800, 930, 750, 0, 0, 0}, {{F, G}, 2, 200, 200, 180, 180, 0, 0, 0}},
	 3, 0, 0},
	{"clamped", __LINE__, 1, {10, 30, 0},
	 {{E, F, 0}, {X, F, 5}},
	 {{{F}, 1, 5, 5, 0, 0, 1, 0, 0}}, 2, 0, 0},
	/* the node's running total is clamped, not each call: -5 (clamped,
	 * counted once for incl and excl), +20, -5 gives 15, not 20 */
	{"running clamp", __LINE__, 1, {10, 30, 0},
	 {{E, F, 0}, {X, F, 5}, {E, F, 10}, {X, F, 40}, {E, F, 50}, {X, F, 55}},
	 {{{F}, 3, 40, 40, 15, 15, 1, 0, 0}}, 2, 0, 0},
	/* a child whose compensation went negative: the node is clamped, the
	 * parent gets the signed value: F excl_comp = 95 - 10 - 1*(30-10) */
	{"overcompensated child", __LINE__, 1, {10, 30, 0},
	 {{E, F, 0}, {E, G, 10}, {X, G, 15}, {X, F, 100}},
	 {{{F}, 1, 100, 95, 60, 65, 0, 0, 0}, {{F, G}, 1, 5, 5, 0, 0, 1, 0, 0}}, 3, 0, 0},
	/* direct recursion f->f->f folds into the outermost f: calls 3,
	 * inclusive once (outermost), exclusive of every instance summed */
	{"direct recursion", __LINE__, 1, {0, 0, 0},
	 {{E, F, 0}, {E, F, 10}, {E, F, 20}, {X, F, 30}, {X, F, 40}, {X, F, 50}},
	 {{{F}, 3, 50, 50, 50, 50, 0, CCT_F_FOLDED, 0},
	  {{F, F}, 0, 0, 0, 0, 0, 0, CCT_F_REDIRECT, 1}},
	 3, 0, 0},
	/* mutual recursion f->g->f->g: f folds into f, then g is f's child */
	{"mutual recursion", __LINE__, 1, {0, 0, 0},
	 {{E, F, 0}, {E, G, 10}, {E, F, 20}, {E, G, 30}, {X, G, 40}, {X, F, 50}, {X, G, 60},
	  {X, F, 70}},
	 {{{F}, 2, 70, 40, 70, 40, 0, CCT_F_FOLDED, 0},
	  {{F, G}, 2, 50, 30, 50, 30, 0, 0, 0},
	  {{F, G, F}, 0, 0, 0, 0, 0, 0, CCT_F_REDIRECT, 1}},
	 4, 0, 0},
	/* recursion with compensation: the inner instance's pair is inside
	 * the outer: outer comp = 50 - 2 - 1*6, inner 20 - 2 */
	{"recursion compensated", __LINE__, 1, {2, 6, 0},
	 {{E, F, 0}, {E, F, 10}, {X, F, 30}, {X, F, 50}},
	 {{{F}, 2, 50, 50, 42, 42, 0, CCT_F_FOLDED, 0}}, 3, 0, 0},
	/* same function on two call paths: separate nodes */
	{"call paths", __LINE__, 0, {0, 0, 0},
	 {{E, M, 0}, {E, F, 0}, {E, H, 0}, {X, H, 0}, {X, F, 0}, {E, G, 0}, {E, H, 0}, {X, H, 0},
	  {E, H, 0}, {X, H, 0}, {X, G, 0}, {X, M, 0}},
	 {{{M}, 1, 0, 0, 0, 0, 0, CCT_F_PROBE, 0},
	  {{M, F, H}, 1, 0, 0, 0, 0, 0, 0, 0},
	  {{M, G, H}, 2, 0, 0, 0, 0, 0, 0, 0}},
	 6, 0, 0},
	/* longjmp: h and g never exit; f's exit closes them at its time */
	{"exit mismatch unwinds", __LINE__, 1, {0, 0, 0},
	 {{E, F, 0}, {E, G, 10}, {E, H, 20}, {X, F, 100}},
	 {{{F}, 1, 100, 10, 100, 10, 0, 0, 0},
	  {{F, G}, 1, 90, 10, 90, 10, 0, 0, 0},
	  {{F, G, H}, 1, 80, 80, 80, 80, 0, 0, 0}},
	 4, 1, 0},
	/* exit with nothing open (entered before the thread was seen) */
	{"exit without entry", __LINE__, 1, {0, 0, 0},
	 {{X, F, 10}, {E, G, 20}, {X, H, 30}, {X, G, 40}},
	 {{{G}, 1, 20, 20, 20, 20, 0, 0, 0}}, 2, 2, 0},
	/* the sampler's cost inside an interval is removed (handler 40
	 * cycles + one sample at kernel cost 25) from g and from f */
	{"sample cost", __LINE__, 1, {0, 0, 25},
	 {{E, F, 0}, {E, G, 100}, {SAMPLE, 0, 40}, {X, G, 300}, {X, F, 400}},
	 {{{F}, 1, 400, 200, 335, 200, 0, 0, 0}, {{F, G}, 1, 200, 200, 135, 135, 0, 0, 0}},
	 3, 0, 0},
	/* a parent's sampler cost is its children's plus what landed between:
	 * a cold first sample (handler 100) in g, a warm one (20) in h, k = 25
	 * each.  (Estimating the signals from the thread's mean handler time
	 * charged h 20 + 25/3 and f 120 + 50: f's compensated time fell
	 * below its children's.) */
	{"sample cost is additive", __LINE__, 1, {0, 0, 25},
	 {{E, F, 0}, {E, G, 100}, {SAMPLE, 0, 100}, {X, G, 300}, {E, H, 400}, {SAMPLE, 0, 20},
	  {X, H, 600}, {X, F, 700}},
	 {{{F}, 1, 700, 300, 530, 300, 0, 0, 0}, {{F, G}, 1, 200, 200, 75, 75, 0, 0, 0},
	  {{F, H}, 1, 200, 200, 155, 155, 0, 0, 0}},
	 4, 0, 0},
	/* F changes inside an interval (recalibration): each inner pair is
	 * removed at the F in effect when it ran: f = 100 - 2 - (10 + 20) */
	{"F changes", __LINE__, 1, {2, 10, 0},
	 {{E, F, 0}, {E, G, 10}, {X, G, 20}, {RECAL, 0, 20}, {E, G, 30}, {X, G, 40}, {X, F, 100}},
	 {{{F}, 1, 100, 80, 68, 52, 0, 0, 0}, {{F, G}, 2, 20, 20, 16, 16, 0, 0, 0}}, 3, 0, 0},
	/* count-only mode: calls, no times */
	{"hybrid counts", __LINE__, 0, {10, 30, 0},
	 {{E, F, 0}, {E, F, 0}, {X, F, 0}, {E, G, 0}, {X, G, 0}, {X, F, 0}},
	 {{{F}, 2, 0, 0, 0, 0, 0, CCT_F_FOLDED, 0}, {{F, G}, 1, 0, 0, 0, 0, 0, 0, 0}}, 4, 0, 0},
};

static struct hp_thread *new_thread_cap(uint32_t cap)
{
	struct hp_thread *t = calloc(1, sizeof(*t));
	if (!t || cct__init(&t->probe, cap) != 0 || hp_probe_mem_map(t) != 0)
		abort();
	return t;
}

static struct hp_thread *new_thread(void)
{
	return new_thread_cap(1u << 16);
}

static void free_thread(struct hp_thread *t)
{
	hp_probe_mem_unmap(t);
	cct__destroy(&t->probe);
	free(t);
}

static void run_event(struct hp_thread *t, const struct ev *e, int timed)
{
	if (e->op == E) {
		hp_probe_enter_t(t, e->key, CCT_F_PROBE, timed);
		if (timed && t->sp > 0 && t->sp <= HP_STACK_MAX)
			t->stack[t->sp - 1].t_enter = e->t; /* synthetic clock */
	} else if (e->op == X) {
		hp_probe_exit_t(t, e->key, timed, e->t);
	} else if (e->op == SAMPLE) {
		/* as sampler/handler.c charges a signal: its handler cycles
		 * plus the calibrated kernel part */
		t->handler_cycles += e->t;
		t->comp_cycles += e->t + hp_probe_g.comp.sample_kernel;
		t->samples++;
	} else if (e->op == RECAL) {
		struct hp_probe_thr *pt = hp_probe_thr(t->stack);
		hp_probe_set_costs(t, pt->pair, e->t, pt->di);
	}
}

static uint32_t node_at(const struct hp_thread *t, const uint64_t *path, int *depth)
{
	uint32_t cur = CCT_ROOT;
	*depth = 0;
	for (int i = 0; i < KEYS && path[i]; i++) {
		cur = cct__find(&t->probe, cur, path[i]);
		if (cur == CCT_NONE)
			return CCT_NONE;
		(*depth)++;
	}
	return cur;
}

static void test_scripts(void)
{
	for (size_t ci = 0; ci < sizeof(scripts) / sizeof(scripts[0]); ci++) {
		const struct script_case *c = &scripts[ci];
		hp_probe_g.comp = c->costs;
		hp_probe_g.comp_on = 1;
		struct hp_thread *t = new_thread();
		for (int i = 0; i < MAXEV && c->ev[i].op != END; i++)
			run_event(t, &c->ev[i], c->timed);
		for (int w = 0; w < MAXNODE && c->want[w].path[0]; w++) {
			const struct want_node *wn = &c->want[w];
			int depth;
			uint32_t i = node_at(t, wn->path, &depth);
			if (i == CCT_NONE) {
				CHECK(0, "case \"%s\" (line %d): node %d not found", c->name, c->line, w);
				continue;
			}
			const struct cct_node *n = &t->probe.nodes[i];
			CHECK((n->flags & wn->flags) == wn->flags,
			      "case \"%s\" (line %d) node %d: flags %#x, want %#x set", c->name, c->line,
			      w, n->flags, wn->flags);
			if (wn->redirect_to_depth) {
				uint64_t pre[KEYS] = {0};
				memcpy(pre, wn->path, sizeof(uint64_t) * (size_t)wn->redirect_to_depth);
				int d2;
				uint32_t tgt = node_at(t, pre, &d2);
				CHECK(n->target == tgt, "case \"%s\" (line %d) node %d: target %u, want %u",
				      c->name, c->line, w, n->target, tgt);
				continue;
			}
			CHECK(n->calls == wn->calls && n->incl == wn->incl && n->excl == wn->excl &&
				      n->incl_comp == wn->incl_comp && n->excl_comp == wn->excl_comp &&
				      n->clamped == wn->clamped,
			      "case \"%s\" (line %d) node %d: calls %llu incl %llu excl %llu incl_comp %llu "
			      "excl_comp %llu clamped %llu; want %llu %llu %llu %llu %llu %llu",
			      c->name, c->line, w, (unsigned long long)n->calls,
			      (unsigned long long)n->incl, (unsigned long long)n->excl,
			      (unsigned long long)n->incl_comp, (unsigned long long)n->excl_comp,
			      (unsigned long long)n->clamped, (unsigned long long)wn->calls,
			      (unsigned long long)wn->incl, (unsigned long long)wn->excl,
			      (unsigned long long)wn->incl_comp, (unsigned long long)wn->excl_comp,
			      (unsigned long long)wn->clamped);
			CHECK(n->active == 0, "case \"%s\" (line %d) node %d: active %u after all exits",
			      c->name, c->line, w, n->active);
		}
		if (c->want_nodes)
			CHECK(t->probe.n == c->want_nodes, "case \"%s\" (line %d): %u nodes, want %u",
			      c->name, c->line, t->probe.n, c->want_nodes);
		CHECK(t->exit_mismatch == c->want_mismatch,
		      "case \"%s\" (line %d): exit_mismatch %llu, want %llu", c->name, c->line,
		      (unsigned long long)t->exit_mismatch, (unsigned long long)c->want_mismatch);
		CHECK(t->sp == c->want_sp && (t->sp || t->probe_cur == CCT_ROOT),
		      "case \"%s\" (line %d): sp %u probe_cur %u at the end", c->name, c->line, t->sp,
		      t->probe_cur);
		free_thread(t);
	}
}

/* ---- 3. shadow-stack overflow ------------------------------------------ */

static void test_overflow(void)
{
	struct hp_thread *t = new_thread();
	hp_probe_g.comp = (struct hp_comp_costs){0, 0, 0};
	const uint32_t depth = HP_STACK_MAX + 10;
	/* distinct keys so nothing folds */
	for (uint32_t i = 0; i < depth; i++)
		hp_probe_enter_t(t, 0x10000 + i, CCT_F_PROBE, 1);
	CHECK(t->stack_overflow == 10, "overflow: stack_overflow %llu, want 10",
	      (unsigned long long)t->stack_overflow);
	CHECK(t->sp == depth, "overflow: sp %u, want %u", t->sp, depth);
	/* a second round of the same deep calls */
	for (uint32_t i = depth; i-- > 0;)
		hp_probe_exit_t(t, 0x10000 + i, 1, hp_rdtsc());
	CHECK(t->sp == 0 && t->probe_cur == CCT_ROOT, "overflow: sp %u cur %u after exits", t->sp,
	      t->probe_cur);
	CHECK(t->exit_mismatch == 0, "overflow: %llu mismatches", (unsigned long long)t->exit_mismatch);
	uint64_t calls = 0;
	int truncated = 0;
	for (uint32_t i = 1; i < t->probe.n; i++) {
		calls += t->probe.nodes[i].calls;
		truncated += (t->probe.nodes[i].flags & CCT_F_TRUNCATED) != 0;
	}
	CHECK(calls == depth, "overflow: %llu calls counted, want %u", (unsigned long long)calls,
	      depth);
	CHECK(truncated == 1, "overflow: %d truncated nodes, want 1", truncated);
	free_thread(t);
}

/* ---- 4. a full tree: calls go to the deepest node, flagged -------------- */

static void test_full_tree(void)
{
	struct hp_thread *t = new_thread_cap(3);
	hp_probe_enter_t(t, F, CCT_F_PROBE, 0);
	hp_probe_enter_t(t, G, CCT_F_PROBE, 0);
	hp_probe_enter_t(t, H, CCT_F_PROBE, 0); /* no room */
	hp_probe_exit_t(t, H, 0, 0);
	hp_probe_exit_t(t, G, 0, 0);
	hp_probe_exit_t(t, F, 0, 0);
	CHECK(t->probe.full == 1 && (t->probe.nodes[2].flags & CCT_F_TRUNCATED) &&
		      t->probe.nodes[2].calls == 2 && t->sp == 0 && t->exit_mismatch == 0,
	      "full tree: full %llu flags %#x calls %llu sp %u mismatch %llu",
	      (unsigned long long)t->probe.full, t->probe.nodes[2].flags,
	      (unsigned long long)t->probe.nodes[2].calls, t->sp,
	      (unsigned long long)t->exit_mismatch);
	free_thread(t);
}

/* ---- 5. fold search ---------------------------------------------------- */

static void test_fold_find(void)
{
	struct cct c;
	cct__init(&c, 64);
	uint32_t f1 = cct__child(&c, CCT_ROOT, F);
	uint32_t g1 = cct__child(&c, f1, G);
	uint32_t f2 = cct__child(&c, g1, F); /* a non-folded duplicate (e.g. merged) */
	uint32_t h = cct__child(&c, f2, H);
	for (uint32_t i = 1; i < c.n; i++)
		c.nodes[i].flags = CCT_F_PROBE;
	struct {
		int line;
		uint32_t from;
		uint64_t key;
		uint32_t kind;
		uint32_t want;
	} cases[] = {
		{__LINE__, h, F, CCT_F_PROBE, f1},      /* outermost of two */
		{__LINE__, h, G, CCT_F_PROBE, g1},
		{__LINE__, h, H, CCT_F_PROBE, h},       /* from itself */
		{__LINE__, g1, H, CCT_F_PROBE, CCT_NONE},
		{__LINE__, h, F, CCT_F_REGION, CCT_NONE}, /* other kind */
		{__LINE__, CCT_ROOT, F, CCT_F_PROBE, CCT_NONE},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t got = hp_fold_find(&c, cases[i].from, cases[i].key, cases[i].kind);
		CHECK(got == cases[i].want, "fold_find case at line %d: got %u want %u", cases[i].line,
		      got, cases[i].want);
	}
	cct__destroy(&c);
}

/* ---- 6. HYPROF_COMPENSATE=none: compensated = raw, sampler cost too ---- */

static void test_comp_none(void)
{
	hp_probe_g.comp = (struct hp_comp_costs){0, 0, 0};
	hp_probe_g.comp_on = 0;
	struct hp_thread *t = new_thread();
	const struct ev ev[] = {{E, F, 0}, {E, G, 100}, {SAMPLE, 0, 40}, {X, G, 300}, {X, F, 400}};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		run_event(t, &ev[i], 1);
	int d;
	uint32_t f = node_at(t, (const uint64_t[KEYS]){F}, &d);
	uint32_t g = node_at(t, (const uint64_t[KEYS]){F, G}, &d);
	CHECK(f != CCT_NONE && g != CCT_NONE, "none: nodes missing");
	if (f != CCT_NONE && g != CCT_NONE) {
		const struct cct_node *nf = &t->probe.nodes[f], *ng = &t->probe.nodes[g];
		CHECK(nf->incl == 400 && nf->incl_comp == 400 && nf->excl_comp == nf->excl &&
			      ng->incl_comp == 200 && ng->excl_comp == 200,
		      "none: f incl %llu/%llu excl %llu/%llu, g incl_comp %llu excl_comp %llu (want comp == raw)",
		      (unsigned long long)nf->incl, (unsigned long long)nf->incl_comp,
		      (unsigned long long)nf->excl, (unsigned long long)nf->excl_comp,
		      (unsigned long long)ng->incl_comp, (unsigned long long)ng->excl_comp);
	}
	free_thread(t);
}

/* ---- 7. the child cache ------------------------------------------------ */

static void test_cache(void)
{
	hp_probe_g.comp = (struct hp_comp_costs){0, 0, 0};
	struct hp_thread *t = new_thread();
	/* callees in turn: every lookup misses the one-entry cache and the
	 * counts must still be exact */
	hp_probe_enter_t(t, F, CCT_F_PROBE, 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t k = i % 2 ? H : G;
		hp_probe_enter_t(t, k, CCT_F_PROBE, 0);
		hp_probe_exit_t(t, k, 0, 0);
	}
	/* direct recursion: the cache holds the fold target */
	hp_probe_enter_t(t, F, CCT_F_PROBE, 0);
	hp_probe_enter_t(t, F, CCT_F_PROBE, 0);
	hp_probe_exit_t(t, F, 0, 0);
	hp_probe_exit_t(t, F, 0, 0);
	hp_probe_exit_t(t, F, 0, 0);
	int d;
	uint32_t f = node_at(t, (const uint64_t[KEYS]){F}, &d);
	uint32_t g = node_at(t, (const uint64_t[KEYS]){F, G}, &d);
	uint32_t h = node_at(t, (const uint64_t[KEYS]){F, H}, &d);
	CHECK(f != CCT_NONE && g != CCT_NONE && h != CCT_NONE, "cache: nodes missing");
	if (f != CCT_NONE && g != CCT_NONE && h != CCT_NONE) {
		CHECK(t->probe.nodes[g].calls == 500 && t->probe.nodes[h].calls == 500 &&
			      t->probe.nodes[f].calls == 3,
		      "cache: calls f %llu g %llu h %llu, want 3 500 500",
		      (unsigned long long)t->probe.nodes[f].calls,
		      (unsigned long long)t->probe.nodes[g].calls,
		      (unsigned long long)t->probe.nodes[h].calls);
		CHECK(hp_probe_cache(t->stack)[f] == f, "cache: entry of f is %u, want the fold target %u",
		      hp_probe_cache(t->stack)[f], f);
	}
	/* a reset tree (fork) with the cache cleared: indices are reused by
	 * other keys and every call lands on the right node */
	cct__reset(&t->probe);
	hp_probe_cache_clear(t);
	hp_probe_enter_t(t, H, CCT_F_PROBE, 0);
	hp_probe_enter_t(t, G, CCT_F_PROBE, 0);
	hp_probe_exit_t(t, G, 0, 0);
	hp_probe_exit_t(t, H, 0, 0);
	hp_probe_enter_t(t, F, CCT_F_PROBE, 0);
	hp_probe_exit_t(t, F, 0, 0);
	uint32_t h2 = node_at(t, (const uint64_t[KEYS]){H}, &d);
	uint32_t hg = node_at(t, (const uint64_t[KEYS]){H, G}, &d);
	uint32_t f2 = node_at(t, (const uint64_t[KEYS]){F}, &d);
	CHECK(h2 != CCT_NONE && hg != CCT_NONE && f2 != CCT_NONE && t->probe.n == 4 &&
		      t->probe.nodes[hg].calls == 1 && t->probe.nodes[f2].calls == 1,
	      "cache after reset: %u nodes (want 4), H/G %u F %u", t->probe.n, hg, f2);
	CHECK(t->sp == 0 && t->exit_mismatch == 0, "cache: sp %u mismatch %llu", t->sp,
	      (unsigned long long)t->exit_mismatch);
	free_thread(t);
}

int main(void)
{
	test_arith();
	test_comp_none();
	test_cache();
	test_scripts();
	test_overflow();
	test_full_tree();
	test_fold_find();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("ok: %zu arithmetic cases, %zu accumulation cases, %zu scripts, overflow, full tree, "
	       "fold search, compensation none, child cache\n",
	       sizeof(arith) / sizeof(arith[0]), sizeof(accum) / sizeof(accum[0]),
	       sizeof(scripts) / sizeof(scripts[0]));
	return 0;
}
