/* tests/sampler/test_choose.c - the source fallback, without a PMU.
 *
 * hp_source_choose() is driven with fake sources whose behaviour each table
 * row sets: which event names a source knows, what its open() returns and
 * the refusal text.  A failing row prints its line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sampler/sampler.h"

#define MAXSRC 4

struct fake {
	const char *name;
	const char *knows; /* space-separated names; "" = only the automatic choice */
	int rc;            /* what open() returns for a name it knows */
	const char *why;   /* refusal (or note on success) */
	const char *unit;
	uint64_t period;   /* period_out on success */
};

static struct fake fakes[MAXSRC];
static int opened[MAXSRC];
static uint64_t got_period[MAXSRC], got_freq[MAXSRC];
static char got_event[MAXSRC][64];

static int knows(const struct fake *f, const char *ev)
{
	if (!*ev)
		return 1;
	char list[256];
	snprintf(list, sizeof(list), " %s ", f->knows);
	char key[80];
	snprintf(key, sizeof(key), " %s ", ev);
	return strstr(list, key) != NULL;
}

static int fake_open(int i, const char *event, uint64_t period, uint64_t freq, char *unit,
		     uint64_t *period_out, char *why, size_t whylen)
{
	opened[i]++;
	got_period[i] = period;
	got_freq[i] = freq;
	snprintf(got_event[i], sizeof(got_event[i]), "%s", event);
	if (!knows(&fakes[i], event))
		return -ENOENT;
	if (fakes[i].why)
		snprintf(why, whylen, "%s", fakes[i].why);
	if (fakes[i].rc == 0) {
		strcpy(unit, fakes[i].unit ? fakes[i].unit : "ns");
		*period_out = fakes[i].period;
	}
	return fakes[i].rc;
}

#define OPEN(i) \
	static int open##i(const char *e, uint64_t p, uint64_t f, char *u, uint64_t *po, char *w, size_t wl) \
	{ \
		return fake_open(i, e, p, f, u, po, w, wl); \
	}
OPEN(0)
OPEN(1)
OPEN(2)
OPEN(3)

static struct hp_source_ops ops[MAXSRC] = {
	{.name = "perf-hw", .open = open0},
	{.name = "papi", .open = open1},
	{.name = "perf-sw", .open = open2},
	{.name = "posix-timer", .open = open3},
};
static const struct hp_source_ops *const srcs[MAXSRC] = {&ops[0], &ops[1], &ops[2], &ops[3]};

#define NOPMU "perf-hw: cycles not supported (no hardware PMU: VM or container?)"
#define PAPI0 "papi: PAPI_TOT_CYC not available (PAPI reports 0 hardware counters)"
#define PARA3 "perf-sw: perf_event_paranoid is 3: run sysctl kernel.perf_event_paranoid=2 or use --event posix-timer"
#define HWPARA "perf-hw: perf_event_paranoid is 3: run sysctl kernel.perf_event_paranoid=2 or use --event posix-timer"

struct tcase {
	int line;
	const char *event;
	struct fake f[MAXSRC];
	int want;              /* index chosen, -1 none */
	const char *why_has[4]; /* substrings expected in why, in this order */
	const char *why_not;   /* substring that must not appear */
	int opened_max;        /* sources whose open() may run (0 = no check) */
};

/* The sources as on this VM: no PMU, PAPI without counters, software ok. */
#define VM_HW {"perf-hw", "cycles instructions", -EOPNOTSUPP, NOPMU, 0, 0}
#define VM_PAPI {"papi", "PAPI_TOT_CYC PAPI_TOT_INS perf::TASK-CLOCK", -EOPNOTSUPP, PAPI0, 0, 0}
#define SW_OK {"perf-sw", "task-clock cpu-clock", 0, NULL, "ns", 5000000}
#define TM_OK {"posix-timer", "posix-timer", 0, NULL, "ns", 5000000}

