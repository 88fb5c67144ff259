/* counting/probe_impl.h - the probes' hot path, private to counting/ and
 * calib/ (and the unit tests, which drive it with synthetic timestamps).
 *
 * Probe context: no malloc, no locks, no stdio on these paths; the only
 * memory touched is the calling thread's probe tree and probe memory (shadow
 * stack, child cache, per-thread costs), both mapped by
 * hp_counting_thread_init().  A sample handler may interrupt any line: it
 * only reads t->probe_cur and adds to that node's sample fields, which no
 * probe writes.
 *
 * Per-thread probe memory (one mapping, hp_probe_mem_map()):
 *
 *     [struct hp_probe_thr][root frame][frame 0 ... frame HP_STACK_MAX-1][child cache: cap x u32]
 *                                       ^ t->stack
 *
 * hp_probe_thr: the thread's current probe costs (start-up calibration,
 * then in-situ recalibration); found at a fixed offset below t->stack, so
 * the hot path pays no extra pointer load.
 * t->stack[-1] is a root frame: the parent frame of depth-0 calls, so a
 * frame's exit adds to its parent frame without testing the depth.  The
 * child cache holds, per probe-tree node, the node its last entered child
 * resolved to (after a recursion redirect): the hot path of an entry is one
 * load of that index and one compare of the cached node's key with the
 * function entered.  Index 0 (the root, key 0) is the empty entry: it never
 * matches, since no function or region has key 0.  The cache is only ever
 * read and written by its own thread, and cleared when the tree is reset
 * (fork, hp_probe_cache_clear()).
 */
#ifndef HYPROF_COUNTING_PROBE_IMPL_H
#define HYPROF_COUNTING_PROBE_IMPL_H

#include <stdint.h>

#include "counting/comp.h"
#include "runtime/state.h"

#define HP_HIDDEN __attribute__((visibility("hidden")))
#define HP_LIKELY(x) __builtin_expect(!!(x), 1)
#define HP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HP_INLINE static inline __attribute__((always_inline))

/* hp_probe_g.mode: the low two bits are the mode; HP_PM_SLOW is set when a
 * feature that needs the general path is on (filter, injected delay), so
 * the fast paths test one word against one constant. */
enum hp_pmode {
	HP_PM_OFF = 0,   /* sampled mode, before init, after teardown: return */
	HP_PM_COUNT = 1, /* hybrid: count-only probes */
	HP_PM_TIMED = 2, /* measured: TSC at entry and exit, compensation */
	HP_PM_MASK = 3,
	HP_PM_SLOW = 4,  /* with HP_PM_COUNT/TIMED: take the general path */
};

/* hp_probe_g.slow: features that take the probes off the fast path */
enum {
	HP_PS_FILTER = 1, /* HYPROF_FILTER resolved some addresses */
	HP_PS_DELAY = 2,  /* HYPROF_TEST_PROBE_DELAY_NS > 0 */
};

/* Region keys are small integers (1 .. HP_REGION_MAX-1); function keys are
 * code addresses, which are never that small, so the two never collide in a
 * probe tree even though cct__child() compares keys only. */
#define HP_REGION_MAX 65536u

struct hp_probe_globals {
	volatile int mode;        /* enum hp_pmode (| HP_PM_SLOW), read once per probe */
	uint32_t slow;            /* HP_PS_* */
	uint64_t delay_enter;     /* injected busy-wait in TSC cycles, enter part */
	uint64_t delay_exit;      /* exit part */
	uint64_t cost_pair;       /* start-up cost of a pair of the mode (cycles) */
	struct hp_comp_costs comp;/* start-up compensation costs (cycles; 0 = none) */
	int comp_on;              /* measured mode with compensation (HYPROF_COMPENSATE) */
	uint64_t recal_period;    /* in-situ recalibration period in cycles (0 = off) */
	uint64_t warned_overflow; /* one-time warning done */
};
HP_HIDDEN extern struct hp_probe_globals hp_probe_g;

/* The mode word for base mode `pm` with the current slow features. */
static inline int hp_probe_mode_word(int pm)
{
	return pm != HP_PM_OFF && hp_probe_g.slow ? pm | HP_PM_SLOW : pm;
}

