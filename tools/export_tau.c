/* tools/export_tau.c - TAU's profile.N.C.T text files.
 *
 * One file per thread in the output directory: profile.<node>.0.<thread>,
 * node = the MPI rank (or the process's index without MPI), context 0,
 * thread = the thread's index in its process.  Each file follows the
 * grammar TAU's readers (ParaProf/PerfDMF's TauDataSource, TAU's pprof,
 * tau2's Python TauProfileParser) accept:
 *
 *   <n> templated_functions_MULTI_TIME
 *   # Name Calls Subrs Excl Incl ProfileCalls # <metadata>...</metadata>
 *   "<name>" <calls> <subrs> <excl> <incl> <profcalls> GROUP="<groups>"   (n lines)
 *   0 aggregates
 *   0 userevents
 *   # eventname numevents max min mean sumsqr
 *
 * Times are microseconds of the primary metric (TAU's TIME).  Each function
 * has one flat line (exclusive summed over its call paths, inclusive summed
 * over its outermost occurrences so recursion is not counted twice) and each
 * call path one line named "main => solve => kernel" in group
 * TAU_USER|TAU_CALLPATH, which is how ParaProf recognizes call paths.
 * --callpath-depth D names each call path by its last D frames, as TAU's
 * TAU_CALLPATH_DEPTH does (TAU's default is 2): paths with the same last D
 * frames share one line (inclusive time counted once when nested), which
 * bounds the file by the number of distinct suffixes instead of growing as
 * nodes x depth (a million-node profile gives gigabytes of names in full).
 * Calls are the probe counts; a frame no probe counted (sampled mode, or an
 * uninstrumented function in hybrid mode) gives the samples of its subtree
 * instead (at least 1: TAU's readers drop 0-call timers), as TAU itself does
 * for its [SAMPLE] timers.  Double quotes in names become
 * single quotes.
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/export.h"

struct tau_fn {
	const struct hp_func *fn;
	const struct hp_tnode *node; /* a node naming it */
	double calls, subrs, excl, incl;
	int active;                  /* occurrences on the current path */
};

struct tau_row {               /* a call path cut to its last maxdepth frames */
	char *name;
	double calls, subrs, excl, incl;
	int active;
};

struct tau {
	FILE *out;
	int has_calls;
	struct export_map fmap;      /* fn -> index + 1 */
	struct tau_fn *f;
	size_t nf, fcap;
	struct export_map smap;      /* node -> inclusive samples (sampled mode) */
	char *name;                  /* call path being written */
	size_t nlen, ncap;
	size_t *off;
	size_t ocap;
	uint64_t nlines;
	int pass;                    /* 0: flat aggregation, 1: call-path lines */
	int maxdepth;                /* frames in a call-path name, 0 = all */
	struct export_map rmap;      /* call-path name hash -> row + 1 (maxdepth > 0) */
	struct tau_row *rows;
	size_t nrows, rcap;
	int64_t *rowat;              /* row of the node at each depth, -1 = none */
	size_t racap;
};

static double tau_calls(struct tau *t, const struct hp_tnode *n, double isamples)
{
	(void)t;
	if (n->calls > 0)
		return (double)n->calls;
	double c = round(isamples);
	return c < 1 ? 1 : c;
}

