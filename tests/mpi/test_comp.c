/* tests/mpi/test_comp.c - the compensation rules against rational reconstruction.
 *
 * A tiny discrete-event simulator runs a message-passing scenario twice:
 * uninstrumented (the truth) and with measurement overhead added to the
 * processes' computations.  The measured run applies the online rules of
 * mpiwrap/comp.h exactly as the wrappers do (piggybacked delay, send time
 * when the clock is shared).  Each case then checks, per process, that the
 * measured end minus the final delay is the true end, and that every
 * approximated wait is the true wait.  The cases are the paper's scenarios
 * (Malony et al. 2007, section 3: one send, two sends, handshake, pipeline,
 * two receives, each with its overhead cases), the collectives, and the
 * message that arrived before its receive began, where the paper's rule
 * (no shared clock) is known to lose the receiver's delay.
 *
 * A failing case prints its name and line.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwrap/comp.h"
#include "mpiwrap/pb.h"

enum op_kind { END = 0, COMP, SEND, RECV, RECV_ANY, WAITALL2, COLL_ALL, COLL_BCAST, COLL_REDUCE };

struct op {
	enum op_kind k;
	int64_t a;  /* COMP: work; SEND/RECV: peer; COLL: root */
	int64_t o;  /* COMP: measurement overhead (measured run only); WAITALL2: 2nd peer */
};

#define NP 4
#define COLL_COST 3 /* a collective's own duration */
#define EXACT_CLOCK 1 /* the rule with send times (shared clock) */
#define EXACT_PAPER 2 /* the rule with the send taken at the end of the receive */
#define EXACT_BOTH 3
#define NOPS 16
#define NMSG 64

struct scenario {
	const char *name;
	int line;
	int np;
	struct op ops[NP][NOPS];
	int exact;       /* EXACT_CLOCK | EXACT_PAPER: rules expected to match the truth */
	int reorders;    /* wildcard receives whose order the approximation changes */
};

static int verbose;

struct msg {
	int from, to;
	int64_t s, x; /* send time and sender delay */
	int taken;
};

struct sim {
	int np;
	int64_t now[NP], x[NP];
	int pc[NP];
	struct msg m[NMSG];
	int nm;
	int64_t wait[NP][NOPS];   /* per op: measured/true wait */
	int64_t wapprox[NP][NOPS];/* per op: approximated wait */
	int clock;                /* 1: send times are known to the receiver */
	int measured;             /* 1: overheads are added */
	int reorders;
	struct hp_reorder ro[NP];
	/* collective rendezvous */
	int64_t coll_t[NP], coll_x[NP];
	int coll_in[NP];
};

