/* A buffered writer for the CLI's listings (decode, packets): each line is
 * put together in memory and the buffer goes to its FILE with one fwrite()
 * when it fills, instead of a printf() per field. The formatting is
 * printf's, byte for byte (tests/unit/test_outbuf.c compares them):
 * cli_out_hex() is "%0*" PRIx64, cli_out_udec() "%" PRIu64 and so on,
 * as each function says. printf parses its format and goes through
 * its stream at every call; on `etmkit decode --ranges` that was 70% of
 * the run (bench/README.md, "Listing text").
 *
 * Nothing else may write to the FILE while bytes are held: call
 * cli_out_flush() first. With @line set (a terminal), every line goes out
 * when it ends, as a line-buffered stdout would.
 *
 * A writer without a FILE (cli_out_init_mem()) keeps its text in memory,
 * its buffer grown as lines are put: listing lines formatted on another
 * thread, written to the FILE later (cli/format_pool.h). */
#ifndef ETMKIT_CLI_OUTBUF_H
#define ETMKIT_CLI_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The most bytes one cli_out_room() may ask for; every buffer holds at
 * least this. */
#define CLI_OUT_MAX_FIELD 256

struct cli_out {
	FILE *f;        /* NULL: in memory */
	char *buf;
	size_t n;       /* bytes held */
	size_t cap;     /* >= CLI_OUT_MAX_FIELD */
	int line;       /* flush at each end of line */
	int err;        /* an fwrite() fell short */
};

/* Write into @buf (@cap bytes, at least CLI_OUT_MAX_FIELD) for @f. */
void cli_out_init(struct cli_out *o, FILE *f, char *buf, size_t cap,
		  int line);

/* Into memory: @buf (malloc()'d, @cap bytes, at least CLI_OUT_MAX_FIELD)
 * grows with realloc() as needed (o->buf, the text o->n bytes; the
 * caller frees o->buf). Out of memory, what is held is dropped and o->err
 * set, as when a write to a FILE falls short. */
void cli_out_init_mem(struct cli_out *o, char *buf, size_t cap);

/* Hand what is held to the FILE (fwrite(), no fflush()); in memory, make
 * room for CLI_OUT_MAX_FIELD more bytes. Returns 0, or -1 when some write
 * to the FILE fell short (then and before: o->err stays set). */
int cli_out_flush(struct cli_out *o);

/* Room for @k (<= CLI_OUT_MAX_FIELD) more bytes, flushing if needed:
 * where to put them. */
static inline char *cli_out_room(struct cli_out *o, size_t k)
{
	if (o->cap - o->n < k)
		cli_out_flush(o);
	return o->buf + o->n;
}

/* @n bytes of @s, any length. */
void cli_out_mem_slow(struct cli_out *o, const char *s, size_t n);

static inline void cli_out_mem(struct cli_out *o, const char *s, size_t n)
{
	if (o->cap - o->n >= n) {
		memcpy(o->buf + o->n, s, n);
		o->n += n;
	} else {
		cli_out_mem_slow(o, s, n);
	}
}

/* "%s" */
static inline void cli_out_str(struct cli_out *o, const char *s)
{
	cli_out_mem(o, s, strlen(s));
}

/* A string literal @lit: its length known when compiled. */
#define cli_out_lit(o, lit) cli_out_mem((o), "" lit "", sizeof(lit) - 1)

/* "%c" */
static inline void cli_out_char(struct cli_out *o, char c)
{
	*cli_out_room(o, 1) = c;
	o->n++;
}

/* The end of a line: '\n', then out at once with o->line. */
static inline void cli_out_eol(struct cli_out *o)
{
	cli_out_char(o, '\n');
	if (o->line)
		cli_out_flush(o);
}

/* Formatting at @p, with room known (cli_out_room()): each returns
 * where its text ends. The caller sets o->n from the last one's end
 * (cli_out_end()). */

/* "%0*" PRIx64 with @width (0 to 16; at most 16 bytes). */
char *cli_put_hex(char *p, uint64_t v, unsigned width);

/* "%*" PRIu64 with @width (0 to 32; at most 32 bytes). */
char *cli_put_udec_w(char *p, uint64_t v, unsigned width);

/* "%-*s": @s (a name from a fixed table: few bytes), then spaces up to
 * @width. */
static inline char *cli_put_left(char *p, const char *s, unsigned width)
{
	char *end = p + width;

	while (*s)
		*p++ = *s++;
	while (p < end)
		*p++ = ' ';
	return p;
}

static inline void cli_out_end(struct cli_out *o, char *p)
{
	o->n = (size_t)(p - o->buf);
}

/* @n spaces ("%*s" with ""). */
void cli_out_spaces(struct cli_out *o, size_t n);

/* "%0*" PRIx64 with @width (0 to 16): lower-case hex digits, zeros in
 * front up to @width; "0" for 0 whatever the width (printf's too). */
static inline void cli_out_hex(struct cli_out *o, uint64_t v, unsigned width)
{
	cli_out_end(o, cli_put_hex(cli_out_room(o, 16), v, width));
}

/* "%" PRIu64 */
static inline void cli_out_udec(struct cli_out *o, uint64_t v)
{
	cli_out_end(o, cli_put_udec_w(cli_out_room(o, 20), v, 0));
}

/* "%*" PRIu64 with @width: spaces in front up to @width. */
void cli_out_udec_w(struct cli_out *o, uint64_t v, unsigned width);

/* "%" PRId64 */
void cli_out_sdec(struct cli_out *o, int64_t v);

/* "%-*s" (@s then spaces up to @width) and "%*s" (spaces, then @s). */
void cli_out_str_left(struct cli_out *o, const char *s, size_t width);
void cli_out_str_right(struct cli_out *o, const char *s, size_t width);

/* A field of a listing line: @key, a string literal (" NAME=0x",
 * ",\"NAME\":"), then the value as cli_out_hex(), cli_out_udec() or
 * cli_out_str() writes it. Out of line: a listing has many. */
#define cli_out_key_hex(o, key, v, width) \
	cli_out_key_hex_n(o, "" key "", sizeof(key) - 1, v, width)
#define cli_out_key_udec(o, key, v) \
	cli_out_key_udec_n(o, "" key "", sizeof(key) - 1, v)
#define cli_out_key_str(o, key, s) \
	cli_out_key_str_n(o, "" key "", sizeof(key) - 1, s)
void cli_out_key_hex_n(struct cli_out *o, const char *key, size_t klen,
		       uint64_t v, unsigned width);
void cli_out_key_udec_n(struct cli_out *o, const char *key, size_t klen,
			uint64_t v);
void cli_out_key_str_n(struct cli_out *o, const char *key, size_t klen,
		       const char *s);

#endif /* ETMKIT_CLI_OUTBUF_H */
