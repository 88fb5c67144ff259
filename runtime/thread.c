/* runtime/thread.c - per-thread state: creation, TLS, thread exit, fork.
 *
 * Every thread's state is one struct hp_thread_mem (runtime/lifecycle.h)
 * mapped with mmap when the thread starts: by the pthread_create wrapper for
 * threads the program creates, by the constructor for the main thread, or
 * lazily by hp_thread_get() for threads created behind our back.  It is never
 * unmapped: the data outlives the thread and is written at process exit.
 * Past HYPROF_MAX_THREADS exited threads, the threads that exit are merged
 * into one "[exited]" record once the kernel says they are gone,
 * and their memory serves the next new thread (see "Exited threads").
 * Thread exit (return from the start routine, pthread_exit, cancellation) is
 * caught by a pthread key destructor, which runs in all three cases.
 *
 * Signal-safe: hp_thread_self() only.  The thread list is protected by
 * hp_threads_lock, which is never taken in signal context.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calib/cost.h"
#include "counting/counting.h"
#include "runtime/lifecycle.h"
#include "runtime/live.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/sampler.h"

/* Initial-exec: one load from %fs in the signal handler, no __tls_get_addr
 * (which may allocate) on any path. */
static __thread struct hp_thread *hp_self __attribute__((tls_model("initial-exec")));

pthread_mutex_t hp_threads_lock = PTHREAD_MUTEX_INITIALIZER;
struct hp_thread *hp_main_thread;
static pthread_key_t exit_key;
static int exit_key_ok;
static uint32_t next_index;

/* Exited threads (all under hp_threads_lock). */
static uint32_t exited_kept;          /* exited threads kept as their own record */
static struct hp_thread *dying;       /* exited past the limit, to be merged */
static struct hp_thread *free_slots;  /* merged: memory for a new thread */
static struct hp_thread *exited_rec;  /* "[exited]" */

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static pthread_create_fn real_pthread_create;

HP_EXPORT struct hp_thread *hp_thread_self(void)
{
	return hp_self;
}

void hp_thread_set_self(struct hp_thread *t)
{
	hp_self = t;
}

HP_EXPORT struct hp_thread *hp_thread_get(void)
{
	struct hp_thread *t = hp_self;
	if (t || !hp_rt.initialized)
		return t;
	return hp_thread_create();
}

static void queue_exited(struct hp_thread *t);

static void on_thread_exit(void *p)
{
	struct hp_thread *t = p;
	if (t && !t->exited) {
		hp_thread_finish(t);
		hp_counting_thread_retire(t);
		queue_exited(t);
	}
}

void hp_thread_resolve(void)
{
	if (!real_pthread_create)
		real_pthread_create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!exit_key_ok && pthread_key_create(&exit_key, on_thread_exit) == 0)
		exit_key_ok = 1;
}

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void stack_bounds(struct hp_thread_mem *m)
{
	pthread_attr_t a;
	void *lo;
	size_t size;
	m->stack_lo = m->stack_hi = 0;
	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (pthread_attr_getstack(&a, &lo, &size) == 0) {
		m->stack_lo = (uintptr_t)lo;
		m->stack_hi = (uintptr_t)lo + size;
	}
	pthread_attr_destroy(&a);
}

/* Who the calling thread is.  The stack bounds are not read again in a
 * forked child: they are the parent's thread's, and reading them costs a
 * pass over /proc/self/maps for the main thread. */
static void identity(struct hp_thread_mem *m, int with_stack)
{
	struct hp_thread *t = &m->t;
	t->tid = gettid_raw();
	t->start_ns = hp_now_ns();
	t->start_tsc = hp_rdtsc();
	m->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &m->cpu_clock) == 0;
	if (with_stack)
		stack_bounds(m);
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
}

