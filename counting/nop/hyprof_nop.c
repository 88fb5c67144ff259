/* counting/nop/hyprof_nop.c - libhyprof_nop.so: the probes and the region
 * API with the same ABI as libhyprof.so, doing nothing.
 *
 * Uses: the baseline that the benchmarks subtract (a program's cost with
 * probe calls but no measurement), and the library a non-PIE program links
 * against to use include/hyprof.h without depending on libhyprof.so (`hyprof
 * run` preloads the real runtime over it).  Kept in its own folder so the
 * runtime's glob of counting/ sources does not pick it up.
 */
#define HYPROF_RUNTIME_BUILD 1
#include "hyprof.h"

#define NOP __attribute__((visibility("default"), no_instrument_function))

NOP void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

NOP void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

NOP void hyprof_region_begin(const char *name, const char *file, int line)
{
	(void)name;
	(void)file;
	(void)line;
}

NOP void hyprof_region_end(const char *name)
{
	(void)name;
}

NOP void hyprof_region_begin_n(const char *name, int name_len, const char *file, int line)
{
	(void)name;
	(void)name_len;
	(void)file;
	(void)line;
}

NOP void hyprof_region_end_n(const char *name, int name_len)
{
	(void)name;
	(void)name_len;
}

NOP void hyprof_region_begin_site(struct hyprof_site *site)
{
	(void)site;
}

NOP void hyprof_region_end_site(struct hyprof_site *site)
{
	(void)site;
}

NOP int hyprof_active(void)
{
	return 0;
}
