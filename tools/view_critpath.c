/* tools/view_critpath.c - `hyprof report --view critical-path` (issue 6).
 *
 * Reads HP_SEC_CRITPATH (mpiwrap/critical_path.h, docs/critical-path.md)
 * from the files of the model: a merged file when there is one (it carries
 * rank 0's section, which holds the job's values after MPI_Finalize), else
 * every per-rank file.  The header gives the critical path's length and the
 * rank where it ends; per selected function: its share of the path (seconds
 * and percent), its critical-path-zeroing value (the run's length had it
 * taken no time, and the reduction) and its time in the profile beside
 * them (the model's flat profile, summed over the ranks), so the three
 * rankings can be compared.  The header also sets the path's length against
 * the wall time it covers (MPI_Init to MPI_Finalize, the longest rank): all
 * a length-only run (`--critical-path auto:0`, or outside measured mode)
 * has.  Before MPI_Finalize (a live snapshot, a crash) the job's values are
 * the best the ranks' sections give: the longest rank's path and the
 * largest zeroing lengths, marked "so far".  view_critpath_length() gives
 * one file's length to `hyprof watch`.
 */
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "mpiwrap/critical_path.h"
#include "tools/json.h"
#include "tools/symbols.h"
#include "tools/util.h"
#include "tools/views.h"

struct cfn {
	char name[512];
	int region, unresolved;
	double share, net, busy;     /* seconds; net < 0: unknown */
	int have_cpu;
	double cpu;                  /* the model's total time of the function */
	uint32_t nkeys;
};

struct cview {
	int any, final;
	double length, start;        /* start < 0: the shares never started */
	double wall;                 /* MPI_Init to MPI_Finalize (so far), longest rank; < 0: unknown */
	int rank, nranks;
	char spec[1024], shares[128], unresolved[512];
	uint64_t k, wire, events, adopted;
	double cost_event;           /* seconds per event */
	double selected_at;          /* auto: seconds after MPI_Init; < 0 never */
	int is_auto;
	struct cfn *fn;
	size_t nfn;
};

struct csec {
	const struct hp_prof *p;
	struct hp_kvlist kv;
	const uint8_t *rec;
	uint32_t nrec, rec_size;
};

static int read_sec(const struct hp_prof *p, struct csec *c)
{
	const struct hp_section *s = hp_prof_section(p, HP_SEC_CRITPATH);
	memset(c, 0, sizeof(*c));
	if (!s || s->len < 12)
		return 0;
	uint32_t kvlen;
	memcpy(&kvlen, s->data, 4);
	if ((uint64_t)kvlen + 12 > s->len || hp_kv_parse(s->data + 4, kvlen, &c->kv))
		return 0;
	const uint8_t *q = s->data + 4 + kvlen;
	memcpy(&c->nrec, q, 4);
	memcpy(&c->rec_size, q + 4, 4);
	if (c->rec_size < offsetof(struct hp_cp_rec, name) + 1 ||
	    (uint64_t)c->nrec * c->rec_size > s->len - 12 - kvlen) {
		hp_kv_free(&c->kv);
		return 0;
	}
	c->rec = q + 8;
	c->p = p;
	return 1;
}

static void get_rec(const struct csec *c, uint32_t i, struct hp_cp_rec *r)
{
	memset(r, 0, sizeof(*r));
	size_t n = c->rec_size < sizeof(*r) ? c->rec_size : sizeof(*r);
	memcpy(r, c->rec + (size_t)i * c->rec_size, n);
	r->name[sizeof(r->name) - 1] = '\0';
}

/* The name the profile's symbolizer gives the record's address (the
 * model's spelling); 0 when there is none. */
static int addr_name(struct symtab *st, const struct csec *c, const struct hp_cp_rec *r, char *buf, size_t len)
{
	if (!r->addr || !st || !c->p->nmodules)
		return 0;
	struct sym_space *sp = symtab__space(st, c->p->modules, c->p->nmodules);
	const struct sym_loc *l = sp ? sym_space__resolve(sp, r->addr, 0) : NULL;
	if (!l || l->unknown)
		return 0;
	snprintf(buf, len, "%s", l->frames[0].name);
	return 1;
}

