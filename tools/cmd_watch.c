/* tools/cmd_watch.c - `hyprof watch DIR` / `hyprof watch --pid PID`: the live
 * view of running programs (docs/cmd-watch.md).
 *
 * Every process profiled by hyprof rewrites a snapshot of its profile every
 * HYPROF_LIVE_INTERVAL seconds into <output dir>/.live/<profile name>
 * (runtime/live.c), and a last one marked `ended` when it exits.  This
 * command reads those files with the model loader (tools/model.h) and
 * redraws one frame per --interval in place (cursor home, each line cleared
 * to its end, the rest of the screen cleared: no curses).  A file whose
 * inode, size and time have not changed since the last frame is not read
 * again; the changed ones are read together in one model when possible (the
 * ranks of a job share the symbol tables: 64 rank files take 0.2-0.3 s, not
 * 64 x 75 ms), each process's threads being found in the model by its
 * file's place, else one by one (a bad file spoils only its own row).
 *
 * Per process: rank (MPI) and pid, program, state, elapsed time, samples,
 * CPU time, threads, the observed cost range so far (section COST, when the
 * cost system writes it into snapshots), the critical-path length so far
 * (section CRITPATH, through view_critpath_length() when linked), and the top
 * call paths by self time.
 *
 * State of a process: `ended` (its last snapshot says so; `exec'd` when the
 * process replaced its image with exec), `running` (same host: its pid
 * exists and started before the snapshot was taken; another host: the file
 * was rewritten recently), or `gone` (killed or crashed: the last snapshot
 * is shown).  The command ends when no process is running, on `q`, or on
 * Ctrl-C.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "tools/model.h"
#include "tools/util.h"
#include "tools/views.h"

int cmd_watch(int argc, char **argv);

enum { W_ONCE = 1000, W_INTERVAL, W_TOP, W_PID, W_WAIT };

static const struct tool_opt watch_opts[] = {
	{"once", 0, NULL, NULL, "print one frame and exit (no terminal control codes)", W_ONCE},
	{"interval", 0, "S", NULL, "seconds between frames (default 1; the data is as fresh as HYPROF_LIVE_INTERVAL)", W_INTERVAL},
	{"top", 'n', "N", NULL, "call paths shown per process (default 5)", W_TOP},
	{"pid", 'p', "PID", NULL, "watch this process: its output directory is read from /proc/PID/environ (HYPROF_OUTPUT)", W_PID},
	{"wait", 0, "S", NULL, "wait up to S seconds for the first live data instead of failing at once", W_WAIT},
	{NULL, 0, NULL, NULL, NULL, 0},
};

static const char watch_usage[] = "hyprof watch [options] DIR | hyprof watch [options] --pid PID";
static const char watch_intro[] =
	"Show the statistics of running profiled processes, refreshed in place: per\n"
	"process (MPI rank), the elapsed time, samples, CPU time, the observed cost\n"
	"range so far, the critical-path length so far when it is tracked, and the top\n"
	"call paths.  DIR is the output directory of `hyprof run` (the live files are\n"
	"in DIR/.live; runtime variables HYPROF_LIVE=0|1 and HYPROF_LIVE_INTERVAL=S\n"
	"control them).  Ends when every process has ended, on `q` or on Ctrl-C.";

/* ---- one process ------------------------------------------------------------ */

struct wpath {
	char *text; /* "main > solve > kernel" */
	double self;
};

struct wproc {
	char *file;              /* path of its live file */
	ino_t ino;               /* what was read: reread when any changes */
	off_t size;
	struct timespec mtime;
	int seen;                /* listed in this frame's scan */
	char *err;               /* the file could not be read: why */

	char *program, *host;
	int rank, pid;
	uint64_t start_ns, snap_ns; /* CLOCK_MONOTONIC of the writer: start, this snapshot */
	double elapsed, cpu, total;
	uint64_t samples, dropped;
	int nthreads;
	int ended;               /* LIVE state "ended" (exit) or "exec" (replaced by exec) */
	int exec;
	double interval;         /* the process's HYPROF_LIVE_INTERVAL, s */
	uint64_t snapshots;
	double live_cpu;         /* CPU spent on live statistics, s */
	int has_cost;
	double cost_low, cost_high, cost_cpu, cost_pred;
	int has_cp, cp_known;
	double cp_len;
	struct wpath *paths;
	size_t npaths;

	int alive;               /* computed each frame */
	double age;              /* seconds since the file was rewritten */
};

static void wproc__clear(struct wproc *p)
{
	free(p->err);
	free(p->program);
	free(p->host);
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i].text);
	free(p->paths);
	/* what identifies the entry and what was read survive */
	char *file = p->file;
	int seen = p->seen;
	ino_t ino = p->ino;
	off_t size = p->size;
	struct timespec mtime = p->mtime;
	memset(p, 0, sizeof(*p));
	p->file = file;
	p->seen = seen;
	p->ino = ino;
	p->size = size;
	p->mtime = mtime;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d) {
		fputs("hyprof: out of memory\n", stderr);
		exit(HP_EXIT_ERR);
	}
	return d;
}

