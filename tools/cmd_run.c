/* tools/cmd_run.c - `hyprof run [options] [--] prog args`: the launcher.
 *
 * Turns each option into its one HYPROF_* variable (runtime/config.h),
 * preloads libhyprof.so (and libhyprof_mpi.so when the program uses MPI),
 * chooses the output directory, and execs the program: no fork, so under
 * mpirun the process tree stays the launcher's.  Nothing is printed on
 * stdout, ever; errors are one line on stderr.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <papi.h>

#include "runtime/config.h"
#include "sampler/events.h"
#include "tools/util.h"

int cmd_run(int argc, char **argv);

enum {
	O_OUTPUT = 'o',
	O_EVENT = 1000,
	O_PERIOD,
	O_FREQ,
	O_UNWIND,
	O_MODE,
	O_COMPENSATE,
	O_SIGNAL,
	O_FILTER,
	O_MAX_OVERHEAD,
	O_CRITICAL_PATH,
	O_PER_RANK,
	O_QUIET,
	O_MAX_NODES,
};

static const struct tool_opt run_opts[] = {
	{"output", 'o', "DIR", "HYPROF_OUTPUT", "profile directory (default ./hyprof-PROG-TIME, under MPI ./hyprof-PROG-JOBID)", O_OUTPUT},
	{"event", 0, "NAME", "HYPROF_EVENT", "sampling event: cycles, instructions, task-clock, cpu-clock, a PAPI name (default: best available)", O_EVENT},
	{"period", 0, "N", "HYPROF_PERIOD", "events (or ns for software clocks) between samples", O_PERIOD},
	{"freq", 0, "HZ", "HYPROF_FREQ", "samples per second (instead of --period)", O_FREQ},
	{"unwind", 0, "METHOD", "HYPROF_UNWIND", "call-path unwinding: libunwind (DWARF, default), fp (frame pointers) or kernel (perf_event callchains, batched)", O_UNWIND},
	{"mode", 0, "MODE", "HYPROF_MODE", "sampled | hybrid (count probes + samples) | measured (timed probes)", O_MODE},
	{"compensate", 0, "KIND", "HYPROF_COMPENSATE", "overhead compensation: none | local | parallel (MPI)", O_COMPENSATE},
	{"signal", 0, "SIG", "HYPROF_SIGNAL", "signal used for samples, name or number (default SIGRTMIN+3)", O_SIGNAL},
	{"filter", 0, "LIST", "HYPROF_FILTER", "comma-separated function names or globs the probes do not count", O_FILTER},
	{"max-overhead", 0, "PCT", "HYPROF_MAX_OVERHEAD", "overhead budget in percent (0 = no budget)", O_MAX_OVERHEAD},
	{"critical-path", 0, "auto|LIST", "HYPROF_CRITICAL_PATH", "track the critical path's share of these functions (MPI)", O_CRITICAL_PATH},
	{"per-rank", 0, NULL, "HYPROF_PER_RANK", "keep one file per rank beside the merged MPI profile", O_PER_RANK},
	{"quiet", 'q', NULL, "HYPROF_QUIET", "no summary line on stderr at exit", O_QUIET},
	{"max-nodes", 0, "N", "HYPROF_MAX_NODES", "call-path nodes per thread, in the sample tree and in the probe tree", O_MAX_NODES},
	{NULL, 0, NULL, NULL, NULL, 0},
};

static const char run_usage[] = "hyprof run [options] [--] PROGRAM [ARGS...]";
static const char run_intro[] =
	"Run PROGRAM with libhyprof.so preloaded (and libhyprof_mpi.so when it uses MPI)\n"
	"and write one profile per process into the output directory.  Each option sets\n"
	"the HYPROF_* variable shown beside it; a program linked with libhyprof.so reads\n"
	"the same variables.  `--` is needed only when PROGRAM starts with '-'.\n"
	"Launcher variables: HYPROF_LIB=DIR (where libhyprof.so is; default\n"
	"<dir of hyprof>/../lib), HYPROF_MPI=0|1 (force the MPI wrappers off or on).\n"
	"Under mpirun: `mpirun -np 4 hyprof run -o prof -- ./app`; without -o every\n"
	"rank derives the same directory from the launcher's job id (PMIX_NAMESPACE,\n"
	"OMPI_MCA_ess_base_jobid, SLURM_JOB_ID.SLURM_STEP_ID, else the parent pid).";

static int one_of(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(v, *set) == 0)
			return 1;
	return 0;
}

/* PROGRAM through PATH, as execvp would find it.  Returns 0 or -errno. */
static int find_program(const char *name, char *out, size_t len)
{
	struct stat sb;
	if (strchr(name, '/')) {
		if (stat(name, &sb) < 0)
			return -errno;
		if (S_ISDIR(sb.st_mode))
			return -EISDIR;
		if (access(name, X_OK) < 0)
			return -errno;
		snprintf(out, len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = -ENOENT;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char cand[PATH_MAX];
		if (n == 0)
			snprintf(cand, sizeof cand, "./%s", name);
		else
			snprintf(cand, sizeof cand, "%.*s/%s", (int)n, path, name);
		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (access(cand, X_OK) == 0) {
				snprintf(out, len, "%s", cand);
				return 0;
			}
			err = -EACCES;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return err;
}

/* The ELF class and machine of hyprof itself (libhyprof.so is built
 * alike): 0, or -1 if /proc/self/exe cannot be read. */
static int own_machine(unsigned char *cls, uint16_t *machine)
{
	Elf64_Ehdr eh;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, &eh, sizeof eh, 0) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof eh)
		return -1;
	*cls = eh.e_ident[EI_CLASS];
	*machine = eh.e_machine;
	return 0;
}

