/* calib/calib.c - calibration: what the timer, a probe pair and a sample
 * cost (ALGORITHMS.md sections 2 and 3), and the TSC frequency.
 *
 * Method.  The real probe bodies (counting/probe.c's calibration entry
 * points: the same code as __cyg_profile_func_enter/exit, dispatched on
 * their own mode word, called through the PLT) run around a null function
 * shaped like a -finstrument-functions one, with the calling thread's
 * probes pointed at a private thread state so the profile is not touched;
 * trials of K calls timed with the TSC; the same loop around a bare null
 * function is the baseline each trial subtracts, and the timer's own cost
 * is subtracted from every interval.
 * Each quantity is a distribution over trials: min, median, spread
 * (p90 - p10).
 *   timer        one TSC read (batches of back-to-back reads)
 *   count_probe  count-only enter+exit pair (hybrid mode)
 *   timed_probe  timed pair as an enclosing interval sees it (F)
 *   di           what a null function's own timed pair puts inside its own
 *                measured interval (its measured inclusive time)
 *   de           F - di: what each child's pair adds to its parent's
 *                exclusive time
 *   sample       one sample.  At start-up its kernel part: the delivery
 *                of a task-clock overflow measured by slowdown (calib/
 *                calib_sample.c), or where perf is refused a self-signal
 *                round trip (tgkill, empty handler, sigreturn), a lower
 *                bound; the handler part is added at exit from the run's
 *                own handler_cycles / samples.  `hyprof calibrate`
 *                measures the whole cost by slowdown of sampled children.
 * The injected test delay (HYPROF_TEST_PROBE_DELAY_NS) runs inside the
 * probes during calibration, so it is part of every probe cost measured.
 * hp_calib_burst() is the short form measured mode runs in situ
 * (counting/probe.c: in-situ recalibration).
 *
 * Not signal-safe, except hp_calib_write() (the section writer) and
 * hp_calib_burst() (probe context: no allocation, no lock).
 */
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "core/format.h"
#include "counting/counting.h"
#include "counting/counting_priv.h"
#include "runtime/writer.h"

#define NOINSTR __attribute__((no_instrument_function))

struct hp_calib hp_calib;

/* ---- distributions ---------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct hp_dist hp_dist_of(double *v, uint32_t n)
{
	struct hp_dist d = {0, 0, 0, n};
	if (n == 0)
		return d;
	qsort(v, n, sizeof(*v), cmp_double);
	d.min = v[0];
	d.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	d.spread = v[(uint32_t)(0.9 * (n - 1) + 0.5)] - v[(uint32_t)(0.1 * (n - 1) + 0.5)];
	return d;
}

double hp_dist_median_err(const struct hp_dist *d)
{
	if (d->n < 2 || !(d->spread > 0))
		return 0;
	return 1.2533 * (d->spread / 2.563) / sqrt((double)d->n);
}

/* ---- TSC frequency ---------------------------------------------------- */

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A (ns, tsc) pair read as close together as possible: the tightest of a
 * few attempts, TSC taken at the midpoint of two clock reads. */
static void clock_pair(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < 5; i++) {
		uint64_t a = mono_raw_ns(), c = hp_rdtsc(), b = mono_raw_ns();
		if (b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*tsc = c;
		}
	}
}

static double tsc_hz_cpuid(void)
{
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) < 0x15)
		return 0;
	__cpuid_count(0x15, 0, a, b, c, d);
	if (a == 0 || b == 0 || c == 0)
		return 0; /* crystal frequency not enumerated (common in VMs) */
	return (double)c * b / a;
}

static int tsc_invariant(void)
{
	unsigned a, b, c, d;
	if (__get_cpuid_max(0x80000000, NULL) < 0x80000007)
		return 0;
	__cpuid(0x80000007, a, b, c, d);
	return (d >> 8) & 1;
}

static double cpuinfo_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	char line[256];
	double mhz = 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "cpu MHz", 7) == 0) {
			const char *p = strchr(line, ':');
			if (p)
				mhz = strtod(p + 1, NULL);
			break;
		}
	fclose(f);
	return mhz;
}