/* The function's name for the report: the record's (demangled), or the
 * address symbolized with the file's modules when the runtime had none. */
static void fn_name(struct symtab *st, const struct csec *c, const struct hp_cp_rec *r, char *buf,
		    size_t len)
{
	char dm[512];
	int placeholder = !r->name[0] || r->name[0] == '[' || strstr(r->name, "+0x");
	if (placeholder && addr_name(st, c, r, buf, len))
		return;
	snprintf(buf, len, "%s", r->name[0] ? sym_demangle(r->name, dm, sizeof dm) : "?");
}

/* The model's total time of a function (or region) called `name`. */
static int model_time(const struct hp_model *m, const char *name, int region, double *t)
{
	for (size_t i = 0; i < m->nflat; i++) {
		const struct hp_func *f = m->flat[i].fn;
		if (f && f->name && !!f->is_region == !!region && !strcmp(f->name, name)) {
			*t = m->flat[i].total;
			return 1;
		}
	}
	/* compiler clones (name.constprop.0) are the same function, and a C++
	 * name given without its parameters (app::solve) is every overload
	 * (app::solve(int), app::solve(double)): the runtime selected them
	 * all, so their times add up (one that calls another counts twice) */
	int found = 0;
	*t = 0;
	for (size_t i = 0; i < m->nflat && !region; i++) {
		const struct hp_func *f = m->flat[i].fn;
		if (f && f->name && hp_cp_name_match(f->name, name, ".(", 0)) {
			*t += m->flat[i].total;
			found = 1;
		}
	}
	return found;
}

