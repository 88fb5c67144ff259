/* runtime/lifecycle.h - internals shared by the runtime's life-cycle files
 * (init.c, config.c, thread.c, process.c, log.c) and the sampler.
 *
 * Not an interface for other parts of hyprof: they use runtime/state.h.
 */
#ifndef HYPROF_RUNTIME_LIFECYCLE_H
#define HYPROF_RUNTIME_LIFECYCLE_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "runtime/state.h"

/* ---- per-thread memory ------------------------------------------------
 * One mmap per thread holds struct hp_thread followed by the parts only the
 * life cycle and the sampler use.  hp_thread is the first member, so a
 * struct hp_thread * converts to its struct hp_thread_mem * (hp_thread_mem()).
 * Nothing in it is ever freed: a thread's data outlives the thread and is
 * written at process exit. */
#define HP_ALTSTACK_SIZE (64 * 1024)
#define HP_TRACE_MAX 8192 /* frames walked per sample at most */
/* Sample-tree key of the node that stands for frames beyond HP_TRACE_MAX
 * (outermost part of the stack unknown); flagged CCT_F_TRUNCATED. */
#define HP_KEY_TRUNCATED 1

struct hp_thread_mem {
	struct hp_thread t;
	uintptr_t stack_lo, stack_hi; /* the thread's stack, for the fp unwinder */
	clockid_t cpu_clock;          /* this thread's CPU-time clock */
	int has_cpu_clock;
	int sampling;                 /* the source was started on this thread */
	int in_list;                  /* linked in hp_rt.threads */
	void *altstack;               /* our sigaltstack, NULL if the thread has its own */
	/* The sampler's recovery point: a fault while unwinding (bad memory in
	 * a frame chain) jumps back here and the sample is dropped. */
	sigjmp_buf unwind_jmp;
	volatile sig_atomic_t unwinding;
	volatile sig_atomic_t walk_n; /* frames of trace[] known good, for recovery */
	uint64_t unwind_faults;
	uint64_t stray_signals;       /* sampling signals that were not this thread's */
	uint64_t path[HP_UNWIND_MAX]; /* the path of a sample, root first */
	/* Unwinder scratch, leaf first.  Deeper than the path so the outermost
	 * frames of a deep stack can be kept; pages are touched only as deep as
	 * the program's stack goes. */
	uint64_t trace[HP_TRACE_MAX];
};

static inline struct hp_thread_mem *hp_thread_mem(struct hp_thread *t)
{
	return (struct hp_thread_mem *)t;
}

/* ---- log.c ------------------------------------------------------------- */
/* Signal-safe vsnprintf subset: %s %d %i %u %x %p %c %% with l/ll/z/h
 * modifiers and an optional '0' flag and width.  Always NUL-terminates;
 * returns the length written (truncated output is cut, never overrun). */
size_t hp_vfmt(char *buf, size_t len, const char *fmt, va_list ap);
size_t hp_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Write a whole buffer to fd 2, retrying on EINTR.  Signal-safe. */
void hp_write_stderr(const char *s, size_t n);
/* Remember which file descriptor 2 is (the constructor): hyprof's lines go
 * there only while descriptor 2 is still that file. */
void hp_log_bind_stderr(void);

/* ---- sigmask.c ---------------------------------------------------------- */
/* Resolve the real pthread_sigmask and sigprocmask (start-up). */
void hp_sigmask_resolve(void);
/* The real pthread_sigmask, for hyprof's own code: its set is not stripped
 * of the sampling signal.  Signal-safe. */
int hp_sigmask_real(int how, const sigset_t *set, sigset_t *old);
/* Name of a signal ("SIGSEGV", "SIGRTMIN+3").  Signal-safe (static strings
 * or the caller's buffer). */
const char *hp_signal_name(int sig, char *buf, size_t len);

/* ---- config.c ---------------------------------------------------------- */
/* Parse a signal given as a number or a name (SIGUSR2, USR2, SIGRTMIN+3,
 * RTMAX-1).  Returns the number, or -EINVAL. */
int hp_parse_signal(const char *s);
/* log.c: number of a signal named "SIGUSR2" or "USR2" (not RT names), or -1. */
int hp_signal_lookup(const char *name);

/* ---- init.c ------------------------------------------------------------ */
/* Start the runtime once (constructor, or the first interposed call that
 * needs it).  Never fails the program: on error it logs one line and leaves
 * hp_rt.initialized at 0.  Thread-safe (pthread_once). */