/* Measure over `ms` milliseconds (sleeping, not spinning). */
static double tsc_hz_measure(unsigned ms)
{
	uint64_t n0 = 0, c0 = 0, n1 = 0, c1 = 0;
	clock_pair(&n0, &c0);
	struct timespec ts = {0, (long)ms * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	clock_pair(&n1, &c1);
	return n1 > n0 ? (double)(c1 - c0) * 1e9 / (double)(n1 - n0) : 0;
}

static uint64_t tsc_from_ns, tsc_from; /* clock pair at the start of a start-up calibration */

static void calib_tsc(struct hp_calib *out, int full)
{
	out->tsc_invariant = tsc_invariant();
	out->cpuinfo_mhz = cpuinfo_mhz();
	double hz = tsc_hz_cpuid();
	if (hz > 0 && !full) {
		out->tsc_hz = hz;
		snprintf(out->tsc_method, sizeof(out->tsc_method), "cpuid 0x15");
		out->tsc = (struct hp_dist){hz, hz, 0, 1};
		return;
	}
	/* Start-up: 2 ms now (error ~1e-4: two clock pairs of < 100 ns each),
	 * refined over the whole calibration by tsc_refine (~15 ms, ~1e-5)
	 * rather than sleeping for it.  Full: 7 of 20 ms, median. */
	uint32_t n = full ? 7 : 1;
	double v[7];
	if (!full)
		clock_pair(&tsc_from_ns, &tsc_from);
	for (uint32_t i = 0; i < n; i++)
		v[i] = tsc_hz_measure(full ? 20 : 2);
	out->tsc = hp_dist_of(v, n);
	out->tsc_hz = hz > 0 ? hz : out->tsc.median;
	snprintf(out->tsc_method, sizeof(out->tsc_method), "%s%s",
		 hz > 0 ? "cpuid 0x15 (measured checked)" : "measured vs CLOCK_MONOTONIC_RAW",
		 full ? " 7x20ms" : " 2ms");
}

/* Start-up without CPUID 0x15: the TSC frequency over the whole
 * calibration, from the clock pair calib_tsc took before it. */
static void tsc_refine(struct hp_calib *out)
{
	uint64_t ns, tsc;
	clock_pair(&ns, &tsc);
	if (!tsc_from_ns || ns < tsc_from_ns + 5000000 || tsc <= tsc_from)
		return;
	double hz = (double)(tsc - tsc_from) * 1e9 / (double)(ns - tsc_from_ns);
	out->tsc = (struct hp_dist){hz, hz, 0, 1};
	out->tsc_hz = hz;
	snprintf(out->tsc_method, sizeof(out->tsc_method),
		 "measured vs CLOCK_MONOTONIC_RAW over the calibration (%.0f ms)",
		 (double)(ns - tsc_from_ns) / 1e6);
}

/* ---- probe costs ------------------------------------------------------ */

static NOINSTR __attribute__((noinline)) void null_bare(void)
{
	__asm__ volatile("");
}

/* A null function instrumented the way -finstrument-functions does it:
 * the probes are called through the PLT (hp_calib_probe_* are exported),
 * with the function's address and its return address. */
static NOINSTR __attribute__((noinline)) void null_probed(void)
{
	hp_calib_probe_enter((void *)null_probed, __builtin_return_address(0));
	__asm__ volatile("");
	hp_calib_probe_exit((void *)null_probed, __builtin_return_address(0));
	__asm__ volatile(""); /* a call and a return, as instrumented code has: no tail call */
}

/* Called through a pointer read from memory, as a program reaches the real
 * probes through the PLT. */
static void (*volatile fn_bare)(void) = null_bare;
static void (*volatile fn_probed)(void) = null_probed;

/* Cycles per call of fn over k calls, timer cost removed. */
static NOINSTR double loop_cycles(void (*fn)(void), uint32_t k, double timer_cyc)
{
	uint64_t a = hp_tsc_fenced();
	for (uint32_t i = 0; i < k; i++)
		fn();
	uint64_t b = hp_tsc_fenced();
	double c = (double)(b - a) - timer_cyc;
	return (c > 0 ? c : 0) / k;
}

static NOINSTR double timer_batch(void)
{
	enum { B = 32 };
	uint64_t sink = 0;
	uint64_t a = hp_tsc_fenced();
	for (int i = 0; i < B; i++)
		sink += hp_rdtsc();
	uint64_t b = hp_tsc_fenced();
	__asm__ volatile("" : : "r"(sink));
	return (double)(b - a) / B;
}

static uint32_t private_node(struct hp_thread *t)
{
	return cct__find(&t->probe, CCT_ROOT, (uint64_t)(uintptr_t)null_probed);
}

struct trials {
	uint32_t n, k;
};

/* Run `mode` trials: per trial, the probed loop minus the bare loop (ns per
 * pair); in timed mode also the null function's own measured time (di). */
static int probe_trials(struct hp_thread *t, int mode, struct trials tr, double timer_cyc,
			double ns_per_cyc, double *pair, double *di)
{
	hp_calib_mode = hp_probe_mode_word(mode);
	fn_probed(); /* warm: insert the node, touch the lines */
	fn_bare();
	uint32_t node = private_node(t);
	/* The baseline is the median of the bare loops (stable, a few cycles
	 * per call), so an interrupt inside one bare loop cannot make a
	 * probed trial look cheaper than it is. */
	double bare[64];
	uint32_t nb = tr.n < 64 ? tr.n : 64;
	for (uint32_t i = 0; i < nb; i++)
		bare[i] = loop_cycles(fn_bare, tr.k, timer_cyc);
	double base = hp_dist_of(bare, nb).median;
	for (uint32_t i = 0; i < tr.n; i++) {
		uint64_t incl0 = node != CCT_NONE ? t->probe.nodes[node].incl : 0;
		double probed = loop_cycles(fn_probed, tr.k, timer_cyc);
		uint64_t incl1 = node != CCT_NONE ? t->probe.nodes[node].incl : 0;
		double d = probed - base;
		pair[i] = (d > 0 ? d : 0) * ns_per_cyc;
		if (di)
			di[i] = (double)(incl1 - incl0) / tr.k * ns_per_cyc;
	}
	hp_calib_mode = HP_PM_OFF;
	return 0;
}

/* ---- in-situ bursts (probe context) ------------------------------------ */

static NOINSTR uint64_t median_u64(uint64_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) /* insertion sort: n is a handful */
		for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[n / 2];
}

