/* tests/live/test_snapshot.c - hp_write_snapshot() and the live section
 * writers (runtime/writer.c), with the rest of the runtime replaced by the
 * stand-ins of tests/core/standin.h, as in tests/core/test_writer.c.
 *
 * Checks: a snapshot is a whole profile at the given path (directories
 * created, no temporary left, *bytes = the file's size); it leaves the
 * profile proper alone (hp_rt.written, hp_profile_path(), the final file);
 * only live-registered section writers run in it, and they see
 * hp_writing_snapshot() = 1 there and 0 in the final write; snapshots taken
 * while another thread inserts nodes read back as walkable trees that only
 * grow; a snapshot and a final write from two threads at once both succeed;
 * errors are returned, not logged, and errno is kept.
 *
 * Usage: test_snapshot              the checks
 *        test_snapshot bench [DIR]  cost of one snapshot by tree size (prints,
 *                                   asserts nothing; DIR default /tmp) */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/format.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/source.h"
#include "standin.h"
#include "treewalk.h"

/* ---- fixtures ---------------------------------------------------------------------- */

static struct hp_thread T0, T1;
static char dir[1024], outdir[1100];

static void setup(void)
{
	memset(&hp_rt, 0, sizeof(hp_rt));
	hp_rt.initialized = 1;
	hp_rt.rank = hp_rt.nranks = -1;
	hp_rt.cfg.mode = HP_MODE_HYBRID;
	hp_rt.source = &standin_source;
	snprintf(hp_rt.source_event, sizeof(hp_rt.source_event), "task-clock");
	hp_rt.period = 1000000;
	snprintf(hp_rt.source_unit, sizeof(hp_rt.source_unit), "ns");
	hp_rt.start_ns = hp_now_ns();
	hp_rt.tsc_hz = 2.1e9;
	snprintf(hp_rt.out_dir, sizeof(hp_rt.out_dir), "%s", outdir);
	snprintf(hp_rt.program, sizeof(hp_rt.program), "snap");
	memset(&T0, 0, sizeof(T0));
	memset(&T1, 0, sizeof(T1));
	T0.tid = (pid_t)syscall(SYS_gettid);
	snprintf(T0.name, sizeof(T0.name), "main");
	T0.samples = 300;
	standin_fill(&T0.sample, 4096, 300, 1);
	standin_fill(&T0.probe, 4096, 100, 2);
	T1.tid = 999999;
	T1.index = 1;
	T1.exited = 1;
	snprintf(T1.name, sizeof(T1.name), "worker");
	standin_fill(&T1.sample, 256, 20, 3);
	T1.next = &T0;
	hp_rt.threads = &T1;
	hp_rt.nthreads = 2;
	standin_self = &T0;
}

/* ---- section writers ---------------------------------------------------------------- */

struct probe {
	int calls;
	int snapshot_seen; /* hp_writing_snapshot() at the last call */
	int busy_seen;
	uint32_t type;
};

static struct probe P_plain = {.type = 100}, P_live = {.type = 101}, P_upgraded = {.type = 102};

static int probe_writer(struct hp_writer *w, void *arg)
{
	struct probe *p = arg;
	p->calls++;
	p->snapshot_seen = hp_writing_snapshot();
	p->busy_seen = standin_self ? standin_self->busy : -1;
	hp_writer_begin(w, p->type);
	hp_writer_kv_u64(w, "calls", (uint64_t)p->calls);
	return hp_writer_end(w);
}

static int has_section(const struct hp_prof *p, uint32_t type)
{
	return hp_prof_section(p, type) != NULL;
}

/* ---- the cases ---------------------------------------------------------------------- */

