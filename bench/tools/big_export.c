/* bench/tools/big_export.c - time and memory of the exports and the HTML
 * report on a large profile, generated synthetically in memory.
 *
 * Usage: hp_bench_export FORMAT OUT [NODES] [RANKS]
 *   FORMAT: pprof | folded | speedscope | tau | tau2 | svg | html | none
 *           (tau2: tau with --callpath-depth 2, TAU's own default depth)
 *   NODES:  call-path nodes of the merged tree (default 1000000)
 *   RANKS:  MPI ranks, one thread each (default 64)
 *
 * The model: a merged call tree of NODES nodes (random shape, depth up to
 * 48, 20000 functions in 40 modules, C++-like names of 20-70 characters,
 * heavy-tailed self times) and RANKS per-rank trees whose union is that tree:
 * each subtree below depth 2 belongs to 2 random ranks, which share its self
 * values, so each rank's tree holds about 2/RANKS of the nodes plus their
 * ancestors (ranks doing different work; 64 copies of a 1M-node tree would
 * not fit the 2 GB budget of the model, whatever the exporters do).  No profile
 * file is read: this measures the writers on the model as `hyprof export`
 * gets it from the loader.  Prints one line:
 *   format F nodes N ranks R build_s B export_wall_s W export_cpu_s C bytes S
 *   maxrss_mb M cpu_ratio C/5s rss_ratio M/2048MB
 * CPU time (user + system) is the figure to compare with the 5 s target on a
 * shared machine: the wall time includes waiting for the other jobs.
 * Run each format in its own process (bench/tools/run.sh) so maxrss is that
 * format's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "tools/export.h"
#include "tools/html.h"

#define NFUNC 20000
#define NMOD 40
#define MAXDEPTH 48
#define OWNERS 2

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct gnode {                 /* generator's view: parent index, owners */
	int32_t parent;
	int16_t owner[OWNERS];
};

static void link_child(struct hp_tnode *p, struct hp_tnode *c)
{
	c->parent = p;
	c->sibling = p->child;
	p->child = c;
	p->nchildren++;
}

