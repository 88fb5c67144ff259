/* endings.c - measured mode when main never returns.  main calls work()
 * (~0.2 s) and then ends as argv[1] says: return | exit | _exit | abort |
 * segv | term | exec (execs /bin/true: the partial profile written at the
 * exec) | exec-fail (an exec that fails, then work() again and return).  main's exit probe never runs except for `return`; the
 * profile must still give main its time (counting.c
 * hp_counting_thread_flush() at the final write), not "total 0 s". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	work(argc > 2 ? strtoul(argv[2], NULL, 10) : 100000000ul);
	fflush(stdout);
	if (!strcmp(how, "exit"))
		exit(0);
	if (!strcmp(how, "_exit"))
		_exit(0);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "exec"))
		execl("/bin/true", "true", (char *)NULL);
	if (!strcmp(how, "exec-fail")) {
		execl("/nonexistent/hyprof-test", "x", (char *)NULL);
		work(argc > 2 ? strtoul(argv[2], NULL, 10) : 100000000ul);
	}
	if (!strcmp(how, "segv") || !strcmp(how, "term"))
		raise(!strcmp(how, "segv") ? SIGSEGV : SIGTERM);
	return 0;
}
