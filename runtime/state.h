/* runtime/state.h - the runtime's global and per-thread state.
 *
 * All per-thread state is one struct hp_thread, created once per thread
 * (main thread at load, others when pthread_create's start routine runs) and
 * kept after the thread exits so its data is written at process exit.
 * Probes and signal handlers only touch their own thread's struct.
 */
#ifndef HYPROF_RUNTIME_STATE_H
#define HYPROF_RUNTIME_STATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "core/cct.h"
#include "runtime/config.h"

#define HP_EXPORT __attribute__((visibility("default")))
#define HP_STACK_MAX 4096 /* shadow stack depth of the probes */
#define HP_UNWIND_MAX 512 /* frames kept per sample */

enum hp_drop {
	HP_DROP_REENTRANT,  /* sample arrived while hyprof's runtime was running */
	HP_DROP_LOADER,     /* thread inside dlopen/dlclose/dl_iterate_phdr */
	HP_DROP_UNWIND,     /* libunwind failed before any frame */
	HP_DROP_FULL,       /* calling context tree full */
	HP_DROP_NOTHREAD,   /* signal on a thread without hyprof state */
	HP_DROP_LOST,       /* --unwind kernel: the perf ring was full (PERF_RECORD_LOST) */
	HP_DROP_NREASONS
};
extern const char *const hp_drop_names[HP_DROP_NREASONS]; /* "reentrant", ... */

/* One frame of the probes' shadow stack. */
struct hp_frame {
	uint32_t node;        /* probe-tree node entered (after redirects) */
	uint32_t prev;        /* probe_cur to restore at exit */
	uint64_t t_enter;     /* TSC at entry (measured mode) */
	uint64_t probes_at;   /* thread's probe counter at entry */
	uint64_t child_incl;  /* raw inclusive cycles of direct children */
	uint64_t child_comp;  /* compensated inclusive cycles of direct children */
	uint64_t fn;          /* key that was entered (to check exit matches) */
	uint64_t handler_at;  /* thread's comp_cycles at entry (measured mode) */
	uint64_t samples_at;  /* unused since counting/ estimates the signals from handler_at */
	uint64_t comp_adj;    /* measured mode: correction of descendants' pair cost for
			       * recalibrations during the call (counting/probe_impl.h) */
};

/* Per-thread sample source state; each source uses what it needs. */
struct hp_source_thread {
	int fd;               /* perf_event fd, -1 if none */
	void *ring;           /* perf mmap ring, NULL if none */
	size_t ring_len;
	uint64_t ring_mask;   /* data pages' size - 1 */
	timer_t timer;        /* POSIX timer */
	int timer_ok;
	int papi_set;         /* PAPI event set, -1 if none */
	uint64_t last_count;  /* for sources that report running totals */
	uint64_t fixed_period; /* perf, one signal per sample at a fixed period: each sample's weight
				* (the kernel's record keeps the first, random, period of a
				* clock event); 0 otherwise */
	int first_pending;    /* perf: the random first period still runs (sampler/perf.c) */
	/* --unwind kernel (sampler/perf_ring.c) */
	uint32_t batch;       /* samples per signal, 0 when off */
	int notify_fd;        /* batch > 1: the event that sends the signal */
	int drain_lock;       /* the ring is being drained */
	uint64_t throttled;   /* PERF_RECORD_THROTTLE records */
	uint64_t ring_corrupt;/* resynchronisations on a record that could not be */
};

struct hp_thread {
	/* hot: probes */
	uint32_t probe_cur;            /* current probe-tree node */
	uint32_t sp;                   /* shadow stack depth in use */
	uint64_t probe_events;         /* probe pairs entered on this thread */
	struct hp_frame *stack;        /* HP_STACK_MAX frames, mapped */
	volatile sig_atomic_t busy;    /* >0: runtime code running, samples dropped */
	volatile sig_atomic_t in_loader; /* >0: inside the dynamic loader */
	volatile sig_atomic_t in_handler;
	uint64_t handler_end_tsc;      /* when the last sample handler returned */
	struct cct probe;              /* probe tree (function / region keys) */
	struct cct sample;             /* sample tree (PC keys) */

	/* sampling */
	uint64_t samples;              /* samples attributed */
	uint64_t dropped[HP_DROP_NREASONS];
	uint64_t meas_samples;         /* samples whose PC was in probe code */
	uint64_t meas_period;
	uint64_t mpi_samples;          /* samples whose PC was in the MPI wrappers' code */
	uint64_t mpi_period;
	uint64_t handler_cycles;       /* TSC cycles spent inside the handler */
	uint64_t comp_cycles;          /* handler cycles plus hp_rt.sig_kernel_cyc per signal:
					* what the samples cost the intervals they land in
					* (counting/comp.h, S) */
	uint64_t comp_folded;          /* comp_cycles already added to overhead and delay
					* by the MPI wrappers (mpiwrap/mpiwrap.h
					* hp_sampler_fold; this thread only) */
	uint64_t stack_overflow;       /* probe entries past HP_STACK_MAX */
	uint64_t exit_mismatch;        /* exits that did not match the top frame */
	struct hp_source_thread src;

