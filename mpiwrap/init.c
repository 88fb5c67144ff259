/* mpiwrap/init.c - libhyprof_mpi.so's life: MPI_Init, MPI_Finalize, threads.
 *
 * MPI_Init (and MPI_Init_thread, from C or Fortran) runs the real init,
 * then: tells the runtime the rank (hp_set_rank), decides the compensation
 * mode and checks with every rank that they agree (a piggyback that one
 * side does not expect would corrupt messages, so on any disagreement
 * nobody piggybacks), learns which ranks share this node's clock, sets up
 * the request and communicator tables, calibrates the wrappers' own cost
 * and the piggyback's, registers this library's code as measurement code
 * and its profile sections, and only then turns the wrappers on.
 * MPI_Finalize completes what is pending, freezes the per-rank summary,
 * merges the ranks' profiles through MPI (merge.c), turns the wrappers off
 * and runs the real finalize.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "mpiwrap/classes.h"
#include "mpiwrap/fortran.h"
#include "mpiwrap/mpiwrap.h"
#include "runtime/lifecycle.h"
#include "sampler/sampler.h"

struct hp_mpi hp_mpi = {.rank = -1, .pack_max = HP_MPI_PACK_MAX_DEFAULT};
__thread struct hp_mt *hp_mt_tls __attribute__((tls_model("initial-exec")));
__thread MPI_Request hp_freq_buf[HP_F_SMALL];
__thread MPI_Status hp_fst_buf[HP_F_SMALL];

static struct hp_mt *main_mt; /* the thread that called MPI_Init */

__attribute__((constructor)) static void mpiwrap_load(void)
{
	hp_mpi.t_start = hp_rdtsc();
}

HP_MPI_API int hp_pb_ext_register(const struct hp_pb_ext *ext)
{
	if (hp_mpi.ext || hp_mpi.initialized)
		return -EBUSY;
	hp_mpi.ext = ext;
	return 0;
}

/* ---- per-thread state ---------------------------------------------------------- */

