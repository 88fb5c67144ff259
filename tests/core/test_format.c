/* tests/core/test_format.c - the profile file: round trip through the
 * signal-safe writer and the reader, and every kind of damaged input
 * (bad magic, flipped bytes, truncation, lengths and indices that lie,
 * newer versions, random damage behind a valid checksum): the reader must
 * answer with an error and a message, never crash, never hand the tools a
 * tree they cannot walk.
 *
 * Usage: test_format [scratch-dir]   (default: a fresh directory in /tmp) */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/format.h"
#include "treewalk.h"

static char dir[4096];

static char *path_in(const char *name)
{
	static char p[8][4200];
	static int k;
	char *s = p[k++ % 8];
	snprintf(s, sizeof(p[0]), "%s/%s", dir, name);
	return s;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return b;
}

static void spill(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n)
		fprintf(stderr, "cannot write %s\n", path);
	if (f)
		fclose(f);
}

/* Recompute the trailer's checksum, as a file damaged before the writer
 * computed it would have. */
static void fix_crc(uint8_t *b, size_t n)
{
	uint32_t crc = hp_crc32(0, b, n - 32);
	memcpy(b + n - 16, &crc, 4);
}

/* ---- the reference profile ------------------------------------------------------ */

struct ref {
	struct cct t1s, t1p; /* thread 1: sample and probe trees */
	struct cct t2s;      /* thread 2: sample tree; empty probe tree */
	char *bigstr;
	uint8_t ext[300];
};

static const struct hp_module_rec ref_mods[3] = {
	{0x400000, 0x401000, 0x402000, 0, 0, 0, 1},
	{0x7f0000000000ull, 0x7f0000001000ull, 0x7f0000009000ull, 12345, 0, 0, 0},
	{0x7f1000000000ull, 0x7f1000002000ull, 0x7f1000003000ull, 100, 200, 0, 0},
};
static const char *const ref_mod_paths[3] = {"/usr/bin/prog", "/lib/x86_64-linux-gnu/libc.so.6", ""};

static void fill_tree(struct cct *t, uint32_t nodes, uint64_t seed)
{
	cct__init(t, nodes + 16);
	uint64_t x = seed;
	while (t->n < nodes) {
		uint64_t keys[12];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int depth = 1 + (int)(x % 12);
		for (int i = 0; i < depth; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			keys[i] = 0x400000 + (x % 64) * 16;
		}
		uint32_t leaf = cct__insert_path(t, keys, depth);
		struct cct_node *n = &t->nodes[leaf];
		n->samples += 1;
		n->period += x % 1000;
		n->calls += x % 7;
		n->incl += x % 100000;
		n->excl += x % 5000;
		n->incl_comp += x % 90000;
		n->excl_comp += x % 4000;
		n->probes_inside += x % 11;
		n->clamped += x % 2;
		n->skipped += x % 3;
		n->meas_samples += x % 5;
		n->flags |= (uint32_t)(x >> 40) & (CCT_F_PROBE | CCT_F_PARTIAL | CCT_F_FOLDED);
		n->active = (uint32_t)(x % 3);
	}
	/* one fold link */
	if (t->n > 4) {
		t->nodes[t->n - 1].flags |= CCT_F_REDIRECT;
		t->nodes[t->n - 1].target = t->nodes[t->n - 1].parent;
	}
}

static void write_thread(struct hp_writer *w, int64_t tid, const char *name, const struct cct *s,
			 const struct cct *p)
{
	size_t kvlen = hp_kv_size("tid", 8) + hp_kv_size("name", strlen(name)) +
		       hp_kv_size("samples", 8);
	hp_writer_begin(w, HP_SEC_THREAD);
	hp_writer_u32(w, (uint32_t)kvlen);
	hp_writer_kv_i64(w, "tid", tid);
	hp_writer_kv_str(w, "name", name);
	hp_writer_kv_u64(w, "samples", s ? s->n * 3ull : 0);
	hp_writer_u32(w, s ? s->n : 0);
	hp_writer_u32(w, p ? p->n : 0);
	if (s)
		hp_writer_bytes(w, s->nodes, (size_t)s->n * sizeof(struct cct_node));
	if (p)
		hp_writer_bytes(w, p->nodes, (size_t)p->n * sizeof(struct cct_node));
	hp_writer_end(w);
}

