/* repro_sigmask.c - a worker thread created with every signal blocked
 * (what liblzma's mythread_create, used by `xz -T2`, does) gets no samples.
 * gcc -O1 -g -pthread repro_sigmask.c -o repro_sigmask
 * hyprof run -o out -- ./repro_sigmask ; hyprof report --threads out
 * expected: most samples in spin(); observed: the worker thread has 0 samples.
 * The blocked signals stay queued (one per sample, no cap: watch SigQ in
 * /proc/PID/status); once the user's RLIMIT_SIGPENDING is full the kernel
 * sends SIGIO instead, which kills the process:
 *   hyprof run --freq 50000 -o out -- ./repro_sigmask 3   -> exit 157, no profile
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long rounds = 1;

__attribute__((noinline)) static void spin(void)
{
	for (unsigned long i = 0; i < 600000000ul * rounds; i++)
		sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	spin();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 10);
	sigset_t all, old;
	pthread_t t;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&t, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_join(t, NULL);
	printf("%lu\n", sink);
	return 0;
}
