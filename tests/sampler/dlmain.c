/* dlmain: dlopen argv[1], run its plug_work, dlclose it, then run
 * after_close before exit, so the plugin is gone when the profile is
 * written. */
#include <dlfcn.h>
#include <stdio.h>
#include "work.h"

__attribute__((noinline)) void after_close(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	unsigned long n = arg_m(argc, argv, 2, 300);
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 1;
	}
	void (*work)(unsigned long) = (void (*)(unsigned long))dlsym(h, "plug_work");
	if (!work)
		return 1;
	work(n);
	if (dlclose(h))
		return 1;
	after_close(n / 3);
	return 0;
}
