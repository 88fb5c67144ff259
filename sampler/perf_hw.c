/* sampler/perf_hw.c - sample source: perf_event hardware counters.
 *
 * The strongest source: cycles counted by the PMU, with the exact period of
 * each sample.  Refused on machines without a hardware PMU (most VMs and
 * containers) and where perf_event_paranoid forbids it; the refusal says
 * which, with what to do.
 *
 * Signal-safe: on_signal (via sampler/perf.c).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "sampler/internal.h"

static struct hp_perf_choice chosen;

static int hw_open(const char *event, uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		   char *why, size_t whylen)
{
	int user_only;
	const struct hp_perf_event *ev = hp_perf_event_named(hp_perf_hw_events, hp_perf_hw_nevents,
							     *event ? event : "cycles", &user_only);
	if (!ev)
		return -ENOENT;
	int fd = hp_perf_probe(ev, period, freq, user_only, &chosen);
	if (fd < 0) {
		hp_perf_why("perf-hw", ev, -fd, why, whylen);
		return fd == -ENOENT ? -EOPNOTSUPP : fd;
	}
	close(fd);
	strcpy(unit, "events");
	*period_out = chosen.period; /* 0: frequency mode, each sample has its period */
	return 0;
}

static int hw_thread_start(struct hp_thread *t)
{
	return hp_perf_thread_start(&chosen, t);
}

static void hw_close(void)
{
}

static const char *hw_event_name(void)
{
	return chosen.name;
}

const struct hp_source_ops hp_source_perf_hw = {
	.name = "perf-hw",
	.open = hw_open,
	.thread_start = hw_thread_start,
	.thread_stop = hp_perf_thread_stop,
	.on_signal = hp_perf_on_signal,
	.close = hw_close,
	.event_name = hw_event_name,
	.pause = hp_perf_pause,
};
