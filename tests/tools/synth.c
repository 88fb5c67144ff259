/* tests/tools/synth.c - synthetic profiles for the tools' tests, written with
 * the real writer (core/format.h) and the real CCT (core/cct.h).
 *
 * The module table points at this very program, and the sample and probe
 * keys are addresses inside its own functions (synth_*), so the tools'
 * symbolization (libdw) resolves them to real names, files and lines.
 *
 *   hp_synth write SCENARIO DIR   write one scenario's profile(s) into DIR
 *   hp_synth check                write every scenario to a temporary
 *                                 directory and check the model's facts
 *
 * Scenarios: hybrid, measured, sampled, mpi, mpimerged, mpifold (hyprof's
 * MPI wrapper frames), corrupt, truncated, empty, tmponly.  Time: 1 sample = 1 ms (unit ns, period 1000000); TSC 1 GHz.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cct.h"
#include "core/format.h"
#include "tools/model.h"
#include "tools/model_build.h"
#include "tools/symbols.h"

/* ---- functions whose addresses the profiles use --------------------------- */
/* Each has a body long enough that +4 (a leaf PC) and +8 (a return address,
 * resolved at +7) fall inside it. */
#define BODY                                                                                       \
	volatile int x = n;                                                                        \
	for (int i = 0; i < 3; i++)                                                                \
		x += i * n;                                                                        \
	return x

__attribute__((noinline, used)) int synth_main(int n) { BODY; }
__attribute__((noinline, used)) int synth_a(int n) { BODY; }
__attribute__((noinline, used)) int synth_b(int n) { BODY; }
__attribute__((noinline, used)) int synth_rec(int n) { BODY; }
__attribute__((noinline, used)) int synth_c(int n) { BODY; }
__attribute__((noinline, used)) int synth_thread(int n) { BODY; }
/* The MPI wrapper layers and the library (scenario mpifold): the hyprof ones
 * are addressed through a second mapping of this program named
 * libhyprof_mpi.so, so the symbolizer marks them as hyprof's code. */
__attribute__((noinline, used)) int MPI_Sendrecv(int n) { BODY; }
__attribute__((noinline, used)) int hp_w_sendrecv(int n) { BODY; }
__attribute__((noinline, used)) int PMPI_Sendrecv(int n) { BODY; }
__attribute__((noinline, used)) int hp_w_finalize(int n) { BODY; }
__attribute__((noinline, used)) int hp_merge_at_finalize(int n) { BODY; }
__attribute__((noinline, used)) int PMPI_Comm_dup(int n) { BODY; }
__attribute__((noinline, used)) int PMPI_Finalize(int n) { BODY; }

static uint64_t F(int (*f)(int)) { return (uint64_t)(uintptr_t)f; }
#define LEAF(f) (F(f) + 4)
#define RET(f) (F(f) + 8)
/* the second mapping (libhyprof_mpi.so) lies this far above the first */
#define WRAP_DELTA 0x100000000000ull
#define WLEAF(f) (LEAF(f) + WRAP_DELTA)
#define WRET(f) (RET(f) + WRAP_DELTA)

/* ---- module table of this program ------------------------------------------ */
struct modinfo {
	uint64_t base, lo, hi;
	char path[PATH_MAX];
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct modinfo *m = arg;
	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has an empty name */
	m->base = info->dlpi_addr;
	m->lo = ~0ull;
	m->hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (lo < m->lo)
			m->lo = lo;
		if (hi > m->hi)
			m->hi = hi;
	}
	return 1;
}

static struct modinfo self_mod(void)
{
	struct modinfo m;
	memset(&m, 0, sizeof m);
	dl_iterate_phdr(phdr_cb, &m);
	ssize_t n = readlink("/proc/self/exe", m.path, sizeof m.path - 1);
	m.path[n > 0 ? n : 0] = 0;
	return m;
}

/* ---- writing ----------------------------------------------------------------- */
static struct hp_writer W;
/* when set, the module table also maps this program at +WRAP_DELTA under
 * this path (a symlink named libhyprof_mpi.so) */
static const char *wrap_lib;

#define DIE(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, "hp_synth: " __VA_ARGS__);                                         \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

struct thr {
	struct cct sample, probe;
	int index, tid;
	uint64_t dropped_reentrant;
};

static void thr_init(struct thr *t, int index)
{
	memset(t, 0, sizeof *t);
	if (cct__init(&t->sample, 4096) < 0 || cct__init(&t->probe, 4096) < 0)
		DIE("cct__init failed");
	t->index = index;
	t->tid = 1000 + index;
}

static void sample(struct thr *t, const uint64_t *keys, int n, uint64_t count)
{
	uint32_t leaf = cct__insert_path(&t->sample, keys, n);
	t->sample.nodes[leaf].samples += count;
	t->sample.nodes[leaf].period += count * 1000000ull;
}

/* A probe path; returns the node. */
static struct cct_node *probe(struct thr *t, const uint64_t *keys, int n, uint64_t calls,
			      uint32_t flags)
{
	uint32_t i = cct__insert_path(&t->probe, keys, n);
	struct cct_node *nd = &t->probe.nodes[i];
	nd->calls += calls;
	nd->flags |= flags | ((flags & CCT_F_REGION) ? 0 : CCT_F_PROBE);
	return nd;
}

