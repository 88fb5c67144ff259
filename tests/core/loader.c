/* tests/core/loader.c - a library with a DT_RUNPATH ($ORIGIN/core_plugins)
 * that dlopens a plugin by bare name: through an interposed dlopen, glibc
 * sees the wrong caller; hyprof must still find the plugin. */
#include <dlfcn.h>

void *hp_test_loader_open(const char *name, int flags)
{
	void *h = dlopen(name, flags);
	/* not a tail call: glibc (and hyprof) take the caller from the return
	 * address, which a tail call would make our caller's */
	__asm__ volatile("" ::: "memory");
	return h;
}
