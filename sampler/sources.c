/* sampler/sources.c - the sample sources, in the order the automatic choice
 * tries them (strongest first; sampler/source.h). */
#include "sampler/internal.h"

const struct hp_source_ops *const hp_sources[] = {
	&hp_source_perf_hw,     /* hardware cycles */
	&hp_source_papi,        /* PAPI_overflow on PAPI_TOT_CYC */
	&hp_source_perf_sw,     /* task-clock, then cpu-clock */
	&hp_source_posix_timer, /* per-thread CPU-time timer */
};
const size_t hp_nsources = sizeof(hp_sources) / sizeof(hp_sources[0]);
