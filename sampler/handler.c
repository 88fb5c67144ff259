/* sampler/handler.c - the one sample path: signal handler skeleton, sample
 * accounting, measurement ranges, and the sampler's set-up.
 *
 * Signal-safe: sample_signal(), hp_sampler_deliver(), hp_sample_take(),
 * hp_pc_is_measurement(), hp_sampler_fault_recover() and the pause helpers:
 * no malloc, no stdio, no locks, no dynamic loader (every dlsym happened at
 * start-up).  The set-up functions below them are not signal-safe.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"
#include "sampler/internal.h"
#include "sampler/sampler.h"

/* The probes' text section.  The linker defines these when some object of
 * libhyprof.so puts code in it (HP_PROBE_TEXT); weak so the runtime links
 * before the probes exist. */
extern char __start_hyprof_probe[] __attribute__((weak, visibility("hidden")));
extern char __stop_hyprof_probe[] __attribute__((weak, visibility("hidden")));

#define HP_MEAS_RANGES 16
static struct {
	uintptr_t lo, hi;
	int kind;
} meas_ranges[HP_MEAS_RANGES];
static uint32_t nmeas_ranges; /* published with release after the range */
static int meas_lock;

static int inflight;           /* handlers running now, every thread */
static uint64_t nothread;      /* samples on threads without state */

/* ---- measurement code ---------------------------------------------------- */

HP_EXPORT int hp_register_measurement_range(uintptr_t lo, uintptr_t hi, int kind)
{
	if (hi <= lo || (kind != HP_MEAS_PROBES && kind != HP_MEAS_MPI))
		return -EINVAL;
	while (__atomic_test_and_set(&meas_lock, __ATOMIC_ACQUIRE))
		;
	int rc = 0;
	uint32_t n = nmeas_ranges;
	for (uint32_t i = 0; i < n; i++)
		if (meas_ranges[i].lo == lo && meas_ranges[i].hi == hi)
			goto out;
	if (n >= HP_MEAS_RANGES) {
		rc = -ENOSPC;
		goto out;
	}
	meas_ranges[n].lo = lo;
	meas_ranges[n].hi = hi;
	meas_ranges[n].kind = kind;
	__atomic_store_n(&nmeas_ranges, n + 1, __ATOMIC_RELEASE);
out:
	__atomic_clear(&meas_lock, __ATOMIC_RELEASE);
	return rc;
}

