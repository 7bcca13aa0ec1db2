/* Source lines, inlined calls and functions from DWARF (lines.h), read
 * through libdw once at open into three address-sorted tables: rows of
 * the line tables (DWARF 5 6.2), the innermost inlined call per address
 * stretch (DW_TAG_inlined_subroutine, 3.3.8) and the function per stretch
 * (DW_TAG_subprogram, 3.3). libdw reads DWARF 2 to 5; what it cannot read
 * is a format error naming the file. */
#define _POSIX_C_SOURCE 200809L
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/text.h"
#include "common/vec.h"
#include "etmkit/lines.h"

/* Deeper DIE nesting than this is taken for a broken file (the walk is
 * recursive; real programs nest a few tens deep). */
#define MAX_DEPTH 256

/* An address stretch of an inlined call or a function. */
struct span {
	uint64_t lo, hi;
	uint32_t idx;
	uint32_t depth;       /* nesting: the innermost wins */
	uint32_t order;       /* the order found, for a stable sort */
};

struct lines {
	struct lines_row *rows;
	size_t nrows;
	struct lines_inline *inl;
	size_t ninl;
	struct lines_func *funcs;
	size_t nfuncs;
	struct span *inl_spans, *func_spans; /* flattened: no overlap */
	size_t ninl_spans, nfunc_spans;
	char **strs;          /* interned strings, owned */
	size_t nstrs;
};

/* What the reader builds before the tables are final. */
struct build {
	struct lines *ln;
	struct image_diag *d;
	const char *path;
	size_t cap_rows, cap_inl, cap_funcs, cap_strs;
	struct span *ispans, *fspans;
	size_t nis, nfs, cap_is, cap_fs;
	uint32_t *hash;       /* interned string table: index + 1, 0 free */
	size_t hash_cap;
	Dwarf_Files *files;   /* the current unit's file names */
	size_t nfiles;
	const char *comp_dir; /* the current unit's DW_AT_comp_dir, or NULL */
	char path_buf[4096];
};

static int fail(struct build *b, int err, const char *fmt, ...)
	ETMKIT_PRINTF(3, 4);

static int fail(struct build *b, int err, const char *fmt, ...)
{
	if (b->d) {
		va_list ap;

		snprintf(b->d->path, sizeof(b->d->path), "%s", b->path);
		va_start(ap, fmt);
		vsnprintf(b->d->message, sizeof(b->d->message), fmt, ap);
		va_end(ap);
	}
	return err;
}

static int fail_dw(struct build *b, const char *what)
{
	return fail(b, -etmkit_err_format, "broken DWARF: %s: %s", what,
		    dwarf_errmsg(-1));
}

static int nomem(struct build *b)
{
	return fail(b, -etmkit_err_nomem, "out of memory reading DWARF");
}

