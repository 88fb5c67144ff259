/* tests/sampler/test_config.c - HYPROF_* parsing: good and bad values.
 *
 * Each row sets one variable (all others unset), loads the configuration and
 * checks the result: a field's value for good values, -EINVAL and an error
 * line naming the variable for bad ones.  A failing row prints its line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"

enum field { F_NONE, F_PERIOD, F_FREQ, F_UNWIND, F_MODE, F_MODE_SET, F_COMP, F_SIGNO, F_MAXOV,
	     F_QUIET, F_PERRANK, F_MAXNODES, F_DELAY, F_LIVE, F_CALIB, F_EVENT, F_OUTPUT, F_FILTER,
	     F_CRIT };

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
	{__LINE__, "HYPROF_UNWIND", "dwarf", 0, F_NONE, 0, "libunwind or fp"},
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
	/* sizes */
	{__LINE__, "HYPROF_MAX_NODES", "100000", 1, F_MAXNODES, 100000, NULL},
	{__LINE__, "HYPROF_MAX_NODES", "10", 0, F_NONE, 0, "from 1024"},
	{__LINE__, "HYPROF_MAX_NODES", "5000000000", 0, F_NONE, 0, "HYPROF_MAX_NODES"},
	{__LINE__, "HYPROF_TEST_PROBE_DELAY_NS", "250", 1, F_DELAY, 250, NULL},
	{__LINE__, "HYPROF_TEST_PROBE_DELAY_NS", "-1", 0, F_NONE, 0, "HYPROF_TEST_PROBE_DELAY_NS"},
	/* an empty value is the same as unset */
	{__LINE__, "HYPROF_UNWIND", "", 1, F_UNWIND, HP_UNWIND_LIBUNWIND, NULL},
};

static const char *const vars[] = {
	"HYPROF_OUTPUT", "HYPROF_EVENT", "HYPROF_PERIOD", "HYPROF_FREQ", "HYPROF_UNWIND", "HYPROF_MODE",
	"HYPROF_COMPENSATE", "HYPROF_SIGNAL", "HYPROF_FILTER", "HYPROF_MAX_OVERHEAD",
	"HYPROF_CRITICAL_PATH", "HYPROF_QUIET", "HYPROF_PER_RANK", "HYPROF_MAX_NODES",
	"HYPROF_TEST_PROBE_DELAY_NS", "HYPROF_LIVE", "HYPROF_CALIBRATE", NULL};

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

static int run(const struct tcase *t)
{
	for (int i = 0; vars[i]; i++)
		unsetenv(vars[i]);
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
		if (!strstr(err, t->var) || (t->swant && !strstr(err, t->swant)) || strchr(err, '\n')) {
			printf("line %d: %s=\"%s\": error \"%s\" should be one line naming %s and \"%s\"\n", t->line,
			       what, t->val, err, t->var, t->swant);
			return 1;
		}
		return 0;
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

int main(void)
{
	int n = (int)(sizeof(cases) / sizeof(cases[0])), fails = 0;
	for (int i = 0; i < n; i++)
		fails += run(&cases[i]);
	/* Two variables that exclude each other. */
	for (int i = 0; vars[i]; i++)
		unsetenv(vars[i]);
	setenv("HYPROF_PERIOD", "1000", 1);
	setenv("HYPROF_FREQ", "100", 1);
	struct hp_config c;
	char err[512];
	if (hp_config_load(&c, err, sizeof(err)) != -EINVAL || !strstr(err, "HYPROF_PERIOD") ||
	    !strstr(err, "HYPROF_FREQ")) {
		printf("line %d: HYPROF_PERIOD with HYPROF_FREQ: rc/err \"%s\"\n", __LINE__, err);
		fails++;
	}
	/* Names of modes and compensations. */
	if (strcmp(hp_mode_name(HP_MODE_MEASURED), "measured") || strcmp(hp_compensate_name(HP_COMP_LOCAL), "local") ||
	    strcmp(hp_mode_name(42), "?")) {
		printf("line %d: hp_mode_name/hp_compensate_name\n", __LINE__);
		fails++;
	}
	printf("%d of %d cases passed\n", n + 2 - fails, n + 2);
	return fails ? 1 : 0;
}
