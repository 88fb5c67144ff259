/* counting/probe_core.c - the probes' slow paths: child insertion with
 * recursion folding, shadow-stack overflow, exit mismatch (longjmp,
 * exceptions), the injected delay.  Pure with respect to the runtime (only
 * the thread struct, its probe tree and hp_log), so the unit tests drive
 * them with synthetic timestamps through counting/probe_impl.h.
 *
 * Probe context: no malloc, no locks, no stdio.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "counting/probe_impl.h"

#define NOINSTR __attribute__((no_instrument_function))

struct hp_probe_globals hp_probe_g;

/* ---- per-thread probe memory ------------------------------------------ */

_Static_assert(sizeof(struct hp_probe_thr) == 128, "hp_probe_thr: two cache lines");

static size_t mem_len(uint32_t cap)
{
	size_t len = sizeof(struct hp_probe_thr) + (HP_STACK_MAX + 1) * sizeof(struct hp_frame) +
		     (size_t)cap * sizeof(uint32_t);
	return (len + 4095) & ~(size_t)4095;
}

static void mem_init(struct hp_thread *t, void *m)
{
	struct hp_probe_thr *pt = m;
	memset(pt, 0, sizeof(*pt));
	pt->pair = hp_probe_g.cost_pair;
	pt->comp_pair = hp_probe_g.comp.pair;
	pt->di = hp_probe_g.comp.di;
	pt->last_recal = hp_rdtsc();
	struct hp_frame *stack = (struct hp_frame *)(void *)(pt + 1) + 1;
	memset(stack - 1, 0, sizeof(*stack)); /* the root frame */
	t->probe_cur = CCT_ROOT;
	t->sp = 0;
	__atomic_store_n(&t->stack, stack, __ATOMIC_RELEASE);
}

