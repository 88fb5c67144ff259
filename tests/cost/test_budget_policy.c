/* tests/cost/test_budget_policy.c - the overhead budget's policy
 * (calib/budget.c) on a simulated clock and probe stream.
 *
 * Each case is a program: probe points with a cost rate when enabled and
 * when regulated, a floor (sampling), the program's work rate, a budget.
 * The simulation runs the policy every interval, charges each interval the
 * cost of what was on and off, and checks facts: the cost stays under the
 * budget on average, cheap points are never regulated, the costliest are
 * regulated first, every regulated point is still enabled in some intervals
 * and its enabled fraction matches its duty, an unmeetable budget is flagged,
 * and no budget or a generous one regulates nothing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calib/budget.h"

static int failures;

#define FAIL(line, ...)                                                                            \
	do {                                                                                       \
		fprintf(stderr, "FAIL (case at line %d) ", line);                                  \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		failures++;                                                                        \
	} while (0)

#define MAXP 64

struct sim_case {
	int line;
	const char *name;
	double budget;        /* fraction */
	double margin;
	double work;          /* CPU s/s */
	double floor;         /* s/s */
	int nhot;             /* hot points: cost_on = hot_on[i] */
	double hot_on[4];
	int ncheap;           /* cheap points: cost_on = cheap_on each */
	double cheap_on;
	double off_ratio;     /* cost_off = cost_on * off_ratio */
	int ticks;
	/* a phase change: hot point 0's cost_on becomes change_on at tick change_at */
	int change_at;
	double change_on;
	/* expectations */
	int expect_regulated;  /* some point is off at some tick */
	int expect_infeasible; /* flagged at the end */
	double max_avg_frac;   /* average cost / work must stay at or under this */
};

static const struct sim_case cases[] = {
	{__LINE__, "no budget: nothing regulated", 0, 0.9, 1, 0.007, 3, {0.15, 0.10, 0.05}, 20,
	 0.0005, 1.0 / 7, 200, 0, 0, 0, 0, 1.0},
	{__LINE__, "generous budget: nothing regulated", 0.10, 0.9, 1, 0.007, 2, {0.03, 0.02}, 10,
	 0.001, 1.0 / 7, 200, 0, 0, 0, 0, 0.10},
	{__LINE__, "probe-heavy, 5% budget", 0.05, 0.9, 1, 0.007, 3, {0.15, 0.10, 0.05}, 20, 0.0005,
	 1.0 / 20, 400, 0, 0, 1, 0, 0.05},
	{__LINE__, "probe-heavy, 2 threads, 5% budget", 0.05, 0.9, 2, 0.014, 4,
	 {0.30, 0.20, 0.08, 0.02}, 30, 0.0004, 1.0 / 20, 400, 0, 0, 1, 0, 0.05},
	{__LINE__, "tight 1% budget", 0.01, 0.9, 1, 0.002, 2, {0.2, 0.1}, 5, 0.0002, 1.0 / 100, 1000,
	 0, 0, 1, 0, 0.01},
	{__LINE__, "phase change: a cheap point turns hot", 0.05, 0.9, 1, 0.007, 1, {0.005}, 10,
	 0.001, 1.0 / 20, 400, 200, 0.4, 1, 0, 0.05},
	{__LINE__, "unmeetable: floor above budget", 0.005, 0.9, 1, 0.007, 2, {0.1, 0.05}, 0, 0,
	 1.0 / 7, 100, 0, 0, 1, 1, 1.0},
	{__LINE__, "residual of skipped probes above budget (1/7 of 30%)", 0.05, 0.9, 1, 0.007, 3,
	 {0.15, 0.10, 0.05}, 0, 0, 1.0 / 7, 100, 0, 0, 1, 1, 1.0},
	{__LINE__, "unmeetable: residual of skipped probes above budget", 0.02, 0.9, 1, 0.001, 1,
	 {0.5}, 0, 0, 0.1, 100, 0, 0, 1, 1, 1.0},
};

