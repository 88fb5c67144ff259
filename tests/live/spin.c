/* tests/live/spin.c - a program that runs for a given time with a known
 * profile, for the live-view tests: about 3/4 of its time in hot_kernel(),
 * 1/4 in cold_kernel(), both called from main() through do_step().
 *
 * Usage: spin SECONDS [THREADS] [FORK] [MAINEXIT]
 *   THREADS  also run the same loop on that many extra threads (default 0)
 *   FORK     1: fork once at start; the child runs the same loop (default 0)
 *   MAINEXIT 1: the main thread ends with pthread_exit at once; the process
 *            ends when the last thread returns (needs THREADS > 0)
 * Prints nothing on stdout. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spin_work.h"

static double seconds;

static void *loop(void *arg)
{
	(void)arg;
	double end = now_s() + seconds;
	while (now_s() < end)
		do_step();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: spin SECONDS [THREADS] [FORK] [MAINEXIT]\n");
		return 2;
	}
	seconds = atof(argv[1]);
	int nthreads = argc > 2 ? atoi(argv[2]) : 0;
	int forking = argc > 3 ? atoi(argv[3]) : 0;
	int mainexit = argc > 4 ? atoi(argv[4]) : 0;
	pid_t child = forking ? fork() : 0;
	pthread_t th[64];
	if (nthreads > 64)
		nthreads = 64;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, loop, NULL);
	if (mainexit && nthreads > 0)
		pthread_exit(NULL);
	loop(NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
