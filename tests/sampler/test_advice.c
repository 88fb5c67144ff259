/* tests/sampler/test_advice.c - the refusal text of perf_event sources.
 * Table: errno, hardware or not, perf_event_paranoid, PMU present -> the
 * words the line must hold.  A failing row prints its line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sampler/internal.h"

struct tcase {
	int line;
	const char *src, *event;
	int hardware, e, paranoid, pmu;
	const char *want[3];
};

static const struct tcase cases[] = {
	{__LINE__, "perf-hw", "cycles", 1, ENOENT, 2, 0, {"perf-hw: cycles not supported", "no hardware PMU"}},
	{__LINE__, "perf-hw", "cycles", 1, EOPNOTSUPP, 2, 0, {"no hardware PMU: VM or container?"}},
	{__LINE__, "perf-hw", "cycles", 1, ENOENT, 2, 1, {"not supported by this kernel or CPU"}},
	{__LINE__, "perf-sw", "task-clock", 0, ENOENT, 2, 0, {"task-clock not supported by this kernel"}},
	{__LINE__, "perf-hw", "cycles", 1, EACCES, 3, 1,
	 {"perf_event_paranoid is 3", "sysctl kernel.perf_event_paranoid=2", "--event posix-timer"}},
	{__LINE__, "perf-sw", "task-clock", 0, EPERM, 4, 0, {"perf_event_paranoid is 4", "posix-timer"}},
	{__LINE__, "perf-hw", "instructions", 1, EACCES, 2, 1,
	 {"instructions denied", "perf_event_paranoid is 2", "run as root"}},
	{__LINE__, "perf-sw", "task-clock", 0, ENOSYS, 2, 0, {"no perf_event_open"}},
	{__LINE__, "perf-sw", "task-clock", 0, EMFILE, 2, 0, {"too many open files", "ulimit -n"}},
	{__LINE__, "perf-hw", "cycles", 1, EBUSY, 2, 1, {"busy"}},
	{__LINE__, "perf-hw", "cycles", 1, E2BIG, 2, 1, {"cycles could not be opened"}},
};

int main(void)
{
	int n = (int)(sizeof(cases) / sizeof(cases[0])), fails = 0;
	for (int i = 0; i < n; i++) {
		const struct tcase *c = &cases[i];
		char why[512];
		hp_perf_advice(c->src, c->event, c->hardware, c->e, c->paranoid, c->pmu, why, sizeof(why));
		for (int k = 0; k < 3 && c->want[k]; k++)
			if (!strstr(why, c->want[k]) || strchr(why, '\n')) {
				printf("line %d: \"%s\" lacks \"%s\"\n", c->line, why, c->want[k]);
				fails++;
				break;
			}
	}
	/* cut, never overrun */
	char small[16];
	memset(small, 'x', sizeof(small));
	hp_perf_advice("perf-hw", "cycles", 1, EACCES, 3, 0, small, 8);
	if (strlen(small) != 7 || small[8] != 'x') {
		printf("line %d: small buffer not cut at its length\n", __LINE__);
		fails++;
	}
	printf("%d of %d cases passed\n", n + 1 - fails, n + 1);
	return fails ? 1 : 0;
}
