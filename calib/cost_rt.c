/* calib/cost_rt.c - the cost system in the runtime: totals of every thread,
 * section HP_SEC_COST, the exit summary's overhead range, and the cost
 * controller thread (interval predictions and the budget's intervals).
 *
 * The controller is one thread created with the real pthread_create (it is
 * not a thread of the program: never sampled, no probe state), all signals
 * blocked.  Every interval (5, 10, 20 ms after start, then every
 * HP_COST_TICK_MS) it reads every thread's probe tree and counters (reads
 * only: the owners keep writing), updates the probe points' observed rates,
 * closes the interval's prediction and opens the next, keeps statistics of
 * the observed cost per interval (Hollingsworth & Miller, Fig. 4), and runs
 * the budget (calib/budget_rt.c).  Its own CPU time is measured and counted
 * as measurement cost ("control").
 *
 * Measurement code for the sampler: at start-up the whole executable text
 * of libhyprof.so and the PLT entries through which programs call
 * __cyg_profile_func_enter/exit are registered as measurement ranges, so a
 * sample in a helper the probes call (hp_thread_self, cct__child) or in the
 * PLT stub counts as direct probe cost instead of program time.
 *
 * Live snapshots (runtime/live.c, `hyprof watch`): the section writer is
 * registered as a live one, so every snapshot carries the cost so far.  In a
 * snapshot it only reads (the controller keeps running); only the final
 * write stops the controller.  The snapshots' own CPU time
 * (hp_live_cost_ns()) is measurement cost: part of `fixed` (key `live`) and
 * of the budget's whole-run cost.
 *
 * Signal-safe: hp_cost_now(), the section writer and hp_cost_summary_hook's
 * arithmetic (no malloc, no stdio, no locks; reads counters).  The rest is
 * not (set-up, the controller thread).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "calib/budget.h"
#include "runtime/lifecycle.h"
#include "calib/calib.h"
#include "calib/cost.h"
#include "counting/counting.h"
#include "calib/cost_priv.h"
#include "core/format.h"
#include "runtime/live.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/sampler.h"

#define HP_COST_TICK_MS 50

struct hp_cost_points hp_cpts;

static struct {
	int inited;
	int running;             /* controller thread started */
	int yielded;             /* stopped for good (hp_cost_yield), in children too */
	volatile int stop;       /* asks the controller to stop (profile written) */
	volatile int in_tick;    /* the controller is inside a tick */
	pthread_t thread;
	clockid_t ctl_clock;     /* the controller's CPU clock */
	int ctl_clock_ok;
	double startup_s;        /* process CPU time when the runtime was set up */
	double ctl_prev_s;       /* controller CPU at the last tick */
	double live_prev_s;      /* live snapshots' CPU at the last tick */
	double ctl_final_s;      /* controller CPU when it stopped */
	uint64_t start_ns;       /* CLOCK_MONOTONIC of the first interval's start */
	uint64_t last_ns;        /* end of the last interval */
	double cpu_prev_s;       /* process CPU time at the last tick */
	/* prediction */
	struct hp_pred pred;
	double next_probes, next_sampling; /* forecast rates (s/s) of the open interval */
	double next_mpi;         /* the MPI wrappers' forecast rate (s/s): last interval's */
	double pred_mpi;         /* their predicted cost, summed over closed intervals */
	double mpi_prev_s;       /* their cost at the last tick */
	double cpu_rate;         /* the process's CPU seconds per second, last interval */
	/* totals at the last tick, for interval deltas */
	uint64_t prev_events, prev_meas_period, prev_taken, prev_handler, prev_skips;
	/* observed cost per interval, as a fraction of the interval's CPU time */
	uint32_t nint;
	double rate_sum, rate_sq, rate_max;
	double kappa;            /* direct / ideal of the probes so far (>= 1) */
	double work_rate;        /* the program's own CPU s/s, smoothed */
	int debug;               /* HYPROF_BUDGET_DEBUG: one log line per interval */
	uint32_t meas_ranges;    /* measurement ranges registered */
} C;

/* ---- clocks ------------------------------------------------------------ */

static double ts_s(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	return clock_gettime(id, &ts) == 0 ? ts_s(&ts) : 0.0;
}

/* The controller's CPU time so far (from any thread).  Signal-safe. */
static double control_s(void)
{
	if (!C.running)
		return C.ctl_final_s;
	if (!C.ctl_clock_ok)
		return C.ctl_prev_s;
	double s = clock_s(C.ctl_clock);
	return s > 0 ? s : C.ctl_prev_s;
}

/* ---- totals of every thread -------------------------------------------- */

struct totals {
	uint64_t events, meas_samples, meas_period, mpi_samples, mpi_period, period, taken, handler;
	uint32_t live;
};

static void gather_totals(struct totals *tt)
{
	memset(tt, 0, sizeof(*tt));
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		tt->events += t->probe_events;
		tt->meas_samples += t->meas_samples;
		tt->meas_period += t->meas_period;
		tt->mpi_samples += t->mpi_samples;
		tt->mpi_period += t->mpi_period;
		tt->handler += t->handler_cycles;
		uint64_t taken = t->samples + t->meas_samples + t->mpi_samples;
		for (int i = 0; i < HP_DROP_NREASONS; i++)
			taken += t->dropped[i];
		tt->taken += taken;
		tt->live += !t->exited;
	}
}

/* Seconds seen by sampling in `period` of the samples: software clocks
 * count nanoseconds; for an event count (hardware cycles) the share of the
 * period is taken of the CPU time. */
