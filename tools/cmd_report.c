/* tools/cmd_report.c - `hyprof report [options] DIR`: header, call tree,
 * flat profile, then every linked view (tools/views.h); or all of it as
 * JSON (--json, the stable interface documented in docs/FORMAT.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/json.h"
#include "tools/model.h"
#include "tools/model_build.h"
#include "tools/report.h"
#include "tools/util.h"
#include "tools/export.h"
#include "tools/html.h"
#include "tools/views.h"

int cmd_report(int argc, char **argv);

enum { R_JSON = 1000, R_TOP, R_THREADS, R_RANKS, R_RAW, R_VIEW, R_MIN, R_COMPACT, R_HTML, R_OUT, R_NOFOLD };

static const struct tool_opt report_opts[] = {
	{"json", 0, NULL, NULL, "print JSON (the stable interface, docs/FORMAT.md \"report --json\")", R_JSON},
	{"top", 'n', "N", NULL, "flat profile rows and children per tree node shown (text default 25; JSON: all)", R_TOP},
	{"min-pct", 0, "PCT", NULL, "hide tree nodes below PCT% of the total (text default 0.5; JSON default 0)", R_MIN},
	{"threads", 0, NULL, NULL, "also one tree and flat profile per thread", R_THREADS},
	{"ranks", 0, NULL, NULL, "also one tree and flat profile per process (MPI rank)", R_RANKS},
	{"raw", 0, NULL, NULL, "measured mode: show raw times instead of compensated ones", R_RAW},
	{"no-fold", 0, NULL, NULL, "show every frame of hyprof's own code (by default MPI wrapper frames fold into the MPI call)", R_NOFOLD},
	{"view", 0, "NAME", NULL, "add a view: critical-path (the others print when their data exists)", R_VIEW},
	{"compact", 0, NULL, NULL, "JSON on one line", R_COMPACT},
	{"html", 0, NULL, NULL, "write one self-contained interactive HTML page (needs -o FILE)", R_HTML},
	{"output", 'o', "FILE", NULL, "with --html: the page to write (written atomically)", R_OUT},
	{NULL, 0, NULL, NULL, NULL, 0},
};

static const char report_usage[] = "hyprof report [options] DIR|FILE.hyp";
static const char report_intro[] =
	"Print the profile written by `hyprof run` into DIR (every process and thread\n"
	"merged): a header, the top-down call tree, the flat profile, then the views\n"
	"of the parts that ran (compensation, cost, MPI, critical path).";

/* ---- text -------------------------------------------------------------- */

struct topts {
	int top;
	double min_pct;
	int raw;
	FILE *out;
	double total;
};

static double v_self(const struct hp_tnode *n, int raw) { return raw ? n->self_raw : n->self; }
static double v_total(const struct hp_tnode *n, int raw) { return raw ? n->total_raw : n->total; }

static int cmp_children(const void *a, const void *b)
{
	const struct hp_tnode *x = *(const struct hp_tnode *const *)a, *y = *(const struct hp_tnode *const *)b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->fn->name, y->fn->name);
}

/* Children sorted by total, descending (malloc'ed array). */
struct hp_tnode **report_sorted_children(const struct hp_tnode *n, uint32_t *count)
{
	uint32_t k = 0;
	for (struct hp_tnode *c = n->child; c; c = c->sibling)
		k++;
	struct hp_tnode **v = malloc((k ? k : 1) * sizeof *v);
	if (!v)
		abort();
	k = 0;
	for (struct hp_tnode *c = n->child; c; c = c->sibling)
		v[k++] = c;
	qsort(v, k, sizeof *v, cmp_children);
	*count = k;
	return v;
}

/* The markers of a node, in the order the text and JSON reports list them. */
static const struct {
	uint32_t flag;
	const char *name;
} tnode_flags[] = {
	{HP_T_FOLDED, "folded"},      {HP_T_INLINED, "inlined"},     {HP_T_PROBE_ONLY, "probe-only"},
	{HP_T_PARTIAL, "partial"},    {HP_T_EXCLUDED, "excluded"},   {HP_T_TRUNCATED, "truncated"},
	{HP_T_OVERLAY, "overlay"},
};

void report_flags(const struct hp_tnode *n, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	if (n->fn && n->fn->is_region)
		o += (size_t)snprintf(buf + o, len - o, " [region]");
	if (n->fn && n->fn->is_measurement && o < len)
		o += (size_t)snprintf(buf + o, len - o, " [hyprof]");
	for (size_t i = 0; i < sizeof tnode_flags / sizeof tnode_flags[0] && o < len; i++)
		if (n->flags & tnode_flags[i].flag)
			o += (size_t)snprintf(buf + o, len - o, " [%s]", tnode_flags[i].name);
}

