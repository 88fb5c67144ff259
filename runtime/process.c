/* runtime/process.c - fork, exec, _exit and fatal signals.
 *
 * fork:   pthread_atfork; the child forgets the parent's threads, resets its
 *         own trees and counters, restarts its sample source and writes its
 *         own profile (named by its pid) when it ends.
 * exec:   the exec family is interposed: sampling stops on every thread,
 *         pending sampling signals are discarded, the profile is written
 *         (partial, "exec"), then the real exec runs; if it fails, sampling
 *         resumes.  The new image is profiled through the environment.
 * _exit:  _exit, _Exit and quick_exit write the profile, then run.
 * fatal signals: SIGSEGV SIGBUS SIGFPE SIGILL SIGABRT SIGTRAP SIGSYS, and
 *         SIGTERM SIGINT SIGQUIT SIGHUP SIGPIPE SIGXCPU while their default
 *         action is in force, get a handler that writes the profile marked
 *         partial with the signal's name, restores SIG_DFL and lets the
 *         signal kill the process as it would have.  sigaction/signal are
 *         interposed so the program's own handlers for these signals keep
 *         working: they are recorded and called (chained) by our handler,
 *         which then writes nothing, and the program always sees its own
 *         disposition as the old one.
 *
 * Signal-safe: the fatal handler, _exit and the exec wrappers up to the real
 * call (no malloc, no stdio, no locks; execl* build argv on the stack).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "calib/cost.h"
#include "counting/counting.h"
#include "runtime/lifecycle.h"
#include "runtime/live.h"
#include "runtime/state.h"
#include "sampler/sampler.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef void (*exit_fn)(int);
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
typedef pid_t (*fork_fn)(void);

static struct {
	execve_fn execve, execvpe;
	execv_fn execv, execvp;
	fexecve_fn fexecve;
	execveat_fn execveat;
	exit_fn _exit, _Exit, quick_exit;
	sigaction_fn sigaction;
	signal_fn signal, bsd_signal, sysv_signal;
	fork_fn fork;
} real;

#define RESOLVE(name) \
	do { \
		if (!real.name) \
			*(void **)&real.name = dlsym(RTLD_NEXT, #name); \
	} while (0)

void hp_process_resolve(void)
{
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(execv);
	RESOLVE(execvp);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(quick_exit);
	RESOLVE(sigaction);
	RESOLVE(signal);
	RESOLVE(bsd_signal);
	RESOLVE(sysv_signal);
	RESOLVE(fork);
}

int hp_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real.sigaction)
		hp_process_resolve();
	return real.sigaction(sig, act, old);
}

/* A process that is not the one the runtime knows: a vfork child (shares
 * our memory; must not touch it) or a clone without fork handlers. */
static int foreign_process(void)
{
	return (pid_t)syscall(SYS_getpid) != hp_rt.pid;
}

/* ---- fatal signals ----------------------------------------------------- */

enum { ALWAYS, IF_DEFAULT };

struct managed {
	int sig;
	int when;               /* ALWAYS, or IF_DEFAULT: only while SIG_DFL */
	volatile int installed; /* our handler is the kernel's disposition */
	struct sigaction prog;  /* the disposition the program believes it has */
};

static struct managed managed[] = {
	{.sig = SIGSEGV, .when = ALWAYS},     {.sig = SIGBUS, .when = ALWAYS},
	{.sig = SIGFPE, .when = ALWAYS},      {.sig = SIGILL, .when = ALWAYS},
	{.sig = SIGABRT, .when = ALWAYS},     {.sig = SIGTRAP, .when = ALWAYS},
	{.sig = SIGSYS, .when = ALWAYS},      {.sig = SIGTERM, .when = IF_DEFAULT},
	{.sig = SIGINT, .when = IF_DEFAULT},  {.sig = SIGQUIT, .when = IF_DEFAULT},
	{.sig = SIGHUP, .when = IF_DEFAULT},  {.sig = SIGPIPE, .when = IF_DEFAULT},
	{.sig = SIGXCPU, .when = IF_DEFAULT},
	/* the kernel's fallback when a perf event's real-time signal cannot be
	 * queued: see fatal_handler() */
	{.sig = SIGIO, .when = IF_DEFAULT},
};
#define NMANAGED (sizeof(managed) / sizeof(managed[0]))

