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
/* The same for a profile written while the program may go on (the partial
 * write before an exec, which can fail): close the calling thread's open
 * frames now, keeping what is needed to reopen them exactly as they were
 * with hp_counting_open_restore() if the program continues (used before an
 * exec and for the profile merged at MPI_Finalize).  Measured mode
 * only (elsewhere open frames carry no time).  Returns 1 when frames were
 * closed, 0 when there was nothing to do, -errno when the copy could not
 * be made (then nothing was changed).  Not signal-safe (mmap). */
struct hp_open_save {
	uint32_t sp, cur, n;
	size_t len;
	void *mem; /* n + 1 frames (from stack[-1]), then n nodes */
};
/* exported: mpiwrap's merge at MPI_Finalize writes while main is open */
HP_EXPORT int hp_counting_open_close(struct hp_thread *t, struct hp_open_save *s);
HP_EXPORT void hp_counting_open_restore(struct hp_thread *t, struct hp_open_save *s);
/* The thread has exited: release the probe memory it no longer needs
 * (its tree stays).  Not signal-safe. */
void hp_counting_thread_retire(struct hp_thread *t);
/* A thread that is gone, merged into the "[exited]" record: reset its
 * probe tree and probe memory, so the slot can serve a new thread.  Not
 * signal-safe. */
void hp_counting_thread_reuse(struct hp_thread *t);
/* The mean cost of one probe pair over every pair that ran, in TSC
 * cycles, each pair at the cost in effect when it ran (measured mode's
 * in-situ recalibration updates it during the run; otherwise the start-up
 * value); 0 when no probe ran.  Signal-safe (reads the thread records). */
double hp_counting_pair_mean_cycles(void);
/* Probes return at once from now on (teardown).  Signal-safe. */
void hp_counting_shutdown(void);

#endif