static void *zmap(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---- exited threads' state ----
 *
 * A thread's struct hp_mt (about 20 KB resident once it has called MPI) and
 * the runtime record it points to were kept for the life of the process: a
 * program that runs through 10,000 short threads calling MPI grew by 360 MB.
 * When a thread exits, its hp_mt lets go of the runtime record (which the
 * runtime then merges into "[exited]" past HYPROF_MAX_THREADS and reuses)
 * and goes to a free list; the next thread that calls MPI takes it over,
 * tables and counters included: its statistics add to the exited thread's
 * under the same thread index, as the runtime's "[exited]" record sums its
 * threads.  The critical path keeps its own per-thread state with
 * pointers to both (critical_path.c, struct cp_thr), so with it (a
 * piggyback extension) nothing is reclaimed, as before. */
static pthread_key_t mt_key;
static pthread_once_t mt_once = PTHREAD_ONCE_INIT;
static int mt_key_ok;
static pthread_mutex_t mt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hp_mt *mt_free;

static void mt_exit(void *p)
{
	struct hp_mt *mt = p;
	/* main_mt's delay and overhead are the rank's (hp_mpi_rank_values) */
	if (!mt || mt == main_mt || hp_mpi.ext)
		return;
	hp_mt_tls = NULL;
	struct hp_thread *t = mt->t;
	mt->own_x = *mt->x;
	mt->own_o = *mt->o;
	mt->x = &mt->own_x;
	mt->o = &mt->own_o;
	mt->t = NULL;
	hp_thread_release(t);
	pthread_mutex_lock(&mt_lock);
	mt->free_next = mt_free;
	mt_free = mt;
	pthread_mutex_unlock(&mt_lock);
}

static void mt_key_init(void)
{
	mt_key_ok = pthread_key_create(&mt_key, mt_exit) == 0;
}

/* An exited thread's state for the calling thread, or NULL. */
static struct hp_mt *mt_reuse(void)
{
	if (!__atomic_load_n(&mt_free, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&mt_lock);
	struct hp_mt *mt = mt_free;
	if (mt)
		mt_free = mt->free_next;
	pthread_mutex_unlock(&mt_lock);
	if (mt) {
		mt->own_x = mt->own_o = 0;
		mt->depth = 0;
		mt->call = NULL;
	}
	return mt;
}

/* The runtime's record of the calling thread joins mt. */
static void mt_attach(struct hp_mt *mt)
{
	mt->t = hp_thread_get();
	if (mt->t && mt->t->exited)
		mt->t = NULL; /* an MPI call from a late destructor: the record
			       * may be queued to be merged already */
	if (mt->t) {
		/* mt keeps this pointer until the thread exits (mt_exit): till
		 * then its record is not merged into "[exited]" and reused
		 * (runtime/thread.c) */
		mt->t->keep_record = 1;
		mt->x = &mt->t->delay;
		mt->o = &mt->t->overhead;
	} else {
		mt->x = &mt->own_x;
		mt->o = &mt->own_o;
	}
	mt->tid = mt->t ? (int)mt->t->tid : 0;
	pthread_once(&mt_once, mt_key_init);
	if (mt_key_ok)
		pthread_setspecific(mt_key, mt);
}

struct hp_mt *hp_mt_get(void)
{
	if (hp_mt_tls)
		return hp_mt_tls;
	struct hp_mt *mt = mt_reuse();
	if (mt) {
		mt_attach(mt);
		hp_mt_tls = mt;
		return mt;
	}
	mt = zmap(sizeof(*mt));
	if (!mt)
		return NULL;
	mt->sites = zmap(sizeof(struct hp_site) * (HP_SITES + 1));
	mt->speers = zmap(sizeof(struct hp_speer) * HP_SPEERS);
	mt->colls = zmap(sizeof(struct hp_collstat) * HP_COLLS);
	if (hp_mpi.size > 0)
		mt->mat = zmap(sizeof(uint64_t) * HP_MAT_COLS * (size_t)hp_mpi.size);
	if (!mt->sites || !mt->speers || !mt->colls) {
		hp_log("mpi: out of memory for a thread's statistics: its MPI calls are not profiled");
		return NULL;
	}
	mt_attach(mt);
	for (int i = 0; i < HP_STRUCTCACHE; i++)
		mt->sts[i].st = MPI_DATATYPE_NULL;
	for (int i = 0; i < HP_TYPECACHE; i++)
		mt->ti[i].type = MPI_DATATYPE_NULL;
	/* publish on the list read by the section writer (newest first) */
	struct hp_mt *head = __atomic_load_n(&hp_mpi.threads, __ATOMIC_RELAXED);
	do {
		mt->next = head;
		mt->index = head ? head->index + 1 : 0;
	} while (!__atomic_compare_exchange_n(&hp_mpi.threads, &head, mt, 1, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	__atomic_add_fetch(&hp_mpi.nthreads, 1, __ATOMIC_RELAXED);
	hp_mt_tls = mt;
	return mt;
}

/* ---- set-up pieces ------------------------------------------------------------- */

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* This node: host name and boot id (containers on one host share the boot). */
static uint64_t node_id(void)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	uint64_t h = fnv(host, strlen(host), 0xcbf29ce484222325ull);
	char boot[64];
	size_t n = hp_read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (n > 0)
		h = fnv(boot, n, h);
	return h ? h : 1;
}

/* The kernel keeps the TSC as its clock source only when it is synchronised
 * across CPUs; then send times of ranks on this node can be compared. */
static int tsc_is_clock(void)
{
	if (hp_rt.initialized && !hp_rt.cfg.mpi_clock) /* HYPROF_MPI_CLOCK=0 */
		return 0;
	char cs[64];
	hp_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, sizeof(cs));
	return !strncmp(cs, "tsc", 3);
}

static int own_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t me = (uintptr_t)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (ph->p_type != PT_LOAD || me < lo || me >= hi)
			continue;
		for (int j = 0; j < info->dlpi_phnum; j++) {
			const ElfW(Phdr) *q = &info->dlpi_phdr[j];
			if (q->p_type == PT_LOAD && (q->p_flags & PF_X))
				hp_register_measurement_range(info->dlpi_addr + q->p_vaddr,
							      info->dlpi_addr + q->p_vaddr + q->p_memsz, HP_MEAS_MPI);
		}
		return 1;
	}
	return 0;
}