static void totals(struct hp_tnode *root, struct hp_tnode *nodes, size_t n)
{
	/* children have larger indices than their parent: go backwards */
	for (size_t i = n; i-- > 0;) {
		struct hp_tnode *x = &nodes[i];
		x->total += x->self;
		x->total_raw += x->self_raw;
		x->sampled_total += x->sampled_self;
		x->parent->total += x->total;
		x->parent->total_raw += x->total_raw;
		x->parent->sampled_total += x->sampled_total;
	}
	(void)root;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s pprof|folded|speedscope|tau|svg|html|none OUT [NODES] [RANKS]\n",
			argv[0]);
		return 2;
	}
	const char *format = argv[1], *outpath = argv[2];
	size_t N = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000000;
	int R = argc > 4 ? atoi(argv[4]) : 64;
	if (N < 10 || R < 1 || R > 30000) {
		fprintf(stderr, "bad NODES or RANKS\n");
		return 2;
	}
	double t0 = now();

	/* functions */
	static const char *ns[] = {"solver", "mesh", "comm", "io", "linalg", "physics", "util", "amr"};
	static const char *verbs[] = {"compute", "update", "apply", "exchange", "assemble", "reduce",
				      "interpolate", "advance", "pack", "unpack", "refine", "solve"};
	struct hp_func *fn = calloc(NFUNC, sizeof(*fn));
	char buf[256], modname[64], file[128];
	for (int i = 0; i < NFUNC; i++) {
		snprintf(buf, sizeof buf, "%s::%s_%s<double, %d>::%s_%d", ns[i % 8], ns[(i / 8) % 8],
			 verbs[i % 12], i % 7, verbs[(i / 12) % 12], i);
		fn[i].name = strdup(buf);
		snprintf(modname, sizeof modname, "libmod%02d.so", i % NMOD);
		fn[i].module = strdup(modname);
		snprintf(file, sizeof file, "/src/app/%s/%s_%d.cpp", ns[i % 8], verbs[i % 12], i % 500);
		fn[i].file = strdup(file);
		fn[i].line = 10 + i % 3000;
		fn[i].id = (uint32_t)i;
	}

	/* merged tree shape: each new node hangs under a random recent node,
	 * biased to deep paths, depth capped */
	struct gnode *g = calloc(N, sizeof(*g));
	struct hp_tnode *mt = calloc(N + 1, sizeof(*mt));
	uint8_t *depth = calloc(N, 1);
	struct hp_tnode *mroot = &mt[N];
	mroot->calls = -1;
	for (size_t i = 0; i < N; i++) {
		int32_t p;
		if (i < 4) {
			p = -1;
		} else {
			/* 70%: near the last nodes (long chains), else anywhere */
			size_t back = urand() < 0.7 ? 1 + rnd() % 64 : 1 + rnd() % i;
			p = (int32_t)(i - (back > i ? i : back));
			while (p >= 0 && depth[p] >= MAXDEPTH - 1)
				p = g[p].parent;
		}
		g[i].parent = p;
		depth[i] = p < 0 ? 0 : depth[p] + 1;
		/* the top of the tree runs everywhere; below depth 2 a subtree is
		 * the work of the 2 ranks that own its top (ranks do different
		 * work, so the merged tree is about the sum of theirs) */
		for (int k = 0; k < OWNERS; k++)
			g[i].owner[k] = depth[i] <= 2 || p < 0 ? (int16_t)(rnd() % (uint64_t)R)
							   : g[p].owner[k];
		struct hp_tnode *x = &mt[i];
		x->fn = &fn[(rnd() % 97 == 0 ? rnd() : (uint64_t)i * 2654435761u) % NFUNC];
		x->calls = (int64_t)(1 + rnd() % 1000);
		double u = urand();
		double s = u < 0.5 ? 0 : 1e-4 / (1e-3 + (1 - u) * (1 - u)); /* heavy tail */
		x->samples = (double)(int64_t)(s * 1000);
		x->self = x->samples * 1e-3;
		x->sampled_self = x->self;
		x->self_raw = x->self;
		x->pc = 0x400000 + 0x40 * (uint64_t)(x->fn->id) + (i & 63);
		x->line = 1 + (int)(i % 400);
		link_child(p < 0 ? mroot : &mt[p], x);
	}
	totals(mroot, mt, N);

	/* per-rank trees: the nodes owned by the rank and their ancestors */
	struct hp_model m;
	memset(&m, 0, sizeof m);
	m.program = "/apps/bigsim/bin/bigsim";
	m.dir = "/tmp/bigsim-prof";
	m.mode = "hybrid";
	m.source = "task-clock";
	m.unit = "nanoseconds";
	m.period = 1000000;
	m.nprocs = R;
	m.nthreads = R;
	m.root = mroot;
	m.funcs = calloc(NFUNC, sizeof(*m.funcs));
	for (int i = 0; i < NFUNC; i++)
		m.funcs[i] = &fn[i];
	m.nfuncs = NFUNC;
	m.threads = calloc((size_t)R, sizeof(*m.threads));
	m.nthreadinfo = (size_t)R;
	int32_t *copy = malloc(N * sizeof(*copy)); /* node -> index in its rank's tree, per pass */
	size_t rank_nodes = 0;
	for (int r = 0; r < R; r++) {
		/* mark owned nodes and their ancestors */
		size_t cnt = 0;
		for (size_t i = 0; i < N; i++)
			copy[i] = -1;
		for (size_t i = N; i-- > 0;) {
			int own = 0;
			for (int k = 0; k < OWNERS; k++)
				own |= g[i].owner[k] == r;
			if (own || copy[i] == -2)
				for (int32_t a = (int32_t)i; a >= 0 && copy[a] == -1; a = g[a].parent)
					copy[a] = -2;
		}
		for (size_t i = 0; i < N; i++)
			if (copy[i] == -2)
				copy[i] = (int32_t)cnt++;
		struct hp_tnode *t = calloc(cnt + 1, sizeof(*t));
		struct hp_tnode *root = &t[cnt];
		root->calls = -1;
		for (size_t i = 0; i < N; i++) {
			if (copy[i] < 0)
				continue;
			struct hp_tnode *x = &t[copy[i]], *src = &mt[i];
			int share = 0;
			for (int k = 0; k < OWNERS; k++)
				share += g[i].owner[k] == r;
			x->fn = src->fn;
			x->pc = src->pc;
			x->line = src->line;
			x->samples = src->samples * share / OWNERS;
			x->self = src->self * share / OWNERS;
			x->sampled_self = x->self;
			x->self_raw = x->self;
			x->calls = share ? src->calls * share / OWNERS : 0;
			link_child(g[i].parent < 0 ? root : &t[copy[g[i].parent]], x);
		}
		totals(root, t, cnt);
		struct hp_threadinfo *ti = &m.threads[r];
		ti->rank = r;
		ti->pid = 10000 + r;
		ti->tid = 10000 + r;
		ti->index = 0;
		ti->root = root;
		ti->wall = ti->cpu = root->total;
		rank_nodes += cnt;
	}
	m.total = mroot->total;
	m.duration = mroot->total / R;
	m.samples = (uint64_t)(mroot->total * 1000);

	/* flat profile */
	struct hp_fstat *flat = calloc(NFUNC, sizeof(*flat));
	for (int i = 0; i < NFUNC; i++) {
		flat[i].fn = &fn[i];
		flat[i].calls = 0;
	}
	for (size_t i = 0; i < N; i++) {
		struct hp_fstat *s = &flat[mt[i].fn->id];
		s->self += mt[i].self;
		s->total += mt[i].total; /* over-counts recursion; fine for a bench */
		s->self_raw += mt[i].self_raw;
		s->calls += mt[i].calls;
	}
	m.flat = flat;
	m.nflat = NFUNC;
	static struct hp_kv cost[3] = {{.key = "low", .type = HP_KV_F64, .d = 1.5},
				       {.key = "high", .type = HP_KV_F64, .d = 2.5},
				       {.key = "predicted", .type = HP_KV_F64, .d = 2.0}};
	m.cost.v = cost;
	m.cost.n = 3;
	double t1 = now();

	struct rusage ru0;
	getrusage(RUSAGE_SELF, &ru0);
	struct export_opts o;
	export__opts_init(&o);
	char err[512] = "", tmp[4200];
	int rc = 0;
	if (strcmp(format, "tau") == 0 || strcmp(format, "tau2") == 0) {
		o.callpath_depth = format[3] == '2' ? 2 : 0;
		rc = export__tau(&m, &o, outpath, err, sizeof err);
	} else if (strcmp(format, "none") != 0) {
		FILE *f = export__open(outpath, tmp, sizeof tmp, err, sizeof err);
		if (!f) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		if (strcmp(format, "pprof") == 0)
			rc = export__pprof(&m, &o, f, err, sizeof err);
		else if (strcmp(format, "folded") == 0)
			rc = export__folded(&m, &o, f, err, sizeof err);
		else if (strcmp(format, "speedscope") == 0)
			rc = export__speedscope(&m, &o, f, err, sizeof err);
		else if (strcmp(format, "svg") == 0)
			rc = export__svg(&m, &o, f, err, sizeof err);
		else if (strcmp(format, "html") == 0)
			rc = html__report(&m, f);
		else {
			fprintf(stderr, "unknown format %s\n", format);
			return 2;
		}
		rc = export__commit(f, tmp, outpath, rc, err, sizeof err);
	}
	double t2 = now();
	if (rc) {
		fprintf(stderr, "%s: %s\n", format, err);
		return 1;
	}
	/* size: a file, or every file of the tau directory */
	unsigned long long bytes = 0;
	struct stat st;
	if (strncmp(format, "tau", 3) == 0) {
		char p[4200];
		for (int r = 0; r < R; r++) {
			snprintf(p, sizeof p, "%s/profile.%d.0.0", outpath, r);
			if (stat(p, &st) == 0)
				bytes += (unsigned long long)st.st_size;
		}
	} else if (strcmp(format, "none") != 0 && stat(outpath, &st) == 0) {
		bytes = (unsigned long long)st.st_size;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double rss = (double)ru.ru_maxrss / 1024.0;
#define TV(t) ((double)(t).tv_sec + 1e-6 * (double)(t).tv_usec)
	double cpu = TV(ru.ru_utime) + TV(ru.ru_stime) - TV(ru0.ru_utime) - TV(ru0.ru_stime);
	printf("format %-10s nodes %zu ranks %d (rank trees %zu nodes) build_s %.2f export_wall_s %.2f "
	       "export_cpu_s %.2f bytes %llu maxrss_mb %.0f cpu_ratio %.2f rss_ratio %.2f\n",
	       format, N, R, rank_nodes, t1 - t0, t2 - t1, cpu, bytes, rss, cpu / 5.0, rss / 2048.0);
	return 0;
}
