/* endings.c - spin ~0.5 s then end in the way argv[1] says:
 * exit | _exit | abort | segv | raise-term | thread-exit (exit() from a second thread while main spins)
 * gcc -O1 -g -pthread endings.c -o endings
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;
__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
static void *th(void *a)
{
	(void)a;
	spin(200000000ul);
	printf("thread exits\n");
	fflush(stdout);
	exit(3);
}
int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	printf("start %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "thread-exit")) {
		pthread_t t;
		pthread_create(&t, NULL, th, NULL);
		for (;;)
			spin(1000);
	}
	spin(300000000ul);
	if (!strcmp(how, "_exit"))
		_exit(5);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(how, "raise-term"))
		raise(SIGTERM);
	printf("end\n");
	return 7;
}