/* big: thousands of nodes and a 100 KB string (buffer flushes between a
 * section's header and its end, so lengths are patched with pwrite). */
static int write_ref(const char *path, struct ref *r, int big, uint32_t flags)
{
	struct hp_writer *w = malloc(sizeof(*w));
	int rc = hp_writer_open(w, path, flags);
	if (rc) {
		free(w);
		return rc;
	}
	fill_tree(&r->t1s, big ? 6000 : 12, 1);
	fill_tree(&r->t1p, big ? 3000 : 6, 2);
	fill_tree(&r->t2s, big ? 500 : 3, 3);
	size_t blen = big ? 100000 : 40;
	r->bigstr = malloc(blen + 1);
	for (size_t i = 0; i < blen; i++)
		r->bigstr[i] = (char)('a' + i % 26);
	r->bigstr[blen] = 0;
	for (size_t i = 0; i < sizeof(r->ext); i++)
		r->ext[i] = (uint8_t)(i * 7);

	hp_writer_begin(w, HP_SEC_META);
	hp_writer_kv_str(w, "program", "prog");
	hp_writer_kv_str(w, "empty", "");
	hp_writer_kv_str(w, "big", r->bigstr);
	hp_writer_kv_u64(w, "period", 1000000);
	hp_writer_kv_u64(w, "max_u64", UINT64_MAX);
	hp_writer_kv_i64(w, "rank", -1);
	hp_writer_kv_f64(w, "tsc_hz", 2.5e9);
	hp_writer_kv_f64(w, "neg", -0.125);
	hp_writer_end(w);

	hp_writer_begin(w, HP_SEC_MODULES);
	hp_writer_u32(w, 3);
	for (int i = 0; i < 3; i++) {
		struct hp_module_rec m = ref_mods[i];
		m.path_len = (uint32_t)strlen(ref_mod_paths[i]);
		hp_writer_bytes(w, &m, sizeof(m));
		hp_writer_bytes(w, ref_mod_paths[i], m.path_len);
	}
	hp_writer_end(w);

	hp_writer_begin(w, HP_SEC_REGIONS);
	hp_writer_u32(w, 2);
	struct hp_region_rec g1 = {7, 42, 4, 6}, g2 = {8, 0, 0, 0};
	hp_writer_bytes(w, &g1, sizeof(g1));
	hp_writer_bytes(w, "init", 4);
	hp_writer_bytes(w, "main.c", 6);
	hp_writer_bytes(w, &g2, sizeof(g2));
	hp_writer_end(w);

	write_thread(w, 1234, "main", &r->t1s, &r->t1p);
	write_thread(w, 1235, "worker-1", &r->t2s, NULL);

	hp_writer_begin(w, HP_SEC_CALIB);
	hp_writer_kv_f64(w, "timer_ns.median", 11.5);
	hp_writer_end(w);

	hp_writer_begin(w, 99); /* a section this reader does not know */
	hp_writer_bytes(w, r->ext, sizeof(r->ext));
	hp_writer_end(w);

	hp_writer_begin(w, HP_SEC_COST);
	hp_writer_kv_u64(w, "probe_events", 77);
	/* no end: the next begin closes it */
	hp_writer_begin(w, 100); /* empty section */
	rc = hp_writer_finish(w);
	free(w);
	return rc;
}

static void free_ref(struct ref *r)
{
	cct__destroy(&r->t1s);
	cct__destroy(&r->t1p);
	cct__destroy(&r->t2s);
	free(r->bigstr);
}

static int nodes_equal(const struct cct_node *a, const struct cct *t, uint32_t n)
{
	return n == t->n && memcmp(a, t->nodes, (size_t)n * sizeof(*a)) == 0;
}