static double sampled_s(uint64_t period, double cpu_s, uint64_t total_period)
{
	if (!strcmp(hp_rt.source_unit, "ns"))
		return (double)period * 1e-9;
	return total_period ? (double)period / (double)total_period * cpu_s : 0.0;
}

/* The MPI wrappers' costs (libhyprof_mpi.so registers the source when it
 * starts; none without it). */
static void (*mpi_costs)(struct hp_mpi_cost *out);

HP_EXPORT void hp_cost_set_mpi_source(void (*fn)(struct hp_mpi_cost *out))
{
	__atomic_store_n(&mpi_costs, fn, __ATOMIC_RELEASE);
}

/* The wrappers' costs now, in seconds (zeros without them).  Returns 1
 * when the wrappers are there. */
static int mpi_read(struct hp_mpi_cost *m)
{
	void (*mc)(struct hp_mpi_cost *) = __atomic_load_n(&mpi_costs, __ATOMIC_ACQUIRE);
	memset(m, 0, sizeof(*m));
	if (!mc)
		return 0;
	mc(m);
	return 1;
}

/* The wrappers' running cost (bookkeeping and piggyback; their start-up is
 * not predicted, as the runtime's is not), 0 without them. */
static double mpi_running_s(void)
{
	struct hp_mpi_cost m;
	mpi_read(&m);
	return m.wrappers_s + m.piggyback_s;
}

/* TSC cycles per second: the calibration's, else the runtime's estimate. */
static double run_tsc_hz(void)
{
	return hp_calib.tsc_hz > 0 ? hp_calib.tsc_hz : hp_rt.tsc_hz;
}

/* Calibrated cost of one probe pair in the mode that ran, seconds.  In
 * measured mode the probes recalibrate in situ (counting/probe.c), and
 * compensation removes each pair at the cost measured while it ran: the
 * ideal cost takes the same mean.  The start-up calibration can sit well
 * above it (52.6 ns at start-up, 37.3 ns in 426 in-situ bursts, in one run
 * of bench/cost's threads: the range then missed the timed overhead). */
static double pair_s(void)
{
	switch (hp_rt.cfg.mode) {
	case HP_MODE_HYBRID:
		return hp_calib.count_probe.median * 1e-9;
	case HP_MODE_MEASURED: {
		double hz = run_tsc_hz();
		double m = hp_counting_pair_mean_cycles();
		if (m > 0 && hz > 0)
			return m / hz;
		return hp_calib.timed_probe.median * 1e-9;
	}
	}
	return 0.0;
}

static uint64_t sample_period_total(void)
{
	uint64_t p = 0;
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		uint32_t n = t->sample.nodes ? __atomic_load_n(&t->sample.n, __ATOMIC_ACQUIRE) : 0;
		for (uint32_t i = 0; i < n && i < t->sample.cap; i++)
			p += t->sample.nodes[i].period;
		p += t->meas_period + t->mpi_period;
	}
	return p;
}

/* Forecast of the interval still open (last tick .. now): part of the
 * prediction when the profile is written between two ticks. */
static double open_forecast(uint64_t now)
{
	if (!C.last_ns || now <= C.last_ns)
		return 0;
	return (C.next_probes + C.next_sampling + C.next_mpi) * (double)(now - C.last_ns) * 1e-9;
}

void hp_cost_now(struct hp_cost_in *in, struct hp_cost *out)
{
	struct totals tt;
	gather_totals(&tt);
	memset(in, 0, sizeof(*in));
	uint64_t now = hp_now_ns();
	uint64_t end = hp_rt.end_ns ? hp_rt.end_ns : now;
	in->mode = hp_rt.cfg.mode;
	in->run_s = end > hp_rt.start_ns ? (double)(end - hp_rt.start_ns) * 1e-9 : 0;
	in->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	in->probe_events = tt.events;
	uint64_t roots = 0, nested = 0;
	hp_budget_skips(&roots, &nested);
	in->skipped_events = roots + nested;
	in->pair_s = pair_s();
	in->skip_pair_s = hp_budget_skip_pair_s();
	uint64_t total_period = strcmp(hp_rt.source_unit, "ns") ? sample_period_total() : 0;
	in->direct_s = sampled_s(tt.meas_period, in->cpu_s, total_period);
	in->direct_samples = tt.meas_samples;
	struct hp_mpi_cost m;
	in->mpi = mpi_read(&m);
	in->mpi_wrap_s = m.wrappers_s;
	in->mpi_pb_s = m.piggyback_s;
	in->mpi_init_s = m.init_s;
	in->mpi_induced_s = m.induced_wait_s;
	in->mpi_sampled_s = sampled_s(tt.mpi_period, in->cpu_s, total_period);
	in->mpi_samples = tt.mpi_samples;
	in->samples_taken = tt.taken;
	/* Start-up calibration measures the kernel's part of a sample (a signal
	 * round trip with an empty handler); this run's handler is measured. */
	const struct hp_dist *sd = hp_calib.sample_kernel.n ? &hp_calib.sample_kernel
							    : &hp_calib.sample;
	in->sample_s = sd->median * 1e-9;
	in->sample_err_s = hp_dist_median_err(sd) * 1e-9;
	in->sample_kernel_only = hp_calib.sample_kernel.n > 0;
	double hz = run_tsc_hz();
	in->handler_s = hz > 0 ? (double)tt.handler / hz : 0;
	in->startup_s = C.startup_s;
	in->control_s = control_s();
	in->live_s = (double)hp_live_cost_ns() * 1e-9;
	in->predicted_s = C.pred.total + C.pred_mpi + open_forecast(now);
	in->z = HP_COST_Z;
	hp_cost_compute(in, out);
}

