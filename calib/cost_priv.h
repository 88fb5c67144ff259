/* calib/cost_priv.h - what calib/cost_rt.c and calib/budget_rt.c share: the
 * cost controller's table of probe points.  Not an interface for other
 * parts of hyprof (they use calib/cost.h and calib/budget.h).
 *
 * The controller thread owns the table: it alone adds points and writes
 * their fields.  The profile writer (signal context, possibly while the
 * controller runs) only reads it; every field it reads is a counter or a
 * value that a torn read cannot make dangerous (indices are bounded by the
 * published count).
 */
#ifndef HYPROF_CALIB_COST_PRIV_H
#define HYPROF_CALIB_COST_PRIV_H

#include <stdint.h>

#include "calib/budget.h"
#include "calib/cost.h"

#define HP_COST_MAXPTS 32768u      /* probe points tracked (functions, regions) */
#define HP_COST_HASH (2 * HP_COST_MAXPTS)

enum { HP_PT_REGION = 1 };

struct hp_cost_points {
	uint32_t n;                 /* points in use (published with release) */
	uint32_t full;              /* points not tracked: table full */
	struct hp_pred_point *pred; /* [MAXPTS] predictor state */
	struct hp_bpol_pt *pol;     /* [MAXPTS] budget policy state */
	uint64_t *calls;            /* [MAXPTS] calls counted, all threads, last gather */
	uint64_t *meas;             /* [MAXPTS] samples in probe code under the point */
	double *on_s;               /* [MAXPTS] seconds enabled in the last interval */
	double *on_total, *off_total; /* [MAXPTS] seconds enabled / regulated */
	double *enabled;            /* [MAXPTS] expected enabled fraction, next interval */
	double *rate_off;           /* [MAXPTS] root activations per second while regulated */
	uint64_t *skips_prev;       /* [MAXPTS] skipped roots at the last interval */
	int16_t *slot;              /* [MAXPTS] budget slot, -1 if none */
	uint8_t *flags;             /* [MAXPTS] HP_PT_* */
	uint32_t *hash;             /* [HASH] point index + 1, 0 = empty */
};

extern struct hp_cost_points hp_cpts;

/* One controller interval as the budget sees it. */
struct hp_cost_interval {
	double dt;          /* seconds since the previous interval */
	double now_s;       /* seconds since start */
	double work;        /* the program's own CPU seconds per second */
	double floor;       /* cost per second regulation cannot remove */
	double pair_s;      /* calibrated cost of a probe pair in this mode */
	double cpu_rate;    /* the process's CPU seconds per second */
	double dcpu;        /* the process's CPU seconds in this interval */
	double kappa;       /* observed / ideal probe cost (>= 1), from sampling */
	double cum_cost;    /* measurement cost since start (start-up included) */
	double cum_work;    /* the program's own CPU seconds since start */
	uint32_t new_from;  /* points from this index on were first seen now */
};

/* budget_rt.c: one interval of the regulator (controller thread only). */
void hp_budget_tick(const struct hp_cost_interval *iv);
/* Skipped root activations per budget slot, summed over threads, into
 * out[HP_BUDGET_SLOTS].  Signal-safe. */
void hp_budget_slot_totals(uint64_t *out);

#endif
