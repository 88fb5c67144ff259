/* tests/core/test_writer.c - hp_write_profile() and the module map, with the
 * runtime's other parts replaced by the stand-ins of standin.h (state,
 * logging, names).  Writes profiles and reads them back with the reader:
 * every META and THREAD key, every node, the modules (main program, vDSO,
 * a plugin opened and closed, a plugin found through its loader's RUNPATH),
 * extension sections, partial files, MPI names, a write from a signal
 * handler on a small alternate stack, writes while another thread inserts,
 * a write in a forked child, and errors.
 *
 * Usage: test_writer PLUGIN.so LOADER.so [extra args that land in argv] */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/format.h"
#include "runtime/modules.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/source.h"
#include "standin.h"
#include "treewalk.h"

/* ---- loader probe (called by the plugin's constructor) ----------------------------- */

static int probe_calls, probe_in_loader;

__attribute__((visibility("default"))) void test_loader_probe(void)
{
	struct hp_thread *t = hp_thread_self();
	probe_calls++;
	probe_in_loader = t ? t->in_loader : -1;
}

/* ---- fixtures ---------------------------------------------------------------------- */

static struct hp_thread T0, T1, T2;
static char dir[1024], outdir[1100];

static void thread_fixture(struct hp_thread *t, pid_t tid, uint32_t index, const char *name,
			   uint64_t base)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->index = index;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->samples = base + 1;
	for (int i = 0; i < HP_DROP_NREASONS; i++)
		t->dropped[i] = base + 10 + (uint64_t)i;
	t->meas_samples = base + 20;
	t->meas_period = base + 21;
	t->handler_cycles = base + 22;
	t->stack_overflow = base + 23;
	t->exit_mismatch = base + 24;
	t->overhead = base + 25;
	t->delay = base + 26;
	t->start_ns = base + 27;
	t->end_ns = base + 28;
	t->mpi_samples = base + 29;
	t->mpi_period = base + 30;
	t->cpu_ns = base + 29;
	t->probe_events = base + 30;
}

static void setup(const char *argv0)
{
	memset(&hp_rt, 0, sizeof(hp_rt));
	hp_rt.initialized = 1;
	hp_rt.rank = hp_rt.nranks = -1;
	hp_rt.cfg.mode = HP_MODE_HYBRID;
	hp_rt.cfg.compensate = HP_COMP_LOCAL;
	hp_rt.cfg.max_overhead = 2.5;
	hp_rt.source = &standin_source;
	snprintf(hp_rt.source_event, sizeof(hp_rt.source_event), "task-clock");
	hp_rt.period = 1000000;
	snprintf(hp_rt.source_unit, sizeof(hp_rt.source_unit), "ns");
	snprintf(hp_rt.source_why, sizeof(hp_rt.source_why), "perf-hw: no PMU (ENOENT)");
	hp_rt.start_ns = 1000;
	hp_rt.end_ns = 5001000;
	hp_rt.tsc_hz = 2.1e9;
	snprintf(hp_rt.out_dir, sizeof(hp_rt.out_dir), "%s", outdir);
	snprintf(hp_rt.program, sizeof(hp_rt.program), "%s", argv0);

	thread_fixture(&T0, (pid_t)syscall(SYS_gettid), 0, "main", 100);
	standin_fill(&T0.sample, 4096, 300, 1);
	standin_fill(&T0.probe, 4096, 100, 2);
	uint32_t last = T0.probe.n - 1;
	T0.probe.nodes[last].flags |= CCT_F_REDIRECT | CCT_F_PROBE;
	T0.probe.nodes[last].target = T0.probe.nodes[last].parent;
	T0.probe.full = 3;
	thread_fixture(&T1, 999999, 1, "worker", 200); /* exited: values as stored */
	T1.exited = 1;
	standin_fill(&T1.sample, 64, 10, 3);
	standin_fill(&T1.probe, 8, 40, 4); /* overfull: cct_full counted */
	thread_fixture(&T2, 999998, 2, "no-trees-yet", 300); /* not exited, no such tid */
	T0.next = NULL;
	T1.next = &T0;
	T2.next = &T1;
	hp_rt.threads = &T2;
	hp_rt.nthreads = 3;
	standin_self = &T0;
}

/* ---- extension section writers ----------------------------------------------------- */

