/* mpiwrap/elfsym.c - function ranges from ELF symbol tables, for the merge.
 *
 * The merge at MPI_Finalize reduces per-function time over ranks (minimum,
 * maximum and where they are), which needs the function of each sampled
 * address in the profiled process, before the tools ever symbolize.  This
 * reads a module's .symtab (or .dynsym when stripped): the function
 * symbols with a size, as [start, end) ranges in the running process
 * (load bias added), sorted.  No DWARF: inlined frames are the tools' job.
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
	if (!tab)
		goto out;
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
	munmap((void *)m, len);
	return rc;
}

uint64_t hp_syms_find(const struct hp_syms *s, uint64_t pc)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->r[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const struct hp_fn_range *f = &s->r[lo - 1];
	return pc < f->end ? f->start : 0;
}

void hp_syms_free(struct hp_syms *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}