static int64_t tau_fn(struct tau *t, const struct hp_tnode *n)
{
	int isnew;
	uint64_t *v = export__map_get(&t->fmap, (uint64_t)(uintptr_t)n->fn, &isnew);
	if (!v)
		return -ENOMEM;
	if (!isnew)
		return (int64_t)*v - 1;
	if (t->nf == t->fcap) {
		size_t cap = t->fcap ? t->fcap * 2 : 256;
		struct tau_fn *f = realloc(t->f, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		t->f = f;
		t->fcap = cap;
	}
	memset(&t->f[t->nf], 0, sizeof(t->f[0]));
	t->f[t->nf].fn = n->fn;
	t->f[t->nf].node = n;
	*v = t->nf + 1;
	return (int64_t)t->nf++;
}

static int name_append(struct tau *t, const char *s)
{
	size_t n = strlen(s);
	if (t->nlen + n + 1 > t->ncap) {
		size_t cap = t->ncap ? t->ncap * 2 : 4096;
		while (cap < t->nlen + n + 1)
			cap *= 2;
		char *b = realloc(t->name, cap);
		if (!b)
			return -ENOMEM;
		t->name = b;
		t->ncap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		t->name[t->nlen++] = c == '"' ? '\'' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	t->name[t->nlen] = 0;
	return 0;
}

/* Microseconds with 3 decimals (nanosecond resolution), without printf:
 * the big exports write millions of these. */
static void put_us(FILE *out, double us)
{
	if (!(us > 0)) {
		putc_unlocked('0', out);
		return;
	}
	if (us >= 1e15) {
		fprintf(out, "%.12g", us);
		return;
	}
	uint64_t ns = (uint64_t)llround(us * 1000.0);
	export__put_u64(out, ns / 1000);
	unsigned frac = (unsigned)(ns % 1000);
	if (frac) {
		char b[5] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
			     (char)('0' + frac % 10), 0};
		int n = 4;
		while (b[n - 1] == '0')
			n--;
		fwrite_unlocked(b, 1, (size_t)n, out);
	}
}

static void tau_line(struct tau *t, const char *name, double calls, double subrs, double excl,
		     double incl, const char *group)
{
	FILE *out = t->out;
	putc_unlocked('"', out);
	fputs_unlocked(name, out);
	fputs_unlocked("\" ", out);
	export__put_u64(out, calls > 0 ? (uint64_t)llround(calls) : 0);
	putc_unlocked(' ', out);
	export__put_u64(out, subrs > 0 ? (uint64_t)llround(subrs) : 0);
	putc_unlocked(' ', out);
	put_us(out, excl);
	putc_unlocked(' ', out);
	put_us(out, incl);
	fputs_unlocked(" 0 GROUP=\"", out);
	fputs_unlocked(group, out);
	fputs_unlocked("\"\n", out);
	t->nlines++;
}

/* Inclusive samples of each node (the calls of frames no probe counted),
 * computed once in post-order and kept by node address. */
static int isamp_post(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct tau *t = arg;
	(void)path;
	(void)depth;
	double s = n->samples;
	for (const struct hp_tnode *c = n->child; c; c = c->sibling) {
		uint64_t *v = export__map_get(&t->smap, (uint64_t)(uintptr_t)c, NULL);
		if (!v)
			return -ENOMEM;
		double d;
		memcpy(&d, v, sizeof(d));
		s += d;
	}
	uint64_t *v = export__map_get(&t->smap, (uint64_t)(uintptr_t)n, NULL);
	if (!v)
		return -ENOMEM;
	memcpy(v, &s, sizeof(s));
	return 0;
}

static double subtree_samples(struct tau *t, const struct hp_tnode *n)
{
	uint64_t *v = export__map_get(&t->smap, (uint64_t)(uintptr_t)n, NULL);
	double d = 0;
	if (v)
		memcpy(&d, v, sizeof(d));
	return d;
}

/* Row of the call path made of path[depth-k..depth-1], k = min(depth,
 * maxdepth): equal suffixes share one row (TAU's TAU_CALLPATH_DEPTH). */
static int64_t tau_row(struct tau *t, struct hp_tnode **path, int depth)
{
	int k = depth < t->maxdepth ? depth : t->maxdepth;
	t->nlen = 0;
	for (int i = depth - k; i < depth; i++)
		if ((i > depth - k && name_append(t, " => ") < 0) ||
		    name_append(t, export__name(path[i])) < 0)
			return -ENOMEM;
	for (uint64_t seed = 1;; seed++) {
		int isnew;
		uint64_t *v = export__map_get(&t->rmap, export__hash(t->name, t->nlen, seed) >> 1,
					      &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew) {
			if (strcmp(t->rows[*v - 1].name, t->name) == 0)
				return (int64_t)*v - 1;
			continue;
		}
		if (t->nrows == t->rcap) {
			size_t cap = t->rcap ? t->rcap * 2 : 1024;
			struct tau_row *r = realloc(t->rows, cap * sizeof(*r));
			if (!r)
				return -ENOMEM;
			t->rows = r;
			t->rcap = cap;
		}
		struct tau_row *r = &t->rows[t->nrows];
		memset(r, 0, sizeof(*r));
		if (!(r->name = strdup(t->name)))
			return -ENOMEM;
		*v = ++t->nrows;
		return (int64_t)t->nrows - 1;
	}
}

static int tau_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct tau *t = arg;
	(void)path;
	double isamp = subtree_samples(t, n);
	double subrs = 0;
	for (const struct hp_tnode *c = n->child; c; c = c->sibling)
		subrs += tau_calls(t, c, subtree_samples(t, c));
	double calls = tau_calls(t, n, isamp);

	if (t->pass == 0) {
		int64_t k = tau_fn(t, n);
		if (k < 0)
			return (int)k;
		struct tau_fn *f = &t->f[k];
		f->calls += calls;
		f->subrs += subrs;
		f->excl += n->self * 1e6;
		if (f->active++ == 0)
			f->incl += n->total * 1e6;
		if (t->maxdepth > 0) {
			if ((size_t)depth >= t->racap) {
				size_t cap = t->racap ? t->racap * 2 : 128;
				int64_t *ra = realloc(t->rowat, cap * sizeof(*ra));
				if (!ra)
					return -ENOMEM;
				t->rowat = ra;
				t->racap = cap;
			}
			t->rowat[depth] = -1;
			if (depth > 1) {
				int64_t r = tau_row(t, path, depth);
				if (r < 0)
					return (int)r;
				struct tau_row *row = &t->rows[r];
				row->calls += calls;
				row->subrs += subrs;
				row->excl += n->self * 1e6;
				if (row->active++ == 0)
					row->incl += n->total * 1e6;
				t->rowat[depth] = r;
			}
		}
		return 0;
	}
	/* pass 1: the call-path line "a => b => c" */
	if ((size_t)depth >= t->ocap) {
		size_t cap = t->ocap ? t->ocap * 2 : 128;
		size_t *o = realloc(t->off, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		t->off = o;
		t->ocap = cap;
	}
	t->nlen = depth > 1 ? t->off[depth - 1] : 0;
	if ((depth > 1 && name_append(t, " => ") < 0) || name_append(t, export__name(n)) < 0)
		return -ENOMEM;
	t->off[depth] = t->nlen;
	if (depth > 1)
		tau_line(t, t->name, calls, subrs, n->self * 1e6, n->total * 1e6,
			 "TAU_USER|TAU_CALLPATH");
	return 0;
}

static int tau_post(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct tau *t = arg;
	(void)path;
	if (t->pass == 0) {
		int64_t k = tau_fn(t, n);
		if (k < 0)
			return (int)k;
		t->f[k].active--;
		if (t->maxdepth > 0 && t->rowat[depth] >= 0)
			t->rows[t->rowat[depth]].active--;
	}
	return 0;
}

static int count_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	(void)n;
	(void)path;
	if (depth > 1)
		++*(uint64_t *)arg;
	return 0;
}