static int busy_seen, inner_rc = 1;

static int ext_calib(struct hp_writer *w, void *arg)
{
	busy_seen = standin_self ? standin_self->busy : -1;
	hp_writer_begin(w, HP_SEC_CALIB);
	hp_writer_kv_f64(w, "timer_ns.median", 11.0);
	return hp_writer_end(w);
}

static int ext_open(struct hp_writer *w, void *arg)
{
	hp_writer_begin(w, 99);
	return hp_writer_bytes(w, "hello", 5); /* left open on purpose */
}

static int ext_reenter(struct hp_writer *w, void *arg)
{
	if (inner_rc == 1) /* once: it logs a line */
		inner_rc = hp_write_profile(1, "nested");
	return 0;
}

static int ext_nop(struct hp_writer *w, void *arg)
{
	return 0;
}

static void test_registration(void)
{
	static int dummy[HP_MAX_SECTION_WRITERS];
	CHECK(hp_register_section_writer(ext_calib, NULL) == 0, "register");
	CHECK(hp_register_section_writer(ext_calib, NULL) == 0, "register twice is fine");
	CHECK(hp_register_section_writer(ext_open, NULL) == 0, "register");
	CHECK(hp_register_section_writer(ext_reenter, NULL) == 0, "register");
	CHECK(hp_register_section_writer(NULL, NULL) == -EINVAL, "NULL");
	int rc = 0, k;
	for (k = 0; k < HP_MAX_SECTION_WRITERS && rc == 0; k++)
		rc = hp_register_section_writer(ext_nop, &dummy[k]);
	CHECK(rc == -ENOSPC && k == HP_MAX_SECTION_WRITERS - 3 + 1, "table full after %d", k);
}

/* ---- module map -------------------------------------------------------------------- */

static char plugin_base[256];

static void test_modules(const char *plugin, const char *loader)
{
	CHECK(hp_modules_init() == 0, "init (again) is fine");
	uint32_t n0 = hp_modules_count();
	CHECK(n0 >= 3, "main, vdso, libc at least: %u", n0);
	void *h = dlopen(plugin, RTLD_NOW);
	CHECK(h != NULL, "dlopen %s: %s", plugin, dlerror());
	CHECK(probe_calls == 1 && probe_in_loader > 0, "in_loader during the plugin's constructor: %d",
	      probe_in_loader);
	CHECK(T0.in_loader == 0, "in_loader back to 0: %d", T0.in_loader);
	CHECK(hp_modules_count() > n0, "plugin recorded");
	if (h) {
		int (*fn)(int) = (int (*)(int))dlsym(h, "hp_test_plugin_fn");
		CHECK(fn && fn(3) == 7, "plugin works");
		CHECK(dlclose(h) == 0, "dlclose");
	}
	CHECK(T0.in_loader == 0, "in_loader after dlclose");
	/* a bare name found through the loader library's RUNPATH */
	void *lh = dlopen(loader, RTLD_NOW);
	CHECK(lh != NULL, "dlopen %s: %s", loader, dlerror());
	const char *slash = strrchr(plugin, '/');
	snprintf(plugin_base, sizeof(plugin_base), "%s", slash ? slash + 1 : plugin);
	if (lh) {
		void *(*open_fn)(const char *, int) =
			(void *(*)(const char *, int))dlsym(lh, "hp_test_loader_open");
		void *h2 = open_fn ? open_fn(plugin_base, RTLD_NOW) : NULL;
		CHECK(h2 != NULL, "bare name %s through the caller's RUNPATH", plugin_base);
		CHECK(probe_calls == 2, "plugin loaded a second time");
		if (h2)
			CHECK(dlclose(h2) == 0, "dlclose 2");
	}
	/* failing dlopen: dlerror names what was asked */
	void *none = dlopen("libhyprof-no-such-library.so", RTLD_NOW);
	const char *e = dlerror();
	CHECK(none == NULL && e && strstr(e, "libhyprof-no-such-library.so"), "dlerror: %s",
	      e ? e : "(null)");
	CHECK(T0.in_loader == 0, "in_loader after a failed dlopen");
}

/* ---- reading back ------------------------------------------------------------------- */

