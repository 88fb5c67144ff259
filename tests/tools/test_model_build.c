/* tests/tools/test_model_build.c - table-driven tests of the pure parts of
 * the model (tools/model_build.c): recursion folding of sampled paths, the
 * projection join of samples and probe counts, probe-only nodes, region
 * overlays, merging, the flat profile, and the folding of hyprof's own
 * frames (fold_cases).
 *
 * A case is a list of sampled paths ("main;a;b" with seconds at the leaf)
 * and probe paths ("main;a" with calls; "@name" is a region; period is the
 * time sampled while that probe was innermost, in ms; "" is the root), and
 * the facts to
 * check on the resulting tree ("path calls self total flags").  A sampled
 * frame "f/12" was called from line 12 of its caller; the functions of
 * `srcpos` have a source position (the region placement reads it).  A
 * failing fact prints the case, its line and the tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cct.h"
#include "tools/model_build.h"

struct spath { const char *path; double secs; };
struct ppath { const char *path; long calls; long period_ms; unsigned flags; };
#define ABSENT (-3)
struct fact {
	const char *path;      /* exact tree path, no folding */
	long calls;            /* -2 = do not check, ABSENT = no such node */
	double self, total;    /* < 0 = do not check */
	unsigned flags;        /* flags that must be set */
};
struct ffact { const char *name; double self, total; long calls; };

struct tcase {
	int line;
	const char *name;
	struct spath s[8];
	struct ppath p[12];
	struct fact f[12];
	struct ffact flat[6];
	int probe_only;        /* expected return of mb__join, -1 = no check */
};

