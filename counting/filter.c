/* counting/filter.c - HYPROF_FILTER: functions the probes do not count.
 *
 * HYPROF_FILTER="name,glob*,..." is matched (fnmatch) against the symbol
 * names (as in the symbol table: C++ names are mangled, so `_ZN3app*`
 * works) of the main executable and every library loaded at start-up,
 * read from their ELF .symtab (or .dynsym when stripped).  The matching
 * addresses go into an open-addressing hash set that the probes look up;
 * a filtered function's probes return at once (no count, no frame).  The
 * first time a filtered function is hit, an excluded node (no counts) is
 * added where it was called, and its name is listed in the counting section,
 * so the report shows it as excluded, never silently missing.  Libraries
 * loaded later with dlopen are not resolved (docs/probes.md).
 *
 * Region names are matched against the same patterns (regions.c).
 *
 * hp_filter_init() runs once at start-up (not signal-safe: open/mmap);
 * hp_filter_find() and hp_filter_hit() run in probe context.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/format.h"
#include "counting/counting_priv.h"

#define MAX_PATTERNS 64
#define NAMES_BYTES (1u << 20)

struct hp_filter_set hp_filter;

static char pat_buf[1024];
static const char *pats[MAX_PATTERNS];
static int npats;
static char spec_copy[1024];
static char *names;      /* copies of matched symbol names */
static size_t names_used;

int hp_filter_split(const char *spec, char *buf, size_t buflen, const char **out, int max)
{
	int n = 0;
	size_t used = 0;
	const char *p = spec;
	while (p && *p && n < max) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *end = e;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		size_t len = (size_t)(end - p);
		if (len > 0 && used + len + 1 <= buflen) {
			memcpy(buf + used, p, len);
			buf[used + len] = '\0';
			out[n++] = buf + used;
			used += len + 1;
		}
		p = e;
	}
	return n;
}

int hp_filter_npatterns(void)
{
	return npats;
}

int hp_filter_match_name(const char *name)
{
	for (int i = 0; i < npats; i++)
		if (fnmatch(pats[i], name, 0) == 0)
			return 1;
	return 0;
}

struct hp_filter_ent *hp_filter_set_put(struct hp_filter_set *s, uint64_t addr, const char *name)
{
	uint64_t h = (addr * 0x9e3779b97f4a7c15ull) >> 17;
	for (uint64_t i = h & s->mask;; i = (i + 1) & s->mask) {
		struct hp_filter_ent *e = &s->slot[i];
		if (e->addr == addr)
			return e;
		if (e->addr == 0) {
			e->addr = addr;
			e->name = name;
			s->n++;
			return e;
		}
	}
}

static const char *name_copy(const char *s)
{
	size_t n = strlen(s);
	if (names_used + n + 1 > NAMES_BYTES)
		return "?";
	char *d = names + names_used;
	memcpy(d, s, n + 1);
	names_used += n + 1;
	return d;
}

/* Grow the set when it is half full (start-up only). */
static int set_reserve(struct hp_filter_set *s, uint32_t more)
{
	uint64_t cap = s->slot ? s->mask + 1 : 0;
	if ((uint64_t)(s->n + more) * 2 <= cap)
		return 0;
	uint64_t ncap = cap ? cap : 256;
	while ((uint64_t)(s->n + more) * 2 > ncap)
		ncap *= 2;
	struct hp_filter_ent *slot = mmap(NULL, ncap * sizeof(*slot), PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (slot == MAP_FAILED)
		return -errno;
	struct hp_filter_set ns = {.slot = slot, .mask = ncap - 1, .n = 0};
	for (uint64_t i = 0; i < cap; i++)
		if (s->slot[i].addr)
			hp_filter_set_put(&ns, s->slot[i].addr, s->slot[i].name);
	if (s->slot)
		munmap(s->slot, cap * sizeof(*slot));
	*s = ns;
	return 0;
}

/* Add the matching function symbols of one ELF file loaded at `bias`. */
static void scan_elf(const char *path, uint64_t bias, struct hp_filter_set *s)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	size_t size = (size_t)st.st_size;
	const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff == 0 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		goto out;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	const Elf64_Shdr *sym = NULL;
	for (int pass = 0; pass < 2 && !sym; pass++)
		for (unsigned i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) {
				sym = &sh[i];
				break;
			}
	if (!sym || sym->sh_link >= eh->e_shnum || sym->sh_entsize != sizeof(Elf64_Sym))
		goto out;
	const Elf64_Shdr *strh = &sh[sym->sh_link];
	if (sym->sh_offset + sym->sh_size > size || strh->sh_offset + strh->sh_size > size)
		goto out;
	const Elf64_Sym *syms = (const Elf64_Sym *)(m + sym->sh_offset);
	const char *str = (const char *)(m + strh->sh_offset);
	size_t nsym = sym->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < nsym; i++) {
		unsigned type = ELF64_ST_TYPE(syms[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || syms[i].st_shndx == SHN_UNDEF ||
		    syms[i].st_value == 0 || syms[i].st_name >= strh->sh_size)
			continue;
		const char *name = str + syms[i].st_name;
		if (!memchr(name, '\0', strh->sh_size - syms[i].st_name))
			continue;
		if (!hp_filter_match_name(name))
			continue;
		if (set_reserve(s, 1) != 0)
			break;
		uint64_t addr = (eh->e_type == ET_DYN ? bias : 0) + syms[i].st_value;
		uint32_t before = s->n;
		struct hp_filter_ent *e = hp_filter_set_put(s, addr, NULL);
		if (s->n != before) {
			e->name = name_copy(name);
		}
	}
out:
	munmap((void *)m, size);
}

