/* counting/probe.c - the probes: __cyg_profile_func_enter/exit (GCC and
 * Clang -finstrument-functions) and the region API of include/hyprof.h.
 *
 * Probe context: every function here except the *_slow helpers' rare paths
 * runs inside every instrumented call of the program.  No malloc, no locks,
 * no stdio; the only shared memory written is the calling thread's own
 * struct hp_thread, probe tree and shadow stack (lock-free by construction).
 * The probes live in the "hyprof_probe" text section (HP_PROBE_TEXT) so a
 * sample landing in them is counted as measurement cost, and they are never
 * instrumented themselves (no_instrument_function, and the runtime is not
 * built with -finstrument-functions).
 *
 * Modes: hp_probe_g.mode is read once per probe.  Count (hybrid, tested
 * first): find the child, push a frame, calls++.  Off (sampled mode, before
 * hp_counting_init, after teardown): return after two predictable branches.
 * Timed (measured): also read the TSC as late as possible at entry and as
 * early as possible at exit, compensate each call (counting/comp.h), and
 * recalibrate in situ.
 */
/* No SLP vectorisation in the probes: GCC would pack adjacent 32-bit
 * fields (probe_cur and sp) through xmm registers, which
 * puts a cross-domain move on the load -> compare chain of the hot path. */
#pragma GCC optimize("no-tree-slp-vectorize")

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "calib/budget.h"
#include "calib/calib.h"
#include "counting/counting.h"
#include "counting/counting_priv.h"
#include "sampler/sampler.h"
#define HYPROF_RUNTIME_BUILD 1
#include "hyprof.h"

#define PROBE HP_PROBE_TEXT __attribute__((no_instrument_function, visibility("default")))
#define PROBE_HIDDEN HP_PROBE_TEXT __attribute__((no_instrument_function, visibility("hidden")))
#define PROBE_STATIC HP_PROBE_TEXT __attribute__((no_instrument_function))
#define NOINSTR __attribute__((no_instrument_function))

volatile int hp_calib_mode;

/* The calling thread's state for the probes: set at the thread's first
 * probe, once its probe memory is mapped, and never cleared (the state
 * outlives the thread).  It is the same struct as runtime/thread.c's
 * hp_thread_self(), read here as one initial-exec TLS load with no call;
 * NULL means "not set up yet": the general path sets it up.  Calibration
 * points it at a private state for the duration of its trials. */
static __thread struct hp_thread *probe_self __attribute__((tls_model("initial-exec")));

/* Recursion guard of the slow thread lookup: hp_thread_get() may call code
 * the program instrumented (an instrumented malloc, say); a probe entered
 * from there must not try to create the thread state again. */
static __thread int probe_in_slow __attribute__((tls_model("initial-exec")));

struct hp_thread *hp_probe_swap_self(struct hp_thread *t)
{
	struct hp_thread *old = probe_self;
	probe_self = t;
	return old;
}

void hp_probe_setup_delay(double tsc_hz)
{
	uint64_t ns = hp_rt.cfg.test_probe_delay_ns;
	uint64_t cyc = tsc_hz > 0 ? (uint64_t)((double)ns * tsc_hz / 1e9 + 0.5) : 0;
	/* Half before the enter probe reads the clock, half after the exit
	 * probe read it: the whole delay is outside the call's own interval
	 * and inside its parent's, like the real cost De of a probe pair. */
	hp_probe_g.delay_enter = cyc / 2;
	hp_probe_g.delay_exit = cyc - cyc / 2;
	if (cyc)
		hp_probe_g.slow |= HP_PS_DELAY;
	else
		hp_probe_g.slow &= ~(uint32_t)HP_PS_DELAY;
}

/* The thread state when probe_self is not set: find or create it (a thread
 * the runtime did not see start, a probe before the thread's set-up) and
 * cache it, or give up (before init, during teardown, or re-entered from
 * hp_thread_get()). */
static NOINSTR __attribute__((noinline)) struct hp_thread *probe_thread_slow(void)
{
	struct hp_thread *t = probe_self;
	if (t)
		return t;
	if (probe_in_slow || !hp_rt.initialized)
		return NULL;
	probe_in_slow = 1;
	t = hp_thread_get();
	if (t && (t->exited || (!t->stack && hp_counting_thread_init(t) != 0)))
		t = NULL;
	if (t)
		probe_self = t;
	probe_in_slow = 0;
	return t;
}