/* ---- top call paths ----------------------------------------------------------- */

struct pcollect {
	struct wpath *v;
	size_t n, cap;
	const struct hp_tnode *stack[512];
};

/* Frames every path starts with that say nothing (C runtime start-up,
 * thread start): left out of the displayed paths. */
static int startup_frame(const struct hp_tnode *t)
{
	static const char *const names[] = {"_start", "__libc_start_main", "__libc_start_main_impl",
					    "__libc_start_call_main", "start_thread", "clone", "clone3",
					    "__clone", "__clone3", NULL};
	const char *nm = t->fn && t->fn->name ? t->fn->name : "";
	for (int i = 0; names[i]; i++)
		if (strcmp(nm, names[i]) == 0)
			return 1;
	return 0;
}

static void collect(struct pcollect *c, const struct hp_tnode *t, int depth)
{
	if (depth > 0 && depth <= 512)
		c->stack[depth - 1] = t;
	if (depth > 0 && depth <= 512 && t->self > 0) {
		int first = 0;
		while (first < depth - 1 && startup_frame(c->stack[first]))
			first++;
		size_t len = 1;
		for (int i = first; i < depth; i++)
			len += strlen(c->stack[i]->fn && c->stack[i]->fn->name ? c->stack[i]->fn->name : "?") + 3;
		char *s = malloc(len);
		if (!s)
			return;
		size_t o = 0;
		for (int i = first; i < depth; i++) {
			const char *nm = c->stack[i]->fn && c->stack[i]->fn->name ? c->stack[i]->fn->name : "?";
			o += (size_t)snprintf(s + o, len - o, "%s%s", i > first ? " > " : "", nm);
		}
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 64;
			struct wpath *v = realloc(c->v, cap * sizeof(*v));
			if (!v) {
				free(s);
				return;
			}
			c->v = v;
			c->cap = cap;
		}
		c->v[c->n++] = (struct wpath){s, t->self};
	}
	for (const struct hp_tnode *k = t->child; k; k = k->sibling)
		collect(c, k, depth + 1);
}

static int by_self(const void *a, const void *b)
{
	const struct wpath *x = a, *y = b;
	return x->self < y->self ? 1 : x->self > y->self ? -1 : strcmp(x->text, y->text);
}

/* ---- reading one live file --------------------------------------------------- */

static double kvd(const struct hp_kvlist *l, const char *k, double def)
{
	const struct hp_kv *v = hp_kv_get(l, k);
	if (!v)
		return def;
	switch (v->type) {
	case HP_KV_F64: return v->d;
	case HP_KV_U64: return (double)v->u;
	case HP_KV_I64: return (double)v->i;
	}
	return def;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct wpath *)a)->text, ((const struct wpath *)b)->text);
}

/* One process's row from its file `f` and its threads m->threads[tbase ..
 * tbase + f->nthreads) of a model that loaded it (alone or with others). */
