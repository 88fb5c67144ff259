/* sampler/events.c - the event tables of the perf_event sources and the
 * classification of a name (sampler/events.h).  Pure. */
#include <linux/perf_event.h>
#include <string.h>

#include "sampler/events.h"

const struct hp_perf_event hp_perf_hw_events[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 0},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0},
	{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 0},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 0},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 0},
};
const size_t hp_perf_hw_nevents = sizeof(hp_perf_hw_events) / sizeof(hp_perf_hw_events[0]);

const struct hp_perf_event hp_perf_sw_events[] = {
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0},
	{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 0},
	{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 0},
};
const size_t hp_perf_sw_nevents = sizeof(hp_perf_sw_events) / sizeof(hp_perf_sw_events[0]);

const struct hp_perf_event *hp_perf_lookup(const struct hp_perf_event *tab, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

const struct hp_perf_event *hp_perf_event_named(const struct hp_perf_event *tab, size_t n,
						const char *name, int *user_only)
{
	char base[64];
	size_t len = strlen(name);
	*user_only = len > 2 && !strcmp(name + len - 2, ":u");
	if (*user_only)
		len -= 2;
	if (len >= sizeof(base))
		return NULL;
	memcpy(base, name, len);
	base[len] = '\0';
	return hp_perf_lookup(tab, n, base);
}

int hp_event_kind(const char *name)
{
	int user_only;
	if (hp_perf_event_named(hp_perf_hw_events, hp_perf_hw_nevents, name, &user_only) ||
	    hp_perf_event_named(hp_perf_sw_events, hp_perf_sw_nevents, name, &user_only))
		return HP_EVENT_PERF;
	if (!strcmp(name, "posix-timer"))
		return HP_EVENT_TIMER;
	if (!strncmp(name, "PAPI_", 5) || strstr(name, "::"))
		return HP_EVENT_PAPI;
	return HP_EVENT_OTHER;
}
