/* mpiwrap/critical_path.c - online critical-path profiling and zeroing (issue 6).
 *
 * ALGORITHMS.md section 6, Hollingsworth 1996 (Figures 3-5): every thread
 * that makes MPI calls keeps
 *     len        the longest path ending at its last event,
 *     share[f]   the time of selected function f on that path,
 *     net[f]     the longest path ending here had f taken no time (zeroing,
 *                the paper's Figure 5: compared by net length, per f),
 * and rides on the wrappers' piggyback (pb.h, struct hp_pb_ext): one
 * piggyback per message carries (len, share[], net[]).  Events are the
 * wrapped calls that send or complete messages and the collectives; the
 * event time is the call's entry t1 (mt->call):
 *   - advance:  len += dP, share[f] += dF, net[f] += dP - dF, where dP is
 *     the time since the last event that the thread was not waiting inside
 *     MPI (path clock P = TSC - the wrappers' measured waiting of the
 *     thread, hp_mt.tot.wait_raw: no system call per event), and dF is f's
 *     part of it (below);
 *   - send:     advance, then fill the piggyback;
 *   - receive:  advance, then adopt (len, share[]) when the message's len is
 *     longer, and net[f] = max(net[f], message's net[f]) for each f.
 *     Non-blocking receives do this in the Wait/Test that completes them.
 *     The rest of the receiving call (message transfer after the send) is
 *     not waiting: it lands after the merge, on the adopted path, as the
 *     message arc's weight;
 *   - collectives: the wrappers' delay exchange carries every member's
 *     piggyback and combines them with `combine` (max by length, carrying
 *     that path's shares; net elementwise max); each member then merges the
 *     combination as a receive (coll_out);
 *   - MPI_Finalize: one MPI_Allreduce over the ranks: the critical path is
 *     the longest of them, its shares those of the rank where it ends, the
 *     zeroing lengths the maxima of net[f].
 *
 * f's time in an interval comes from the probes of the same thread, without
 * a hook in the probe hot path: f's cumulative time is the inclusive time of
 * its probe-tree nodes (added when its outermost active instance exits)
 * plus, when it is on the shadow stack now, now - t_enter of its outermost
 * frame.  f's nodes are found by scanning the nodes created since the last
 * event.  Waiting inside MPI calls made while f was active is removed.  The
 * probes must be timed (--mode measured); in other modes the length alone is
 * tracked (docs/critical-path.md says why).
 *
 * Selection: names (functions by their symbol-table name, found at MPI_Init
 * in the ELF symbol tables of the loaded objects; names that are no function
 * are taken as regions of the region API), or `auto[:K]`: the top K
 * functions by own time not waiting, summed over the ranks, agreed at the
 * first symmetric collective (Allreduce, Barrier, ...) on all the ranks
 * after the warm-up: the exchange of that collective tells every rank that
 * everyone is ready, and all of them then make one MPI_Allgather of their
 * candidates on a private communicator, inside the program's collective, so
 * no rank can be elsewhere.  Shares then cover the path from that point.
 *
 * Intermediate values (Appendix A): each thread publishes its state after
 * every event in one of two slots under a sequence count, so the section
 * writer (signal handler, live-snapshot thread) always reads a consistent
 * (len, share[], net[]) with the event's time: the section also gives the
 * wall the path covers (from MPI_Init to the process's latest event, the
 * longest rank's after MPI_Finalize), which the report sets the length
 * against.
 *
 * Callbacks run in the thread that made the MPI call, inside the wrappers;
 * the section writer is signal-safe (reads only).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/format.h"
#include "counting/counting_priv.h" /* struct hp_region_ent: read-only use */
#include "mpiwrap/critical_path.h"
#include "mpiwrap/critical_path_rules.h"
#include "mpiwrap/mpiwrap.h"

#define NONE 0xffffffffu
#define MAXADDR 8 /* addresses per selected name (clones such as f.constprop.0) */
#define COST_EVERY 64 /* the callbacks time themselves once in this many events */

_Static_assert(HP_PB_NSHARE >= 2 * HP_CP_MAXF, "pb.h carries two slots per function");

/* ---- state -------------------------------------------------------------------------- */

/* One consistent state of a thread, published after each event. */
struct cp_snap {
	uint64_t seq;                 /* even: stable; odd: being written */
	uint64_t tsc;                 /* the event */
	int64_t len;                  /* ns */
	int64_t share[HP_CP_MAXF];
	int64_t net[HP_CP_MAXF];
	int64_t busy[HP_CP_MAXF];     /* f's own time, not waiting, on this thread */
};

#define CP_REG_FRAMES 64 /* open calls remembered when a thread's path begins */

struct cp_thr {
	struct cp_snap snap[2];
	uint32_t cur;                 /* the published slot */
	uint32_t gen;                 /* selection the baselines below belong to */
	struct hp_mt *mt;
	struct hp_thread *t;
	uint64_t last_t1;             /* entry of the call of the last event */
	uint64_t lastP, lastW;        /* path clock and waiting at the last event (cycles) */
	uint64_t lastF[HP_CP_MAXF];   /* items' cumulative time at the last event (cycles) */
	uint32_t act;                 /* bit f: f was on the shadow stack at the last event */
	/* probe-tree nodes of the selected items */
	uint32_t scan_n, cap;
	uint8_t *tag;                 /* node -> item + 1, 0: none */
	uint32_t *anc;                /* node -> items on its path (bits) */
	uint32_t *nxt;                /* node -> next counted node of its item */
	uint32_t head[HP_CP_MAXF];    /* item -> first counted node */
	uint32_t nkeys[HP_CP_MAXF];
	/* auto, before the selection: per probe node, time that is no
	 * candidate's own (waiting inside the MPI calls made there, and the
	 * time before the thread's path began) */
	uint64_t *nwait;
	uint32_t wnode;
	/* ... and of the calls open when it began (at reg_tsc): their
	 * returned children's time then, by depth */
	uint64_t reg_tsc;
	uint32_t reg_sp;
	uint64_t reg_enter[CP_REG_FRAMES], reg_child[CP_REG_FRAMES];
	uint64_t events, sends, recvs, colls, adopted;
	uint64_t cost_n, cost_cyc, cost_mean; /* the callbacks' own cost, sampled */
	struct cp_thr *next;
};

struct cp_item {
	char name[HP_CP_NAME];
	uint64_t addr[MAXADDR];       /* functions: entry addresses here */
	uint32_t naddr;
	uint32_t region;              /* 1: a region name */
};

static struct {
	int registered;               /* the extension is on (HYPROF_CRITICAL_PATH) */
	int on;                       /* between init and fini */
	int kcap;                     /* functions carried (slots on the wire) */
	int auto_;                    /* auto selection */
	int kcap_only;                /* the ranks disagree: slots carried, nothing selected */
	const char *why_none;         /* auto: why nothing was selected (the agreement failed) */
	int timed;                    /* probes are timed: shares are measured */
	int untimed_auto;             /* auto outside measured mode: slots dropped at start */
	char spec[1024];
	uint32_t gen;                 /* selection generation (atomic) */
	int k;                        /* items selected */
	struct cp_item item[HP_CP_MAXF];
	uint32_t region_items;        /* bits of the items that are region names */
	/* auto */
	uint64_t warmup_cyc;
	int selected;                 /* auto: the agreement happened */
	int64_t start_len;            /* path length when the shares started */
	uint64_t sel_tsc;
	uint64_t t_start;             /* TSC at init */
	MPI_Comm comm;                /* private: agreement and the final reduction */
	/* the region table of libhyprof.so (read-only) */
	struct hp_region_ent **regions;
	volatile uint32_t *nregions;
	/* the job, after MPI_Finalize */
	int final;
	int64_t g_len, g_start;
	int g_rank;
	int64_t g_share[HP_CP_MAXF], g_net[HP_CP_MAXF], g_busy[HP_CP_MAXF];
	uint32_t g_nkeys[HP_CP_MAXF];
	uint64_t g_events, g_adopted;
	int64_t g_cost_ns;
	int64_t g_wall;               /* the longest rank's wall from MPI_Init to MPI_Finalize */
	struct cp_thr *threads;       /* every thread with a state (newest first) */
} cp = {.comm = MPI_COMM_NULL, .g_rank = -1};