/* ---- Strings ------------------------------------------------------------ */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int hash_grow(struct build *b)
{
	size_t cap = b->hash_cap ? b->hash_cap * 2 : 256;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (size_t i = 0; i < b->ln->nstrs; i++) {
		size_t k = str_hash(b->ln->strs[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)(i + 1);
	}
	free(b->hash);
	b->hash = h;
	b->hash_cap = cap;
	return 0;
}

/* The handle's copy of @s, one per distinct string; NULL for NULL or out
 * of memory (*@err set). */
static const char *intern(struct build *b, const char *s, int *err)
{
	struct lines *ln = b->ln;
	size_t k;
	char **strs, *c;

	if (!s)
		return NULL;
	if ((ln->nstrs + 1) * 2 > b->hash_cap && hash_grow(b) < 0)
		goto oom;
	k = str_hash(s) & (b->hash_cap - 1);
	for (; b->hash[k]; k = (k + 1) & (b->hash_cap - 1))
		if (!strcmp(ln->strs[b->hash[k] - 1], s))
			return ln->strs[b->hash[k] - 1];
	strs = vec_room(ln->strs, ln->nstrs, &b->cap_strs, sizeof(*strs));
	if (!strs)
		goto oom;
	ln->strs = strs;
	c = strdup(s);
	if (!c)
		goto oom;
	strs[ln->nstrs] = c;
	b->hash[k] = (uint32_t)(++ln->nstrs);
	return c;
oom:
	*err = nomem(b);
	return NULL;
}

/* A file name of the current unit, interned: a relative one joined to
 * the unit's compilation directory (DWARF 5 6.2.4: relative names are
 * relative to it), as addr2line shows them. */
static const char *intern_path(struct build *b, const char *name, int *err)
{
	if (name && name[0] != '/' && b->comp_dir && b->comp_dir[0] &&
	    (size_t)snprintf(b->path_buf, sizeof(b->path_buf), "%s/%s",
			     b->comp_dir, name) < sizeof(b->path_buf))
		name = b->path_buf;
	return intern(b, name, err);
}

/* ---- Line table rows ------------------------------------------------------ */

static int add_row(struct build *b, uint64_t lo, uint64_t hi,
		   const char *file, int line, int col)
{
	struct lines *ln = b->ln;
	struct lines_row *r;
	int err = 0;

	r = vec_room(ln->rows, ln->nrows, &b->cap_rows, sizeof(*r));
	if (!r)
		return nomem(b);
	ln->rows = r;
	r += ln->nrows;
	r->lo = lo;
	r->hi = hi;
	r->file = intern_path(b, file ? file : "??", &err);
	r->line = line > 0 ? (uint32_t)line : 0;
	r->column = col > 0 ? (uint32_t)col : 0;
	if (err)
		return err;
	ln->nrows++;
	return 0;
}

/* A unit's line table: a row from each address to the next row's in the
 * same sequence (libdw gives the rows sequence by sequence); a row whose
 * successor is at the same address describes nothing (6.2.2), and the
 * end_sequence row closes its sequence. */
static int unit_rows(struct build *b, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;

	if (!dwarf_hasattr(cu, DW_AT_stmt_list))
		return 0;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return fail_dw(b, "line table");
	for (size_t i = 0; i + 1 < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Line *nx = dwarf_onesrcline(lines, i + 1);
		Dwarf_Addr a, na;
		bool end;
		int line = 0, col = 0, err;

		if (!l || !nx || dwarf_lineaddr(l, &a) || dwarf_lineaddr(nx, &na) ||
		    dwarf_lineendsequence(l, &end))
			return fail_dw(b, "line table row");
		if (end || na <= a)
			continue;
		dwarf_lineno(l, &line);
		dwarf_linecol(l, &col);
		err = add_row(b, a, na, dwarf_linesrc(l, NULL, NULL), line, col);
		if (err)
			return err;
	}
	return 0;
}

/* ---- Functions and inlined calls -------------------------------------- */

static int add_span(struct build *b, int func, uint64_t lo, uint64_t hi,
		    uint32_t idx, uint32_t depth)
{
	struct span **v = func ? &b->fspans : &b->ispans;
	size_t *n = func ? &b->nfs : &b->nis;
	size_t *cap = func ? &b->cap_fs : &b->cap_is;
	struct span *s = vec_room(*v, *n, cap, sizeof(*s));

	if (!s)
		return nomem(b);
	*v = s;
	s[*n] = (struct span){ lo, hi, idx, depth, (uint32_t)*n };
	(*n)++;
	return 0;
}

/* The code ranges of @die as spans of @idx; *@first the first range's
 * start (for a function's entry), *@lo and *@hi the extent. Returns the
 * number of ranges, or a negative error. */
static int die_ranges(struct build *b, Dwarf_Die *die, int func,
		      uint32_t idx, uint32_t depth, uint64_t *first,
		      uint64_t *lo, uint64_t *hi)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t off = 0;
	int n = 0, err;

	while ((off = dwarf_ranges(die, off, &base, &s, &e)) > 0) {
		if (e <= s)
			continue;
		if (!n)
			*first = s, *lo = s, *hi = e;
		*lo = s < *lo ? s : *lo;
		*hi = e > *hi ? e : *hi;
		err = add_span(b, func, s, e, idx, depth);
		if (err)
			return err;
		if (++n > 1 << 20)
			return fail(b, -etmkit_err_format,
				    "broken DWARF: too many address ranges");
	}
	if (off < 0)
		return fail_dw(b, "address ranges");
	return n;
}