static void check_ref(const struct hp_prof *p, const struct ref *r, uint32_t flags)
{
	CHECK(p->version == HP_FORMAT_VERSION && p->flags == flags, "version %u flags %u",
	      p->version, p->flags);
	CHECK(!strcmp(hp_kv_str(&p->meta, "program", ""), "prog"), "program");
	CHECK(!strcmp(hp_kv_str(&p->meta, "empty", "x"), ""), "empty string");
	CHECK(!strcmp(hp_kv_str(&p->meta, "big", ""), r->bigstr), "big string");
	CHECK(hp_kv_u64(&p->meta, "period", 0) == 1000000, "period");
	CHECK(hp_kv_u64(&p->meta, "max_u64", 0) == UINT64_MAX, "max u64");
	CHECK(hp_kv_i64(&p->meta, "rank", 0) == -1, "rank");
	CHECK(hp_kv_f64(&p->meta, "tsc_hz", 0) == 2.5e9, "tsc_hz");
	CHECK(hp_kv_f64(&p->meta, "neg", 0) == -0.125, "neg");
	CHECK(p->meta.n == 8, "meta has %zu keys", p->meta.n);
	/* conversions and defaults */
	CHECK(hp_kv_f64(&p->meta, "period", 0) == 1e6, "u64 read as f64");
	CHECK(hp_kv_u64(&p->meta, "rank", 5) == 5, "negative i64 read as u64 gives the default");
	CHECK(hp_kv_i64(&p->meta, "max_u64", 9) == 9, "huge u64 read as i64 gives the default");
	CHECK(hp_kv_u64(&p->meta, "missing", 3) == 3, "missing key");
	CHECK(!strcmp(hp_kv_str(&p->meta, "period", "d"), "d"), "number read as string");
	CHECK(hp_kv_get(&p->meta, "tsc_hz")->type == HP_KV_F64, "type kept");

	CHECK(p->nmodules == 3, "modules %zu", p->nmodules);
	for (size_t i = 0; i < p->nmodules && i < 3; i++) {
		struct hp_module_rec want = ref_mods[i];
		want.path_len = (uint32_t)strlen(ref_mod_paths[i]);
		CHECK(!memcmp(&p->modules[i].rec, &want, sizeof(want)), "module %zu record", i);
		CHECK(!strcmp(p->modules[i].path, ref_mod_paths[i]), "module %zu path", i);
	}
	CHECK(p->nregions == 2, "regions %zu", p->nregions);
	if (p->nregions == 2) {
		CHECK(p->regions[0].id == 7 && p->regions[0].line == 42 &&
			      !strcmp(p->regions[0].name, "init") &&
			      !strcmp(p->regions[0].file, "main.c"),
		      "region 0");
		CHECK(p->regions[1].id == 8 && !strcmp(p->regions[1].name, "") &&
			      !strcmp(p->regions[1].file, ""),
		      "region 1");
	}
	CHECK(p->nthreads == 2, "threads %zu", p->nthreads);
	if (p->nthreads == 2) {
		const struct hp_prof_thread *a = &p->threads[0], *b = &p->threads[1];
		CHECK(hp_kv_i64(&a->kv, "tid", 0) == 1234 &&
			      !strcmp(hp_kv_str(&a->kv, "name", ""), "main") &&
			      hp_kv_u64(&a->kv, "samples", 0) == r->t1s.n * 3ull,
		      "thread 0 kv");
		CHECK(nodes_equal(a->sample, &r->t1s, a->nsample), "thread 0 sample nodes (%u)",
		      a->nsample);
		CHECK(nodes_equal(a->probe, &r->t1p, a->nprobe), "thread 0 probe nodes");
		CHECK(hp_kv_i64(&b->kv, "tid", 0) == 1235 &&
			      !strcmp(hp_kv_str(&b->kv, "name", ""), "worker-1"),
		      "thread 1 kv");
		CHECK(nodes_equal(b->sample, &r->t2s, b->nsample), "thread 1 sample nodes");
		CHECK(b->nprobe == 0, "thread 1 has no probe tree");
		CHECK(((uintptr_t)a->sample % 8) == 0 && ((uintptr_t)a->probe % 8) == 0,
		      "node arrays aligned");
	}
	CHECK(hp_kv_f64(&p->calib, "timer_ns.median", 0) == 11.5, "calib");
	CHECK(hp_kv_u64(&p->cost, "probe_events", 0) == 77, "cost (section left open)");
	static const uint32_t order[] = {HP_SEC_META, HP_SEC_MODULES, HP_SEC_REGIONS,
					 HP_SEC_THREAD, HP_SEC_THREAD, HP_SEC_CALIB,
					 99, HP_SEC_COST, 100};
	CHECK(p->nsecs == 9, "sections %zu", p->nsecs);
	for (size_t i = 0; i < p->nsecs && i < 9; i++)
		CHECK(p->secs[i].type == order[i], "section %zu type %u", i, p->secs[i].type);
	const struct hp_section *x = hp_prof_section(p, 99);
	CHECK(x && x->len == sizeof(r->ext) && !memcmp(x->data, r->ext, sizeof(r->ext)),
	      "unknown section kept byte for byte");
	x = hp_prof_section(p, 100);
	CHECK(x && x->len == 0, "empty section");
	CHECK(hp_prof_section(p, 12345) == NULL, "absent section");
}