static __thread struct cp_thr *cp_tls __attribute__((tls_model("initial-exec")));

static inline int64_t cyc2ns(uint64_t c) { return hp_cyc_to_ns((int64_t)c); }

/* ---- ELF symbol tables ------------------------------------------------------------
 * mpiwrap/elfsym.c keeps function ranges without names and counting/filter.c
 * is private to libhyprof.so, so this reads names itself: .symtab, or
 * .dynsym when the object is stripped.  Not signal-safe (open, mmap). */

struct elf_syms {
	const uint8_t *m;
	size_t len;
	const Elf64_Sym *sym;
	size_t n;
	const char *str;
	size_t strsz;
};

static int elf_open(const char *path, struct elf_syms *e)
{
	memset(e, 0, sizeof(*e));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	e->len = (size_t)st.st_size;
	e->m = mmap(NULL, e->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->m == MAP_FAILED) {
		e->m = NULL;
		return -1;
	}
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff == 0 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > e->len)
		goto bad;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->m + eh->e_shoff);
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *s = &sh[i];
			if (s->sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || s->sh_entsize != sizeof(Elf64_Sym) ||
			    s->sh_offset + s->sh_size > e->len || s->sh_link >= eh->e_shnum)
				continue;
			const Elf64_Shdr *ss = &sh[s->sh_link];
			if (ss->sh_offset + ss->sh_size > e->len)
				continue;
			e->sym = (const Elf64_Sym *)(e->m + s->sh_offset);
			e->n = s->sh_size / sizeof(Elf64_Sym);
			e->str = (const char *)(e->m + ss->sh_offset);
			e->strsz = ss->sh_size;
			return 0;
		}
bad:
	munmap((void *)e->m, e->len);
	e->m = NULL;
	return -1;
}

static void elf_close(struct elf_syms *e)
{
	if (e->m)
		munmap((void *)e->m, e->len);
	e->m = NULL;
}

static const char *elf_name(const struct elf_syms *e, const Elf64_Sym *s)
{
	return s->st_name < e->strsz ? e->str + s->st_name : "";
}

/* The loaded objects with a file: path, load bias, a hash of the file's
 * base name (the same object on every rank, wherever it is installed). */
struct cp_mod {
	char path[PATH_MAX];
	uint64_t bias;
	uint64_t id;
	int own;                      /* hyprof's runtime or wrappers */
};
struct cp_mods {
	struct cp_mod *m;
	size_t n, cap;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ? h : 1;
}

static int mods_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct cp_mods *ms = arg;
	char path[PATH_MAX];
	if (!info->dlpi_name || !info->dlpi_name[0]) {
		if (ms->n > 0)
			return 0; /* the vdso and others without a name */
		ssize_t k = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (k <= 0)
			return 0;
		path[k] = '\0';
	} else {
		if (info->dlpi_name[0] != '/')
			return 0; /* linux-vdso.so.1 */
		snprintf(path, sizeof(path), "%s", info->dlpi_name);
	}
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap : 32;
		struct cp_mod *m = realloc(ms->m, cap * sizeof(*m));
		if (!m)
			return 1;
		ms->m = m;
		ms->cap = cap;
	}
	struct cp_mod *m = &ms->m[ms->n++];
	memcpy(m->path, path, sizeof(path));
	m->bias = info->dlpi_addr;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	m->id = fnv(base);
	m->own = strncmp(base, "libhyprof", 9) == 0;
	return 0;
}

static void mods_load(struct cp_mods *ms)
{
	memset(ms, 0, sizeof(*ms));
	dl_iterate_phdr(mods_cb, ms);
}

/* The object that contains addr (by its load bias). */
static const struct cp_mod *mods_of(const struct cp_mods *ms, uint64_t addr)
{
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)(uintptr_t)addr, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].bias == (uint64_t)lm->l_addr)
			return &ms->m[i];
	return NULL;
}

/* ---- selection by name ------------------------------------------------------------ */

/* `name` or a compiler clone of it (name.constprop.0, name.part.1, ...). */
static int name_matches(const char *sym, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '.');
}

/* A demangled C++ name: `name` itself, or `name(` and its parameters
 * (app::solve matches app::solve(int) and its clones), also after a
 * template's return type. */
static int cxx_matches(const char *dm, const char *name)
{
	return hp_cp_name_match(dm, name, "(", 1);
}

/* A Fortran module procedure's symbol, __mod_MOD_proc, spelled as the
 * profile names it from the debug information: mod::proc.  0 if sym is
 * none (gfortran lowercases module names, so _MOD_ is the separator). */
static int fortran_name(const char *sym, char *buf, size_t len)
{
	const char *sep = sym[0] == '_' && sym[1] == '_' ? strstr(sym + 2, "_MOD_") : NULL;
	if (!sep || sep == sym + 2 || !sep[5])
		return 0;
	int n = snprintf(buf, len, "%.*s::%s", (int)(sep - sym - 2), sym + 2, sep + 5);
	return n > 0 && (size_t)n < len;
}

/* Pass 0's match: the symbol's own name, or its Fortran spelling. */
static int sym_matches(const char *sym, const char *name)
{
	char f[HP_CP_NAME + 64];
	return name_matches(sym, name) || (fortran_name(sym, f, sizeof f) && name_matches(f, name));
}

typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static void add_addr(struct cp_item *it, uint64_t a)
{
	for (uint32_t j = 0; j < it->naddr; j++)
		if (it->addr[j] == a)
			return;
	if (it->naddr < MAXADDR)
		it->addr[it->naddr++] = a;
}

/* Pass 0: the names as in the symbol tables (Fortran module procedures
 * also as mod::proc).  Pass 1 (names still not
 * found, when the C++ runtime is loaded): C++ symbols demangled. */
static void resolve_pass(const struct cp_mods *ms, demangle_fn dem)
{
	uint32_t todo = 0;
	for (int k = 0; k < cp.k; k++)
		if (!cp.item[k].naddr)
			todo |= 1u << k;
	if (!todo)
		return;
	for (size_t mi = 0; mi < ms->n; mi++) {
		if (ms->m[mi].own)
			continue;
		struct elf_syms e;
		if (elf_open(ms->m[mi].path, &e))
			continue;
		for (size_t i = 0; i < e.n; i++) {
			const Elf64_Sym *s = &e.sym[i];
			int type = ELF64_ST_TYPE(s->st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s->st_value || s->st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_name(&e, s);
			char *dm = NULL;
			if (dem) {
				int st = 0;
				if (nm[0] != '_' || nm[1] != 'Z' || !(dm = dem(nm, NULL, NULL, &st)) || st)
					continue;
			}
			for (int k = 0; k < cp.k; k++)
				if ((todo >> k & 1) && (dm ? cxx_matches(dm, cp.item[k].name)
							   : sym_matches(nm, cp.item[k].name)))
					add_addr(&cp.item[k], ms->m[mi].bias + s->st_value);
			free(dm);
		}
		elf_close(&e);
	}
}

static void resolve_names(const struct cp_mods *ms)
{
	resolve_pass(ms, NULL);
	demangle_fn dem = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (dem)
		resolve_pass(ms, dem);
	for (int k = 0; k < cp.k; k++)
		if (!cp.item[k].naddr) {
			cp.item[k].region = 1; /* no function of that name: a region name */
			cp.region_items |= 1u << k;
		}
}

/* The region table of libhyprof.so is private to it (counting/regions.c):
 * its address comes from libhyprof.so's symbol table.  Without it (a
 * stripped library) regions cannot be selected by name. */
static void find_region_table(void)
{
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)&hp_rt, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !di.dli_fname)
		return;
	struct elf_syms e;
	if (elf_open(di.dli_fname, &e))
		return;
	for (size_t i = 0; i < e.n; i++) {
		const Elf64_Sym *s = &e.sym[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || !s->st_value)
			continue;
		const char *nm = elf_name(&e, s);
		if (!strcmp(nm, "hp_regions"))
			cp.regions = (struct hp_region_ent **)(uintptr_t)(lm->l_addr + s->st_value);
		else if (!strcmp(nm, "hp_nregions"))
			cp.nregions = (volatile uint32_t *)(uintptr_t)(lm->l_addr + s->st_value);
	}
	elf_close(&e);
	if (!cp.regions || !cp.nregions)
		cp.regions = NULL;
}