static void check_thread(const struct hp_prof *p, const struct hp_thread *t, int live)
{
	const struct hp_prof_thread *pt = standin_thread_by_tid(p, t->tid);
	CHECK(pt != NULL, "thread %d present", (int)t->tid);
	if (!pt)
		return;
	const struct hp_kvlist *kv = &pt->kv;
#define U(key, v) CHECK(hp_kv_u64(kv, key, ~0ull) == (uint64_t)(v), "thread %s: " key " = %llu, want %llu", \
			t->name, (unsigned long long)hp_kv_u64(kv, key, ~0ull), (unsigned long long)(v))
	U("index", t->index);
	CHECK(!strcmp(hp_kv_str(kv, "name", "?"), t->name), "name %s", hp_kv_str(kv, "name", "?"));
	U("samples", t->samples);
	char key[64];
	for (int i = 0; i < HP_DROP_NREASONS; i++) {
		snprintf(key, sizeof(key), "dropped.%s", hp_drop_names[i]);
		CHECK(hp_kv_u64(kv, key, ~0ull) == t->dropped[i], "%s", key);
	}
	U("meas_samples", t->meas_samples);
	U("meas_period", t->meas_period);
	U("mpi_samples", t->mpi_samples);
	U("mpi_period", t->mpi_period);
	U("handler_cycles", t->handler_cycles);
	U("stack_overflow", t->stack_overflow);
	U("exit_mismatch", t->exit_mismatch);
	U("overhead", t->overhead);
	U("delay", t->delay);
	U("start_ns", t->start_ns);
	U("exited", t->exited);
	U("probe_events", t->probe_events);
	U("cct_full.sample", t->sample.full);
	U("cct_full.probe", t->probe.full);
	/* live: end_ns is the time of writing; cpu_ns is read from the thread's
	 * clock when it is ours (else the stored value) */
	if (!live) {
		U("end_ns", t->end_ns);
		U("cpu_ns", t->cpu_ns);
	} else {
		CHECK(hp_kv_u64(kv, "end_ns", 0) > t->end_ns + 1000000, "live thread end_ns is now");
		if (live == 2)
			U("cpu_ns", t->cpu_ns);
		else
			CHECK(hp_kv_u64(kv, "cpu_ns", 0) > 0 && hp_kv_u64(kv, "cpu_ns", 0) != t->cpu_ns,
			      "cpu_ns from the thread clock");
	}
#undef U
	CHECK(kv->n == 4 + HP_DROP_NREASONS + 16, "thread kv count %zu", kv->n);
	CHECK(pt->nsample == t->sample.n && pt->nprobe == t->probe.n, "node counts %u %u", pt->nsample,
	      pt->nprobe);
	if (pt->nsample == t->sample.n && t->sample.n)
		CHECK(!memcmp(pt->sample, t->sample.nodes, t->sample.n * sizeof(struct cct_node)),
		      "sample nodes of %s", t->name);
	if (pt->nprobe == t->probe.n && t->probe.n)
		CHECK(!memcmp(pt->probe, t->probe.nodes, t->probe.n * sizeof(struct cct_node)),
		      "probe nodes of %s", t->name);
}

static void check_modules(const struct hp_prof *p)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[k > 0 ? k : 0] = 0;
	int main_ok = 0, vdso = 0, libc = 0, plugin_closed = 0, loader_open = 0;
	uintptr_t pc = (uintptr_t)&check_modules;
	for (size_t i = 0; i < p->nmodules; i++) {
		const struct hp_module *m = &p->modules[i];
		if (m->rec.flags & HP_MOD_MAIN)
			main_ok += !strcmp(m->path, exe) && pc >= m->rec.lo && pc < m->rec.hi &&
				   (m->rec.flags & HP_MOD_HYPROF) && m->rec.load_ns == 0;
		vdso += !!(m->rec.flags & HP_MOD_VDSO);
		libc += strstr(m->path, "libc.so") != NULL && m->rec.unload_ns == 0 && m->rec.lo < m->rec.hi;
		if (strstr(m->path, plugin_base))
			plugin_closed += m->rec.load_ns > 0 && m->rec.unload_ns >= m->rec.load_ns;
		if (strstr(m->path, "hp_test_loader"))
			loader_open += m->rec.load_ns > 0 && m->rec.unload_ns == 0;
	}
	CHECK(main_ok == 1, "main executable %s with its text range and flags", exe);
	CHECK(vdso == 1, "vdso flagged once (%d)", vdso);
	CHECK(libc == 1, "libc loaded at start (%d)", libc);
	CHECK(plugin_closed == 2, "plugin loaded and closed twice: %d", plugin_closed);
	CHECK(loader_open == 1, "loader still loaded: %d", loader_open);
}