static void test_crc(void)
{
	CHECK(hp_crc32(0, "123456789", 9) == 0xcbf43926u, "check value %#x",
	      hp_crc32(0, "123456789", 9));
	CHECK(hp_crc32(0, "", 0) == 0, "empty");
	uint8_t b[1000];
	for (int i = 0; i < 1000; i++)
		b[i] = (uint8_t)(i * 31 + 7);
	uint32_t whole = hp_crc32(0, b, sizeof(b));
	for (size_t cut = 0; cut <= sizeof(b); cut += 37) {
		uint32_t c = hp_crc32(hp_crc32(0, b, cut), b + cut, sizeof(b) - cut);
		CHECK(c == whole, "incremental at %zu", cut);
	}
}

static void test_roundtrip(void)
{
	for (int big = 0; big < 2; big++) {
		struct ref r = {0};
		const char *path = path_in(big ? "big.hyp" : "small.hyp");
		uint32_t flags = big ? HP_FILE_PARTIAL : 0;
		int rc = write_ref(path, &r, big, flags);
		CHECK(rc == 0, "write %s: %d", path, rc);
		char tmp[4200];
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
		CHECK(access(tmp, F_OK) != 0, "temporary file renamed away");
		struct hp_prof *p = NULL;
		char err[512];
		rc = hp_prof_read(path, &p, err, sizeof(err));
		CHECK(rc == 0 && p, "read %s: %s", path, err);
		if (p)
			check_ref(p, &r, flags);
		hp_prof_free(p);
		free_ref(&r);
	}
}

static void test_writer_errors(void)
{
	struct hp_writer *w = malloc(sizeof(*w));
	CHECK(hp_writer_open(w, "/nonexistent-dir-hyprof/x.hyp", 0) == -ENOENT, "no directory");
	CHECK(hp_writer_kv_u64(w, "a", 1) == -ENOENT, "error is sticky");
	CHECK(hp_writer_finish(w) == -ENOENT, "finish reports it");
	CHECK(hp_writer_open(w, "", 0) == -EINVAL, "empty path");
	char longp[5000];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	CHECK(hp_writer_open(w, longp, 0) == -ENAMETOOLONG, "long path");

	/* abort removes the temporary file and leaves no final file */
	const char *path = path_in("aborted.hyp");
	CHECK(hp_writer_open(w, path, 0) == 0, "open");
	hp_writer_begin(w, HP_SEC_META);
	hp_writer_kv_str(w, "a", "b");
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	CHECK(access(tmp, F_OK) == 0, "temporary exists while writing");
	hp_writer_abort(w);
	CHECK(access(tmp, F_OK) != 0 && access(path, F_OK) != 0, "abort leaves nothing");
	free(w);

	/* reader: missing file, directory */
	struct hp_prof *p = (struct hp_prof *)1;
	char err[512];
	int rc = hp_prof_read(path_in("missing.hyp"), &p, err, sizeof(err));
	CHECK(rc == -ENOENT && p == NULL && strstr(err, "missing.hyp"), "missing: %d %s", rc, err);
	rc = hp_prof_read(dir, &p, err, sizeof(err));
	CHECK(rc < 0 && p == NULL && err[0], "directory: %d %s", rc, err);
}

/* ---- damaged files ------------------------------------------------------------------ */

/* Read damaged bytes: must fail with a message (or, when `may_pass`, may
 * succeed with walkable trees).  Returns the error text (static). */
static const char *try_read(const uint8_t *b, size_t n, int *rc_out)
{
	static char err[512];
	const char *path = path_in("damaged.hyp");
	spill(path, b, n);
	struct hp_prof *p = NULL;
	err[0] = 0;
	int rc = hp_prof_read(path, &p, err, sizeof(err));
	*rc_out = rc;
	if (rc == 0) {
		for (size_t i = 0; i < p->nthreads; i++) {
			const char *bad = tree_walk_check(p->threads[i].sample, p->threads[i].nsample);
			if (!bad)
				bad = tree_walk_check(p->threads[i].probe, p->threads[i].nprobe);
			CHECK(bad == NULL, "accepted a tree the tools cannot walk: %s", bad);
		}
		hp_prof_free(p);
		return NULL;
	}
	CHECK(p == NULL, "no profile on error");
	CHECK(err[0] != 0 && strstr(err, "damaged.hyp") && !strchr(err, '\n'),
	      "one-line message naming the file: \"%s\"", err);
	return err;
}