static void kv_thread(struct hp_writer *w, const struct thr *t, int write, size_t *size)
{
	uint64_t samples = 0;
	for (uint32_t i = 0; i < t->sample.n; i++)
		samples += t->sample.nodes[i].samples;
#define KVU(k, v) (write ? (void)hp_writer_kv_u64(w, k, v) : (void)(*size += hp_kv_size(k, 8)))
	KVU("tid", (uint64_t)t->tid);
	KVU("index", (uint64_t)t->index);
	KVU("samples", samples);
	KVU("dropped.reentrant", t->dropped_reentrant);
	KVU("dropped.loader", 1);
	KVU("start_ns", 1000000000ull);
	KVU("end_ns", 2000000000ull);
	KVU("cpu_ns", samples * 1000000ull);
#undef KVU
}

static void write_profile(const char *path, const char *mode, int rank, struct thr *th, int nth,
			  int with_regions, uint32_t file_flags)
{
	struct modinfo me = self_mod();
	if (hp_writer_open(&W, path, file_flags) < 0)
		DIE("cannot open %s", path);
	hp_writer_begin(&W, HP_SEC_META);
	hp_writer_kv_str(&W, "program", "hp_synth");
	hp_writer_kv_str(&W, "mode", mode);
	hp_writer_kv_str(&W, "source", "perf-sw");
	hp_writer_kv_str(&W, "event", "task-clock");
	hp_writer_kv_u64(&W, "period", 1000000);
	hp_writer_kv_str(&W, "unit", "ns");
	hp_writer_kv_str(&W, "source_why", "perf-hw: no hardware PMU; papi: PAPI_TOT_CYC not available");
	hp_writer_kv_i64(&W, "pid", 4000 + rank);
	hp_writer_kv_i64(&W, "rank", rank);
	hp_writer_kv_i64(&W, "nranks", (file_flags & HP_FILE_MERGED) ? 2 : rank >= 0 ? 2 : -1);
	hp_writer_kv_u64(&W, "start_ns", 1000000000ull);
	hp_writer_kv_u64(&W, "end_ns", rank == 1 ? 3500000000ull : 3000000000ull);
	hp_writer_kv_u64(&W, "duration_ns", rank == 1 ? 2500000000ull : 2000000000ull);
	hp_writer_kv_f64(&W, "tsc_hz", 1e9);
	hp_writer_kv_u64(&W, "partial", 0);
	hp_writer_end(&W);
	hp_writer_begin(&W, HP_SEC_CALIB);
	hp_writer_kv_f64(&W, "tsc_hz", 1e9);
	hp_writer_kv_f64(&W, "timed_probe_ns.median", 30.0);
	hp_writer_kv_f64(&W, "count_probe_ns.median", 2.0);
	hp_writer_end(&W);

	hp_writer_begin(&W, HP_SEC_MODULES);
	hp_writer_u32(&W, wrap_lib ? 3 : 2);
	struct hp_module_rec r = {me.base, me.lo, me.hi, 0, 0, (uint32_t)strlen(me.path), 1};
	hp_writer_bytes(&W, &r, sizeof r);
	hp_writer_bytes(&W, me.path, strlen(me.path));
	if (wrap_lib) {
		struct hp_module_rec w = {me.base + WRAP_DELTA, me.lo + WRAP_DELTA, me.hi + WRAP_DELTA,
					  0, 0, (uint32_t)strlen(wrap_lib), 1};
		hp_writer_bytes(&W, &w, sizeof w);
		hp_writer_bytes(&W, wrap_lib, strlen(wrap_lib));
	}
	const char *vdso = "[vdso]";
	struct hp_module_rec v = {0x7fff0000, 0x7fff0000, 0x7fff2000, 0, 0, (uint32_t)strlen(vdso), 4};
	hp_writer_bytes(&W, &v, sizeof v);
	hp_writer_bytes(&W, vdso, strlen(vdso));
	hp_writer_end(&W);

	if (with_regions) {
		hp_writer_begin(&W, HP_SEC_REGIONS);
		hp_writer_u32(&W, 1);
		const char *name = "solver_loop", *file = "synth.c";
		struct hp_region_rec rr = {77, 42, (uint16_t)strlen(name), (uint16_t)strlen(file)};
		hp_writer_bytes(&W, &rr, sizeof rr);
		hp_writer_bytes(&W, name, strlen(name));
		hp_writer_bytes(&W, file, strlen(file));
		hp_writer_end(&W);
	}
	for (int i = 0; i < nth; i++) {
		struct thr *t = &th[i];
		size_t kvlen = 0;
		kv_thread(&W, t, 0, &kvlen);
		hp_writer_begin(&W, HP_SEC_THREAD);
		hp_writer_u32(&W, (uint32_t)kvlen);
		kv_thread(&W, t, 1, NULL);
		hp_writer_u32(&W, t->sample.n);
		hp_writer_u32(&W, t->probe.n > 1 ? t->probe.n : 0);
		hp_writer_bytes(&W, t->sample.nodes, (size_t)t->sample.n * sizeof(struct cct_node));
		if (t->probe.n > 1)
			hp_writer_bytes(&W, t->probe.nodes, (size_t)t->probe.n * sizeof(struct cct_node));
		hp_writer_end(&W);
	}
	if (file_flags & HP_FILE_MERGED) {
		/* the ranks the merge holds: 0 and 1 (pids 4000, 4001) */
		hp_writer_begin(&W, HP_SEC_MPI_RANKS);
		hp_writer_u32(&W, 2);
		for (int r = 0; r < 2; r++) {
			hp_writer_u32(&W, (uint32_t)(hp_kv_size("rank", 8) + hp_kv_size("pid", 8)));
			hp_writer_kv_i64(&W, "rank", r);
			hp_writer_kv_i64(&W, "pid", 4000 + r);
		}
		hp_writer_end(&W);
	}
	if (hp_writer_finish(&W) < 0)
		DIE("writing %s failed", path);
}

