/* counting/counting.c - set-up of the probes (mode, costs, filter, regions,
 * per-thread trees) and the HP_SEC_COUNTING section.
 *
 * hp_counting_init() and hp_counting_thread_init() run at start-up and at
 * thread creation (not signal-safe: mmap).  hp_counting_write() and
 * hp_counting_thread_flush() run from the profile writer: signal-safe.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "calib/calib.h"
#include "core/format.h"
#include "counting/counting.h"
#include "counting/counting_priv.h"

static double ns_to_cycles(double ns)
{
	return ns > 0 && hp_calib.tsc_hz > 0 ? ns * hp_calib.tsc_hz / 1e9 : 0;
}

static uint64_t round_u64(double v)
{
	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

/* Costs in cycles from the calibration: what each probe adds to the
 * thread's overhead and delay, and what compensation removes (start-up
 * values of every thread; measured mode refines them in situ). */
static void setup_costs(int pmode)
{
	double pair = pmode == HP_PM_TIMED ? hp_calib.timed_probe.median
		      : pmode == HP_PM_COUNT ? hp_calib.count_probe.median
					     : 0;
	uint64_t pc = round_u64(ns_to_cycles(pair));
	/* a signal's kernel part: charged whenever costs are compensated, in
	 * any mode (the MPI wrappers add comp_cycles to the overhead and the
	 * delay, mpiwrap/mpiwrap.h hp_sampler_fold) */
	int comp = hp_rt.cfg.compensate != HP_COMP_NONE;
	uint64_t kern = comp ? round_u64(ns_to_cycles(hp_calib.sample_kernel.median)) : 0;
	hp_probe_g.cost_pair = pc;
	memset(&hp_probe_g.comp, 0, sizeof(hp_probe_g.comp));
	hp_probe_g.comp_on = pmode == HP_PM_TIMED && comp;
	if (hp_probe_g.comp_on) {
		hp_probe_g.comp.di = round_u64(ns_to_cycles(hp_calib.di.median));
		hp_probe_g.comp.pair = pc;
		hp_probe_g.comp.sample_kernel = kern;
	}
	/* the handler charges it per signal (struct hp_thread comp_cycles) */
	hp_rt.sig_kernel_cyc = kern;
	/* In-situ recalibration (counting/probe.c): measured mode, when the
	 * start-up calibration ran (it resolves what the bursts call).
	 * HYPROF_RECAL_MS=0 turns it off. */
	hp_probe_g.recal_period = 0;
	double ms = hp_rt.cfg.recal_ms;
	if (pmode == HP_PM_TIMED && hp_calib.done && ms > 0 && hp_calib.tsc_hz > 0)
		hp_probe_g.recal_period = (uint64_t)(ms * 1e-3 * hp_calib.tsc_hz);
}

static int hp_counting_write(struct hp_writer *w, void *arg);

/* Fork child: runtime/thread.c resets the forking thread's probe tree (its
 * node indices are reused), so the child cache must forget them.  Runs
 * before thread.c's handler (registered earlier); the order does not
 * matter, the cache is only filled by probes. */
static void counting_fork_child(void)
{
	struct hp_thread *t = hp_probe_swap_self(NULL);
	hp_probe_swap_self(t);
	if (!t || !t->stack)
		return;
	hp_probe_cache_clear(t);
	/* Open frames restart their intervals at the fork (runtime/thread.c
	 * resets their entry times and the thread's counters): their
	 * corrections and handler snapshots restart too. */
	uint32_t sp = t->sp < HP_STACK_MAX ? t->sp : HP_STACK_MAX;
	for (uint32_t i = 0; i < sp; i++) {
		t->stack[i].comp_adj = 0;
		t->stack[i].handler_at = 0;
	}
}

/* Another definition of the -finstrument-functions hooks ahead of
 * libhyprof.so's (the program's own tracer, uftrace's libmcount preloaded
 * first) takes every probe call: the profile would then say the program
 * has no probes.  Say whose they are. */
