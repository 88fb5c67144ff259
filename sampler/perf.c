/* sampler/perf.c - perf_event plumbing shared by perf_hw.c and perf_sw.c.
 *
 * Delivery: each thread opens its own event (pid 0 = the calling thread),
 * maps a one-page ring, and asks for a signal per sample: wakeup_events = 1,
 * O_ASYNC, F_SETSIG = the sampling signal, F_SETOWN_EX with F_OWNER_TID so
 * the signal goes to the thread that overflowed.  The handler reads the
 * ring's PERF_RECORD_SAMPLE records (PERF_SAMPLE_PERIOD only: the exact
 * period of each sample, also in frequency mode) and advances data_tail.
 * No ioctl in the handler: on this VM the ring costs ~33 us per sample
 * against ~50 us for re-arming with PERF_EVENT_IOC_REFRESH (ALGORITHMS.md
 * section 1).
 *
 * A thread that keeps the sampling signal blocked while it computes queues
 * at most one signal per record the one-page ring can hold (256): when the
 * ring is full the kernel drops samples (and signals) instead.  Only if the
 * user's whole RLIMIT_SIGPENDING filled up would the kernel fall back to
 * SIGIO, whose default action ends the process; hyprof does not guard
 * against that (hundreds of such threads would be needed).
 *
 * Signal-safe: hp_perf_on_signal(), hp_perf_pause().  The rest runs at
 * start-up or thread start/stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"
#include "sampler/internal.h"

#define RING_DATA_PAGES 1 /* 256 samples of 16 bytes: drained at each one */
#define HP_PERF_FD_MIN 900 /* perf descriptors are moved at or above this */

static long page_size(void)
{
	static long ps;
	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

static int perf_open(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void fill_attr(struct perf_event_attr *a, const struct hp_perf_choice *c)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = c->ev->type;
	a->config = c->ev->config;
	if (c->period) {
		a->sample_period = c->period;
	} else {
		a->freq = 1;
		a->sample_freq = c->freq;
	}
	a->sample_type = PERF_SAMPLE_PERIOD;
	a->disabled = 1;
	a->exclude_kernel = (unsigned)c->exclude_kernel;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
}

const struct hp_perf_event *hp_perf_lookup(const struct hp_perf_event *tab, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

const struct hp_perf_event *hp_perf_event_named(const struct hp_perf_event *tab, size_t n,
						const char *name, int *user_only)
{
	char base[64];
	size_t len = strlen(name);
	*user_only = len > 2 && !strcmp(name + len - 2, ":u");
	if (*user_only)
		len -= 2;
	if (len >= sizeof(base))
		return NULL;
	memcpy(base, name, len);
	base[len] = '\0';
	return hp_perf_lookup(tab, n, base);
}

int hp_perf_probe(const struct hp_perf_event *ev, uint64_t period, uint64_t freq, int user_only,
		  struct hp_perf_choice *c)
{
	struct perf_event_attr a;
	memset(c, 0, sizeof(*c));
	c->ev = ev;
	c->freq = freq;
	/* Clocks count nanoseconds: a fixed period is exact and is what the
	 * frequency means.  Other events use the kernel's frequency mode, and
	 * every sample reports its own period. */
	c->period = period ? period : ev->is_clock ? 1000000000ull / (freq ? freq : 1) : 0;
	/* Kernel time first: with a signal-based sampler a sample taken in the
	 * kernel is delivered on the return to user space and lands on the
	 * call path that made the system call or took the page fault, which is
	 * where that time belongs.  Unprivileged users at perf_event_paranoid 2
	 * may only count user space: then the event is user-only and named
	 * "<event>:u", as it is when asked for with that name.
	 * The price of kernel samples, as for any SIGPROF-style profiler: a
	 * sample that falls due while a system call runs in the kernel makes a
	 * following interruptible sleep (nanosleep, poll, select: never
	 * restarted, SA_RESTART or not) return EINTR; measured, 15 in 20,000
	 * nanosleep calls after 1.3 ms of read() each at 1 kHz.  "task-clock:u"
	 * never does that, but does not see kernel time. */
	for (int ek = user_only ? 1 : 0; ek <= 1; ek++) {
		c->exclude_kernel = ek;
		fill_attr(&a, c);
		int fd = perf_open(&a);
		if (fd >= 0) {
			snprintf(c->name, sizeof(c->name), "%s%s", ev->name, ek ? ":u" : "");
			return fd;
		}
		if ((fd != -EACCES && fd != -EPERM) || ek)
			return fd;
	}
	return -EACCES;
}

static int read_paranoid(void)
{
	int v = -100;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

void hp_perf_why(const char *src, const struct hp_perf_event *ev, int e, char *why, size_t len)
{
	int pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
		  access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
	hp_perf_advice(src, ev->name, ev->type == PERF_TYPE_HARDWARE, e, read_paranoid(), pmu, why, len);
}

int hp_perf_thread_start(const struct hp_perf_choice *c, struct hp_thread *t)
{
	struct perf_event_attr a;
	fill_attr(&a, c);
	int fd = perf_open(&a);
	if (fd < 0)
		return fd;
	/* Out of the program's way: a program that counts on open() returning
	 * the lowest free descriptors, or that closes and reuses low numbers,
	 * never meets ours (which we close at thread exit). */
	int high = fcntl(fd, F_DUPFD_CLOEXEC, HP_PERF_FD_MIN);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	size_t len = (size_t)page_size() * (1 + RING_DATA_PAGES);
	void *ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		int e = errno;
		close(fd);
		return -e;
	}
	struct f_owner_ex owner = {F_OWNER_TID, t->tid};
	if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, hp_rt.sig) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC)) {
		int e = errno;
		munmap(ring, len);
		close(fd);
		return -e;
	}
	t->src.ring = ring;
	t->src.ring_len = len;
	t->src.ring_mask = (uint64_t)page_size() * RING_DATA_PAGES - 1;
	__atomic_store_n(&t->src.fd, fd, __ATOMIC_RELEASE);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;
		hp_perf_thread_stop(t);
		return -e;
	}
	return 0;
}