static NOINSTR uint64_t loop_raw(void (*fn)(void), uint32_t k)
{
	uint64_t a = hp_tsc_fenced();
	for (uint32_t i = 0; i < k; i++)
		fn();
	return hp_tsc_fenced() - a;
}

int hp_calib_burst(struct hp_thread *priv, uint32_t k, uint32_t trials, uint64_t *pair,
		   uint64_t *di)
{
	enum { MAXT = 15 };
	uint64_t f[MAXT], d[MAXT];
	if (trials > MAXT)
		trials = MAXT;
	if (!trials || !k)
		return -EINVAL;
	/* Bursts of several threads may run at once: they all set the same
	 * word and leave it (only calibration calls the calibration entry
	 * points; the start-up and full calibrations, which set other words,
	 * run before any probe or in `hyprof calibrate`'s uninstrumented
	 * child). */
	hp_calib_mode = hp_probe_mode_word(HP_PM_TIMED);
	fn_probed(); /* the node exists and the lines are in the cache */
	uint32_t node = private_node(priv);
	if (node == CCT_NONE)
		return -ENOSPC;
	uint32_t n = 0;
	for (uint32_t i = 0; i < trials; i++) {
		/* Probed and bare loops interleaved, each timed with the same
		 * fenced reads (whose cost cancels in the difference). */
		uint64_t incl0 = priv->probe.nodes[node].incl;
		uint64_t p = loop_raw(fn_probed, k);
		uint64_t incl1 = priv->probe.nodes[node].incl;
		uint64_t b = loop_raw(fn_bare, k);
		if (p <= b || incl1 <= incl0)
			continue;
		f[n] = (p - b + k / 2) / k;
		d[n] = (incl1 - incl0 + k / 2) / k;
		n++;
	}
	if (n * 2 <= trials)
		return -EAGAIN; /* most trials were disturbed */
	*pair = median_u64(f, n);
	*di = median_u64(d, n);
	return 0;
}