void hp_runtime_start(void);
/* Stop sample delivery on every thread (any thread may call it), and wait
 * (bounded) for handlers already running to finish.  Signal-safe. */
void hp_sampling_pause_all(void);
/* Undo hp_sampling_pause_all() (after a failed exec).  Signal-safe. */
void hp_sampling_resume_all(void);
/* Fold process-wide counters into the main thread and write the profile.
 * Returns what hp_write_profile() returned.  Signal-safe. */
int hp_write_now(int partial, const char *why);
/* Any sample, drop or probe event recorded in this process?  Signal-safe. */
int hp_has_data(void);
/* The exit summary line (unless quiet).  Not signal-safe when full is 1
 * (calls the summary hook); `full` 0 is for fatal paths. */
void hp_print_summary(const char *how, int full);
/* Final stop at process exit: stop sampling, record end times, write,
 * summary.  Idempotent. */
HP_EXPORT void hp_runtime_finish(const char *how);
/* In a forked child: the child's own exit writes its own profile. */
void hp_runtime_after_fork_child(void);

/* ---- thread.c ---------------------------------------------------------- */
extern pthread_mutex_t hp_threads_lock;
extern struct hp_thread *hp_main_thread;
/* Create the calling thread's state: map it, set TLS, record identity and
 * stack bounds, run counting's per-thread set-up, start sampling, link it.
 * Returns NULL on failure (the thread then runs unprofiled).  Not signal-safe. */
struct hp_thread *hp_thread_create(void);
/* End of the calling thread's life: stop sampling, record end and CPU time. */
void hp_thread_finish(struct hp_thread *t);
/* For the threads still running: end time, CPU time and name as of now
 * (exec, fatal signal: the process goes away with them).  Signal-safe. */
void hp_threads_snapshot(void);
/* Process exit: finish the calling thread, snapshot the others. */
void hp_threads_close_all(void);
/* In a forked child: forget the parent's other threads, reset this one. */
void hp_threads_after_fork_child(void);
/* Resolve pthread_create & co. (dlsym RTLD_NEXT). */
void hp_thread_resolve(void);
/* A thread or process the program creates was refused with EAGAIN: stop
 * hyprof's helper threads (once) so their tasks are the program's.  Returns 1
 * if one stopped; then try again, hp_helpers_wait() between tries, at most
 * HP_HELPERS_TRIES times.  Not signal-safe. */
int hp_helpers_yield(const char *what, int err);
void hp_helpers_wait(void);
#define HP_HELPERS_TRIES 200
/* Set the calling thread's TLS pointer (NULL to detach). */
void hp_thread_set_self(struct hp_thread *t);

/* ---- process.c --------------------------------------------------------- */
/* Resolve every real function that process.c interposes. */
void hp_process_resolve(void);
/* Install fork handlers and the fatal-signal handlers.  Not signal-safe. */
int hp_process_init(void);
/* Real sigaction (not the interposed one), for the runtime's own handlers. */
int hp_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* Called by process.c's fatal handler when a fault hits a thread that is
 * unwinding: jumps back into the sample handler.  Returns if it was not. */
void hp_sampler_fault_recover(int sig);
/* Make sure the calling thread has an alternate signal stack for the fatal
 * handlers (a stack overflow must still leave a profile). */
void hp_altstack_setup(struct hp_thread_mem *m);
void hp_altstack_release(struct hp_thread_mem *m);

/* ---- sampler internals the life cycle uses (sampler/handler.c) -------- */
/* Handlers running right now, on any thread.  Signal-safe. */
int hp_sampler_inflight(void);
/* Samples that arrived on threads without state, not yet folded into the
 * main thread's dropped[HP_DROP_NOTHREAD]; returns and clears.  Signal-safe. */
uint64_t hp_sampler_take_nothread(void);
/* Forked child: close the sample sources inherited from the parent (without
 * touching the parent's events).  Not signal-safe. */
void hp_sampler_after_fork_child(void);
/* Before exec: set the sampling signal to SIG_IGN, which discards pending
 * instances (the new image must not inherit one with the default action,
 * which would kill it).  The setting stays ignored across the exec; the new
 * image's hyprof installs its own handler.  Signal-safe. */
void hp_sampler_discard_pending(void);
/* After a failed exec: the sampling handler again.  Signal-safe. */
void hp_sampler_restore_handler(void);

/* ---- summary hook (state.h declares hp_set_summary_hook) -------------- */
extern int (*hp_summary_hook)(char *buf, size_t len);

#endif