static void test_sections(void)
{
	CHECK(hp_register_section_writer(probe_writer, &P_plain) == 0, "plain");
	CHECK(hp_register_live_section_writer(probe_writer, &P_live) == 0, "live");
	CHECK(hp_register_section_writer(probe_writer, &P_upgraded) == 0, "plain, upgraded below");
	CHECK(hp_register_live_section_writer(NULL, NULL) == -EINVAL, "NULL");

	struct row {
		int line;
		const char *name;
		int upgrade;       /* register P_upgraded as live before the write */
		int snapshot;      /* 1: snapshot, 0: the final write */
		int want_plain, want_live, want_upgraded; /* sections expected */
	} rows[] = {
		{__LINE__, "snapshot: live writers only", 0, 1, 0, 1, 0},
		{__LINE__, "final: every writer", 0, 0, 1, 1, 1},
		{__LINE__, "snapshot after the upgrade", 1, 1, 0, 1, 1},
		{__LINE__, "final after the upgrade", 0, 0, 1, 1, 1},
	};
	char path[1400];
	snprintf(path, sizeof(path), "%s/.live/snap.%d.hyp", outdir, (int)getpid());
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *c = &rows[i];
		if (c->upgrade)
			CASE_CHECK(c, hp_register_live_section_writer(probe_writer, &P_upgraded) == 0,
				   "upgrade");
		P_plain.snapshot_seen = P_live.snapshot_seen = P_upgraded.snapshot_seen = -1;
		int rc = c->snapshot ? hp_write_snapshot(path, NULL) : hp_write_profile(0, NULL);
		CASE_CHECK(c, rc == 0, "write: %d", rc);
		struct hp_prof *p = standin_read(c->snapshot ? path : hp_profile_path());
		if (!p)
			continue;
		CASE_CHECK(c, has_section(p, P_plain.type) == c->want_plain, "plain section");
		CASE_CHECK(c, has_section(p, P_live.type) == c->want_live, "live section");
		CASE_CHECK(c, has_section(p, P_upgraded.type) == c->want_upgraded, "upgraded section");
		CASE_CHECK(c, P_live.snapshot_seen == c->snapshot, "hp_writing_snapshot() %d inside",
			   P_live.snapshot_seen);
		CASE_CHECK(c, P_live.busy_seen == 1, "the writing thread is busy inside: %d",
			   P_live.busy_seen);
		if (!c->snapshot)
			CASE_CHECK(c, P_plain.snapshot_seen == 0, "plain writer sees 0");
		CASE_CHECK(c, hp_writing_snapshot() == 0, "0 after the write");
		CASE_CHECK(c, T0.busy == 0, "busy restored");
		hp_prof_free(p);
	}
	/* registered twice (live, then plain again): still one section */
	CHECK(hp_register_section_writer(probe_writer, &P_live) == 0, "again");
	CHECK(hp_write_snapshot(path, NULL) == 0, "snapshot");
	struct hp_prof *p = standin_read(path);
	if (p) {
		int n = 0;
		for (size_t i = 0; i < p->nsecs; i++)
			n += p->secs[i].type == P_live.type;
		CHECK(n == 1, "one live section, not %d", n);
		hp_prof_free(p);
	}
}

static void test_profile_untouched(void)
{
	setup();
	char path[1400], tmpname[1500];
	snprintf(path, sizeof(path), "%s/live/deeper/snap.hyp", dir); /* dirs do not exist */
	int logs = standin_log_lines, written = hp_rt.written;
	char before_path[4096];
	snprintf(before_path, sizeof(before_path), "%s", hp_profile_path());
	errno = 12345;
	uint64_t bytes = 0;
	int rc = hp_write_snapshot(path, &bytes);
	CHECK(rc == 0, "snapshot into new directories: %d", rc);
	CHECK(errno == 12345, "errno kept: %d", errno);
	CHECK(standin_log_lines == logs, "nothing logged");
	CHECK(hp_rt.written == written, "hp_rt.written untouched");
	CHECK(!strcmp(hp_profile_path(), before_path), "hp_profile_path() untouched: %s",
	      hp_profile_path());
	struct stat st;
	CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == bytes, "*bytes %llu = file size %lld",
	      (unsigned long long)bytes, (long long)st.st_size);
	snprintf(tmpname, sizeof(tmpname), "%s.tmp.%d", path, (int)getpid());
	CHECK(stat(tmpname, &st) != 0, "no temporary file left");
	struct hp_prof *p = standin_read(path);
	if (p) {
		CHECK(p->flags == 0, "not partial: flags %u", p->flags);
		CHECK(!strcmp(hp_kv_str(&p->meta, "program", ""), "snap"), "program");
		CHECK(p->nthreads == 2, "two threads, not %zu", p->nthreads);
		const struct hp_prof_thread *t0 = standin_thread_by_tid(p, T0.tid);
		CHECK(t0 && t0->nsample == T0.sample.n && t0->nprobe == T0.probe.n,
		      "main thread's nodes: %u/%u of %u/%u", t0 ? t0->nsample : 0, t0 ? t0->nprobe : 0,
		      T0.sample.n, T0.probe.n);
		CHECK(t0 && hp_kv_u64(&t0->kv, "exited", 9) == 0, "a live thread is written as running");
		hp_prof_free(p);
	}

	/* the final write still takes the plain name, and a later snapshot
	 * does not touch the final file */
	CHECK(hp_write_profile(0, NULL) == 0, "final write");
	char want[1400];
	snprintf(want, sizeof(want), "%s/snap.%d.hyp", outdir, (int)getpid());
	CHECK(!strcmp(hp_profile_path(), want), "final name %s, want %s", hp_profile_path(), want);
	struct stat before, after;
	stat(want, &before);
	T0.samples += 1000; /* a change the next snapshot carries */
	struct timespec ts = {0, 20000000};
	nanosleep(&ts, NULL);
	CHECK(hp_write_snapshot(path, NULL) == 0, "snapshot after the final write");
	stat(want, &after);
	CHECK(before.st_ino == after.st_ino && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
	      before.st_size == after.st_size, "the final file is untouched by a snapshot");
	CHECK(!strcmp(hp_profile_path(), want), "hp_profile_path() still %s", hp_profile_path());
}

