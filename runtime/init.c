/* runtime/init.c - the runtime's life: start (constructor), stop and write
 * (destructor, _exit, exec, fatal signals), the exit summary line.
 *
 * libhyprof.so starts from its constructor whether it was preloaded by
 * `hyprof run` or linked into the program; the first interposed call that
 * needs the runtime (pthread_create from an earlier library's constructor)
 * starts it too, once (pthread_once).  Start-up never fails the program: on
 * any error it logs one line and the program runs unprofiled.
 *
 * Order at start: configuration, calibration (calib/), counting set-up
 * (counting/), the module map, the sample source, the main thread (which
 * runs counting's per-thread set-up and starts sampling), then the process
 * hooks (fork, fatal signals).
 *
 * Signal-safe: hp_sampling_pause_all(), hp_sampling_resume_all(),
 * hp_write_now(), hp_print_summary(how, 0), hp_runtime_finish() (it runs from
 * _exit, which programs call in signal handlers).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "counting/counting.h"
#include "runtime/lifecycle.h"
#include "runtime/live.h"
#include "runtime/modules.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/sampler.h"

HP_EXPORT struct hp_runtime hp_rt = {.rank = -1, .nranks = -1};
int (*hp_summary_hook)(char *buf, size_t len);
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int finished;

HP_EXPORT void hp_set_summary_hook(int (*fn)(char *buf, size_t len))
{
	hp_summary_hook = fn;
}

HP_EXPORT void hp_set_rank(int rank, int nranks)
{
	hp_rt.rank = rank;
	hp_rt.nranks = nranks;
}

/* First of the variables that is set to an integer, or -1. */
static int env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		char *end;
		if (!v || !*v)
			continue;
		long n = strtol(v, &end, 10);
		if (!*end && n >= 0 && n < (1L << 30))
			return (int)n;
	}
	return -1;
}

static void rank_from_env(void)
{
	static const char *const rank[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
	static const char *const size[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
	hp_rt.rank = env_int(rank);
	hp_rt.nranks = hp_rt.rank >= 0 ? env_int(size) : -1;
}

/* Only when calibration could not say (it normally reads CPUID 0x15). */
static double measure_tsc_hz(void)
{
	struct timespec d = {0, 2000000};
	uint64_t n0 = hp_now_ns(), c0 = hp_rdtsc();
	nanosleep(&d, NULL);
	uint64_t n1 = hp_now_ns(), c1 = hp_rdtsc();
	return n1 > n0 ? (double)(c1 - c0) * 1e9 / (double)(n1 - n0) : 0.0;
}

static void log_config_line(const char *line, void *arg)
{
	(void)arg;
	hp_log("%s", line);
}

static void start(void)
{
	hp_log_bind_stderr();
	hp_sigmask_resolve();
	hp_process_resolve();
	hp_thread_resolve();
	hp_rt.pid = getpid();
	hp_rt.start_ns = hp_now_ns();
	hp_rt.start_tsc = hp_rdtsc();
	hp_fmt(hp_rt.program, sizeof(hp_rt.program), "%s", program_invocation_short_name);
	rank_from_env();
	/* A bad value is logged and replaced by its default; only an output
	 * directory that cannot be named at all stops the profile. */
	hp_config_load_warn(&hp_rt.cfg, log_config_line, NULL);
	if (!hp_rt.cfg.output[0]) {
		hp_log("no output directory; %s runs unprofiled", hp_rt.program);
		return;
	}
	hp_fmt(hp_rt.out_dir, sizeof(hp_rt.out_dir), "%s", hp_rt.cfg.output);
	/* Descendants (fork, exec, system) write into the same directory. */
	setenv("HYPROF_OUTPUT", hp_rt.out_dir, 0);

	int rc = hp_calib_startup();
	if (rc)
		hp_log("calibration failed (%s): costs are not compensated", strerror(-rc));
	hp_rt.tsc_hz = hp_calib.tsc_hz > 0 ? hp_calib.tsc_hz : measure_tsc_hz();
	rc = hp_counting_init();
	if (rc)
		hp_log("probes are off (%s)", strerror(-rc));
	rc = hp_modules_init();
	if (rc)
		hp_log("the module map is incomplete (%s): some addresses may stay unresolved", strerror(-rc));

	/* The sampler logs its own one line when it fails; measured mode goes on
	 * with probes only. */
	rc = hp_sampler_init();
	if (rc && !(hp_rt.cfg.mode_set && hp_rt.cfg.mode == HP_MODE_MEASURED))
		return;
	hp_rt.initialized = 1;
	__atomic_store_n(&hp_rt.active, 1, __ATOMIC_SEQ_CST);
	if (!hp_thread_create()) {
		__atomic_store_n(&hp_rt.active, 0, __ATOMIC_SEQ_CST);
		hp_rt.initialized = 0;
		hp_sampler_shutdown();
		hp_log("%s runs unprofiled", hp_rt.program);
		return;
	}
	rc = hp_process_init();
	if (rc)
		hp_log("fork, exec and crash handling are off (%s)", strerror(-rc));
	hp_live_start(); /* live statistics; logs its own line on failure */
}

void hp_runtime_start(void)
{
	pthread_once(&start_once, start);
}

__attribute__((constructor)) static void hp_constructor(void)
{
	hp_runtime_start();
}

__attribute__((destructor)) static void hp_destructor(void)
{
	if (hp_rt.initialized && getpid() == hp_rt.pid)
		hp_runtime_finish("exit");
}

/* ---- pause, write, finish ---------------------------------------------- */

void hp_sampling_pause_all(void)
{
	__atomic_store_n(&hp_rt.active, 0, __ATOMIC_SEQ_CST);
	const struct hp_source_ops *s = hp_rt.source;
	if (s && s->pause)
		for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next)
			if (!t->exited)
				s->pause(t, 0);
	/* Handlers already past the active check finish their insert before we
	 * read the trees.  Bounded: a handler on this very thread (we were
	 * called from a fault inside it) never finishes. */
	struct hp_thread *me = hp_thread_self();
	int own = me && me->in_handler ? 1 : 0;
	struct timespec ts = {0, 100000};
	for (int i = 0; i < 1000 && hp_sampler_inflight() > own; i++)
		nanosleep(&ts, NULL);
}

void hp_sampling_resume_all(void)
{
	const struct hp_source_ops *s = hp_rt.source;
	if (s && s->pause)
		for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next)
			if (!t->exited)
				s->pause(t, 1);
	__atomic_store_n(&hp_rt.active, 1, __ATOMIC_SEQ_CST);
}