/* ---- kernel part of a sample: self-signal round trip ------------------ */

static volatile sig_atomic_t sig_seen;

static NOINSTR void empty_handler(int sig)
{
	sig_seen++;
}

static void calib_signal(struct hp_calib *out, int sig, uint32_t n, double ns_per_cyc, double timer_cyc)
{
	sigset_t cur;
	struct sigaction sa, old;
	if (pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0 || sigismember(&cur, sig))
		return; /* blocked: would stay pending */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) != 0)
		return;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	double v[256];
	if (n > 256)
		n = 256;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n + 2; i++) {
		sig_atomic_t before = sig_seen;
		uint64_t a = hp_tsc_fenced();
		syscall(SYS_tgkill, pid, tid, sig);
		uint64_t b = hp_tsc_fenced();
		if (sig_seen != before && i >= 2) /* two warm-up rounds */
			v[k++] = ((double)(b - a) - timer_cyc) * ns_per_cyc;
	}
	sigaction(sig, &old, NULL);
	out->sample_kernel = hp_dist_of(v, k);
}

/* ---- the whole calibration -------------------------------------------- */

int hp_calib_measure(struct hp_calib *out, int full)
{
	uint64_t t0 = mono_raw_ns();
	struct hp_calib c;
	memset(&c, 0, sizeof(c));
	calib_tsc(&c, full);
	if (c.tsc_hz <= 0)
		return -EIO;
	double ns_per_cyc = 1e9 / c.tsc_hz;

	/* The probes run with the injected delay, if any. */
	hp_probe_setup_delay(c.tsc_hz);
	c.probe_delay_ns = (double)hp_rt.cfg.test_probe_delay_ns;

	struct trials tr = full ? (struct trials){501, 1000} : (struct trials){41, 200};
	/* A large injected delay makes each trial long (200 pairs of 200 us
	 * = 40 ms), and a trial that long is preempted on a busy machine, which
	 * inflates every measured cost.  Keep a trial's injected part near 1 ms:
	 * the median then comes from trials that ran undisturbed. */
	if (c.probe_delay_ns > 0) {
		double k = 1e6 / c.probe_delay_ns;
		if (k < 4)
			k = 4;
		if (k < tr.k)
			tr.k = (uint32_t)k;
	}
	uint32_t nt = full ? 2001 : 101;
	double *buf = malloc(sizeof(double) * (nt + 2 * tr.n));
	if (!buf)
		return -ENOMEM;
	double *a = buf, *b = buf + nt;

	for (uint32_t i = 0; i < 3; i++) /* warm */
		timer_batch();
	for (uint32_t i = 0; i < nt; i++)
		a[i] = timer_batch();
	struct hp_dist timer_cyc = hp_dist_of(a, nt);
	c.timer = (struct hp_dist){timer_cyc.min * ns_per_cyc, timer_cyc.median * ns_per_cyc,
				   timer_cyc.spread * ns_per_cyc, nt};

	/* A private thread state: its own tree and shadow stack. */
	struct hp_thread *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		free(buf);
		return -ENOMEM;
	}
	int rc = hp_counting_thread_init(t);
	if (rc == 0) {
		hp_probe_thr(t->stack)->no_recal = 1; /* measured here, not in situ */
		struct hp_thread *saved = hp_probe_swap_self(t);
		probe_trials(t, HP_PM_COUNT, tr, timer_cyc.median, ns_per_cyc, a, NULL);
		c.count_probe = hp_dist_of(a, tr.n);
		probe_trials(t, HP_PM_TIMED, tr, timer_cyc.median, ns_per_cyc, a, b);
		c.timed_probe = hp_dist_of(a, tr.n);
		/* de per trial = F - di of the same trial */
		for (uint32_t i = 0; i < tr.n; i++)
			a[i] = a[i] > b[i] ? a[i] - b[i] : 0;
		c.de = hp_dist_of(a, tr.n);
		c.di = hp_dist_of(b, tr.n);
		hp_probe_swap_self(saved);
		hp_probe_mem_unmap(t);
		cct__destroy(&t->probe);
	}
	munmap(t, sizeof(*t));

	/* The kernel's part of a sample: its delivery measured by slowdown
	 * (calib/calib_sample.c); the self-signal round trip, a lower bound,
	 * where perf_event_open is refused.  Both on a spare real-time signal,
	 * not the sampler's. */
	int csig = SIGRTMIN + 4 == hp_rt.cfg.signo ? SIGRTMIN + 5 : SIGRTMIN + 4;
	int drc = hp_calib_sample_delivery(&c.sample_kernel, full ? 41 : 9, ns_per_cyc, csig);
	if (drc == 0) {
		snprintf(c.sample_method, sizeof(c.sample_method), "%s",
			 "delivery of a 50 us task-clock overflow, by slowdown (handler part added from this run)");
	} else {
		calib_signal(&c, csig, full ? 201 : 21, ns_per_cyc, timer_cyc.median);
		snprintf(c.sample_method, sizeof(c.sample_method),
			 "self-signal round trip (lower bound: perf_event_open %s; handler part added from this run)",
			 drc == -EAGAIN ? "trials disturbed" : "refused");
	}
	c.sample = c.sample_kernel;
	free(buf);
	if (!full && strncmp(c.tsc_method, "measured", 8) == 0)
		tsc_refine(&c);

	c.duration_ms = (double)(mono_raw_ns() - t0) / 1e6;
	snprintf(c.method, sizeof(c.method), "%s", full ? "full" : "startup");
	c.piggyback = out->piggyback; /* filled by mpiwrap, keep */
	c.done = rc == 0;
	*out = c;
	return rc;
}

