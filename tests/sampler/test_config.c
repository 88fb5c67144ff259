/* tests/sampler/test_config.c - HYPROF_* parsing: good and bad values.
 *
 * Each row sets one variable (all others unset), loads the configuration and
 * checks the result: a field's value for good values; for bad ones -EINVAL,
 * one line naming the variable and "using the default", and every field as
 * with no variable set (the default is used, the load goes on).  A failing
 * row prints its line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"

enum field { F_NONE, F_PERIOD, F_FREQ, F_UNWIND, F_MODE, F_MODE_SET, F_COMP, F_SIGNO, F_MAXOV,
	     F_QUIET, F_PERRANK, F_MAXNODES, F_DELAY, F_LIVE, F_CALIB, F_CALSHARE, F_LIVEIV, F_RECAL, F_MPICLOCK,
	     F_MPIMERGE, F_PBCOMPACT, F_PACKMAX, F_REQS, F_WARMUP, F_BUDGETDBG, F_NUMERIC_END, F_EVENT, F_OUTPUT,
	     F_FILTER, F_CRIT };

struct tcase {
	int line;
	const char *var, *val;
	int ok;
	enum field f;
	long long want;   /* numeric fields (signal: resolved below) */
	const char *swant; /* string fields; for bad values, text the error must contain */
};

#define RTMIN3 -1003 /* stands for SIGRTMIN+3, known only at run time */
#define RTMAX1 -1004 /* SIGRTMAX-1 */
#define RTMIN0 -1005

