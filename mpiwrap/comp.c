/* mpiwrap/comp.c - the parts of the compensation rules that are not inline.
 *
 * Signal-safe and thread-safe: pure functions on caller-owned structs.
 */
#include "mpiwrap/comp.h"

int hp_reorder_check(struct hp_reorder *r, int src, int64_t a)
{
	/* the latest approximated send from a source other than src */
	int64_t ref = INT64_MIN;
	if (r->src1 >= 0 && r->src1 != src)
		ref = r->a1;
	else if (r->src2 >= 0)
		ref = r->a2;
	int reordered = a < ref;

	if (src == r->src1) {
		if (a > r->a1)
			r->a1 = a;
	} else if (a > r->a1) {
		r->a2 = r->a1;
		r->src2 = r->src1;
		r->a1 = a;
		r->src1 = src;
	} else if (src == r->src2) {
		if (a > r->a2)
			r->a2 = a;
	} else if (a > r->a2) {
		r->a2 = a;
		r->src2 = src;
	}
	return reordered;
}
