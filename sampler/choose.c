/* sampler/choose.c - which sample source to use, and why not the others.
 *
 * Pure: it only calls the sources' open(), so the unit test drives it with
 * fake sources (tests/sampler/test_choose.c) on a machine without a PMU.
 * Not signal-safe (runs once at start-up).
 */
#include <errno.h>
#include <string.h>

#include "runtime/lifecycle.h"
#include "sampler/sampler.h"

static void append(char *why, size_t len, const char *s)
{
	size_t n = strlen(why);
	if (n && n + 2 < len) {
		memcpy(why + n, "; ", 3);
		n += 2;
	}
	hp_fmt(why + n, len - n, "%s", s);
}

int hp_source_choose(const struct hp_source_ops *const *srcs, size_t n, const char *event,
		     uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		     char *why, size_t whylen)
{
	int named = event && *event;
	int known = 0;
	if (whylen)
		why[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct hp_source_ops *s = srcs[i];
		char w[512] = "";
		int rc = s->open(named ? event : "", period, freq, unit, period_out, w, sizeof(w));
		if (rc == 0) {
			if (w[0])
				append(why, whylen, w);
			return (int)i;
		}
		if (rc == -ENOENT && named)
			continue; /* this source does not know the event: not a refusal */
		known = 1;
		if (w[0]) {
			append(why, whylen, w);
		} else {
			char tmp[160];
			hp_fmt(tmp, sizeof(tmp), "%s: %s", s->name, strerror(-rc));
			append(why, whylen, tmp);
		}
	}
	if (named && !known) {
		char tmp[512];
		hp_fmt(tmp, sizeof(tmp),
		       "unknown event \"%s\": use a perf event (cycles, instructions, task-clock, cpu-clock, ...), "
		       "posix-timer, or a PAPI preset or native name (PAPI_TOT_INS, perf::TASK-CLOCK)",
		       event);
		append(why, whylen, tmp);
	}
	return -1;
}