static const char *region_name(uint64_t id)
{
	if (!cp.regions)
		return NULL;
	struct hp_region_ent *r = __atomic_load_n(cp.regions, __ATOMIC_ACQUIRE);
	uint32_t n = __atomic_load_n(cp.nregions, __ATOMIC_ACQUIRE);
	return r && id >= 1 && id <= n ? r[id].name : NULL;
}

/* The item a probe-tree node belongs to, or -1. */
static int node_item(const struct cct_node *nd)
{
	if (nd->flags & CCT_F_REGION) {
		if (!cp.region_items)
			return -1;
		const char *nm = region_name(nd->key);
		if (!nm)
			return -1;
		for (int k = 0; k < cp.k; k++)
			if ((cp.region_items >> k & 1) && !strcmp(cp.item[k].name, nm))
				return k;
		return -1;
	}
	for (int k = 0; k < cp.k; k++)
		for (uint32_t j = 0; j < cp.item[k].naddr; j++)
			if (cp.item[k].addr[j] == nd->key)
				return k;
	return -1;
}

/* ---- per-thread state ------------------------------------------------------------- */

static void *zmap(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The calls open on s's thread when its path begins at t1 (this thread:
 * its stack holds still): what they did before is not candidates' time. */
static void reg_open(struct cp_thr *s, uint64_t t1)
{
	const struct hp_thread *t = s->t;
	s->reg_tsc = t1;
	s->reg_sp = t->sp < CP_REG_FRAMES ? t->sp : CP_REG_FRAMES;
	for (uint32_t i = 0; i < s->reg_sp; i++) {
		s->reg_enter[i] = t->stack[i].t_enter;
		s->reg_child[i] = t->stack[i].child_incl;
	}
}

