/* tools/report.h - helpers of the text and JSON report shared by the
 * commands that print trees (report, compare). */
#ifndef HYPROF_TOOLS_REPORT_H
#define HYPROF_TOOLS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tools/model.h"

/* Children of n sorted by total, descending (malloc'ed; *count set). */
struct hp_tnode **report_sorted_children(const struct hp_tnode *n, uint32_t *count);
/* " [folded] [inlined] ..." markers of a node into buf ("" when none). */
void report_flags(const struct hp_tnode *n, char *buf, size_t len);

#endif
