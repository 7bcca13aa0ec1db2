/* etmkit CLI: binaries and functions of decoded instructions
 * (cli/symbolize.h).
 *
 * Each trace ID keeps the last few answers with the run-time span each
 * holds for (locate_result.first/last): an instruction inside one is
 * answered from it; a miss asks the locator (a search over the image's
 * regions, then the file's segments and symbols) and replaces the oldest.
 *
 * The listing pieces of a span (cli_where's text_pre, text_post, json)
 * are formatted once per function of each binary and kept until
 * cli_symbols_free(), not freed with the span: a cli_where copied for
 * another thread (cli/format_pool.h) stays valid however the spans turn
 * over, and a loop over more functions than SPANS_PER_ID formats none
 * again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "symbolize.h"
#include "text_out.h"

#define SPANS_PER_ID 4

struct span {
	const struct image *img;  /* NULL: empty slot */
	uint8_t space;
	uint8_t show;             /* a binary to show (else: known nothing) */
	uint64_t first, last;
	uint64_t delta;           /* vaddr - addr, modulo 2^64 */
	const struct locate_binary *bin;
	const struct elf_symbol *sym;
	const char *dso_short;
	const char *text_pre, *text_post, *json; /* struct pieces' */
	const struct lines *lines; /* the binary's, or NULL */
};

/* The listing pieces of function @sym (NULL: none there) of binary @bin
 * (locate_binary_at() index); NULL text_pre: an empty slot. */
struct pieces {
	size_t bin;
	const struct elf_symbol *sym;
	char *text_pre, *text_post, *json;
};

struct cli_symbols {
	struct locate *loc;
	struct span spans[128][SPANS_PER_ID];
	uint8_t next[128];        /* slot to replace */
	int want_lines;
	/* Per binary (locate_binary_at() index): its line tables, read
	 * when first met (tried), NULL when it has none. */
	struct lines **lines;
	uint8_t *tried;
	size_t nlines;
	/* Every struct pieces formatted: open addressing, a power of two
	 * slots (0: none yet), at most half used. */
	struct pieces *pieces;
	size_t npieces, cap_pieces;
};

struct cli_symbols *cli_symbols_alloc(void)
{
	struct cli_symbols *sy = calloc(1, sizeof(*sy));

	if (sy && locate_alloc(&sy->loc) < 0) {
		free(sy);
		return NULL;
	}
	return sy;
}

static void span_clear(struct span *s)
{
	memset(s, 0, sizeof(*s));
}

void cli_symbols_free(struct cli_symbols *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < sy->cap_pieces; i++) {
		free(sy->pieces[i].text_pre);
		free(sy->pieces[i].text_post);
		free(sy->pieces[i].json);
	}
	free(sy->pieces);
	for (size_t i = 0; i < sy->nlines; i++)
		lines_free(sy->lines[i]);
	free(sy->lines);
	free(sy->tried);
	locate_free(sy->loc);
	free(sy);
}

/* Grow-as-needed text, for the formatted pieces. */
struct buf {
	char *p;
	size_t n, cap;
	int failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A JSON string: quotes, backslashes and control characters escaped,
 * bytes of no valid UTF-8 sequence as \ufffd (cli/text_out.h). */
static void put_json(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	put(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		size_t l = cli_utf8_len(s + i, n - i);
		char esc[8];

		if (!l) {
			put(b, "\\ufffd", 6);
			i++;
			continue;
		}
		if (s[i] == '"' || s[i] == '\\') {
			esc[0] = '\\';
			esc[1] = s[i];
			put(b, esc, 2);
		} else if ((unsigned char)s[i] < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x",
				 (unsigned char)s[i]);
			put(b, esc, 6);
		} else {
			put(b, s + i, l);
		}
		i += l;
	}
	put(b, "\"", 1);
}

/* The listing pieces of function @sym (or none) of binary @b, into @pc.
 * Returns 0 or -1 (memory). */