static int run_op(struct sim *S, const struct scenario *sc, int p)
{
	const struct op *op = &sc->ops[p][S->pc[p]];
	int i = S->pc[p];
	switch (op->k) {
	case END:
		return 0;
	case COMP:
		S->now[p] += op->a;
		if (S->measured) {
			S->now[p] += op->o;
			S->x[p] += op->o;
		}
		break;
	case SEND:
		if (S->nm == NMSG)
			abort();
		S->m[S->nm++] = (struct msg){p, (int)op->a, S->now[p], S->x[p], 0};
		break;
	case RECV:
	case RECV_ANY: {
		/* the first untaken message to p (from op->a, or from anyone in
		 * measured-time order for the wildcard) */
		struct msg *best = NULL;
		for (int k = 0; k < S->nm; k++) {
			struct msg *m = &S->m[k];
			if (m->taken || m->to != p)
				continue;
			if (op->k == RECV && m->from != op->a)
				continue;
			if (!best || m->s < best->s)
				best = m;
		}
		if (!best)
			return 0; /* blocked */
		if (op->k == RECV_ANY) {
			/* a wildcard matches the earliest message: wait until no
			 * other process can still send one before best */
			for (int q = 0; q < S->np; q++)
				if (q != p && sc->ops[q][S->pc[q]].k != END && S->now[q] < best->s)
					return 0;
		}
		best->taken = 1;
		int64_t b = S->now[p];
		int64_t e = best->s > b ? best->s : b;
		struct hp_comp c;
		hp_comp_begin(&c, b, S->x[p]);
		hp_comp_msg(&c, S->clock ? best->s : e, best->x);
		S->wait[p][i] = e - b;
		S->now[p] = e;
		if (S->measured && verbose && !S->clock)
			fprintf(stderr, "    p%d op%d recv from p%d: xr=%" PRId64 " w=%" PRId64
				" xs=%" PRId64 " (case %d)\n", p, i, best->from, S->x[p], e - b, best->x,
				best->x >= S->x[p] + (e - b) ? 1 : 2);
		if (S->measured) {
			S->wapprox[p][i] = hp_comp_wait_approx(&c);
			S->x[p] = hp_comp_delay(&c);
			if (op->k == RECV_ANY &&
			    hp_reorder_check(&S->ro[p], best->from, (S->clock ? best->s : e) - best->x))
				S->reorders++;
		} else {
			S->wapprox[p][i] = e - b;
		}
		break;
	}
	case WAITALL2: {
		/* Irecv from a and from o, then one Waitall over both */
		struct msg *m[2] = {NULL, NULL};
		int64_t from[2] = {op->a, op->o};
		for (int j = 0; j < 2; j++)
			for (int k = 0; k < S->nm && !m[j]; k++)
				if (!S->m[k].taken && S->m[k].to == p && S->m[k].from == from[j])
					m[j] = &S->m[k];
		if (!m[0] || !m[1])
			return 0;
		m[0]->taken = m[1]->taken = 1;
		int64_t b = S->now[p], e = b;
		for (int j = 0; j < 2; j++)
			if (m[j]->s > e)
				e = m[j]->s;
		S->wait[p][i] = e - b;
		S->wapprox[p][i] = e - b;
		if (S->measured) {
			struct hp_comp c;
			hp_comp_begin(&c, b, S->x[p]);
			for (int j = 0; j < 2; j++)
				hp_comp_msg(&c, S->clock ? m[j]->s : e, m[j]->x);
			S->wapprox[p][i] = hp_comp_wait_approx(&c);
			S->x[p] = hp_comp_delay(&c);
		}
		S->now[p] = e;
		break;
	}
	case COLL_ALL:
	case COLL_BCAST:
	case COLL_REDUCE: {
		if (S->coll_in[p] == 2)
			return 0; /* out of the previous one: wait for the others */
		if (!S->coll_in[p]) {
			S->coll_in[p] = 1;
			S->coll_t[p] = S->now[p];
			S->coll_x[p] = S->x[p];
		}
		for (int q = 0; q < S->np; q++)
			if (!S->coll_in[q])
				return 0; /* everybody must have entered */
		int root = (int)op->a;
		int64_t b = S->now[p];
		int64_t last = INT64_MIN; /* the last entry: when everyone completes */
		for (int q = 0; q < S->np; q++)
			if (S->coll_t[q] > last)
				last = S->coll_t[q];
		/* a collective takes COLL_COST after its last needed arrival,
		 * in both runs (the algorithm's own time, not waiting) */
		int64_t e = b + COLL_COST;
		if (op->k == COLL_ALL || (op->k == COLL_REDUCE && p == root))
			e = last + COLL_COST;
		else if (op->k == COLL_BCAST && p != root && S->coll_t[root] > b)
			e = S->coll_t[root] + COLL_COST;
		S->wait[p][i] = e - b - COLL_COST;
		S->wapprox[p][i] = e - b - COLL_COST;
		if (S->measured) {
			/* what the wrappers' exchange after the call gives */
			struct hp_comp c;
			hp_comp_begin(&c, b, S->x[p]);
			if (op->k == COLL_ALL) {
				/* min over all of (w + x) and of w, w = the call's
				 * duration on each member (coll.c) */
				int64_t min_wx = INT64_MAX, min_w = INT64_MAX;
				for (int q = 0; q < S->np; q++) {
					int64_t wq = e - S->coll_t[q];
					if (wq + S->coll_x[q] < min_wx)
						min_wx = wq + S->coll_x[q];
					if (wq < min_w)
						min_w = wq;
				}
				hp_comp_join_max(&c, e - min_w, e - min_wx);
			} else if (op->k == COLL_BCAST && p != root) {
				hp_comp_msg(&c, S->clock ? S->coll_t[root] : e, S->coll_x[root]);
			} else if (op->k == COLL_REDUCE && p == root) {
				int64_t max_s = INT64_MIN, max_sx = INT64_MIN, min_x = INT64_MAX;
				for (int q = 0; q < S->np; q++) {
					if (q == root)
						continue;
					if (S->coll_t[q] > max_s)
						max_s = S->coll_t[q];
					if (S->coll_t[q] - S->coll_x[q] > max_sx)
						max_sx = S->coll_t[q] - S->coll_x[q];
					if (S->coll_x[q] < min_x)
						min_x = S->coll_x[q];
				}
				if (S->clock)
					hp_comp_join_max(&c, max_s, max_sx);
				else
					hp_comp_msg(&c, e, min_x);
			} /* else: nothing to wait for, the delay stays */
			S->wapprox[p][i] = hp_comp_wait_approx(&c);
			S->x[p] = hp_comp_delay(&c);
		}
		S->now[p] = e;
		/* the last one out resets the rendezvous */
		int left = 0;
		for (int q = 0; q < S->np; q++)
			left += S->coll_in[q] == 1;
		S->coll_in[p] = 2;
		if (left == 1)
			memset(S->coll_in, 0, sizeof(S->coll_in));
		break;
	}
	}
	S->pc[p]++;
	return 1;
}