/* ---- exited threads ------------------------------------------------------
 *
 * A program that runs through thousands of short threads would keep every
 * one's record (about 17 KB resident and a THREAD section each: 20000
 * threads took 326 MB).  The first HYPROF_MAX_THREADS threads to exit keep
 * their records; a thread that exits after them is queued, and once the
 * kernel no longer knows its tid (tgkill ESRCH: no destructor, handler or
 * probe of it can run any more) its trees and counters are added to one
 * "[exited]" record and its memory, reset, is taken by the next new
 * thread.  Merging happens when a thread is created, under the writers'
 * lock, so no profile is being written meanwhile (trylock: a creation never
 * waits for a write; the merge waits for the next one). */

static void reset_counters(struct hp_thread *t);

static void queue_exited(struct hp_thread *t)
{
	if (!hp_rt.cfg.max_threads || t == hp_main_thread || t->keep_record)
		return;
	pthread_mutex_lock(&hp_threads_lock);
	if (exited_kept < hp_rt.cfg.max_threads) {
		exited_kept++;
	} else {
		t->dying_next = dying;
		dying = t;
	}
	pthread_mutex_unlock(&hp_threads_lock);
}

HP_EXPORT void hp_thread_release(struct hp_thread *t)
{
	if (!t || !t->keep_record)
		return;
	t->keep_record = 0;
	/* the runtime's exit destructor ran first and skipped the record */
	if (t->exited)
		queue_exited(t);
}

static struct hp_thread *new_record(void)
{
	size_t len = (sizeof(struct hp_thread_mem) + 4095) & ~(size_t)4095;
	struct hp_thread_mem *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct hp_thread *r = &m->t;
	if (cct__init(&r->sample, hp_rt.cfg.max_nodes) || cct__init(&r->probe, hp_rt.cfg.max_nodes)) {
		cct__destroy(&r->sample);
		munmap(m, len);
		return NULL;
	}
	r->src.fd = -1;
	r->src.papi_set = -1;
	r->exited = 1;
	r->start_ns = r->start_tsc = UINT64_MAX;
	memcpy(r->name, "[exited]", sizeof("[exited]"));
	r->index = next_index++;
	r->next = hp_rt.threads;
	__atomic_store_n(&hp_rt.threads, r, __ATOMIC_RELEASE);
	hp_rt.nthreads++;
	m->in_list = 1;
	return r;
}

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))

/* Add t into the record; 0, or -errno with nothing changed. */
static int merge_into(struct hp_thread *r, struct hp_thread *t)
{
	int rc = 0;
	if (t->sample.nodes && t->sample.n > 1)
		rc = cct__merge(&r->sample, &t->sample);
	if ((rc == 0 || rc == -ENOSPC) && t->probe.nodes && t->probe.n > 1) {
		int rp = cct__merge(&r->probe, &t->probe);
		rc = rp ? rp : rc;
	}
	if (rc == -ENOMEM || rc == -EINVAL)
		return rc; /* a tree could not be merged: t stays a record of its own */
	r->samples += t->samples;
	for (int i = 0; i < HP_DROP_NREASONS; i++)
		r->dropped[i] += t->dropped[i];
	r->meas_samples += t->meas_samples;
	r->meas_period += t->meas_period;
	r->mpi_samples += t->mpi_samples;
	r->mpi_period += t->mpi_period;
	r->handler_cycles += t->handler_cycles;
	r->stack_overflow += t->stack_overflow;
	r->exit_mismatch += t->exit_mismatch;
	r->overhead += t->overhead;
	r->delay += t->delay;
	r->probe_events += t->probe_events;
	r->cpu_ns += t->cpu_ns;
	r->src.throttled += t->src.throttled;
	r->src.ring_corrupt += t->src.ring_corrupt;
	r->start_ns = MIN_(r->start_ns, t->start_ns);
	r->start_tsc = MIN_(r->start_tsc, t->start_tsc);
	r->end_ns = MAX_(r->end_ns, t->end_ns);
	r->end_tsc = MAX_(r->end_tsc, t->end_tsc);
	hp_thread_mem(r)->unwind_faults += hp_thread_mem(t)->unwind_faults;
	r->merged_threads++;
	return 0;
}

