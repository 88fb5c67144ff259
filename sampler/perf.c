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
 * The sampling signal cannot stay blocked (runtime/sigmask.c strips it
 * from the program's masks), and when the handler cannot keep up with the
 * rate (a very high --freq, a deep stack) it takes the queued signals out
 * (sampler/handler.c): the queue never fills the user's RLIMIT_SIGPENDING,
 * past which the kernel would fall back to SIGIO and end the process.
 *
 * --unwind kernel (sampler/perf_ring.c): the event also asks for the ip and
 * the kernel's user callchain, the ring is larger, and in sampled mode the
 * signal comes from a second event every `batch` samples (notifier_open()
 * says why wakeup_events cannot do it); the handler drains every record.
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
#include "sampler/perf_ring.h"

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

/* perf_open() for a descriptor kept while the program runs: moved out of
 * the program's way.  A program that counts on open() returning the lowest
 * free descriptors, or that closes and reuses low numbers, never meets ours
 * (closed at thread exit). */
static int perf_open_high(struct perf_event_attr *a)
{
	int fd = perf_open(a);
	if (fd < 0)
		return fd;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, HP_PERF_FD_MIN);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	return fd;
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
	if (c->kernel_chain) {
		/* --unwind kernel (perf_ring.c): the kernel walks the user stack's
		 * frame pointers at each sample, as for `perf record -g`; the
		 * caller sets wakeup_events to the batch. */
		a->sample_type = HP_RING_SAMPLE_TYPES;
		a->exclude_callchain_kernel = 1;
		a->sample_max_stack = (uint16_t)hp_perf_max_stack;
	}
}

/* --unwind kernel: the frames the kernel may walk per sample, within what
 * kernel.perf_event_max_stack allows (more is refused with EOVERFLOW) and
 * what a path keeps (a wrapped record's chain is copied into the thread's
 * path buffer). */
static uint32_t chain_max_stack(void)
{
	int v = 127; /* the kernel's default */
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 127;
		fclose(f);
	}
	if (v > HP_UNWIND_MAX - 16)
		v = HP_UNWIND_MAX - 16;
	return v > 1 ? (uint32_t)v : 1;
}

/* --unwind kernel: data pages of the ring, largest first (the next one is
 * tried when the locked-memory limit refuses the mapping), and the samples
 * per signal: one per sample in hybrid and measured modes (perf_ring.c says
 * why), else as many as half the ring holds at 512 bytes a record (a stack
 * ~60 frames deep), at most 64.  A ring that fills before the signal is
 * handled loses records; the kernel says how many (dropped, "lost"). */
static const unsigned kernel_ring_pages[] = {16, 4, 1};
#define HP_RING_BATCH_MAX 64

static uint32_t kernel_batch(unsigned pages)
{
	if (hp_rt.cfg.mode != HP_MODE_SAMPLED)
		return 1;
	uint64_t b = (uint64_t)page_size() * pages / 2 / 512;
	return b < 1 ? 1 : b > HP_RING_BATCH_MAX ? HP_RING_BATCH_MAX : (uint32_t)b;
}

/* The signal of a batch.  wakeup_events cannot give it: with O_ASYNC the
 * kernel signals every overflow whatever wakeup_events says (pending_kill
 * is set at each one, kernel/events/core.c __perf_event_overflow).  So the
 * event that samples has no O_ASYNC, and a second event on the same
 * counter of the same thread, with `batch` times the period (at most
 * 100 ms for clocks, so a slow sampling rate still drains often), sends the
 * signal.  It has no ring and records nothing. */
#define HP_RING_NOTIFY_MAX_NS 100000000ull

static int notifier_open(const struct hp_perf_choice *c, uint32_t batch)
{
	struct hp_perf_choice n = *c;
	n.kernel_chain = 0;
	if (n.period) {
		n.period *= batch;
		if (c->ev->is_clock && n.period > HP_RING_NOTIFY_MAX_NS)
			n.period = c->period > HP_RING_NOTIFY_MAX_NS ? c->period : HP_RING_NOTIFY_MAX_NS;
	} else {
		n.freq = n.freq / batch ? n.freq / batch : 1;
	}
	struct perf_event_attr a;
	fill_attr(&a, &n);
	a.sample_type = 0;
	return perf_open_high(&a);
}

