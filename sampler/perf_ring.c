/* sampler/perf_ring.c - `--unwind kernel`: call paths the kernel walked,
 * read from the perf_event ring buffer in batches.
 *
 * The event (sampler/perf.c) is opened with PERF_SAMPLE_IP | PERIOD |
 * CALLCHAIN, exclude_callchain_kernel, sample_max_stack from
 * kernel.perf_event_max_stack, and a per-thread ring of several pages.  At
 * each sample the kernel walks the user stack's frame-pointer chain (what
 * `perf record -g` does) and writes the record; the sampling signal comes
 * once per hp_thread.src.batch samples (wakeup_events), and the handler,
 * in the owning thread, inserts every record's path into that thread's
 * sample tree, as the libunwind path does for one: the leaf is the
 * interrupted user PC, the callers are the return addresses as found on
 * the stack (the tools subtract 1 when they symbolize), same truncation
 * (HP_KEY_TRUNCATED root when the kernel stopped at sample_max_stack),
 * same measurement-code accounting.  PERF_RECORD_LOST (the ring was full)
 * counts as dropped samples, reason "lost"; PERF_RECORD_THROTTLE is counted
 * and said once on stderr.
 *
 * Batching: one signal per batch samples in sampled mode (the reason this
 * mode exists: on this VM a signal costs about what `perf record -g` costs
 * per sample in total).  In hybrid and measured modes a sample must also
 * join the probe node current when it was taken, which only the handler of
 * that very sample knows: there batch is 1, one signal per sample, without
 * libunwind's walk.  Samples still waiting in the ring are drained at
 * thread stop (hp_perf_thread_stop), and by hp_perf_pause() when sampling
 * is paused, which precedes every profile write (exit, exec, fatal signal,
 * the live snapshots do not pause: they may lag by up to batch - 1 samples
 * per thread).  A fork child starts with an empty tree and its own event;
 * the parent's pending records stay in the parent's ring.
 *
 * Quality: frame-pointer chains, the quality of `perf record -g`: exact
 * for code with frame pointers, except that GCC omits the frame of leaf
 * functions even with -fno-omit-frame-pointer, so a sample in such a leaf
 * loses the leaf's caller (ALGORITHMS.md section 1); code without frame
 * pointers (most distribution libraries) loses more.
 *
 * Signal-safe: everything in this file.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"
#include "sampler/internal.h"
#include "sampler/perf_ring.h"

/* ---- pure: records ------------------------------------------------------- */

/* Copy len bytes at ring offset off (any value: masked) out of the ring. */
static void ring_copy(const char *data, uint64_t mask, uint64_t off, void *dst, size_t len)
{
	uint64_t o = off & mask, size = mask + 1;
	if (o + len <= size) {
		memcpy(dst, data + o, len);
	} else {
		size_t first = (size_t)(size - o);
		memcpy(dst, data + o, first);
		memcpy((char *)dst + first, data, len - first);
	}
}

static uint64_t ring_u64(const char *data, uint64_t mask, uint64_t off)
{
	uint64_t v;
	ring_copy(data, mask, off, &v, sizeof(v));
	return v;
}

int hp_ring_next(const void *data_, uint64_t mask, uint64_t *tailp, uint64_t head, uint64_t sample_type,
		 void *scratch, size_t scratch_len, struct hp_ring_rec *r)
{
	const char *data = data_;
	uint64_t tail = *tailp;
	memset(r, 0, sizeof(*r));
	if (tail == head)
		return r->kind = HP_RING_END;
	uint64_t avail = head - tail;
	struct perf_event_header h;
	if (avail > mask + 1 || avail < sizeof(h))
		goto corrupt;
	ring_copy(data, mask, tail, &h, sizeof(h));
	r->type = h.type;
	r->size = h.size;
	if (h.size < sizeof(h) || h.size > avail || (h.size & 7))
		goto corrupt;
	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		if (sample_type & ~(uint64_t)HP_RING_SAMPLE_TYPES)
			goto corrupt;
		uint64_t i = sizeof(h);
		if (sample_type & PERF_SAMPLE_IP) {
			if (i + 8 > h.size)
				goto corrupt;
			r->ip = ring_u64(data, mask, tail + i);
			i += 8;
		}
		if (sample_type & PERF_SAMPLE_PERIOD) {
			if (i + 8 > h.size)
				goto corrupt;
			r->period = ring_u64(data, mask, tail + i);
			i += 8;
		}
		if (sample_type & PERF_SAMPLE_CALLCHAIN) {
			if (i + 8 > h.size)
				goto corrupt;
			uint64_t nr = ring_u64(data, mask, tail + i);
			i += 8;
			if (nr > (h.size - i) / 8)
				goto corrupt;
			uint64_t o = (tail + i) & mask;
			if (o + nr * 8 <= mask + 1) {
				r->chain = (const uint64_t *)(const void *)(data + o); /* in place */
			} else {
				/* The chain wraps: copy it out (the innermost entries
				 * first, should scratch be short). */
				if (nr > scratch_len / 8)
					nr = scratch_len / 8;
				ring_copy(data, mask, tail + i, scratch, (size_t)nr * 8);
				r->chain = scratch;
			}
			r->nr = nr;
		}
		r->kind = HP_RING_SAMPLE;
		break;
	}
	case PERF_RECORD_LOST:
		if (h.size < sizeof(h) + 16)
			goto corrupt;
		r->lost = ring_u64(data, mask, tail + sizeof(h) + 8); /* after the id */
		r->kind = HP_RING_LOST;
		break;
	case PERF_RECORD_THROTTLE:
		r->kind = HP_RING_THROTTLE;
		break;
	case PERF_RECORD_UNTHROTTLE:
		r->kind = HP_RING_UNTHROTTLE;
		break;
	default:
		r->kind = HP_RING_OTHER;
		break;
	}
	*tailp = tail + h.size;
	return r->kind;
