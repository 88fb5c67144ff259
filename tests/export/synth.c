/* tests/export/synth.c - a synthetic profile model with known values, and
 * every export of it, for the readers in the tests to check.
 *
 * Usage: hp_export_synth MODE OUTDIR     MODE = sampled | hybrid | measured
 *
 * The model: 2 ranks x 2 threads.  Every thread has the same call tree
 * (about 280 nodes: main > init, solve > kernel_0..29 > helper_0..7, an
 * inlined frame "axpy" under kernel_0, a region "phase1" with a folded
 * recursive "fib", and a function whose name needs escaping); thread
 * (rank r, index t) has every value of the base tree times its factor
 * f = 1 + 2r + t, so the merged tree is the base tree times 10.  Base values:
 * samples per node are integers, self time = samples x 1 ms, calls (hybrid,
 * measured) an integer per node, raw self = 1.25 x self (measured).
 *
 * OUTDIR gets: expect.json (the base tree, the factors, the functions: what
 * the readers compare with, computed here from the definitions above and not
 * by any exporter), and the exports: merged.pb.gz, r1t0.pb.gz (--rank 1
 * --thread 0), merged.folded, merged_time.folded, merged_calls.folded
 * (hybrid/measured), r0.folded, speedscope.json (split by rank),
 * speedscope_thread.json, tau/ (profile.R.0.T), tau2/ (--callpath-depth 2),
 * flame.svg, report.html,
 * compare.html (this model against a copy whose kernel_3 doubled).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/export.h"
#include "tools/html.h"

#define NKERN 30
#define NHELP 8
#define PERIOD_S 0.001

/* ---- the base tree ----------------------------------------------------- */

struct bnode {                 /* base tree node (factor 1) */
	int fn;
	int parent;
	int inl, folded;
	long samples, calls;
	int line;                  /* call-site line in the parent */
};

static struct bnode B[512];
static int NB;
static struct hp_func FN[64];
static int NF;
static const char *MODE;

static int add_func(const char *name, const char *module, const char *file, int line,
		    int region)
{
	struct hp_func *f = &FN[NF];
	f->name = strdup(name);
	f->module = strdup(module);
	f->file = file ? strdup(file) : NULL;
	f->line = line;
	f->is_region = region;
	f->id = (uint32_t)NF;
	return NF++;
}

static int add_node(int parent, int fn, long samples, int inl)
{
	struct bnode *b = &B[NB];
	b->fn = fn;
	b->parent = parent;
	b->inl = inl;
	b->samples = samples;
	b->calls = 1 + (NB * 7) % 13;
	b->line = parent >= 0 ? FN[B[parent].fn].line + 1 + (NB % 9) : 0;
	return NB++;
}

static void build_base(void)
{
	int f_main = add_func("main", "synth", "/src/synth/main.c", 10, 0);
	int f_init = add_func("init", "synth", "/src/synth/main.c", 40, 0);
	int f_solve = add_func("solve", "synth", "/src/synth/solve.c", 20, 0);
	int f_kern[NKERN], f_help[NHELP];
	char name[64];
	for (int k = 0; k < NKERN; k++) {
		snprintf(name, sizeof(name), "kernel_%d", k);
		f_kern[k] = add_func(name, "libkern.so", "/src/kern/kern.c", 100 + 10 * k, 0);
	}
	for (int j = 0; j < NHELP; j++) {
		snprintf(name, sizeof(name), "helper_%d", j);
		f_help[j] = add_func(name, "libkern.so", "/src/kern/help.c", 500 + 5 * j, 0);
	}
	int f_axpy = add_func("axpy", "libkern.so", "/src/kern/blas.h", 7, 0);
	int f_phase = add_func("phase1", "synth", "/src/synth/main.c", 60, 1);
	int f_fib = add_func("fib", "synth", "/src/synth/fib.c", 3, 0);
	int f_odd = add_func("op<\"a;b\">::run & <co>", "synth", NULL, 0, 0);

	int main_ = add_node(-1, f_main, 10, 0);
	add_node(main_, f_init, 20, 0);
	int solve = add_node(main_, f_solve, 5, 0);
	for (int k = 0; k < NKERN; k++) {
		int kn = add_node(solve, f_kern[k], k + 1, 0);
		for (int j = 0; j < NHELP; j++)
			add_node(kn, f_help[j], (long)(j + 1) * ((k % 3) + 1), 0);
		if (k == 0)
			add_node(kn, f_axpy, 50, 1);
	}
	int ph = add_node(main_, f_phase, 3, 0);
	int fib = add_node(ph, f_fib, 200, 0);
	B[fib].folded = 1;
	add_node(main_, f_odd, 4, 0);
}

