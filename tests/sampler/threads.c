/* threads: two threads, work1 does twice the steps of work2; main only waits.
 * Usage: threads [millions of steps for work2, default 300] */
#include <pthread.h>
#include <stdio.h>
#include "work.h"

static unsigned long n2;

__attribute__((noinline)) void work1(void) { spin(2 * n2); }
__attribute__((noinline)) void work2(void) { spin(n2); }

static void *t1(void *p) { (void)p; work1(); return NULL; }
static void *t2(void *p) { (void)p; work2(); pthread_exit(NULL); }

int main(int argc, char **argv)
{
	n2 = arg_m(argc, argv, 1, 300);
	pthread_t a, b;
	if (pthread_create(&a, NULL, t1, NULL) || pthread_create(&b, NULL, t2, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
