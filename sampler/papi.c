/* sampler/papi.c - sample source: PAPI overflow.
 *
 * PAPI_overflow on PAPI_TOT_CYC by default, or on any PAPI preset or native
 * event named with --event (PAPI_TOT_INS, perf::TASK-CLOCK, ...).  PAPI
 * delivers the overflow with its own signal and handler and calls our
 * callback with its context, whose second word is the ucontext; the callback
 * ends in the same skeleton as every other source (hp_sampler_deliver).
 *
 * On this VM PAPI cannot sample at all: it reports 0 hardware counters and
 * its perf_event component is disabled ("libpfm4 no default PMU found"), so
 * even perf::TASK-CLOCK, a software event of that component, is not
 * available.  Forcing a PMU model (LIBPFM_FORCE_PMU=spr) enables the
 * component but still lists no perf:: software event, and adding a forced
 * hardware event fails.  The refusal says so, and PAPI is shut down again
 * so a program that uses PAPI itself starts from a clean library.
 *
 * Signal-safe: the overflow callback.
 */
#include <errno.h>
#include <papi.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "sampler/internal.h"

static int event_code;
static long long threshold;
static char event_name[128];
/* PAPI is initialized at most once per process: PAPI 7 crashes in
 * PAPI_library_init after a PAPI_shutdown (an unknown event tried here,
 * then the default PAPI_TOT_CYC), so a refused event leaves the library
 * initialized and only the end of sampling shuts it down. */
static int papi_inited; /* 1: by hyprof; -1: failed once (not retried) */

static void overflow_cb(int set, void *addr, long long vec, void *ctx)
{
	(void)set;
	(void)addr;
	(void)vec;
	/* ctx is the interrupted thread's ucontext_t itself: PAPI's dispatch
	 * passes its hw_context->ucontext, not the hw_context. */
	if (ctx)
		hp_sampler_deliver(ctx, (uint64_t)threshold);
}

static unsigned long thread_id(void)
{
	return (unsigned long)syscall(SYS_gettid);
}

/* Names PAPI may know: presets, component-qualified natives, or anything the
 * perf sources did not claim (they come first).  Our own timer source name
 * is not sent to PAPI. */
static int maybe_papi(const char *ev)
{
	return strcmp(ev, "posix-timer") != 0;
}

/* Why PAPI cannot sample here: the component of the event, or of CPU
 * counters in general, and its disabled reason. */
static void component_why(const char *ev, char *why, size_t len)
{
	int ncomp = PAPI_num_components(), counters = 0;
	char comp[PAPI_HUGE_STR_LEN + 64] = "";
	for (int i = 0; i < ncomp; i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		if (!ci)
			continue;
		if (!ci->disabled)
			counters += PAPI_num_cmp_hwctrs(i) > 0 ? PAPI_num_cmp_hwctrs(i) : 0;
		if (!strcmp(ci->name, "perf_event") && ci->disabled)
			snprintf(comp, sizeof(comp), "; perf_event component disabled: %s", ci->disabled_reason);
	}
	snprintf(why, len, "papi: %s not available (PAPI reports %d hardware counters%s)", ev, counters, comp);
}

/* perf's software clocks through PAPI (perf::TASK-CLOCK, perf::CPU-CLOCK)
 * count nanoseconds: their period follows --freq like perf_sw's. */
static int clock_event(const char *ev)
{
	return strcasestr(ev, "TASK-CLOCK") || strcasestr(ev, "CPU-CLOCK");
}

static void papi_down(void)
{
	if (papi_inited == 1)
		PAPI_shutdown();
	papi_inited = -1; /* never initialized again (see papi_inited) */
}

