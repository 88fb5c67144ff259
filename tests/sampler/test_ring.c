/* tests/sampler/test_ring.c - the perf ring decoder of `--unwind kernel`
 * (sampler/perf_ring.c, pure part) on synthetic ring contents: records in
 * place, records that wrap around the end of the data area (header, fixed
 * fields or callchain split), 64-bit positions far past the ring size, lost
 * and throttle records, records of other types, corrupt sizes; then the user
 * part of kernel callchains.  Tables; a failure prints the case. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "sampler/perf_ring.h"

/* Table rows leave trailing fields zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U PERF_CONTEXT_USER
#define K PERF_CONTEXT_KERNEL
#define S PERF_RECORD_SAMPLE
#define ST_CHAIN (PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static int fails;

/* A record as the kernel writes it: type, then the u64 words after the
 * header (the header's size is 8 + 8 * nwords unless size_override). */
struct rec {
	uint32_t type;
	int nwords;
	uint64_t w[12];
	uint16_t size_override;
};

struct want {
	int kind;
	uint64_t ip, period, lost;
	int nr;
	uint64_t chain[8];
};

struct ring_case {
	int line;
	const char *what;
	uint64_t size;      /* data area bytes, power of two */
	uint64_t start;     /* position of the first record (any 64-bit value) */
	uint64_t sample_type;
	size_t scratch;     /* bytes */
	int nrec;
	struct rec recs[4];
	int nwant;          /* decoded in order, then HP_RING_END */
	struct want want[5];
	int head_cut;       /* head this many bytes before the end of the records */
};