static void run_case(const struct sim_case *tc)
{
	struct hp_bpol_pt pts[MAXP];
	struct hp_bpol b = {.budget = tc->budget, .margin = tc->margin};
	int n = tc->nhot + tc->ncheap;
	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < n; i++) {
		pts[i].key = 0x400000 + 0x40 * (uint64_t)i;
		pts[i].cost_on = i < tc->nhot ? tc->hot_on[i] : tc->cheap_on;
		pts[i].cost_off = pts[i].cost_on * tc->off_ratio;
	}
	double cost = 0, work = 0, cost_after = 0, work_after = 0;
	int ever_off = 0, cheap_off = 0;
	double duty_sum[MAXP] = {0};
	int on_count[MAXP] = {0};
	int measured_from = tc->change_at ? tc->change_at + 1 : 0;
	double truth[MAXP];
	for (int i = 0; i < n; i++)
		truth[i] = pts[i].cost_on;
	for (int k = 0; k < tc->ticks; k++) {
		/* The policy sees what the last interval showed (pts[].cost_on);
		 * the interval is charged the truth, which may have just changed:
		 * the controller learns a change one interval late. */
		if (tc->change_at && k == tc->change_at)
			truth[0] = tc->change_on;
		int off = hp_bpol__decide(&b, pts, (size_t)n, tc->work, tc->floor);
		double c = tc->floor;
		for (int i = 0; i < n; i++) {
			c += pts[i].on ? truth[i] : truth[i] * tc->off_ratio;
			if (!pts[i].on) {
				ever_off = 1;
				if (i >= tc->nhot)
					cheap_off = 1;
			}
			duty_sum[i] += pts[i].duty;
			on_count[i] += pts[i].on;
			pts[i].cost_on = truth[i];
			pts[i].cost_off = truth[i] * tc->off_ratio;
		}
		if (off < 0 || off > n)
			FAIL(tc->line, "%s: decide returned %d", tc->name, off);
		cost += c;
		work += tc->work;
		if (k >= measured_from) {
			cost_after += c;
			work_after += tc->work;
		}
	}
	double frac = cost_after / work_after;
	if (frac > tc->max_avg_frac * 1.0001)
		FAIL(tc->line, "%s: average cost %.4f of the work, budget %.4f", tc->name, frac,
		     tc->max_avg_frac);
	if (ever_off != tc->expect_regulated)
		FAIL(tc->line, "%s: regulated %d, expected %d", tc->name, ever_off,
		     tc->expect_regulated);
	if (b.infeasible != tc->expect_infeasible)
		FAIL(tc->line, "%s: infeasible %d, expected %d", tc->name, b.infeasible,
		     tc->expect_infeasible);
	if (cheap_off && !tc->expect_infeasible)
		FAIL(tc->line, "%s: a cheap point was regulated", tc->name);
	if (!tc->expect_regulated || tc->expect_infeasible || tc->change_at)
		return;
	/* Costliest first: duties are ordered inversely to the saving. */
	for (int i = 1; i < tc->nhot; i++)
		if (pts[i].duty + 1e-12 < pts[i - 1].duty)
			FAIL(tc->line, "%s: point %d (cost %.3f) has duty %.3f below point %d's %.3f",
			     tc->name, i, pts[i].cost_on, pts[i].duty, i - 1, pts[i - 1].duty);
	/* Every regulated point is still collected, at its duty. */
	for (int i = 0; i < n; i++) {
		double mean_duty = duty_sum[i] / tc->ticks;
		double frac_on = (double)on_count[i] / tc->ticks;
		if (mean_duty < 1 && on_count[i] == 0)
			FAIL(tc->line, "%s: point %d never enabled (duty %.4f)", tc->name, i, mean_duty);
		if (fabs(frac_on - mean_duty) > 2.0 / tc->ticks + 1e-9)
			FAIL(tc->line, "%s: point %d on %.4f of the time, duty %.4f", tc->name, i,
			     frac_on, mean_duty);
	}
}

/* Decisions are stable: the same inputs give the same duties, and a point
 * regulated at duty d turns off about (1 - d) x ticks times at most once per
 * off run (no flapping inside an interval). */
