/* runtime/config.h - runtime configuration, read once from HYPROF_* variables.
 *
 * The launcher (`hyprof run`) turns its options into these variables, so a
 * program linked with libhyprof.so is configured the same way.  Every option
 * has exactly one variable; runtime/config.c has the one table of them all
 * (docs/cmd-run.md lists them).
 */
#ifndef HYPROF_RUNTIME_CONFIG_H
#define HYPROF_RUNTIME_CONFIG_H

#include <stdint.h>

/* Defaults that code outside the table needs as numbers (the table holds
 * them as text: HP_CFG_STR makes one from the other). */
#define HP_MPI_PACK_MAX_DEFAULT 2048 /* packed-copy piggyback up to this many bytes (bench/mpi: crossover 2-2.5 KB) */
#define HP_CFG_STR_(x) #x
#define HP_CFG_STR(x) HP_CFG_STR_(x)

enum hp_mode { HP_MODE_SAMPLED, HP_MODE_HYBRID, HP_MODE_MEASURED };
enum hp_compensate { HP_COMP_NONE, HP_COMP_LOCAL, HP_COMP_PARALLEL };
enum hp_unwind { HP_UNWIND_LIBUNWIND, HP_UNWIND_FP, HP_UNWIND_KERNEL };

struct hp_config {
	char output[4096];       /* HYPROF_OUTPUT: profile directory */
	char event[128];         /* HYPROF_EVENT: "" = automatic fallback */
	uint64_t period;         /* HYPROF_PERIOD: 0 = from freq */
	uint64_t freq;           /* HYPROF_FREQ: samples per second of the clock */
	int unwind;              /* HYPROF_UNWIND: libunwind | fp | kernel */
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
	uint32_t max_threads;    /* HYPROF_MAX_THREADS: exited threads kept apart (0 = all) */
	uint64_t test_probe_delay_ns; /* HYPROF_TEST_PROBE_DELAY_NS: injected cost */
	int live;                /* HYPROF_LIVE: live statistics file (default on) */
	int calibrate;           /* HYPROF_CALIBRATE: 0 skips start-up calibration */
	double calibrate_share;  /* HYPROF_CALIBRATE_SHARE: seconds a run's calibration serves its other processes */
	double live_interval;    /* HYPROF_LIVE_INTERVAL: seconds between live snapshots */
	double recal_ms;         /* HYPROF_RECAL_MS: in-situ recalibration period, 0 = off */
	/* Read by libhyprof_mpi.so and calib/ (their getenv calls move here). */
	int mpi_clock;           /* HYPROF_MPI_CLOCK: 0 = never compare TSCs across ranks */
	int mpi_merge;           /* HYPROF_MPI_MERGE: 0 = no merge at MPI_Finalize */
	int mpi_pb_compact;       /* HYPROF_MPI_PB_COMPACT: tiny messages carry the 2-byte piggyback */
	uint64_t mpi_pack_max;   /* HYPROF_MPI_PACK_MAX: packed-copy piggyback limit, bytes */
	uint64_t mpi_requests;   /* HYPROF_MPI_REQUESTS: request-table capacity */
	double critical_path_warmup; /* HYPROF_CRITICAL_PATH_WARMUP: seconds */
	int budget_debug;        /* HYPROF_BUDGET_DEBUG: budget/cost decisions on stderr */
};

/* Fill `c` from the environment.  A bad value never stops the load: the
 * variable gets its default and the load goes on.  Returns 0, or -EINVAL
 * with a one-line explanation of the first bad variable in err (naming it,
 * the accepted values and the default used).  Thread-safe: no (getenv). */
int hp_config_load(struct hp_config *c, char *err, unsigned errlen);

/* As hp_config_load(), calling warn(line, arg) once per bad variable with
 * its one-line explanation. */
int hp_config_load_warn(struct hp_config *c, void (*warn)(const char *line, void *arg), void *arg);

/* Check every HYPROF_* variable of the environment without loading:
 * for `hyprof run`, which refuses a bad value before it starts anything.
 * Returns 0, or -EINVAL with one line in err naming the first bad
 * variable and what it accepts. */
int hp_config_check(char *err, unsigned errlen);
/* One variable's value: NULL when it is accepted, else what the variable
 * accepts ("an integer from 1 to 100000 (samples per second)"), for a
 * command line option's usage error. */
const char *hp_config_check_var(const char *name, const char *val);

/* One HYPROF_* variable, for help texts (`hyprof run --help`, docs). */
struct hp_config_var_info {
	const char *name;    /* "HYPROF_FREQ" */
	const char *def;     /* default, as a value ("" = none or computed) */
	const char *help;    /* one line */
};

/* The i-th variable, or NULL past the last.  Thread-safe. */
const struct hp_config_var_info *hp_config_var(unsigned i);

const char *hp_mode_name(int mode);
const char *hp_compensate_name(int c);

#endif
