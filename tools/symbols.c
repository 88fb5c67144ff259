/* tools/symbols.c - libdwfl-based symbolization (see symbols.h).
 *
 * Each object file is opened once into its own Dwfl at address 0, so a
 * lookup uses the file-relative address (pc - load bias): every process of
 * a job, whatever its ASLR layout, shares the object and its cache, and
 * objects that occupied the same addresses at different times (dlopen,
 * dlclose, dlopen) never collide.
 */
#include "tools/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/util.h"

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct fn_range {
	uint64_t lo, hi;      /* hi 0: unknown, up to the next one */
};

struct cu_range {
	uint64_t lo, hi;      /* [lo, hi) file addresses (bias added) */
	Dwarf_Die *cu;        /* owned by the objfile's Dwfl */
	Dwarf_Addr bias;
};

struct objfile {
	const char *path;     /* interned */
	const char *base;     /* interned basename */
	Dwfl *dwfl;
	Dwfl_Module *mod;     /* NULL when the file could not be opened */
	int measurement;
	struct u64map cache;  /* file address -> struct sym_loc * */
	struct fn_range *fns; /* functions from .eh_frame_hdr, sorted (load_fstarts) */
	size_t nfns;
	int fstarts_done;
	struct cu_range *cus; /* compile units by their DIE's ranges (load_cus) */
	size_t ncus;
	int cus_done;
	struct objfile *next;
};

struct space_mod {
	struct hp_module_rec rec;
	struct objfile *obj;  /* NULL for the vdso or a missing path */
	const char *name;     /* basename, interned */
	const char *path;
};

struct sym_space {
	struct space_mod *mods; /* sorted by rec.lo */
	size_t n;
	struct u64map unknown;  /* pc -> loc for addresses outside every object */
	struct symtab *st;      /* owner */
	struct sym_space *next;
};

struct symtab {
	struct strpool *pool;
	struct u64map objs;     /* hash(path) -> chain */
	struct objfile *objlist;
	struct sym_space *spaces;
	struct sym_loc **locs;  /* every loc allocated, to free */
	size_t nlocs, caplocs;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* gfortran's module procedures: __<module>_MOD_<procedure> (and the
 * __<module>_MOD___<name> of operators), shown as gdb does, module::procedure. */
static const char *fortran_demangle(const char *name, char *buf, size_t len)
{
	const char *mod = strstr(name + 2, "_MOD_");
	if (!mod || mod == name + 2 || !mod[5])
		return name;
	snprintf(buf, len, "%.*s::%s", (int)(mod - (name + 2)), name + 2, mod + 5);
	return buf;
}

const char *sym_demangle(const char *name, char *buf, size_t len)
{
	if (name && name[0] == '_' && name[1] == '_' && name[2] != '_')
		return fortran_demangle(name, buf, len);
	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	int status = 0;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		return name;
	}
	snprintf(buf, len, "%s", d);
	free(d);
	return buf;
}

struct symtab *symtab__new(void)
{
	struct symtab *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->pool = strpool__new();
	u64map__init(&st->objs);
	return st;
}

void symtab__free(struct symtab *st)
{
	if (!st)
		return;
	for (struct objfile *o = st->objlist, *nx; o; o = nx) {
		nx = o->next;
		if (o->dwfl)
			dwfl_end(o->dwfl);
		u64map__free(&o->cache);
		free(o->fns);
		free(o->cus);
		free(o);
	}
	for (struct sym_space *s = st->spaces, *nx; s; s = nx) {
		nx = s->next;
		free(s->mods);
		u64map__free(&s->unknown);
		free(s);
	}
	for (size_t i = 0; i < st->nlocs; i++) {
		free(st->locs[i]->frames);
		free(st->locs[i]);
	}
	free(st->locs);
	u64map__free(&st->objs);
	strpool__free(st->pool);
	free(st);
}