/* The main thread of the hybrid scenario (see the header for the facts). */
static void hybrid_main_thread(struct thr *t, uint64_t a_samples, uint64_t b_samples, int probes)
{
	uint64_t p1[] = {RET(synth_main), LEAF(synth_a)};
	sample(t, p1, 2, a_samples);
	uint64_t p2[] = {RET(synth_main), LEAF(synth_b)};
	sample(t, p2, 2, b_samples);
	uint64_t p3[] = {RET(synth_main), RET(synth_rec), RET(synth_rec), RET(synth_rec), LEAF(synth_b)};
	sample(t, p3, 5, 100);
	uint64_t p4[] = {0x10}; /* outside every module */
	sample(t, p4, 1, 10);
	uint64_t p5[] = {RET(synth_main), 0x7fff0100}; /* in the vdso */
	sample(t, p5, 2, 5);
	if (!probes)
		return;
	uint64_t k1[] = {F(synth_main)};
	probe(t, k1, 1, 1, 0);
	uint64_t k2[] = {F(synth_main), F(synth_a)};
	probe(t, k2, 2, 1000, 0);
	uint64_t k3[] = {F(synth_main), F(synth_b)};
	probe(t, k3, 2, 50, 0);
	uint64_t k4[] = {F(synth_main), F(synth_rec)};
	struct cct_node *rec = probe(t, k4, 2, 30, CCT_F_FOLDED);
	uint32_t rec_idx = (uint32_t)(rec - t->probe.nodes);
	uint64_t k5[] = {F(synth_main), F(synth_rec), F(synth_rec)};
	struct cct_node *redir = probe(t, k5, 3, 0, CCT_F_REDIRECT);
	redir->target = rec_idx;
	uint64_t k6[] = {F(synth_main), F(synth_rec), F(synth_b)};
	probe(t, k6, 3, 10, 0);
	uint64_t k7[] = {F(synth_main), F(synth_c)};
	probe(t, k7, 2, 7, 0);
}