void hp_perf_thread_stop(struct hp_thread *t)
{
	int fd = t->src.fd;
	if (fd < 0)
		return;
	/* Block the signal while the ring goes away, so a sample arriving now
	 * cannot read an unmapped ring. */
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, hp_rt.sig);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	__atomic_store_n(&t->src.fd, -1, __ATOMIC_RELEASE);
	if (t->src.ring)
		munmap(t->src.ring, t->src.ring_len);
	t->src.ring = NULL;
	close(fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void hp_perf_pause(struct hp_thread *t, int on)
{
	int fd = __atomic_load_n(&t->src.fd, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

int hp_perf_on_signal(struct hp_thread *t, siginfo_t *si, uint64_t *period)
{
	/* F_SETSIG delivers POLL_IN (a wakeup) or POLL_HUP with si_fd set. */
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return 0;
	int fd = __atomic_load_n(&t->src.fd, __ATOMIC_ACQUIRE);
	if (fd < 0 || si->si_fd != fd || !t->src.ring)
		return 0;
	struct perf_event_mmap_page *pg = t->src.ring;
	const char *data = (const char *)t->src.ring + page_size();
	uint64_t mask = t->src.ring_mask;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	uint64_t sum = 0;
	/* Records are 8-byte aligned and their sizes multiples of 8, so each
	 * u64 read below is contiguous even when a record wraps. */
	while (tail < head) {
		struct perf_event_header h;
		memcpy(&h, data + (tail & mask), sizeof(h));
		if (h.size < sizeof(h) || h.size > mask + 1)
			break; /* corrupt: resynchronise at head */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 16) {
			uint64_t p;
			memcpy(&p, data + ((tail + 8) & mask), sizeof(p));
			sum += p;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	*period = sum; /* 0: a late signal for records an earlier one drained */
	return 1;
}
