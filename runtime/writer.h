/* runtime/writer.h - the profile writer's side functions (hp_write_profile
 * and hp_register_section_writer are declared in runtime/state.h). */
#ifndef HYPROF_RUNTIME_WRITER_H
#define HYPROF_RUNTIME_WRITER_H

#include <stddef.h>

/* Section writers that hp_register_section_writer() accepts. */
#define HP_MAX_SECTION_WRITERS 16

/* Capture what the writer cannot read in a signal handler (the command line
 * from /proc/self/cmdline).  Runs from this file's constructor; calling it
 * again (after exec the new image runs it itself) refreshes it.  Not
 * signal-safe. */
void hp_profile_init(void);

/* Path of the last profile written by this process, "" if none.
 * Signal-safe. */
const char *hp_profile_path(void);

/* The plain path hp_write_profile() writes to, into buf (it adds .<n>
 * before the extension if a file of that name from another process image,
 * e.g. the one before an exec, exists).  Returns 0 or -ENAMETOOLONG.
 * Signal-safe. */
int hp_profile_name(char *buf, size_t len);

#endif