static int format_pieces(struct pieces *pc, const struct locate_binary *b,
			 const struct elf_symbol *sym, const char *dso_short)
{
	struct buf pre = { 0 }, post = { 0 }, js = { 0 };

	if (sym) {
		puts_(&pre, sym->name);
		puts_(&pre, "+0x");
		puts_(&post, " (");
	} else {
		puts_(&pre, "");
		puts_(&post, "(");
	}
	puts_(&post, dso_short);
	puts_(&post, ")");
	puts_(&js, ",\"dso\":");
	put_json(&js, b->name);
	if (sym) {
		puts_(&js, ",\"sym\":");
		put_json(&js, sym->name);
	}
	if (pre.failed || post.failed || js.failed) {
		free(pre.p);
		free(post.p);
		free(js.p);
		return -1;
	}
	pc->text_pre = pre.p;
	pc->text_post = post.p;
	pc->json = js.p;
	return 0;
}

/* The slot of (@bin, @sym) in @tab (@cap slots, a power of two): where
 * it is or the empty one where it goes. */
static struct pieces *pieces_slot(struct pieces *tab, size_t cap, size_t bin,
				  const struct elf_symbol *sym)
{
	uint64_t k = (uint64_t)(uintptr_t)sym ^ ((uint64_t)bin << 40);
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);

	while (tab[i].text_pre &&
	       (tab[i].bin != bin || tab[i].sym != sym))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Double the table (at least 64 slots). Returns 0 or -1 (memory). */
static int pieces_grow(struct cli_symbols *sy)
{
	size_t cap = sy->cap_pieces ? 2 * sy->cap_pieces : 64;
	struct pieces *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (size_t i = 0; i < sy->cap_pieces; i++) {
		const struct pieces *pc = &sy->pieces[i];

		if (pc->text_pre)
			*pieces_slot(tab, cap, pc->bin, pc->sym) = *pc;
	}
	free(sy->pieces);
	sy->pieces = tab;
	sy->cap_pieces = cap;
	return 0;
}

/* Span @s's listing pieces, binary @bin's (index @bin_index): the ones
 * formatted before, else new ones. Returns 0 or -1 (memory). */
static int span_pieces(struct cli_symbols *sy, struct span *s,
		       size_t bin_index)
{
	struct pieces *pc = NULL;

	if (sy->cap_pieces)
		pc = pieces_slot(sy->pieces, sy->cap_pieces, bin_index, s->sym);
	if (!pc || !pc->text_pre) {
		/* New ones: the table grows only for them. */
		if (2 * (sy->npieces + 1) > sy->cap_pieces) {
			if (pieces_grow(sy) < 0)
				return -1;
			pc = pieces_slot(sy->pieces, sy->cap_pieces, bin_index,
					 s->sym);
		}
		if (format_pieces(pc, s->bin, s->sym, s->dso_short) < 0)
			return -1;
		pc->bin = bin_index;
		pc->sym = s->sym;
		sy->npieces++;
	}
	s->text_pre = pc->text_pre;
	s->text_post = pc->text_post;
	s->json = pc->json;
	return 0;
}

int cli_symbols_add_image(struct cli_symbols *sy, const struct image *img)
{
	struct image_diag d;
	int err = locate_add_image(sy->loc, img, &d);

	if (err == 0)
		return 0;
	if (err == -etmkit_err_nomem) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	/* The decode does not need it: the listing goes without. */
	cli_warn("%s: %s (%s): listing without binaries and functions from "
		 "this image", d.path[0] ? d.path : "?",
		 d.message[0] ? d.message : "cannot read", etmkit_errstr(err));
	return 0;
}

void cli_symbols_want_lines(struct cli_symbols *sy)
{
	if (sy)
		sy->want_lines = 1;
}

/* The line tables of binary @i (@b), read the first time: NULL when it
 * has none (noted once; a broken one warned about once). */
