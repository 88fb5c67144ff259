/* sampler/perf_sw.c - sample source: perf_event software events.
 *
 * task-clock (the thread's CPU time, in ns, kernel hrtimer-driven) is the
 * fallback when there is no PMU; cpu-clock if task-clock is refused.  Other
 * software events (page-faults, context-switches, ...) are available by name
 * and sample every N events.
 *
 * Signal-safe: on_signal (via sampler/perf.c).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "sampler/internal.h"

static struct hp_perf_choice chosen;

static int sw_open(const char *event, uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		   char *why, size_t whylen)
{
	const struct hp_perf_event *ev;
	int fd, user_only = 0;
	if (*event) {
		if (!(ev = hp_perf_event_named(hp_perf_sw_events, hp_perf_sw_nevents, event, &user_only)))
			return -ENOENT;
		fd = hp_perf_probe(ev, period, freq, user_only, &chosen);
		if (fd < 0) {
			hp_perf_why("perf-sw", ev, -fd, why, whylen);
			return fd == -ENOENT ? -EOPNOTSUPP : fd;
		}
	} else {
		/* Automatic: task-clock, then cpu-clock. */
		char first[256];
		ev = &hp_perf_sw_events[0];
		fd = hp_perf_probe(ev, period, freq, 0, &chosen);
		if (fd < 0) {
			hp_perf_why("perf-sw", ev, -fd, first, sizeof(first));
			ev = &hp_perf_sw_events[1];
			fd = hp_perf_probe(ev, period, freq, 0, &chosen);
			if (fd < 0) {
				char second[256];
				hp_perf_why("perf-sw", ev, -fd, second, sizeof(second));
				snprintf(why, whylen, "%s; %s", first, second);
				return fd == -ENOENT ? -EOPNOTSUPP : fd;
			}
			snprintf(why, whylen, "%s (using cpu-clock)", first);
		}
	}
	close(fd);
	strcpy(unit, ev->is_clock ? "ns" : "events");
	*period_out = chosen.period;
	return 0;
}

static int sw_thread_start(struct hp_thread *t)
{
	return hp_perf_thread_start(&chosen, t);
}

static void sw_close(void)
{
}

static const char *sw_event_name(void)
{
	return chosen.name;
}

const struct hp_source_ops hp_source_perf_sw = {
	.name = "perf-sw",
	.open = sw_open,
	.thread_start = sw_thread_start,
	.thread_stop = hp_perf_thread_stop,
	.on_signal = hp_perf_on_signal,
	.close = sw_close,
	.event_name = sw_event_name,
	.pause = hp_perf_pause,
};
