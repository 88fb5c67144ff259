/* hyprof.h - hyprof's public region API (C and C++).
 *
 *   #include <hyprof.h>
 *   HYPROF_REGION_BEGIN("solve");
 *   for (...) { ... }
 *   HYPROF_REGION_END("solve");
 *
 * A region is a named, timed (measured mode) and counted (hybrid and
 * measured modes) interval of a thread, recorded in the probe call tree like
 * a function, with the file and line of its BEGIN.  Regions nest with each
 * other and with instrumented functions; END closes the innermost open
 * region of that name.
 *
 * Cost when the program runs without hyprof: nothing to link.  The functions
 * are weak references: in a position-independent executable (the default of
 * GCC and Clang on Debian, Ubuntu, Fedora) they resolve to the runtime when
 * libhyprof.so is loaded (`hyprof run`, LD_PRELOAD, or linked) and to NULL
 * otherwise, and each macro is then one load and one predictable branch
 * (docs/probes.md gives the measured cost).  In a non-PIE executable a weak
 * reference can only resolve at link time, so there the functions are
 * ordinary references: link with -lhyprof, or with -lhyprof_nop (the
 * no-op build with the same ABI) and run under `hyprof run`, which preloads
 * the real runtime over it.  Define HYPROF_DISABLE to compile every macro
 * to nothing.
 *
 * The macros keep a per-call-site static record, so after its first use a
 * site costs no string hashing; `name` must therefore be a string literal
 * (or any constant address).  For names computed at run time use
 * HYPROF_REGION_BEGIN_NAME(expr) / HYPROF_REGION_END_NAME(expr) (they hash
 * the name at every call).  A direct call of a function below must check
 * it is there first (`if (hyprof_region_begin) ...`): it is NULL when the
 * program runs without the runtime.
 *
 * Thread-safe: yes; every thread keeps its own regions.
 */
#ifndef HYPROF_H
#define HYPROF_H

#ifdef __cplusplus
extern "C" {
#endif

/* One call site of a macro.  The runtime fills `id` at the first use. */
struct hyprof_site {
	const char *name;
	const char *file;
	int line;
	unsigned int id;
};

#if defined(HYPROF_RUNTIME_BUILD) || !(defined(__PIC__) || defined(__PIE__))
#define HYPROF_API_ __attribute__((visibility("default")))
#define HYPROF_HAVE_(f) 1
#else
#define HYPROF_API_ __attribute__((weak))
#define HYPROF_HAVE_(f) (f != 0)
#endif

/* Begin region `name` at source position file:line.  Hashes the strings on
 * every call (use the macros at fixed sites). */
HYPROF_API_ void hyprof_region_begin(const char *name, const char *file, int line);
/* End the innermost open region called `name` on this thread. */
HYPROF_API_ void hyprof_region_end(const char *name);
/* The same with an explicit length, for names that are not NUL-terminated
 * (the Fortran binding). */
HYPROF_API_ void hyprof_region_begin_n(const char *name, int name_len, const char *file,
				       int line);
HYPROF_API_ void hyprof_region_end_n(const char *name, int name_len);
/* Per-site forms used by the macros. */
HYPROF_API_ void hyprof_region_begin_site(struct hyprof_site *site);
HYPROF_API_ void hyprof_region_end_site(struct hyprof_site *site);
/* 0: no runtime or sampled mode; 1: hybrid (counting); 2: measured. */
HYPROF_API_ int hyprof_active(void);

#if defined(HYPROF_DISABLE)
#define HYPROF_REGION_BEGIN(name) ((void)0)
#define HYPROF_REGION_END(name) ((void)0)
#define HYPROF_REGION_BEGIN_NAME(name) ((void)0)
#define HYPROF_REGION_END_NAME(name) ((void)0)
#else
#define HYPROF_REGION_SITE_(name, fn)                                                           \
	do {                                                                                    \
		static struct hyprof_site hyprof_site_ = {(name), __FILE__, __LINE__, 0};       \
		if (HYPROF_HAVE_(fn))                                                           \
			fn(&hyprof_site_);                                                      \
	} while (0)
#define HYPROF_REGION_BEGIN(name) HYPROF_REGION_SITE_(name, hyprof_region_begin_site)
#define HYPROF_REGION_END(name) HYPROF_REGION_SITE_(name, hyprof_region_end_site)
/* Names computed at run time (hashed at every call). */
#define HYPROF_REGION_BEGIN_NAME(name)                                                          \
	do {                                                                                    \
		if (HYPROF_HAVE_(hyprof_region_begin))                                          \
			hyprof_region_begin((name), __FILE__, __LINE__);                        \
	} while (0)
#define HYPROF_REGION_END_NAME(name)                                                            \
	do {                                                                                    \
		if (HYPROF_HAVE_(hyprof_region_end))                                            \
			hyprof_region_end(name);                                                \
	} while (0)
#endif

/* Version of this API (the runtime keeps every older one working). */
#define HYPROF_API_VERSION 1

#ifdef __cplusplus
}
#endif

#endif