static void simulate(struct sim *S, const struct scenario *sc, int measured, int clock)
{
	memset(S, 0, sizeof(*S));
	S->np = sc->np;
	S->measured = measured;
	S->clock = clock;
	for (int p = 0; p < NP; p++)
		hp_reorder_init(&S->ro[p]);
	/* discrete events: always advance the earliest process that can */
	for (int guard = 0; guard < 10000; guard++) {
		int order[NP], n = sc->np;
		for (int p = 0; p < n; p++)
			order[p] = p;
		for (int a = 1; a < n; a++)
			for (int b = a; b > 0 && S->now[order[b]] < S->now[order[b - 1]]; b--) {
				int tmp = order[b];
				order[b] = order[b - 1];
				order[b - 1] = tmp;
			}
		int progress = 0;
		for (int k = 0; k < n && !progress; k++)
			progress = run_op(S, sc, order[k]);
		if (!progress)
			break;
	}
	for (int p = 0; p < sc->np; p++)
		if (sc->ops[p][S->pc[p]].k != END) {
			fprintf(stderr, "%s:%d: %s: process %d blocked at op %d (scenario bug)\n",
				__FILE__, sc->line, sc->name, p, S->pc[p]);
			exit(1);
		}
}

/* Shorthands for the scenario tables. */
#define C(w, o) {COMP, (w), (o)}
#define S_(to) {SEND, (to), 0}
#define R(from) {RECV, (from), 0}
#define RA {RECV_ANY, -1, 0}
#define WA2(a, b) {WAITALL2, (a), (b)}
#define ALL {COLL_ALL, 0, 0}
#define BC(root) {COLL_BCAST, (root), 0}
#define RED(root) {COLL_REDUCE, (root), 0}

