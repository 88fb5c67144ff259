/* runtime/modules.c - the module map: objects loaded and unloaded during the run.
 *
 * Signal-safe: hp_modules_section_writer(), hp_modules_count(),
 * hp_modules_dropped() (they read static records published with release
 * stores).  Everything else runs in ordinary context: hp_modules_init() and
 * the interposed dlopen/dlmopen/dlclose, which call dl_iterate_phdr (the
 * loader lock) and take a mutex.
 *
 * Why interpose: the writer may run in a fatal-signal handler where asking
 * the loader is a deadlock (the signal may have hit inside it), so the list
 * must be kept up to date beforehand; and an object closed before exit must
 * still be in the profile, or its samples cannot be symbolized.
 *
 * While the thread is inside the real dlopen/dlclose/dl_iterate_phdr, its
 * in_loader count is raised and the sampler drops samples (unwinding with
 * libunwind there can deadlock on the loader lock).
 *
 * An interposed dlopen changes which object glibc sees as the caller, and
 * glibc searches the *caller's* DT_RUNPATH/DT_RPATH for a bare name.  When
 * the real dlopen of a bare name fails, we search the real caller's
 * RUNPATH (or RPATH, then the main program's RPATH) ourselves; a name found
 * there was found by glibc too without hyprof, only later in the search
 * order (a library present both there and in the system directories is
 * taken from the system directories: documented in docs/FORMAT.md's notes).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core/format.h"
#include "runtime/modules.h"
#include "runtime/state.h"

struct mod {
	struct hp_module_rec rec; /* rec.unload_ns is updated in place (8-byte store) */
	uint32_t path_off;        /* in pool[] */
	uint32_t gen;             /* last scan that saw it loaded */
};

static struct mod mods[HP_MOD_MAX];
static uint32_t nmods;                  /* published with release */
static char pool[HP_MOD_POOL];
static uint32_t pool_used;
static uint64_t mods_dropped;
static uint32_t mod_hash[2 * HP_MOD_MAX]; /* index + 1, 0 = empty; by base and range */
static uint32_t scan_gen;
static int scanned_once;
static unsigned long long seen_adds, seen_subs;
static pthread_mutex_t mods_lock = PTHREAD_MUTEX_INITIALIZER;
static int inited;

static char exe_path[4096];
static uintptr_t self_pc;   /* an address inside the hyprof runtime */
static uintptr_t vdso_addr; /* AT_SYSINFO_EHDR */

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);
typedef int (*dlclose_fn)(void *);
static dlopen_fn real_dlopen;
static dlmopen_fn real_dlmopen;
static dlclose_fn real_dlclose;
static int resolved;

HP_EXPORT void *dlopen(const char *file, int flags);
HP_EXPORT void *dlmopen(Lmid_t lmid, const char *file, int flags);
HP_EXPORT int dlclose(void *handle);