static void kv_attr(FILE *out, const char *name, const char *value)
{
	fputs("<attribute><name>", out);
	export__xml_str(out, name);
	fputs("</name><value>", out);
	export__xml_str(out, value);
	fputs("</value></attribute>", out);
}

static int write_thread(struct hp_model *m, const struct hp_threadinfo *ti,
			struct hp_tnode *root, const char *dir, int maxdepth, char *err,
			size_t errlen)
{
	struct tau t;
	char path[4096], tmp[4200], buf[256];
	int node = export__thread_node(m, ti);
	int rc;

	memset(&t, 0, sizeof(t));
	t.has_calls = export__has_calls(root);
	t.maxdepth = maxdepth;
	if (export__map_init(&t.fmap, 256) < 0 || export__map_init(&t.rmap, 1024) < 0)
		return -ENOMEM;
	if (export__map_init(&t.smap, 4096) < 0 || export__walk(root, NULL, isamp_post, &t) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	/* Pass 0: flat rows per function. */
	rc = export__walk(root, tau_pre, tau_post, &t);
	if (rc < 0)
		goto out;
	uint64_t npaths = t.nrows;
	if (maxdepth <= 0)
		export__walk(root, count_pre, NULL, &npaths);

	snprintf(path, sizeof(path), "%s/profile.%d.0.%d", dir, node, ti->index);
	t.out = export__open(path, tmp, sizeof(tmp), err, errlen);
	if (!t.out) {
		rc = -errno;
		goto out;
	}
	FILE *out = t.out;
	fprintf(out, "%llu templated_functions_MULTI_TIME\n",
		(unsigned long long)(t.nf + npaths));
	fputs("# Name Calls Subrs Excl Incl ProfileCalls # <metadata>", out);
	kv_attr(out, "Metric Name", "TIME");
	kv_attr(out, "hyprof version", HYPROF_VERSION);
	kv_attr(out, "hyprof program", m->program ? m->program : "");
	kv_attr(out, "hyprof mode", m->mode ? m->mode : "");
	kv_attr(out, "hyprof source", m->source ? m->source : "");
	kv_attr(out, "hyprof metric",
		export__measured(m) ? "measured time after compensation (microseconds)"
				    : "sampled time (microseconds)");
	kv_attr(out, "hyprof calls",
		t.has_calls ? "probe calls; samples in the subtree for frames no probe counted"
			    : "samples in the subtree (no probes ran)");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)m->period);
	kv_attr(out, "hyprof period", buf);
	snprintf(buf, sizeof(buf), "%.9g", m->duration);
	kv_attr(out, "hyprof duration (s)", buf);
	snprintf(buf, sizeof(buf), "%d", ti->rank);
	kv_attr(out, "MPI Rank", buf);
	snprintf(buf, sizeof(buf), "%d", ti->pid);
	kv_attr(out, "PID", buf);
	snprintf(buf, sizeof(buf), "%d", ti->tid);
	kv_attr(out, "TID", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ti->samples);
	kv_attr(out, "hyprof samples", buf);
	/* the cost section is the run's (summed over its processes and
	 * threads), written into every thread's file: say so */
	if (m->cost.n) {
		snprintf(buf, sizeof(buf), "whole run (%d processes, %d threads), not this thread",
			 m->nprocs, m->nthreads);
		kv_attr(out, "hyprof cost scope", buf);
	}
	for (size_t i = 0; i < m->cost.n; i++) {
		const struct hp_kv *kv = &m->cost.v[i];
		char name[160];
		snprintf(name, sizeof(name), "hyprof cost %s", kv->key);
		if (kv->type == HP_KV_F64)
			snprintf(buf, sizeof(buf), "%.9g", kv->d);
		else if (kv->type == HP_KV_STR)
			snprintf(buf, sizeof(buf), "%s", kv->s ? kv->s : "");
		else if (kv->type == HP_KV_I64)
			snprintf(buf, sizeof(buf), "%lld", (long long)kv->i);
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)kv->u);
		kv_attr(out, name, buf);
	}
	fputs("</metadata>\n", out);

	for (size_t i = 0; i < t.nf; i++) {
		struct tau_fn *f = &t.f[i];
		t.nlen = 0;
		if (name_append(&t, export__name(f->node)) < 0) {
			rc = -ENOMEM;
			break;
		}
		const char *grp = f->fn && f->fn->is_region ? "TAU_USER|HYPROF_REGION" : "TAU_USER";
		tau_line(&t, t.name, f->calls, f->subrs, f->excl, f->incl, grp);
	}
	t.pass = 1;
	if (!rc && maxdepth <= 0)
		rc = export__walk(root, tau_pre, tau_post, &t);
	for (size_t i = 0; !rc && i < t.nrows; i++) {
		struct tau_row *r = &t.rows[i];
		tau_line(&t, r->name, r->calls, r->subrs, r->excl, r->incl, "TAU_USER|TAU_CALLPATH");
	}
	fputs("0 aggregates\n0 userevents\n# eventname numevents max min mean sumsqr\n", out);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory writing %s", path);
	rc = export__commit(out, tmp, path, rc, err, errlen);
