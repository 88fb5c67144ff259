/* runtime/sigmask.c - the sampling signal stays deliverable.
 *
 * A program that blocks every signal (sigfillset + sigprocmask or
 * pthread_sigmask: around a critical section, in a signal-handling thread,
 * for a whole worker) would take no sample meanwhile, and the samples'
 * signals would queue up.  The sampling signal is hyprof's own (the
 * program does not know it), so the wrappers below take it out of any set
 * the program blocks; everything else is passed through unchanged, and
 * the old mask returned is the real one.  hyprof's own code that must block
 * it (while a thread's ring goes away) calls hp_sigmask_real().
 *
 * Signal-safe: the wrappers and hp_sigmask_real() (the real functions are
 * resolved at start-up; before that, the system call itself).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
static mask_fn real_pthread_sigmask, real_sigprocmask;

void hp_sigmask_resolve(void)
{
	if (!real_pthread_sigmask)
		real_pthread_sigmask = (mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	if (!real_sigprocmask)
		real_sigprocmask = (mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
}

static int raw_mask(int how, const sigset_t *set, sigset_t *old)
{
	/* the kernel's sigset is 64 bits on Linux */
	return syscall(SYS_rt_sigprocmask, how, set, old, (size_t)8) == 0 ? 0 : -1;
}

int hp_sigmask_real(int how, const sigset_t *set, sigset_t *old)
{
	if (real_pthread_sigmask)
		return real_pthread_sigmask(how, set, old);
	int saved = errno, rc = raw_mask(how, set, old) == 0 ? 0 : errno;
	errno = saved;
	return rc; /* pthread_sigmask returns the error, errno untouched */
}

/* `set` without the sampling signal when the program would block it. */
static const sigset_t *strip(int how, const sigset_t *set, sigset_t *tmp)
{
	int sig = hp_rt.sig;
	if (!set || sig <= 0 || (how != SIG_BLOCK && how != SIG_SETMASK) || sigismember(set, sig) != 1)
		return set;
	*tmp = *set;
	sigdelset(tmp, sig);
	return tmp;
}

HP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t tmp;
	return hp_sigmask_real(how, strip(how, set, &tmp), old);
}

HP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t tmp;
	const sigset_t *s = strip(how, set, &tmp);
	if (real_sigprocmask)
		return real_sigprocmask(how, s, old);
	return raw_mask(how, s, old);
}