/* ---- HP_SEC_COST ---------------------------------------------------------- */

static int kv_f(struct hp_writer *w, const char *k, double v, int rc)
{
	return rc ? rc : hp_writer_kv_f64(w, k, v);
}

static int kv_u(struct hp_writer *w, const char *k, uint64_t v, int rc)
{
	return rc ? rc : hp_writer_kv_u64(w, k, v);
}

static int cost_write(struct hp_writer *w, void *arg)
{
	(void)arg;
	/* The final write stops the controller here: what follows reads its
	 * tables.  A live snapshot must not stop it (the run goes on): it reads
	 * the tables while the controller may be updating them, which costs at
	 * most one interval's staleness in a snapshot (every value is one
	 * aligned 8-byte word). */
	if (!hp_writing_snapshot()) {
		C.stop = 1;
		for (int i = 0; i < 2000 && C.in_tick; i++) {
			struct timespec ts = {0, 50000};
			nanosleep(&ts, NULL);
		}
	}
	struct hp_cost_in in;
	struct hp_cost c;
	hp_cost_now(&in, &c);
	int rc = hp_writer_begin(w, HP_SEC_COST);
	rc = rc ? rc : hp_writer_kv_str(w, "mode", hp_mode_name(hp_rt.cfg.mode));
	rc = kv_f(w, "run_time", c.run, rc);
	rc = kv_f(w, "cpu_time", c.cpu, rc);
	rc = kv_f(w, "direct", c.direct, rc);
	rc = kv_f(w, "direct_err", c.direct_err, rc);
	rc = kv_f(w, "ideal", c.ideal, rc);
	rc = kv_f(w, "cache", c.cache, rc);
	rc = kv_f(w, "probes", c.probes_low, rc);
	rc = kv_f(w, "probes.high", c.probes_high, rc);
	rc = kv_f(w, "sampling", c.sampling, rc);
	rc = kv_f(w, "sampling.low", c.sampling_low, rc);
	rc = kv_f(w, "sampling.high", c.sampling_high, rc);
	rc = kv_f(w, "sampling.measured", c.sampling_measured, rc);
	rc = kv_f(w, "sampling.ideal", c.sampling_ideal, rc);
	rc = kv_f(w, "sampling.err", c.sampling_err, rc);
	rc = kv_f(w, "startup", in.startup_s, rc);
	rc = kv_f(w, "control", in.control_s, rc);
	rc = kv_f(w, "live", in.live_s, rc);
	rc = kv_f(w, "fixed", c.fixed, rc);
	if (in.mpi) { /* the MPI wrappers' part: only where they run */
		rc = kv_f(w, "mpi.low", c.mpi_low, rc);
		rc = kv_f(w, "mpi.high", c.mpi_high, rc);
		rc = kv_f(w, "mpi.wrappers", in.mpi_wrap_s, rc);
		rc = kv_f(w, "mpi.piggyback", in.mpi_pb_s, rc);
		rc = kv_f(w, "mpi.init", in.mpi_init_s, rc);
		rc = kv_f(w, "mpi.sampled", in.mpi_sampled_s, rc);
		rc = kv_f(w, "mpi.induced_wait", in.mpi_induced_s, rc);
		rc = kv_u(w, "mpi.samples", in.mpi_samples, rc);
	}
	rc = kv_f(w, "low", c.low, rc);
	rc = kv_f(w, "high", c.high, rc);
	rc = kv_f(w, "predicted", c.predicted, rc);
	rc = kv_f(w, "predicted.probes", C.pred.probes, rc);
	rc = kv_f(w, "predicted.sampling", C.pred.sampling, rc);
	if (in.mpi)
		rc = kv_f(w, "predicted.mpi", C.pred_mpi, rc);
	rc = kv_u(w, "predicted.intervals", C.pred.intervals, rc);
	rc = kv_f(w, "predicted.guess_rate", C.pred.guess_rate, rc);
	static const char *const fk[] = {"frac.direct", "frac.ideal", "frac.cache", "frac.probes",
					 "frac.sampling", "frac.low", "frac.high", "frac.predicted"};
	double fv[] = {c.direct, c.ideal, c.cache, c.probes_low, c.sampling, c.low, c.high,
		       c.predicted};
	for (size_t i = 0; i < sizeof(fv) / sizeof(fv[0]); i++)
		rc = kv_f(w, fk[i], hp_cost_frac(&c, fv[i]), rc);
	rc = kv_u(w, "probe_events", in.probe_events, rc);
	rc = kv_u(w, "skipped_events", in.skipped_events, rc);
	rc = kv_u(w, "meas_samples", in.direct_samples, rc);
	rc = kv_u(w, "samples_taken", in.samples_taken, rc);
	rc = kv_f(w, "pair_ns", in.pair_s * 1e9, rc);
	rc = kv_f(w, "skip_pair_ns", in.skip_pair_s * 1e9, rc);
	rc = kv_f(w, "sample_kernel_us", in.sample_s * 1e6, rc);
	rc = kv_f(w, "sample_kernel_us.err", in.sample_err_s * 1e6, rc);
	rc = kv_f(w, "handler_us", in.samples_taken ? in.handler_s / (double)in.samples_taken * 1e6
						     : 0.0, rc);
	rc = kv_u(w, "measurement_ranges", C.meas_ranges, rc);
	/* Ideal cost per controller interval, as a fraction of the CPU time of
	 * the interval: Hollingsworth & Miller's Fig. 4 columns. */
	double avg = C.nint ? C.rate_sum / C.nint : 0;
	double var = C.nint > 1 ? (C.rate_sq - C.nint * avg * avg) / (C.nint - 1) : 0;
	rc = kv_u(w, "intervals", C.nint, rc);
	rc = kv_f(w, "interval.avg", avg, rc);
	rc = kv_f(w, "interval.max", C.rate_max, rc);
	rc = kv_f(w, "interval.std", var > 0 ? __builtin_sqrt(var) : 0, rc);
	rc = kv_f(w, "kappa", C.kappa, rc);
	rc = kv_u(w, "points", hp_cpts.n, rc);
	rc = kv_u(w, "points_full", hp_cpts.full, rc);
	rc = rc ? rc : hp_writer_end(w);
	int rb = hp_budget_active() ? hp_budget_write(w) : 0;
	return rc ? rc : rb;
}

