/* tests/cost/exec_failed.c - a program whose exec fails and which goes on:
 * 0.1 s of work, an execv of a path that does not exist, then 0.6 s more.
 * The profile write at the exec stops the cost controller; the runtime must
 * restart it, or the last 6/7 of the run has no cost intervals.
 * Work phases are wall-clock deadlines, like the controller's intervals. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void work(double seconds)
{
	double end = now() + seconds;
	while (now() < end)
		for (unsigned long i = 0; i < 100000; i++)
			sink += i * i;
}

int main(void)
{
	work(0.1);
	char *argv[] = {"hp-no-such-program", NULL};
	execv("/nonexistent/hp-no-such-program", argv);
	work(0.6);
	printf("exec failed as expected; work done\n");
	return 0;
}
