/* tests/counting/counts.c - call counts known by construction.
 * Built with -finstrument-functions; check_counts.py knows the answers:
 *   main -> a            3     a -> b     6 (2 per a)    b -> c   6
 *   main -> rec         2 calls of rec(10): folded into one node, 22 calls
 *   main -> f           f/g mutual recursion f(7): f 4 calls, g 4 calls
 *   main -> c           5 (the same c on another path)
 *   main -> jump -> deep  4 calls, then longjmp back into jump: jump's exit
 *                         closes the deep frames (one exit mismatch)
 *   threads: T worker threads, each worker -> leaf x N
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline))

volatile int sink;

NOINL void c(void) { sink++; }
NOINL void b(void) { c(); }
NOINL void a(void) { b(); b(); }
NOINL int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
NOINL int g(int n);
NOINL int f(int n) { return n <= 0 ? 0 : g(n - 1) + 1; }
NOINL int g(int n) { return n <= 0 ? 0 : f(n - 1) + 1; }

static jmp_buf jb;
NOINL void deep(int n) { if (n == 0) longjmp(jb, 1); deep(n - 1); }
NOINL void jump(void) { if (!setjmp(jb)) deep(3); }

NOINL void leaf(void) { sink++; }
NOINL void *worker(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++)
		leaf();
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	long per = argc > 2 ? atol(argv[2]) : 100000;
	for (int i = 0; i < 3; i++)
		a();
	sink += rec(10) + rec(10);
	sink += f(7);
	for (int i = 0; i < 5; i++)
		c();
	jump();
	pthread_t th[64];
	for (int i = 0; i < nthreads && i < 64; i++)
		pthread_create(&th[i], NULL, worker, (void *)per);
	for (int i = 0; i < nthreads && i < 64; i++)
		pthread_join(th[i], NULL);
	printf("done %d\n", sink > 0);
	return 0;
}