static int managing; /* handlers installed (runtime started) */
static volatile pid_t writer_tid;
static volatile int fatal_written;
static int sigio_dropped; /* a kernel SIGIO was dropped (logged once) */

static struct managed *find_managed(int sig)
{
	if (!managing)
		return NULL;
	for (size_t i = 0; i < NMANAGED; i++)
		if (managed[i].sig == sig)
			return &managed[i];
	return NULL;
}

static int is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void fatal_handler(int sig, siginfo_t *si, void *uc);

static int install(struct managed *m)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	/* SA_ONSTACK: a stack overflow still runs the handler (each thread gets
	 * an alternate stack).  SA_RESTART follows the program's wish, because it
	 * decides whether its blocking calls see EINTR. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (m->prog.sa_flags & SA_RESTART);
	sigemptyset(&sa.sa_mask);
	if (hp_rt.sig > 0)
		sigaddset(&sa.sa_mask, hp_rt.sig); /* no samples while we write */
	if (real.sigaction(m->sig, &sa, NULL))
		return -errno;
	m->installed = 1;
	return 0;
}

static void die_by(int sig, siginfo_t *si)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	real.sigaction(sig, &dfl, NULL);
	/* A fault raised by the instruction itself happens again when the
	 * handler returns, now with the default action, and the core shows the
	 * real fault.  Anything else (abort, kill, int3, seccomp) is raised again
	 * on this thread: it stays pending (blocked while we run) and kills the
	 * process as soon as the handler returns. */
	int refaults = si && si->si_code > 0 &&
		(sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
	if (!refaults)
		syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), sig);
}

/* Run the program's handler as the kernel would have: its mask (plus the
 * signal unless SA_NODEFER) on top of the interrupted context's mask, and
 * SA_RESETHAND honoured. */