static const struct ring_case ring_cases[] = {
	{__LINE__, "one sample, in place", 256, 0, ST_CHAIN, 4096, 1,
	 {{S, 6, {0x401000, 1000000, 3, U, 0x401000, 0x402000}}}, 1,
	 {{HP_RING_SAMPLE, 0x401000, 1000000, 0, 3, {U, 0x401000, 0x402000}}}, 0},
	{__LINE__, "empty ring", 256, 64, ST_CHAIN, 4096, 0, {{0}}, 0, {{0}}, 0},
	{__LINE__, "period only (the libunwind path's records)", 256, 0, PERF_SAMPLE_PERIOD, 4096, 2,
	 {{S, 1, {5000}}, {S, 1, {7000}}}, 2,
	 {{HP_RING_SAMPLE, 0, 5000, 0, 0, {0}}, {HP_RING_SAMPLE, 0, 7000, 0, 0, {0}}}, 0},
	{__LINE__, "chain wraps: copied out", 256, 256 - 48, ST_CHAIN, 4096, 1,
	 {{S, 8, {0x401111, 2000, 5, U, 0x401111, 0x402222, 0x403333, 0x404444}}}, 1,
	 {{HP_RING_SAMPLE, 0x401111, 2000, 0, 5, {U, 0x401111, 0x402222, 0x403333, 0x404444}}}, 0},
	{__LINE__, "header last in the ring, body wraps", 256, 256 - 8, ST_CHAIN, 4096, 1,
	 {{S, 5, {0x405555, 3000, 2, U, 0x405555}}}, 1,
	 {{HP_RING_SAMPLE, 0x405555, 3000, 0, 2, {U, 0x405555}}}, 0},
	{__LINE__, "positions past 2^32, wrap inside ip/period", (uint64_t)1 << 12,
	 ((uint64_t)7 << 40) + 4096 - 16, ST_CHAIN, 4096, 2,
	 {{S, 5, {0x406666, 4000, 2, U, 0x406666}}, {S, 6, {0x407777, 4001, 3, U, 0x407777, 0x408888}}}, 2,
	 {{HP_RING_SAMPLE, 0x406666, 4000, 0, 2, {U, 0x406666}},
	  {HP_RING_SAMPLE, 0x407777, 4001, 0, 3, {U, 0x407777, 0x408888}}}, 0},
	{__LINE__, "lost, throttle, unthrottle, other types between samples", 512, 480, ST_CHAIN, 4096, 4,
	 {{PERF_RECORD_LOST, 2, {42 /* id */, 17}}, {PERF_RECORD_THROTTLE, 3, {1, 2, 3}},
	  {PERF_RECORD_MMAP, 4, {1, 2, 3, 4}}, {PERF_RECORD_UNTHROTTLE, 3, {1, 2, 3}}}, 4,
	 {{HP_RING_LOST, 0, 0, 17, 0, {0}}, {HP_RING_THROTTLE, 0, 0, 0, 0, {0}},
	  {HP_RING_OTHER, 0, 0, 0, 0, {0}}, {HP_RING_UNTHROTTLE, 0, 0, 0, 0, {0}}}, 0},
	{__LINE__, "wrapped chain longer than scratch: innermost entries kept", 256, 256 - 48, ST_CHAIN, 24, 1,
	 {{S, 8, {0x401111, 2000, 5, U, 0x401111, 0x402222, 0x403333, 0x404444}}}, 1,
	 {{HP_RING_SAMPLE, 0x401111, 2000, 0, 3, {U, 0x401111, 0x402222}}}, 0},
	{__LINE__, "size 0: corrupt, resynchronise at head", 256, 0, ST_CHAIN, 4096, 2,
	 {{S, 5, {1, 2, 2, U, 1}, 1 /* < header */}, {S, 5, {1, 2, 2, U, 1}}}, 1,
	 {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 0},
	{__LINE__, "size not a multiple of 8: corrupt", 256, 0, ST_CHAIN, 4096, 1,
	 {{S, 5, {1, 2, 2, U, 1}, 44}}, 1, {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 0},
	{__LINE__, "record larger than what head published: corrupt", 256, 0, ST_CHAIN, 4096, 1,
	 {{S, 6, {1, 2, 3, U, 1, 2}}}, 1, {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 8},
	{__LINE__, "nr larger than the record: corrupt", 256, 0, ST_CHAIN, 4096, 1,
	 {{S, 5, {1, 2, 9, U, 1}}}, 1, {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 0},
	{__LINE__, "sample_type bit the decoder does not know: corrupt", 256, 0, ST_CHAIN | PERF_SAMPLE_TIME,
	 4096, 1, {{S, 5, {1, 2, 2, U, 1}}}, 1, {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 0},
	{__LINE__, "lost record too short: corrupt", 256, 0, ST_CHAIN, 4096, 1,
	 {{PERF_RECORD_LOST, 1, {42}}}, 1, {{HP_RING_CORRUPT, 0, 0, 0, 0, {0}}}, 0},
};

static void put(unsigned char *ring, uint64_t size, uint64_t pos, const void *src, size_t len)
{
	const unsigned char *s = src;
	for (size_t i = 0; i < len; i++)
		ring[(pos + i) & (size - 1)] = s[i];
}

static void ring_case_run(const struct ring_case *c)
{
	static unsigned char ring[1 << 12];
	static uint64_t scratch[512];
	memset(ring, 0xa5, sizeof(ring));
	uint64_t pos = c->start;
	for (int i = 0; i < c->nrec; i++) {
		const struct rec *r = &c->recs[i];
		struct perf_event_header h = {r->type, 0, (uint16_t)(8 + 8 * r->nwords)};
		if (r->size_override)
			h.size = r->size_override == 1 ? 0 : r->size_override;
		put(ring, c->size, pos, &h, sizeof(h));
		put(ring, c->size, pos + 8, r->w, 8 * (size_t)r->nwords);
		pos += 8 + 8 * (uint64_t)r->nwords;
	}
	uint64_t head = pos - (uint64_t)c->head_cut, tail = c->start;
	for (int i = 0; i <= c->nwant; i++) {
		struct hp_ring_rec got;
		const struct want *w = i < c->nwant ? &c->want[i] : NULL;
		int want_kind = w ? w->kind : HP_RING_END;
		uint64_t before = tail;
		int k = hp_ring_next(ring, c->size - 1, &tail, head, c->sample_type, scratch, c->scratch, &got);
		int bad = k != want_kind || got.kind != k;
		if (!bad && w && k == HP_RING_SAMPLE) {
			bad = got.ip != w->ip || got.period != w->period || got.nr != (uint64_t)w->nr;
			for (int j = 0; !bad && j < w->nr; j++)
				bad = got.chain[j] != w->chain[j];
		}
		if (!bad && w && k == HP_RING_LOST)
			bad = got.lost != w->lost;
		if (!bad && k == HP_RING_CORRUPT)
			bad = tail != head;
		if (!bad && k == HP_RING_END)
			bad = tail != before || tail != head;
		if (!bad && k != HP_RING_END && k != HP_RING_CORRUPT)
			bad = tail != before + got.size;
		if (bad) {
			printf("FAIL line %d (%s), record %d: kind %d (want %d), ip %#llx period %llu nr %llu lost %llu, "
			       "tail %+lld from start\n", c->line, c->what, i, k, want_kind, (unsigned long long)got.ip,
			       (unsigned long long)got.period, (unsigned long long)got.nr,
			       (unsigned long long)got.lost, (long long)(tail - c->start));
			fails++;
			return;
		}
		if (k == HP_RING_CORRUPT)
			break;
	}
	printf("ok line %d: %s\n", c->line, c->what);
}

struct chain_case {
	int line;
	const char *what;
	int nr;
	uint64_t chain[10];
	uint64_t ip;
	uint32_t max_stack;
	int max;
	int want_n, want_complete;
	uint64_t want[8];
};

static const struct chain_case chain_cases[] = {
	{__LINE__, "user marker, then the frames", 4, {U, 0x10, 0x20, 0x30}, 0x10, 127, 64, 3, 1, {0x10, 0x20, 0x30}},
	{__LINE__, "kernel part skipped", 6, {K, 0xffffffff81000000ull, 0xffffffff81000100ull, U, 0x10, 0x20}, 0x10,
	 127, 64, 2, 1, {0x10, 0x20}},
	{__LINE__, "no marker: all user", 2, {0x10, 0x20}, 0x10, 127, 64, 2, 1, {0x10, 0x20}},
	{__LINE__, "ends at a 0 entry", 5, {U, 0x10, 0x20, 0, 0x99}, 0x10, 127, 64, 2, 1, {0x10, 0x20}},
	{__LINE__, "ends at another context", 5, {U, 0x10, 0x20, PERF_CONTEXT_GUEST, 0x99}, 0x10, 127, 64, 2, 1,
	 {0x10, 0x20}},
	{__LINE__, "kernel only, user ip: the ip alone", 2, {K, 0xffffffff81000000ull}, 0x10, 127, 64, 1, 1, {0x10}},
	{__LINE__, "kernel only, kernel ip: nothing", 2, {K, 0xffffffff81000000ull}, 0xffffffff81000000ull, 127, 64,
	 0, 1, {0}},
	{__LINE__, "empty chain, user ip", 0, {0}, 0x10, 127, 64, 1, 1, {0x10}},
	{__LINE__, "max_stack reached: outer frames unknown", 4, {U, 0x10, 0x20, 0x30}, 0x10, 3, 64, 3, 0,
	 {0x10, 0x20, 0x30}},
	{__LINE__, "below max_stack: complete", 4, {U, 0x10, 0x20, 0x30}, 0x10, 4, 64, 3, 1, {0x10, 0x20, 0x30}},
	{__LINE__, "out has room for 2", 4, {U, 0x10, 0x20, 0x30}, 0x10, 127, 2, 2, 0, {0x10, 0x20}},
};

static void chain_case_run(const struct chain_case *c)
{
	uint64_t out[16];
	int complete = -1;
	memset(out, 0, sizeof(out));
	int n = hp_ring_user_chain(c->nr ? c->chain : NULL, (uint64_t)c->nr, c->ip, c->max_stack, out, c->max,
				   &complete);
	int bad = n != c->want_n || complete != c->want_complete;
	for (int j = 0; !bad && j < n; j++)
		bad = out[j] != c->want[j];
	if (bad) {
		printf("FAIL line %d (%s): %d frames (want %d), complete %d (want %d), first %#llx\n", c->line, c->what,
		       n, c->want_n, complete, c->want_complete, (unsigned long long)out[0]);
		fails++;
		return;
	}
	printf("ok line %d: %s\n", c->line, c->what);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(ring_cases) / sizeof(ring_cases[0]); i++)
		ring_case_run(&ring_cases[i]);
	for (size_t i = 0; i < sizeof(chain_cases) / sizeof(chain_cases[0]); i++)
		chain_case_run(&chain_cases[i]);
	if (fails)
		printf("%d case(s) failed\n", fails);
	return fails ? 1 : 0;
}