/* Filter and injected delay at entry.  Returns 1 when the call is filtered
 * out (nothing more to do). */
static inline __attribute__((always_inline)) int enter_slow_features(struct hp_thread *t,
								       uint64_t key,
								       uint32_t kind)
{
	if ((hp_probe_g.slow & HP_PS_FILTER) && kind == CCT_F_PROBE) {
		struct hp_filter_ent *e = hp_filter_find(key);
		if (e) {
			if (HP_UNLIKELY(!e->seen))
				hp_filter_hit(t, e, key, kind);
			return 1;
		}
	}
	if (hp_probe_g.slow & HP_PS_DELAY)
		hp_probe_spin(hp_probe_g.delay_enter);
	return 0;
}

/* ---- function probes ---------------------------------------------------
 *
 * Each public probe reads the mode word once.  Count (tested first) or
 * timed with the thread set up and the cached child matching: the inline
 * fast path, which makes no call (the other cases leave by a tail call to a
 * general body below, so the fast path saves no register).  Off: return
 * (one load, two predictable branches).  Everything else (cache miss, stack overflow,
 * exit mismatch, thread set-up, filter, injected delay) goes through the
 * general bodies, which handle every case.
 */

#define HP_RECAL_EVERY 4096u /* entries between two looks at the clock (measured mode) */
static void probe_recal(struct hp_thread *t);

/* General bodies, one per mode and direction (noinline: the fast paths
 * tail-call them). */
#define GENERAL_ENTER(NAME, M)                                                                  \
	static PROBE_STATIC __attribute__((noinline)) void NAME(uint64_t key, uint32_t kind)    \
	{                                                                                       \
		struct hp_thread *t = probe_self;                                               \
		if (HP_UNLIKELY(!t) && !(t = probe_thread_slow()))                              \
			return;                                                                 \
		if (HP_UNLIKELY(hp_probe_g.slow) && enter_slow_features(t, key, kind))          \
			return;                                                                 \
		hp_probe_enter_t(t, key, kind, (M) == HP_PM_TIMED);                             \
		if ((M) == HP_PM_TIMED && !(t->probe_events & (HP_RECAL_EVERY - 1)))            \
			probe_recal(t);                                                         \
	}
#define GENERAL_EXIT(NAME, M)                                                                   \
	static PROBE_STATIC __attribute__((noinline)) void NAME(uint64_t key, uint64_t now)     \
	{                                                                                       \
		struct hp_thread *t = probe_self;                                               \
		if (HP_UNLIKELY(!t) && !(t = probe_thread_slow()))                              \
			return;                                                                 \
		if (HP_UNLIKELY(hp_probe_g.slow & HP_PS_FILTER) && hp_filter_find(key))         \
			return;                                                                 \
		hp_probe_exit_t(t, key, (M) == HP_PM_TIMED, now);                               \
		if (HP_UNLIKELY(hp_probe_g.slow & HP_PS_DELAY))                                 \
			hp_probe_spin(hp_probe_g.delay_exit);                                   \
	}
GENERAL_ENTER(enter_count_general, HP_PM_COUNT)
GENERAL_ENTER(enter_timed_general, HP_PM_TIMED)
GENERAL_EXIT(exit_count_general, HP_PM_COUNT)
GENERAL_EXIT(exit_timed_general, HP_PM_TIMED)

/* ---- in-situ recalibration (measured mode) -------------------------------
 *
 * What a probe pair costs changes during a run on a shared machine: the
 * host changes the core clock and other tenants contend for the core (a
 * timed pair was measured at 44 ns and at 70 ns in the same minute, the
 * program's own work slowing down alike).  A start-up value would then be
 * wrong for most of the run.  So every HP_RECAL_EVERY entries a timed probe
 * checks the clock, and once per recal_period (HYPROF_RECAL_MS, 5 ms) it
 * runs a burst: the calibration's null function, timed on a private probe
 * state, on this thread, now (hp_calib_burst(): 3 trials of 16 pairs, ~8 us,
 * about 0.15% of the run).  The thread's F and Di become the burst's
 * medians; open intervals keep the F that was in effect when their inner
 * pairs ran (hp_probe_set_costs()).  The burst's own time is removed from
 * every open interval (their entry times move forward by it) and added to
 * the thread's overhead and delay.  Hybrid mode does not recalibrate (its
 * probes read no clock; their cost only feeds the overhead accounting). */