static void chain(struct managed *m, int sig, siginfo_t *si, void *uc)
{
	struct sigaction p = m->prog;
	if (p.sa_flags & SA_RESETHAND) {
		memset(&m->prog, 0, sizeof(m->prog));
		m->prog.sa_handler = SIG_DFL;
	}
	sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&p.sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (!(p.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	else
		sigdelset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	/* A fault inside our own unwinder (bad frame chain) is recovered there,
	 * the sample keeping the frames read so far: this does not return when
	 * it is the case. */
	if (sig == SIGSEGV || sig == SIGBUS)
		hp_sampler_fault_recover(sig);
	struct managed *m = find_managed(sig);
	if (!m) { /* not ours any more: act as the default would */
		die_by(sig, si);
		errno = saved;
		return;
	}
	if (is_handler(&m->prog)) {
		chain(m, sig, si, uc);
		errno = saved;
		return;
	}
	if (m->prog.sa_handler == SIG_IGN) {
		errno = saved;
		return;
	}
	/* A SIGIO from the kernel (SI_KERNEL) while the program keeps the
	 * default action: when the user's queue of real-time signals is full,
	 * fs/fcntl.c send_sigio_to_task() sends SIGIO instead of an O_ASYNC
	 * file's F_SETSIG signal, and SIGIO's default action ends the process.
	 * The files are hyprof's perf events (a program's own O_ASYNC file
	 * would have killed it without hyprof too): drop it and sample on. */
	if (sig == SIGIO && si && si->si_code == SI_KERNEL && hp_rt.source) {
		if (!__atomic_exchange_n(&sigio_dropped, 1, __ATOMIC_RELAXED))
			hp_log("a SIGIO from the kernel (the queue of real-time signals was full) was ignored: "
			       "its default action would have ended the program");
		errno = saved;
		return;
	}
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (!foreign_process() && hp_rt.initialized && writer_tid != me) {
		/* Another thread may be writing (two threads crashing at once):
		 * let it finish, within two seconds, rather than die mid-file. */
		pid_t expect = 0;
		if (__atomic_compare_exchange_n(&writer_tid, &expect, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			if (!fatal_written) {
				char nb[32];
				const char *name = hp_signal_name(sig, nb, sizeof(nb));
				hp_rt.partial = 1;
				hp_sampling_pause_all();
				hp_threads_snapshot();
				/* the process ends here: this thread's open frames
				 * close at the signal, as at exit */
				hp_counting_thread_flush(hp_thread_self());
				hp_counting_shutdown();
				hp_write_now(1, name);
				fatal_written = 1;
				char how[64];
				hp_fmt(how, sizeof(how), "killed by %s", name);
				hp_print_summary(how, 0);
			}
			__atomic_store_n(&writer_tid, 0, __ATOMIC_RELEASE);
		} else {
			struct timespec ts = {0, 1000000};
			for (int i = 0; i < 2000 && __atomic_load_n(&writer_tid, __ATOMIC_ACQUIRE); i++)
				nanosleep(&ts, NULL);
		}
	}
	die_by(sig, si);
	errno = saved;
}

static volatile int warned_sampling_signal;

/* The program installs a handler for the sampling signal: warn once and keep
 * ours (the program's would receive signals it cannot interpret). */
static int guard_sampling_signal(int sig, int is_fn);

/* The program changes the disposition of a signal we manage. */
static int managed_set(struct managed *m, const struct sigaction *act, struct sigaction *old)
{
	if (old)
		*old = m->prog;
	if (!act)
		return 0;
	m->prog = *act;
	if (act->sa_handler == SIG_IGN) {
		/* Really ignored: pending instances are discarded and the setting
		 * survives exec, exactly as without hyprof. */
		if (real.sigaction(m->sig, act, NULL))
			return -1;
		m->installed = 0;
		return 0;
	}
	return install(m) ? -1 : 0;
}

HP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real.sigaction)
		hp_process_resolve();
	struct managed *m = find_managed(sig);
	if (m && !foreign_process())
		return managed_set(m, act, old);
	if (act && guard_sampling_signal(sig, is_handler(act))) {
		if (old) {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
		return 0;
	}
	return real.sigaction(sig, act, old);
}

/* is_fn: the new disposition is a function.  SIG_DFL and SIG_IGN are kept
 * out silently: programs reset every signal before an exec (git's
 * run-command.c), and another --signal would not help them. */
static int guard_sampling_signal(int sig, int is_fn)
{
	if (sig != hp_rt.sig || !hp_rt.active || foreign_process())
		return 0;
	if (is_fn && !__atomic_exchange_n(&warned_sampling_signal, 1, __ATOMIC_RELAXED)) {
		char nb[32];
		hp_log("the program installs a handler for %s, the signal hyprof samples with: hyprof keeps "
		       "its own (set HYPROF_SIGNAL or --signal to another signal)",
		       hp_signal_name(sig, nb, sizeof(nb)));
	}
	return 1;
}

static sighandler_t signal_common(int sig, sighandler_t h, int flags, signal_fn fallback)
{
	if (guard_sampling_signal(sig, h != SIG_DFL && h != SIG_IGN && h != SIG_ERR))
		return SIG_DFL;
	struct managed *m = find_managed(sig);
	if (!m || foreign_process())
		return fallback(sig, h);
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = h;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (!(flags & SA_NODEFER))
		sigaddset(&act.sa_mask, sig);
	if (managed_set(m, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}

HP_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	if (!real.signal)
		hp_process_resolve();
	return signal_common(sig, h, SA_RESTART, real.signal);
}

HP_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	if (!real.bsd_signal)
		hp_process_resolve();
	return signal_common(sig, h, SA_RESTART, real.bsd_signal);
}

HP_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	if (!real.sysv_signal)
		hp_process_resolve();
	return signal_common(sig, h, SA_RESETHAND | SA_NODEFER, real.sysv_signal);
}

/* ---- alternate signal stacks ------------------------------------------- */

void hp_altstack_setup(struct hp_thread_mem *m)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) || !(cur.ss_flags & SS_DISABLE))
		return; /* the thread has its own: leave it */
	void *p = mmap(NULL, HP_ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	stack_t ss = {.ss_sp = p, .ss_size = HP_ALTSTACK_SIZE, .ss_flags = 0};
	if (sigaltstack(&ss, NULL)) {
		munmap(p, HP_ALTSTACK_SIZE);
		return;
	}
	m->altstack = p;
}

void hp_altstack_release(struct hp_thread_mem *m)
{
	if (!m->altstack)
		return;
	stack_t cur;
	/* Only if it is still ours and we are not running on it. */
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == m->altstack && !(cur.ss_flags & SS_ONSTACK)) {
		stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
		if (sigaltstack(&off, NULL) == 0) {
			munmap(m->altstack, HP_ALTSTACK_SIZE);
			m->altstack = NULL;
		}
	}
}