static void fill(struct wproc *p, const struct hp_prof *f, const struct hp_model *m, size_t tbase,
		 int top)
{
	wproc__clear(p);
	p->program = xstrdup(hp_kv_str(&f->meta, "program", "?"));
	p->host = xstrdup(hp_kv_str(&f->meta, "hostname", ""));
	p->rank = (int)hp_kv_i64(&f->meta, "rank", -1);
	p->pid = (int)hp_kv_i64(&f->meta, "pid", 0);
	p->start_ns = hp_kv_u64(&f->meta, "start_ns", 0);
	p->snap_ns = hp_kv_u64(&f->meta, "end_ns", 0);
	p->elapsed = (double)hp_kv_u64(&f->meta, "duration_ns", 0) * 1e-9;
	p->nthreads = (int)f->nthreads;
	for (size_t t = 0; t < f->nthreads; t++) {
		const struct hp_kvlist *k = &f->threads[t].kv;
		p->samples += hp_kv_u64(k, "samples", 0);
		p->cpu += (double)hp_kv_u64(k, "cpu_ns", 0) * 1e-9;
		for (size_t i = 0; i < k->n; i++)
			if (!strncmp(k->v[i].key, "dropped.", 8) && k->v[i].type == HP_KV_U64)
				p->dropped += k->v[i].u;
	}

	const struct hp_section *ls = hp_prof_section(f, HP_SEC_LIVE);
	struct hp_kvlist lkv = {0};
	if (ls && hp_kv_parse(ls->data, ls->len, &lkv) == 0) {
		const char *state = hp_kv_str(&lkv, "state", "running");
		p->exec = strcmp(state, "exec") == 0;
		p->ended = p->exec || strcmp(state, "ended") == 0;
		p->interval = kvd(&lkv, "interval_ns", 1e9) * 1e-9;
		p->snapshots = (uint64_t)kvd(&lkv, "snapshots", 0);
		p->live_cpu = kvd(&lkv, "cpu_ns", 0) * 1e-9;
		hp_kv_free(&lkv);
	} else {
		p->interval = 1;
	}
	if (hp_kv_get(&f->cost, "low") && hp_kv_get(&f->cost, "high")) {
		p->has_cost = 1;
		p->cost_low = kvd(&f->cost, "low", 0);
		p->cost_high = kvd(&f->cost, "high", 0);
		p->cost_cpu = kvd(&f->cost, "cpu_time", 0);
		p->cost_pred = kvd(&f->cost, "predicted", 0);
	}
	if (hp_prof_section(f, HP_SEC_CRITPATH)) {
		p->has_cp = 1;
		if (view_critpath_length)
			p->cp_known = view_critpath_length(f, &p->cp_len) == 1;
	}

	/* the paths of every thread; the same path on two threads counts once */
	struct pcollect c = {0};
	for (size_t t = tbase; t < tbase + f->nthreads && t < m->nthreadinfo; t++)
		if (m->threads[t].root)
			collect(&c, m->threads[t].root, 0);
	if (c.n) {
		qsort(c.v, c.n, sizeof(*c.v), by_text);
		size_t k = 0;
		for (size_t i = 0; i < c.n; i++) {
			if (k && !strcmp(c.v[k - 1].text, c.v[i].text)) {
				c.v[k - 1].self += c.v[i].self;
				free(c.v[i].text);
			} else {
				c.v[k++] = c.v[i];
			}
		}
		c.n = k;
		qsort(c.v, c.n, sizeof(*c.v), by_self);
	}
	for (size_t i = 0; i < c.n; i++)
		p->total += c.v[i].self;
	size_t keep = c.n < (size_t)top ? c.n : (size_t)top;
	for (size_t i = keep; i < c.n; i++)
		free(c.v[i].text);
	p->paths = c.v;
	p->npaths = keep;
}

/* Read one live file on its own (when loading them together failed: one
 * bad file spoils only its own row). */
static void load_one(struct wproc *p, int top)
{
	struct hp_model m;
	char err[1024];
	if (model__load(&m, p->file, err, sizeof(err)) < 0) {
		wproc__clear(p);
		p->err = xstrdup(err);
		return;
	}
	if (m.nprofs == 1)
		fill(p, m.profs[0], &m, 0, top);
	else {
		wproc__clear(p);
		p->err = xstrdup("not one profile in the file");
	}
	model__free(&m);
}

/* ---- is it still running? ------------------------------------------------------- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Start of process `pid` on CLOCK_MONOTONIC, ns; 0 if it does not exist. */
static uint64_t proc_start_mono(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *s = strrchr(buf, ')'); /* the command may contain spaces */
	if (!s)
		return 0;
	/* fields after ")": 3 state ... 22 starttime */
	unsigned long long start = 0;
	int field = 2;
	for (const char *q = s + 1; *q; q++) {
		if (*q == ' ' && q[1] != ' ') {
			field++;
			if (field == 22) {
				start = strtoull(q + 1, NULL, 10);
				break;
			}
		}
	}
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	/* starttime counts from boot (CLOCK_BOOTTIME); convert to CLOCK_MONOTONIC */
	uint64_t boot = clock_ns(CLOCK_BOOTTIME), mono = clock_ns(CLOCK_MONOTONIC);
	uint64_t st = (uint64_t)((double)start * 1e9 / (double)hz);
	uint64_t off = boot > mono ? boot - mono : 0;
	return st > off ? st - off : 1;
}

static void judge(struct wproc *p, const char *myhost)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	p->age = (double)(now.tv_sec - p->mtime.tv_sec) + (double)(now.tv_nsec - p->mtime.tv_nsec) * 1e-9;
	if (p->err) {
		p->alive = p->age < 10; /* being rewritten: try again next frame */
		return;
	}
	if (p->ended) {
		p->alive = 0;
		return;
	}
	if (p->host && strcmp(p->host, myhost) == 0) {
		if (p->pid <= 0 || (kill(p->pid, 0) != 0 && errno != EPERM)) {
			p->alive = 0;
			return;
		}
		/* the pid exists: the same process if it started before this
		 * snapshot was taken (a reused pid started after the old one died) */
		uint64_t st = proc_start_mono(p->pid);
		p->alive = st != 0 && st <= p->snap_ns + 500000000ull;
		return;
	}
	/* another host (shared file system): alive while the file is rewritten */
	double limit = 3 * p->interval + 5;
	p->alive = p->age < limit;
}

/* ---- the set of processes -------------------------------------------------------- */

