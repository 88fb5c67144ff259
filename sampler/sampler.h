/* sampler/sampler.h - what the rest of the runtime sees of sampling. */
#ifndef HYPROF_SAMPLER_SAMPLER_H
#define HYPROF_SAMPLER_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/state.h"
#include "sampler/source.h"

/* Code of hyprof's that a sample can land in and that counts as measurement
 * cost (ALGORITHMS.md section 3): probe functions are placed in this section,
 * and other libraries (the MPI wrappers) register their text range. */
#define HP_PROBE_TEXT __attribute__((section("hyprof_probe"), noinline))

/* Choose the source (automatic fallback or cfg.event), install the signal
 * handler, record the choice and why in hp_rt.  Returns 0 or -errno with a
 * one-line reason logged.  Not signal-safe. */
int hp_sampler_init(void);
int hp_sampler_thread_start(struct hp_thread *t);
void hp_sampler_thread_stop(struct hp_thread *t);
void hp_sampler_shutdown(void);

/* The one sample path every source ends in: drop and count if the thread is
 * busy in the runtime or the loader, count measurement samples, otherwise
 * unwind from `ucontext` and add `period` to the leaf of the path.
 * Signal-safe. */
void hp_sample_take(struct hp_thread *t, void *ucontext, uint64_t period);

/* Register [lo, hi) as measurement code of a kind: HP_MEAS_PROBES (the
 * probes, the runtime they call, their PLT entries) or HP_MEAS_MPI (the MPI
 * wrappers, whose cost the wrappers time themselves).  Returns 0, -EINVAL
 * or -ENOSPC. */
#define HP_MEAS_PROBES 1
#define HP_MEAS_MPI 2
HP_EXPORT int hp_register_measurement_range(uintptr_t lo, uintptr_t hi, int kind);
/* Is pc inside hyprof's code?  0, or the kind of the range it is in.
 * Signal-safe. */
int hp_pc_is_measurement(uintptr_t pc);

/* The fallback choice, pure so it can be tested without a PMU: try each of
 * `n` sources in order (or only those that accept `event`), record each
 * refusal in why.  Returns the index chosen or -1. */
int hp_source_choose(const struct hp_source_ops *const *srcs, size_t n, const char *event,
		     uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		     char *why, size_t whylen);

#endif