int hp_write_now(int partial, const char *why)
{
	uint64_t lost = hp_sampler_take_nothread();
	struct hp_thread *main_t = hp_main_thread ? hp_main_thread : hp_thread_self();
	if (lost && main_t)
		__atomic_add_fetch(&main_t->dropped[HP_DROP_NOTHREAD], lost, __ATOMIC_RELAXED);
	return hp_write_profile(partial, why);
}

int hp_has_data(void)
{
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		if (t->samples || t->meas_samples || t->mpi_samples || t->probe_events)
			return 1;
		for (int i = 0; i < HP_DROP_NREASONS; i++)
			if (t->dropped[i])
				return 1;
	}
	return 0;
}

void hp_print_summary(const char *how, int full)
{
	if (hp_rt.cfg.quiet)
		return;
	uint64_t samples = 0, dropped = 0;
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		samples += t->samples + t->meas_samples + t->mpi_samples;
		for (int i = 0; i < HP_DROP_NREASONS; i++)
			dropped += t->dropped[i];
	}
	char line[2048];
	size_t n = hp_fmt(line, sizeof(line), "hyprof: %s: %llu samples (%llu dropped), ", hp_rt.program,
			  (unsigned long long)samples, (unsigned long long)dropped);
	if (!hp_rt.source)
		n += hp_fmt(line + n, sizeof(line) - n, "no sampling");
	else if (hp_rt.period)
		n += hp_fmt(line + n, sizeof(line) - n, "%s @ %llu%s", hp_rt.source_event,
			    (unsigned long long)hp_rt.period, hp_rt.source_unit);
	else
		n += hp_fmt(line + n, sizeof(line) - n, "%s @ %lluHz", hp_rt.source_event,
			    (unsigned long long)hp_rt.cfg.freq);
	const char *path = hp_profile_path();
	if (path[0])
		n += hp_fmt(line + n, sizeof(line) - n, ", %sprofile %s", hp_rt.partial ? "partial " : "", path);
	else
		n += hp_fmt(line + n, sizeof(line) - n, ", no profile written");
	if (how && strcmp(how, "exit"))
		n += hp_fmt(line + n, sizeof(line) - n, " (%s)", how);
	if (full && hp_summary_hook) {
		char extra[512];
		int k = hp_summary_hook(extra, sizeof(extra));
		if (k > 0) {
			extra[sizeof(extra) - 1] = '\0';
			n += hp_fmt(line + n, sizeof(line) - n, ", %s", extra);
		}
	}
	if (n < sizeof(line) - 1)
		line[n++] = '\n';
	hp_write_stderr(line, n);
}

void hp_runtime_finish(const char *how)
{
	if (__atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL))
		return;
	struct hp_thread *me = hp_thread_self();
	if (me)
		me->busy++;
	hp_sampling_pause_all();
	hp_threads_close_all();
	hp_rt.end_ns = hp_now_ns();
	hp_live_stop(); /* last snapshot, marked ended */
	/* The frames still open on this thread (main, and whatever called
	 * exit) never get their exit probes: close them now, so measured mode
	 * gives them their time.  Then the probes stop: destructors that
	 * run after this do not push frames nobody closes. */
	hp_counting_thread_flush(me);
	hp_counting_shutdown();
	hp_write_now(0, NULL);
	hp_print_summary(how, !strcmp(how, "exit"));
	if (me)
		me->busy--;
}

/* Called in a forked child: the child finishes on its own. */
void hp_runtime_after_fork_child(void)
{
	finished = 0;
}
