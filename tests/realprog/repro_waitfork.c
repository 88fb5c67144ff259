/* repro_waitfork.c - the parent forks a child that spins ~1 s of CPU and
 * waits for it in waitpid().  The parent uses almost no CPU, so its profile
 * should have almost no samples; the child's profile should have ~1 s.
 * gcc -O1 -g repro_waitfork.c -o repro_waitfork
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;
__attribute__((noinline)) static void child_spin(void)
{
	for (unsigned long i = 0; i < 500000000ul; i++)
		sink += i;
}

int main(void)
{
	pid_t p = fork();
	if (p == 0) {
		child_spin();
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	printf("child status %d\n", st);
	return 0;
}