static void scen_hybrid(const char *dir, const char *mode, int probes)
{
	struct thr th[2];
	thr_init(&th[0], 0);
	thr_init(&th[1], 1);
	th[0].dropped_reentrant = 3;
	hybrid_main_thread(&th[0], 300, 100, probes);
	uint64_t q1[] = {RET(synth_thread), LEAF(synth_a)};
	sample(&th[1], q1, 2, 200);
	if (probes) {
		uint64_t k1[] = {F(synth_thread)};
		probe(&th[1], k1, 1, 1, 0);
		uint64_t k2[] = {F(synth_thread), F(synth_a)};
		probe(&th[1], k2, 2, 500, 0);
		/* a region around synth_a's calls: overlay with exact calls */
		uint64_t k3[] = {F(synth_thread), 77};
		struct cct_node *rg = probe(&th[1], k3, 2, 4, CCT_F_REGION);
		rg->samples = 20;
		rg->period = 20000000;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/hp_synth.4000.hyp", dir);
	write_profile(path, mode, -1, th, 2, probes, 0);
	for (int i = 0; i < 2; i++) {
		cct__destroy(&th[i].sample);
		cct__destroy(&th[i].probe);
	}
}

/* Measured: the probe tree carries raw and compensated cycles (TSC 1 GHz). */
static void scen_measured(const char *dir)
{
	struct thr t;
	thr_init(&t, 0);
	uint64_t p1[] = {RET(synth_main), LEAF(synth_a)};
	sample(&t, p1, 2, 10); /* sampling also ran */
	struct {
		int n;
		uint64_t keys[3];
		uint64_t calls, incl, excl, incl_comp, excl_comp, period;
	} rows[] = {
		{1, {F(synth_main)}, 1, 1400000000, 100000000, 900000000, 80000000, 10000000},
		{2, {F(synth_main), F(synth_a)}, 1000000, 600000000, 600000000, 570000000, 570000000, 500000000},
		{2, {F(synth_main), F(synth_b)}, 10, 300000000, 300000000, 150000000, 150000000, 300000000},
		/* tiny and hot: 10 M calls whose probes (30 ns each) cost more than the body */
		{2, {F(synth_main), F(synth_c)}, 10000000, 400000000, 400000000, 100000000, 100000000, 0},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct cct_node *nd = probe(&t, rows[i].keys, rows[i].n, rows[i].calls, 0);
		nd->incl = rows[i].incl;
		nd->excl = rows[i].excl;
		nd->incl_comp = rows[i].incl_comp;
		nd->excl_comp = rows[i].excl_comp;
		nd->period = rows[i].period;
		nd->samples = rows[i].period / 1000000;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/hp_synth.4000.hyp", dir);
	write_profile(path, "measured", -1, &t, 1, 0, 0);
	cct__destroy(&t.sample);
	cct__destroy(&t.probe);
}

static void scen_mpi(const char *dir)
{
	for (int rank = 0; rank < 2; rank++) {
		struct thr t;
		thr_init(&t, 0);
		hybrid_main_thread(&t, rank ? 100 : 300, rank ? 300 : 100, 1);
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/hp_synth.rank%d.hyp", dir, rank);
		write_profile(path, "hybrid", rank, &t, 1, 0, 0);
		cct__destroy(&t.sample);
		cct__destroy(&t.probe);
	}
}

/* The MPI merge at finalize and what can lie beside it: the merged file
 * (ranks 0 and 1, pids 4000 and 4001), their per-rank files in
 * .hyprof-ranks, a copy of rank 1's file beside the merged one, and rank 2's
 * file, which the merge lacks. */
static void scen_mpimerged(const char *dir)
{
	char sub[PATH_MAX], path[PATH_MAX + 64];
	snprintf(sub, sizeof sub, "%s/.hyprof-ranks", dir);
	if (mkdir(sub, 0777) < 0 && errno != EEXIST)
		DIE("mkdir %s: %s", sub, strerror(errno));
	struct thr t;
	thr_init(&t, 0);
	hybrid_main_thread(&t, 400, 400, 1);
	snprintf(path, sizeof path, "%s/hp_synth.merged.4000.hyp", dir);
	write_profile(path, "hybrid", -1, &t, 1, 0, HP_FILE_MERGED);
	cct__destroy(&t.sample);
	cct__destroy(&t.probe);
	for (int rank = 0; rank < 3; rank++) {
		thr_init(&t, 0);
		hybrid_main_thread(&t, rank == 1 ? 100 : 300, rank == 1 ? 300 : 100, 1);
		snprintf(path, sizeof path, "%s/hp_synth.%05d.%d.hyp", rank < 2 ? sub : dir, rank,
			 4000 + rank);
		write_profile(path, "hybrid", rank, &t, 1, 0, 0);
		if (rank == 1) {
			snprintf(path, sizeof path, "%s/hp_synth.%05d.%d.copy.hyp", dir, rank, 4000 + rank);
			write_profile(path, "hybrid", rank, &t, 1, 0, 0);
		}
		cct__destroy(&t.sample);
		cct__destroy(&t.probe);
	}
}

/* hyprof's MPI wrapper frames in the sampled paths (1 sample = 1 ms):
 *   main > a > MPI_Sendrecv* > hp_w_sendrecv* > PMPI_Sendrecv > c     40
 *   main > a > MPI_Sendrecv* > hp_w_sendrecv* > PMPI_Sendrecv         10
 *   main > a > MPI_Sendrecv* > hp_w_sendrecv*                          5
 *   main > hp_w_finalize* > hp_merge_at_finalize* > PMPI_Comm_dup > b   7
 *   main > hp_w_finalize* > PMPI_Finalize                              3
 * (* = in libhyprof_mpi.so) */
static void scen_mpifold(const char *dir)
{
	struct modinfo me = self_mod();
	char lib[PATH_MAX + 32];
	snprintf(lib, sizeof lib, "%s/libhyprof_mpi.so", dir);
	unlink(lib);
	if (symlink(me.path, lib) < 0)
		DIE("symlink %s: %s", lib, strerror(errno));
	struct thr t;
	thr_init(&t, 0);
	uint64_t p1[] = {RET(synth_main), RET(synth_a), WRET(MPI_Sendrecv), WRET(hp_w_sendrecv),
			 RET(PMPI_Sendrecv), LEAF(synth_c)};
	sample(&t, p1, 6, 40);
	uint64_t p2[] = {RET(synth_main), RET(synth_a), WRET(MPI_Sendrecv), WRET(hp_w_sendrecv),
			 LEAF(PMPI_Sendrecv)};
	sample(&t, p2, 5, 10);
	uint64_t p3[] = {RET(synth_main), RET(synth_a), WRET(MPI_Sendrecv), WLEAF(hp_w_sendrecv)};
	sample(&t, p3, 4, 5);
	uint64_t p4[] = {RET(synth_main), WRET(hp_w_finalize), WRET(hp_merge_at_finalize),
			 RET(PMPI_Comm_dup), LEAF(synth_b)};
	sample(&t, p4, 5, 7);
	uint64_t p5[] = {RET(synth_main), WRET(hp_w_finalize), LEAF(PMPI_Finalize)};
	sample(&t, p5, 3, 3);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/hp_synth.00000.4000.hyp", dir);
	wrap_lib = lib;
	write_profile(path, "sampled", 0, &t, 1, 0, 0);
	wrap_lib = NULL;
	cct__destroy(&t.sample);
	cct__destroy(&t.probe);
}

static void damage(const char *dir, int truncate_it)
{
	scen_hybrid(dir, "hybrid", 1);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/hp_synth.4000.hyp", dir);
	int fd = open(path, O_RDWR);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		DIE("cannot reopen %s", path);
	if (truncate_it) {
		if (ftruncate(fd, sb.st_size / 2) < 0)
			DIE("ftruncate");
	} else {
		unsigned char c;
		off_t at = sb.st_size / 2;
		if (pread(fd, &c, 1, at) != 1)
			DIE("pread");
		c ^= 0x5a;
		if (pwrite(fd, &c, 1, at) != 1)
			DIE("pwrite");
	}
	close(fd);
}

static int write_scenario(const char *scen, const char *dir)
{
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		DIE("mkdir %s: %s", dir, strerror(errno));
	if (!strcmp(scen, "hybrid"))
		scen_hybrid(dir, "hybrid", 1);
	else if (!strcmp(scen, "sampled"))
		scen_hybrid(dir, "sampled", 0);
	else if (!strcmp(scen, "measured"))
		scen_measured(dir);
	else if (!strcmp(scen, "mpi"))
		scen_mpi(dir);
	else if (!strcmp(scen, "mpimerged"))
		scen_mpimerged(dir);
	else if (!strcmp(scen, "mpifold"))
		scen_mpifold(dir);
	else if (!strcmp(scen, "corrupt"))
		damage(dir, 0);
	else if (!strcmp(scen, "truncated"))
		damage(dir, 1);
	else if (!strcmp(scen, "empty"))
		;
	else if (!strcmp(scen, "tmponly")) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/x.hyp.tmp.123", dir);
		FILE *f = fopen(path, "w");
		if (f)
			fclose(f);
	} else {
		fprintf(stderr, "hp_synth: unknown scenario %s\n", scen);
		return 2;
	}
	return 0;
}

/* ---- checks of the model ----------------------------------------------------- */
static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);                    \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static const struct hp_fstat *flat(const struct hp_model *m, const char *name)
{
	for (size_t i = 0; i < m->nflat; i++)
		if (!strcmp(m->flat[i].fn->name, name))
			return &m->flat[i];
	return NULL;
}

