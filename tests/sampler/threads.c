/* threads: two threads, work1 does twice the steps of work2; main only waits.
 * Usage: threads [millions of steps for work2, default 300] [blocked]
 * blocked: the threads are created with every signal blocked, and keep
 * that mask (as liblzma creates the workers of `xz -T`).
 * With HP_TEST_CPU=FILE each thread appends the CPU time it used
 * (CLOCK_THREAD_CPUTIME_ID, ns) as "work1 NS" / "work2 NS": twice the steps
 * is not twice the CPU time when the two threads share a physical core or a
 * loaded host for part of the run only, so a test compares the profile's
 * shares with what the threads really used. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "work.h"

static unsigned long n2;

__attribute__((noinline)) void work1(void) { spin(2 * n2); }
__attribute__((noinline)) void work2(void) { spin(n2); }

static void *t1(void *p) { (void)p; work1(); cpu_note("work1", cpu_now()); return NULL; }
static void *t2(void *p) { (void)p; work2(); cpu_note("work2", cpu_now()); pthread_exit(NULL); }

int main(int argc, char **argv)
{
	n2 = arg_m(argc, argv, 1, 300);
	pthread_t a, b;
	sigset_t all, old;
	int blocked = argc > 2 && !strcmp(argv[2], "blocked");
	sigfillset(&all);
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&a, NULL, t1, NULL) || pthread_create(&b, NULL, t2, NULL)) {
		perror("pthread_create");
		return 1;
	}
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