int hp_pc_is_measurement(uintptr_t pc)
{
	if (__start_hyprof_probe && pc >= (uintptr_t)__start_hyprof_probe && pc < (uintptr_t)__stop_hyprof_probe)
		return HP_MEAS_PROBES;
	uint32_t n = __atomic_load_n(&nmeas_ranges, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (pc >= meas_ranges[i].lo && pc < meas_ranges[i].hi)
			return meas_ranges[i].kind;
	return 0;
}

static inline int probe_node_ok(const struct hp_thread *t)
{
	return t->probe.nodes && t->probe_cur < t->probe.n;
}

/* A sample whose PC is in hyprof's code: counted as measurement, not put in
 * the program's profile.  The probes' samples are their direct cost (and
 * that of the probe node current now); the wrappers' are shown beside the
 * cost the wrappers time themselves. */
static inline void meas_sample(struct hp_thread *t, int kind, uint64_t period, int in_context)
{
	if (kind == HP_MEAS_MPI) {
		t->mpi_samples++;
		t->mpi_period += period;
		return;
	}
	t->meas_samples++;
	t->meas_period += period;
	if (in_context && probe_node_ok(t))
		t->probe.nodes[t->probe_cur].meas_samples++;
}

/* ---- the sample ---------------------------------------------------------- */

static void insert_path(struct hp_thread *t, struct hp_thread_mem *m, int n, int truncated, uint64_t period,
			int probe_ctx);

void hp_sample_take(struct hp_thread *t, void *ucontext, uint64_t period)
{
	if (t->busy) {
		t->dropped[HP_DROP_REENTRANT]++;
		return;
	}
	if (t->in_loader) {
		/* libunwind walks the loader's object list: inside dlopen that list
		 * is being changed, under the lock we would take again. */
		t->dropped[HP_DROP_LOADER]++;
		return;
	}
	const ucontext_t *uc = ucontext;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	int kind = hp_pc_is_measurement(pc);
	if (kind) {
		meas_sample(t, kind, period, 1);
		return;
	}
	struct hp_thread_mem *m = hp_thread_mem(t);
	int truncated = 0;
	int n = hp_unwind(m, ucontext, &truncated);
	insert_path(t, m, n, truncated, period, 1);
}

/* m->path[0..n) root first: into the sample tree, and (probe_ctx) into the
 * probe node current now. */
static void insert_path(struct hp_thread *t, struct hp_thread_mem *m, int n, int truncated, uint64_t period,
			int probe_ctx)
{
	if (n <= 0) {
		t->dropped[HP_DROP_UNWIND]++;
		return;
	}
	uint32_t leaf = cct__insert_path(&t->sample, m->path, n);
	if (leaf == CCT_NONE || leaf == CCT_ROOT) {
		/* Not even the outermost frame found room: the tree is full. */
		t->dropped[HP_DROP_FULL]++;
		return;
	}
	struct cct_node *node = &t->sample.nodes[leaf];
	if (truncated && node->parent != CCT_NONE)
		t->sample.nodes[node->parent].flags |= CCT_F_TRUNCATED;
	if (m->path[0] == HP_KEY_TRUNCATED) {
		uint32_t top = cct__find(&t->sample, CCT_ROOT, HP_KEY_TRUNCATED);
		if (top != CCT_NONE)
			t->sample.nodes[top].flags |= CCT_F_TRUNCATED;
	}
	node->samples++;
	node->period += period;
	t->samples++;
	/* Hybrid and measured modes: the same sample joins the probe tree at the
	 * call path the probes say is current, so sampled time and exact counts
	 * meet on the same node. */
	if (probe_ctx && hp_rt.cfg.mode != HP_MODE_SAMPLED && probe_node_ok(t)) {
		t->probe.nodes[t->probe_cur].samples++;
		t->probe.nodes[t->probe_cur].period += period;
	}
}

void hp_sample_take_chain(struct hp_thread *t, int n, int complete, uint64_t period, int in_context)
{
	/* No busy or loader check: the kernel walked the stack when the sample
	 * was taken, and the caller holds the ring's drain lock. */
	struct hp_thread_mem *m = hp_thread_mem(t);
	if (n <= 0) {
		t->dropped[HP_DROP_UNWIND]++;
		return;
	}
	int kind = hp_pc_is_measurement((uintptr_t)m->trace[0]);
	if (kind) {
		meas_sample(t, kind, period, in_context);
		return;
	}
	int truncated = 0;
	n = hp_unwind_finish(m, n, complete, &truncated);
	insert_path(t, m, n, truncated, period, in_context);
}

/* Take this thread's queued sampling signals out (zero timeout); at most
 * 1024 in one go.  Signal-safe (one system call each). */
static void drain_queued(void)
{
	if (hp_rt.sig <= 0)
		return;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, hp_rt.sig);
	struct timespec zero = {0, 0};
	siginfo_t info;
	for (int n = 0; n < 1024; n++)
		if (syscall(SYS_rt_sigtimedwait, &one, &info, &zero, (size_t)8) != hp_rt.sig)
			break;
}

/* The skeleton.  si == NULL: a delivery by another library's handler (PAPI)
 * with the period known. */
