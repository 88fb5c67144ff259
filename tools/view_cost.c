/* tools/view_cost.c - the cost section of `hyprof report` (issue 4): what the
 * measurement cost, as a range, what it was predicted to cost, which probes
 * cost the most, and what the overhead budget regulated.
 *
 * Reads each process's HP_SEC_COST and HP_SEC_BUDGET from m->profs (the
 * model's summed m->cost adds fractions too, which do not add up), and the
 * flat profile for the cost by function.  docs/cost.md explains the numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/budget.h"
#include "core/format.h"
#include "tools/json.h"
#include "tools/model.h"
#include "tools/symbols.h"
#include "tools/util.h"
#include "tools/views.h"

#define TOP_FUNCTIONS 10

struct cost_sum {
	int nproc;          /* processes with a COST section */
	int nmissing;       /* processes without */
	double run, cpu;    /* run: longest process; cpu: summed */
	double direct, direct_var, ideal, cache, probes_lo, probes_hi;
	double sampling, samp_lo, samp_hi, samp_meas, samp_ideal;
	double samp_var;    /* sum of the processes' sampling.err^2 (independent calibrations) */
	double startup, control, live, fixed, low, high;
	double mpi_lo, mpi_hi, mpi_wrap, mpi_pb, mpi_init, mpi_sampled; /* the MPI wrappers' part */
	double mpi_induced;                                       /* waiting induced (high only) */
	uint64_t mpi_samples;
	int mpi;                                                  /* some process had wrappers */
	double predicted, pred_probes, pred_sampling, pred_mpi, guess_rate;
	uint64_t events, skipped, meas, taken, intervals, pred_intervals;
	double ivl_avg_w, ivl_max, ivl_var_w; /* interval stats, weighted by intervals */
	double kernel_us_w, kernel_err_w, handler_us_w; /* per-sample costs, weighted by samples */
	double pair_ns_w;                     /* calibrated pair cost, weighted by pairs */
	const char *mode;
};

static double kvd(const struct hp_kvlist *l, const char *k)
{
	const struct hp_kv *v = hp_kv_get(l, k);
	if (!v)
		return 0;
	switch (v->type) {
	case HP_KV_F64: return v->d;
	case HP_KV_U64: return (double)v->u;
	case HP_KV_I64: return (double)v->i;
	}
	return 0;
}

static void cost_collect(const struct hp_model *m, struct cost_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < m->nprofs; i++) {
		const struct hp_prof *p = m->profs[i];
		const struct hp_kvlist *c = &p->cost;
		if (!hp_kv_get(c, "low")) {
			s->nmissing++;
			continue;
		}
		/* a merged MPI profile's COST section is its ranks' sum */
		double nr = (p->flags & HP_FILE_MERGED) ? kvd(&p->meta, "nranks") : 1;
		s->nproc += nr >= 1 ? (int)nr : 1;
		s->mode = hp_kv_str(c, "mode", m->mode);
		double run = kvd(c, "run_time");
		if (run > s->run)
			s->run = run;
		s->cpu += kvd(c, "cpu_time");
		s->direct += kvd(c, "direct");
		s->direct_var += kvd(c, "direct_err") * kvd(c, "direct_err");
		s->ideal += kvd(c, "ideal");
		s->cache += kvd(c, "cache");
		s->probes_lo += kvd(c, "probes");
		s->probes_hi += kvd(c, "probes.high");
		s->sampling += kvd(c, "sampling");
		s->samp_lo += kvd(c, "sampling.low");
		s->samp_var += kvd(c, "sampling.err") * kvd(c, "sampling.err");
		s->samp_hi += kvd(c, "sampling.high");
		s->samp_meas += kvd(c, "sampling.measured");
		s->samp_ideal += kvd(c, "sampling.ideal");
		s->startup += kvd(c, "startup");
		s->control += kvd(c, "control");
		s->live += kvd(c, "live");
		s->fixed += kvd(c, "fixed");
		if (hp_kv_get(c, "mpi.low")) {
			s->mpi = 1;
			s->mpi_lo += kvd(c, "mpi.low");
			s->mpi_hi += kvd(c, "mpi.high");
			s->mpi_wrap += kvd(c, "mpi.wrappers");
			s->mpi_pb += kvd(c, "mpi.piggyback");
			s->mpi_init += kvd(c, "mpi.init");
			s->mpi_sampled += kvd(c, "mpi.sampled");
			s->mpi_induced += kvd(c, "mpi.induced_wait");
			s->mpi_samples += (uint64_t)kvd(c, "mpi.samples");
		}
		s->low += kvd(c, "low");
		s->high += kvd(c, "high");
		s->predicted += kvd(c, "predicted");
		s->pred_probes += kvd(c, "predicted.probes");
		s->pred_sampling += kvd(c, "predicted.sampling");
		s->pred_mpi += kvd(c, "predicted.mpi");
		s->guess_rate = kvd(c, "predicted.guess_rate");
		s->pred_intervals += (uint64_t)kvd(c, "predicted.intervals");
		s->events += (uint64_t)kvd(c, "probe_events");
		s->pair_ns_w += kvd(c, "pair_ns") * kvd(c, "probe_events");
		s->skipped += (uint64_t)kvd(c, "skipped_events");
		s->meas += (uint64_t)kvd(c, "meas_samples");
		uint64_t taken = (uint64_t)kvd(c, "samples_taken");
		s->taken += taken;
		s->kernel_us_w += kvd(c, "sample_kernel_us") * (double)taken;
		s->kernel_err_w += kvd(c, "sample_kernel_us.err") * (double)taken;
		s->handler_us_w += kvd(c, "handler_us") * (double)taken;
		double n = kvd(c, "intervals");
		s->intervals += (uint64_t)n;
		s->ivl_avg_w += kvd(c, "interval.avg") * n;
		double sd = kvd(c, "interval.std");
		s->ivl_var_w += sd * sd * n;
		if (kvd(c, "interval.max") > s->ivl_max)
			s->ivl_max = kvd(c, "interval.max");
	}
}

