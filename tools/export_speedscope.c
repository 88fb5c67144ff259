/* tools/export_speedscope.c - speedscope's JSON file format.
 *
 * The format of https://www.speedscope.app/file-format-schema.json (the
 * schema speedscope publishes; its source is src/lib/file-format-spec.ts):
 *   { "$schema", "shared": { "frames": [ {name, file?, line?} ] },
 *     "profiles": [ { "type": "sampled", name, unit, startValue, endValue,
 *                     "samples": [[frame, ...], ...], "weights": [...] } ],
 *     "name", "activeProfileIndex", "exporter" }
 * One profile per rank when MPI ran, else one per thread when there are
 * several (--split changes it); each call-tree node with a nonzero self value
 * is one "sample": its stack (frame indices, outermost first) weighted by the
 * node's self time in nanoseconds (unit "nanoseconds"), or by its samples
 * (--value samples, unit "none").  Inlined frames are frames of their own
 * named "NAME [inlined]".
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/export.h"

struct ss_group {
	int key;
	char name[160];
	struct hp_tnode **roots;
	size_t n;
};

struct ss {
	FILE *out;
	enum export_value v;
	struct export_map fmap; /* (fn, inlined) -> frame index + 1 */
	const struct hp_tnode **frames; /* a node naming each frame */
	size_t nframes, fcap;
	uint32_t *fidx;         /* frame index per depth */
	size_t dcap;
	double *w;              /* weights of the profile being written */
	size_t nw, wcap;
	double sum;
	int first;
};

static int64_t frame_of(struct ss *s, const struct hp_tnode *n)
{
	uintptr_t k[2] = {(uintptr_t)n->fn, (n->flags & HP_T_INLINED) ? 1u : 0u};
	int isnew;
	uint64_t *v = export__map_get(&s->fmap, export__hash(k, sizeof(k), 3) >> 1, &isnew);
	if (!v)
		return -ENOMEM;
	if (!isnew) {
		const struct hp_tnode *f = s->frames[*v - 1];
		if (f->fn == n->fn && (f->flags & HP_T_INLINED) == (n->flags & HP_T_INLINED))
			return (int64_t)*v - 1;
		/* 64-bit collision: a linear search keeps the result right. */
		for (size_t i = 0; i < s->nframes; i++)
			if (s->frames[i]->fn == n->fn &&
			    (s->frames[i]->flags & HP_T_INLINED) == (n->flags & HP_T_INLINED))
				return (int64_t)i;
	}
	if (s->nframes == s->fcap) {
		size_t cap = s->fcap ? s->fcap * 2 : 256;
		const struct hp_tnode **f = realloc(s->frames, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->frames = f;
		s->fcap = cap;
	}
	s->frames[s->nframes] = n;
	if (isnew)
		*v = s->nframes + 1;
	return (int64_t)s->nframes++;
}

static double ss_value(struct ss *s, const struct hp_tnode *n)
{
	double v = export__self(n, s->v);
	if (s->v == EXPORT_V_TIME)
		v = (double)llround(v * 1e9);
	return v > 0 ? v : 0;
}

/* First pass: assign frames (so the shared table is written first). */
static int frames_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	(void)path;
	(void)depth;
	int64_t f = frame_of(arg, n);
	return f < 0 ? (int)f : 0;
}

