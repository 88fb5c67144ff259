/* tools/export_pprof.c - pprof's gzipped profile.proto.
 *
 * Encoded with protobuf-c from tools/proto/profile.proto and compressed with
 * zlib (gzip wrapper, level 1: on a profile of a million call paths the
 * default level took most of the time for a file 10-15% smaller).  The profile is written as a stream: a protobuf
 * message is the concatenation of its fields, so the Profile is packed as a
 * sequence of Profile messages each holding a part (the sample types, then
 * one message per sample, then mappings, locations in batches, functions,
 * the string table and the scalars).  Every byte comes from protobuf-c; no
 * list of samples is kept in memory.
 *
 * Mapping of the model (docs/cmd-export.md has the full table):
 *   sample_type  samples/count, time/nanoseconds (default_sample_type: the
 *                primary metric), calls/count when probes ran, and in
 *                measured mode raw_time/nanoseconds (before compensation)
 *                and sampled_time/nanoseconds;
 *   sample       one per call-tree node with a nonzero self value, its
 *                stack leaf first; values are the node's own (self) values,
 *                so pprof's flat = self and cum = inclusive;
 *   location     one per physical frame: a non-inlined node and the inlined
 *                nodes below it on the path; line[] lists the innermost
 *                inlined function first and the real function last, each with
 *                the line it was executing (the call-site line of the next
 *                frame; 0 at the leaf, where the model keeps no line);
 *   mapping      one per module, with the address range of the first process
 *                that loaded it (mapping[0] = the main program);
 *   function     one per function: name, file, first line.
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <protobuf-c/protobuf-c.h>

#include "profile.pb-c.h"
#include "tools/export.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/* ---- gzip sink for protobuf-c ------------------------------------------- */

struct gzsink {
	ProtobufCBuffer base; /* first: protobuf-c calls base.append */
	z_stream zs;
	FILE *out;
	int err;              /* first -errno */
	size_t used;
	uint8_t in[1 << 16];  /* staging: deflate sees large chunks */
	uint8_t outbuf[1 << 16];
};

static int gz_deflate(struct gzsink *g, int flush)
{
	g->zs.next_in = g->in;
	g->zs.avail_in = (uInt)g->used;
	do {
		g->zs.next_out = g->outbuf;
		g->zs.avail_out = sizeof(g->outbuf);
		int zr = deflate(&g->zs, flush);
		if (zr == Z_STREAM_ERROR)
			return g->err = -EIO;
		size_t have = sizeof(g->outbuf) - g->zs.avail_out;
		if (have && fwrite(g->outbuf, 1, have, g->out) != have)
			return g->err = -EIO;
	} while (g->zs.avail_out == 0);
	g->used = 0;
	return 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzsink *g = (struct gzsink *)b;
	while (len && !g->err) {
		size_t n = sizeof(g->in) - g->used;
		if (n > len)
			n = len;
		memcpy(g->in + g->used, data, n);
		g->used += n;
		data += n;
		len -= n;
		if (g->used == sizeof(g->in))
			gz_deflate(g, Z_NO_FLUSH);
	}
}

static void gz_pack(struct gzsink *g, const PbProfile *p)
{
	if (!g->err)
		protobuf_c_message_pack_to_buffer(&p->base, &g->base);
}

/* ---- string table ------------------------------------------------------- */

struct strtab {
	struct export_map map; /* hash -> index + 1 */
	const char **s;
	size_t n, cap;
};