struct watch {
	char *dir;               /* the .live directory */
	int pid;                 /* --pid: only this process; 0 = all */
	int top;
	struct wproc *v;
	size_t n, cap;
	char host[256];
};

static int pid_suffix(const char *name, int pid)
{
	char suf[32];
	int k = snprintf(suf, sizeof(suf), ".%d" HP_FILE_EXT, pid);
	size_t n = strlen(name);
	return n > (size_t)k && strcmp(name + n - (size_t)k, suf) == 0;
}

static int same_stat(const struct wproc *p, const struct stat *st)
{
	return p->ino == st->st_ino && p->size == st->st_size &&
	       p->mtime.tv_sec == st->st_mtim.tv_sec && p->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void set_stat(struct wproc *p, const struct stat *st)
{
	p->ino = st->st_ino;
	p->size = st->st_size;
	p->mtime = st->st_mtim;
}

/* Read the files that changed.  All of them in one model when possible
 * (the ranks of a job share the symbol tables: one lookup per object, not
 * one per rank), else one by one. */
static void reload(struct watch *w, struct wproc **todo, const struct stat *sts, size_t n)
{
	struct hp_model m;
	char err[1024];
	int together = n > 1 && !w->pid && model__load(&m, w->dir, err, sizeof(err)) == 0;
	if (together) {
		for (size_t i = 0; i < m.nprofs; i++)
			together &= !(m.profs[i]->flags & HP_FILE_MERGED);
		if (!together)
			model__free(&m);
	}
	size_t tbase = 0;
	int *done = calloc(n ? n : 1, sizeof(*done));
	if (!done)
		together = 0;
	for (size_t k = 0; together && k < m.nprofs; k++) {
		const struct hp_prof *f = m.profs[k];
		for (size_t i = 0; i < n; i++)
			if (!done[i] && f->path && !strcmp(f->path, todo[i]->file)) {
				fill(todo[i], f, &m, tbase, w->top);
				done[i] = 1;
			}
		tbase += f->nthreads;
	}
	if (together)
		model__free(&m);
	for (size_t i = 0; i < n; i++) {
		if (!done || !done[i])
			load_one(todo[i], w->top);
		set_stat(todo[i], &sts[i]);
	}
	free(done);
}

/* List the live files, (re)load the changed ones.  Returns the number of
 * processes, or -errno when the directory cannot be read. */
static int scan(struct watch *w)
{
	DIR *d = opendir(w->dir);
	if (!d)
		return -errno;
	for (size_t i = 0; i < w->n; i++)
		w->v[i].seen = 0;
	struct wproc **todo = NULL;
	struct stat *sts = NULL;
	size_t ntodo = 0, captodo = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t len = strlen(nm);
		if (nm[0] == '.' || len <= strlen(HP_FILE_EXT) ||
		    strcmp(nm + len - strlen(HP_FILE_EXT), HP_FILE_EXT) != 0)
			continue; /* also skips the writers' <name>.hyp.tmp.<pid> */
		if (w->pid && !pid_suffix(nm, w->pid))
			continue;
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", w->dir, nm) >= (int)sizeof(path))
			continue;
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		size_t idx = w->n;
		for (size_t i = 0; i < w->n; i++)
			if (strcmp(w->v[i].file, path) == 0)
				idx = i;
		if (idx == w->n) {
			if (w->n == w->cap) {
				size_t cap = w->cap ? 2 * w->cap : 16;
				struct wproc *v = realloc(w->v, cap * sizeof(*v));
				if (!v)
					break;
				w->v = v;
				w->cap = cap;
			}
			memset(&w->v[w->n], 0, sizeof(w->v[0]));
			w->v[w->n].file = xstrdup(path);
			w->n++;
		}
		w->v[idx].seen = 1;
		if (same_stat(&w->v[idx], &st) && !w->v[idx].err)
			continue;
		if (ntodo == captodo) {
			captodo = captodo ? 2 * captodo : 16;
			todo = realloc(todo, captodo * sizeof(*todo));
			sts = realloc(sts, captodo * sizeof(*sts));
			if (!todo || !sts) {
				fputs("hyprof: out of memory\n", stderr);
				exit(HP_EXIT_ERR);
			}
		}
		todo[ntodo] = (struct wproc *)(uintptr_t)idx; /* an index until w->v stops moving */
		sts[ntodo++] = st;
	}
	closedir(d);
	for (size_t i = 0; i < ntodo; i++)
		todo[i] = &w->v[(uintptr_t)todo[i]];
	if (ntodo)
		reload(w, todo, sts, ntodo);
	free(todo);
	free(sts);
	/* files that disappeared (renamed when the rank became known) */
	size_t k = 0;
	for (size_t i = 0; i < w->n; i++) {
		if (w->v[i].seen) {
			w->v[k++] = w->v[i];
		} else {
			wproc__clear(&w->v[i]);
			free(w->v[i].file);
		}
	}
	w->n = k;
	for (size_t i = 0; i < w->n; i++) {
		struct wproc *p = &w->v[i];
		judge(p, w->host);
		/* A process that ended between our read of its file and the pid
		 * check has rewritten the file (its last snapshot, `ended`) just
		 * before it exited: read it again before calling it gone. */
		struct stat st;
		if (!p->alive && !p->ended && stat(p->file, &st) == 0 && !same_stat(p, &st)) {
			load_one(p, w->top);
			set_stat(p, &st);
			judge(p, w->host);
		}
	}
	return (int)w->n;
}

