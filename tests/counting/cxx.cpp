// tests/counting/cxx.cpp - C++ with probes and regions: methods, templates,
// exceptions (GCC calls the exit probes while unwinding).
//   main/Acc::add 10,  main/sum<int> 3, main/thrower 4 (caught), main/thrower/inner 4
//   main/cxxregion 1 (region from C++)
#include <cstdio>
#include <stdexcept>

#include "hyprof.h"

struct Acc {
	long v = 0;
	__attribute__((noinline)) void add(long x) { v += x; }
};

template <typename T> __attribute__((noinline)) T sum(T a, T b) { return a + b; }

__attribute__((noinline)) void inner(int i)
{
	if (i >= 0)
		throw std::runtime_error("x");
}
__attribute__((noinline)) void thrower(int i) { inner(i); }

int main()
{
	Acc a;
	for (int i = 0; i < 10; i++)
		a.add(i);
	int s = sum(1, 2) + sum(3, 4) + sum(5, 6);
	int caught = 0;
	for (int i = 0; i < 4; i++) {
		try {
			thrower(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	HYPROF_REGION_BEGIN("cxxregion");
	s += caught;
	HYPROF_REGION_END("cxxregion");
	std::printf("%ld %d\n", a.v, s);
	return 0;
}
