/* bench/core/bench_cct.c - cost of a CCT lookup (the probe path runs one per
 * function entry) with the sibling reordering of core/cct.c, as a ratio to
 * the same code without reordering, for children visited round-robin (a
 * loop calling its callees in turn), skewed (80% of calls to 2 children)
 * and uniformly at random; each lookup counts a call, as the probe does.
 * Also: merge, write and read throughput.
 * Prints ratios measured in this run; timings on a shared machine are
 * noisy, so each figure is the best of 5 repetitions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/cct.h"
#include "core/format.h"

int noswap_cct__init(struct cct *t, uint32_t cap);
void noswap_cct__reset(struct cct *t);
uint32_t noswap_cct__child(struct cct *t, uint32_t parent, uint64_t key);
void noswap_cct__destroy(struct cct *t);

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#define N 4000000L
static uint64_t keys[N];

static void make_keys(int pattern, int k)
{
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (pattern == 0)
			keys[i] = 100 + (uint64_t)(i % k);
		else if (pattern == 1)
			keys[i] = 100 + ((x % 10 < 8) ? (x >> 8) % 2 : (x >> 8) % (uint64_t)k);
		else
			keys[i] = 100 + (x >> 8) % (uint64_t)k;
	}
}

typedef uint32_t (*child_fn)(struct cct *, uint32_t, uint64_t);

static double run(child_fn child, void (*reset)(struct cct *), struct cct *t, int k)
{
	double best = 1e30;
	for (int rep = 0; rep < 5; rep++) {
		reset(t);
		uint32_t parent = child(t, 0, 1);
		for (int j = 0; j < k; j++)
			child(t, parent, 100 + (uint64_t)j);
		uint64_t sum = 0, t0 = now_ns();
		for (long i = 0; i < N; i++) {
			uint32_t c = child(t, parent, keys[i]);
			t->nodes[c].calls++; /* as the probe does */
			sum += c;
		}
		double ns = (double)(now_ns() - t0) / N;
		if (sum == 42)
			puts("");
		if (ns < best)
			best = ns;
	}
	return best;
}

int main(void)
{
	struct cct a, b;
	if (cct__init(&a, 1 << 16) || noswap_cct__init(&b, 1 << 16))
		return 1;
	static const char *const pname[] = {"round-robin", "skewed 80/20", "uniform"};
	static const int ks[] = {2, 4, 8, 32, 128};
	printf("lookup cost, reordering / none (lower is better; ns per lookup in brackets)\n");
	printf("%-14s", "children");
	for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++)
		printf("%18d", ks[j]);
	printf("\n");
	for (int p = 0; p < 3; p++) {
		printf("%-14s", pname[p]);
		for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
			make_keys(p, ks[j]);
			double x = run(cct__child, cct__reset, &a, ks[j]);
			double y = run(noswap_cct__child, noswap_cct__reset, &b, ks[j]);
			printf("   %5.2f (%4.0f/%4.0f)", x / y, x, y);
		}
		printf("\n");
	}
	cct__destroy(&a);
	noswap_cct__destroy(&b);

	/* merge, write, read: a 500k-node tree */
	struct cct big, dst;
	cct__init(&big, 600000);
	cct__init(&dst, 1200000);
	uint64_t x = 1;
	while (big.n < 500000) {
		uint64_t path[16];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int d = 2 + (int)(x % 14);
		for (int i = 0; i < d; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			path[i] = 0x400000 + (x % 40) * 16;
		}
		big.nodes[cct__insert_path(&big, path, d)].samples++;
	}
	uint64_t t0 = now_ns();
	cct__merge(&dst, &big);
	double merge_s = (double)(now_ns() - t0) / 1e9;
	t0 = now_ns();
	cct__merge(&dst, &big); /* every node found */
	double merge2_s = (double)(now_ns() - t0) / 1e9;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/bench_cct.%d.hyp", (int)getpid());
	static struct hp_writer w;
	t0 = now_ns();
	hp_writer_open(&w, path, 0);
	hp_writer_begin(&w, HP_SEC_THREAD);
	hp_writer_u32(&w, 0);
	hp_writer_u32(&w, big.n);
	hp_writer_u32(&w, 0);
	hp_writer_bytes(&w, big.nodes, (size_t)big.n * sizeof(struct cct_node));
	int rc = hp_writer_finish(&w);
	double write_s = (double)(now_ns() - t0) / 1e9;
	struct hp_prof *p = NULL;
	char err[256];
	t0 = now_ns();
	rc |= hp_prof_read(path, &p, err, sizeof(err));
	double read_s = (double)(now_ns() - t0) / 1e9;
	double mb = (double)big.n * sizeof(struct cct_node) / 1e6;
	printf("500k nodes (%.0f MB): merge into empty %.0f Mnodes/s, into a copy %.0f Mnodes/s; "
	       "write %.0f MB/s (incl. fsync), read+check %.0f MB/s%s\n",
	       mb, big.n / merge_s / 1e6, big.n / merge2_s / 1e6, mb / write_s, mb / read_s,
	       rc ? " (I/O FAILED)" : "");
	hp_prof_free(p);
	unlink(path);
	return rc ? 1 : 0;
}
