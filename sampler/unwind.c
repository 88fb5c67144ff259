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
 *   kernel: not here: the perf_event source asks the kernel for the
 *     frame-pointer callchain of each sample (sampler/perf_ring.c); only
 *     hp_unwind_finish() is shared with it.
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
 * Depth: a path keeps at most HP_UNWIND_MAX frames.  Deeper stacks (up to
 * HP_TRACE_MAX frames walked) keep their outermost frames and the leaf, so a
 * top-down tree keeps its shape; the node above the leaf is flagged
 * CCT_F_TRUNCATED by the sample path.  Past HP_TRACE_MAX (or HP_UNWIND_MAX
 * on the slow path, whose cost per frame is ~40x the fast one) the outermost
 * frames are unknown: the path starts with the key HP_KEY_TRUNCATED.  The
 * walk's cost is bounded either way.
 *
 * A fault while unwinding (a corrupt stack) is caught by the fatal-signal
 * handler, which jumps back here through hp_sampler_fault_recover(): the
 * program goes on, and the sample keeps the frames read before the fault
 * (at least the interrupted PC) under a HP_KEY_TRUNCATED root.
 *
 * Signal-safe: hp_unwind().  libunwind's trace cache is per thread and
 * created by hp_unwind_thread_init() outside signal context; the slow path
 * uses libunwind's cache lock, which blocks signals while held.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <libunwind.h>
#include <setjmp.h>
#include <ucontext.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"
#include "sampler/internal.h"

static int method = HP_UNWIND_LIBUNWIND;

int hp_unwind_init(int m)
{
	method = m;
	if (m != HP_UNWIND_LIBUNWIND)
		return 0;
	/* libunwind's first call opens a pipe (its memory validation): with
	 * descriptors 0-2 closed (`prog 2>&-`) it would take them, and the
	 * program's own first open() would not get the number it expects.
	 * Hold the closed ones on /dev/null meanwhile. */
	int held[3], nheld = 0;
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int d = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (d >= 0)
				held[nheld++] = d;
		}
	/* Debian's libunwind has no thread-local register-state cache: the
	 * global one (with its lock) serves the slow path. */
	int rc = unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL) ? -EINVAL : 0;
	void *buf[2];
	unw_backtrace(buf, 2); /* the pipe is opened now, not in a sample */
	for (int i = 0; i < nheld; i++)
		close(held[i]);
	return rc;
}

void hp_unwind_thread_init(void)
{
	/* Creates this thread's trace cache (mmap, pthread_setspecific) now,
	 * outside signal context, instead of in the first sample. */
	void *buf[4];
	if (method == HP_UNWIND_LIBUNWIND)
		unw_backtrace(buf, 4);
}

/* m->trace[0..n) holds the walk leaf first; `complete` says whether it
 * reached the outermost frame.  Build m->path root first. */
static int finish(struct hp_thread_mem *m, int n, int complete, int *truncated)
{
	const uint64_t *tr = m->trace;
	int k = 0;
	if (n <= 0)
		return 0;
	if (!complete) {
		/* [truncated] + the innermost callers + the leaf */
		int keep = n < HP_UNWIND_MAX - 1 ? n : HP_UNWIND_MAX - 1;
		m->path[k++] = HP_KEY_TRUNCATED;
		for (int j = keep - 1; j >= 0; j--)
			m->path[k++] = tr[j];
		return k;
	}
	if (n <= HP_UNWIND_MAX) {
		for (int j = n - 1; j >= 0; j--)
			m->path[k++] = tr[j];
		return k;
	}
	/* the outermost HP_UNWIND_MAX - 1 frames, then the leaf */
	for (int j = n - 1; j >= n - (HP_UNWIND_MAX - 1); j--)
		m->path[k++] = tr[j];
	m->path[k++] = tr[0];
	*truncated = 1;
	return k;
}

/* The fast path.  unw_backtrace() walks from the handler's own context,
 * through the signal trampoline, into the interrupted code, using the
 * per-thread trace cache (frame shapes keyed by IP: no lock, no system call
 * once warm).  The slow path takes libunwind's cache lock with two
 * sigprocmask calls per frame: ~0.8 us per frame on this VM against ~0.02.
 * Returns -1 when the fast path cannot be trusted (the interrupted PC is
 * not among the frames): the caller then steps. */
static int walk_trace(struct hp_thread_mem *m, void *ucontext, int *truncated)
{
	const ucontext_t *uc = ucontext;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	void **buf = (void **)m->trace;
	int n = unw_backtrace(buf, HP_TRACE_MAX);
	int i = 0;
	while (i < n && (uint64_t)(uintptr_t)buf[i] != pc)
		i++;
	if (i >= n)
		return -1;
	/* Drop hyprof's frames and the trampoline: the interrupted PC first. */
	int k = 0;
	for (int j = i; j < n; j++)
		if (buf[j])
			m->trace[k++] = (uint64_t)(uintptr_t)buf[j];
	m->walk_n = k;
	return finish(m, k, n < HP_TRACE_MAX, truncated);
}

