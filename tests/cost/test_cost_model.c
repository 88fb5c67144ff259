/* tests/cost/test_cost_model.c - the cost arithmetic (calib/cost.c), by tables.
 *
 * Rows from Hollingsworth & Miller's Fig. 1 check that the bounds reproduce
 * the paper's when the direct cost is above the ideal one; other rows cover
 * what the paper does not: direct below ideal, the sampler's own cost, the
 * statistical margin, bad inputs, the summary text and the predictor.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calib/cost.h"

static int failures;

#define CHECK_NEAR(line, what, got, want, tol)                                                     \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		if (!(fabs(g_ - w_) <= (tol))) {                                                   \
			fprintf(stderr, "FAIL (case at line %d) %s: got %.9g want %.9g\n", line,   \
				what, g_, w_);                                                     \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* ---- the range ---------------------------------------------------------- */
struct range_case {
	int line;
	const char *name;
	struct hp_cost_in in;
	double low, high, cache, sampling_low, sampling_high;
};

#define PAPER(direct, high)                                                                        \
	{.probe_events = 1000000, .pair_s = (2 * (direct) - (high)) / 1e6, .direct_s = (direct)}

static const struct range_case range_cases[] = {
	{__LINE__, "nothing measured", {0}, 0, 0, 0, 0, 0},
	/* Fig. 1, Ear: low 52.1 high 87.9; 124.0/213.6; 261.2/453.2. */
	{__LINE__, "paper Ear procedure", PAPER(52.1, 87.9), 52.1, 87.9, 35.8, 0, 0},
	{__LINE__, "paper Ear PC base", PAPER(124.0, 213.6), 124.0, 213.6, 89.6, 0, 0},
	{__LINE__, "paper Ear PC full", PAPER(261.2, 453.2), 261.2, 453.2, 192.0, 0, 0},
	/* Fig. 1, Doduc procedure: 48.1 / 74.2. */
	{__LINE__, "paper Doduc procedure", PAPER(48.1, 74.2), 48.1, 74.2, 26.1, 0, 0},
	{__LINE__, "direct below ideal: high is ideal",
	 {.probe_events = 1000000, .pair_s = 30e-9, .direct_s = 0.020},
	 0.020, 0.030, -0.010, 0, 0},
	{__LINE__, "direct equals ideal: point range",
	 {.probe_events = 2000000, .pair_s = 10e-9, .direct_s = 0.020},
	 0.020, 0.020, 0, 0, 0},
	{__LINE__, "skipped pairs are part of ideal",
	 {.probe_events = 1000000, .pair_s = 10e-9, .skipped_events = 1000000,
	  .skip_pair_s = 5e-9, .direct_s = 0.010},
	 0.010, 0.015, -0.005, 0, 0},
	{__LINE__, "sampling, split unknown: [max, sum]",
	 {.samples_taken = 1000, .sample_s = 30e-6, .handler_s = 0.010},
	 0.030, 0.040, 0, 0.030, 0.040},
	{__LINE__, "sampling, kernel part calibrated, handler measured",
	 {.samples_taken = 1000, .sample_s = 2e-6, .sample_kernel_only = 1, .handler_s = 0.003},
	 0.005, 0.008, 0, 0.005, 0.008},
	{__LINE__, "sampling, kernel only, no handler time",
	 {.samples_taken = 500, .sample_s = 2e-6, .sample_kernel_only = 1},
	 0.001, 0.001, 0, 0.001, 0.001},
	{__LINE__, "sampling, whole sample calibrated, handler below",
	 {.samples_taken = 10, .sample_s = 1e-6, .handler_s = 5e-6},
	 10e-6, 15e-6, 0, 10e-6, 15e-6},
	{__LINE__, "sampling, kernel part known to +-0.25 us, z=2: c widens by 2 e each side",
	 {.samples_taken = 1000, .sample_s = 2e-6, .sample_err_s = 0.25e-6, .z = 2,
	  .sample_kernel_only = 1, .handler_s = 0.003},
	 0.0045, 0.0085, 0, 0.0045, 0.0085},
	{__LINE__, "sampling, split unknown, calibration error: [max(m, c - z e), m + c + z e]",
	 {.samples_taken = 1000, .sample_s = 30e-6, .sample_err_s = 5e-6, .z = 2, .handler_s = 0.010},
	 0.020, 0.050, 0, 0.020, 0.050},
	{__LINE__, "sampling, error larger than the cost: low clamps at 0",
	 {.samples_taken = 100, .sample_s = 1e-6, .sample_err_s = 1e-6, .z = 2,
	  .sample_kernel_only = 1},
	 0, 3e-4, 0, 0, 3e-4},
	{__LINE__, "sampling, error without z (the paper's bounds): no margin",
	 {.samples_taken = 1000, .sample_s = 2e-6, .sample_err_s = 1e-6, .sample_kernel_only = 1},
	 0.002, 0.002, 0, 0.002, 0.002},
	{__LINE__, "fixed costs on both bounds",
	 {.startup_s = 0.040, .control_s = 0.002, .direct_s = 0.1, .probe_events = 1,
	  .pair_s = 0.05},
	 0.142, 0.192, 0.05, 0, 0},
	{__LINE__, "margin: 100 samples, z=2 widens by 20% each side",
	 {.direct_s = 1.0, .direct_samples = 100, .z = 2, .probe_events = 10, .pair_s = 0.1},
	 0.8, 2 * 1.2 - 1.0, 0, 0, 0},
	{__LINE__, "margin, binomial: 90 of 100 samples in probes",
	 {.direct_s = 1.0, .direct_samples = 90, .samples_taken = 100, .z = 2, .probe_events = 10,
	  .pair_s = 0.1},
	 1.0 - 2 * 0.3 / 9, 2 * (1.0 + 2 * 0.3 / 9) - 1.0, 0, 0, 0},
	{__LINE__, "margin: every sample in probes is not exact (add-one estimate)",
	 {.direct_s = 1.0, .direct_samples = 98, .samples_taken = 98, .z = 2, .probe_events = 10,
	  .pair_s = 0.1},
	 /* sd = sqrt(98 x 1/100) samples of 1/98 s each = 1/sqrt(9800) s */
	 1.0 - 2 * 0.0101015254455221, 2 * (1.0 + 2 * 0.0101015254455221) - 1.0, 0, 0, 0},
	{__LINE__, "live snapshots are fixed cost, on both bounds",
	 {.startup_s = 0.010, .control_s = 0.001, .live_s = 0.004, .direct_s = 0.1,
	  .probe_events = 1, .pair_s = 0.05},
	 0.115, 0.165, 0.05, 0, 0},
	{__LINE__, "bad inputs count as zero",
	 {.direct_s = NAN, .pair_s = -1, .probe_events = 5, .sample_s = INFINITY,
	  .samples_taken = 3, .handler_s = -2, .startup_s = NAN, .live_s = -1},
	 0, 0, 0, 0, 0},
	{__LINE__, "all parts together",
	 {.probe_events = 1000000, .pair_s = 20e-9, .direct_s = 0.030, .samples_taken = 200,
	  .sample_s = 30e-6, .handler_s = 0.002, .startup_s = 0.01},
	 0.030 + 0.006 + 0.01, 0.040 + 0.008 + 0.01, 0.010, 0.006, 0.008},
	{__LINE__, "all parts, kernel-only sample calibration, control thread",
	 {.probe_events = 1000000, .pair_s = 20e-9, .direct_s = 0.030, .samples_taken = 200,
	  .sample_s = 2e-6, .sample_kernel_only = 1, .handler_s = 0.0005, .startup_s = 0.01,
	  .control_s = 0.001},
	 0.030 + 0.0009 + 0.011, 0.040 + 0.0014 + 0.011, 0.010, 0.0009, 0.0014},
	{__LINE__, "MPI wrappers: low = bookkeeping + piggyback + start-up, high adds the bookkeeping",
	 {.mpi = 1, .mpi_wrap_s = 0.004, .mpi_pb_s = 0.010, .mpi_init_s = 0.002, .mpi_sampled_s = 0.001},
	 0.016, 0.020, 0, 0, 0},
	{__LINE__, "MPI wrappers: sampling saw more in their code than calibrated: high adds that",
	 {.mpi = 1, .mpi_wrap_s = 0.004, .mpi_pb_s = 0.010, .mpi_sampled_s = 0.009},
	 0.014, 0.023, 0, 0, 0},
	{__LINE__, "MPI wrappers beside probes and sampling: the parts add",
	 {.probe_events = 1000000, .pair_s = 20e-9, .direct_s = 0.030, .samples_taken = 200,
	  .sample_s = 30e-6, .handler_s = 0.002, .mpi = 1, .mpi_wrap_s = 0.001, .mpi_pb_s = 0.002},
	 0.030 + 0.006 + 0.003, 0.040 + 0.008 + 0.004, 0.010, 0.006, 0.008},
	{__LINE__, "MPI wrappers: bad inputs count as zero",
	 {.mpi = 1, .mpi_wrap_s = NAN, .mpi_pb_s = -1, .mpi_init_s = INFINITY, .mpi_sampled_s = -3,
	  .mpi_induced_s = NAN},
	 0, 0, 0, 0, 0},
	{__LINE__, "MPI: waiting induced by delayed ranks goes to high only (a polling MPI burns it)",
	 {.mpi = 1, .mpi_wrap_s = 0.004, .mpi_pb_s = 0.010, .mpi_init_s = 0.002, .mpi_induced_s = 0.5},
	 0.016, 0.020 + 0.5, 0, 0, 0},
	{__LINE__, "a probe-bound run: the parts' worst cases pass the CPU time, which caps high",
	 {.cpu_s = 0.050, .direct_s = 0.040, .pair_s = 10e-9, .probe_events = 1000000},
	 0.040, 0.050, 0.030, 0, 0},
	{__LINE__, "both ends capped at the CPU time",
	 {.cpu_s = 0.020, .direct_s = 0.040, .pair_s = 10e-9, .probe_events = 1000000},
	 0.020, 0.020, 0.030, 0, 0},
	{__LINE__, "MPI: a negative net (measurement shortened the waits) adds nothing",
	 {.mpi = 1, .mpi_wrap_s = 0.004, .mpi_pb_s = 0.010, .mpi_init_s = 0.002, .mpi_induced_s = -0.5},
	 0.016, 0.020, 0, 0, 0},
};