static void fmt_calls(int64_t c, char *buf, size_t len)
{
	if (c < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)c);
}

static double pct(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0.0;
}

static void tree_rec(struct topts *o, const struct hp_tnode *n, int depth, int *hidden)
{
	uint32_t k;
	struct hp_tnode **v = report_sorted_children(n, &k);
	uint32_t shown = 0;
	for (uint32_t i = 0; i < k; i++) {
		const struct hp_tnode *c = v[i];
		double t = v_total(c, o->raw);
		int keep = pct(t, o->total) >= o->min_pct || (o->total <= 0 && c->calls > 0);
		if (!keep || (o->top > 0 && shown >= (uint32_t)o->top)) {
			(*hidden)++;
			continue;
		}
		shown++;
		char a[32], b[32], cs[32], fl[128];
		fmt_calls(c->calls, cs, sizeof cs);
		report_flags(c, fl, sizeof fl);
		fprintf(o->out, "%6.1f %6.1f %11s %11s %12s  %*s%s%s\n", pct(t, o->total),
			pct(v_self(c, o->raw), o->total), tool_fmt_secs(t, a, sizeof a),
			tool_fmt_secs(v_self(c, o->raw), b, sizeof b), cs, depth * 2, "", c->fn->name, fl);
		tree_rec(o, c, depth + 1, hidden);
	}
	free(v);
}

static void print_tree(struct topts *o, const struct hp_tnode *root, const char *title)
{
	fprintf(o->out, "\n%s (percent of %s; nodes under %.1f%% hidden)\n", title,
		o->raw ? "raw total" : "total", o->min_pct);
	fprintf(o->out, "%6s %6s %11s %11s %12s  %s\n", "total%", "self%", "total", "self", "calls",
		"function");
	int hidden = 0;
	tree_rec(o, root, 0, &hidden);
	if (hidden)
		fprintf(o->out, "  (%d subtrees hidden: --min-pct 0 --top 0 shows everything)\n", hidden);
}

static void print_flat(struct topts *o, struct hp_fstat *rows, size_t n)
{
	fprintf(o->out, "\nFlat profile (self time per function; total counted once per call path)\n");
	fprintf(o->out, "%6s %11s %6s %11s %12s %11s  %-40s %s\n", "self%", "self", "total%", "total",
		"calls", "time/call", "function", "module");
	size_t lim = o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;
	for (size_t i = 0; i < lim; i++) {
		const struct hp_fstat *r = &rows[i];
		double s = o->raw ? r->self_raw : r->self, t = o->raw ? r->total_raw : r->total;
		char a[32], b[32], c[32], d[32];
		fmt_calls(r->calls, c, sizeof c);
		if (r->calls > 0)
			tool_fmt_secs(t / (double)r->calls, d, sizeof d);
		else
			snprintf(d, sizeof d, "-");
		fprintf(o->out, "%6.1f %11s %6.1f %11s %12s %11s  %-40s %s\n", pct(s, o->total),
			tool_fmt_secs(s, a, sizeof a), pct(t, o->total), tool_fmt_secs(t, b, sizeof b), c,
			d, r->fn->name, r->fn->module);
	}
	if (lim < n)
		fprintf(o->out, "  (%zu more functions: --top 0 shows all)\n", n - lim);
}