int hp_cost_summary_hook(char *buf, size_t len)
{
	struct hp_cost_in in;
	struct hp_cost c;
	hp_cost_now(&in, &c);
	return (int)hp_cost_summary(&c, buf, len);
}

/* ---- probe points ----------------------------------------------------------- */

static uint32_t key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

/* Index of the point for `key`, added if new; -1 when the table is full. */
static int point_of(uint64_t key, int region)
{
	uint32_t h = key_hash(key) & (HP_COST_HASH - 1);
	for (uint32_t i = 0; i < HP_COST_HASH; i++, h = (h + 1) & (HP_COST_HASH - 1)) {
		uint32_t v = hp_cpts.hash[h];
		if (v && hp_cpts.pred[v - 1].key == key)
			return (int)(v - 1);
		if (!v)
			break;
	}
	uint32_t n = hp_cpts.n;
	if (n >= HP_COST_MAXPTS) {
		hp_cpts.full++;
		return -1;
	}
	memset(&hp_cpts.pred[n], 0, sizeof(hp_cpts.pred[n]));
	memset(&hp_cpts.pol[n], 0, sizeof(hp_cpts.pol[n]));
	hp_cpts.pred[n].key = key;
	hp_cpts.pol[n].key = key;
	hp_cpts.pol[n].fixed = region;
	hp_cpts.pol[n].on = 1;
	hp_cpts.calls[n] = hp_cpts.meas[n] = hp_cpts.skips_prev[n] = 0;
	hp_cpts.on_s[n] = hp_cpts.on_total[n] = hp_cpts.off_total[n] = hp_cpts.rate_off[n] = 0;
	hp_cpts.enabled[n] = 1;
	hp_cpts.slot[n] = -1;
	hp_cpts.flags[n] = region ? HP_PT_REGION : 0;
	hp_cpts.hash[h] = n + 1;
	__atomic_store_n(&hp_cpts.n, n + 1, __ATOMIC_RELEASE);
	return (int)n;
}

static void *map_array(size_t n, size_t size)
{
	void *p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int points_init(void)
{
	const size_t N = HP_COST_MAXPTS;
	hp_cpts.pred = map_array(N, sizeof(*hp_cpts.pred));
	hp_cpts.pol = map_array(N, sizeof(*hp_cpts.pol));
	hp_cpts.calls = map_array(N, sizeof(*hp_cpts.calls));
	hp_cpts.meas = map_array(N, sizeof(*hp_cpts.meas));
	hp_cpts.on_s = map_array(N, sizeof(double));
	hp_cpts.on_total = map_array(N, sizeof(double));
	hp_cpts.off_total = map_array(N, sizeof(double));
	hp_cpts.enabled = map_array(N, sizeof(double));
	hp_cpts.rate_off = map_array(N, sizeof(double));
	hp_cpts.skips_prev = map_array(N, sizeof(uint64_t));
	hp_cpts.slot = map_array(N, sizeof(int16_t));
	hp_cpts.flags = map_array(N, sizeof(uint8_t));
	hp_cpts.hash = map_array(HP_COST_HASH, sizeof(uint32_t));
	if (!hp_cpts.pred || !hp_cpts.pol || !hp_cpts.calls || !hp_cpts.meas || !hp_cpts.on_s ||
	    !hp_cpts.on_total || !hp_cpts.off_total || !hp_cpts.enabled || !hp_cpts.rate_off ||
	    !hp_cpts.skips_prev || !hp_cpts.slot || !hp_cpts.flags || !hp_cpts.hash)
		return -ENOMEM;
	return 0;
}

static void points_reset(void)
{
	if (hp_cpts.hash)
		memset(hp_cpts.hash, 0, HP_COST_HASH * sizeof(uint32_t));
	hp_cpts.n = 0;
	hp_cpts.full = 0;
}

/* Sum every thread's probe-tree calls and probe-code samples per point.
 * Returns the number of points before this gather (new ones follow). */
static uint32_t gather_points(void)
{
	uint32_t before = hp_cpts.n;
	for (uint32_t i = 0; i < hp_cpts.n; i++)
		hp_cpts.calls[i] = hp_cpts.meas[i] = 0;
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		const struct cct *tr = &t->probe;
		if (!tr->nodes)
			continue;
		uint32_t n = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
		if (n > tr->cap)
			n = tr->cap;
		for (uint32_t i = 1; i < n; i++) {
			const struct cct_node *nd = &tr->nodes[i];
			uint32_t fl = nd->flags;
			if (fl & (CCT_F_REDIRECT | CCT_F_EXCLUDED))
				continue;
			int p = point_of(nd->key, (fl & CCT_F_REGION) != 0);
			if (p < 0)
				continue;
			hp_cpts.calls[p] += nd->calls;
			hp_cpts.meas[p] += nd->meas_samples;
		}
	}
	return before;
}