static int by_rank(const void *a, const void *b)
{
	const struct wproc *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->pid - y->pid;
}

/* ---- drawing ------------------------------------------------------------------ */

struct screen {
	int ansi;                /* in-place redraw */
	int cols, rows;          /* 0 = unlimited */
	int line;                /* lines printed in this frame */
	int full;                /* rows exhausted */
};

static void vput(struct screen *s, const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (s->cols > 0) {
		int chars = 0;
		for (size_t i = 0; buf[i]; i++) {
			if (((unsigned char)buf[i] & 0xc0) != 0x80 && ++chars > s->cols) {
				buf[i] = 0;
				break;
			}
		}
	}
	fputs(buf, stdout);
	if (s->ansi)
		fputs("\033[K", stdout);
	fputc('\n', stdout);
	s->line++;
}

/* Print one line, cut to the width (never wrapped: wrapping breaks the
 * in-place redraw).  Counts UTF-8 characters, not bytes.  The terminal's
 * last row is kept for the "more below" line (put_last()). */
static void put(struct screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct screen *s, const char *fmt, ...)
{
	if (s->full)
		return;
	if (s->rows && s->line >= s->rows - 1) {
		s->full = 1;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vput(s, fmt, ap);
	va_end(ap);
}

static void put_last(struct screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_last(struct screen *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(s, fmt, ap);
	va_end(ap);
}

static const char *fsecs(double v, char *buf, size_t len)
{
	if (v >= 3600)
		snprintf(buf, len, "%dh%02dm%02ds", (int)(v / 3600), (int)fmod(v / 60, 60), (int)fmod(v, 60));
	else if (v >= 60)
		snprintf(buf, len, "%dm%04.1fs", (int)(v / 60), fmod(v, 60));
	else if (v >= 10)
		snprintf(buf, len, "%.1f s", v);
	else if (v >= 1)
		snprintf(buf, len, "%.2f s", v);
	else
		snprintf(buf, len, "%.0f ms", v * 1e3);
	return buf;
}

/* The path cut from the left to fit `room` characters, leaf always kept. */
static const char *fit_path(const char *path, int room, char *buf, size_t len)
{
	int n = (int)strlen(path);
	if (room <= 0 || n <= room)
		return path;
	const char *p = path + n - (room > 4 ? room - 4 : 0);
	const char *gt = strstr(p, " > ");
	if (gt && gt + 3 < path + n)
		p = gt + 3; /* start at a frame boundary */
	snprintf(buf, len, "... %s", p);
	return buf;
}

static void draw_proc(struct screen *s, const struct wproc *p)
{
	char a[32], b[32], who[64];
	if (p->rank >= 0)
		snprintf(who, sizeof(who), "rank %d  pid %d", p->rank, p->pid);
	else
		snprintf(who, sizeof(who), "pid %d", p->pid);
	if (p->err) {
		put(s, "%s  %s", p->file, p->err);
		return;
	}
	const char *state = p->exec ? "exec'd" : p->ended ? "ended" : p->alive ? "running" : "gone";
	char stale[64] = "";
	if (p->alive && p->age > 2 * p->interval + 1)
		snprintf(stale, sizeof(stale), " (no update for %s)", fsecs(p->age, a, sizeof(a)));
	else if (!p->alive && !p->ended)
		snprintf(stale, sizeof(stale), " (last snapshot %s ago)", fsecs(p->age, a, sizeof(a)));
	put(s, "%s  %s  %s%s  elapsed %s  samples %llu (%llu dropped)  cpu %s  threads %d", who,
	    p->program, state, stale, fsecs(p->elapsed, a, sizeof(a)), (unsigned long long)p->samples,
	    (unsigned long long)p->dropped, fsecs(p->cpu, b, sizeof(b)), p->nthreads);
	char cost[160], cp[96] = "";
	if (p->has_cost && p->cost_cpu > 0)
		snprintf(cost, sizeof(cost), "overhead %.1f%%..%.1f%% of %s CPU (predicted %.1f%%)",
			 100 * p->cost_low / p->cost_cpu, 100 * p->cost_high / p->cost_cpu,
			 fsecs(p->cost_cpu, a, sizeof(a)), 100 * p->cost_pred / p->cost_cpu);
	else
		snprintf(cost, sizeof(cost), "overhead range: not in the live file (no COST section)");
	if (p->has_cp && p->cp_known)
		snprintf(cp, sizeof(cp), "  critical path %s%s", fsecs(p->cp_len, b, sizeof(b)),
			 p->ended ? "" : " so far");
	else if (p->has_cp)
		snprintf(cp, sizeof(cp), "  critical path: tracked (this hyprof cannot read it)");
	char live[80] = "";
	if (p->snapshots)
		snprintf(live, sizeof(live), "  live: %llu snapshots, %s CPU",
			 (unsigned long long)p->snapshots, fsecs(p->live_cpu, b, sizeof(b)));
	put(s, "  %s%s%s", cost, cp, live);
	if (!p->npaths) {
		if (p->total <= 0)
			put(s, "  (no samples yet)");
		return; /* or --top 0 */
	}
	for (size_t i = 0; i < p->npaths; i++) {
		const struct wpath *q = &p->paths[i];
		char buf[4096];
		int room = s->cols > 0 ? s->cols - 20 : 0;
		put(s, "  %5.1f%% %9s  %s", p->total > 0 ? 100 * q->self / p->total : 0,
		    fsecs(q->self, a, sizeof(a)), fit_path(q->text, room, buf, sizeof(buf)));
	}
}

static void draw(struct screen *s, struct watch *w, double interval)
{
	s->line = 0;
	s->full = 0;
	if (s->ansi)
		fputs("\033[H", stdout);
	qsort(w->v, w->n, sizeof(*w->v), by_rank);
	int running = 0, ended = 0, gone = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct wproc *p = &w->v[i];
		if (p->alive)
			running++;
		else if (p->ended)
			ended++;
		else
			gone++;
	}
	time_t now = time(NULL);
	struct tm tm;
	char clock[16];
	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	put(s, "hyprof watch  %s  %s", w->dir, clock);
	char hint[64] = "";
	if (s->ansi)
		snprintf(hint, sizeof(hint), "  (every %g s; q quits)", interval);
	put(s, "%zu process%s: %d running, %d ended, %d gone%s", w->n, w->n == 1 ? "" : "es", running,
	    ended, gone, hint);
	/* the job's critical path so far: the longest of the ranks' paths
	 * (ALGORITHMS.md section 6: the global value is the max so far) */
	const struct wproc *cp = NULL;
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].cp_known && (!cp || w->v[i].cp_len > cp->cp_len))
			cp = &w->v[i];
	if (cp && w->n > 1) {
		char a[32];
		put(s, "critical path so far: %s (longest on rank %d)", fsecs(cp->cp_len, a, sizeof(a)),
		    cp->rank);
	}
	size_t shown = 0;
	for (size_t i = 0; i < w->n && !s->full; i++) {
		put(s, "%s", "");
		draw_proc(s, &w->v[i]);
		if (!s->full)
			shown++;
	}
	if (s->full)
		put_last(s, "... %zu more process%s below: enlarge the terminal or use --pid, --top",
			 w->n - shown, w->n - shown == 1 ? "" : "es");
	if (s->ansi)
		fputs("\033[J", stdout);
	fflush(stdout);
}