static struct cp_thr *thr_new(struct hp_mt *mt, uint64_t t1)
{
	struct cp_thr *s = zmap(sizeof(*s));
	if (!s)
		return NULL;
	s->mt = mt;
	s->t = mt->t && mt->t->stack && mt->t->probe.nodes ? mt->t : NULL;
	s->last_t1 = 0;
	s->lastP = t1 - mt->tot.wait_raw;
	s->lastW = mt->tot.wait_raw;
	s->wnode = s->t ? s->t->probe_cur : 0;
	for (int f = 0; f < HP_CP_MAXF; f++)
		s->head[f] = NONE;
	if (s->t) {
		s->cap = s->t->probe.cap;
		s->tag = zmap(s->cap);
		s->anc = zmap(sizeof(uint32_t) * (size_t)s->cap);
		s->nxt = zmap(sizeof(uint32_t) * (size_t)s->cap);
		if (cp.auto_) {
			/* time of the nodes before this thread's path began (before
			 * MPI_Init: static constructors, set-up) is not candidates'
			 * time either: it starts as excluded */
			s->nwait = zmap(sizeof(uint64_t) * (size_t)s->cap);
			uint32_t n = __atomic_load_n(&s->t->probe.n, __ATOMIC_ACQUIRE);
			for (uint32_t i = 0; s->nwait && i < n && i < s->cap; i++)
				s->nwait[i] = s->t->probe.nodes[i].excl;
			reg_open(s, t1);
		}
		if (!s->tag || !s->anc || !s->nxt || (cp.auto_ && !s->nwait)) {
			hp_log("critical path: no memory for thread %d's probe index: its shares are not "
			       "measured",
			       mt->tid);
			s->t = NULL;
		}
	}
	struct cp_thr *head = __atomic_load_n(&cp.threads, __ATOMIC_RELAXED);
	do
		s->next = head;
	while (!__atomic_compare_exchange_n(&cp.threads, &head, s, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	cp_tls = s;
	return s;
}

/* Index the probe-tree nodes created since the last event. */
static void discover(struct cp_thr *s)
{
	const struct cct *tr = &s->t->probe;
	uint32_t n = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
	if (n > s->cap)
		n = s->cap;
	if (n < s->scan_n) { /* the tree was reset (fork): start over */
		s->scan_n = 0;
		for (int f = 0; f < HP_CP_MAXF; f++) {
			s->head[f] = NONE;
			s->nkeys[f] = 0;
		}
	}
	if (!cp.k) {
		s->scan_n = n;
		return;
	}
	for (uint32_t i = s->scan_n; i < n; i++) {
		const struct cct_node *nd = &tr->nodes[i];
		uint32_t up = nd->parent < i ? s->anc[nd->parent] : 0;
		int f = i ? node_item(nd) : -1;
		s->tag[i] = (uint8_t)(f + 1);
		s->anc[i] = up | (f >= 0 ? 1u << f : 0);
		if (f >= 0) {
			s->nkeys[f]++;
			if (!(up >> f & 1)) { /* not nested in itself: its incl counts */
				s->nxt[i] = s->head[f];
				s->head[f] = i;
			}
		}
	}
	s->scan_n = n;
}

/* Items' cumulative time at TSC t (cycles) and which are on the stack. */
static uint32_t item_times(struct cp_thr *s, uint64_t t, uint64_t *F)
{
	discover(s);
	const struct cct_node *nodes = s->t->probe.nodes;
	for (int f = 0; f < cp.k; f++) {
		uint64_t sum = 0;
		for (uint32_t n = s->head[f]; n != NONE; n = s->nxt[n])
			sum += nodes[n].incl;
		F[f] = sum;
	}
	uint32_t seen = 0, sp = s->t->sp;
	if (sp > HP_STACK_MAX)
		sp = HP_STACK_MAX;
	const struct hp_frame *stk = s->t->stack;
	for (uint32_t i = 0; i < sp; i++) {
		uint32_t n = stk[i].node;
		if (n >= s->scan_n)
			continue;
		uint32_t g = s->tag[n];
		if (g && !(seen >> (g - 1) & 1)) {
			seen |= 1u << (g - 1);
			if (t > stk[i].t_enter)
				F[g - 1] += t - stk[i].t_enter;
		}
	}
	return seen;
}

/* ---- events --------------------------------------------------------------------------- */

static struct cp_snap *snap_begin(struct cp_thr *s)
{
	const struct cp_snap *a = &s->snap[s->cur];
	struct cp_snap *b = &s->snap[s->cur ^ 1];
	__atomic_store_n(&b->seq, a->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return b;
}

static void snap_publish(struct cp_thr *s, struct cp_snap *b)
{
	__atomic_store_n(&b->seq, b->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->cur, s->cur ^ 1, __ATOMIC_RELEASE);
}

/* The shares start now (a new selection): baselines, zero shares. */
static void rebase(struct cp_thr *s, struct cp_snap *b, uint64_t t)
{
	s->gen = __atomic_load_n(&cp.gen, __ATOMIC_ACQUIRE);
	s->scan_n = 0;
	for (int f = 0; f < HP_CP_MAXF; f++) {
		s->head[f] = NONE;
		s->nkeys[f] = 0;
		s->lastF[f] = 0;
	}
	s->act = 0;
	if (s->t && cp.timed && cp.k)
		s->act = item_times(s, t, s->lastF);
	for (int f = 0; f < cp.kcap; f++) {
		b->share[f] = 0;
		b->net[f] = b->len;
		b->busy[f] = 0;
	}
}

/* Start the state of an event at the entry t1 of the current call: the
 * path advanced to t1 (a second callback of the same call, e.g. the receive
 * half of a Sendrecv or the other messages of a Waitall, continues the
 * same event).  Returns the slot to finish and publish. */
static struct cp_snap *event(struct cp_thr *s, uint64_t t1)
{
	const struct cp_snap *a = &s->snap[s->cur];
	struct cp_snap *b = snap_begin(s);
	int kc = cp.kcap;
	b->len = a->len;
	memcpy(b->share, a->share, sizeof(int64_t) * (size_t)kc);
	memcpy(b->net, a->net, sizeof(int64_t) * (size_t)kc);
	memcpy(b->busy, a->busy, sizeof(int64_t) * (size_t)kc);
	b->tsc = a->tsc;
	if (t1 == s->last_t1)
		return b;
	s->last_t1 = t1;
	s->events++;
	uint64_t W = s->mt->tot.wait_raw;
	uint64_t P = t1 - W;
	int64_t dP = (int64_t)(P - s->lastP);
	if (dP < 0)
		dP = 0;
	uint64_t dW = W - s->lastW;
	s->lastP = P;
	s->lastW = W;
	int64_t dPn = cyc2ns((uint64_t)dP), dFn[HP_CP_MAXF];
	int with_f = 0;
	b->tsc = t1;
	if (s->t && cp.timed) {
		if (cp.auto_ && !cp.k && s->nwait) {
			/* candidates' own time: waiting of the calls made at each node */
			if (s->wnode < s->cap)
				s->nwait[s->wnode] += dW;
			s->wnode = s->t->probe_cur;
		}
		if (cp.k && s->gen == __atomic_load_n(&cp.gen, __ATOMIC_ACQUIRE)) {
			uint64_t F[HP_CP_MAXF];
			uint32_t act = item_times(s, t1, F);
			for (int f = 0; f < kc; f++) {
				int64_t dF = 0;
				if (f < cp.k) {
					dF = (int64_t)(F[f] - s->lastF[f]);
					if (s->act >> f & 1)
						dF -= (int64_t)dW; /* f was active across the last call's wait */
					if (dF < 0)
						dF = 0;
					if (dF > dP)
						dF = dP;
					s->lastF[f] = F[f];
				}
				dFn[f] = dF == dP ? dPn : cyc2ns((uint64_t)dF);
				b->busy[f] += dFn[f];
			}
			s->act = act;
			with_f = 1;
		}
	}
	hp_cp_advance(&b->len, b->share, b->net, kc, dPn, with_f ? dFn : NULL);
	if (s->gen != __atomic_load_n(&cp.gen, __ATOMIC_ACQUIRE))
		rebase(s, b, t1); /* a new selection: the shares start here */
	return b;
}

/* A message's path (or a collective's combination) arrives. */
static void merge(struct cp_thr *s, struct cp_snap *b, const struct hp_pb *pb)
{
	s->adopted += (uint64_t)hp_cp_merge(&b->len, b->share, b->net, cp.kcap, pb->cp_len_ns, pb->cp_share_ns);
}

static void fill(struct hp_pb *pb, const struct cp_snap *b)
{
	hp_cp_pack(&pb->cp_len_ns, pb->cp_share_ns, b->len, b->share, b->net, cp.kcap);
}

/* The calling thread's state inside a wrapped call, or NULL. */
static inline struct cp_thr *self(struct hp_mt **mtp)
{
	if (HP_UNLIKELY(!cp.on))
		return NULL;
	struct hp_mt *mt = hp_mt_tls;
	if (HP_UNLIKELY(!mt || !mt->call))
		return NULL;
	*mtp = mt;
	struct cp_thr *s = cp_tls;
	if (HP_UNLIKELY(!s))
		s = thr_new(mt, mt->call->t1);
	return s;
}

/* The callbacks time themselves on one event in COST_EVERY and charge the
 * mean to the call (o_p and x_p through the wrappers, tot.pb_cyc), once per
 * event: a callback that continues the call's event (the receive half of a
 * Sendrecv, the other messages of a Waitall: a merge of 1 + 2K words) is
 * neither timed nor charged.  Not the first events of the thread either:
 * they page in its index. */
struct cost {
	uint64_t c0;  /* TSC at the start, 0: not timed */
	int fresh;    /* the callback starts an event */
};
static inline struct cost cost_begin(const struct cp_thr *s, uint64_t t1)
{
	struct cost c = {0, t1 != s->last_t1};
	if (c.fresh && s->events % COST_EVERY == 4)
		c.c0 = hp_rdtsc();
	return c;
}
static inline void cost_end(struct cp_thr *s, struct hp_mt *mt, struct cost c)
{
	if (c.c0) {
		s->cost_cyc += hp_rdtsc() - c.c0;
		s->cost_n++;
		s->cost_mean = s->cost_cyc / s->cost_n;
	}
	if (c.fresh)
		hp_charge_pb(mt->call, s->cost_mean);
}

static void cb_send(struct hp_pb *pb)
{
	struct hp_mt *mt;
	struct cp_thr *s = self(&mt);
	if (!s) { /* before init (the wrappers' calibration): an empty path */
		memset(&pb->cp_len_ns, 0, sizeof(int64_t) * (size_t)(1 + 2 * cp.kcap));
		return;
	}
	struct cost c0 = cost_begin(s, mt->call->t1);
	struct cp_snap *b = event(s, mt->call->t1);
	snap_publish(s, b);
	fill(pb, b);
	s->sends++;
	cost_end(s, mt, c0);
}

static void cb_recv(const struct hp_pb *pb, int src_world)
{
	(void)src_world;
	struct hp_mt *mt;
	struct cp_thr *s = self(&mt);
	if (!s)
		return;
	struct cost c0 = cost_begin(s, mt->call->t1);
	struct cp_snap *b = event(s, mt->call->t1);
	merge(s, b, pb);
	snap_publish(s, b);
	s->recvs++;
	cost_end(s, mt, c0);
}

/* ---- collectives ------------------------------------------------------------------ */

static int symmetric(uint32_t fn)
{
	switch (fn) {
	case HP_FN_MPI_Barrier:
	case HP_FN_MPI_Allreduce:
	case HP_FN_MPI_Allgather:
	case HP_FN_MPI_Allgatherv:
	case HP_FN_MPI_Alltoall:
	case HP_FN_MPI_Alltoallv:
	case HP_FN_MPI_Alltoallw:
	case HP_FN_MPI_Reduce_scatter:
	case HP_FN_MPI_Reduce_scatter_block:
		return 1;
	default:
		return 0;
	}
}

/* Ready for the auto agreement: the thread that called MPI_Init, past the
 * warm-up, nothing selected yet. */
static int auto_ready(const struct cp_thr *s, uint64_t t1)
{
	return cp.auto_ && !cp.selected && cp.timed && s->mt->index == 0 &&
	       t1 - cp.t_start >= cp.warmup_cyc;
}

static void agree(struct cp_thr *s, struct cp_snap *b, uint64_t t1);

static void cb_coll_in(struct hp_pb *pb)
{
	struct hp_mt *mt;
	struct cp_thr *s = self(&mt);
	if (!s) {
		pb->cp_coll[0] = 1;
		pb->cp_coll[1] = 0;
		return;
	}
	struct cost c0 = cost_begin(s, mt->call->t1);
	struct cp_snap *b = event(s, mt->call->t1);
	snap_publish(s, b);
	fill(pb, b);
	pb->cp_coll[0] = 1;                          /* members (summed) */
	pb->cp_coll[1] = auto_ready(s, mt->call->t1); /* all ready (minimum) */
	s->colls++;
	cost_end(s, mt, c0);
}

static void cb_coll_out(const struct hp_pb *pb)
{
	struct hp_mt *mt;
	struct cp_thr *s = self(&mt);
	if (!s)
		return;
	struct cost c0 = cost_begin(s, mt->call->t1);
	uint64_t t1 = mt->call->t1;
	struct cp_snap *b = event(s, t1);
	merge(s, b, pb);
	/* every rank is in this collective and every one is ready: agree on
	 * the functions now (the members all saw the same combination) */
	if (pb->cp_coll[1] == 1 && pb->cp_coll[0] == hp_mpi.size && symmetric(mt->call->fn) &&
	    auto_ready(s, t1)) {
		uint64_t a0 = hp_rdtsc();
		agree(s, b, t1);
		hp_charge_pb(mt->call, hp_rdtsc() - a0); /* once: not an event's cost */
		c0.c0 = 0;
	}
	snap_publish(s, b);
	cost_end(s, mt, c0);
}

/* Max by length carrying the shares (ties: the larger share vector, so the
 * operation is commutative and associative); net elementwise max; the
 * members summed, readiness the minimum. */
static void cb_combine(const struct hp_pb *in, struct hp_pb *io)
{
	hp_cp_combine(in->cp_len_ns, in->cp_share_ns, &io->cp_len_ns, io->cp_share_ns, cp.kcap);
	io->cp_coll[0] += in->cp_coll[0];
	if (in->cp_coll[1] < io->cp_coll[1])
		io->cp_coll[1] = in->cp_coll[1];
}

/* ---- auto: the top functions, agreed ------------------------------------------------ */

struct cand {
	uint64_t mod, off; /* object (hash of its base name) and offset in it */
	int64_t score;     /* own time not waiting, ns */
};

/* In cand.mod: the function was open when its rank scored it (open_own).
 * Such candidates rank after every returned one: an open caller's own time
 * holds its MPI calls' time beyond their waiting, so a driver loop would
 * crowd out the work it calls; they fill the slots left (a main program
 * that is all the work). */
#define CAND_OPEN (1ull << 63)
#define CAND_MOD(c) ((c)->mod & ~CAND_OPEN)

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if ((x->mod & CAND_OPEN) != (y->mod & CAND_OPEN))
		return x->mod & CAND_OPEN ? 1 : -1;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

static int cand_key_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->mod != y->mod)
		return x->mod < y->mod ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* Sum the scores of equal (mod, off), drop the empty ones (score <= 0),
 * sort best first (ties by key, so every rank gets the same order).
 * Returns the count. */
static size_t cand_fold(struct cand *c, size_t n)
{
	qsort(c, n, sizeof(*c), cand_key_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].score <= 0)
			continue;
		if (k && c[k - 1].mod == c[i].mod && c[k - 1].off == c[i].off)
			c[k - 1].score += c[i].score;
		else
			c[k++] = c[i];
	}
	qsort(c, k, sizeof(*c), cand_cmp);
	return k;
}

