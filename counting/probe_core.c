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

static size_t mem_len(uint32_t cap)
{
	size_t len = (HP_STACK_MAX + 1) * sizeof(struct hp_frame) + (size_t)cap * sizeof(uint32_t);
	return (len + 4095) & ~(size_t)4095;
}

int hp_probe_mem_map(struct hp_thread *t)
{
	/* MAP_NORESERVE: the deep frames and the cache entries of nodes never
	 * entered cost nothing. */
	void *m = mmap(NULL, mem_len(t->probe.cap), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	t->probe_cur = CCT_ROOT;
	t->sp = 0;
	__atomic_store_n(&t->stack, (struct hp_frame *)m + 1, __ATOMIC_RELEASE);
	return 0;
}

void hp_probe_mem_unmap(struct hp_thread *t)
{
	if (!t->stack)
		return;
	munmap(t->stack - 1, mem_len(t->probe.cap));
	t->stack = NULL;
}

void hp_probe_cache_clear(struct hp_thread *t)
{
	if (t->stack)
		memset(hp_probe_cache(t->stack), 0, (size_t)t->probe.cap * sizeof(uint32_t));
}

NOINSTR void hp_probe_spin(uint64_t cycles)
{
	uint64_t end = hp_rdtsc() + cycles;
	/* No `pause`: in a VM a pause loop can exit to the hypervisor
	 * (pause-loop exiting) and give the CPU away for microseconds, which
	 * would make the injected cost larger than asked and unstable. */
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
	t->overhead += hp_probe_g.cost_pair;
	t->delay += hp_probe_g.cost_pair;
}

void hp_probe_exit_slow(struct hp_thread *t, uint64_t key, int timed, uint64_t now)
{
	uint32_t sp = t->sp;
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

