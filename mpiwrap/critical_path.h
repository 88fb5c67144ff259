/* mpiwrap/critical_path.h - online critical-path profiling and critical-path
 * zeroing over MPI (issue 6, ALGORITHMS.md section 6, Hollingsworth 1996).
 *
 * The runtime side is mpiwrap/critical_path.c, a piggyback extension of the
 * wrappers (mpiwrap/pb.h, struct hp_pb_ext).  This header is also the
 * layout of its profile section, HP_SEC_CRITPATH (core/format.h), read by
 * tools/view_critpath.c, so its first part needs neither MPI nor the
 * runtime.  docs/critical-path.md describes the algorithm, the section and
 * the report.
 *
 * HP_SEC_CRITPATH payload (little-endian):
 *     u32 kv_len, kv block (keys in docs/critical-path.md)
 *     u32 nrec, u32 rec_size, nrec x struct hp_cp_rec (readers use rec_size,
 *     so records may grow at their end)
 * Times are nanoseconds of the path: time the thread making the MPI calls
 * was not waiting inside MPI.  A value of -1 means "not known yet" (the
 * job-wide values before MPI_Finalize).
 */
#ifndef HYPROF_MPIWRAP_CRITICAL_PATH_H
#define HYPROF_MPIWRAP_CRITICAL_PATH_H

#include <stdint.h>
#include <string.h>

/* Does the demangled name `dm` name the function `name` given by the user
 * (a qualified name without parameters)?  `name` must be followed by one of
 * `ends` (or the end, when end_ok): "(" for the parameters, "." for a
 * compiler clone.  A function template's demangled name starts with its
 * return type ("double work<double>(...)", "void boost::mpi::wait_all<...>
 * (...)"): the name may also start after a space outside every <> and ()
 * of that type, before the parameters.  Used where the runtime selects
 * (critical_path.c) and where the report finds the time
 * (tools/view_critpath.c).  Pure. */
static inline int hp_cp_name_match(const char *dm, const char *name, const char *ends, int end_ok)
{
	size_t n = strlen(name);
	int depth = 0;
	for (const char *p = dm; *p; p++) {
		if ((p == dm || (depth == 0 && p[-1] == ' ')) && !strncmp(p, name, n) &&
		    (p[n] ? strchr(ends, p[n]) != NULL : end_ok))
			return 1;
		if (depth == 0 && *p == '(')
			return 0; /* the parameters: the name is before them */
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
	}
	return 0;
}

#define HP_CP_VERSION 1u
#define HP_CP_MAXF 32   /* functions carried at most (two piggyback slots each) */
#define HP_CP_NAME 96   /* bytes of a name in a record, NUL included */
#define HP_CP_KDEFAULT 8 /* `auto` without a count (bench/critpath, docs) */

enum hp_cp_rec_flag {
	HP_CP_F_REGION = 1u << 0,     /* a region of the region API, not a function */
	HP_CP_F_GLOBAL = 1u << 1,     /* g_* hold the job's values (MPI_Finalize ran) */
	HP_CP_F_UNRESOLVED = 1u << 2, /* the name matched no symbol and no region here
				       * (with HP_CP_F_GLOBAL: on no rank) */
};

/* One selected function (or region) in one process. */
struct hp_cp_rec {
	uint64_t addr;       /* entry address in this process (0: region or unresolved) */
	int64_t share_ns;    /* its share of the longest path ending in this process */
	int64_t net_ns;      /* zeroing: that path's length had it taken no time */
	int64_t busy_ns;     /* its own time in this process, not waiting (all MPI threads) */
	int64_t g_share_ns;  /* its share of the critical path of the job (-1: not yet) */
	int64_t g_net_ns;    /* the job's critical-path length had it taken no time */
	int64_t g_busy_ns;   /* busy_ns summed over the ranks */
	uint32_t flags;      /* enum hp_cp_rec_flag */
	uint32_t nkeys;      /* probe-tree nodes of it seen in this process */
	char name[HP_CP_NAME]; /* as selected (symbol-table spelling: C++ mangled) */
	uint32_t g_nkeys;    /* nkeys summed over the ranks (HP_CP_F_GLOBAL) */
	uint32_t reserved;
};

#endif
