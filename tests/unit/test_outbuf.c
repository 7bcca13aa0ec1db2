/* cli/outbuf.c: each formatting function writes what snprintf() writes for
 * the printf format it stands for (cli/outbuf.h), on edge values and on
 * many random ones; and the buffer gives its FILE every byte in order,
 * whatever the buffer's size and the lengths put. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "outbuf.h"

/* A writer into a memory FILE of @cap bytes of buffer. */
struct sink {
	char *mem;
	size_t len;
	FILE *f;
	char buf[4096];
	struct cli_out o;
};

static void sink_open(struct sink *s, size_t cap)
{
	s->mem = NULL;
	s->len = 0;
	s->f = open_memstream(&s->mem, &s->len);
	assert_non_null(s->f);
	assert_true(cap <= sizeof(s->buf));
	cli_out_init(&s->o, s->f, s->buf, cap, 0);
}

/* Everything written, NUL-ended (the caller frees it). */
static char *sink_close(struct sink *s)
{
	assert_int_equal(cli_out_flush(&s->o), 0);
	assert_int_equal(fclose(s->f), 0);
	return s->mem;
}

/* xorshift64*: values of every length, from 0 up to all 64 bits */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	x *= 0x2545f4914f6cdd1dull;
	return x >> (x & 63);   /* a random number of bits */
}

static const uint64_t edges[] = {
	0, 1, 9, 10, 15, 16, 99, 100, 255, 256, 999, 1000, 0xffff, 0x10000,
	99999, 100000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	999999999999ull, 1000000000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 9999999999999999999ull, 10000000000000000000ull,
	0xfffffffffffffffeull, 0xffffffffffffffffull
};

#define NEDGE (sizeof(edges) / sizeof(edges[0]))
#define NRANDOM 20000

/* The @i-th value: the edges, then random ones. */
static uint64_t value(size_t i)
{
	return i < NEDGE ? edges[i] : rnd();
}

/* Put each value with @put and with snprintf(@fmt-like) into @want: the
 * two texts must be the same, value by value (one line each). */
static void compare(void (*put)(struct cli_out *, uint64_t, unsigned),
		    int (*ref)(char *, size_t, uint64_t, unsigned),
		    unsigned width, size_t cap)
{
	struct sink s;
	char *want = malloc((NEDGE + NRANDOM) * 128 + 1), *got;
	size_t at = 0;

	assert_non_null(want);
	sink_open(&s, cap);
	for (size_t i = 0; i < NEDGE + NRANDOM; i++) {
		uint64_t v = value(i);

		put(&s.o, v, width);
		cli_out_eol(&s.o);
		at += (size_t)ref(want + at, 128, v, width);
		want[at++] = '\n';
	}
	want[at] = '\0';
	got = sink_close(&s);
	assert_int_equal(strlen(got), at);
	if (strcmp(got, want) != 0) {
		size_t k = 0;

		while (got[k] == want[k])
			k++;
		while (k && want[k - 1] != '\n')
			k--;
		fail_msg("differs at line starting %.40s (snprintf %.40s)",
			 got + k, want + k);
	}
	free(got);
	free(want);
}

static void put_hex(struct cli_out *o, uint64_t v, unsigned w)
{
	cli_out_hex(o, v, w);
}

static int ref_hex(char *b, size_t n, uint64_t v, unsigned w)
{
	return snprintf(b, n, "%0*" PRIx64, (int)w, v);
}

static void put_udec(struct cli_out *o, uint64_t v, unsigned w)
{
	(void)w;
	cli_out_udec(o, v);
}

static int ref_udec(char *b, size_t n, uint64_t v, unsigned w)
{
	(void)w;
	return snprintf(b, n, "%" PRIu64, v);
}

static void put_udec_w(struct cli_out *o, uint64_t v, unsigned w)
{
	cli_out_udec_w(o, v, w);
}

static int ref_udec_w(char *b, size_t n, uint64_t v, unsigned w)
{
	return snprintf(b, n, "%*" PRIu64, (int)w, v);
}

static void put_sdec(struct cli_out *o, uint64_t v, unsigned w)
{
	(void)w;
	cli_out_sdec(o, (int64_t)v);
}

static int ref_sdec(char *b, size_t n, uint64_t v, unsigned w)
{
	(void)w;
	return snprintf(b, n, "%" PRId64, (int64_t)v);
}

/* The 32-bit values (the listings' "%x" and "%u" of uint32_t). */
static void put_hex32(struct cli_out *o, uint64_t v, unsigned w)
{
	cli_out_hex(o, (uint32_t)v, w);
}

static int ref_hex32(char *b, size_t n, uint64_t v, unsigned w)
{
	return snprintf(b, n, "%0*" PRIx32, (int)w, (uint32_t)v);
}