/* ---- per-thread probe memory (counting/probe_core.c) ------------------- */

/* A thread's probe costs (cycles).  Set from hp_probe_g when the memory is
 * mapped; measured mode updates them from in-situ recalibration bursts
 * (counting/probe.c) through hp_probe_set_costs(). */
struct hp_probe_thr {
	uint64_t pair;        /* cost of one pair: added to t->overhead and t->delay per entry */
	uint64_t comp_pair;   /* F removed per inner pair (0: no compensation) */
	uint64_t di;          /* Di removed from each call's own interval (0: no compensation) */
	uint64_t pair_sum;    /* pair summed over the entries before ev_mark (for the mean) */
	uint64_t last_recal;  /* TSC of the last recalibration (or of the set-up) */
	uint64_t recal_n;     /* recalibration bursts run */
	uint64_t recal_cycles;/* cycles they took (removed from every open interval) */
	struct hp_thread *priv; /* private state the bursts run their probes on */
	uint64_t pair_min, pair_max; /* range of the F values measured in situ */
	uint64_t no_recal;    /* 1: never recalibrate (calibration's own states) */
	uint64_t ev_mark;     /* t->probe_events at the last change of pair */
	uint64_t cache_hw;    /* child-cache entries [0, cache_hw) may be set */
	uint64_t busy;        /* 1 while the tree's structure changes (hp_probe_child_slow) */
	uint64_t nested_open; /* calls entered by a signal handler during it, not recorded */
	uint64_t nested_lost; /* such calls so far (the counting section's nested_lost) */
};

/* A store the compiler keeps in program order with the other HP_ORDERED
 * stores (volatile), and nothing more: what a signal handler interrupting
 * this thread sees of the shadow stack (same thread, so the CPU's own order
 * is program order).  Cheaper than a compiler barrier, which would make
 * every value after it be loaded again. */
#define HP_ORDERED(lv, v) (*(volatile __typeof__(lv) *)&(lv) = (v))

HP_INLINE struct hp_probe_thr *hp_probe_thr(struct hp_frame *stack)
{
	return (struct hp_probe_thr *)(void *)(stack - 1) - 1;
}

/* Map the probe memory (costs, shadow stack with its root frame, child
 * cache) for a tree of t->probe.cap nodes; sets t->stack, t->sp = 0,
 * t->probe_cur = root, and the costs from hp_probe_g.  Returns 0 or
 * -errno.  Not signal-safe. */
HP_HIDDEN int hp_probe_mem_map(struct hp_thread *t);
HP_HIDDEN void hp_probe_mem_unmap(struct hp_thread *t);
/* A thread that exited: give back the pages of its shadow stack and child
 * cache beyond the first (nothing if frames are still open). */
HP_HIDDEN void hp_probe_mem_release(struct hp_thread *t);
/* The memory of a thread that is gone, for a new thread (its tree was
 * reset): empty stack and cache, costs from hp_probe_g.  Not signal-safe. */
HP_HIDDEN void hp_probe_mem_reuse(struct hp_thread *t);
/* Forget every cached child (the tree was reset).  Signal-safe. */
HP_HIDDEN void hp_probe_cache_clear(struct hp_thread *t);
/* New costs for the thread (a recalibration): open frames keep the F that
 * was in effect for the pairs already inside them (their comp_adj).
 * Signal-safe. */
HP_HIDDEN void hp_probe_set_costs(struct hp_thread *t, uint64_t pair, uint64_t comp_pair,
				  uint64_t di);
/* Remove `d` cycles just spent (a recalibration burst) from every open
 * interval: their entry times move forward.  Signal-safe. */
HP_HIDDEN void hp_probe_exclude(struct hp_thread *t, uint64_t d);

HP_INLINE uint32_t *hp_probe_cache(struct hp_frame *stack)
{
	return (uint32_t *)(void *)(stack + HP_STACK_MAX);
}

/* counting/probe_core.c: the slow paths (not inlined). */
HP_HIDDEN uint32_t hp_probe_child_slow(struct hp_thread *t, uint32_t cur, uint64_t key,
				       uint32_t kind);