static void test_ranges(void)
{
	for (size_t i = 0; i < sizeof(range_cases) / sizeof(range_cases[0]); i++) {
		const struct range_case *tc = &range_cases[i];
		struct hp_cost c;
		hp_cost_compute(&tc->in, &c);
		char what[160];
		snprintf(what, sizeof(what), "%s: low", tc->name);
		CHECK_NEAR(tc->line, what, c.low, tc->low, 1e-9 + 1e-9 * tc->low);
		snprintf(what, sizeof(what), "%s: high", tc->name);
		CHECK_NEAR(tc->line, what, c.high, tc->high, 1e-9 + 1e-9 * tc->high);
		snprintf(what, sizeof(what), "%s: cache", tc->name);
		CHECK_NEAR(tc->line, what, c.cache, tc->cache, 1e-9 + 1e-9 * fabs(tc->cache));
		snprintf(what, sizeof(what), "%s: sampling low", tc->name);
		CHECK_NEAR(tc->line, what, c.sampling_low, tc->sampling_low, 1e-12);
		snprintf(what, sizeof(what), "%s: sampling high", tc->name);
		CHECK_NEAR(tc->line, what, c.sampling_high, tc->sampling_high, 1e-12);
		snprintf(what, sizeof(what), "%s: low <= high", tc->name);
		if (!(c.low <= c.high + 1e-15)) {
			fprintf(stderr, "FAIL (case at line %d) %s\n", tc->line, what);
			failures++;
		}
	}
}

