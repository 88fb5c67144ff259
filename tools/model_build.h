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
};

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

/* Regions in a sampled tree: samples never name a region, so each region
 * probe node of the full probe tree `full` becomes an overlay node under the
 * node that shows its enclosing function path (or its enclosing region's
 * overlay): calls exact, time = the region's probe subtree's sampled time
 * (period * secs_per_period).  Overlays are not added into their parent's
 * total.  Call after mb__join.  Returns the number of overlays. */
int mb__regions(struct mb *b, struct hp_tnode *root, struct pnode *full, double secs_per_period);
/* Is this node a region overlay? */
int mb__is_overlay(const struct hp_tnode *n);

/* Build the function-only probe tree of `full` (regions spliced out, their
 * children lifted to the enclosing function, metrics summed); sets every
 * full node's pf.  Returns the new root. */
struct pnode *mb__splice_regions(struct mb *b, struct pnode *full);

/* Recompute total = self + children totals (region overlays excluded), and
 * the same for the raw and sampled variants. */
void mb__totals(struct hp_tnode *root);

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
/* The builder that owns the model's functions and trees. */
struct mb *model__builder(struct hp_model *m);

#endif
