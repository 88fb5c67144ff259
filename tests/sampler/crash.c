/* crash: crash_work, then die the way argv[1] says:
 *   segv  write through a NULL pointer      abort  abort()
 *   term  raise(SIGTERM)                     exit3  _exit(3)
 *   quick quick_exit(4)
 *   handled  a SIGSEGV handler of our own recovers (siglongjmp), exit 0
 *   sigrt    install a handler on SIGRTMIN+3 (hyprof's signal), exit 0
 *   sigrt-reset  set SIGRTMIN+3 to SIG_DFL and SIG_IGN (as git does for
 *            every signal before an exec), exit 0
 *   sigio-kernel  send itself the SIGIO the kernel sends when a queue of
 *            real-time signals is full (si_code SI_KERNEL): alone it dies
 *            of SIGIO; under hyprof (which samples with O_ASYNC perf
 *            events, the files such a SIGIO is about) it goes on, exit 0
 *   sigio-user  kill(getpid(), SIGIO): dies of SIGIO, with or without hyprof
 *   fds-exit, fds-abort  open /dev/null until EMFILE (every descriptor the
 *            limit allows stays open), then exit 3 or abort(): hyprof's
 *            profile still needs one descriptor
 * Usage: crash MODE [millions of steps] */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "work.h"

static sigjmp_buf back;
static volatile int *volatile nullp; /* NULL, opaque to the compiler */
static volatile sig_atomic_t caught;

static void on_segv(int sig) { (void)sig; caught++; siglongjmp(back, 1); }
static void on_rt(int sig) { (void)sig; }

__attribute__((noinline)) void crash_work(unsigned long n) { spin(n); }
__attribute__((noinline)) void after_recovery(unsigned long n) { spin(n); }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "segv";
	unsigned long n = arg_m(argc, argv, 2, 200);
	if (!strcmp(mode, "handled")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_segv;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
	}
	if (!strcmp(mode, "sigrt"))
		signal(SIGRTMIN + 3, on_rt);
	if (!strcmp(mode, "sigrt-reset")) {
		struct sigaction ign;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		signal(SIGRTMIN + 3, SIG_DFL);
		sigaction(SIGRTMIN + 3, &ign, NULL);
	}
	if (!strncmp(mode, "fds-", 4)) {
		while (open("/dev/null", O_RDONLY) >= 0)
			;
		if (errno != EMFILE)
			return 97;
	}
	crash_work(n);
	if (!strcmp(mode, "fds-exit"))
		return 3;
	if (!strcmp(mode, "segv") || !strcmp(mode, "handled")) {
		if (sigsetjmp(back, 1) == 0)
			*nullp = 1;
		if (!caught)
			return 99;
		after_recovery(n);
		struct sigaction cur;
		sigaction(SIGSEGV, NULL, &cur);
		return cur.sa_handler == on_segv ? 0 : 98;
	}
	if (!strcmp(mode, "abort") || !strcmp(mode, "fds-abort"))
		abort();
	if (!strcmp(mode, "term"))
		raise(SIGTERM);
	if (!strcmp(mode, "exit3"))
		_exit(3);
	if (!strcmp(mode, "quick"))
		quick_exit(4);
	if (!strcmp(mode, "sigio-kernel")) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGIO;
		si.si_code = SI_KERNEL;
		syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGIO, &si);
	}
	if (!strcmp(mode, "sigio-user"))
		kill(getpid(), SIGIO);
	return 0;
}