const char *symtab__intern(struct symtab *st, const char *s)
{
	return strpool__get(st->pool, s);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int is_hyprof_object(const char *base)
{
	return strncmp(base, "libhyprof", 9) == 0;
}

static struct objfile *objfile_get(struct symtab *st, const char *path)
{
	const char *ip = strpool__get(st->pool, path);
	uint64_t key = u64_mix((uint64_t)(uintptr_t)ip, 0x6f626a);
	struct objfile *o = u64map__get(&st->objs, key);
	if (o)
		return o;
	o = calloc(1, sizeof *o);
	if (!o)
		abort();
	o->path = ip;
	o->base = strpool__get(st->pool, base_name(ip));
	o->measurement = is_hyprof_object(o->base);
	u64map__init(&o->cache);
	o->dwfl = dwfl_begin(&offline_cb);
	if (o->dwfl) {
		dwfl_report_begin(o->dwfl);
		o->mod = dwfl_report_elf(o->dwfl, o->base, ip, -1, 0, true);
		dwfl_report_end(o->dwfl, NULL, NULL);
	}
	o->next = st->objlist;
	st->objlist = o;
	u64map__put(&st->objs, key, o);
	return o;
}

static int cmp_mod(const void *a, const void *b)
{
	const struct space_mod *x = a, *y = b;
	return x->rec.lo < y->rec.lo ? -1 : x->rec.lo > y->rec.lo;
}

struct sym_space *symtab__space(struct symtab *st, const struct hp_module *mods, size_t n)
{
	struct sym_space *sp = calloc(1, sizeof *sp);
	if (!sp)
		return NULL;
	sp->mods = calloc(n ? n : 1, sizeof *sp->mods);
	if (!sp->mods) {
		free(sp);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct space_mod *m = &sp->mods[i];
		const char *path = mods[i].path ? mods[i].path : "";
		m->rec = mods[i].rec;
		m->path = strpool__get(st->pool, path);
		if ((m->rec.flags & 4) || path[0] == '[' || path[0] == 0) {
			/* vdso or anonymous: no file to read */
			m->name = strpool__get(st->pool, path[0] ? path : "[vdso]");
		} else {
			m->obj = objfile_get(st, path);
			m->name = m->obj->base;
		}
	}
	sp->n = n;
	qsort(sp->mods, n, sizeof *sp->mods, cmp_mod);
	u64map__init(&sp->unknown);
	sp->st = st;
	sp->next = st->spaces;
	st->spaces = sp;
	return sp;
}

static struct sym_loc *loc_new(struct symtab *st, int nframes)
{
	struct sym_loc *l = calloc(1, sizeof *l);
	if (!l)
		abort();
	l->nframes = nframes;
	l->frames = calloc(nframes, sizeof *l->frames);
	if (!l->frames)
		abort();
	if (st->nlocs == st->caplocs) {
		st->caplocs = st->caplocs ? st->caplocs * 2 : 256;
		st->locs = realloc(st->locs, st->caplocs * sizeof *st->locs);
		if (!st->locs)
			abort();
	}
	st->locs[st->nlocs++] = l;
	return l;
}

static const char *die_name(struct symtab *st, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	char buf[4096];
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (s)
		return strpool__get(st->pool, sym_demangle(s, buf, sizeof buf));
	if (dwarf_attr_integrate(d, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s ? strpool__get(st->pool, s) : NULL;
}

/* ---- stripped objects: functions by their unwind table ------------------
 *
 * An object without a symbol for an address still has .eh_frame_hdr: the
 * loader's binary-search table of every frame description entry's initial
 * location, i.e. of every function's start (a function split by the
 * compiler into hot and .cold parts has an entry per part).  The start
 * names the function ("[sort+0x9a40]"), so its samples gather in one node
 * and `addr2line -f -e FILE 0x9a40` names it once debug symbols are at hand.
 * Only the table encoding every linker emits (DW_EH_PE_datarel | sdata4)
 * is read; another leaves the frame "[unknown]".
 */
static int cmp_range(const void *x, const void *y)
{
	uint64_t a = ((const struct fn_range *)x)->lo, b = ((const struct fn_range *)y)->lo;
	return a < b ? -1 : a > b;
}

/* Section `want` of elf: its address and data, or NULL. */
static Elf_Data *section(Elf *elf, size_t shstrndx, const char *want, uint64_t *addr)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, want) != 0)
			continue;
		*addr = sh.sh_addr;
		Elf_Data *d = elf_getdata(scn, NULL);
		return d && d->d_buf ? d : NULL;
	}
	return NULL;
}

