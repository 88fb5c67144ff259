/* runtime/live.c - live statistics: a snapshot of the profile every
 * HYPROF_LIVE_INTERVAL seconds into <out_dir>/.live/<profile name>
 * (runtime/live.h, docs/cmd-watch.md).
 *
 * The thread.  Created with the real pthread_create (not the interposed one
 * in thread.c), so it has no struct hp_thread: it is not a program thread,
 * is never sampled, runs no probes and is not written as a THREAD section.
 * Every signal is blocked from its first instruction (the mask is set in the
 * creating thread around pthread_create), so no sampling or program signal
 * is ever delivered to it.  It keeps the process's normal priority, on
 * purpose: a snapshot costs the same CPU time whatever its priority (about
 * 0.5 ms here), and a low priority only delays it while it holds the write
 * lock.  Measured on this 2-core machine under load (3 busy threads, load
 * average 7): at nice 19 snapshots ran up to 256 ms late and one took 575 ms
 * of wall time with the lock held (an exit or a crash waits that long for
 * its write); at the normal priority at most 28 ms late and 24 ms long.
 * It sleeps on a futex word, so stopping it is one store and one wake, both
 * async-signal-safe (hp_live_stop() runs from _exit, which programs call in
 * signal handlers).
 *
 * The schedule is absolute (start + k * interval on CLOCK_MONOTONIC), so
 * snapshots do not drift by their own duration.  The first snapshot comes
 * one interval after start: a process shorter than the interval leaves no
 * live file and pays nothing but the thread's creation.
 *
 * fork: the parent's thread does not exist in the child.  The child handler
 * (pthread_atfork, registered at the first start) resets the state and
 * starts a new thread: a forked worker is a process a user wants to watch,
 * and it gets its own file (its pid is in the name).  A child that execs at
 * once pays one thread creation and writes nothing (it never reaches its
 * first interval).
 * exec: hp_live_exec(), called before the exec, stops the thread and marks
 * the live file `exec`; if the exec fails, hp_live_start() starts again.
 * (Without that call the thread dies with the old image and the file keeps
 * its last snapshot, which `hyprof watch` shows as no longer updated.)  The
 * new image, if profiled, starts its own.
 * rank: the file name carries the MPI rank once it is known; when the name
 * changes (MPI_Init), the file under the old name is removed after the first
 * write under the new one.
 *
 * Signal-safe: hp_live_stop(), hp_live_exec(), hp_live_cost_ns(), the LIVE
 * section writer.
 * Not signal-safe: hp_live_start() and the fork handler (create a thread).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "runtime/lifecycle.h"
#include "runtime/live.h"
#include "runtime/state.h"
#include "runtime/writer.h"

#define LIVE_STACK (256 * 1024)
#define LIVE_STOP_WAIT_MS 2000

enum { ST_RUNNING, ST_ENDED, ST_EXEC };
static const char *const state_names[] = {"running", "ended", "exec"};

static struct {
	int atfork;                /* child handler registered */
	pid_t pid;                 /* process whose thread this is */
	int started;               /* a thread of this process exists (until it is stopped) */
	int yielded;               /* stopped for good (hp_live_yield): never started again */
	int stop;                  /* futex word: 1 = stop (atomic) */
	int done;                  /* futex word: 1 = the thread has left its loop */
	int stopped;               /* stop requested for the current thread (atomic exchange) */
	pthread_t thread;
	clockid_t clock;           /* the thread's CPU clock */
	int clock_ok;
	uint64_t interval_ns;
	int state;                 /* ST_*: written in the LIVE section */
	char dir[4096];            /* <out_dir>/.live, fixed at start */
	char path[4096];           /* file of the last successful snapshot, "" if none */
	uint64_t snapshots, failed;
	uint64_t bytes;            /* size of the last snapshot */
	uint64_t write_wall_ns, write_max_ns;
	uint64_t late_max_ns;      /* longest delay of a snapshot after its time */
	uint64_t thread_cpu_ns;    /* CPU time of this process's snapshot threads that ended */
	uint64_t other_cpu_ns;     /* snapshots written on other threads (the last one) */
	int last_err;              /* last error logged, to log each kind once */
} L;

/* ---- small helpers -------------------------------------------------------- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long futex(int *word, int op, int val, const struct timespec *ts, uint32_t bitset)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, bitset);
}

static void wake(int *word)
{
	futex(word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1 << 30, NULL, 0);
}

/* <live dir>/<profile file name>.  The directory is fixed at start
 * (<out_dir>/.live): the MPI merge later points out_dir at a hidden
 * directory for the per-rank files, and the live file must not move.  The
 * name follows the profile's (the rank, once known).  Returns 0 or
 * -ENAMETOOLONG. */
static int live_path(char *buf, size_t len)
{
	static char name[4096];
	int rc = hp_profile_name(name, sizeof(name));
	if (rc)
		return rc;
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	size_t dl = strlen(L.dir), bl = strlen(base);
	if (dl + 1 + bl + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, L.dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, base, bl + 1);
	return 0;
}

/* ---- one snapshot --------------------------------------------------------- */

