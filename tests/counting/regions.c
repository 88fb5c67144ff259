/* tests/counting/regions.c - regions of include/hyprof.h with known counts.
 *   main/outer                     1      (region)
 *   main/outer/loop                100    (region, a loop body)
 *   main/outer/loop/work           100    (instrumented function)
 *   main/outer/dyn                 7      (function API, computed name)
 *   main/rfold                     1 + nested same region folded: 5 calls
 *   worker/tregion                 T x 50 (threads)
 *   main/twice                     2      (two END sites, same name)
 * Prints "active N" (what hyprof_active() says) so the test knows the
 * runtime was found through the weak references.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hyprof.h"

volatile int sink;
__attribute__((noinline)) void work(int i) { sink += i; }

__attribute__((noinline)) void nested(int d)
{
	HYPROF_REGION_BEGIN("rfold");
	if (d > 0)
		nested(d - 1);
	HYPROF_REGION_END("rfold");
}

__attribute__((noinline)) void *worker(void *arg)
{
	for (int i = 0; i < 50; i++) {
		HYPROF_REGION_BEGIN("tregion");
		sink++;
		HYPROF_REGION_END("tregion");
	}
	return arg;
}

int main(void)
{
	HYPROF_REGION_BEGIN("outer");
	for (int i = 0; i < 100; i++) {
		HYPROF_REGION_BEGIN("loop");
		work(i);
		HYPROF_REGION_END("loop");
	}
	char name[32];
	strcpy(name, "dyn");
	for (int i = 0; i < 7; i++) {
		HYPROF_REGION_BEGIN_NAME(name);
		HYPROF_REGION_END_NAME(name);
	}
	HYPROF_REGION_END("outer");
	nested(4);
	for (int i = 0; i < 2; i++) {
		HYPROF_REGION_BEGIN("twice");
		if (i == 0) {
			HYPROF_REGION_END("twice");
		} else {
			HYPROF_REGION_END("twice");
		}
	}
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("active %d\n", hyprof_active ? hyprof_active() : -1);
	return 0;
}