static const struct scenario cases[] = {
	/* --- two processes, one send (paper figure 2) --------------------- */
	{"one send, case 1: o1 >= o2 + w (no approximated wait)", __LINE__, 2,
	 {{C(100, 50), S_(1)}, {C(130, 5), R(0)}}, EXACT_BOTH, 0},
	{"one send, case 2: o1 < o2 + w, the wait grows", __LINE__, 2,
	 {{C(100, 5), S_(1)}, {C(20, 30), R(0)}}, EXACT_BOTH, 0},
	{"one send, case 2: o1 < o2 + w, the wait shrinks", __LINE__, 2,
	 {{C(100, 30), S_(1)}, {C(20, 5), R(0)}}, EXACT_BOTH, 0},
	/* --- two sends (figures 3, 4): first message case, second message -- */
	{"two sends, case 1: no wait, no wait", __LINE__, 2,
	 {{C(100, 50), S_(1), C(40, 60), S_(1)}, {C(130, 5), R(0), C(12, 5), R(0)}}, EXACT_BOTH, 0},
	{"two sends, case 2: wait, no wait", __LINE__, 2,
	 {{C(100, 5), S_(1), C(40, 60), S_(1)}, {C(20, 30), R(0), C(45, 5), R(0)}}, EXACT_BOTH, 0},
	{"two sends, case 3: no wait, wait", __LINE__, 2,
	 {{C(100, 50), S_(1), C(40, 2), S_(1)}, {C(130, 5), R(0), C(5, 5), R(0)}}, EXACT_BOTH, 0},
	{"two sends, case 4: wait, wait", __LINE__, 2,
	 {{C(100, 5), S_(1), C(40, 1), S_(1)}, {C(20, 30), R(0), C(5, 30), R(0)}}, EXACT_BOTH, 0},
	/* --- handshake (figures 5, 6): P1 -> P2, then P2 -> P1 ------------ */
	{"handshake, case 1: no wait, then P1 waits", __LINE__, 2,
	 {{C(100, 50), S_(1), C(5, 1), R(1)}, {C(130, 5), R(0), C(40, 10), S_(0)}}, EXACT_BOTH, 0},
	{"handshake, case 2: wait, then P1 waits", __LINE__, 2,
	 {{C(100, 5), S_(1), C(5, 1), R(1)}, {C(20, 30), R(0), C(40, 10), S_(0)}}, EXACT_BOTH, 0},
	{"handshake, case 3: no wait, then P1 would not wait", __LINE__, 2,
	 {{C(100, 50), S_(1), C(40, 1), R(1)}, {C(130, 5), R(0), C(5, 60), S_(0)}}, EXACT_BOTH, 0},
	{"handshake, case 4: wait, then P1 would not wait", __LINE__, 2,
	 {{C(100, 5), S_(1), C(40, 1), R(1)}, {C(20, 30), R(0), C(5, 60), S_(0)}}, EXACT_BOTH, 0},
	/* --- three processes: pipeline (figure 8) ------------------------- */
	{"pipeline, case 1: x2' >= o3 + w3", __LINE__, 3,
	 {{C(100, 50), S_(1)}, {C(130, 5), R(0), C(10, 2), S_(2)}, {C(150, 3), R(1)}}, EXACT_BOTH, 0},
	{"pipeline, case 2: x2' < o3 + w3", __LINE__, 3,
	 {{C(100, 5), S_(1)}, {C(20, 30), R(0), C(10, 2), S_(2)}, {C(20, 60), R(1)}}, EXACT_BOTH, 0},
	/* --- three processes: two receives (figures 9-12) ----------------- */
	{"two receives, case 1: no wait, no wait", __LINE__, 3,
	 {{C(100, 50), S_(1)}, {C(130, 5), R(0), C(10, 1), R(2)}, {C(100, 100), S_(1)}}, EXACT_BOTH, 0},
	{"two receives, case 2: no wait, wait", __LINE__, 3,
	 {{C(100, 50), S_(1)}, {C(130, 5), R(0), C(10, 1), R(2)}, {C(180, 5), S_(1)}}, EXACT_BOTH, 0},
	{"two receives, case 3: wait, no wait", __LINE__, 3,
	 {{C(100, 5), S_(1)}, {C(20, 30), R(0), C(10, 1), R(2)}, {C(100, 100), S_(1)}}, EXACT_BOTH, 0},
	{"two receives, case 4: the sends reorder in the approximation", __LINE__, 3,
	 {{C(50, 60), S_(1)}, {C(20, 5), R(0), C(2, 1), R(2)}, {C(40, 75), S_(1)}}, EXACT_BOTH, 0},
	/* the same with wildcard receives: in case 4 the order would change,
	 * which compensation can detect but not undo */
	{"two wildcard receives, case 1: order kept", __LINE__, 3,
	 {{C(100, 50), S_(1)}, {C(130, 5), RA, C(10, 1), RA}, {C(150, 100), S_(1)}}, EXACT_BOTH, 0},
	{"two wildcard receives, case 4: reordered", __LINE__, 3,
	 {{C(50, 60), S_(1)}, {C(20, 5), RA, C(2, 1), RA}, {C(40, 75), S_(1)}}, 0, 1},
	/* --- one Waitall completing two receives ---------------------------- */
	{"waitall over two receives, the last sender is the least delayed", __LINE__, 3,
	 {{C(100, 50), S_(1)}, {C(10, 5), WA2(0, 2)}, {C(160, 5), S_(1)}}, EXACT_BOTH, 0},
	{"waitall over two receives, the first sender is the least delayed", __LINE__, 3,
	 {{C(100, 5), S_(1)}, {C(10, 5), WA2(0, 2)}, {C(100, 60), S_(1)}}, EXACT_CLOCK, 0},
	/* --- a message that was there before the receive began ------------ */
	{"early message, receiver more delayed: the paper's rule loses its delay", __LINE__, 2,
	 {{C(10, 0), S_(1)}, {C(100, 40), R(0)}}, EXACT_CLOCK, 0},
	{"early message, sender more delayed", __LINE__, 2,
	 {{C(10, 80), S_(1)}, {C(100, 10), R(0)}}, EXACT_BOTH, 0},
	/* --- collectives ---------------------------------------------------- */
	{"allreduce/barrier, the slowest process is the most delayed", __LINE__, 3,
	 {{C(100, 50), ALL}, {C(60, 5), ALL}, {C(80, 10), ALL}}, EXACT_BOTH, 0},
	{"allreduce twice, overheads alternate", __LINE__, 3,
	 {{C(100, 50), ALL, C(10, 1), ALL}, {C(60, 5), ALL, C(50, 70), ALL},
	  {C(80, 10), ALL, C(20, 2), ALL}}, EXACT_BOTH, 0},
	{"bcast from the last root", __LINE__, 3,
	 {{C(100, 50), BC(0)}, {C(60, 5), BC(0)}, {C(10, 20), BC(0)}}, EXACT_BOTH, 0},
	{"bcast from an early root", __LINE__, 3,
	 {{C(10, 5), BC(0)}, {C(60, 50), BC(0)}, {C(10, 20), BC(0)}}, EXACT_CLOCK, 0},
	{"reduce to an early root: the minimum delay is not the last", __LINE__, 3,
	 {{C(10, 1), RED(0)}, {C(60, 50), RED(0)}, {C(80, 10), RED(0)}}, EXACT_CLOCK, 0},
	{"reduce to an early root: the last contributor has the minimum delay", __LINE__, 3,
	 {{C(10, 1), RED(0)}, {C(60, 50), RED(0)}, {C(100, 10), RED(0)}}, EXACT_BOTH, 0},
	{"reduce then bcast (gather-scatter master)", __LINE__, 4,
	 {{C(10, 1), RED(0), C(5, 0), BC(0)}, {C(60, 50), RED(0), BC(0)},
	  {C(80, 10), RED(0), BC(0)}, {C(70, 30), RED(0), BC(0)}}, EXACT_CLOCK, 0},
};

