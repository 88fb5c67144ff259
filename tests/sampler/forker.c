/* forker: parent_before, fork; the child runs child_work and exits (exit or
 * _exit, argv[2]); the parent runs parent_after and waits.  Exit status 0
 * when the child exited 0. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "work.h"

__attribute__((noinline)) void parent_before(unsigned long n) { spin(n); }
__attribute__((noinline)) void parent_after(unsigned long n) { spin(n); }
__attribute__((noinline)) void child_work(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	unsigned long n = arg_m(argc, argv, 1, 200);
	int use__exit = argc > 2 && !strcmp(argv[2], "_exit");
	parent_before(n);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		child_work(n);
		if (use__exit)
			_exit(0);
		return 0;
	}
	parent_after(n);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "forker: child failed (status %d)\n", st);
		return 1;
	}
	return 0;
}