static int hp_calib_write(struct hp_writer *w, void *arg);

int hp_calib_startup(void)
{
	static int registered;
	int rc = 0;
	if (!registered) {
		registered = 1;
		/* Read-only: live snapshots (`hyprof watch`) carry it too. */
		if (hp_register_live_section_writer(hp_calib_write, NULL) != 0)
			hp_register_section_writer(hp_calib_write, NULL);
	}
	if (!hp_rt.cfg.calibrate) {
		uint64_t t0 = mono_raw_ns();
		memset(&hp_calib, 0, sizeof(hp_calib));
		hp_calib.tsc_hz = tsc_hz_cpuid();
		if (hp_calib.tsc_hz > 0) {
			snprintf(hp_calib.tsc_method, sizeof(hp_calib.tsc_method), "cpuid 0x15");
		} else {
			hp_calib.tsc_hz = tsc_hz_measure(2);
			snprintf(hp_calib.tsc_method, sizeof(hp_calib.tsc_method),
				 "measured vs CLOCK_MONOTONIC_RAW 2ms");
		}
		snprintf(hp_calib.method, sizeof(hp_calib.method), "skipped (HYPROF_CALIBRATE=0)");
		snprintf(hp_calib.sample_method, sizeof(hp_calib.sample_method), "not measured");
		hp_calib.duration_ms = (double)(mono_raw_ns() - t0) / 1e6;
	} else {
		/* Another process of this run calibrated on this host a moment
		 * ago (calib/calib_share.c): its figures, not ours again. */
		double share = hp_rt.cfg.calibrate_share;
		double delay = (double)hp_rt.cfg.test_probe_delay_ns;
		uint64_t t0 = mono_raw_ns();
		if (share > 0 && hp_calib_share_load(&hp_calib, hp_rt.out_dir, share, delay) == 0) {
			hp_probe_setup_delay(hp_calib.tsc_hz);
			hp_calib.duration_ms = (double)(mono_raw_ns() - t0) / 1e6;
		} else {
			rc = hp_calib_measure(&hp_calib, 0);
			if (rc == 0 && share > 0)
				hp_calib_share_save(&hp_calib, hp_rt.out_dir, delay);
		}
	}
	if (hp_rt.tsc_hz <= 0)
		hp_rt.tsc_hz = hp_calib.tsc_hz;
	return rc;
}

int hp_calib_full(void)
{
	return hp_calib_measure(&hp_calib, 1);
}

/* ---- HP_SEC_CALIB (docs/FORMAT.md "CALIB keys") ----------------------- */