static void load(struct hp_model *m, struct cview *v)
{
	memset(v, 0, sizeof(*v));
	v->rank = -1;
	v->start = -1;
	v->wall = -1;
	int any_merged = 0;
	for (size_t i = 0; i < m->nprofs; i++)
		any_merged |= (m->profs[i]->flags & HP_FILE_MERGED) && hp_prof_section(m->profs[i], HP_SEC_CRITPATH);
	struct csec *secs = calloc(m->nprofs ? m->nprofs : 1, sizeof(*secs));
	if (!secs)
		return;
	size_t ns = 0;
	for (size_t i = 0; i < m->nprofs; i++) {
		if (any_merged && !(m->profs[i]->flags & HP_FILE_MERGED))
			continue;
		if (read_sec(m->profs[i], &secs[ns]))
			ns++;
	}
	if (!ns) {
		free(secs);
		return;
	}
	v->any = 1;
	/* the section with the job's values, else the longest rank's */
	size_t best = 0;
	int64_t best_len = -1;
	for (size_t i = 0; i < ns; i++) {
		const struct hp_kvlist *kv = &secs[i].kv;
		int fin = !strcmp(hp_kv_str(kv, "state", ""), "final") && hp_kv_get(kv, "g_length_ns");
		int64_t len = fin ? hp_kv_i64(kv, "g_length_ns", 0) : hp_kv_i64(kv, "length_ns", 0);
		if ((fin && !v->final) || ((fin || !v->final) && len > best_len)) {
			v->final |= fin;
			best = i;
			best_len = len;
		}
	}
	const struct csec *b = &secs[best];
	const struct hp_kvlist *kv = &b->kv;
	v->length = (double)best_len * 1e-9;
	/* the wall the path covers: the job's after MPI_Finalize, else the
	 * longest of the ranks' so far (files of profilers before it: none) */
	if (v->final && hp_kv_get(kv, "g_wall_ns")) {
		v->wall = (double)hp_kv_i64(kv, "g_wall_ns", 0) * 1e-9;
	} else {
		for (size_t i = 0; i < ns; i++)
			if (hp_kv_get(&secs[i].kv, "wall_ns")) {
				double w = (double)hp_kv_i64(&secs[i].kv, "wall_ns", 0) * 1e-9;
				if (w > v->wall)
					v->wall = w;
			}
	}
	v->rank = v->final ? (int)hp_kv_i64(kv, "g_rank", -1) : (int)hp_kv_i64(kv, "rank", -1);
	int64_t st = v->final ? hp_kv_i64(kv, "g_start_ns", -1) : hp_kv_i64(kv, "start_ns", -1);
	v->start = st < 0 ? -1 : (double)st * 1e-9;
	v->nranks = (int)hp_kv_i64(kv, "nranks", 0);
	snprintf(v->spec, sizeof v->spec, "%s", hp_kv_str(kv, "spec", ""));
	snprintf(v->shares, sizeof v->shares, "%s", hp_kv_str(kv, "shares", ""));
	snprintf(v->unresolved, sizeof v->unresolved, "%s", hp_kv_str(kv, "unresolved", ""));
	v->k = hp_kv_u64(kv, "k", 0);
	v->is_auto = (int)hp_kv_u64(kv, "auto", 0);
	v->wire = hp_kv_u64(kv, "wire_bytes", 0);
	int64_t sel = hp_kv_i64(kv, "selected_at_ns", -1);
	v->selected_at = sel < 0 ? -1 : (double)sel * 1e-9;
	if (v->final && hp_kv_get(kv, "g_events")) {
		v->events = hp_kv_u64(kv, "g_events", 0);
		v->adopted = hp_kv_u64(kv, "g_adopted", 0);
		v->cost_event = (double)hp_kv_i64(kv, "g_cost_event_ns", 0) * 1e-9;
	} else {
		double cost = 0;
		for (size_t i = 0; i < ns; i++) {
			v->events += hp_kv_u64(&secs[i].kv, "events", 0);
			v->adopted += hp_kv_u64(&secs[i].kv, "adopted", 0);
			cost += (double)hp_kv_i64(&secs[i].kv, "cost_event_ns", 0);
		}
		v->cost_event = cost / (double)ns * 1e-9;
	}

	struct symtab *stab = symtab__new();
	v->nfn = b->nrec;
	v->fn = calloc(v->nfn ? v->nfn : 1, sizeof(*v->fn));
	if (!v->fn)
		v->nfn = 0;
	for (uint32_t i = 0; i < v->nfn; i++) {
		struct hp_cp_rec r;
		get_rec(b, i, &r);
		struct cfn *c = &v->fn[i];
		fn_name(stab, b, &r, c->name, sizeof c->name);
		c->region = !!(r.flags & HP_CP_F_REGION);
		c->nkeys = v->final && (r.flags & HP_CP_F_GLOBAL) ? r.g_nkeys : 0;
		if (v->final && (r.flags & HP_CP_F_GLOBAL)) {
			c->share = (double)r.g_share_ns * 1e-9;
			c->net = (double)r.g_net_ns * 1e-9;
			c->busy = (double)r.g_busy_ns * 1e-9;
		} else {
			/* so far: the longest rank's shares, the largest zeroing
			 * length of any rank (records are in the same order on every
			 * rank: the selection is the same) */
			c->share = (double)r.share_ns * 1e-9;
			c->net = (double)r.net_ns * 1e-9;
			c->busy = 0;
			for (size_t j = 0; j < ns; j++) {
				if (i >= secs[j].nrec)
					continue;
				struct hp_cp_rec q;
				get_rec(&secs[j], i, &q);
				if ((double)q.net_ns * 1e-9 > c->net)
					c->net = (double)q.net_ns * 1e-9;
				c->busy += (double)q.busy_ns * 1e-9;
			}
		}
		/* entered on some rank: probe nodes of it were seen (the job's
		 * count after MPI_Finalize, else the ranks' sections summed) */
		for (size_t j = 0; j < ns && !(v->final && (r.flags & HP_CP_F_GLOBAL)); j++) {
			struct hp_cp_rec q;
			if (i < secs[j].nrec) {
				get_rec(&secs[j], i, &q);
				c->nkeys += q.nkeys;
			}
		}
		c->unresolved = !!(r.flags & HP_CP_F_UNRESOLVED);
		c->have_cpu = model_time(m, c->name, c->region, &c->cpu);
		/* the symbol table's name may not be the profile's: a Fortran
		 * main program is MAIN__ there and its own name in the debug
		 * information the profile's functions are named from */
		char alt[sizeof c->name];
		if (!c->have_cpu && !c->region && addr_name(stab, b, &r, alt, sizeof alt))
			c->have_cpu = model_time(m, alt, 0, &c->cpu);
	}
	if (stab)
		symtab__free(stab);
	for (size_t i = 0; i < ns; i++)
		hp_kv_free(&secs[i].kv);
	free(secs);
}