/* The record of a thread that is gone, emptied for a new thread. */
static void retire(struct hp_thread *t)
{
	__atomic_store_n(&t->retired, 1, __ATOMIC_RELEASE);
	reset_counters(t);
	t->exited = 1;
	hp_thread_mem(t)->unwind_faults = hp_thread_mem(t)->stray_signals = 0;
	t->src.throttled = t->src.ring_corrupt = 0;
	cct__reset(&t->sample);
	t->sample.full = 0;
	/* the pages of its nodes go back to the system; the root's stays */
	hp_release_pages((char *)t->sample.nodes + 4096, t->sample.bytes - 4096);
	if (t->probe.nodes) {
		hp_counting_thread_reuse(t);
		t->probe.full = 0;
		hp_release_pages((char *)t->probe.nodes + 4096, t->probe.bytes - 4096);
	}
	t->merged_threads = 0;
}

/* Merge the queued threads that are gone; a free slot for a new thread,
 * or NULL.  Caller: a thread being created, nothing held. */
static struct hp_thread *take_slot(void)
{
	if (!__atomic_load_n(&dying, __ATOMIC_RELAXED) && !__atomic_load_n(&free_slots, __ATOMIC_RELAXED))
		return NULL;
	if (hp_write_trylock() != 0)
		return NULL;
	pthread_mutex_lock(&hp_threads_lock);
	pid_t pid = getpid();
	for (struct hp_thread **pp = &dying; *pp;) {
		struct hp_thread *t = *pp;
		if (syscall(SYS_tgkill, pid, t->tid, 0) == 0 || errno != ESRCH) {
			pp = &t->dying_next; /* still running its last destructors */
			continue;
		}
		*pp = t->dying_next;
		if (!exited_rec)
			exited_rec = new_record();
		if (!exited_rec || merge_into(exited_rec, t) != 0)
			continue; /* kept as a record of its own */
		retire(t);
		t->dying_next = free_slots;
		free_slots = t;
	}
	struct hp_thread *s = free_slots;
	if (s)
		free_slots = s->dying_next;
	pthread_mutex_unlock(&hp_threads_lock);
	hp_write_lock_release();
	return s;
}

/* A free slot made ready for the calling thread: every field zero but the
 * list link and the memory (trees, shadow stack) it keeps. */
static struct hp_thread_mem *reuse_slot(struct hp_thread *s)
{
	struct hp_thread_mem *m = hp_thread_mem(s);
	struct hp_thread keep = *s;
	memset(m, 0, offsetof(struct hp_thread_mem, path)); /* the scratch is zero pages */
	s->sample = keep.sample;
	s->probe = keep.probe;
	s->stack = keep.stack;
	s->probe_cur = CCT_ROOT;
	s->next = keep.next;
	s->exited = 1;                /* until it is published */
	s->retired = 1;
	m->in_list = 1;
	return m;
}

struct hp_thread *hp_thread_create(void)
{
	size_t len = (sizeof(struct hp_thread_mem) + 4095) & ~(size_t)4095;
	struct hp_thread *slot = take_slot();
	struct hp_thread_mem *m = slot ? reuse_slot(slot)
				       : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		hp_log("thread %d runs unprofiled: cannot map its state (%s)", (int)gettid_raw(), strerror(errno));
		return NULL;
	}
	struct hp_thread *t = &m->t;
	t->busy = 1; /* samples before the set-up is complete are dropped */
	t->src.fd = -1;
	t->src.papi_set = -1;
	t->probe_cur = CCT_ROOT;
	identity(m, 1);
	int err = slot ? 0 : cct__init(&t->sample, hp_rt.cfg.max_nodes);
	if (err) {
		hp_log("thread %d runs unprofiled: cannot map its call-path tree of %u nodes (%s)", (int)t->tid,
		       hp_rt.cfg.max_nodes, strerror(-err));
		munmap(m, len);
		return NULL;
	}
	hp_self = t;
	err = hp_counting_thread_init(t);
	if (err)
		hp_log("thread %d: probes are off on this thread (%s)", (int)t->tid, strerror(-err));
	if (exit_key_ok)
		pthread_setspecific(exit_key, t);
	hp_altstack_setup(m);

	if (slot) {
		/* already in the list: it is published when no profile is being
		 * written, so a write counts and writes the same records */
		int wl = hp_write_lock_wait();
		pthread_mutex_lock(&hp_threads_lock);
		t->index = next_index++;
		t->exited = 0;
		__atomic_store_n(&t->retired, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&hp_threads_lock);
		if (wl == 0)
			hp_write_lock_release();
	} else {
		pthread_mutex_lock(&hp_threads_lock);
		t->index = next_index++;
		t->next = hp_rt.threads;
		/* Published last: the list is walked without the lock (pause, write). */
		__atomic_store_n(&hp_rt.threads, t, __ATOMIC_RELEASE);
		hp_rt.nthreads++;
		m->in_list = 1;
		if (t->index == 0)
			hp_main_thread = t;
		pthread_mutex_unlock(&hp_threads_lock);
	}

	t->busy = 0;
	if (hp_rt.active && hp_sampler_thread_start(t) == 0)
		m->sampling = 1;
	return t;
}