static void resolve_real(void)
{
	if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		return;
	/* Concurrent first calls resolve the same pointers: harmless. */
	void *o = dlsym(RTLD_NEXT, "dlopen");
	void *m = dlsym(RTLD_NEXT, "dlmopen");
	void *c = dlsym(RTLD_NEXT, "dlclose");
	real_dlopen = o != (void *)dlopen ? (dlopen_fn)o : NULL;
	real_dlmopen = m != (void *)dlmopen ? (dlmopen_fn)m : NULL;
	real_dlclose = c != (void *)dlclose ? (dlclose_fn)c : NULL;
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

static inline void loader_enter(struct hp_thread *t)
{
	if (t)
		t->in_loader++;
}

static inline void loader_leave(struct hp_thread *t)
{
	if (t)
		t->in_loader--;
}

/* ---- the table ---------------------------------------------------------- */

static size_t mod_slot(uint64_t base, uint64_t lo)
{
	uint64_t h = (base ^ (lo << 17) ^ (lo >> 13)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (2 * HP_MOD_MAX - 1);
}

/* A loaded record with this base and range, or -1. */
static int mod_find(uint64_t base, uint64_t lo, uint64_t hi)
{
	for (size_t h = mod_slot(base, lo);; h = (h + 1) & (2 * HP_MOD_MAX - 1)) {
		uint32_t e = mod_hash[h];
		if (!e)
			return -1;
		const struct hp_module_rec *r = &mods[e - 1].rec;
		if (r->base == base && r->lo == lo && r->hi == hi && r->unload_ns == 0)
			return (int)(e - 1);
	}
}

static void mod_add(const struct hp_module_rec *rec, const char *path, uint32_t gen)
{
	uint32_t n = nmods;
	size_t len = strlen(path);
	if (n >= HP_MOD_MAX || len > HP_MOD_POOL - pool_used) {
		mods_dropped++;
		return;
	}
	struct mod *m = &mods[n];
	memcpy(pool + pool_used, path, len);
	m->rec = *rec;
	m->rec.path_len = (uint32_t)len;
	m->path_off = pool_used;
	m->gen = gen;
	pool_used += (uint32_t)len;
	size_t h = mod_slot(rec->base, rec->lo);
	while (mod_hash[h])
		h = (h + 1) & (2 * HP_MOD_MAX - 1);
	mod_hash[h] = n + 1;
	__atomic_store_n(&nmods, n + 1, __ATOMIC_RELEASE);
}

struct scan {
	uint32_t gen;
	uint64_t load_ns; /* for objects not seen before (0 on the first scan) */
	unsigned index;
};

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	unsigned index = s->index++;
	uint64_t base = info->dlpi_addr, lo = UINT64_MAX, hi = 0;
	uint32_t flags = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = base + ph->p_vaddr, b = a + ph->p_memsz;
		if (ph->p_flags & PF_X) {
			if (a < lo)
				lo = a;
			if (b > hi)
				hi = b;
		}
		if (self_pc >= a && self_pc < b)
			flags |= HP_MOD_HYPROF;
		if (vdso_addr && vdso_addr >= a && vdso_addr < b)
			flags |= HP_MOD_VDSO;
	}
	if (lo > hi)
		lo = hi = 0; /* no executable segment */
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	if (index == 0 && name[0] == 0) {
		flags |= HP_MOD_MAIN;
		name = exe_path;
	}
	int e = mod_find(base, lo, hi);
	if (e >= 0) {
		mods[e].gen = s->gen;
		return 0;
	}
	struct hp_module_rec rec = {
		.base = base, .lo = lo, .hi = hi, .load_ns = s->load_ns, .flags = flags};
	mod_add(&rec, name, s->gen);
	(void)size;
	return 0;
}

struct counts {
	unsigned long long adds, subs;
	int ok;
};

static int counts_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct counts *c = arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
		c->ok = 1;
	}
	return 1; /* the counters are in every entry: stop at the first */
}

/* Bring the table up to date with the loader.  Objects gone since the last
 * scan get unload_ns (>= 1).  Skipped when the loader's add/remove counters
 * did not move.  Call with mods_lock held. */
static void rescan(uint64_t unload_ns)
{
	struct hp_thread *t = hp_thread_self();
	struct counts c = {0};
	loader_enter(t);
	dl_iterate_phdr(counts_cb, &c);
	loader_leave(t);
	if (scanned_once && c.ok && c.adds == seen_adds && c.subs == seen_subs)
		return;
	struct scan s = {.gen = ++scan_gen, .load_ns = 0};
	if (scanned_once) {
		s.load_ns = hp_now_ns();
		if (s.load_ns == 0)
			s.load_ns = 1;
	}
	loader_enter(t);
	dl_iterate_phdr(scan_cb, &s);
	loader_leave(t);
	if (unload_ns == 0)
		unload_ns = s.load_ns ? s.load_ns : 1;
	uint32_t n = nmods;
	for (uint32_t i = 0; i < n; i++)
		if (mods[i].rec.unload_ns == 0 && mods[i].gen != s.gen)
			__atomic_store_n(&mods[i].rec.unload_ns, unload_ns, __ATOMIC_RELEASE);
	scanned_once = 1;
	seen_adds = c.adds;
	seen_subs = c.subs;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&mods_lock);
}

static void atfork_release(void)
{
	pthread_mutex_unlock(&mods_lock);
}