/* Write a snapshot now and account its cost.  `on_thread`: called by the
 * snapshot thread (its CPU is counted with the thread's clock), else by
 * another thread (CPU measured here).  Signal-safe. */
static int snapshot(int on_thread)
{
	static char path[4096];
	uint64_t c0 = on_thread ? 0 : clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t t0 = hp_now_ns(), bytes = 0;
	int rc = live_path(path, sizeof(path));
	if (!rc)
		rc = hp_write_snapshot(path, &bytes);
	uint64_t dt = hp_now_ns() - t0;
	if (!on_thread)
		L.other_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	if (rc) {
		L.failed++;
		if (rc != L.last_err) { /* once per kind of failure, not once a second */
			L.last_err = rc;
			hp_log("live statistics not written to %s: %s (errno %d); the profile at exit is "
			       "not affected",
			       path, hp_write_strerror(-rc), -rc);
		}
		return rc;
	}
	L.snapshots++;
	L.bytes = bytes;
	L.write_wall_ns += dt;
	if (dt > L.write_max_ns)
		L.write_max_ns = dt;
	if (L.path[0] && strcmp(L.path, path) != 0)
		unlink(L.path); /* the name changed (rank known now): no stale twin */
	memcpy(L.path, path, strlen(path) + 1);
	return 0;
}

/* HP_SEC_LIVE: a kv block (docs/cmd-watch.md).  Written in every snapshot
 * and in the final profile.  Signal-safe. */
static int live_write(struct hp_writer *w, void *arg)
{
	(void)arg;
	int rc = hp_writer_begin(w, HP_SEC_LIVE);
	rc = rc ? rc : hp_writer_kv_str(w, "state", state_names[L.state]);
	rc = rc ? rc : hp_writer_kv_u64(w, "interval_ns", L.interval_ns);
	rc = rc ? rc : hp_writer_kv_u64(w, "snapshots", L.snapshots);
	rc = rc ? rc : hp_writer_kv_u64(w, "failed", L.failed);
	rc = rc ? rc : hp_writer_kv_u64(w, "bytes", L.bytes);
	rc = rc ? rc : hp_writer_kv_u64(w, "write_wall_ns", L.write_wall_ns);
	rc = rc ? rc : hp_writer_kv_u64(w, "write_max_ns", L.write_max_ns);
	rc = rc ? rc : hp_writer_kv_u64(w, "late_max_ns", L.late_max_ns);
	rc = rc ? rc : hp_writer_kv_u64(w, "cpu_ns", hp_live_cost_ns());
	return rc ? rc : hp_writer_end(w);
}

uint64_t hp_live_cost_ns(void)
{
	uint64_t own = L.thread_cpu_ns;
	if (L.started && L.clock_ok && !__atomic_load_n(&L.done, __ATOMIC_ACQUIRE))
		own += clock_ns(L.clock);
	return own + L.other_cpu_ns;
}

/* ---- the end of a program that ended its main thread -----------------------
 * glibc ends a process when its last pthread ends, and it counts hyprof's own
 * threads (this one, the cost controller): after the program's main thread
 * called pthread_exit and its other threads returned, they alone would keep
 * the process alive, and the exit that writes the profile would never come.
 * So the snapshot thread leaves as soon as only hyprof's threads are left. */

HP_EXPORT int hp_only_helpers_left(void)
{
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (!t->exited)
			return 0; /* the cheap answer, nearly always */
	/* Every thread hyprof knows has ended: ask the kernel about the others
	 * (created before the runtime started, by clone, or starting now). */
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	int others = 0;
	struct dirent *de;
	while (!others && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		/* "tid (comm) S ...": comm may hold spaces and parentheses */
		char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
		if (!open_p || !close_p || close_p[1] != ' ')
			continue;
		char state = close_p[2];
		if (state == 'Z' || state == 'X')
			continue; /* ended (the main thread after pthread_exit) */
		*close_p = 0;
		if (strncmp(open_p + 1, "hyprof-", 7) != 0)
			others = 1;
	}
	closedir(d);
	return !others;
}

/* ---- the thread ----------------------------------------------------------- */

static void *live_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "hyprof-live", 0, 0, 0);
	L.clock_ok = pthread_getcpuclockid(pthread_self(), &L.clock) == 0;
	uint64_t due = hp_now_ns() + L.interval_ns;
	while (!__atomic_load_n(&L.stop, __ATOMIC_ACQUIRE)) {
		/* Once the main thread has ended (pthread_exit), look every 100 ms
		 * whether the program has any thread left. */
		uint64_t wake_at = due;
		int main_gone = hp_main_thread && hp_main_thread->exited;
		if (main_gone && wake_at > hp_now_ns() + 100000000ull)
			wake_at = hp_now_ns() + 100000000ull;
		struct timespec abs = {(time_t)(wake_at / 1000000000ull), (long)(wake_at % 1000000000ull)};
		/* Absolute CLOCK_MONOTONIC timeout; returns at once if stop is set. */
		futex(&L.stop, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &abs, FUTEX_BITSET_MATCH_ANY);
		if (__atomic_load_n(&L.stop, __ATOMIC_ACQUIRE))
			break;
		if (main_gone && hp_only_helpers_left())
			break; /* let the process end: the exit writes the last snapshot */
		uint64_t now = hp_now_ns();
		if (now < due)
			continue; /* woken early (spurious, EINTR, the 100 ms look): wait again */
		if (now - due > L.late_max_ns)
			L.late_max_ns = now - due;
		if (hp_rt.initialized)
			snapshot(1);
		/* Absolute schedule: snapshots do not drift by their own duration;
		 * after a long stall (SIGSTOP, a slow disk) it starts over from now. */
		due += L.interval_ns;
		now = hp_now_ns();
		if (due <= now)
			due = now + L.interval_ns;
	}
	L.thread_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID);
	__atomic_store_n(&L.done, 1, __ATOMIC_RELEASE);
	wake(&L.done);
	return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void live_after_fork_child(void);