	/* overhead accounting (cycles), section 4 of ALGORITHMS.md */
	uint64_t overhead;             /* o_p: measurement overhead so far */
	uint64_t delay;                /* x_p: delay so far (MPI compensation) */

	/* identity */
	pid_t tid;
	uint32_t index;                /* 0 = main thread, in creation order */
	int exited;
	uint64_t start_ns, end_ns;     /* CLOCK_MONOTONIC */
	uint64_t start_tsc, end_tsc;
	uint64_t cpu_ns;               /* thread CPU time at exit */
	char name[16];
	struct hp_thread *next;        /* global list, newest first */
	/* exited threads past HYPROF_MAX_THREADS (runtime/thread.c) */
	uint32_t merged_threads;       /* the "[exited]" record: threads in it */
	volatile int retired;          /* merged away: a free slot, not written */
	volatile int keep_record;      /* another layer holds a pointer to this record
	                                * (mpiwrap's per-thread state): never merged */
	struct hp_thread *dying_next;  /* queued to be merged once the thread is gone */
};

/* Global runtime state, one per process. */
struct hp_runtime {
	struct hp_config cfg;
	int initialized;
	int active;                    /* sampling/probes on */
	pid_t pid;
	int rank, nranks;              /* -1 when not MPI */
	uint64_t start_ns, end_ns;
	uint64_t start_tsc;
	double tsc_hz;
	int sig;                       /* the sampling signal */
	const struct hp_source_ops *source;
	char source_event[64];         /* event actually opened */
	uint64_t period;               /* in the source's unit */
	char source_unit[16];          /* "ns" or "events" */
	char source_why[512];          /* why the stronger sources were not used */
	char out_dir[4096];
	char program[256];
	struct hp_thread *threads;     /* list head (lock: hp_threads_lock) */
	uint32_t nthreads;
	int partial;                   /* set when written from a fatal signal */
	int written;
	uint64_t sig_kernel_cyc;       /* a signal's cost outside the handler (calibrated),
					* charged per signal in comp_cycles; 0 uncompensated */
};

HP_EXPORT extern struct hp_runtime hp_rt;

/* The calling thread's state, creating it if needed (not from a signal). */
HP_EXPORT struct hp_thread *hp_thread_get(void);
/* The calling thread's state or NULL.  Signal-safe (one TLS load). */
HP_EXPORT struct hp_thread *hp_thread_self(void);
/* Another layer (mpiwrap) no longer holds a pointer to t, a record of the
 * calling thread, which is exiting: clears keep_record and, if the thread's
 * exit was already handled, queues the record as the exit would have. */
HP_EXPORT void hp_thread_release(struct hp_thread *t);

/* TSC read, serialising nothing.  Signal-safe. */
static inline uint64_t hp_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* TSC read fenced on both sides (lfence): for timing a region of code,
 * as calibration does.  Signal-safe. */
static inline uint64_t hp_tsc_fenced(void)
{
	__asm__ volatile("lfence" ::: "memory");
	uint64_t t = hp_rdtsc();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

/* Give the whole pages inside [p, p + len) back to the system: they read
 * as zeros afterwards (memory of an exited thread, scratch).  Not for
 * memory anyone may still rely on.  Signal-safe (one system call). */
static inline void hp_release_pages(void *p, size_t len)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)4095;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* CLOCK_MONOTONIC in ns.  Signal-safe. */
HP_EXPORT uint64_t hp_now_ns(void);

/* Log one line to stderr with write(2), prefixed "hyprof: ".  Signal-safe;
 * formats only %s %d %u %lu %llu %x %p. */
HP_EXPORT void hp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The first line of a small file (/proc, /sys) into buf, without its
 * newline; "" when it cannot be read.  Returns the length.  Signal-safe. */
HP_EXPORT size_t hp_read_line(const char *path, char *buf, size_t len);

/* Write this process's profile now (exit, exec, fatal signal).  Safe to call
 * more than once: later calls rewrite the file.  `partial` marks the file.
 * Signal-safe (uses the signal-safe writer). */
HP_EXPORT int hp_write_profile(int partial, const char *why);

/* Extension sections: parts of the runtime (MPI wrappers, cost system,
 * critical path) register a callback that writes their sections.  Called
 * from hp_write_profile(), so callbacks must be signal-safe too. */
struct hp_writer;
typedef int (*hp_section_writer_fn)(struct hp_writer *w, void *arg);
HP_EXPORT int hp_register_section_writer(hp_section_writer_fn fn, void *arg);

/* Called when the MPI rank becomes known (MPI_Init wrapper). */
HP_EXPORT void hp_set_rank(int rank, int nranks);

/* The exit summary line `hyprof: app: N samples (M dropped), task-clock @
 * 5000000ns, profile DIR` is extended by this hook (the cost system's
 * overhead range): fn writes a fragment such as `overhead 0.4%..0.6%` into
 * buf and returns its length (0 or negative: nothing appended).  Called once
 * at normal exit, outside signal context. */
HP_EXPORT void hp_set_summary_hook(int (*fn)(char *buf, size_t len));

#endif