/* ---- terminal ----------------------------------------------------------------- */

static volatile sig_atomic_t got_stop, got_winch;
static struct termios saved_tty;
static int tty_raw;

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		got_winch = 1;
	else
		got_stop = 1;
}

static void tty_restore(void)
{
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
		tty_raw = 0;
	}
}

static void screen_size(struct screen *s)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		s->cols = ws.ws_col;
		s->rows = ws.ws_row;
	} else {
		s->cols = 0;
		s->rows = 0;
	}
}

/* Wait `secs` for a key; returns 1 if the user asked to quit. */
static int wait_key(double secs, int keys)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	for (;;) {
		if (got_stop)
			return 1;
		if (got_winch)
			return 0;
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		if (now >= end)
			return 0;
		int ms = (int)((end - now + 999999) / 1000000);
		struct pollfd pf = {STDIN_FILENO, POLLIN, 0};
		int r = poll(keys ? &pf : NULL, keys ? 1 : 0, ms);
		if (r > 0 && keys) {
			if (pf.revents & (POLLHUP | POLLERR | POLLNVAL)) {
				keys = 0; /* stdin closed: no more keys, keep watching */
				continue;
			}
			char c;
			ssize_t n = read(STDIN_FILENO, &c, 1);
			if (n == 1 && (c == 'q' || c == 'Q' || c == 3))
				return 1;
			if (n == 0)
				keys = 0;
		}
	}
}

/* ---- finding the directory ------------------------------------------------------ */

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The live directory of an output directory (or the .live directory itself). */
static char *live_dir_of(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char *d = malloc(n + 8);
	if (!d)
		return NULL;
	memcpy(d, dir, n);
	d[n] = 0;
	const char *base = strrchr(d, '/');
	base = base ? base + 1 : d;
	if (strcmp(base, ".live") == 0)
		return d;
	strcpy(d + n, "/.live");
	return d;
}

