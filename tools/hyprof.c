/* tools/hyprof.c - the hyprof command: a table of subcommands.
 *
 * Each subcommand is one cmd_<name>.c exporting int cmd_<name>(argc, argv)
 * (argv[0] is the subcommand's name).  Subcommands owned by parts that may
 * not be linked yet are weak: when absent, the command says so (exit 1).
 * Exit status: 0 ok, 1 error, 2 usage.
 */
#include <stdio.h>
#include <string.h>

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
		return t[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "hyprof: unknown command '%s' (see `hyprof --help`)\n", cmd);
	return HP_EXIT_USAGE;
}