/* The wrappers' part of the cost system's range (calib/cost_rt.c): what
 * they charged as overhead, in seconds. */
static void mpi_costs(struct hp_mpi_cost *m)
{
	struct hp_mpi_totals t;
	hp_mpi_summary(&t);
	double s = hp_mpi.ns_per_cyc * 1e-9;
	m->wrappers_s = (double)t.wrap_cyc * s;
	m->piggyback_s = (double)t.pb_cyc * s;
	m->init_s = (double)hp_mpi.init_cyc * s;
	/* only parallel compensation approximates the waits without measurement */
	if (hp_mpi.comp == HP_COMP_PARALLEL && t.wait_raw > t.wait_comp)
		m->induced_wait_s = (double)(t.wait_raw - t.wait_comp) * s;
}

/* HYPROF_MPI_PACK_MAX and HYPROF_MPI_REQUESTS come from the runtime's
 * config (runtime/config.c checks them); the defaults if it never started. */
static size_t cfg_size(uint64_t v, size_t def)
{
	return hp_rt.initialized ? (size_t)v : def;
}

static int decide_mode(void)
{
	if (hp_rt.cfg.compensate_set)
		return hp_rt.cfg.compensate;
	/* the default in measured mode under MPI is parallel compensation */
	return hp_rt.cfg.mode == HP_MODE_MEASURED ? HP_COMP_PARALLEL : hp_rt.cfg.compensate;
}

