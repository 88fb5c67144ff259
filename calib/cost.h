/* calib/cost.h - the cost system: what the measurement cost, as a range,
 * and what it was predicted to cost (ALGORITHMS.md section 3, after
 * Hollingsworth & Miller, "An adaptive cost system for parallel program
 * instrumentation"; docs/cost.md explains every number).
 *
 * Two halves:
 *  - pure arithmetic (calib/cost.c): no runtime state, no allocation, unit
 *    tested with tables (tests/cost/);
 *  - the runtime side (calib/cost_rt.c): gathers the totals of every thread,
 *    writes section HP_SEC_COST and feeds the exit summary line.
 *
 * Units: seconds everywhere in this header unless a name says otherwise.
 */
#ifndef HYPROF_CALIB_COST_H
#define HYPROF_CALIB_COST_H

#include <stddef.h>
#include <stdint.h>

/* ---- observed cost: the range ------------------------------------------
 *
 * probes:   direct = time the sampler saw inside probe code (C_obs_direct)
 *           ideal  = probe pairs x calibrated warm cost (C_obs_ideal)
 *           cache  = direct - ideal (C_obs_cache; negative when the probes
 *                    ran faster than calibrated or the sampler missed some)
 *           low    = direct
 *           high   = max(direct + cache, ideal)
 *   The paper's bounds are [direct, direct + cache]; when direct < ideal
 *   its high bound would fall below the calibrated cost of the work the
 *   probes certainly did, so the high bound is never below ideal.
 * sampling: invisible to sampling (the handler runs with the signal blocked)
 *           m = in-handler time, measured with the TSC on every sample;
 *           c = samples x calibrated cost of one sample.
 *           e = samples x standard error of the calibrated per-sample
 *               cost (its trials' median: 1.2533 sd / sqrt(trials), sd
 *               from the trials' p90 - p10); c is known to within z e.
 *           - calibration measured only the kernel's part (a signal round
 *             trip with an empty handler, the start-up method):
 *               low = c - z e + m, high = c + z e + 2 m
 *             (the handler's time counted once more as the worst case of
 *             its cache pollution, as the probes' cache term does);
 *           - calibration measured a whole sample (kernel + its own warm
 *             handler, `hyprof calibrate`): the kernel/handler split is
 *             unknown, so low = max(m, c - z e), high = m + c + z e.
 * fixed:    start-up calibration, the controller thread's CPU time and the
 *           live statistics' snapshots (runtime/live.c), measured directly;
 *           added to both bounds.
 */
#define HP_COST_Z 2.0 /* about 95% for the sampled direct cost */

struct hp_cost_in {
	int mode;                /* enum hp_mode (informational) */
	double run_s;            /* wall time of the process */
	double cpu_s;            /* CPU time of the process (all threads) */
	/* probes */
	uint64_t probe_events;   /* probe pairs that did their work */
	uint64_t skipped_events; /* probe pairs that only checked the budget */
	double pair_s;           /* calibrated warm cost of one pair in this mode */
	double skip_pair_s;      /* cost of one regulated (skipped) pair */
	double direct_s;         /* time in probe code, by sampling */
	uint64_t direct_samples; /* samples behind direct_s (statistical error) */
	/* sampling */
	uint64_t samples_taken;  /* every sample delivered: kept, dropped, in probes */
	double sample_s;         /* calibrated cost of one sample */
	double sample_err_s;     /* its standard error (0: exact or unknown) */
	int sample_kernel_only;  /* sample_s is the kernel's part only */
	double handler_s;        /* time inside the handler, measured */
	/* fixed */
	double startup_s;        /* start-up calibration */
	double control_s;        /* the cost controller's thread CPU time */
	double live_s;           /* live snapshots' CPU time (hp_live_cost_ns) */
	/* MPI wrappers (zero without them): their calibrated bookkeeping
	 * (calls x the calibrated cost of a wrapper call), the piggyback work
	 * and delay exchanges they timed, their start-up (calibration, the
	 * critical path's set-up), all charged as overhead by the wrappers
	 * themselves; and what sampling saw in their code (not in direct_s) */
	int mpi;                 /* the wrappers are there (the values below mean something) */
	double mpi_wrap_s, mpi_pb_s, mpi_init_s;
	double mpi_sampled_s;
	double mpi_induced_s;    /* waiting induced by other ranks' measurement (parallel compensation) */
	uint64_t mpi_samples;
	/* prediction (cost_pred below), carried through */
	double predicted_s;
	/* Statistical margin: direct is a count of samples, binomial among
	 * samples_taken; the probes' bounds use direct -/+ z x its standard
	 * error (HP_COST_Z in the runtime; 0 = the paper's bounds). */
	double z;
};

struct hp_cost {
	double direct, ideal, cache;      /* probes (cache may be negative) */
	double direct_err;                /* 1 sigma of direct (binomial on the samples) */
	double probes_low, probes_high;
	double sampling_measured, sampling_ideal;
	double sampling_low, sampling_high;
	double sampling_err;              /* samples x sample_err_s (1 sigma of sampling_ideal) */
	double sampling;                  /* point value: the calibrated cost (+ m), no margin */
	double fixed;                     /* startup + control + live */
	double mpi_low, mpi_high;         /* the MPI wrappers' part (0 without them) */
	double low, high;                 /* whole measurement cost */
	double predicted;
	double run, cpu;                  /* copies of run_s and cpu_s */
};

