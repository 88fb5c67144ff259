/* runtime/modules.h - the module map: every object loaded during the run.
 *
 * Objects are recorded with dl_iterate_phdr at start-up and after every
 * dlopen/dlmopen (both interposed), and marked unloaded after a dlclose
 * that unmapped them, so the profile can symbolize samples from a plugin
 * closed before exit.  The records live in static memory: writing them
 * (HP_SEC_MODULES) never calls the loader and is signal-safe.
 */
#ifndef HYPROF_RUNTIME_MODULES_H
#define HYPROF_RUNTIME_MODULES_H

#include <stdint.h>

struct hp_writer;

/* struct hp_module_rec.flags */
#define HP_MOD_MAIN 1u   /* the main executable */
#define HP_MOD_HYPROF 2u /* the hyprof runtime itself */
#define HP_MOD_VDSO 4u   /* the kernel's vDSO (no file on disk) */

#define HP_MOD_MAX 4096          /* records kept, loaded and unloaded */
#define HP_MOD_POOL (512 * 1024) /* bytes of path names kept */

/* Record the objects loaded now and resolve the real dlopen/dlmopen/dlclose.
 * Idempotent (the runtime constructor and this file's own constructor may
 * both call it).  Returns 0 or -errno.  Not signal-safe. */
int hp_modules_init(void);

/* Write the HP_SEC_MODULES section: u32 count, then per object a struct
 * hp_module_rec and its path.  Returns 0 or the writer's -errno.
 * Signal-safe: reads the static records only. */
int hp_modules_section_writer(struct hp_writer *w, void *arg);

/* Objects recorded so far (loaded or unloaded) and records refused because
 * the table or the name pool was full.  Signal-safe. */
uint32_t hp_modules_count(void);
uint64_t hp_modules_dropped(void);

#endif
