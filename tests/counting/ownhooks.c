/* tests/counting/ownhooks.c - a program with its own -finstrument-functions
 * hooks (a home-made tracer): its probe calls bind to its own definitions,
 * ahead of libhyprof.so's, so hyprof counts nothing and must say why rather
 * than report a program without probes.  Prints its own count: 2 calls of
 * work() and main, entered once each. */
#include <stdio.h>

static unsigned long entries;

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	entries++;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

__attribute__((noinline)) int work(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	int s = work(1) + work(2);
	printf("sum %d entries %lu\n", s, entries);
	return 0;
}