struct secinfo {
	size_t off; /* header offset */
	uint32_t type;
	uint64_t len;
};

static int sections(const uint8_t *b, size_t n, struct secinfo *s, int max)
{
	int k = 0;
	for (size_t off = 16; off + 16 <= n && k < max;) {
		memcpy(&s[k].type, b + off, 4);
		memcpy(&s[k].len, b + off + 8, 8);
		s[k].off = off;
		off += 16 + s[k].len;
		k++;
	}
	return k;
}

static const struct secinfo *find_sec(const struct secinfo *s, int k, uint32_t type)
{
	for (int i = 0; i < k; i++)
		if (s[i].type == type)
			return &s[i];
	return NULL;
}

/* Offset of node `i` of the sample tree of the first THREAD section. */
static size_t node_off(const uint8_t *b, const struct secinfo *th, uint32_t i)
{
	uint32_t kvlen;
	memcpy(&kvlen, b + th->off + 16, 4);
	return th->off + 16 + 4 + kvlen + 8 + (size_t)i * sizeof(struct cct_node);
}

enum edit_kind { E_U32, E_U64 };

struct damage_case {
	int line;
	const char *name;
	uint32_t sec_type; /* section to edit (0: the file header) */
	int node;          /* -1: offset within the section payload; else a node index */
	size_t field;      /* byte offset within the payload or the node */
	int kind;
	uint64_t value;
	int refix_crc;     /* recompute the checksum after the edit */
	int expect_ok;     /* the reader accepts it (repairs links) */
	const char *msg;   /* a substring of the error */
};

#define NODE_FIELD(f) offsetof(struct cct_node, f)

static const struct damage_case damage_cases[] = {
	{__LINE__, "bad magic", 0, -1, 0, E_U32, 0x464f5250, 0, 0, "bad magic"},
	{__LINE__, "newer version", 0, -1, 8, E_U32, 7, 1, 0,
	 "version 7 is newer than this hyprof (1)"},
	{__LINE__, "version 0", 0, -1, 8, E_U32, 0, 1, 0, "version 0"},
	{__LINE__, "flipped version without checksum fix", 0, -1, 8, E_U32, 2, 0, 0, "checksum"},
	{__LINE__, "section length past the end", HP_SEC_META, -1, (size_t)-8, E_U64,
	 1ull << 40, 1, 0, "past the end"},
	{__LINE__, "section length wraps around", HP_SEC_META, -1, (size_t)-8, E_U64,
	 UINT64_MAX - 3, 1, 0, "past the end"},
	{__LINE__, "kv value length past the block", HP_SEC_META, -1, 4, E_U32, 1u << 30, 1, 0,
	 "key-value"},
	{__LINE__, "kv u64 with 4-byte value", HP_SEC_CALIB, -1, 4, E_U32, 4, 1, 0, "key-value"},
	{__LINE__, "module count too large", HP_SEC_MODULES, -1, 0, E_U32, 1u << 31, 1, 0,
	 "modules"},
	{__LINE__, "module path past the section", HP_SEC_MODULES, -1,
	 4 + offsetof(struct hp_module_rec, path_len), E_U32, 1u << 20, 1, 0, "path"},
	{__LINE__, "region count too large", HP_SEC_REGIONS, -1, 0, E_U32, 1000, 1, 0, "regions"},
	{__LINE__, "thread kv length too large", HP_SEC_THREAD, -1, 0, E_U32, 1u << 30, 1, 0,
	 "key-value"},
	{__LINE__, "node parent past the end", HP_SEC_THREAD, 3, NODE_FIELD(parent), E_U32,
	 1000000, 1, 0, "parent"},
	{__LINE__, "node parent after the node", HP_SEC_THREAD, 2, NODE_FIELD(parent), E_U32, 5,
	 1, 0, "parent"},
	{__LINE__, "root with a parent", HP_SEC_THREAD, 0, NODE_FIELD(parent), E_U32, 1, 1, 0,
	 "root"},
	{__LINE__, "first_child past the end", HP_SEC_THREAD, 1, NODE_FIELD(first_child), E_U32,
	 0x7ffffff0, 1, 0, "past the last"},
	{__LINE__, "trailer flags not zero", HP_SEC_TRAILER, -1, (size_t)-12, E_U32, 1, 0, 0,
	 "trailer"},
	{__LINE__, "trailer reserved word not zero", HP_SEC_TRAILER, -1, 4, E_U32, 1, 0, 0,
	 "trailer"},
	{__LINE__, "next_sibling past the end", HP_SEC_THREAD, 2, NODE_FIELD(next_sibling), E_U32,
	 0xfffffffe, 1, 0, "past the last"},
	{__LINE__, "redirect target past the end", HP_SEC_THREAD, 3, NODE_FIELD(flags), E_U32,
	 CCT_F_REDIRECT, 1, 0, "redirects"},
	{__LINE__, "sibling cycle: links rebuilt", HP_SEC_THREAD, 0, NODE_FIELD(next_sibling),
	 E_U32, 1, 1, 1, NULL},
	{__LINE__, "a child pointing back at the root: rebuilt", HP_SEC_THREAD, 1,
	 NODE_FIELD(first_child), E_U32, 0, 1, 1, NULL},
	{__LINE__, "orphaned node (missing from its list): rebuilt", HP_SEC_THREAD, 0,
	 NODE_FIELD(first_child), E_U32, CCT_NONE, 1, 1, NULL},
	{__LINE__, "node counts too large", HP_SEC_THREAD, -2, 0, E_U32, 1u << 28, 1, 0, "nodes"},
	{__LINE__, "trailer records a wrong length", HP_SEC_TRAILER, -1, 8, E_U64, 12, 0, 0,
	 "records"},
	{__LINE__, "trailer checksum wrong", HP_SEC_TRAILER, -1, 0, E_U32, 0xdeadbeef, 0, 0,
	 "checksum"},
};