#define END {0}
static const struct tcase cases[] = {
	{__LINE__, "projection skips uninstrumented frames",
	 {{"main;libc_x;a", 1.0}, {"main;a;b", 2.0}, END},
	 {{"main", 1, 0, 0}, {"main;a", 10, 0, 0}, {"main;a;b", 100, 0, 0}, END},
	 {{"main", 1, 0, 3.0, 0}, {"main;libc_x", -1, 0, 1.0, 0}, {"main;libc_x;a", 10, 1.0, 1.0, 0},
	  {"main;a", 10, 0, 2.0, 0}, {"main;a;b", 100, 2.0, 2.0, 0}, END},
	 {{"b", 2.0, 2.0, 100}, {"a", 1.0, 3.0, 20}, END}, 0},
	{__LINE__, "probe paths without samples become probe-only nodes",
	 {{"main;a", 1.0}, END},
	 {{"main", 1, 0, 0}, {"main;a", 5, 0, 0}, {"main;a;c", 7, 0, 0}, {"main;d", 3, 0, 0},
	  {"main;d;e", 2, 0, 0}, END},
	 {{"main;a", 5, 1.0, 1.0, 0}, {"main;a;c", 7, 0, 0, HP_T_PROBE_ONLY},
	  {"main;d", 3, 0, 0, HP_T_PROBE_ONLY}, {"main;d;e", 2, 0, 0, HP_T_PROBE_ONLY},
	  {"main", 1, 0, 1.0, 0}, END},
	 {END}, 3},
	{__LINE__, "direct recursion folds into the outermost frame",
	 {{"main;f;g;f;h", 1.0}, {"main;f;f;f", 0.5}, END},
	 {{"main", 1, 0, 0}, {"main;f", 10, 0, CCT_F_FOLDED}, {"main;f;g", 5, 0, 0}, {"main;f;h", 3, 0, 0}, END},
	 {{"main;f", 10, 0.5, 1.5, HP_T_FOLDED}, {"main;f;h", 3, 1.0, 1.0, 0}, {"main;f;g", 5, 0, 0, 0},
	  END},
	 {{"f", 0.5, 1.5, 10}, {"h", 1.0, 1.0, 3}, END}, 0},
	{__LINE__, "projection is computed on the raw path, before folding",
	 {{"main;a;u;b;u;c", 1.0}, {"main;a;u;b", 1.0}, END},
	 {{"main", 1, 0, 0}, {"main;a", 1, 0, 0}, {"main;a;b", 2, 0, 0}, {"main;a;b;c", 4, 0, 0}, END},
	 {{"main;a;u", -1, 0, 2.0, HP_T_FOLDED}, {"main;a;u;c", 4, 1.0, 1.0, 0},
	  {"main;a;u;b", 2, 1.0, 1.0, 0}, END},
	 {END}, 0},
	{__LINE__, "mutual recursion of instrumented functions",
	 {{"main;p;q;p;q;r", 2.0}, END},
	 {{"main", 1, 0, 0}, {"main;p", 6, 0, CCT_F_FOLDED}, {"main;p;q", 6, 0, CCT_F_FOLDED},
	  {"main;p;q;r", 1, 0, 0}, END},
	 {{"main;p", 6, 0, 2.0, HP_T_FOLDED}, {"main;p;q", 6, 0, 2.0, HP_T_FOLDED},
	  {"main;p;q;r", 1, 2.0, 2.0, 0}, END},
	 {{"r", 2.0, 2.0, 1}, {"p", 0, 2.0, 6}, END}, 0},
	{__LINE__, "a function sampled inside a region shows under it, with the region's calls",
	 {{"main;a", 1.0}, {"main", 0.25}, END},
	 {{"main", 1, 250, 0}, {"main;@loop", 100, 100, 0}, {"main;@loop;a", 100, 900, 0}, END},
	 {{"main;@loop;a", 100, 1.0, 1.0, 0}, {"main;a", ABSENT, 0, 0, 0},
	  {"main;@loop", 100, 0.25 * 100 / 350, 1.0 + 0.25 * 100 / 350, 0},
	  {"main", 1, 0.25 * 250 / 350, 1.25, 0}, END},
	 {{"a", 1.0, 1.0, 100}, END}, 0},
	{__LINE__, "calls and time split between a function's calls inside and outside a region",
	 {{"main;u;a", 2.0}, END},
	 {{"main", 1, 0, 0}, {"main;a", 10, 500, 0}, {"main;@r", 5, 0, 0}, {"main;@r;a", 20, 1500, 0},
	  END},
	 {{"main;u;a", 10, 0.5, 0.5, 0}, {"main;@r;u;a", 20, 1.5, 1.5, 0}, {"main;@r", 5, 0, 1.5, 0},
	  {"main", 1, 0, 2.0, 0}, END},
	 {{"a", 2.0, 2.0, 30}, END}, 0},
	{__LINE__, "region API only: under the function holding BEGIN, calls made before it stay out",
	 {{"umain;prep/12", 1.0}, {"umain;solve/16", 3.0}, END},
	 {{"", 0, 1000, 0}, {"@solver", 30, 3000, 0}, END},
	 {{"umain;@solver;solve", -1, 3.0, 3.0, 0}, {"umain;@solver", 30, 0, 3.0, 0},
	  {"umain;prep", -1, 1.0, 1.0, 0}, {"umain;solve", ABSENT, 0, 0, 0}, {"umain", -1, 0, 4.0, 0},
	  END},
	 {END}, 0},
	{__LINE__, "a region that cannot be placed stays an overlay, out of the totals",
	 {{"x;y", 1.0}, END},
	 {{"", 0, 500, 0}, {"@r", 10, 500, 0}, END},
	 {{"@r", 10, 0.5, 0.5, 0}, {"x;y", -1, 1.0, 1.0, 0}, {"x", -1, 0, 1.0, 0}, END},
	 {END}, 0},
	{__LINE__, "a path the probe tree does not have leaves calls unknown",
	 {{"main;x;y", 1.0}, END},
	 {{"main", 1, 0, 0}, {"main;z", 2, 0, 0}, {"main;z;x", 3, 0, 0}, END},
	 {{"main;x", -1, 0, 1.0, 0}, {"main;x;y", -1, 1.0, 1.0, 0}, {"main;z", 2, 0, 0, HP_T_PROBE_ONLY},
	  {"main;z;x", 3, 0, 0, HP_T_PROBE_ONLY}, END},
	 {END}, 2},
	{__LINE__, "sampled only: no probe tree, calls unknown everywhere",
	 {{"main;a;b", 1.0}, {"main;a", 1.0}, {"main;c;a;b", 2.0}, END},
	 {END},
	 {{"main", -1, 0, 4.0, 0}, {"main;a", -1, 1.0, 2.0, 0}, {"main;c;a;b", -1, 2.0, 2.0, 0}, END},
	 {{"b", 3.0, 3.0, -1}, {"a", 1.0, 4.0, -1}, {"c", 0, 2.0, -1}, END}, -1},
};

