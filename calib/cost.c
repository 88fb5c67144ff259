/* calib/cost.c - the cost system's arithmetic: observed range, prediction,
 * summary text.  Pure: no runtime state, no allocation, no stdio.
 *
 * Signal-safe: every function (the profile writer calls them from a fatal
 * signal handler).  docs/cost.md explains each number.
 */
#include <math.h>
#include <string.h>

#include "calib/cost.h"

/* A measured quantity: NaN, infinities and negatives count as nothing. */
static double pos(double v)
{
	return isfinite(v) && v > 0 ? v : 0.0;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

void hp_cost_compute(const struct hp_cost_in *in, struct hp_cost *c)
{
	memset(c, 0, sizeof(*c));
	c->run = pos(in->run_s);
	c->cpu = pos(in->cpu_s);

	/* Probes.  direct: sampled; ideal: counted x calibrated. */
	c->direct = pos(in->direct_s);
	c->ideal = (double)in->probe_events * pos(in->pair_s) +
		   (double)in->skipped_events * pos(in->skip_pair_s);
	c->cache = c->direct - c->ideal;
	/* Each sample behind direct stands for direct/m seconds.  Of the n
	 * samples taken, the number m that land in probe code is binomial
	 * (Poisson when n is unknown): sd(m) = sqrt(m (1 - m/n)). */
	if (in->direct_samples > 0) {
		double m = (double)in->direct_samples, n = (double)in->samples_taken;
		double q = n >= m && n > 0 ? 1 - m / n : 1;
		/* Every sample in probe code (m = n, a short probe-bound run): the
		 * plug-in estimate would claim no error at all; use the add-one
		 * (Laplace) estimate of the share outside, 1 / (n + 2). */
		if (n > 0 && m >= n)
			q = 1 / (n + 2);
		c->direct_err = c->direct / m * sqrt(m * q);
	}
	double z = pos(in->z);
	double dlo = pos(c->direct - z * c->direct_err);
	double dhi = c->direct + z * c->direct_err;
	c->probes_low = dlo;
	/* Paradyn's high bound is direct + cache (every line the probes pulled
	 * in costs one later miss of the program).  It is never below ideal:
	 * the probes certainly executed ideal's worth of instructions. */
	c->probes_high = dmax(dmax(dhi + (dhi - c->ideal), c->ideal), dhi);

	/* Sampling: its cost is invisible to sampling itself. */
	double m = pos(in->handler_s);
	double cal = (double)in->samples_taken * pos(in->sample_s);
	double err = (double)in->samples_taken * pos(in->sample_err_s);
	double clo = pos(cal - z * err), chi = cal + z * err;
	c->sampling_measured = m;
	c->sampling_ideal = cal;
	c->sampling_err = err;
	if (in->sample_kernel_only) {
		c->sampling_low = clo + m;
		c->sampling_high = chi + 2 * m;
	} else {
		c->sampling_low = dmax(m, clo);
		c->sampling_high = m + chi;
	}
	/* the point value: the calibrated cost itself, not a bound */
	c->sampling = in->sample_kernel_only ? cal + m : dmax(m, cal);

	c->fixed = pos(in->startup_s) + pos(in->control_s) + pos(in->live_s);

	/* MPI wrappers: what they charged as overhead is their cost, timed or
	 * calibrated per call (low).  High adds the bookkeeping once more, or
	 * what sampling saw in their code if that is more: the worst case of
	 * the cache lines it pulled in, as for the handler.  The piggyback's
	 * timed part includes the delay exchanges' waiting for the other
	 * members, which pulls no lines in: it is not counted twice. */
	double wrap = pos(in->mpi_wrap_s);
	c->mpi_low = wrap + pos(in->mpi_pb_s) + pos(in->mpi_init_s);
	c->mpi_high = c->mpi_low + dmax(wrap, pos(in->mpi_sampled_s));
	/* The waiting that measurement elsewhere induced here costs CPU when
	 * the MPI polls while it waits (Open MPI's and MPICH's default), none
	 * when it blocks: high only. */
	c->mpi_high += pos(in->mpi_induced_s);

	c->low = c->probes_low + c->sampling_low + c->fixed + c->mpi_low;
	c->high = c->probes_high + c->sampling_high + c->fixed + c->mpi_high;
	/* The bounds add worst cases part by part; together they can pass the
	 * run's CPU time (probes_high counts direct twice, mpi_high the
	 * bookkeeping twice), which no measurement can cost: the CPU time is
	 * the physical ceiling of both ends of the range. */
	if (c->cpu > 0) {
		if (c->high > c->cpu)
			c->high = c->cpu;
		if (c->low > c->cpu)
			c->low = c->cpu;
	}
	c->predicted = pos(in->predicted_s);
}

double hp_cost_frac(const struct hp_cost *c, double seconds)
{
	return c->cpu > 0 ? seconds / c->cpu : 0.0;
}

/* ---- text without stdio ----------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, n;
};

static void put(struct sbuf *b, const char *s)
{
	while (*s) {
		if (b->n + 1 < b->len)
			b->p[b->n] = *s;
		b->n++;
		s++;
	}
	if (b->len)
		b->p[b->n + 1 < b->len ? b->n : b->len - 1] = 0;
}

/* v with `dec` decimals (v >= 0, rounded half up). */
static void put_fixed(struct sbuf *b, double v, int dec)
{
	char tmp[48];
	if (!isfinite(v)) {
		put(b, "?");
		return;
	}
	int neg = v < 0;
	if (neg)
		v = -v;
	double scale = 1;
	for (int i = 0; i < dec; i++)
		scale *= 10;
	if (v * scale >= 1e17) {
		put(b, "huge");
		return;
	}
	unsigned long long u = (unsigned long long)(v * scale + 0.5);
	int i = (int)sizeof(tmp) - 1;
	tmp[i] = 0;
	int d = 0;
	do {
		if (d == dec && dec > 0)
			tmp[--i] = '.';
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
		d++;
	} while (u || d <= dec);
	if (neg)
		tmp[--i] = '-';
	put(b, tmp + i);
}

/* A percentage with one decimal, two below 0.1% so it is not shown as 0. */
static void put_pct(struct sbuf *b, double frac)
{
	double pct = frac * 100;
	put_fixed(b, pct, pct > 0 && pct < 0.1 ? 2 : 1);
	put(b, "%");
}

size_t hp_cost_summary(const struct hp_cost *c, char *buf, size_t len)
{
	struct sbuf b = {buf, len, 0};
	if (len)
		buf[0] = 0;
	put(&b, "overhead ");
	put_pct(&b, hp_cost_frac(c, c->low));
	put(&b, "..");
	put_pct(&b, hp_cost_frac(c, c->high));
	put(&b, " of ");
	put_fixed(&b, c->cpu, c->cpu < 10 ? 2 : 1);
	put(&b, " s");
	if (c->cpu > 1.05 * c->run)
		put(&b, " CPU");
	put(&b, " (predicted ");
	put_pct(&b, hp_cost_frac(c, c->predicted));
	put(&b, ")");
	return b.n < len ? b.n : (len ? len - 1 : 0);
}

/* ---- prediction -------------------------------------------------------- */

void hp_pred__init(struct hp_pred *p, double guess_rate)
{
	memset(p, 0, sizeof(*p));
	p->guess_rate = pos(guess_rate);
}

double hp_pred__forecast(const struct hp_pred *p, const struct hp_pred_point *pts, size_t n,
			 const double *enabled, double dt, double pair_s, double cpus,
			 double freq, double sample_s, double *probes_part)
{
	double rate = 0;
	if (!p->started) {
		/* Nothing observed yet: the stated guess for the whole process. */
		rate = p->guess_rate * (cpus > 0 ? cpus : 1);
	} else {
		for (size_t i = 0; i < n; i++) {
			double e = enabled ? enabled[i] : 1.0;
			rate += pts[i].rate * (e < 0 ? 0 : e > 1 ? 1 : e);
		}
	}
	double probes = rate * pos(dt) * pos(pair_s);
	double sampling = pos(cpus) * pos(freq) * pos(dt) * pos(sample_s);
	if (probes_part)
		*probes_part = probes;
	return probes + sampling;
}

void hp_pred__close(struct hp_pred *p, struct hp_pred_point *pts, size_t n, size_t new_from,
		    const uint64_t *calls_now, const double *on_s, double dt,
		    double forecast_probes, double forecast_sampling)
{
	p->probes += pos(forecast_probes);
	p->sampling += pos(forecast_sampling);
	p->total = p->probes + p->sampling;
	p->intervals++;
	if (!(dt > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t now = calls_now[i];
		uint64_t d = now >= pts[i].calls ? now - pts[i].calls : 0;
		pts[i].calls = now;
		double on = on_s ? on_s[i] : dt;
		if (i >= new_from) {
			/* First seen in this interval: it ran part of it at best, so
			 * its rate over the whole interval is a floor. */
			pts[i].rate = (double)d / dt;
			pts[i].seen = 1;
			continue;
		}
		/* Observed while enabled: the rate to expect when enabled.  A
		 * point regulated off the whole interval keeps its estimate. */
		if (on > 0)
			pts[i].rate = (double)d / (on < dt ? on : dt);
	}
	p->started = 1;
}