/* ---- model from the base tree ------------------------------------------- */

static int probes(void)
{
	return strcmp(MODE, "sampled") != 0;
}

static int measured(void)
{
	return strcmp(MODE, "measured") == 0;
}

/* A thread (or merged) tree with every value times `f`; `boost` multiplies
 * kernel_3's samples (the compare copy). */
static struct hp_tnode *make_tree(double f, double boost)
{
	struct hp_tnode *t = calloc((size_t)NB + 1, sizeof(*t));
	struct hp_tnode *root = &t[NB];
	root->calls = -1;
	for (int i = 0; i < NB; i++) {
		struct hp_tnode *n = &t[i];
		struct bnode *b = &B[i];
		struct hp_tnode *p = b->parent >= 0 ? &t[b->parent] : root;
		double s = (double)b->samples * f;
		if (strcmp(FN[b->fn].name, "kernel_3") == 0)
			s *= boost;
		n->fn = &FN[b->fn];
		n->parent = p;
		/* children in order: append */
		if (!p->child) {
			p->child = n;
		} else {
			struct hp_tnode *c = p->child;
			while (c->sibling)
				c = c->sibling;
			c->sibling = n;
		}
		p->nchildren++;
		n->flags = (b->inl ? HP_T_INLINED : 0) | (b->folded ? HP_T_FOLDED : 0);
		n->samples = s;
		n->sampled_self = s * PERIOD_S;
		n->self = s * PERIOD_S;
		n->self_raw = measured() ? n->self * 1.25 : n->self;
		n->calls = probes() ? (int64_t)llround((double)b->calls * f) : -1;
		n->line = b->line;
		/* one representative address per node: module base + function + path */
		uint64_t base = strcmp(FN[b->fn].module, "synth") == 0 ? 0x400000 : 0x7f0000000000ull;
		n->pc = base + 0x1000 * (uint64_t)b->fn + 4 * (uint64_t)(i % 64) + 0x10;
	}
	/* totals: children follow their parent in B, so go backwards */
	for (int i = NB - 1; i >= 0; i--) {
		struct hp_tnode *n = &t[i];
		n->total += n->self;
		n->total_raw += n->self_raw;
		n->sampled_total += n->sampled_self;
		n->parent->total += n->total;
		n->parent->total_raw += n->total_raw;
		n->parent->sampled_total += n->sampled_total;
	}
	return root;
}