int hp_perf_probe(const struct hp_perf_event *ev, uint64_t period, uint64_t freq, int user_only,
		  struct hp_perf_choice *c)
{
	struct perf_event_attr a;
	memset(c, 0, sizeof(*c));
	c->ev = ev;
	c->freq = freq;
	c->kernel_chain = hp_rt.cfg.unwind == HP_UNWIND_KERNEL;
	if (c->kernel_chain && !hp_perf_max_stack)
		hp_perf_max_stack = chain_max_stack();
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

int hp_perf_hw_pmu_present(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

void hp_perf_why(const char *src, const struct hp_perf_event *ev, int e, char *why, size_t len)
{
	hp_perf_advice(src, ev->name, ev->type == PERF_TYPE_HARDWARE, e, read_paranoid(),
		       hp_perf_hw_pmu_present(), why, len);
}

int hp_perf_thread_start(const struct hp_perf_choice *c, struct hp_thread *t)
{
	struct perf_event_attr a;
	unsigned pages = RING_DATA_PAGES, ntries = c->kernel_chain ? 3 : 1;
	uint32_t batch = 0;
	int fd = -1;
	size_t len = 0;
	void *ring = MAP_FAILED;
	/* One signal per sample (hybrid, measured): a 4-page ring is plenty. */
	unsigned k0 = c->kernel_chain && kernel_batch(kernel_ring_pages[0]) == 1 ? 1 : 0;
	/* One signal per sample with a fixed period: the thread's first period
	 * is random (hp_first_period), so that its samples come at a random
	 * phase of its CPU time: a thread shorter than a period gets a sample
	 * with the probability its CPU time is of one, and each thread's
	 * expected samples are its CPU time over the period.  (With the first
	 * period whole, a thread shorter than one got no sample at all and
	 * every thread lost its last partial period: 400 threads of 3.7 ms at
	 * 200 Hz, half a program's CPU time, had none.)  The first sample
	 * switches to the whole period (hp_perf_on_signal). */
	uint64_t full = !c->kernel_chain && c->period > 1 ? c->period : 0;
	for (unsigned k = k0; k < ntries; k++) {
		fill_attr(&a, c);
		if (full)
			a.sample_period = hp_first_period(full, t->tid);
		if (c->kernel_chain) {
			pages = kernel_ring_pages[k];
			batch = kernel_batch(pages);
			a.wakeup_events = batch;
		}
		fd = perf_open_high(&a);
		if (fd < 0)
			return fd;
		len = (size_t)page_size() * (1 + pages);
		ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring != MAP_FAILED)
			break;
		int e = errno;
		close(fd);
		/* EPERM: the locked-memory limit (perf_event_mlock_kb, then
		 * RLIMIT_MEMLOCK) is reached: a smaller ring. */
		if (k + 1 == ntries || (e != EPERM && e != ENOMEM))
			return -e;
	}
	int sigfd = fd, nfd = -1;
	if (batch > 1) {
		if ((nfd = notifier_open(c, batch)) < 0) {
			munmap(ring, len);
			close(fd);
			return nfd;
		}
		sigfd = nfd;
	}
	struct f_owner_ex owner = {F_OWNER_TID, t->tid};
	if (fcntl(sigfd, F_SETOWN_EX, &owner) || fcntl(sigfd, F_SETSIG, hp_rt.sig) ||
	    fcntl(sigfd, F_SETFL, fcntl(sigfd, F_GETFL) | O_ASYNC)) {
		int e = errno;
		munmap(ring, len);
		close(fd);
		if (nfd >= 0)
			close(nfd);
		return -e;
	}
	t->src.notify_fd = nfd;
	t->src.ring = ring;
	t->src.ring_len = len;
	t->src.ring_mask = (uint64_t)page_size() * pages - 1;
	t->src.batch = batch;
	t->src.drain_lock = 0;
	t->src.fixed_period = full;
	t->src.first_pending = full != 0;
	__atomic_store_n(&t->src.fd, fd, __ATOMIC_RELEASE);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) || (nfd >= 0 && ioctl(nfd, PERF_EVENT_IOC_ENABLE, 0))) {
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
	hp_sigmask_real(SIG_BLOCK, &s, &old);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (t->src.batch > 1) {
		ioctl(t->src.notify_fd, PERF_EVENT_IOC_DISABLE, 0);
		close(t->src.notify_fd);
	}
	__atomic_store_n(&t->src.fd, -1, __ATOMIC_RELEASE);
	/* --unwind kernel: the samples still in the ring are this thread's
	 * last; a thread pausing sampling may be draining it right now. */
	int keep = 0;
	if (t->src.batch) {
		keep = hp_perf_ring_lock(t, 1) != 0; /* never unmap under a reader */
		if (!keep)
			hp_perf_ring_drain_locked(t, 0);
	}
	if (!keep) {
		if (t->src.ring)
			munmap(t->src.ring, t->src.ring_len);
		t->src.ring = NULL;
		if (t->src.batch)
			hp_perf_ring_unlock(t);
	}
	close(fd);
	hp_sigmask_real(SIG_SETMASK, &old, NULL);
}

void hp_perf_pause(struct hp_thread *t, int on)
{
	int fd = __atomic_load_n(&t->src.fd, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	if (fd >= 0 && t->src.batch > 1)
		ioctl(t->src.notify_fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	/* --unwind kernel: pausing precedes every profile write, so the samples
	 * waiting in t's ring are taken now (from this thread: t's handler
	 * drops signals while sampling is paused, and the ring lock keeps the
	 * two apart). */
	if (!on && fd >= 0 && t->src.batch && !hp_perf_ring_lock(t, 1)) {
		hp_perf_ring_drain_locked(t, 0);
		hp_perf_ring_unlock(t);
	}
}

int hp_perf_on_signal(struct hp_thread *t, siginfo_t *si, uint64_t *period)
{
	/* F_SETSIG delivers POLL_IN (a wakeup) or POLL_HUP with si_fd set. */
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return 0;
	int fd = __atomic_load_n(&t->src.fd, __ATOMIC_ACQUIRE);
	if (fd < 0 || !t->src.ring || (si->si_fd != fd && !(t->src.batch > 1 && si->si_fd == t->src.notify_fd)))
		return 0;
	if (t->src.batch) {
		/* --unwind kernel: the records go straight into the tree. */
		hp_perf_ring_on_signal(t);
		*period = 0;
		return 1;
	}
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
			if (t->src.fixed_period) {
				/* every sample stands for a whole period, the first
				 * (random: its phase is what is random) too, and the
				 * kernel's record of a clock event keeps saying the
				 * first period after the change below */
				p = t->src.fixed_period;
				if (t->src.first_pending) {
					/* the whole period from now on: the kernel
					 * restarts the event with it */
					ioctl(fd, PERF_EVENT_IOC_PERIOD, &t->src.fixed_period);
					t->src.first_pending = 0;
				}
			}
			sum += p;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	*period = sum; /* 0: a late signal for records an earlier one drained */
	return 1;
}