static const struct tcase cases[] = {
	/* defaults (no variable set) */
	{__LINE__, NULL, NULL, 1, F_FREQ, 200, NULL},
	{__LINE__, NULL, NULL, 1, F_PERIOD, 0, NULL},
	{__LINE__, NULL, NULL, 1, F_UNWIND, HP_UNWIND_LIBUNWIND, NULL},
	{__LINE__, NULL, NULL, 1, F_MODE, HP_MODE_HYBRID, NULL},
	{__LINE__, NULL, NULL, 1, F_MODE_SET, 0, NULL},
	{__LINE__, NULL, NULL, 1, F_SIGNO, RTMIN3, NULL},
	{__LINE__, NULL, NULL, 1, F_LIVE, 1, NULL},
	{__LINE__, NULL, NULL, 1, F_CALIB, 1, NULL},
	{__LINE__, NULL, NULL, 1, F_QUIET, 0, NULL},
	{__LINE__, NULL, NULL, 1, F_OUTPUT, 0, "/hyprof-test_sampler_config-"},
	/* output */
	{__LINE__, "HYPROF_OUTPUT", "/tmp/p", 1, F_OUTPUT, 0, "/tmp/p"},
	{__LINE__, "HYPROF_OUTPUT", "rel/dir", 1, F_OUTPUT, 0, "/rel/dir"},
	/* event, period, frequency */
	{__LINE__, "HYPROF_EVENT", "task-clock", 1, F_EVENT, 0, "task-clock"},
	{__LINE__, "HYPROF_EVENT", "perf::TASK-CLOCK", 1, F_EVENT, 0, "perf::TASK-CLOCK"},
	{__LINE__, "HYPROF_PERIOD", "1000000", 1, F_PERIOD, 1000000, NULL},
	{__LINE__, "HYPROF_PERIOD", "1000000", 1, F_FREQ, 0, NULL},
	{__LINE__, "HYPROF_PERIOD", "0", 0, F_NONE, 0, "HYPROF_PERIOD"},
	{__LINE__, "HYPROF_PERIOD", "-5", 0, F_NONE, 0, "positive integer"},
	{__LINE__, "HYPROF_PERIOD", "10k", 0, F_NONE, 0, "HYPROF_PERIOD=\"10k\""},
	{__LINE__, "HYPROF_FREQ", "1000", 1, F_FREQ, 1000, NULL},
	{__LINE__, "HYPROF_FREQ", "0", 0, F_NONE, 0, "from 1 to 100000"},
	{__LINE__, "HYPROF_FREQ", "100001", 0, F_NONE, 0, "HYPROF_FREQ"},
	{__LINE__, "HYPROF_FREQ", "1e3", 0, F_NONE, 0, "HYPROF_FREQ"},
	{__LINE__, "HYPROF_FREQ", "99999999999999999999999", 0, F_NONE, 0, "HYPROF_FREQ"},
	/* unwinder */
	{__LINE__, "HYPROF_UNWIND", "fp", 1, F_UNWIND, HP_UNWIND_FP, NULL},
	{__LINE__, "HYPROF_UNWIND", "libunwind", 1, F_UNWIND, HP_UNWIND_LIBUNWIND, NULL},
	{__LINE__, "HYPROF_UNWIND", "kernel", 1, F_UNWIND, HP_UNWIND_KERNEL, NULL},
	{__LINE__, "HYPROF_UNWIND", "dwarf", 0, F_NONE, 0, "libunwind, fp or kernel"},
	/* mode, compensation */
	{__LINE__, "HYPROF_MODE", "sampled", 1, F_MODE, HP_MODE_SAMPLED, NULL},
	{__LINE__, "HYPROF_MODE", "measured", 1, F_MODE_SET, 1, NULL},
	{__LINE__, "HYPROF_MODE", "Hybrid", 0, F_NONE, 0, "sampled, hybrid or measured"},
	{__LINE__, "HYPROF_COMPENSATE", "parallel", 1, F_COMP, HP_COMP_PARALLEL, NULL},
	{__LINE__, "HYPROF_COMPENSATE", "none", 1, F_COMP, HP_COMP_NONE, NULL},
	{__LINE__, "HYPROF_COMPENSATE", "full", 0, F_NONE, 0, "none, local or parallel"},
	/* signal */
	{__LINE__, "HYPROF_SIGNAL", "SIGRTMIN+3", 1, F_SIGNO, RTMIN3, NULL},
	{__LINE__, "HYPROF_SIGNAL", "RTMIN+3", 1, F_SIGNO, RTMIN3, NULL},
	{__LINE__, "HYPROF_SIGNAL", "SIGRTMIN", 1, F_SIGNO, RTMIN0, NULL},
	{__LINE__, "HYPROF_SIGNAL", "SIGRTMAX-1", 1, F_SIGNO, RTMAX1, NULL},
	{__LINE__, "HYPROF_SIGNAL", "SIGUSR2", 1, F_SIGNO, SIGUSR2, NULL},
	{__LINE__, "HYPROF_SIGNAL", "USR1", 1, F_SIGNO, SIGUSR1, NULL},
	{__LINE__, "HYPROF_SIGNAL", "12", 1, F_SIGNO, 12, NULL},
	{__LINE__, "HYPROF_SIGNAL", "SIGKILL", 0, F_NONE, 0, "HYPROF_SIGNAL"},
	{__LINE__, "HYPROF_SIGNAL", "SIGSEGV", 0, F_NONE, 0, "not SIGKILL, SIGSTOP or a fault signal"},
	{__LINE__, "HYPROF_SIGNAL", "11", 0, F_NONE, 0, "HYPROF_SIGNAL"},
	{__LINE__, "HYPROF_SIGNAL", "SIGRTMAX+1", 0, F_NONE, 0, "HYPROF_SIGNAL"},
	{__LINE__, "HYPROF_SIGNAL", "SIGRTMIN+x", 0, F_NONE, 0, "HYPROF_SIGNAL"},
	{__LINE__, "HYPROF_SIGNAL", "999", 0, F_NONE, 0, "HYPROF_SIGNAL"},
	{__LINE__, "HYPROF_SIGNAL", "SIGFOO", 0, F_NONE, 0, "SIGRTMIN+3"},
	/* strings */
	{__LINE__, "HYPROF_FILTER", "mpi_*,foo", 1, F_FILTER, 0, "mpi_*,foo"},
	{__LINE__, "HYPROF_CRITICAL_PATH", "auto", 1, F_CRIT, 0, "auto"},
	/* budget */
	{__LINE__, "HYPROF_MAX_OVERHEAD", "2", 1, F_MAXOV, 2, NULL},
	{__LINE__, "HYPROF_MAX_OVERHEAD", "2.5%", 1, F_MAXOV, -25, NULL}, /* -25: 2.5 */
	{__LINE__, "HYPROF_MAX_OVERHEAD", "0", 1, F_MAXOV, 0, NULL},
	{__LINE__, "HYPROF_MAX_OVERHEAD", "101", 0, F_NONE, 0, "from 0 to 100"},
	{__LINE__, "HYPROF_MAX_OVERHEAD", "two", 0, F_NONE, 0, "HYPROF_MAX_OVERHEAD"},
	{__LINE__, "HYPROF_MAX_OVERHEAD", "nan", 0, F_NONE, 0, "HYPROF_MAX_OVERHEAD"},
	/* booleans */
	{__LINE__, "HYPROF_QUIET", "1", 1, F_QUIET, 1, NULL},
	{__LINE__, "HYPROF_QUIET", "yes", 1, F_QUIET, 1, NULL},
	{__LINE__, "HYPROF_QUIET", "off", 1, F_QUIET, 0, NULL},
	{__LINE__, "HYPROF_QUIET", "2", 0, F_NONE, 0, "HYPROF_QUIET"},
	{__LINE__, "HYPROF_PER_RANK", "true", 1, F_PERRANK, 1, NULL},
	{__LINE__, "HYPROF_PER_RANK", "maybe", 0, F_NONE, 0, "1 or 0"},
	{__LINE__, "HYPROF_LIVE", "0", 1, F_LIVE, 0, NULL},
	{__LINE__, "HYPROF_LIVE", "x", 0, F_NONE, 0, "HYPROF_LIVE"},
	{__LINE__, "HYPROF_CALIBRATE", "no", 1, F_CALIB, 0, NULL},
	{__LINE__, "HYPROF_CALIBRATE", "nope", 0, F_NONE, 0, "HYPROF_CALIBRATE"},
	{__LINE__, NULL, NULL, 1, F_CALSHARE, 60, NULL},
	{__LINE__, "HYPROF_CALIBRATE_SHARE", "0", 1, F_CALSHARE, 0, NULL},
	{__LINE__, "HYPROF_CALIBRATE_SHARE", "2.5", 1, F_CALSHARE, -2500, NULL},
	{__LINE__, "HYPROF_CALIBRATE_SHARE", "-1", 0, F_NONE, 0, "from 0 to 1000000"},
	{__LINE__, "HYPROF_CALIBRATE_SHARE", "always", 0, F_NONE, 0, "HYPROF_CALIBRATE_SHARE"},
	/* sizes */
	{__LINE__, "HYPROF_MAX_NODES", "100000", 1, F_MAXNODES, 100000, NULL},
	{__LINE__, "HYPROF_MAX_NODES", "10", 0, F_NONE, 0, "from 1024"},
	{__LINE__, "HYPROF_MAX_NODES", "5000000000", 0, F_NONE, 0, "HYPROF_MAX_NODES"},
	{__LINE__, "HYPROF_TEST_PROBE_DELAY_NS", "250", 1, F_DELAY, 250, NULL},
	{__LINE__, "HYPROF_TEST_PROBE_DELAY_NS", "-1", 0, F_NONE, 0, "HYPROF_TEST_PROBE_DELAY_NS"},
	/* live statistics, recalibration, MPI and budget settings */
	{__LINE__, NULL, NULL, 1, F_LIVEIV, 1, NULL},
	{__LINE__, "HYPROF_LIVE_INTERVAL", "0.25", 1, F_LIVEIV, -250, NULL}, /* -N: N/1000 */
	{__LINE__, "HYPROF_LIVE_INTERVAL", "fast", 0, F_NONE, 0, "from 0.05 to 86400"},
	{__LINE__, "HYPROF_LIVE_INTERVAL", "0.01", 0, F_NONE, 0, "using the default (1)"},
	{__LINE__, NULL, NULL, 1, F_RECAL, 5, NULL},
	{__LINE__, "HYPROF_RECAL_MS", "0", 1, F_RECAL, 0, NULL},
	{__LINE__, "HYPROF_RECAL_MS", "2.5", 1, F_RECAL, -2500, NULL},
	{__LINE__, "HYPROF_RECAL_MS", "-1", 0, F_NONE, 0, "HYPROF_RECAL_MS"},
	{__LINE__, NULL, NULL, 1, F_MPICLOCK, 1, NULL},
	{__LINE__, "HYPROF_MPI_CLOCK", "0", 1, F_MPICLOCK, 0, NULL},
	{__LINE__, NULL, NULL, 1, F_MPIMERGE, 1, NULL},
	{__LINE__, "HYPROF_MPI_MERGE", "no", 1, F_MPIMERGE, 0, NULL},
	{__LINE__, "HYPROF_MPI_MERGE", "sometimes", 0, F_NONE, 0, "1 or 0"},
	{__LINE__, NULL, NULL, 1, F_PBCOMPACT, 1, NULL},
	{__LINE__, "HYPROF_MPI_PB_COMPACT", "0", 1, F_PBCOMPACT, 0, NULL},
	{__LINE__, "HYPROF_MPI_PB_COMPACT", "tiny", 0, F_NONE, 0, "1 or 0"},
	{__LINE__, NULL, NULL, 1, F_PACKMAX, 2048, NULL},
	{__LINE__, "HYPROF_MPI_PACK_MAX", "0", 1, F_PACKMAX, 0, NULL},
	{__LINE__, "HYPROF_MPI_PACK_MAX", "2G", 0, F_NONE, 0, "HYPROF_MPI_PACK_MAX"},
	{__LINE__, NULL, NULL, 1, F_REQS, 65536, NULL},
	{__LINE__, "HYPROF_MPI_REQUESTS", "0", 0, F_NONE, 0, "from 1 to 67108864"},
	{__LINE__, NULL, NULL, 1, F_WARMUP, 1, NULL},
	{__LINE__, "HYPROF_CRITICAL_PATH_WARMUP", "0", 1, F_WARMUP, 0, NULL},
	{__LINE__, "HYPROF_CRITICAL_PATH_WARMUP", "soon", 0, F_NONE, 0, "seconds"},
	{__LINE__, NULL, NULL, 1, F_BUDGETDBG, 0, NULL},
	{__LINE__, "HYPROF_BUDGET_DEBUG", "1", 1, F_BUDGETDBG, 1, NULL},
	/* an empty value is the same as unset */
	{__LINE__, "HYPROF_UNWIND", "", 1, F_UNWIND, HP_UNWIND_LIBUNWIND, NULL},
};