static void setup(void)
{
	PMPI_Comm_rank(MPI_COMM_WORLD, &hp_mpi.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &hp_mpi.size);
	hp_set_rank(hp_mpi.rank, hp_mpi.size);

	hp_mpi.tsc_hz = hp_calib.tsc_hz > 0 ? hp_calib.tsc_hz : hp_rt.tsc_hz;
	if (hp_mpi.tsc_hz <= 0) {
		struct timespec a, b, d = {0, 5000000};
		clock_gettime(CLOCK_MONOTONIC, &a);
		uint64_t c0 = hp_rdtsc();
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		uint64_t c1 = hp_rdtsc();
		double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
		hp_mpi.tsc_hz = ns > 0 ? (double)(c1 - c0) * 1e9 / ns : 1e9;
	}
	hp_mpi.ns_per_cyc = 1e9 / hp_mpi.tsc_hz;
	hp_mpi.cyc_per_ns = hp_mpi.tsc_hz / 1e9;
	hp_mpi.pack_max = cfg_size(hp_rt.cfg.mpi_pack_max, HP_MPI_PACK_MAX_DEFAULT);

	/* every rank must agree on what messages carry */
	int comp = decide_mode();
	uint32_t pb_size = (uint32_t)(hp_mpi.ext ? HP_PB_FULL : HP_PB_BASE);
	if (hp_mpi.ext && hp_mpi.ext->size > HP_PB_BASE && hp_mpi.ext->size < HP_PB_FULL)
		pb_size = hp_mpi.ext->size; /* issue 6: the extension's slots in use */
	int want_pb = comp == HP_COMP_PARALLEL || hp_mpi.ext != NULL;
	/* the compact form of tiny messages (pb.h): only for the delay alone,
	 * and only where every rank uses it (the minimum over the ranks) */
	int compact = hp_rt.cfg.mpi_pb_compact && pb_size == HP_PB_BASE;
	int mine[6] = {want_pb ? (int)pb_size : 0, want_pb ? -(int)pb_size : 0, comp, -comp, compact, -compact};
	int all[6] = {0, 0, comp, -comp, compact, -compact};
	PMPI_Allreduce(mine, all, 6, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (all[0] != -all[1]) {
		if (hp_mpi.rank == 0)
			hp_log("mpi: the ranks disagree on --compensate or the critical path "
			       "(piggyback of %d and %d bytes): no rank piggybacks; run every rank "
			       "with the same hyprof options",
			       -all[1], all[0]);
		hp_mpi.pb_on = 0;
		comp = comp == HP_COMP_PARALLEL ? HP_COMP_LOCAL : comp;
	} else {
		hp_mpi.pb_on = all[0] > 0;
	}
	hp_mpi.pb_size = hp_mpi.pb_on ? (uint32_t)all[0] : 0;
	hp_mpi.pb_compact = hp_mpi.pb_on && hp_mpi.pb_size == HP_PB_BASE && -all[5] > 0;
	hp_req_clear_ext(hp_mpi.ext != NULL);
	hp_mpi.comp = comp;
	hp_mpi.fold = comp != HP_COMP_NONE;

	/* nodes and clocks */
	hp_mpi.node = node_id();
	hp_mpi.clock_ok = tsc_is_clock();
	hp_mpi.nodes = calloc((size_t)hp_mpi.size, sizeof(uint64_t));
	if (hp_mpi.nodes &&
	    PMPI_Allgather(&hp_mpi.node, 1, MPI_UINT64_T, hp_mpi.nodes, 1, MPI_UINT64_T, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
		memset(hp_mpi.nodes, 0, sizeof(uint64_t) * (size_t)hp_mpi.size);
	if (!hp_mpi.nodes)
		hp_mpi.clock_ok = 0;

	if (hp_reqtab_init((uint32_t)cfg_size(hp_rt.cfg.mpi_requests, 1u << 16)) != 0)
		hp_log("mpi: no memory for the request table: requests go to the slow list");
	hp_comm_init();

	dl_iterate_phdr(own_text, (void *)(uintptr_t)&setup);
	hp_cost_set_mpi_source(mpi_costs);
	hp_sections_register();
	hp_mpi.initialized = 1;
}

/* Called with MPI initialised; turns the wrappers on. */
static void start(void *ra)
{
	(void)ra;
	uint64_t t0 = hp_rdtsc();
	setup();
	main_mt = hp_mt_get();
	hp_mpi.active = 1;
	hp_mpi_calibrate();
	if (hp_mpi.pb_on && hp_mpi.ext && hp_mpi.ext->init)
		hp_mpi.ext->init(); /* issue 6: the critical path's set-up (collective) */
	hp_mpi.t_init1 = hp_rdtsc();
	hp_mpi.init_cyc = hp_mpi.t_init1 - t0;
	if (main_mt) {
		hp_charge(main_mt, hp_mpi.t_init1 - t0);
		/* Every rank leaves MPI_Init together, with or without measurement
		 * (it synchronises), so the approximated execution starts there
		 * too: the delay counts from here, and the walls of the report
		 * run from here to MPI_Finalize (docs/mpi.md). */
		hp_sampler_fold(main_mt, 0); /* the samples before MPI_Init are in o_init */
		hp_mpi.o_init = *main_mt->o;
		*main_mt->x = 0;
	}
}

int hp_w_init(void *ra, __typeof__(&PMPI_Init) pmpi, int *argc, char ***argv)
{
	hp_mpi.t_init0 = hp_rdtsc();
	int rc = pmpi(argc, argv);
	if (rc == MPI_SUCCESS && !hp_mpi.initialized)
		start(ra);
	return rc;
}

int hp_w_init_thread(void *ra, __typeof__(&PMPI_Init_thread) pmpi, int *argc, char ***argv,
		     int required, int *provided)
{
	hp_mpi.t_init0 = hp_rdtsc();
	int rc = pmpi(argc, argv, required, provided);
	if (rc == MPI_SUCCESS && !hp_mpi.initialized) {
		hp_mpi.thread_level = *provided;
		start(ra);
	}
	return rc;
}

#if defined(HP_HAVE_MPI_SESSIONS)
/* MPI 4's Sessions model: MPI_Session_init instead of MPI_Init.  The
 * wrappers start at MPI_Init (the ranks' agreement on the piggyback, the
 * merge: both on MPI_COMM_WORLD, which a Sessions program does not have),
 * so such a program's calls pass straight to MPI and its profile has no
 * MPI part.  Said once, by the job's rank 0 (from the launcher's
 * environment), at its first MPI_Session_finalize, where a program that
 * also calls MPI_Init has long done so. */
int hp_w_session_finalize(void *ra, __typeof__(&PMPI_Session_finalize) pmpi, MPI_Session *session)
{
	static int said;
	(void)ra;
	if (!hp_mpi.initialized && !said && hp_rt.rank <= 0) {
		said = 1;
		hp_log("mpi: MPI Sessions without MPI_Init: this program's MPI calls are not profiled "
		       "(the MPI wrappers start at MPI_Init or MPI_Init_thread)");
	}
	return pmpi(session);
}
#endif

/* ---- the per-rank summary ------------------------------------------------------ */

void hp_mpi_summary(struct hp_mpi_totals *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (struct hp_mt *mt = __atomic_load_n(&hp_mpi.threads, __ATOMIC_ACQUIRE); mt; mt = mt->next) {
		const uint64_t *a = (const uint64_t *)&mt->tot;
		uint64_t *b = (uint64_t *)sum;
		for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
			b[i] += a[i];
	}
}

/* Frozen at MPI_Finalize: the merged file and the per-rank file then agree. */
static struct hp_mpi_final {
	int done;
	uint64_t t_end;   /* TSC */
	uint64_t x, o;    /* the MPI_Init thread's delay and overhead */
} fin;

void hp_mpi_rank_values(struct hp_mpi_rankvals *v)
{
	memset(v, 0, sizeof(*v));
	uint64_t start = hp_mpi.t_init1 ? hp_mpi.t_init1 : hp_mpi.t_start;
	uint64_t end = fin.done ? fin.t_end : hp_rdtsc();
	uint64_t x = fin.done ? fin.x : (main_mt ? *main_mt->x : 0);
	uint64_t o = fin.done ? fin.o : (main_mt ? *main_mt->o : 0);
	o = o > hp_mpi.o_init ? o - hp_mpi.o_init : 0; /* overhead since MPI_Init */
	double s = hp_mpi.ns_per_cyc * 1e-9;
	struct hp_mpi_totals t;
	hp_mpi_summary(&t);
	v->wall_raw = (double)(end - start) * s;
	v->wall_local = (double)(end - start - (o < end - start ? o : end - start)) * s;
	v->wall_parallel = (double)(end - start - (x < end - start ? x : end - start)) * s;
	v->wait_raw = (double)t.wait_raw * s;
	v->wait_comp = (double)t.wait_comp * s;
	v->overhead = (double)o * s;
	v->delay = (double)x * s;
	v->mpi_time = (double)t.time_cyc * s;
	v->pb_cost = (double)t.pb_cyc * s;
	v->wrap_cost = (double)t.wrap_cyc * s;
	v->t = t;
}

/* MPI_Abort: once a rank aborts, mpirun (or MPICH's hydra) kills every
 * process of the job, often with SIGKILL, which leaves nothing but the live
 * snapshots.  This rank writes its profile first, as at exit (its own
 * file: there is no merge), then aborts. */
int hp_w_abort(void *ra, __typeof__(&PMPI_Abort) pmpi, MPI_Comm comm, int errorcode)
{
	(void)ra;
	if (hp_mpi.active) {
		hp_log("MPI_Abort(%d) on rank %d: writing this rank's profile before the job ends", errorcode,
		       hp_mpi.rank);
		hp_runtime_finish("MPI_Abort");
	}
	return pmpi(comm, errorcode);
}

int hp_w_finalize(void *ra, __typeof__(&PMPI_Finalize) pmpi)
{
	(void)ra;
	if (!hp_mpi.active)
		return pmpi();
	struct hp_mt *mt = hp_mt_get();
	if (mt)
		mt->depth = 1; /* nothing below is the program's MPI */
	hp_orphans_poll(mt);
	if (mt)
		hp_sampler_fold(mt, 0);
	hp_mpi.t_fin = hp_rdtsc();
	fin.t_end = hp_mpi.t_fin;
	fin.x = main_mt ? *main_mt->x : 0;
	fin.o = main_mt ? *main_mt->o : 0;
	fin.done = 1;
	if (hp_mpi.pb_on && hp_mpi.ext && hp_mpi.ext->fini)
		hp_mpi.ext->fini(); /* issue 6: the job's critical path (collective) */
	hp_merge_at_finalize();
	hp_types_release();
	hp_coll_release();
	hp_mpi.active = 0;
	int rc = pmpi();
	if (mt)
		mt->depth = 0;
	return rc;
}
