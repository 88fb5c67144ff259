// tests/tools/inline.cc - a C++ workload for symbolization: a member
// function (demangled name) whose hot loop is an always-inlined member, so
// the report must show run() and, below it, step() marked inlined.
#include <cstdlib>

namespace ns {
struct Solver {
	static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
	{
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1;
		return x;
	}
	__attribute__((noinline)) unsigned long run(unsigned long n)
	{
		unsigned long x = 1;
		for (unsigned long i = 0; i < n; i++)
			x = step(x);
		return x;
	}
};
} // namespace ns

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	ns::Solver s;
	sink = s.run(argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 400000);
	return 0;
}