static void test_damage_table(const uint8_t *orig, size_t n)
{
	struct secinfo s[64];
	int k = sections(orig, n, s, 64);
	uint8_t *b = malloc(n);
	for (size_t i = 0; i < sizeof(damage_cases) / sizeof(damage_cases[0]); i++) {
		const struct damage_case *c = &damage_cases[i];
		memcpy(b, orig, n);
		size_t at;
		if (c->sec_type == 0) {
			at = c->field;
		} else {
			const struct secinfo *sec = find_sec(s, k, c->sec_type);
			CASE_CHECK(c, sec != NULL, "section %u not found", c->sec_type);
			if (!sec)
				continue;
			if (c->node >= 0) {
				at = node_off(orig, sec, (uint32_t)c->node) + c->field;
			} else if (c->node == -2) { /* the node counts after the kv block */
				uint32_t kvlen;
				memcpy(&kvlen, orig + sec->off + 16, 4);
				at = sec->off + 16 + 4 + kvlen + c->field;
			} else {
				at = sec->off + 16 + c->field; /* (size_t)-8: the length field */
			}
		}
		if (c->kind == E_U32) {
			uint32_t v = (uint32_t)c->value;
			memcpy(b + at, &v, 4);
		} else {
			memcpy(b + at, &c->value, 8);
		}
		if (c->refix_crc)
			fix_crc(b, n);
		int rc;
		const char *err = try_read(b, n, &rc);
		if (c->expect_ok) {
			CASE_CHECK(c, rc == 0, "should be accepted: %s", err ? err : "");
		} else {
			CASE_CHECK(c, rc < 0, "should be refused");
			CASE_CHECK(c, err && strstr(err, c->msg), "message \"%s\" lacks \"%s\"",
				   err ? err : "", c->msg);
		}
	}
	free(b);
}