static void expected_name(char *buf, size_t len, int rank)
{
	if (rank >= 0)
		snprintf(buf, len, "%s/test_writer.%05d.%d.hyp", outdir, rank, (int)getpid());
	else
		snprintf(buf, len, "%s/test_writer.%d.hyp", outdir, (int)getpid());
}

static void test_write(int argc, char **argv)
{
	char want[4600];
	expected_name(want, sizeof(want), -1);
	int rc = hp_write_profile(0, NULL);
	CHECK(rc == 0, "write: %d", rc);
	CHECK(!strcmp(hp_profile_path(), want), "path %s, want %s", hp_profile_path(), want);
	char name[4600];
	CHECK(hp_profile_name(name, sizeof(name)) == 0 && !strcmp(name, want), "name %s", name);
	CHECK(hp_rt.written, "written flag");
	CHECK(inner_rc == -EDEADLK, "a nested write is refused: %d", inner_rc);
	CHECK(busy_seen == 1, "busy while writing: %d", busy_seen);
	CHECK(T0.busy == 0, "busy restored");
	struct hp_prof *p = standin_read(want);
	if (!p)
		return;
	const struct hp_kvlist *m = &p->meta;
	struct utsname u;
	uname(&u);
	CHECK(p->flags == 0, "not partial");
	CHECK(!strcmp(hp_kv_str(m, "program", ""), "test_writer"), "program");
	const char *av = hp_kv_str(m, "argv", "");
	CHECK(strstr(av, argv[0]) == av, "argv starts with argv[0]: %s", av);
	if (argc > 3)
		CHECK(strstr(av, "'it'\\''s a test'") && strstr(av, " plain-arg"),
		      "arguments quoted for a shell: %s", av);
	CHECK(!strcmp(hp_kv_str(m, "hostname", ""), u.nodename), "hostname");
	CHECK(hp_kv_i64(m, "pid", 0) == getpid() && hp_kv_i64(m, "ppid", 0) == getppid(), "pids");
	CHECK(hp_kv_i64(m, "rank", 0) == -1 && hp_kv_i64(m, "nranks", 0) == -1, "ranks");
	CHECK(!strcmp(hp_kv_str(m, "mode", ""), "hybrid"), "mode");
	CHECK(!strcmp(hp_kv_str(m, "source", ""), "fake-src"), "source");
	CHECK(!strcmp(hp_kv_str(m, "event", ""), "task-clock"), "event");
	CHECK(hp_kv_u64(m, "period", 0) == 1000000, "period");
	CHECK(!strcmp(hp_kv_str(m, "unit", ""), "ns"), "unit");
	CHECK(!strcmp(hp_kv_str(m, "source_why", ""), hp_rt.source_why), "source_why");
	CHECK(hp_kv_u64(m, "start_ns", 0) == 1000 && hp_kv_u64(m, "end_ns", 0) == 5001000 &&
		      hp_kv_u64(m, "duration_ns", 0) == 5000000,
	      "times");
	CHECK(hp_kv_f64(m, "tsc_hz", 0) == 2.1e9, "tsc_hz");
	CHECK(hp_kv_u64(m, "partial", 9) == 0 && !strcmp(hp_kv_str(m, "partial_why", "x"), ""),
	      "partial");
	CHECK(!strcmp(hp_kv_str(m, "compensate", ""), "local"), "compensate");
	CHECK(!strcmp(hp_kv_str(m, "version", ""), HYPROF_VERSION), "version");
	CHECK(hp_kv_u64(m, "format_version", 0) == HP_FORMAT_VERSION, "format_version");
	CHECK(hp_kv_f64(m, "max_overhead", 0) == 2.5, "max_overhead");
	CHECK(hp_kv_u64(m, "nthreads", 0) == 3, "nthreads");
	CHECK(hp_kv_u64(m, "modules_dropped", 9) == 0, "modules_dropped");
	CHECK(p->nthreads == 3, "threads %zu", p->nthreads);
	check_thread(p, &T0, 1);
	check_thread(p, &T1, 0);
	check_thread(p, &T2, 2); /* live, but no such tid: stored cpu_ns */
	check_modules(p);
	CHECK(hp_kv_f64(&p->calib, "timer_ns.median", 0) == 11.0, "extension section");
	int ncalib = 0;
	for (size_t i = 0; i < p->nsecs; i++)
		ncalib += p->secs[i].type == HP_SEC_CALIB;
	CHECK(ncalib == 1, "registered twice, written once: %d", ncalib);
	const struct hp_section *s = hp_prof_section(p, 99);
	CHECK(s && s->len == 5 && !memcmp(s->data, "hello", 5), "section left open was closed");
	CHECK(p->secs[0].type == HP_SEC_META && p->secs[1].type == HP_SEC_MODULES &&
		      p->secs[2].type == HP_SEC_THREAD,
	      "order META, MODULES, THREAD...");
	hp_prof_free(p);

	/* partial (fatal signal or exec) */
	CHECK(hp_write_profile(1, "signal 11 (SIGSEGV)") == 0, "partial write");
	p = standin_read(want);
	if (p) {
		CHECK(p->flags & HP_FILE_PARTIAL, "partial flag");
		CHECK(hp_kv_u64(&p->meta, "partial", 0) == 1 &&
			      !strcmp(hp_kv_str(&p->meta, "partial_why", ""), "signal 11 (SIGSEGV)"),
		      "partial keys");
		hp_prof_free(p);
	}
	/* MPI rank in the name */
	hp_rt.rank = 3;
	hp_rt.nranks = 4;
	char ranked[4600];
	expected_name(ranked, sizeof(ranked), 3);
	CHECK(hp_write_profile(0, NULL) == 0 && !strcmp(hp_profile_path(), ranked), "ranked %s",
	      hp_profile_path());
	p = standin_read(ranked);
	if (p) {
		CHECK(hp_kv_i64(&p->meta, "rank", 0) == 3 && hp_kv_i64(&p->meta, "nranks", 0) == 4,
		      "rank keys");
		hp_prof_free(p);
	}
	hp_rt.rank = hp_rt.nranks = -1;
}

