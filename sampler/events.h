/* sampler/events.h - the event names hyprof's perf_event sources know, and
 * whether a name can be a sampling event at all (for `hyprof run`, which
 * refuses a name no source knows before starting the program).
 *
 * Pure (tables and string comparisons): linked into the runtime and into the
 * command-line tool.  Signal-safe.
 */
#ifndef HYPROF_SAMPLER_EVENTS_H
#define HYPROF_SAMPLER_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct hp_perf_event {
	const char *name;  /* "cycles" */
	uint32_t type;     /* PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	uint64_t config;
	int is_clock;      /* period in ns */
};

/* perf's hardware events (perf_hw.c) and software events (perf_sw.c). */
extern const struct hp_perf_event hp_perf_hw_events[], hp_perf_sw_events[];
extern const size_t hp_perf_hw_nevents, hp_perf_sw_nevents;

/* `name` in `tab`, exactly.  NULL when unknown. */
const struct hp_perf_event *hp_perf_lookup(const struct hp_perf_event *tab, size_t n, const char *name);
/* Look `name` up in `tab`, accepting perf's ":u" suffix (user space only,
 * sets *user_only).  NULL when unknown. */
const struct hp_perf_event *hp_perf_event_named(const struct hp_perf_event *tab, size_t n,
						const char *name, int *user_only);

/* How the sources would take an event name (as sampler/choose.c asks them):
 *   HP_EVENT_PERF   one of perf's named events (with or without ":u");
 *   HP_EVENT_TIMER  "posix-timer";
 *   HP_EVENT_PAPI   a PAPI preset (PAPI_...) or a native name with "::":
 *                   PAPI decides on the machine whether it exists;
 *   HP_EVENT_OTHER  none of these: only PAPI could still know it (a native
 *                   name without a component prefix). */
enum { HP_EVENT_PERF, HP_EVENT_TIMER, HP_EVENT_PAPI, HP_EVENT_OTHER };
int hp_event_kind(const char *name);

#endif
