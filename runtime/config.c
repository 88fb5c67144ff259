/* runtime/config.c - the HYPROF_* environment variables, read once at start.
 *
 * Every HYPROF_* variable of the runtime and of libhyprof_mpi.so is one row
 * of the table below (name, type, default, help; docs/cmd-run.md), and every
 * option of `hyprof run` is one of them, so a program linked with
 * libhyprof.so is configured the same way.  A bad value is one line naming
 * the variable, the accepted values and the default used instead; the
 * variable takes its default and the program is profiled.  `hyprof run`
 * refuses the same values before it starts the program.
 *
 * Not signal-safe (getenv, strftime); runs in the constructor.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/lifecycle.h"

static const char *const mode_names[] = {"sampled", "hybrid", "measured", NULL};
static const char *const comp_names[] = {"none", "local", "parallel", NULL};

const char *hp_mode_name(int mode)
{
	return mode >= 0 && mode <= HP_MODE_MEASURED ? mode_names[mode] : "?";
}

const char *hp_compensate_name(int c)
{
	return c >= 0 && c <= HP_COMP_PARALLEL ? comp_names[c] : "?";
}

/* The environment variable, or NULL when unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* Unsigned decimal in [lo, hi]; returns 0 or -EINVAL. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const t[] = {"1", "yes", "true", "on"}, *const f[] = {"0", "no", "false", "off"};
	for (int i = 0; i < 4; i++) {
		if (!strcasecmp(s, t[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, f[i])) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

int hp_parse_signal(const char *s)
{
	uint64_t n;
	if (!s || !*s)
		return -EINVAL;
	if (*s >= '0' && *s <= '9') {
		if (parse_u64(s, 1, (uint64_t)SIGRTMAX, &n))
			return -EINVAL;
		return (int)n;
	}
	const char *p = !strncmp(s, "SIG", 3) ? s + 3 : s;
	int base = -1;
	const char *rest = NULL;
	if (!strncmp(p, "RTMIN", 5)) {
		base = SIGRTMIN;
		rest = p + 5;
	} else if (!strncmp(p, "RTMAX", 5)) {
		base = SIGRTMAX;
		rest = p + 5;
	}
	if (base < 0)
		return hp_signal_lookup(s) > 0 ? hp_signal_lookup(s) : -EINVAL;
	if (!*rest)
		return base;
	if ((*rest != '+' && *rest != '-') || parse_u64(rest + 1, 0, 64, &n))
		return -EINVAL;
	int sig = *rest == '+' ? base + (int)n : base - (int)n;
	return sig >= SIGRTMIN && sig <= SIGRTMAX ? sig : -EINVAL;
}

/* Signals the sampler must not take: uncatchable, or the fatal ones whose
 * handlers write the profile on a crash. */
static int signal_reserved(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGFPE:
	case SIGILL: case SIGTRAP: case SIGSYS: case SIGABRT:
		return 1;
	}
	return 0;
}

/* ---- the table ----------------------------------------------------------- */

enum var_type {
	V_OUTPUT, /* directory, made absolute; default computed */
	V_STR,    /* copied as is */
	V_U64,    /* decimal in [lo, hi] */
	V_BOOL,   /* 1/0, yes/no, true/false, on/off */
	V_ENUM,   /* one of names[] */
	V_SIGNAL, /* a catchable, non-fault signal, by name or number */
	V_REAL,   /* decimal in [dlo, dhi]; a trailing '%' when pct */
};

struct var {
	struct hp_config_var_info info; /* name, default, help */
	enum var_type type;
	size_t off;                     /* the field in struct hp_config */
	size_t size;                    /* V_STR, V_OUTPUT: capacity; V_U64: 4 or 8 */
	uint64_t lo, hi;                /* V_U64 */
	double dlo, dhi;                /* V_REAL */
	int pct;                        /* V_REAL: a trailing '%' is accepted */
	const char *const *names;       /* V_ENUM, NULL-terminated */
	size_t set_off;                 /* "given explicitly" flag, 0 = none */
	const char *accepted;           /* the error's "expected ..." */
};

#define F(field) offsetof(struct hp_config, field), sizeof(((struct hp_config *)0)->field)
#define BOOL_ACCEPTED "1 or 0 (yes/no, true/false, on/off)"

static const char *const unwind_names[] = {"libunwind", "fp", "kernel", NULL};

/* Every HYPROF_* variable the runtime and libhyprof_mpi.so read, in the
 * order `hyprof run --help` and docs/cmd-run.md list them.  The default is
 * a value of the variable, parsed like one. */
