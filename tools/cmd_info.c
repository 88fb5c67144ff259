/* tools/cmd_info.c - `hyprof info [--json]`: what this machine offers.
 *
 * Its own checks (perf_event_open of hardware cycles and of task-clock on
 * itself, perf_event_paranoid, the mlock limit, PAPI and its components,
 * kernel, CPU, TSC flags), then the runtime's real choice: a tiny child
 * (/bin/true) runs under `hyprof run` and the source, event, period and
 * reasons recorded in its profile are reported.  When the runtime cannot
 * run, the choice is predicted from the checks and said so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "core/format.h"
#include "tools/json.h"
#include "tools/util.h"

int cmd_info(int argc, char **argv);

static const struct tool_opt info_opts[] = {
	{"json", 0, NULL, NULL, "print JSON", 1000},
	{NULL, 0, NULL, NULL, NULL, 0},
};

struct comp {
	char name[PAPI_MAX_STR_LEN];
	char reason[PAPI_HUGE_STR_LEN];
	int enabled, counters, natives;
};

struct info {
	int pmu, pmu_errno, sw, sw_errno;
	int paranoid;
	long long mlock_kb; /* -1 unlimited */
	int papi_ok;
	char papi_err[128];
	int papi_major, papi_minor, papi_rev;
	int papi_hwctrs, papi_tot_cyc;
	struct comp comps[32];
	int ncomps;
	char kernel[256], cpu[256];
	int constant_tsc, nonstop_tsc;
	/* the runtime's choice */
	int from_runtime;
	char source[64], event[128], unit[16], why[1024], runtime_err[512];
	unsigned long long period;
};

static int try_perf(uint32_t type, uint64_t config, int *err)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	close(fd);
	*err = 0;
	return 1;
}

static void read_line_file(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static void cpu_facts(struct info *in)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	snprintf(in->cpu, sizeof in->cpu, "unknown");
	if (!f)
		return;
	int got_model = 0, got_flags = 0;
	while (fgets(line, sizeof line, f) && !(got_model && got_flags)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		char *v = colon + 1;
		while (*v == ' ')
			v++;
		v[strcspn(v, "\n")] = 0;
		if (!got_model && strncmp(line, "model name", 10) == 0) {
			snprintf(in->cpu, sizeof in->cpu, "%s", v);
			got_model = 1;
		} else if (!got_flags && strncmp(line, "flags", 5) == 0) {
			char *tok, *save;
			for (tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				in->constant_tsc |= strcmp(tok, "constant_tsc") == 0;
				in->nonstop_tsc |= strcmp(tok, "nonstop_tsc") == 0;
			}
			got_flags = 1;
		}
	}
	fclose(f);
}

static void papi_facts(struct info *in)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(in->papi_err, sizeof in->papi_err, "PAPI_library_init: %s",
			 rc > 0 ? "version mismatch" : PAPI_strerror(rc));
		return;
	}
	in->papi_ok = 1;
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	(void)hw;
	in->papi_major = PAPI_VERSION_MAJOR(PAPI_VERSION);
	in->papi_minor = PAPI_VERSION_MINOR(PAPI_VERSION);
	in->papi_rev = PAPI_VERSION_REVISION(PAPI_VERSION);
	in->papi_hwctrs = PAPI_num_hwctrs();
	in->papi_tot_cyc = PAPI_query_event(PAPI_TOT_CYC) == PAPI_OK;
	int n = PAPI_num_components();
	for (int i = 0; i < n && in->ncomps < 32; i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		if (!ci)
			continue;
		struct comp *c = &in->comps[in->ncomps++];
		snprintf(c->name, sizeof c->name, "%s", ci->name);
		c->enabled = !ci->disabled;
		snprintf(c->reason, sizeof c->reason, "%.*s", (int)sizeof c->reason - 1,
			 ci->disabled ? ci->disabled_reason : "");
		c->counters = ci->num_cntrs;
		c->natives = ci->num_native_events;
	}
	PAPI_shutdown();
}

static int rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	return rmdir(dir) < 0 ? -errno : 0;
}

