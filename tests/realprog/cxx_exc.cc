// cxx_exc.cc - C++ exceptions + deep recursion with known call counts.
// g++ -O1 -g cxx_exc.cc -o cxx_exc ; g++ -O1 -g -finstrument-functions cxx_exc.cc -o cxx_exc_fi
// Expected calls: fib 21891 (fib(20)), deep 20002 (2 x deep(10000)),
// thrower 11000 (1000 x depth 10 + the first), catcher 1000, rethrower 500, work 1.
#include <cstdio>
#include <stdexcept>

#define NI __attribute__((noinline, noipa))
static volatile long sink;

NI long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NI long deep(int d)
{
	if (d == 0)
		return 0;
	return 1 + deep(d - 1); // 10001 calls for deep(10000)
}

NI void thrower(int k)
{
	sink += k;
	if (k == 0)
		throw std::runtime_error("bottom");
	thrower(k - 1);
}

NI void rethrower(int i)
{
	try {
		thrower(10);
	} catch (const std::exception &) {
		sink += i;
		throw;
	}
}

NI int catcher(int i)
{
	try {
		if (i % 2)
			rethrower(i);
		else
			thrower(10);
	} catch (const std::runtime_error &e) {
		return 1;
	}
	return 0;
}

NI long work()
{
	long s = 0;
	for (long i = 0; i < 300000000; i++)
		s += i ^ (i >> 3);
	return s;
}

int main()
{
	long f = fib(20);
	long d = deep(10000) + deep(10000);
	int caught = 0;
	for (int i = 0; i < 1000; i++)
		caught += catcher(i);
	long w = work();
	std::printf("fib %ld deep %ld caught %d work %ld\n", f, d, caught, w);
	return 0;
}