/* The linkage name (the symbol) if any, else the name. */
static const char *die_name(struct build *b, Dwarf_Die *die, int *err)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return intern(b, s ? s : "?", err);
}

static uint32_t die_udata(Dwarf_Die *die, unsigned at)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(die, at, &a) || dwarf_formudata(&a, &v) ||
	    v > 0x7FFFFFFF)
		return 0;
	return (uint32_t)v;
}

static int add_func(struct build *b, Dwarf_Die *die, uint32_t *fi)
{
	struct lines *ln = b->ln;
	struct lines_func *f;
	uint64_t first = 0, lo = 0, hi = 0;
	Dwarf_Addr entry;
	int n, line = 0, err = 0;

	f = vec_room(ln->funcs, ln->nfuncs, &b->cap_funcs, sizeof(*f));
	if (!f)
		return nomem(b);
	ln->funcs = f;
	n = die_ranges(b, die, 1, (uint32_t)ln->nfuncs, 0, &first, &lo, &hi);
	if (n <= 0)
		return n;   /* no code: a declaration, or an error */
	f += ln->nfuncs;
	memset(f, 0, sizeof(*f));
	f->name = die_name(b, die, &err);
	f->decl_file = intern_path(b, dwarf_decl_file(die), &err);
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		f->decl_line = (uint32_t)line;
	f->entry = (dwarf_hasattr(die, DW_AT_entry_pc) ||
		    dwarf_hasattr(die, DW_AT_low_pc)) &&
		   dwarf_entrypc(die, &entry) == 0 ? entry : first;
	f->lo = lo;
	f->hi = hi;
	if (err)
		return err;
	*fi = (uint32_t)ln->nfuncs++;
	return 0;
}

static int add_inline(struct build *b, Dwarf_Die *die, uint32_t parent,
		      uint32_t func, uint32_t depth, uint32_t *ii)
{
	struct lines *ln = b->ln;
	struct lines_inline *r;
	uint64_t first, lo, hi;
	uint32_t cf;
	int n, err = 0;

	r = vec_room(ln->inl, ln->ninl, &b->cap_inl, sizeof(*r));
	if (!r)
		return nomem(b);
	ln->inl = r;
	n = die_ranges(b, die, 0, (uint32_t)ln->ninl, depth, &first, &lo, &hi);
	if (n <= 0)
		return n;
	r += ln->ninl;
	memset(r, 0, sizeof(*r));
	r->name = die_name(b, die, &err);
	cf = die_udata(die, DW_AT_call_file);
	if (dwarf_hasattr(die, DW_AT_call_file) && b->files && cf < b->nfiles)
		r->call_file = intern_path(b, dwarf_filesrc(b->files, cf, NULL, NULL),
				      &err);
	r->call_line = die_udata(die, DW_AT_call_line);
	r->call_column = die_udata(die, DW_AT_call_column);
	r->parent = parent;
	r->func = func;
	if (err)
		return err;
	*ii = (uint32_t)ln->ninl++;
	return 0;
}

/* The children of @die, inside function @func (LINES_NONE: none yet) and
 * inlined call @inl, @depth inlined calls deep. */
static int walk(struct build *b, Dwarf_Die *die, uint32_t func,
		uint32_t inl, uint32_t depth, int level)
{
	Dwarf_Die c;
	int rc = dwarf_child(die, &c);

	if (level > MAX_DEPTH)
		return fail(b, -etmkit_err_format,
			    "broken DWARF: entries nested over %d deep",
			    MAX_DEPTH);
	if (rc < 0)
		return fail_dw(b, "debugging entries");
	while (rc == 0) {
		uint32_t f = func, i = inl, d = depth;
		int tag = dwarf_tag(&c), err = 0;

		if (tag == DW_TAG_subprogram) {
			uint32_t nf = LINES_NONE;

			err = add_func(b, &c, &nf);
			if (nf != LINES_NONE)
				f = nf, i = LINES_NONE, d = 0;
		} else if (tag == DW_TAG_inlined_subroutine &&
			   func != LINES_NONE) {
			uint32_t ni = LINES_NONE;

			err = add_inline(b, &c, inl, func, depth + 1, &ni);
			if (ni != LINES_NONE)
				i = ni, d = depth + 1;
		}
		if (!err && dwarf_haschildren(&c))
			err = walk(b, &c, f, i, d, level + 1);
		if (err)
			return err;
		rc = dwarf_siblingof(&c, &c);
		if (rc < 0)
			return fail_dw(b, "debugging entries");
	}
	return 0;
}