static int32_t rd_s32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Each entry's end: its FDE's pc_range, when the FDE's pc_begin is the
 * usual pcrel | sdata4 (checked: it decodes to the table's start), else
 * unknown (hi = 0: the entry runs to the next one). */
static uint64_t fde_end(const Elf_Data *ehf, uint64_t ehf_addr, uint64_t fde, uint64_t start)
{
	if (fde < ehf_addr || fde - ehf_addr + 16 > ehf->d_size)
		return 0;
	const unsigned char *q = (const unsigned char *)ehf->d_buf + (fde - ehf_addr);
	if (rd_s32(q) == -1) /* 64-bit DWARF length: not emitted for x86-64 code */
		return 0;
	uint64_t pc = fde + 8 + (uint64_t)(int64_t)rd_s32(q + 8);
	uint32_t range;
	memcpy(&range, q + 12, 4);
	return pc == start ? start + range : 0;
}

static void load_fstarts(struct objfile *o)
{
	o->fstarts_done = 1;
	Dwarf_Addr bias = 0;
	Elf *elf = o->mod ? dwfl_module_getelf(o->mod, &bias) : NULL;
	size_t shstrndx;
	uint64_t hdr_addr = 0, ehf_addr = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Data *d = section(elf, shstrndx, ".eh_frame_hdr", &hdr_addr);
	Elf_Data *ehf = section(elf, shstrndx, ".eh_frame", &ehf_addr);
	const unsigned char *p = d ? d->d_buf : NULL;
	size_t len = d ? d->d_size : 0;
	/* version 1; eh_frame_ptr: any 4-byte encoding; fde_count: udata4;
	 * table: datarel | sdata4 pairs (initial location, FDE address) */
	if (!p || len < 12 || p[0] != 1 || (p[1] & 0x0f) != 0x0b || p[2] != 0x03 || p[3] != 0x3b)
		return;
	uint32_t n;
	memcpy(&n, p + 8, 4);
	if (n == 0 || (size_t)n > (len - 12) / 8)
		return;
	o->fns = malloc(sizeof(*o->fns) * n);
	if (!o->fns)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = p + 12 + 8 * (size_t)i;
		uint64_t lo = hdr_addr + (uint64_t)(int64_t)rd_s32(e);
		uint64_t fde = hdr_addr + (uint64_t)(int64_t)rd_s32(e + 4);
		uint64_t hi = ehf ? fde_end(ehf, ehf_addr, fde, lo) : 0;
		o->fns[i] = (struct fn_range){lo + bias, hi ? hi + bias : 0};
	}
	qsort(o->fns, n, sizeof(*o->fns), cmp_range); /* sorted already; be sure */
	o->nfns = n;
}

/* The start of the function that holds file address a: 0 and *start, or -1
 * (no table, a before the first entry or past its entry's end). */
