/* repro_blocked.c - the main thread blocks all signals while it runs
 * blocked_work() (~75% of the CPU time), then unblocks and runs
 * open_work() (~25%).  Expected: ~75% blocked_work, ~25% open_work.
 * gcc -O1 -g repro_blocked.c -o repro_blocked
 */
#include <signal.h>
#include <stdio.h>

static volatile unsigned long sink;
__attribute__((noinline)) static void blocked_work(void)
{
	for (unsigned long i = 0; i < 450000000ul; i++)
		sink += i;
}
__attribute__((noinline)) static void open_work(void)
{
	for (unsigned long i = 0; i < 150000000ul; i++)
		sink += i;
}

int main(void)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	blocked_work();
	sigprocmask(SIG_SETMASK, &old, NULL);
	open_work();
	printf("%lu\n", sink);
	return 0;
}
