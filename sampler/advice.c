/* sampler/advice.c - why a perf_event source was refused, and what to do.
 *
 * Pure (the machine's state comes in as arguments), so the unit test covers
 * every case on any machine.  Not signal-safe (snprintf); runs at start-up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sampler/internal.h"

void hp_perf_advice(const char *src, const char *event, int hardware, int e, int paranoid, int has_pmu,
		    char *why, size_t len)
{
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		if (hardware && !has_pmu)
			snprintf(why, len, "%s: %s not supported (no hardware PMU: VM or container?)", src, event);
		else
			snprintf(why, len, "%s: %s not supported by this kernel or CPU (%s)", src, event, strerror(e));
		break;
	case EACCES:
	case EPERM:
		if (paranoid > 2)
			snprintf(why, len,
				 "%s: perf_event_paranoid is %d: run sysctl kernel.perf_event_paranoid=2 "
				 "or use --event posix-timer", src, paranoid);
		else
			snprintf(why, len,
				 "%s: %s denied (%s; perf_event_paranoid is %d): run as root, lower "
				 "kernel.perf_event_paranoid, or use --event posix-timer",
				 src, event, strerror(e), paranoid);
		break;
	case ENOSYS:
		snprintf(why, len, "%s: this kernel has no perf_event_open (use --event posix-timer)", src);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(why, len, "%s: too many open files (raise ulimit -n)", src);
		break;
	case EBUSY:
		snprintf(why, len, "%s: %s is busy (another tool holds the counters)", src, event);
		break;
	default:
		snprintf(why, len, "%s: %s could not be opened (%s)", src, event, strerror(e));
	}
}
