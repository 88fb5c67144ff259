/* tools/export_folded.c - Brendan Gregg's folded stacks.
 *
 * One line per call path with a nonzero value: frames outermost first joined
 * by ';', a space, an integer value:  main;solve;kernel 1234
 * The value is the path's own (self) value: samples by default, or with
 * --value time its primary time in nanoseconds, or with --value calls its
 * probe calls.  Paths whose value rounds to 0 are left out.  Inlined frames
 * carry flamegraph.pl's "_[i]" suffix, hyprof's own code " [hyprof]" (as in
 * the report); ';' and line breaks inside names are
 * replaced ('; ' -> ':', newline -> ' ') so that every line parses.
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/export.h"

struct folded {
	FILE *out;
	enum export_value v;
	char *buf;
	size_t len, cap;
	size_t *off; /* buffer length before the frame at each depth */
	size_t ocap;
	uint64_t lines;
};

static int fold_append(struct folded *f, const char *s, size_t n)
{
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4096;
		while (cap < f->len + n + 1)
			cap *= 2;
		char *b = realloc(f->buf, cap);
		if (!b)
			return -ENOMEM;
		f->buf = b;
		f->cap = cap;
	}
	memcpy(f->buf + f->len, s, n);
	f->len += n;
	return 0;
}

static int folded_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct folded *f = arg;
	(void)path;
	if ((size_t)depth >= f->ocap) {
		size_t cap = f->ocap ? f->ocap * 2 : 128;
		size_t *o = realloc(f->off, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		f->off = o;
		f->ocap = cap;
	}
	/* Truncate to the parent's path, then append this frame. */
	f->len = depth > 1 ? f->off[depth - 1] : 0;
	if (depth > 1 && fold_append(f, ";", 1) < 0)
		return -ENOMEM;
	size_t start = f->len;
	const char *name = export__name(n);
	if (fold_append(f, name, strlen(name)) < 0)
		return -ENOMEM;
	for (size_t i = start; i < f->len; i++) {
		if (f->buf[i] == ';')
			f->buf[i] = ':';
		else if (f->buf[i] == '\n' || f->buf[i] == '\r')
			f->buf[i] = ' ';
	}
	if ((n->flags & HP_T_INLINED) && fold_append(f, "_[i]", 4) < 0)
		return -ENOMEM;
	if (n->fn && n->fn->is_measurement && fold_append(f, " [hyprof]", 9) < 0)
		return -ENOMEM;
	if (depth < (int)f->ocap)
		f->off[depth] = f->len;

	double v = export__self(n, f->v);
	if (f->v == EXPORT_V_TIME)
		v *= 1e9;
	long long iv = llround(v);
	if (iv > 0) {
		fwrite_unlocked(f->buf, 1, f->len, f->out);
		putc_unlocked(' ', f->out);
		export__put_u64(f->out, (uint64_t)iv);
		putc_unlocked('\n', f->out);
		f->lines++;
	}
	return 0;
}

static int samples_pre(struct hp_tnode *n, struct hp_tnode **p, int d, void *arg)
{
	(void)p;
	(void)d;
	*(double *)arg += n->samples;
	return 0;
}

int export__folded(struct hp_model *m, const struct export_opts *o, FILE *out,
		   char *err, size_t errlen)
{
	struct export_tree t;
	int rc = export__select(m, o->rank, o->thread, &t, err, errlen);
	if (rc < 0)
		return rc;

	struct folded f = {.out = out, .v = o->value};
	if (f.v == EXPORT_V_DEFAULT) {
		double s = 0;
		export__walk(t.root, samples_pre, NULL, &s);
		f.v = s > 0 ? EXPORT_V_SAMPLES : EXPORT_V_TIME;
	}
	if (f.v == EXPORT_V_CALLS && !export__has_calls(t.root)) {
		snprintf(err, errlen, "--value calls: no probe ran in this profile (mode %s); "
			 "use --value samples or time", m->mode ? m->mode : "?");
		export__tree_free(&t);
		return -EINVAL;
	}
	rc = export__walk(t.root, folded_pre, NULL, &f);
	if (rc < 0)
		snprintf(err, errlen, "out of memory writing folded stacks");
	free(f.buf);
	free(f.off);
	export__tree_free(&t);
	return rc;
}