static const char *machine_name(unsigned char cls, uint16_t machine, char *buf, size_t len)
{
	const char *m = machine == EM_386 ? "i386" : machine == EM_X86_64 ? "x86-64" :
			machine == EM_AARCH64 ? "aarch64" : machine == EM_ARM ? "arm" : NULL;
	if (m)
		snprintf(buf, len, "%s, %d-bit", m, cls == ELFCLASS32 ? 32 : 64);
	else
		snprintf(buf, len, "machine %u, %d-bit", (unsigned)machine, cls == ELFCLASS32 ? 32 : 64);
	return buf;
}

/* ELF facts of the program: 1 = dynamic (interp filled), 0 = static ELF,
 * -1 = not an ELF file (a script), -2 = an ELF of another class or
 * machine than hyprof's (its name in interp): the loader would refuse
 * libhyprof.so ("wrong ELF class") and run the program unprofiled. */
static int elf_interp(const char *path, char *interp, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	unsigned char cls;
	uint16_t machine;
	int rc = -1;
	ssize_t n = pread(fd, &eh, sizeof eh, 0);
	/* e_ident and e_machine sit alike in both classes' headers (an ELF32
	 * header is shorter than an ELF64 one) */
	if (n < (ssize_t)offsetof(Elf64_Ehdr, e_version) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		goto out;
	if (own_machine(&cls, &machine) == 0 && (eh.e_ident[EI_CLASS] != cls || eh.e_machine != machine)) {
		machine_name(eh.e_ident[EI_CLASS], eh.e_machine, interp, len);
		rc = -2;
		goto out;
	}
	if (n != (ssize_t)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	rc = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_INTERP && ph.p_filesz > 0 && ph.p_filesz < len) {
			if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
				interp[ph.p_filesz] = 0;
				rc = 1;
			}
			break;
		}
	}
out:
	close(fd);
	return rc;
}

/* The objects an object loads: runs the dynamic loader in trace mode
 * (`ld.so --list OBJ`, as ldd does; nothing of it runs) into buf, one
 * object a line.  0, or -1 when the loader could not say. */
