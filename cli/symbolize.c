/* etmkit CLI: binaries and functions of decoded instructions
 * (cli/symbolize.h).
 *
 * Each trace ID keeps the last few answers with the run-time span each
 * holds for (locate_result.first/last): an instruction inside one is
 * answered from it; a miss asks the locator (a search over the image's
 * regions, then the file's segments and symbols) and replaces the oldest.
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
	char *text_pre, *text_post, *json; /* formatted at fill(), owned */
	const struct lines *lines; /* the binary's, or NULL */
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
	free(s->text_pre);
	free(s->text_post);
	free(s->json);
	memset(s, 0, sizeof(*s));
}

void cli_symbols_free(struct cli_symbols *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < 128; i++)
		for (size_t k = 0; k < SPANS_PER_ID; k++)
			span_clear(&sy->spans[i][k]);
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

/* The listing pieces of span @s (cli_where). Returns 0 or -1 (memory). */
static int format_span(struct span *s)
{
	struct buf pre = { 0 }, post = { 0 }, js = { 0 };

	if (s->sym) {
		puts_(&pre, s->sym->name);
		puts_(&pre, "+0x");
		puts_(&post, " (");
	} else {
		puts_(&pre, "");
		puts_(&post, "(");
	}
	puts_(&post, s->dso_short);
	puts_(&post, ")");
	puts_(&js, ",\"dso\":");
	put_json(&js, s->bin->name);
	if (s->sym) {
		puts_(&js, ",\"sym\":");
		put_json(&js, s->sym->name);
	}
	s->text_pre = pre.p;
	s->text_post = post.p;
	s->json = js.p;
	return pre.failed || post.failed || js.failed ? -1 : 0;
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
	if (s->show && format_span(s) < 0)
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