static struct hp_tnode *child(struct hp_tnode *n, const char *name)
{
	for (struct hp_tnode *c = n ? n->child : NULL; c; c = c->sibling)
		if (!strcmp(c->fn->name, name))
			return c;
	return NULL;
}

static int near(double a, double b) { return fabs(a - b) < 1e-6; }

/* Load the model of dir; a failure is counted and printed. */
static int load(struct hp_model *m, const char *dir)
{
	char err[512];
	int rc = model__load(m, dir, err, sizeof err);
	CHECK(rc == 0, "load %s: %s", dir, err);
	return rc;
}

static void check_hybrid(const char *dir)
{
	struct hp_model m;
	if (load(&m, dir) < 0)
		return;
	CHECK(!strcmp(m.mode, "hybrid") && !strcmp(m.source, "task-clock"), "mode %s source %s", m.mode, m.source);
	CHECK(m.samples == 715 && m.nthreads == 2 && m.nprocs == 1, "samples %llu threads %d procs %d",
	      (unsigned long long)m.samples, m.nthreads, m.nprocs);
	CHECK(m.dropped == 5, "dropped %llu (3 reentrant + 1 loader per thread)", (unsigned long long)m.dropped);
	CHECK(near(m.total, 0.715), "total %g", m.total);
	CHECK(near(m.duration, 2.0), "duration %g", m.duration);
	const struct hp_fstat *a = flat(&m, "synth_a"), *b = flat(&m, "synth_b"),
			      *rec = flat(&m, "synth_rec"), *c = flat(&m, "synth_c"),
			      *mainf = flat(&m, "synth_main");
	CHECK(a && near(a->self, 0.5) && a->calls == 1500, "synth_a self %g calls %lld", a ? a->self : -1,
	      a ? (long long)a->calls : -9);
	CHECK(a && a->fn->file && strstr(a->fn->file, "synth.c") && a->fn->line > 0 &&
		      !strcmp(a->fn->module, "hp_synth"),
	      "synth_a file %s line %d module %s", a ? a->fn->file : "-", a ? a->fn->line : 0,
	      a ? a->fn->module : "-");
	CHECK(b && near(b->self, 0.2) && b->calls == 60, "synth_b self %g calls %lld", b ? b->self : -1,
	      b ? (long long)b->calls : -9);
	CHECK(rec && near(rec->total, 0.1) && rec->calls == 30, "synth_rec total %g calls %lld",
	      rec ? rec->total : -1, rec ? (long long)rec->calls : -9);
	CHECK(c && c->calls == 7 && c->self == 0, "synth_c calls %lld", c ? (long long)c->calls : -9);
	CHECK(mainf && near(mainf->total, 0.505) && mainf->calls == 1, "synth_main total %g calls %lld",
	      mainf ? mainf->total : -1, mainf ? (long long)mainf->calls : -9);
	double unk = 0;
	int unk_vdso = 0;
	for (size_t i = 0; i < m.nflat; i++)
		if (!strcmp(m.flat[i].fn->name, "[unknown]")) {
			unk += m.flat[i].self;
			unk_vdso |= !strcmp(m.flat[i].fn->module, "[vdso]") && near(m.flat[i].self, 0.005);
		}
	CHECK(near(unk, 0.015) && unk_vdso, "[unknown] self %g (outside modules 0.01 + vdso 0.005)", unk);
	/* tree facts */
	struct hp_tnode *sm = child(m.root, "synth_main");
	struct hp_tnode *sr = child(sm, "synth_rec");
	CHECK(sr && (sr->flags & HP_T_FOLDED) && sr->calls == 30 && child(sr, "synth_b") &&
		      child(sr, "synth_b")->calls == 10 && !child(sr, "synth_rec"),
	      "recursion folded: synth_main;synth_rec flags %#x calls %lld", sr ? sr->flags : 0,
	      sr ? (long long)sr->calls : -9);
	struct hp_tnode *sc = child(sm, "synth_c");
	CHECK(sc && (sc->flags & HP_T_PROBE_ONLY) && sc->calls == 7 && sc->total == 0,
	      "probe-only synth_c flags %#x", sc ? sc->flags : 0);
	struct hp_tnode *st = child(m.root, "synth_thread");
	struct hp_tnode *rg = child(st, "solver_loop");
	CHECK(rg && rg->fn->is_region && rg->calls == 4 && near(rg->total, 0.02) && near(st->total, 0.2),
	      "region overlay: calls %lld total %g; thread total %g", rg ? (long long)rg->calls : -9,
	      rg ? rg->total : -1, st ? st->total : -1);
	/* per thread and per rank selections */
	struct hp_tnode *t1 = model__tree(&m, -1, 1);
	CHECK(near(t1->total, 0.2) && child(t1, "synth_thread"), "thread 1 total %g", t1->total);
	CHECK(m.join_note && strstr(m.join_note, "probe-only"), "join note: %s", m.join_note);
	model__free(&m);
}