static void test_phase_spread(void)
{
	/* Phases of nearby keys are spread over [0, 1). */
	int bins[10] = {0};
	for (uint64_t k = 0; k < 1000; k++) {
		double ph = hp_bpol__phase(0x401000 + k * 16);
		if (ph < 0 || ph >= 1) {
			FAIL(__LINE__, "phase %.6f out of [0, 1)", ph);
			return;
		}
		bins[(int)(ph * 10)]++;
	}
	for (int i = 0; i < 10; i++)
		if (bins[i] < 50 || bins[i] > 150)
			FAIL(__LINE__, "phase bin %d holds %d of 1000 keys", i, bins[i]);
}

static void test_level(void)
{
	/* Three points saving 0.3, 0.2, 0.01; 0.1 left: tau solves
	 * min(.3,t)+min(.2,t)+min(.01,t) = 0.1 -> t = 0.045. */
	struct hp_bpol_pt pts[3] = {{.key = 1, .cost_on = 0.3},
				    {.key = 2, .cost_on = 0.2},
				    {.key = 3, .cost_on = 0.01}};
	struct hp_bpol b = {.budget = 0.1, .margin = 1};
	hp_bpol__decide(&b, pts, 3, 1.0, 0);
	if (fabs(b.last_level - 0.045) > 1e-9)
		FAIL(__LINE__, "water level %.9f, want 0.045", b.last_level);
	if (fabs(pts[0].duty - 0.15) > 1e-9 || fabs(pts[1].duty - 0.225) > 1e-9 ||
	    pts[2].duty != 1)
		FAIL(__LINE__, "duties %.6f %.6f %.6f, want 0.15 0.225 1", pts[0].duty, pts[1].duty,
		     pts[2].duty);
	/* Fixed points are never regulated and use up the budget first. */
	struct hp_bpol_pt q[2] = {{.key = 1, .cost_on = 0.08, .fixed = 1}, {.key = 2, .cost_on = 0.1}};
	hp_bpol__decide(&b, q, 2, 1.0, 0);
	if (!q[0].on || fabs(q[1].duty - 0.2) > 1e-9)
		FAIL(__LINE__, "fixed: on %d, duty of the other %.6f (want 0.2)", q[0].on, q[1].duty);
}

static void test_keep(void)
{
	/* Unmeetable budget (the floor alone is above it): the hot point goes
	 * off, the points too cheap to matter keep their data. */
	struct hp_bpol_pt pts[4] = {{.key = 1, .cost_on = 0.2},
				    {.key = 2, .cost_on = 0.0001},
				    {.key = 3, .cost_on = 0.0002},
				    {.key = 4, .cost_on = 0.0004, .cost_off = 0.0001}};
	struct hp_bpol b = {.budget = 0.005, .margin = 1, .keep = 0.0005};
	for (int k = 0; k < 10; k++)
		hp_bpol__decide(&b, pts, 4, 1.0, 0.007);
	if (!b.infeasible || pts[0].on || pts[0].off_ticks != 10)
		FAIL(__LINE__, "keep: infeasible %d, hot on %d off %u times", b.infeasible, pts[0].on,
		     pts[0].off_ticks);
	for (int i = 1; i < 4; i++)
		if (!pts[i].on || pts[i].off_ticks || pts[i].duty != 1)
			FAIL(__LINE__, "keep: cheap point %d regulated (duty %.3f)", i, pts[i].duty);
	/* Feasible: kept points use their share first, the rest is filled. */
	struct hp_bpol_pt q[3] = {{.key = 1, .cost_on = 0.3}, {.key = 2, .cost_on = 0.2},
				  {.key = 3, .cost_on = 0.0004}};
	struct hp_bpol c = {.budget = 0.1004, .margin = 1, .keep = 0.0005};
	hp_bpol__decide(&c, q, 3, 1.0, 0);
	if (fabs(c.last_level - 0.05) > 1e-9 || q[2].duty != 1)
		FAIL(__LINE__, "keep: level %.6f (want 0.05), kept duty %.3f", c.last_level, q[2].duty);
}

int main(void)
{
	test_keep();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_level();
	test_phase_spread();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("budget policy: all cases pass\n");
	return 0;
}