static void test_flips(const uint8_t *orig, size_t n, size_t step)
{
	uint8_t *b = malloc(n);
	memcpy(b, orig, n);
	int bad = 0;
	for (size_t i = 0; i < n && bad < 5; i += step) {
		for (int bit = (int)(i % 8); bit < 8; bit += 8) { /* one bit per byte, rotating */
			b[i] ^= (uint8_t)(1u << bit);
			int rc;
			const char *err = try_read(b, n, &rc);
			const char *want = i < 8 ? "magic" : i < n - 32 ? "checksum" : NULL;
			if (rc == 0 || (want && (!err || !strstr(err, want)))) {
				CHECK(0, "byte %zu bit %d flipped: rc %d \"%s\" (want \"%s\")", i, bit,
				      rc, err ? err : "", want ? want : "an error");
				bad++;
			}
			b[i] ^= (uint8_t)(1u << bit);
		}
	}
	free(b);
}

static void test_truncation(const uint8_t *orig, size_t n, size_t step)
{
	int bad = 0;
	for (size_t len = 0; len < n && bad < 5; len += step) {
		int rc;
		const char *err = try_read(orig, len, &rc);
		const char *want = len == 0 ? "empty" : "truncated";
		if (rc == 0 || !err || !strstr(err, want)) {
			CHECK(0, "cut at %zu of %zu: rc %d \"%s\"", len, n, rc, err ? err : "");
			bad++;
		}
	}
	/* the message says which section was cut */
	struct secinfo s[64];
	int k = sections(orig, n, s, 64);
	const struct secinfo *th = find_sec(s, k, HP_SEC_THREAD);
	if (th) {
		int rc;
		const char *err = try_read(orig, th->off + 16 + th->len / 2, &rc);
		CHECK(err && strstr(err, "section THREAD at byte") && strstr(err, "killed"),
		      "cut inside THREAD: \"%s\"", err ? err : "");
	}
	/* bytes appended after the trailer */
	uint8_t *b = malloc(n + 40);
	memcpy(b, orig, n);
	memset(b + n, 0x5a, 40);
	int rc;
	const char *err = try_read(b, n + 40, &rc);
	CHECK(rc < 0 && err && strstr(err, "follow the trailer"), "appended: \"%s\"",
	      err ? err : "");
	free(b);
}

/* Random damage behind a valid checksum: whatever the reader accepts must be
 * walkable (checked in try_read), and it must never crash. */
static void test_fuzz(const uint8_t *orig, size_t n, int rounds)
{
	uint8_t *b = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int accepted = 0;
	for (int r = 0; r < rounds; r++) {
		memcpy(b, orig, n);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int edits = 1 + (int)(x % 8);
		for (int e = 0; e < edits; e++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t at = 16 + (size_t)(x % (n - 48));
			switch ((x >> 32) % 4) {
			case 0: b[at] ^= (uint8_t)(x >> 48); break;
			case 1: b[at] = 0xff; break;
			case 2: b[at] = 0; break;
			default: /* a small integer where indices and lengths live */
				if (at + 4 <= n - 32) {
					uint32_t v = (uint32_t)((x >> 40) % 16);
					memcpy(b + at, &v, 4);
				}
			}
		}
		fix_crc(b, n);
		int rc;
		try_read(b, n, &rc);
		accepted += rc == 0;
	}
	printf("fuzz: %d of %d damaged files accepted (with walkable trees)\n", accepted, rounds);
	free(b);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		snprintf(dir, sizeof(dir), "%s", argv[1]);
		mkdir(dir, 0755);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/hyprof-test-format-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return 1;
		}
	}
	int quick = getenv("HP_TEST_QUICK") != NULL; /* under valgrind */
	test_crc();
	test_roundtrip();
	test_writer_errors();

	size_t ns, nb;
	uint8_t *small = slurp(path_in("small.hyp"), &ns);
	uint8_t *big = slurp(path_in("big.hyp"), &nb);
	CHECK(small && big, "reference files");
	if (small && big) {
		printf("reference files: %zu and %zu bytes\n", ns, nb);
		test_damage_table(small, ns);
		test_damage_table(big, nb);
		test_flips(small, ns, quick ? 7 : 1);
		test_flips(big, nb, nb / 64);
		test_truncation(small, ns, quick ? 5 : 1);
		test_truncation(big, nb, nb / 16);
		test_fuzz(small, ns, quick ? 300 : 4000);
		test_fuzz(big, nb, quick ? 5 : 100);
	}
	free(small);
	free(big);
	const char *files[] = {"small.hyp", "big.hyp", "damaged.hyp"};
	for (int i = 0; i < 3; i++)
		unlink(path_in(files[i]));
	if (argc <= 1)
		rmdir(dir);
	return check_status("test_format");
}
