/* execer: before_exec, then exec argv[1] (with argv[2...]) by the way
 * EXEC_HOW says (execv, execvp, execl, execve); a failed exec goes on with
 * after_failed_exec and exits 0.  EXEC_HOW=fork: fork, the child execs at
 * once (execv), the parent runs after_fork and waits.  HP_TEST_CPU=FILE:
 * the CPU time of before_exec and after_failed_exec (work.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "work.h"

extern char **environ;

__attribute__((noinline)) void before_exec(unsigned long n) { spin(n); }
__attribute__((noinline)) void after_failed_exec(unsigned long n) { spin(n); }
__attribute__((noinline)) void after_fork(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	unsigned long n = 200000000ul;
	const char *how = getenv("EXEC_HOW") ? getenv("EXEC_HOW") : "execv";
	long long c0 = cpu_now();
	before_exec(n);
	cpu_note("before_exec", cpu_now() - c0);
	if (!strcmp(how, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		after_fork(n);
		int st;
		return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	}
	if (!strcmp(how, "execvp"))
		execvp(argv[1], argv + 1);
	else if (!strcmp(how, "execl"))
		execl(argv[1], argv[1], argc > 2 ? argv[2] : NULL, (char *)NULL);
	else if (!strcmp(how, "execve"))
		execve(argv[1], argv + 1, environ);
	else
		execv(argv[1], argv + 1);
	fprintf(stderr, "execer: exec %s failed: %s\n", argv[1], strerror(errno));
	c0 = cpu_now();
	after_failed_exec(n);
	cpu_note("after_failed_exec", cpu_now() - c0);
	return 0;
}
