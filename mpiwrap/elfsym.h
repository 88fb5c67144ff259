/* mpiwrap/elfsym.h - function ranges of a loaded module (elfsym.c). */
#ifndef HYPROF_MPIWRAP_ELFSYM_H
#define HYPROF_MPIWRAP_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct hp_fn_range {
	uint64_t start, end; /* runtime addresses */
};

struct hp_syms {
	struct hp_fn_range *r; /* sorted by start */
	size_t n;
	struct hp_fn_range *u; /* .eh_frame_hdr entries (end 0: unknown), sorted */
	size_t nu;
};

/* Function symbols of the ELF file at `path` loaded with load bias `bias`.
 * Returns 0, or -1 when the file cannot be read or has no symbols. */
int hp_syms_load(const char *path, uint64_t bias, struct hp_syms *out);
/* Start of the function containing pc, or 0.  A pc no sized symbol covers
 * (a stripped object, a local function of a library with only .dynsym)
 * falls back on the unwind table's entry, as the tools do (tools/symbols.c
 * load_fstarts), so the report can name it ("[pw.x+0x4a3200]"). */
uint64_t hp_syms_find(const struct hp_syms *s, uint64_t pc);
void hp_syms_free(struct hp_syms *s);

#endif
