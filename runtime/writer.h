/* runtime/writer.h - the profile writer's side functions (hp_write_profile
 * and hp_register_section_writer are declared in runtime/state.h). */
#ifndef HYPROF_RUNTIME_WRITER_H
#define HYPROF_RUNTIME_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "runtime/state.h"

/* Section writers that hp_register_section_writer() accepts. */
#define HP_MAX_SECTION_WRITERS 16

/* Capture what the writer cannot read in a signal handler (the command line
 * from /proc/self/cmdline).  Runs from this file's constructor; calling it
 * again (after exec the new image runs it itself) refreshes it.  Not
 * signal-safe. */
void hp_profile_init(void);

/* What a write error (-rc of the writer, rc > 0 here) means, for the one
 * line hp_log() prints: strerror() may translate (locale, malloc), so not
 * in signal context.  Signal-safe. */
const char *hp_write_strerror(int e);

/* Path of the last profile written by this process, "" if none.
 * Signal-safe. */
const char *hp_profile_path(void);

/* The plain path hp_write_profile() writes to, into buf (it adds .<n>
 * before the extension if a file of that name from another process image,
 * e.g. the one before an exec, exists).  Returns 0 or -ENAMETOOLONG.
 * Signal-safe. */
int hp_profile_name(char *buf, size_t len);

/* ---- live snapshots (runtime/live.c, docs/cmd-watch.md) -------------------
 * A snapshot is the profile as it is now, written to another path while the
 * program runs: the same META, MODULES and THREAD sections as
 * hp_write_profile(), then the extension sections whose owners registered
 * them as live (below).  It takes the same write lock (so it never
 * interleaves with the real write), goes through the same temporary file +
 * rename (a reader never sees half a file), and changes nothing of the
 * profile proper: hp_rt.written, hp_profile_path() and the name choice are
 * untouched.  Tree links to nodes inserted after a tree's node count was
 * read are redirected as in the real write (a snapshot only ever points
 * inside its own arrays). */

/* Write a snapshot to `path` (directories created as needed).  Stores the
 * file's size in *bytes when not NULL.  Returns 0 or -errno; logs nothing
 * (the caller decides how often to say so).  Signal-safe. */
int hp_write_snapshot(const char *path, uint64_t *bytes);
/* The writers' lock, for changing which thread records exist
 * (runtime/thread.c): no profile or snapshot is being written while it is
 * held.  hp_write_trylock() returns 0 when taken, -EBUSY if a write is under
 * way; hp_write_lock_wait() waits (bounded, 10 s) and returns 0 or -errno.
 * Not signal-safe. */
int hp_write_trylock(void);
int hp_write_lock_wait(void);
void hp_write_lock_release(void);

/* Register a section writer that is also called for live snapshots, or mark
 * an already registered one so (hp_register_section_writer() registers for
 * the real profile only, because a writer may have side effects meant for
 * the end, such as stopping a controller).  A live writer runs on the
 * snapshot thread while every program thread keeps running: it must only
 * read, and use hp_writing_snapshot() to skip anything meant for the final
 * write.  Returns 0, -EINVAL or -ENOSPC (HP_MAX_SECTION_WRITERS).
 * Thread-safe. */
HP_EXPORT int hp_register_live_section_writer(hp_section_writer_fn fn, void *arg);

/* 1 while the write in progress is a live snapshot, 0 otherwise; meant for
 * section writers.  Signal-safe. */
HP_EXPORT int hp_writing_snapshot(void);

/* Ignore SIGXFSZ around a write of hyprof's own (a file past RLIMIT_FSIZE
 * then fails with EFBIG instead of ending the program) and raise the soft
 * RLIMIT_FSIZE to the hard one, then put the program's disposition and
 * limit back.  Every profile write of writer.c does it;
 * other writers (the MPI merge) call these.  Signal-safe. */
struct hp_ksigaction { /* the kernel's struct sigaction (rt_sigaction) */
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};
struct hp_xfsz {
	int held, raised;
	struct hp_ksigaction old;
	struct rlimit lim;
};
HP_EXPORT void hp_xfsz_hold(struct hp_xfsz *x);
HP_EXPORT void hp_xfsz_release(const struct hp_xfsz *x);

#endif