/* ---- fork -------------------------------------------------------------- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&hp_threads_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&hp_threads_lock);
}

static void fork_child(void)
{
	if (!hp_rt.initialized)
		return;
	hp_rt.pid = getpid();
	hp_rt.start_ns = hp_now_ns();
	hp_rt.start_tsc = hp_rdtsc();
	hp_rt.end_ns = 0;
	hp_rt.written = 0;
	hp_rt.partial = 0;
	writer_tid = 0;
	fatal_written = 0;
	hp_runtime_after_fork_child();
	hp_sampler_after_fork_child();
	hp_threads_after_fork_child();
}

/* fork itself is interposed only for a fork refused with EAGAIN: hyprof's
 * helper threads count against the user's RLIMIT_NPROC (thread.c,
 * hp_helpers_yield). */
HP_EXPORT pid_t fork(void)
{
	if (!real.fork)
		hp_process_resolve();
	if (!real.fork) {
		errno = ENOSYS;
		return -1;
	}
	pid_t pid = real.fork();
	if (pid >= 0 || errno != EAGAIN || !hp_rt.initialized || foreign_process() ||
	    !hp_helpers_yield("process", EAGAIN))
		return pid;
	for (int i = 0; i < HP_HELPERS_TRIES && pid < 0 && errno == EAGAIN; i++) {
		hp_helpers_wait();
		pid = real.fork();
	}
	return pid;
}

/* ---- exec -------------------------------------------------------------- */

/* The calling thread's open frames closed for the partial write at exec. */
static __thread struct hp_open_save exec_open __attribute__((tls_model("initial-exec")));

static int exec_prepare(void)
{
	if (!hp_rt.initialized || foreign_process())
		return 0;
	int saved = errno;
	hp_sampling_pause_all();
	hp_sampler_discard_pending();
	hp_threads_snapshot();
	/* A fork child that execs at once (the fork-exec idiom) has nothing to
	 * say: no empty partial file beside the new image's profile. */
	if (hp_has_data()) {
		/* measured mode: the calling thread's open frames (main, and
		 * what called exec) get their time in this profile; reopened
		 * as they were if the exec fails */
		hp_counting_open_close(hp_thread_self(), &exec_open);
		hp_write_now(1, "exec");
	}
	hp_live_exec();
	errno = saved;
	return 1;
}

static void exec_failed(int prepared)
{
	if (!prepared)
		return;
	int saved = errno;
	/* The program goes on: so does its profile.  The final write at exit
	 * replaces the partial one. */
	hp_rt.partial = 0;
	hp_counting_open_restore(hp_thread_self(), &exec_open);
	hp_sampler_restore_handler();
	hp_sampling_resume_all();
	hp_cost_resume();
	hp_live_start();
	errno = saved;
}

/* One exec call of any of the v-forms: which function, and its arguments
 * (unused ones are zero). */
enum exec_kind { EXEC_VE, EXEC_V, EXEC_VP, EXEC_VPE, EXEC_FD, EXEC_AT };

struct exec_call {
	enum exec_kind kind;
	int fd; /* fexecve: the file; execveat: the directory */
	const char *path;
	char *const *argv;
	char *const *envp;
	int flags; /* execveat */
};

/* The C library has this exec function (execveat needs glibc 2.34). */
static int have_real(enum exec_kind kind)
{
	switch (kind) {
	case EXEC_VE: return real.execve != NULL;
	case EXEC_V: return real.execv != NULL;
	case EXEC_VP: return real.execvp != NULL;
	case EXEC_VPE: return real.execvpe != NULL;
	case EXEC_FD: return real.fexecve != NULL;
	case EXEC_AT: return real.execveat != NULL;
	}
	return 0;
}

/* The new image is profiled only if its environment still preloads the
 * runtime: `env -i`, sudo and some launchers clean it.  Say so once per
 * process rather than lose the child in silence.  No malloc (vfork child). */
static int started_preloaded; /* this process was started with LD_PRELOAD=...libhyprof */

/* environ itself, not getenv: bash has its own getenv, which finds
 * nothing before its main has read the environment (its children's execs
 * then went unwarned). */
__attribute__((constructor)) static void note_preload(void)
{
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11))
			started_preloaded = strstr(*e, "libhyprof") != NULL;
}

