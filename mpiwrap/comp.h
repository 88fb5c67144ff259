/* mpiwrap/comp.h - parallel overhead compensation: the rules as pure functions.
 *
 * ALGORITHMS.md section 4 (Malony, Shende, Morris, Wolf 2007).  A process p
 * keeps its delay x_p: how much earlier its next event would happen without
 * measurement.  Every message carries the sender's delay x_s (and, when the
 * two processes share a clock, the time s the message was sent).  A
 * completion (a receive, a Wait over several requests, a collective) is
 * approximated by rational reconstruction:
 *
 *   measured completion     T  = max(b, max_i s_i)
 *   approximated completion T' = max(b - x_p, max_i (s_i - x_i))
 *   new delay               x' = T - T'
 *
 * where b is when the call began and s_i, x_i are the incoming events (send
 * times and the senders' delays).  When the send time is unknown (the sender
 * is on another node, so the clocks differ) s_i is taken as the end of the
 * call e, which gives exactly the paper's rule:
 *
 *   x' = min(x_s, x_p + w)        w = e - b (the measured wait)
 *   w' = w + x_p - x'             (the approximated wait)
 *
 * With a shared clock the same formula also covers the message that arrived
 * before the receive began (the paper's rule would lower the receiver's
 * delay to the sender's there, as if the message had arrived at the end of
 * the receive).  The collectives reduce to the same join: over all
 * participants for the symmetric kinds (min over delays without a clock),
 * over the root's event for Bcast/Scatter, over the contributors for the
 * root of Reduce/Gather, over ranks 0..p for Scan.
 *
 * Times and delays are TSC cycles of the receiving process, signed so that
 * approximated times before zero are harmless.  Delays never go below zero.
 *
 * Signal-safe and thread-safe: pure functions on caller-owned structs.
 */
#ifndef HYPROF_MPIWRAP_COMP_H
#define HYPROF_MPIWRAP_COMP_H

#include <stdint.h>

struct hp_comp {
	int64_t begin; /* b: measured time the call began */
	int64_t x0;    /* x_p at b */
	int64_t t;     /* T: measured completion so far */
	int64_t ta;    /* T': approximated completion so far */
	uint32_t n;    /* events joined */
};

/* Start approximating a call that began at `begin` with delay `x`. */
static inline void hp_comp_begin(struct hp_comp *c, int64_t begin, int64_t x)
{
	if (x < 0)
		x = 0;
	c->begin = begin;
	c->x0 = x;
	c->t = begin;
	c->ta = begin - x;
	c->n = 0;
}

/* Join one incoming event: a message sent at measured time `s` (receiver's
 * clock; the end of the call when unknown) by a process whose delay was
 * `xs`. */
static inline void hp_comp_msg(struct hp_comp *c, int64_t s, int64_t xs)
{
	if (xs < 0)
		xs = 0;
	if (s > c->t)
		c->t = s;
	if (s - xs > c->ta)
		c->ta = s - xs;
	c->n++;
}

/* Join a set of events already reduced: max_i s_i and max_i (s_i - x_i)
 * (a collective's exchange gives both at once). */
static inline void hp_comp_join_max(struct hp_comp *c, int64_t max_s, int64_t max_sx)
{
	if (max_s > c->t)
		c->t = max_s;
	if (max_sx > c->ta)
		c->ta = max_sx;
	c->n++;
}

/* The delay after the call: x' = T - T', never below zero. */
static inline int64_t hp_comp_delay(const struct hp_comp *c)
{
	int64_t x = c->t - c->ta;
	return x > 0 ? x : 0;
}

/* Measured waiting: from the beginning of the call until the last incoming
 * event (the whole call when the events are taken at its end). */
static inline int64_t hp_comp_wait_raw(const struct hp_comp *c)
{
	return c->t - c->begin;
}

/* Approximated waiting: the same in the approximated execution.  Equals
 * wait_raw + x0 - delay. */
static inline int64_t hp_comp_wait_approx(const struct hp_comp *c)
{
	int64_t w = c->ta - (c->begin - c->x0);
	return w > 0 ? w : 0;
}

/* The paper's two-process rule, for the tests and the documentation:
 * receiver delay xr, measured wait w, sender delay xs.  Returns x_r' and
 * sets *w_approx. */
static inline int64_t hp_comp_paper_rule(int64_t xr, int64_t w, int64_t xs, int64_t *w_approx)
{
	int64_t x = xs < xr + w ? xs : xr + w;
	if (w_approx)
		*w_approx = w + xr - x;
	return x;
}

/* ---- MPI_ANY_SOURCE reordering ---------------------------------------
 * Compensation cannot change which message a wildcard receive matched.  It
 * can tell when the approximated execution would have matched differently:
 * a message whose approximated send time is earlier than that of a message
 * from another source matched before it on the same (communicator, tag)
 * would have been available first.  The tracker keeps the two latest
 * approximated send times from two different sources. */
struct hp_reorder {
	int64_t a1, a2; /* latest approximated send time, and the latest from another source */
	int src1, src2; /* their sources, -1 when unset */
};

static inline void hp_reorder_init(struct hp_reorder *r)
{
	r->a1 = r->a2 = INT64_MIN;
	r->src1 = r->src2 = -1;
}

/* A wildcard receive matched a message from `src` whose approximated send
 * time is `a`.  Returns 1 when an earlier match from another source had a
 * later approximated send time (the order would have differed). */
int hp_reorder_check(struct hp_reorder *r, int src, int64_t a);

#endif