#define HP_RECAL_K 16u
#define HP_RECAL_TRIALS 3u

static NOINSTR __attribute__((noinline)) struct hp_thread *probe_priv_new(void)
{
	struct hp_thread *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (cct__init(&p->probe, 8) != 0) {
		munmap(p, sizeof(*p));
		return NULL;
	}
	if (hp_probe_mem_map(p) != 0) {
		cct__destroy(&p->probe);
		munmap(p, sizeof(*p));
		return NULL;
	}
	hp_probe_thr(p->stack)->no_recal = 1;
	return p;
}

static PROBE_STATIC __attribute__((noinline)) void probe_recal(struct hp_thread *t)
{
	struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	uint64_t t0 = hp_rdtsc();
	if (pt->no_recal || !hp_probe_g.recal_period || t0 - pt->last_recal < hp_probe_g.recal_period)
		return;
	if (!pt->priv && !(pt->priv = probe_priv_new())) {
		pt->no_recal = 1;
		return;
	}
	uint64_t h0 = t->comp_cycles;
	/* While probe_self is the burst's private state, a signal handler's
	 * instrumented calls would be recorded there and lost (and disturb the
	 * burst): signals wait the burst's few microseconds, every 5 ms. */
	sigset_t all, old;
	sigfillset(&all);
	int masked = pthread_sigmask(SIG_BLOCK, &all, &old) == 0;
	probe_self = pt->priv;
	uint64_t pair = 0, di = 0;
	int rc = hp_calib_burst(pt->priv, HP_RECAL_K, HP_RECAL_TRIALS, &pair, &di);
	probe_self = t;
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	uint64_t t1 = hp_rdtsc();
	/* The burst is no part of any interval: move the open ones' entry
	 * times past it (samples taken meanwhile are removed as sampler cost
	 * by the intervals, so not twice). */
	uint64_t d = t1 - t0, h = hp_sub0(t->comp_cycles, h0);
	d = d > h ? d - h : 0;
	hp_probe_exclude(t, d);
	t->overhead += d;
	t->delay += d;
	pt->recal_n++;
	pt->recal_cycles += d;
	pt->last_recal = t1;
	if (rc != 0)
		return;
	if (hp_probe_g.comp_on)
		hp_probe_set_costs(t, pair, pair, di);
	else
		hp_probe_set_costs(t, pair, 0, 0);
	if (!pt->pair_min || pair < pt->pair_min)
		pt->pair_min = pair;
	if (pair > pt->pair_max)
		pt->pair_max = pair;
}

/* Timed fast paths in their own functions (the count path stays free of
 * the registers they need). */
static PROBE_STATIC __attribute__((noinline)) void enter_timed(uint64_t key)
{
	struct hp_thread *t = probe_self;
	if (HP_LIKELY(t) && hp_probe_enter_hit(t, key, 1)) {
		if (HP_UNLIKELY(!(t->probe_events & (HP_RECAL_EVERY - 1))))
			probe_recal(t);
		return;
	}
	enter_timed_general(key, CCT_F_PROBE);
}

static PROBE_STATIC __attribute__((noinline)) void exit_timed(uint64_t key)
{
	uint64_t now = hp_rdtsc(); /* first */
	struct hp_thread *t = probe_self;
	if (HP_LIKELY(t) && hp_probe_exit_hit(t, key, 1, now))
		return;
	exit_timed_general(key, now);
}

/* The mode word M is dispatched: the count fast path inline, the rest by
 * tail calls. */
#define DISPATCH_ENTER(M, KEY)                                                                  \
	int m_ = (M);                                                                           \
	if (HP_LIKELY(m_ == HP_PM_COUNT)) {                                                     \
		struct hp_thread *t_ = probe_self;                                              \
		if (HP_LIKELY(t_) && hp_probe_enter_hit(t_, (KEY), 0))                          \
			return;                                                                 \
		enter_count_general((KEY), CCT_F_PROBE);                                        \
	} else if (HP_LIKELY(m_ == HP_PM_OFF)) {                                                \
		return;                                                                         \
	} else if (m_ == HP_PM_TIMED) {                                                         \
		enter_timed(KEY);                                                               \
	} else if ((m_ & HP_PM_MASK) == HP_PM_TIMED) {                                          \
		enter_timed_general((KEY), CCT_F_PROBE);                                        \
	} else {                                                                                \
		enter_count_general((KEY), CCT_F_PROBE);                                        \
	}