static void check_sampled(const char *dir)
{
	struct hp_model m;
	if (load(&m, dir) < 0)
		return;
	const struct hp_fstat *a = flat(&m, "synth_a");
	CHECK(a && a->calls == -1 && near(a->self, 0.5), "sampled synth_a calls %lld", a ? (long long)a->calls : -9);
	struct hp_tnode *sm = child(m.root, "synth_main");
	CHECK(sm && sm->calls == -1 && child(sm, "synth_rec") && (child(sm, "synth_rec")->flags & HP_T_FOLDED),
	      "sampled: recursion folded without probes");
	model__free(&m);
}

static void check_measured(const char *dir)
{
	struct hp_model m;
	if (load(&m, dir) < 0)
		return;
	struct hp_tnode *sm = child(m.root, "synth_main"), *a = child(sm, "synth_a"), *b = child(sm, "synth_b");
	CHECK(sm && near(sm->total, 0.9) && near(sm->self, 0.08) && near(sm->total_raw, 1.4),
	      "measured main total %g self %g raw %g", sm ? sm->total : -1, sm ? sm->self : -1,
	      sm ? sm->total_raw : -1);
	CHECK(a && a->calls == 1000000 && near(a->self, 0.57) && near(a->self_raw, 0.6) &&
		      near(a->sampled_self, 0.5),
	      "measured synth_a calls %lld self %g raw %g sampled %g", a ? (long long)a->calls : -9,
	      a ? a->self : -1, a ? a->self_raw : -1, a ? a->sampled_self : -1);
	CHECK(b && b->calls == 10 && near(b->self, 0.15), "measured synth_b");
	CHECK(near(m.total, 0.9), "measured total %g", m.total);
	CHECK(strstr(m.join_note, "measured"), "join note %s", m.join_note);
	model__free(&m);
}

static void check_mpi(const char *dir)
{
	struct hp_model m;
	if (load(&m, dir) < 0)
		return;
	CHECK(m.nprocs == 2 && m.nranks == 2 && near(m.duration, 2.5), "procs %d ranks %zu duration %g",
	      m.nprocs, m.nranks, m.duration);
	struct hp_tnode *r0 = model__tree(&m, 0, -1), *r1 = model__tree(&m, 1, -1);
	struct hp_tnode *a0 = child(child(r0, "synth_main"), "synth_a"),
			*a1 = child(child(r1, "synth_main"), "synth_a");
	CHECK(a0 && a1 && near(a0->self, 0.3) && near(a1->self, 0.1) && a0->calls == 1000,
	      "per-rank synth_a %g %g", a0 ? a0->self : -1, a1 ? a1->self : -1);
	const struct hp_fstat *a = flat(&m, "synth_a");
	CHECK(a && near(a->self, 0.4) && a->calls == 2000, "merged synth_a self %g calls %lld",
	      a ? a->self : -1, a ? (long long)a->calls : -9);
	struct hp_fstat *rows;
	size_t n = model__flat(&m, 1, -1, &rows);
	int ok = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].fn->name, "synth_b") && near(rows[i].self, 0.4) && rows[i].calls == 60)
			ok = 1;
	CHECK(ok, "rank 1 flat synth_b");
	free(rows);
	model__free(&m);
}

/* A merged file stands for ranks 0 and 1; their own files give --ranks
 * their trees without being summed again; the copy counts once; rank 2,
 * which the merge lacks, is added. */
