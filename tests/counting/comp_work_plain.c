/* tests/counting/comp_work_plain.c - the uninstrumented copy of
 * comp_work.c for comp_twin (every name suffixed _plain). */
#define COMP_SUFFIX _plain
#include "comp_work.c"
