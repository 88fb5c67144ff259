/* runtime/writer.c - write this process's profile (exit, exec, fatal signal).
 *
 * Signal-safe: hp_write_profile(), hp_write_snapshot(), hp_profile_path(),
 * hp_profile_name(), hp_writing_snapshot().
 * They run from fatal-signal handlers, so they use only the signal-safe
 * writer of core/format.c and async-signal-safe calls (open, write, mkdir,
 * uname, getpid, clock_gettime, nanosleep): no malloc, no stdio, no locks
 * that a signal could find held (one owner word, see write_lock()), and
 * static buffers instead of large stack frames (the handler may run on a
 * small alternate stack).  The command line is read at load time, when
 * reading /proc is still allowed.
 *
 * File: <out_dir>/<program>.<rank, 5 digits>.<pid>.hyp, or
 * <out_dir>/<program>.<pid>.hyp without MPI (.<n> before .hyp when a file of
 * that name from another process image exists); sections META, MODULES, one
 * THREAD per thread, then the registered extension sections (docs/FORMAT.md).
 * hp_write_snapshot() writes the same to another path while the program runs
 * (live statistics: runtime/live.c, docs/cmd-watch.md), with only the
 * extension sections registered as live, and leaves the profile proper alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "runtime/modules.h"
#include "runtime/state.h"
#include "runtime/writer.h"
#include "sampler/source.h"

#ifndef HYPROF_VERSION
#define HYPROF_VERSION "0"
#endif

/* ---- extension sections ------------------------------------------------- */

static struct {
	hp_section_writer_fn fn;
	void *arg;
	int live; /* also called for live snapshots (hp_register_live_section_writer) */
} sec_writers[HP_MAX_SECTION_WRITERS];
static uint32_t nsec_writers; /* published with release */
static int sec_lock;

static int register_writer(hp_section_writer_fn fn, void *arg, int live)
{
	if (!fn)
		return -EINVAL;
	while (__atomic_test_and_set(&sec_lock, __ATOMIC_ACQUIRE))
		;
	int rc = 0;
	uint32_t n = nsec_writers;
	for (uint32_t i = 0; i < n; i++)
		if (sec_writers[i].fn == fn && sec_writers[i].arg == arg) {
			/* registered twice (re-initialization): once is enough; a
			 * live registration upgrades a plain one */
			if (live)
				__atomic_store_n(&sec_writers[i].live, 1, __ATOMIC_RELEASE);
			goto out;
		}
	if (n >= HP_MAX_SECTION_WRITERS) {
		rc = -ENOSPC;
		goto out;
	}
	sec_writers[n].fn = fn;
	sec_writers[n].arg = arg;
	sec_writers[n].live = live;
	__atomic_store_n(&nsec_writers, n + 1, __ATOMIC_RELEASE);
out:
	__atomic_clear(&sec_lock, __ATOMIC_RELEASE);
	return rc;
}

int hp_register_section_writer(hp_section_writer_fn fn, void *arg)
{
	return register_writer(fn, arg, 0);
}

HP_EXPORT int hp_register_live_section_writer(hp_section_writer_fn fn, void *arg)
{
	return register_writer(fn, arg, 1);
}

/* ---- command line, captured at load time -------------------------------- */

static char cmdline[8192]; /* arguments, shell-quoted where needed, space-separated */
static char argv0_base[256];
static char last_path[4096];

static int plain_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_-./=:,+@%^", c) != NULL;
}

