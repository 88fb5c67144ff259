/* tools/model.h - a profile as the tools see it: loaded, symbolized, merged.
 *
 * model__load() reads one profile directory (every *.hyp in it: processes,
 * ranks, threads), resolves addresses to functions with libdw (tools/symbols.c)
 * and builds one function-level call tree per thread; model__merge() sums
 * trees over threads and processes by function path.  The report, compare,
 * exports and the HTML view all read this model and nothing else.
 *
 * Metrics are in seconds.  "time" is the mode's primary metric:
 *   sampled, hybrid: sampled time (period converted to seconds);
 *   measured:        compensated measured time (raw kept beside it).
 */
#ifndef HYPROF_TOOLS_MODEL_H
#define HYPROF_TOOLS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"

struct hp_func {                 /* one distinct function */
	char *name;                  /* demangled; "[unknown]" when unresolved */
	char *module;                /* basename of the object */
	char *file;                  /* source file or NULL */
	int line;                    /* first line, 0 if unknown */
	int is_region;               /* a region of the region API */
	int is_measurement;          /* hyprof's own code */
	uint32_t id;                 /* index in model.funcs */
};

enum hp_tnode_flag {
	HP_T_FOLDED = 1,             /* recursion folded into this node */
	HP_T_PARTIAL = 2,            /* calls regulated by the budget */
	HP_T_INLINED = 4,            /* an inlined frame */
	HP_T_PROBE_ONLY = 8,         /* known from probes only, no samples */
	HP_T_EXCLUDED = 16,          /* filtered out at run time */
	HP_T_TRUNCATED = 32,
	HP_T_OVERLAY = 64,           /* a region that could not be placed in the
				      * sampled paths: its time is also in the
				      * nodes beside it, not in its parent's total */
};

struct hp_tnode {                /* a function-level call tree node */
	struct hp_func *fn;          /* NULL at the root */
	struct hp_tnode *parent, *child, *sibling;
	uint32_t nchildren;
	uint32_t flags;              /* enum hp_tnode_flag */
	double samples;              /* samples with this node as leaf */
	double self, total;          /* primary metric, seconds */
	double self_raw, total_raw;  /* before compensation (= self/total if none) */
	double sampled_self, sampled_total; /* sampled time, whatever the mode */
	int64_t calls;               /* -1 when no probe ran (JSON null) */
	uint64_t clamped;            /* compensations clamped at zero */
	uint64_t skipped;            /* calls missed while regulated */
	double cost;                 /* measurement cost attributed here, seconds */
	uintptr_t pc;                /* one representative address (exports) */
	int line;                    /* call-site line in the parent, 0 if unknown */
};

/* Add every metric of s into d: sums, calls (-1 = unknown stays only when
 * both are), flags ORed; d keeps its pc and line when it has them.  Used by
 * every merge of trees by path (model_build.c, export_tree.c). */
static inline void hp_tnode_add(struct hp_tnode *d, const struct hp_tnode *s)
{
	d->samples += s->samples;
	d->self += s->self;
	d->total += s->total;
	d->self_raw += s->self_raw;
	d->total_raw += s->total_raw;
	d->sampled_self += s->sampled_self;
	d->sampled_total += s->sampled_total;
	if (s->calls >= 0)
		d->calls = (d->calls < 0 ? 0 : d->calls) + s->calls;
	d->clamped += s->clamped;
	d->skipped += s->skipped;
	d->cost += s->cost;
	d->flags |= s->flags;
	if (!d->pc)
		d->pc = s->pc;
	if (!d->line)
		d->line = s->line;
}

struct hp_fstat {                /* flat profile row */
	struct hp_func *fn;
	double self, total, self_raw, total_raw, sampled_self;
	int64_t calls;
	double cost;
};

struct hp_threadinfo {
	int rank;                    /* -1 without MPI */
	int pid, tid, index;
	int merged;                  /* threads this record stands for (1; more for
	                              * the runtime's "[exited threads]" record) */
	int all_ranks;               /* from a merged MPI file: the sum of its ranks' threads */
	uint64_t samples, dropped;
	double wall, cpu;
	struct hp_tnode *root;       /* this thread's tree */
};

struct hp_rankinfo {             /* MPI per rank (issue 5); zeros otherwise */
	int rank, pid;
	double wall_raw, wall_local, wall_parallel, wait_raw, wait_compensated;
	uint64_t reordered_receives;
	struct hp_prof *prof;        /* the file read, NULL in merged inputs */
};

struct hp_model {
	char *dir;
	char *program;               /* of the process that started first */
	struct hp_prog { const char *name; int procs; } *progs; /* distinct programs, by first start */
	int nprogs;
	char *mode;                  /* "sampled" | "hybrid" | "measured" */
	char *source, *source_why, *unit;
	uint64_t period;
	double duration;             /* wall seconds, longest process */
	uint64_t samples, dropped;
	uint64_t dropped_by[8];      /* by reason, names in drop_names */
	const char *drop_names[8];
	int ndrop;
	int nprocs, nthreads;
	int partial;                 /* some file was written after a crash */
	int unfinished;              /* processes with a live snapshot but no profile */
	struct hp_kvlist calib;      /* of the first process */
	struct hp_kvlist cost;       /* summed over processes (seconds) */
	struct hp_func **funcs;
	size_t nfuncs;
	struct hp_tnode *root;       /* merged tree */
	struct hp_fstat *flat;       /* sorted by self, descending */
	size_t nflat;
	struct hp_threadinfo *threads;
	size_t nthreadinfo;
	struct hp_rankinfo *ranks;
	size_t nranks;
	struct hp_prof **profs;      /* the files the model sums (a merged file
				      * stands for the ranks it holds) */
	size_t nprofs;
	double total;                /* root total of the primary metric */
	char *join_note;             /* how counts and samples were joined */
	int timed;                   /* times are the probes' (measured mode, and probes ran) */
	void *priv;                  /* model.c's private state (builder, symbols) */
	/* Per-rank files of the ranks a merged file holds (beside it with
	 * --per-rank, or in DIR/.hyprof-ranks): read for the per-rank trees
	 * (model__tree(m, rank, ...) with rank >= 0, --ranks), never summed
	 * into the model.  Their threads follow m->threads in the same array;
	 * m->ranks lists the model's files only. */
	struct hp_prof **rank_profs;
	size_t nrank_profs;
	struct hp_threadinfo *rank_threads;
	size_t nrank_threads;
};

/* Load every profile in `path` (a directory, or one .hyp file).  Returns 0
 * or -errno with a one-line reason in err. */
int model__load(struct hp_model *m, const char *path, char *err, size_t errlen);
/* model__load with options: MODEL_NO_FOLD keeps every frame of hyprof's own
 * code (by default they are folded, model_build.h mb__fold_hyprof). */
#define MODEL_NO_FOLD 1u
int model__load_opts(struct hp_model *m, const char *path, unsigned opts, char *err,
		     size_t errlen);
void model__free(struct hp_model *m);
/* Tree and flat profile of one rank (-1: all) and one thread (-1: all).
 * A rank >= 0 is read from that rank's own file when a merged file holds it. */
struct hp_tnode *model__tree(struct hp_model *m, int rank, int thread);
/* Walk helpers. */
typedef int (*hp_tnode_visit)(struct hp_tnode *n, int depth, void *arg);
int model__walk(struct hp_tnode *root, hp_tnode_visit fn, void *arg);

#endif
