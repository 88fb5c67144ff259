/* counting/counting.h - probes: what the rest of the runtime sees of them. */
#ifndef HYPROF_COUNTING_COUNTING_H
#define HYPROF_COUNTING_COUNTING_H

#include "runtime/state.h"

/* Process-wide set-up (mode, filter, region table, section writers).
 * Returns 0 or -errno.  Called by the runtime after calibration. */
int hp_counting_init(void);
/* Per-thread set-up: map the shadow stack, create the probe tree root. */
int hp_counting_thread_init(struct hp_thread *t);
/* Close the open probe frames of `t` as if the calls returned now (process
 * exit while functions are still active, e.g. exit() called inside main):
 * their counts stay, and in measured mode their inclusive times are added.
 * Call on the exiting thread, or for a thread that has finished, before the
 * profile's thread sections are written.  Signal-safe. */
void hp_counting_thread_flush(struct hp_thread *t);
/* The thread has exited: release the probe memory it no longer needs
 * (its tree stays).  Not signal-safe. */
void hp_counting_thread_retire(struct hp_thread *t);
/* Probes return at once from now on (teardown).  Signal-safe. */
void hp_counting_shutdown(void);

#endif
