/* split: main->a 60%, main->b 30%, main->c->d 10% of the CPU time, by
 * construction (same spin() code, iterations 6:3:1, interleaved in rounds so
 * slow drifts of the machine hit every path alike).
 * Usage: split [millions of steps, default 1000] */
#include "work.h"

void a(unsigned long n);
void b(unsigned long n);
void c(unsigned long n);
void d(unsigned long n);

__attribute__((noinline)) void a(unsigned long n) { spin(n); }
__attribute__((noinline)) void b(unsigned long n) { spin(n); }
__attribute__((noinline)) void d(unsigned long n) { spin(n); }
__attribute__((noinline)) void c(unsigned long n) { d(n); }

int main(int argc, char **argv)
{
	unsigned long total = arg_m(argc, argv, 1, 1000);
	const int rounds = 20;
	unsigned long unit = total / 10 / rounds;
	for (int r = 0; r < rounds; r++) {
		a(6 * unit);
		b(3 * unit);
		c(1 * unit);
	}
	return 0;
}
