/* tools/util.h - helpers shared by the hyprof subcommands: one-line errors,
 * option tables that drive both getopt_long and --help, number parsing.
 *
 * Only tools/ exits; these helpers never do.  Every error is one line on
 * stderr prefixed "hyprof: " (or "hyprof CMD: ") and says what to do next.
 * Exit status convention: 0 ok, 1 error, 2 usage.
 */
#ifndef HYPROF_TOOLS_UTIL_H
#define HYPROF_TOOLS_UTIL_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HP_EXIT_OK 0
#define HP_EXIT_ERR 1
#define HP_EXIT_USAGE 2

/* One option of a subcommand: drives getopt_long, --help and, for
 * `hyprof run`, the HYPROF_* variable it sets. */
struct tool_opt {
	const char *name;  /* long name without "--" */
	int shortopt;      /* 0 = none */
	const char *arg;   /* argument placeholder ("DIR"), NULL = flag */
	const char *var;   /* HYPROF_* variable it maps to, NULL = none */
	const char *help;  /* one line */
	int id;            /* value returned by getopt_long */
};

/* Print "hyprof: <msg>\n" on stderr.  Returns HP_EXIT_ERR. */
int tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "hyprof CMD: <msg> (see `hyprof CMD --help`)" on stderr.  Returns
 * HP_EXIT_USAGE. */
int tool_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Build the getopt_long tables of `opts` (terminated by name == NULL) into
 * caller storage: longs must hold n+2 entries, shorts 3*n+4 chars.  A
 * "help" option (id 'h') is added.  `stop_at_nonopt` prefixes '+'. */
void tool_getopt_tables(const struct tool_opt *opts, struct option *longs, char *shorts,
			int stop_at_nonopt);
/* getopt_long with the tables built from `opts`, one call; NULL-safe for
 * repeated use.  Handles unknown options (usage error) and -h/--help
 * (prints help to stdout).  Returns the option id, -1 at the end, or
 * -HP_EXIT_USAGE - 1000 / -HP_EXIT_OK - 1000 when the caller must return
 * (see TOOL_DONE()). */
int tool_getopt(const char *cmd, int argc, char **argv, const struct tool_opt *opts,
		const char *usage, const char *intro, int stop_at_nonopt);
#define TOOL_DONE(c) ((c) <= -1000)
#define TOOL_STATUS(c) (-(c)-1000)

/* Print the help page: "usage: ...", intro, then one line per option with
 * its variable when it has one. */
void tool_help(FILE *out, const char *usage, const char *intro, const struct tool_opt *opts);

/* Parse an unsigned/double value; 0 or -EINVAL. */
int tool_parse_u64(const char *s, uint64_t *out);
int tool_parse_double(const char *s, double *out);

/* Seconds formatted for a human: "1.234 s", "12.3 ms", "45.6 us". */
const char *tool_fmt_secs(double s, char *buf, size_t len);

/* Directory of the running hyprof executable (from /proc/self/exe). */
int tool_self_dir(char *buf, size_t len);

/* Room for one more element in a growable array of n elements of `elem`
 * bytes with room for *cap: doubles it (from 16) when full.  Returns the
 * array (maybe moved); aborts when out of memory (tools only). */
void *tool_grow(void *v, size_t n, size_t *cap, size_t elem);

/* ---- u64 -> pointer hash map (open addressing, grows by doubling) ---- */
struct u64map {
	uint64_t *keys;
	void **vals;
	size_t cap, n; /* cap is a power of two; key ~0 marks an empty slot */
};
void u64map__init(struct u64map *m);
void u64map__free(struct u64map *m);
/* Value for key or NULL.  key must not be ~0. */
void *u64map__get(const struct u64map *m, uint64_t key);
/* Insert or replace.  Returns 0 or -ENOMEM. */
int u64map__put(struct u64map *m, uint64_t key, void *val);
/* 64-bit mix of two values, for composite keys. */
static inline uint64_t u64_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h == ~0ull ? 0 : h;
}

/* ---- string interning: equal strings share one pointer ---------------- */
struct strpool;
struct strpool *strpool__new(void);
void strpool__free(struct strpool *p);
/* The interned copy of s (NULL -> NULL).  Aborts on out-of-memory. */
const char *strpool__get(struct strpool *p, const char *s);

#endif
