/* sigprof: a program with its own SIGPROF profiler (setitimer ITIMER_PROF)
 * and SIGALRM handler.  It spins for argv[1] millions of steps, then prints
 * "ticks N alarms M" and checks that its handlers are still installed. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include "work.h"

static volatile sig_atomic_t ticks, alarms;

static void on_prof(int sig) { (void)sig; ticks++; }
static void on_alrm(int sig) { (void)sig; alarms++; }

__attribute__((noinline)) void profiled_work(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	unsigned long n = arg_m(argc, argv, 1, 500);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || signal(SIGALRM, on_alrm) == SIG_ERR) {
		perror("sigaction");
		return 1;
	}
	struct itimerval it = {{0, 1000}, {0, 1000}};
	struct itimerval wall = {{0, 20000}, {0, 20000}};
	if (setitimer(ITIMER_PROF, &it, NULL) || setitimer(ITIMER_REAL, &wall, NULL)) {
		perror("setitimer");
		return 1;
	}
	profiled_work(n);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	struct sigaction cur;
	sigaction(SIGPROF, NULL, &cur);
	if (cur.sa_handler != on_prof) {
		fprintf(stderr, "sigprof: SIGPROF handler replaced\n");
		return 1;
	}
	printf("ticks %d alarms %d\n", (int)ticks, (int)alarms);
	return ticks > 0 && alarms > 0 ? 0 : 1;
}