static void print_header(struct hp_model *m, FILE *out)
{
	char a[32];
	fprintf(out, "hyprof report: %s\n", m->dir);
	fprintf(out, "program   %s\n", m->program);
	if (m->nprogs > 1) { /* a launched script or make: what ran under it */
		fprintf(out, "programs ");
		for (int i = 0; i < m->nprogs && i < 12; i++) {
			fprintf(out, "%s %s", i ? "," : "", m->progs[i].name);
			if (m->progs[i].procs > 1)
				fprintf(out, " x%d", m->progs[i].procs);
		}
		if (m->nprogs > 12)
			fprintf(out, ", ... (%d programs)", m->nprogs);
		fputc('\n', out);
	}
	fprintf(out, "mode      %s\n", m->mode);
	fprintf(out, "source    %s, period %llu %s", m->source, (unsigned long long)m->period, m->unit);
	if (strcmp(m->unit, "ns") == 0 && m->period > 0)
		fprintf(out, " (%.0f Hz per thread of CPU time)", 1e9 / (double)m->period);
	fputc('\n', out);
	if (m->source_why && *m->source_why)
		fprintf(out, "          why: %s\n", m->source_why);
	fprintf(out, "samples   %llu", (unsigned long long)m->samples);
	if (m->dropped) {
		fprintf(out, ", dropped %llu (", (unsigned long long)m->dropped);
		int first = 1;
		for (int i = 0; i < m->ndrop; i++) {
			if (!m->dropped_by[i])
				continue;
			fprintf(out, "%s%s %llu", first ? "" : ", ", m->drop_names[i],
				(unsigned long long)m->dropped_by[i]);
			first = 0;
		}
		fputc(')', out);
	} else {
		fprintf(out, ", none dropped");
	}
	fputc('\n', out);
	fprintf(out, "processes %d, threads %d, duration %s (longest process)\n", m->nprocs, m->nthreads,
		tool_fmt_secs(m->duration, a, sizeof a));
	fprintf(out, "total     %s of %s time\n", tool_fmt_secs(m->total, a, sizeof a),
		m->timed ? "compensated measured" : "sampled");
	if (view_cost_summary) {
		char buf[512];
		if (view_cost_summary(m, buf, sizeof buf) > 0)
			fprintf(out, "overhead  %s\n", buf);
	}
	fprintf(out, "join      %s\n", m->join_note);
	uint64_t ps[4] = {0, 0, 0, 0};
	if (view_probe_stack)
		view_probe_stack(m, ps);
	if (ps[0] || ps[1] || ps[2])
		fprintf(out, "probes    %llu exits matched no entry (longjmp, or an entry before hyprof started): "
			     "calls right after one may sit under stale frames; %llu calls past the shadow "
			     "stack's depth (counted, not timed); %llu calls by signal handlers not recorded\n",
			(unsigned long long)ps[0], (unsigned long long)ps[1], (unsigned long long)ps[2]);
	if (ps[3])
		fprintf(out, "probes    %llu calls found their thread's probe tree full (--max-nodes): each is "
			     "counted as a call of its caller, whose node is marked [truncated]\n",
			(unsigned long long)ps[3]);
	if (m->partial)
		fprintf(out, "WARNING   partial profile: a process wrote its data on a crash or exec; "
			     "some data may be missing\n");
	if (m->unfinished)
		fprintf(out, "WARNING   %d process%s left no profile (killed by SIGKILL, or %s write failed) "
			     "and %s not in this report: %s last live snapshot%s: hyprof report %s%s.live\n",
			m->unfinished, m->unfinished == 1 ? "" : "es", m->unfinished == 1 ? "its" : "their",
			m->unfinished == 1 ? "is" : "are", m->unfinished == 1 ? "its" : "their",
			m->unfinished == 1 ? "" : "s", m->dir, m->dir[0] && m->dir[strlen(m->dir) - 1] == '/' ? "" : "/");
}

/* ---- JSON ------------------------------------------------------------ */

static void json_calls(struct json *j, int64_t c)
{
	if (c < 0)
		json__null(j);
	else
		json__int(j, c);
}

/* The members a tree node and a flat profile row share, in this order. */
static void json_metrics(struct json *j, double self, double tot, double total, int64_t calls,
			 double self_raw, double total_raw, double sampled_self)
{
	json__key_num(j, "self", self);
	json__key_num(j, "total", tot);
	json__key_num(j, "self_pct", pct(self, total));
	json__key_num(j, "total_pct", pct(tot, total));
	json__key(j, "calls");
	json_calls(j, calls);
	json__key_num(j, "self_raw", self_raw);
	json__key_num(j, "total_raw", total_raw);
	json__key_num(j, "sampled_self", sampled_self);
}