#define DISPATCH_EXIT(M, KEY)                                                                   \
	int m_ = (M);                                                                           \
	if (HP_LIKELY(m_ == HP_PM_COUNT)) {                                                     \
		struct hp_thread *t_ = probe_self;                                              \
		if (HP_LIKELY(t_) && hp_probe_exit_hit(t_, (KEY), 0, 0))                        \
			return;                                                                 \
		exit_count_general((KEY), 0);                                                   \
	} else if (HP_LIKELY(m_ == HP_PM_OFF)) {                                                \
		return;                                                                         \
	} else if (m_ == HP_PM_TIMED) {                                                         \
		exit_timed(KEY);                                                                \
	} else if ((m_ & HP_PM_MASK) == HP_PM_TIMED) {                                          \
		exit_timed_general((KEY), hp_rdtsc());                                          \
	} else {                                                                                \
		exit_count_general((KEY), 0);                                                   \
	}

PROBE void __cyg_profile_func_enter(void *fn, void *site)
{
	/* Overhead budget (calib/budget.h): one load and a predictable branch
	 * until the first regulation; a regulated function's whole subtree is
	 * skipped and counted at its root. */
	if (hp_budget_enter((uint64_t)(uintptr_t)fn, site))
		return;
	DISPATCH_ENTER(hp_probe_g.mode, (uint64_t)(uintptr_t)fn)
}

PROBE void __cyg_profile_func_exit(void *fn, void *site)
{
	if (hp_budget_exit((uint64_t)(uintptr_t)fn, site))
		return;
	DISPATCH_EXIT(hp_probe_g.mode, (uint64_t)(uintptr_t)fn)
}

/* Calibration: the same code with the mode word hp_calib_mode (the thread
 * is whatever probe_self points at: calibration swaps in a private state).
 * Exported so that calibration calls them through the PLT, as a program
 * calls the public probes. */
PROBE void hp_calib_probe_enter(void *fn, void *site)
{
	(void)site;
	DISPATCH_ENTER(hp_calib_mode, (uint64_t)(uintptr_t)fn)
}

PROBE void hp_calib_probe_exit(void *fn, void *site)
{
	(void)site;
	DISPATCH_EXIT(hp_calib_mode, (uint64_t)(uintptr_t)fn)
}

/* ---- region API (include/hyprof.h) ------------------------------------ */

#define SITE_EXCLUDED 0x80000000u

/* Resolve a begin site to its region id (| SITE_EXCLUDED when the name is
 * filtered).  0: table full, the region is not recorded. */
static NOINSTR __attribute__((noinline)) uint32_t site_begin_resolve(struct hyprof_site *s)
{
	uint32_t id = hp_region_lookup(s->name, s->name ? strlen(s->name) : 0, s->file, s->line, 1);
	if (!id)
		return 0;
	uint32_t v = id | (hp_regions[id].excluded ? SITE_EXCLUDED : 0);
	__atomic_store_n(&s->id, v, __ATOMIC_RELEASE);
	return v;
}

static NOINSTR __attribute__((noinline)) void region_excluded_hit(uint32_t id)
{
	struct hp_region_ent *r = &hp_regions[id & ~SITE_EXCLUDED];
	if (r->seen)
		return;
	r->seen = 1;
	struct hp_thread *t = hp_thread_self();
	if (t && t->stack && t->sp <= HP_STACK_MAX) {
		uint32_t c = cct__child(&t->probe, t->probe_cur, id & ~SITE_EXCLUDED);
		if (c != CCT_NONE)
			t->probe.nodes[c].flags |= CCT_F_REGION | CCT_F_EXCLUDED;
	}
}

static inline __attribute__((always_inline)) void region_enter(int m, uint32_t id)
{
	if (HP_UNLIKELY(id & SITE_EXCLUDED)) {
		region_excluded_hit(id);
		return;
	}
	if ((m & HP_PM_MASK) == HP_PM_TIMED)
		enter_timed_general((uint64_t)id, CCT_F_REGION);
	else
		enter_count_general((uint64_t)id, CCT_F_REGION);
}

/* The region frame to close for an end of name `nid`: the top frame when it
 * is such a region (the normal case), else the nearest one below it; 0 when
 * no open region has that name. */
