/* tasks: create N threads or N child processes at once, each doing a little
 * work, and say how many it got.  Run under a small RLIMIT_NPROC that leaves
 * exactly room for them (with its main thread): hyprof's own threads (live
 * statistics, cost controller) must not take the program's tasks.
 * Usage: tasks thread|fork N; exit 0 if all N were created, 5 if not. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "work.h"

static void *worker(void *arg)
{
	spin(20000000ul);
	return arg;
}

int main(int argc, char **argv)
{
	int fork_mode = argc > 1 && !strcmp(argv[1], "fork");
	int n = argc > 2 ? atoi(argv[2]) : 2, got = 0;
	pthread_t t[64];
	pid_t p[64];
	if (n < 1 || n > 64)
		return 2;
	for (; got < n; got++) {
		int rc = 0;
		if (fork_mode) {
			p[got] = fork();
			if (p[got] == 0) {
				spin(20000000ul);
				_exit(0);
			}
			rc = p[got] < 0 ? errno : 0;
		} else {
			rc = pthread_create(&t[got], NULL, worker, NULL);
		}
		if (rc) {
			printf("task %d: %s\n", got, strerror(rc));
			break;
		}
	}
	for (int i = 0; i < got; i++) {
		if (fork_mode)
			waitpid(p[i], NULL, 0);
		else
			pthread_join(t[i], NULL);
	}
	printf("%d of %d\n", got, n);
	return got == n ? 0 : 5;
}