/* Signal-safe: snprintf with %s only is not guaranteed signal-safe by
 * POSIX, so the keys are built with a tiny concatenation instead. */
static void cat3(char *d, size_t n, const char *a, const char *b)
{
	size_t i = 0;
	for (; *a && i + 1 < n; a++)
		d[i++] = *a;
	for (; *b && i + 1 < n; b++)
		d[i++] = *b;
	d[i] = '\0';
}

static int kv_dist_safe(struct hp_writer *w, const char *name, const struct hp_dist *d,
			double scale)
{
	char k[64];
	int rc;
	cat3(k, sizeof(k), name, ".min");
	rc = hp_writer_kv_f64(w, k, d->min * scale);
	cat3(k, sizeof(k), name, ".median");
	rc = rc ? rc : hp_writer_kv_f64(w, k, d->median * scale);
	cat3(k, sizeof(k), name, ".spread");
	rc = rc ? rc : hp_writer_kv_f64(w, k, d->spread * scale);
	cat3(k, sizeof(k), name, ".n");
	rc = rc ? rc : hp_writer_kv_u64(w, k, d->n);
	return rc;
}

static int hp_calib_write(struct hp_writer *w, void *arg)
{
	const struct hp_calib *c = &hp_calib;
	/* Refine the sample cost with this run's own handler time. */
	uint64_t hcyc = 0, nsamp = 0;
	for (struct hp_thread *t = hp_rt.threads; t; t = t->next) {
		hcyc += t->handler_cycles;
		nsamp += t->samples + t->meas_samples + t->mpi_samples;
	}
	double handler_ns = nsamp && c->tsc_hz > 0 ? (double)hcyc / nsamp * 1e9 / c->tsc_hz : 0;
	struct hp_dist sample = c->sample;
	const char *smethod = c->sample_method;
	if (nsamp && c->sample_kernel.n && strncmp(c->method, "full", 4) != 0) {
		sample.min += handler_ns;
		sample.median += handler_ns;
	}
	int rc = hp_writer_begin(w, HP_SEC_CALIB);
	rc = rc ? rc : hp_writer_kv_str(w, "method", c->method);
	rc = rc ? rc : hp_writer_kv_f64(w, "calib_ms", c->duration_ms);
	rc = rc ? rc : hp_writer_kv_f64(w, "tsc_hz", c->tsc_hz);
	rc = rc ? rc : hp_writer_kv_str(w, "tsc_hz.method", c->tsc_method);
	rc = rc ? rc : kv_dist_safe(w, "tsc_hz", &c->tsc, 1);
	rc = rc ? rc : hp_writer_kv_u64(w, "tsc_invariant", (uint64_t)c->tsc_invariant);
	rc = rc ? rc : hp_writer_kv_f64(w, "cpuinfo_mhz", c->cpuinfo_mhz);
	rc = rc ? rc : kv_dist_safe(w, "timer_ns", &c->timer, 1);
	rc = rc ? rc : kv_dist_safe(w, "count_probe_ns", &c->count_probe, 1);
	rc = rc ? rc : kv_dist_safe(w, "timed_probe_ns", &c->timed_probe, 1);
	rc = rc ? rc : kv_dist_safe(w, "di_ns", &c->di, 1);
	rc = rc ? rc : kv_dist_safe(w, "de_ns", &c->de, 1);
	rc = rc ? rc : kv_dist_safe(w, "sample_us", &sample, 1e-3);
	rc = rc ? rc : hp_writer_kv_str(w, "sample_us.method", smethod);
	rc = rc ? rc : kv_dist_safe(w, "sample_kernel_us", &c->sample_kernel, 1e-3);
	rc = rc ? rc : hp_writer_kv_f64(w, "sample_handler_us", handler_ns * 1e-3);
	rc = rc ? rc : hp_writer_kv_u64(w, "sample_handler_n", nsamp);
	if (c->piggyback.n)
		rc = rc ? rc : kv_dist_safe(w, "piggyback_us", &c->piggyback, 1e-3);
	rc = rc ? rc : hp_writer_kv_f64(w, "probe_delay_ns", c->probe_delay_ns);
	return rc ? rc : hp_writer_end(w);
}