/* Compute the range from the totals.  Negative or NaN inputs count as 0.
 * Never fails.  Signal-safe (pure arithmetic). */
void hp_cost_compute(const struct hp_cost_in *in, struct hp_cost *out);

/* Fraction of the process CPU time (0 when cpu is 0).  Signal-safe. */
double hp_cost_frac(const struct hp_cost *c, double seconds);

/* The summary text "overhead 3.1%..4.4% of 12.8 s (predicted 2.9%)" into
 * buf (always NUL-terminated).  Percentages are of the CPU time; the
 * seconds are the CPU time, followed by " CPU" when the process ran more
 * than one thread's worth of CPU (cpu > 1.05 x run).  Returns the length.
 * Signal-safe (no stdio). */
size_t hp_cost_summary(const struct hp_cost *c, char *buf, size_t len);

/* ---- predicted cost -----------------------------------------------------
 *
 * C_pred = sum over probe points of (cost per pair) x (expected frequency),
 * plus sampling: CPU seconds x sampling rate (samples per CPU second of a
 * thread) x cost per sample.  The prediction
 * for an interval is made before it runs, from what was known then:
 *  - a probe point never seen yet has no frequency of its own; the first
 *    interval is predicted with a stated guess for the whole process
 *    (HP_PRED_GUESS_RATE probe pairs per CPU second);
 *  - afterwards each point's expected frequency is its rate observed in the
 *    previous interval while it was enabled; a point first seen during an
 *    interval was not predicted for that interval (nothing knew it existed,
 *    as with a point Paradyn was never asked to instrument) and is predicted
 *    from the next one on.
 * The total predicted over the run (sum of interval predictions) is reported
 * beside the observed range.
 */
#define HP_PRED_GUESS_RATE 1.0e5 /* probe pairs per CPU second, first interval */

struct hp_pred_point {           /* one probe point (a function key) */
	uint64_t key;
	uint64_t calls;          /* calls counted so far (last observation) */
	double rate;             /* expected pairs per second while enabled */
	int seen;                /* observed in at least one full interval */
};

struct hp_pred {
	double guess_rate;       /* HP_PRED_GUESS_RATE unless a test sets it */
	double total;            /* sum of interval predictions so far */
	double probes, sampling; /* its two parts */
	uint32_t intervals;
	int started;             /* first interval done */
};

void hp_pred__init(struct hp_pred *p, double guess_rate);

/* What the interval of `dt` seconds is predicted to cost given the state
 * before it: probes of points `pts[0..n)` (enabled[i] = fraction of the
 * interval point i is expected enabled, 1 without a budget; NULL = all 1),
 * at pair_s each; `cpus` CPU seconds per second sampled at freq samples
 * per CPU second, at sample_s each.  Pure. */
double hp_pred__forecast(const struct hp_pred *p, const struct hp_pred_point *pts, size_t n,
			 const double *enabled, double dt, double pair_s, double cpus,
			 double freq, double sample_s, double *probes_part);

/* Close an interval: add the forecast made for it (probes, sampling) to the
 * totals, then learn from what was observed: pts[i].calls is updated to
 * calls_now[i]; on_s[i] = seconds point i was enabled in the interval (NULL
 * = dt for all).  new_from: index where the points first seen in this
 * interval start (they are at the end of pts; their calls field is 0).
 * Pure. */
void hp_pred__close(struct hp_pred *p, struct hp_pred_point *pts, size_t n, size_t new_from,
		    const uint64_t *calls_now, const double *on_s, double dt,
		    double forecast_probes, double forecast_sampling);

/* ---- runtime side (calib/cost_rt.c) ------------------------------------ */

/* Register the section writer (HP_SEC_COST, and HP_SEC_BUDGET through
 * calib/budget.h), the summary hook, the fork handler, and start the cost
 * controller thread (interval predictions, the budget).  Call once after
 * calibration and counting are set up.  Returns 0 or -errno.  Not
 * signal-safe. */
int hp_cost_init(void);

/* Restart the controller that a profile write stopped, when the program
 * goes on after all (a failed exec).  Not signal-safe. */
void hp_cost_resume(void);

/* The program could not create a thread (RLIMIT_NPROC): stop the controller
 * for good so its task is the program's; predictions and the budget stay as
 * they were.  Returns 1 if it was running and has left its loop (the task
 * ends a moment later), else 0.  Not signal-safe. */
int hp_cost_yield(void);

/* Totals of the whole process now (all threads, exited ones included).
 * Signal-safe (reads counters, clock_gettime). */
void hp_cost_now(struct hp_cost_in *in, struct hp_cost *out);

/* Summary hook for runtime/init.c: "overhead 3.1%..4.4% of 12.8 s
 * (predicted 2.9%)".  Returns the length written, 0 when nothing to say. */
int hp_cost_summary_hook(char *buf, size_t len);

#endif
