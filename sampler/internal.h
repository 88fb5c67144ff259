/* sampler/internal.h - what the sampler's files share (not an interface). */
#ifndef HYPROF_SAMPLER_INTERNAL_H
#define HYPROF_SAMPLER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/lifecycle.h"
#include "sampler/events.h"
#include "sampler/sampler.h"

extern const struct hp_source_ops hp_source_perf_hw;
extern const struct hp_source_ops hp_source_papi;
extern const struct hp_source_ops hp_source_perf_sw;
extern const struct hp_source_ops hp_source_posix_timer;

/* ---- handler.c --------------------------------------------------------- */
/* The skeleton for sources whose signal is delivered by someone else (PAPI
 * calls its overflow callback from its own handler): the same checks and
 * accounting as the sampling signal handler, with the period known.
 * Signal-safe. */
void hp_sampler_deliver(void *ucontext, uint64_t period);
/* `--unwind kernel`: a sample whose call path the kernel walked, leaf
 * first in hp_thread_mem(t)->trace[0..n) (complete: the outermost frame
 * was reached).  Same accounting as a signal sample; in_context: the probe
 * node current now is the sample's (one signal per sample, own thread).
 * Signal-safe. */
void hp_sample_take_chain(struct hp_thread *t, int n, int complete, uint64_t period, int in_context);

/* ---- unwind.c ---------------------------------------------------------- */
/* Choose the unwinder (HYPROF_UNWIND) and set libunwind's caching policy. */
int hp_unwind_init(int method);
/* Unwind from the signal context into m->path, root first, the leaf (the
 * interrupted PC) last.  Returns the number of frames (0 or less: failed
 * before any frame); *truncated is set when frames between the outermost
 * HP_UNWIND_MAX - 1 and the leaf were left out.  Signal-safe. */
int hp_unwind(struct hp_thread_mem *m, void *ucontext, int *truncated);
/* Per-thread unwinder set-up, at thread start (not in a signal). */
void hp_unwind_thread_init(void);
/* m->trace[0..n) holds a walk leaf first (complete: it reached the
 * outermost frame): build m->path root first, as hp_unwind() does. */
int hp_unwind_finish(struct hp_thread_mem *m, int n, int complete, int *truncated);

/* ---- perf.c: what perf_hw.c and perf_sw.c share ------------------------ */

/* The event a source opened, shared by every thread. */
struct hp_perf_choice {
	const struct hp_perf_event *ev;
	uint64_t period;   /* 0: frequency mode */
	uint64_t freq;
	int exclude_kernel;
	int kernel_chain;  /* --unwind kernel: callchains in the ring (perf_ring.c) */
	char name[64];     /* "task-clock", "cycles:u" */
};

/* Open `ev` on the calling thread with the period or frequency, trying kernel
 * samples first (unless user_only) and user-only on EACCES.  Fills c.
 * Returns an fd or -errno. */
int hp_perf_probe(const struct hp_perf_event *ev, uint64_t period, uint64_t freq, int user_only,
		  struct hp_perf_choice *c);
/* One line of advice for errno `e` when opening ev, from this machine's
 * perf_event_paranoid and PMU. */
void hp_perf_why(const char *src, const struct hp_perf_event *ev, int e, char *why, size_t len);

/* Whether the kernel exposes a hardware PMU (sysfs event source "cpu", or
 * "cpu_core" on a hybrid CPU).  Not signal-safe. */
int hp_perf_hw_pmu_present(void);

/* A thread's first sampling period, uniform in [1, period] (sampler/perf.c
 * and posix_timer.c say why).  Not signal-safe (a thread's start). */
uint64_t hp_first_period(uint64_t period, pid_t tid);
/* In a forked child: the next thread start (the forking thread's own)
 * takes a whole first period.  It goes on from the parent; a random phase
 * would give a child that execs at once a sample of its few microseconds
 * about as often as not, and a profile file for it. */
void hp_first_period_whole_next(void);
/* advice.c, pure: the same given the machine's state. */
void hp_perf_advice(const char *src, const char *event, int hardware, int e, int paranoid, int has_pmu,
		    char *why, size_t len);
int hp_perf_thread_start(const struct hp_perf_choice *c, struct hp_thread *t);
void hp_perf_thread_stop(struct hp_thread *t);
int hp_perf_on_signal(struct hp_thread *t, siginfo_t *si, uint64_t *period);
void hp_perf_pause(struct hp_thread *t, int on);

#endif