/* Own time so far of the calls still open on thread s at `now`, per probe
 * node (open[] has s->cap entries): a node's exclusive time only grows when
 * its call returns, and the function that runs the program's main loop
 * (Fortran's main program, a C main) is still open when the ranks agree.
 * Each frame's time up to its open child's entry, less its returned
 * children, counted from when the thread's path began (a call open then
 * loses its time and children before it).  Only the agreeing thread's own
 * stack: another thread's changes meanwhile. */
static void open_own(const struct cp_thr *s, uint64_t now, uint64_t *open)
{
	const struct hp_thread *t = s->t;
	uint32_t sp = t->sp < HP_STACK_MAX ? t->sp : HP_STACK_MAX;
	for (uint32_t i = 0; i < sp; i++) {
		const struct hp_frame *f = &t->stack[i];
		uint64_t start = f->t_enter, end = i + 1 < sp ? t->stack[i + 1].t_enter : now;
		uint64_t child = f->child_incl;
		if (start < s->reg_tsc) {
			start = s->reg_tsc;
			if (i < s->reg_sp && s->reg_enter[i] == f->t_enter)
				child -= s->reg_child[i];
		}
		if (f->node < s->cap && end > start && end - start > child)
			open[f->node] += end - start - child;
	}
}

/* This process's best `max` candidates: per function, its own (exclusive)
 * time minus the waiting of the MPI calls it made, over the threads; the
 * calling thread's open calls count their time so far (`now`). */
static size_t own_candidates(struct cand *out, size_t max, const struct cp_mods *ms, const struct cp_thr *me,
			     uint64_t now)
{
	size_t total = 0;
	for (struct cp_thr *s = __atomic_load_n(&cp.threads, __ATOMIC_ACQUIRE); s; s = s->next)
		if (s->t && s->nwait)
			total += __atomic_load_n(&s->t->probe.n, __ATOMIC_ACQUIRE);
	struct cand *c = malloc(sizeof(*c) * (total ? total : 1));
	if (!c)
		return 0;
	size_t n = 0;
	for (struct cp_thr *s = __atomic_load_n(&cp.threads, __ATOMIC_ACQUIRE); s; s = s->next) {
		if (!s->t || !s->nwait)
			continue;
		const struct cct *tr = &s->t->probe;
		uint32_t nn = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
		if (nn > s->cap)
			nn = s->cap;
		uint64_t *open = s == me ? calloc(s->cap, sizeof(*open)) : NULL;
		if (open)
			open_own(s, now, open);
		for (uint32_t i = 1; i < nn && n < total; i++) {
			const struct cct_node *nd = &tr->nodes[i];
			if (!(nd->flags & CCT_F_PROBE) || (nd->flags & (CCT_F_REGION | CCT_F_REDIRECT)))
				continue;
			uint64_t o = open ? open[i] : 0;
			int64_t sc = (int64_t)nd->excl + (int64_t)o - (int64_t)s->nwait[i];
			if (sc <= 0)
				continue;
			c[n].mod = o ? CAND_OPEN : 0;
			c[n].off = nd->key; /* the address, until folded */
			c[n].score = cyc2ns((uint64_t)sc);
			n++;
		}
		free(open);
	}
	n = cand_fold(c, n);
	size_t k = 0;
	for (size_t j = 0; j < n && k < max; j++) {
		const struct cp_mod *m = mods_of(ms, c[j].off);
		if (!m || m->own)
			continue;
		out[k].mod = (m->id & ~CAND_OPEN) | (c[j].mod & CAND_OPEN);
		out[k].off = c[j].off - m->bias;
		out[k].score = c[j].score;
		k++;
	}
	free(c);
	return k;
}

/* Names of the selected items (entry addresses) from the symbol tables of
 * their objects, one pass per object; "object+0xoffset" when none. */
static void name_items(const struct cp_mods *ms, const int *mod_of_item, const uint64_t *off, int k)
{
	for (int f = 0; f < k; f++) {
		if (mod_of_item[f] < 0)
			continue; /* named by the caller */
		const struct cp_mod *m = &ms->m[mod_of_item[f]];
		const char *base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
		snprintf(cp.item[f].name, sizeof(cp.item[f].name), "%.40s+0x%llx", base, (unsigned long long)off[f]);
	}
	for (size_t mi = 0; mi < ms->n; mi++) {
		int any = 0;
		for (int f = 0; f < k; f++)
			any |= mod_of_item[f] == (int)mi;
		struct elf_syms e;
		if (!any || elf_open(ms->m[mi].path, &e))
			continue;
		for (size_t i = 0; i < e.n; i++) {
			const Elf64_Sym *s = &e.sym[i];
			int type = ELF64_ST_TYPE(s->st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF)
				continue;
			for (int f = 0; f < k; f++)
				if (mod_of_item[f] == (int)mi && s->st_value == off[f])
					snprintf(cp.item[f].name, sizeof(cp.item[f].name), "%s", elf_name(&e, s));
		}
		elf_close(&e);
	}
}

/* Inside a symmetric collective on every rank: exchange the candidates,
 * select the same top K everywhere, start the shares.  The buffers were
 * allocated at MPI_Init (and agreed to exist on every rank), so every rank
 * takes part in the exchange. */