static volatile int stop;
static struct hp_thread T3;

static void *inserter(void *arg)
{
	(void)arg;
	memset(&T3, 0, sizeof(T3));
	T3.tid = (pid_t)syscall(SYS_gettid);
	T3.index = 3;
	cct__init(&T3.sample, 1u << 16);
	cct__init(&T3.probe, 1u << 16);
	standin_self = &T3;
	T3.next = hp_rt.threads;
	__atomic_store_n(&hp_rt.threads, &T3, __ATOMIC_RELEASE);
	standin_insert_until(&T3, 777, &stop);
	return NULL;
}

/* Snapshots while a thread inserts: readable, walkable, never shrinking. */
static void test_concurrent(void)
{
	setup();
	stop = 0;
	pthread_t th;
	pthread_create(&th, NULL, inserter, NULL);
	while (__atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE) != &T3 || T3.sample.n < 100)
		usleep(1000);
	char path[1400];
	snprintf(path, sizeof(path), "%s/.live/concurrent.hyp", outdir);
	int ok = 0, rounds = 40;
	uint32_t last_n = 0;
	uint64_t last_samples = 0;
	for (int r = 0; r < rounds; r++) {
		int rc = hp_write_snapshot(path, NULL);
		CHECK(rc == 0, "round %d: snapshot %d", r, rc);
		struct hp_prof *p = rc ? NULL : standin_read(path);
		if (!p)
			continue;
		const struct hp_prof_thread *pt = standin_thread_by_tid(p, T3.tid);
		CHECK(pt != NULL, "round %d: the inserting thread is in the snapshot", r);
		if (pt) {
			const char *bad = tree_walk_check(pt->sample, pt->nsample);
			if (!bad)
				bad = tree_walk_check(pt->probe, pt->nprobe);
			CHECK(bad == NULL, "round %d: %s", r, bad);
			uint64_t s = hp_kv_u64(&pt->kv, "samples", 0);
			CHECK(pt->nsample >= last_n, "round %d: nodes %u after %u", r, pt->nsample, last_n);
			CHECK(s >= last_samples, "round %d: samples %llu after %llu", r,
			      (unsigned long long)s, (unsigned long long)last_samples);
			last_n = pt->nsample;
			last_samples = s;
			ok += bad == NULL;
		}
		hp_prof_free(p);
	}
	stop = 1;
	pthread_join(th, NULL);
	CHECK(ok == rounds, "%d of %d snapshots during inserts read back walkable", ok, rounds);
	printf("concurrent: %d snapshots, up to %u sample nodes of a growing tree\n", ok, last_n);
	hp_rt.threads = &T1;
	standin_self = &T0;
}

/* A final write from another thread while snapshots go on: the lock
 * serializes them, both files are whole. */
static void *final_writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		if (hp_write_profile(0, NULL) != 0)
			return (void *)1;
	return NULL;
}

