/* counting/comp.h - local overhead compensation and recursion folding: the
 * pure arithmetic, factored out of the probes so it can be tested with
 * tables (tests/counting/test_comp.c) and shared by the calibration.
 *
 * Model (ALGORITHMS.md section 2, Malony & Shende 2004), all in TSC cycles:
 *   Di   the part of a call's own timed probe pair that lies inside its own
 *        measured interval [t_enter, t_exit];
 *   F    the full cost of one timed probe pair as seen from an enclosing
 *        interval (everything from the call of the enter probe to the return
 *        of the exit probe, for a null function); De = F - Di is the part a
 *        parent sees in its exclusive time for each direct child.
 *   S    sampler cost that ran inside the interval (handler cycles measured
 *        by the handler, plus a per-sample kernel delivery estimate).
 * For one call with raw inclusive time R, n descendant probe pairs run
 * inside it, and its direct children's compensated inclusive sum C:
 *   incl_comp = max(0, R - Di - n*F - S)
 *   excl_comp = max(0, incl_comp - C)
 * which gives excl_comp = R_excl - Di - L*De - S_excl for L direct children,
 * the exclusive inflation of the paper's model.
 *
 * Signal-safe: everything here (pure functions).
 */
#ifndef HYPROF_COUNTING_COMP_H
#define HYPROF_COUNTING_COMP_H

#include <stdint.h>

#include "core/cct.h"

/* Costs used by the timed probes, in cycles, fixed after calibration. */
struct hp_comp_costs {
	uint64_t di;            /* own partial pair cost inside own interval */
	uint64_t pair;          /* F: full timed pair seen from outside */
	uint64_t sample_kernel; /* per-sample cost outside the handler (estimate) */
};

/* One finished call. */
struct hp_comp_call {
	uint64_t raw_incl;       /* t_exit - t_enter */
	uint64_t inside;         /* descendant probe pairs entered in the interval */
	uint64_t child_raw;      /* sum of direct children's raw inclusive */
	uint64_t child_comp;     /* sum of direct children's compensated inclusive */
	uint64_t handler;        /* sample-handler cycles inside the interval */
	uint64_t samples;        /* samples taken inside the interval */
};

struct hp_comp_result {
	uint64_t incl, excl;           /* raw */
	uint64_t incl_comp, excl_comp; /* compensated */
	int clamped;                   /* 1 if either value was clamped at 0 */
};

static inline struct hp_comp_result hp_comp_call(const struct hp_comp_costs *c,
						 const struct hp_comp_call *k)
{
	struct hp_comp_result r = {0, 0, 0, 0, 0};
	r.incl = k->raw_incl;
	r.excl = k->raw_incl > k->child_raw ? k->raw_incl - k->child_raw : 0;
	uint64_t remove = c->di + k->inside * c->pair + k->handler + k->samples * c->sample_kernel;
	if (k->raw_incl >= remove) {
		r.incl_comp = k->raw_incl - remove;
	} else {
		r.incl_comp = 0;
		r.clamped = 1;
	}
	if (r.incl_comp >= k->child_comp) {
		r.excl_comp = r.incl_comp - k->child_comp;
	} else {
		r.excl_comp = 0;
		r.clamped = 1;
	}
	return r;
}

/* Recursion folding: the outermost node on the path from `from` up to the
 * root whose key is `key` and whose kind (CCT_F_PROBE / CCT_F_REGION) is
 * `kind`, or CCT_NONE.  Redirect nodes are never on a path (probe_cur always
 * points at a real node), so the walk sees only real nodes.  Cost: one walk
 * of the path, done only when a child is inserted. */
static inline uint32_t hp_fold_find(const struct cct *t, uint32_t from, uint64_t key,
				    uint32_t kind)
{
	uint32_t found = CCT_NONE;
	uint32_t i = from, steps = 0;
	while (i != CCT_NONE && i != CCT_ROOT && i < t->n && steps++ < t->n) {
		const struct cct_node *n = &t->nodes[i];
		if (n->key == key && (n->flags & kind) && !(n->flags & CCT_F_REDIRECT))
			found = i;
		i = n->parent;
	}
	return found;
}

#endif