out:
	export__map_free(&t.fmap);
	free(t.f);
	export__map_free(&t.smap);
	export__map_free(&t.rmap);
	for (size_t i = 0; i < t.nrows; i++)
		free(t.rows[i].name);
	free(t.rows);
	free(t.rowat);
	free(t.name);
	free(t.off);
	return rc;
}

int export__tau(struct hp_model *m, const struct export_opts *o, const char *dir,
		char *err, size_t errlen)
{
	int rc = 0, nwritten = 0;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
		return -errno;
	}
	size_t nth;
	struct hp_threadinfo **th = export__threads(m, &nth);
	if (!th)
		return -ENOMEM;
	for (size_t i = 0; i < nth && !rc; i++) {
		struct hp_threadinfo *ti = th[i];
		int node = export__thread_node(m, ti);
		if ((o->rank >= 0 && node != o->rank) || (o->thread >= 0 && ti->index != o->thread))
			continue;
		if (!ti->root)
			continue;
		rc = write_thread(m, ti, ti->root, dir, o->callpath_depth, err, errlen);
		nwritten++;
	}
	free(th);
	if (!rc && nwritten == 0) {
		struct export_tree t;
		rc = export__select(m, o->rank, o->thread, &t, err, errlen);
		if (rc == 0) {
			/* No per-thread trees: the merged tree as node 0, thread 0. */
			struct hp_threadinfo ti = {.rank = -1, .index = 0};
			rc = write_thread(m, &ti, t.root, dir, o->callpath_depth, err, errlen);
			export__tree_free(&t);
		}
	}
	return rc;
}
