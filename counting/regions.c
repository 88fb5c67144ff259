/* counting/regions.c - the region table: ids, names, source positions.
 *
 * A region is identified by (name, file, line) of its BEGIN; its id (1..
 * HP_REGION_MAX-1) is the key of its nodes in the probe trees.  Regions
 * with the same name share a name_id (the id of the first of them), which
 * is what an END matches.
 *
 * Lookups are lock-free (open addressing; a slot is published with a
 * release store after the entry it points to is complete); inserts take a
 * mutex.  Each call site of the macros resolves once, so inserts and
 * string hashing are off the hot path.  hp_regions_write() runs from the
 * profile writer: signal-safe (reads only).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "core/format.h"
#include "counting/counting_priv.h"

#define NSLOTS (2 * HP_REGION_MAX) /* power of two, load <= 1/2 */
#define ARENA_BYTES (4u << 20)

struct hp_region_ent *hp_regions;
volatile uint32_t hp_nregions;

static uint32_t *site_slot; /* (name, file, line) -> id */
static uint32_t *name_slot; /* name -> first id with that name */
static char *arena;
static size_t arena_used;
static pthread_mutex_t region_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t name_hash(const char *name, size_t len)
{
	return hash_bytes(0xcbf29ce484222325ull, name, len);
}

static uint64_t site_hash(const char *name, size_t len, const char *file, int line)
{
	uint64_t h = name_hash(name, len);
	h = hash_bytes(h ^ 0xff, file ? file : "", file ? strlen(file) : 0);
	return (h ^ (uint64_t)(unsigned)line) * 0x9e3779b97f4a7c15ull;
}

static int name_eq(const char *a, const char *b, size_t blen)
{
	return strncmp(a, b, blen) == 0 && a[blen] == '\0';
}

int hp_regions_init(void)
{
	if (hp_regions)
		return 0;
	size_t bytes = HP_REGION_MAX * sizeof(struct hp_region_ent) +
		       2 * NSLOTS * sizeof(uint32_t) + ARENA_BYTES;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	char *c = p;
	site_slot = (uint32_t *)(c + HP_REGION_MAX * sizeof(struct hp_region_ent));
	name_slot = site_slot + NSLOTS;
	arena = (char *)(name_slot + NSLOTS);
	__atomic_store_n(&hp_regions, (struct hp_region_ent *)p, __ATOMIC_RELEASE);
	return 0;
}

static const char *arena_copy(const char *s, size_t n)
{
	if (arena_used + n + 1 > ARENA_BYTES)
		return NULL;
	char *d = arena + arena_used;
	memcpy(d, s, n);
	d[n] = '\0';
	arena_used += n + 1;
	return d;
}

static uint32_t name_find(const char *name, size_t len, uint64_t h)
{
	for (uint64_t i = h & (NSLOTS - 1);; i = (i + 1) & (NSLOTS - 1)) {
		uint32_t id = __atomic_load_n(&name_slot[i], __ATOMIC_ACQUIRE);
		if (!id)
			return 0;
		if (name_eq(hp_regions[id].name, name, len))
			return id;
	}
}

uint32_t hp_region_name_id(const char *name, size_t len)
{
	if (!hp_regions || !name)
		return 0;
	return name_find(name, len, name_hash(name, len));
}

static uint32_t site_find(const char *name, size_t len, const char *file, int line, uint64_t h,
			  uint64_t *slot_out)
{
	for (uint64_t i = h & (NSLOTS - 1);; i = (i + 1) & (NSLOTS - 1)) {
		uint32_t id = __atomic_load_n(&site_slot[i], __ATOMIC_ACQUIRE);
		if (!id) {
			*slot_out = i;
			return 0;
		}
		const struct hp_region_ent *r = &hp_regions[id];
		if (r->line == (uint32_t)line && name_eq(r->name, name, len) &&
		    strcmp(r->file, file ? file : "") == 0)
			return id;
	}
}

uint32_t hp_region_lookup(const char *name, size_t len, const char *file, int line, int create)
{
	if (!hp_regions || !name)
		return 0;
	if (line < 0)
		line = 0;
	uint64_t h = site_hash(name, len, file, line), slot;
	uint32_t id = site_find(name, len, file, line, h, &slot);
	if (id || !create)
		return id;

	pthread_mutex_lock(&region_lock);
	id = site_find(name, len, file, line, h, &slot); /* raced with another insert? */
	if (!id && hp_nregions + 1 < HP_REGION_MAX) {
		const char *n = arena_copy(name, len);
		const char *f = arena_copy(file ? file : "", file ? strlen(file) : 0);
		if (n && f) {
			id = hp_nregions + 1;
			struct hp_region_ent *r = &hp_regions[id];
			r->name = n;
			r->file = f;
			r->line = (uint32_t)line;
			r->excluded = (uint32_t)hp_filter_match_name(n);
			uint64_t nh = name_hash(name, len);
			uint32_t nid = name_find(name, len, nh);
			if (!nid) {
				r->name_id = id;
				uint64_t i = nh & (NSLOTS - 1);
				while (name_slot[i])
					i = (i + 1) & (NSLOTS - 1);
				__atomic_store_n(&hp_nregions, id, __ATOMIC_RELEASE);
				__atomic_store_n(&name_slot[i], id, __ATOMIC_RELEASE);
			} else {
				r->name_id = nid;
				__atomic_store_n(&hp_nregions, id, __ATOMIC_RELEASE);
			}
			__atomic_store_n(&site_slot[slot], id, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&region_lock);
	return id;
}

/* HP_SEC_REGIONS: u32 count, then per region struct hp_region_rec, name,
 * file (no NULs).  Signal-safe. */
int hp_regions_write(struct hp_writer *w, void *arg)
{
	uint32_t n = hp_regions ? __atomic_load_n(&hp_nregions, __ATOMIC_ACQUIRE) : 0;
	if (n == 0)
		return 0;
	int rc = hp_writer_begin(w, HP_SEC_REGIONS);
	rc = rc ? rc : hp_writer_u32(w, n);
	for (uint32_t id = 1; id <= n && !rc; id++) {
		const struct hp_region_ent *r = &hp_regions[id];
		size_t nl = strlen(r->name), fl = strlen(r->file);
		if (nl > 0xffff)
			nl = 0xffff;
		if (fl > 0xffff)
			fl = 0xffff;
		struct hp_region_rec rec = {
			.id = id, .line = r->line, .name_len = (uint16_t)nl, .file_len = (uint16_t)fl};
		rc = hp_writer_bytes(w, &rec, sizeof(rec));
		rc = rc ? rc : hp_writer_bytes(w, r->name, nl);
		rc = rc ? rc : hp_writer_bytes(w, r->file, fl);
	}
	return rc ? rc : hp_writer_end(w);
}