/* ---- the controller ---------------------------------------------------------- */

static void tick(uint64_t now)
{
	double dt = (double)(now - C.last_ns) * 1e-9;
	if (dt <= 0)
		return;
	uint32_t new_from = gather_points();
	uint32_t n = hp_cpts.n;
	struct totals tt;
	gather_totals(&tt);
	double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	double ctl = C.ctl_clock_ok ? clock_s(C.ctl_clock) : 0;
	double live = (double)hp_live_cost_ns() * 1e-9;
	double hz = run_tsc_hz();
	double pair = pair_s();
	uint64_t roots = 0, nested = 0;
	hp_budget_skips(&roots, &nested);


	/* What this interval cost, by the same model as the profile's range. */
	/* A sum may step back: an exited thread's counters move into the
	 * "[exited]" record (runtime/thread.c), read in between twice. */
#define HP_DELTA(a, b) ((a) > (b) ? (a) - (b) : 0)
	uint64_t d_events = HP_DELTA(tt.events, C.prev_events);
	uint64_t d_taken = HP_DELTA(tt.taken, C.prev_taken);
	uint64_t d_handler = HP_DELTA(tt.handler, C.prev_handler);
#undef HP_DELTA
	uint64_t d_skips = roots + nested - C.prev_skips;
	double ideal = (double)d_events * pair + (double)d_skips * hp_budget_skip_pair_s();
	double ksample = (hp_calib.sample_kernel.n ? hp_calib.sample_kernel.median
						   : hp_calib.sample.median) * 1e-9;
	double sampling = (double)d_taken * ksample + (hz > 0 ? (double)d_handler / hz : 0);
	double d_ctl = ctl - C.ctl_prev_s;
	if (d_ctl < 0)
		d_ctl = 0;
	/* Live snapshots are process CPU time too: measurement, not the
	 * program's work.  One lands in an interval every second or so: for the
	 * budget's floor (what the next interval will cost whatever is
	 * regulated) their average rate over the run, not this interval's. */
	double d_live = live - C.live_prev_s;
	if (d_live < 0)
		d_live = 0; /* the parent's counter, read before the fork handler reset it */
	double run_s = (double)(now - C.start_ns) * 1e-9;
	double live_rate = run_s > 0 && live > 0 ? live / run_s : 0;
	d_ctl += d_live;
	double d_cpu = cpu - C.cpu_prev_s;
	/* Close the interval's prediction (made as rates per second, for
	 * however long the interval turned out) and learn the observed rates:
	 * probe points' rates are per CPU second of the process, which stay
	 * put when the program gets less of a CPU (a shared machine). */
	hp_pred__close(&C.pred, hp_cpts.pred, n, new_from, hp_cpts.calls, hp_cpts.on_s,
		       d_cpu > 0 ? d_cpu : dt, C.next_probes * dt, C.next_sampling * dt);
	/* The MPI wrappers: predicted at the rate per CPU second they cost in
	 * the interval before (none in the first: no call was known) */
	double mpi_now = mpi_running_s();
	double d_mpi = mpi_now > C.mpi_prev_s ? mpi_now - C.mpi_prev_s : 0;
	C.pred_mpi += C.next_mpi * dt;
	C.mpi_prev_s = mpi_now;
	/* The program's own CPU rate for the budget: from the calibrated cost
	 * (scaled by kappa), which unlike the sampled one is not noisy over a
	 * 50 ms interval; smoothed over a few intervals. */
	double model = C.kappa * ideal + sampling + (d_ctl > 0 ? d_ctl : 0) + d_mpi;
	double wrate = d_cpu > model ? (d_cpu - model) / dt : 0;
	C.cpu_rate = d_cpu > 0 ? d_cpu / dt : 0;
	C.next_mpi = d_cpu > 0 ? d_mpi / d_cpu * C.cpu_rate : 0;
	C.work_rate = C.nint ? 0.7 * C.work_rate + 0.3 * wrate : wrate;
	/* Per-interval statistics use the ideal cost, as the paper's Fig. 4
	 * does: the sampled cost of a 50 ms interval is a handful of samples. */
	if (d_cpu > 0 && C.prev_taken + C.prev_events > 0) {
		double r = (ideal + sampling + (d_ctl > 0 ? d_ctl : 0)) / d_cpu;
		if (r > 1)
			r = 1;
		C.nint++;
		C.rate_sum += r;
		C.rate_sq += r * r;
		if (r > C.rate_max)
			C.rate_max = r;
	}
	/* kappa: how much more the probes cost than calibrated (cache misses),
	 * from all samples so far; used to scale the budget's estimates. */
	double tdirect = !strcmp(hp_rt.source_unit, "ns") ? (double)tt.meas_period * 1e-9 : 0;
	double tideal = (double)tt.events * pair + (double)(roots + nested) * hp_budget_skip_pair_s();
	C.kappa = 1;
	if (tt.meas_samples >= 30 && tideal > 0) {
		double k = tdirect / tideal;
		C.kappa = k < 1 ? 1 : k > 4 ? 4 : k;
	}
	/* Whole-run cost so far, by the profile's own model (point estimate:
	 * the larger of the sampled and the calibrated probe cost). */
	double cum_cost = C.startup_s + (tdirect > tideal ? tdirect : tideal) +
			  (double)tt.taken * ksample + (hz > 0 ? (double)tt.handler / hz : 0) +
			  (ctl > 0 ? ctl : 0) + live + mpi_now;

	C.prev_events = tt.events;
	C.prev_meas_period = tt.meas_period;
	C.prev_taken = tt.taken;
	C.prev_handler = tt.handler;
	C.prev_skips = roots + nested;
	C.cpu_prev_s = cpu;
	C.ctl_prev_s = ctl;
	C.live_prev_s = live;

	/* The budget decides who runs in the next interval. */
	double freq = !strcmp(hp_rt.source_unit, "ns") && hp_rt.period
			      ? 1e9 / (double)hp_rt.period
			      : (double)hp_rt.cfg.freq;
	/* Per sample: the calibrated kernel part plus this run's mean handler
	 * time.  The first samples pay one-time costs (the unwinder reads the
	 * process's maps and DWARF tables): until 50 samples, at most 20 us. */
	double handler_mean = tt.taken && hz > 0 ? (double)tt.handler / hz / (double)tt.taken : 0;
	if (tt.taken < 50 && handler_mean > 20e-6)
		handler_mean = 20e-6;
	double per_sample = ksample + handler_mean;
	for (uint32_t i = 0; i < n; i++) {
		hp_cpts.on_s[i] = 1e30; /* enabled all the next interval... */
		hp_cpts.enabled[i] = 1; /* ...unless the budget says otherwise */
	}
	if (hp_budget_active()) {
		struct hp_cost_interval iv = {
			.dt = dt,
			.now_s = (double)(now - C.start_ns) * 1e-9,
			.work = C.work_rate,
			/* what no regulation removes: sampling, the controller,
			 * live snapshots, and the MPI wrappers (their bookkeeping
			 * and piggyback, at the last interval's rate) */
			.floor = C.cpu_rate * freq * per_sample + (d_ctl - d_live) / dt + live_rate + C.next_mpi,
			.pair_s = pair,
			.cpu_rate = C.cpu_rate,
			.dcpu = d_cpu,
			.kappa = C.kappa,
			.cum_cost = cum_cost,
			.cum_work = cpu > cum_cost ? cpu - cum_cost : 0,
			.new_from = new_from,
		};
		hp_budget_tick(&iv);
	}

	/* Forecast the next interval from what is known now, as costs per
	 * second: the CPU seconds per second of the last interval, run at the
	 * points' rates per CPU second. */
	double probes = 0;
	double f = hp_pred__forecast(&C.pred, hp_cpts.pred, n, hp_cpts.enabled, C.cpu_rate, pair,
				     1.0, hp_rt.source ? freq : 0, per_sample, &probes);
	double samp = f - probes;
	/* Regulated points still cost their skipped calls. */
	double skip = hp_budget_skip_pair_s();
	for (uint32_t i = 0; i < n && skip > 0; i++) {
		double off = 1 - hp_cpts.enabled[i];
		if (off > 0)
			probes += off * hp_cpts.pred[i].rate * C.cpu_rate * skip;
	}
	C.next_probes = probes;
	C.next_sampling = samp;
	C.last_ns = now;
	if (C.debug)
		hp_log("cost t=%lu ms: cpu rate %lu/1000, per sample %lu ns, forecast probes %lu us/s "
		       "sampling %lu us/s, predicted so far %lu us",
		       (unsigned long)((now - C.start_ns) / 1000000), (unsigned long)(C.cpu_rate * 1000),
		       (unsigned long)(per_sample * 1e9), (unsigned long)(probes * 1e6),
		       (unsigned long)(samp * 1e6), (unsigned long)(C.pred.total * 1e6));
}