static void warn_unprofiled_exec(const struct exec_call *c)
{
	static volatile int warned;
	/* a program linked with -lhyprof profiles its children only if they
	 * are linked too: nothing to say about it */
	if (warned || !started_preloaded || !hp_rt.initialized || foreign_process())
		return;
	char *const *env = c->envp;
	if (c->kind == EXEC_V || c->kind == EXEC_VP)
		env = environ;
	if (!env)
		return;
	for (char *const *e = env; *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11) && strstr(*e, "libhyprof"))
			return;
	warned = 1;
	hp_log("%s executes %s with an environment whose LD_PRELOAD lacks libhyprof.so (env -i, sudo, "
	       "...): it will not be profiled",
	       hp_rt.program, c->path ? c->path : "a file descriptor");
}

/* What keeps the loader from preloading the runtime into the file at
 * PATH: statically linked (no PT_INTERP), or set-user/group-ID for another
 * user (secure execution).  NULL when nothing does (or the file cannot be
 * read: the exec will say why).  Signal-safe: open, pread, fstat, close. */
static const char *unpreloadable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	const char *why = NULL;
	struct stat st;
	Elf64_Ehdr eh;
	if (fstat(fd, &st) == 0 && (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
				     ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())))
		why = "set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it";
	else if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		 eh.e_ident[EI_CLASS] == ELFCLASS64) {
		why = "statically linked: nothing can be preloaded into it";
		for (int i = 0; i < eh.e_phnum && i < 256; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof ph || ph.p_type == PT_INTERP) {
				why = NULL;
				break;
			}
		}
	}
	close(fd);
	return why;
}

/* The file execvp would run for FILE (PATH searched as it does), into buf;
 * NULL if none.  Signal-safe. */
static const char *exec_file(const char *file, char *buf, size_t len)
{
	if (!file || !*file || strchr(file, '/'))
		return file;
	const char *path = getenv("PATH");
	size_t fl = strlen(file);
	for (const char *p = path ? path : "/bin:/usr/bin"; p; ) {
		const char *end = strchr(p, ':');
		size_t dl = end ? (size_t)(end - p) : strlen(p);
		if (dl + fl + 2 <= len) {
			memcpy(buf, p, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, file, fl + 1);
			if (access(dl ? buf : file, X_OK) == 0)
				return dl ? buf : file;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The new image cannot be profiled whatever its environment says: say so
 * (once per process, or per vfork child) rather than lose its time in silence; the report
 * lists only the processes that wrote a profile.  `hyprof run` refuses
 * such a program itself; this is for one a profiled program runs. */
static void warn_unpreloadable_exec(const struct exec_call *c)
{
	static volatile int warned;
	char buf[PATH_MAX];
	/* a vfork child too (dash runs commands so, posix_spawn likewise): it
	 * only reads, and writes one line, while its parent waits */
	if (warned || !started_preloaded || !hp_rt.initialized || !c->path)
		return;
	if (c->kind == EXEC_AT && c->path[0] != '/' && c->fd != AT_FDCWD)
		return;
	const char *file = c->kind == EXEC_VP || c->kind == EXEC_VPE ? exec_file(c->path, buf, sizeof buf)
								    : c->path;
	const char *why = file ? unpreloadable(file) : NULL;
	if (!why)
		return;
	warned = 1;
	hp_log("%s executes %s, which is %s: it will not be profiled", hp_rt.program, c->path, why);
}

/* Write the profile, run the real exec, and resume profiling if it
 * returns.  Returns what the real exec returns (-1 with errno; ENOSYS when
 * the C library lacks the function).  Signal-safe up to the real call. */
static int exec_profiled(const struct exec_call *c)
{
	if (!have_real(c->kind))
		hp_process_resolve();
	if (!have_real(c->kind)) {
		errno = ENOSYS;
		return -1;
	}
	warn_unprofiled_exec(c);
	warn_unpreloadable_exec(c);
	int p = exec_prepare();
	int rc = -1;
	switch (c->kind) {
	case EXEC_VE: rc = real.execve(c->path, c->argv, c->envp); break;
	case EXEC_V: rc = real.execv(c->path, c->argv); break;
	case EXEC_VP: rc = real.execvp(c->path, c->argv); break;
	case EXEC_VPE: rc = real.execvpe(c->path, c->argv, c->envp); break;
	case EXEC_FD: rc = real.fexecve(c->fd, c->argv, c->envp); break;
	case EXEC_AT: rc = real.execveat(c->fd, c->path, c->argv, c->envp, c->flags); break;
	}
	exec_failed(p);
	return rc;
}

HP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_profiled(&(struct exec_call){.kind = EXEC_VE, .path = path, .argv = argv, .envp = envp});
}

HP_EXPORT int execv(const char *path, char *const argv[])
{
	return exec_profiled(&(struct exec_call){.kind = EXEC_V, .path = path, .argv = argv});
}

HP_EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_profiled(&(struct exec_call){.kind = EXEC_VP, .path = file, .argv = argv});
}

HP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_profiled(&(struct exec_call){.kind = EXEC_VPE, .path = file, .argv = argv, .envp = envp});
}