static const char *const vars[] = {
	"HYPROF_OUTPUT", "HYPROF_EVENT", "HYPROF_PERIOD", "HYPROF_FREQ", "HYPROF_UNWIND", "HYPROF_MODE",
	"HYPROF_COMPENSATE", "HYPROF_SIGNAL", "HYPROF_FILTER", "HYPROF_MAX_OVERHEAD",
	"HYPROF_CRITICAL_PATH", "HYPROF_QUIET", "HYPROF_PER_RANK", "HYPROF_MAX_NODES", "HYPROF_MAX_THREADS",
	"HYPROF_TEST_PROBE_DELAY_NS", "HYPROF_LIVE", "HYPROF_CALIBRATE", "HYPROF_CALIBRATE_SHARE", "HYPROF_LIVE_INTERVAL",
	"HYPROF_RECAL_MS", "HYPROF_MPI_CLOCK", "HYPROF_MPI_MERGE", "HYPROF_MPI_PB_COMPACT", "HYPROF_MPI_PACK_MAX",
	"HYPROF_MPI_REQUESTS", "HYPROF_CRITICAL_PATH_WARMUP", "HYPROF_BUDGET_DEBUG", NULL};

/* A fractional value as a test row writes it: -N stands for N/1000. */
static long long milli(double d)
{
	return d == (double)(long long)d ? (long long)d : -(long long)(d * 1000 + 0.5);
}