static int function_start(struct objfile *o, uint64_t a, uint64_t *start)
{
	if (!o->fstarts_done)
		load_fstarts(o);
	size_t lo = 0, hi = o->nfns;
	while (lo < hi) { /* first entry above a */
		size_t mid = (lo + hi) / 2;
		if (o->fns[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (o->fns[lo - 1].hi && a >= o->fns[lo - 1].hi))
		return -1;
	*start = o->fns[lo - 1].lo;
	return 0;
}

/* ---- PLT stubs ----------------------------------------------------------
 *
 * The stubs of .plt, .plt.sec and .plt.got have no symbol; the unwind
 * table has one entry for a whole section, so every stub of an object
 * was one "[prog+0x1020]", as if the program were stripped.  Each stub
 * jumps through a GOT slot (jmp *disp(%rip), after an endbr64 or a bnd
 * prefix) that a relocation of .rela.plt (JUMP_SLOT) or .rela.dyn
 * (GLOB_DAT) binds to its function: name the stub "function@plt", as
 * objdump and perf do.  Section data of the object's own ELF: stripped
 * objects keep .plt and .dynsym.  Returns 0 and the name in buf, or -1. */

static int is_plt_section(const char *name)
{
	return strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 || strcmp(name, ".plt.got") == 0;
}

/* The GOT slot the stub at a (in section data d at addr, entries of es
 * bytes) jumps through, or 0. */
static uint64_t plt_slot(const Elf_Data *d, uint64_t addr, uint64_t es, uint64_t a)
{
	uint64_t start = addr + (a - addr) / es * es;
	const unsigned char *p = (const unsigned char *)d->d_buf + (start - addr);
	size_t left = d->d_size - (start - addr);
	for (size_t i = 0; i + 6 <= left && i + 6 <= es; i++)
		if (p[i] == 0xff && p[i + 1] == 0x25) /* jmp *disp32(%rip) */
			return start + i + 6 + (uint64_t)(int64_t)rd_s32(p + i + 2);
	return 0;
}

/* The name of the symbol a relocation section binds to GOT slot `slot`. */
static const char *reloc_sym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t slot)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !syms || !gelf_getshdr(symscn, &symsh) || sh->sh_type != SHT_RELA || !sh->sh_entsize)
		return NULL;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(d, (int)i, &r) || r.r_offset != slot)
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
			return NULL;
		return elf_strptr(elf, symsh.sh_link, sym.st_name);
	}
	return NULL;
}

static int plt_name(struct objfile *o, uint64_t a, char *buf, size_t len)
{
	Dwarf_Addr bias = 0;
	Elf *elf = o->mod ? dwfl_module_getelf(o->mod, &bias) : NULL;
	size_t shstrndx;
	uint64_t slot = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -1;
	a -= bias;
	for (Elf_Scn *scn = NULL; !slot && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || a < sh.sh_addr ||
		    a >= sh.sh_addr + sh.sh_size || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    !is_plt_section(name) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		slot = plt_slot(d, sh.sh_addr, sh.sh_entsize ? sh.sh_entsize : 16, a);
		if (!slot)
			return -1; /* no jump through a slot: a lazy-binding entry */
	}
	for (Elf_Scn *scn = NULL; slot && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *sym;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA &&
		    (sym = reloc_sym(elf, scn, &sh, slot)) && *sym) {
			char dm[4096];
			snprintf(buf, len, "%s@plt", sym_demangle(sym, dm, sizeof dm));
			return 0;
		}
	}
	return -1;
}

/* ---- compile units without .debug_aranges ---------------------------
 *
 * libdw before 0.192 (Debian 12 has 0.188) finds the CU of an address,
 * for dwfl_module_addrdie() and dwfl_module_getsrc() alike, through
 * .debug_aranges only.  Clang emits none by default (-gdwarf-aranges), so
 * every address of a clang-built object had neither inlined frames nor a
 * file and line.  Every CU DIE carries its own address ranges: when the
 * library finds no CU, look it up in a table built from those. */

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void load_cus(struct objfile *o)
{
	size_t cap = 0;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;
	o->cus_done = 1;
	while ((cu = dwfl_module_nextcu(o->mod, cu, &bias)) != NULL) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (o->ncus == cap) {
				cap = cap ? cap * 2 : 64;
				struct cu_range *n = realloc(o->cus, cap * sizeof *n);
				if (!n)
					return;
				o->cus = n;
			}
			o->cus[o->ncus++] = (struct cu_range){lo + bias, hi + bias, cu, bias};
		}
	}
	qsort(o->cus, o->ncus, sizeof *o->cus, cmp_cu_range);
}