static void *controller(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	hp_sigmask_real(SIG_BLOCK, &all, NULL);
	C.ctl_prev_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
	/* First intervals short, so a program that starts probe-heavy is
	 * regulated (and its prediction corrected) within milliseconds. */
	static const long first_ms[] = {5, 5, 10, 20};
	for (;;) {
		for (unsigned k = 0; !C.stop; k++) {
			long ms = k < sizeof(first_ms) / sizeof(first_ms[0]) ? first_ms[k] : HP_COST_TICK_MS;
			struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
			while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
				;
			if (C.stop)
				break;
			__atomic_store_n(&C.in_tick, 1, __ATOMIC_SEQ_CST);
			if (!C.stop)
				tick(hp_now_ns());
			__atomic_store_n(&C.in_tick, 0, __ATOMIC_SEQ_CST);
			/* main ended with pthread_exit and its last thread is gone:
			 * do what glibc does when the last thread exits (it counted
			 * us). */
			if (k % 4 == 3 && !C.stop && hp_only_helpers_left()) {
				C.running = 0;
				exit(0);
			}
		}
		C.ctl_final_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
		__atomic_store_n(&C.running, 0, __ATOMIC_SEQ_CST);
		/* hp_cost_resume() may have cleared stop while this thread was
		 * leaving: whichever of the two sets running first runs the
		 * controller, so there is always exactly one. */
		if (__atomic_load_n(&C.stop, __ATOMIC_SEQ_CST) ||
		    __atomic_exchange_n(&C.running, 1, __ATOMIC_SEQ_CST))
			break;
	}
	return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static int controller_spawn(pthread_create_fn real);

static int controller_start(void)
{
	static pthread_create_fn real;
	if (!real)
		real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!real)
		return -ENOSYS;
	C.stop = 0;
	C.start_ns = C.last_ns = hp_now_ns();
	C.cpu_prev_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	C.running = 1;
	return controller_spawn(real);
}

