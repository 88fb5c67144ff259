/* counting/counting.h - probes: what the rest of the runtime sees of them. */
#ifndef HYPROF_COUNTING_COUNTING_H
#define HYPROF_COUNTING_COUNTING_H

#include "runtime/state.h"

/* Process-wide set-up (mode, filter, region table, section writers).
 * Returns 0 or -errno.  Called by the runtime after calibration. */
int hp_counting_init(void);
/* Per-thread set-up: map the shadow stack, create the probe tree root. */
int hp_counting_thread_init(struct hp_thread *t);

#endif
