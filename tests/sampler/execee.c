/* execee: the program execer turns into. */
#include "work.h"

__attribute__((noinline)) void exec_target_work(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	exec_target_work(arg_m(argc, argv, 1, 200));
	return 0;
}
