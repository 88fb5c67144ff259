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
 * Modes: hp_probe_g.mode is read once per probe.  Off (sampled mode, before
 * hp_counting_init, after teardown): return after one predictable branch.
 * Count (hybrid): find the child, push a frame, calls++.  Timed (measured):
 * also read the TSC as late as possible at entry and as early as possible
 * at exit, and compensate each call (counting/comp.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "counting/counting.h"
#include "counting/counting_priv.h"
#include "sampler/sampler.h"
#define HYPROF_RUNTIME_BUILD 1
#include "hyprof.h"

#define PROBE HP_PROBE_TEXT __attribute__((no_instrument_function, visibility("default")))
#define PROBE_HIDDEN HP_PROBE_TEXT __attribute__((no_instrument_function, visibility("hidden")))
#define PROBE_STATIC HP_PROBE_TEXT __attribute__((no_instrument_function))
#define NOINSTR __attribute__((no_instrument_function))

struct hp_thread *hp_calib_thread;
volatile int hp_calib_mode;

/* Recursion guard of the slow thread lookup: hp_thread_get() may call code
 * the program instrumented (an instrumented malloc, say); a probe entered
 * from there must not try to create the thread state again. */
static __thread int probe_in_slow __attribute__((tls_model("initial-exec")));

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

/* The thread state when the fast lookup found none or found one without a
 * probe tree: create it (a thread the runtime did not see start, a probe
 * before the thread's set-up) or give up (before init, during teardown, or
 * re-entered from hp_thread_get()). */
static NOINSTR __attribute__((noinline)) struct hp_thread *probe_thread_slow(struct hp_thread *t)
{
	if (probe_in_slow || !hp_rt.initialized)
		return NULL;
	probe_in_slow = 1;
	if (!t)
		t = hp_thread_get();
	if (t && (t->exited || (!t->stack && hp_counting_thread_init(t) != 0)))
		t = NULL;
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

/* The one body of every function probe (public and calibration).  The
 * public functions test the mode and tail-call a body specialised for it,
 * so the off path (sampled mode) is one load, one predictable branch and a
 * return, with no register saved. */
#define ENTER_BODY(M, GET_THREAD, KEY, KIND)                                                    \
	struct hp_thread *t_ = hp_thread_self();                                                \
	GET_THREAD;                                                                             \
	if (HP_UNLIKELY(!t_ || !t_->stack)) {                                                   \
		t_ = probe_thread_slow(t_);                                                     \
		if (!t_)                                                                        \
			return;                                                                 \
	}                                                                                       \
	if (HP_UNLIKELY(hp_probe_g.slow) && enter_slow_features(t_, (KEY), (KIND)))             \
		return;                                                                         \
	hp_probe_enter_t(t_, (KEY), (KIND), (M) == HP_PM_TIMED);

#define EXIT_BODY(M, GET_THREAD, KEY)                                                           \
	uint64_t now_ = (M) == HP_PM_TIMED ? hp_rdtsc() : 0; /* first */                        \
	struct hp_thread *t_ = hp_thread_self();                                                \
	GET_THREAD;                                                                             \
	if (HP_UNLIKELY(!t_ || !t_->stack)) {                                                   \
		t_ = probe_thread_slow(t_);                                                     \
		if (!t_)                                                                        \
			return;                                                                 \
	}                                                                                       \
	if (HP_UNLIKELY(hp_probe_g.slow & HP_PS_FILTER) && hp_filter_find(KEY))                 \
		return;                                                                         \
	hp_probe_exit_t(t_, (KEY), (M) == HP_PM_TIMED, now_);                                   \
	if (HP_UNLIKELY(hp_probe_g.slow & HP_PS_DELAY))                                         \
		hp_probe_spin(hp_probe_g.delay_exit);

#define CALIB_THREAD                                                                            \
	__asm__ volatile("" : : "r"(t_));                                                       \
	t_ = hp_calib_thread

/* Specialised bodies: function probes count/timed, public/calibration. */
#define DEFINE_BODIES(SUFFIX, GET_THREAD)                                                       \
	static PROBE_STATIC void enter_count##SUFFIX(void *fn)                                  \
	{                                                                                       \
		ENTER_BODY(HP_PM_COUNT, GET_THREAD, (uint64_t)(uintptr_t)fn, CCT_F_PROBE)       \
	}                                                                                       \
	static PROBE_STATIC void enter_timed##SUFFIX(void *fn)                                  \
	{                                                                                       \
		ENTER_BODY(HP_PM_TIMED, GET_THREAD, (uint64_t)(uintptr_t)fn, CCT_F_PROBE)       \
	}                                                                                       \
	static PROBE_STATIC void exit_count##SUFFIX(void *fn)                                   \
	{                                                                                       \
		EXIT_BODY(HP_PM_COUNT, GET_THREAD, (uint64_t)(uintptr_t)fn)                     \
	}                                                                                       \
	static PROBE_STATIC void exit_timed##SUFFIX(void *fn)                                   \
	{                                                                                       \
		EXIT_BODY(HP_PM_TIMED, GET_THREAD, (uint64_t)(uintptr_t)fn)                     \
	}

DEFINE_BODIES(, (void)0)
DEFINE_BODIES(_calib, CALIB_THREAD)

#define DISPATCH(MODE, KIND, SUFFIX, FN)                                                        \
	int m_ = (MODE);                                                                        \
	if (HP_LIKELY(m_ == HP_PM_OFF))                                                         \
		return;                                                                         \
	if (m_ == HP_PM_TIMED)                                                                  \
		KIND##_timed##SUFFIX(FN);                                                       \
	else                                                                                    \
		KIND##_count##SUFFIX(FN);

PROBE void __cyg_profile_func_enter(void *fn, void *site)
{
	DISPATCH(hp_probe_g.mode, enter, , fn)
}

PROBE void __cyg_profile_func_exit(void *fn, void *site)
{
	DISPATCH(hp_probe_g.mode, exit, , fn)
}

/* Calibration: the same code on the private state (the TLS lookup is kept;
 * its result is discarded through an empty asm so it is not optimised
 * away). */
PROBE_HIDDEN void hp_calib_probe_enter(void *fn, void *site)
{
	DISPATCH(hp_calib_mode, enter, _calib, fn)
}

PROBE_HIDDEN void hp_calib_probe_exit(void *fn, void *site)
{
	DISPATCH(hp_calib_mode, exit, _calib, fn)
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
	if (m == HP_PM_TIMED) {
		ENTER_BODY(HP_PM_TIMED, (void)0, (uint64_t)id, CCT_F_REGION)
	} else {
		ENTER_BODY(HP_PM_COUNT, (void)0, (uint64_t)id, CCT_F_REGION)
	}
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
	uint64_t now = m == HP_PM_TIMED ? hp_rdtsc() : 0;
	struct hp_thread *t = hp_thread_self();
	if (HP_UNLIKELY(!t || !t->stack)) {
		t = probe_thread_slow(t);
		if (!t)
			return;
	}
	uint64_t key = region_frame_key(t, nid);
	if (HP_UNLIKELY(key == ~(uint64_t)0)) {
		t->exit_mismatch++; /* no such region open */
		return;
	}
	if (m == HP_PM_TIMED)
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
	return hp_probe_g.mode;
}
