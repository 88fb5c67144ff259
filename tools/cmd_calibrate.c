/* tools/cmd_calibrate.c - `hyprof calibrate [--json]`: what each piece of
 * measurement costs on this machine, measured with the real runtime.
 *
 * The hyprof command itself is never profiled: it runs itself as a child
 * (`hyprof calibrate --child ...`) with libhyprof.so preloaded, and the
 * child calls the runtime's own calibration (hp_calib_measure(), full
 * trials) on its main thread and on a second thread, printing the results.
 * The cost of one sample is measured by slowdown: the same fixed loop runs
 * in children sampled at HYPROF_FREQ=hi and at 1 Hz, and the extra cycles
 * divided by the extra samples is the whole cost of a sample (signal,
 * unwind, insert, cache effects).  Pairs of runs are repeated to give a
 * distribution.  Everything is printed with min / median / spread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calib/calib.h"
#include "tools/json.h"
#include "tools/util.h"

#define CMD "calibrate"
#define MAXTHREADS 2
#define MAXPAIRS 15

int cmd_calibrate(int argc, char **argv);

/* ---- child side (runs with libhyprof.so preloaded) -------------------- */

static struct hp_calib child_res[MAXTHREADS];
static int (*child_measure)(struct hp_calib *, int);

static void *child_thread(void *arg)
{
	child_measure(&child_res[1], 1);
	return NULL;
}

static void print_dist(const char *thread, const char *name, const struct hp_dist *d)
{
	printf("%s %s %.6g %.6g %.6g %u\n", thread, name, d->min, d->median, d->spread, d->n);
}

static int child_probes(void)
{
	child_measure = (int (*)(struct hp_calib *, int))dlsym(RTLD_DEFAULT, "hp_calib_measure");
	if (!child_measure) {
		fprintf(stderr, "hyprof calibrate: libhyprof.so is not loaded in the child\n");
		return 1;
	}
	if (child_measure(&child_res[0], 1) != 0)
		return 1;
	pthread_t th;
	int nthreads = 1;
	if (pthread_create(&th, NULL, child_thread, NULL) == 0) {
		pthread_join(th, NULL);
		nthreads = 2;
	}
	for (int i = 0; i < nthreads; i++) {
		const struct hp_calib *c = &child_res[i];
		char t[8];
		snprintf(t, sizeof t, "%d", i);
		printf("%s tsc_hz %.6f %.6f %.6f %u\n", t, c->tsc.min, c->tsc_hz, c->tsc.spread,
		       c->tsc.n);
		print_dist(t, "timer_ns", &c->timer);
		print_dist(t, "count_probe_ns", &c->count_probe);
		print_dist(t, "timed_probe_ns", &c->timed_probe);
		print_dist(t, "di_ns", &c->di);
		print_dist(t, "de_ns", &c->de);
		print_dist(t, "sample_kernel_ns", &c->sample_kernel);
		printf("%s tsc_method %s\n", t, c->tsc_method);
		printf("%s calib_ms %.3f 0 0 1\n", t, c->duration_ms);
		printf("%s probe_delay_ns %.0f 0 0 1\n", t, c->probe_delay_ns);
	}
	return 0;
}