static struct cand *agree_mine, *agree_all;

/* The function of c[i] came earlier in c (as the other kind). */
static int selected_before(const struct cand *c, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (CAND_MOD(&c[j]) == CAND_MOD(&c[i]) && c[j].off == c[i].off)
			return 1;
	return 0;
}

static void agree(struct cp_thr *s, struct cp_snap *b, uint64_t t1)
{
	cp.selected = 1; /* one attempt */
	size_t C = 2 * (size_t)cp.kcap, np = (size_t)hp_mpi.size;
	struct cp_mods ms;
	mods_load(&ms);
	size_t n = own_candidates(agree_mine, C, &ms, s, t1);
	for (size_t i = n; i < C; i++)
		agree_mine[i] = (struct cand){0, 0, 0}; /* empty */
	if (PMPI_Allgather(agree_mine, (int)(C * sizeof(struct cand)), MPI_BYTE, agree_all,
			   (int)(C * sizeof(struct cand)), MPI_BYTE, cp.comm) != MPI_SUCCESS) {
		hp_log("critical path: the ranks' candidates could not be exchanged: nothing selected");
		cp.why_none = "none: the ranks' candidates could not be exchanged";
		free(ms.m);
		return;
	}
	size_t m = cand_fold(agree_all, C * np);
	int k = 0, mod_of[HP_CP_MAXF];
	uint64_t off[HP_CP_MAXF];
	for (size_t i = 0; i < m && k < cp.kcap; i++) {
		if (selected_before(agree_all, i))
			continue; /* open on some rank, returned on another */
		struct cp_item *it = &cp.item[k];
		memset(it, 0, sizeof(*it));
		mod_of[k] = -1;
		off[k] = agree_all[i].off;
		for (size_t j = 0; j < ms.n && mod_of[k] < 0; j++)
			if ((ms.m[j].id & ~CAND_OPEN) == CAND_MOD(&agree_all[i]))
				mod_of[k] = (int)j;
		if (mod_of[k] >= 0) {
			it->addr[0] = ms.m[mod_of[k]].bias + off[k];
			it->naddr = 1;
		} else { /* an object this rank has not loaded */
			snprintf(it->name, sizeof(it->name), "[object %016llx]+0x%llx",
				 (unsigned long long)CAND_MOD(&agree_all[i]), (unsigned long long)off[k]);
		}
		k++;
	}
	name_items(&ms, mod_of, off, k);
	free(ms.m);
	if (!k)
		cp.why_none = "none: no instrumented function had own time when the ranks agreed";
	cp.start_len = b->len;
	cp.sel_tsc = t1;
	__atomic_store_n(&cp.k, k, __ATOMIC_RELEASE);
	__atomic_add_fetch(&cp.gen, 1, __ATOMIC_RELEASE);
	rebase(s, b, t1);
}

/* ---- life cycle ------------------------------------------------------------------- */

static void cp_init(void)
{
	__atomic_store_n(&cp.t_start, hp_rdtsc(), __ATOMIC_RELEASE);
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &cp.comm) != MPI_SUCCESS)
		cp.comm = MPI_COMM_NULL;
	cp.timed = hp_rt.cfg.mode == HP_MODE_MEASURED;
	/* the slots must mean the same functions on every rank: same selection */
	int64_t h = (int64_t)(fnv(cp.spec) >> 1), hh[2] = {h, -h}, all[2] = {h, -h};
	if (cp.comm != MPI_COMM_NULL &&
	    PMPI_Allreduce(hh, all, 2, MPI_INT64_T, MPI_MAX, cp.comm) == MPI_SUCCESS && all[0] != -all[1]) {
		if (hp_mpi.rank == 0)
			hp_log("critical path: the ranks were given different --critical-path selections: "
			       "only the path length is tracked; give every rank the same");
		cp.k = 0;
		cp.auto_ = 0;
		cp.kcap_only = 1;
	}
	/* HYPROF_CRITICAL_PATH_WARMUP as runtime/config.c parsed it: a bad
	 * value was reported there, once, and replaced by the default */
	cp.warmup_cyc = (uint64_t)(hp_rt.cfg.critical_path_warmup * hp_mpi.tsc_hz);
	if (cp.auto_ && cp.kcap > 0) {
		/* the agreement's buffers exist on every rank, or no rank agrees */
		size_t C = 2 * (size_t)cp.kcap;
		agree_mine = calloc(C, sizeof(struct cand));
		agree_all = calloc(C * (size_t)hp_mpi.size, sizeof(struct cand));
		int ok = agree_mine && agree_all && cp.comm != MPI_COMM_NULL, all = 0;
		if (cp.comm == MPI_COMM_NULL ||
		    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, cp.comm) != MPI_SUCCESS || !all) {
			if (hp_mpi.rank == 0)
				hp_log("critical path: no memory for the auto selection on some rank: "
				       "only the path length is tracked");
			cp.selected = 1; /* never agree */
			cp.why_none = "none: no memory for the auto selection on some rank";
		}
	} else if (cp.auto_) {
		cp.selected = 1; /* auto:0: the length only */
	}
	if (!cp.auto_ && !cp.kcap_only) {
		struct cp_mods ms;
		mods_load(&ms);
		resolve_names(&ms);
		free(ms.m);
		if (cp.region_items)
			find_region_table();
		if (cp.region_items && !cp.regions && hp_mpi.rank == 0)
			hp_log("critical path: names that are no function are taken as regions, but the "
			       "region table of libhyprof.so is not in its symbol table (stripped?)");
		cp.gen = 1;
	}
	if (!cp.timed && hp_mpi.rank == 0 && (cp.auto_ ? cp.kcap || cp.untimed_auto : cp.k > 0))
		hp_log("critical path: functions' shares need timed probes (--mode measured); "
		       "only the path length is tracked");
	struct hp_mt *mt = hp_mt_get();
	if (mt) {
		uint64_t now = hp_rdtsc();
		struct cp_thr *s = cp_tls ? cp_tls : thr_new(mt, now);
		if (s) {
			s->lastP = now - mt->tot.wait_raw;
			s->lastW = mt->tot.wait_raw;
			struct cp_snap *b = snap_begin(s);
			b->len = 0;
			b->tsc = now;
			rebase(s, b, now);
			snap_publish(s, b);
		}
	}
	__atomic_store_n(&cp.on, 1, __ATOMIC_RELEASE);
}

/* This process: the longest thread's (len, share[]), net[] and busy[] over
 * its threads.  Signal-safe (reads the published slots). */
static int snap_read(const struct cp_thr *s, struct cp_snap *o)
{
	for (int tries = 0; tries < 16; tries++) {
		uint32_t i = __atomic_load_n(&s->cur, __ATOMIC_ACQUIRE);
		const struct cp_snap *p = &s->snap[i];
		uint64_t q1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (q1 & 1)
			continue;
		memcpy(o, p, sizeof(*o));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == q1)
			return 0;
	}
	return -1;
}

struct cp_proc {
	int64_t len;
	int thread;
	int64_t share[HP_CP_MAXF], net[HP_CP_MAXF], busy[HP_CP_MAXF];
	uint32_t nkeys[HP_CP_MAXF];
	uint64_t events, sends, recvs, colls, adopted, cost_n, cost_cyc;
	int nthreads;
	int64_t wall;                 /* from MPI_Init to the process's latest event, ns */
};

