/* tools/model_build.h - the pure pieces of tools/model.c, exposed for the
 * table-driven tests in tests/tools/ and for the commands that need a flat
 * profile of a sub-tree.  Nothing here reads files or symbols: paths are
 * sequences of struct hp_func.
 *
 * The join of hybrid mode (docs/cmd-report.md, "How counts and samples are
 * joined"): a sampled path is walked frame by frame; the tree position
 * follows every frame with recursion folding (a function already on the
 * path continues at its outermost node, HP_T_FOLDED), and a probe cursor
 * follows only the instrumented frames through the probe tree with the
 * probes' own folding rule, so a sampled node is linked to the probe node
 * whose path is the projection of its path on the instrumented functions.
 *
 * Thread-safe: no.
 */
#ifndef HYPROF_TOOLS_MODEL_BUILD_H
#define HYPROF_TOOLS_MODEL_BUILD_H

#include <stdint.h>

#include "core/cct.h"
#include "tools/model.h"

/* A function-level probe-tree node (one per distinct probe path). */
struct pnode {
	struct hp_func *fn;          /* NULL at the root */
	struct pnode *parent, *child, *sibling;
	uint64_t calls, incl, excl, incl_comp, excl_comp;
	uint64_t samples, period;    /* samples while this probe was innermost */
	uint64_t meas_samples, clamped, skipped;
	uint32_t flags;              /* enum cct_flag, ORed over merged nodes */
	struct pnode *pf;            /* full probe tree: the node of the function-only
				      * tree (regions spliced out) it belongs to */
	struct hp_tnode *t;          /* tree node that shows this probe path */
	int matched;                 /* some sampled node projects here */
	int nmapped;                 /* number of sampled nodes projecting here */
	uint64_t grp_period;         /* mb__regions: period of the full nodes
				      * spliced into this function-only node */
};

/* Add the counters of s (a struct pnode or a struct cct_node: same names)
 * into the struct pnode d; flags are the caller's. */
#define MB_PNODE_ADD(d, s)                                 \
	do {                                               \
		(d)->calls += (s)->calls;                  \
		(d)->incl += (s)->incl;                    \
		(d)->excl += (s)->excl;                    \
		(d)->incl_comp += (s)->incl_comp;          \
		(d)->excl_comp += (s)->excl_comp;          \
		(d)->samples += (s)->samples;              \
		(d)->period += (s)->period;                \
		(d)->meas_samples += (s)->meas_samples;    \
		(d)->clamped += (s)->clamped;              \
		(d)->skipped += (s)->skipped;              \
	} while (0)

struct mb;                       /* builder: arenas, function table, maps */

struct mb *mb__new(void);
void mb__free(struct mb *b);

/* The distinct function (name, module, file): created on first use. */
struct hp_func *mb__func(struct mb *b, const char *name, const char *module, const char *file,
			 int line, int is_region, int is_measurement);
struct hp_func **mb__funcs(struct mb *b, size_t *n);

/* A new empty tree (root with fn NULL). */
struct hp_tnode *mb__root(struct mb *b);
/* Child of parent with fn, inserted if missing (calls start at -1).  With
 * fold: if fn is already on the path root..parent, return that outermost
 * node instead and flag it HP_T_FOLDED. */
struct hp_tnode *mb__child(struct mb *b, struct hp_tnode *parent, struct hp_func *fn, int fold);

/* Probe trees: a root, and find-or-insert of a child (no folding: the
 * runtime folded already).  A function with a probe node anywhere is
 * "instrumented" for the join. */
struct pnode *mb__proot(struct mb *b);
struct pnode *mb__pchild(struct mb *b, struct pnode *parent, struct hp_func *fn);
int mb__instrumented(struct mb *b, const struct hp_func *fn);

/* One frame of a sampled path: returns the new position.  pos.p NULL means
 * the projection left the probe tree (calls unknown below). */
struct mb_pos {
	struct hp_tnode *t;
	struct pnode *p;
};
struct mb_pos mb__step(struct mb *b, struct mb_pos pos, struct hp_func *fn, uint32_t tflags);

/* After every sampled path of one tree was added (self set on leaves; trees
 * are built and joined one at a time):
 * compute totals, give each sampled node the calls of the probe nodes that
 * project on it, add probe-only nodes (time 0, HP_T_PROBE_ONLY) for probe
 * paths no sample reached, under the node that shows their parent path.
 * proot is the function-only probe tree (no regions).  Returns the number
 * of probe-only nodes added. */
int mb__join(struct mb *b, struct hp_tnode *root, struct pnode *proot);