static int check(const struct scenario *sc, int clock)
{
	struct sim truth, meas;
	simulate(&truth, sc, 0, clock);
	simulate(&meas, sc, 1, clock);
	int fails = 0;
	const char *mode = clock ? "shared clock" : "paper rule";
	int expect_exact = (sc->exact & (clock ? EXACT_CLOCK : EXACT_PAPER)) != 0;
	int exact = 1;
	for (int p = 0; p < sc->np; p++) {
		int64_t comp_end = meas.now[p] - meas.x[p];
		if (comp_end != truth.now[p])
			exact = 0;
		if (expect_exact && comp_end != truth.now[p]) {
			fprintf(stderr,
				"%s:%d: %s [%s]: process %d: measured end %" PRId64 " - delay %" PRId64
				" = %" PRId64 ", true end %" PRId64 "\n",
				__FILE__, sc->line, sc->name, mode, p, meas.now[p], meas.x[p], comp_end,
				truth.now[p]);
			fails++;
		}
		for (int i = 0; i < NOPS && sc->ops[p][i].k != END; i++) {
			/* without a clock a collective's own duration counts as
			 * waiting (the paper's w is the call's duration) */
			int64_t slack = 0;
			if (!clock && sc->ops[p][i].k >= COLL_ALL)
				slack = COLL_COST;
			int64_t d = meas.wapprox[p][i] - truth.wait[p][i];
			int ok = d >= 0 && d <= slack;
			if (!ok)
				exact = 0;
			if (expect_exact && !ok) {
				fprintf(stderr,
					"%s:%d: %s [%s]: process %d op %d: approximated wait %" PRId64
					", true wait %" PRId64 "\n",
					__FILE__, sc->line, sc->name, mode, p, i, meas.wapprox[p][i],
					truth.wait[p][i]);
				fails++;
			}
		}
	}
	if (!expect_exact && exact) {
		fprintf(stderr, "%s:%d: %s [%s]: expected the paper rule to be inexact here\n", __FILE__,
			sc->line, sc->name, mode);
		fails++;
	}
	if (meas.reorders != sc->reorders) {
		fprintf(stderr, "%s:%d: %s [%s]: %d reordered wildcard receives, expected %d\n",
			__FILE__, sc->line, sc->name, mode, meas.reorders, sc->reorders);
		fails++;
	}
	return fails;
}