static void read_comm(pid_t tid, char name[16])
{
	char path[64];
	hp_fmt(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[16];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (buf[n - 1] == '\n')
		n--;
	memcpy(name, buf, (size_t)n);
	name[n] = '\0';
}

static uint64_t cpu_ns_of(struct hp_thread_mem *m)
{
	struct timespec ts;
	if (!m->has_cpu_clock || clock_gettime(m->cpu_clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hp_thread_finish(struct hp_thread *t)
{
	struct hp_thread_mem *m = hp_thread_mem(t);
	if (t->exited)
		return;
	t->busy++;
	if (m->sampling) {
		hp_sampler_thread_stop(t);
		m->sampling = 0;
	}
	t->end_ns = hp_now_ns();
	t->end_tsc = hp_rdtsc();
	t->cpu_ns = cpu_ns_of(m);
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	hp_altstack_release(m);
	/* The unwinder's scratch (path and trace, several pages) is dead with
	 * the thread: give its whole pages back, so a program that runs
	 * through thousands of threads keeps only their trees.  Reads after
	 * this see zeros, which is fine for scratch. */
	hp_release_pages(m->path, (size_t)((char *)(m->trace + HP_TRACE_MAX) - (char *)m->path));
	t->exited = 1;
	t->busy--;
}

void hp_threads_snapshot(void)
{
	uint64_t now = hp_now_ns(), tsc = hp_rdtsc();
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		if (t->exited)
			continue;
		/* Still running: its data is read as it is now.  Its sampling was
		 * paused by hp_sampling_pause_all(). */
		t->end_ns = now;
		t->end_tsc = tsc;
		t->cpu_ns = cpu_ns_of(hp_thread_mem(t));
		read_comm(t->tid, t->name);
	}
}

void hp_threads_close_all(void)
{
	struct hp_thread *self = hp_self;
	if (self)
		hp_thread_finish(self);
	hp_threads_snapshot();
}

static void reset_counters(struct hp_thread *t)
{
	t->samples = t->meas_samples = t->meas_period = t->handler_cycles = t->comp_cycles = 0;
	t->comp_folded = 0;
	t->mpi_samples = t->mpi_period = 0;
	memset(t->dropped, 0, sizeof(t->dropped));
	t->stack_overflow = t->exit_mismatch = 0;
	t->overhead = t->delay = 0;
	t->probe_events = 0;
	t->exited = 0;
	t->end_ns = t->end_tsc = t->cpu_ns = 0;
}

/* In the forked child the probe tree may have functions open on the shadow
 * stack (main, ..., the caller of fork): their node indices must stay valid,
 * so when frames are open the tree keeps its shape and only the metrics are
 * zeroed; open frames restart their clocks at the fork. */
static void reset_probe_tree(struct hp_thread *t)
{
	if (!t->probe.nodes)
		return;
	if (t->sp == 0) {
		cct__reset(&t->probe);
		t->probe_cur = CCT_ROOT;
		return;
	}
	for (uint32_t i = 0; i < t->probe.n; i++) {
		struct cct_node *n = &t->probe.nodes[i];
		n->samples = n->period = n->calls = 0;
		n->incl = n->excl = n->incl_comp = n->excl_comp = 0;
		n->probes_inside = n->clamped = n->skipped = n->meas_samples = 0;
	}
	t->probe.full = 0;
	uint64_t now = hp_rdtsc();
	for (uint32_t i = 0; i < t->sp && t->stack; i++) {
		t->stack[i].t_enter = now;
		t->stack[i].probes_at = 0;
		t->stack[i].child_incl = t->stack[i].child_comp = 0;
	}
}

void hp_threads_after_fork_child(void)
{
	pthread_mutex_init(&hp_threads_lock, NULL);
	struct hp_thread *self = hp_self;
	/* Only the forking thread exists in the child.  The others' structs are
	 * copies of the parent's: unlink them (their memory is left alone). */
	hp_rt.threads = NULL;
	hp_rt.nthreads = 0;
	hp_main_thread = NULL;
	next_index = 0;
	exited_kept = 0;
	dying = free_slots = exited_rec = NULL;
	if (!self) {
		hp_thread_create();
		return;
	}
	struct hp_thread_mem *m = hp_thread_mem(self);
	self->busy++;
	cct__reset(&self->sample);
	reset_probe_tree(self);
	reset_counters(self);
	identity(m, 0);
	m->sampling = 0;
	m->unwind_faults = m->stray_signals = 0;
	self->index = next_index++;
	self->next = NULL;
	hp_rt.threads = self;
	hp_rt.nthreads = 1;
	hp_main_thread = self;
	if (exit_key_ok)
		pthread_setspecific(exit_key, self);
	self->busy--;
	if (hp_rt.active && hp_sampler_thread_start(self) == 0)
		m->sampling = 1;
}

/* ---- pthread_create ---------------------------------------------------- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *start_wrapper(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	hp_thread_create();
	return s.fn(s.arg);
}

/* The program's thread or process was refused for want of tasks
 * (RLIMIT_NPROC, or the system's threads-max): hyprof's own threads (live
 * statistics, the cost controller) hold tasks the program counts on.  They
 * give way, once and for good.  Returns 1 if one of them stopped: the caller
 * tries again while their tasks end (the kernel frees a task a moment after
 * its thread leaves), and the program gets what it would have had without
 * hyprof.  Not signal-safe. */
int hp_helpers_yield(const char *what, int err)
{
	static int yielded;
	if (__atomic_exchange_n(&yielded, 1, __ATOMIC_ACQ_REL))
		return 0;
	int live = hp_live_yield(), cost = hp_cost_yield();
	if (!live && !cost)
		return 0;
	hp_log("the program could not create a %s (%s: RLIMIT_NPROC?): hyprof's %s%s%s stopped "
	       "to leave the program its tasks",
	       what, strerror(err), live ? "live statistics" : "", live && cost ? " and " : "",
	       cost ? "cost controller (budget and predictions as they were)" : "");
	return 1;
}

/* Wait a millisecond before the next try of a creation refused with EAGAIN. */
void hp_helpers_wait(void)
{
	struct timespec ts = {0, 1000000};
	nanosleep(&ts, NULL);
}

static int create_with_room(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int rc = real_pthread_create(th, attr, fn, arg);
	if (rc != EAGAIN || !hp_helpers_yield("thread", rc))
		return rc;
	for (int i = 0; i < HP_HELPERS_TRIES && rc == EAGAIN; i++) {
		hp_helpers_wait();
		rc = real_pthread_create(th, attr, fn, arg);
	}
	return rc;
}

HP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (!real_pthread_create)
		hp_thread_resolve();
	if (!real_pthread_create)
		return EAGAIN;
	hp_runtime_start();
	if (!hp_rt.initialized || !hp_rt.active)
		return real_pthread_create(th, attr, fn, arg);
	struct start *s = malloc(sizeof(*s));
	if (!s)
		return real_pthread_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = create_with_room(th, attr, start_wrapper, s);
	if (rc)
		free(s);
	return rc;
}