/* ---- Sorting into tables ----------------------------------------------- */

static int cmp_row(const void *x, const void *y)
{
	const struct lines_row *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 :
	       a->hi < b->hi ? -1 : a->hi > b->hi;
}

static void sort_rows(struct lines *ln)
{
	size_t k = 0;

	if (ln->nrows)
		qsort(ln->rows, ln->nrows, sizeof(*ln->rows), cmp_row);
	for (size_t i = 0; i < ln->nrows; i++) {
		struct lines_row r = ln->rows[i];

		if (k && ln->rows[k - 1].hi > r.lo)
			ln->rows[k - 1].hi = r.lo; /* overlap: cut */
		if (k && ln->rows[k - 1].hi == ln->rows[k - 1].lo)
			k--;
		ln->rows[k++] = r;
	}
	ln->nrows = k;
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 :
	       a->order < b->order ? -1 : a->order > b->order;
}

/* Heap orders for flatten(): the span that ends first; the innermost
 * span (the deepest; of equal depth the one found last). */
static int ends_first(const struct span *a, const struct span *b)
{
	return a->hi < b->hi;
}

static int inner(const struct span *a, const struct span *b)
{
	return a->depth > b->depth ||
	       (a->depth == b->depth && a->order > b->order);
}

typedef int (*span_before_fn)(const struct span *, const struct span *);

/* Binary heap of @n spans in @h, the first by @before on top. */
static void heap_push(struct span **h, size_t *n, struct span *x,
		      span_before_fn before)
{
	size_t i = (*n)++;

	while (i && before(x, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static void heap_pop(struct span **h, size_t *n, span_before_fn before)
{
	struct span *x = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && before(h[c + 1], h[c]))
			c++;
		if (!before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
}

/* Spans @s (sorted by start) to stretches that do not overlap, each
 * with the innermost span over it (the deepest; of equal depth the one
 * found last). Returns the number, or -1 out of memory. Adjacent
 * stretches of the same span are merged. A sweep over the starts and
 * ends with the spans open in two heaps (by end, by depth; a span that
 * ended leaves them when it comes on top): O(n log n) however the spans
 * nest or overlap, as hostile DWARF may make them. */
static long flatten(struct span *s, size_t n, struct span **out)
{
	struct span *o = NULL, **ends, **inn;
	size_t no = 0, cap = 0, nends = 0, ninn = 0, next = 0;
	uint64_t at;

	*out = NULL;
	if (!n)
		return 0;
	ends = malloc(n * sizeof(*ends));
	inn = malloc(n * sizeof(*inn));
	if (!ends || !inn)
		goto oom;
	at = s[0].lo;
	for (;;) {
		uint64_t end;
		const struct span *best;

		while (next < n && s[next].lo <= at) {
			heap_push(ends, &nends, &s[next], ends_first);
			heap_push(inn, &ninn, &s[next], inner);
			next++;
		}
		while (nends && ends[0]->hi <= at)
			heap_pop(ends, &nends, ends_first);
		while (ninn && inn[0]->hi <= at)
			heap_pop(inn, &ninn, inner);
		if (!nends && next == n)
			break;
		if (!nends) {
			at = s[next].lo;
			continue;
		}
		/* Every open span is in both heaps: inn's top is open. */
		end = ends[0]->hi;
		best = inn[0];
		if (next < n && s[next].lo < end)
			end = s[next].lo;
		if (no && o[no - 1].hi == at && o[no - 1].idx == best->idx) {
			o[no - 1].hi = end;
		} else {
			struct span *p = vec_room(o, no, &cap, sizeof(*p));

			if (!p)
				goto oom;
			o = p;
			o[no++] = (struct span){ at, end, best->idx, 0, 0 };
		}
		at = end;
	}
	free(ends);
	free(inn);
	*out = o;
	return (long)no;
oom:
	free(ends);
	free(inn);
	free(o);
	return -1;
}

static int finish(struct build *b)
{
	struct lines *ln = b->ln;
	long n;

	sort_rows(ln);
	if (b->nis)
		qsort(b->ispans, b->nis, sizeof(*b->ispans), cmp_span);
	if (b->nfs)
		qsort(b->fspans, b->nfs, sizeof(*b->fspans), cmp_span);
	n = flatten(b->ispans, b->nis, &ln->inl_spans);
	if (n < 0)
		return nomem(b);
	ln->ninl_spans = (size_t)n;
	n = flatten(b->fspans, b->nfs, &ln->func_spans);
	if (n < 0)
		return nomem(b);
	ln->nfunc_spans = (size_t)n;
	return 0;
}

/* ---- Open --------------------------------------------------------------- */

/* Whether @elf has a .debug_info section (compressed or not). */
static int has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") ||
			     !strcmp(name, ".zdebug_info")))
			return 1;
	}
	return 0;
}

