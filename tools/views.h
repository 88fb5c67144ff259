/* tools/views.h - report views contributed by other parts of hyprof.
 *
 * `hyprof report` prints the call tree and the flat profile itself
 * (cmd_report.c) and then each view below that is linked in.  A view is
 * declared weak so the report builds before the part that owns it exists;
 * each is implemented in tools/view_<name>.c by the part that owns the data.
 * Text views write to `out`; JSON views add members to the open top-level
 * object through the JSON writer (tools/json.h) and must start each member
 * with json__key().
 */
#ifndef HYPROF_TOOLS_VIEWS_H
#define HYPROF_TOOLS_VIEWS_H

#include <stdio.h>

#include "tools/model.h"

struct json;

#define HP_WEAK __attribute__((weak))

/* Compensation summary (measured mode): header lines. counting/calib. */
HP_WEAK void view_comp_text(struct hp_model *m, FILE *out);
HP_WEAK void view_comp_json(struct hp_model *m, struct json *j);
/* The probes' shadow-stack events, every mode (COUNTING sections summed):
 * v[0] exits that matched no entry (longjmp, an unseen entry), v[1] calls
 * past the stack's depth, v[2] calls a signal handler made while a probe
 * was inserting a node (not recorded), v[3] calls that found the probe
 * tree full (counted on their caller).  counting/. */
HP_WEAK void view_probe_stack(const struct hp_model *m, uint64_t v[4]);
/* Cost section: observed range, predicted, by function.  tools/view_cost.c */
HP_WEAK void view_cost_text(struct hp_model *m, FILE *out);
HP_WEAK void view_cost_json(struct hp_model *m, struct json *j);
/* One-line summary `overhead 3.1%..4.4% of 12.8 s (predicted 2.9%)`. */
HP_WEAK int view_cost_summary(struct hp_model *m, char *buf, size_t len);
/* MPI: per-rank compensation, MPI time by call site, matrix, imbalance. */
HP_WEAK void view_mpi_text(struct hp_model *m, FILE *out);
HP_WEAK void view_mpi_json(struct hp_model *m, struct json *j);
/* Critical path (--view critical-path). */
HP_WEAK void view_critpath_text(struct hp_model *m, FILE *out);
HP_WEAK void view_critpath_json(struct hp_model *m, struct json *j);
/* Critical-path length so far recorded in one process's file (HP_SEC_CRITPATH,
 * live snapshot or final profile), seconds: 1 and *len set when the file has
 * it, 0 otherwise.  `hyprof watch` shows it per process (tools/cmd_watch.c). */
struct hp_prof;
HP_WEAK int view_critpath_length(const struct hp_prof *p, double *len);

#endif
