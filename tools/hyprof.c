/* tools/hyprof.c - the hyprof command: a table of subcommands.
 *
 * Each subcommand is one cmd_<name>.c exporting int cmd_<name>(argc, argv)
 * (argv[0] is the subcommand's name).  Subcommands owned by parts that may
 * not be linked yet are weak: when absent, the command says so (exit 1).
 * Exit status: 0 ok, 1 error, 2 usage.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "tools/util.h"

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv) __attribute__((weak));
int cmd_export(int argc, char **argv) __attribute__((weak));
int cmd_watch(int argc, char **argv) __attribute__((weak));

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

/* Built at run time because weak symbols are not constant expressions for
 * every compiler; the order is the order of `hyprof --help`. */
static int commands(struct command *out)
{
	struct command t[] = {
		{"run", cmd_run, "run a program (or an MPI rank) under hyprof: hyprof run [options] -- prog args"},
		{"report", cmd_report, "print the profile in DIR: call tree, flat profile, views (--json)"},
		{"compare", cmd_compare, "put two profiles side by side (e.g. sampled vs measured)"},
		{"info", cmd_info, "what this machine offers: PMU, perf_event_paranoid, PAPI, the event hyprof uses"},
		{"calibrate", cmd_calibrate, "measure what each piece of measurement costs here (--json)"},
		{"export", cmd_export, "write the profile for other viewers (pprof, folded, speedscope, tau, svg)"},
		{"watch", cmd_watch, "live view of a running program's statistics"},
	};
	memcpy(out, t, sizeof t);
	return (int)(sizeof t / sizeof t[0]);
}

static void usage(FILE *out)
{
	struct command t[16];
	int n = commands(t);
	fprintf(out, "usage: hyprof [--help] [--version] COMMAND [ARGS]\n\n"
		     "hyprof: a hybrid sampling + probing profiler for Linux programs and MPI jobs\n"
		     "that measures and removes its own cost.\n\ncommands:\n");
	for (int i = 0; i < n; i++)
		fprintf(out, "  %-10s %s%s\n", t[i].name, t[i].help,
			t[i].fn ? "" : " (not available in this build)");
	fprintf(out, "\n`hyprof COMMAND --help` lists the command's options and their HYPROF_*\n"
		     "environment variables.  Exit status: 0 ok, 1 error, 2 usage.\n");
}

/* Stack for the command when the main thread's is small: the commands keep
 * path buffers, the launcher's PATH_MAX names and libdw's recursion on the
 * stack, and under `ulimit -s 64` (where the programs they run or read may
 * well run) died of SIGSEGV before saying anything. */
#define TOOL_STACK (16u << 20)
/* The least main-thread stack the commands run on directly (the usual 8
 * MiB does: the model's walks stop at MODEL_MAX_DEPTH, about 3 MiB). */
#define TOOL_STACK_MIN (4u << 20)

struct call {
	int (*fn)(int argc, char **argv);
	int argc;
	char **argv;
	int status;
};

static void *call_main(void *arg)
{
	struct call *c = arg;
	c->status = c->fn(c->argc, c->argv);
	return NULL;
}

/* Run FN on a thread with a TOOL_STACK stack when RLIMIT_STACK is below
 * TOOL_STACK_MIN (the limit itself is left alone: `hyprof run` execs the
 * program with the limit it was given, from that thread).  The main thread
 * blocks every
 * signal while it waits, so the command's thread gets them (watch's poll is
 * woken by SIGWINCH and SIGINT).  Without memory for that stack, FN runs
 * here as before. */
static int call_command(int (*fn)(int, char **), int argc, char **argv)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= TOOL_STACK_MIN)
		return fn(argc, argv);
	struct call c = {fn, argc, argv, HP_EXIT_ERR};
	pthread_attr_t a;
	pthread_t th;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, TOOL_STACK);
	int rc = pthread_create(&th, &a, call_main, &c);
	pthread_attr_destroy(&a);
	if (rc)
		return fn(argc, argv);
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_join(th, NULL);
	return c.status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "hyprof: no command given (see `hyprof --help`)\n");
		return HP_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return HP_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("hyprof %s\n", HYPROF_VERSION);
		return HP_EXIT_OK;
	}
	if (cmd[0] == '-') {
		fprintf(stderr, "hyprof: unknown option '%s' (see `hyprof --help`)\n", cmd);
		return HP_EXIT_USAGE;
	}
	struct command t[16];
	int n = commands(t);
	for (int i = 0; i < n; i++) {
		if (strcmp(t[i].name, cmd) != 0)
			continue;
		if (!t[i].fn) {
			fprintf(stderr, "hyprof: %s is not available in this build\n", cmd);
			return HP_EXIT_ERR;
		}
		return call_command(t[i].fn, argc - 1, argv + 1);
	}
	fprintf(stderr, "hyprof: unknown command '%s' (see `hyprof --help`)\n", cmd);
	return HP_EXIT_USAGE;
}
