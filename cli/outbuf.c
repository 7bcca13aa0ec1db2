/* The CLI's buffered line writer: cli/outbuf.h. */
#include <stdlib.h>

#include "outbuf.h"

static const char hex_digits[16] = "0123456789abcdef";
/* "00", "01", ... "ff": the hex digits of each byte value */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char blanks[32] = "                                ";

void cli_out_init(struct cli_out *o, FILE *f, char *buf, size_t cap,
		  int line)
{
	o->f = f;
	o->buf = buf;
	o->n = 0;
	o->cap = cap;
	o->line = line;
	o->err = 0;
}

void cli_out_init_mem(struct cli_out *o, char *buf, size_t cap)
{
	cli_out_init(o, NULL, buf, cap, 0);
}

/* In memory: room for @k more bytes, the buffer doubled until it has
 * them. Returns 0, or -1 (out of memory: what was held is dropped). */
static int grow(struct cli_out *o, size_t k)
{
	size_t cap = o->cap;
	char *p;

	while (cap - o->n < k)
		cap *= 2;
	if (cap == o->cap)
		return 0;
	p = realloc(o->buf, cap);
	if (!p) {
		o->err = 1;
		o->n = 0;
		return -1;
	}
	o->buf = p;
	o->cap = cap;
	return 0;
}

int cli_out_flush(struct cli_out *o)
{
	if (!o->f) {
		grow(o, CLI_OUT_MAX_FIELD);
		return o->err ? -1 : 0;
	}
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = 1;
	o->n = 0;
	return o->err ? -1 : 0;
}

void cli_out_mem_slow(struct cli_out *o, const char *s, size_t n)
{
	if (!o->f) {
		if (grow(o, n) == 0) {
			memcpy(o->buf + o->n, s, n);
			o->n += n;
		}
		return;
	}
	cli_out_flush(o);
	if (n >= o->cap) {              /* longer than the buffer: as it is */
		if (fwrite(s, 1, n, o->f) != n)
			o->err = 1;
		return;
	}
	memcpy(o->buf, s, n);
	o->n = n;
}

void cli_out_spaces(struct cli_out *o, size_t n)
{
	while (n) {
		size_t k = n < sizeof(blanks) ? n : sizeof(blanks);

		cli_out_mem(o, blanks, k);
		n -= k;
	}
}

char *cli_put_hex(char *p, uint64_t v, unsigned width)
{
	unsigned n = 1;
	char *end;

	if (width == 8 && v <= 0xffffffffu) {   /* the listings' addresses */
		memcpy(p, hex_pairs + 2 * (v >> 24), 2);
		memcpy(p + 2, hex_pairs + 2 * ((v >> 16) & 0xff), 2);
		memcpy(p + 4, hex_pairs + 2 * ((v >> 8) & 0xff), 2);
		memcpy(p + 6, hex_pairs + 2 * (v & 0xff), 2);
		return p + 8;
	}
#if defined(__GNUC__)
	if (v)
		n = (67 - (unsigned)__builtin_clzll(v)) / 4;
#else
	while (n < 16 && v >> (4 * n))
		n++;
#endif
	if (n < width)
		n = width <= 16 ? width : 16;
	end = p + n;
	/* two digits at a time: a byte's pair from the table */
	for (char *q = end; q > p + 1; v >>= 8) {
		q -= 2;
		memcpy(q, hex_pairs + 2 * (v & 0xff), 2);
	}
	if (n & 1)
		*p = hex_digits[v & 0xf];
	return end;
}

/* The decimal digits of @v, ending at @end; returns where they start. */
static char *udec_digits(char *end, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		end[0] = pairs[2 * r];
		end[1] = pairs[2 * r + 1];
	}
	if (v >= 10) {
		end -= 2;
		end[0] = pairs[2 * v];
		end[1] = pairs[2 * v + 1];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* How many decimal digits @v has. */
static unsigned udec_len(uint64_t v)
{
	static const uint64_t pow10[19] = {
		10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull
	};
	unsigned n = 1;

	while (n < 20 && v >= pow10[n - 1])
		n++;
	return n;
}

char *cli_put_udec_w(char *p, uint64_t v, unsigned width)
{
	unsigned n = udec_len(v);

	while (width > n) {
		*p++ = ' ';
		width--;
	}
	udec_digits(p + n, v);
	return p + n;
}

void cli_out_udec_w(struct cli_out *o, uint64_t v, unsigned width)
{
	if (width > 32) {
		unsigned n = udec_len(v);

		if (width > n)
			cli_out_spaces(o, width - n);
		width = 0;
	}
	cli_out_end(o, cli_put_udec_w(cli_out_room(o, 32), v, width));
}

void cli_out_sdec(struct cli_out *o, int64_t v)
{
	if (v < 0) {
		cli_out_char(o, '-');
		cli_out_udec(o, 0 - (uint64_t)v);
	} else {
		cli_out_udec(o, (uint64_t)v);
	}
}

void cli_out_str_left(struct cli_out *o, const char *s, size_t width)
{
	size_t n = strlen(s);

	cli_out_mem(o, s, n);
	if (width > n)
		cli_out_spaces(o, width - n);
}

void cli_out_str_right(struct cli_out *o, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (width > n)
		cli_out_spaces(o, width - n);
	cli_out_mem(o, s, n);
}

void cli_out_key_hex_n(struct cli_out *o, const char *key, size_t klen,
		       uint64_t v, unsigned width)
{
	cli_out_mem(o, key, klen);
	cli_out_hex(o, v, width);
}

void cli_out_key_udec_n(struct cli_out *o, const char *key, size_t klen,
			uint64_t v)
{
	cli_out_mem(o, key, klen);
	cli_out_udec(o, v);
}

void cli_out_key_str_n(struct cli_out *o, const char *key, size_t klen,
		       const char *s)
{
	cli_out_mem(o, key, klen);
	cli_out_str(o, s);
}