static void json_tree(struct json *j, const struct hp_tnode *n, double total, double min_pct,
		      int top)
{
	json__obj_begin(j);
	json__key_str(j, "name", n->fn ? n->fn->name : "[root]");
	if (n->fn)
		json__key_str(j, "module", n->fn->module);
	json_metrics(j, n->self, n->total, total, n->calls, n->self_raw, n->total_raw,
		     n->sampled_self);
	json__key_num(j, "sampled_total", n->sampled_total);
	json__key_num(j, "samples", n->samples);
	json__key_bool(j, "folded", (n->flags & HP_T_FOLDED) != 0);
	if (n->flags & ~HP_T_FOLDED || (n->fn && (n->fn->is_region || n->fn->is_measurement))) {
		json__key(j, "flags");
		json__arr_begin(j);
		/* "folded" has a member of its own */
		for (size_t i = 0; i < sizeof tnode_flags / sizeof tnode_flags[0]; i++)
			if ((n->flags & tnode_flags[i].flag) && tnode_flags[i].flag != HP_T_FOLDED)
				json__str(j, tnode_flags[i].name);
		if (n->fn && n->fn->is_region)
			json__str(j, "region");
		if (n->fn && n->fn->is_measurement)
			json__str(j, "measurement");
		json__arr_end(j);
	}
	if (n->clamped)
		json__key_uint(j, "clamped", n->clamped);
	json__key(j, "children");
	json__arr_begin(j);
	uint32_t k;
	struct hp_tnode **v = report_sorted_children(n, &k);
	uint32_t shown = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (pct(v[i]->total, total) < min_pct && !(min_pct <= 0))
			continue;
		if (top > 0 && shown >= (uint32_t)top)
			continue;
		shown++;
		json_tree(j, v[i], total, min_pct, top);
	}
	free(v);
	json__arr_end(j);
	json__obj_end(j);
}

static void json_functions(struct json *j, const struct hp_fstat *rows, size_t n, double total,
			   int top)
{
	json__arr_begin(j);
	size_t lim = top > 0 && (size_t)top < n ? (size_t)top : n;
	for (size_t i = 0; i < lim; i++) {
		const struct hp_fstat *r = &rows[i];
		json__obj_begin(j);
		json__key_str(j, "name", r->fn->name);
		json__key_str(j, "module", r->fn->module);
		json__key_str(j, "file", r->fn->file);
		json__key_int(j, "line", r->fn->line);
		json_metrics(j, r->self, r->total, total, r->calls, r->self_raw, r->total_raw,
			     r->sampled_self);
		json__key_bool(j, "region", r->fn->is_region);
		json__key_num(j, "cost", r->cost);
		json__obj_end(j);
	}
	json__arr_end(j);
}

/* "total", "functions" and "tree" of one part (a thread, a rank). */
static void json_part(struct json *j, const struct hp_tnode *root, const struct hp_fstat *rows,
		      size_t n, double min_pct, int top)
{
	json__key_num(j, "total", root->total);
	json__key(j, "functions");
	json_functions(j, rows, n, root->total, top);
	json__key(j, "tree");
	json_tree(j, root, root->total, min_pct, top);
}