/* Source positions: functions of a file r.c, and the region BEGIN inside
 * umain at line 15. */
static const struct {
	const char *name, *file;
	int line;
} srcpos[] = {
	{"umain", "/src/r.c", 10}, {"prep", "r.c", 30}, {"solve", "/src/r.c", 40},
	{"@solver", "/src/r.c", 15},
};

static struct hp_func *fn_of(struct mb *b, const char *name)
{
	int region = name[0] == '@';
	const char *file = NULL;
	int line = 0;
	for (size_t i = 0; i < sizeof srcpos / sizeof srcpos[0]; i++)
		if (strcmp(srcpos[i].name, name) == 0) {
			file = srcpos[i].file;
			line = srcpos[i].line;
		}
	return mb__func(b, region ? name + 1 : name, region ? "[region]" : "test", file, line, region,
			0);
}

static int split(const char *path, char out[][64], int max)
{
	int n = 0;
	const char *p = path;
	while (*p && n < max) {
		size_t len = strcspn(p, ";");
		snprintf(out[n++], 64, "%.*s", (int)len, p);
		p += len;
		if (*p == ';')
			p++;
	}
	return n;
}

static struct hp_tnode *find_path(struct hp_tnode *root, const char *path)
{
	char parts[32][64];
	int n = split(path, parts, 32);
	struct hp_tnode *t = root;
	for (int i = 0; i < n && t; i++) {
		const char *want = parts[i][0] == '@' ? parts[i] + 1 : parts[i];
		struct hp_tnode *c;
		for (c = t->child; c; c = c->sibling)
			if (strcmp(c->fn->name, want) == 0)
				break;
		t = c;
	}
	return t;
}

static void dump(const struct hp_tnode *n, int depth)
{
	for (const struct hp_tnode *c = n->child; c; c = c->sibling) {
		fprintf(stderr, "    %*s%s calls=%lld self=%g total=%g flags=%#x\n", depth * 2, "",
			c->fn->name, (long long)c->calls, c->self, c->total, c->flags);
		dump(c, depth + 1);
	}
}

