/* tests/counting/fork.c - probes across fork (tests/counting/e2e.sh fork).
 *
 * main (no probes) calls work(N) (N calls of leaf), then forks with no
 * probed function open, so the child's probe tree is reset to its root and
 * its node indices are used again.  The child calls mid(N), which calls
 * leaf N times: in the parent's tree node 1 was work and node 2 work/leaf,
 * in the child's node 1 is mid, so a child cache kept across the fork
 * would send mid's calls of leaf to the stale node 2.  Child: mid=1,
 * mid/leaf=N, no work.  Parent (after the child): work=2, work/leaf=2N,
 * no mid.
 * usage: fork [N]
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

__attribute__((noinline)) unsigned long work(long n)
{
	unsigned long s = 0;
	for (long i = 0; i < n; i++)
		s += leaf((unsigned long)i);
	return s;
}

__attribute__((noinline)) unsigned long mid(long n)
{
	unsigned long s = 0;
	for (long i = 0; i < n; i++)
		s += leaf((unsigned long)i);
	return s;
}

volatile unsigned long sink;

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	sink += work(n);
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		sink += mid(n);
		_exit(0);
	}
	int st = 0;
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	sink += work(n);
	return 0;
}