static void check_probe_owner(void)
{
	void *f = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
	Dl_info di = {0}, self;
	if (!f || !dladdr((void *)check_probe_owner, &self))
		return;
	if (dladdr(f, &di) && di.dli_fbase == self.dli_fbase)
		return;
	hp_log("%s defines __cyg_profile_func_enter ahead of libhyprof.so: the program's "
	       "-finstrument-functions probes call it, not hyprof (no probe counts)",
	       di.dli_fname && di.dli_fname[0] ? di.dli_fname : hp_rt.program);
}

int hp_counting_init(void)
{
	int pmode = hp_rt.cfg.mode == HP_MODE_MEASURED ? HP_PM_TIMED
		    : hp_rt.cfg.mode == HP_MODE_HYBRID ? HP_PM_COUNT
						       : HP_PM_OFF;
	hp_probe_setup_delay(hp_calib.tsc_hz);
	setup_costs(pmode);
	int rc = hp_regions_init();
	if (rc)
		hp_log("regions disabled: cannot map the region table (%s)", strerror(-rc));
	if (hp_rt.cfg.filter[0]) {
		int n = hp_filter_init(hp_rt.cfg.filter);
		if (n < 0)
			hp_log("HYPROF_FILTER ignored: %s", strerror(-n));
		else if (n == 0 && hp_filter_npatterns() > 0)
			hp_log("HYPROF_FILTER=\"%s\" matched no function symbol (regions are still matched by name)",
			       hp_rt.cfg.filter);
	}
	hp_register_section_writer(hp_counting_write, NULL);
	hp_register_section_writer(hp_regions_write, NULL);
	if (pmode != HP_PM_OFF && pthread_atfork(NULL, NULL, counting_fork_child) != 0)
		hp_log("pthread_atfork failed: probes in a forked child may count under wrong call paths");
	if (pmode != HP_PM_OFF)
		check_probe_owner();
	__atomic_store_n(&hp_probe_g.mode, hp_probe_mode_word(pmode), __ATOMIC_RELEASE);
	return 0;
}

int hp_counting_thread_init(struct hp_thread *t)
{
	if (t->stack)
		return 0;
	if (!t->probe.nodes) {
		uint32_t cap = hp_rt.cfg.max_nodes ? hp_rt.cfg.max_nodes : (1u << 18);
		int rc = cct__init(&t->probe, cap);
		if (rc)
			return rc;
	}
	return hp_probe_mem_map(t);
}

void hp_counting_thread_flush(struct hp_thread *t)
{
	if (!t || !t->stack)
		return;
	uint32_t sp = t->sp > HP_STACK_MAX ? HP_STACK_MAX : t->sp;
	t->sp = sp;
	if ((hp_probe_g.mode & HP_PM_MASK) == HP_PM_TIMED) {
		uint64_t now = hp_rdtsc();
		while (t->sp > 0)
			hp_probe_pop(t, t->sp - 1, 1, now);
	} else {
		while (t->sp > 0)
			hp_probe_pop(t, t->sp - 1, 0, 0);
	}
}

int hp_counting_open_close(struct hp_thread *t, struct hp_open_save *s)
{
	memset(s, 0, sizeof(*s));
	if (!t || !t->stack || !t->sp || (hp_probe_g.mode & HP_PM_MASK) != HP_PM_TIMED)
		return 0;
	uint32_t n = t->sp > HP_STACK_MAX ? HP_STACK_MAX : t->sp;
	size_t len = (size_t)(n + 1) * sizeof(struct hp_frame) + (size_t)n * sizeof(struct cct_node);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	struct hp_frame *fr = m;
	struct cct_node *nd = (struct cct_node *)(void *)(fr + n + 1);
	memcpy(fr, t->stack - 1, (size_t)(n + 1) * sizeof(*fr));
	for (uint32_t i = 0; i < n; i++)
		nd[i] = t->probe.nodes[t->stack[i].node];
	*s = (struct hp_open_save){.sp = t->sp, .cur = t->probe_cur, .n = n, .len = len, .mem = m};
	hp_counting_thread_flush(t);
	return 1;
}

void hp_counting_open_restore(struct hp_thread *t, struct hp_open_save *s)
{
	if (!t || !s->mem)
		return;
	struct hp_frame *fr = s->mem;
	struct cct_node *nd = (struct cct_node *)(void *)(fr + s->n + 1);
	memcpy(t->stack - 1, fr, (size_t)(s->n + 1) * sizeof(*fr));
	/* every copy was made before any frame was closed: a node open twice
	 * (folded recursion) gets the same state back from either */
	for (uint32_t i = 0; i < s->n; i++)
		t->probe.nodes[fr[i + 1].node] = nd[i];
	t->sp = s->sp;
	t->probe_cur = s->cur;
	munmap(s->mem, s->len);
	s->mem = NULL;
}