static const struct tcase cases[] = {
	{__LINE__, "", {{"perf-hw", "cycles", 0, NULL, "events", 0}, VM_PAPI, SW_OK, TM_OK}, 0, {NULL}, "papi", 1},
	{__LINE__, "", {VM_HW, VM_PAPI, SW_OK, TM_OK}, 2, {NOPMU, PAPI0}, "posix-timer", 3},
	/* paranoid 3: every perf source denied, the timer is what is left */
	{__LINE__, "", {{"perf-hw", "cycles", -EACCES, HWPARA, 0, 0}, VM_PAPI,
			 {"perf-sw", "task-clock", -EACCES, PARA3, 0, 0}, TM_OK},
	 3, {HWPARA, PAPI0, PARA3}, NULL, 4},
	/* a source succeeding with a note (task-clock refused, cpu-clock used) */
	{__LINE__, "", {VM_HW, VM_PAPI, {"perf-sw", "task-clock", 0, "perf-sw: task-clock denied (using cpu-clock)", "ns", 5000000}, TM_OK},
	 2, {NOPMU, PAPI0, "using cpu-clock"}, NULL, 3},
	/* event routing: only the source that knows the name is asked to open it,
	 * and sources that do not know it are not refusals */
	{__LINE__, "task-clock", {VM_HW, VM_PAPI, SW_OK, TM_OK}, 2, {NULL}, "perf-hw", 3},
	{__LINE__, "posix-timer", {VM_HW, VM_PAPI, SW_OK, TM_OK}, 3, {NULL}, "perf-", 4},
	{__LINE__, "PAPI_TOT_INS", {VM_HW, {"papi", "PAPI_TOT_INS", 0, NULL, "events", 1000000}, SW_OK, TM_OK}, 1, {NULL}, "perf-hw", 2},
	{__LINE__, "perf::TASK-CLOCK", {VM_HW, VM_PAPI, SW_OK, TM_OK}, -1, {PAPI0}, "perf-sw", 0},
	/* an explicit event that is refused does not fall back to another event */
	{__LINE__, "cycles", {VM_HW, VM_PAPI, SW_OK, TM_OK}, -1, {NOPMU}, "task-clock", 0},
	{__LINE__, "bogus", {VM_HW, VM_PAPI, SW_OK, TM_OK}, -1, {"unknown event \"bogus\""}, NULL, 0},
	/* everything refused */
	{__LINE__, "", {VM_HW, VM_PAPI, {"perf-sw", "", -EACCES, PARA3, 0, 0}, {"posix-timer", "", -EINVAL, NULL, 0, 0}},
	 -1, {NOPMU, PAPI0, PARA3, "posix-timer: Invalid argument"}, NULL, 4},
};

static int check(const struct tcase *c, char *why, size_t whylen)
{
	memcpy(fakes, c->f, sizeof(fakes));
	memset(opened, 0, sizeof(opened));
	char unit[16] = "";
	uint64_t period = 12345;
	int got = hp_source_choose(srcs, MAXSRC, c->event, 0, 200, unit, &period, why, whylen);
	int bad = 0;
	if (got != c->want) {
		printf("line %d: event \"%s\": chose %d, want %d (why: %s)\n", c->line, c->event, got, c->want, why);
		bad = 1;
	}
	const char *at = why;
	for (int k = 0; k < 4 && c->why_has[k]; k++) {
		const char *p = strstr(at, c->why_has[k]);
		if (!p) {
			printf("line %d: why lacks \"%s\" (in order): %s\n", c->line, c->why_has[k], why);
			bad = 1;
			break;
		}
		at = p + strlen(c->why_has[k]);
	}
	if (c->why_not && strstr(why, c->why_not)) {
		printf("line %d: why mentions \"%s\": %s\n", c->line, c->why_not, why);
		bad = 1;
	}
	if (c->opened_max) {
		for (int i = c->opened_max; i < MAXSRC; i++)
			if (opened[i]) {
				printf("line %d: source %d (%s) opened after the choice was made\n", c->line, i, ops[i].name);
				bad = 1;
			}
	}
	if (got >= 0) {
		if (period != c->f[got].period || strcmp(unit, c->f[got].unit ? c->f[got].unit : "ns")) {
			printf("line %d: period/unit %llu %s, want %llu %s\n", c->line, (unsigned long long)period, unit,
			       (unsigned long long)c->f[got].period, c->f[got].unit);
			bad = 1;
		}
		if (got_freq[got] != 200 || got_period[got] != 0 || strcmp(got_event[got], c->event)) {
			printf("line %d: open() got event \"%s\" period %llu freq %llu\n", c->line, got_event[got],
			       (unsigned long long)got_period[got], (unsigned long long)got_freq[got]);
			bad = 1;
		}
	}
	return bad;
}

int main(void)
{
	int fails = 0, n = (int)(sizeof(cases) / sizeof(cases[0]));
	char why[512];
	for (int i = 0; i < n; i++)
		fails += check(&cases[i], why, sizeof(why));
	/* A small buffer: refusals are cut, never overrun. */
	char small[24];
	memset(small, 'x', sizeof(small));
	char guard = small[sizeof(small) - 1];
	const struct tcase *all = &cases[n - 1];
	memcpy(fakes, all->f, sizeof(fakes));
	char unit[16];
	uint64_t period;
	if (hp_source_choose(srcs, MAXSRC, "", 0, 200, unit, &period, small, sizeof(small) - 1) != -1 ||
	    strlen(small) >= sizeof(small) - 1 || small[sizeof(small) - 1] != guard) {
		printf("line %d: small why buffer overrun or unterminated\n", __LINE__);
		fails++;
	}
	printf("%d of %d cases passed\n", n + 1 - fails, n + 1);
	return fails ? 1 : 0;
}