/* Read /proc/PID/<what> (environ, cmdline: NUL-separated) into a malloc'd
 * buffer.  Returns its length, or -errno. */
static ssize_t read_proc(int pid, const char *what, char **out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 8192, n = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (!b) {
			close(fd);
			return -ENOMEM;
		}
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0) {
			int e = errno;
			close(fd);
			free(b);
			return -e;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap) {
			cap *= 2;
			char *nb = realloc(b, cap + 1);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	close(fd);
	b[n] = 0;
	*out = b;
	return (ssize_t)n;
}

static const char *env_get(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (strncmp(env + i, name, nl) == 0 && env[i + nl] == '=')
			return env + i + nl + 1;
	return NULL;
}

/* Is libhyprof loaded in process `pid`? 1 yes, 0 no, -errno unknown. */
static int has_runtime(int pid)
{
	char *maps;
	ssize_t n = read_proc(pid, "maps", &maps);
	if (n < 0)
		return (int)n;
	int yes = strstr(maps, "/libhyprof.so") != NULL;
	free(maps);
	return yes;
}

/* The .live directory of process `pid`, or NULL with the error printed
 * (returns the exit status in *status). */
static char *dir_of_pid(int pid, int *status)
{
	*status = HP_EXIT_ERR;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d", pid);
	if (!is_dir(p)) {
		tool_err("no process %d (see `ps`; with MPI, each rank has its own pid)", pid);
		return NULL;
	}
	int rt = has_runtime(pid);
	if (rt == 0) {
		tool_err("process %d is not profiled by hyprof (libhyprof.so is not loaded in it): "
			 "start it with `hyprof run`",
			 pid);
		return NULL;
	}
	char *env = NULL;
	ssize_t n = read_proc(pid, "environ", &env);
	if (n < 0) {
		tool_err("cannot read /proc/%d/environ: %s (watch your own processes, or give the "
			 "output directory: hyprof watch DIR)",
			 pid, strerror((int)-n));
		return NULL;
	}
	const char *live = env_get(env, (size_t)n, "HYPROF_LIVE");
	if (live && (!strcmp(live, "0") || !strcasecmp(live, "no") || !strcasecmp(live, "off") ||
		     !strcasecmp(live, "false"))) {
		tool_err("process %d runs with HYPROF_LIVE=%s: it keeps no live statistics", pid, live);
		free(env);
		return NULL;
	}
	const char *out = env_get(env, (size_t)n, "HYPROF_OUTPUT");
	char *dir = NULL;
	if (out && out[0] == '/') {
		dir = live_dir_of(out);
	} else {
		/* relative (or unset: the runtime's default ./hyprof-PROG-TIME)
		 * output directories are relative to the process's working
		 * directory; it may have changed since, so this is best effort */
		char cwd[PATH_MAX], cwdl[64];
		snprintf(cwdl, sizeof(cwdl), "/proc/%d/cwd", pid);
		ssize_t k = readlink(cwdl, cwd, sizeof(cwd) - 1);
		if (k > 0) {
			cwd[k] = 0;
			if (out && *out) {
				char full[PATH_MAX + 4096];
				snprintf(full, sizeof(full), "%s/%s", cwd, out);
				dir = live_dir_of(full);
			} else {
				DIR *d = opendir(cwd);
				struct dirent *de;
				while (d && !dir && (de = readdir(d))) {
					if (strncmp(de->d_name, "hyprof-", 7) != 0)
						continue;
					char cand[PATH_MAX + 300];
					snprintf(cand, sizeof(cand), "%s/%s/.live", cwd, de->d_name);
					DIR *l = opendir(cand);
					struct dirent *le;
					while (l && !dir && (le = readdir(l)))
						if (pid_suffix(le->d_name, pid))
							dir = xstrdup(cand);
					if (l)
						closedir(l);
				}
				if (d)
					closedir(d);
			}
		}
	}
	free(env);
	if (!dir) {
		tool_err("cannot find the output directory of process %d (HYPROF_OUTPUT is not in its "
			 "environment): give it: hyprof watch DIR",
			 pid);
		return NULL;
	}
	if (rt < 0 && !is_dir(dir)) {
		tool_err("process %d does not look profiled by hyprof (no %s)", pid, dir);
		free(dir);
		return NULL;
	}
	*status = HP_EXIT_OK;
	return dir;
}

/* ---- the command -------------------------------------------------------------- */

