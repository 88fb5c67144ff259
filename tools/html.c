/* tools/html.c - the self-contained HTML report and comparison.
 *
 * The page is the template tools/html/report.html (embedded at build time as
 * hp_html_report) with the profile's data spliced in at the marker
 * HYPROF_DATA: one JSON object inside <script type="application/json">.
 * Every '<' in it is written as \u003c so the data can never close the
 * script element.  The template's script renders everything from that
 * object; docs/html.md describes its members.
 *
 * Data (version 1):
 *   kind        "report" | "compare"
 *   runs        [ {program, mode, source, source_why, unit, period, duration,
 *                  samples, dropped, drops{}, nprocs, nthreads, partial,
 *                  join_note, cost{}, calib{}, threads[], ranks[], views{}} ]
 *               one run for a report, two (baseline, new) for compare
 *   metric      {name, unit, measured, has_calls}
 *   funcs       [[name, module, file, line, kind]]  kind: 1 region, 2 hyprof's own
 *   tree        pre-order columns: fn (index in funcs, -1 = pruned rest),
 *               depth, inl (1 = inlined frame), and per run r: total<r>,
 *               self<r>, calls<r> (-1 = no probe), samples<r>, and in
 *               measured mode raw<r> (raw inclusive)
 *   pruned      [[node index, frames merged]] for the "-1" nodes
 *   prune       the threshold, percent of the total
 *   flat        [[fn, self0, total0, calls0, selfraw0, (self1, total1, calls1,
 *               selfraw1)]] sorted by self (first run), at most HTML_FLAT_MAX
 *
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/export.h"
#include "tools/html.h"
#include "tools/json.h"
#include "tools/views.h"

/* The JSON writer (tools/json.c) is part of the hyprof command; programs that
 * link the exports without it (tests, bench) simply get no views. */
extern struct json *json__new(FILE *out, int pretty) __attribute__((weak));
extern int json__free(struct json *j) __attribute__((weak));
extern void json__obj_begin(struct json *j) __attribute__((weak));
extern void json__obj_end(struct json *j) __attribute__((weak));

extern const char hp_html_report[];
extern const unsigned long hp_html_report_len;

#define HTML_FLAT_MAX 5000
#define MAXRUN 2

/* ---- combined tree (one or two runs) ------------------------------------ */

struct hfunc {
	const char *name, *module, *file;
	int line, kind;
};

struct cnode {
	int32_t fn;            /* -1: pruned rest */
	int32_t parent, first, next;
	uint32_t flags;
	int32_t npruned;
	int kept;
	double total[MAXRUN], self[MAXRUN], samples[MAXRUN], total_raw[MAXRUN],
		self_raw[MAXRUN];
	int64_t calls[MAXRUN];
};

struct hb {
	int nrun;
	struct hp_model *run[MAXRUN];
	struct hfunc *f;
	size_t nf, fcap;
	struct export_map fmap; /* name+module hash -> func index + 1 */
	struct cnode *c;
	size_t nc, ccap;
	struct export_map cmap; /* (parent, fn, inlined) -> node index + 1 */
	int32_t *stack;         /* combined node per depth while walking */
	size_t scap;
	int cur;                /* run being added */
	size_t nbuilt;          /* nodes before pruning, root excluded */
	int measured, has_calls;
	double prune;           /* fraction */
};