static int ld_list(const char *obj, const char *interp, char *buf, size_t len)
{
	int fds[2];
	if (len == 0 || pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(fds[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(fds[0]);
		close(fds[1]);
		unsetenv("LD_PRELOAD");
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		execl(interp, interp, "--list", obj, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while ((r = read(fds[0], buf + n, len - 1 - n)) > 0 || (r < 0 && errno == EINTR))
		if (r > 0 && (n += (size_t)r) >= len - 1)
			break;
	/* drain whatever did not fit */
	char sink[4096];
	while ((r = read(fds[0], sink, sizeof sink)) > 0 || (r < 0 && errno == EINTR))
		;
	close(fds[0]);
	buf[n] = 0;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Which MPI a list of ld_list() loads, by the objects' names: MPI_MPICH
 * (libmpich*, or libmpi.so.12: MPICH's own name, Intel MPI's, MVAPICH's),
 * MPI_OPENMPI (libmpi.so.40 and on; else its libmpi_* bindings), MPI_NONE.
 * The MPI library itself decides wherever it is in the list: a library
 * listed before it whose name merely begins with libmpi_ (a PMPI tool's
 * libmpi_trace.so) was taken for Open MPI's bindings, and a program that
 * links it and MPICH got no wrappers. */
enum { MPI_NONE = 0, MPI_OPENMPI = 1, MPI_MPICH = 2 };

static int mpi_family_of(const char *list)
{
	int bindings = 0;
	for (const char *line = list; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		const char *name = line + strspn(line, " \t");
		size_t n = strcspn(name, "\n");
		const char *base = memmem(name, n, "/libmpi", 7);
		base = strncmp(name, "libmpi", 6) == 0 ? name : base ? base + 1 : NULL;
		if (!base)
			continue;
		if (strncmp(base, "libmpich", 8) == 0 || strncmp(base, "libmpi.so.12", 12) == 0)
			return MPI_MPICH;
		if (strncmp(base, "libmpi.so", 9) == 0)
			return MPI_OPENMPI;
		if (strncmp(base, "libmpi_", 7) == 0)
			bindings = 1;
	}
	return bindings ? MPI_OPENMPI : MPI_NONE;
}

/* Which MPI an object loads (mpi_family_of), or -1 when the loader could
 * not say. */
static int mpi_family(const char *obj, const char *interp)
{
	/* static: 64 KiB on the stack was a launcher that died of SIGSEGV,
	 * before the program ran, under `ulimit -s 64` (the program itself
	 * runs there); the launcher has one thread */
	static char buf[65536];
	return ld_list(obj, interp, buf, sizeof buf) < 0 ? -1 : mpi_family_of(buf);
}

/* The path of the sanitizer runtime (libasan, libtsan, libhwasan, or
 * clang's shared libclang_rt.*san) in a list of ld_list(), into out: "" if
 * none.  Such a runtime must be the first object of the process (ASan
 * aborts otherwise: "ASan runtime does not come first in initial library
 * list"), so it goes ahead of libhyprof.so in LD_PRELOAD. */
static void sanitizer_of(const char *list, char *out, size_t len)
{
	static const char *const rts[] = {"libasan.so", "libtsan.so", "libhwasan.so", "libclang_rt.asan",
					  "libclang_rt.tsan", "libclang_rt.hwasan", NULL};
	out[0] = 0;
	for (const char *line = list; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		const char *name = line + strspn(line, " \t");
		size_t n = strcspn(name, " \t\n");
		for (int i = 0; rts[i]; i++)
			if (strncmp(name, rts[i], strlen(rts[i])) == 0) {
				/* "libasan.so.8 => /usr/lib/.../libasan.so.8 (0x...)" */
				const char *path = strstr(name, "=> ");
				path = path && path < name + strcspn(name, "\n") ? path + 3 : name;
				size_t m = path == name ? n : strcspn(path, " \t\n");
				if (m < len && (path[0] == '/' || path == name))
					snprintf(out, len, "%.*s", (int)m, path);
				return;
			}
	}
}

/* The MPI whose launcher started this process, by the variables it sets:
 * Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), MPICH's Hydra (PMI_RANK with
 * PMI_SIZE; Intel MPI and MVAPICH use it too).  MPI_NONE otherwise (srun
 * and bare PMIx can start either, and non-MPI programs). */
static int launcher_family(void)
{
	if (getenv("OMPI_COMM_WORLD_SIZE"))
		return MPI_OPENMPI;
	if (getenv("PMI_RANK") && getenv("PMI_SIZE"))
		return MPI_MPICH;
	return MPI_NONE;
}

/* A set-user-ID or set-group-ID program (or one with file capabilities)
 * runs in secure-execution mode: the dynamic loader ignores LD_PRELOAD, so
 * hyprof would silently collect nothing.  Refuse it with the reason.  Not
 * when the bit changes nothing (owned by us, or a nosuid mount). */
static int check_set_id(const char *prog)
{
	struct stat st;
	struct statvfs vfs;
	if (stat(prog, &st) != 0 || (statvfs(prog, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return 0;
	const char *what = NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		what = "set-user-ID";
	else if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid() &&
		 !group_member(st.st_gid))
		what = "set-group-ID";
	else if (getxattr(prog, "security.capability", NULL, 0) > 0 && geteuid() != 0)
		what = "given file capabilities";
	if (!what)
		return 0;
	return tool_err("%s is %s: the dynamic loader ignores LD_PRELOAD for it (secure execution), so "
			"it cannot be profiled; profile a copy without the bit", prog, what);
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
		return -errno;
	struct stat sb;
	if (stat(tmp, &sb) < 0)
		return -errno;
	return S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
}

/* Open MPI's MPI_INFO_ENV takes "command" and "argv" from OMPI_COMMAND and
 * OMPI_ARGV, which mpirun set for the program it started: hyprof.  Make
 * them name the program hyprof runs, as in a run without hyprof (the base
 * name, and the arguments joined by single spaces). */
static void set_ompi_command(char **prog_argv)
{
	if (!getenv("OMPI_COMMAND"))
		return;
	const char *base = strrchr(prog_argv[0], '/');
	setenv("OMPI_COMMAND", base ? base + 1 : prog_argv[0], 1);
	size_t n = 1;
	for (char **a = prog_argv + 1; *a; a++)
		n += strlen(*a) + 1;
	char *args = malloc(n);
	if (!args)
		return;
	args[0] = 0;
	for (char **a = prog_argv + 1; *a; a++) {
		if (a != prog_argv + 1)
			strcat(args, " ");
		strcat(args, *a);
	}
	if (prog_argv[1])
		setenv("OMPI_ARGV", args, 1);
	else
		unsetenv("OMPI_ARGV");
	free(args);
}

static int under_mpi_launcher(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
					   "MV2_COMM_WORLD_RANK", "MPI_LOCALRANKID", NULL};
	for (int i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return 1;
	return getenv("SLURM_STEP_ID") && getenv("SLURM_PROCID");
}

/* A job id every rank of one job sees alike, sanitised for a file name. */
static void job_id(char *out, size_t len)
{
	const char *v;
	char tmp[256];
	if ((v = getenv("PMIX_NAMESPACE")) && *v)
		snprintf(tmp, sizeof tmp, "%s", v);
	else if ((v = getenv("OMPI_MCA_ess_base_jobid")) && *v)
		snprintf(tmp, sizeof tmp, "%s", v);
	else if ((v = getenv("SLURM_JOB_ID")) && *v)
		snprintf(tmp, sizeof tmp, "%s.%s", v,
			 getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "0");
	else if ((v = getenv("PMI_JOBID")) && *v)
		snprintf(tmp, sizeof tmp, "%s", v);
	else
		snprintf(tmp, sizeof tmp, "ppid%d", (int)getppid());
	size_t k = 0;
	for (const char *p = tmp; *p && k + 1 < len; p++)
		out[k++] = (char)((*p == '/' || *p == ' ' || *p == '@' || *p == ':') ? '-' : *p);
	out[k] = 0;
}

static void default_output(const char *prog, char *out, size_t len)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	if (under_mpi_launcher()) {
		char job[256];
		job_id(job, sizeof job);
		if (snprintf(out, len, "hyprof-%.200s-%s", base, job) >= (int)len)
			out[len - 1] = 0;
		return;
	}
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char ts[32];
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	snprintf(out, len, "hyprof-%.200s-%s", base, ts);
}

static int path_in_list(const char *list, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = list; p && *p;) {
		const char *e = p + strcspn(p, ": ");
		if ((size_t)(e - p) == n && strncmp(p, path, n) == 0)
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

static int set_preload(const char *prog, const char *interp, int dynamic)
{
	char libdir[PATH_MAX], rt[PATH_MAX], mpi[PATH_MAX];
	const char *env = getenv("HYPROF_LIB");
	if (env && *env) {
		snprintf(libdir, sizeof libdir, "%s", env);
	} else {
		char self[PATH_MAX];
		if (tool_self_dir(self, sizeof self) < 0)
			return tool_err("cannot find the hyprof executable's directory: set HYPROF_LIB to the "
					"directory that holds libhyprof.so");
		if (snprintf(libdir, sizeof libdir, "%s/../lib", self) >= (int)sizeof libdir)
			return tool_err("path of the hyprof executable too long: set HYPROF_LIB");
	}
	char real[PATH_MAX];
	if (realpath(libdir, real))
		snprintf(libdir, sizeof libdir, "%s", real);
	if (snprintf(rt, sizeof rt, "%s/libhyprof.so", libdir) >= (int)sizeof rt ||
	    snprintf(mpi, sizeof mpi, "%s/libhyprof_mpi.so", libdir) >= (int)sizeof mpi)
		return tool_err("HYPROF_LIB path too long");
	if (access(rt, R_OK) < 0)
		return tool_err("runtime library %s not found: build hyprof, or set HYPROF_LIB to the "
				"directory that holds libhyprof.so",
				rt);

	/* what the program loads: its MPI, its sanitizer runtime */
	static char list[65536];
	int listed = dynamic ? ld_list(prog, interp, list, sizeof list) : -1;
	char san[PATH_MAX] = "";
	if (listed == 0)
		sanitizer_of(list, san, sizeof san);

	int want_mpi = 0;
	const char *force = getenv("HYPROF_MPI");
	if (force && *force) {
		if (strcmp(force, "0") != 0 && strcmp(force, "1") != 0)
			return tool_err("HYPROF_MPI=\"%s\": expected 0 or 1 (see `hyprof run --help`)", force);
		want_mpi = strcmp(force, "1") == 0;
		if (want_mpi && access(mpi, R_OK) < 0)
			return tool_err("HYPROF_MPI=1 but %s does not exist (this build has no MPI "
					"support: configure with -DHYPROF_WITH_MPI=ON)",
					mpi);
	} else if (dynamic && access(mpi, R_OK) == 0) {
		/* The program links an MPI; or it does not (Python with mpi4py,
		 * a program that dlopens libmpi, a script that runs the MPI
		 * program) but an MPI launcher of the wrappers' own MPI started
		 * it: then the wrappers go in first, so libmpi is theirs when
		 * the program loads it.  Another MPI's launcher: no wrappers (two
		 * MPIs in one process would break it). */
		int fam = listed < 0 ? -1 : mpi_family_of(list);
		if (fam == MPI_NONE) {
			int launcher = launcher_family();
			want_mpi = launcher != MPI_NONE && launcher == mpi_family(mpi, interp);
		} else if (fam > 0) {
			int ours = mpi_family(mpi, interp);
			want_mpi = ours < 0 || fam == ours; /* unknown: as before */
			if (!want_mpi)
				fprintf(stderr, "hyprof: %s uses %s, but this hyprof's MPI wrappers are built for %s: "
					"its MPI calls are not profiled (build hyprof with that MPI's mpicc: "
					"-DMPI_C_COMPILER=...)\n", prog, fam == MPI_MPICH ? "MPICH" : "Open MPI",
					ours == MPI_MPICH ? "MPICH" : "Open MPI");
		}
	}

	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(san) + strlen(rt) + strlen(mpi) + (old ? strlen(old) : 0) + 4;
	char *pre = malloc(len);
	if (!pre)
		return tool_err("out of memory");
	pre[0] = 0;
	strcat(pre, san); /* the sanitizer first (sanitizer_of), then hyprof */
	if (!path_in_list(old, rt)) {
		if (*pre)
			strcat(pre, ":");
		strcat(pre, rt);
	}
	if (want_mpi && !path_in_list(old, mpi)) {
		if (*pre)
			strcat(pre, ":");
		strcat(pre, mpi);
	}
	if (old && *old) {
		if (*pre)
			strcat(pre, ":");
		strcat(pre, old);
	}
	setenv("LD_PRELOAD", pre, 1);
	free(pre);
	return 0;
}

/* An event name no sample source can know is a mistake in the command
 * line: refuse it here, with the names that work.  A name a source knows but
 * this machine cannot count (cycles without a PMU, a PAPI preset without
 * counters) is not refused: the program then runs with the best source and
 * the profile says why (a job script written for another machine still
 * runs).  Given with --event (opt), an unknown name is a usage error like
 * any bad option value (exit 2); from HYPROF_EVENT in the environment, an
 * error naming the variable (exit 1), like any bad HYPROF_* value.
 * Returns 0 or the exit status. */
static int check_event(const char *ev, int opt)
{
	if (!ev || !*ev || hp_event_kind(ev) != HP_EVENT_OTHER)
		return 0;
	/* Only PAPI could know it, as a native event name of this machine. */
	int known = 0;
	if (PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT) {
		char name[PAPI_MAX_STR_LEN];
		int code;
		snprintf(name, sizeof name, "%s", ev);
		PAPI_set_debug(PAPI_QUIET);
		known = PAPI_event_name_to_code(name, &code) == PAPI_OK;
		PAPI_shutdown();
	}
	if (known)
		return 0;
#define EVENT_NAMES "use a perf event (cycles, instructions, task-clock, cpu-clock, ...), posix-timer, " \
		    "or a PAPI preset or native name (`papi_avail`, `papi_native_avail`)"
	if (opt)
		return tool_usage("run", "--event: unknown event '%s': " EVENT_NAMES, ev);
	return tool_err("HYPROF_EVENT: unknown event '%s': " EVENT_NAMES, ev);
#undef EVENT_NAMES
}

int cmd_run(int argc, char **argv)
{
	static const char *const modes[] = {"sampled", "hybrid", "measured", NULL};
	static const char *const comps[] = {"none", "local", "parallel", NULL};
	static const char *const unwinds[] = {"libunwind", "fp", "kernel", NULL};
	const char *output = NULL;
	int have_period = 0, have_freq = 0, have_event = 0;
	int c;
	while ((c = tool_getopt("run", argc, argv, run_opts, run_usage, run_intro, 1)) != -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		const struct tool_opt *o = NULL;
		for (int i = 0; run_opts[i].name; i++)
			if (run_opts[i].id == c)
				o = &run_opts[i];
		const char *v = optarg;
		switch (c) {
		case O_OUTPUT:
			if (!*v)
				return tool_usage("run", "-o needs a directory");
			output = v;
			break;
		case O_EVENT:
			have_event = 1;
			break;
		case O_FILTER:
			break;
		case O_CRITICAL_PATH:
			if (!*v)
				return tool_usage("run", "--critical-path needs 'auto' or a list of functions");
			break;
		case O_PERIOD:
		case O_FREQ:
			have_period |= c == O_PERIOD;
			have_freq |= c == O_FREQ;
			break;
		case O_MAX_NODES:
		case O_MAX_OVERHEAD:
			/* numbers: the runtime's parser, below, alone (the
			 * launcher's own refused --max-overhead 5%, which
			 * HYPROF_MAX_OVERHEAD accepts) */
			break;
		case O_UNWIND:
			if (!one_of(v, unwinds))
				return tool_usage("run", "--unwind must be libunwind, fp or kernel, not '%s'", v);
			break;
		case O_MODE:
			if (!one_of(v, modes))
				return tool_usage("run", "--mode must be sampled, hybrid or measured, not '%s'", v);
			break;
		case O_COMPENSATE:
			if (!one_of(v, comps))
				return tool_usage("run", "--compensate must be none, local or parallel, not '%s'", v);
			break;
		case O_SIGNAL:
			/* the runtime's own parser, below (hp_config_check_var):
			 * a list of the launcher's refused SIGCHLD, SIGPWR, ...
			 * that HYPROF_SIGNAL and a number accepted */
			break;
		case O_PER_RANK:
		case O_QUIET:
			v = "1";
			break;
		default:
			return tool_usage("run", "unhandled option");
		}
		if (o && c != O_OUTPUT) {
			/* the variable's own bounds (--freq 1000000): a usage error
			 * that names the option, not the variable */
			const char *accepted = hp_config_check_var(o->var, v);
			if (accepted)
				return tool_usage("run", "--%s needs %s, not '%s'", o->name, accepted, v);
			setenv(o->var, v, 1);
		}
	}
	if (have_period && have_freq)
		return tool_usage("run", "give --period or --freq, not both");
	/* --period or --freq chooses the rate: it replaces the other one's
	 * variable from the environment (a job script's HYPROF_FREQ), as each
	 * option replaces its own variable */
	if (have_period)
		unsetenv("HYPROF_FREQ");
	if (have_freq)
		unsetenv("HYPROF_PERIOD");
	/* Options and HYPROF_* variables alike: refuse a bad value before
	 * anything starts (the runtime alone would warn and use the default). */
	char cfg_err[1024];
	if (hp_config_check(cfg_err, sizeof cfg_err))
		return tool_err("%s (see `hyprof run --help`)", cfg_err);
	int rc = check_event(getenv("HYPROF_EVENT"), have_event);
	if (rc)
		return rc;
	if (optind >= argc)
		return tool_usage("run", "no program to run");
	char **prog_argv = argv + optind;
	char prog[PATH_MAX];
	rc = find_program(prog_argv[0], prog, sizeof prog);
	if (rc == -ENOENT)
		return tool_err("%s: command not found%s", prog_argv[0],
				strchr(prog_argv[0], '/') ? "" : " (searched PATH)");
	if (rc < 0)
		return tool_err("%s: cannot run it: %s", prog_argv[0],
				rc == -EACCES ? "not executable (check its permissions)" : strerror(-rc));
	char interp[PATH_MAX];
	int dyn = elf_interp(prog, interp, sizeof interp);
	if (dyn == -2) {
		char own[64] = "this machine";
		unsigned char cls;
		uint16_t machine;
		if (own_machine(&cls, &machine) == 0)
			machine_name(cls, machine, own, sizeof own);
		return tool_err("%s is a program for %s: libhyprof.so (%s) cannot be loaded into it; "
				"build it for %s",
				prog, interp, own, own);
	}
	if (dyn == 0)
		return tool_err("%s is statically linked: libhyprof.so cannot be preloaded into it; "
				"link it dynamically (or with -lhyprof)",
				prog);

	rc = check_set_id(prog);
	if (rc)
		return rc;

	/* output directory: -o, else HYPROF_OUTPUT from the environment, else
	 * a name every rank of a job derives alike */
	char outbuf[PATH_MAX];
	if (!output) {
		const char *env = getenv("HYPROF_OUTPUT");
		if (env && *env) {
			output = env;
		} else {
			default_output(prog, outbuf, sizeof outbuf);
			output = outbuf;
		}
	}
	rc = mkdir_p(output);
	if (rc < 0)
		return tool_err("cannot create the output directory %s: %s (choose another with -o)",
				output, strerror(-rc));
	char absout[PATH_MAX];
	if (!realpath(output, absout))
		snprintf(absout, sizeof absout, "%s", output);
	/* Writable now, not only at exit: root passes access(W_OK) on /proc,
	 * and a 555 directory that exists passes mkdir_p. */
	char probe[PATH_MAX + 64];
	snprintf(probe, sizeof probe, "%s/.hyprof-probe.%ld", absout, (long)getpid());
	int pfd = open(probe, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (pfd < 0)
		return tool_err("cannot write in the output directory %s: %s (choose another with -o)",
				absout, strerror(errno));
	close(pfd);
	unlink(probe);
	setenv("HYPROF_OUTPUT", absout, 1);

	rc = set_preload(prog, interp, dyn == 1);
	if (rc)
		return rc;
	set_ompi_command(prog_argv);
	fflush(NULL);
	execv(prog, prog_argv);
	return tool_err("%s: exec failed: %s", prog, strerror(errno));
}