/* The controller thread itself; C.running is already 1 (cleared again if
 * the thread cannot be created). */
static int controller_spawn(pthread_create_fn real)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	/* Blocked from its first instruction (inherited), as the live thread:
	 * a process-directed signal of the program (SIGALRM of setitimer, a
	 * kill) must never run the program's handler on this thread. */
	sigset_t all, old;
	sigfillset(&all);
	hp_sigmask_real(SIG_SETMASK, &all, &old);
	int rc = real(&C.thread, &a, controller, NULL);
	hp_sigmask_real(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc) {
		__atomic_store_n(&C.running, 0, __ATOMIC_SEQ_CST);
		return -rc;
	}
	C.ctl_clock_ok = pthread_getcpuclockid(C.thread, &C.ctl_clock) == 0;
	pthread_setname_np(C.thread, "hyprof-cost");
	return 0;
}

static void state_reset(void)
{
	uint64_t now = hp_now_ns();
	hp_pred__init(&C.pred, HP_PRED_GUESS_RATE);
	C.next_probes = C.next_sampling = C.next_mpi = C.pred_mpi = 0;
	C.mpi_prev_s = mpi_running_s();
	C.prev_events = C.prev_meas_period = C.prev_taken = C.prev_handler = C.prev_skips = 0;
	C.nint = 0;
	C.rate_sum = C.rate_sq = C.rate_max = 0;
	C.kappa = 1;
	C.cpu_rate = 1;
	C.live_prev_s = (double)hp_live_cost_ns() * 1e-9;
	C.start_ns = C.last_ns = now;
	points_reset();
}

/* First interval's forecast: nothing observed, the stated guess. */
static void first_forecast(void)
{
	double freq = !strcmp(hp_rt.source_unit, "ns") && hp_rt.period ? 1e9 / (double)hp_rt.period
									: (double)hp_rt.cfg.freq;
	double ks = (hp_calib.sample_kernel.n ? hp_calib.sample_kernel.median : hp_calib.sample.median) *
		    1e-9;
	double probes = 0;
	double f = hp_pred__forecast(&C.pred, NULL, 0, NULL, 1.0, pair_s(), 1.0,
				     hp_rt.source ? freq : 0, ks, &probes);
	C.next_probes = probes;
	C.next_sampling = f - probes;
}

void hp_cost_resume(void)
{
	if (!C.inited || !C.stop || C.yielded)
		return;
	__atomic_store_n(&C.stop, 0, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&C.running, 1, __ATOMIC_SEQ_CST))
		return; /* the controller had not left yet: it goes on */
	pthread_create_fn real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!real || controller_spawn(real) != 0)
		hp_log("cost: the controller could not restart after the failed exec: "
		       "predictions and the budget stay as they were");
}

int hp_cost_yield(void)
{
	if (!C.inited)
		return 0;
	C.yielded = 1;
	if (!__atomic_load_n(&C.running, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&C.stop, 1, __ATOMIC_SEQ_CST);
	/* It leaves within one tick (50 ms) and then clears running. */
	for (int i = 0; i < 1000 && __atomic_load_n(&C.running, __ATOMIC_SEQ_CST); i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return !__atomic_load_n(&C.running, __ATOMIC_SEQ_CST);
}

static void after_fork_child(void)
{
	if (!C.inited)
		return;
	/* The parent's controller does not exist here; the child's trees were
	 * reset by the runtime: start over with the child's own data. */
	C.running = 0;
	C.in_tick = 0;
	state_reset();
	C.startup_s = 0; /* the child did not pay for start-up */
	hp_budget_after_fork_child();
	first_forecast();
	if (C.yielded) {
		C.stop = 1; /* as in the parent: the final write reads the tables */
		return;
	}
	if (controller_start() != 0)
		hp_log("cost: no controller thread in child %d: predictions stay at the guess",
		       (int)getpid());
}

/* ---- measurement ranges ------------------------------------------------------ */

/* The executable segment(s) of libhyprof.so itself. */
static int own_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t me = (uintptr_t)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (me < lo || me >= hi)
			continue;
		/* Found our object: register each executable segment. */
		for (int j = 0; j < info->dlpi_phnum; j++) {
			const ElfW(Phdr) *q = &info->dlpi_phdr[j];
			if (q->p_type == PT_LOAD && (q->p_flags & PF_X) &&
			    hp_register_measurement_range(info->dlpi_addr + q->p_vaddr,
							  info->dlpi_addr + q->p_vaddr + q->p_memsz, HP_MEAS_PROBES) == 0)
				C.meas_ranges++;
		}
		return 1;
	}
	return 0;
}

/* PLT entries (16 bytes, "jmp *GOT(%rip)" first, possibly after endbr64 and
 * a bnd prefix) whose GOT slot is the jump slot of a probe symbol. */
