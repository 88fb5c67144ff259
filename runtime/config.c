/* runtime/config.c - the HYPROF_* environment variables, read once at start.
 *
 * Every option of `hyprof run` is one variable here (docs/ENVIRONMENT.md), so
 * a program linked with libhyprof.so is configured the same way.  A bad value
 * is an error naming the variable and the accepted values; the runtime then
 * does not start and the program runs unprofiled.
 *
 * Not signal-safe (getenv, strftime); runs in the constructor.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/lifecycle.h"

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
#define HP_DEFAULT_FREQ 200
#define HP_DEFAULT_MAX_NODES (1u << 18) /* 32 MiB of address space per thread */

static const char *const mode_names[] = {"sampled", "hybrid", "measured"};
static const char *const comp_names[] = {"none", "local", "parallel"};

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

static int bad(char *err, unsigned errlen, const char *var, const char *val, const char *accepted)
{
	snprintf(err, errlen, "%s=\"%s\": expected %s", var, val, accepted);
	return -EINVAL;
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

static int parse_enum(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
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

static int copy_str(char *dst, size_t cap, const char *src, const char *var, char *err, unsigned errlen)
{
	size_t n = strlen(src);
	if (n >= cap) {
		snprintf(err, errlen, "%s is %zu characters long: at most %zu are accepted", var, n, cap - 1);
		return -EINVAL;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

/* Make `dir` absolute so a program that changes directory still writes its
 * profile where it was asked (the path is resolved once, at start). */
static int absolutize(char *dst, size_t cap, const char *dir, char *err, unsigned errlen)
{
	if (dir[0] == '/')
		return copy_str(dst, cap, dir, "HYPROF_OUTPUT", err, errlen);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd))) {
		snprintf(err, errlen, "HYPROF_OUTPUT=\"%s\" is relative and the current directory is unknown (%s): give an absolute path", dir, strerror(errno));
		return -EINVAL;
	}
	while (dir[0] == '.' && dir[1] == '/')
		dir += 2;
	if ((size_t)snprintf(dst, cap, "%s/%s", strcmp(cwd, "/") ? cwd : "", dir) >= cap) {
		snprintf(err, errlen, "HYPROF_OUTPUT: path too long");
		return -EINVAL;
	}
	return 0;
}

int hp_config_load(struct hp_config *c, char *err, unsigned errlen)
{
	const char *v;
	uint64_t n;
	int b;

	memset(c, 0, sizeof(*c));
	c->freq = HP_DEFAULT_FREQ;
	c->unwind = HP_UNWIND_LIBUNWIND;
	c->mode = HP_MODE_HYBRID; /* counting falls back to sampled without probes */
	c->compensate = HP_COMP_LOCAL;
	c->signo = SIGRTMIN + 3;
	c->max_nodes = HP_DEFAULT_MAX_NODES;
	c->live = 1;
	c->calibrate = 1;
	if (err && errlen)
		err[0] = '\0';

	if ((v = env("HYPROF_OUTPUT"))) {
		if (absolutize(c->output, sizeof(c->output), v, err, errlen))
			return -EINVAL;
	} else {
		char stamp[32], rel[512];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(rel, sizeof(rel), "hyprof-%s-%s", program_invocation_short_name, stamp);
		if (absolutize(c->output, sizeof(c->output), rel, err, errlen))
			return -EINVAL;
	}
	if ((v = env("HYPROF_EVENT")) && copy_str(c->event, sizeof(c->event), v, "HYPROF_EVENT", err, errlen))
		return -EINVAL;
	const char *per = env("HYPROF_PERIOD"), *fr = env("HYPROF_FREQ");
	if (per && fr) {
		snprintf(err, errlen, "HYPROF_PERIOD=\"%s\" and HYPROF_FREQ=\"%s\" are both set: set only one", per, fr);
		return -EINVAL;
	}
	if (per) {
		if (parse_u64(per, 1, 1ull << 62, &c->period))
			return bad(err, errlen, "HYPROF_PERIOD", per, "a positive integer (events, or ns for clocks)");
		c->freq = 0;
	}
	if (fr && parse_u64(fr, 1, 100000, &c->freq))
		return bad(err, errlen, "HYPROF_FREQ", fr, "an integer from 1 to 100000 (samples per second)");
	if ((v = env("HYPROF_UNWIND"))) {
		static const char *const names[] = {"libunwind", "fp"};
		int i = parse_enum(v, names, 2);
		if (i < 0)
			return bad(err, errlen, "HYPROF_UNWIND", v, "libunwind or fp");
		c->unwind = i;
	}
	if ((v = env("HYPROF_MODE"))) {
		int i = parse_enum(v, mode_names, 3);
		if (i < 0)
			return bad(err, errlen, "HYPROF_MODE", v, "sampled, hybrid or measured");
		c->mode = i;
		c->mode_set = 1;
	}
	if ((v = env("HYPROF_COMPENSATE"))) {
		int i = parse_enum(v, comp_names, 3);
		if (i < 0)
			return bad(err, errlen, "HYPROF_COMPENSATE", v, "none, local or parallel");
		c->compensate = i;
		c->compensate_set = 1;
	}
	if ((v = env("HYPROF_SIGNAL"))) {
		int s = hp_parse_signal(v);
		if (s <= 0 || signal_reserved(s))
			return bad(err, errlen, "HYPROF_SIGNAL", v,
				   "a signal number or name such as SIGRTMIN+3 or SIGUSR2 (not SIGKILL, SIGSTOP or a fault signal)");
		c->signo = s;
	}
	if ((v = env("HYPROF_FILTER")) && copy_str(c->filter, sizeof(c->filter), v, "HYPROF_FILTER", err, errlen))
		return -EINVAL;
	if ((v = env("HYPROF_MAX_OVERHEAD"))) {
		char *end;
		errno = 0;
		double d = strtod(v, &end);
		if (*end == '%')
			end++;
		if (errno || end == v || *end || !(d >= 0 && d <= 100))
			return bad(err, errlen, "HYPROF_MAX_OVERHEAD", v, "a percentage from 0 to 100 (0 = no budget)");
		c->max_overhead = d;
	}
	if ((v = env("HYPROF_CRITICAL_PATH")) &&
	    copy_str(c->critical_path, sizeof(c->critical_path), v, "HYPROF_CRITICAL_PATH", err, errlen))
		return -EINVAL;
	if ((v = env("HYPROF_QUIET"))) {
		if (parse_bool(v, &b))
			return bad(err, errlen, "HYPROF_QUIET", v, "1 or 0 (yes/no, true/false, on/off)");
		c->quiet = b;
	}
	if ((v = env("HYPROF_PER_RANK"))) {
		if (parse_bool(v, &b))
			return bad(err, errlen, "HYPROF_PER_RANK", v, "1 or 0 (yes/no, true/false, on/off)");
		c->per_rank = b;
	}
	if ((v = env("HYPROF_MAX_NODES"))) {
		if (parse_u64(v, 1024, 100000000, &n))
			return bad(err, errlen, "HYPROF_MAX_NODES", v, "an integer from 1024 to 100000000 (call-path nodes per thread)");
		c->max_nodes = (uint32_t)n;
	}
	if ((v = env("HYPROF_TEST_PROBE_DELAY_NS"))) {
		if (parse_u64(v, 0, 1000000000, &n))
			return bad(err, errlen, "HYPROF_TEST_PROBE_DELAY_NS", v, "an integer from 0 to 1000000000 (ns)");
		c->test_probe_delay_ns = n;
	}
	if ((v = env("HYPROF_LIVE"))) {
		if (parse_bool(v, &b))
			return bad(err, errlen, "HYPROF_LIVE", v, "1 or 0 (yes/no, true/false, on/off)");
		c->live = b;
	}
	if ((v = env("HYPROF_CALIBRATE"))) {
		if (parse_bool(v, &b))
			return bad(err, errlen, "HYPROF_CALIBRATE", v, "1 or 0 (yes/no, true/false, on/off)");
		c->calibrate = b;
	}
	return 0;
}
