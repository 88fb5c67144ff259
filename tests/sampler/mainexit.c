/* mainexit: main starts a thread, does main_work, then calls pthread_exit;
 * the process ends when the thread (thread_work, twice main_work) ends,
 * and glibc then runs exit(0) on that last thread. */
#include <pthread.h>
#include "work.h"

static unsigned long n;

__attribute__((noinline)) void main_work(void) { spin(n); }
__attribute__((noinline)) void thread_work(void) { spin(2 * n); }

static void *run(void *p) { (void)p; thread_work(); return NULL; }

int main(int argc, char **argv)
{
	n = arg_m(argc, argv, 1, 150);
	pthread_t t;
	if (pthread_create(&t, NULL, run, NULL))
		return 1;
	main_work();
	pthread_exit(NULL);
}