static long long value(const struct hp_config *c, enum field f)
{
	switch (f) {
	case F_PERIOD: return (long long)c->period;
	case F_FREQ: return (long long)c->freq;
	case F_UNWIND: return c->unwind;
	case F_MODE: return c->mode;
	case F_MODE_SET: return c->mode_set;
	case F_COMP: return c->compensate;
	case F_SIGNO: return c->signo;
	case F_MAXOV: return c->max_overhead == 2.5 ? -25 : (long long)c->max_overhead;
	case F_QUIET: return c->quiet;
	case F_PERRANK: return c->per_rank;
	case F_MAXNODES: return c->max_nodes;
	case F_DELAY: return (long long)c->test_probe_delay_ns;
	case F_LIVE: return c->live;
	case F_CALIB: return c->calibrate;
	case F_CALSHARE: return milli(c->calibrate_share);
	case F_LIVEIV: return milli(c->live_interval);
	case F_RECAL: return milli(c->recal_ms);
	case F_MPICLOCK: return c->mpi_clock;
	case F_MPIMERGE: return c->mpi_merge;
	case F_PBCOMPACT: return c->mpi_pb_compact;
	case F_PACKMAX: return (long long)c->mpi_pack_max;
	case F_REQS: return (long long)c->mpi_requests;
	case F_WARMUP: return milli(c->critical_path_warmup);
	case F_BUDGETDBG: return c->budget_debug;
	default: return 0;
	}
}