/* The paper's printed formulas (figure 7, general two-process scenario). */
static int check_paper_formulas(void)
{
	static const struct {
		int64_t xr, w, xs, x_expect, w_expect;
		int line;
	} t[] = {
		{5, 10, 50, 15, 0, __LINE__},   /* case 1: x1 >= x2 + w: no wait, x2' = x2 + w */
		{5, 10, 15, 15, 0, __LINE__},   /* boundary: equal */
		{30, 40, 10, 10, 60, __LINE__}, /* case 2: x1 < x2 + w: w' = w + x2 - x1 grows */
		{5, 40, 20, 20, 25, __LINE__},  /* case 2: wait shrinks */
		{0, 0, 0, 0, 0, __LINE__},
	};
	int fails = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int64_t wa;
		int64_t x = hp_comp_paper_rule(t[i].xr, t[i].w, t[i].xs, &wa);
		/* and the general form with the send taken at the end of the call */
		struct hp_comp c;
		hp_comp_begin(&c, 1000, t[i].xr);
		hp_comp_msg(&c, 1000 + t[i].w, t[i].xs);
		if (x != t[i].x_expect || wa != t[i].w_expect || hp_comp_delay(&c) != x ||
		    hp_comp_wait_approx(&c) != wa || hp_comp_wait_raw(&c) != t[i].w) {
			fprintf(stderr,
				"%s:%d: paper rule xr=%" PRId64 " w=%" PRId64 " xs=%" PRId64
				": x'=%" PRId64 " (general %" PRId64 ") w'=%" PRId64 " (general %" PRId64
				"), expected x'=%" PRId64 " w'=%" PRId64 "\n",
				__FILE__, t[i].line, t[i].xr, t[i].w, t[i].xs, x, hp_comp_delay(&c), wa,
				hp_comp_wait_approx(&c), t[i].x_expect, t[i].w_expect);
			fails++;
		}
	}
	return fails;
}

