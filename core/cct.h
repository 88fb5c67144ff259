/* core/cct.h - calling context tree in memory mapped up front.
 *
 * One tree per thread and per kind (the sample tree is keyed by PCs, the
 * probe tree by function addresses or region ids).  Nodes live in one array
 * mapped at creation (MAP_NORESERVE: untouched pages cost nothing), so an
 * insert never allocates.  The node is also the on-disk record of the
 * profile format (docs/FORMAT.md): its layout is part of the format version.
 *
 * Signal-safe: cct__child(), cct__insert_path() (no malloc, no locks).
 * Thread-safe: no; a tree belongs to one thread.
 */
#ifndef HYPROF_CORE_CCT_H
#define HYPROF_CORE_CCT_H

#include <stdint.h>

#define CCT_ROOT 0u
#define CCT_NONE 0xffffffffu

enum cct_flag {
	CCT_F_PROBE = 1u << 0,       /* probe tree: key is a function address */
	CCT_F_REGION = 1u << 1,      /* probe tree: key is a region id */
	CCT_F_FOLDED = 1u << 2,      /* recursion was folded into this node */
	CCT_F_REDIRECT = 1u << 3,    /* fold link: calls go to node `target` */
	CCT_F_PARTIAL = 1u << 4,     /* calls regulated by the budget: not exact */
	CCT_F_MEASUREMENT = 1u << 5, /* hyprof's own code (probes, wrappers) */
	CCT_F_TRUNCATED = 1u << 6,   /* the path below was cut (too deep) */
	CCT_F_EXCLUDED = 1u << 7,    /* filtered by the runtime name filter */
};

/* 128 bytes.  Times are TSC cycles; `period` is in the sample source's unit
 * (nanoseconds for software clocks, events for hardware counters). */
struct cct_node {
	uint64_t key;          /* PC, function address or region id; 0 at root */
	uint32_t parent;       /* CCT_NONE at root */
	uint32_t first_child;  /* CCT_NONE if none */
	uint32_t next_sibling; /* CCT_NONE if none */
	uint32_t flags;        /* enum cct_flag */
	uint32_t target;       /* CCT_F_REDIRECT: the node that takes the calls */
	uint32_t active;       /* runtime only: instances of this node on the stack */
	uint64_t samples;      /* samples whose leaf is this node (self) */
	uint64_t period;       /* sampled event amount, self */
	uint64_t calls;        /* probe entries (exact unless CCT_F_PARTIAL) */
	uint64_t incl;         /* measured inclusive cycles, raw */
	uint64_t excl;         /* measured exclusive cycles, raw */
	uint64_t incl_comp;    /* inclusive cycles after local compensation */
	uint64_t excl_comp;    /* exclusive cycles after local compensation */
	uint64_t probes_inside;/* probe pairs of descendants run inside its calls */
	uint64_t clamped;      /* calls whose compensated time was clamped at 0 */
	uint64_t skipped;      /* calls not counted while regulated off */
	uint64_t meas_samples; /* samples that landed in probe code under this node */
	uint64_t reserved;     /* 0; pads the node to 128 bytes (two cache lines) */
};

struct cct {
	struct cct_node *nodes;
	uint32_t n;       /* nodes in use, root included */
	uint32_t cap;     /* nodes mapped */
	uint64_t full;    /* inserts refused because the tree was full */
	uint64_t bytes;   /* bytes mapped */
};

/* Map room for `cap` nodes and create the root.  Returns 0 or -errno. */
int cct__init(struct cct *t, uint32_t cap);
/* Unmap.  Not signal-safe. */
void cct__destroy(struct cct *t);
/* Forget every node but the root (used in a forked child).  Signal-safe. */
void cct__reset(struct cct *t);
/* Find or insert the child of `parent` with `key`.  Returns its index, or
 * CCT_NONE when the tree is full (t->full is counted).  Signal-safe. */
uint32_t cct__child(struct cct *t, uint32_t parent, uint64_t key);
/* Find the child of `parent` with `key` without inserting, or CCT_NONE. */
uint32_t cct__find(const struct cct *t, uint32_t parent, uint64_t key);
/* Insert a path given root-first (keys[0] is the outermost frame).  Returns
 * the leaf index, or the deepest node inserted when the tree filled up (the
 * node is then flagged CCT_F_TRUNCATED).  Signal-safe. */
uint32_t cct__insert_path(struct cct *t, const uint64_t *keys, int n);
/* Add every metric of tree `src` into `dst`, matching nodes by key path.
 * Returns 0 or -ENOSPC.  Not signal-safe (used by tools and at exit). */
int cct__merge(struct cct *dst, const struct cct *src);
/* Depth of node i (root = 0). */
int cct__depth(const struct cct *t, uint32_t i);

#endif