/* Regions in a sampled tree (call after mb__join; `full` is the full probe
 * tree, regions included).  Samples never name a region; each sampled node
 * was taken at one of the full probe nodes that splice into its projection,
 * and each such node inside a region takes its share (its sampled period
 * over the period of all of them) of that projection's sampled time, from
 * the sampled nodes that can have been inside the region: the time moves to
 * a copy of their path with the region inserted under the frame of the
 * function that contains the region's BEGIN (same file, latest definition
 * line not after it; frames called from before that line were not inside),
 * else under the enclosing instrumented function.  So a function sampled
 * inside a region shows under the region, with the calls the probes counted
 * there (the node of its path outside keeps the other calls).  A region that
 * cannot be placed (no instrumented function and no source position around
 * it) stays an overlay: calls exact, time = its probe subtree's sampled time
 * (period * secs_per_period), not added into its parent's total.  Returns
 * the number of overlays; *placed (may be NULL) gets the number of region
 * nodes placed in the tree. */
int mb__regions(struct mb *b, struct hp_tnode *root, struct pnode *full, double secs_per_period,
		int *placed);
/* Is this node a region overlay? */
int mb__is_overlay(const struct hp_tnode *n);

/* Build the function-only probe tree of `full` (regions spliced out, their
 * children lifted to the enclosing function, metrics summed); sets every
 * full node's pf.  Returns the new root. */
struct pnode *mb__splice_regions(struct mb *b, struct pnode *full);

/* Recompute total = self + children totals (region overlays excluded), and
 * the same for the raw and sampled variants. */
void mb__totals(struct hp_tnode *root);

/* The tree flags of probe flags (enum cct_flag): folded, partial, excluded,
 * truncated. */
static inline uint32_t mb__tflags(uint32_t cct_flags)
{
	return ((cct_flags & CCT_F_FOLDED) ? HP_T_FOLDED : 0) |
	       ((cct_flags & CCT_F_PARTIAL) ? HP_T_PARTIAL : 0) |
	       ((cct_flags & CCT_F_EXCLUDED) ? HP_T_EXCLUDED : 0) |
	       ((cct_flags & CCT_F_TRUNCATED) ? HP_T_TRUNCATED : 0);
}
/* Show the probe node p's calls on t (calls, clamped, skipped, flags but
 * truncated): t's calls stop being unknown. */
void mb__calls_add(struct hp_tnode *t, const struct pnode *p);

/* The tree of root with hyprof's own frames folded (docs/cmd-report.md,
 * "Frames of hyprof"): a run of frames of hyprof's code (fn->is_measurement)
 * on a path disappears; when it is an MPI wrapper (entry MPI_Xxx, the Fortran
 * aliases and shims, the inlined hpw_MPI_Xxx, or a tail-called hp_w_xxx
 * first) it becomes the node of that call (function "MPI_Xxx", module
 * "[mpi]", not hyprof's), into which the library's PMPI_Xxx frame merges.
 * A hyprof frame's own time, and its calls out to anything else than the
 * call it wraps (the merge at finalize, set-up, piggyback packing), stay
 * visible under one node of that frame, marked hyprof's.  Times are
 * kept: every self time lands on exactly one node; totals are recomputed.
 * Returns root itself when it has no hyprof frame (a measured-mode tree),
 * else a new tree in b; *folded (may be NULL) gets the number of hyprof
 * nodes that disappeared. */
struct hp_tnode *mb__fold_hyprof(struct mb *b, struct hp_tnode *root, size_t *folded);

/* Add the tree src into dst by function path (every metric summed; calls
 * -1 stays -1 only when both are -1). */
void mb__merge(struct mb *b, struct hp_tnode *dst, const struct hp_tnode *src);

/* Flat profile of a tree: self summed per function, total counted once per
 * path (not again inside its own recursion), calls summed.  Sorted by self
 * descending.  Returns the number of rows (array malloc'ed in *out). */
size_t mb__flat(struct mb *b, const struct hp_tnode *root, struct hp_fstat **out);

/* Path of a node as "a;b;c" (root excluded) into buf. */
const char *mb__path(const struct hp_tnode *n, char *buf, size_t len);

/* ---- model-level helpers (tools/model.c) ------------------------------ */
/* Flat profile of model__tree(m, rank, thread); calls come from the probe
 * trees of the threads selected (exact, never counted twice). */
size_t model__flat(struct hp_model *m, int rank, int thread, struct hp_fstat **out);
/* Flat profile of one thread (m->threads[i]), calls exact from its probe
 * tree. */
size_t model__thread_flat(struct hp_model *m, size_t i, struct hp_fstat **out);
/* The parts `--ranks` shows, ascending by rank then pid: one per rank of
 * the per-process files, with the pid of its first process (a merged
 * file's ranks from their own files; the merged file itself, rank -1, only
 * when none of them was found), and one per process without a rank (rank
 * -1, its pid).  Array malloc'ed in *out. */
struct hp_rankpart {
	int rank, pid;
};
size_t model__rank_list(struct hp_model *m, struct hp_rankpart **out);
/* Tree and flat profile of exactly that part: the processes of its rank,
 * or the one process (rank -1) it names. */
struct hp_tnode *model__rank_tree(struct hp_model *m, const struct hp_rankpart *p);
size_t model__rank_flat(struct hp_model *m, const struct hp_rankpart *p, struct hp_fstat **out);
/* The builder that owns the model's functions and trees. */
struct mb *model__builder(struct hp_model *m);

#endif