int hp_probe_mem_map(struct hp_thread *t)
{
	/* MAP_NORESERVE: the deep frames and the cache entries of nodes never
	 * entered cost nothing. */
	void *m = mmap(NULL, mem_len(t->probe.cap), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	mem_init(t, m);
	return 0;
}

/* Everything after the first page of t's probe memory (the header and the
 * root frames stay) back to zero pages. */
static void release_tail(struct hp_thread *t)
{
	char *base = (char *)hp_probe_thr(t->stack);
	hp_release_pages(base + 4096, mem_len(t->probe.cap) - 4096);
}

void hp_probe_mem_reuse(struct hp_thread *t)
{
	if (!t->stack)
		return;
	void *m = hp_probe_thr(t->stack);
	/* frames and the child cache back to zero pages (the cache must be
	 * empty for the reset tree), then the header and root frame anew */
	release_tail(t);
	struct hp_thread *priv = ((struct hp_probe_thr *)m)->priv; /* the bursts' state: kept */
	t->sp = 0;
	mem_init(t, m);
	((struct hp_probe_thr *)m)->priv = priv;
}

void hp_probe_mem_unmap(struct hp_thread *t)
{
	if (!t->stack)
		return;
	munmap(hp_probe_thr(t->stack), mem_len(t->probe.cap));
	t->stack = NULL;
}

void hp_probe_mem_release(struct hp_thread *t)
{
	if (!t->stack || t->sp)
		return;
	/* The first page keeps the header (written with the profile) and the
	 * root frames; the rest (frames, the per-node child cache) is only
	 * read by probes running on the thread.  Pages touched again later
	 * (a destructor with probes) come back as zeros: an empty cache. */
	release_tail(t);
}

void hp_probe_set_costs(struct hp_thread *t, uint64_t pair, uint64_t comp_pair, uint64_t di)
{
	struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	/* A frame removes inside x F_now + comp_adj at its exit: the pairs
	 * already inside it ran at the old F, so comp_adj takes the
	 * difference (mod 2^64: the sum at exit is right even when a term is
	 * "negative"). */
	uint64_t ev = t->probe_events, old = pt->comp_pair;
	uint32_t sp = t->sp < HP_STACK_MAX ? t->sp : HP_STACK_MAX;
	if (old != comp_pair)
		for (uint32_t i = 0; i < sp; i++) {
			struct hp_frame *f = &t->stack[i];
			f->comp_adj += (ev - f->probes_at) * (old - comp_pair);
		}
	pt->pair_sum += (ev - pt->ev_mark) * pt->pair;
	pt->ev_mark = ev;
	pt->pair = pair;
	pt->comp_pair = comp_pair;
	pt->di = di;
}

void hp_probe_exclude(struct hp_thread *t, uint64_t d)
{
	uint32_t sp = t->sp < HP_STACK_MAX ? t->sp : HP_STACK_MAX;
	for (uint32_t i = 0; i < sp; i++)
		t->stack[i].t_enter += d;
}

void hp_probe_cache_clear(struct hp_thread *t)
{
	/* Up to the highest entry ever written (the rest of the array was
	 * never touched, so costs nothing); not t->probe.n, which a reset
	 * may already have lowered. */
	if (!t->stack)
		return;
	struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	memset(hp_probe_cache(t->stack), 0, (size_t)pt->cache_hw * sizeof(uint32_t));
	pt->cache_hw = 0;
}

NOINSTR void hp_probe_spin(uint64_t cycles)
{
	/* A wait for a TSC deadline, so the injected cost is known in wall
	 * time (the MPI and cost tests rely on that).  No `pause`: in a VM a
	 * pause loop can exit to the hypervisor (pause-loop exiting) and give
	 * the CPU away for microseconds. */
	uint64_t end = hp_rdtsc() + cycles;
	while (hp_rdtsc() < end)
		__asm__ volatile("" ::: "memory");
}

uint32_t hp_probe_child_slow(struct hp_thread *t, uint32_t cur, uint64_t key, uint32_t kind)
{
	struct cct *tr = &t->probe;
	uint32_t n0 = tr->n;
	uint32_t c = cct__child(tr, cur, key);
	if (HP_UNLIKELY(c == CCT_NONE)) {
		/* Tree full (counted in tr->full): the call is counted in the
		 * current node, flagged truncated. */
		tr->nodes[cur].flags |= CCT_F_TRUNCATED;
		return cur;
	}
	struct cct_node *n = &tr->nodes[c];
	if (c >= n0) {
		/* New child: if `key` is already on the path this is
		 * recursion; fold it into the outermost instance and leave a
		 * redirect so the next lookup from here is O(1). */
		uint32_t anc = hp_fold_find(tr, cur, key, kind);
		if (anc != CCT_NONE) {
			n->target = anc;
			n->flags |= kind | CCT_F_REDIRECT;
			tr->nodes[anc].flags |= CCT_F_FOLDED;
			c = anc;
		} else {
			n->flags |= kind;
		}
	} else if (n->flags & CCT_F_REDIRECT) {
		c = n->target;
	}
	/* The resolved node has the key entered (a fold target has the same
	 * key), so the next entry of `key` from `cur` hits the cache. */
	hp_probe_cache(t->stack)[cur] = c;
	struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	if (cur >= pt->cache_hw)
		pt->cache_hw = cur + 1;
	return c;
}

void hp_probe_enter_overflow(struct hp_thread *t, uint64_t key, uint32_t kind)
{
	/* Past HP_STACK_MAX frames: count the call (as a child of the deepest
	 * frame, flagged truncated) but keep no frame, hence no times. */
	t->stack_overflow++;
	if (!__atomic_exchange_n(&hp_probe_g.warned_overflow, 1, __ATOMIC_RELAXED))
		hp_log("probe shadow stack full (%u frames) on thread %d: deeper calls are counted without times",
		       (unsigned)HP_STACK_MAX, (int)t->tid);
	uint32_t cur = t->probe_cur;
	uint32_t c = hp_probe_child_slow(t, cur, key, kind);
	t->probe.nodes[c].calls++;
	t->probe.nodes[cur].flags |= CCT_F_TRUNCATED;
	t->probe_events++;
	t->sp++;
	t->overhead += hp_probe_thr(t->stack)->pair;
	t->delay += hp_probe_thr(t->stack)->pair;
}

void hp_probe_exit_slow(struct hp_thread *t, uint64_t key, int timed, uint64_t now)
{
	uint32_t sp = t->sp;
	struct hp_probe_thr *pt = hp_probe_thr(t->stack);
	if (pt->nested_open) { /* exit of a call not recorded (hp_probe_enter_t) */
		pt->nested_open--;
		return;
	}
	if (sp > HP_STACK_MAX) { /* exit of an entry that overflowed */
		t->sp = sp - 1;
		return;
	}
	t->exit_mismatch++;
	if (sp == 0)
		return; /* exit of a call entered before this thread was seen */
	/* longjmp or an exception skipped exits: close the frames above the
	 * matching one as if they ended now.  No match: an exit whose entry
	 * we never saw; leave the stack alone. */
	int found = -1;
	for (int i = (int)sp - 1; i >= 0; i--)
		if (t->stack[i].fn == key) {
			found = i;
			break;
		}
	if (found < 0)
		return;
	for (int i = (int)sp - 1; i >= found; i--) {
		if (timed)
			hp_probe_pop(t, (uint32_t)i, 1, now);
		else
			hp_probe_pop(t, (uint32_t)i, 0, now);
	}
}