/* ---- from a signal handler on a small alternate stack ---------------------------------- */

static volatile int sig_rc = 1;

static void on_usr1(int sig)
{
	sig_rc = hp_write_profile(1, "SIGUSR1");
}

static void test_signal(void)
{
	stack_t ss = {.ss_size = 16384};
	ss.ss_sp = malloc(ss.ss_size);
	CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	CHECK(sig_rc == 0, "write from a handler on a 16 KB stack: %d", sig_rc);
	struct hp_prof *p = standin_read(hp_profile_path());
	if (p) {
		CHECK(!strcmp(hp_kv_str(&p->meta, "partial_why", ""), "SIGUSR1"), "why");
		hp_prof_free(p);
	}
	signal(SIGUSR1, SIG_DFL);
	stack_t off = {.ss_flags = SS_DISABLE};
	sigaltstack(&off, NULL);
	free(ss.ss_sp);
}

/* ---- writes while another thread inserts ---------------------------------------------- */

static struct hp_thread T3;
static volatile int stop;

static void *inserter(void *arg)
{
	thread_fixture(&T3, (pid_t)syscall(SYS_gettid), 3, "inserter", 400);
	cct__init(&T3.sample, 1u << 16);
	cct__init(&T3.probe, 1u << 16);
	standin_self = &T3;
	T3.next = &T2;
	__atomic_store_n(&hp_rt.threads, &T3, __ATOMIC_RELEASE);
	standin_insert_until(&T3, 12345, &stop);
	return NULL;
}