static void plt_scan(uintptr_t lo, uintptr_t hi, const uintptr_t *got, int ngot)
{
	for (uintptr_t p = lo & ~(uintptr_t)15; p + 16 <= hi; p += 16) {
		const unsigned char *c = (const unsigned char *)p;
		for (int off = 0; off <= 6; off++) {
			const unsigned char *j = c + off;
			int pre = j[0] == 0xf2 ? 1 : 0; /* bnd */
			if (j[pre] != 0xff || j[pre + 1] != 0x25)
				continue;
			int32_t rel;
			memcpy(&rel, j + pre + 2, 4);
			uintptr_t target = (uintptr_t)(j + pre + 6) + (intptr_t)rel;
			for (int g = 0; g < ngot; g++)
				if (target == got[g] && hp_register_measurement_range(p, p + 16, HP_MEAS_PROBES) == 0)
					C.meas_ranges++;
			break;
		}
	}
}

/* Section headers of the object's file: the ranges of .plt and .plt.sec. */
static int plt_sections(const char *path, uintptr_t base, uintptr_t *lo, uintptr_t *hi, int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int n = 0;
	ElfW(Ehdr) eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0 || eh.e_shnum > 4096 ||
	    eh.e_shstrndx >= eh.e_shnum)
		goto out;
	static ElfW(Shdr) sh[4096];
	size_t bytes = (size_t)eh.e_shnum * sizeof(ElfW(Shdr));
	if (pread(fd, sh, bytes, (off_t)eh.e_shoff) != (ssize_t)bytes)
		goto out;
	char names[4096];
	const ElfW(Shdr) *ss = &sh[eh.e_shstrndx];
	size_t nl = ss->sh_size < sizeof(names) - 1 ? ss->sh_size : sizeof(names) - 1;
	if (pread(fd, names, nl, (off_t)ss->sh_offset) != (ssize_t)nl)
		goto out;
	names[nl] = 0;
	for (int i = 0; i < eh.e_shnum && n < max; i++) {
		if (sh[i].sh_name >= nl)
			continue;
		const char *nm = names + sh[i].sh_name;
		if (!strcmp(nm, ".plt") || !strcmp(nm, ".plt.sec")) {
			lo[n] = base + sh[i].sh_addr;
			hi[n] = lo[n] + sh[i].sh_size;
			n++;
		}
	}
out:
	close(fd);
	return n;
}

static int probe_plts(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	uintptr_t jmprel = 0, symtab = 0, strtab = 0;
	size_t relsz = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
		case DT_PLTRELSZ: relsz = d->d_un.d_val; break;
		case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
		case DT_STRTAB: strtab = d->d_un.d_ptr; break;
		}
	}
	if (!jmprel || !relsz || !symtab || !strtab)
		return 0;
	/* glibc relocates these tags in place for most objects, not for the
	 * vdso; an address below the load bias is still file-relative. */
	if (jmprel < info->dlpi_addr)
		jmprel += info->dlpi_addr;
	if (symtab < info->dlpi_addr)
		symtab += info->dlpi_addr;
	if (strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	uintptr_t got[2];
	int ngot = 0;
	const ElfW(Rela) *r = (const ElfW(Rela) *)jmprel;
	for (size_t i = 0; i < relsz / sizeof(*r) && ngot < 2; i++) {
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT)
			continue;
		const ElfW(Sym) *s = (const ElfW(Sym) *)symtab + ELF64_R_SYM(r[i].r_info);
		const char *nm = (const char *)strtab + s->st_name;
		if (!strcmp(nm, "__cyg_profile_func_enter") || !strcmp(nm, "__cyg_profile_func_exit"))
			got[ngot++] = info->dlpi_addr + r[i].r_offset;
	}
	if (!ngot)
		return 0;
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	uintptr_t lo[4], hi[4];
	int ns = plt_sections(path, info->dlpi_addr, lo, hi, 4);
	for (int i = 0; i < ns; i++)
		plt_scan(lo[i], hi[i], got, ngot);
	return 0;
}

/* ---- set-up -------------------------------------------------------------------- */

int hp_cost_init(void)
{
	if (C.inited || !hp_rt.initialized)
		return 0;
	C.inited = 1;
	C.startup_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	C.debug = hp_rt.cfg.budget_debug; /* HYPROF_BUDGET_DEBUG */
	int rc = points_init();
	if (rc) {
		hp_log("cost: cannot map the probe-point table (%s): no prediction, no budget",
		       strerror(-rc));
		return rc;
	}
	dl_iterate_phdr(own_text, (void *)(uintptr_t)hp_cost_init);
	dl_iterate_phdr(probe_plts, NULL);
	state_reset();
	rc = hp_budget_init();
	if (rc)
		hp_log("cost: the overhead budget is off (%s)", strerror(-rc));
	first_forecast();
	/* Also in live snapshots (the cost so far); cost_write() stops the
	 * controller only in the final write. */
	if (hp_register_live_section_writer(cost_write, NULL) != 0)
		hp_register_section_writer(cost_write, NULL);
	hp_set_summary_hook(hp_cost_summary_hook);
	pthread_atfork(NULL, NULL, after_fork_child);
	rc = controller_start();
	if (rc)
		hp_log("cost: no controller thread (%s): predictions stay at the guess%s", strerror(-rc),
		       hp_budget_active() ? ", the budget cannot regulate" : "");
	return 0;
}

/* Until runtime/init.c calls hp_cost_init() at the end of its start-up,
 * start it from here: hp_runtime_start() is idempotent (pthread_once). */
void hp_runtime_start(void);
__attribute__((constructor)) static void cost_ctor(void)
{
	hp_runtime_start();
	hp_cost_init();
}