/* The first DWARF string section (.debug_str, .debug_line_str) that
 * does not end in a NUL byte, as libdw holds it (decompressed): a string
 * there would run past its end, which libdw does not check (a damaged
 * or hostile file); NULL when none. */
static const char *unended_strings(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".debug_str") &&
			      strcmp(name, ".debug_line_str")))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size &&
		    (!d->d_buf || ((const char *)d->d_buf)[d->d_size - 1]))
			return name;
	}
	return NULL;
}

static int read_dwarf(struct build *b, Elf *elf)
{
	Dwarf *dw;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Attribute comp_dir;
	uint8_t unit_type;
	Dwarf_Half version;
	const char *bad;
	int rc, err = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return fail(b, -etmkit_err_format, "not an ELF file");
	if (!has_debug_info(elf))
		return fail(b, -etmkit_err_not_found,
			    "no line information (no DWARF debugging "
			    "information: no .debug_info section)");
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return fail_dw(b, "cannot read");
	if ((bad = unended_strings(elf))) {
		dwarf_end(dw);
		return fail(b, -etmkit_err_format, "damaged DWARF: %s does not "
			    "end in a NUL byte", bad);
	}
	while (!err && (rc = dwarf_get_units(dw, cu, &cu, &version,
					     &unit_type, &cudie,
					     &subdie)) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;  /* type and skeleton units: no code here */
		b->files = NULL;
		b->nfiles = 0;
		b->comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir,
							  &comp_dir));
		if (dwarf_hasattr(&cudie, DW_AT_stmt_list) &&
		    dwarf_getsrcfiles(&cudie, &b->files, &b->nfiles) != 0) {
			err = fail_dw(b, "file names");
			break;
		}
		err = unit_rows(b, &cudie);
		if (!err)
			err = walk(b, &cudie, LINES_NONE, LINES_NONE, 0, 0);
	}
	if (!err && rc < 0)
		err = fail_dw(b, "compilation units");
	if (!err && !b->ln->nrows)
		err = fail(b, -etmkit_err_not_found,
			   "no line information (no DWARF line table rows)");
	if (!err)
		err = finish(b);
	dwarf_end(dw);
	return err;
}

static int open_elf(struct lines **out, Elf *elf, const char *name,
		    struct image_diag *diag)
{
	struct build b = { 0 };
	int err;

	b.d = diag;
	b.path = name;
	b.ln = calloc(1, sizeof(*b.ln));
	if (!b.ln)
		return nomem(&b);
	err = read_dwarf(&b, elf);
	free(b.hash);
	free(b.ispans);
	free(b.fspans);
	if (err) {
		lines_free(b.ln);
		return err;
	}
	*out = b.ln;
	return 0;
}