static int check_reorder_tracker(void)
{
	static const struct {
		int src;
		int64_t a;
		int expect;
		int line;
	} t[] = {
		{1, 100, 0, __LINE__}, {2, 120, 0, __LINE__}, /* in order */
		{1, 110, 1, __LINE__},                       /* 2's message (120) was later */
		{1, 130, 0, __LINE__}, {1, 125, 0, __LINE__}, /* same source: never */
		{3, 119, 1, __LINE__},                       /* before source 1's 130 */
		{2, 140, 0, __LINE__}, {3, 135, 1, __LINE__},
	};
	struct hp_reorder r;
	hp_reorder_init(&r);
	int fails = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = hp_reorder_check(&r, t[i].src, t[i].a);
		if (got != t[i].expect) {
			fprintf(stderr, "%s:%d: reorder src=%d a=%" PRId64 ": got %d, expected %d\n",
				__FILE__, t[i].line, t[i].src, t[i].a, got, t[i].expect);
			fails++;
		}
	}
	return fails;
}

/* The compact piggyback's 16-bit delay (mpiwrap/pb.h): exact below 1024 ns,
 * relative error at most 1/1024 above, monotonic, every int64 delay coded. */
static int check_code16(void)
{
	int fails = 0;
	for (int64_t v = -5; v < 1024; v++)
		if (hp_pb_uncode16(hp_pb_code16(v)) != (v > 0 ? v : 0)) {
			fprintf(stderr, "code16: %" PRId64 " not exact\n", v);
			fails++;
			break;
		}
	uint64_t x = 88172645463325252ull;
	int64_t prev = 0;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int64_t v = (int64_t)(x >> (1 + x % 62)); /* every magnitude */
		int64_t d = hp_pb_uncode16(hp_pb_code16(v));
		double rel = v > 0 ? ((double)d - (double)v) / (double)v : 0;
		if (v > 0 && (rel > 1.0 / 1024 || rel < -1.0 / 1024)) {
			fprintf(stderr, "code16: %" PRId64 " -> %" PRId64 " (%.2e)\n", v, d, rel);
			fails++;
			break;
		}
	}
	for (int64_t v = 1; v > 0 && v < INT64_MAX / 3; v = v * 3 + 1) {
		int64_t d = hp_pb_uncode16(hp_pb_code16(v));
		if (d < prev) {
			fprintf(stderr, "code16: not monotonic at %" PRId64 "\n", v);
			fails++;
			break;
		}
		prev = d;
	}
	if (hp_pb_uncode16(hp_pb_code16(INT64_MAX)) < INT64_MAX / 1024 * 1023) {
		fprintf(stderr, "code16: INT64_MAX\n");
		fails++;
	}
	return fails;
}

int main(void)
{
	int fails = check_paper_formulas() + check_reorder_tracker() + check_code16();
	size_t n = sizeof(cases) / sizeof(cases[0]);
	verbose = getenv("HP_TEST_VERBOSE") != NULL;
	for (size_t i = 0; i < n; i++) {
		if (verbose)
			fprintf(stderr, "%s\n", cases[i].name);
		fails += check(&cases[i], 1) + check(&cases[i], 0);
	}
	printf("%zu scenarios x 2 rules, paper formulas, reorder tracker, compact delay code: %d failure(s)\n", n, fails);
	return fails ? 1 : 0;
}