static void proc_state(struct cp_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->len = -1;
	p->thread = -1;
	for (struct cp_thr *s = __atomic_load_n(&cp.threads, __ATOMIC_ACQUIRE); s; s = s->next) {
		struct cp_snap v;
		if (snap_read(s, &v))
			continue;
		p->nthreads++;
		if (v.tsc > cp.t_start && cyc2ns(v.tsc - cp.t_start) > p->wall)
			p->wall = cyc2ns(v.tsc - cp.t_start);
		if (v.len > p->len) {
			p->len = v.len;
			p->thread = (int)s->mt->index;
			memcpy(p->share, v.share, sizeof(p->share));
		}
		for (int f = 0; f < cp.kcap; f++) {
			if (p->nthreads == 1 || v.net[f] > p->net[f])
				p->net[f] = v.net[f];
			p->busy[f] += v.busy[f];
			p->nkeys[f] += s->nkeys[f];
		}
		p->events += s->events;
		p->sends += s->sends;
		p->recvs += s->recvs;
		p->colls += s->colls;
		p->adopted += s->adopted;
		p->cost_n += s->cost_n;
		p->cost_cyc += s->cost_cyc;
	}
	if (p->len < 0)
		p->len = 0;
}

/* The final reduction over the ranks. */
struct fin {
	int64_t len, rank, start, wall;
	int64_t share[HP_CP_MAXF], net[HP_CP_MAXF], busy[HP_CP_MAXF];
	/* summed */
	int64_t nkeys[HP_CP_MAXF];
	int64_t events, adopted, cost_n, cost_cyc;
};

static void fin_op(void *in_, void *io_, int *len, MPI_Datatype *t)
{
	(void)t;
	const struct fin *in = in_;
	struct fin *io = io_;
	for (int i = 0; i < *len; i++, in++, io++) {
		if (in->len > io->len || (in->len == io->len && in->rank < io->rank)) {
			io->len = in->len;
			io->rank = in->rank;
			memcpy(io->share, in->share, sizeof(io->share));
		}
		if (in->start > io->start)
			io->start = in->start;
		if (in->wall > io->wall)
			io->wall = in->wall;
		for (int f = 0; f < HP_CP_MAXF; f++) {
			if (in->net[f] > io->net[f])
				io->net[f] = in->net[f];
			io->busy[f] += in->busy[f];
			io->nkeys[f] += in->nkeys[f];
		}
		io->events += in->events;
		io->adopted += in->adopted;
		io->cost_n += in->cost_n;
		io->cost_cyc += in->cost_cyc;
	}
}

static void cp_fini(void)
{
	struct hp_mt *mt = hp_mt_tls;
	struct cp_thr *s = cp_tls;
	if (cp.on && mt && s) {
		/* the last event: MPI_Finalize began */
		struct cp_snap *b = event(s, hp_mpi.t_fin);
		snap_publish(s, b);
	}
	__atomic_store_n(&cp.on, 0, __ATOMIC_RELEASE);
	struct cp_proc p;
	proc_state(&p);
	struct fin mine, all;
	memset(&mine, 0, sizeof(mine));
	mine.len = p.len;
	mine.rank = hp_mpi.rank;
	mine.start = cp.selected || !cp.auto_ ? cp.start_len : -1;
	mine.wall = p.wall;
	memcpy(mine.share, p.share, sizeof(mine.share));
	memcpy(mine.net, p.net, sizeof(mine.net));
	memcpy(mine.busy, p.busy, sizeof(mine.busy));
	for (int f = 0; f < HP_CP_MAXF; f++)
		mine.nkeys[f] = p.nkeys[f];
	mine.events = (int64_t)p.events;
	mine.adopted = (int64_t)p.adopted;
	mine.cost_n = (int64_t)p.cost_n;
	mine.cost_cyc = (int64_t)p.cost_cyc;
	MPI_Datatype t = MPI_DATATYPE_NULL;
	MPI_Op op = MPI_OP_NULL;
	int ok = cp.comm != MPI_COMM_NULL &&
		 PMPI_Type_contiguous((int)sizeof(struct fin), MPI_BYTE, &t) == MPI_SUCCESS &&
		 PMPI_Type_commit(&t) == MPI_SUCCESS && PMPI_Op_create(fin_op, 1, &op) == MPI_SUCCESS &&
		 PMPI_Allreduce(&mine, &all, 1, t, op, cp.comm) == MPI_SUCCESS;
	if (op != MPI_OP_NULL)
		PMPI_Op_free(&op);
	if (t != MPI_DATATYPE_NULL)
		PMPI_Type_free(&t);
	if (cp.comm != MPI_COMM_NULL)
		PMPI_Comm_free(&cp.comm);
	if (!ok) {
		hp_log("critical path: the ranks' paths could not be reduced: the report has this "
		       "rank's only");
		return;
	}
	cp.g_len = all.len;
	cp.g_rank = (int)all.rank;
	cp.g_start = all.start;
	cp.g_wall = all.wall;
	memcpy(cp.g_share, all.share, sizeof(cp.g_share));
	memcpy(cp.g_net, all.net, sizeof(cp.g_net));
	memcpy(cp.g_busy, all.busy, sizeof(cp.g_busy));
	for (int f = 0; f < HP_CP_MAXF; f++)
		cp.g_nkeys[f] = (uint32_t)all.nkeys[f];
	cp.g_events = (uint64_t)all.events;
	cp.g_adopted = (uint64_t)all.adopted;
	cp.g_cost_ns = all.cost_n ? cyc2ns((uint64_t)(all.cost_cyc / all.cost_n)) : 0;
	__atomic_store_n(&cp.final, 1, __ATOMIC_RELEASE);
}

/* ---- the profile section (signal-safe) -------------------------------------------- */

struct kv {
	const char *key;
	int type;         /* HP_KV_STR, HP_KV_U64, HP_KV_I64 */
	const char *s;
	uint64_t u;
	int64_t i;
};