static inline void skeleton(siginfo_t *si, void *uc, uint64_t period)
{
	int saved = errno;
	__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
	struct hp_thread *t = hp_thread_self();
	if (!t) {
		__atomic_add_fetch(&nothread, 1, __ATOMIC_RELAXED);
		goto out;
	}
	if (t->in_handler) {
		t->dropped[HP_DROP_REENTRANT]++;
		goto out;
	}
	t->in_handler = 1;
	uint64_t t0 = hp_rdtsc();
	const struct hp_source_ops *src = hp_rt.source;
	int mine = 1;
	if (si)
		mine = src && src->on_signal(t, si, &period);
	if (!mine)
		hp_thread_mem(t)->stray_signals++;
	else if (period && __atomic_load_n(&hp_rt.active, __ATOMIC_SEQ_CST))
		hp_sample_take(t, uc, period);
	uint64_t t1 = hp_rdtsc();
	/* This signal came while the previous handler's time had not yet
	 * passed again: the handler cannot keep up with the rate (a high
	 * --freq, a deep stack), and every queued signal would cost a whole
	 * handler.  Take the queued ones out: the next sample's records still
	 * carry their periods, so no time is lost, and the queue cannot grow
	 * until the kernel falls back to SIGIO (which ends the process).  Not
	 * for a POSIX timer: it queues one signal, whose overrun count is time. */
	if (mine && si && si->si_code != SI_TIMER && t->handler_end_tsc && t0 - t->handler_end_tsc < t1 - t0)
		drain_queued();
	t->handler_end_tsc = t1;
	t->handler_cycles += t1 - t0;
	t->comp_cycles += t1 - t0 + hp_rt.sig_kernel_cyc;
	t->in_handler = 0;
out:
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
	errno = saved;
}

static void sample_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	skeleton(si, uc, 0);
}

void hp_sampler_deliver(void *ucontext, uint64_t period)
{
	if (ucontext)
		skeleton(NULL, ucontext, period);
}

void hp_sampler_fault_recover(int sig)
{
	(void)sig;
	struct hp_thread *t = hp_thread_self();
	if (!t)
		return;
	struct hp_thread_mem *m = hp_thread_mem(t);
	if (!m->unwinding)
		return;
	m->unwinding = 0;
	m->unwind_faults++;
	siglongjmp(m->unwind_jmp, 1);
}

int hp_sampler_inflight(void)
{
	return __atomic_load_n(&inflight, __ATOMIC_SEQ_CST);
}

uint64_t hp_sampler_take_nothread(void)
{
	return __atomic_exchange_n(&nothread, 0, __ATOMIC_RELAXED);
}

/* ---- set-up ---------------------------------------------------------- */