int hp_live_start(void)
{
	if (!hp_rt.initialized || !hp_rt.cfg.live || !hp_rt.out_dir[0] || L.yielded)
		return 0;
	pid_t pid = getpid();
	if (L.started && L.pid == pid)
		return 0; /* running (or a stuck thread that did not stop) */
	static pthread_create_fn real_create;
	if (!real_create)
		real_create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!real_create) {
		hp_log("live statistics are off: the real pthread_create was not found");
		return -ENOSYS;
	}
	if (!L.atfork) {
		if (pthread_atfork(NULL, NULL, live_after_fork_child) == 0)
			L.atfork = 1;
		hp_register_live_section_writer(live_write, NULL);
	}
	size_t ol = strlen(hp_rt.out_dir);
	while (ol > 1 && hp_rt.out_dir[ol - 1] == '/')
		ol--;
	if (ol + sizeof("/.live") > sizeof(L.dir)) {
		hp_log("live statistics are off: the output directory's name is too long");
		return -ENAMETOOLONG;
	}
	memcpy(L.dir, hp_rt.out_dir, ol);
	memcpy(L.dir + ol, "/.live", sizeof("/.live"));
	L.pid = pid;
	/* HYPROF_LIVE_INTERVAL, checked by runtime/config.c (0.05 to 86400 s) */
	double sec = hp_rt.cfg.live_interval > 0 ? hp_rt.cfg.live_interval : HP_LIVE_DEFAULT_INTERVAL;
	L.interval_ns = (uint64_t)(sec * 1e9 + 0.5);
	L.state = ST_RUNNING;
	__atomic_store_n(&L.stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&L.done, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&L.stopped, 0, __ATOMIC_RELEASE);

	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, LIVE_STACK);
	sigset_t all, old;
	sigfillset(&all);
	hp_sigmask_real(SIG_SETMASK, &all, &old); /* inherited: blocked from the start */
	int rc = real_create(&L.thread, &a, live_main, NULL);
	hp_sigmask_real(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc) {
		hp_log("live statistics are off: cannot create their thread (%s)", strerror(rc));
		return -rc;
	}
	L.started = 1;
	return 0;
}

/* Stop the thread and write the last snapshot marked `state`.  Signal-safe. */
static void stop_as(int state)
{
	if (!L.started || L.pid != (pid_t)syscall(SYS_getpid))
		return;
	if (__atomic_exchange_n(&L.stopped, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&L.stop, 1, __ATOMIC_RELEASE);
	wake(&L.stop);
	/* Bounded: a snapshot in progress takes milliseconds. */
	uint64_t limit = hp_now_ns() + LIVE_STOP_WAIT_MS * 1000000ull;
	while (!__atomic_load_n(&L.done, __ATOMIC_ACQUIRE)) {
		uint64_t now = hp_now_ns();
		if (now >= limit) {
			hp_log("live statistics: the snapshot thread did not stop within 2 s; the live "
			       "file keeps its last snapshot");
			return;
		}
		struct timespec rel = {0, 10000000}; /* re-check every 10 ms at most */
		futex(&L.done, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel, 0);
	}
	L.started = 0; /* gone: hp_live_start() may start another (a failed exec) */
	/* The last snapshot: the live file then holds the process's final
	 * statistics.  Only if there is a live file already: a process shorter
	 * than one interval leaves none. */
	if (L.path[0]) {
		L.state = state;
		snapshot(0);
	}
}

void hp_live_stop(void)
{
	stop_as(ST_ENDED);
}

void hp_live_exec(void)
{
	stop_as(ST_EXEC);
}

int hp_live_yield(void)
{
	L.yielded = 1;
	if (!L.started || L.pid != (pid_t)syscall(SYS_getpid))
		return 0;
	stop_as(ST_ENDED);
	return !L.started;
}

/* ---- fork ----------------------------------------------------------------- */

static void live_after_fork_child(void)
{
	if (!L.started)
		return;
	/* The parent's thread does not exist here; its counters are not ours. */
	L.started = 0;
	L.thread_cpu_ns = 0;
	L.path[0] = 0;
	L.snapshots = L.failed = L.bytes = 0;
	L.write_wall_ns = L.write_max_ns = L.late_max_ns = L.other_cpu_ns = 0;
	L.last_err = 0;
	hp_live_start();
}

