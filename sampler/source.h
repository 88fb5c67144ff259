/* sampler/source.h - a sample source: one file per source, one ops struct.
 *
 * The table hp_sources[] lists them in the order the automatic fallback
 * tries them: perf_event hardware cycles, PAPI overflow on PAPI_TOT_CYC,
 * perf_event software task-clock, then cpu-clock, then a POSIX per-thread
 * timer.  `--event NAME` asks every source whether it knows NAME.
 */
#ifndef HYPROF_SAMPLER_SOURCE_H
#define HYPROF_SAMPLER_SOURCE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct hp_thread;

struct hp_source_ops {
	const char *name;        /* "perf-hw", "papi", "perf-sw", "posix-timer" */
	/* Process-wide set-up for `event` ("" = this source's default).  Fills
	 * unit ("ns"/"events") and the period to use.  Returns 0, or -errno with
	 * the reason (and the advice) in why. */
	int (*open)(const char *event, uint64_t period, uint64_t freq, char *unit,
		    uint64_t *period_out, char *why, size_t whylen);
	/* Start sampling on the calling thread.  Returns 0 or -errno. */
	int (*thread_start)(struct hp_thread *t);
	/* Stop sampling on the calling thread (thread exit, write, fork). */
	void (*thread_stop)(struct hp_thread *t);
	/* In the handler: was this signal ours (si_fd / si_value check)?  Fills
	 * the period of this sample and re-arms.  Signal-safe. */
	int (*on_signal)(struct hp_thread *t, siginfo_t *si, uint64_t *period);
	void (*close)(void);
	/* Name of the event open() chose ("task-clock", "cycles:u"), valid
	 * after a successful open(). */
	const char *(*event_name)(void);
	/* Stop (on = 0) or restart (on = 1) delivery on thread t from any
	 * thread (exit, exec, fatal signal).  NULL when the source cannot; the
	 * handler then drops samples while the runtime is paused.  Signal-safe. */
	void (*pause)(struct hp_thread *t, int on);
};
/* open() conventions: -ENOENT means "this source does not know `event`"
 * (the choice then tries the next source without recording a refusal);
 * on success `why` may hold a note (e.g. "task-clock refused, using
 * cpu-clock") that the choice appends to hp_rt.source_why. */

extern const struct hp_source_ops *const hp_sources[];
extern const size_t hp_nsources;

#endif
