/* calib/budget.c - the overhead budget's policy: which probe points run in
 * the coming interval.  Pure (no runtime state, no allocation, no clock):
 * tests/cost/ drives it with a simulated clock and probe stream.
 *
 * The problem each interval: points p have a cost rate when enabled (on_p)
 * and when regulated (off_p: a skipped probe still costs its call and the
 * check).  Choose duties d_p in [0, 1] with
 *     floor + sum_fixed on_p + sum_p (d_p on_p + (1 - d_p) off_p) <= target.
 * Water-filling on the saving s_p = on_p - off_p: find the level tau with
 * sum_p min(s_p, tau) = what is left, and set d_p = min(1, tau / s_p).
 * Cheap points stay always on; the costliest hot ones are regulated first
 * and hardest, yet every point keeps a duty above zero as long as anything
 * is left, so every point is still collected in some intervals (its counts
 * can then be scaled by its measured enabled fraction).  Points saving less
 * than `keep` are never regulated.  A token bucket turns duties into on/off
 * intervals.
 *
 * Signal-safe: yes (pure arithmetic).
 */
#include <math.h>

#include "calib/budget.h"

static double nonneg(double v)
{
	return isfinite(v) && v > 0 ? v : 0.0;
}

double hp_bpol__phase(uint64_t key)
{
	/* Fibonacci hashing: fractional part of key * golden ratio. */
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	return (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* Is point p outside the regulation (fixed, or too cheap to matter)? */
static int kept(const struct hp_bpol *b, const struct hp_bpol_pt *p)
{
	return p->fixed || nonneg(p->cost_on - p->cost_off) <= b->keep;
}

/* sum_p min(s_p, tau) over the regulated points. */
static double filled(const struct hp_bpol *b, const struct hp_bpol_pt *pts, size_t n, double tau)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept(b, &pts[i]))
			continue;
		double s = nonneg(pts[i].cost_on - pts[i].cost_off);
		sum += s < tau ? s : tau;
	}
	return sum;
}

int hp_bpol__decide(struct hp_bpol *b, struct hp_bpol_pt *pts, size_t n, double work,
		    double floor)
{
	double target = nonneg(b->budget) * (b->margin > 0 ? b->margin : 1.0) * nonneg(work);
	/* What the points may spend on top of their regulated cost. */
	double left = target - nonneg(floor);
	double smax = 0, ssum = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept(b, &pts[i])) {
			left -= nonneg(pts[i].cost_on);
			continue;
		}
		double s = nonneg(pts[i].cost_on - pts[i].cost_off);
		left -= nonneg(pts[i].cost_off);
		ssum += s;
		if (s > smax)
			smax = s;
	}
	b->last_target = target;
	b->infeasible = b->budget > 0 && left < 0;
	double tau;
	if (b->budget <= 0 || ssum <= left) {
		tau = INFINITY; /* no budget, or everything fits */
	} else if (left <= 0) {
		tau = 0;
	} else {
		double lo = 0, hi = smax;
		for (int it = 0; it < 64 && hi - lo > 1e-15 * smax; it++) {
			double mid = 0.5 * (lo + hi);
			if (filled(b, pts, n, mid) > left)
				hi = mid;
			else
				lo = mid;
		}
		tau = lo;
	}
	b->last_level = tau;

	int off = 0;
	for (size_t i = 0; i < n; i++) {
		struct hp_bpol_pt *p = &pts[i];
		double s = nonneg(p->cost_on - p->cost_off);
		int was_on = p->ticks == 0 || p->on;
		p->ticks++;
		if (kept(b, p) || s <= tau || s == 0) {
			p->duty = 1;
			p->on = 1;
		} else {
			p->duty = tau / s;
			if (!p->phased) {
				p->credit = hp_bpol__phase(p->key);
				p->phased = 1;
			}
			p->credit += p->duty;
			if (p->credit >= 1) {
				p->on = 1;
				p->credit -= 1;
			} else {
				p->on = 0;
			}
			/* No bursts after a long run of zero duty. */
			if (p->credit > 1)
				p->credit = 1;
		}
		if (!p->on) {
			off++;
			p->off_ticks++;
			if (was_on)
				p->offs++;
		}
	}
	return off;
}