static const struct var vars[] = {
	{{"HYPROF_OUTPUT", "", "profile directory (default ./hyprof-PROG-TIME)"},
	 V_OUTPUT, F(output), .accepted = "a directory"},
	{{"HYPROF_EVENT", "", "sampling event (default: the best available source)"},
	 V_STR, F(event), .accepted = "an event name"},
	{{"HYPROF_PERIOD", "", "events, or ns for clocks, between samples (instead of HYPROF_FREQ)"},
	 V_U64, F(period), .lo = 1, .hi = 1ull << 62,
	 .accepted = "a positive integer (events, or ns for clocks)"},
	/* Default sampling rate.  A sample costs, on this VM (bench/sampler/run.sh,
	 * medians of paired runs on a shared machine): ~9-12 us at 10 kHz, of which
	 * ~4-8 us is the bare signal path of the perf ring (an empty handler on the
	 * same event) and ~1 us hyprof's own handler (unwind + tree insert); at low
	 * rates caches are cold and a sample costs ~15-30 us (handler ~2-5 us);
	 * ALGORITHMS.md section 1 measured 33-50 us per signal-based sample.  At
	 * 200 Hz that is 0.2-0.6% of a CPU by our figures and at most 1% by the
	 * most pessimistic one, so 200 Hz meets the 1% target with margin on any
	 * of them.  On bare metal a sample costs a few microseconds and 1 kHz would
	 * fit; we keep one default so profiles are comparable across machines.
	 * `hyprof run --freq` raises it. */
	{{"HYPROF_FREQ", "200", "samples per second of the clock"},
	 V_U64, F(freq), .lo = 1, .hi = 100000,
	 .accepted = "an integer from 1 to 100000 (samples per second)"},
	{{"HYPROF_UNWIND", "libunwind", "call-path unwinding: libunwind, fp or kernel"},
	 V_ENUM, F(unwind), .names = unwind_names, .accepted = "libunwind, fp or kernel"},
	{{"HYPROF_MODE", "hybrid", "sampled, hybrid (counting probes) or measured (timed probes)"},
	 V_ENUM, F(mode), .names = mode_names, .set_off = offsetof(struct hp_config, mode_set),
	 .accepted = "sampled, hybrid or measured"},
	{{"HYPROF_COMPENSATE", "local", "overhead compensation: none, local or parallel (MPI)"},
	 V_ENUM, F(compensate), .names = comp_names,
	 .set_off = offsetof(struct hp_config, compensate_set), .accepted = "none, local or parallel"},
	{{"HYPROF_SIGNAL", "SIGRTMIN+3", "signal of the samples, name or number"},
	 V_SIGNAL, F(signo),
	 .accepted = "a signal number or name such as SIGRTMIN+3 or SIGUSR2 (not SIGKILL, SIGSTOP or a "
		     "fault signal)"},
	{{"HYPROF_FILTER", "", "comma-separated function names or globs the probes do not count"},
	 V_STR, F(filter), .accepted = "a list of names"},
	{{"HYPROF_MAX_OVERHEAD", "0", "overhead budget in percent (0 = no budget)"},
	 V_REAL, F(max_overhead), .dlo = 0, .dhi = 100, .pct = 1,
	 .accepted = "a percentage from 0 to 100 (0 = no budget)"},
	{{"HYPROF_CRITICAL_PATH", "", "auto, or the functions whose critical-path share is tracked (MPI)"},
	 V_STR, F(critical_path), .accepted = "auto or a list of names"},
	{{"HYPROF_CRITICAL_PATH_WARMUP", "1", "seconds after MPI_Init before the critical path is tracked"},
	 V_REAL, F(critical_path_warmup), .dlo = 0, .dhi = 1e6,
	 .accepted = "a number of seconds from 0 to 1000000"},
	{{"HYPROF_QUIET", "0", "1: no summary line on stderr at exit"},
	 V_BOOL, F(quiet), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_PER_RANK", "0", "1: keep one file per rank beside the merged MPI profile"},
	 V_BOOL, F(per_rank), .accepted = BOOL_ACCEPTED},
	/* 2^18 nodes: 32 MiB of address space per thread */
	{{"HYPROF_MAX_NODES", "262144", "call-path nodes per thread, in the sample tree and in the probe tree"},
	 V_U64, F(max_nodes), .lo = 1024, .hi = 100000000,
	 .accepted = "an integer from 1024 to 100000000 (call-path nodes per thread)"},
	{{"HYPROF_MAX_THREADS", "256", "exited threads kept as threads; later ones merge into one record (0: keep all)"},
	 V_U64, F(max_threads), .lo = 0, .hi = 1000000000,
	 .accepted = "an integer from 0 to 1000000000 (exited threads kept apart; 0 keeps all)"},
	{{"HYPROF_LIVE", "1", "0: no live statistics file for `hyprof watch`"},
	 V_BOOL, F(live), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_LIVE_INTERVAL", "1", "seconds between live statistics snapshots"},
	 V_REAL, F(live_interval), .dlo = 0.05, .dhi = 86400,
	 .accepted = "a number of seconds from 0.05 to 86400"},
	{{"HYPROF_CALIBRATE", "1", "0: skip the start-up calibration (costs are not compensated)"},
	 V_BOOL, F(calibrate), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_CALIBRATE_SHARE", "60", "seconds a start-up calibration serves the run's other processes on the host (0: each calibrates)"},
	 V_REAL, F(calibrate_share), .dlo = 0, .dhi = 1e6,
	 .accepted = "a number of seconds from 0 to 1000000 (0: every process calibrates itself)"},
	{{"HYPROF_RECAL_MS", "5", "measured mode: in-situ recalibration every N ms (0 = off)"},
	 V_REAL, F(recal_ms), .dlo = 0, .dhi = 3.6e6,
	 .accepted = "a number of milliseconds from 0 to 3600000 (0 = off)"},
	{{"HYPROF_MPI_CLOCK", "1", "0: never compare send times across ranks by the TSC"},
	 V_BOOL, F(mpi_clock), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_MPI_MERGE", "1", "0: keep per-rank files, no merge at MPI_Finalize"},
	 V_BOOL, F(mpi_merge), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_MPI_PB_COMPACT", "1", "0: tiny messages (8 bytes or less) carry the whole piggyback, not the 2-byte delay"},
	 V_BOOL, F(mpi_pb_compact), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_MPI_PACK_MAX", HP_CFG_STR(HP_MPI_PACK_MAX_DEFAULT), "piggyback by packed copy up to this many bytes"},
	 V_U64, F(mpi_pack_max), .lo = 0, .hi = 1u << 30,
	 .accepted = "a number of bytes from 0 to 1073741824"},
	{{"HYPROF_MPI_REQUESTS", "65536", "capacity of the table of pending MPI requests"},
	 V_U64, F(mpi_requests), .lo = 1, .hi = 1u << 26,
	 .accepted = "an integer from 1 to 67108864"},
	{{"HYPROF_BUDGET_DEBUG", "0", "1: print the overhead budget's decisions on stderr"},
	 V_BOOL, F(budget_debug), .accepted = BOOL_ACCEPTED},
	{{"HYPROF_TEST_PROBE_DELAY_NS", "0", "tests only: cost injected into every probe, ns"},
	 V_U64, F(test_probe_delay_ns), .lo = 0, .hi = 1000000000,
	 .accepted = "an integer from 0 to 1000000000 (ns)"},
};
#define NVARS (sizeof(vars) / sizeof(vars[0]))