static double frac(const struct cost_sum *s, double v)
{
	return s->cpu > 0 ? v / s->cpu : 0;
}

int view_cost_summary(struct hp_model *m, char *buf, size_t len)
{
	struct cost_sum s;
	cost_collect(m, &s);
	if (!s.nproc || !len)
		return 0;
	int n = snprintf(buf, len, "%.1f%%..%.1f%% of %.3g s%s (predicted %.1f%%)",
			 100 * frac(&s, s.low), 100 * frac(&s, s.high), s.cpu,
			 s.cpu > 1.05 * s.run ? " CPU" : "", 100 * frac(&s, s.predicted));
	return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

/* ---- by function ------------------------------------------------------- */

struct fcost {
	const struct hp_fstat *row;
	double direct, ideal;
};

static int fcost_cmp(const void *a, const void *b)
{
	const struct fcost *x = a, *y = b;
	double kx = fmax(x->direct, x->ideal), ky = fmax(y->direct, y->ideal);
	return kx < ky ? 1 : kx > ky ? -1 : 0;
}

/* Rows with any probe cost, costliest first.  Returns the count (array in
 * *out, malloc'ed). */
static size_t by_function(const struct hp_model *m, const struct cost_sum *s, struct fcost **out)
{
	double pair = s->events ? s->pair_ns_w / (double)s->events * 1e-9 : 0;
	struct fcost *v = calloc(m->nflat ? m->nflat : 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		return *out = NULL, 0;
	for (size_t i = 0; i < m->nflat; i++) {
		const struct hp_fstat *r = &m->flat[i];
		double ideal = r->calls > 0 ? (double)r->calls * pair : 0;
		if (r->cost <= 0 && ideal <= 0)
			continue;
		v[n].row = r;
		v[n].direct = r->cost;
		v[n].ideal = ideal;
		n++;
	}
	qsort(v, n, sizeof(*v), fcost_cmp);
	*out = v;
	return n;
}

/* ---- budget records ----------------------------------------------------------- */

struct breg {
	const char *name;
	double calls, skipped, on_s, off_s;
	double estimated;  /* calls + skipped of its call paths (ancestors' skips included) */
	uint32_t offs;
	double duty, cost_rate;
};

struct bsum {
	int present;
	double budget;
	int wired;
	double skip_pair_ns;
	uint64_t ticks, ticks_regulating, ticks_infeasible, regulated, skipped_roots,
		skipped_nested, resets;
	struct breg *r;
	size_t nr;
	struct symtab *st;  /* owns the names */
};

static void bsum_free(struct bsum *b)
{
	free(b->r);
	if (b->st)
		symtab__free(b->st);
	memset(b, 0, sizeof(*b));
}

/* Read every process's HP_SEC_BUDGET; records of the same function name are
 * summed (ranks of an MPI job). */
static void budget_collect(const struct hp_model *m, struct bsum *b)
{
	memset(b, 0, sizeof(*b));
	struct symtab *st = NULL;
	for (size_t i = 0; i < m->nprofs; i++) {
		const struct hp_prof *p = m->profs[i];
		const struct hp_section *sec = hp_prof_section(p, HP_SEC_BUDGET);
		if (!sec || sec->len < 4)
			continue;
		uint32_t kvlen;
		memcpy(&kvlen, sec->data, 4);
		if ((uint64_t)kvlen + 8 > sec->len)
			continue;
		struct hp_kvlist kv = {0};
		if (hp_kv_parse(sec->data + 4, kvlen, &kv))
			continue;
		uint32_t nrec;
		memcpy(&nrec, sec->data + 4 + kvlen, 4);
		const uint8_t *rec = sec->data + 8 + kvlen;
		if ((uint64_t)nrec * sizeof(struct hp_budget_rec) > sec->len - 8 - kvlen)
			nrec = 0;
		b->present = 1;
		b->budget = kvd(&kv, "budget");
		b->wired |= kvd(&kv, "wired") > 0;
		b->skip_pair_ns = kvd(&kv, "skip_pair_ns");
		b->ticks += (uint64_t)kvd(&kv, "ticks");
		b->ticks_regulating += (uint64_t)kvd(&kv, "ticks_regulating");
		b->ticks_infeasible += (uint64_t)kvd(&kv, "ticks_infeasible");
		b->regulated += (uint64_t)kvd(&kv, "regulated");
		b->skipped_roots += (uint64_t)kvd(&kv, "skipped.roots");
		b->skipped_nested += (uint64_t)kvd(&kv, "skipped.nested");
		b->resets += (uint64_t)kvd(&kv, "skip_resets");
		hp_kv_free(&kv);
		if (!nrec)
			continue;
		if (!st && !(st = b->st = symtab__new()))
			continue;
		struct sym_space *sp = symtab__space(st, p->modules, p->nmodules);
		struct breg *nr = realloc(b->r, (b->nr + nrec) * sizeof(*b->r));
		if (!nr || !sp)
			continue;
		b->r = nr;
		for (uint32_t k = 0; k < nrec; k++) {
			struct hp_budget_rec r;
			memcpy(&r, rec + (size_t)k * sizeof(r), sizeof(r));
			const char *name;
			char rn[64];
			if (r.flags & HP_BREC_REGION) {
				snprintf(rn, sizeof(rn), "region %llu", (unsigned long long)r.key);
				name = symtab__intern(st, rn);
			} else {
				const struct sym_loc *loc = sym_space__resolve(sp, r.key, 0);
				name = loc->nframes ? loc->frames[0].name : loc->where;
			}
			struct breg *d = NULL;
			for (size_t j = 0; j < b->nr; j++)
				if (!strcmp(b->r[j].name, name))
					d = &b->r[j];
			if (!d) {
				d = &b->r[b->nr++];
				memset(d, 0, sizeof(*d));
				d->name = name;
			}
			d->calls += (double)r.calls;
			d->skipped += (double)r.skipped;
			/* Its call paths carry skipped counts that include the
			 * activations skipped with a regulated ancestor. */
			for (size_t ti = 0; ti < p->nthreads; ti++)
				for (uint32_t q = 1; q < p->threads[ti].nprobe; q++) {
					const struct cct_node *nd = &p->threads[ti].probe[q];
					if (nd->key == r.key && !(nd->flags & CCT_F_REDIRECT))
						d->estimated += (double)(nd->calls + nd->skipped);
				}
			d->on_s += r.on_s;
			d->off_s += r.off_s;
			d->offs += r.offs;
			d->duty = r.duty;
			d->cost_rate += r.cost_rate;
		}
	}
}

static int breg_cmp(const void *a, const void *b)
{
	const struct breg *x = a, *y = b;
	return x->off_s < y->off_s ? 1 : x->off_s > y->off_s ? -1 : strcmp(x->name, y->name);
}

/* ---- the regulated profile, scaled ------------------------------------------
 *
 * Measured mode under a budget: a regulated function's counted calls and
 * times cover its enabled intervals only, and while it was skipped its
 * whole activation (and every probe below it) ran inside its caller's
 * exclusive time.  Per probe-tree node, with f = (calls + skipped) / calls
 * (skipped already includes the ancestors' share, runtime/budget marking):
 *   caller's own time = measured exclusive
 *       - sum over children c of (f_c / f_caller - 1) x (incl_c + pairs_c x skip)
 *   (what c's skipped activations and their skipped probe pairs added)
 *   scaled self = f x own time.
 * An estimate that assumes a regulated call costs the same whether it was
 * counted or not; shown apart from the measured profile, labelled.
 */
struct sfn {
	const char *name;
	double scaled, measured; /* seconds */
};

struct scaled {
	struct sfn *v;
	size_t n;
	double total_scaled, total_measured;
	uint64_t partial_nodes, unmeasured_nodes;
	struct symtab *st;
};

static void scaled_free(struct scaled *sc)
{
	free(sc->v);
	if (sc->st)
		symtab__free(sc->st);
	memset(sc, 0, sizeof(*sc));
}

static int sfn_cmp(const void *a, const void *b)
{
	const struct sfn *x = a, *y = b;
	return x->scaled < y->scaled ? 1 : x->scaled > y->scaled ? -1 : strcmp(x->name, y->name);
}

static void scaled_add(struct scaled *sc, const char *name, double scaled, double measured)
{
	for (size_t i = 0; i < sc->n; i++)
		if (!strcmp(sc->v[i].name, name)) {
			sc->v[i].scaled += scaled;
			sc->v[i].measured += measured;
			return;
		}
	struct sfn *nv = realloc(sc->v, (sc->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	sc->v = nv;
	sc->v[sc->n++] = (struct sfn){name, scaled, measured};
}

static double budget_skip_ns(const struct hp_prof *p)
{
	const struct hp_section *sec = hp_prof_section(p, HP_SEC_BUDGET);
	if (!sec || sec->len < 4)
		return 0;
	uint32_t kvlen;
	memcpy(&kvlen, sec->data, 4);
	struct hp_kvlist kv = {0};
	if ((uint64_t)kvlen + 4 > sec->len || hp_kv_parse(sec->data + 4, kvlen, &kv))
		return 0;
	double v = kvd(&kv, "skip_pair_ns");
	hp_kv_free(&kv);
	return v;
}

/* Returns 1 when some node was regulated (the scaled profile means something). */
static int scaled_collect(const struct hp_model *m, struct scaled *sc)
{
	memset(sc, 0, sizeof(*sc));
	for (size_t pi = 0; pi < m->nprofs; pi++) {
		const struct hp_prof *p = m->profs[pi];
		double hz = kvd(&p->meta, "tsc_hz");
		if (!(hz > 0))
			hz = kvd(&p->calib, "tsc_hz");
		if (!(hz > 0))
			continue;
		double skip_cyc = budget_skip_ns(p) * 1e-9 * hz;
		struct sym_space *sp = NULL;
		for (size_t ti = 0; ti < p->nthreads; ti++) {
			const struct cct_node *nd = p->threads[ti].probe;
			uint32_t n = p->threads[ti].nprobe;
			if (!n)
				continue;
			double *f = calloc(n, sizeof(double)), *own = calloc(n, sizeof(double));
			double *desc = calloc(n, sizeof(double));
			if (!f || !own || !desc) {
				free(f), free(own), free(desc);
				continue;
			}
			for (uint32_t i = 0; i < n; i++) {
				f[i] = 1;
				if ((nd[i].flags & CCT_F_PARTIAL) && nd[i].calls > 0)
					f[i] = (double)(nd[i].calls + nd[i].skipped) / (double)nd[i].calls;
				own[i] = (double)nd[i].excl_comp;
				sc->partial_nodes += (nd[i].flags & CCT_F_PARTIAL) != 0;
			}
			/* calls below each node (children come after their parent) */
			for (uint32_t i = n; i-- > 1;)
				if (nd[i].parent < i)
					desc[nd[i].parent] += desc[i] + (double)nd[i].calls;
			for (uint32_t c = 1; c < n; c++) {
				uint32_t par = nd[c].parent;
				if (par >= c || par == CCT_ROOT || (nd[c].flags & CCT_F_REDIRECT))
					continue;
				double r = f[par] > 0 ? f[c] / f[par] - 1 : 0;
				if (r > 0)
					own[par] -= r * ((double)nd[c].incl_comp +
							 ((double)nd[c].calls + desc[c]) * skip_cyc);
			}
			for (uint32_t i = 1; i < n; i++) {
				if (nd[i].flags & (CCT_F_REDIRECT | CCT_F_REGION))
					continue;
				if ((nd[i].flags & CCT_F_PARTIAL) && nd[i].calls == 0) {
					sc->unmeasured_nodes++;
					continue;
				}
				if (!sp) {
					if (!sc->st && !(sc->st = symtab__new()))
						break;
					sp = symtab__space(sc->st, p->modules, p->nmodules);
					if (!sp)
						break;
				}
				const struct sym_loc *loc = sym_space__resolve(sp, nd[i].key, 0);
				const char *name = loc->nframes ? loc->frames[0].name : loc->where;
				double scaled = f[i] * (own[i] > 0 ? own[i] : 0) / hz;
				double measured = (double)nd[i].excl_comp / hz;
				scaled_add(sc, name, scaled, measured);
				sc->total_scaled += scaled;
				sc->total_measured += measured;
			}
			free(f), free(own), free(desc);
		}
	}
	if (sc->n > 1) /* sc->v is NULL when there is none */
		qsort(sc->v, sc->n, sizeof(*sc->v), sfn_cmp);
	return sc->partial_nodes > 0;
}

/* ---- text ----------------------------------------------------------------- */

static const char *secs(double s, char *buf, size_t len)
{
	return tool_fmt_secs(s, buf, len);
}

void view_cost_text(struct hp_model *m, FILE *out)
{
	struct cost_sum s;
	cost_collect(m, &s);
	char a[32], b[32], c[32], d[32];
	fprintf(out, "Measurement cost (observed range, predicted; docs/cost.md)\n");
	if (!s.nproc) {
		fprintf(out, "  not recorded: the profile was written without the cost system\n");
		return;
	}
	if (s.nmissing)
		fprintf(out, "  note: %d of %d processes have no cost section and are not counted\n",
			s.nmissing, s.nmissing + s.nproc);
	fprintf(out, "  overhead   %.1f%%..%.1f%% of %s CPU time%s, predicted %.1f%%\n",
		100 * frac(&s, s.low), 100 * frac(&s, s.high), secs(s.cpu, a, sizeof a),
		s.nproc > 1 ? " (all processes)" : "", 100 * frac(&s, s.predicted));
	fprintf(out, "  range      %s .. %s (width %s)\n", secs(s.low, a, sizeof a),
		secs(s.high, b, sizeof b), secs(s.high - s.low, c, sizeof c));
	double err = sqrt(s.direct_var);
	fprintf(out, "  probes     direct %s +- %s (%llu samples in probe code)\n",
		secs(s.direct, a, sizeof a), secs(err, b, sizeof b), (unsigned long long)s.meas);
	fprintf(out, "             ideal  %s (%llu probe pairs", secs(s.ideal, a, sizeof a),
		(unsigned long long)s.events);
	if (s.skipped)
		fprintf(out, " + %llu regulated", (unsigned long long)s.skipped);
	fprintf(out, " x calibrated cost), cache %s%s\n", s.cache < 0 ? "-" : "+",
		secs(fabs(s.cache), b, sizeof b));
	fprintf(out, "             range  %s .. %s\n", secs(s.probes_lo, a, sizeof a),
		secs(s.probes_hi, b, sizeof b));
	double kern = s.taken ? s.kernel_us_w / (double)s.taken : 0;
	double kerr = s.taken ? s.kernel_err_w / (double)s.taken : 0;
	double hand = s.taken ? s.handler_us_w / (double)s.taken : 0;
	fprintf(out, "  sampling   %s .. %s (%llu samples: kernel %.1f +- %.1f us calibrated + handler "
		     "%.1f us measured each)\n",
		secs(s.samp_lo, a, sizeof a), secs(s.samp_hi, b, sizeof b),
		(unsigned long long)s.taken, kern, kerr, hand);
	fprintf(out, "  fixed      %s (start-up %s, cost controller %s, live snapshots %s)\n",
		secs(s.fixed, a, sizeof a), secs(s.startup, b, sizeof b), secs(s.control, c, sizeof c),
		secs(s.live, d, sizeof d));
	if (s.mpi && (s.mpi_lo > 0 || s.mpi_samples)) {
		fprintf(out, "  mpi        %s .. %s (bookkeeping %s calibrated, piggyback and delay exchanges %s "
			     "timed, ",
			secs(s.mpi_lo, a, sizeof a), secs(s.mpi_hi, b, sizeof b), secs(s.mpi_wrap, c, sizeof c),
			secs(s.mpi_pb, d, sizeof d));
		fprintf(out, "start-up %s; sampled in the wrappers' code %s, %llu samples",
			secs(s.mpi_init, a, sizeof a), secs(s.mpi_sampled, b, sizeof b),
			(unsigned long long)s.mpi_samples);
		if (s.mpi_induced > 0)
			fprintf(out, "; high adds %s of waiting for ranks that measurement delayed",
				secs(s.mpi_induced, a, sizeof a));
		fprintf(out, ")\n");
	}
	fprintf(out, "  predicted  %s (probes %s, sampling %s", secs(s.predicted, a, sizeof a),
		secs(s.pred_probes, b, sizeof b), secs(s.pred_sampling, c, sizeof c));
	if (s.mpi)
		fprintf(out, ", mpi %s at the rate of the interval before", secs(s.pred_mpi, a, sizeof a));
	fprintf(out, "): first interval guessed at %.0f pairs per CPU second, then each probe point's "
		     "observed rate (%llu intervals)\n",
		s.guess_rate, (unsigned long long)s.pred_intervals);
	if (s.intervals) {
		double avg = s.ivl_avg_w / (double)s.intervals;
		double sd = sqrt(s.ivl_var_w / (double)s.intervals);
		fprintf(out, "  ideal cost per interval: avg %.1f%%, max %.1f%%, sd %.1f%% (%llu intervals)\n",
			100 * avg, 100 * s.ivl_max, 100 * sd, (unsigned long long)s.intervals);
	}

	struct fcost *fc;
	size_t nf = by_function(m, &s, &fc);
	if (nf) {
		double tot = 0;
		for (size_t i = 0; i < nf; i++)
			tot += fmax(fc[i].direct, fc[i].ideal);
		fprintf(out, "\n  Probe cost by function (direct: sampled in probe code; ideal: calls x "
			     "calibrated pair)\n");
		fprintf(out, "  %11s %11s %7s %14s  %s\n", "direct", "ideal", "share", "calls", "function");
		for (size_t i = 0; i < nf && i < TOP_FUNCTIONS; i++) {
			const struct hp_fstat *r = fc[i].row;
			fprintf(out, "  %11s %11s %6.1f%% %14lld  %s\n", secs(fc[i].direct, a, sizeof a),
				secs(fc[i].ideal, b, sizeof b),
				tot > 0 ? 100 * fmax(fc[i].direct, fc[i].ideal) / tot : 0,
				(long long)r->calls, r->fn ? r->fn->name : "?");
		}
		if (nf > TOP_FUNCTIONS)
			fprintf(out, "  (%zu more functions with probe cost)\n", nf - TOP_FUNCTIONS);
	}
	free(fc);

	struct bsum bs;
	budget_collect(m, &bs);
	if (bs.present) {
		fprintf(out, "\n  Overhead budget %.1f%%: ", 100 * bs.budget);
		if (!bs.wired)
			fprintf(out, "not applied (the probes of this build do not call the budget hooks)\n");
		else if (!bs.nr)
			fprintf(out, "nothing regulated (%llu intervals checked)\n",
				(unsigned long long)bs.ticks);
		else
			fprintf(out, "%llu functions regulated in %llu of %llu intervals%s\n",
				(unsigned long long)bs.nr, (unsigned long long)bs.ticks_regulating,
				(unsigned long long)bs.ticks,
				bs.ticks_infeasible ? " (see below)" : "");
		if (bs.ticks_infeasible)
			fprintf(out, "  in %llu intervals what was left of the budget (after start-up "
				     "and earlier spending) did not cover the cost regulation cannot remove "
				     "(sampling, the MPI wrappers, the calls of skipped probes): every costly "
				     "probe was off\n",
				(unsigned long long)bs.ticks_infeasible);
		if (bs.nr) {
			qsort(bs.r, bs.nr, sizeof(*bs.r), breg_cmp);
			fprintf(out, "  Regulated calls are partial: 'calls' were counted while enabled; "
				     "'skipped' were skipped at this function; 'estimated' adds the\n"
				     "  calls skipped under a regulated caller too (an estimate, shared "
				     "out by counted calls).\n");
			fprintf(out, "  %9s %7s %14s %14s %14s %6s  %s\n", "off", "on%", "calls",
				"skipped", "estimated", "offs", "function");
			for (size_t i = 0; i < bs.nr; i++) {
				const struct breg *r = &bs.r[i];
				double span = r->on_s + r->off_s;
				fprintf(out, "  %9s %6.1f%% %14.0f %14.0f %14.0f %6u  %s\n",
					secs(r->off_s, a, sizeof a), span > 0 ? 100 * r->on_s / span : 100,
					r->calls, r->skipped, fmax(r->estimated, r->calls + r->skipped),
					r->offs, r->name);
			}
			fprintf(out, "  skipped: %llu regulated activations, %llu probe pairs below them; "
				     "a skipped pair costs %.1f ns\n",
				(unsigned long long)bs.skipped_roots, (unsigned long long)bs.skipped_nested,
				bs.skip_pair_ns);
		}
	}
	bsum_free(&bs);

	struct scaled sc = {0};
	if (!strcmp(m->mode, "measured") && scaled_collect(m, &sc) && sc.total_scaled > 0) {
		fprintf(out, "\n  Regulated profile, scaled by the enabled fraction (an estimate; the "
			     "call tree above shows what was measured)\n");
		fprintf(out, "  %7s %11s %9s %11s  %s\n", "scaled%", "scaled", "measured%", "measured",
			"function");
		for (size_t i = 0; i < sc.n && i < TOP_FUNCTIONS; i++)
			fprintf(out, "  %6.1f%% %11s %8.1f%% %11s  %s\n",
				100 * sc.v[i].scaled / sc.total_scaled, secs(sc.v[i].scaled, a, sizeof a),
				sc.total_measured > 0 ? 100 * sc.v[i].measured / sc.total_measured : 0,
				secs(sc.v[i].measured, b, sizeof b), sc.v[i].name);
		if (sc.unmeasured_nodes)
			fprintf(out, "  %llu call paths were regulated the whole time: no time for them\n",
				(unsigned long long)sc.unmeasured_nodes);
	}
	scaled_free(&sc);
}

/* ---- JSON ------------------------------------------------------------------ */

static void jnum(struct json *j, const char *k, double v)
{
	json__key(j, k);
	json__num(j, v);
}

void view_cost_json(struct hp_model *m, struct json *j)
{
	struct cost_sum s;
	cost_collect(m, &s);
	json__key(j, "cost");
	if (!s.nproc) {
		json__null(j);
		return;
	}
	json__obj_begin(j);
	static const char *const keys[] = {"low",      "high",   "predicted", "direct",
					   "ideal",    "cache",  "sampling",  "probes",
					   "probes_high", "sampling_low", "sampling_high", "fixed"};
	double vals[] = {s.low,   s.high,     s.predicted, s.direct,  s.ideal,   s.cache,
			 s.sampling, s.probes_lo, s.probes_hi, s.samp_lo, s.samp_hi, s.fixed};
	size_t nk = sizeof(vals) / sizeof(vals[0]);
	for (size_t i = 0; i < nk; i++)
		jnum(j, keys[i], vals[i]);
	jnum(j, "direct_err", sqrt(s.direct_var));
	jnum(j, "sampling_err", sqrt(s.samp_var));
	jnum(j, "startup", s.startup);
	jnum(j, "control", s.control);
	jnum(j, "live", s.live);
	json__key(j, "mpi");
	if (!s.mpi) {
		json__null(j);
	} else {
		json__obj_begin(j);
		jnum(j, "low", s.mpi_lo);
		jnum(j, "high", s.mpi_hi);
		jnum(j, "wrappers", s.mpi_wrap);
		jnum(j, "piggyback", s.mpi_pb);
		jnum(j, "init", s.mpi_init);
		jnum(j, "sampled", s.mpi_sampled);
		jnum(j, "induced_wait", s.mpi_induced);
		json__key(j, "samples");
		json__uint(j, s.mpi_samples);
		json__obj_end(j);
	}
	jnum(j, "run_time", s.run);
	jnum(j, "cpu_time", s.cpu);
	jnum(j, "width", s.high - s.low);
	json__key(j, "fractions");
	json__obj_begin(j);
	for (size_t i = 0; i < nk; i++)
		jnum(j, keys[i], frac(&s, vals[i]));
	json__obj_end(j);
	json__key(j, "probe_events");
	json__uint(j, s.events);
	json__key(j, "skipped_events");
	json__uint(j, s.skipped);
	json__key(j, "meas_samples");
	json__uint(j, s.meas);
	json__key(j, "samples_taken");
	json__uint(j, s.taken);
	json__key(j, "processes");
	json__int(j, s.nproc);
	json__key(j, "predicted_parts");
	json__obj_begin(j);
	jnum(j, "probes", s.pred_probes);
	jnum(j, "sampling", s.pred_sampling);
	if (s.mpi)
		jnum(j, "mpi", s.pred_mpi);
	jnum(j, "guess_rate", s.guess_rate);
	json__key(j, "intervals");
	json__uint(j, s.pred_intervals);
	json__obj_end(j);
	json__key(j, "intervals");
	json__obj_begin(j);
	json__key(j, "n");
	json__uint(j, s.intervals);
	jnum(j, "avg", s.intervals ? s.ivl_avg_w / (double)s.intervals : 0);
	jnum(j, "max", s.ivl_max);
	jnum(j, "std", s.intervals ? sqrt(s.ivl_var_w / (double)s.intervals) : 0);
	json__obj_end(j);

	struct fcost *fc;
	size_t nf = by_function(m, &s, &fc);
	json__key(j, "by_function");
	json__arr_begin(j);
	for (size_t i = 0; i < nf; i++) {
		const struct hp_fstat *r = fc[i].row;
		json__obj_begin(j);
		json__key(j, "function");
		json__str(j, r->fn ? r->fn->name : NULL);
		json__key(j, "module");
		json__str(j, r->fn ? r->fn->module : NULL);
		json__key(j, "calls");
		json__int(j, r->calls);
		jnum(j, "direct", fc[i].direct);
		jnum(j, "ideal", fc[i].ideal);
		json__obj_end(j);
	}
	json__arr_end(j);
	free(fc);

	struct bsum bs;
	budget_collect(m, &bs);
	json__key(j, "budget");
	if (!bs.present) {
		json__null(j);
	} else {
		json__obj_begin(j);
		jnum(j, "budget", bs.budget);
		json__key(j, "applied");
		json__bool(j, bs.wired);
		json__key(j, "intervals");
		json__uint(j, bs.ticks);
		json__key(j, "intervals_regulating");
		json__uint(j, bs.ticks_regulating);
		json__key(j, "intervals_infeasible");
		json__uint(j, bs.ticks_infeasible);
		json__key(j, "skipped_roots");
		json__uint(j, bs.skipped_roots);
		json__key(j, "skipped_nested");
		json__uint(j, bs.skipped_nested);
		json__key(j, "skip_resets");
		json__uint(j, bs.resets);
		jnum(j, "skip_pair_ns", bs.skip_pair_ns);
		json__key(j, "regulated");
		json__arr_begin(j);
		if (bs.nr > 1) /* bs.r is NULL when there is none */
			qsort(bs.r, bs.nr, sizeof(*bs.r), breg_cmp);
		for (size_t i = 0; i < bs.nr; i++) {
			const struct breg *r = &bs.r[i];
			json__obj_begin(j);
			json__key(j, "function");
			json__str(j, r->name);
			jnum(j, "calls_counted", r->calls);
			jnum(j, "skipped", r->skipped);
			jnum(j, "calls_estimated", fmax(r->estimated, r->calls + r->skipped));
			jnum(j, "enabled_s", r->on_s);
			jnum(j, "regulated_s", r->off_s);
			jnum(j, "enabled_fraction",
			     r->on_s + r->off_s > 0 ? r->on_s / (r->on_s + r->off_s) : 1);
			json__key(j, "times_off");
			json__uint(j, r->offs);
			json__obj_end(j);
		}
		json__arr_end(j);
		struct scaled sc = {0};
		json__key(j, "scaled_functions");
		if (!strcmp(m->mode, "measured") && scaled_collect(m, &sc) && sc.total_scaled > 0) {
			json__arr_begin(j);
			for (size_t i = 0; i < sc.n; i++) {
				json__obj_begin(j);
				json__key(j, "function");
				json__str(j, sc.v[i].name);
				jnum(j, "self", sc.v[i].scaled);
				jnum(j, "self_pct", 100 * sc.v[i].scaled / sc.total_scaled);
				jnum(j, "self_measured", sc.v[i].measured);
				jnum(j, "self_measured_pct", sc.total_measured > 0
								 ? 100 * sc.v[i].measured / sc.total_measured
								 : 0);
				json__obj_end(j);
			}
			json__arr_end(j);
		} else {
			json__null(j);
		}
		scaled_free(&sc);
		json__obj_end(j);
	}
	bsum_free(&bs);
	json__obj_end(j);
}
