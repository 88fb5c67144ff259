/* tools/symbols.h - address -> function, file:line and inlined frames.
 *
 * Resolution happens here, never in the profiled program (issue 2).  One
 * struct symtab caches every object file it opened (libdwfl, one Dwfl per
 * path, addresses file-relative) and every address it resolved, so the ranks
 * of an MPI job share the work even though ASLR loads them at different
 * addresses.  A struct sym_space is one process's module table.
 *
 * Names are C++-demangled.  Without DWARF the ELF symbol table is used;
 * without either the function is "[unknown]" and `where` keeps
 * "module+0xoffset".  Strings returned are interned in the symtab and live
 * until symtab__free().
 *
 * Thread-safe: no.
 */
#ifndef HYPROF_TOOLS_SYMBOLS_H
#define HYPROF_TOOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"

struct sym_frame {
	const char *name;   /* demangled function name, "[unknown]" if none */
	const char *file;   /* declaration file of the function, or NULL */
	int decl_line;      /* declaration line, 0 if unknown */
	const char *src;    /* file of the line executing in this frame, or NULL */
	int line;           /* that line (for an inlined callee: its call site) */
	int inlined;        /* this frame was inlined into the frame before it */
};

struct sym_loc {
	const char *module; /* basename of the object ("[vdso]", "[unknown]") */
	const char *path;   /* full path of the object, or NULL */
	const char *where;  /* "module+0xoffset" (file-relative) */
	uint64_t offset;    /* address in the object's file (pc - load bias) */
	int unknown;        /* no symbol at all */
	int measurement;    /* inside hyprof's own runtime or wrappers */
	int nframes;        /* >= 1 */
	struct sym_frame *frames; /* outermost first: the real function, then inlined */
};

struct symtab;
struct sym_space;

/* Returns NULL on allocation failure. */
struct symtab *symtab__new(void);
void symtab__free(struct symtab *st);
/* Intern a string in the symtab's pool. */
const char *symtab__intern(struct symtab *st, const char *s);

/* A process's module table (copied).  Freed with the symtab. */
struct sym_space *symtab__space(struct symtab *st, const struct hp_module *mods, size_t n);

/* Resolve `pc`.  is_return: pc is a return address (a non-leaf frame of a
 * sample), resolved at pc-1 so the call instruction's line and inline scope
 * are found.  Function entry addresses (probe keys) use is_return = 0.
 * Never NULL. */
const struct sym_loc *sym_space__resolve(struct sym_space *sp, uint64_t pc, int is_return);

/* Demangle a C++ name into buf; returns buf, or `name` when it is not a
 * mangled name. */
const char *sym_demangle(const char *name, char *buf, size_t len);

#endif