static int report_json(struct hp_model *m, int pretty, int top, double min_pct, int threads,
		       int ranks, int critpath)
{
	struct json *j = json__new(stdout, pretty);
	if (!j)
		return tool_err("out of memory");
	json__obj_begin(j);
	json__key_str(j, "program", m->program);
	json__key(j, "programs");
	json__arr_begin(j);
	for (int i = 0; i < m->nprogs; i++) {
		json__obj_begin(j);
		json__key_str(j, "name", m->progs[i].name);
		json__key(j, "processes");
		json__int(j, m->progs[i].procs);
		json__obj_end(j);
	}
	json__arr_end(j);
	json__key_str(j, "mode", m->mode);
	json__key_str(j, "source", m->source);
	json__key_str(j, "source_why", m->source_why);
	json__key_uint(j, "period", m->period);
	json__key_str(j, "unit", m->unit);
	json__key_uint(j, "samples", m->samples);
	json__key_uint(j, "dropped", m->dropped);
	json__key(j, "dropped_by");
	json__obj_begin(j);
	for (int i = 0; i < m->ndrop; i++) {
		json__key(j, m->drop_names[i]);
		json__uint(j, m->dropped_by[i]);
	}
	json__obj_end(j);
	json__key_int(j, "processes", m->nprocs);
	json__key_int(j, "threads", m->nthreads);
	json__key_num(j, "duration", m->duration);
	json__key_bool(j, "partial", m->partial);
	json__key(j, "unfinished");
	json__int(j, m->unfinished);
	json__key_str(j, "join", m->join_note);
	uint64_t ps[4] = {0, 0, 0, 0};
	if (view_probe_stack)
		view_probe_stack(m, ps);
	json__key(j, "probe_stack");
	json__obj_begin(j);
	json__key(j, "exit_mismatch");
	json__uint(j, ps[0]);
	json__key(j, "stack_overflow");
	json__uint(j, ps[1]);
	json__key(j, "nested_lost");
	json__uint(j, ps[2]);
	json__key(j, "tree_full");
	json__uint(j, ps[3]);
	json__obj_end(j);
	json__key_num(j, "total", m->total);
	json__key(j, "functions");
	json_functions(j, m->flat, m->nflat, m->total, top);
	json__key(j, "tree");
	json_tree(j, m->root, m->total, min_pct, top);
	if (threads) {
		json__key(j, "per_thread");
		json__arr_begin(j);
		for (size_t i = 0; i < m->nthreadinfo; i++) {
			const struct hp_threadinfo *t = &m->threads[i];
			json__obj_begin(j);
			json__key_int(j, "rank", t->rank);
			json__key_int(j, "pid", t->pid);
			json__key_int(j, "tid", t->tid);
			json__key_int(j, "index", t->index);
			json__key_int(j, "merged_threads", t->merged);
			json__key_uint(j, "samples", t->samples);
			json__key_uint(j, "dropped", t->dropped);
			json__key_num(j, "wall", t->wall);
			json__key_num(j, "cpu", t->cpu);
			/* one thread: its own tree */
			struct hp_fstat *rows;
			size_t n = model__thread_flat(m, i, &rows);
			json_part(j, t->root, rows, n, min_pct, top);
			free(rows);
			json__obj_end(j);
		}
		json__arr_end(j);
	}
	if (ranks) {
		json__key(j, "per_rank");
		json__arr_begin(j);
		struct hp_rankpart *rl;
		size_t nr = model__rank_list(m, &rl);
		for (size_t i = 0; i < nr; i++) {
			json__obj_begin(j);
			json__key_int(j, "rank", rl[i].rank);
			json__key_int(j, "pid", rl[i].pid);
			struct hp_tnode *root = model__rank_tree(m, &rl[i]);
			struct hp_fstat *rows;
			size_t n = model__rank_flat(m, &rl[i], &rows);
			json_part(j, root, rows, n, min_pct, top);
			free(rows);
			json__obj_end(j);
		}
		free(rl);
		json__arr_end(j);
	}
	if (view_comp_json && strcmp(m->mode, "measured") == 0)
		view_comp_json(m, j);
	if (view_cost_json)
		view_cost_json(m, j);
	if (view_mpi_json)
		view_mpi_json(m, j);
	if (view_critpath_json && critpath)
		view_critpath_json(m, j);
	json__obj_end(j);
	/* --compact is one line: ended by its newline, as text tools
	 * (wc -l, read, jq -c's output) expect (json__free ends pretty
	 * output only) */
	if (!pretty)
		fputc('\n', stdout);
	if (json__free(j) < 0)
		return tool_err("writing the report failed: %s", strerror(errno ? errno : EIO));
	return HP_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	int json = 0, threads = 0, ranks = 0, raw = 0, critpath = 0, compact = 0, html = 0;
	unsigned lopts = 0;
	const char *outpath = NULL;
	long top = -1;
	double min_pct = -1;
	int c;
	while ((c = tool_getopt("report", argc, argv, report_opts, report_usage, report_intro, 0)) !=
	       -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		uint64_t u;
		switch (c) {
		case R_JSON: json = 1; break;
		case R_COMPACT: compact = 1; break;
		case R_HTML: html = 1; break;
		case R_OUT: outpath = optarg; break;
		case R_THREADS: threads = 1; break;
		case R_RANKS: ranks = 1; break;
		case R_RAW: raw = 1; break;
		case R_NOFOLD: lopts |= MODEL_NO_FOLD; break;
		case R_TOP:
			if (tool_parse_u64(optarg, &u) < 0 || u > 1000000000)
				return tool_usage("report", "--top needs a number, not '%s'", optarg);
			top = (long)u;
			break;
		case R_MIN:
			if (tool_parse_double(optarg, &min_pct) < 0 || min_pct < 0 || min_pct > 100)
				return tool_usage("report", "--min-pct needs a percentage 0..100, not '%s'", optarg);
			break;
		case R_VIEW:
			if (strcmp(optarg, "critical-path") == 0 || strcmp(optarg, "critpath") == 0)
				critpath = 1;
			else if (strcmp(optarg, "cost") && strcmp(optarg, "mpi") && strcmp(optarg, "comp"))
				return tool_usage("report", "unknown view '%s' (critical-path, cost, mpi, comp)", optarg);
			break;
		default:
			return tool_usage("report", "unhandled option");
		}
	}
	if (optind >= argc)
		return tool_usage("report", "no profile directory given");
	if (argc - optind > 1)
		return tool_usage("report", "one profile directory only (to put two side by side: hyprof compare A B)");
	if (html && json)
		return tool_usage("report", "--html and --json are exclusive");
	if (html && !outpath)
		return tool_usage("report", "--html needs -o FILE (the page to write)");
	if (outpath && !html)
		return tool_usage("report", "-o FILE goes with --html (text and JSON go to stdout)");
	if (html && !html__report)
		return tool_err("the HTML report is not available in this build");
	if (critpath && !(json ? (void *)view_critpath_json : (void *)view_critpath_text))
		return tool_err("the critical-path view is not available in this build");

	struct hp_model m;
	char err[1024];
	if (model__load_opts(&m, argv[optind], lopts, err, sizeof err) < 0)
		return tool_err("%s", err);
	int rc = HP_EXIT_OK;
	if (html) {
		char tmp[4200], werr[512] = "";
		FILE *f = export__open(outpath, tmp, sizeof tmp, werr, sizeof werr);
		int r = f ? html__report(&m, f) : -EIO;
		if (f)
			r = export__commit(f, tmp, outpath, r, werr, sizeof werr);
		model__free(&m);
		if (r < 0)
			return tool_err("%s", werr[0] ? werr : strerror(-r));
		return HP_EXIT_OK;
	}
	if (json) {
		rc = report_json(&m, !compact, top < 0 ? 0 : (int)top, min_pct < 0 ? 0 : min_pct, threads,
				 ranks, critpath);
		model__free(&m);
		return rc;
	}
	struct topts o = {top < 0 ? 25 : (int)top, min_pct < 0 ? 0.5 : min_pct, raw, stdout, 0};
	int measured = strcmp(m.mode, "measured") == 0;
	if (raw && !measured)
		fprintf(stderr, "hyprof report: --raw changes nothing in %s mode (times are not "
				"compensated)\n", m.mode);
	print_header(&m, stdout);
	o.total = raw ? m.root->total_raw : m.root->total;
	print_tree(&o, m.root, "Call tree");
	print_flat(&o, m.flat, m.nflat);
	if (threads) {
		for (size_t i = 0; i < m.nthreadinfo; i++) {
			const struct hp_threadinfo *t = &m.threads[i];
			char title[256], a[32], b[32], who[64];
			/* the runtime's record of exited threads past HYPROF_MAX_THREADS */
			if (t->merged > 1)
				snprintf(who, sizeof who, "[%d exited threads]", t->merged);
			else
				snprintf(who, sizeof who, "tid %d", t->tid);
			snprintf(title, sizeof title,
				 "Thread %d of rank %d (pid %d, %s): %llu samples, wall %s, cpu %s",
				 t->index, t->rank, t->pid, who, (unsigned long long)t->samples,
				 tool_fmt_secs(t->wall, a, sizeof a), tool_fmt_secs(t->cpu, b, sizeof b));
			o.total = raw ? t->root->total_raw : t->root->total;
			fprintf(stdout, "\n== %s\n", title);
			print_tree(&o, t->root, "Call tree");
			struct hp_fstat *rows;
			size_t n = model__thread_flat(&m, i, &rows);
			print_flat(&o, rows, n);
			free(rows);
		}
	}
	if (ranks) {
		struct hp_rankpart *rl;
		size_t nr = model__rank_list(&m, &rl);
		for (size_t i = 0; i < nr; i++) {
			struct hp_tnode *root = model__rank_tree(&m, &rl[i]);
			struct hp_fstat *rows;
			size_t n = model__rank_flat(&m, &rl[i], &rows);
			o.total = raw ? root->total_raw : root->total;
			if (rl[i].rank >= 0)
				fprintf(stdout, "\n== Rank %d (pid %d)\n", rl[i].rank, rl[i].pid);
			else
				fprintf(stdout, "\n== Process %d (no MPI rank, or ranks merged without their own files)\n", rl[i].pid);
			print_tree(&o, root, "Call tree");
			print_flat(&o, rows, n);
			free(rows);
		}
		free(rl);
	}
	if (view_comp_text && measured) {
		fputc('\n', stdout);
		view_comp_text(&m, stdout);
	}
	if (view_cost_text) {
		fputc('\n', stdout);
		view_cost_text(&m, stdout);
	}
	if (view_mpi_text) {
		fputc('\n', stdout);
		view_mpi_text(&m, stdout);
	}
	if (critpath && view_critpath_text) {
		fputc('\n', stdout);
		view_critpath_text(&m, stdout);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = tool_err("writing the report failed: %s", strerror(errno));
	model__free(&m);
	return rc;
}