static int papi_open(const char *event, uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		     char *why, size_t whylen)
{
	const char *ev = *event ? event : "PAPI_TOT_CYC";
	if (!maybe_papi(ev))
		return -ENOENT;
	int explicit_papi = !strncmp(ev, "PAPI_", 5) || strstr(ev, "::");
	/* The automatic choice on a machine without a PMU: PAPI's cycles come
	 * from the same perf_event PMU, so initializing PAPI (2-3 ms of CPU in
	 * every process, most of it libpfm's tables) would only be refused. */
	if (!*event && !hp_perf_hw_pmu_present()) {
		snprintf(why, whylen, "papi: not tried for PAPI_TOT_CYC (no hardware PMU)");
		return -ENODEV;
	}
	if (papi_inited < 0) {
		snprintf(why, whylen, "papi: PAPI could not be initialized");
		return -ENODEV;
	}
	if (!papi_inited) {
		if (PAPI_is_initialized() != PAPI_NOT_INITED) {
			snprintf(why, whylen, "papi: the program initialized PAPI before hyprof: not shared");
			return -EBUSY;
		}
		int rc = PAPI_library_init(PAPI_VER_CURRENT);
		if (rc != PAPI_VER_CURRENT) {
			snprintf(why, whylen, "papi: PAPI_library_init failed (%s)",
				 rc > 0 ? "version mismatch" : PAPI_strerror(rc));
			papi_inited = -1;
			return -ENODEV;
		}
		PAPI_set_debug(PAPI_QUIET);
		if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK) {
			snprintf(why, whylen, "papi: PAPI_thread_init failed (%s)", PAPI_strerror(rc));
			PAPI_shutdown();
			papi_inited = -1;
			return -ENODEV;
		}
		papi_inited = 1;
	}
	int rc;
	char name[128];
	snprintf(name, sizeof(name), "%s", ev);
	if ((rc = PAPI_event_name_to_code(name, &event_code)) != PAPI_OK) {
		if (!explicit_papi && *event)
			return -ENOENT; /* neither perf nor PAPI knows it */
		component_why(ev, why, whylen);
		return -EOPNOTSUPP;
	}
	if (PAPI_query_event(event_code) != PAPI_OK) {
		component_why(ev, why, whylen);
		return -EOPNOTSUPP;
	}
	if (period) {
		threshold = (long long)period;
	} else if (!strcmp(ev, "PAPI_TOT_CYC") || !strcmp(ev, "PAPI_REF_CYC")) {
		const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
		double hz = hw && hw->cpu_max_mhz > 0 ? hw->cpu_max_mhz * 1e6 : 2e9;
		threshold = (long long)(hz / (double)(freq ? freq : 1));
	} else if (clock_event(ev)) {
		threshold = (long long)(1e9 / (double)(freq ? freq : 1)); /* ns of the clock */
	} else {
		threshold = 1000000; /* events: no clock to derive it from */
	}
	if (threshold > 0x7fffffffLL) {
		snprintf(why, whylen, "papi: period %lld is above PAPI's limit of 2^31-1", threshold);
		return -EINVAL;
	}
	/* Try the whole thread set-up once here, so a refusal is known now. */
	struct hp_thread probe;
	memset(&probe, 0, sizeof(probe));
	probe.src.papi_set = -1;
	extern const struct hp_source_ops hp_source_papi;
	if ((rc = hp_source_papi.thread_start(&probe)) != 0) {
		snprintf(why, whylen, "papi: overflow sampling on %s refused (%s)", ev, strerror(-rc));
		return rc;
	}
	hp_source_papi.thread_stop(&probe);
	snprintf(event_name, sizeof(event_name), "%s", ev);
	strcpy(unit, clock_event(ev) ? "ns" : "events");
	*period_out = (uint64_t)threshold;
	return 0;
}

static int papi_thread_start(struct hp_thread *t)
{
	int set = PAPI_NULL, rc;
	PAPI_register_thread();
	if ((rc = PAPI_create_eventset(&set)) != PAPI_OK)
		return -ENODEV;
	if ((rc = PAPI_add_event(set, event_code)) != PAPI_OK ||
	    (rc = PAPI_overflow(set, event_code, (int)threshold, 0, overflow_cb)) != PAPI_OK ||
	    (rc = PAPI_start(set)) != PAPI_OK) {
		PAPI_cleanup_eventset(set);
		PAPI_destroy_eventset(&set);
		return rc == PAPI_EPERM ? -EACCES : -EOPNOTSUPP;
	}
	t->src.papi_set = set;
	return 0;
}

static void papi_thread_stop(struct hp_thread *t)
{
	int set = t->src.papi_set;
	if (set < 0)
		return;
	t->src.papi_set = -1;
	long long v;
	PAPI_stop(set, &v);
	PAPI_overflow(set, event_code, 0, 0, overflow_cb);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	PAPI_unregister_thread();
}

static int papi_on_signal(struct hp_thread *t, siginfo_t *si, uint64_t *period)
{
	/* PAPI delivers through its own handler and overflow_cb: a sampling
	 * signal here was not sent by PAPI. */
	(void)t;
	(void)si;
	(void)period;
	return 0;
}

static void papi_close(void)
{
	papi_down();
}

static const char *papi_event_name(void)
{
	return event_name;
}

const struct hp_source_ops hp_source_papi = {
	.name = "papi",
	.open = papi_open,
	.thread_start = papi_thread_start,
	.thread_stop = papi_thread_stop,
	.on_signal = papi_on_signal,
	.close = papi_close,
	.event_name = papi_event_name,
	.pause = NULL, /* PAPI_stop works on the caller's own event set only */
};