static const struct var *var_named(const char *name)
{
	for (size_t i = 0; i < NVARS; i++)
		if (!strcmp(vars[i].info.name, name))
			return &vars[i];
	return NULL;
}

const struct hp_config_var_info *hp_config_var(unsigned i)
{
	return i < NVARS ? &vars[i].info : NULL;
}

static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* Make `dir` absolute so a program that changes directory still writes its
 * profile where it was asked (the path is resolved once, at start); the
 * default is hyprof-PROG-TIME in the current directory. */
static int output_dir(char *dst, size_t cap, const char *dir)
{
	char rel[512], cwd[4096];
	if (!*dir) {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(rel, sizeof(rel), "hyprof-%s-%s", program_invocation_short_name, stamp);
		dir = rel;
	}
	if (dir[0] == '/')
		return copy_str(dst, cap, dir);
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	while (dir[0] == '.' && dir[1] == '/')
		dir += 2;
	if ((size_t)snprintf(dst, cap, "%s/%s", strcmp(cwd, "/") ? cwd : "", dir) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

static int parse_real(const char *s, int pct, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (pct && *end == '%')
		end++;
	if (errno || end == s || *end || !(d >= lo && d <= hi))
		return -EINVAL;
	*out = d;
	return 0;
}

/* Parse `s` as v's type into its field of c.  Returns 0, -EINVAL (not a
 * value of the type), or -errno (the output directory). */
static int var_set(const struct var *v, struct hp_config *c, const char *s)
{
	void *f = (char *)c + v->off;
	uint64_t n;
	int i, rc;
	switch (v->type) {
	case V_OUTPUT:
		if ((rc = output_dir(f, v->size, s)))
			*(char *)f = '\0';
		return rc;
	case V_STR:
		return copy_str(f, v->size, s);
	case V_U64:
		if (*s && parse_u64(s, v->lo, v->hi, &n))
			return -EINVAL;
		if (!*s)
			n = 0;
		if (v->size == sizeof(uint32_t))
			*(uint32_t *)f = (uint32_t)n;
		else
			*(uint64_t *)f = n;
		return 0;
	case V_BOOL:
		return parse_bool(s, f);
	case V_ENUM:
		for (i = 0; v->names[i] && strcmp(s, v->names[i]); i++)
			;
		if (!v->names[i])
			return -EINVAL;
		*(int *)f = i;
		return 0;
	case V_SIGNAL:
		i = hp_parse_signal(s);
		if (i <= 0 || signal_reserved(i))
			return -EINVAL;
		*(int *)f = i;
		return 0;
	case V_REAL:
		return parse_real(s, v->pct, v->dlo, v->dhi, f);
	}
	return -EINVAL;
}

/* The explanation of a bad value: one line naming the variable and what
 * it accepts. */
static void var_explain(const struct var *v, const char *val, int rc, char *buf, size_t len)
{
	if (rc == -EINVAL)
		snprintf(buf, len, "%s=\"%s\": expected %s", v->info.name, val, v->accepted);
	else if (rc == -ENAMETOOLONG)
		snprintf(buf, len, "%s is %zu characters long: at most %zu are accepted", v->info.name,
			 strlen(val), v->size - 1);
	else
		snprintf(buf, len, "%s=\"%s\": %s", v->info.name, val, strerror(-rc));
}

/* "; using the default (X)" after the explanation in buf. */
static void var_default_used(const struct var *v, char *buf, size_t len)
{
	const char *def = v->info.def[0] ? v->info.def : v->type == V_OUTPUT ? "./hyprof-PROG-TIME" : "unset";
	size_t n = strlen(buf);
	if (n < len)
		snprintf(buf + n, len - n, "; using the default (%s)", def);
}

int hp_config_load_warn(struct hp_config *c, void (*warn)(const char *line, void *arg), void *arg)
{
	char line[1024];
	int bad = 0;
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NVARS; i++) {
		const struct var *v = &vars[i];
		const char *val = env(v->info.name);
		int rc = val ? var_set(v, c, val) : -ENOENT;
		if (rc == 0) {
			if (v->set_off)
				*(int *)((char *)c + v->set_off) = 1;
			continue;
		}
		if (rc != -ENOENT) {
			var_explain(v, val, rc, line, sizeof(line));
			var_default_used(v, line, sizeof(line));
			warn(line, arg);
			bad = 1;
		}
		rc = var_set(v, c, v->info.def);
		if (rc) { /* only the output directory's default can fail (no cwd) */
			snprintf(line, sizeof(line), "%s: the default cannot be used either (%s): set it to an absolute path",
				 v->info.name, strerror(-rc));
			warn(line, arg);
			bad = 1;
		}
	}
	const char *per = env("HYPROF_PERIOD"), *fr = env("HYPROF_FREQ");
	const struct var *freq = var_named("HYPROF_FREQ");
	if (per && fr) {
		snprintf(line, sizeof(line),
			 "HYPROF_PERIOD=\"%s\" and HYPROF_FREQ=\"%s\" are both set: set only one; using the "
			 "default (HYPROF_FREQ=%s)",
			 per, fr, freq->info.def);
		warn(line, arg);
		c->period = 0;
		var_set(freq, c, freq->info.def);
		bad = 1;
	} else if (c->period) {
		c->freq = 0; /* the period given replaces the default frequency */
	}
	return bad ? -EINVAL : 0;
}

struct first_line {
	char *buf;
	unsigned len;
	int got;
};

static void keep_first(const char *line, void *arg)
{
	struct first_line *f = arg;
	if (!f->got++ && f->buf && f->len)
		snprintf(f->buf, f->len, "%s", line);
}

int hp_config_load(struct hp_config *c, char *err, unsigned errlen)
{
	struct first_line f = {err, errlen, 0};
	if (err && errlen)
		err[0] = '\0';
	return hp_config_load_warn(c, keep_first, &f);
}

const char *hp_config_check_var(const char *name, const char *val)
{
	const struct var *v = var_named(name);
	struct hp_config c;
	if (!v || !val)
		return NULL;
	return var_set(v, &c, val) ? v->accepted : NULL;
}

int hp_config_check(char *err, unsigned errlen)
{
	struct hp_config c;
	if (err && errlen)
		err[0] = '\0';
	for (size_t i = 0; i < NVARS; i++) {
		const char *val = env(vars[i].info.name);
		int rc = val ? var_set(&vars[i], &c, val) : 0;
		if (rc) {
			var_explain(&vars[i], val, rc, err, errlen);
			return -EINVAL;
		}
	}
	if (env("HYPROF_PERIOD") && env("HYPROF_FREQ")) {
		snprintf(err, errlen, "HYPROF_PERIOD and HYPROF_FREQ are both set: set only one");
		return -EINVAL;
	}
	return 0;
}
