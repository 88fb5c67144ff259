/* deep: recursion DEPTH deep (default 2000, past the unwinder's cap of 512
 * frames), then spin.  The profile keeps the outermost frames (main and the
 * first calls of rec) and the leaf. */
#include "work.h"

void rec(int n, unsigned long steps);
__attribute__((noinline)) void rec(int n, unsigned long steps)
{
	if (n == 0)
		spin(steps);
	else
		rec(n - 1, steps);
	sink++; /* not a tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned long steps = arg_m(argc, argv, 2, 500);
	for (int i = 0; i < 10; i++)
		rec(depth, steps / 10);
	return 0;
}
