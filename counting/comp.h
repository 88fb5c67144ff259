/* counting/comp.h - local overhead compensation and recursion folding: the
 * pure arithmetic, factored out of the probes so it can be tested with
 * tables (tests/counting/test_probe_unit.c) and shared by the calibration.
 *
 * Model (ALGORITHMS.md section 2, Malony & Shende 2004), all in TSC cycles:
 *   Di   the part of a call's own timed probe pair that lies inside its own
 *        measured interval [t_enter, t_exit];
 *   F    the full cost of one timed probe pair as seen from an enclosing
 *        interval (everything from the call of the enter probe to the return
 *        of the exit probe, for a null function, over the same function
 *        without probes); De = F - Di is the part a parent sees in its
 *        exclusive time for each direct child.
 *   S    sampler cost that ran inside the interval: what the thread's
 *        comp_cycles grew by, the handler adding to it on every signal the
 *        cycles it measured itself plus k, the calibrated part outside the
 *        handler (signal delivery and return).  One snapshot per frame
 *        (handler_at), and S is exactly additive: a parent's is its
 *        children's plus what landed between them.  (It was estimated as h
 *        handler cycles plus k x h over the thread's mean handler cycles
 *        per signal so far; the mean falls as the handler's caches warm,
 *        so a parent closing late counted more signals in the same h than
 *        its children had, and its compensated time fell below theirs.)
 * For one call with raw inclusive time R, n descendant probe pairs run
 * inside it, and its direct children's compensated inclusive sum C:
 *   incl_comp = R - Di - n*F - S
 *   excl_comp = incl_comp - C
 * which gives excl_comp = R_excl - Di - L*De - S_excl for L direct children,
 * the exclusive inflation of the paper's model.  F and Di are measured
 * again during the run (in-situ recalibration, counting/probe.c), so the
 * n*F of a call is the sum of the F in effect when each inner pair ran
 * (inside_cost): n * F_now plus a per-frame correction that each
 * recalibration during the call updates (hp_probe_set_costs()).
 *
 * Clamping.  Per call these values are signed and are *not* clamped: a
 * tiny function's compensated time is its body (a few cycles) plus the
 * jitter of two unserialised TSC reads (tens of cycles), so clamping each
 * call at 0 would add the positive half of that jitter to every call (and
 * take it from the caller's exclusive time).  The signed values are summed
 * into the node, and the node's running total is what is clamped at 0:
 * a clamp is counted each time a call would drive the node's compensated
 * total below zero (a node whose probes cost more than its body on
 * average).  Parents receive their children's unclamped values, so
 * excl_comp keeps the exact identity above.
 *
 * Signal-safe: everything here (pure functions).
 */
#ifndef HYPROF_COUNTING_COMP_H
#define HYPROF_COUNTING_COMP_H

#include <stdint.h>

#include "core/cct.h"

/* Start-up costs of the probes, in cycles, from the calibration: what a
 * thread starts with (counting/probe_impl.h keeps the per-thread values
 * that in-situ recalibration updates). */
struct hp_comp_costs {
	uint64_t di;            /* own partial pair cost inside own interval */
	uint64_t pair;          /* F: full timed pair seen from outside */
	uint64_t sample_kernel; /* per-signal cost outside the handler (estimate) */
};

/* One finished call. */
struct hp_comp_call {
	uint64_t raw_incl;       /* t_exit - t_enter */
	uint64_t own;            /* Di of its own pair */
	uint64_t inside_cost;    /* F summed over the probe pairs entered inside */
	uint64_t child_raw;      /* sum of direct children's raw inclusive */
	int64_t child_comp;      /* sum of direct children's compensated inclusive (signed) */
	uint64_t sampler;        /* sampler cost inside the interval (S) */
};

struct hp_comp_result {
	uint64_t incl, excl;         /* raw (excl 0 when the children's sum exceeds incl) */
	int64_t incl_comp, excl_comp; /* compensated, signed, not clamped */
};

static inline struct hp_comp_result hp_comp_call(const struct hp_comp_call *k)
{
	struct hp_comp_result r;
	r.incl = k->raw_incl;
	r.excl = k->raw_incl > k->child_raw ? k->raw_incl - k->child_raw : 0;
	uint64_t remove = k->own + k->inside_cost + k->sampler;
	r.incl_comp = (int64_t)(k->raw_incl - remove);
	r.excl_comp = (int64_t)((uint64_t)r.incl_comp - (uint64_t)k->child_comp);
	return r;
}

/* Add a signed per-call value to a node's running compensated total,
 * clamping the total at 0 (then *clamped is set to 1: the caller counts
 * one clamp per call, whether incl, excl or both were clamped). */
static inline uint64_t hp_comp_accum(uint64_t total, int64_t v, int *clamped)
{
	int64_t s = (int64_t)(total + (uint64_t)v);
	if (__builtin_expect(s < 0, 0)) {
		*clamped = 1;
		return 0;
	}
	return (uint64_t)s;
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