corrupt:
	*tailp = head;
	return r->kind = HP_RING_CORRUPT;
}

int hp_ring_user_chain(const uint64_t *chain, uint64_t nr, uint64_t ip, uint32_t max_stack, uint64_t *out,
		       int max, int *complete)
{
	uint64_t start = 0, i;
	int n = 0;
	*complete = 1;
	if (chain) {
		int marker = 0;
		for (i = 0; i < nr; i++) {
			if (chain[i] == PERF_CONTEXT_USER) {
				start = i + 1;
				break;
			}
			if (chain[i] >= PERF_CONTEXT_MAX)
				marker = 1;
		}
		if (i == nr && marker)
			start = nr; /* only other contexts (kernel): no user frame */
		for (i = start; i < nr; i++) {
			uint64_t v = chain[i];
			if (v == 0 || v >= PERF_CONTEXT_MAX)
				break; /* end of the user part */
			if (n >= max) {
				*complete = 0;
				break;
			}
			out[n++] = v;
		}
		/* The kernel stops at max_stack user entries (0 and markers
		 * included): whatever was beyond is unknown. */
		if (max_stack && i == nr && nr - start >= max_stack)
			*complete = 0;
	}
	if (n == 0 && ip && (int64_t)ip > 0 && max > 0) {
		out[n++] = ip; /* no user chain: the interrupted user PC alone */
		*complete = 1;
	}
	return n;
}

/* ---- the drain ------------------------------------------------------------ */
#ifndef HP_RING_PURE_ONLY /* the unit test builds the pure part alone */

uint32_t hp_perf_max_stack;

int hp_perf_ring_lock(struct hp_thread *t, int wait)
{
	struct timespec ts = {0, 100000};
	for (int i = 0;; i++) {
		if (!__atomic_exchange_n(&t->src.drain_lock, 1, __ATOMIC_ACQUIRE))
			return 0;
		/* The holder is this thread itself (a fatal signal inside the
		 * drain): waiting would never end. */
		if (!wait || i >= 1000 || t == hp_thread_self())
			return -EBUSY;
		nanosleep(&ts, NULL);
	}
}

void hp_perf_ring_unlock(struct hp_thread *t)
{
	__atomic_store_n(&t->src.drain_lock, 0, __ATOMIC_RELEASE);
}

static void said_throttle(struct hp_thread *t)
{
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		hp_log("the kernel throttled sampling on thread %d (kernel.perf_event_max_sample_rate, "
		       "kernel.perf_cpu_time_max_percent): samples are missing while it lasts",
		       (int)t->tid);
}

uint64_t hp_perf_ring_drain_locked(struct hp_thread *t, int in_context)
{
	struct perf_event_mmap_page *pg = t->src.ring;
	if (!pg)
		return 0;
	struct hp_thread_mem *m = hp_thread_mem(t);
	const char *data = (const char *)pg + (pg->data_offset ? pg->data_offset : (uint64_t)sysconf(_SC_PAGESIZE));
	uint64_t mask = t->src.ring_mask, taken = 0;
	/* New records may arrive while we read: a few rounds, bounded. */
	for (int round = 0; round < 4; round++) {
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pg->data_tail;
		if (tail == head)
			break;
		struct hp_ring_rec r;
		int k;
		while ((k = hp_ring_next(data, mask, &tail, head, HP_RING_SAMPLE_TYPES, m->path, sizeof(m->path),
					 &r)) != HP_RING_END) {
			if (k == HP_RING_SAMPLE) {
				int complete;
				int n = hp_ring_user_chain(r.chain, r.nr, r.ip, hp_perf_max_stack, m->trace,
							   HP_TRACE_MAX, &complete);
				hp_sample_take_chain(t, n, complete, r.period, in_context);
				taken++;
			} else if (k == HP_RING_LOST) {
				t->dropped[HP_DROP_LOST] += r.lost;
			} else if (k == HP_RING_THROTTLE) {
				t->src.throttled++;
				said_throttle(t);
			} else if (k == HP_RING_CORRUPT) {
				t->src.ring_corrupt++;
				break;
			}
		}
		/* Everything before tail is read: the kernel may reuse it. */
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	}
	return taken;
}

uint64_t hp_perf_ring_on_signal(struct hp_thread *t)
{
	/* Inside the runtime (writer, thread set-up) the trees are not ours to
	 * change: the records wait in the ring.  Paused: the pausing thread
	 * drains (hp_perf_pause). */
	if (t->busy || !__atomic_load_n(&hp_rt.active, __ATOMIC_SEQ_CST))
		return 0;
	if (hp_perf_ring_lock(t, 0))
		return 0;
	uint64_t n = hp_perf_ring_drain_locked(t, t->src.batch == 1);
	hp_perf_ring_unlock(t);
	return n;
}
#endif
