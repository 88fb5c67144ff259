/* sampler/perf_ring.h - the perf_event ring buffer of `--unwind kernel`.
 *
 * Pure part (no system call, no global state; unit-tested with synthetic
 * ring contents in tests/sampler/test_ring.c): record decoding, including
 * records that wrap around the end of the data area, and the user part of a
 * kernel callchain.  Impure part: the per-thread drain that feeds the
 * thread's sample tree (sampler/perf_ring.c says when it runs).
 *
 * Signal-safe: everything here.
 */
#ifndef HYPROF_SAMPLER_PERF_RING_H
#define HYPROF_SAMPLER_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct hp_thread;

enum hp_ring_kind {
	HP_RING_END,        /* tail reached head: nothing more */
	HP_RING_SAMPLE,     /* PERF_RECORD_SAMPLE: ip, period, chain */
	HP_RING_LOST,       /* PERF_RECORD_LOST: `lost` samples the ring had no room for */
	HP_RING_THROTTLE,   /* PERF_RECORD_THROTTLE: the kernel stopped sampling */
	HP_RING_UNTHROTTLE, /* PERF_RECORD_UNTHROTTLE: ... and restarted it */
	HP_RING_OTHER,      /* any other record type: skipped */
	HP_RING_CORRUPT,    /* a size that cannot be: the caller resynchronises at head */
};

struct hp_ring_rec {
	int kind;
	uint32_t type;          /* perf_event_header.type */
	uint16_t size;          /* perf_event_header.size */
	uint64_t ip, period;    /* samples: the fields the sample_type asked for, else 0 */
	const uint64_t *chain;  /* samples with PERF_SAMPLE_CALLCHAIN: nr entries */
	uint64_t nr;
	uint64_t lost;          /* HP_RING_LOST */
};

/* The sample_type bits the decoder knows; others make hp_ring_next() report
 * every sample as HP_RING_CORRUPT. */
#define HP_RING_SAMPLE_TYPES (PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Decode the record at *tail of a ring whose data area is `data`, mask + 1
 * bytes (a power of two), written up to `head`.  A record that wraps around
 * the end of the data area is copied into scratch (scratch_len bytes, 8-byte
 * aligned); one that does not is read in place.  Advances *tail past the
 * record (to head on HP_RING_CORRUPT); leaves it on HP_RING_END.  Pointers
 * in *r stay valid until the ring's tail is released or scratch reused. */
int hp_ring_next(const void *data, uint64_t mask, uint64_t *tail, uint64_t head, uint64_t sample_type,
		 void *scratch, size_t scratch_len, struct hp_ring_rec *r);

/* The user-space part of a callchain, leaf first, into out[0..max): the
 * entries after the PERF_CONTEXT_USER marker (all entries when the chain has
 * no marker), up to the first 0.  A chain with no user entry gives `ip` alone
 * when ip is a user address.  Returns the number of frames; *complete is 0
 * when the chain held max_stack user frames (the kernel stopped there, the
 * outermost frames are unknown) or out had no room. */
int hp_ring_user_chain(const uint64_t *chain, uint64_t nr, uint64_t ip, uint32_t max_stack, uint64_t *out,
		       int max, int *complete);

/* ---- the drain (not pure) ------------------------------------------------ */
/* The user frames the kernel was asked for (perf_event_attr.sample_max_stack),
 * set by perf.c when it opens the event. */
extern uint32_t hp_perf_max_stack;

/* Thread t's ring is drained by one thread at a time: its own sampling
 * handler, its own thread stop, or the thread that pauses sampling before a
 * profile is written.  lock: 0 if taken, -EBUSY if another holds it (wait:
 * retry for at most ~100 ms, never when the holder is the caller itself). */
int hp_perf_ring_lock(struct hp_thread *t, int wait);
void hp_perf_ring_unlock(struct hp_thread *t);
/* Insert the ring's records into t's sample tree and release them to the
 * kernel (data_tail).  Call with the ring lock held.  `in_context`: the
 * caller is t's own handler and each record was written just before this
 * signal (one signal per sample), so samples also join the probe node
 * current now (hybrid and measured modes).  Returns the samples taken. */
uint64_t hp_perf_ring_drain_locked(struct hp_thread *t, int in_context);
/* The sampling handler's part: lock, drain, unlock, unless the thread is
 * inside hyprof's runtime (busy: the records wait for the next signal) or
 * sampling is paused (the pausing thread drains).  Returns samples taken. */
uint64_t hp_perf_ring_on_signal(struct hp_thread *t);

#endif
