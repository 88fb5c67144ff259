/* tests/core/standin.h - the parts of the runtime that the writer and the
 * module map (runtime/writer.c, runtime/modules.c) call, replaced by small
 * definitions, and the fixtures their tests share (test_writer.c,
 * tests/live/test_snapshot.c).  Include it in one file of a test program:
 * it defines the runtime's globals.
 *
 * standin_self is what hp_thread_self() returns; standin_log_lines counts
 * the lines hp_log() wrote (they go to stderr). */
#ifndef HYPROF_TESTS_CORE_STANDIN_H
#define HYPROF_TESTS_CORE_STANDIN_H

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "check.h"
#include "core/cct.h"
#include "core/format.h"
#include "runtime/state.h"
#include "sampler/source.h"

struct hp_runtime hp_rt;
static __thread struct hp_thread *standin_self;
static int standin_log_lines;
static const struct hp_source_ops standin_source = {.name = "fake-src"};

struct hp_thread *hp_thread_self(void)
{
	return standin_self;
}

struct hp_thread *hp_thread_get(void)
{
	return standin_self;
}

uint64_t hp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hp_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hyprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	standin_log_lines++;
}

const char *hp_mode_name(int m)
{
	return m == HP_MODE_SAMPLED ? "sampled" : m == HP_MODE_HYBRID ? "hybrid" : "measured";
}

const char *hp_compensate_name(int c)
{
	return c == HP_COMP_NONE ? "none" : c == HP_COMP_LOCAL ? "local" : "parallel";
}

/* A tree of `paths` pseudo-random call paths (depth 1 to 8, seeded), with
 * samples, period and calls at the leaves. */
static void standin_fill(struct cct *c, uint32_t cap, int paths, uint64_t seed)
{
	cct__init(c, cap);
	uint64_t x = seed;
	for (int i = 0; i < paths; i++) {
		uint64_t keys[8];
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int d = 1 + (int)((x >> 33) % 8);
		for (int k = 0; k < d; k++)
			keys[k] = 0x1000 + ((x >> (k * 4)) & 15) * 8;
		uint32_t leaf = cct__insert_path(c, keys, d);
		c->nodes[leaf].samples += 1 + i % 3;
		c->nodes[leaf].period += 1000 * (uint64_t)(1 + i % 3);
		c->nodes[leaf].calls += (uint64_t)i;
	}
}

/* Grow t's two trees (already initialised) with pseudo-random inserts and
 * samples until *stop: the writer's readers must cope with a tree that
 * changes under them.  Keys come from a small set, so many lookups move
 * nodes to the front of their sibling list. */
static void standin_insert_until(struct hp_thread *t, uint64_t seed, volatile int *stop)
{
	uint64_t x = seed;
	uint32_t cur = CCT_ROOT;
	while (!*stop) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		struct cct *c = (x >> 60) & 1 ? &t->sample : &t->probe;
		uint32_t i = cct__child(c, cur < c->n ? cur : CCT_ROOT, x % 24);
		cur = (i == CCT_NONE || (x >> 50) % 6 == 0) ? CCT_ROOT : i;
		if (i != CCT_NONE)
			c->nodes[i].samples++;
		__atomic_add_fetch(&t->samples, 1, __ATOMIC_RELAXED);
	}
}

/* The profile at `path`, read with the project's reader (a failed check
 * and NULL when it cannot be read). */
static struct hp_prof *standin_read(const char *path)
{
	struct hp_prof *p = NULL;
	char err[512];
	int rc = hp_prof_read(path, &p, err, sizeof(err));
	CHECK(rc == 0, "read %s: %s", path, err);
	return rc == 0 ? p : NULL;
}

static const struct hp_prof_thread *standin_thread_by_tid(const struct hp_prof *p, int64_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (hp_kv_i64(&p->threads[i].kv, "tid", 0) == tid)
			return &p->threads[i];
	return NULL;
}

static int standin_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

/* rm -rf dir (the test's scratch directory). */
static void standin_rm_tree(const char *dir)
{
	nftw(dir, standin_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
