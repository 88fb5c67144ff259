/* sampler/sources.c - the sample sources, in the order the automatic choice
 * tries them (strongest first; sampler/source.h). */
#include "runtime/state.h"
#include "sampler/internal.h"

const struct hp_source_ops *const hp_sources[] = {
	&hp_source_perf_hw,     /* hardware cycles */
	&hp_source_papi,        /* PAPI_overflow on PAPI_TOT_CYC */
	&hp_source_perf_sw,     /* task-clock, then cpu-clock */
	&hp_source_posix_timer, /* per-thread CPU-time timer */
};
const size_t hp_nsources = sizeof(hp_sources) / sizeof(hp_sources[0]);

/* Set in a forked child until its forking thread's sampling restarts. */
static int whole_first;

void hp_first_period_whole_next(void)
{
	whole_first = 1;
}

uint64_t hp_first_period(uint64_t period, pid_t tid)
{
	if (whole_first) {
		whole_first = 0;
		return period;
	}
	if (period < 2)
		return period;
	/* splitmix64 of the TSC and the thread id: threads started together
	 * get unrelated phases */
	uint64_t z = hp_rdtsc() ^ ((uint64_t)(uint32_t)tid << 32);
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return 1 + z % period;
}
