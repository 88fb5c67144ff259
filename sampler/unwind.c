/* sampler/unwind.c - call paths from the signal context.
 *
 * Two unwinders, chosen by HYPROF_UNWIND:
 *   libunwind (default): DWARF CFI.  Correct for code built without frame
 *     pointers and for leaf functions, whose frame GCC omits even with
 *     -fno-omit-frame-pointer (ALGORITHMS.md section 1).  Fast path:
 *     unw_backtrace() and its per-thread trace cache, cut at the interrupted
 *     PC; slow path when that fails: unw_init_local2 with
 *     UNW_INIT_SIGNAL_FRAME from the interrupted context (the first IP taken
 *     as exact, not as a return address) and unw_step.
 *   fp: follows the saved frame-pointer chain.  Cheaper, but loses the
 *     caller of every frameless function; reads are bounded to the part of
 *     the thread's stack between the interrupted SP and the stack top that
 *     thread.c recorded with pthread_getattr_np, so a bad chain ends the walk
 *     instead of faulting.
 * hyprof's handler frames and the kernel's signal trampoline are never part
 * of the path: the slow path starts below them, the fast path cuts them.
 *
 * Keys: the leaf is the interrupted PC; every other frame is the return
 * address as found on the stack.  The tools subtract 1 from non-leaf frames
 * when they symbolize, so a call that is the last instruction of a function
 * is attributed to that function and its call line.
 *
 * A fault while unwinding (a corrupt stack) is caught by the fatal-signal
 * handler, which jumps back here through hp_sampler_fault_recover(): the
 * sample is dropped, the program goes on.
 *
 * Signal-safe: hp_unwind().  libunwind is used with per-thread caches, which
 * take no lock in a signal handler.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <libunwind.h>
#include <setjmp.h>
#include <ucontext.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"
#include "sampler/internal.h"

/* Deepest walk before giving up on finding the outermost frame. */
#define HP_UNWIND_STEPS_MAX (1 << 16)

static int method = HP_UNWIND_LIBUNWIND;

int hp_unwind_init(int m)
{
	method = m;
	if (m == HP_UNWIND_LIBUNWIND && unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD))
		return -EINVAL;
	return 0;
}

/* Callers are collected into m->keys[1..HP_UNWIND_MAX-1] used as a ring, so
 * that past the cap the *outermost* frames are kept (a top-down tree keeps
 * its shape) and the frames next to the leaf are the ones left out. */
struct walk {
	uint64_t *ring;
	uint32_t cap;
	uint32_t ncallers;
};

static inline void push(struct walk *w, uint64_t ip)
{
	w->ring[w->ncallers % w->cap] = ip;
	w->ncallers++;
}

static int finish(struct hp_thread_mem *m, struct walk *w, uint64_t leaf, int *truncated)
{
	uint32_t kept = w->ncallers < w->cap ? w->ncallers : w->cap;
	*truncated = w->ncallers > w->cap;
	uint32_t j = 0;
	for (uint32_t k = 0; k < kept; k++) { /* outermost kept caller first */
		uint32_t idx = w->ncallers - 1 - k;
		m->path[j++] = w->ring[idx % w->cap];
	}
	m->path[j++] = leaf;
	return (int)j;
}

static int walk_libunwind(struct hp_thread_mem *m, void *uc, int *truncated)
{
	unw_cursor_t c;
	unw_word_t ip;
	if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
		return 0;
	uint64_t leaf = ip;
	struct walk w = {m->keys + 1, HP_UNWIND_MAX - 1, 0};
	for (int steps = 0; steps < HP_UNWIND_STEPS_MAX && unw_step(&c) > 0; steps++) {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		push(&w, ip);
	}
	return finish(m, &w, leaf, truncated);
}

/* The fast path: libunwind's unw_backtrace() walks with its per-thread trace
 * cache (frame shapes keyed by IP, no lock, no system call once warm), from
 * the handler's own context through the signal trampoline into the
 * interrupted code.  The slow path (unw_step with libunwind's register-state
 * cache) takes a lock with two sigprocmask calls per frame in Debian's build,
 * ~0.8 us per frame on this VM; the fast path is ~10x cheaper.  The frames
 * before the interrupted PC are hyprof's own and the trampoline: cut.
 * Returns 0 when the fast path cannot be trusted (the interrupted PC not
 * found, or the stack deeper than the buffer): the caller then steps. */
static int walk_trace(struct hp_thread_mem *m, void *ucontext, int *truncated)
{
	const ucontext_t *uc = ucontext;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	void **buf = (void **)m->keys;
	int n = unw_backtrace(buf, HP_UNWIND_MAX);
	if (n <= 0 || n >= HP_UNWIND_MAX)
		return 0;
	int i = 0;
	while (i < n && (uint64_t)(uintptr_t)buf[i] != pc)
		i++;
	if (i == n)
		return 0;
	int k = 0;
	for (int j = n - 1; j >= i; j--) {
		if (buf[j] == NULL)
			continue;
		m->path[k++] = (uint64_t)(uintptr_t)buf[j];
	}
	*truncated = 0;
	return k;
}

void hp_unwind_thread_init(void)
{
	/* Creates this thread's trace cache (mmap, pthread_setspecific) now,
	 * outside signal context, instead of in the first sample. */
	void *buf[4];
	if (method == HP_UNWIND_LIBUNWIND)
		unw_backtrace(buf, 4);
}

static int walk_fp(struct hp_thread_mem *m, void *ucontext, int *truncated)
{
	const ucontext_t *uc = ucontext;
	uint64_t leaf = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t hi = m->stack_hi;
	struct walk w = {m->keys + 1, HP_UNWIND_MAX - 1, 0};
	if (leaf == 0)
		return 0;
	/* Outside the recorded stack (an alternate signal stack, a coroutine's
	 * own stack): only the leaf is certain. */
	if (sp < m->stack_lo || sp >= hi)
		return finish(m, &w, leaf, truncated);
	for (int steps = 0; steps < HP_UNWIND_STEPS_MAX; steps++) {
		if (fp < sp || fp > hi - 16 || (fp & 7))
			break;
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], ret = frame[1];
		if (ret == 0)
			break;
		push(&w, ret);
		if (next <= fp) /* frames grow towards the stack top */
			break;
		fp = next;
	}
	return finish(m, &w, leaf, truncated);
}

int hp_unwind(struct hp_thread_mem *m, void *uc, int *truncated)
{
	*truncated = 0;
	if (sigsetjmp(m->unwind_jmp, 0)) {
		/* Came back from a fault inside the walk (the fatal handler
		 * cleared m->unwinding and counted the fault). */
		return -1;
	}
	m->unwinding = 1;
	int n;
	if (method == HP_UNWIND_FP)
		n = walk_fp(m, uc, truncated);
	else if ((n = walk_trace(m, uc, truncated)) <= 0)
		n = walk_libunwind(m, uc, truncated);
	m->unwinding = 0;
	return n;
}