static void make_model(struct hp_model *m, double boost)
{
	static const int factor[4] = {1, 2, 3, 4};
	memset(m, 0, sizeof(*m));
	m->dir = strdup("/tmp/synth-profile");
	m->program = strdup("/opt/synth/bin/synth");
	m->mode = strdup(MODE);
	m->timed = strcmp(MODE, "measured") == 0; /* its probes ran: times are theirs */
	m->source = strdup("task-clock");
	m->source_why = strdup("no hardware PMU: software task-clock");
	m->unit = strdup("nanoseconds");
	m->period = 1000000;
	m->nprocs = 2;
	m->nthreads = 4;
	m->funcs = calloc((size_t)NF, sizeof(*m->funcs));
	for (int i = 0; i < NF; i++)
		m->funcs[i] = &FN[i];
	m->nfuncs = (size_t)NF;
	m->root = make_tree(10, boost);
	m->total = m->root->total;
	m->duration = m->root->total / 4 * 1.1;
	for (int i = 0; i < NB; i++)
		m->samples += (uint64_t)llround(B[i].samples * 10 * (strcmp(FN[B[i].fn].name, "kernel_3") ? 1 : boost));
	m->threads = calloc(4, sizeof(*m->threads));
	m->nthreadinfo = 4;
	for (int r = 0; r < 2; r++)
		for (int t = 0; t < 2; t++) {
			struct hp_threadinfo *ti = &m->threads[2 * r + t];
			ti->rank = r;
			ti->pid = 1000 + r;
			ti->tid = 1000 + r + 50 * t;
			ti->index = t;
			ti->root = make_tree(factor[2 * r + t], boost);
			ti->samples = (uint64_t)llround(ti->root->total / PERIOD_S);
			ti->wall = m->duration;
			ti->cpu = ti->root->total;
		}
	m->ranks = calloc(2, sizeof(*m->ranks));
	m->nranks = 2;
	for (int r = 0; r < 2; r++) {
		m->ranks[r].rank = r;
		m->ranks[r].pid = 1000 + r;
		m->ranks[r].wall_raw = m->duration;
		m->ranks[r].wall_local = m->duration * 0.97;
		m->ranks[r].wall_parallel = m->duration * 0.95;
	}
	/* flat profile: per function, from the merged tree */
	m->flat = calloc((size_t)NF, sizeof(*m->flat));
	for (int i = 0; i < NF; i++) {
		m->flat[i].fn = &FN[i];
		m->flat[i].calls = probes() ? 0 : -1;
	}
	for (struct hp_tnode *n = m->root->child; n;) {
		struct hp_fstat *s = &m->flat[n->fn->id];
		s->self += n->self;
		s->total += n->total; /* no function repeats on a path here */
		s->self_raw += n->self_raw;
		s->sampled_self += n->sampled_self;
		if (n->calls >= 0)
			s->calls += n->calls;
		if (n->child) {
			n = n->child;
			continue;
		}
		while (n && !n->sibling && n->parent != m->root)
			n = n->parent;
		n = n ? n->sibling : NULL;
	}
	m->nflat = (size_t)NF;
	/* the cost system's keys, in seconds */
	static struct hp_kv cost[7];
	static const char *ck[7] = {"low", "high", "predicted", "direct", "ideal", "cache", "sampling"};
	static const double cv[7] = {0.012, 0.019, 0.015, 0.012, 0.005, 0.007, 0.021};
	for (int i = 0; i < 7; i++) {
		cost[i].key = ck[i];
		cost[i].type = HP_KV_F64;
		cost[i].d = cv[i];
	}
	m->cost.v = cost;
	m->cost.n = 7;
	static struct hp_kv calib[2] = {{.key = "probe_ns", .type = HP_KV_F64, .d = 11.5},
					{.key = "sample_us", .type = HP_KV_F64, .d = 33.0}};
	m->calib.v = calib;
	m->calib.n = 2;
	/* one process record with module paths and ranges (pprof mappings) */
	static struct hp_module mods[2];
	mods[0].path = "/opt/synth/bin/synth";
	mods[0].rec.lo = 0x400000;
	mods[0].rec.hi = 0x500000;
	mods[0].rec.flags = 1;
	mods[1].path = "/opt/synth/lib/libkern.so";
	mods[1].rec.lo = 0x7f0000000000ull;
	mods[1].rec.hi = 0x7f0000100000ull;
	static struct hp_prof prof;
	prof.modules = mods;
	prof.nmodules = 2;
	static struct hp_prof *profs[1] = {&prof};
	m->profs = profs;
	m->nprofs = 1;
}

/* ---- expectations ---------------------------------------------------------- */

static void json_path(FILE *out, int i)
{
	int chain[64], n = 0;
	for (int k = i; k >= 0; k = B[k].parent)
		chain[n++] = k;
	fputs("[", out);
	for (int k = n - 1; k >= 0; k--) {
		fputs(k == n - 1 ? "" : ",", out);
		export__json_str(out, FN[B[chain[k]].fn].name);
	}
	fputs("]", out);
}

static void write_expect(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/expect.json", dir);
	FILE *out = fopen(path, "w");
	if (!out) {
		perror(path);
		exit(1);
	}
	fprintf(out, "{\"mode\":\"%s\",\"period_s\":%g,\"probes\":%d,\"measured\":%d,"
		"\"raw_factor\":1.25,\"merged_factor\":10,\"boost_function\":\"kernel_3\",\"boost\":2,\n",
		MODE, PERIOD_S, probes(), measured());
	fputs("\"threads\":[{\"rank\":0,\"thread\":0,\"factor\":1},{\"rank\":0,\"thread\":1,\"factor\":2},"
	      "{\"rank\":1,\"thread\":0,\"factor\":3},{\"rank\":1,\"thread\":1,\"factor\":4}],\n", out);
	fputs("\"program\":\"/opt/synth/bin/synth\",\"modules\":{\"synth\":\"/opt/synth/bin/synth\","
	      "\"libkern.so\":\"/opt/synth/lib/libkern.so\"},\n\"funcs\":{", out);
	for (int i = 0; i < NF; i++) {
		fputs(i ? ",\n" : "\n", out);
		export__json_str(out, FN[i].name);
		fputs(":{\"module\":", out);
		export__json_str(out, FN[i].module);
		fputs(",\"file\":", out);
		export__json_str(out, FN[i].file ? FN[i].file : "");
		fprintf(out, ",\"line\":%d,\"region\":%d}", FN[i].line, FN[i].is_region);
	}
	fputs("},\n\"nodes\":[", out);
	for (int i = 0; i < NB; i++) {
		fputs(i ? ",\n" : "\n", out);
		fputs("{\"path\":", out);
		json_path(out, i);
		fprintf(out, ",\"samples\":%ld,\"calls\":%ld,\"inlined\":%d,\"folded\":%d,\"line\":%d}",
			B[i].samples, B[i].calls, B[i].inl, B[i].folded, B[i].line);
	}
	fputs("]}\n", out);
	fclose(out);
}

