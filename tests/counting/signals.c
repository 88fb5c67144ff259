/* tests/counting/signals.c - instrumented functions called from an
 * asynchronous signal handler, at any instruction of the probes.
 *
 * main calls step() N times in a tight loop (much of its time is probe
 * code) while SIGALRM arrives every 200 us; the handler calls hwork() twice.
 * Truth: main/step = N, no path through handler to step, handler calls =
 * the ticks counted (printed on stderr), hwork = 2 x handler, no exit
 * mismatch.  A probe that filled its frame before taking the slot once let
 * the handler's frame overwrite it, and most later steps were recorded
 * under the handler.
 *
 * Usage: cnt_signals [N]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile long sink;

__attribute__((noinline)) void hwork(int k)
{
	sink += k;
}

__attribute__((noinline)) void handler(int sig)
{
	(void)sig;
	ticks++;
	hwork(1);
	hwork(2);
}

__attribute__((noinline)) long step(long i)
{
	return (i * 2654435761u) >> 7;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000, s = 0;
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < n; i++)
		s += step(i);
	struct itimerval z = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &z, NULL);
	printf("s=%ld\n", s);
	fprintf(stderr, "ticks=%d\n", (int)ticks);
	return 0;
}