static int close_to(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static int run_case(const struct tcase *tc)
{
	struct mb *b = mb__new();
	int fail = 0;
	/* probe tree first: it decides which functions are instrumented */
	struct pnode *full = NULL, *pf = NULL;
	if (tc->p[0].path) {
		full = mb__proot(b);
		for (int i = 0; tc->p[i].path; i++) {
			char parts[32][64];
			int n = split(tc->p[i].path, parts, 32);
			struct pnode *q = full;
			for (int k = 0; k < n; k++)
				q = mb__pchild(b, q, fn_of(b, parts[k]));
			q->calls += (uint64_t)tc->p[i].calls;
			q->period += (uint64_t)tc->p[i].period_ms * 1000000ull;
			q->flags |= tc->p[i].flags;
		}
		pf = mb__splice_regions(b, full);
	}
	struct hp_tnode *root = mb__root(b);
	for (int i = 0; tc->s[i].path; i++) {
		char parts[32][64];
		int n = split(tc->s[i].path, parts, 32);
		struct mb_pos pos = {root, pf};
		for (int k = 0; k < n; k++) {
			char *sl = strchr(parts[k], '/');
			int line = sl ? atoi(sl + 1) : 0;
			if (sl)
				*sl = 0;
			pos = mb__step(b, pos, fn_of(b, parts[k]), 0);
			if (line && !pos.t->line)
				pos.t->line = line;
		}
		pos.t->self += tc->s[i].secs;
		pos.t->self_raw += tc->s[i].secs;
		pos.t->sampled_self += tc->s[i].secs;
	}
	int po = -1;
	if (pf) {
		po = mb__join(b, root, pf);
		mb__regions(b, root, full, 1e-9, NULL);
	} else {
		mb__totals(root);
	}
	if (tc->probe_only >= 0 && po != tc->probe_only) {
		fprintf(stderr, "FAIL line %d (%s): %d probe-only nodes, expected %d\n", tc->line, tc->name,
			po, tc->probe_only);
		fail = 1;
	}
	for (int i = 0; tc->f[i].path; i++) {
		const struct fact *f = &tc->f[i];
		struct hp_tnode *t = find_path(root, f->path);
		if (f->calls == ABSENT) {
			if (t) {
				fprintf(stderr, "FAIL line %d (%s): node %s exists (self %g calls %lld)\n",
					tc->line, tc->name, f->path, t->self, (long long)t->calls);
				fail = 1;
			}
			continue;
		}
		if (!t) {
			fprintf(stderr, "FAIL line %d (%s): no node %s\n", tc->line, tc->name, f->path);
			fail = 1;
			continue;
		}
		if ((f->calls != -2 && t->calls != f->calls) || (f->self >= 0 && !close_to(t->self, f->self)) ||
		    (f->total >= 0 && !close_to(t->total, f->total)) || (t->flags & f->flags) != f->flags) {
			fprintf(stderr,
				"FAIL line %d (%s): %s: calls %lld self %g total %g flags %#x; expected "
				"calls %ld self %g total %g flags %#x\n",
				tc->line, tc->name, f->path, (long long)t->calls, t->self, t->total, t->flags,
				f->calls, f->self, f->total, f->flags);
			fail = 1;
		}
	}
	if (tc->flat[0].name) {
		struct hp_fstat *rows;
		size_t n = mb__flat(b, root, &rows);
		for (int i = 0; tc->flat[i].name; i++) {
			const struct ffact *e = &tc->flat[i];
			const struct hp_fstat *r = NULL;
			for (size_t k = 0; k < n; k++)
				if (strcmp(rows[k].fn->name, e->name) == 0)
					r = &rows[k];
			if (!r || !close_to(r->self, e->self) || !close_to(r->total, e->total) ||
			    r->calls != e->calls) {
				fprintf(stderr,
					"FAIL line %d (%s): flat %s: self %g total %g calls %lld; expected "
					"self %g total %g calls %ld\n",
					tc->line, tc->name, e->name, r ? r->self : -1, r ? r->total : -1,
					r ? (long long)r->calls : -9, e->self, e->total, e->calls);
				fail = 1;
			}
		}
		/* sorted by self, descending */
		for (size_t k = 1; k < n; k++)
			if (rows[k].self > rows[k - 1].self) {
				fprintf(stderr, "FAIL line %d (%s): flat not sorted by self\n", tc->line, tc->name);
				fail = 1;
			}
		free(rows);
	}
	if (fail) {
		fprintf(stderr, "  tree:\n");
		dump(root, 0);
	}
	mb__free(b);
	return fail;
}

/* Merging: the same tree twice gives every metric doubled; calls stay
 * unknown only where both are unknown; a second tree's new path appears. */
static int test_merge(void)
{
	struct mb *b = mb__new();
	struct hp_tnode *t1 = mb__root(b), *t2 = mb__root(b), *dst = mb__root(b);
	struct hp_func *mainf = fn_of(b, "main"), *a = fn_of(b, "a"), *c = fn_of(b, "c");
	struct hp_tnode *x = mb__child(b, mb__child(b, t1, mainf, 1), a, 1);
	x->self = x->self_raw = x->sampled_self = 1.0;
	x->calls = 5;
	struct hp_tnode *y = mb__child(b, mb__child(b, t2, mainf, 1), a, 1);
	y->self = y->self_raw = y->sampled_self = 2.0;
	struct hp_tnode *z = mb__child(b, mb__child(b, t2, mainf, 1), c, 1);
	z->self = z->self_raw = z->sampled_self = 0.5;
	mb__totals(t1);
	mb__totals(t2);
	mb__merge(b, dst, t1);
	mb__merge(b, dst, t2);
	int fail = 0;
	struct hp_tnode *ma = find_path(dst, "main;a"), *mc = find_path(dst, "main;c"),
			*mm = find_path(dst, "main");
	if (!ma || !close_to(ma->self, 3.0) || ma->calls != 5 || !mc || mc->calls != -1 ||
	    !close_to(mc->total, 0.5) || !mm || !close_to(mm->total, 3.5) || mm->nchildren != 2) {
		fprintf(stderr, "FAIL line %d (merge): main;a self %g calls %lld, main;c calls %lld, main total %g\n",
			__LINE__, ma ? ma->self : -1, ma ? (long long)ma->calls : -9,
			mc ? (long long)mc->calls : -9, mm ? mm->total : -1);
		dump(dst, 0);
		fail = 1;
	}
	/* a node probe-only in one thread and sampled in another is not
	 * probe-only once merged */
	struct hp_tnode *p1 = mb__root(b), *p2 = mb__root(b), *pm = mb__root(b);
	struct hp_tnode *po = mb__child(b, p1, c, 0);
	po->flags |= HP_T_PROBE_ONLY;
	po->calls = 3;
	struct hp_tnode *ps = mb__child(b, p2, c, 0);
	ps->self = ps->sampled_self = ps->samples = 1;
	mb__totals(p2);
	mb__merge(b, pm, p1);
	mb__merge(b, pm, p2);
	struct hp_tnode *mc2 = find_path(pm, "c");
	if (!mc2 || (mc2->flags & HP_T_PROBE_ONLY) || mc2->calls != 3) {
		fprintf(stderr, "FAIL line %d (merge probe-only): flags %#x calls %lld\n", __LINE__,
			mc2 ? mc2->flags : 0, mc2 ? (long long)mc2->calls : -9);
		fail = 1;
	}
	/* merging is by path, so merging t1 into a copy of itself doubles it */
	struct hp_tnode *twice = mb__root(b);
	mb__merge(b, twice, t1);
	mb__merge(b, twice, t1);
	struct hp_tnode *ta = find_path(twice, "main;a");
	if (!ta || ta->calls != 10 || !close_to(ta->total, 2.0)) {
		fprintf(stderr, "FAIL line %d (merge twice): calls %lld total %g\n", __LINE__,
			ta ? (long long)ta->calls : -9, ta ? ta->total : -1);
		fail = 1;
	}
	mb__free(b);
	return fail;
}

/* Flat totals count a function once per path even when the tree holds it
 * twice on one path (trees built without folding, e.g. probe-only nodes). */
static int test_flat_once_per_path(void)
{
	struct mb *b = mb__new();
	struct hp_tnode *root = mb__root(b);
	struct hp_func *f = fn_of(b, "f"), *g = fn_of(b, "g");
	struct hp_tnode *f1 = mb__child(b, root, f, 0);
	struct hp_tnode *g1 = mb__child(b, f1, g, 0);
	struct hp_tnode *f2 = mb__child(b, g1, f, 0);
	f1->self = 1;
	f2->self = 2;
	g1->self = 4;
	mb__totals(root);
	struct hp_fstat *rows;
	size_t n = mb__flat(b, root, &rows);
	int fail = 0;
	for (size_t i = 0; i < n; i++) {
		double want_self = rows[i].fn == f ? 3 : 4, want_total = rows[i].fn == f ? 7 : 6;
		if (!close_to(rows[i].self, want_self) || !close_to(rows[i].total, want_total)) {
			fprintf(stderr, "FAIL line %d (flat once per path): %s self %g total %g, expected %g %g\n",
				__LINE__, rows[i].fn->name, rows[i].self, rows[i].total, want_self, want_total);
			fail = 1;
		}
	}
	if (n != 2 || rows[0].fn != g) {
		fprintf(stderr, "FAIL line %d (flat once per path): %zu rows, first %s\n", __LINE__, n,
			n ? rows[0].fn->name : "-");
		fail = 1;
	}
	char buf[256];
	if (strcmp(mb__path(f2, buf, sizeof buf), "f;g;f") != 0) {
		fprintf(stderr, "FAIL line %d: mb__path gave %s\n", __LINE__, buf);
		fail = 1;
	}
	free(rows);
	mb__free(b);
	return fail;
}

/* ---- folding hyprof's own frames (mb__fold_hyprof) ----------------------
 * A frame "!name" is hyprof's code (module libhyprof_mpi.so).  Facts: path in
 * the folded tree (names only), self, total (< 0 = no check), and whether
 * the node must be hyprof's (1), must not be (0), or ABSENT. */
struct kfact { const char *path; double self, total; int hyprof; };
struct kcase {
	int line;
	const char *name;
	struct spath s[8];
	struct kfact f[10];
	size_t folded;          /* hyprof nodes that disappear */
};

static const struct kcase fold_cases[] = {
	{__LINE__, "wrapper layers and PMPI_X fold into the MPI call",
	 {{"main;halo;!MPI_Sendrecv;!hpw_MPI_Sendrecv;!hp_w_sendrecv;!sendrecv_core;PMPI_Sendrecv;wait", 2.0},
	  {"main;halo;!MPI_Sendrecv;!hpw_MPI_Sendrecv;!hp_w_sendrecv;!sendrecv_core;PMPI_Sendrecv", 0.5},
	  {"main;halo;!MPI_Sendrecv;!hpw_MPI_Sendrecv;PMPI_Sendrecv;wait", 1.0}, END},
	 {{"main;halo;MPI_Sendrecv", 0.5, 3.5, 0}, {"main;halo;MPI_Sendrecv;wait", 3.0, 3.0, 0},
	  {"main;halo;MPI_Sendrecv;PMPI_Sendrecv", 0, 0, ABSENT},
	  {"main;halo;MPI_Sendrecv;hp_w_sendrecv", 0, 0, ABSENT},
	  {"main;halo", 0, 3.5, 0}, END},
	 4},
	{__LINE__, "time inside the wrapper stays one hyprof node under the call",
	 {{"main;halo;!MPI_Sendrecv;!hpw_MPI_Sendrecv;!hp_w_sendrecv;!sendrecv_core", 0.25},
	  {"main;halo;!MPI_Sendrecv;!hpw_MPI_Sendrecv;!hp_w_sendrecv;!sendrecv_core;PMPI_Sendrecv", 1.0}, END},
	 {{"main;halo;MPI_Sendrecv", 1.0, 1.25, 0}, {"main;halo;MPI_Sendrecv;sendrecv_core", 0.25, 0.25, 1},
	  {"main;halo;MPI_Sendrecv;hpw_MPI_Sendrecv", 0, 0, ABSENT}, END},
	 3},
	{__LINE__, "tail-called hp_w_finalize: the call from its name, the merge stays hyprof's",
	 {{"main;!hp_w_finalize;!hp_merge_at_finalize;PMPI_Comm_dup;progress", 1.0},
	  {"main;!hp_w_finalize;PMPI_Finalize;fin_x", 0.5}, {"main;!hp_w_finalize;!hp_merge_at_finalize", 0.125}, END},
	 {{"main;MPI_Finalize", 0, 1.625, 0}, {"main;MPI_Finalize;fin_x", 0.5, 0.5, 0},
	  {"main;MPI_Finalize;hp_merge_at_finalize", 0.125, 1.125, 1},
	  {"main;MPI_Finalize;hp_merge_at_finalize;PMPI_Comm_dup;progress", 1.0, 1.0, 0},
	  {"main;hp_w_finalize", 0, 0, ABSENT}, {"main", 0, 1.625, 0}, END},
	 1},
	{__LINE__, "Fortran alias and a wrapper class shared by several calls",
	 {{"main;!mpi_ssend_;!hp_f_Ssend;!hpw_MPI_Ssend;!hp_w_send;PMPI_Ssend;lib", 1.0},
	  {"main;!MPI_SEND;!hpw_MPI_Send;!hp_w_send;PMPI_Send", 2.0}, END},
	 {{"main;MPI_Ssend;lib", 1.0, 1.0, 0}, {"main;MPI_Send", 2.0, 2.0, 0},
	  {"main;MPI_Ssend;PMPI_Ssend", 0, 0, ABSENT}, {"main;hp_w_send", 0, 0, ABSENT}, END},
	 7},
	{__LINE__, "a wrapper calling out to anything but its call is hyprof's work",
	 {{"main;!MPI_Send;!hpw_MPI_Send;!hp_w_send;memcpy", 0.5}, {"main;!MPI_Send;!hp_w_send;PMPI_Send", 1.0}, END},
	 {{"main;MPI_Send", 1.0, 1.5, 0}, {"main;MPI_Send;hp_w_send", 0, 0.5, 1},
	  {"main;MPI_Send;hp_w_send;memcpy", 0.5, 0.5, 0}, END},
	 3},
	{__LINE__, "PMPI_X resolved under its other name MPI_X still folds",
	 {{"main;!MPI_Allreduce;!hp_w_allreduce;MPI_Allreduce;coll", 1.0}, END},
	 {{"main;MPI_Allreduce;coll", 1.0, 1.0, 0}, {"main;MPI_Allreduce;MPI_Allreduce", 0, 0, ABSENT}, END},
	 2},
	{__LINE__, "hyprof code outside MPI: the run is one node, the user's frames below",
	 {{"main;!hp_thread_start;!hp_thread_run;work", 1.0}, {"main;!hp_thread_start", 0.5}, END},
	 {{"main;hp_thread_run;work", 1.0, 1.0, 0}, {"main;hp_thread_run", 0, 1.0, 1},
	  {"main;hp_thread_start", 0.5, 0.5, 1}, {"main", 0, 1.5, 0}, END},
	 0},
	{__LINE__, "init set-up under a tail-called hp_w_init",
	 {{"main;!hp_w_init;PMPI_Init;ompi_init", 1.0}, {"main;!hp_w_init;!start;!setup;PMPI_Allreduce;coll", 0.5}, END},
	 {{"main;MPI_Init;ompi_init", 1.0, 1.0, 0}, {"main;MPI_Init;setup;PMPI_Allreduce;coll", 0.5, 0.5, 0},
	  {"main;MPI_Init;setup", 0, 0.5, 1}, {"main;MPI_Init;start", 0, 0, ABSENT}, END},
	 2},
};

static struct hp_func *kfn_of(struct mb *b, const char *name)
{
	int own = name[0] == '!';
	return mb__func(b, own ? name + 1 : name, own ? "libhyprof_mpi.so" : "test", NULL, 0, 0, own);
}

static double ksum_self(const struct hp_tnode *n)
{
	double s = n->self;
	for (const struct hp_tnode *c = n->child; c; c = c->sibling)
		s += ksum_self(c);
	return s;
}

/* No hyprof node has a hyprof child: every run became at most one node. */
static int kruns(const struct hp_tnode *n)
{
	for (const struct hp_tnode *c = n->child; c; c = c->sibling) {
		if (n->fn && n->fn->is_measurement && c->fn->is_measurement)
			return 1;
		if (kruns(c))
			return 1;
	}
	return 0;
}

static int run_fold_case(const struct kcase *tc)
{
	struct mb *b = mb__new();
	struct hp_tnode *root = mb__root(b);
	double want = 0;
	for (int i = 0; tc->s[i].path; i++) {
		char parts[32][64];
		int n = split(tc->s[i].path, parts, 32);
		struct hp_tnode *t = root;
		for (int k = 0; k < n; k++)
			t = mb__child(b, t, kfn_of(b, parts[k]), 1);
		t->self += tc->s[i].secs;
		t->self_raw += tc->s[i].secs;
		t->sampled_self += tc->s[i].secs;
		t->samples += 1;
		want += tc->s[i].secs;
	}
	mb__totals(root);
	size_t folded = 0;
	struct hp_tnode *r = mb__fold_hyprof(b, root, &folded);
	int fail = 0;
	if (r == root || !close_to(r->total, want) || !close_to(ksum_self(r), want) ||
	    !close_to(r->total_raw, want) || !close_to(r->sampled_total, want) || kruns(r)) {
		fprintf(stderr, "FAIL line %d (%s): total %g self sum %g (want %g), runs left %d\n",
			tc->line, tc->name, r->total, ksum_self(r), want, kruns(r));
		fail = 1;
	}
	if (folded != tc->folded) {
		fprintf(stderr, "FAIL line %d (%s): %zu nodes folded, expected %zu\n", tc->line,
			tc->name, folded, tc->folded);
		fail = 1;
	}
	for (int i = 0; tc->f[i].path; i++) {
		const struct kfact *f = &tc->f[i];
		struct hp_tnode *t = find_path(r, f->path);
		if (f->hyprof == ABSENT) {
			if (t) {
				fprintf(stderr, "FAIL line %d (%s): node %s exists\n", tc->line, tc->name, f->path);
				fail = 1;
			}
			continue;
		}
		if (!t || !close_to(t->self, f->self) || (f->total >= 0 && !close_to(t->total, f->total)) ||
		    t->fn->is_measurement != f->hyprof) {
			fprintf(stderr,
				"FAIL line %d (%s): %s: %s self %g total %g hyprof %d; expected self %g "
				"total %g hyprof %d\n",
				tc->line, tc->name, f->path, t ? "found" : "missing", t ? t->self : -1,
				t ? t->total : -1, t ? t->fn->is_measurement : -1, f->self, f->total, f->hyprof);
			fail = 1;
		}
	}
	if (fail) {
		fprintf(stderr, "  folded tree:\n");
		dump(r, 0);
	}
	mb__free(b);
	return fail;
}

/* A tree without hyprof frames is returned as it is. */
static int test_fold_none(void)
{
	struct mb *b = mb__new();
	struct hp_tnode *root = mb__root(b);
	struct hp_tnode *t = mb__child(b, mb__child(b, root, kfn_of(b, "main"), 1), kfn_of(b, "PMPI_Send"), 1);
	t->self = 1;
	mb__totals(root);
	size_t folded = 7;
	int fail = mb__fold_hyprof(b, root, &folded) != root || folded != 0;
	if (fail)
		fprintf(stderr, "FAIL fold of a tree without hyprof frames: new tree or %zu folded\n", folded);
	mb__free(b);
	return fail;
}

int main(void)
{
	int failed = 0, n = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, n++)
		failed += run_case(&cases[i]);
	for (size_t i = 0; i < sizeof fold_cases / sizeof fold_cases[0]; i++, n++)
		failed += run_fold_case(&fold_cases[i]);
	failed += test_merge();
	failed += test_flat_once_per_path();
	failed += test_fold_none();
	n += 3;
	printf("test_model_build: %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
