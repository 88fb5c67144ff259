/* sampler/posix_timer.c - sample source: a POSIX per-thread CPU-time timer.
 *
 * The source of last resort, for machines where perf_event is denied
 * (perf_event_paranoid 3 is common on clusters): timer_create on
 * CLOCK_THREAD_CPUTIME_ID, delivered to the owning thread (SIGEV_THREAD_ID).
 *
 * Clock choice: CPU time, not wall time.  A wall-clock (CLOCK_MONOTONIC)
 * timer would fire while a thread sleeps and interrupt its system calls:
 * nanosleep and friends return EINTR whatever SA_RESTART says, which would
 * change the behaviour of programs that sleep.  A CPU-time timer only fires
 * while the thread runs, like task-clock.  Its cost: the kernel checks CPU
 * timers at the scheduler tick, so the rate is capped at CONFIG_HZ (250 Hz
 * on this VM) whatever the requested frequency.  Each sample is weighted by
 * the CPU time that really elapsed, interval * (1 + overrun), so the time
 * per call path stays right; only the number of samples is lower.
 *
 * Signal-safe: on_signal, pause.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime/lifecycle.h"
#include "sampler/internal.h"

static uint64_t interval_ns;

static struct itimerspec spec(uint64_t ns)
{
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(ns % 1000000000ull);
	its.it_value = its.it_interval;
	return its;
}

static int create(void *cookie, pid_t tid, timer_t *out)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = hp_rt.sig > 0 ? hp_rt.sig : SIGRTMIN + 3;
	sev.sigev_value.sival_ptr = cookie;
	sev._sigev_un._tid = tid;
	return timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, out) ? -errno : 0;
}

static int pt_open(const char *event, uint64_t period, uint64_t freq, char *unit, uint64_t *period_out,
		   char *why, size_t whylen)
{
	if (*event && strcmp(event, "posix-timer"))
		return -ENOENT;
	interval_ns = period ? period : 1000000000ull / (freq ? freq : 1);
	timer_t tm;
	int rc = create(NULL, (pid_t)gettid(), &tm);
	if (rc) {
		snprintf(why, whylen, "posix-timer: timer_create on the thread CPU clock failed (%s)", strerror(-rc));
		return rc;
	}
	timer_delete(tm);
	strcpy(unit, "ns");
	*period_out = interval_ns;
	return 0;
}

static int pt_thread_start(struct hp_thread *t)
{
	int rc = create(t, t->tid, &t->src.timer);
	if (rc)
		return rc;
	struct itimerspec its = spec(interval_ns);
	/* the first expiry at a random phase of the thread's CPU time
	 * (hp_first_period); like every other it stands for a whole interval */
	uint64_t first = hp_first_period(interval_ns, t->tid);
	its.it_value.tv_sec = (time_t)(first / 1000000000ull);
	its.it_value.tv_nsec = (long)(first % 1000000000ull);
	if (timer_settime(t->src.timer, 0, &its, NULL)) {
		rc = -errno;
		timer_delete(t->src.timer);
		return rc;
	}
	__atomic_store_n(&t->src.timer_ok, 1, __ATOMIC_RELEASE);
	return 0;
}

static void pt_thread_stop(struct hp_thread *t)
{
	if (!t->src.timer_ok)
		return;
	__atomic_store_n(&t->src.timer_ok, 0, __ATOMIC_RELEASE);
	timer_delete(t->src.timer);
}

static int pt_on_signal(struct hp_thread *t, siginfo_t *si, uint64_t *period)
{
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != t || !t->src.timer_ok)
		return 0;
	*period = interval_ns * (1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0));
	return 1;
}

static void pt_pause(struct hp_thread *t, int on)
{
	if (!__atomic_load_n(&t->src.timer_ok, __ATOMIC_ACQUIRE))
		return;
	struct itimerspec its = spec(on ? interval_ns : 0);
	timer_settime(t->src.timer, 0, &its, NULL);
}

static void pt_close(void)
{
}

static const char *pt_event_name(void)
{
	return "posix-timer";
}

const struct hp_source_ops hp_source_posix_timer = {
	.name = "posix-timer",
	.open = pt_open,
	.thread_start = pt_thread_start,
	.thread_stop = pt_thread_stop,
	.on_signal = pt_on_signal,
	.close = pt_close,
	.event_name = pt_event_name,
	.pause = pt_pause,
};