/* Run /bin/true under the runtime and read what it chose. */
static void runtime_choice(struct info *in)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		snprintf(in->runtime_err, sizeof in->runtime_err, "cannot find the hyprof executable");
		return;
	}
	self[n] = 0;
	char tmpl[] = "/tmp/hyprof-info-XXXXXX";
	if (!mkdtemp(tmpl)) {
		snprintf(in->runtime_err, sizeof in->runtime_err, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* the test's stderr, kept beside its profile: a failure says why (a
	 * bad HYPROF_* variable in the environment, say) */
	char errpath[PATH_MAX];
	snprintf(errpath, sizeof errpath, "%s/stderr", tmpl);
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		int errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(errfd >= 0 ? errfd : devnull, 2);
		}
		execl(self, "hyprof", "run", "--quiet", "-o", tmpl, "--", "/bin/true", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char why[200];
		read_line_file(errpath, why, sizeof why);
		snprintf(in->runtime_err, sizeof in->runtime_err,
			 "the runtime test (`hyprof run -- /bin/true`) failed (status %d)%s%s",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1, why[0] ? ": " : "", why);
		rm_rf(tmpl);
		return;
	}
	DIR *d = opendir(tmpl);
	struct dirent *de;
	char path[PATH_MAX] = "";
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, HP_FILE_EXT) && !strstr(de->d_name, ".tmp"))
			snprintf(path, sizeof path, "%s/%s", tmpl, de->d_name);
	if (d)
		closedir(d);
	struct hp_prof *p = NULL;
	char err[256];
	if (!path[0]) {
		snprintf(in->runtime_err, sizeof in->runtime_err,
			 "the runtime wrote no profile for /bin/true");
	} else if (hp_prof_read(path, &p, err, sizeof err) < 0) {
		snprintf(in->runtime_err, sizeof in->runtime_err, "profile of the runtime test: %.200s", err);
	} else {
		in->from_runtime = 1;
		snprintf(in->source, sizeof in->source, "%s", hp_kv_str(&p->meta, "source", "?"));
		snprintf(in->event, sizeof in->event, "%s", hp_kv_str(&p->meta, "event", in->source));
		snprintf(in->unit, sizeof in->unit, "%s", hp_kv_str(&p->meta, "unit", ""));
		snprintf(in->why, sizeof in->why, "%s", hp_kv_str(&p->meta, "source_why", ""));
		in->period = (unsigned long long)hp_kv_u64(&p->meta, "period", 0);
		hp_prof_free(p);
	}
	rm_rf(tmpl);
}

/* perf_event_open of hardware cycles said there is no PMU at all (not a
 * permission problem) */
static int no_pmu(const struct info *in)
{
	return in->pmu_errno == ENOENT || in->pmu_errno == EOPNOTSUPP || in->pmu_errno == ENODEV;
}

static void predict(struct info *in)
{
	if (in->pmu) {
		snprintf(in->source, sizeof in->source, "perf-hw");
		snprintf(in->event, sizeof in->event, "cycles");
		snprintf(in->why, sizeof in->why, "hardware cycles open");
	} else if (in->papi_tot_cyc && !no_pmu(in)) {
		/* as sampler/papi.c: without a PMU PAPI's cycles are not tried */
		snprintf(in->source, sizeof in->source, "papi");
		snprintf(in->event, sizeof in->event, "PAPI_TOT_CYC");
		snprintf(in->why, sizeof in->why, "perf-hw: %s", strerror(in->pmu_errno));
	} else if (in->sw) {
		snprintf(in->source, sizeof in->source, "perf-sw");
		snprintf(in->event, sizeof in->event, "task-clock");
		snprintf(in->why, sizeof in->why, "perf-hw: %s; papi: %s", strerror(in->pmu_errno),
			 in->papi_tot_cyc ? "not tried for PAPI_TOT_CYC (no hardware PMU)"
					  : "PAPI_TOT_CYC not available");
	} else {
		snprintf(in->source, sizeof in->source, "posix-timer");
		snprintf(in->event, sizeof in->event, "CLOCK_THREAD_CPUTIME_ID");
		snprintf(in->why, sizeof in->why, "perf_event_open refused (%s)", strerror(in->sw_errno));
	}
}

static const char *perf_advice(const struct info *in)
{
	if (in->pmu)
		return "";
	if (no_pmu(in))
		return "no hardware PMU (a VM or container without PMU passthrough): software clocks are used";
	if (in->pmu_errno == EACCES || in->pmu_errno == EPERM)
		return in->paranoid > 2 ? "perf_event_paranoid > 2: run `sysctl kernel.perf_event_paranoid=2`"
					: "permission denied: check perf_event_paranoid and CAP_PERFMON";
	return "";
}

