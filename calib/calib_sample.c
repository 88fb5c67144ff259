/* calib/calib_sample.c - what the delivery of one sample costs the program,
 * measured at start-up by slowdown (ALGORITHMS.md section 3: the sampler's
 * cost is part of the run's cost).
 *
 * A self-signal (tgkill, empty handler) is only the signal's round trip.
 * A real sample also costs the timer or counter interrupt, the perf
 * overflow work, the asynchronous signal's delivery on the way back to
 * user space, and the caches and TLB the kernel leaves behind; on a VM the
 * interrupt costs exits to the hypervisor as well.  On the machine this was
 * written on the round trip was 2.3 us and a whole sample 9.9 us
 * (`hyprof calibrate`), so a cost range built on the round trip missed most
 * of the sampler's cost.
 *
 * Method: a fixed arithmetic loop (~0.4 ms) timed with the TSC, once bare
 * and once with a perf_event task-clock of this thread overflowing every
 * 50 us into an empty handler through the same F_SETSIG/F_OWNER_TID path
 * the sampler uses; (sampled - bare) / signals received is one trial.  The
 * median of the trials is the delivery cost of a sample, the handler's own
 * work excluded (the run adds its measured handler time).
 *
 * A trial's difference is small (8 samples of ~5 us in a 0.4 ms loop) and
 * the host's noise on either loop is of its order on a busy VM, so a trial
 * may come out negative.  It is kept: the median of the differences is
 * unbiased only if both tails are.  Keeping only positive trials (as this
 * file first did) shifts the median up by a fraction of the noise, the
 * likely cause of a CI run whose start-up calibrations put a sample at
 * ~7.4 us (median of nine runs) where the sampler cost 4.9 us.  The loops of a trial alternate which runs first,
 * so a drift of the host's speed within a trial cancels over the trials,
 * and the trials' spread is reported: the cost range widens by the
 * median's standard error (calib/cost.h).  On a hardware
 * PMU the overflow is an NMI rather than an hrtimer, of the same order.
 * When perf_event_open is refused (perf_event_paranoid 3, seccomp) the
 * caller falls back to the self-signal round trip, a lower bound.
 *
 * Not signal-safe; runs on the calling thread only, restores the signal's
 * previous action and closes what it opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "calib/calib.h"

#define NOINSTR __attribute__((no_instrument_function))

#define PERIOD_NS 50000 /* 20 kHz: under the kernel's default throttle */
#define LOOP_NS 400000  /* one timed loop: 8 samples */

static volatile sig_atomic_t delivered;

static NOINSTR void count_signal(int sig)
{
	(void)sig;
	delivered++;
}

/* A dependent multiply-add chain: no memory traffic, not removable. */
static NOINSTR uint64_t spin(uint64_t n)
{
	uint64_t x = n | 1;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static NOINSTR uint64_t timed_spin(uint64_t n)
{
	uint64_t a = hp_tsc_fenced();
	uint64_t x = spin(n);
	uint64_t b = hp_tsc_fenced();
	__asm__ volatile("" : : "r"(x));
	return b - a;
}

static int open_clock(int sig)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = PERIOD_NS;
	a.disabled = 1;
	a.wakeup_events = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct f_owner_ex own = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
	if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, sig) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &own) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int hp_calib_sample_delivery(struct hp_dist *out, uint32_t trials, double ns_per_cyc, int sig)
{
	if (trials > 64)
		trials = 64;
	sigset_t cur;
	if (pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0 || sigismember(&cur, sig))
		return -EAGAIN;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, &old) != 0)
		return -errno;
	int fd = open_clock(sig);
	if (fd < 0) {
		sigaction(sig, &old, NULL);
		return fd;
	}
	/* Size the loop: LOOP_NS of spin. */
	uint64_t probe_n = 20000, c = timed_spin(probe_n);
	double cyc_per_iter = c ? (double)c / (double)probe_n : 1;
	uint64_t n = (uint64_t)(LOOP_NS / ns_per_cyc / cyc_per_iter);
	if (n < 1000)
		n = 1000;
	double v[64];
	uint32_t k = 0;
	for (uint32_t i = 0; i < trials + 1; i++) {
		uint64_t bare = i % 2 ? timed_spin(n) : 0;
		sig_atomic_t d0 = delivered;
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		uint64_t sampled = timed_spin(n);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		int got = (int)(delivered - d0);
		if (i % 2 == 0)
			bare = timed_spin(n);
		/* the first pair warms the paths; a trial with too few samples
		 * (the sampled loop was descheduled) says nothing */
		if (i > 0 && got >= 4)
			v[k++] = ((double)sampled - (double)bare) / got * ns_per_cyc;
	}
	close(fd);
	sigaction(sig, &old, NULL);
	if (k * 2 < trials)
		return -EAGAIN;
	*out = hp_dist_of(v, k);
	return 0;
}