static int samples_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct ss *s = arg;
	(void)path;
	if ((size_t)depth > s->dcap) {
		size_t cap = s->dcap ? s->dcap * 2 : 128;
		uint32_t *f = realloc(s->fidx, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->fidx = f;
		s->dcap = cap;
	}
	int64_t fi = frame_of(s, n);
	if (fi < 0)
		return (int)fi;
	s->fidx[depth - 1] = (uint32_t)fi;
	double v = ss_value(s, n);
	if (v <= 0)
		return 0;
	if (s->nw == s->wcap) {
		size_t cap = s->wcap ? s->wcap * 2 : 4096;
		double *w = realloc(s->w, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		s->w = w;
		s->wcap = cap;
	}
	s->w[s->nw++] = v;
	s->sum += v;
	fputs(s->first ? "[" : ",[", s->out);
	s->first = 0;
	for (int i = 0; i < depth; i++) {
		if (i)
			putc_unlocked(',', s->out);
		export__put_u64(s->out, s->fidx[i]);
	}
	putc_unlocked(']', s->out);
	return 0;
}

static int write_profile(struct ss *s, const char *name, struct hp_tnode *root)
{
	FILE *out = s->out;
	fputs("{\"type\":\"sampled\",\"name\":", out);
	export__json_str(out, name);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[",
		s->v == EXPORT_V_TIME ? "nanoseconds" : "none");
	s->nw = 0;
	s->sum = 0;
	s->first = 1;
	int rc = export__walk(root, samples_pre, NULL, s);
	if (rc < 0)
		return rc;
	fputs("],\"weights\":[", out);
	for (size_t i = 0; i < s->nw; i++) {
		if (i)
			putc_unlocked(',', out);
		export__json_num(out, s->w[i], 15);
	}
	fputs("],\"endValue\":", out);
	export__json_num(out, s->sum, 15);
	putc_unlocked('}', out);
	return 0;
}

static void group_name(struct hp_model *m, const struct hp_threadinfo *ti,
		       enum export_split split, char *buf, size_t len)
{
	int node = export__thread_node(m, ti);
	const char *what = ti->rank >= 0 ? "rank" : "process";
	if (split == EXPORT_SPLIT_RANK)
		snprintf(buf, len, "%s %d", what, node);
	else
		snprintf(buf, len, "%s %d thread %d (tid %d)", what, node, ti->index, ti->tid);
}

int export__speedscope(struct hp_model *m, const struct export_opts *o, FILE *out,
		       char *err, size_t errlen)
{
	struct ss s = {.out = out, .v = o->value};
	struct ss_group *g = NULL;
	size_t ng = 0;
	int rc = 0;
	enum export_split split = o->split;

	if (s.v == EXPORT_V_DEFAULT)
		s.v = EXPORT_V_TIME;
	if (s.v == EXPORT_V_CALLS) {
		snprintf(err, errlen, "speedscope: --value calls is not a weight of time; "
			 "use --value time or samples");
		return -EINVAL;
	}
	size_t nth;
	struct hp_threadinfo **th = export__threads(m, &nth);
	if (!th)
		return -ENOMEM;
	if (split == EXPORT_SPLIT_AUTO) {
		int mpi = 0;
		for (size_t i = 0; i < nth; i++)
			mpi |= th[i]->rank >= 0;
		split = mpi ? EXPORT_SPLIT_RANK : nth > 1 ? EXPORT_SPLIT_THREAD : EXPORT_SPLIT_NONE;
	}

	/* Group the selected threads. */
	g = calloc(nth + 1, sizeof(*g));
	if (!g) {
		free(th);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nth; i++) {
		struct hp_threadinfo *ti = th[i];
		int node = export__thread_node(m, ti);
		if ((o->rank >= 0 && node != o->rank) || (o->thread >= 0 && ti->index != o->thread))
			continue;
		if (!ti->root)
			continue;
		int key = split == EXPORT_SPLIT_RANK ? node
			  : split == EXPORT_SPLIT_THREAD ? (int)i : 0;
		size_t k;
		for (k = 0; k < ng && g[k].key != key; k++)
			;
		if (k == ng) {
			g[ng].key = key;
			g[ng].roots = calloc(nth, sizeof(struct hp_tnode *));
			if (!g[ng].roots) {
				rc = -ENOMEM;
				goto out;
			}
			if (split == EXPORT_SPLIT_NONE)
				snprintf(g[ng].name, sizeof(g[ng].name), "%s",
					 m->program ? m->program : "hyprof");
			else
				group_name(m, ti, split, g[ng].name, sizeof(g[ng].name));
			ng++;
		}
		g[k].roots[g[k].n++] = ti->root;
	}
	if (ng == 0 && o->rank < 0 && o->thread < 0 && m->root) {
		/* A model without per-thread trees: the merged tree alone. */
		g[0].roots = calloc(1, sizeof(struct hp_tnode *));
		if (!g[0].roots) {
			rc = -ENOMEM;
			goto out;
		}
		g[0].roots[0] = m->root;
		g[0].n = 1;
		snprintf(g[0].name, sizeof(g[0].name), "%s", m->program ? m->program : "hyprof");
		ng = 1;
	}
	if (ng == 0) {
		struct export_tree t;
		rc = export__select(m, o->rank, o->thread, &t, err, errlen);
		if (rc == 0) {
			export__tree_free(&t);
			snprintf(err, errlen, "no thread tree matches the selection");
			rc = -ENOENT;
		}
		goto out;
	}
	if (export__map_init(&s.fmap, 1024) < 0) {
		rc = -ENOMEM;
		goto out;
	}

	/* Trees: the merged model tree when nothing is split or selected. */
	struct export_tree *trees = calloc(ng, sizeof(*trees));
	if (!trees) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < ng && !rc; k++) {
		if (split == EXPORT_SPLIT_NONE && o->rank < 0 && o->thread < 0 && m->root)
			trees[k].root = m->root;
		else if (g[k].n == 1)
			trees[k].root = g[k].roots[0];
		else
			rc = export__merge(g[k].roots, g[k].n, &trees[k]);
	}
	for (size_t k = 0; k < ng && !rc; k++)
		rc = export__walk(trees[k].root, frames_pre, NULL, &s);
	if (rc) {
		snprintf(err, errlen, "out of memory writing the speedscope profile");
		goto out_trees;
	}

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",", out);
	fputs("\"exporter\":\"hyprof " HYPROF_VERSION "\",\"name\":", out);
	export__json_str(out, m->program ? m->program : "hyprof");
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < s.nframes; i++) {
		const struct hp_tnode *n = s.frames[i];
		const struct hp_func *fn = n->fn;
		if (i)
			putc_unlocked(',', out);
		fputs("{\"name\":", out);
		if (n->flags & HP_T_INLINED) {
			char buf[1024];
			snprintf(buf, sizeof(buf), "%s [inlined]", export__name(n));
			export__json_str(out, buf);
		} else {
			export__json_str(out, export__name(n));
		}
		if (fn && fn->file && *fn->file) {
			fputs(",\"file\":", out);
			export__json_str(out, fn->file);
		}
		if (fn && fn->line > 0)
			fprintf(out, ",\"line\":%d", fn->line);
		putc_unlocked('}', out);
	}
	fputs("]},\"profiles\":[", out);
	for (size_t k = 0; k < ng && !rc; k++) {
		if (k)
			putc_unlocked(',', out);
		rc = write_profile(&s, g[k].name, trees[k].root);
	}
	fputs("]}\n", out);
	if (rc)
		snprintf(err, errlen, "out of memory writing the speedscope profile");
out_trees:
	for (size_t k = 0; k < ng; k++)
		export__tree_free(&trees[k]);
	free(trees);
out:
	/* every group allocated (nth + 1, unused ones NULL): ng + 1 read past
	 * the array when a model without thread trees took group 0 */
	for (size_t k = 0; k < nth + 1 && g; k++)
		free(g[k].roots);
	free(g);
	free(th);
	export__map_free(&s.fmap);
	free(s.frames);
	free(s.fidx);
	free(s.w);
	return rc;
}