static const struct lines *binary_lines(struct cli_symbols *sy, size_t i,
					const struct locate_binary *b)
{
	struct image_diag d;
	int err;

	if (i >= sy->nlines) {
		size_t n = locate_binary_count(sy->loc);
		struct lines **l = realloc(sy->lines, n * sizeof(*l));
		uint8_t *t;

		if (!l)
			return NULL;
		sy->lines = l;
		t = realloc(sy->tried, n);
		if (!t)
			return NULL;
		sy->tried = t;
		memset(l + sy->nlines, 0, (n - sy->nlines) * sizeof(*l));
		memset(t + sy->nlines, 0, n - sy->nlines);
		sy->nlines = n;
		if (i >= n)
			return NULL;
	}
	if (sy->tried[i])
		return sy->lines[i];
	sy->tried[i] = 1;
	if (!b->elf)
		return NULL;
	err = lines_open(&sy->lines[i], b->file, &d);
	if (err == -etmkit_err_not_found)
		cli_note("%s: %s: listing without source lines for it",
			 b->file, d.message);
	else if (err < 0)
		cli_warn("%s: %s (%s): listing without source lines for it",
			 d.path[0] ? d.path : b->file,
			 d.message[0] ? d.message : "cannot read",
			 etmkit_errstr(err));
	return sy->lines[i];
}

struct locate *cli_symbols_locate(struct cli_symbols *sy)
{
	return sy ? sy->loc : NULL;
}

/* An ELF file, or a file the recording named: a binary to show. */
static int shown(const struct locate_binary *b)
{
	return b->elf || strcmp(b->name, b->file) != 0;
}

int cli_symbols_any(const struct cli_symbols *sy)
{
	size_t n = sy ? locate_binary_count(sy->loc) : 0;

	for (size_t i = 0; i < n; i++)
		if (shown(locate_binary_at(sy->loc, i)))
			return 1;
	return 0;
}

static const char *last_component(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Ask the locator; fill slot @s (unused when nothing is there). */
static void fill(struct cli_symbols *sy, struct span *s,
		 const struct image *img, uint8_t space, uint64_t addr)
{
	struct locate_result r;

	span_clear(s);
	s->img = img;
	s->space = space;
	if (locate_find(sy->loc, img, space, addr, &r) < 0) {
		/* Nothing here: for this address alone. */
		s->first = s->last = addr;
		return;
	}
	s->first = r.first;
	s->last = r.last;
	s->show = (uint8_t)shown(r.bin);
	s->bin = r.bin;
	s->sym = r.vaddr_known ? r.sym : NULL;
	s->delta = r.vaddr - addr;
	s->dso_short = last_component(r.bin->name);
	if (sy->want_lines && r.vaddr_known)
		s->lines = binary_lines(sy, r.bin_index, r.bin);
	if (s->show && span_pieces(sy, s, r.bin_index) < 0)
		s->show = 0; /* out of memory: this span goes without */
}

int cli_symbols_find(struct cli_symbols *sy, uint8_t id,
		     const struct image *img, uint8_t space, uint64_t addr,
		     struct cli_where *w)
{
	struct span *set, *s = NULL;

	if (!sy || !img)
		return 0;
	set = sy->spans[id & 0x7f];
	for (int i = 0; i < SPANS_PER_ID; i++)
		if (set[i].img == img && set[i].space == space &&
		    set[i].first <= addr && addr <= set[i].last) {
			s = &set[i];
			break;
		}
	if (!s) {
		s = &set[sy->next[id & 0x7f]];
		sy->next[id & 0x7f] = (uint8_t)((sy->next[id & 0x7f] + 1) %
						SPANS_PER_ID);
		fill(sy, s, img, space, addr);
	}
	if (!s->show)
		return 0;
	w->dso = s->bin->name;
	w->dso_short = s->dso_short;
	w->sym = s->sym ? s->sym->name : NULL;
	w->symoff = s->sym ? addr + s->delta - s->sym->addr : 0;
	w->text_pre = s->text_pre;
	w->text_post = s->text_post;
	w->json = s->json;
	w->lines = s->lines;
	w->has_line = s->lines &&
		      lines_find(s->lines, addr + s->delta, &w->loc) == 0;
	return 1;
}