static void check_mpimerged(const char *dir)
{
	struct hp_model m;
	if (load(&m, dir) < 0)
		return;
	CHECK(m.nprofs == 2 && m.nrank_profs == 2 && m.nprocs == 3,
	      "merged: %zu model files (want 2), %zu per-rank files (want 2), %d processes (want 3)",
	      m.nprofs, m.nrank_profs, m.nprocs);
	/* merged: 400 + 400 + 100 + 10 + 5 ms; rank 2: 300 + 100 + 100 + 10 + 5;
	 * synth_a calls: 1000 in the merged file (one synthetic thread) + 1000 */
	CHECK(near(m.total, 0.915 + 0.515), "merged total %g, want %g", m.total, 0.915 + 0.515);
	const struct hp_fstat *a = flat(&m, "synth_a");
	CHECK(a && near(a->self, 0.4 + 0.3) && a->calls == 2000, "merged synth_a self %g calls %lld",
	      a ? a->self : -1, a ? (long long)a->calls : -9);
	struct hp_rankpart *rl;
	size_t nr = model__rank_list(&m, &rl);
	CHECK(nr == 3 && rl[0].rank == 0 && rl[1].rank == 1 && rl[2].rank == 2 && rl[0].pid == 4000 &&
		      rl[1].pid == 4001 && rl[2].pid == 4002,
	      "rank list: %zu entries, first rank %d", nr, nr ? rl[0].rank : -9);
	static const double want_a[] = {0.3, 0.1, 0.3}, want_total[] = {0.515, 0.515, 0.515};
	for (size_t i = 0; i < nr && i < 3; i++) {
		struct hp_tnode *r = model__rank_tree(&m, &rl[i]);
		struct hp_tnode *ra = child(child(r, "synth_main"), "synth_a");
		CHECK(ra && near(ra->self, want_a[i]) && ra->calls == 1000 && near(r->total, want_total[i]),
		      "rank %d: synth_a self %g calls %lld, total %g", rl[i].rank, ra ? ra->self : -1,
		      ra ? (long long)ra->calls : -9, r->total);
		struct hp_fstat *rows;
		size_t n = model__rank_flat(&m, &rl[i], &rows);
		const struct hp_fstat *fa = NULL;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(rows[k].fn->name, "synth_a"))
				fa = &rows[k];
		CHECK(fa && fa->calls == 1000 && near(fa->self, want_a[i]), "rank %d flat synth_a calls %lld",
		      rl[i].rank, fa ? (long long)fa->calls : -9);
		free(rows);
	}
	free(rl);
	/* model__tree of a rank the merged file holds reads its own file */
	struct hp_tnode *r1 = model__tree(&m, 1, -1);
	CHECK(near(r1->total, 0.515), "model__tree rank 1 total %g", r1->total);
	model__free(&m);
	/* without the merged file, the per-rank files are the profile: ranks 0
	 * and 1 from .hyprof-ranks (the copy of rank 1 once) and rank 2 */
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/hp_synth.merged.4000.hyp", dir);
	if (unlink(path) < 0)
		DIE("unlink %s", path);
	if (load(&m, dir) < 0)
		return;
	CHECK(m.nprofs == 3 && m.nrank_profs == 0 && m.nprocs == 3 && near(m.total, 3 * 0.515),
	      "unmerged: %zu files, %zu per-rank, %d processes, total %g", m.nprofs, m.nrank_profs,
	      m.nprocs, m.total);
	nr = model__rank_list(&m, &rl);
	CHECK(nr == 3 && rl[0].rank == 0 && rl[2].rank == 2, "unmerged rank list: %zu", nr);
	free(rl);
	model__free(&m);
}

/* hyprof's frames folded (docs/cmd-report.md "Frames of hyprof"), and every
 * frame with MODEL_NO_FOLD; the same times either way. */
static void check_mpifold(const char *dir)
{
	struct hp_model m, r;
	char err[512];
	if (load(&m, dir) < 0)
		return;
	int rc = model__load_opts(&r, dir, MODEL_NO_FOLD, err, sizeof err);
	CHECK(rc == 0, "load --no-fold %s: %s", dir, err);
	if (rc < 0) {
		model__free(&m);
		return;
	}
	struct hp_tnode *main_ = child(m.root, "synth_main");
	struct hp_tnode *call = child(child(main_, "synth_a"), "MPI_Sendrecv");
	CHECK(call && !call->fn->is_measurement && !strcmp(call->fn->module, "[mpi]") &&
		      near(call->self, 0.010) && near(call->total, 0.055),
	      "MPI_Sendrecv: %s self %g total %g module %s", call ? "found" : "missing",
	      call ? call->self : -1, call ? call->total : -1, call ? call->fn->module : "-");
	struct hp_tnode *c = child(call, "synth_c"), *own = child(call, "hp_w_sendrecv");
	CHECK(c && near(c->self, 0.040), "MPI_Sendrecv > synth_c self %g", c ? c->self : -1);
	CHECK(own && own->fn->is_measurement && !strcmp(own->fn->module, "libhyprof_mpi.so") &&
		      near(own->self, 0.005) && !own->child,
	      "wrapper's own time: hp_w_sendrecv %s self %g", own ? "found" : "missing",
	      own ? own->self : -1);
	CHECK(!child(call, "PMPI_Sendrecv"), "PMPI_Sendrecv left under MPI_Sendrecv");
	struct hp_tnode *fin = child(main_, "MPI_Finalize");
	struct hp_tnode *mg = child(fin, "hp_merge_at_finalize");
	struct hp_tnode *b = child(child(mg, "PMPI_Comm_dup"), "synth_b");
	CHECK(fin && near(fin->self, 0.003) && near(fin->total, 0.010) && !child(main_, "hp_w_finalize"),
	      "MPI_Finalize: %s self %g total %g", fin ? "found" : "missing", fin ? fin->self : -1,
	      fin ? fin->total : -1);
	CHECK(mg && mg->fn->is_measurement && near(mg->self, 0) && near(mg->total, 0.007) && b &&
		      near(b->self, 0.007),
	      "merge at finalize: %s total %g, synth_b %s", mg ? "found" : "missing",
	      mg ? mg->total : -1, b ? "found" : "missing");
	CHECK(near(m.total, 0.065) && near(r.total, m.total), "total %g folded, %g raw (want 0.065)",
	      m.total, r.total);
	CHECK(strstr(m.join_note, "--no-fold") && !strstr(r.join_note, "--no-fold"),
	      "join notes: '%s' / '%s'", m.join_note, r.join_note);
	/* every frame without folding */
	struct hp_tnode *rc_ = child(child(child(r.root, "synth_main"), "synth_a"), "MPI_Sendrecv");
	struct hp_tnode *rp = child(child(rc_, "hp_w_sendrecv"), "PMPI_Sendrecv");
	CHECK(rc_ && rc_->fn->is_measurement && rp && near(rp->total, 0.050),
	      "--no-fold: MPI_Sendrecv %s, PMPI_Sendrecv %s", rc_ ? "found" : "missing",
	      rp ? "found" : "missing");
	CHECK(child(child(r.root, "synth_main"), "hp_w_finalize"), "--no-fold: no hp_w_finalize");
	/* hyprof's own time is the same in both flat profiles */
	double hf = 0, hr = 0;
	for (size_t i = 0; i < m.nflat; i++)
		hf += m.flat[i].fn->is_measurement ? m.flat[i].self : 0;
	for (size_t i = 0; i < r.nflat; i++)
		hr += r.flat[i].fn->is_measurement ? r.flat[i].self : 0;
	CHECK(near(hf, 0.005) && near(hr, 0.005), "hyprof's self time %g folded, %g raw", hf, hr);
	model__free(&m);
	model__free(&r);
}