static void test_concurrent(void)
{
	pthread_t th;
	pthread_create(&th, NULL, inserter, NULL);
	while (!__atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE) ||
	       hp_rt.threads != &T3 || T3.sample.n < 100)
		usleep(1000);
	int ok = 0, rounds = 20;
	uint32_t maxn = 0;
	for (int r = 0; r < rounds; r++) {
		if (hp_write_profile(0, NULL) != 0)
			continue;
		struct hp_prof *p = standin_read(hp_profile_path());
		if (!p)
			continue;
		const struct hp_prof_thread *pt = standin_thread_by_tid(p, T3.tid);
		if (pt) {
			const char *bad = tree_walk_check(pt->sample, pt->nsample);
			if (!bad)
				bad = tree_walk_check(pt->probe, pt->nprobe);
			CHECK(bad == NULL, "round %d: %s", r, bad);
			ok += bad == NULL;
			if (pt->nsample > maxn)
				maxn = pt->nsample;
		}
		hp_prof_free(p);
	}
	stop = 1;
	pthread_join(th, NULL);
	CHECK(ok == rounds, "%d of %d profiles written during inserts read back walkable", ok,
	      rounds);
	printf("concurrent: %d profiles, up to %u sample nodes of a growing tree\n", ok, maxn);
	hp_rt.threads = &T2;
}

/* ---- fork and errors ----------------------------------------------------------------------- */

static void test_fork(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(hp_write_profile(0, NULL) == 0 ? 0 : 1);
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child wrote its profile");
	char path[4600];
	snprintf(path, sizeof(path), "%s/test_writer.%d.hyp", outdir, (int)pid);
	struct hp_prof *p = standin_read(path);
	if (p) {
		CHECK(hp_kv_i64(&p->meta, "pid", 0) == pid && hp_kv_i64(&p->meta, "ppid", 0) == getpid(),
		      "child's pids");
		hp_prof_free(p);
	}
}

static void test_errors(void)
{
	char file[1200];
	snprintf(file, sizeof(file), "%s/plainfile", dir);
	FILE *f = fopen(file, "w");
	if (f)
		fclose(f);
	snprintf(hp_rt.out_dir, sizeof(hp_rt.out_dir), "%s/sub", file);
	int logs = standin_log_lines;
	int rc = hp_write_profile(0, NULL);
	CHECK(rc == -ENOTDIR, "output under a plain file: %d", rc);
	CHECK(standin_log_lines == logs + 1, "one log line for the failure");
	memset(hp_rt.out_dir, 'x', sizeof(hp_rt.out_dir) - 1);
	hp_rt.out_dir[sizeof(hp_rt.out_dir) - 1] = 0;
	rc = hp_write_profile(0, NULL);
	CHECK(rc == -ENAMETOOLONG, "too long a name: %d", rc);
	snprintf(hp_rt.out_dir, sizeof(hp_rt.out_dir), "%s", outdir);
	/* an empty program name falls back to argv[0]'s base name */
	hp_rt.program[0] = 0;
	CHECK(hp_write_profile(0, NULL) == 0, "write");
	CHECK(strstr(hp_profile_path(), "/test_writer."), "name from the command line: %s",
	      hp_profile_path());
	/* a file of our name that we did not write (the image before an exec
	 * keeps the pid) is kept: ours gets .1, and later writes replace .1 */
	snprintf(hp_rt.program, sizeof(hp_rt.program), "collide");
	char base[1300], one[1300];
	snprintf(base, sizeof(base), "%s/collide.%d.hyp", outdir, (int)getpid());
	snprintf(one, sizeof(one), "%s/collide.%d.1.hyp", outdir, (int)getpid());
	f = fopen(base, "w");
	if (f) {
		fputs("before exec", f);
		fclose(f);
	}
	CHECK(hp_write_profile(0, NULL) == 0 && !strcmp(hp_profile_path(), one), "first: %s",
	      hp_profile_path());
	CHECK(hp_write_profile(0, NULL) == 0 && !strcmp(hp_profile_path(), one), "again: %s",
	      hp_profile_path());
	struct stat st;
	CHECK(stat(base, &st) == 0 && st.st_size == 11, "the other image's file is untouched");
	struct hp_prof *p = standin_read(one);
	hp_prof_free(p);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_writer PLUGIN.so LOADER.so [args]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "/tmp/hyprof-test-writer-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(outdir, sizeof(outdir), "%s/out/a/b", dir); /* created by the writer */
	setup("test_writer");
	test_registration();
	test_modules(argv[1], argv[2]);
	test_write(argc, argv);
	test_signal();
	test_concurrent();
	test_fork();
	test_errors();
	int st = check_status("test_writer");
	if (!st)
		standin_rm_tree(dir);
	else
		fprintf(stderr, "files kept in %s\n", dir);
	return st;
}