/* ---- exports ------------------------------------------------------------------ */

typedef int (*writer_fn)(struct hp_model *, const struct export_opts *, FILE *, char *, size_t);

static void run_export(struct hp_model *m, const char *dir, const char *file, writer_fn w,
		       const struct export_opts *o)
{
	char path[4096], tmp[4200], err[512] = "";
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = export__open(path, tmp, sizeof(tmp), err, sizeof(err));
	int rc = f ? w(m, o, f, err, sizeof(err)) : -EIO;
	if (f)
		rc = export__commit(f, tmp, path, rc, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "synth: %s: %s\n", file, err);
		exit(1);
	}
}

static int html_w(struct hp_model *m, const struct export_opts *o, FILE *f, char *e, size_t l)
{
	(void)o;
	int rc = html__report(m, f);
	if (rc)
		snprintf(e, l, "html__report: %s", strerror(-rc));
	return rc;
}

static struct hp_model *cmp_b;
static int compare_w(struct hp_model *m, const struct export_opts *o, FILE *f, char *e, size_t l)
{
	(void)o;
	int rc = html__compare(m, cmp_b, f);
	if (rc)
		snprintf(e, l, "html__compare: %s", strerror(-rc));
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "sampled") && strcmp(argv[1], "hybrid") &&
			  strcmp(argv[1], "measured"))) {
		fprintf(stderr, "usage: %s sampled|hybrid|measured OUTDIR\n", argv[0]);
		return 2;
	}
	MODE = argv[1];
	const char *dir = argv[2];
	char mk[4096];
	snprintf(mk, sizeof(mk), "%s", dir);
	for (char *p = mk + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(mk, 0777);
			*p = '/';
		}
	if (mkdir(mk, 0777) != 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	build_base();
	struct hp_model m, mb;
	make_model(&m, 1);
	make_model(&mb, 2);
	cmp_b = &mb;
	write_expect(dir);

	struct export_opts o;
	export__opts_init(&o);
	run_export(&m, dir, "merged.pb.gz", export__pprof, &o);
	run_export(&m, dir, "merged.folded", export__folded, &o);
	o.value = EXPORT_V_TIME;
	run_export(&m, dir, "merged_time.folded", export__folded, &o);
	if (probes()) {
		o.value = EXPORT_V_CALLS;
		run_export(&m, dir, "merged_calls.folded", export__folded, &o);
	}
	o.value = EXPORT_V_DEFAULT;
	run_export(&m, dir, "speedscope.json", export__speedscope, &o);
	o.split = EXPORT_SPLIT_THREAD;
	run_export(&m, dir, "speedscope_thread.json", export__speedscope, &o);
	o.split = EXPORT_SPLIT_AUTO;
	run_export(&m, dir, "flame.svg", export__svg, &o);
	run_export(&m, dir, "report.html", html_w, &o);
	run_export(&m, dir, "compare.html", compare_w, &o);
	o.rank = 1;
	o.thread = 0;
	run_export(&m, dir, "r1t0.pb.gz", export__pprof, &o);
	o.thread = -1;
	o.rank = 0;
	run_export(&m, dir, "r0.folded", export__folded, &o);
	o.rank = -1;
	char err[512], tau[4096];
	snprintf(tau, sizeof(tau), "%s/tau", dir);
	if (export__tau(&m, &o, tau, err, sizeof(err)) < 0) {
		fprintf(stderr, "synth: tau: %s\n", err);
		return 1;
	}
	snprintf(tau, sizeof(tau), "%s/tau2", dir);
	o.callpath_depth = 2;
	if (export__tau(&m, &o, tau, err, sizeof(err)) < 0) {
		fprintf(stderr, "synth: tau --callpath-depth 2: %s\n", err);
		return 1;
	}
	o.callpath_depth = 0;
	/* a selection that matches nothing must fail with a reason */
	o.rank = 7;
	FILE *devnull = fopen("/dev/null", "w");
	int rc = export__folded(&m, &o, devnull, err, sizeof(err));
	fclose(devnull);
	if (rc != -ENOENT || !strstr(err, "ranks")) {
		fprintf(stderr, "synth: --rank 7 should fail with -ENOENT and a reason, got %d '%s'\n",
			rc, err);
		return 1;
	}
	printf("synth: %s model with %d nodes per thread written to %s\n", MODE, NB, dir);
	return 0;
}