void hp_counting_thread_retire(struct hp_thread *t)
{
	if (t)
		hp_probe_mem_release(t);
}

void hp_counting_thread_reuse(struct hp_thread *t)
{
	if (t->probe.nodes)
		cct__reset(&t->probe);
	hp_probe_mem_reuse(t);
}

void hp_counting_shutdown(void)
{
	__atomic_store_n(&hp_probe_g.mode, HP_PM_OFF, __ATOMIC_RELEASE);
}

/* The pairs of thread t weighted by the cost in effect when each ran. */
static uint64_t pair_weight(const struct hp_thread *t)
{
	const struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	return pt->pair_sum + hp_sub0(t->probe_events, pt->ev_mark) * pt->pair;
}

double hp_counting_pair_mean_cycles(void)
{
	uint64_t ev = 0, w = 0;
	for (struct hp_thread *t = hp_rt.threads; t; t = t->next) {
		if (!t->stack || !t->probe_events)
			continue;
		w += pair_weight(t);
		ev += t->probe_events;
	}
	return ev ? (double)w / (double)ev : 0.0;
}

uint64_t hp_counting_probes_seen(void)
{
	uint64_t n = 0;
	for (struct hp_thread *t = hp_rt.threads; t; t = t->next)
		n += t->probe_events;
	return n;
}

const char *hp_counting_mode_effective(char *buf, size_t len)
{
	const char *req = hp_mode_name(hp_rt.cfg.mode);
	if (hp_rt.cfg.mode != HP_MODE_SAMPLED && hp_counting_probes_seen() == 0) {
		strncpy(buf, "sampled (no probes ran)", len - 1);
		buf[len - 1] = '\0';
		return buf;
	}
	strncpy(buf, req, len - 1);
	buf[len - 1] = '\0';
	return buf;
}

/* HP_SEC_COUNTING: a kv block (docs/probes.md lists the keys).  Signal-safe:
 * walks the thread list without the lock (threads are only ever added at
 * the head, fully set up) and reads the trees. */