static void test_hex(void **state)
{
	(void)state;
	for (unsigned w = 0; w <= 16; w++) {
		compare(put_hex, ref_hex, w, 4096);
		compare(put_hex32, ref_hex32, w, 4096);
	}
}

static void test_decimal(void **state)
{
	(void)state;
	compare(put_udec, ref_udec, 0, 4096);
	compare(put_sdec, ref_sdec, 0, 4096);
	for (unsigned w = 0; w <= 24; w++)
		compare(put_udec_w, ref_udec_w, w, 4096);
	/* INT64_MIN has no positive twin */
	compare(put_sdec, ref_sdec, 0, CLI_OUT_MAX_FIELD);
}

/* A buffer just big enough for one field: every put flushes. */
static void test_small_buffer(void **state)
{
	(void)state;
	compare(put_hex, ref_hex, 16, CLI_OUT_MAX_FIELD);
	compare(put_udec_w, ref_udec_w, 40, CLI_OUT_MAX_FIELD);
	compare(put_udec_w, ref_udec_w, 70, CLI_OUT_MAX_FIELD);
}

/* Strings: "%s", "%-*s", "%*s", "%*s" of "" (spaces), of any length
 * (past the buffer too), in order, into @o; what snprintf() writes of
 * them into @want (@cap bytes). Returns its length. */
static size_t put_strings(struct cli_out *o, char *want, size_t cap)
{
	size_t at = 0;
	char str[300];

	for (size_t len = 0; len < 300; len += 7) {
		size_t w = (size_t)(rnd() % 320);

		for (size_t i = 0; i < len; i++)
			str[i] = (char)('a' + (i + len) % 26);
		str[len] = '\0';
		cli_out_str(o, str);
		cli_out_str_left(o, str, w);
		cli_out_char(o, '|');
		cli_out_str_right(o, str, w);
		cli_out_spaces(o, w);
		cli_out_mem(o, str, len / 2);
		cli_out_hex(o, len * 0x1234567u, 0);
		cli_out_eol(o);
		at += (size_t)snprintf(want + at, cap - at,
				       "%s%-*s|%*s%*s%.*s%" PRIx64 "\n", str,
				       (int)w, str, (int)w, str, (int)w, "",
				       (int)(len / 2), str,
				       (uint64_t)len * 0x1234567u);
	}
	return at;
}

static void test_strings(void **state)
{
	static const size_t caps[] = { CLI_OUT_MAX_FIELD, 100, 4096 };

	(void)state;
	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		struct sink s;
		size_t cap = 300 * 300 * 4, at;
		char *want = malloc(cap), *got;

		assert_non_null(want);
		sink_open(&s, caps[c]);
		at = put_strings(&s.o, want, cap);
		got = sink_close(&s);
		assert_int_equal(strlen(got), at);
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
}

/* In memory (cli_out_init_mem()): the buffer grows from the least size
 * to hold everything put, byte for byte. */
static void test_memory(void **state)
{
	size_t cap = 300 * 300 * 4, at;
	char *want = malloc(cap);
	struct cli_out o;

	(void)state;
	assert_non_null(want);
	cli_out_init_mem(&o, malloc(CLI_OUT_MAX_FIELD), CLI_OUT_MAX_FIELD);
	assert_non_null(o.buf);
	at = put_strings(&o, want, cap);
	assert_int_equal(o.err, 0);
	assert_int_equal(o.n, at);
	assert_memory_equal(o.buf, want, at);
	assert_true(o.cap >= at);
	free(o.buf);
	free(want);
}

/* A FILE that refuses writes: the error is kept and reported. */
static void test_write_error(void **state)
{
	char mem[8], buf[CLI_OUT_MAX_FIELD];
	FILE *f = fmemopen(mem, sizeof(mem), "w");
	struct cli_out o;

	(void)state;
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	cli_out_init(&o, f, buf, sizeof(buf), 0);
	for (int i = 0; i < 100; i++)
		cli_out_str(&o, "more than eight bytes\n");
	assert_int_equal(cli_out_flush(&o), -1);
	assert_int_equal(cli_out_flush(&o), -1);
	fclose(f);
}

/* Line mode: each line is in the FILE when it ends. */
static void test_line_mode(void **state)
{
	char *mem = NULL, buf[4096];
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	struct cli_out o;

	(void)state;
	assert_non_null(f);
	cli_out_init(&o, f, buf, sizeof(buf), 1);
	cli_out_str(&o, "one");
	fflush(f);
	assert_int_equal(len, 0);
	cli_out_eol(&o);
	fflush(f);
	assert_int_equal(len, 4);
	assert_memory_equal(mem, "one\n", 4);
	fclose(f);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_line_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
