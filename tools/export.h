/* tools/export.h - a profile model written in the formats other viewers read.
 *
 * `hyprof export --format F` (tools/cmd_export.c) loads a profile directory
 * into struct hp_model and calls one writer below.  Every writer reads the
 * model only (tools/model.h), never the .hyp files, and none of them exits:
 * each returns 0 or -errno and puts a one-line reason in `err`.
 *
 *   pprof       tools/export_pprof.c       gzipped profile.proto (protobuf-c, zlib)
 *   folded      tools/export_folded.c      Brendan Gregg's folded stacks
 *   speedscope  tools/export_speedscope.c  speedscope's JSON file format
 *   tau         tools/export_tau.c         TAU profile.N.C.T files (a directory)
 *   svg         tools/export_svg.c         one self-contained flame graph SVG
 *
 * tools/export_tree.c holds what they share: choosing the tree of one rank or
 * thread (merging trees by function path when several threads match), a
 * non-recursive walk with the current call path, value selection and the
 * JSON/XML escaping.  docs/cmd-export.md describes each format's mapping.
 *
 * Thread-safe: yes, as long as two calls do not share a model being changed.
 */
#ifndef HYPROF_TOOLS_EXPORT_H
#define HYPROF_TOOLS_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/model.h"

/* Which metric a single-valued export writes (folded, speedscope, svg). */
enum export_value {
	EXPORT_V_DEFAULT = 0, /* the format's own default */
	EXPORT_V_SAMPLES,     /* samples with the path as leaf (count) */
	EXPORT_V_TIME,        /* the primary metric (seconds in the model) */
	EXPORT_V_CALLS,       /* probe calls of the path (count) */
};

/* How speedscope splits the profile into profiles. */
enum export_split {
	EXPORT_SPLIT_AUTO = 0, /* by rank when MPI ran, else by thread when several */
	EXPORT_SPLIT_NONE,
	EXPORT_SPLIT_RANK,
	EXPORT_SPLIT_THREAD,
};

struct export_opts {
	int rank;               /* -1: every rank */
	int thread;             /* -1: every thread (index within its process) */
	enum export_value value;
	enum export_split split;
	double min_width;       /* svg: prune frames below this fraction of the total */
	int width;              /* svg: image width in pixels */
	const char *title;      /* svg: title; NULL = program name */
	int callpath_depth;     /* tau: frames in a call-path name, 0 = all */
};

#define EXPORT_SVG_MIN_WIDTH 0.0005 /* 0.05% of the total */
#define EXPORT_SVG_WIDTH 1200

void export__opts_init(struct export_opts *o);

/* ---- writers (0 or -errno, with a reason in err) ---------------------- */
/* `out` must be a file opened for binary writing. */
int export__pprof(struct hp_model *m, const struct export_opts *o, FILE *out,
		  char *err, size_t errlen);
int export__folded(struct hp_model *m, const struct export_opts *o, FILE *out,
		   char *err, size_t errlen);
int export__speedscope(struct hp_model *m, const struct export_opts *o, FILE *out,
		       char *err, size_t errlen);
/* Writes profile.N.0.T files into directory `dir` (created if missing). */
int export__tau(struct hp_model *m, const struct export_opts *o, const char *dir,
		char *err, size_t errlen);
int export__svg(struct hp_model *m, const struct export_opts *o, FILE *out,
		char *err, size_t errlen);

/* ---- shared helpers (tools/export_tree.c) ----------------------------- */

/* A tree chosen for export: the model's own tree or one built by merging. */
struct export_tree {
	struct hp_tnode *root;
	struct export_pool *pool; /* nodes owned by this tree, or NULL */
	int nmatched;             /* threads that matched the selection */
};

/* The tree of `rank` (-1: all) and `thread` (-1: all): m->root when both are
 * -1, a thread's own tree when exactly one thread matches, else a new tree
 * merged by function path.  Returns 0, -ENOENT when no thread matches (with
 * the ranks and threads that exist in err), or -ENOMEM. */
int export__select(struct hp_model *m, int rank, int thread, struct export_tree *t,
		   char *err, size_t errlen);
void export__tree_free(struct export_tree *t);

/* Merge the trees `roots[0..n-1]` by function path into a new tree. */
int export__merge(struct hp_tnode **roots, size_t n, struct export_tree *t);

/* Walk the tree below `root` (root itself excluded) in pre-order without
 * recursion.  `path[0..depth-1]` is the call path of n, outermost first
 * (path[depth-1] == n).  pre() returns 0 to go on, 1 to skip n's children,
 * < 0 to stop (the walk returns that value); post() may be NULL. */
typedef int (*export_visit)(struct hp_tnode *n, struct hp_tnode **path, int depth,
			    void *arg);
int export__walk(struct hp_tnode *root, export_visit pre, export_visit post, void *arg);

/* Node values.  Self value of `n` for `v` (calls: 0 when no probe ran). */
double export__self(const struct hp_tnode *n, enum export_value v);
double export__total(const struct hp_tnode *n, enum export_value v);
/* 1 if any node below root has probe calls (calls >= 0). */
int export__has_calls(struct hp_tnode *root);
/* 1 in measured mode (compensated primary metric, raw time kept beside it). */
int export__measured(const struct hp_model *m);
/* The name to show for a node: its function's name, "[unknown]" if none. */
const char *export__name(const struct hp_tnode *n);
/* Rank of a thread as exported: its MPI rank, else its process index. */
int export__thread_node(const struct hp_model *m, const struct hp_threadinfo *ti);
/* The threads an export splits by rank or thread: the model's, except that
 * a merged MPI file's threads (each the sum of that thread over its ranks)
 * give way to the ranks' own (m->rank_threads, from DIR/.hyprof-ranks or
 * --per-rank) when those were found.  A malloc'ed array of *n pointers
 * (NULL only without memory). */
struct hp_threadinfo **export__threads(const struct hp_model *m, size_t *n);

/* JSON string with quotes; also escapes <, >, & and U+2028/9 so the text can
 * sit inside an HTML <script> element. */
void export__json_str(FILE *out, const char *s);
/* A JSON number: %.*g, and 0 for NaN or infinities. */
void export__json_num(FILE *out, double v, int digits);
/* A nonnegative integer, fast (the big exports write millions). */
void export__put_u64(FILE *out, uint64_t v);
/* XML/HTML text or attribute value (escapes & < > " '). */
void export__xml_str(FILE *out, const char *s);
/* Open `path` for writing through a temporary file in the same directory;
 * export__commit() renames it into place (or removes it when rc != 0). */
FILE *export__open(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
int export__commit(FILE *f, const char *tmp, const char *path, int rc, char *err,
		   size_t errlen);

/* Small open-addressing hash map from a 64-bit key to a 64-bit value. */
struct export_map {
	uint64_t *keys, *vals;
	size_t cap, n;
};
int export__map_init(struct export_map *h, size_t hint);
void export__map_free(struct export_map *h);
/* Returns a pointer to the value of `key` (inserted as 0 when new, *isnew set),
 * or NULL on allocation failure.  Key ~0 is reserved. */
uint64_t *export__map_get(struct export_map *h, uint64_t key, int *isnew);
uint64_t export__hash(const void *p, size_t n, uint64_t seed);

#endif