static int cp_write(struct hp_writer *w, void *arg)
{
	(void)arg;
	/* nothing before MPI_Init's set-up (or when the ranks did not agree on
	 * the piggyback: the wrappers said why): no path to report */
	if (!cp.registered || !__atomic_load_n(&cp.t_start, __ATOMIC_ACQUIRE))
		return 0;
	struct cp_proc p;
	proc_state(&p);
	int fin = __atomic_load_n(&cp.final, __ATOMIC_ACQUIRE);
	int k = __atomic_load_n(&cp.k, __ATOMIC_ACQUIRE);
	char unresolved[512] = "";
	size_t ul = 0;
	for (int f = 0; f < k; f++)
		if (!(fin ? cp.g_nkeys[f] : p.nkeys[f]) && !cp.item[f].naddr) {
			size_t l = strlen(cp.item[f].name);
			if (ul + l + 2 < sizeof(unresolved)) {
				if (ul)
					unresolved[ul++] = ',';
				memcpy(unresolved + ul, cp.item[f].name, l);
				ul += l;
				unresolved[ul] = '\0';
			}
		}
	const char *shares = cp.kcap_only		  ? "none: the ranks were given different selections"
			     : !cp.kcap && !cp.untimed_auto ? "none: the length only"
			     : !cp.timed			  ? "none: probes not timed (use --mode measured)"
			     : cp.auto_ && cp.why_none	  ? cp.why_none
			     : cp.auto_ && !cp.selected ? "none yet: the auto selection is pending"
							  : "measured";
	double hz = hp_mpi.tsc_hz > 0 ? hp_mpi.tsc_hz : 1e9;
	int64_t sel_ns = !cp.auto_ ? 0 : k ? (int64_t)((double)(cp.sel_tsc - cp.t_start) * 1e9 / hz) : -1;
	struct kv kv[] = {
		{"version", HP_KV_U64, NULL, HP_CP_VERSION, 0},
		{"rank", HP_KV_I64, NULL, 0, hp_mpi.rank},
		{"nranks", HP_KV_I64, NULL, 0, hp_mpi.size},
		{"spec", HP_KV_STR, cp.spec, 0, 0},
		{"auto", HP_KV_U64, NULL, (uint64_t)cp.auto_, 0},
		{"k", HP_KV_U64, NULL, (uint64_t)k, 0},
		{"k_max", HP_KV_U64, NULL, (uint64_t)cp.kcap, 0},
		{"wire_bytes", HP_KV_U64, NULL, hp_mpi.pb_size, 0},
		{"shares", HP_KV_STR, shares, 0, 0},
		{"state", HP_KV_STR, fin ? "final" : "running", 0, 0},
		{"threads", HP_KV_U64, NULL, (uint64_t)p.nthreads, 0},
		{"length_ns", HP_KV_I64, NULL, 0, p.len},
		{"length_thread", HP_KV_I64, NULL, 0, p.thread},
		{"wall_ns", HP_KV_I64, NULL, 0, p.wall},
		{"start_ns", HP_KV_I64, NULL, 0, cp.auto_ && !k ? -1 : cp.start_len},
		{"selected_at_ns", HP_KV_I64, NULL, 0, sel_ns},
		{"events", HP_KV_U64, NULL, p.events, 0},
		{"sends", HP_KV_U64, NULL, p.sends, 0},
		{"receives", HP_KV_U64, NULL, p.recvs, 0},
		{"collectives", HP_KV_U64, NULL, p.colls, 0},
		{"adopted", HP_KV_U64, NULL, p.adopted, 0},
		{"cost_event_ns", HP_KV_I64, NULL, 0, p.cost_n ? cyc2ns(p.cost_cyc / p.cost_n) : 0},
		{"unresolved", HP_KV_STR, unresolved, 0, 0},
		{"g_length_ns", HP_KV_I64, NULL, 0, cp.g_len},
		{"g_rank", HP_KV_I64, NULL, 0, cp.g_rank},
		{"g_start_ns", HP_KV_I64, NULL, 0, cp.g_start},
		{"g_events", HP_KV_U64, NULL, cp.g_events, 0},
		{"g_adopted", HP_KV_U64, NULL, cp.g_adopted, 0},
		{"g_cost_event_ns", HP_KV_I64, NULL, 0, cp.g_cost_ns},
		{"g_wall_ns", HP_KV_I64, NULL, 0, cp.g_wall},
	};
	size_t nkv = sizeof(kv) / sizeof(kv[0]) - (fin ? 0 : 7); /* g_*: final only */
	size_t kvlen = 0;
	for (size_t i = 0; i < nkv; i++)
		kvlen += hp_kv_size(kv[i].key, kv[i].type == HP_KV_STR ? strlen(kv[i].s) : 8);
	int rc = hp_writer_begin(w, HP_SEC_CRITPATH);
	rc = rc ? rc : hp_writer_u32(w, (uint32_t)kvlen);
	for (size_t i = 0; i < nkv && !rc; i++)
		rc = kv[i].type == HP_KV_STR   ? hp_writer_kv_str(w, kv[i].key, kv[i].s)
		     : kv[i].type == HP_KV_U64 ? hp_writer_kv_u64(w, kv[i].key, kv[i].u)
					       : hp_writer_kv_i64(w, kv[i].key, kv[i].i);
	rc = rc ? rc : hp_writer_u32(w, (uint32_t)k);
	rc = rc ? rc : hp_writer_u32(w, (uint32_t)sizeof(struct hp_cp_rec));
	for (int f = 0; f < k && !rc; f++) {
		struct hp_cp_rec r;
		memset(&r, 0, sizeof(r));
		const struct cp_item *it = &cp.item[f];
		r.addr = it->naddr ? it->addr[0] : 0;
		r.share_ns = p.share[f];
		r.net_ns = p.net[f];
		r.busy_ns = p.busy[f];
		r.g_share_ns = fin ? cp.g_share[f] : -1;
		r.g_net_ns = fin ? cp.g_net[f] : -1;
		r.g_busy_ns = fin ? cp.g_busy[f] : -1;
		r.nkeys = p.nkeys[f];
		r.g_nkeys = fin ? cp.g_nkeys[f] : 0;
		r.flags = (it->region ? HP_CP_F_REGION : 0) | (fin ? HP_CP_F_GLOBAL : 0) |
			  ((fin ? !r.g_nkeys : !r.nkeys) && !it->naddr ? HP_CP_F_UNRESOLVED : 0);
		memcpy(r.name, it->name, sizeof(r.name));
		r.name[sizeof(r.name) - 1] = '\0';
		rc = hp_writer_bytes(w, &r, sizeof(r));
	}
	return rc ? rc : hp_writer_end(w);
}

/* ---- registration ------------------------------------------------------------------- */

/* hp_register_live_section_writer() (runtime/writer.h) when the runtime has
 * it: the live snapshots then carry the path so far. */
extern int hp_register_live_section_writer(hp_section_writer_fn fn, void *arg) __attribute__((weak));

static struct hp_pb_ext cp_ext = {
	.send = cb_send,
	.recv = cb_recv,
	.coll_in = cb_coll_in,
	.coll_out = cb_coll_out,
	.combine = cb_combine,
	.init = cp_init,
	.fini = cp_fini,
};

/* "auto", "auto:K" or "name,name,..." (at most HP_CP_MAXF). */
static int parse_spec(const char *spec)
{
	snprintf(cp.spec, sizeof(cp.spec), "%s", spec);
	if (!strncmp(spec, "auto", 4) && (spec[4] == '\0' || spec[4] == ':')) {
		cp.auto_ = 1;
		cp.kcap = HP_CP_KDEFAULT;
		if (spec[4] == ':') {
			char *end;
			long k = strtol(spec + 5, &end, 10);
			if (*end || end == spec + 5 || k < 0 || k > HP_CP_MAXF) {
				hp_log("critical path: '%s': auto:K needs K from 0 to %d", spec, HP_CP_MAXF);
				return -EINVAL;
			}
			cp.kcap = (int)k;
		}
		return 0;
	}
	const char *p = spec;
	while (*p) {
		while (*p == ',' || *p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *end = e;
		while (end > p && end[-1] == ' ')
			end--;
		size_t l = (size_t)(end - p);
		if (l) {
			if (cp.k == HP_CP_MAXF) {
				/* hp_log's formatter has no precision: %.*s
				 * printed as is */
				char first[HP_CP_NAME];
				size_t fl = l < sizeof first ? l : sizeof first - 1;
				memcpy(first, p, fl);
				first[fl] = '\0';
				hp_log("critical path: more than %d names: '%s' and the rest are ignored",
				       HP_CP_MAXF, first);
				break;
			}
			if (l >= HP_CP_NAME)
				l = HP_CP_NAME - 1;
			memcpy(cp.item[cp.k].name, p, l);
			cp.item[cp.k].name[l] = '\0';
			cp.k++;
		}
		p = e;
	}
	if (!cp.k) {
		hp_log("critical path: '%s' names no function", spec);
		return -EINVAL;
	}
	cp.kcap = cp.k;
	return 0;
}

__attribute__((constructor)) static void cp_register(void)
{
	const char *spec = hp_rt.initialized ? hp_rt.cfg.critical_path : getenv("HYPROF_CRITICAL_PATH");
	if (!spec || !*spec)
		return;
	if (parse_spec(spec))
		return;
	/* Shares need timed probes: outside measured mode an auto selection's
	 * K slots would travel empty on every message (and its agreement run
	 * for nothing), so carry the length alone. */
	const char *mode = hp_rt.initialized ? NULL : getenv("HYPROF_MODE"); /* default hybrid */
	int measured = hp_rt.initialized ? hp_rt.cfg.mode == HP_MODE_MEASURED
					 : mode && !strcmp(mode, "measured");
	if (cp.auto_ && cp.kcap > 0 && !measured) {
		cp.untimed_auto = 1;
		cp.kcap = 0;
	}
	cp_ext.size = (uint32_t)(HP_PB_BASE + sizeof(int64_t) * (1 + 2 * (size_t)cp.kcap));
	if (hp_pb_ext_register(&cp_ext) != 0) {
		hp_log("critical path: the piggyback extension is taken: not tracked");
		return;
	}
	cp.registered = 1;
	hp_register_section_writer(cp_write, NULL);
	if (hp_register_live_section_writer)
		hp_register_live_section_writer(cp_write, NULL);
}