struct scan_arg {
	struct hp_filter_set *s;
	uintptr_t self; /* an address inside libhyprof.so: skip it */
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_arg *a = arg;
	const char *path = info->dlpi_name;
	int is_main = !path || !path[0];
	if (is_main)
		path = "/proc/self/exe";
	else if (path[0] != '/')
		return 0; /* vdso and friends: no file */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && a->self >= info->dlpi_addr + ph->p_vaddr &&
		    a->self < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			return 0;
	}
	scan_elf(path, info->dlpi_addr, a->s);
	return 0;
}

int hp_filter_init(const char *spec)
{
	strncpy(spec_copy, spec ? spec : "", sizeof(spec_copy) - 1);
	npats = hp_filter_split(spec_copy, pat_buf, sizeof(pat_buf), pats, MAX_PATTERNS);
	if (npats == 0)
		return 0;
	names = mmap(NULL, NAMES_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (names == MAP_FAILED) {
		names = NULL;
		return -ENOMEM;
	}
	struct hp_filter_set s = {0};
	int rc = set_reserve(&s, 1);
	if (rc)
		return rc;
	struct scan_arg a = {.s = &s, .self = (uintptr_t)&hp_filter_init};
	dl_iterate_phdr(scan_object, &a);
	/* Publish the complete set. */
	hp_filter.mask = s.mask;
	hp_filter.n = s.n;
	__atomic_store_n(&hp_filter.slot, s.slot, __ATOMIC_RELEASE);
	if (s.n)
		hp_probe_g.slow |= HP_PS_FILTER;
	return (int)s.n;
}

void hp_filter_hit(struct hp_thread *t, struct hp_filter_ent *e, uint64_t key, uint32_t kind)
{
	e->seen = 1;
	if (t->sp > HP_STACK_MAX)
		return;
	uint32_t c = cct__child(&t->probe, t->probe_cur, key);
	if (c != CCT_NONE)
		t->probe.nodes[c].flags |= kind | CCT_F_EXCLUDED;
}

/* Writes "filter", "filter.patterns", "filter.matched" and
 * "filter.excluded" (names of filtered functions and regions that were
 * hit, comma-separated).  Signal-safe. */
int hp_filter_write_kv(struct hp_writer *w)
{
	int rc = hp_writer_kv_str(w, "filter", spec_copy);
	rc = rc ? rc : hp_writer_kv_u64(w, "filter.patterns", (uint64_t)npats);
	rc = rc ? rc : hp_writer_kv_u64(w, "filter.matched", hp_filter.n);
	char buf[4096];
	size_t used = 0;
	buf[0] = '\0';
#define ADD_NAME(nm)                                                                            \
	do {                                                                                    \
		size_t l_ = strlen(nm);                                                         \
		if (used + l_ + 2 < sizeof(buf)) {                                              \
			if (used)                                                               \
				buf[used++] = ',';                                              \
			memcpy(buf + used, nm, l_ + 1);                                         \
			used += l_;                                                             \
		}                                                                               \
	} while (0)
	if (hp_filter.slot)
		for (uint64_t i = 0; i <= hp_filter.mask; i++)
			if (hp_filter.slot[i].addr && hp_filter.slot[i].seen)
				ADD_NAME(hp_filter.slot[i].name);
	uint32_t nr = hp_regions ? hp_nregions : 0;
	for (uint32_t id = 1; id <= nr; id++)
		if (hp_regions[id].excluded && hp_regions[id].seen)
			ADD_NAME(hp_regions[id].name);
#undef ADD_NAME
	rc = rc ? rc : hp_writer_kv_str(w, "filter.excluded", buf);
	return rc;
}
