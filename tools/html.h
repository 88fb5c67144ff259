/* tools/html.h - the HTML report: one self-contained file.
 *
 * `hyprof report --html -o report.html DIR` and `hyprof compare --html A B
 * -o FILE` write one HTML file with no network access at all (no external
 * scripts, styles or fonts): the profile's data as JSON inside the page and
 * the viewer (tools/html/report.html, embedded into the binary at build
 * time).  It shows the header (program, mode, source, duration, samples),
 * an interactive icicle of the call tree (click to zoom, reset, search,
 * tooltip), the sortable top-functions table, the cost section as a picture
 * when the cost system filled m->cost, per-rank load imbalance and whatever
 * the MPI and critical-path views add (through their JSON views, see
 * tools/views.h), and for compare a differential icicle and a per-function
 * difference table.  docs/html.md describes it.
 *
 * The call tree is pruned: nodes whose inclusive value is below
 * HTML_PRUNE_DEFAULT (0.05%) of the total, or the percentage in the
 * environment variable HYPROF_HTML_PRUNE, are merged per parent into one
 * "[N smaller frames]" node, so the page stays small whatever the profile.
 *
 * Declared weak so the report command builds without this part: callers
 * check `if (html__report)` before calling.
 * Thread-safe: yes (reads the model only).
 */
#ifndef HYPROF_TOOLS_HTML_H
#define HYPROF_TOOLS_HTML_H

#include <stdio.h>

#include "tools/model.h"

#define HTML_PRUNE_DEFAULT 0.05 /* percent of the total */

/* Write the report of `m` to `out`.  Returns 0, or -errno (-EIO when a write
 * failed, -ENOMEM); prints nothing. */
__attribute__((weak)) int html__report(struct hp_model *m, FILE *out);
/* Write the comparison of `a` (baseline) and `b` to `out`.  Same returns. */
__attribute__((weak)) int html__compare(struct hp_model *a, struct hp_model *b, FILE *out);

#endif