static double pct(double v, double total) { return total > 0 ? 100.0 * v / total : 0.0; }

/* The processes' total time, the denominator of the "time" column: the
 * profile's total, or the sum of its functions' self times, or of the
 * threads' wall times, whichever is largest (frames still open when a
 * profile was written, such as main under MPI_Finalize, are missing from
 * the first two). */
static double profile_total(const struct hp_model *m)
{
	double s = 0, w = 0;
	for (size_t i = 0; i < m->nflat; i++)
		s += m->flat[i].self;
	for (size_t i = 0; i < m->nthreadinfo; i++)
		w += m->threads[i].wall;
	if (w > s)
		s = w;
	return s > m->total ? s : m->total;
}

/* The part of the path the shares cover (auto starts after the warm-up). */
static double covered(const struct cview *v) { return v->start < 0 ? 0 : v->length - v->start; }

void view_critpath_text(struct hp_model *m, FILE *out)
{
	struct cview v;
	load(m, &v);
	if (!v.any) {
		fprintf(out, "Critical path: none in this profile (run MPI programs with "
			     "`hyprof run --critical-path auto|NAMES`)\n");
		return;
	}
	char a[32], b[32], c[32], d[32];
	char wall[96] = "";
	if (v.wall > 0)
		snprintf(wall, sizeof wall, " of %s wall (%.1f%%)", tool_fmt_secs(v.wall, b, sizeof b),
			 pct(v.length, v.wall));
	fprintf(out, "Critical path%s: %s%s, ends on rank %d of %d\n", v.final ? "" : " so far (not final)",
		tool_fmt_secs(v.length, a, sizeof a), wall, v.rank, v.nranks);
	fprintf(out, "  selection %s: %llu function%s, piggyback %llu bytes, %llu events (%.0f ns each), "
		     "%llu adoptions\n",
		v.spec, (unsigned long long)v.k, v.k == 1 ? "" : "s", (unsigned long long)v.wire,
		(unsigned long long)v.events, v.cost_event * 1e9, (unsigned long long)v.adopted);
	if (strcmp(v.shares, "measured"))
		fprintf(out, "  shares: %s\n", v.shares);
	if (v.start > 0 && v.k > 0) /* nothing selected: no shares to cover */
		fprintf(out, "  shares cover the path after the selection at %s (path %s): %s\n",
			tool_fmt_secs(v.selected_at, a, sizeof a), tool_fmt_secs(v.start, b, sizeof b),
			tool_fmt_secs(covered(&v), c, sizeof c));
	if (v.unresolved[0])
		fprintf(out, "  no function or region of these names: %s\n", v.unresolved);
	char never[512] = "";
	for (size_t i = 0; i < v.nfn; i++)
		if (!v.fn[i].nkeys && !v.fn[i].unresolved && strlen(never) + strlen(v.fn[i].name) + 3 < sizeof never)
			snprintf(never + strlen(never), sizeof never - strlen(never), "%s%s", never[0] ? ", " : "",
				 v.fn[i].name);
	if (never[0])
		fprintf(out, "  never entered (not called, or not instrumented): %s\n", never);
	if (!v.nfn)
		return;
	fprintf(out, "  %-32s %11s %6s   %11s %11s %6s   %11s %6s\n", "function", "path share", "%",
		"zeroing", "reduction", "%", "time", "%");
	for (size_t i = 0; i < v.nfn; i++) {
		const struct cfn *f = &v.fn[i];
		double red = v.length - f->net;
		char name[64];
		snprintf(name, sizeof name, "%.50s%s", f->name, f->region ? " (region)" : "");
		fprintf(out, "  %-32s %11s %5.1f%%   %11s %11s %5.1f%%", name, tool_fmt_secs(f->share, a, sizeof a),
			pct(f->share, covered(&v)), tool_fmt_secs(f->net, b, sizeof b),
			tool_fmt_secs(red, c, sizeof c), pct(red, v.length));
		if (f->have_cpu)
			fprintf(out, "   %11s %5.1f%%\n", tool_fmt_secs(f->cpu, d, sizeof d), pct(f->cpu, profile_total(m)));
		else
			fprintf(out, "   %11s %6s\n", "-", "");
	}
	fprintf(out, "  (path share: time on the critical path; zeroing: the path's length had the "
		     "function taken no time; time: the profile's, summed over ranks)\n");
	free(v.fn);
}