HP_HIDDEN void hp_probe_enter_overflow(struct hp_thread *t, uint64_t key, uint32_t kind);
HP_HIDDEN void hp_probe_exit_slow(struct hp_thread *t, uint64_t key, int timed, uint64_t now);
/* Busy-wait `cycles` TSC cycles (the injected test delay). */
HP_HIDDEN void hp_probe_spin(uint64_t cycles);

/* ---- enter ---------------------------------------------------------- */

/* Push the frame of node c (child of cur) at depth sp and count the call. */
HP_INLINE void hp_probe_push(struct hp_thread *t, struct hp_frame *stk, struct cct_node *nodes,
			     uint32_t sp, uint32_t cur, uint32_t c, uint64_t key, int timed)
{
	struct hp_frame *f = &stk[sp];
	struct hp_probe_thr *pt = hp_probe_thr(stk);
	/* A signal handler may run instrumented code at any instruction here
	 * (its probes push and pop above whatever sp says): the slot is taken
	 * first, then filled, then made current.  Filled first, a handler's
	 * frame would overwrite it before sp covered it, and every later call
	 * would be recorded under the handler's function.  Until it is filled
	 * the slot names the current node: a handler's probes, popping, make
	 * that current again (an exit restores probe_cur from the frame
	 * below). */
	HP_ORDERED(f->node, cur);
	HP_ORDERED(t->sp, sp + 1);
	HP_ORDERED(f->node, c);
	HP_ORDERED(f->fn, key);
	nodes[c].calls++;
	HP_ORDERED(t->probe_cur, c);
	uint64_t ev = ++t->probe_events;
	/* o_p and x_p (ALGORITHMS.md section 4): the whole pair's cost is
	 * added at its entry (one update per pair; an open frame has its exit
	 * part counted ahead, at most depth x exit cost). */
	uint64_t cost = pt->pair;
	t->overhead += cost;
	t->delay += cost;
	if (timed) {
		f->comp_adj = 0;
		nodes[c].active++;
		f->probes_at = ev;
		f->child_incl = 0;
		f->child_comp = 0;
		f->handler_at = t->comp_cycles;
		f->t_enter = hp_rdtsc(); /* last: the rest of enter is outside */
	}
}

/* The fast path of an entry: the cached child of the current node is the
 * function entered and the stack has room.  Returns 0 (nothing done) when
 * the caller must take hp_probe_enter_t(). */
HP_INLINE int hp_probe_enter_hit(struct hp_thread *t, uint64_t key, int timed)
{
	uint32_t sp = t->sp;
	uint32_t cur = t->probe_cur;
	struct hp_frame *stk = t->stack;
	struct cct_node *nodes = t->probe.nodes;
	uint32_t c = hp_probe_cache(stk)[cur];
	if (HP_UNLIKELY(sp >= HP_STACK_MAX || nodes[c].key != key))
		return 0;
	hp_probe_push(t, stk, nodes, sp, cur, c, key, timed);
	return 1;
}

/* The whole entry: cache miss (lookup, insert, recursion fold, cache
 * update), stack overflow, or the cached hit. */
HP_INLINE void hp_probe_enter_t(struct hp_thread *t, uint64_t key, uint32_t kind, int timed)
{
	uint32_t sp = t->sp;
	if (HP_UNLIKELY(sp >= HP_STACK_MAX)) {
		hp_probe_enter_overflow(t, key, kind);
		return;
	}
	uint32_t cur = t->probe_cur;
	struct hp_frame *stk = t->stack;
	struct cct_node *nodes = t->probe.nodes;
	uint32_t c = hp_probe_cache(stk)[cur];
	if (nodes[c].key != key) {
		/* lookup, insert, fold: the tree's structure changes, and a
		 * signal handler's probes must not change it meanwhile; a call
		 * they enter then is not recorded (nor its exit), only counted */
		struct hp_probe_thr *pt = hp_probe_thr(stk);
		if (HP_UNLIKELY(pt->busy)) {
			pt->nested_open++;
			pt->nested_lost++;
			return;
		}
		pt->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		c = hp_probe_child_slow(t, cur, key, kind);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		pt->busy = 0;
	}
	hp_probe_push(t, stk, nodes, sp, cur, c, key, timed);
}

