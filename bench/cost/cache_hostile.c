/* bench/cost/cache_hostile.c - cache-hostile: a random pointer chase over a
 * working set near the last-level cache's size, one small function call per
 * few hops, so the probes run between cache misses and their own lines
 * compete with the program's.
 *
 * Usage: cache_hostile [SCALE [MB]]   (default 5, and the LLC size from
 * sysconf capped to 64 MiB: about 2 s on the reference VM)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static uint32_t *next_idx;
static size_t n;

__attribute__((noinline)) static uint32_t hop(uint32_t i, int k)
{
	for (int h = 0; h < k; h++)
		i = next_idx[i];
	return i;
}

__attribute__((noinline)) static uint64_t walk(uint32_t start, long hops)
{
	uint64_t sum = 0;
	uint32_t i = start;
	for (long h = 0; h < hops; h += 4) {
		i = hop(i, 4);
		sum += i;
	}
	return sum;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 5;
	long mb = argc > 2 ? atol(argv[2]) : 0;
	if (mb <= 0) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
		if (llc <= 0)
			llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
		mb = llc > 0 ? llc >> 20 : 32;
		if (mb > 64)
			mb = 64;
		if (mb < 4)
			mb = 4;
	}
	n = ((size_t)mb << 20) / sizeof(uint32_t);
	next_idx = malloc(n * sizeof(uint32_t));
	if (!next_idx)
		return 1;
	/* one random cycle through every slot (Sattolo's shuffle) */
	for (size_t i = 0; i < n; i++)
		next_idx[i] = (uint32_t)i;
	uint64_t r = 88172645463325252ull;
	for (size_t i = n - 1; i > 0; i--) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		size_t j = r % i;
		uint32_t t = next_idx[i];
		next_idx[i] = next_idx[j];
		next_idx[j] = t;
	}
	uint64_t s = 0;
	for (int k = 0; k < scale; k++)
		s += walk((uint32_t)k, 2000000);
	printf("cache_hostile %d x %ld MiB: %llu\n", scale, mb, (unsigned long long)s);
	return 0;
}