static int64_t hfunc_of(struct hb *b, const struct hp_func *fn)
{
	const char *name = fn && fn->name && *fn->name ? fn->name : "[unknown]";
	const char *mod = fn && fn->module ? fn->module : "";
	uint64_t h = export__hash(name, strlen(name), 11) ^ export__hash(mod, strlen(mod), 13);
	for (;;) {
		int isnew;
		uint64_t *v = export__map_get(&b->fmap, h >> 1, &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew) {
			struct hfunc *f = &b->f[*v - 1];
			if (strcmp(f->name, name) == 0 && strcmp(f->module, mod) == 0)
				return (int64_t)*v - 1;
			h = h * 31 + 7;
			continue;
		}
		if (b->nf == b->fcap) {
			size_t cap = b->fcap ? b->fcap * 2 : 256;
			struct hfunc *nf = realloc(b->f, cap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			b->f = nf;
			b->fcap = cap;
		}
		struct hfunc *f = &b->f[b->nf];
		f->name = name;
		f->module = mod;
		f->file = fn ? fn->file : NULL;
		f->line = fn ? fn->line : 0;
		f->kind = fn ? (fn->is_region ? 1 : 0) | (fn->is_measurement ? 2 : 0) : 0;
		*v = ++b->nf;
		return (int64_t)b->nf - 1;
	}
}

static int64_t cnode_new(struct hb *b, int32_t parent, int32_t fn, uint32_t flags)
{
	if (b->nc == b->ccap) {
		size_t cap = b->ccap ? b->ccap * 2 : 4096;
		struct cnode *nc = realloc(b->c, cap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		b->c = nc;
		b->ccap = cap;
	}
	struct cnode *c = &b->c[b->nc];
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->parent = parent;
	c->first = -1;
	c->next = -1;
	c->flags = flags;
	for (int r = 0; r < MAXRUN; r++)
		c->calls[r] = -1;
	if (parent >= 0) {
		c->next = b->c[parent].first;
		b->c[parent].first = (int32_t)b->nc;
	}
	return (int64_t)b->nc++;
}

static void cnode_add(struct cnode *c, int r, const struct hp_tnode *n)
{
	c->total[r] += n->total;
	c->self[r] += n->self;
	c->samples[r] += n->samples;
	c->total_raw[r] += n->total_raw;
	c->self_raw[r] += n->self_raw;
	if (n->calls >= 0)
		c->calls[r] = (c->calls[r] < 0 ? 0 : c->calls[r]) + n->calls;
}

static int add_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct hb *b = arg;
	(void)path;
	if ((size_t)depth + 1 > b->scap) {
		size_t cap = b->scap ? b->scap * 2 : 128;
		int32_t *s = realloc(b->stack, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		b->stack = s;
		b->scap = cap;
	}
	int64_t fn = hfunc_of(b, n->fn);
	if (fn < 0)
		return (int)fn;
	int32_t parent = b->stack[depth - 1];
	uint32_t inl = (n->flags & HP_T_INLINED) ? 1 : 0;
	int64_t k[3] = {parent, fn, inl};
	uint64_t h = export__hash(k, sizeof(k), 5) >> 1;
	int64_t idx = -1;
	for (;;) {
		int isnew;
		uint64_t *v = export__map_get(&b->cmap, h, &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew) {
			struct cnode *c = &b->c[*v - 1];
			if (c->parent == parent && c->fn == fn && (c->flags & 1) == inl) {
				idx = (int64_t)*v - 1;
				break;
			}
			h = (h * 31 + 3) >> 1;
			continue;
		}
		idx = cnode_new(b, parent, (int32_t)fn, inl);
		if (idx < 0)
			return (int)idx;
		*v = (uint64_t)idx + 1;
		break;
	}
	cnode_add(&b->c[idx], b->cur, n);
	b->stack[depth] = (int32_t)idx;
	return 0;
}

static int build(struct hb *b)
{
	if (export__map_init(&b->fmap, 1024) < 0 || export__map_init(&b->cmap, 4096) < 0)
		return -ENOMEM;
	int64_t root = cnode_new(b, -1, -1, 0);
	if (root < 0)
		return -ENOMEM;
	b->scap = 128;
	b->stack = malloc(b->scap * sizeof(*b->stack));
	if (!b->stack)
		return -ENOMEM;
	b->stack[0] = 0;
	for (int r = 0; r < b->nrun; r++) {
		struct hp_model *m = b->run[r];
		if (!m->root)
			continue;
		cnode_add(&b->c[0], r, m->root);
		b->cur = r;
		int rc = export__walk(m->root, add_pre, NULL, b);
		if (rc < 0)
			return rc;
		b->measured |= export__measured(m);
		b->has_calls |= export__has_calls(m->root);
	}
	return 0;
}

/* Keep nodes whose inclusive share (any run) reaches the threshold; replace
 * the rest of each kept parent's children by one pruned node. */
static int prune(struct hb *b)
{
	double rootv[MAXRUN];
	for (int r = 0; r < MAXRUN; r++)
		rootv[r] = b->c[0].total[r] > 0 ? b->c[0].total[r] : 0;
	b->c[0].kept = 1;
	size_t n = b->nc; /* pruned nodes are appended: do not visit them */
	for (size_t i = 1; i < n; i++) {
		struct cnode *c = &b->c[i];
		if (!b->c[c->parent].kept)
			continue;
		int keep = 0;
		for (int r = 0; r < b->nrun; r++)
			if (rootv[r] > 0 && c->total[r] >= b->prune * rootv[r] && c->total[r] > 0)
				keep = 1;
		/* probe-only nodes (no time) stay when the profile is tiny */
		if (!keep && rootv[0] <= 0)
			keep = 1;
		c->kept = keep;
	}
	for (size_t i = 0; i < n; i++) {
		if (!b->c[i].kept)
			continue;
		int32_t rest = -1;
		for (int32_t k = b->c[i].first; k >= 0; k = b->c[k].next) {
			if (b->c[k].kept)
				continue;
			if (rest < 0) {
				int64_t r = cnode_new(b, (int32_t)i, -1, 0);
				if (r < 0)
					return (int)r;
				rest = (int32_t)r;
				b->c[rest].kept = 1;
			}
			struct cnode *p = &b->c[rest], *c = &b->c[k];
			p->npruned++;
			for (int r = 0; r < MAXRUN; r++) {
				p->total[r] += c->total[r];
				p->self[r] += c->total[r];
				p->samples[r] += c->samples[r];
				p->total_raw[r] += c->total_raw[r];
				p->self_raw[r] += c->total_raw[r];
			}
		}
	}
	return 0;
}

/* ---- writing -------------------------------------------------------------- */

static void kv_object(FILE *out, const struct hp_kvlist *l)
{
	putc('{', out);
	for (size_t i = 0; i < l->n; i++) {
		const struct hp_kv *kv = &l->v[i];
		if (i)
			putc(',', out);
		export__json_str(out, kv->key);
		putc(':', out);
		switch (kv->type) {
		case HP_KV_STR:
			export__json_str(out, kv->s ? kv->s : "");
			break;
		case HP_KV_F64:
			export__json_num(out, kv->d, 9);
			break;
		case HP_KV_I64:
			fprintf(out, "%lld", (long long)kv->i);
			break;
		default:
			fprintf(out, "%llu", (unsigned long long)kv->u);
		}
	}
	putc('}', out);
}

/* A view from tools/views.h written through the JSON writer, copied with
 * every '<' escaped.  Writes `null` when the view or the writer is missing. */
static void view_json(FILE *out, struct hp_model *m, void (*view)(struct hp_model *, struct json *))
{
	char *buf = NULL;
	size_t len = 0;
	if (!view || !json__new || !json__free || !json__obj_begin || !json__obj_end) {
		fputs("null", out);
		return;
	}
	FILE *mem = open_memstream(&buf, &len);
	struct json *j = mem ? json__new(mem, 0) : NULL;
	if (!j) {
		if (mem)
			fclose(mem);
		free(buf);
		fputs("null", out);
		return;
	}
	json__obj_begin(j);
	view(m, j);
	json__obj_end(j);
	int rc = json__free(j);
	fclose(mem);
	if (rc < 0 || len < 2) {
		fputs("null", out);
	} else {
		for (size_t i = 0; i < len; i++) {
			if (buf[i] == '<')
				fputs("\\u003c", out);
			else
				putc(buf[i], out);
		}
	}
	free(buf);
}

static void write_run(FILE *out, struct hp_model *m)
{
	fputs("{\"program\":", out);
	export__json_str(out, m->program ? m->program : "");
	fputs(",\"dir\":", out);
	export__json_str(out, m->dir ? m->dir : "");
	fputs(",\"mode\":", out);
	export__json_str(out, m->mode ? m->mode : "");
	fputs(",\"source\":", out);
	export__json_str(out, m->source ? m->source : "");
	fputs(",\"source_why\":", out);
	export__json_str(out, m->source_why ? m->source_why : "");
	fputs(",\"unit\":", out);
	export__json_str(out, m->unit ? m->unit : "");
	fprintf(out, ",\"period\":%llu,\"duration\":", (unsigned long long)m->period);
	export__json_num(out, m->duration, 9);
	fprintf(out, ",\"samples\":%llu,\"dropped\":%llu,\"drops\":{",
		(unsigned long long)m->samples, (unsigned long long)m->dropped);
	for (int i = 0; i < m->ndrop && i < 8; i++) {
		if (i)
			putc(',', out);
		export__json_str(out, m->drop_names[i] ? m->drop_names[i] : "?");
		fprintf(out, ":%llu", (unsigned long long)m->dropped_by[i]);
	}
	fprintf(out, "},\"nprocs\":%d,\"nthreads\":%d,\"partial\":%d,\"total\":", m->nprocs,
		m->nthreads, m->partial);
	export__json_num(out, m->root ? m->root->total : m->total, 9);
	fputs(",\"join_note\":", out);
	export__json_str(out, m->join_note ? m->join_note : "");
	fputs(",\"cost\":", out);
	kv_object(out, &m->cost);
	fputs(",\"calib\":", out);
	kv_object(out, &m->calib);
	fputs(",\"threads\":[", out);
	for (size_t i = 0; i < m->nthreadinfo; i++) {
		struct hp_threadinfo *t = &m->threads[i];
		fprintf(out, "%s{\"rank\":%d,\"pid\":%d,\"tid\":%d,\"index\":%d,\"samples\":%llu,"
			"\"dropped\":%llu,\"wall\":", i ? "," : "", t->rank, t->pid, t->tid, t->index,
			(unsigned long long)t->samples, (unsigned long long)t->dropped);
		export__json_num(out, t->wall, 9);
		fputs(",\"cpu\":", out);
		export__json_num(out, t->cpu, 9);
		fputs(",\"total\":", out);
		export__json_num(out, t->root ? t->root->total : 0, 9);
		putc('}', out);
	}
	fputs("],\"ranks\":[", out);
	for (size_t i = 0; i < m->nranks; i++) {
		struct hp_rankinfo *r = &m->ranks[i];
		fprintf(out, "%s{\"rank\":%d,\"pid\":%d", i ? "," : "", r->rank, r->pid);
		const char *k[] = {"wall_raw", "wall_local", "wall_parallel", "wait_raw",
				   "wait_compensated"};
		double v[] = {r->wall_raw, r->wall_local, r->wall_parallel, r->wait_raw,
			      r->wait_compensated};
		for (int j = 0; j < 5; j++) {
			fprintf(out, ",\"%s\":", k[j]);
			export__json_num(out, v[j], 9);
		}
		fprintf(out, ",\"reordered_receives\":%llu}",
			(unsigned long long)r->reordered_receives);
	}
	fputs("],\"views\":{\"cost\":", out);
	view_json(out, m, view_cost_json);
	fputs(",\"comp\":", out);
	view_json(out, m, view_comp_json);
	fputs(",\"mpi\":", out);
	view_json(out, m, view_mpi_json);
	fputs(",\"critpath\":", out);
	view_json(out, m, view_critpath_json);
	fputs("}}", out);
}

/* Children of each kept node, by inclusive value of the last run, descending
 * (the widest first, like speedscope's left-heavy view). */
struct emit {
	struct hb *b;
	int32_t *order; /* pre-order of kept nodes */
	int32_t *depth;
	size_t n;
};

static int by_total_desc(const void *pa, const void *pb, void *arg)
{
	struct hb *b = arg;
	const struct cnode *a = &b->c[*(const int32_t *)pa], *c = &b->c[*(const int32_t *)pb];
	int r = b->nrun - 1;
	double x = a->total[r] + (b->nrun > 1 ? a->total[0] * 1e-9 : 0);
	double y = c->total[r] + (b->nrun > 1 ? c->total[0] * 1e-9 : 0);
	if (x != y)
		return x > y ? -1 : 1;
	if (a->fn != c->fn) /* pruned rest (-1) last */
		return a->fn < 0 ? 1 : c->fn < 0 ? -1 : 0;
	return *(const int32_t *)pa - *(const int32_t *)pb;
}

static int order_tree(struct emit *e)
{
	struct hb *b = e->b;
	size_t cap = 1024;
	int32_t *stack = malloc(cap * sizeof(*stack)), *sd = malloc(cap * sizeof(*sd));
	int32_t *kids = malloc((b->nc + 1) * sizeof(*kids));
	e->order = malloc((b->nc + 1) * sizeof(*e->order));
	e->depth = malloc((b->nc + 1) * sizeof(*e->depth));
	int rc = 0;
	if (!stack || !sd || !kids || !e->order || !e->depth) {
		rc = -ENOMEM;
		goto out;
	}
	size_t sp = 0;
	/* push root's children */
	stack[sp] = 0;
	sd[sp++] = 0;
	while (sp) {
		int32_t i = stack[--sp];
		int32_t d = sd[sp];
		if (i != 0) {
			e->order[e->n] = i;
			e->depth[e->n++] = d;
		}
		size_t k = 0;
		for (int32_t c = b->c[i].first; c >= 0; c = b->c[c].next)
			if (b->c[c].kept)
				kids[k++] = c;
		qsort_r(kids, k, sizeof(*kids), by_total_desc, b);
		if (sp + k > cap) {
			while (sp + k > cap)
				cap *= 2;
			int32_t *ns = realloc(stack, cap * sizeof(*ns));
			if (ns)
				stack = ns;
			int32_t *nd = ns ? realloc(sd, cap * sizeof(*nd)) : NULL;
			if (!nd) {
				rc = -ENOMEM;
				goto out;
			}
			sd = nd;
		}
		/* push in reverse so the widest child is visited first */
		for (size_t j = k; j-- > 0;) {
			stack[sp] = kids[j];
			sd[sp++] = d + 1;
		}
	}
out:
	free(stack);
	free(sd);
	free(kids);
	return rc;
}

static void column_num(FILE *out, const char *name, struct emit *e, int r, int what)
{
	fprintf(out, ",\"%s%d\":[", name, r);
	for (size_t i = 0; i < e->n; i++) {
		const struct cnode *c = &e->b->c[e->order[i]];
		if (i)
			putc(',', out);
		switch (what) {
		case 0: export__json_num(out, c->total[r], 6); break;
		case 1: export__json_num(out, c->self[r], 6); break;
		case 2: fprintf(out, "%lld", (long long)c->calls[r]); break;
		case 3: export__json_num(out, c->samples[r], 6); break;
		default: export__json_num(out, c->total_raw[r], 6); break;
		}
	}
	putc(']', out);
}

/* HYPROF_HTML_PRUNE, percent (a trailing '%' allowed).  A bad value is
 * one line on stderr and the default, as for the runtime's variables: it
 * was taken silently, so "0,01" or "1e" pruned at 0.05% unannounced. */
static double prune_fraction(void)
{
	const char *s = getenv("HYPROF_HTML_PRUNE");
	double pct = HTML_PRUNE_DEFAULT;
	if (s && *s) {
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		if (end != s && *end == '%')
			end++;
		if (end != s && !*end && !errno && v >= 0 && v < 100)
			pct = v;
		else
			fprintf(stderr, "hyprof: HYPROF_HTML_PRUNE=\"%s\": expected a percentage from 0 to "
				"below 100; using the default (%g)\n", s, HTML_PRUNE_DEFAULT);
	}
	return pct / 100.0;
}

struct frow {
	int32_t fn;
	double self[MAXRUN], total[MAXRUN], self_raw[MAXRUN];
	int64_t calls[MAXRUN];
};

static int by_self_desc(const void *pa, const void *pb, void *arg)
{
	const struct frow *a = pa, *b = pb;
	int r = *(int *)arg;
	double x = fabs(a->self[r] - (r ? a->self[0] : 0));
	double y = fabs(b->self[r] - (r ? b->self[0] : 0));
	if (x != y)
		return x > y ? -1 : 1;
	return a->fn - b->fn;
}

static int write_flat(FILE *out, struct hb *b)
{
	struct export_map rows;
	struct frow *f = NULL;
	size_t nf = 0, cap = 0;
	int rc = 0;
	if (export__map_init(&rows, 1024) < 0)
		return -ENOMEM;
	for (int r = 0; r < b->nrun && !rc; r++) {
		struct hp_model *m = b->run[r];
		for (size_t i = 0; i < m->nflat; i++) {
			struct hp_fstat *s = &m->flat[i];
			int64_t fn = hfunc_of(b, s->fn);
			int isnew;
			uint64_t *v = fn < 0 ? NULL : export__map_get(&rows, (uint64_t)fn, &isnew);
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			if (isnew) {
				if (nf == cap) {
					cap = cap ? cap * 2 : 1024;
					struct frow *nfp = realloc(f, cap * sizeof(*nfp));
					if (!nfp) {
						rc = -ENOMEM;
						break;
					}
					f = nfp;
				}
				memset(&f[nf], 0, sizeof(f[nf]));
				f[nf].fn = (int32_t)fn;
				for (int k = 0; k < MAXRUN; k++)
					f[nf].calls[k] = -1;
				*v = ++nf;
			}
			struct frow *row = &f[*v - 1];
			row->self[r] += s->self;
			row->total[r] += s->total;
			row->self_raw[r] += s->self_raw;
			if (s->calls >= 0)
				row->calls[r] = (row->calls[r] < 0 ? 0 : row->calls[r]) + s->calls;
		}
	}
	if (!rc) {
		int key = b->nrun - 1;
		if (nf)
			qsort_r(f, nf, sizeof(*f), by_self_desc, &key);
		fprintf(out, ",\"nflat\":%zu,\"flat\":[", nf);
		for (size_t i = 0; i < nf && i < HTML_FLAT_MAX; i++) {
			fprintf(out, "%s[%d", i ? "," : "", f[i].fn);
			for (int r = 0; r < b->nrun; r++) {
				putc(',', out);
				export__json_num(out, f[i].self[r], 6);
				putc(',', out);
				export__json_num(out, f[i].total[r], 6);
				fprintf(out, ",%lld,", (long long)f[i].calls[r]);
				export__json_num(out, f[i].self_raw[r], 6);
			}
			putc(']', out);
		}
		putc(']', out);
	}
	export__map_free(&rows);
	free(f);
	return rc;
}

static int write_data(FILE *out, struct hb *b)
{
	struct emit e = {.b = b};
	int rc = build(b);
	b->nbuilt = b->nc ? b->nc - 1 : 0;
	if (!rc)
		rc = prune(b);
	if (!rc)
		rc = order_tree(&e);
	if (rc)
		goto out;

	fprintf(out, "{\"version\":1,\"kind\":\"%s\",\"generator\":\"hyprof " HYPROF_VERSION "\","
		"\"prune\":", b->nrun > 1 ? "compare" : "report");
	export__json_num(out, b->prune * 100, 6);
	fputs(",\"runs\":[", out);
	for (int r = 0; r < b->nrun; r++) {
		if (r)
			putc(',', out);
		write_run(out, b->run[r]);
	}
	fprintf(out, "],\"metric\":{\"measured\":%d,\"has_calls\":%d,\"name\":\"%s\"}",
		b->measured, b->has_calls,
		b->measured ? "measured time (compensated)" : "sampled time");
	/* flat first: it may add functions the tree does not keep */
	rc = write_flat(out, b);
	if (rc)
		goto out;
	fputs(",\"funcs\":[", out);
	for (size_t i = 0; i < b->nf; i++) {
		struct hfunc *f = &b->f[i];
		fputs(i ? ",[" : "[", out);
		export__json_str(out, f->name);
		putc(',', out);
		export__json_str(out, f->module);
		putc(',', out);
		export__json_str(out, f->file ? f->file : "");
		fprintf(out, ",%d,%d]", f->line, f->kind);
	}
	fprintf(out, "],\"nodes_total\":%zu,\"tree\":{\"n\":%zu,\"fn\":[", b->nbuilt, e.n);
	for (size_t i = 0; i < e.n; i++) {
		int32_t f = b->c[e.order[i]].fn;
		if (i)
			putc_unlocked(',', out);
		if (f < 0)
			fputs("-1", out);
		else
			export__put_u64(out, (uint64_t)f);
	}
	fputs("],\"depth\":[", out);
	for (size_t i = 0; i < e.n; i++) {
		if (i)
			putc_unlocked(',', out);
		export__put_u64(out, (uint64_t)e.depth[i]);
	}
	fputs("],\"inl\":[", out);
	for (size_t i = 0; i < e.n; i++)
		fprintf(out, i ? ",%u" : "%u", b->c[e.order[i]].flags & 1);
	putc(']', out);
	for (int r = 0; r < b->nrun; r++) {
		column_num(out, "total", &e, r, 0);
		column_num(out, "self", &e, r, 1);
		column_num(out, "calls", &e, r, 2);
		column_num(out, "samples", &e, r, 3);
		if (b->measured)
			column_num(out, "raw", &e, r, 4);
	}
	fputs("},\"pruned\":[", out);
	int first = 1;
	for (size_t i = 0; i < e.n; i++) {
		const struct cnode *c = &b->c[e.order[i]];
		if (c->fn >= 0)
			continue;
		fprintf(out, "%s[%zu,%d]", first ? "" : ",", i, c->npruned);
		first = 0;
	}
	fputs("]}", out);
out:
	free(e.order);
	free(e.depth);
	return rc;
}

static int write_page(FILE *out, struct hb *b)
{
	static const char marker[] = "/*HYPROF_DATA*/";
	const char *tpl = hp_html_report;
	const char *at = strstr(tpl, marker);
	int rc;

	if (!at)
		return -EINVAL; /* the template lost its marker: a build error */
	b->prune = prune_fraction();
	fwrite(tpl, 1, (size_t)(at - tpl), out);
	rc = write_data(out, b);
	at += sizeof(marker) - 1;
	fwrite(at, 1, hp_html_report_len - (size_t)(at - tpl), out);
	if (!rc && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	free(b->f);
	free(b->c);
	free(b->stack);
	export__map_free(&b->fmap);
	export__map_free(&b->cmap);
	return rc;
}

int html__report(struct hp_model *m, FILE *out)
{
	struct hb b;
	memset(&b, 0, sizeof(b));
	b.nrun = 1;
	b.run[0] = m;
	return write_page(out, &b);
}

int html__compare(struct hp_model *a, struct hp_model *b, FILE *out)
{
	struct hb h;
	memset(&h, 0, sizeof(h));
	h.nrun = 2;
	h.run[0] = a;
	h.run[1] = b;
	return write_page(out, &h);
}