static int hp_counting_write(struct hp_writer *w, void *arg)
{
	uint64_t probes = 0, folded = 0, redirects = 0, overflow = 0, mismatch = 0, full = 0, nested_lost = 0;
	uint64_t clamped = 0, removed = 0, excluded = 0, nthreads = 0, regions_hit = 0;
	uint64_t bursts = 0, burst_cyc = 0, pmin = 0, pmax = 0, di_w = 0, pair_w = 0;
	for (struct hp_thread *t = hp_rt.threads; t; t = t->next) {
		probes += t->probe_events;
		if (t->stack) {
			const struct hp_probe_thr *pt = hp_probe_thr(t->stack);
			bursts += pt->recal_n;
			burst_cyc += pt->recal_cycles;
			pair_w += pair_weight(t);
			di_w += pt->di * t->probe_events;
			if (pt->pair_min && (!pmin || pt->pair_min < pmin))
				pmin = pt->pair_min;
			if (pt->pair_max > pmax)
				pmax = pt->pair_max;
		}
		overflow += t->stack_overflow;
		mismatch += t->exit_mismatch;
		if (t->stack)
			nested_lost += hp_probe_thr(t->stack)->nested_lost;
		full += t->probe.full;
		if (t->probe_events)
			nthreads++;
		uint32_t n = t->probe.n;
		for (uint32_t i = 1; i < n && t->probe.nodes; i++) {
			const struct cct_node *c = &t->probe.nodes[i];
			folded += (c->flags & CCT_F_FOLDED) != 0;
			redirects += (c->flags & CCT_F_REDIRECT) != 0;
			excluded += (c->flags & CCT_F_EXCLUDED) != 0;
			regions_hit += (c->flags & CCT_F_REGION) && c->calls;
			clamped += c->clamped;
			if (c->parent == CCT_ROOT && c->incl > c->incl_comp)
				removed += c->incl - c->incl_comp;
		}
	}
	char mode[64];
	hp_counting_mode_effective(mode, sizeof(mode));
	int timed = (hp_probe_g.mode & HP_PM_MASK) == HP_PM_TIMED ||
		    (hp_rt.cfg.mode == HP_MODE_MEASURED && probes);
	int rc = hp_writer_begin(w, HP_SEC_COUNTING);
	rc = rc ? rc : hp_writer_kv_str(w, "mode_requested", hp_mode_name(hp_rt.cfg.mode));
	rc = rc ? rc : hp_writer_kv_u64(w, "mode_set", (uint64_t)hp_rt.cfg.mode_set);
	rc = rc ? rc : hp_writer_kv_str(w, "mode_effective", mode);
	rc = rc ? rc : hp_writer_kv_u64(w, "probes_seen", probes);
	rc = rc ? rc : hp_writer_kv_u64(w, "threads_with_probes", nthreads);
	rc = rc ? rc : hp_writer_kv_u64(w, "regions", hp_regions ? hp_nregions : 0);
	rc = rc ? rc : hp_writer_kv_u64(w, "folded_nodes", folded);
	rc = rc ? rc : hp_writer_kv_u64(w, "folded_paths", redirects);
	rc = rc ? rc : hp_writer_kv_u64(w, "excluded_nodes", excluded);
	rc = rc ? rc : hp_writer_kv_u64(w, "stack_overflow", overflow);
	rc = rc ? rc : hp_writer_kv_u64(w, "exit_mismatch", mismatch);
	rc = rc ? rc : hp_writer_kv_u64(w, "nested_lost", nested_lost);
	rc = rc ? rc : hp_writer_kv_u64(w, "tree_full", full);
	rc = rc ? rc : hp_writer_kv_u64(w, "test_probe_delay_ns", hp_rt.cfg.test_probe_delay_ns);
	rc = rc ? rc : hp_filter_write_kv(w);
	rc = rc ? rc : hp_writer_kv_str(w, "join",
					 "samples are added to the probe node that was current on their thread "
					 "when they were taken (same thread, same instant); frames without "
					 "probes (libc, uninstrumented code) count in their nearest probed caller");
	const char *comp = !timed ? "none (not measured mode)"
			   : hp_rt.cfg.compensate == HP_COMP_NONE ? "none"
								 : "local";
	rc = rc ? rc : hp_writer_kv_str(w, "compensation", comp);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.di_cycles", hp_probe_g.comp.di);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.pair_cycles", hp_probe_g.comp.pair);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.sample_kernel_cycles", hp_probe_g.comp.sample_kernel);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.removed_cycles", removed);
	rc = rc ? rc : hp_writer_kv_f64(w, "comp.removed_s", hp_cycles_to_s(removed));
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.clamped", clamped);
	/* In-situ recalibration: bursts, their time (excluded from every
	 * interval), the F the pairs were costed at (mean over the pairs),
	 * the range measured, and the threads' last Di (weighted by pairs). */
	rc = rc ? rc : hp_writer_kv_f64(w, "comp.recal_period_ms",
					hp_calib.tsc_hz > 0 ? (double)hp_probe_g.recal_period * 1e3 / hp_calib.tsc_hz : 0);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.recal_bursts", bursts);
	rc = rc ? rc : hp_writer_kv_f64(w, "comp.recal_s", hp_cycles_to_s(burst_cyc));
	rc = rc ? rc : hp_writer_kv_f64(w, "comp.insitu_pair_cycles.mean", probes ? (double)pair_w / (double)probes : 0);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.insitu_pair_cycles.min", pmin);
	rc = rc ? rc : hp_writer_kv_u64(w, "comp.insitu_pair_cycles.max", pmax);
	rc = rc ? rc : hp_writer_kv_f64(w, "comp.insitu_di_cycles.last", probes ? (double)di_w / (double)probes : 0);
	rc = rc ? rc : hp_writer_kv_u64(w, "cost.pair_cycles", hp_probe_g.cost_pair);
	rc = rc ? rc : hp_writer_kv_f64(w, "tsc_hz", hp_calib.tsc_hz);
	return rc ? rc : hp_writer_end(w);
}