static inline __attribute__((always_inline)) uint64_t region_frame_key(struct hp_thread *t,
								         uint32_t nid)
{
	uint32_t sp = t->sp;
	if (sp > HP_STACK_MAX)
		return 0; /* overflowed: hp_probe_exit_slow pops the count */
	for (int i = (int)sp - 1; i >= 0; i--) {
		uint64_t k = t->stack[i].fn;
		if (k < HP_REGION_MAX && hp_regions[k].name_id == nid)
			return k;
	}
	return ~(uint64_t)0;
}

static inline __attribute__((always_inline)) void region_exit(int m, uint32_t nid)
{
	if (HP_UNLIKELY(nid & SITE_EXCLUDED))
		return;
	int timed = (m & HP_PM_MASK) == HP_PM_TIMED;
	uint64_t now = timed ? hp_rdtsc() : 0;
	struct hp_thread *t = probe_self;
	if (HP_UNLIKELY(!t) && !(t = probe_thread_slow()))
		return;
	uint64_t key = region_frame_key(t, nid);
	if (HP_UNLIKELY(key == ~(uint64_t)0)) {
		t->exit_mismatch++; /* no such region open */
		return;
	}
	if (timed)
		hp_probe_exit_t(t, key, 1, now);
	else
		hp_probe_exit_t(t, key, 0, 0);
	if (HP_UNLIKELY(hp_probe_g.slow & HP_PS_DELAY))
		hp_probe_spin(hp_probe_g.delay_exit);
}

static NOINSTR __attribute__((noinline)) uint32_t site_end_resolve(struct hyprof_site *s)
{
	uint32_t nid = hp_region_name_id(s->name, s->name ? strlen(s->name) : 0);
	if (!nid)
		return 0; /* no region of that name began yet: do not cache */
	uint32_t v = nid | (hp_regions[nid].excluded ? SITE_EXCLUDED : 0);
	__atomic_store_n(&s->id, v, __ATOMIC_RELEASE);
	return v;
}

PROBE void hyprof_region_begin_site(struct hyprof_site *s)
{
	int m = hp_probe_g.mode;
	if (HP_LIKELY(m == HP_PM_OFF))
		return;
	uint32_t id = s->id;
	if (HP_UNLIKELY(!id) && !(id = site_begin_resolve(s)))
		return;
	region_enter(m, id);
}

PROBE void hyprof_region_end_site(struct hyprof_site *s)
{
	int m = hp_probe_g.mode;
	if (HP_LIKELY(m == HP_PM_OFF))
		return;
	uint32_t nid = s->id;
	if (HP_UNLIKELY(!nid) && !(nid = site_end_resolve(s))) {
		struct hp_thread *t = hp_thread_self();
		if (t)
			t->exit_mismatch++;
		return;
	}
	region_exit(m, nid);
}

PROBE void hyprof_region_begin_n(const char *name, int name_len, const char *file, int line)
{
	int m = hp_probe_g.mode;
	if (HP_LIKELY(m == HP_PM_OFF))
		return;
	if (!name || name_len < 0)
		return;
	uint32_t id = hp_region_lookup(name, (size_t)name_len, file, line, 1);
	if (!id)
		return;
	if (hp_regions[id].excluded)
		id |= SITE_EXCLUDED;
	region_enter(m, id);
}

PROBE void hyprof_region_end_n(const char *name, int name_len)
{
	int m = hp_probe_g.mode;
	if (HP_LIKELY(m == HP_PM_OFF))
		return;
	uint32_t nid = name && name_len >= 0 ? hp_region_name_id(name, (size_t)name_len) : 0;
	if (!nid) {
		struct hp_thread *t = hp_thread_self();
		if (t)
			t->exit_mismatch++;
		return;
	}
	if (hp_regions[nid].excluded)
		nid |= SITE_EXCLUDED;
	region_exit(m, nid);
}

PROBE void hyprof_region_begin(const char *name, const char *file, int line)
{
	hyprof_region_begin_n(name, name ? (int)strlen(name) : -1, file, line);
}

PROBE void hyprof_region_end(const char *name)
{
	hyprof_region_end_n(name, name ? (int)strlen(name) : -1);
}

/* Is the runtime loaded and counting?  (A program can print which build
 * it runs under.)  Returns the mode: 0 sampled/off, 1 hybrid, 2 measured. */
PROBE int hyprof_active(void)
{
	return hp_probe_g.mode & HP_PM_MASK;
}