HP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return exec_profiled(&(struct exec_call){.kind = EXEC_FD, .fd = fd, .argv = argv, .envp = envp});
}

HP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	return exec_profiled(&(struct exec_call){
		.kind = EXEC_AT, .fd = dirfd, .path = path, .argv = argv, .envp = envp, .flags = flags});
}

/* execl, execlp, execle: argv is built on the stack (no malloc: these may
 * run in a vfork child), as glibc does. */
#define HP_EXECL_MAX 4096

static int count_args(const char *arg0, va_list ap)
{
	int n = 1;
	if (!arg0)
		return 0;
	while (va_arg(ap, const char *))
		n++;
	return n;
}

/* The list forms: collect arg and the NULL-terminated arguments after it
 * from `ap` (and, for EXEC_VE, the envp after the NULL) into an argv on the
 * stack, then exec as `kind` (EXEC_V, EXEC_VP or EXEC_VE).  Returns -1 with
 * errno (E2BIG past HP_EXECL_MAX arguments). */
static int exec_list(enum exec_kind kind, const char *path, const char *arg, va_list ap)
{
	va_list count;
	va_copy(count, ap);
	int n = count_args(arg, count);
	va_end(count);
	if (n >= HP_EXECL_MAX) {
		errno = E2BIG;
		return -1;
	}
	char *argv[n + 1];
	argv[0] = (char *)arg;
	for (int i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	argv[n] = NULL;
	struct exec_call c = {.kind = kind, .path = path, .argv = argv};
	if (kind == EXEC_VE)
		c.envp = va_arg(ap, char *const *);
	return exec_profiled(&c);
}

HP_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(EXEC_V, path, arg, ap);
	va_end(ap);
	return rc;
}

HP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(EXEC_VP, file, arg, ap);
	va_end(ap);
	return rc;
}

HP_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(EXEC_VE, path, arg, ap);
	va_end(ap);
	return rc;
}

/* ---- _exit ------------------------------------------------------------- */

static void before_exit(const char *how)
{
	if (!hp_rt.initialized || foreign_process())
		return;
	hp_runtime_finish(how);
}

HP_EXPORT void _exit(int status)
{
	if (!real._exit)
		hp_process_resolve();
	before_exit("_exit");
	real._exit(status);
	__builtin_unreachable();
}

HP_EXPORT void _Exit(int status)
{
	if (!real._Exit)
		hp_process_resolve();
	before_exit("_Exit");
	real._Exit(status);
	__builtin_unreachable();
}

HP_EXPORT void quick_exit(int status)
{
	if (!real.quick_exit)
		hp_process_resolve();
	before_exit("quick_exit");
	real.quick_exit(status);
	__builtin_unreachable();
}

/* ---- set-up ------------------------------------------------------------ */

int hp_process_init(void)
{
	hp_process_resolve();
	if (!real.sigaction || !real.execve || !real._exit)
		return -ENOSYS;
	static int atfork_done;
	if (!atfork_done && pthread_atfork(fork_prepare, fork_parent, fork_child) == 0)
		atfork_done = 1;
	for (size_t i = 0; i < NMANAGED; i++) {
		struct managed *m = &managed[i];
		if (real.sigaction(m->sig, NULL, &m->prog))
			continue;
		if (m->prog.sa_handler == SIG_IGN)
			continue;
		if (m->when == IF_DEFAULT && m->prog.sa_handler != SIG_DFL && !is_handler(&m->prog))
			continue;
		install(m);
	}
	managing = 1;
	return 0;
}