/* ---- exit ----------------------------------------------------------- */
/* a - b, or 0 when the counters were reset in between (fork). */
HP_INLINE uint64_t hp_sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Close frame `idx` (the top one) at time `now`.  `nosample`: the caller
 * checked that no sample handler ran inside the interval (the fast path
 * keeps the sampler's cost code out of its registers). */
HP_INLINE void hp_probe_pop_t(struct hp_thread *t, uint32_t idx, int timed, uint64_t now,
			      int nosample)
{
	struct hp_frame *f = &t->stack[idx];
	if (timed) {
		struct cct_node *n = &t->probe.nodes[f->node];
		struct hp_probe_thr *pt = hp_probe_thr(t->stack);
		/* both counters are reset together at fork */
		uint64_t inside = t->probe_events - f->probes_at;
		struct hp_comp_call k = {
			/* 0 if the TSC went backwards (a migration between
			 * unsynchronised CPUs) */
			.raw_incl = HP_LIKELY(now >= f->t_enter) ? now - f->t_enter : 0,
			.own = pt->di,
			.inside_cost = inside * pt->comp_pair + f->comp_adj,
			.child_raw = f->child_incl,
			.child_comp = (int64_t)f->child_comp,
		};
		if (!nosample && hp_probe_g.comp_on)
			k.sampler = hp_sub0(t->comp_cycles, f->handler_at);
		struct hp_comp_result r = hp_comp_call(&k);
		int clamped = 0;
		n->excl += r.excl;
		n->excl_comp = hp_comp_accum(n->excl_comp, r.excl_comp, &clamped);
		/* Folded recursion: inclusive time only when the outermost
		 * active instance of the node closes; exclusive of every
		 * instance is disjoint and summed. */
		if (HP_LIKELY(--n->active == 0)) {
			n->incl += r.incl;
			n->incl_comp = hp_comp_accum(n->incl_comp, r.incl_comp, &clamped);
			n->probes_inside += inside;
		}
		if (HP_UNLIKELY(clamped))
			n->clamped++;
		/* The parent frame (the root frame for depth 0): raw and signed
		 * compensated inclusive sums of its direct children. */
		f[-1].child_incl += r.incl;
		f[-1].child_comp += (uint64_t)r.incl_comp;
	}
	/* probe_cur is always the top frame's node (the root frame's is the
	 * root): restore the parent frame's, after the frame is off the
	 * stack (a signal handler's probes in between then push in its
	 * place, under the function that was returning). */
	HP_ORDERED(t->sp, idx);
	HP_ORDERED(t->probe_cur, f[-1].node);
}

HP_INLINE void hp_probe_pop(struct hp_thread *t, uint32_t idx, int timed, uint64_t now)
{
	hp_probe_pop_t(t, idx, timed, now, 0);
}

/* The fast path of an exit: the top frame is the function's (and, timed,
 * no sample was taken inside the call).  Returns 0 (nothing done) when the
 * caller must take hp_probe_exit_t(). */
HP_INLINE int hp_probe_exit_hit(struct hp_thread *t, uint64_t key, int timed, uint64_t now)
{
	uint32_t idx = t->sp - 1;
	struct hp_frame *f = &t->stack[idx];
	if (HP_UNLIKELY(idx >= HP_STACK_MAX || f->fn != key))
		return 0;
	if (timed && HP_UNLIKELY(f->handler_at != t->comp_cycles))
		return 0;
	hp_probe_pop_t(t, idx, timed, now, 1);
	return 1;
}

/* The whole exit: the top frame's (samples inside or not), or the slow
 * path (empty stack, overflowed entry, mismatch). */
HP_INLINE void hp_probe_exit_t(struct hp_thread *t, uint64_t key, int timed, uint64_t now)
{
	uint32_t idx = t->sp - 1;
	if (HP_LIKELY(idx < HP_STACK_MAX && t->stack[idx].fn == key))
		hp_probe_pop(t, idx, timed, now);
	else
		hp_probe_exit_slow(t, key, timed, now);
}

#endif
