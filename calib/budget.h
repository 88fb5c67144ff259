/* calib/budget.h - the overhead budget (--max-overhead PCT,
 * HYPROF_MAX_OVERHEAD): regulate *when* the probes collect, not *what*.
 *
 * Three parts:
 *  1. The probe hot path (this header, inline): every probe entry and exit
 *     asks whether it is regulated.  Without a budget, or before the first
 *     regulation, the answer costs one load of a global and one predictable
 *     branch.  A regulated function's probes are skipped together with every
 *     probe below it (its subtree), so the probe tree never gets a node
 *     under the wrong parent: a skipped activation is one "skip region" per
 *     thread, counted at its root in a per-thread, per-slot counter.
 *  2. The policy (calib/budget.c, pure, tested with a simulated clock): each
 *     interval, given each probe point's cost rate when enabled and when
 *     regulated, choose the fraction of intervals each point is enabled
 *     (water-filling: cheap points always on, the costliest hot ones share
 *     what is left of the budget) and schedule it with a token bucket, so
 *     every point is still collected during some intervals.
 *  3. The runtime (calib/budget_rt.c): the controller interval of the cost
 *     thread (calib/cost_rt.c) calls it; it fills the slot table the probes
 *     read, marks regulated call paths CCT_F_PARTIAL with estimated skipped
 *     counts, and writes what it did in section HP_SEC_BUDGET.
 *
 * Hot path: Signal-safe and lock-free (reads a process-wide table the
 * controller writes with single stores; per-thread state in initial-exec
 * TLS; the first skip of a thread maps its counters once with mmap).
 */
#ifndef HYPROF_CALIB_BUDGET_H
#define HYPROF_CALIB_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* ---- 1. hot path ------------------------------------------------------- */

#define HP_BUDGET_SLOTS 256 /* functions that can be regulated (power of 2) */

struct hp_budget_slot {
	uint64_t key;      /* function address; 0 = free.  Written once. */
	uint32_t off;      /* 1 = regulated off now */
	uint32_t index;    /* the controller's point index */
};

/* Per-thread state, mapped on a thread's first skip and kept after the
 * thread exits (the controller and the writer read it). */
struct hp_budget_thread {
	uintptr_t skip_frame;  /* frame address of the skipped activation's probe */
	uint64_t skip_key;     /* its key */
	uintptr_t skip_site;   /* its call site (the probes' second argument) */
	uint32_t depth;        /* skipped probes open (1 = the root) */
	uint32_t pad;
	uint64_t skips[HP_BUDGET_SLOTS]; /* skipped root activations per slot */
	uint64_t nested;       /* probe pairs skipped inside skip regions */
	uint64_t resets;       /* skip regions left without their exit (longjmp) */
	struct hp_budget_thread *next;
};

extern int hp_budget_used;    /* set at the first regulation, never cleared */
extern int hp_budget_armed;   /* number of slots off now */
extern struct hp_budget_slot hp_budget_tab[HP_BUDGET_SLOTS];
extern __thread struct hp_budget_thread *hp_budget_self
	__attribute__((tls_model("initial-exec")));

/* The calling thread's state, mapped on first use; NULL if mmap failed. */
struct hp_budget_thread *hp_budget_thread_slow(void);

static inline uint32_t hp_budget_hash(uint64_t key)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (uint32_t)key & (HP_BUDGET_SLOTS - 1);
}

/* Slot of `key`, or -1 (the table is never emptied, keys never move). */
static inline int hp_budget_slot_of(uint64_t key)
{
	uint32_t h = hp_budget_hash(key);
	for (int i = 0; i < HP_BUDGET_SLOTS; i++) {
		uint64_t k = __atomic_load_n(&hp_budget_tab[h].key, __ATOMIC_ACQUIRE);
		if (k == key)
			return (int)h;
		if (k == 0)
			return -1;
		h = (h + 1) & (HP_BUDGET_SLOTS - 1);
	}
	return -1;
}

/* Probe entry of `key` (function address or region id) called from `site`
 * (the call site the probe is given, NULL if none): returns 1 when the
 * probe must do nothing at all (no node, no count, no clock, no push), 0 to
 * run normally.  The first lines of every entry probe:
 *     if (hp_budget_enter((uint64_t)(uintptr_t)fn, site)) return;
 */
static inline __attribute__((always_inline)) int hp_budget_enter(uint64_t key, const void *site)
{
	/* Marks the object that calls this hook (hp_budget_init() checks the
	 * probes are wired before it relies on them). */
	static const char wired __attribute__((used, section("hyprof_budget_enter"))) = 1;
	(void)wired;
	if (__builtin_expect(!__atomic_load_n(&hp_budget_used, __ATOMIC_RELAXED), 1))
		return 0;
	struct hp_budget_thread *b = hp_budget_self;
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	if (b && b->depth) {
		/* Inside a skip region, unless the stack is back above its root
		 * (left by longjmp or an exception without the exit probe).  At
		 * the root's own frame too: the probes of a function inlined into
		 * the root (C++ at -O2) are called from the root's frame. */
		if (frame <= b->skip_frame) {
			b->depth++;
			b->nested++;
			return 1;
		}
		b->depth = 0;
		b->resets++;
	}
	if (!__atomic_load_n(&hp_budget_armed, __ATOMIC_RELAXED))
		return 0;
	int s = hp_budget_slot_of(key);
	if (s < 0 || !__atomic_load_n(&hp_budget_tab[s].off, __ATOMIC_RELAXED))
		return 0;
	if (!b && !(b = hp_budget_thread_slow()))
		return 0;
	b->skip_frame = frame;
	b->skip_key = key;
	b->skip_site = (uintptr_t)site;
	b->depth = 1;
	b->skips[s]++;
	return 1;
}

