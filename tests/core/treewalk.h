/* tests/core/treewalk.h - is a node array a tree the tools can walk?
 * Every index in range, each node reached once from the root through
 * first_child/next_sibling, each child's parent is the list owner, parent
 * before child.  Returns NULL or what is wrong. */
#ifndef HYPROF_TESTS_CORE_TREEWALK_H
#define HYPROF_TESTS_CORE_TREEWALK_H

#include <stdlib.h>

#include "core/cct.h"

static const char *tree_walk_check(const struct cct_node *t, uint32_t n)
{
	if (n == 0)
		return NULL;
	if (t[0].parent != CCT_NONE || t[0].next_sibling != CCT_NONE)
		return "root has a parent or a sibling";
	unsigned char *seen = calloc(n, 1);
	uint32_t *stack = malloc(n * sizeof(*stack));
	const char *bad = NULL;
	uint32_t sp = 0, count = 1;
	seen[0] = 1;
	stack[sp++] = 0;
	while (!bad && sp) {
		uint32_t u = stack[--sp];
		for (uint32_t c = t[u].first_child; c != CCT_NONE; c = t[c].next_sibling) {
			if (c >= n) {
				bad = "link out of range";
				break;
			}
			if (seen[c]) {
				bad = "node reached twice (cycle or shared list)";
				break;
			}
			if (t[c].parent != u || c <= u) {
				bad = "child's parent is not the list owner";
				break;
			}
			seen[c] = 1;
			count++;
			stack[sp++] = c;
		}
	}
	for (uint32_t i = 0; !bad && i < n; i++)
		if ((t[i].flags & CCT_F_REDIRECT) && t[i].target >= n)
			bad = "redirect target out of range";
	if (!bad && count != n)
		bad = "some node is not reachable from the root";
	free(seen);
	free(stack);
	return bad;
}

#endif
