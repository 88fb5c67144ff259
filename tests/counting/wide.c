/* tests/counting/wide.c - more call paths than a probe tree of 1,024 nodes
 * holds: 32 functions, each called from main and from each of them, two
 * levels down: 32 + 32^2 + 32^3 = 33,824 calls on as many paths, plus main.
 * Truth: 33,825 calls in all (counted on their callers once the tree is
 * full), and the report says how many found it full. */
#include <stdio.h>

static volatile long sink;
typedef void (*fn)(int);
static fn tab[32];

#define G(i)                                                    \
	__attribute__((noinline)) static void g##i(int d)       \
	{                                                       \
		sink += i;                                      \
		if (d > 0)                                      \
			for (int c = 0; c < 32; c++)            \
				tab[c](d - 1);                  \
	}
#define G8(b) G(b##0) G(b##1) G(b##2) G(b##3) G(b##4) G(b##5) G(b##6) G(b##7)
G8(1)
G8(2)
G8(3)
G8(4)
#define T(i) g##i,
#define T8(b) T(b##0) T(b##1) T(b##2) T(b##3) T(b##4) T(b##5) T(b##6) T(b##7)
static fn tab[32] = {T8(1) T8(2) T8(3) T8(4)};

int main(void)
{
	for (int i = 0; i < 32; i++)
		tab[i](2);
	printf("sink %ld\n", sink);
	return 0;
}
