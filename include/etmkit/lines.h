/* etmkit: source lines of an ELF file's code, from its DWARF debugging
 * information (read through libdw, elfutils).
 *
 * Layer: image (src/image/), used by the profile layer and the CLI.
 *
 * For an address (an ELF virtual address, as locate.h gives): the source
 * file, line and column the line table maps it to (DWARF 4 and 5, section
 * 6.2 "Line Number Information"); the chain of functions inlined there
 * (DW_TAG_inlined_subroutine: the inlined function and the file:line of
 * its call, DWARF 5 section 3.3.8); and the function holding it
 * (DW_TAG_subprogram: name, declaration file:line, entry address and code
 * ranges, section 3.3).
 *
 *   struct lines *ln;
 *   if (lines_open(&ln, "prog", &diag) == 0) {
 *           struct lines_loc loc;
 *           if (lines_find(ln, vaddr, &loc) == 0)
 *                   printf("%s:%u\n", loc.file, loc.line);
 *           lines_free(ln);
 *   }
 *
 * Everything is read at open into tables sorted by address: a look-up is
 * a binary search, and allocates nothing. A handle is read-only after
 * open: threads may share it. Strings live as long as the handle.
 *
 * The line table's rows: a row holds from its address to the next row's
 * in the same sequence; of several rows at one address the last is the
 * one in effect (DWARF 5 6.2.2: the rows before it describe no
 * instruction). Where sequences overlap (code a linker discarded, left
 * at address 0), a row ends where the next one by address begins.
 * Separate debug files (.gnu_debuglink, split DWARF .dwo) are not read.
 */
#ifndef ETMKIT_LINES_H
#define ETMKIT_LINES_H

#include "etmkit/common.h"
#include "etmkit/image.h" /* struct image_diag */

#ifdef __cplusplus
extern "C" {
#endif

#define LINES_NONE 0xFFFFFFFFu

/* One address range of the line table: [lo, hi) is file:line:column. */
struct lines_row {
	uint64_t lo, hi;
	const char *file;   /* as the line table names it, with its
			       directory (absolute when the compiler
			       recorded the compilation directory) */
	uint32_t line;      /* 0: no source line (compiler-made code) */
	uint32_t column;    /* 0: unknown */
};

/* An inlined call (DW_TAG_inlined_subroutine). */
struct lines_inline {
	const char *name;      /* the inlined function ("?" if unnamed) */
	const char *call_file; /* where it was inlined (NULL: unknown) */
	uint32_t call_line, call_column;
	uint32_t parent;       /* the inlined call it sits in (index for
				  lines_inline_at()), LINES_NONE: directly
				  in function @func */
	uint32_t func;         /* the function (lines_func_at()) */
};

/* A function with code (DW_TAG_subprogram with an address range). */
struct lines_func {
	const char *name;      /* DW_AT_linkage_name if there is one (the
				  symbol), else DW_AT_name ("?" if none) */
	const char *decl_file; /* NULL: unknown */
	uint32_t decl_line;    /* 0: unknown */
	uint64_t entry;        /* DW_AT_entry_pc, else DW_AT_low_pc, else
				  the first of its ranges */
	uint64_t lo, hi;       /* the lowest and highest address of its
				  ranges (hi exclusive) */
};

/* Where an address is. */
struct lines_loc {
	const struct lines_row *row;
	const char *file;      /* == row->file */
	uint32_t line, column; /* == row's */
	uint32_t inl;          /* the innermost inlined call holding the
				  address (lines_inline_at()), LINES_NONE:
				  none */
	uint32_t func;         /* the function (lines_func_at()),
				  LINES_NONE: none known */
};

struct lines;

/* Read the line tables and functions of ELF file @path. Returns 0 and sets
 * *@ln; -etmkit_err_invalid (NULL argument), -etmkit_err_io (cannot open
 * or read), -etmkit_err_not_found (an ELF file without DWARF line
 * information: "no line information"), -etmkit_err_format (not an ELF
 * file, or DWARF libdw cannot read: a broken unit, line program or
 * debugging entry), -etmkit_err_nomem, -etmkit_err_internal (libelf
 * refused its version: a broken installation); then @diag (may be NULL)
 * names the file and says why. */
int lines_open(struct lines **ln, const char *path, struct image_diag *diag);
/* The same from @n bytes at @data (copied), named @name in messages:
 * for files in memory and the fuzz target. Returns as lines_open(),
 * without -etmkit_err_io. */
int lines_open_memory(struct lines **ln, const void *data, size_t n,
		      const char *name, struct image_diag *diag);
void lines_free(struct lines *ln);

/* The row, inline chain and function at ELF virtual address @vaddr.
 * Returns 0 and fills @loc; -etmkit_err_not_found (no row holds @vaddr;
 * @loc's inl and func are still filled), -etmkit_err_invalid. */
int lines_find(const struct lines *ln, uint64_t vaddr,
	       struct lines_loc *loc);

/* The rows, sorted by address, not overlapping. */
size_t lines_row_count(const struct lines *ln);
const struct lines_row *lines_row_at(const struct lines *ln, size_t i);

/* Inlined calls and functions, by index (NULL out of range). */
size_t lines_inline_count(const struct lines *ln);
const struct lines_inline *lines_inline_at(const struct lines *ln,
					   uint32_t i);
size_t lines_func_count(const struct lines *ln);
const struct lines_func *lines_func_at(const struct lines *ln, uint32_t i);

/* The function whose code holds @vaddr: its index, or LINES_NONE. */
uint32_t lines_func_find(const struct lines *ln, uint64_t vaddr);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_LINES_H */