int hp_modules_init(void)
{
	pthread_mutex_lock(&mods_lock);
	if (inited) {
		pthread_mutex_unlock(&mods_lock);
		return 0;
	}
	resolve_real();
	ssize_t k = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[k > 0 ? k : 0] = 0;
	self_pc = (uintptr_t)&hp_write_profile;
	vdso_addr = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	rescan(0);
	inited = 1;
	pthread_mutex_unlock(&mods_lock);
	int rc = pthread_atfork(atfork_prepare, atfork_release, atfork_release);
	return rc ? -rc : 0;
}

/* Record the objects present when the runtime loads, whoever initializes
 * the runtime first. */
__attribute__((constructor)) static void modules_ctor(void)
{
	hp_modules_init();
}

static void after_loader_call(uint64_t unload_ns)
{
	if (!__atomic_load_n(&inited, __ATOMIC_ACQUIRE)) {
		hp_modules_init(); /* a constructor before ours called dlopen */
		return;
	}
	pthread_mutex_lock(&mods_lock);
	rescan(unload_ns);
	pthread_mutex_unlock(&mods_lock);
}

/* ---- the caller's search path (see the file comment) --------------------- */

/* The string of dynamic tag `tag` of `lm`, or NULL. */
static const char *dyn_string(const struct link_map *lm, ElfW(Sxword) tag)
{
	if (!lm || !lm->l_ld)
		return NULL;
	uintptr_t strtab = 0;
	ElfW(Xword) off = 0;
	int have = 0;
	for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == tag) {
			off = d->d_un.d_val;
			have = 1;
		}
	}
	if (!have || !strtab)
		return NULL;
	/* glibc relocates DT_STRTAB in place where the dynamic section is
	 * writable; check which we have by asking which object it is in. */
	Dl_info a, b;
	void *lmaddr = lm->l_ld;
	if (!dladdr(lmaddr, &a))
		return NULL;
	if (dladdr((void *)strtab, &b) && b.dli_fbase == a.dli_fbase)
		return (const char *)strtab + off;
	strtab += lm->l_addr;
	if (dladdr((void *)strtab, &b) && b.dli_fbase == a.dli_fbase)
		return (const char *)strtab + off;
	return NULL;
}

/* Try every directory of a ':'-list, $ORIGIN expanded to `origin`. */
static void *try_dirs(const char *list, const char *origin, const char *file, Lmid_t lmid,
		      int use_lmid, int flags)
{
	char path[4096];
	size_t flen = strlen(file);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t o = 0;
		int ok = len > 0;
		for (size_t i = 0; ok && i < len;) {
			const char *tok = NULL;
			size_t tlen = 0;
			if (p[i] == '$') {
				if (len - i >= 7 && !strncmp(p + i, "$ORIGIN", 7))
					tok = origin, tlen = 7;
				else if (len - i >= 9 && !strncmp(p + i, "${ORIGIN}", 9))
					tok = origin, tlen = 9;
				else
					ok = 0; /* $LIB, $PLATFORM: not expanded */
			}
			if (tok) {
				size_t k = strlen(tok);
				if (!k || o + k >= sizeof(path))
					ok = 0;
				else {
					memcpy(path + o, tok, k);
					o += k;
				}
				i += tlen;
			} else if (ok) {
				if (o + 1 >= sizeof(path))
					ok = 0;
				else
					path[o++] = p[i++];
			}
		}
		if (ok && o + 1 + flen < sizeof(path)) {
			path[o++] = '/';
			memcpy(path + o, file, flen + 1);
			void *h = use_lmid ? real_dlmopen(lmid, path, flags) : real_dlopen(path, flags);
			if (h)
				return h;
		}
		p = end ? end + 1 : p + len;
	}
	return NULL;
}

static void dirname_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (n >= len)
		n = 0;
	memcpy(out, path, n);
	out[n] = 0;
}

/* After the real dlopen of a bare name failed: the caller's own search path.
 * Returns a handle or NULL; *tried tells whether anything was attempted. */
