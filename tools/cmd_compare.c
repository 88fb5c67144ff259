/* tools/cmd_compare.c - `hyprof compare [--json] A B`: two profiles of the
 * same program side by side (typically sampled vs measured, or raw vs
 * compensated).
 *
 * Per function: self share of each profile's total, the difference in
 * points (B - A), calls, and a "distorted" flag on functions the measured
 * mode distorts: calls * calibrated timed_probe_ns (CALIB key
 * "timed_probe_ns.median") exceeds the function's own time (compensated in
 * the measured profile, sampled in the other), or the share differs by more
 * than --threshold points.  Per call path: total share in each.  Sorted by
 * |difference|.
 *
 * When exactly one side is measured, its tree holds only instrumented
 * functions; the other side's paths are projected onto the functions the
 * measured side knows (time in the others goes to the nearest known
 * caller), the same attribution a timed probe makes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/export.h"
#include "tools/html.h"
#include "tools/json.h"
#include "tools/model.h"
#include "tools/util.h"

int cmd_compare(int argc, char **argv);

enum { C_JSON = 1000, C_TOP, C_THRESHOLD, C_RAW, C_HTML, C_OUT, C_NOFOLD };

static const struct tool_opt compare_opts[] = {
	{"json", 0, NULL, NULL, "print JSON", C_JSON},
	{"top", 'n', "N", NULL, "rows per table (text default 25, JSON all)", C_TOP},
	{"threshold", 0, "POINTS", NULL, "flag functions whose share differs by more (default 5)", C_THRESHOLD},
	{"raw", 0, NULL, NULL, "use raw (uncompensated) times of measured profiles", C_RAW},
	{"html", 0, NULL, NULL, "write one self-contained interactive HTML page (needs -o FILE)", C_HTML},
	{"output", 'o', "FILE", NULL, "with --html: the page to write (written atomically)", C_OUT},
	{"no-fold", 0, NULL, NULL, "keep every frame of hyprof's own code (by default MPI wrapper frames fold into the MPI call)", C_NOFOLD},
	{NULL, 0, NULL, NULL, NULL, 0},
};
static const char compare_usage[] = "hyprof compare [options] A B";
static const char compare_intro[] =
	"Compare two profiles (directories or .hyp files) of the same program, e.g. one\n"
	"run with --mode sampled and one with --mode measured: per function and per call\n"
	"path the share of each profile's total, the difference (B - A, in points), the\n"
	"calls, and which functions the measured mode distorts (their probes cost more\n"
	"than their body, or their share moved by more than --threshold points).";

/* ---- path table ------------------------------------------------------ */
struct prow {
	char *path;         /* "a;b;c" */
	const char *name;   /* last element */
	const char *module;
	double self, total;
	int64_t calls;
	int first;          /* the function does not appear earlier on the path */
};
struct ptab {
	struct prow *v;
	size_t n, cap;
	struct u64map idx;  /* hash(path) -> chain not needed: index+1 in a probe list */
};

static uint64_t hstr(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h == ~0ull ? 0 : h;
}

static struct prow *ptab_get(struct ptab *t, const char *path)
{
	uint64_t h = hstr(path);
	for (uint64_t k = h;; k = u64_mix(k, 1)) {
		void *v = u64map__get(&t->idx, k);
		if (!v)
			break;
		struct prow *r = &t->v[(uintptr_t)v - 1];
		if (strcmp(r->path, path) == 0)
			return r;
	}
	return NULL;
}

static struct prow *ptab_add(struct ptab *t, const char *path)
{
	struct prow *r = ptab_get(t, path);
	if (r)
		return r;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->v = realloc(t->v, t->cap * sizeof *t->v);
		if (!t->v)
			abort();
	}
	r = &t->v[t->n++];
	memset(r, 0, sizeof *r);
	r->path = strdup(path);
	r->calls = -1;
	if (!r->path)
		abort();
	uint64_t k = hstr(path);
	while (u64map__get(&t->idx, k))
		k = u64_mix(k, 1);
	u64map__put(&t->idx, k, (void *)(uintptr_t)t->n);
	return r;
}

static void ptab_free(struct ptab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	u64map__free(&t->idx);
}

/* Functions the other (measured) profile knows, by "name\x01module". */
struct keep {
	struct u64map set;
	int active;
};