static void test_two_writers(void)
{
	setup();
	char path[1400];
	snprintf(path, sizeof(path), "%s/.live/two.hyp", outdir);
	pthread_t th;
	pthread_create(&th, NULL, final_writer, NULL);
	int bad = 0;
	for (int i = 0; i < 10; i++)
		bad += hp_write_snapshot(path, NULL) != 0;
	void *ret;
	pthread_join(th, &ret);
	CHECK(bad == 0 && ret == NULL, "%d snapshots and the final writes failed (%p)", bad, ret);
	struct hp_prof *p = standin_read(path);
	hp_prof_free(p);
	p = standin_read(hp_profile_path());
	hp_prof_free(p);
}

static void test_errors(void)
{
	setup();
	char file[1200], path[1400];
	snprintf(file, sizeof(file), "%s/plainfile", dir);
	FILE *f = fopen(file, "w");
	if (f)
		fclose(f);
	static char longp[5000];
	memset(longp, 'x', sizeof(longp) - 1);
	snprintf(path, sizeof(path), "%s/sub/x.hyp", file);
	struct row {
		int line;
		const char *name;
		const char *path;
		int want;
	} rows[] = {
		{__LINE__, "a file where a directory should be", path, -ENOTDIR},
		{__LINE__, "empty path", "", -EINVAL},
		{__LINE__, "NULL path", NULL, -EINVAL},
		{__LINE__, "path too long", longp, -ENAMETOOLONG},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *c = &rows[i];
		int logs = standin_log_lines;
		errno = 4242;
		int rc = hp_write_snapshot(c->path, NULL);
		CASE_CHECK(c, rc == c->want, "got %d, want %d", rc, c->want);
		CASE_CHECK(c, standin_log_lines == logs, "nothing logged");
		CASE_CHECK(c, errno == 4242, "errno kept: %d", errno);
		CASE_CHECK(c, T0.busy == 0, "busy restored");
	}
	/* the lock is free after the failures */
	snprintf(path, sizeof(path), "%s/.live/after-errors.hyp", outdir);
	CHECK(hp_write_snapshot(path, NULL) == 0, "a snapshot after the errors");
}

/* ---- bench ---------------------------------------------------------------------------- */

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench(const char *where)
{
	static const int sizes[] = {100, 1000, 10000, 100000};
	printf("snapshot cost into %s (one thread, sample tree of N nodes + probe tree of N/4)\n", where);
	printf("%8s %10s %12s %12s %12s\n", "nodes", "bytes", "wall us", "cpu us", "cpu ns/node");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		setup();
		hp_rt.threads = &T0;
		T0.next = NULL;
		cct__destroy(&T0.sample);
		cct__destroy(&T0.probe);
		cct__init(&T0.sample, (uint32_t)sizes[k] + 16);
		cct__init(&T0.probe, (uint32_t)sizes[k] / 4 + 16);
		/* a bushy tree of exactly N nodes: each new node under a random one */
		uint64_t x = 99;
		while (T0.sample.n < (uint32_t)sizes[k]) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			cct__child(&T0.sample, (uint32_t)(x % T0.sample.n), x);
		}
		while (T0.probe.n < (uint32_t)sizes[k] / 4) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			cct__child(&T0.probe, (uint32_t)(x % T0.probe.n), x);
		}
		char path[4200];
		snprintf(path, sizeof(path), "%s/hyprof-snapshot-bench.%d.hyp", where, (int)getpid());
		int reps = sizes[k] >= 100000 ? 10 : 50;
		uint64_t bytes = 0;
		hp_write_snapshot(path, &bytes); /* warm: directory, page cache */
		double w0 = (double)hp_now_ns() * 1e-9, c0 = cpu_s();
		for (int r = 0; r < reps; r++)
			if (hp_write_snapshot(path, &bytes) != 0) {
				fprintf(stderr, "snapshot into %s failed\n", where);
				return 1;
			}
		double wall = ((double)hp_now_ns() * 1e-9 - w0) / reps, cpu = (cpu_s() - c0) / reps;
		printf("%8d %10llu %12.1f %12.1f %12.1f\n", sizes[k], (unsigned long long)bytes, wall * 1e6,
		       cpu * 1e6, cpu * 1e9 / (sizes[k] * 1.25));
		unlink(path);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return bench(argc >= 3 ? argv[2] : "/tmp");
	snprintf(dir, sizeof(dir), "/tmp/hyprof-test-snapshot-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	setup();
	test_sections();
	test_profile_untouched();
	test_concurrent();
	test_two_writers();
	test_errors();
	standin_rm_tree(dir);
	return check_status("test_snapshot");
}