void hp_profile_init(void)
{
	static char raw[sizeof(cmdline)];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;
	if (fd >= 0) {
		while (n < (ssize_t)sizeof(raw)) {
			ssize_t k = read(fd, raw + n, sizeof(raw) - (size_t)n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			n += k;
		}
		close(fd);
	}
	int truncated = n == (ssize_t)sizeof(raw);
	size_t o = 0, cap = sizeof(cmdline) - 4; /* room for "..." */
	const char *arg = raw;
	int first = 1;
	while (arg < raw + n) {
		size_t len = strnlen(arg, (size_t)(raw + n - arg));
		if (first) {
			const char *slash = memrchr(arg, '/', len);
			const char *b = slash ? slash + 1 : arg;
			size_t bl = len - (size_t)(b - arg);
			if (bl >= sizeof(argv0_base))
				bl = sizeof(argv0_base) - 1;
			memcpy(argv0_base, b, bl);
			argv0_base[bl] = 0;
		}
		int plain = len > 0;
		for (size_t i = 0; i < len; i++)
			plain &= plain_char((unsigned char)arg[i]);
		if (!first && o < cap)
			cmdline[o++] = ' ';
		if (!plain && o < cap)
			cmdline[o++] = '\'';
		for (size_t i = 0; i < len && o < cap; i++) {
			if (arg[i] == '\'' && !plain) { /* ' -> '\'' */
				if (o + 4 > cap)
					break;
				memcpy(cmdline + o, "'\\''", 4);
				o += 4;
			} else {
				cmdline[o++] = arg[i];
			}
		}
		if (!plain && o < cap)
			cmdline[o++] = '\'';
		if (o >= cap)
			truncated = 1;
		first = 0;
		arg += len + 1;
	}
	if (truncated) {
		memcpy(cmdline + o, "...", 3);
		o += 3;
	}
	cmdline[o] = 0;
}

__attribute__((constructor)) static void writer_ctor(void)
{
	hp_profile_init();
}

const char *hp_profile_path(void)
{
	return last_path;
}

/* ---- signal-safe string building --------------------------------------- */

struct sb {
	char *p;
	size_t cap, len;
	int over;
};

static void sb_str(struct sb *s, const char *str)
{
	for (; str && *str; str++) {
		if (s->len + 1 >= s->cap) {
			s->over = 1;
			break;
		}
		s->p[s->len++] = *str;
	}
	s->p[s->len] = 0;
}

/* Decimal, at least `width` digits (zero-padded). */
static void sb_u64(struct sb *s, uint64_t v, int width)
{
	char out[21];
	hp_u64_dec(out, v, width);
	sb_str(s, out);
}

static const char *program_name(void)
{
	return hp_rt.program[0] ? hp_rt.program : argv0_base[0] ? argv0_base : "program";
}

/* The name with `.<n>` before the extension when n > 0. */
static int profile_name_n(char *buf, size_t len, unsigned n)
{
	if (len == 0)
		return -ENAMETOOLONG;
	struct sb s = {.p = buf, .cap = len};
	buf[0] = 0;
	sb_str(&s, hp_rt.out_dir[0] ? hp_rt.out_dir : ".");
	if (s.len && buf[s.len - 1] != '/')
		sb_str(&s, "/");
	/* the program name becomes one path component */
	for (const char *p = program_name(); *p; p++) {
		char c[2] = {(*p == '/' || (unsigned char)*p < 32) ? '_' : *p, 0};
		sb_str(&s, c);
	}
	sb_str(&s, ".");
	if (hp_rt.rank >= 0) {
		sb_u64(&s, (uint64_t)hp_rt.rank, 5);
		sb_str(&s, ".");
	}
	sb_u64(&s, (uint64_t)getpid(), 1);
	if (n) {
		sb_str(&s, ".");
		sb_u64(&s, n, 1);
	}
	sb_str(&s, HP_FILE_EXT);
	return s.over ? -ENAMETOOLONG : 0;
}

int hp_profile_name(char *buf, size_t len)
{
	return profile_name_n(buf, len, 0);
}

/* The name to write: the plain name, unless a file of that name exists that
 * this process image did not write (the image before an exec, which keeps
 * the pid, or an older run): then <name>.<n>.hyp, n = 1, 2, ...  A later
 * write of the same image replaces its own file. */
static int choose_name(char *buf, size_t len)
{
	for (unsigned n = 0; n < 1000; n++) {
		int rc = profile_name_n(buf, len, n);
		if (rc)
			return rc;
		struct stat st;
		if (strcmp(buf, last_path) == 0 || stat(buf, &st) != 0)
			return 0;
	}
	return profile_name_n(buf, len, 0);
}

/* mkdir -p of the directory part of `path`.  Returns 0 or -errno. */
static int make_dirs(const char *path)
{
	static char dir[4096];
	size_t len = strlen(path);
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len + 1);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	for (char *p = dir + 1;; p++) {
		if (*p == '/' || *p == 0) {
			char c = *p;
			*p = 0;
			if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
				int e = errno;
				struct stat st;
				if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
					return -e;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

const char *hp_write_strerror(int e)
{
	switch (e) {
	case ENOSPC: return "no space left on device";
	case EDQUOT: return "disk quota exceeded";
	case EACCES: return "permission denied";
	case EPERM: return "operation not permitted";
	case EROFS: return "read-only file system";
	case ENOENT: return "no such file or directory";
	case ENOTDIR: return "a path component is not a directory";
	case ENAMETOOLONG: return "file name too long";
	case EIO: return "I/O error";
	case EBUSY: return "another thread's write of the profile did not finish in 10 s";
	case EDEADLK: return "a signal arrived while this thread was writing the profile";
	case EMFILE: return "too many open files";
	case EFBIG: return "file too large for the file size limit (RLIMIT_FSIZE, ulimit -f)";
	}
	return "error";
}

/* ---- one writer at a time --------------------------------------------------
 * The owner word holds the writing thread's tid.  Another thread waits for
 * it (bounded: a fatal signal in thread B while thread A writes at exit
 * should still get the file out); the same thread re-entering (a fatal
 * signal inside the writer) gets -EDEADLK instead of deadlocking. */
static pid_t write_owner;
static struct hp_writer W; /* 24 KB: static, never on a signal stack */

static int write_lock(pid_t self)
{
	for (int waited = 0;; waited++) {
		pid_t cur = 0;
		if (__atomic_compare_exchange_n(&write_owner, &cur, self, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 0;
		if (cur == self)
			return -EDEADLK; /* a signal inside our own write */
		/* an owner that is not a thread of this process: stale after fork */
		if (syscall(SYS_tgkill, getpid(), cur, 0) != 0 && errno == ESRCH) {
			if (__atomic_compare_exchange_n(&write_owner, &cur, self, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if (waited >= 10000) /* 10 s */
			return -EBUSY;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

static void write_unlock(void)
{
	__atomic_store_n(&write_owner, 0, __ATOMIC_RELEASE);
}

int hp_write_trylock(void)
{
	pid_t cur = 0, self = (pid_t)syscall(SYS_gettid);
	return __atomic_compare_exchange_n(&write_owner, &cur, self, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED)
		       ? 0
		       : -EBUSY;
}

int hp_write_lock_wait(void)
{
	return write_lock((pid_t)syscall(SYS_gettid));
}

void hp_write_lock_release(void)
{
	write_unlock();
}

/* ---- sections ------------------------------------------------------------- */

static uint64_t thread_cpu_ns(const struct hp_thread *t, pid_t self)
{
	struct timespec ts;
	clockid_t id = t->tid == self ? CLOCK_THREAD_CPUTIME_ID
				      : (clockid_t)((~(unsigned)t->tid << 3) | 6); /* per-thread SCHED */
	if (t->tid > 0 && clock_gettime(id, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return t->cpu_ns;
}

static void write_meta(struct hp_writer *w, int partial, const char *why, uint32_t nthreads,
		       uint64_t now)
{
	static struct utsname uts;
	if (uname(&uts) != 0)
		uts.nodename[0] = 0;
	uint64_t start = hp_rt.start_ns, end = hp_rt.end_ns ? hp_rt.end_ns : now;
	hp_writer_begin(w, HP_SEC_META);
	hp_writer_kv_str(w, "program", program_name());
	hp_writer_kv_str(w, "argv", cmdline);
	hp_writer_kv_str(w, "hostname", uts.nodename);
	hp_writer_kv_i64(w, "pid", getpid());
	hp_writer_kv_i64(w, "ppid", getppid());
	hp_writer_kv_i64(w, "rank", hp_rt.rank);
	hp_writer_kv_i64(w, "nranks", hp_rt.nranks);
	hp_writer_kv_str(w, "mode", hp_mode_name(hp_rt.cfg.mode));
	hp_writer_kv_str(w, "source", hp_rt.source ? hp_rt.source->name : "none");
	hp_writer_kv_str(w, "event", hp_rt.source_event);
	hp_writer_kv_u64(w, "period", hp_rt.period);
	hp_writer_kv_str(w, "unit", hp_rt.source_unit);
	hp_writer_kv_str(w, "source_why", hp_rt.source_why);
	hp_writer_kv_u64(w, "start_ns", start);
	hp_writer_kv_u64(w, "end_ns", end);
	hp_writer_kv_u64(w, "duration_ns", end > start ? end - start : 0);
	hp_writer_kv_f64(w, "tsc_hz", hp_rt.tsc_hz);
	hp_writer_kv_u64(w, "partial", partial ? 1 : 0);
	hp_writer_kv_str(w, "partial_why", partial && why ? why : "");
	hp_writer_kv_str(w, "compensate", hp_compensate_name(hp_rt.cfg.compensate));
	hp_writer_kv_str(w, "version", HYPROF_VERSION);
	hp_writer_kv_u64(w, "format_version", HP_FORMAT_VERSION);
	hp_writer_kv_f64(w, "max_overhead", hp_rt.cfg.max_overhead);
	hp_writer_kv_u64(w, "nthreads", nthreads);
	hp_writer_kv_u64(w, "modules_dropped", hp_modules_dropped());
	hp_writer_end(w);
}

/* A kv block is written twice: once to size it (THREAD puts its length
 * first), once for real.  Strings come from a snapshot so both agree. */
struct kvs {
	struct hp_writer *w; /* NULL: only add up the size */
	size_t size;
};

static void kvs_u64(struct kvs *k, const char *key, uint64_t v)
{
	if (k->w)
		hp_writer_kv_u64(k->w, key, v);
	else
		k->size += hp_kv_size(key, 8);
}

static void kvs_i64(struct kvs *k, const char *key, int64_t v)
{
	if (k->w)
		hp_writer_kv_i64(k->w, key, v);
	else
		k->size += hp_kv_size(key, 8);
}

static void kvs_str(struct kvs *k, const char *key, const char *v)
{
	if (k->w)
		hp_writer_kv_str(k->w, key, v);
	else
		k->size += hp_kv_size(key, strlen(v));
}

/* The THREAD section's keys "dropped.<name>", one per enum hp_drop. */
const char *const hp_drop_names[HP_DROP_NREASONS] = {
	[HP_DROP_REENTRANT] = "reentrant", [HP_DROP_LOADER] = "loader",
	[HP_DROP_UNWIND] = "unwind",       [HP_DROP_FULL] = "full",
	[HP_DROP_NOTHREAD] = "nothread",   [HP_DROP_LOST] = "lost",
};

struct thread_snap {
	const struct hp_thread *t;
	char name[sizeof(((struct hp_thread *)0)->name) + 1];
	uint64_t end_ns, cpu_ns;
	uint32_t nsample, nprobe;
};

static void thread_kv(struct kvs *k, const struct thread_snap *s)
{
	const struct hp_thread *t = s->t;
	char key[64];
	kvs_i64(k, "tid", t->tid);
	kvs_u64(k, "index", t->index);
	kvs_str(k, "name", s->name);
	kvs_u64(k, "samples", t->samples);
	for (int i = 0; i < HP_DROP_NREASONS; i++) {
		struct sb b = {.p = key, .cap = sizeof(key)};
		sb_str(&b, "dropped.");
		sb_str(&b, hp_drop_names[i] ? hp_drop_names[i] : "unknown");
		kvs_u64(k, key, t->dropped[i]);
	}
	kvs_u64(k, "meas_samples", t->meas_samples);
	kvs_u64(k, "meas_period", t->meas_period);
	kvs_u64(k, "mpi_samples", t->mpi_samples);
	kvs_u64(k, "mpi_period", t->mpi_period);
	kvs_u64(k, "handler_cycles", t->handler_cycles);
	kvs_u64(k, "stack_overflow", t->stack_overflow);
	kvs_u64(k, "exit_mismatch", t->exit_mismatch);
	kvs_u64(k, "overhead", t->overhead);
	kvs_u64(k, "delay", t->delay);
	kvs_u64(k, "start_ns", t->start_ns);
	kvs_u64(k, "end_ns", s->end_ns);
	kvs_u64(k, "cpu_ns", s->cpu_ns);
	kvs_u64(k, "exited", t->exited ? 1 : 0);
	kvs_u64(k, "probe_events", t->probe_events);
	kvs_u64(k, "cct_full.sample", t->sample.full);
	kvs_u64(k, "cct_full.probe", t->probe.full);
	if (t->merged_threads)
		kvs_u64(k, "merged_threads", t->merged_threads);
}

static uint32_t tree_count(const struct cct *c)
{
	if (!c->nodes)
		return 0;
	uint32_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
	return n < c->cap ? n : c->cap;
}

/* A link to a node inserted after we read n: follow the new node's sibling
 * link, which is where the list went before it was inserted. */
static uint32_t fix_link(const struct cct *c, uint32_t n, uint32_t x)
{
	for (uint32_t steps = 0; x != CCT_NONE && x >= n; steps++) {
		if (x >= c->cap || steps > c->cap)
			return CCT_NONE;
		x = __atomic_load_n(&c->nodes[x].next_sibling, __ATOMIC_ACQUIRE);
	}
	return x;
}

static void write_tree(struct hp_writer *w, const struct cct *c, uint32_t n)
{
	for (uint32_t i = 0; i < n && !w->err; i++) {
		struct cct_node node = c->nodes[i];
		node.first_child = fix_link(c, n, node.first_child);
		node.next_sibling = fix_link(c, n, node.next_sibling);
		if (i == 0)
			node.parent = CCT_NONE;
		if ((node.flags & CCT_F_REDIRECT) && node.target >= n) {
			node.flags &= ~(uint32_t)CCT_F_REDIRECT;
			node.target = CCT_NONE;
		}
		hp_writer_bytes(w, &node, sizeof(node));
	}
}

static void write_thread(struct hp_writer *w, const struct hp_thread *t, pid_t self, uint64_t now)
{
	struct thread_snap s = {.t = t};
	memcpy(s.name, t->name, sizeof(t->name));
	s.name[sizeof(t->name)] = 0;
	s.end_ns = t->exited ? t->end_ns : now;
	s.cpu_ns = t->exited ? t->cpu_ns : thread_cpu_ns(t, self);
	s.nsample = tree_count(&t->sample);
	s.nprobe = tree_count(&t->probe);

	struct kvs size = {0};
	thread_kv(&size, &s);
	hp_writer_begin(w, HP_SEC_THREAD);
	hp_writer_u32(w, (uint32_t)size.size);
	struct kvs real = {.w = w};
	thread_kv(&real, &s);
	hp_writer_u32(w, s.nsample);
	hp_writer_u32(w, s.nprobe);
	write_tree(w, &t->sample, s.nsample);
	write_tree(w, &t->probe, s.nprobe);
	hp_writer_end(w);
}

#define MAX_THREADS_WALKED (1u << 22) /* bound on a corrupted list */

/* 1 while a live snapshot is being written (set and cleared under the write
 * lock, so a section writer that reads it sees its own write's kind). */
static volatile int snapshot_active;

/* Everything after the file header: META, MODULES, THREADs, the extension
 * sections (for a snapshot, only those registered as live).  Then the
 * trailer, fsync and rename.  Caller holds the write lock and opened W. */
static int write_body(int partial, const char *why, pid_t self, int snapshot)
{
	/* set here for both kinds: a fork during a snapshot leaves the child
	 * a copy of the flag set */
	snapshot_active = snapshot;
	uint64_t now = hp_now_ns();
	struct hp_thread *head = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE);
	uint32_t nthreads = 0;
	/* retired records (threads merged into "[exited]", their
	 * memory waiting for a new thread) are not written; which records are
	 * retired changes only under the write lock (runtime/thread.c) */
	for (struct hp_thread *t = head; t && nthreads < MAX_THREADS_WALKED; t = t->next)
		nthreads += !t->retired;
	write_meta(&W, partial, why, nthreads, now);
	hp_modules_section_writer(&W, NULL);
	uint32_t k = 0;
	for (struct hp_thread *t = head; t && k < nthreads && !W.err; t = t->next) {
		if (t->retired)
			continue;
		write_thread(&W, t, self, now);
		k++;
	}
	uint32_t nsec = __atomic_load_n(&nsec_writers, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < nsec && !W.err; i++) {
		if (snapshot && !__atomic_load_n(&sec_writers[i].live, __ATOMIC_ACQUIRE))
			continue;
		int r = sec_writers[i].fn(&W, sec_writers[i].arg);
		if (W.sec_start != ~(uint64_t)0)
			hp_writer_end(&W); /* left open by the callback */
		if (r && !W.err && !snapshot)
			hp_log("section writer %u failed (%d); its section may be missing", i, r);
	}
	snapshot_active = 0;
	return hp_writer_finish(&W);
}

/* A profile past the program's file size limit (RLIMIT_FSIZE) must fail
 * with EFBIG, not send SIGXFSZ, whose default action ended the program at
 * its exit with another status (and before stdio flushed its output).
 * SIGXFSZ is ignored around the write (an ignored signal is discarded, never
 * left pending) and the program's disposition put back after.  The kernel's
 * own call: what it returns is put back exactly (restorer included), and
 * the interposed sigaction of process.c is not involved.  Signal-safe. */
HP_EXPORT void hp_xfsz_hold(struct hp_xfsz *x)
{
	struct hp_ksigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.handler = SIG_IGN;
	x->held = syscall(SYS_rt_sigaction, SIGXFSZ, &ign, &x->old, sizeof(ign.mask)) == 0;
	/* and the profile gets up to the hard limit, when the soft one is lower */
	x->raised = 0;
	if (getrlimit(RLIMIT_FSIZE, &x->lim) == 0 && x->lim.rlim_cur < x->lim.rlim_max) {
		struct rlimit more = {x->lim.rlim_max, x->lim.rlim_max};
		x->raised = setrlimit(RLIMIT_FSIZE, &more) == 0;
	}
}

HP_EXPORT void hp_xfsz_release(const struct hp_xfsz *x)
{
	if (x->raised)
		setrlimit(RLIMIT_FSIZE, &x->lim);
	if (x->held)
		syscall(SYS_rt_sigaction, SIGXFSZ, &x->old, NULL, sizeof(x->old.mask));
}

/* Around every write: the calling thread is marked busy (its own samples
 * are dropped, so its handler never enters the writer), the program's
 * errno is kept, and SIGXFSZ is held off (hp_xfsz_hold).  Signal-safe. */
struct write_guard {
	struct hp_thread *me;
	int saved_errno;
	struct hp_xfsz xfsz;
};

static struct write_guard write_guard_enter(void)
{
	struct write_guard g;
	memset(&g, 0, sizeof(g));
	g.me = hp_thread_self();
	g.saved_errno = errno;
	if (g.me)
		g.me->busy++;
	hp_xfsz_hold(&g.xfsz);
	return g;
}

static void write_guard_leave(const struct write_guard *g)
{
	hp_xfsz_release(&g->xfsz);
	errno = g->saved_errno;
	if (g->me)
		g->me->busy--;
}

int hp_write_profile(int partial, const char *why)
{
	static char path[4096];
	struct write_guard g = write_guard_enter();
	pid_t self = (pid_t)syscall(SYS_gettid);
	int rc = write_lock(self);
	if (rc) {
		hp_log("profile not written: %s", hp_write_strerror(-rc));
		goto out;
	}
	rc = profile_name_n(path, sizeof(path), 0);
	if (!rc)
		rc = make_dirs(path);
	if (!rc)
		rc = choose_name(path, sizeof(path));
	if (!rc)
		rc = hp_writer_open(&W, path, partial ? HP_FILE_PARTIAL : 0);
	if (!rc)
		rc = write_body(partial, why, self, 0);
	if (rc) {
		if (strlen(path) > 300)
			memcpy(path + 290, "...", 4); /* a line a person can read */
		hp_log("cannot write the profile %s: %s (error %d)", path, hp_write_strerror(-rc), -rc);
	} else {
		memcpy(last_path, path, sizeof(last_path));
		hp_rt.written = 1;
	}
	write_unlock();
out:
	write_guard_leave(&g);
	return rc;
}

/* ---- live snapshots ------------------------------------------------------- */

HP_EXPORT int hp_writing_snapshot(void)
{
	return snapshot_active;
}

int hp_write_snapshot(const char *path, uint64_t *bytes)
{
	static char dst[4096];
	struct write_guard g = write_guard_enter();
	pid_t self = (pid_t)syscall(SYS_gettid);
	size_t len = path ? strlen(path) : 0;
	int rc = len == 0 ? -EINVAL : len >= sizeof(dst) ? -ENAMETOOLONG : 0;
	if (!rc)
		rc = write_lock(self);
	if (rc)
		goto out;
	memcpy(dst, path, len + 1); /* the caller's buffer may be rewritten meanwhile */
	rc = make_dirs(dst);
	if (!rc)
		rc = hp_writer_open(&W, dst, 0);
	if (!rc) {
		rc = write_body(0, NULL, self, 1);
		if (!rc && bytes)
			*bytes = W.off;
	}
	write_unlock();
out:
	write_guard_leave(&g);
	return rc;
}
