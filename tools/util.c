/* tools/util.c - one-line errors, option tables, number parsing. */
#include "tools/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tool_err(const char *fmt, ...)
{
	va_list ap;
	fputs("hyprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return HP_EXIT_ERR;
}

int tool_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hyprof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see `hyprof %s --help`)\n", cmd);
	return HP_EXIT_USAGE;
}

void tool_getopt_tables(const struct tool_opt *opts, struct option *longs, char *shorts,
			int stop_at_nonopt)
{
	int n = 0, k = 0;
	if (stop_at_nonopt)
		shorts[k++] = '+';
	shorts[k++] = ':'; /* report a missing argument as ':' */
	for (; opts[n].name; n++) {
		longs[n].name = opts[n].name;
		longs[n].has_arg = opts[n].arg ? required_argument : no_argument;
		longs[n].flag = NULL;
		longs[n].val = opts[n].id;
		if (opts[n].shortopt) {
			shorts[k++] = (char)opts[n].shortopt;
			if (opts[n].arg)
				shorts[k++] = ':';
		}
	}
	longs[n] = (struct option){"help", no_argument, NULL, 'h'};
	longs[n + 1] = (struct option){NULL, 0, NULL, 0};
	shorts[k++] = 'h';
	shorts[k] = 0;
}

int tool_getopt(const char *cmd, int argc, char **argv, const struct tool_opt *opts,
		const char *usage, const char *intro, int stop_at_nonopt)
{
	static const struct tool_opt *cached;
	static struct option longs[64];
	static char shorts[200];
	if (cached != opts) {
		int n = 0;
		while (opts[n].name)
			n++;
		if (n + 2 > 64)
			abort(); /* a programming error, caught by any test of the command */
		tool_getopt_tables(opts, longs, shorts, stop_at_nonopt);
		cached = opts;
		optind = 0; /* full reinitialisation of getopt for a new argv */
	}
	opterr = 0;
	int c = getopt_long(argc, argv, shorts, longs, NULL);
	switch (c) {
	case -1:
		cached = NULL;
		return -1;
	case 'h':
		tool_help(stdout, usage, intro, opts);
		cached = NULL;
		return -HP_EXIT_OK - 1000;
	case ':':
		cached = NULL;
		return -tool_usage(cmd, "option %s needs an argument", argv[optind - 1]) - 1000;
	case '?': {
		const char *bad = argv[optind - 1];
		char shortbuf[3] = {'-', (char)optopt, 0};
		cached = NULL;
		if (optopt && (!bad || strncmp(bad, "--", 2) != 0))
			bad = shortbuf;
		return -tool_usage(cmd, "unknown option '%s'", bad ? bad : "?") - 1000;
	}
	default:
		/* a short option comes back as its letter: map it to the id */
		for (int i = 0; opts[i].name; i++)
			if (opts[i].shortopt && opts[i].shortopt == c)
				return opts[i].id;
		return c;
	}
}

void tool_help(FILE *out, const char *usage, const char *intro, const struct tool_opt *opts)
{
	fprintf(out, "usage: %s\n", usage);
	if (intro && *intro)
		fprintf(out, "\n%s\n", intro);
	fprintf(out, "\noptions:\n");
	int width = 0, any_var = 0;
	for (int i = 0; opts[i].name; i++) {
		int w = (int)strlen(opts[i].name) + 2 + (opts[i].shortopt ? 4 : 0) +
			(opts[i].arg ? (int)strlen(opts[i].arg) + 1 : 0);
		if (w > width)
			width = w;
		any_var |= opts[i].var != NULL;
	}
	for (int i = 0; opts[i].name; i++) {
		char spec[128];
		int k = 0;
		if (opts[i].shortopt)
			k += snprintf(spec + k, sizeof spec - k, "-%c, ", opts[i].shortopt);
		k += snprintf(spec + k, sizeof spec - k, "--%s", opts[i].name);
		if (opts[i].arg)
			snprintf(spec + k, sizeof spec - k, " %s", opts[i].arg);
		if (any_var)
			fprintf(out, "  %-*s  %-22s %s\n", width, spec, opts[i].var ? opts[i].var : "-",
				opts[i].help);
		else
			fprintf(out, "  %-*s  %s\n", width, spec, opts[i].help);
	}
	fprintf(out, "  %-*s  %s%s\n", width, "-h, --help", any_var ? "-                      " : "",
		"print this help and exit");
}

int tool_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int tool_parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

const char *tool_fmt_secs(double s, char *buf, size_t len)
{
	double a = fabs(s);
	if (a == 0)
		snprintf(buf, len, "0 s");
	else if (a >= 1)
		snprintf(buf, len, "%.3f s", s);
	else if (a >= 1e-3)
		snprintf(buf, len, "%.3f ms", s * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, len, "%.3f us", s * 1e6);
	else
		snprintf(buf, len, "%.1f ns", s * 1e9);
	return buf;
}

void *tool_grow(void *v, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(v, c * elem);
	if (!p)
		abort();
	*cap = c;
	return p;
}

int tool_self_dir(char *buf, size_t len)
{
	char tmp[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", tmp, sizeof tmp - 1);
	if (n <= 0)
		return -errno;
	tmp[n] = 0;
	char *slash = strrchr(tmp, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	if ((size_t)snprintf(buf, len, "%s", tmp) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- u64map ------------------------------------------------------------ */
static inline size_t slot_of(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

void u64map__init(struct u64map *m)
{
	memset(m, 0, sizeof *m);
}

void u64map__free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

void *u64map__get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (m->keys[i] == ~0ull)
			return NULL;
	}
}

static int grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *k = malloc(cap * sizeof *k);
	void **v = malloc(cap * sizeof *v);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	memset(k, 0xff, cap * sizeof *k);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == ~0ull)
			continue;
		size_t j = slot_of(m->keys[i], cap);
		while (k[j] != ~0ull)
			j = (j + 1) & (cap - 1);
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = cap;
	return 0;
}

int u64map__put(struct u64map *m, uint64_t key, void *val)
{
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -ENOMEM;
	size_t i = slot_of(key, m->cap);
	while (m->keys[i] != ~0ull && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->keys[i] == ~0ull)
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

/* ---- strpool ------------------------------------------------------------ */
struct strpool {
	struct u64map map; /* hash -> chain of entries */
};
struct strent {
	struct strent *next;
	char s[];
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h == ~0ull ? 0 : h;
}

struct strpool *strpool__new(void)
{
	struct strpool *p = calloc(1, sizeof *p);
	if (!p)
		abort();
	u64map__init(&p->map);
	return p;
}

void strpool__free(struct strpool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->map.cap; i++) {
		if (p->map.keys[i] == ~0ull)
			continue;
		for (struct strent *e = p->map.vals[i], *nx; e; e = nx) {
			nx = e->next;
			free(e);
		}
	}
	u64map__free(&p->map);
	free(p);
}

const char *strpool__get(struct strpool *p, const char *s)
{
	if (!s)
		return NULL;
	uint64_t h = str_hash(s);
	struct strent *head = u64map__get(&p->map, h);
	for (struct strent *e = head; e; e = e->next)
		if (strcmp(e->s, s) == 0)
			return e->s;
	size_t len = strlen(s);
	struct strent *e = malloc(sizeof *e + len + 1);
	if (!e)
		abort();
	memcpy(e->s, s, len + 1);
	e->next = head;
	if (u64map__put(&p->map, h, e) < 0)
		abort();
	return e->s;
}
