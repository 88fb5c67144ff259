/* runtime/config.h - runtime configuration, read once from HYPROF_* variables.
 *
 * The launcher (`hyprof run`) turns its options into these variables, so a
 * program linked with libhyprof.so is configured the same way.  Every option
 * has exactly one variable; docs/ENVIRONMENT.md lists them.
 */
#ifndef HYPROF_RUNTIME_CONFIG_H
#define HYPROF_RUNTIME_CONFIG_H

#include <stdint.h>

enum hp_mode { HP_MODE_SAMPLED, HP_MODE_HYBRID, HP_MODE_MEASURED };
enum hp_compensate { HP_COMP_NONE, HP_COMP_LOCAL, HP_COMP_PARALLEL };
enum hp_unwind { HP_UNWIND_LIBUNWIND, HP_UNWIND_FP };

struct hp_config {
	char output[4096];       /* HYPROF_OUTPUT: profile directory */
	char event[128];         /* HYPROF_EVENT: "" = automatic fallback */
	uint64_t period;         /* HYPROF_PERIOD: 0 = from freq */
	uint64_t freq;           /* HYPROF_FREQ: samples per second of the clock */
	int unwind;              /* HYPROF_UNWIND: libunwind | fp */
	int mode;                /* HYPROF_MODE: sampled | hybrid | measured */
	int mode_set;            /* mode given explicitly */
	int compensate;          /* HYPROF_COMPENSATE: none | local | parallel */
	int compensate_set;
	int signo;               /* HYPROF_SIGNAL: number or name (default SIGRTMIN+3) */
	char filter[1024];       /* HYPROF_FILTER: function names/globs not counted */
	double max_overhead;     /* HYPROF_MAX_OVERHEAD: percent, 0 = no budget */
	char critical_path[1024];/* HYPROF_CRITICAL_PATH: "", "auto", or names */
	int quiet;               /* HYPROF_QUIET: no summary line at exit */
	int per_rank;            /* HYPROF_PER_RANK: keep per-rank files when merging */
	uint32_t max_nodes;      /* HYPROF_MAX_NODES: per-thread sample tree nodes */
	uint64_t test_probe_delay_ns; /* HYPROF_TEST_PROBE_DELAY_NS: injected cost */
	int live;                /* HYPROF_LIVE: live statistics file (default on) */
	int calibrate;           /* HYPROF_CALIBRATE: 0 skips start-up calibration */
};

/* Fill `c` from the environment.  Returns 0, or -EINVAL with a one-line
 * explanation in err (bad value of a variable). */
int hp_config_load(struct hp_config *c, char *err, unsigned errlen);

const char *hp_mode_name(int mode);
const char *hp_compensate_name(int c);

#endif
