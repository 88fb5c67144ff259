/* counting/fortran/hyprof_f.c - the C side of the Fortran binding
 * (counting/hyprof_mod.f90), linked into the program (libhyprof_f.a).
 *
 * The runtime's functions are weak references: a Fortran program built
 * with the module runs without libhyprof.so (each call is then one load and
 * one branch) and is measured when `hyprof run` preloads the runtime.
 */
#include <stddef.h>

void hyprof_region_begin_n(const char *name, int name_len, const char *file, int line)
	__attribute__((weak));
void hyprof_region_end_n(const char *name, int name_len) __attribute__((weak));
int hyprof_active(void) __attribute__((weak));

/* Fortran strings are not NUL-terminated: the module passes the trimmed
 * length; `file` is NUL-terminated by the module ("" when absent). */
__attribute__((no_instrument_function)) void hyprof_f_region_begin(const char *name, int len,
								     const char *file, int line)
{
	if (hyprof_region_begin_n)
		hyprof_region_begin_n(name, len, file, line);
}

__attribute__((no_instrument_function)) void hyprof_f_region_end(const char *name, int len)
{
	if (hyprof_region_end_n)
		hyprof_region_end_n(name, len);
}

__attribute__((no_instrument_function)) int hyprof_f_active(void)
{
	return hyprof_active ? hyprof_active() : 0;
}
