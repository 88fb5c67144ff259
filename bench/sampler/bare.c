/* bench/sampler/bare.c - the bare kernel path, preloaded into the workload:
 * the same event and delivery as hyprof's default source (perf task-clock,
 * one-page ring, wakeup_events = 1, F_SETSIG + F_SETOWN_EX), but the handler
 * only releases the ring (data_tail = data_head) and counts.  The difference
 * between this and hyprof is what hyprof's own handler work costs
 * (skeleton, unwind, tree insert); this minus the plain run is what the
 * kernel and the signal cost.  BARE_FREQ sets the rate (default 1000 Hz);
 * BARE_MODE=timer uses the POSIX CPU-time timer instead. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct perf_event_mmap_page *ring;
static volatile unsigned long nsig;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (ring)
		ring->data_tail = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	nsig++;
}

__attribute__((constructor)) static void bare_start(void)
{
	const char *f = getenv("BARE_FREQ");
	unsigned long freq = f ? strtoul(f, NULL, 10) : 1000;
	int sig = SIGRTMIN + 3;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	const char *mode = getenv("BARE_MODE");
	if (mode && !strcmp(mode, "timer")) {
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = sig;
		sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		timer_t t;
		struct itimerspec its = {{0, (long)(1000000000ul / freq)}, {0, (long)(1000000000ul / freq)}};
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) || timer_settime(t, 0, &its, NULL))
			perror("bare: timer");
		return;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ul / freq;
	a.sample_type = PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("bare: perf_event_open");
		return;
	}
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)ps * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("bare: mmap");
		return;
	}
	ring = p;
	struct f_owner_ex o = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
	fcntl(fd, F_SETOWN_EX, &o);
	fcntl(fd, F_SETSIG, sig);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

__attribute__((destructor)) static void bare_end(void)
{
	fprintf(stderr, "bare: %lu samples\n", nsig);
}