static const char *svalue(const struct hp_config *c, enum field f)
{
	switch (f) {
	case F_EVENT: return c->event;
	case F_OUTPUT: return c->output;
	case F_FILTER: return c->filter;
	case F_CRIT: return c->critical_path;
	default: return NULL;
	}
}

static void unset_all(void)
{
	for (int i = 0; vars[i]; i++)
		unsetenv(vars[i]);
}

/* After a bad value: every field as with no variable set.  Returns 0 or 1
 * (printed). */
static int differs_from_defaults(const struct tcase *t, const struct hp_config *c)
{
	struct hp_config d;
	char err[512];
	unset_all();
	hp_config_load(&d, err, sizeof(err));
	for (int f = F_PERIOD; f < F_NUMERIC_END; f++)
		if (value(c, (enum field)f) != value(&d, (enum field)f)) {
			printf("line %d: %s=\"%s\": field %d is %lld, not its default %lld\n", t->line, t->var,
			       t->val, f, value(c, (enum field)f), value(&d, (enum field)f));
			return 1;
		}
	for (int f = F_EVENT; f <= F_CRIT; f++)
		if (f != F_OUTPUT && strcmp(svalue(c, (enum field)f), svalue(&d, (enum field)f))) {
			printf("line %d: %s=\"%s\": field %d is \"%s\", not its default\n", t->line, t->var,
			       t->val, f, svalue(c, (enum field)f));
			return 1;
		}
	return 0;
}

static int run(const struct tcase *t)
{
	unset_all();
	if (t->var)
		setenv(t->var, t->val, 1);
	struct hp_config c;
	char err[512];
	int rc = hp_config_load(&c, err, sizeof(err));
	const char *what = t->var ? t->var : "(defaults)";
	if (!t->ok) {
		if (rc != -EINVAL) {
			printf("line %d: %s=\"%s\" accepted, want an error\n", t->line, what, t->val);
			return 1;
		}
		if (!strstr(err, t->var) || (t->swant && !strstr(err, t->swant)) || strchr(err, '\n') ||
		    !strstr(err, "using the default")) {
			printf("line %d: %s=\"%s\": error \"%s\" should be one line naming %s, \"%s\" and "
			       "the default used\n",
			       t->line, what, t->val, err, t->var, t->swant);
			return 1;
		}
		return differs_from_defaults(t, &c);
	}
	if (rc) {
		printf("line %d: %s=\"%s\" refused: %s\n", t->line, what, t->val ? t->val : "", err);
		return 1;
	}
	const char *s = svalue(&c, t->f);
	if (s) {
		if (t->f == F_OUTPUT ? !strstr(s, t->swant) || s[0] != '/' : strcmp(s, t->swant)) {
			printf("line %d: %s=\"%s\": got \"%s\", want \"%s\"\n", t->line, what, t->val, s, t->swant);
			return 1;
		}
		return 0;
	}
	long long want = t->want == RTMIN3 ? SIGRTMIN + 3 : t->want == RTMAX1 ? SIGRTMAX - 1
		: t->want == RTMIN0 ? SIGRTMIN : t->want;
	if (value(&c, t->f) != want) {
		printf("line %d: %s=\"%s\": got %lld, want %lld\n", t->line, what, t->val ? t->val : "",
		       value(&c, t->f), want);
		return 1;
	}
	return 0;
}