/* ---- the summary line ----------------------------------------------------- */
struct summary_case {
	int line;
	double low, high, predicted, cpu, run;
	const char *want;
};

static const struct summary_case summary_cases[] = {
	{__LINE__, 0.3968, 0.5632, 0.3712, 12.8, 12.8,
	 "overhead 3.1%..4.4% of 12.8 s (predicted 2.9%)"},
	{__LINE__, 0, 0, 0, 1.5, 1.5, "overhead 0.0%..0.0% of 1.50 s (predicted 0.0%)"},
	{__LINE__, 0.0006, 0.001, 0.0, 2.0, 2.0, "overhead 0.03%..0.05% of 2.00 s (predicted 0.0%)"},
	{__LINE__, 0.8, 1.2, 0.9, 4.0, 2.0, "overhead 20.0%..30.0% of 4.00 s CPU (predicted 22.5%)"},
	{__LINE__, 1, 2, 1, 0, 0, "overhead 0.0%..0.0% of 0.00 s (predicted 0.0%)"},
	{__LINE__, 5, 7, 6, 10, 10, "overhead 50.0%..70.0% of 10.0 s (predicted 60.0%)"},
};

static void test_summary(void)
{
	for (size_t i = 0; i < sizeof(summary_cases) / sizeof(summary_cases[0]); i++) {
		const struct summary_case *tc = &summary_cases[i];
		struct hp_cost c = {.low = tc->low, .high = tc->high, .predicted = tc->predicted,
				    .cpu = tc->cpu, .run = tc->run};
		char buf[128];
		size_t n = hp_cost_summary(&c, buf, sizeof(buf));
		if (strcmp(buf, tc->want) || n != strlen(tc->want)) {
			fprintf(stderr, "FAIL (case at line %d) summary: got \"%s\" (%zu) want \"%s\"\n",
				tc->line, buf, n, tc->want);
			failures++;
		}
		/* Truncation never overruns and always terminates. */
		char small[12];
		memset(small, 'x', sizeof(small));
		hp_cost_summary(&c, small, 10);
		if (small[9] != 0 || small[10] != 'x' || strncmp(small, tc->want, 9)) {
			fprintf(stderr, "FAIL (case at line %d) truncated summary \"%.12s\"\n",
				tc->line, small);
			failures++;
		}
	}
}

