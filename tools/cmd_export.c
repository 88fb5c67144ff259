/* tools/cmd_export.c - `hyprof export --format F [-o FILE] DIR`: the profile
 * in the formats other viewers read (pprof, folded stacks, speedscope, TAU,
 * a flame graph SVG).  The writers are in tools/export_*.c; this file parses
 * the command line, loads the model and picks the output.
 * docs/cmd-export.md is the manual page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/export.h"
#include "tools/model.h"
#include "tools/util.h"

int cmd_export(int argc, char **argv);

enum { X_FORMAT = 1000, X_OUT, X_RANK, X_THREAD, X_VALUE, X_SPLIT, X_MINW, X_WIDTH, X_TITLE,
       X_QUIET, X_DEPTH, X_NOFOLD };

static const struct tool_opt export_opts[] = {
	{"format", 'f', "F", NULL, "pprof | folded | speedscope | tau | svg (required)", X_FORMAT},
	{"output", 'o', "FILE", NULL,
	 "where to write (default: standard output; tau: a directory, required; pprof: not a terminal)",
	 X_OUT},
	{"rank", 0, "R", NULL, "only MPI rank R (without MPI: the R-th process); default all, merged",
	 X_RANK},
	{"thread", 0, "T", NULL, "only thread T (index within its process); default all, merged",
	 X_THREAD},
	{"value", 0, "V", NULL,
	 "samples | time | calls: the value of folded (default samples), speedscope and svg (default time)",
	 X_VALUE},
	{"split", 0, "S", NULL,
	 "speedscope: one profile per rank | thread | none (default: rank with MPI, else thread)",
	 X_SPLIT},
	{"min-width", 0, "PCT", NULL, "svg: prune frames narrower than PCT% of the total (default 0.05)",
	 X_MINW},
	{"width", 0, "PX", NULL, "svg: image width in pixels (default 1200)", X_WIDTH},
	{"no-fold", 0, NULL, NULL, "keep every frame of hyprof's own code (by default MPI wrapper frames fold into the MPI call)", X_NOFOLD},
	{"title", 0, "TEXT", NULL, "svg: title (default: the program)", X_TITLE},
	{"callpath-depth", 0, "D", NULL,
	 "tau: name call paths by their last D frames, like TAU_CALLPATH_DEPTH (default 0 = all)",
	 X_DEPTH},
	{"quiet", 'q', NULL, NULL, "no summary line on stderr", X_QUIET},
	{NULL, 0, NULL, NULL, NULL, 0},
};

static const char export_usage[] = "hyprof export --format F [-o FILE] [options] DIR|FILE.hyp";
static const char export_intro[] =
	"Write the profile in DIR (from `hyprof run`) for other viewers:\n"
	"  pprof       gzipped profile.proto: go tool pprof, pprof.me, speedscope, Perfetto\n"
	"  folded      folded stacks (main;solve;kernel 1234): flamegraph.pl, inferno, speedscope\n"
	"  speedscope  speedscope's JSON format, one profile per rank or thread\n"
	"  tau         TAU profile.N.C.T files (-o names a directory): ParaProf, TAU's pprof\n"
	"  svg         one self-contained flame graph with search and click-to-zoom\n"
	"Every process and thread is merged unless --rank/--thread select one.  The\n"
	"options have no environment variables.  docs/cmd-export.md describes each format.";

static int parse_int(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1 << 30)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static void summary(const char *what, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		fprintf(stderr, "hyprof export: wrote %s (%s, %.1f KB)\n", path, what,
			(double)st.st_size / 1024.0);
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	const char *format = NULL, *out = NULL;
	int quiet = 0, c;
	unsigned lopts = 0;

	export__opts_init(&o);
	while ((c = tool_getopt("export", argc, argv, export_opts, export_usage, export_intro, 0)) !=
	       -1) {
		if (TOOL_DONE(c))
			return TOOL_STATUS(c);
		double d;
		switch (c) {
		case X_FORMAT:
		case 'f': /* short options come back as themselves */
			format = optarg;
			break;
		case X_OUT:
		case 'o':
			out = optarg;
			break;
		case X_RANK:
			if (parse_int(optarg, &o.rank) < 0)
				return tool_usage("export", "--rank needs a rank number >= 0, not '%s'", optarg);
			break;
		case X_THREAD:
			if (parse_int(optarg, &o.thread) < 0)
				return tool_usage("export", "--thread needs a thread index >= 0, not '%s'",
						  optarg);
			break;
		case X_VALUE:
			if (strcmp(optarg, "samples") == 0)
				o.value = EXPORT_V_SAMPLES;
			else if (strcmp(optarg, "time") == 0)
				o.value = EXPORT_V_TIME;
			else if (strcmp(optarg, "calls") == 0)
				o.value = EXPORT_V_CALLS;
			else
				return tool_usage("export", "--value is samples, time or calls, not '%s'",
						  optarg);
			break;
		case X_SPLIT:
			if (strcmp(optarg, "rank") == 0)
				o.split = EXPORT_SPLIT_RANK;
			else if (strcmp(optarg, "thread") == 0)
				o.split = EXPORT_SPLIT_THREAD;
			else if (strcmp(optarg, "none") == 0)
				o.split = EXPORT_SPLIT_NONE;
			else
				return tool_usage("export", "--split is rank, thread or none, not '%s'",
						  optarg);
			break;
		case X_MINW:
			if (tool_parse_double(optarg, &d) < 0 || d < 0 || d >= 100)
				return tool_usage("export", "--min-width needs a percentage 0..100, not '%s'",
						  optarg);
			o.min_width = d / 100.0;
			break;
		case X_WIDTH:
			if (parse_int(optarg, &o.width) < 0 || o.width < 200 || o.width > 100000)
				return tool_usage("export", "--width needs 200..100000 pixels, not '%s'",
						  optarg);
			break;
		case X_DEPTH:
			if (parse_int(optarg, &o.callpath_depth) < 0)
				return tool_usage("export", "--callpath-depth needs a number >= 0, not '%s'",
						  optarg);
			break;
		case X_TITLE:
			o.title = optarg;
			break;
		case X_NOFOLD:
			lopts |= MODEL_NO_FOLD;
			break;
		case X_QUIET:
		case 'q':
			quiet = 1;
			break;
		default:
			return tool_usage("export", "unhandled option");
		}
	}
	if (!format)
		return tool_usage("export", "--format is required (pprof, folded, speedscope, tau, svg)");
	int (*writer)(struct hp_model *, const struct export_opts *, FILE *, char *, size_t) = NULL;
	int is_tau = 0;
	if (strcmp(format, "pprof") == 0)
		writer = export__pprof;
	else if (strcmp(format, "folded") == 0)
		writer = export__folded;
	else if (strcmp(format, "speedscope") == 0)
		writer = export__speedscope;
	else if (strcmp(format, "svg") == 0)
		writer = export__svg;
	else if (strcmp(format, "tau") == 0)
		is_tau = 1;
	else if (strcmp(format, "cube") == 0 || strcmp(format, "cube4") == 0)
		return tool_err("CUBE4 export is not available: no CUBE reader could check it here "
				"(use --format tau for ParaProf, or pprof)");
	else
		return tool_usage("export", "unknown format '%s' (pprof, folded, speedscope, tau, svg)",
				  format);
	if (optind >= argc)
		return tool_usage("export", "no profile directory given");
	if (argc - optind > 1)
		return tool_usage("export", "one profile directory only");
	if (is_tau && !out)
		return tool_usage("export", "--format tau writes a directory: give it with -o DIR");
	if (o.value == EXPORT_V_CALLS && (strcmp(format, "speedscope") == 0 || strcmp(format, "svg") == 0))
		return tool_usage("export", "--value calls is for folded stacks only (calls do not add up "
				  "into widths)");
	if (format[0] == 'p' && (!out || strcmp(out, "-") == 0) && isatty(STDOUT_FILENO))
		return tool_usage("export", "pprof is binary: give a file with -o FILE (e.g. -o profile.pb.gz)");

	struct hp_model m;
	char err[1024] = "";
	if (model__load_opts(&m, argv[optind], lopts, err, sizeof err) < 0)
		return tool_err("%s", err);

	int rc;
	if (is_tau) {
		rc = export__tau(&m, &o, out, err, sizeof err);
		if (rc == 0 && !quiet)
			fprintf(stderr, "hyprof export: wrote TAU profiles to %s/ (read them with "
				"`paraprof %s` or TAU's `pprof`)\n", out, out);
	} else {
		char tmp[4200];
		FILE *f = export__open(out, tmp, sizeof tmp, err, sizeof err);
		if (!f) {
			model__free(&m);
			return tool_err("%s", err);
		}
		rc = writer(&m, &o, f, err, sizeof err);
		rc = export__commit(f, tmp, out, rc, err, sizeof err);
		if (rc == 0 && !quiet && f != stdout)
			summary(format, out);
	}
	model__free(&m);
	if (rc < 0)
		return tool_err("export %s: %s", format, err[0] ? err : strerror(-rc));
	return HP_EXIT_OK;
}