int cmd_watch(int argc, char **argv)
{
	int once = 0, top = 5, pid = 0;
	double interval = 1, wait_s = 0;
	int c;
	while ((c = tool_getopt("watch", argc, argv, watch_opts, watch_usage, watch_intro, 0)) != -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		uint64_t u;
		switch (c) {
		case W_ONCE: once = 1; break;
		case W_INTERVAL:
			if (tool_parse_double(optarg, &interval) < 0 || !(interval >= 0.1 && interval <= 3600))
				return tool_usage("watch", "--interval needs seconds from 0.1 to 3600, not '%s'", optarg);
			break;
		case W_WAIT:
			if (tool_parse_double(optarg, &wait_s) < 0 || !(wait_s >= 0 && wait_s <= 86400))
				return tool_usage("watch", "--wait needs seconds from 0 to 86400, not '%s'", optarg);
			break;
		case W_TOP:
			if (tool_parse_u64(optarg, &u) < 0 || u > 1000)
				return tool_usage("watch", "--top needs a number from 0 to 1000, not '%s'", optarg);
			top = (int)u;
			break;
		case W_PID:
			if (tool_parse_u64(optarg, &u) < 0 || u == 0 || u > INT_MAX)
				return tool_usage("watch", "--pid needs a process id, not '%s'", optarg);
			pid = (int)u;
			break;
		default:
			return tool_usage("watch", "unhandled option");
		}
	}
	int nargs = argc - optind;
	if (pid && nargs > 0)
		return tool_usage("watch", "give either DIR or --pid PID, not both");
	if (!pid && nargs == 0)
		return tool_usage("watch", "no output directory given (or --pid PID)");
	if (nargs > 1)
		return tool_usage("watch", "one output directory only");

	struct watch w = {.pid = pid, .top = top};
	struct utsname uts;
	if (uname(&uts) == 0)
		snprintf(w.host, sizeof(w.host), "%s", uts.nodename);
	if (pid) {
		int st;
		w.dir = dir_of_pid(pid, &st);
		if (!w.dir)
			return st;
	} else {
		if (!is_dir(argv[optind]) && wait_s == 0)
			return tool_err("%s: no such directory (the output directory of `hyprof run -o DIR`)",
					argv[optind]);
		w.dir = live_dir_of(argv[optind]);
		if (!w.dir)
			return tool_err("out of memory");
	}

	/* the first live data, or a one-line error */
	uint64_t give_up = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(wait_s * 1e9);
	int n;
	for (;;) {
		n = scan(&w);
		if (n > 0 || clock_ns(CLOCK_MONOTONIC) >= give_up)
			break;
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
	}
	if (n <= 0) {
		int rc;
		if (pid)
			rc = tool_err("process %d has no live statistics in %s yet (the first snapshot comes "
				      "after HYPROF_LIVE_INTERVAL, default 1 s; --wait S waits for it)",
				      pid, w.dir);
		else if (!is_dir(argv[optind]))
			rc = tool_err("%s: no such directory after waiting %g s (the output directory of "
				      "`hyprof run -o DIR`)",
				      argv[optind], wait_s);
		else if (n < 0 && n != -ENOENT)
			rc = tool_err("%s: %s", w.dir, strerror(-n));
		else
			rc = tool_err("%s has no live statistics (no %s/*.hyp): no profiled process has run "
				      "there for one HYPROF_LIVE_INTERVAL yet, or HYPROF_LIVE=0 (--wait S waits "
				      "for them)",
				      argv[optind], w.dir);
		free(w.dir);
		return rc;
	}

	struct screen s = {0};
	s.ansi = !once && isatty(STDOUT_FILENO);
	if (s.ansi)
		screen_size(&s);
	int keys = !once && isatty(STDIN_FILENO);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: poll returns at once */
	sigemptyset(&sa.sa_mask);
	if (!once) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGWINCH, &sa, NULL);
	}
	if (keys && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
		struct termios t = saved_tty;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			tty_raw = 1;
	}
	if (s.ansi)
		fputs("\033[?25l\033[2J", stdout); /* hide the cursor, clear once */

	for (int frame = 0;; frame++) {
		if (frame > 0) {
			n = scan(&w);
			if (n < 0)
				n = 0; /* directory removed: the last frame says nothing runs */
		}
		if (got_winch) {
			got_winch = 0;
			screen_size(&s);
			if (s.ansi)
				fputs("\033[2J", stdout);
		}
		draw(&s, &w, interval);
		if (once)
			break;
		int running = 0;
		for (size_t i = 0; i < w.n; i++)
			running += w.v[i].alive;
		if (!running)
			break;
		if (!s.ansi)
			putchar('\n');
		if (wait_key(interval, keys))
			break;
	}
	if (s.ansi)
		fputs("\033[?25h", stdout);
	fflush(stdout);
	tty_restore();
	for (size_t i = 0; i < w.n; i++) {
		wproc__clear(&w.v[i]);
		free(w.v[i].file);
	}
	free(w.v);
	free(w.dir);
	return HP_EXIT_OK;
}