/* A fixed amount of work: a dependent chain the compiler cannot fold. */
static __attribute__((noinline)) uint64_t work(uint64_t n)
{
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static int child_work(uint64_t iters)
{
	struct hp_thread *(*self)(void) =
		(struct hp_thread * (*)(void)) dlsym(RTLD_DEFAULT, "hp_thread_self");
	struct hp_thread *t = self ? self() : NULL;
	uint64_t s0 = t ? t->samples + t->meas_samples + t->mpi_samples : 0, h0 = t ? t->handler_cycles : 0;
	uint64_t a = hp_rdtsc();
	uint64_t x = work(iters);
	uint64_t b = hp_rdtsc();
	uint64_t s1 = t ? t->samples + t->meas_samples + t->mpi_samples : 0, h1 = t ? t->handler_cycles : 0;
	printf("work %llu %llu %llu %llu\n", (unsigned long long)(b - a),
	       (unsigned long long)(s1 - s0), (unsigned long long)(h1 - h0),
	       (unsigned long long)(x & 1));
	return t ? 0 : 1;
}

/* ---- parent side -------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* min, median, p90 - p10 of n values (sorted in place). */
static struct hp_dist dist_of(double *v, uint32_t n)
{
	struct hp_dist d = {0, 0, 0, n};
	if (!n)
		return d;
	qsort(v, n, sizeof *v, cmp_d);
	d.min = v[0];
	d.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	d.spread = v[(uint32_t)(0.9 * (n - 1) + 0.5)] - v[(uint32_t)(0.1 * (n - 1) + 0.5)];
	return d;
}

struct run_out {
	char buf[16384];
	size_t len;
};

/* Run `hyprof calibrate --child ARGS` with the runtime preloaded and extra
 * environment; capture stdout. */
static int run_child(const char *lib, const char *outdir, char *const *args, const char *freq,
		     struct run_out *o)
{
	int p[2];
	if (pipe(p) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		setenv("LD_PRELOAD", lib, 1);
		setenv("HYPROF_OUTPUT", outdir, 1);
		setenv("HYPROF_QUIET", "1", 1);
		setenv("HYPROF_LIVE", "0", 1);
		setenv("HYPROF_MODE", "measured", 1);
		unsetenv("HYPROF_PERIOD");
		if (freq)
			setenv("HYPROF_FREQ", freq, 1);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(p[1]);
	o->len = 0;
	ssize_t r;
	while ((r = read(p[0], o->buf + o->len, sizeof(o->buf) - 1 - o->len)) > 0)
		o->len += (size_t)r;
	close(p[0]);
	o->buf[o->len] = '\0';
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

static const char *const dist_names[] = {"timer_ns",    "count_probe_ns",   "timed_probe_ns",
					  "di_ns",       "de_ns",            "sample_kernel_ns",
					  "tsc_hz",      "calib_ms",         "probe_delay_ns"};
#define NDIST (sizeof(dist_names) / sizeof(dist_names[0]))

struct thread_res {
	struct hp_dist d[NDIST];
	char tsc_method[128];
	int ok;
};

static int parse_probes(const char *s, struct thread_res *res, int *nthreads)
{
	*nthreads = 0;
	for (const char *line = s; line && *line;) {
		const char *nl = strchr(line, '\n');
		int t;
		char name[64], rest[128];
		if (sscanf(line, "%d %63s %127[^\n]", &t, name, rest) == 3 && t >= 0 &&
		    t < MAXTHREADS) {
			if (t + 1 > *nthreads)
				*nthreads = t + 1;
			if (!strcmp(name, "tsc_method")) {
				snprintf(res[t].tsc_method, sizeof res[t].tsc_method, "%s", rest);
			} else {
				for (size_t i = 0; i < NDIST; i++)
					if (!strcmp(name, dist_names[i])) {
						struct hp_dist *d = &res[t].d[i];
						sscanf(rest, "%lf %lf %lf %u", &d->min, &d->median,
						       &d->spread, &d->n);
						res[t].ok = 1;
					}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return *nthreads > 0 ? 0 : -EINVAL;
}

static int parse_work(const char *s, double *cyc, double *samples, double *handler)
{
	const char *w = strstr(s, "work ");
	unsigned long long c, n, h, x;
	if (!w || sscanf(w, "work %llu %llu %llu %llu", &c, &n, &h, &x) != 4)
		return -EINVAL;
	*cyc = (double)c;
	*samples = (double)n;
	*handler = (double)h;
	return 0;
}

static void rm_tree(const char *dir)
{
	char cmd[PATH_MAX + 32];
	if (strncmp(dir, "/tmp/hyprof-calib.", 18) != 0)
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "hyprof calibrate: could not remove %s\n", dir);
}

enum { OPT_JSON = 1, OPT_QUICK, OPT_FREQ, OPT_CHILD };
static const struct tool_opt opts[] = {
	{"json", 0, NULL, NULL, "print JSON (medians under timer_ns, count_probe_ns, ... and the distributions)", OPT_JSON},
	{"quick", 0, NULL, NULL, "fewer sample-cost runs (3 pairs instead of 7)", OPT_QUICK},
	{"freq", 0, "HZ", NULL, "sampling rate of the sample-cost runs (default 5000)", OPT_FREQ},
	{"child", 0, "WHAT", NULL, "internal: the measuring child (probes | work N)", OPT_CHILD},
	{NULL, 0, NULL, NULL, NULL, 0},
};

static void text_dist(const char *label, const struct hp_dist *d, const char *unit, double scale)
{
	printf("  %-34s %10.3f %s  (min %.3f, spread p90-p10 %.3f, n %u)\n", label, d->median * scale,
	       unit, d->min * scale, d->spread * scale, d->n);
}

static void json_dist(struct json *j, const char *key, const struct hp_dist *d, double scale)
{
	json__key(j, key);
	json__obj_begin(j);
	json__key(j, "min");
	json__num(j, d->min * scale);
	json__key(j, "median");
	json__num(j, d->median * scale);
	json__key(j, "spread");
	json__num(j, d->spread * scale);
	json__key(j, "n");
	json__uint(j, d->n);
	json__obj_end(j);
}

/* Do two threads' medians differ by more than 10% and 1 ns? */
static int differs(const struct hp_dist *a, const struct hp_dist *b)
{
	double d = a->median - b->median;
	if (d < 0)
		d = -d;
	return d > 1.0 && d > 0.1 * a->median;
}

int cmd_calibrate(int argc, char **argv)
{
	int json = 0, quick = 0;
	uint64_t freq = 5000;
	const char *child = NULL;
	int c;
	optind = 1;
	while ((c = tool_getopt(CMD, argc, argv, opts, "hyprof calibrate [--json] [--quick]",
				"Measure, with the real runtime, what the timer, a count-only probe pair, a timed\n"
				"probe pair (Di inside its own interval, De outside it), one sample and the TSC\n"
				"cost here, each as min / median / spread over repeated trials with the timer's\n"
				"own cost subtracted.  The runtime does a shorter version of the same at every\n"
				"start (docs/probes.md).",
				0)) != -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		if (c == OPT_JSON)
			json = 1;
		else if (c == OPT_QUICK)
			quick = 1;
		else if (c == OPT_FREQ) {
			if (tool_parse_u64(optarg, &freq) || freq < 100 || freq > 100000)
				return tool_usage(CMD, "--freq wants 100..100000, not '%s'", optarg);
		} else if (c == OPT_CHILD)
			child = optarg;
	}
	if (child) {
		if (!strcmp(child, "probes"))
			return child_probes();
		if (!strcmp(child, "work") && optind < argc)
			return child_work(strtoull(argv[optind], NULL, 10));
		return tool_usage(CMD, "--child wants 'probes' or 'work N'");
	}
	if (optind < argc)
		return tool_usage(CMD, "unexpected argument '%s'", argv[optind]);

	/* The runtime: $HYPROF_LIB/libhyprof.so or <dir of hyprof>/../lib. */
	char libdir[PATH_MAX], lib[PATH_MAX + 32], real[PATH_MAX];
	const char *env = getenv("HYPROF_LIB");
	if (env && *env) {
		snprintf(libdir, sizeof libdir, "%s", env);
	} else {
		char self[PATH_MAX];
		if (tool_self_dir(self, sizeof self) < 0)
			return tool_err("cannot find the hyprof executable's directory: set HYPROF_LIB to the directory that holds libhyprof.so");
		snprintf(libdir, sizeof libdir, "%.*s/../lib", PATH_MAX - 8, self);
	}
	if (realpath(libdir, real))
		snprintf(libdir, sizeof libdir, "%s", real);
	snprintf(lib, sizeof lib, "%s/libhyprof.so", libdir);
	if (access(lib, R_OK) != 0)
		return tool_err("runtime library %s not found: build hyprof, or set HYPROF_LIB to the directory that holds libhyprof.so", lib);

	char tmp[] = "/tmp/hyprof-calib.XXXXXX";
	if (!mkdtemp(tmp))
		return tool_err("cannot create a temporary directory in /tmp: %s", strerror(errno));

	static struct run_out out;
	struct thread_res res[MAXTHREADS];
	memset(res, 0, sizeof res);
	int nthreads = 0;
	char *pargs[] = {"hyprof", "calibrate", "--child", "probes", NULL};
	char pdir[PATH_MAX];
	snprintf(pdir, sizeof pdir, "%s/probes", tmp);
	int rc = run_child(lib, pdir, pargs, "200", &out);
	if (rc || parse_probes(out.buf, res, &nthreads)) {
		rm_tree(tmp);
		return tool_err("the calibration child failed (%s): run `hyprof info` to check the runtime can load here",
				rc ? strerror(-rc) : "unreadable output");
	}

	/* Sample cost by slowdown.  The loop is sized to ~0.25 s. */
	double tsc_hz = res[0].d[6].median;
	uint64_t iters = 40000000; /* ~1 ns each; refined by a first short run */
	double est[MAXPAIRS], handler[MAXPAIRS];
	uint32_t npairs = quick ? 3 : 7, nest = 0;
	char fhi[32];
	snprintf(fhi, sizeof fhi, "%llu", (unsigned long long)freq);
	char wdir[PATH_MAX];
	snprintf(wdir, sizeof wdir, "%s/work", tmp);
	for (uint32_t i = 0; i < npairs + 1; i++) {
		char n[32];
		snprintf(n, sizeof n, "%llu", (unsigned long long)iters);
		char *wargs[] = {"hyprof", "calibrate", "--child", "work", n, NULL};
		double c_hi, s_hi, h_hi, c_lo, s_lo, h_lo;
		/* alternate the order so drifts cancel */
		int r1 = run_child(lib, wdir, wargs, i % 2 ? "1" : fhi, &out);
		int p1 = r1 ? -1 : parse_work(out.buf, i % 2 ? &c_lo : &c_hi, i % 2 ? &s_lo : &s_hi, i % 2 ? &h_lo : &h_hi);
		int r2 = run_child(lib, wdir, wargs, i % 2 ? fhi : "1", &out);
		int p2 = r2 ? -1 : parse_work(out.buf, i % 2 ? &c_hi : &c_lo, i % 2 ? &s_hi : &s_lo, i % 2 ? &h_hi : &h_lo);
		if (r1 || r2 || p1 || p2)
			continue;
		if (i == 0) { /* sizing run */
			double secs = c_lo / tsc_hz;
			if (secs > 0)
				iters = (uint64_t)((double)iters * 0.25 / secs);
			continue;
		}
		if (s_hi > s_lo + 10) {
			est[nest] = (c_hi - c_lo) / (s_hi - s_lo) / tsc_hz * 1e6;
			handler[nest] = h_hi / s_hi / tsc_hz * 1e6;
			nest++;
		}
	}
	rm_tree(tmp);
	struct hp_dist sample = dist_of(est, nest);
	struct hp_dist hand = dist_of(handler, nest);
	const char *smethod = "slowdown: the same loop sampled at the given rate and at 1 Hz, extra cycles / extra samples";

	if (json) {
		struct json *j = json__new(stdout, 1);
		if (!j)
			return tool_err("out of memory");
		json__obj_begin(j);
		json__key(j, "timer_ns");
		json__num(j, res[0].d[0].median);
		json__key(j, "count_probe_ns");
		json__num(j, res[0].d[1].median);
		json__key(j, "timed_probe_ns");
		json__num(j, res[0].d[2].median);
		json__key(j, "di_ns");
		json__num(j, res[0].d[3].median);
		json__key(j, "de_ns");
		json__num(j, res[0].d[4].median);
		json__key(j, "sample_us");
		if (nest)
			json__num(j, sample.median);
		else
			json__null(j);
		json__key(j, "tsc_hz");
		json__num(j, tsc_hz);
		json__key(j, "distributions");
		json__obj_begin(j);
		json_dist(j, "timer_ns", &res[0].d[0], 1);
		json_dist(j, "count_probe_ns", &res[0].d[1], 1);
		json_dist(j, "timed_probe_ns", &res[0].d[2], 1);
		json_dist(j, "di_ns", &res[0].d[3], 1);
		json_dist(j, "de_ns", &res[0].d[4], 1);
		json_dist(j, "sample_us", &sample, 1);
		json_dist(j, "sample_handler_us", &hand, 1);
		json_dist(j, "sample_kernel_us", &res[0].d[5], 1e-3);
		json_dist(j, "tsc_hz", &res[0].d[6], 1);
		json__obj_end(j);
		json__key(j, "methods");
		json__obj_begin(j);
		json__key(j, "tsc_hz");
		json__str(j, res[0].tsc_method);
		json__key(j, "probes");
		json__str(j, "real probe bodies on a private thread state around null functions, minus the same loop without probes, timer cost subtracted");
		json__key(j, "sample_us");
		json__str(j, smethod);
		json__key(j, "sample_freq_hz");
		json__uint(j, freq);
		json__obj_end(j);
		json__key(j, "probe_delay_ns");
		json__num(j, res[0].d[8].median);
		json__key(j, "threads");
		json__arr_begin(j);
		for (int t = 0; t < nthreads; t++) {
			json__obj_begin(j);
			json__key(j, "thread");
			json__int(j, t);
			json__key(j, "timer_ns");
			json__num(j, res[t].d[0].median);
			json__key(j, "count_probe_ns");
			json__num(j, res[t].d[1].median);
			json__key(j, "timed_probe_ns");
			json__num(j, res[t].d[2].median);
			json__key(j, "di_ns");
			json__num(j, res[t].d[3].median);
			json__key(j, "de_ns");
			json__num(j, res[t].d[4].median);
			json__key(j, "differs");
			json__bool(j, t > 0 && (differs(&res[0].d[1], &res[t].d[1]) ||
						differs(&res[0].d[2], &res[t].d[2])));
			json__obj_end(j);
		}
		json__arr_end(j);
		json__obj_end(j);
		fputc('\n', stdout);
		return json__free(j) ? HP_EXIT_ERR : HP_EXIT_OK;
	}

	printf("hyprof calibrate: costs on this machine (median, min, spread = p90 - p10)\n");
	printf("  %-34s %10.0f Hz  (%s)\n", "tsc_hz", tsc_hz, res[0].tsc_method);
	text_dist("timer_ns (one TSC read)", &res[0].d[0], "ns", 1);
	text_dist("count_probe_ns (enter+exit, hybrid)", &res[0].d[1], "ns", 1);
	text_dist("timed_probe_ns (enter+exit, measured)", &res[0].d[2], "ns", 1);
	text_dist("di_ns (inside its own interval)", &res[0].d[3], "ns", 1);
	text_dist("de_ns (outside it, parent's excl.)", &res[0].d[4], "ns", 1);
	if (nest) {
		text_dist("sample_us (whole sample, slowdown)", &sample, "us", 1);
		text_dist("  of which in the handler", &hand, "us", 1);
	} else {
		printf("  %-34s %10s     (no usable run pair: the sampler may be unavailable; see `hyprof info`)\n",
		       "sample_us", "-");
	}
	text_dist("  kernel part (start-up method)", &res[0].d[5], "us", 1e-3);
	if (res[0].d[8].median > 0)
		printf("  (probe costs include the injected HYPROF_TEST_PROBE_DELAY_NS=%.0f)\n",
		       res[0].d[8].median);
	for (int t = 1; t < nthreads; t++) {
		int diff = differs(&res[0].d[1], &res[t].d[1]) || differs(&res[0].d[2], &res[t].d[2]);
		printf("thread %d: count pair %.3f ns, timed pair %.3f ns, di %.3f ns, de %.3f ns%s\n", t,
		       res[t].d[1].median, res[t].d[2].median, res[t].d[3].median, res[t].d[4].median,
		       diff ? "  (differs from the main thread)" : "  (same as the main thread)");
	}
	printf("sample cost: %s, %u pairs at %llu Hz\n", smethod, nest, (unsigned long long)freq);
	return HP_EXIT_OK;
}