static int64_t str_index(struct strtab *t, const char *s)
{
	if (!s || !*s)
		return 0;
	for (uint64_t seed = 1;; seed++) {
		int isnew;
		uint64_t h = export__hash(s, strlen(s), seed);
		if (h == ~(uint64_t)0)
			h = 0;
		uint64_t *v = export__map_get(&t->map, h, &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew) {
			if (strcmp(t->s[*v - 1], s) == 0)
				return (int64_t)(*v - 1);
			continue; /* hash collision: try the next seed */
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 256;
			const char **ns = realloc(t->s, cap * sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			t->s = ns;
			t->cap = cap;
		}
		t->s[t->n] = s;
		*v = ++t->n;
		return (int64_t)(t->n - 1);
	}
}

/* ---- the export state ----------------------------------------------------- */

struct ploc {             /* a location, before encoding */
	uint64_t addr;
	uint32_t line0;       /* first entry in pprof.lines */
	uint32_t nlines;
	uint32_t map;         /* mapping index + 1, 0 = none */
};

struct pfunc {
	const struct hp_func *fn;
};

struct pmap {
	const char *module;   /* module name as in hp_func */
	const char *path;     /* full path when the profile has it */
	uint64_t lo, hi;      /* from the module record, or from addresses */
	int has_range;
	int is_main;
};

struct pprof {
	struct hp_model *m;
	struct gzsink *g;
	struct strtab st;
	int nval;
	int has_calls, measured;

	struct export_map fmap;  /* hp_func* -> function index + 1 */
	uint32_t *fbyid;         /* the same by hp_func.id when m->funcs[id] is it */
	struct pfunc *funcs;
	size_t nfuncs, fcap;

	struct export_map mmap;  /* module name hash -> mapping index + 1 */
	struct pmap *maps;
	size_t nmaps, mcap;

	struct export_map lmap;  /* location key -> location index + 1 */
	struct ploc *locs;
	size_t nlocs, lcap;
	uint32_t *lines;         /* pairs: function index + 1, line */
	size_t nlines, lncap;

	/* per depth while walking */
	uint32_t *closed;        /* location ids of closed frames, outermost first */
	int *cnt, *gstart;
	size_t dcap;
	uint64_t *stack;
	size_t scap;
	uint64_t nsamples;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static int64_t func_id(struct pprof *pp, const struct hp_func *fn)
{
	int isnew;
	uint64_t slot, *v = &slot;
	int direct = fn && pp->fbyid && fn->id < pp->m->nfuncs && pp->m->funcs[fn->id] == fn;
	if (direct) {
		if (pp->fbyid[fn->id])
			return pp->fbyid[fn->id];
	} else {
		v = export__map_get(&pp->fmap, (uint64_t)(uintptr_t)fn, &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew)
			return (int64_t)*v;
	}
	if (grow((void **)&pp->funcs, &pp->fcap, pp->nfuncs + 1, sizeof(*pp->funcs)) < 0)
		return -ENOMEM;
	pp->funcs[pp->nfuncs++].fn = fn;
	if (direct)
		pp->fbyid[fn->id] = (uint32_t)pp->nfuncs;
	else
		*v = pp->nfuncs;
	return (int64_t)pp->nfuncs;
}

/* Mapping index + 1 of a function's module (0 when unknown). */
static int64_t map_id(struct pprof *pp, const struct hp_func *fn)
{
	const char *mod = fn ? fn->module : NULL;
	if (!mod || !*mod)
		return 0;
	for (uint64_t seed = 1;; seed++) {
		int isnew;
		uint64_t *v = export__map_get(&pp->mmap, export__hash(mod, strlen(mod), seed) >> 1,
					      &isnew);
		if (!v)
			return -ENOMEM;
		if (!isnew) {
			if (strcmp(pp->maps[*v - 1].module, mod) == 0)
				return (int64_t)*v;
			continue;
		}
		if (grow((void **)&pp->maps, &pp->mcap, pp->nmaps + 1, sizeof(*pp->maps)) < 0)
			return -ENOMEM;
		struct pmap *mp = &pp->maps[pp->nmaps];
		memset(mp, 0, sizeof(*mp));
		mp->module = mod;
		/* The first process that has the module gives its path and range. */
		for (size_t i = 0; i < pp->m->nprofs && !mp->path; i++) {
			const struct hp_prof *pr = pp->m->profs[i];
			for (size_t k = 0; pr && k < pr->nmodules; k++) {
				const struct hp_module *md = &pr->modules[k];
				if (md->path && strcmp(base_name(md->path), mod) == 0) {
					mp->path = md->path;
					mp->lo = md->rec.lo;
					mp->hi = md->rec.hi;
					mp->has_range = md->rec.hi > md->rec.lo;
					mp->is_main = (md->rec.flags & 1) != 0;
					break;
				}
			}
		}
		if (!mp->path && pp->m->program && strcmp(base_name(pp->m->program), mod) == 0)
			mp->is_main = 1;
		*v = ++pp->nmaps;
		return (int64_t)*v;
	}
}

/* Location id (1-based) of the frame made of path[s..e]; the line of member j
 * is path[j+1]->line, or 0 for the leaf (j == leaf). */
static int64_t loc_id(struct pprof *pp, struct hp_tnode **path, int s, int e, int leaf)
{
	uint32_t tmp[2 * 64];
	uint32_t *key = tmp;
	int nl = e - s + 1;
	uint64_t addr = 0;

	if (nl > 64 && !(key = malloc(sizeof(uint32_t) * 2 * (size_t)nl)))
		return -ENOMEM;
	/* innermost first (pprof's order) */
	for (int j = e, k = 0; j >= s; j--, k++) {
		int64_t f = func_id(pp, path[j]->fn);
		if (f < 0) {
			if (key != tmp)
				free(key);
			return f;
		}
		key[2 * k] = (uint32_t)f;
		key[2 * k + 1] = j == leaf ? 0 : (uint32_t)path[j + 1]->line;
		if (!addr)
			addr = path[j]->pc;
	}
	uint64_t h = export__hash(key, sizeof(uint32_t) * 2 * (size_t)nl, addr) >> 1;
	int64_t rc;
	for (;;) {
		int isnew;
		uint64_t *v = export__map_get(&pp->lmap, h, &isnew);
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		if (!isnew) {
			struct ploc *l = &pp->locs[*v - 1];
			if (l->addr == addr && l->nlines == (uint32_t)nl &&
			    memcmp(&pp->lines[l->line0], key, sizeof(uint32_t) * 2 * (size_t)nl) == 0) {
				rc = (int64_t)*v;
				break;
			}
			h = (h * 31 + 1) >> 1; /* collision: probe another key */
			continue;
		}
		if (grow((void **)&pp->locs, &pp->lcap, pp->nlocs + 1, sizeof(*pp->locs)) < 0 ||
		    grow((void **)&pp->lines, &pp->lncap, pp->nlines + 2 * (size_t)nl,
			 sizeof(*pp->lines)) < 0) {
			rc = -ENOMEM;
			break;
		}
		struct ploc *l = &pp->locs[pp->nlocs];
		l->addr = addr;
		l->line0 = (uint32_t)pp->nlines;
		l->nlines = (uint32_t)nl;
		int64_t mid = map_id(pp, path[s]->fn);
		if (mid < 0) {
			rc = mid;
			break;
		}
		l->map = (uint32_t)mid;
		memcpy(&pp->lines[pp->nlines], key, sizeof(uint32_t) * 2 * (size_t)nl);
		pp->nlines += 2 * (size_t)nl;
		*v = ++pp->nlocs;
		rc = (int64_t)*v;
		break;
	}
	if (key != tmp)
		free(key);
	return rc;
}

static int pprof_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct pprof *pp = arg;
	int i = depth - 1;

	if ((size_t)depth + 1 > pp->dcap) {
		size_t cap = pp->dcap ? pp->dcap * 2 : 128;
		uint32_t *c = realloc(pp->closed, cap * sizeof(*c));
		if (c)
			pp->closed = c;
		int *ct = c ? realloc(pp->cnt, cap * sizeof(*ct)) : NULL;
		if (ct)
			pp->cnt = ct;
		int *gs = ct ? realloc(pp->gstart, cap * sizeof(*gs)) : NULL;
		if (!gs)
			return -ENOMEM;
		pp->gstart = gs;
		pp->dcap = cap;
	}
	if (i == 0) {
		pp->cnt[0] = 0;
		pp->gstart[0] = 0;
	} else if (n->flags & HP_T_INLINED) {
		pp->cnt[i] = pp->cnt[i - 1];
		pp->gstart[i] = pp->gstart[i - 1];
	} else {
		int64_t id = loc_id(pp, path, pp->gstart[i - 1], i - 1, -1);
		if (id < 0)
			return (int)id;
		pp->closed[pp->cnt[i - 1]] = (uint32_t)id;
		pp->cnt[i] = pp->cnt[i - 1] + 1;
		pp->gstart[i] = i;
	}

	int64_t val[5] = {0};
	int k = 0;
	val[k++] = llround(n->samples);
	val[k++] = llround(n->self * 1e9);
	if (pp->has_calls)
		val[k++] = n->calls > 0 ? n->calls : 0;
	if (pp->measured) {
		val[k++] = llround(n->self_raw * 1e9);
		val[k++] = llround(n->sampled_self * 1e9);
	}
	int any = 0;
	for (int j = 0; j < k; j++)
		any |= val[j] != 0;
	if (!any)
		return 0;

	int64_t leaf = loc_id(pp, path, pp->gstart[i], i, i);
	if (leaf < 0)
		return (int)leaf;
	size_t ns = 1 + (size_t)pp->cnt[i];
	if (grow((void **)&pp->stack, &pp->scap, ns, sizeof(*pp->stack)) < 0)
		return -ENOMEM;
	pp->stack[0] = (uint64_t)leaf;
	for (int j = 0; j < pp->cnt[i]; j++)
		pp->stack[1 + j] = pp->closed[pp->cnt[i] - 1 - j];

	PbSample s = PERFTOOLS__PROFILES__SAMPLE__INIT;
	PbSample *sp = &s;
	PbProfile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	s.n_location_id = ns;
	s.location_id = pp->stack;
	s.n_value = (size_t)k;
	s.value = val;
	p.n_sample = 1;
	p.sample = &sp;
	gz_pack(pp->g, &p);
	pp->nsamples++;
	return pp->g->err;
}

static int emit_header(struct pprof *pp, PbValueType *vt, PbValueType **vtp)
{
	static const char *const names[5][2] = {
		{"samples", "count"},          {"time", "nanoseconds"},
		{"calls", "count"},            {"raw_time", "nanoseconds"},
		{"sampled_time", "nanoseconds"},
	};
	int k = 0;
	for (int j = 0; j < 5; j++) {
		if (j == 2 && !pp->has_calls)
			continue;
		if (j >= 3 && !pp->measured)
			continue;
		perftools__profiles__value_type__init(&vt[k]);
		int64_t a = str_index(&pp->st, names[j][0]), b = str_index(&pp->st, names[j][1]);
		if (a < 0 || b < 0)
			return -ENOMEM;
		vt[k].type = a;
		vt[k].unit = b;
		vtp[k] = &vt[k];
		k++;
	}
	pp->nval = k;
	PbProfile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	p.n_sample_type = (size_t)k;
	p.sample_type = vtp;
	gz_pack(pp->g, &p);
	return pp->g->err;
}

static int emit_tables(struct pprof *pp)
{
	PbProfile p;
	int rc = 0;

	/* Mappings: the main program first. */
	size_t *order = malloc((pp->nmaps + 1) * sizeof(*order));
	uint32_t *mapid = malloc((pp->nmaps + 1) * sizeof(*mapid));
	PbMapping *mv = calloc(pp->nmaps + 1, sizeof(*mv));
	PbMapping **mvp = calloc(pp->nmaps + 1, sizeof(*mvp));
	if (!order || !mapid || !mv || !mvp) {
		rc = -ENOMEM;
		goto out;
	}
	size_t no = 0;
	for (size_t i = 0; i < pp->nmaps; i++)
		if (pp->maps[i].is_main)
			order[no++] = i;
	for (size_t i = 0; i < pp->nmaps; i++)
		if (!pp->maps[i].is_main)
			order[no++] = i;
	/* Ranges not known from a module record: the addresses seen. */
	for (size_t i = 0; i < pp->nlocs; i++) {
		struct ploc *l = &pp->locs[i];
		if (!l->map || !l->addr)
			continue;
		struct pmap *mp = &pp->maps[l->map - 1];
		if (mp->has_range)
			continue;
		if (!mp->lo || l->addr < mp->lo)
			mp->lo = l->addr;
		if (l->addr + 1 > mp->hi)
			mp->hi = l->addr + 1;
	}
	for (size_t k = 0; k < no; k++) {
		struct pmap *mp = &pp->maps[order[k]];
		mapid[order[k]] = (uint32_t)k + 1;
		perftools__profiles__mapping__init(&mv[k]);
		mv[k].id = k + 1;
		mv[k].memory_start = mp->lo;
		mv[k].memory_limit = mp->hi;
		int64_t fname = str_index(&pp->st, mp->path ? mp->path : mp->module);
		if (fname < 0) {
			rc = -ENOMEM;
			goto out;
		}
		mv[k].filename = fname;
		mv[k].has_functions = 1;
		mv[k].has_filenames = 1;
		mv[k].has_line_numbers = 1;
		mv[k].has_inline_frames = 1;
		mvp[k] = &mv[k];
	}
	perftools__profiles__profile__init(&p);
	p.n_mapping = no;
	p.mapping = mvp;
	gz_pack(pp->g, &p);

	/* Locations, in batches. */
	enum { BATCH = 4096 };
	PbLocation *lv = calloc(BATCH, sizeof(*lv));
	PbLocation **lvp = calloc(BATCH, sizeof(*lvp));
	PbLine *linev = NULL;
	PbLine **linevp = NULL;
	size_t lvcap = 0;
	if (!lv || !lvp) {
		free(lv);
		free(lvp);
		rc = -ENOMEM;
		goto out;
	}
	for (size_t b = 0; b < pp->nlocs && !rc; b += BATCH) {
		size_t nb = pp->nlocs - b < BATCH ? pp->nlocs - b : BATCH, nlin = 0;
		for (size_t i = 0; i < nb; i++)
			nlin += pp->locs[b + i].nlines;
		if (nlin > lvcap) {
			free(linev);
			free(linevp);
			lvcap = nlin * 2;
			linev = malloc(lvcap * sizeof(*linev));
			linevp = malloc(lvcap * sizeof(*linevp));
			if (!linev || !linevp) {
				rc = -ENOMEM;
				break;
			}
		}
		size_t li = 0;
		for (size_t i = 0; i < nb; i++) {
			struct ploc *l = &pp->locs[b + i];
			perftools__profiles__location__init(&lv[i]);
			lv[i].id = b + i + 1;
			lv[i].mapping_id = l->map ? mapid[l->map - 1] : 0;
			lv[i].address = l->addr;
			lv[i].n_line = l->nlines;
			lv[i].line = &linevp[li];
			for (uint32_t j = 0; j < l->nlines; j++, li++) {
				perftools__profiles__line__init(&linev[li]);
				linev[li].function_id = pp->lines[l->line0 + 2 * j];
				linev[li].line = (int32_t)pp->lines[l->line0 + 2 * j + 1];
				linevp[li] = &linev[li];
			}
			lvp[i] = &lv[i];
		}
		perftools__profiles__profile__init(&p);
		p.n_location = nb;
		p.location = lvp;
		gz_pack(pp->g, &p);
	}
	free(lv);
	free(lvp);
	free(linev);
	free(linevp);
	if (rc)
		goto out;

	/* Functions. */
	PbFunction *fv = calloc(pp->nfuncs + 1, sizeof(*fv));
	PbFunction **fvp = calloc(pp->nfuncs + 1, sizeof(*fvp));
	if (!fv || !fvp) {
		free(fv);
		free(fvp);
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < pp->nfuncs; i++) {
		const struct hp_func *fn = pp->funcs[i].fn;
		perftools__profiles__function__init(&fv[i]);
		fv[i].id = i + 1;
		const char *name = fn && fn->name && *fn->name ? fn->name : "[unknown]";
		int64_t a = str_index(&pp->st, name);
		int64_t b = str_index(&pp->st, fn ? fn->file : NULL);
		if (a < 0 || b < 0) {
			rc = -ENOMEM;
			break;
		}
		fv[i].name = a;
		fv[i].system_name = a;
		fv[i].filename = b;
		fv[i].start_line = fn ? fn->line : 0;
		fvp[i] = &fv[i];
	}
	if (!rc) {
		perftools__profiles__profile__init(&p);
		p.n_function = pp->nfuncs;
		p.function = fvp;
		gz_pack(pp->g, &p);
	}
	free(fv);
	free(fvp);
out:
	free(order);
	free(mapid);
	free(mv);
	free(mvp);
	return rc ? rc : pp->g->err;
}

static int emit_trailer(struct pprof *pp)
{
	struct hp_model *m = pp->m;
	PbProfile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	PbValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	char buf[512];
	char *comments[64];
	int64_t cidx[64];
	int nc = 0, rc = 0;

	snprintf(buf, sizeof(buf), "hyprof %s: program %s, mode %s, source %s",
#ifdef HYPROF_VERSION
		 HYPROF_VERSION,
#else
		 "?",
#endif
		 m->program ? m->program : "?", m->mode ? m->mode : "?",
		 m->source ? m->source : "?");
	comments[nc++] = strdup(buf);
	snprintf(buf, sizeof(buf), "time: %s",
		 pp->measured ? "measured time after compensation (raw_time: before)"
			      : "sampled time (period converted to nanoseconds)");
	comments[nc++] = strdup(buf);
	if (pp->has_calls)
		comments[nc++] = strdup("calls: probe calls of each call path (read as flat)");
	for (size_t i = 0; i < m->cost.n && nc < 60; i++) {
		const struct hp_kv *kv = &m->cost.v[i];
		if (kv->type == HP_KV_F64)
			snprintf(buf, sizeof(buf), "cost.%s = %.9g s", kv->key, kv->d);
		else if (kv->type == HP_KV_STR)
			snprintf(buf, sizeof(buf), "cost.%s = %s", kv->key, kv->s ? kv->s : "");
		else if (kv->type == HP_KV_I64)
			snprintf(buf, sizeof(buf), "cost.%s = %lld", kv->key, (long long)kv->i);
		else
			snprintf(buf, sizeof(buf), "cost.%s = %llu", kv->key,
				 (unsigned long long)kv->u);
		comments[nc++] = strdup(buf);
	}
	if (m->join_note && nc < 63)
		comments[nc++] = strdup(m->join_note);
	for (int i = 0; i < nc; i++) {
		if (!comments[i] || (cidx[i] = str_index(&pp->st, comments[i])) < 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	int64_t a = str_index(&pp->st, m->source && *m->source ? m->source : "cpu");
	int64_t b = str_index(&pp->st, m->unit && *m->unit ? m->unit : "nanoseconds");
	int64_t d = str_index(&pp->st, "time");
	if (a < 0 || b < 0 || d < 0) {
		rc = -ENOMEM;
		goto out;
	}
	pt.type = a;
	pt.unit = b;
	p.period_type = &pt;
	p.period = (int64_t)m->period;
	p.duration_nanos = llround(m->duration * 1e9);
	p.n_comment = (size_t)nc;
	p.comment = cidx;
	p.default_sample_type = d;
	/* The string table last: every index above is assigned by now. */
	p.n_string_table = pp->st.n;
	p.string_table = (char **)pp->st.s;
	gz_pack(pp->g, &p);
	rc = pp->g->err;
out:
	for (int i = 0; i < nc; i++)
		free(comments[i]);
	return rc;
}

int export__pprof(struct hp_model *m, const struct export_opts *o, FILE *out,
		  char *err, size_t errlen)
{
	struct export_tree t;
	struct pprof pp;
	int rc;

	rc = export__select(m, o->rank, o->thread, &t, err, errlen);
	if (rc < 0)
		return rc;
	memset(&pp, 0, sizeof(pp));
	pp.m = m;
	pp.has_calls = export__has_calls(t.root);
	pp.measured = export__measured(m);
	if (m->funcs && m->nfuncs)
		pp.fbyid = calloc(m->nfuncs, sizeof(*pp.fbyid)); /* NULL: the map alone */
	pp.g = calloc(1, sizeof(*pp.g));
	if (!pp.g || export__map_init(&pp.st.map, 1024) < 0 ||
	    export__map_init(&pp.fmap, 1024) < 0 || export__map_init(&pp.mmap, 64) < 0 ||
	    export__map_init(&pp.lmap, 4096) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	pp.g->base.append = gz_append;
	pp.g->out = out;
	if (deflateInit2(&pp.g->zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		rc = -ENOMEM;
		goto out;
	}
	/* string_table[0] must be "" */
	pp.st.s = malloc(256 * sizeof(*pp.st.s));
	if (!pp.st.s) {
		rc = -ENOMEM;
		goto out_z;
	}
	pp.st.cap = 256;
	pp.st.s[pp.st.n++] = "";

	PbValueType vt[5];
	PbValueType *vtp[5];
	rc = emit_header(&pp, vt, vtp);
	if (!rc)
		rc = export__walk(t.root, pprof_pre, NULL, &pp);
	if (!rc)
		rc = emit_tables(&pp);
	if (!rc)
		rc = emit_trailer(&pp);
	if (!rc && gz_deflate(pp.g, Z_FINISH) < 0)
		rc = -EIO;
out_z:
	deflateEnd(&pp.g->zs);
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory writing the pprof profile");
	else if (rc < 0)
		snprintf(err, errlen, "writing the pprof profile failed: %s", strerror(-rc));
	export__map_free(&pp.st.map);
	export__map_free(&pp.fmap);
	export__map_free(&pp.mmap);
	export__map_free(&pp.lmap);
	free(pp.st.s);
	free(pp.funcs);
	free(pp.fbyid);
	free(pp.maps);
	free(pp.locs);
	free(pp.lines);
	free(pp.closed);
	free(pp.cnt);
	free(pp.gstart);
	free(pp.stack);
	free(pp.g);
	export__tree_free(&t);
	return rc;
}