static void collect(const char *line, void *arg)
{
	char *buf = arg;
	size_t n = strlen(buf);
	snprintf(buf + n, 4096 - n, "%s\n", line);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	int n = (int)(sizeof(cases) / sizeof(cases[0])), fails = 0;
	for (int i = 0; i < n; i++)
		fails += run(&cases[i]);
	/* Two variables that exclude each other: both refused, the default
	 * frequency used. */
	unset_all();
	setenv("HYPROF_PERIOD", "1000", 1);
	setenv("HYPROF_FREQ", "100", 1);
	struct hp_config c;
	char err[512];
	if (hp_config_load(&c, err, sizeof(err)) != -EINVAL || !strstr(err, "HYPROF_PERIOD") ||
	    !strstr(err, "HYPROF_FREQ") || c.period != 0 || c.freq != 200) {
		printf("line %d: HYPROF_PERIOD with HYPROF_FREQ: rc/err \"%s\", period %llu freq %llu\n",
		       __LINE__, err, (unsigned long long)c.period, (unsigned long long)c.freq);
		fails++;
	}
	/* Three bad variables: three lines, each variable once. */
	unset_all();
	setenv("HYPROF_FREQ", "abc", 1);
	setenv("HYPROF_MODE", "x", 1);
	setenv("HYPROF_QUIET", "x", 1);
	char lines[4096] = "";
	int nlines = 0;
	if (hp_config_load_warn(&c, collect, lines) != -EINVAL ||
	    (nlines = count_lines(lines)) != 3 || !strstr(lines, "HYPROF_FREQ=\"abc\"") ||
	    !strstr(lines, "HYPROF_MODE=\"x\"") || !strstr(lines, "HYPROF_QUIET=\"x\"")) {
		printf("line %d: three bad variables: %d lines:\n%s", __LINE__, nlines, lines);
		fails++;
	}
	/* hp_config_check(), for `hyprof run`: the same refusal, no default. */
	unset_all();
	int rc0 = hp_config_check(err, sizeof(err));
	setenv("HYPROF_EVENT", "task-clock", 1);
	setenv("HYPROF_PERIOD", "-5", 1);
	if (rc0 != 0 || hp_config_check(err, sizeof(err)) != -EINVAL ||
	    !strstr(err, "HYPROF_PERIOD=\"-5\": expected a positive integer") || strstr(err, "default") ||
	    strchr(err, '\n')) {
		printf("line %d: hp_config_check: rc %d, err \"%s\"\n", __LINE__, rc0, err);
		fails++;
	}
	unset_all();
	/* The table: every variable this test knows is listed, with a help
	 * line, and nothing else is. */
	unsigned nt = 0;
	for (const struct hp_config_var_info *v; (v = hp_config_var(nt)); nt++) {
		int known = 0;
		for (int i = 0; vars[i]; i++)
			known |= !strcmp(vars[i], v->name);
		if (!known || !v->help || !*v->help || !v->def) {
			printf("line %d: table row %u (%s): unknown to the test or without help\n", __LINE__, nt,
			       v->name);
			fails++;
		}
	}
	if (nt != sizeof(vars) / sizeof(vars[0]) - 1) {
		printf("line %d: the table has %u variables, the test knows %zu\n", __LINE__, nt,
		       sizeof(vars) / sizeof(vars[0]) - 1);
		fails++;
	}
	/* Names of modes and compensations. */
	if (strcmp(hp_mode_name(HP_MODE_MEASURED), "measured") || strcmp(hp_compensate_name(HP_COMP_LOCAL), "local") ||
	    strcmp(hp_mode_name(42), "?")) {
		printf("line %d: hp_mode_name/hp_compensate_name\n", __LINE__);
		fails++;
	}
	printf("%d of %d cases passed\n", n + 6 - fails, n + 6);
	return fails ? 1 : 0;
}