int hp_unwind_finish(struct hp_thread_mem *m, int n, int complete, int *truncated)
{
	*truncated = 0;
	return finish(m, n, complete, truncated);
}

/* Step the cursor outwards, appending each caller to the n frames already
 * in m->trace. */
static int step_from(struct hp_thread_mem *m, unw_cursor_t *c, int n, int *truncated)
{
	int complete = 0;
	m->walk_n = n;
	for (;;) {
		unw_word_t ip;
		if (unw_step(c) <= 0 || unw_get_reg(c, UNW_REG_IP, &ip) < 0 || ip == 0) {
			complete = 1;
			break;
		}
		if (n >= HP_UNWIND_MAX)
			break; /* bounded: the outer frames stay unknown */
		m->trace[n++] = ip;
		m->walk_n = n;
	}
	return finish(m, n, complete, truncated);
}

static int walk_step(struct hp_thread_mem *m, void *uc, int *truncated)
{
	unw_cursor_t c;
	unw_word_t ip;
	if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
		return 0;
	m->trace[0] = ip;
	return step_from(m, &c, 1, truncated);
}

static int walk_fp(struct hp_thread_mem *m, void *ucontext, int *truncated)
{
	const ucontext_t *uc = ucontext;
	uint64_t leaf = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t hi = m->stack_hi;
	int n = 0, complete = 1;
	if (leaf == 0)
		return 0;
	m->trace[n++] = leaf;
	m->walk_n = n;
	/* Outside the recorded stack (an alternate signal stack, a coroutine's
	 * own stack): only the leaf is certain. */
	if (sp < m->stack_lo || sp >= hi)
		return finish(m, n, 1, truncated);
	for (;;) {
		if (fp < sp || fp > hi - 16 || (fp & 7))
			break;
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], ret = frame[1];
		if (ret == 0)
			break;
		if (n >= HP_TRACE_MAX) {
			complete = 0;
			break;
		}
		m->trace[n++] = ret;
		m->walk_n = n;
		if (next <= fp) /* frames grow towards the stack top */
			break;
		fp = next;
	}
	return finish(m, n, complete, truncated);
}

/* The interrupted PC has no unwind entry (code copied or generated into an
 * anonymous executable mapping, a JIT): libunwind stops at it and the
 * sample would hang at the root as a lone [unknown].  Such code is most
 * often a leaf that has pushed nothing: take the word at the interrupted SP
 * as its return address when libunwind knows the code it points into, and
 * walk on from there.  Reads stay inside the thread's recorded stack; a
 * wrong guess only costs the callers (the fault recovery of hp_unwind()
 * covers the rest).  Returns the frames now in m->trace, or 0. */
static int walk_noinfo_leaf(struct hp_thread_mem *m, void *ucontext, int *truncated)
{
	const ucontext_t *uc = ucontext;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	unw_proc_info_t pi;
	unw_cursor_t c;
	if (pc == 0 || sp < m->stack_lo || sp + 8 > m->stack_hi || (sp & 7))
		return 0;
	/* only when the leaf really has no unwind entry: libunwind then
	 * answers with an error or a made-up entry of one byte */
	if (unw_init_local2(&c, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	if (unw_get_proc_info(&c, &pi) == 0 && pi.end_ip - pi.start_ip > 1)
		return 0;
	uint64_t ret = *(const uint64_t *)sp;
	ucontext_t cp = *uc;
	cp.uc_mcontext.gregs[REG_RIP] = (greg_t)ret;
	cp.uc_mcontext.gregs[REG_RSP] = (greg_t)(sp + 8);
	if (ret == 0 || unw_init_local2(&c, (unw_context_t *)&cp, 0) < 0 ||
	    unw_get_proc_info(&c, &pi) < 0 || pi.end_ip - pi.start_ip <= 1 ||
	    ret <= pi.start_ip || ret > pi.end_ip)
		return 0;
	m->trace[0] = pc;
	m->trace[1] = ret;
	return step_from(m, &c, 2, truncated);
}

int hp_unwind(struct hp_thread_mem *m, void *uc, int *truncated)
{
	*truncated = 0;
	if (sigsetjmp(m->unwind_jmp, 0)) {
		/* Came back from a fault inside the walk (the fatal handler
		 * cleared m->unwinding and counted the fault): keep what was read
		 * before it, the interrupted PC at least. */
		int n = m->walk_n;
		if (n <= 0) {
			m->trace[0] = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
			n = 1;
		}
		return finish(m, n, 0, truncated);
	}
	m->walk_n = 0;
	m->unwinding = 1;
	int n;
	if (method == HP_UNWIND_FP)
		n = walk_fp(m, uc, truncated);
	else if ((n = walk_trace(m, uc, truncated)) < 0)
		n = walk_step(m, uc, truncated);
	if (n == 1 && method != HP_UNWIND_FP) {
		/* the leaf alone: no unwind entry for it? */
		int t2 = 0, k = walk_noinfo_leaf(m, uc, &t2);
		if (k > 1) {
			n = k;
			*truncated = t2;
		}
	}
	m->unwinding = 0;
	return n;
}
