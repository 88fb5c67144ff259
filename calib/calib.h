/* calib/calib.h - calibrated costs (ALGORITHMS.md sections 2 and 3).
 *
 * Measured at start-up (within 50 ms) and by `hyprof calibrate`: real probes
 * run in a loop against null functions with warm caches, timed with the TSC,
 * the timer's own cost subtracted.  Every value is a distribution over
 * repeated measurements; the medians drive compensation and the cost model.
 */
#ifndef HYPROF_CALIB_CALIB_H
#define HYPROF_CALIB_CALIB_H

#include <stdint.h>

#include "runtime/state.h"

struct hp_dist {            /* one calibrated quantity, in nanoseconds */
	double min, median, spread; /* spread: (p90 - p10) */
	uint32_t n;
};

struct hp_calib {
	double tsc_hz;          /* TSC ticks per second */
	struct hp_dist timer;   /* one cycle-counter read */
	struct hp_dist count_probe; /* count-only enter+exit pair */
	struct hp_dist timed_probe; /* timed enter+exit pair */
	struct hp_dist di;      /* part of a timed probe pair inside its own interval */
	struct hp_dist de;      /* cost of accounting a child at its exit */
	struct hp_dist sample;  /* one sample (signal + unwind + insert), in ns */
	struct hp_dist piggyback; /* one MPI piggyback (filled by mpiwrap) */
	double duration_ms;     /* how long calibration took */
	int done;
	/* added by counting/calib (issue 3) */
	struct hp_dist sample_kernel; /* signal delivery outside the handler (lower bound) */
	struct hp_dist tsc;     /* tsc_hz measurements (Hz, not ns) when measured */
	double probe_delay_ns;  /* injected test delay included in the probe costs */
	char tsc_method[64];    /* "cpuid 0x15" | "measured vs CLOCK_MONOTONIC_RAW ..." */
	char method[64];        /* "startup" | "full" | "skipped (HYPROF_CALIBRATE=0)" */
	char sample_method[160];/* how `sample` was obtained */
	double cpuinfo_mhz;     /* /proc/cpuinfo "cpu MHz" of cpu0, for comparison */
	int tsc_invariant;      /* CPUID 0x80000007 EDX bit 8 */
};

/* Measure everything into `out` on the calling thread, with real probes on
 * a private thread state (the profile is not touched).  full=0: the start-up
 * budget (a few ms after the TSC frequency); full=1: ten times the trials
 * (`hyprof calibrate`).  Returns 0 or -errno.  Not signal-safe. */
HP_EXPORT int hp_calib_measure(struct hp_calib *out, int full);
/* In-situ burst (probe context: no allocation, no lock): `trials` trials
 * of k calls of the timed null function with its probes on the private
 * state `priv` (the caller points the thread's probes at it), interleaved
 * with bare loops.  Medians over the trials, in cycles: *pair = F (probed -
 * bare per call), *di = the null function's measured inclusive per call.
 * Returns 0, or -EAGAIN when most trials were disturbed (preemption). */
int hp_calib_burst(struct hp_thread *priv, uint32_t k, uint32_t trials, uint64_t *pair,
		   uint64_t *di);
/* Re-run with full=1 into hp_calib (so the profile carries the full values). */
HP_EXPORT int hp_calib_full(void);
/* Distribution of n values (sorted in place): min, median, p90-p10. */
struct hp_dist hp_dist_of(double *v, uint32_t n);

/* Standard error of d's median, from its spread as if normal: sd = (p90 -
 * p10) / 2.563, se = 1.2533 sd / sqrt(n); 0 for fewer than 2 values (a
 * single value says nothing of its error).  Pure. */
double hp_dist_median_err(const struct hp_dist *d);

HP_EXPORT extern struct hp_calib hp_calib;

/* The MPI wrappers' costs for the cost system's range (calib/cost_rt.c):
 * libhyprof_mpi.so registers `fn`, which fills, in seconds of this
 * process, what it charged as overhead: its bookkeeping (calls x
 * calibrated cost), piggyback work and delay exchanges (timed) and
 * start-up; and, with parallel compensation, the waiting the measurement
 * induced here: the raw waits minus the waits approximated without
 * measurement (positive net), time this process spent waiting for ranks
 * that measurement delayed. */
struct hp_mpi_cost {
	double wrappers_s, piggyback_s, init_s;
	double induced_wait_s;
};
HP_EXPORT void hp_cost_set_mpi_source(void (*fn)(struct hp_mpi_cost *out));

/* Delivery cost of one asynchronous sample (calib/calib_sample.c): trials
 * of a loop slowed by a 50 us task-clock overflowing into an empty handler
 * on signal sig.  Returns 0, or -errno when perf_event_open is refused or
 * most trials were disturbed (-EAGAIN).  Not signal-safe. */
int hp_calib_sample_delivery(struct hp_dist *out, uint32_t trials, double ns_per_cyc, int sig);

/* One start-up calibration per host for the processes of a run
 * (calib/calib_share.c): load the one left in dir by another process, at
 * most max_age_s old and made with the same injected probe delay (0, or
 * -errno: then calibrate), or leave this process's there.  Not
 * signal-safe. */
int hp_calib_share_load(struct hp_calib *out, const char *dir, double max_age_s,
			double probe_delay_ns);
void hp_calib_share_save(const struct hp_calib *c, const char *dir, double probe_delay_ns);

/* Calibrate what start-up needs.  Returns 0 or -errno.  Not signal-safe. */
int hp_calib_startup(void);

/* Cycles <-> seconds with the calibrated TSC frequency.  Signal-safe. */
static inline double hp_cycles_to_s(uint64_t c)
{
	return hp_calib.tsc_hz > 0 ? (double)c / hp_calib.tsc_hz : 0.0;
}

#endif