/* Probe exit of `key` called from `site`: returns 1 when its entry was
 * skipped.  The first lines of every exit probe:
 *     if (hp_budget_exit((uint64_t)(uintptr_t)fn, site)) return;
 */
static inline __attribute__((always_inline)) int hp_budget_exit(uint64_t key, const void *site)
{
	static const char wired __attribute__((used, section("hyprof_budget_exit"))) = 1;
	(void)wired;
	if (__builtin_expect(!__atomic_load_n(&hp_budget_used, __ATOMIC_RELAXED), 1))
		return 0;
	struct hp_budget_thread *b = hp_budget_self;
	if (!b || !b->depth)
		return 0;
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	if (frame > b->skip_frame) {
		/* The root's own exit probe made as a tail call: gcc -O2 ends
		 * a void function with `pop ...; jmp __cyg_profile_func_exit`,
		 * its frame already freed, so this probe runs above the frame
		 * its entry probe ran in.  Such a probe returns straight to
		 * the function's caller: its return address is the call site
		 * it is given (a called probe returns into the function).
		 * With the root's key and call site and no probe open below
		 * the root, it is the root's exit. */
		if (b->depth == 1 && key == b->skip_key && site && (uintptr_t)site == b->skip_site &&
		    __builtin_return_address(0) == site) {
			b->depth = 0;
			return 1;
		}
		/* Above the skip region's root: it was left without its exit. */
		b->depth = 0;
		b->resets++;
		return 0;
	}
	b->depth--;
	return 1;
}

/* Simple query for code that only needs to know (not for probes, which
 * must use the enter/exit pair to keep the tree consistent). */
static inline int hp_budget_blocked(uint64_t key)
{
	if (__builtin_expect(!__atomic_load_n(&hp_budget_armed, __ATOMIC_RELAXED), 1))
		return 0;
	int s = hp_budget_slot_of(key);
	return s >= 0 && __atomic_load_n(&hp_budget_tab[s].off, __ATOMIC_RELAXED);
}

/* ---- 2. policy (pure) -------------------------------------------------- */

struct hp_bpol_pt {
	uint64_t key;
	double cost_on;    /* cost rate (s of cost per s) while enabled */
	double cost_off;   /* cost rate while regulated (residual of skipped pairs) */
	int fixed;         /* never regulated (regions, the runtime's own) */
	/* decided */
	double duty;       /* fraction of intervals enabled */
	double credit;     /* token bucket */
	int phased;        /* credit started at hp_bpol__phase(key) */
	int on;            /* enabled during the coming interval */
	uint32_t offs;     /* on -> off transitions */
	uint32_t off_ticks;
	uint32_t ticks;
};

struct hp_bpol {
	double budget;     /* tolerated cost / program work (0.05 = 5%) */
	double margin;     /* aim at budget x margin (estimates are noisy) */
	double keep;       /* a point saving at most this (s/s) is never regulated:
			    * regulating it would buy nothing and lose its data */
	double last_target;/* cost rate allowed to the points, last decision */
	double last_level; /* water level tau of the last decision */
	int infeasible;    /* last decision: even all off exceeds the budget */
};

/* Decide for the coming interval.  work: the program's own CPU seconds per
 * second (about the number of busy threads); floor: cost rate that
 * regulation cannot remove (sampling, the controller).  Sets duty and on
 * of every point; returns the number of points off.  Pure. */
int hp_bpol__decide(struct hp_bpol *b, struct hp_bpol_pt *pts, size_t n, double work,
		    double floor);

/* Initial token-bucket phase of a point, spread by its key so regulated
 * points do not all turn on in the same interval.  Pure. */
double hp_bpol__phase(uint64_t key);

/* ---- 3. runtime (calib/budget_rt.c) ------------------------------------ */

/* HP_SEC_BUDGET payload: u32 kv_len, kv block, u32 nrec, nrec records. */
struct hp_budget_rec {
	uint64_t key;      /* function address (probe key) */
	uint64_t calls;    /* calls counted, all threads and call paths */
	uint64_t skipped;  /* activations skipped at the regulated function */
	double on_s;       /* seconds enabled */
	double off_s;      /* seconds regulated off */
	double duty;       /* last decided fraction of intervals enabled */
	double cost_rate;  /* its cost per second of run when enabled (last estimate) */
	uint32_t offs;     /* times it was turned off */
	uint32_t flags;    /* HP_BREC_* */
};
enum { HP_BREC_REGION = 1, HP_BREC_UNREGULATED_FULL = 2 };

struct hp_cost_point;
struct hp_writer;

/* Set up from hp_rt.cfg.max_overhead (percent; 0 = no budget: nothing is
 * ever regulated and the hot path stays one branch).  Measures the cost of
 * a skipped probe pair when the probes call the hooks.  Returns 0 or
 * -errno.  Not signal-safe. */
int hp_budget_init(void);
/* Is a budget set? */
int hp_budget_active(void);
/* Cost of one skipped probe pair, seconds (measured, or an upper estimate). */
double hp_budget_skip_pair_s(void);
/* Total skipped root activations and nested skipped pairs, all threads. */
void hp_budget_skips(uint64_t *roots, uint64_t *nested);
/* Skipped root activations of one slot, all threads. */
uint64_t hp_budget_slot_skips(int slot);
/* Mark the regulated call paths CCT_F_PARTIAL and fill their estimated
 * skipped counts in every thread's probe tree.  Called each interval and
 * before the thread sections are written.  Signal-safe. */
void hp_budget_mark_partial(void);
/* Write HP_SEC_BUDGET.  Signal-safe. */
int hp_budget_write(struct hp_writer *w);
/* In a forked child: forget the parent's regulation state. */
void hp_budget_after_fork_child(void);

#endif