void view_critpath_json(struct hp_model *m, struct json *j)
{
	struct cview v;
	load(m, &v);
	json__key(j, "critical_path");
	if (!v.any) {
		json__null(j);
		return;
	}
	json__obj_begin(j);
	json__key(j, "length");
	json__num(j, v.length);
	json__key(j, "rank");
	json__int(j, v.rank);
	json__key(j, "nranks");
	json__int(j, v.nranks);
	json__key(j, "wall");
	if (v.wall > 0)
		json__num(j, v.wall);
	else
		json__null(j);
	json__key(j, "wall_pct");
	if (v.wall > 0)
		json__num(j, pct(v.length, v.wall));
	else
		json__null(j);
	json__key(j, "final");
	json__bool(j, v.final);
	json__key(j, "selection");
	json__str(j, v.spec);
	json__key(j, "auto");
	json__bool(j, v.is_auto);
	json__key(j, "shares");
	json__str(j, v.shares);
	json__key(j, "start");
	if (v.start < 0)
		json__null(j);
	else
		json__num(j, v.start);
	json__key(j, "selected_at");
	if (v.selected_at < 0)
		json__null(j);
	else
		json__num(j, v.selected_at);
	json__key(j, "piggyback_bytes");
	json__uint(j, v.wire);
	json__key(j, "events");
	json__uint(j, v.events);
	json__key(j, "adopted");
	json__uint(j, v.adopted);
	json__key(j, "cost_per_event");
	json__num(j, v.cost_event);
	json__key(j, "functions");
	json__arr_begin(j);
	for (size_t i = 0; i < v.nfn; i++) {
		const struct cfn *f = &v.fn[i];
		json__obj_begin(j);
		json__key(j, "name");
		json__str(j, f->name);
		json__key(j, "region");
		json__bool(j, f->region);
		json__key(j, "seen");
		json__bool(j, f->nkeys > 0);
		json__key(j, "resolved");
		json__bool(j, !f->unresolved);
		json__key(j, "share");
		json__num(j, f->share);
		json__key(j, "share_pct");
		json__num(j, pct(f->share, covered(&v)));
		json__key(j, "zeroing_length");
		json__num(j, f->net);
		json__key(j, "zeroing_reduction");
		json__num(j, v.length - f->net);
		json__key(j, "busy");
		json__num(j, f->busy);
		json__key(j, "cpu");
		if (f->have_cpu)
			json__num(j, f->cpu);
		else
			json__null(j);
		json__key(j, "cpu_pct");
		if (f->have_cpu)
			json__num(j, pct(f->cpu, profile_total(m)));
		else
			json__null(j);
		json__obj_end(j);
	}
	json__arr_end(j);
	json__obj_end(j);
	free(v.fn);
}

/* One file's critical-path length (`hyprof watch`): the job's in a merged
 * file written after MPI_Finalize, else the longest path ending in that
 * process (at its last event: live snapshot or final profile).  The
 * longest of the ranks' lengths is the job's so far (ALGORITHMS.md section
 * 6, Appendix A of the paper). */
int view_critpath_length(const struct hp_prof *p, double *len)
{
	struct csec c;
	if (!p || !len || !read_sec(p, &c))
		return 0;
	const struct hp_kvlist *kv = &c.kv;
	const char *key = (p->flags & HP_FILE_MERGED) && !strcmp(hp_kv_str(kv, "state", ""), "final") &&
				  hp_kv_get(kv, "g_length_ns")
			      ? "g_length_ns"
			      : "length_ns";
	int ok = hp_kv_get(kv, key) != NULL;
	int64_t ns = hp_kv_i64(kv, key, -1);
	if (ok && ns >= 0)
		*len = (double)ns * 1e-9;
	hp_kv_free(&c.kv);
	return ok && ns >= 0;
}
