/* churn.c - many short threads, two at a time: each runs worker(), which
 * calls leaf() K times.  Usage: churn N K.  Known counts: worker N,
 * leaf N*K, main 1.  Past HYPROF_MAX_THREADS exited threads the runtime
 * merges the exited threads into one record (runtime/thread.c): the counts
 * and the thread total must not change, the number of records must stay
 * bounded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long k;
static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void *worker(void *a)
{
	for (unsigned long i = 0; i < k; i++)
		leaf(i);
	return a;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	k = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	for (unsigned long i = 0; i < n; i += 2) {
		pthread_t a, b;
		int two = i + 1 < n;
		if (pthread_create(&a, NULL, worker, NULL) || (two && pthread_create(&b, NULL, worker, NULL))) {
			perror("pthread_create");
			return 1;
		}
		pthread_join(a, NULL);
		if (two)
			pthread_join(b, NULL);
	}
	printf("%lu threads\n", n);
	return 0;
}
