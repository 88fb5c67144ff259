/* calib/calib_share.c - one start-up calibration per host for the processes
 * of one run.
 *
 * A script, `make` or a pipeline under hyprof starts many short processes,
 * each of which calibrated itself at start-up: ~12 ms of CPU, most of it the
 * sample-delivery trials (calib_sample.c), for a figure the host gives the
 * same within its own noise a second later.  The first process of a run to
 * calibrate leaves its result in the output directory (a dot file the
 * readers skip); a process of the same run that starts on the same host
 * within HYPROF_CALIBRATE_SHARE seconds uses it, and its CALIB section says
 * whose it is (`method`).  An older file is replaced by the next process's
 * own calibration, so a long run follows the host's speed at that pace.
 * MPI ranks started together mostly calibrate each for themselves (none has
 * finished when the others look).
 *
 * The file is only trusted when its magic, version, layout size, host name,
 * boot, CPU model and injected test delay all match; anything else (a
 * missing, partial, foreign or malformed file) means calibrating.  Written
 * to a temporary name and renamed, so a reader sees a whole file or none.
 * Not signal-safe; start-up only.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "runtime/state.h"

#define SHARE_MAGIC "hyprof-calib-v1"

struct share_key {
	char magic[16];
	char version[16];
	uint32_t layout;          /* sizeof(struct hp_calib) */
	int32_t pid;              /* who calibrated */
	char host[64];
	char boot[40];            /* /proc/sys/kernel/random/boot_id */
	char cpu[52];             /* CPUID brand string */
	double probe_delay_ns;    /* injected test delay: part of the probe costs */
};

struct share_file {
	struct share_key key;
	double written_s;         /* CLOCK_REALTIME */
	struct hp_calib calib;
};

static void make_key(struct share_key *k, double probe_delay_ns)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->magic, sizeof(k->magic), "%s", SHARE_MAGIC);
	snprintf(k->version, sizeof(k->version), "%s", HYPROF_VERSION);
	k->layout = (uint32_t)sizeof(struct hp_calib);
	if (gethostname(k->host, sizeof(k->host) - 1) != 0)
		k->host[0] = '\0';
	hp_read_line("/proc/sys/kernel/random/boot_id", k->boot, sizeof(k->boot));
	unsigned r[12] = {0};
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004)
		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	memcpy(k->cpu, r, sizeof(r));
	k->probe_delay_ns = probe_delay_ns;
}

static int same_key(const struct share_key *a, const struct share_key *b)
{
	return !memcmp(a->magic, b->magic, sizeof(a->magic)) &&
	       !memcmp(a->version, b->version, sizeof(a->version)) && a->layout == b->layout &&
	       !memcmp(a->host, b->host, sizeof(a->host)) && a->boot[0] &&
	       !memcmp(a->boot, b->boot, sizeof(a->boot)) && !memcmp(a->cpu, b->cpu, sizeof(a->cpu)) &&
	       a->probe_delay_ns == b->probe_delay_ns;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void share_path(char *buf, size_t len, const char *dir, const struct share_key *k)
{
	snprintf(buf, len, "%s/.calib.%.40s.%.8s", dir, k->host, k->boot);
}

/* A shared calibration's values are usable: each a finite figure of its kind. */
static int plausible(const struct hp_calib *c)
{
	const struct hp_dist *d[] = {&c->timer, &c->count_probe, &c->timed_probe, &c->di,
				     &c->de, &c->sample, &c->sample_kernel};
	if (!(c->tsc_hz > 1e6 && c->tsc_hz < 1e11) || !c->done)
		return 0;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (!isfinite(d[i]->min) || !isfinite(d[i]->median) || !isfinite(d[i]->spread) ||
		    fabs(d[i]->median) > 1e9)
			return 0;
	return memchr(c->method, 0, sizeof(c->method)) && memchr(c->tsc_method, 0, sizeof(c->tsc_method)) &&
	       memchr(c->sample_method, 0, sizeof(c->sample_method));
}

int hp_calib_share_load(struct hp_calib *out, const char *dir, double max_age_s,
			double probe_delay_ns)
{
	if (!dir || !*dir || !(max_age_s > 0))
		return -ENOENT;
	struct share_key want;
	make_key(&want, probe_delay_ns);
	char path[4096];
	share_path(path, sizeof(path), dir, &want);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct share_file f;
	struct stat sb;
	ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == (off_t)sizeof(f)
			    ? read(fd, &f, sizeof(f))
			    : -1;
	close(fd);
	if (n != (ssize_t)sizeof(f) || !same_key(&f.key, &want) || !plausible(&f.calib))
		return -EINVAL;
	double age = now_s() - f.written_s;
	if (!(age >= -1 && age <= max_age_s))
		return -ESTALE;
	struct hp_calib c = f.calib;
	c.piggyback = out->piggyback; /* this process's own, if any */
	snprintf(c.method, sizeof(c.method), "startup, shared (pid %d, %.1f s before)", (int)f.key.pid,
		 age > 0 ? age : 0);
	*out = c;
	return 0;
}

void hp_calib_share_save(const struct hp_calib *c, const char *dir, double probe_delay_ns)
{
	if (!dir || !*dir || !plausible(c))
		return;
	struct share_file f;
	memset(&f, 0, sizeof(f));
	make_key(&f.key, probe_delay_ns);
	if (!f.key.boot[0])
		return;
	f.key.pid = (int32_t)getpid();
	f.written_s = now_s();
	f.calib = *c;
	memset(&f.calib.piggyback, 0, sizeof(f.calib.piggyback)); /* MPI's, per process */
	char path[4096], tmp[4200];
	share_path(path, sizeof(path), dir, &f.key);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return; /* no directory yet, read-only: the next process calibrates too */
	int ok = write(fd, &f, sizeof(f)) == (ssize_t)sizeof(f);
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}