/* ---- the predictor ---------------------------------------------------------- */
static void test_predictor(void)
{
	struct hp_pred p;
	hp_pred__init(&p, 1e5);
	struct hp_pred_point pts[3] = {{.key = 0x100}, {.key = 0x200}, {.key = 0x300}};
	double probes;

	/* Interval 1 (0.1 s, 2 CPUs busy, 100 Hz at 20 us): nothing seen, the
	 * guess: 1e5/s x 2 CPUs x 0.1 s x 10 ns = 2e-4 s of probes. */
	double f = hp_pred__forecast(&p, pts, 0, NULL, 0.1, 10e-9, 2.0, 100, 20e-6, &probes);
	CHECK_NEAR(__LINE__, "first interval: guess (probes)", probes, 2e-4, 1e-12);
	CHECK_NEAR(__LINE__, "first interval: guess (total)", f, 2e-4 + 2 * 100 * 0.1 * 20e-6, 1e-12);
	/* Observed: two points appeared with 50000 and 1000 calls. */
	uint64_t now1[2] = {50000, 1000};
	hp_pred__close(&p, pts, 2, 0, now1, NULL, 0.1, probes, f - probes);
	CHECK_NEAR(__LINE__, "rate of point 0", pts[0].rate, 5e5, 1e-6);
	CHECK_NEAR(__LINE__, "rate of point 1", pts[1].rate, 1e4, 1e-6);
	CHECK_NEAR(__LINE__, "total after 1", p.total, f, 1e-15);

	/* Interval 2 (0.2 s): predicted from the rates: 5.1e5/s x 0.2 s x 10 ns. */
	f = hp_pred__forecast(&p, pts, 2, NULL, 0.2, 10e-9, 1.0, 0, 0, &probes);
	CHECK_NEAR(__LINE__, "second interval: from rates", probes, 5.1e5 * 0.2 * 10e-9, 1e-12);
	/* Point 0 was enabled only 0.05 s and made 10000 calls: 2e5/s when on.
	 * Point 2 is new with 400 calls (its rate over the interval: 2000/s). */
	uint64_t now2[3] = {60000, 3000, 400};
	double on2[3] = {0.05, 0.2, 0.2};
	hp_pred__close(&p, pts, 3, 2, now2, on2, 0.2, probes, 0);
	CHECK_NEAR(__LINE__, "rate while enabled", pts[0].rate, 2e5, 1e-6);
	CHECK_NEAR(__LINE__, "rate of point 1 after 2", pts[1].rate, 1e4, 1e-6);
	CHECK_NEAR(__LINE__, "new point rate", pts[2].rate, 2000, 1e-6);

	/* Interval 3 with point 0 expected enabled a quarter of the time. */
	double en[3] = {0.25, 1, 1};
	hp_pred__forecast(&p, pts, 3, en, 1.0, 10e-9, 1.0, 0, 0, &probes);
	CHECK_NEAR(__LINE__, "forecast with duty", probes, (0.25 * 2e5 + 1e4 + 2000) * 10e-9, 1e-12);
	/* A point off for the whole interval keeps its rate. */
	uint64_t now3[3] = {60000, 4000, 600};
	double on3[3] = {0, 0.1, 0.1};
	hp_pred__close(&p, pts, 3, 3, now3, on3, 0.1, probes, 0);
	CHECK_NEAR(__LINE__, "rate kept while off", pts[0].rate, 2e5, 1e-6);
	CHECK_NEAR(__LINE__, "intervals counted", p.intervals, 3, 0);

	/* Sampled mode: probes cost nothing, only sampling is predicted. */
	struct hp_pred q;
	hp_pred__init(&q, 1e5);
	f = hp_pred__forecast(&q, NULL, 0, NULL, 1.0, 0, 1.0, 200, 30e-6, &probes);
	CHECK_NEAR(__LINE__, "sampled mode forecast", f, 200 * 30e-6, 1e-12);
	/* Half a CPU busy: half the samples. */
	f = hp_pred__forecast(&q, NULL, 0, NULL, 1.0, 0, 0.5, 200, 30e-6, &probes);
	CHECK_NEAR(__LINE__, "sampling follows the CPU time", f, 100 * 30e-6, 1e-12);
	CHECK_NEAR(__LINE__, "sampled mode probes", probes, 0, 0);
}

int main(void)
{
	test_ranges();
	test_summary();
	test_predictor();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("cost model: all cases pass\n");
	return 0;
}
