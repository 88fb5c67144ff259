/* runtime/live.h - live statistics: the profile as it is now, readable from
 * outside while the program runs (`hyprof watch`, docs/cmd-watch.md).
 *
 * A low-priority runtime thread (not a program thread: created with the real
 * pthread_create, all signals blocked, never sampled, not in the profile's
 * THREAD sections) writes a snapshot of the whole profile every
 * HYPROF_LIVE_INTERVAL seconds (default 1) into
 *     <out_dir>/.live/<profile file name>
 * with hp_write_snapshot() (runtime/writer.h): same format as the final
 * profile, rewritten in place through a temporary file + rename, so its size
 * is bounded by the call paths, not by the run time, and a reader never sees
 * half a file.  After a SIGKILL the last snapshot remains.  HYPROF_LIVE=0
 * turns it off.  Its cost (CPU time of the thread and of the snapshots) is
 * kept in section HP_SEC_LIVE (key `cpu_ns`) and by hp_live_cost_ns().
 */
#ifndef HYPROF_RUNTIME_LIVE_H
#define HYPROF_RUNTIME_LIVE_H

#include <stdint.h>

#include "runtime/state.h"

/* Default period of the snapshots, seconds (HYPROF_LIVE_INTERVAL). */
#define HP_LIVE_DEFAULT_INTERVAL 1.0

/* Start the snapshot thread of this process (once; again in a forked child,
 * which does that by itself from a pthread_atfork child handler, and after
 * hp_live_stop()/hp_live_exec() when the process goes on).  Does
 * nothing when HYPROF_LIVE=0 or the runtime is not initialized.  Returns 0
 * or -errno (the program runs on; one line is logged).  Not signal-safe. */
int hp_live_start(void);

/* Stop the thread (waits at most 2 s for a snapshot in progress) and, if a
 * snapshot was ever written, write a last one marked `ended`, so the live
 * file holds the process's final statistics.  Call before the final write of
 * the profile.  Idempotent.  Signal-safe (futex, nanosleep and the
 * signal-safe writer only). */
void hp_live_stop(void);

/* Before an exec (after the profile's partial write): stop the thread and
 * write the last snapshot marked `exec`.  If the exec fails, call
 * hp_live_start() to go on.  Signal-safe. */
void hp_live_exec(void);

/* The program could not create a thread (RLIMIT_NPROC): stop the snapshot
 * thread for good, as hp_live_stop(), so its task is the program's.  Returns
 * 1 if a thread of this process was running and has left its loop (the task
 * ends a moment later), else 0.  Not signal-safe. */
int hp_live_yield(void);

/* CPU time spent on live statistics in this process so far, ns: the
 * snapshot thread's own CPU time plus snapshots written on other threads
 * (the last one, at stop).  Measurement overhead for the cost system.
 * Signal-safe. */
uint64_t hp_live_cost_ns(void);

/* 1 when the program has no thread left and only hyprof's own threads
 * (named "hyprof-*") keep the process alive: every thread the runtime knows
 * has ended and /proc/self/task lists no other running task.  glibc ends a
 * process when its last pthread ends and counts hyprof's threads too, so
 * after the main thread's pthread_exit each of them must leave when this
 * says so (the snapshot thread returns; the cost controller calls exit(0)).
 * Reads /proc only when every known thread has ended, else answers from the
 * thread list.  Not signal-safe. */
HP_EXPORT int hp_only_helpers_left(void);

#endif
