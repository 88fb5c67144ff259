/* mpiwrap/elfsym.c - function ranges from ELF symbol tables, for the merge.
 *
 * The merge at MPI_Finalize reduces per-function time over ranks (minimum,
 * maximum and where they are), which needs the function of each sampled
 * address in the profiled process, before the tools ever symbolize.  This
 * reads a module's .symtab (or .dynsym when stripped): the function
 * symbols with a size, as [start, end) ranges in the running process
 * (load bias added), sorted; and .eh_frame_hdr's function starts for the
 * addresses no symbol covers.  No DWARF: inlined frames are the tools' job.
 *
 * Not signal-safe (reads files, allocates).  Runs at MPI_Finalize only.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpiwrap/elfsym.h"

static int cmp_range(const void *a, const void *b)
{
	const struct hp_fn_range *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static int32_t rd_s32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The file's .eh_frame_hdr search table (DW_EH_PE_datarel | sdata4, what
 * every linker emits): every FDE's initial location, i.e. every function's
 * start, with its end from the FDE's pc_range when its pc_begin is
 * pcrel | sdata4 (else 0: up to the next entry).  Into out->u as file
 * addresses: hp_syms_load adds the load bias. */
static void load_unwind(const uint8_t *m, size_t len, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
			struct hp_syms *out)
{
	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
		return;
	const Elf64_Shdr *str = &sh[eh->e_shstrndx];
	if (str->sh_offset + str->sh_size > len)
		return;
	const Elf64_Shdr *hdr = NULL, *ehf = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_name >= str->sh_size ||
		    sh[i].sh_offset + sh[i].sh_size > len)
			continue;
		const char *name = (const char *)m + str->sh_offset + sh[i].sh_name;
		size_t room = str->sh_size - sh[i].sh_name;
		if (!hdr && strnlen(name, room) == 13 && !memcmp(name, ".eh_frame_hdr", 13))
			hdr = &sh[i];
		else if (!ehf && strnlen(name, room) == 9 && !memcmp(name, ".eh_frame", 9))
			ehf = &sh[i];
	}
	if (!hdr || hdr->sh_size < 12)
		return;
	const uint8_t *p = m + hdr->sh_offset;
	if (p[0] != 1 || (p[1] & 0x0f) != 0x0b || p[2] != 0x03 || p[3] != 0x3b)
		return;
	uint32_t cnt;
	memcpy(&cnt, p + 8, 4);
	if (cnt == 0 || cnt > (hdr->sh_size - 12) / 8)
		return;
	struct hp_fn_range *u = malloc(sizeof(*u) * cnt);
	if (!u)
		return;
	for (uint32_t i = 0; i < cnt; i++) {
		const uint8_t *e = p + 12 + 8 * (size_t)i;
		uint64_t lo = hdr->sh_addr + (uint64_t)(int64_t)rd_s32(e);
		uint64_t fde = hdr->sh_addr + (uint64_t)(int64_t)rd_s32(e + 4), hi = 0;
		if (ehf && fde >= ehf->sh_addr && fde - ehf->sh_addr + 16 <= ehf->sh_size) {
			const uint8_t *q = m + ehf->sh_offset + (fde - ehf->sh_addr);
			uint32_t range;
			memcpy(&range, q + 12, 4);
			if (rd_s32(q) != -1 && fde + 8 + (uint64_t)(int64_t)rd_s32(q + 8) == lo)
				hi = lo + range;
		}
		u[i] = (struct hp_fn_range){lo, hi};
	}
	qsort(u, cnt, sizeof(*u), cmp_range);
	out->u = u;
	out->nu = cnt;
}

int hp_syms_load(const char *path, uint64_t bias, struct hp_syms *out)
{
	memset(out, 0, sizeof(*out));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	const uint8_t *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	int rc = -1;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff == 0 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		goto out;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	const Elf64_Shdr *tab = NULL;
	for (int pass = 0; pass < 2 && !tab; pass++)
		for (unsigned i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) && sh[i].sh_entsize == sizeof(Elf64_Sym) &&
			    sh[i].sh_offset + sh[i].sh_size <= len) {
				tab = &sh[i];
				break;
			}
	load_unwind(m, len, eh, sh, out);
	if (!tab) {
		rc = out->nu ? 0 : -1;
		goto out;
	}
	size_t n = tab->sh_size / sizeof(Elf64_Sym), k = 0;
	const Elf64_Sym *sym = (const Elf64_Sym *)(m + tab->sh_offset);
	struct hp_fn_range *r = malloc(sizeof(*r) * (n ? n : 1));
	if (!r)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int type = ELF64_ST_TYPE(sym[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym[i].st_value || !sym[i].st_size ||
		    sym[i].st_shndx == SHN_UNDEF)
			continue;
		r[k].start = bias + sym[i].st_value;
		r[k].end = r[k].start + sym[i].st_size;
		k++;
	}
	qsort(r, k, sizeof(*r), cmp_range);
	/* aliases share a start: keep one */
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || r[i].start != r[u - 1].start)
			r[u++] = r[i];
	out->r = r;
	out->n = u;
	rc = 0;
out:
	for (size_t i = 0; i < out->nu; i++) {
		out->u[i].start += bias;
		if (out->u[i].end)
			out->u[i].end += bias;
	}
	munmap((void *)m, len);
	return rc;
}

/* The number of ranges of v[0..n) (sorted by start) that start at or below
 * pc: the one that may hold pc is the last of them. */
static size_t at_or_below(const struct hp_fn_range *v, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t hp_syms_find(const struct hp_syms *s, uint64_t pc)
{
	size_t k = at_or_below(s->r, s->n, pc);
	if (k > 0 && pc < s->r[k - 1].end)
		return s->r[k - 1].start;
	/* no sized symbol here: the unwind table's entry (end 0: unknown) */
	k = at_or_below(s->u, s->nu, pc);
	if (k == 0 || (s->u[k - 1].end && pc >= s->u[k - 1].end))
		return 0;
	return s->u[k - 1].start;
}

void hp_syms_free(struct hp_syms *s)
{
	free(s->r);
	free(s->u);
	memset(s, 0, sizeof(*s));
}