/* The CU whose ranges hold file address a, or NULL. */
static Dwarf_Die *cu_by_ranges(struct objfile *o, uint64_t a, Dwarf_Addr *bias)
{
	if (!o->cus_done)
		load_cus(o);
	size_t lo = 0, hi = o->ncus;
	while (lo < hi) { /* first range starting above a */
		size_t mid = (lo + hi) / 2;
		if (o->cus[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of different CUs may nest (a CU's whole span): look back */
	for (size_t i = lo; i-- > 0 && lo - i <= 64;)
		if (a < o->cus[i].hi) {
			*bias = o->cus[i].bias;
			return o->cus[i].cu;
		}
	return NULL;
}

/* ---- scopes of an address without abstract origins ----------------------
 *
 * dwarf_getscopes() follows an inlined instance to its abstract definition
 * and looks for that in the instance's own CU.  GCC's LTO output keeps the
 * abstract definitions in the compile-time CUs and the code in the
 * link-time ones: the definition is in another CU, and dwarf_getscopes()
 * answers no scope at all, so a program built with -flto lost its inlined
 * frames and its DWARF names (only the symbol, "f [clone .constprop.0]").
 * The concrete DIEs that hold the address, found walking down from the
 * CU, are all the symbolizer needs. */

struct scope_walk {
	Dwarf_Addr pc;
	Dwarf_Die dies[256];  /* outermost first */
	int n;
};

/* Types and namespaces hold function definitions without an address range
 * of their own. */
static int holds_functions(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_module;
}

/* Append the innermost chain of d's descendants holding w->pc; 1 if any. */
static int walk_scopes(struct scope_walk *w, Dwarf_Die *d)
{
	Dwarf_Die c;
	if (dwarf_child(d, &c) != 0)
		return 0;
	do {
		if (dwarf_haspc(&c, w->pc) > 0) {
			if (w->n < (int)(sizeof w->dies / sizeof w->dies[0]))
				w->dies[w->n++] = c;
			walk_scopes(w, &c);
			return 1;
		}
		if (holds_functions(dwarf_tag(&c)) && walk_scopes(w, &c))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The DIEs holding pc in cu, innermost first (the CU last), into *out
 * (malloc'd); returns their count, 0 if none. */
static int scopes_by_walk(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
	struct scope_walk *w = malloc(sizeof *w);
	*out = NULL;
	if (!w)
		return 0;
	w->pc = pc;
	w->dies[0] = *cu;
	w->n = 1;
	walk_scopes(w, cu);
	*out = malloc(w->n * sizeof **out);
	int n = *out ? w->n : 0;
	for (int i = 0; i < n; i++)
		(*out)[i] = w->dies[w->n - 1 - i];
	free(w);
	return n;
}

static int has_function_scope(Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			return 1;
	}
	return 0;
}

/* dwarf_decl_file() of a DIE in a split unit: libdw 0.188 asserts there
 * (its file table is loaded by dwarf_getsrcfiles(), not by the
 * dwarf_getsrclines() dwarf_decl_file() calls): read the table of the
 * attribute's own unit (another CU's, for an abstract origin) instead. */
static const char *decl_file(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t n;
	if (!dwarf_attr_integrate(d, DW_AT_decl_file, &at) || dwarf_formudata(&at, &idx) != 0 ||
	    !dwarf_cu_die(at.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* -gsplit-dwarf leaves a skeleton CU in the object (ranges, line table)
 * and the DIEs of the functions in a .dwo file: the scopes are in the split
 * unit libdw pairs with the skeleton (found by DW_AT_dwo_name).  Returns
 * that unit (in *buf), or cu itself. */
static Dwarf_Die *split_unit(Dwarf_Die *cu, Dwarf_Die *buf)
{
	uint8_t type = 0;
	if (!cu || dwarf_cu_info(cu->cu, NULL, &type, NULL, buf, NULL, NULL, NULL) != 0 ||
	    type != DW_UT_skeleton || dwarf_tag(buf) != DW_TAG_compile_unit)
		return cu;
	return buf;
}

/* Resolve file address `a` in object o (a already pc-1 for return addresses). */
static struct sym_loc *resolve_obj(struct symtab *st, struct objfile *o, uint64_t a,
				   uint64_t offset)
{
	char buf[4096];
	Dwarf_Die *scopes = NULL;
	int ns = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = NULL, split;
	const char *symname = NULL;

	if (o->mod) {
		GElf_Off off;
		GElf_Sym sym;
		symname = dwfl_module_addrinfo(o->mod, a, &off, &sym, NULL, NULL, NULL);
		cu = dwfl_module_addrdie(o->mod, a, &bias);
		if (!cu)
			cu = cu_by_ranges(o, a, &bias);
		cu = split_unit(cu, &split);
		if (cu)
			ns = dwarf_getscopes(cu, a - bias, &scopes);
		if (ns < 0)
			ns = 0;
		if (cu && !has_function_scope(scopes, ns)) {
			free(scopes);
			ns = scopes_by_walk(cu, a - bias, &scopes);
		}
		/* dwarf_getscopes continues past an inlined subroutine with the
		 * scopes of its abstract definition, not with its caller: take
		 * the innermost function scope and walk its concrete parents */
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
				continue;
			Dwarf_Die *chain = NULL;
			int nc = dwarf_getscopes_die(&scopes[i], &chain);
			free(scopes);
			scopes = chain;
			ns = nc > 0 ? nc : 0;
			break;
		}
	}
	/* Function scopes, innermost first, up to the real (non-inlined) one. */
	int idx[256], nf = 0;
	for (int i = 0; i < ns && nf < 256; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine)
			idx[nf++] = i;
		else if (tag == DW_TAG_subprogram) {
			idx[nf++] = i;
			break;
		}
	}
	/* Line executing at `a`. */
	const char *src = NULL;
	int line = 0;
	if (o->mod) {
		Dwfl_Line *l = dwfl_module_getsrc(o->mod, a);
		Dwarf_Line *dl;
		if (l)
			src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		else if (cu && (dl = dwarf_getsrc_die(cu, a - bias)) != NULL) {
			src = dwarf_linesrc(dl, NULL, NULL);
			dwarf_lineno(dl, &line);
		}
	}
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (cu && nf > 1)
		dwarf_getsrcfiles(cu, &files, &nfiles);

	struct sym_loc *loc = loc_new(st, nf ? nf : 1);
	loc->module = o->base;
	loc->path = o->path;
	loc->offset = offset;
	loc->measurement = o->measurement;
	snprintf(buf, sizeof buf, "%s+0x%" PRIx64, o->base, offset);
	loc->where = strpool__get(st->pool, buf);
	if (nf == 0) {
		struct sym_frame *f = &loc->frames[0];
		uint64_t fstart;
		if (symname) {
			f->name = strpool__get(st->pool, sym_demangle(symname, buf, sizeof buf));
		} else if (plt_name(o, a, buf, sizeof buf) == 0) {
			f->name = strpool__get(st->pool, buf);
		} else if (function_start(o, a, &fstart) == 0) {
			snprintf(buf, sizeof buf, "[%s+0x%" PRIx64 "]", o->base, fstart);
			f->name = strpool__get(st->pool, buf);
			loc->unknown = 1;
		} else {
			f->name = strpool__get(st->pool, "[unknown]");
			loc->unknown = 1;
		}
		f->src = strpool__get(st->pool, src);
		f->line = line;
		free(scopes);
		return loc;
	}
	/* frames[k] outermost first: frames[nf-1-i] is scope idx[i]. */
	const char *cur_src = src;
	int cur_line = line;
	for (int i = 0; i < nf; i++) {
		Dwarf_Die *d = &scopes[idx[i]];
		struct sym_frame *f = &loc->frames[nf - 1 - i];
		f->name = die_name(st, d);
		if (!f->name && i == nf - 1 && symname)
			f->name = strpool__get(st->pool, sym_demangle(symname, buf, sizeof buf));
		if (!f->name)
			f->name = strpool__get(st->pool, "[unknown]");
		f->file = strpool__get(st->pool, decl_file(d));
		int dl = 0;
		if (dwarf_decl_line(d, &dl) == 0)
			f->decl_line = dl;
		f->src = strpool__get(st->pool, cur_src);
		f->line = cur_line;
		f->inlined = dwarf_tag(d) == DW_TAG_inlined_subroutine;
		/* The caller of an inlined frame executes its call site. */
		if (f->inlined) {
			Dwarf_Attribute at;
			Dwarf_Word v = 0;
			cur_line = 0;
			cur_src = NULL;
			if (dwarf_attr(d, DW_AT_call_line, &at) && dwarf_formudata(&at, &v) == 0)
				cur_line = (int)v;
			if (files && dwarf_attr(d, DW_AT_call_file, &at) &&
			    dwarf_formudata(&at, &v) == 0 && v < nfiles)
				cur_src = dwarf_filesrc(files, v, NULL, NULL);
		}
	}
	free(scopes);
	return loc;
}

static const struct sym_loc *unknown_loc(struct sym_space *sp, uint64_t pc, const char *module,
					 const char *path, uint64_t offset)
{
	struct symtab *st = sp->st;
	uint64_t key = pc == ~0ull ? 0 : pc;
	struct sym_loc *l = u64map__get(&sp->unknown, key);
	if (l)
		return l;
	char buf[512];
	l = loc_new(st, 1);
	l->module = module;
	l->path = path;
	l->offset = offset;
	l->unknown = 1;
	l->frames[0].name = strpool__get(st->pool, "[unknown]");
	if (path && path[0] != '[')
		snprintf(buf, sizeof buf, "%s+0x%" PRIx64, module, offset);
	else if (module[0] == '[' && strcmp(module, "[unknown]") != 0)
		snprintf(buf, sizeof buf, "%s+0x%" PRIx64, module, offset);
	else
		snprintf(buf, sizeof buf, "0x%" PRIx64, pc);
	l->where = strpool__get(st->pool, buf);
	u64map__put(&sp->unknown, key, l);
	return l;
}

static struct space_mod *find_mod(struct sym_space *sp, uint64_t pc)
{
	/* binary search: last module with lo <= pc */
	size_t lo = 0, hi = sp->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (sp->mods[mid].rec.lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* overlapping ranges (dlclose then dlopen): prefer one still loaded */
	struct space_mod *best = NULL;
	for (size_t i = lo; i-- > 0;) {
		struct space_mod *m = &sp->mods[i];
		if (pc >= m->rec.lo && pc < m->rec.hi) {
			if (!best || (best->rec.unload_ns && !m->rec.unload_ns))
				best = m;
		}
		if (lo - i > 64)
			break;
	}
	if (best)
		return best;
	/* modules recorded without a range: ask the object file */
	for (size_t i = 0; i < sp->n; i++) {
		struct space_mod *m = &sp->mods[i];
		if (m->rec.hi || !m->obj || !m->obj->mod || pc < m->rec.base)
			continue;
		Dwarf_Addr s, e;
		dwfl_module_info(m->obj->mod, NULL, &s, &e, NULL, NULL, NULL, NULL);
		if (pc - m->rec.base >= s && pc - m->rec.base < e)
			return m;
	}
	return NULL;
}

const struct sym_loc *sym_space__resolve(struct sym_space *sp, uint64_t pc, int is_return)
{
	struct space_mod *m = find_mod(sp, pc);
	if (!m)
		return unknown_loc(sp, pc, strpool__get(sp->st->pool, "[unknown]"), NULL, pc);
	uint64_t offset = pc - m->rec.base;
	if (!m->obj || !m->obj->mod)
		return unknown_loc(sp, pc, m->name, m->path, offset);
	uint64_t a = is_return && offset > 0 ? offset - 1 : offset;
	struct objfile *o = m->obj;
	struct sym_loc *l = u64map__get(&o->cache, a);
	if (l)
		return l;
	l = resolve_obj(sp->st, o, a, offset);
	u64map__put(&o->cache, a, l);
	return l;
}