static int kept(const struct keep *k, const struct hp_func *f)
{
	if (!k->active)
		return 1;
	char buf[2048];
	snprintf(buf, sizeof buf, "%s\x01%s", f->name, f->module);
	return u64map__get(&k->set, hstr(buf)) != NULL;
}

static int on_path(const char *path, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static void collect(struct ptab *t, const struct hp_tnode *n, const char *path, const struct keep *k,
		    int raw, struct prow *owner)
{
	for (const struct hp_tnode *c = n->child; c; c = c->sibling) {
		double self = raw ? c->self_raw : c->self, total = raw ? c->total_raw : c->total;
		if (kept(k, c->fn)) {
			size_t len = strlen(path) + strlen(c->fn->name) + 2;
			char *p = malloc(len);
			if (!p)
				abort();
			snprintf(p, len, "%s%s%s", path, *path ? ";" : "", c->fn->name);
			int first = !on_path(path, c->fn->name);
			struct prow *r = ptab_add(t, p);
			r->name = c->fn->name;
			r->module = c->fn->module;
			r->first = first;
			r->self += self;
			r->total += total;
			if (c->calls >= 0)
				r->calls = (r->calls < 0 ? 0 : r->calls) + c->calls;
			collect(t, c, p, k, raw, r);
			free(p);
		} else {
			/* projected away: its own time goes to the nearest kept caller */
			if (owner)
				owner->self += self;
			collect(t, c, path, k, raw, owner);
		}
	}
}

/* ---- function rows ----------------------------------------------------- */
struct frow {
	const char *name, *module;
	double self[2], total[2];
	int64_t calls[2];
	int present[2];
	double diff, probe_cost;
	int distorted;
	char reason[128];
};

static struct frow *frow_find(struct frow *fr, const struct u64map *fidx, const char *name,
			      const char *module)
{
	char buf[2048];
	snprintf(buf, sizeof buf, "%s\x01%s", name, module);
	for (uint64_t kk = hstr(buf);; kk = u64_mix(kk, 2)) {
		void *v = u64map__get(fidx, kk);
		if (!v)
			return NULL;
		struct frow *g = &fr[(uintptr_t)v - 1];
		if (strcmp(g->name, name) == 0 && strcmp(g->module, module) == 0)
			return g;
	}
}

static double calib_probe_ns(const struct hp_model *m)
{
	const struct hp_kvlist *c = &m->calib;
	const char *keys[] = {"timed_probe_ns.median", "timed_probe_ns"};
	for (int i = 0; i < 2; i++) {
		const struct hp_kv *v = hp_kv_get(c, keys[i]);
		if (v)
			return v->type == HP_KV_F64 ? v->d : v->type == HP_KV_U64 ? (double)v->u : (double)v->i;
	}
	return 0;
}

static int cmp_frow(const void *a, const void *b)
{
	const struct frow *x = a, *y = b;
	if (fabs(x->diff) != fabs(y->diff))
		return fabs(x->diff) < fabs(y->diff) ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct pdiff {
	const char *path;
	double share[2];
	int64_t calls[2];
	double diff;
};

static int cmp_pdiff(const void *a, const void *b)
{
	const struct pdiff *x = a, *y = b;
	if (fabs(x->diff) != fabs(y->diff))
		return fabs(x->diff) < fabs(y->diff) ? 1 : -1;
	return strcmp(x->path, y->path);
}

static double share(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0;
}

static void calls_str(int64_t c, char *buf, size_t len)
{
	if (c < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)c);
}

/* Why a function's probes distort it: their cost as a multiple of its
 * self time, or as seconds when that self time is 0 (a function whose
 * time is all in its callees: the ratio would print as "infx"). */
static void cost_reason(char *buf, size_t len, double pc, double self, const char *which)
{
	char t[32];
	if (self > 0)
		snprintf(buf, len, "probes cost %.1fx its %s self time", pc / self, which);
	else
		snprintf(buf, len, "probes cost %s, its %s self time is 0", tool_fmt_secs(pc, t, sizeof t), which);
}

int cmd_compare(int argc, char **argv)
{
	int json = 0, raw = 0, html = 0;
	const char *outpath = NULL;
	long top = -1;
	double threshold = 5;
	unsigned lopts = 0;
	int c;
	while ((c = tool_getopt("compare", argc, argv, compare_opts, compare_usage, compare_intro, 0)) !=
	       -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		uint64_t u;
		switch (c) {
		case C_JSON: json = 1; break;
		case C_RAW: raw = 1; break;
		case C_HTML: html = 1; break;
		case C_OUT: outpath = optarg; break;
		case C_NOFOLD: lopts |= MODEL_NO_FOLD; break;
		case C_TOP:
			if (tool_parse_u64(optarg, &u) < 0 || u > 1000000000)
				return tool_usage("compare", "--top needs a number, not '%s'", optarg);
			top = (long)u;
			break;
		case C_THRESHOLD:
			if (tool_parse_double(optarg, &threshold) < 0 || threshold < 0)
				return tool_usage("compare", "--threshold needs a number of points, not '%s'", optarg);
			break;
		default:
			return tool_usage("compare", "unhandled option");
		}
	}
	if (argc - optind != 2)
		return tool_usage("compare", "needs two profiles, A and B");
	if (html && json)
		return tool_usage("compare", "--html and --json are exclusive");
	if (html != (outpath != NULL))
		return tool_usage("compare", "--html and -o FILE go together");
	if (html && !html__compare)
		return tool_err("the HTML report is not available in this build");
	struct hp_model m[2];
	char err[1024];
	for (int i = 0; i < 2; i++) {
		if (model__load_opts(&m[i], argv[optind + i], lopts, err, sizeof err) < 0) {
			if (i)
				model__free(&m[0]);
			return tool_err("%s", err);
		}
	}
	if (html) {
		char tmp[4200], werr[512] = "";
		FILE *f = export__open(outpath, tmp, sizeof tmp, werr, sizeof werr);
		int r = f ? html__compare(&m[0], &m[1], f) : -EIO;
		if (f)
			r = export__commit(f, tmp, outpath, r, werr, sizeof werr);
		model__free(&m[0]);
		model__free(&m[1]);
		if (r < 0)
			return tool_err("%s", werr[0] ? werr : strerror(-r));
		return HP_EXIT_OK;
	}
	/* a measured side whose program ran no probe (no -finstrument-functions,
	 * no region) has the sampled tree: nothing to project onto */
	int meas[2] = {m[0].timed, m[1].timed};
	/* projection: the non-measured side onto the measured side's functions */
	struct keep keep[2];
	memset(keep, 0, sizeof keep);
	char note[512] = "";
	for (int i = 0; i < 2; i++) {
		u64map__init(&keep[i].set);
		if (meas[1 - i] && !meas[i]) {
			keep[i].active = 1;
			for (size_t f = 0; f < m[1 - i].nfuncs; f++) {
				char buf[2048];
				snprintf(buf, sizeof buf, "%s\x01%s", m[1 - i].funcs[f]->name,
					 m[1 - i].funcs[f]->module);
				u64map__put(&keep[i].set, hstr(buf), (void *)1);
			}
			snprintf(note, sizeof note,
				 "%s is measured: %s's call paths are projected onto the functions %s "
				 "measured (time in other functions goes to the nearest measured caller)",
				 i ? "A" : "B", i ? "B" : "A", i ? "A" : "B");
		}
	}
	struct ptab pt[2];
	memset(pt, 0, sizeof pt);
	double tot[2];
	for (int i = 0; i < 2; i++) {
		u64map__init(&pt[i].idx);
		collect(&pt[i], m[i].root, "", &keep[i], raw, NULL);
		tot[i] = raw ? m[i].root->total_raw : m[i].root->total;
	}

	/* function rows: self summed over paths, total once per path */
	struct frow *fr = NULL;
	size_t nfr = 0, capfr = 0;
	struct u64map fidx;
	u64map__init(&fidx);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < pt[i].n; k++) {
			struct prow *r = &pt[i].v[k];
			char buf[2048];
			snprintf(buf, sizeof buf, "%s\x01%s", r->name, r->module);
			uint64_t h = hstr(buf);
			struct frow *f = frow_find(fr, &fidx, r->name, r->module);
			if (!f) {
				if (nfr == capfr) {
					capfr = capfr ? capfr * 2 : 256;
					fr = realloc(fr, capfr * sizeof *fr);
					if (!fr)
						abort();
				}
				f = &fr[nfr++];
				memset(f, 0, sizeof *f);
				f->name = r->name;
				f->module = r->module;
				f->calls[0] = f->calls[1] = -1;
				uint64_t kk = h;
				while (u64map__get(&fidx, kk))
					kk = u64_mix(kk, 2);
				u64map__put(&fidx, kk, (void *)(uintptr_t)nfr);
			}
			f->present[i] = 1;
			f->self[i] += r->self;
			if (r->first)
				f->total[i] += r->total;
		}
	}
	/* exact calls from each model's flat profile */
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < m[i].nflat; k++) {
			const struct hp_fstat *s = &m[i].flat[k];
			struct frow *f = frow_find(fr, &fidx, s->fn->name, s->fn->module);
			if (f)
				f->calls[i] = s->calls;
		}
	double probe_ns[2] = {calib_probe_ns(&m[0]), calib_probe_ns(&m[1])};
	for (size_t q = 0; q < nfr; q++) {
		struct frow *f = &fr[q];
		f->diff = share(f->self[1], tot[1]) - share(f->self[0], tot[0]);
		for (int i = 0; i < 2; i++) {
			if (!meas[i] || f->calls[i] <= 0 || probe_ns[i] <= 0)
				continue;
			double pc = (double)f->calls[i] * probe_ns[i] * 1e-9;
			f->probe_cost = pc;
			double own = f->self[i];
			double other = f->present[1 - i] && !meas[1 - i] ? f->self[1 - i] : -1;
			if (pc > own) {
				f->distorted = 1;
				cost_reason(f->reason, sizeof f->reason, pc, own, "compensated");
			} else if (other >= 0 && pc > other) {
				f->distorted = 1;
				cost_reason(f->reason, sizeof f->reason, pc, other, "sampled");
			}
		}
		if (!f->distorted && fabs(f->diff) > threshold) {
			f->distorted = 1;
			snprintf(f->reason, sizeof f->reason, "share differs by %.1f points", f->diff);
		}
	}
	if (nfr > 1) /* fr is NULL when there is none */
		qsort(fr, nfr, sizeof *fr, cmp_frow);

	/* call paths */
	struct pdiff *pd = NULL;
	size_t npd = 0;
	pd = calloc(pt[0].n + pt[1].n + 1, sizeof *pd);
	if (!pd)
		abort();
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < pt[i].n; k++) {
			struct prow *r = &pt[i].v[k];
			if (i == 1 && ptab_get(&pt[0], r->path))
				continue;
			struct prow *o = ptab_get(&pt[1 - i], r->path);
			struct pdiff *d = &pd[npd++];
			d->path = r->path;
			d->share[i] = share(r->total, tot[i]);
			d->calls[i] = r->calls;
			d->share[1 - i] = o ? share(o->total, tot[1 - i]) : 0;
			d->calls[1 - i] = o ? o->calls : -1;
			d->diff = d->share[1] - d->share[0];
		}
	qsort(pd, npd, sizeof *pd, cmp_pdiff);

	size_t limf = nfr, limp = npd;
	long t = json ? (top < 0 ? 0 : top) : (top < 0 ? 25 : top);
	if (t > 0) {
		limf = (size_t)t < nfr ? (size_t)t : nfr;
		limp = (size_t)t < npd ? (size_t)t : npd;
	}
	int rc = HP_EXIT_OK;
	if (json) {
		struct json *j = json__new(stdout, 1);
		json__obj_begin(j);
		for (int i = 0; i < 2; i++) {
			json__key(j, i ? "b" : "a");
			json__obj_begin(j);
			json__key(j, "path");
			json__str(j, argv[optind + i]);
			json__key(j, "program");
			json__str(j, m[i].program);
			json__key(j, "mode");
			json__str(j, m[i].mode);
			json__key(j, "total");
			json__num(j, tot[i]);
			json__key(j, "timed_probe_ns");
			if (probe_ns[i] > 0)
				json__num(j, probe_ns[i]);
			else
				json__null(j);
			json__obj_end(j);
		}
		json__key(j, "projection");
		json__str(j, note[0] ? note : NULL);
		json__key(j, "threshold");
		json__num(j, threshold);
		json__key(j, "functions");
		json__arr_begin(j);
		for (size_t q = 0; q < limf; q++) {
			const struct frow *f = &fr[q];
			json__obj_begin(j);
			json__key(j, "name");
			json__str(j, f->name);
			json__key(j, "module");
			json__str(j, f->module);
			json__key(j, "self_a");
			json__num(j, f->self[0]);
			json__key(j, "self_b");
			json__num(j, f->self[1]);
			json__key(j, "share_a");
			json__num(j, share(f->self[0], tot[0]));
			json__key(j, "share_b");
			json__num(j, share(f->self[1], tot[1]));
			json__key(j, "total_share_a");
			json__num(j, share(f->total[0], tot[0]));
			json__key(j, "total_share_b");
			json__num(j, share(f->total[1], tot[1]));
			json__key(j, "diff");
			json__num(j, f->diff);
			json__key(j, "calls_a");
			f->calls[0] < 0 ? json__null(j) : json__int(j, f->calls[0]);
			json__key(j, "calls_b");
			f->calls[1] < 0 ? json__null(j) : json__int(j, f->calls[1]);
			json__key(j, "probe_cost");
			json__num(j, f->probe_cost);
			json__key(j, "distorted");
			json__bool(j, f->distorted);
			json__key(j, "reason");
			json__str(j, f->distorted ? f->reason : NULL);
			json__obj_end(j);
		}
		json__arr_end(j);
		json__key(j, "paths");
		json__arr_begin(j);
		for (size_t q = 0; q < limp; q++) {
			const struct pdiff *d = &pd[q];
			json__obj_begin(j);
			json__key(j, "path");
			json__str(j, d->path);
			json__key(j, "share_a");
			json__num(j, d->share[0]);
			json__key(j, "share_b");
			json__num(j, d->share[1]);
			json__key(j, "diff");
			json__num(j, d->diff);
			json__key(j, "calls_a");
			d->calls[0] < 0 ? json__null(j) : json__int(j, d->calls[0]);
			json__key(j, "calls_b");
			d->calls[1] < 0 ? json__null(j) : json__int(j, d->calls[1]);
			json__obj_end(j);
		}
		json__arr_end(j);
		json__obj_end(j);
		if (json__free(j) < 0)
			rc = tool_err("writing the comparison failed");
	} else {
		char a[32], b[32];
		printf("hyprof compare\n");
		printf("A  %s: %s, %s mode, total %s\n", argv[optind], m[0].program, m[0].mode,
		       tool_fmt_secs(tot[0], a, sizeof a));
		printf("B  %s: %s, %s mode, total %s\n", argv[optind + 1], m[1].program, m[1].mode,
		       tool_fmt_secs(tot[1], b, sizeof b));
		if (strcmp(m[0].program, m[1].program) != 0)
			printf("WARNING: the programs differ\n");
		if (note[0])
			printf("note: %s\n", note);
		printf("\nFunctions (self share of each profile's total; diff = B - A in points; "
		       "sorted by |diff|)\n");
		printf("%8s %8s %8s %12s %12s  %-9s %s\n", "share A", "share B", "diff", "calls A", "calls B",
		       "flag", "function");
		for (size_t q = 0; q < limf; q++) {
			const struct frow *f = &fr[q];
			char ca[32], cb[32];
			calls_str(f->calls[0], ca, sizeof ca);
			calls_str(f->calls[1], cb, sizeof cb);
			printf("%8.2f %8.2f %+8.2f %12s %12s  %-9s %s%s%s%s\n", share(f->self[0], tot[0]),
			       share(f->self[1], tot[1]), f->diff, ca, cb, f->distorted ? "distorted" : "",
			       f->name, f->distorted ? " (" : "", f->distorted ? f->reason : "",
			       f->distorted ? ")" : "");
		}
		if (limf < nfr)
			printf("  (%zu more: --top 0 shows all)\n", nfr - limf);
		printf("\nCall paths (total share; sorted by |diff|)\n");
		printf("%8s %8s %8s %12s %12s  %s\n", "share A", "share B", "diff", "calls A", "calls B",
		       "path");
		for (size_t q = 0; q < limp; q++) {
			const struct pdiff *d = &pd[q];
			char ca[32], cb[32];
			calls_str(d->calls[0], ca, sizeof ca);
			calls_str(d->calls[1], cb, sizeof cb);
			printf("%8.2f %8.2f %+8.2f %12s %12s  %s\n", d->share[0], d->share[1], d->diff, ca, cb,
			       d->path);
		}
		if (limp < npd)
			printf("  (%zu more: --top 0 shows all)\n", npd - limp);
		if (fflush(stdout) != 0)
			rc = tool_err("writing the comparison failed");
	}
	free(pd);
	free(fr);
	u64map__free(&fidx);
	for (int i = 0; i < 2; i++) {
		ptab_free(&pt[i]);
		u64map__free(&keep[i].set);
		model__free(&m[i]);
	}
	return rc;
}
