/* counting/probe_impl.h - the probes' hot path, private to counting/ and
 * calib/ (and the unit tests, which drive it with synthetic timestamps).
 *
 * Probe context: no malloc, no locks, no stdio on these paths; the only
 * memory touched is the calling thread's probe tree and shadow stack, both
 * mapped by hp_counting_thread_init().  A sample handler may interrupt any
 * line: it only reads t->probe_cur and adds to that node's sample fields,
 * which no probe writes.
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

/* hp_probe_g.mode */
enum hp_pmode {
	HP_PM_OFF = 0,   /* sampled mode, before init, after teardown: return */
	HP_PM_COUNT = 1, /* hybrid: count-only probes */
	HP_PM_TIMED = 2, /* measured: TSC at entry and exit, compensation */
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
	volatile int mode;        /* enum hp_pmode, read once per probe */
	uint32_t slow;            /* HP_PS_* */
	uint64_t delay_enter;     /* injected busy-wait in cycles, enter part */
	uint64_t delay_exit;      /* exit part */
	uint64_t cost_enter;      /* cycles added to t->overhead/t->delay per enter */
	uint64_t cost_exit;       /* per exit */
	struct hp_comp_costs comp;/* timed-mode compensation costs (cycles) */
	uint64_t warned_overflow; /* one-time warning done */
};
HP_HIDDEN extern struct hp_probe_globals hp_probe_g;

/* counting/probe.c: the slow paths (not inlined). */
HP_HIDDEN uint32_t hp_probe_child_slow(struct hp_thread *t, uint32_t cur, uint64_t key,
				       uint32_t kind);
HP_HIDDEN void hp_probe_enter_overflow(struct hp_thread *t, uint64_t key, uint32_t kind);
HP_HIDDEN void hp_probe_exit_slow(struct hp_thread *t, uint64_t key, int timed, uint64_t now);
/* Busy-wait `cycles` TSC cycles (the injected test delay). */
HP_HIDDEN void hp_probe_spin(uint64_t cycles);

/* ---- enter ---------------------------------------------------------- */
HP_INLINE void hp_probe_enter_t(struct hp_thread *t, uint64_t key, uint32_t kind, int timed)
{
	uint32_t sp = t->sp;
	if (HP_UNLIKELY(sp >= HP_STACK_MAX)) {
		hp_probe_enter_overflow(t, key, kind);
		return;
	}
	uint32_t cur = t->probe_cur;
	struct cct_node *nodes = t->probe.nodes;
	uint32_t c = nodes[cur].first_child;
	if (HP_LIKELY(c != CCT_NONE && nodes[c].key == key)) {
		if (HP_UNLIKELY(nodes[c].flags & CCT_F_REDIRECT))
			c = nodes[c].target; /* folded recursion: O(1) */
	} else {
		c = hp_probe_child_slow(t, cur, key, kind); /* lookup, insert, fold */
	}
	struct cct_node *n = &nodes[c];
	struct hp_frame *f = &t->stack[sp];
	f->node = c;
	f->prev = cur;
	f->fn = key;
	n->calls++;
	uint64_t ev = ++t->probe_events;
	t->probe_cur = c;
	t->sp = sp + 1;
	t->overhead += hp_probe_g.cost_enter;
	t->delay += hp_probe_g.cost_enter;
	if (timed) {
		n->active++;
		f->probes_at = ev;
		f->child_incl = 0;
		f->child_comp = 0;
		f->handler_at = t->handler_cycles;
		f->samples_at = t->samples + t->meas_samples;
		f->t_enter = hp_rdtsc(); /* last: the rest of enter is outside */
	}
}

/* ---- exit ----------------------------------------------------------- */
/* a - b, or 0 when the counters were reset in between (fork). */
HP_INLINE uint64_t hp_sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}


/* Close frame `idx` (the top one) at time `now`. */
HP_INLINE void hp_probe_pop(struct hp_thread *t, uint32_t idx, int timed, uint64_t now)
{
	struct hp_frame *f = &t->stack[idx];
	if (timed) {
		struct cct_node *n = &t->probe.nodes[f->node];
		struct hp_comp_call k = {
			.raw_incl = now > f->t_enter ? now - f->t_enter : 0,
			.inside = hp_sub0(t->probe_events, f->probes_at),
			.child_raw = f->child_incl,
			.child_comp = f->child_comp,
			.handler = hp_sub0(t->handler_cycles, f->handler_at),
			.samples = hp_sub0(t->samples + t->meas_samples, f->samples_at),
		};
		struct hp_comp_result r = hp_comp_call(&hp_probe_g.comp, &k);
		n->excl += r.excl;
		n->excl_comp += r.excl_comp;
		n->clamped += (uint64_t)r.clamped;
		/* Folded recursion: inclusive time only when the outermost
		 * active instance of the node closes; exclusive of every
		 * instance is disjoint and summed. */
		if (--n->active == 0) {
			n->incl += r.incl;
			n->incl_comp += r.incl_comp;
			n->probes_inside += k.inside;
		}
		if (idx > 0) {
			f[-1].child_incl += r.incl;
			f[-1].child_comp += r.incl_comp;
		}
	}
	t->probe_cur = f->prev;
	t->sp = idx;
}

HP_INLINE void hp_probe_exit_t(struct hp_thread *t, uint64_t key, int timed, uint64_t now)
{
	uint32_t sp = t->sp;
	if (HP_UNLIKELY(sp - 1 >= HP_STACK_MAX || t->stack[sp - 1].fn != key)) {
		hp_probe_exit_slow(t, key, timed, now); /* empty, overflow, mismatch */
		return;
	}
	hp_probe_pop(t, sp - 1, timed, now);
	t->overhead += hp_probe_g.cost_exit;
	t->delay += hp_probe_g.cost_exit;
}

#endif