static int install_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sample_signal;
	/* SA_RESTART: a sample must never make the program's read() fail with
	 * EINTR.  The sampling signal is blocked while the handler runs. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, hp_rt.sig);
	return hp_real_sigaction(hp_rt.sig, &sa, NULL) ? -errno : 0;
}

void hp_sampler_discard_pending(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	hp_real_sigaction(hp_rt.sig, &sa, NULL);
}

void hp_sampler_restore_handler(void)
{
	install_handler();
}

int hp_sampler_init(void)
{
	struct hp_config *c = &hp_rt.cfg;
	char nb[32];
	hp_rt.sig = c->signo;
	int rc = hp_unwind_init(c->unwind);
	if (rc) {
		hp_log("cannot set up the unwinder (%s)", strerror(-rc));
		return rc;
	}
	/* The sampling signal must be free: a handler the program installed
	 * before us (a library constructor) would be replaced. */
	struct sigaction old;
	if (hp_real_sigaction(hp_rt.sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
	    old.sa_handler != SIG_IGN)
		hp_log("%s already has a handler in this program; hyprof replaces it for sampling (set "
		       "HYPROF_SIGNAL to a free signal)", hp_signal_name(hp_rt.sig, nb, sizeof(nb)));
	char unit[16] = "";
	uint64_t period = 0;
	int i = hp_source_choose(hp_sources, hp_nsources, c->event, c->period, c->freq, unit, &period,
				 hp_rt.source_why, sizeof(hp_rt.source_why));
	if (i < 0 && c->event[0]) {
		/* As for any bad HYPROF_* value: one line, then the default. */
		hp_log("HYPROF_EVENT=\"%s\" cannot be used: %s; using the default (the best available source)",
		       c->event, hp_rt.source_why);
		c->event[0] = '\0';
		i = hp_source_choose(hp_sources, hp_nsources, "", c->period, c->freq, unit, &period,
				     hp_rt.source_why, sizeof(hp_rt.source_why));
	}
	if (i < 0) {
		int measured = c->mode_set && c->mode == HP_MODE_MEASURED;
		hp_log("no sample source could be opened: %s; %s", hp_rt.source_why,
		       measured ? "measured mode goes on without samples (probe costs are not observed)"
				: "the program runs unprofiled");
		return -ENODEV;
	}
	const struct hp_source_ops *s = hp_sources[i];
	hp_rt.source = s;
	if (c->unwind == HP_UNWIND_KERNEL) {
		/* Said in the profile (source_why), since it decides what the
		 * call paths can show. */
		size_t w = strlen(hp_rt.source_why);
		const char *sep = w ? "; " : "";
		if (s != &hp_source_perf_hw && s != &hp_source_perf_sw) {
			hp_log("--unwind kernel needs a perf_event source, not %s: unwinding with libunwind", s->name);
			c->unwind = HP_UNWIND_LIBUNWIND;
			hp_unwind_init(c->unwind);
			hp_fmt(hp_rt.source_why + w, sizeof(hp_rt.source_why) - w,
			       "%sunwind: libunwind (kernel callchains need a perf_event source)", sep);
		} else {
			hp_fmt(hp_rt.source_why + w, sizeof(hp_rt.source_why) - w,
			       "%sunwind: kernel frame-pointer callchains, perf record -g quality (the caller of a "
			       "function without a frame, such as a leaf, is missing)", sep);
		}
	}
	hp_rt.period = period;
	hp_fmt(hp_rt.source_unit, sizeof(hp_rt.source_unit), "%s", unit);
	hp_fmt(hp_rt.source_event, sizeof(hp_rt.source_event), "%s", s->event_name ? s->event_name() : s->name);
	rc = install_handler();
	if (rc) {
		hp_log("cannot install the sampling handler for %s (%s)", hp_signal_name(hp_rt.sig, nb, sizeof(nb)),
		       strerror(-rc));
		s->close();
		hp_rt.source = NULL;
		return rc;
	}
	return 0;
}

int hp_sampler_thread_start(struct hp_thread *t)
{
	const struct hp_source_ops *s = hp_rt.source;
	if (!s)
		return -ENODEV;
	hp_unwind_thread_init();
	int rc = s->thread_start(t);
	if (rc == 0 && hp_rt.sig > 0) {
		/* A thread created with every signal blocked (liblzma's workers
		 * for `xz -T`, threads started from a signal-handling thread)
		 * would take no sample, its signals queued instead: the sampling
		 * signal, which the program does not know, is left unblocked on
		 * every sampled thread. */
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, hp_rt.sig);
		pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	}
	if (rc) {
		static int warned;
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			hp_log("thread %d is not sampled: %s could not start on it (%s)", (int)t->tid,
			       hp_rt.source_event, strerror(-rc));
	}
	return rc;
}

void hp_sampler_thread_stop(struct hp_thread *t)
{
	if (hp_rt.source)
		hp_rt.source->thread_stop(t);
}

void hp_sampler_shutdown(void)
{
	if (hp_rt.source)
		hp_rt.source->close();
}

void hp_sampler_after_fork_child(void)
{
	/* The parent's events are shared with us through the inherited file
	 * descriptors: closing ours leaves them alone (an ioctl would not).  The
	 * ring mappings were not inherited (perf maps them VM_DONTCOPY) and POSIX
	 * timers are not inherited by fork. */
	for (struct hp_thread *t = hp_rt.threads; t; t = t->next) {
		if (t->src.fd >= 0)
			close(t->src.fd);
		if (t->src.fd >= 0 && t->src.batch > 1)
			close(t->src.notify_fd); /* --unwind kernel's batch signal */
		t->src.fd = -1;
		t->src.batch = 0;
		t->src.drain_lock = 0;
		t->src.ring = NULL;
		t->src.ring_len = 0;
		t->src.timer_ok = 0;
		t->src.papi_set = -1;
		hp_thread_mem(t)->sampling = 0;
	}
	hp_first_period_whole_next();
}