int lines_open_memory(struct lines **ln, const void *data, size_t n,
		      const char *name, struct image_diag *diag)
{
	struct build b = { .d = diag, .path = name ? name : "(memory)" };
	char *copy;
	Elf *elf;
	int err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (ln)
		*ln = NULL;
	if (!ln || (!data && n))
		return -etmkit_err_invalid;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(&b, -etmkit_err_internal, "libelf: %s",
			    elf_errmsg(-1));
	copy = malloc(n ? n : 1);
	if (!copy)
		return nomem(&b);
	if (n)
		memcpy(copy, data, n);
	elf = elf_memory(copy, n);
	err = open_elf(ln, elf, b.path, diag);
	elf_end(elf);
	free(copy);
	return err;
}

int lines_open(struct lines **ln, const char *path, struct image_diag *diag)
{
	struct build b = { .d = diag, .path = path };
	Elf *elf;
	int fd, err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (ln)
		*ln = NULL;
	if (!ln || !path)
		return -etmkit_err_invalid;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(&b, -etmkit_err_internal, "libelf: %s",
			    elf_errmsg(-1));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail(&b, -etmkit_err_io, "cannot open");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = open_elf(ln, elf, path, diag);
	elf_end(elf);
	close(fd);
	return err;
}

void lines_free(struct lines *ln)
{
	if (!ln)
		return;
	for (size_t i = 0; i < ln->nstrs; i++)
		free(ln->strs[i]);
	free(ln->strs);
	free(ln->rows);
	free(ln->inl);
	free(ln->funcs);
	free(ln->inl_spans);
	free(ln->func_spans);
	free(ln);
}

/* ---- Look-ups ------------------------------------------------------------ */

/* The last of @n items of @size bytes, sorted by their first uint64_t
 * (lo) with hi the second, that holds @a; NULL when none. */
static const void *search(const void *v, size_t n, size_t size, uint64_t a)
{
	size_t lo = 0, hi = n;
	const uint64_t *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		e = (const uint64_t *)((const char *)v + mid * size);
		if (e[0] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = (const uint64_t *)((const char *)v + (lo - 1) * size);
	return a < e[1] ? e : NULL;
}

uint32_t lines_func_find(const struct lines *ln, uint64_t vaddr)
{
	const struct span *s;

	if (!ln)
		return LINES_NONE;
	s = search(ln->func_spans, ln->nfunc_spans, sizeof(*s), vaddr);
	return s ? s->idx : LINES_NONE;
}

int lines_find(const struct lines *ln, uint64_t vaddr, struct lines_loc *loc)
{
	const struct span *s;
	const struct lines_row *r;

	if (!ln || !loc)
		return -etmkit_err_invalid;
	memset(loc, 0, sizeof(*loc));
	s = search(ln->inl_spans, ln->ninl_spans, sizeof(*s), vaddr);
	loc->inl = s ? s->idx : LINES_NONE;
	loc->func = lines_func_find(ln, vaddr);
	r = search(ln->rows, ln->nrows, sizeof(*r), vaddr);
	if (!r)
		return -etmkit_err_not_found;
	loc->row = r;
	loc->file = r->file;
	loc->line = r->line;
	loc->column = r->column;
	return 0;
}

size_t lines_row_count(const struct lines *ln)
{
	return ln ? ln->nrows : 0;
}

const struct lines_row *lines_row_at(const struct lines *ln, size_t i)
{
	return ln && i < ln->nrows ? &ln->rows[i] : NULL;
}

size_t lines_inline_count(const struct lines *ln)
{
	return ln ? ln->ninl : 0;
}

const struct lines_inline *lines_inline_at(const struct lines *ln,
					   uint32_t i)
{
	return ln && i < ln->ninl ? &ln->inl[i] : NULL;
}

size_t lines_func_count(const struct lines *ln)
{
	return ln ? ln->nfuncs : 0;
}

const struct lines_func *lines_func_at(const struct lines *ln, uint32_t i)
{
	return ln && i < ln->nfuncs ? &ln->funcs[i] : NULL;
}