static void check_error(const char *dir, const char *want)
{
	struct hp_model m;
	char err[512] = "";
	int rc = model__load(&m, dir, err, sizeof err);
	CHECK(rc < 0 && strstr(err, want) && !strchr(err, '\n'), "%s: rc %d err '%s', want '%s'", dir, rc,
	      err, want);
	if (rc == 0)
		model__free(&m);
}

/* The PLT stubs of this very program are named "function@plt" (it calls
 * printf through one), not "[hp_synth+0x...]" like a stripped function. */
static void check_plt(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int fd = n > 0 ? open((exe[n] = 0, exe), O_RDONLY) : -1;
	elf_version(EV_CURRENT);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstrndx;
	uint64_t plt = 0, plt_size = 0, sec = 0, sec_size = 0;
	for (Elf_Scn *scn = NULL; elf && elf_getshdrstrndx(elf, &shstrndx) == 0 && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".plt"))
			plt = sh.sh_addr, plt_size = sh.sh_size;
		if (name && !strcmp(name, ".plt.sec"))
			sec = sh.sh_addr, sec_size = sh.sh_size;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	CHECK(plt_size > 16, "no .plt in %s", exe);
	/* .plt.sec (CET) holds the jumps; else .plt, past the resolver's entry */
	uint64_t first = sec_size ? sec : plt + 16, end = sec_size ? sec + sec_size : plt + plt_size;
	struct symtab *st = symtab__new();
	struct hp_module mod = {.rec = {.base = 0, .lo = 0, .hi = ~0ull, .flags = 1}, .path = exe};
	struct sym_space *sp = symtab__space(st, &mod, 1);
	int stubs = 0, named = 0, printf_seen = 0;
	const char *other = "";
	for (uint64_t a = first; a < end; a += 16, stubs++) {
		const char *name = sym_space__resolve(sp, a + 4, 0)->frames[0].name;
		size_t len = strlen(name);
		if (len > 4 && !strcmp(name + len - 4, "@plt"))
			named++;
		else
			other = name;
		printf_seen |= !strcmp(name, "printf@plt");
	}
	CHECK(named == stubs && printf_seen, "%d of %d PLT stubs named fn@plt (one other: '%s'), printf@plt %s",
	      named, stubs, other, printf_seen ? "seen" : "not seen");
	symtab__free(st);
}

static int check_all(void)
{
	char tmpl[] = "/tmp/hp_synth-XXXXXX";
	if (!mkdtemp(tmpl))
		DIE("mkdtemp");
	const char *scen[] = {"hybrid", "sampled",   "measured", "mpi",      "corrupt",
			      "truncated", "empty", "tmponly",  "mpimerged", "mpifold"};
	char dirs[10][PATH_MAX];
	for (int i = 0; i < 10; i++) {
		snprintf(dirs[i], sizeof dirs[i], "%s/%s", tmpl, scen[i]);
		write_scenario(scen[i], dirs[i]);
	}
	check_hybrid(dirs[0]);
	check_sampled(dirs[1]);
	check_measured(dirs[2]);
	check_mpi(dirs[3]);
	check_error(dirs[4], "checksum mismatch");
	check_error(dirs[5], "hp_synth.4000.hyp");
	check_error(dirs[6], "empty directory");
	check_error(dirs[7], "temporary");
	check_mpimerged(dirs[8]);
	check_mpifold(dirs[9]);
	check_plt();
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof missing, "%s/nonexistent", tmpl);
	check_error(missing, "No such file or directory");
	/* clean up */
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "hp_synth: could not remove %s\n", tmpl);
	printf("hp_synth check: %d failed\n", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_scenario(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check_all();
	fprintf(stderr, "usage: hp_synth write SCENARIO DIR | hp_synth check\n");
	return 2;
}