int cmd_info(int argc, char **argv)
{
	int json = 0, c;
	while ((c = tool_getopt("info", argc, argv, info_opts, "hyprof info [--json]",
				"What this machine offers for profiling and which sample source\n"
				"hyprof uses here, and why.",
				0)) != -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		json = 1;
	}
	if (optind < argc)
		return tool_usage("info", "unexpected argument '%s'", argv[optind]);
	static struct info in; /* ~40 KiB: not on a small stack (`ulimit -s 64`) */
	memset(&in, 0, sizeof in);
	in.pmu = try_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, &in.pmu_errno);
	in.sw = try_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, &in.sw_errno);
	char buf[256];
	read_line_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf);
	in.paranoid = buf[0] ? atoi(buf) : -99;
	struct rlimit rl;
	in.mlock_kb = getrlimit(RLIMIT_MEMLOCK, &rl) == 0
			      ? (rl.rlim_cur == RLIM_INFINITY ? -1 : (long long)(rl.rlim_cur / 1024))
			      : -2;
	papi_facts(&in);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(in.kernel, sizeof in.kernel, "%s %s %s", u.sysname, u.release, u.machine);
	cpu_facts(&in);
	runtime_choice(&in);
	if (!in.from_runtime)
		predict(&in);

	if (json) {
		struct json *j = json__new(stdout, 1);
		json__obj_begin(j);
		json__key(j, "pmu");
		json__bool(j, in.pmu);
		json__key(j, "pmu_error");
		json__str(j, in.pmu ? NULL : strerror(in.pmu_errno));
		json__key(j, "software_events");
		json__bool(j, in.sw);
		json__key(j, "perf_event_paranoid");
		json__int(j, in.paranoid);
		json__key(j, "mlock_kb");
		if (in.mlock_kb < 0)
			json__null(j);
		else
			json__int(j, in.mlock_kb);
		json__key(j, "papi");
		json__obj_begin(j);
		json__key(j, "ok");
		json__bool(j, in.papi_ok);
		json__key(j, "error");
		json__str(j, in.papi_ok ? NULL : in.papi_err);
		snprintf(buf, sizeof buf, "%d.%d.%d", in.papi_major, in.papi_minor, in.papi_rev);
		json__key(j, "version");
		json__str(j, in.papi_ok ? buf : NULL);
		json__key(j, "hw_counters");
		json__int(j, in.papi_hwctrs);
		json__key(j, "tot_cyc");
		json__bool(j, in.papi_tot_cyc);
		json__key(j, "components");
		json__arr_begin(j);
		for (int i = 0; i < in.ncomps; i++) {
			json__obj_begin(j);
			json__key(j, "name");
			json__str(j, in.comps[i].name);
			json__key(j, "enabled");
			json__bool(j, in.comps[i].enabled);
			json__key(j, "reason");
			json__str(j, in.comps[i].enabled ? NULL : in.comps[i].reason);
			json__key(j, "counters");
			json__int(j, in.comps[i].counters);
			json__key(j, "native_events");
			json__int(j, in.comps[i].natives);
			json__obj_end(j);
		}
		json__arr_end(j);
		json__obj_end(j);
		json__key(j, "choice");
		json__obj_begin(j);
		json__key(j, "from");
		json__str(j, in.from_runtime ? "runtime" : "prediction");
		json__key(j, "runtime_error");
		json__str(j, in.from_runtime ? NULL : in.runtime_err);
		json__key(j, "source");
		json__str(j, in.source);
		json__key(j, "event");
		json__str(j, in.event);
		json__key(j, "period");
		json__uint(j, in.period);
		json__key(j, "unit");
		json__str(j, in.unit);
		json__key(j, "why");
		json__str(j, in.why);
		json__obj_end(j);
		json__key(j, "kernel");
		json__str(j, in.kernel);
		json__key(j, "cpu");
		json__str(j, in.cpu);
		json__key(j, "tsc");
		json__obj_begin(j);
		json__key(j, "constant");
		json__bool(j, in.constant_tsc);
		json__key(j, "nonstop");
		json__bool(j, in.nonstop_tsc);
		json__obj_end(j);
		json__obj_end(j);
		return json__free(j) < 0 ? tool_err("writing the output failed") : HP_EXIT_OK;
	}
	printf("kernel               %s\n", in.kernel);
	printf("cpu                  %s\n", in.cpu);
	printf("tsc                  %s, %s\n", in.constant_tsc ? "constant" : "NOT constant",
	       in.nonstop_tsc ? "nonstop" : "may stop in idle states");
	printf("hardware PMU         %s", in.pmu ? "yes (perf cycles opened)" : "no");
	if (!in.pmu)
		printf(" (perf_event_open: %s; %s)", strerror(in.pmu_errno), perf_advice(&in));
	printf("\nsoftware perf events %s", in.sw ? "yes (task-clock opened)" : "no");
	if (!in.sw)
		printf(" (%s)", strerror(in.sw_errno));
	printf("\nperf_event_paranoid  %d\n", in.paranoid);
	if (in.mlock_kb == -1)
		printf("mlock limit          unlimited\n");
	else
		printf("mlock limit          %lld KiB\n", in.mlock_kb);
	if (in.papi_ok) {
		printf("PAPI                 %d.%d.%d, %d hardware counters, PAPI_TOT_CYC %s\n",
		       in.papi_major, in.papi_minor, in.papi_rev, in.papi_hwctrs,
		       in.papi_tot_cyc ? "available" : "not available");
		for (int i = 0; i < in.ncomps; i++)
			printf("  component %-18s %s, %d counters, %d native events%s%s\n", in.comps[i].name,
			       in.comps[i].enabled ? "enabled" : "disabled", in.comps[i].counters,
			       in.comps[i].natives, in.comps[i].enabled ? "" : ": ",
			       in.comps[i].enabled ? "" : in.comps[i].reason);
	} else {
		printf("PAPI                 not usable: %s\n", in.papi_err);
	}
	printf("sample source        %s, event %s", in.source, in.event);
	if (in.period)
		printf(", period %llu %s", in.period, in.unit);
	printf(" (%s)\n", in.from_runtime ? "what the runtime chose for /bin/true"
					  : "predicted from the checks above");
	if (in.why[0])
		printf("  why                %s\n", in.why);
	if (!in.from_runtime)
		printf("  runtime check      %s\n", in.runtime_err);
	return fflush(stdout) == 0 ? HP_EXIT_OK : tool_err("writing the output failed");
}