static void *dlopen_caller_path(const void *caller, const char *file, Lmid_t lmid, int use_lmid,
				int flags, int *tried)
{
	*tried = 0;
	if (!file || !file[0] || strchr(file, '/'))
		return NULL;
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	Dl_info me;
	if (self_pc && dladdr((void *)self_pc, &me) && me.dli_fbase == di.dli_fbase)
		return NULL; /* called from hyprof itself: glibc used the right paths */
	const struct link_map *mainlm = lm;
	while (mainlm->l_prev)
		mainlm = mainlm->l_prev;
	char origin[4096], main_origin[4096];
	dirname_of(lm->l_name && lm->l_name[0] ? lm->l_name : exe_path, origin, sizeof(origin));
	dirname_of(exe_path, main_origin, sizeof(main_origin));
	const char *runpath = dyn_string(lm, DT_RUNPATH);
	const char *lists[2] = {0};
	const char *origins[2] = {origin, main_origin};
	if (runpath) {
		lists[0] = runpath;
	} else {
		lists[0] = dyn_string(lm, DT_RPATH);
		if (mainlm != lm && !dyn_string(mainlm, DT_RUNPATH))
			lists[1] = dyn_string(mainlm, DT_RPATH);
	}
	for (int i = 0; i < 2; i++) {
		if (!lists[i] || !lists[i][0])
			continue;
		*tried = 1;
		void *h = try_dirs(lists[i], origins[i], file, lmid, use_lmid, flags);
		if (h)
			return h;
	}
	return NULL;
}

/* ---- the interposed functions ---------------------------------------------- */

/* The real dlopen, or dlmopen(lmid) when use_lmid, called for `caller`
 * with the thread marked in the loader; a file not found is tried again
 * through the caller's RUNPATH (dlopen_caller_path), and the module map is
 * updated after a success. */
static void *open_tracked(const void *caller, int use_lmid, Lmid_t lmid, const char *file, int flags)
{
	resolve_real();
	if (use_lmid ? !real_dlmopen : !real_dlopen) {
		errno = ENOSYS;
		return NULL;
	}
	struct hp_thread *t = hp_thread_self();
	loader_enter(t);
	void *h = use_lmid ? real_dlmopen(lmid, file, flags) : real_dlopen(file, flags);
	if (!h) {
		int tried;
		h = dlopen_caller_path(caller, file, lmid, use_lmid, flags, &tried);
		if (!h && tried) /* leave dlerror() as without hyprof */
			(void)(use_lmid ? real_dlmopen(lmid, file, flags) : real_dlopen(file, flags));
	}
	loader_leave(t);
	if (h)
		after_loader_call(0);
	return h;
}

HP_EXPORT void *dlopen(const char *file, int flags)
{
	return open_tracked(__builtin_return_address(0), 0, 0, file, flags);
}

HP_EXPORT void *dlmopen(Lmid_t lmid, const char *file, int flags)
{
	return open_tracked(__builtin_return_address(0), 1, lmid, file, flags);
}

HP_EXPORT int dlclose(void *handle)
{
	resolve_real();
	if (!real_dlclose)
		return -1;
	/* the time before the call: the object is gone from then on */
	uint64_t t0 = hp_now_ns();
	struct hp_thread *t = hp_thread_self();
	loader_enter(t);
	int rc = real_dlclose(handle);
	loader_leave(t);
	if (rc == 0)
		after_loader_call(t0 ? t0 : 1);
	return rc;
}

/* ---- writing ------------------------------------------------------------------ */

int hp_modules_section_writer(struct hp_writer *w, void *arg)
{
	(void)arg;
	uint32_t n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE);
	hp_writer_begin(w, HP_SEC_MODULES);
	hp_writer_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		struct hp_module_rec rec = mods[i].rec;
		rec.unload_ns = __atomic_load_n(&mods[i].rec.unload_ns, __ATOMIC_ACQUIRE);
		hp_writer_bytes(w, &rec, sizeof(rec));
		hp_writer_bytes(w, pool + mods[i].path_off, rec.path_len);
	}
	return hp_writer_end(w);
}

uint32_t hp_modules_count(void)
{
	return __atomic_load_n(&nmods, __ATOMIC_ACQUIRE);
}

uint64_t hp_modules_dropped(void)
{
	return mods_dropped;
}
