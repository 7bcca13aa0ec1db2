/* Unit tests of the encoders' shared parts: the CoreSight formatter
 * (frame_enc, the inverse of the deformatter) and the execution record's
 * text form (docs/exec-record.md).
 *
 * Expected frames are worked out by hand from the frame rules
 * (shared/spec/coresight-frames.md 1; DDI 0314H 9.6.1); the random round
 * trips go through the project's deformatter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"
#include "etmkit/transport.h"

/* ---- Formatter ----------------------------------------------------------- */

struct frames {
	uint8_t *b;
	size_t n, cap;
	int calls;
};

static int collect(void *ctx, const uint8_t *data, size_t len)
{
	struct frames *fr = ctx;

	assert_int_equal(len % 16, 0);
	if (fr->n + len > fr->cap) {
		fr->cap = (fr->n + len) * 2;
		fr->b = realloc(fr->b, fr->cap);
		assert_non_null(fr->b);
	}
	memcpy(fr->b + fr->n, data, len);
	fr->n += len;
	fr->calls++;
	return 0;
}

static void test_frame_by_hand(void **state)
{
	struct frame_enc *f;
	struct frames fr = { 0 };
	static const uint8_t a[] = { 0x01, 0x02, 0x03 };
	static const uint8_t b[] = { 0x81 };
	/* ID 0x10 (0x21) owns 01; 02 (bit 0 clear) and 03; ID 0x11 must
	 * take over at byte 4, an even position: 0x23 there, aux bit 2
	 * clear; 81 at byte 5; then the null ID at byte 6 and zeros. */
	static const uint8_t want[16] = {
		0x21, 0x01, 0x02, 0x03, 0x23, 0x81, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
	(void)state;
	assert_int_equal(frame_enc_alloc(&f, collect, &fr), 0);
	assert_int_equal(frame_enc_put(f, 0x10, a, 3), 0);
	assert_int_equal(frame_enc_put(f, 0x11, b, 1), 0);
	assert_int_equal(frame_enc_finish(f), 0);
	assert_int_equal(fr.n, 16);
	assert_memory_equal(fr.b, want, 16);
	frame_enc_free(f);
	free(fr.b);
}

static void test_frame_delayed_id(void **state)
{
	struct frame_enc *f;
	struct frames fr = { 0 };
	static const uint8_t a[] = { 0x41, 0x42 };
	static const uint8_t b[] = { 0x55 };
	/* 41 at byte 1, 42 at byte 2 (data 0x42, aux bit 1 clear). ID 0x11
	 * is needed at byte 3, odd: 42 moves to byte 3 and byte 2 becomes
	 * the ID with aux bit 1 set (byte 3 stays with 0x10); 55 at byte 4
	 * (0x54, aux bit 2 set). The null ID that pads the frame would fall
	 * on byte 5, odd: 55 moves there and byte 4 becomes the null ID,
	 * aux bit 2 still set, so 55 stays with 0x11. */
	static const uint8_t want[16] = {
		0x21, 0x41, 0x23, 0x42, 0x01, 0x55, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06 };
	(void)state;
	assert_int_equal(frame_enc_alloc(&f, collect, &fr), 0);
	assert_int_equal(frame_enc_put(f, 0x10, a, 2), 0);
	assert_int_equal(frame_enc_put(f, 0x11, b, 1), 0);
	assert_int_equal(frame_enc_finish(f), 0);
	assert_int_equal(fr.n, 16);
	assert_memory_equal(fr.b, want, 16);
	frame_enc_free(f);
	free(fr.b);
}

static void test_frame_bad_args(void **state)
{
	struct frame_enc *f;
	struct frames fr = { 0 };
	uint8_t x = 0;
	(void)state;
	assert_int_equal(frame_enc_alloc(&f, NULL, NULL), -etmkit_err_invalid);
	assert_int_equal(frame_enc_alloc(&f, collect, &fr), 0);
	assert_int_equal(frame_enc_put(f, 0, &x, 1), -etmkit_err_invalid);
	assert_int_equal(frame_enc_put(f, 0x70, &x, 1), -etmkit_err_invalid);
	assert_int_equal(frame_enc_finish(f), 0);
	assert_int_equal(fr.n, 0);
	frame_enc_free(f);
}

/* What the deformatter hands back, per ID. */
struct streams {
	uint8_t *b[4];
	size_t n[4];
};

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	struct streams *s = ctx;
	(void)offsets;
	(void)base;
	assert_true(id >= 0x10 && id < 0x14);
	memcpy(s->b[id - 0x10] + s->n[id - 0x10], data, n);
	s->n[id - 0x10] += n;
	return 0;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Random streams of 1-4 sources, interleaved in random runs, framed and
 * deformatted again: every source gets its bytes back, in order. */
static void test_frame_round_trip(void **state)
{
	enum { N = 20000 };
	uint32_t seed = 12345;
	(void)state;
	for (int round = 0; round < 60; round++) {
		struct frames fr = { 0 };
		struct streams got = { 0 };
		uint8_t *want[4];
		size_t nwant[4] = { 0 };
		unsigned nsrc = 1 + rnd(&seed) % 4;
		struct frame_enc *f;
		struct deformatter *d;
		struct deformat_config cfg = { 0 };

		for (int i = 0; i < 4; i++) {
			want[i] = malloc(N);
			got.b[i] = malloc(N);
		}
		assert_int_equal(frame_enc_alloc(&f, collect, &fr), 0);
		for (size_t total = 0; total < N / 2;) {
			unsigned src = rnd(&seed) % nsrc;
			size_t run = 1 + rnd(&seed) % (round & 1 ? 3 : 40);
			uint8_t buf[64];
			for (size_t k = 0; k < run; k++) {
				/* plenty of bytes with bit 0 set, and FFs */
				buf[k] = (uint8_t)(rnd(&seed) % 5 ? rnd(&seed)
								  : 0xFF);
			}
			memcpy(want[src] + nwant[src], buf, run);
			nwant[src] += run;
			total += run;
			assert_int_equal(frame_enc_put(f, (uint8_t)(0x10 + src),
						       buf, run), 0);
		}
		assert_int_equal(frame_enc_finish(f), 0);
		frame_enc_free(f);

		cfg.size = sizeof(cfg);
		cfg.mode = deformat_coresight;
		cfg.on_data = on_data;
		cfg.ctx = &got;
		assert_int_equal(deformat_alloc(&d, &cfg), 0);
		assert_int_equal(deformat_feed(d, fr.b, fr.n), 0);
		assert_int_equal(deformat_finish(d), 0);
		assert_int_equal(deformat_get_stats(d)->unowned_bytes, 0);
		deformat_free(d);
		for (int i = 0; i < 4; i++) {
			assert_int_equal(got.n[i], nwant[i]);
			assert_memory_equal(got.b[i], want[i], nwant[i]);
			free(want[i]);
			free(got.b[i]);
		}
		free(fr.b);
	}
}

/* ---- Execution record text ------------------------------------------------ */

static FILE *text_file(const char *text)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fputs(text, f);
	rewind(f);
	return f;
}

static void test_exec_text_items(void **state)
{
	static const char text[] =
		"# leading comment\n"
		"\n"
		"etmkit-exec 1\n"
		"ctx cid=0x2a el=0 ns=1\n"
		"0x400584 a64 94000010 b ->0x4005c4   # a call\n"
		"0x10300 arm e12fff1e bi ->0x10401:thumb\n"
		"0x10404 thumb 3001 x\n"
		"0x10406 thumb f000f801 b ->0x1040c\n"
		"0x1040c arm 0a000001 b c=3\n"
		"exc call ret=0x10410\n"
		"gap\n"
		"ts 100\n";
	FILE *f = text_file(text);
	struct exec_text_reader *rd;
	struct exec_rec r;
	struct exec_diag dg;
	char line[128];
	(void)state;
	assert_int_equal(exec_text_reader_alloc(&rd, f), 0);

	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_context);
	assert_int_equal(r.flags, EXEC_CTX_CONTEXTID | EXEC_CTX_EL);
	assert_int_equal(r.value, 0x2a);
	assert_int_equal(r.ns, 1);

	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_insn);
	assert_int_equal(r.addr, 0x400584);
	assert_int_equal(r.isa, etmkit_isa_a64);
	assert_int_equal(r.size, 4);
	assert_int_equal(r.opcode, 0x94000010);
	assert_int_equal(r.flags, EXEC_F_BRANCH | EXEC_F_TAKEN);
	assert_int_equal(r.target, 0x4005c4);
	assert_int_equal(r.target_isa, etmkit_isa_a64);
	assert_int_equal(exec_text_format(line, sizeof(line), &r), 35);
	assert_string_equal(line, "0x400584 a64 94000010 b ->0x4005c4\n");

	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.flags, EXEC_F_BRANCH | EXEC_F_INDIRECT |
				  EXEC_F_TAKEN);
	assert_int_equal(r.target_isa, etmkit_isa_thumb);
	assert_true(exec_text_format(line, sizeof(line), &r) > 0);
	assert_string_equal(line, "0x10300 arm e12fff1e bi ->0x10401:thumb\n");

	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.size, 2);
	assert_int_equal(r.flags, EXEC_F_COND_FAIL);
	{
		uint8_t b[4];
		assert_int_equal(exec_insn_bytes(&r, b), 2);
		assert_int_equal(b[0], 0x01);
		assert_int_equal(b[1], 0x30);
	}
	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	{
		/* T32 32-bit: first halfword first in memory */
		uint8_t b[4];
		static const uint8_t want[4] = { 0x00, 0xf0, 0x01, 0xf8 };
		assert_int_equal(exec_insn_bytes(&r, b), 4);
		assert_memory_equal(b, want, 4);
	}
	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.flags, EXEC_F_BRANCH | EXEC_F_CYCLES);
	assert_int_equal(r.cycles, 3);
	{
		uint8_t b[4];
		static const uint8_t want[4] = { 0x01, 0x00, 0x00, 0x0a };
		assert_int_equal(exec_insn_bytes(&r, b), 4);
		assert_memory_equal(b, want, 4);
	}
	assert_true(exec_text_format(line, sizeof(line), &r) > 0);
	assert_string_equal(line, "0x1040c arm 0a000001 b c=3\n");

	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_exception);
	assert_int_equal(r.number, exec_exc_call);
	assert_int_equal(r.addr, 0x10410);
	assert_true(exec_text_format(line, sizeof(line), &r) > 0);
	assert_string_equal(line, "exc call ret=0x10410\n");
	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_gap);
	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_timestamp);
	assert_int_equal(r.value, 100);
	assert_int_equal(exec_text_next(rd, &r, &dg), 0);
	exec_text_reader_free(rd);
	fclose(f);
}

/* Each malformed line is refused with its line number. */
static void test_exec_text_errors(void **state)
{
	static const struct { const char *text; uint64_t line; } bad[] = {
		{ "", 0 },
		{ "0x100 arm e1a00000\n", 1 },
		{ "etmkit-exec 2\n", 1 },
		{ "etmkit-exec 1\n0x100 arm e1a0000\n", 2 },
		{ "etmkit-exec 1\n0x100 arm e1a00000 ->0x200\n", 2 },
		{ "etmkit-exec 1\n0x100 arm e1a00000 b x ->0x200\n", 2 },
		{ "etmkit-exec 1\n0x100 a32 e1a00000\n", 2 },
		{ "etmkit-exec 1\n0x100 thumb 12\n", 2 },
		{ "etmkit-exec 1\n0x100 arm e1a00000 q\n", 2 },
		{ "etmkit-exec 1\n0x100 arm zzzzzzzz\n", 2 },
		{ "etmkit-exec 1\n\nctx el=1\n", 3 },
		{ "etmkit-exec 1\nctx\n", 2 },
		{ "etmkit-exec 1\nexc svc ret=0x10\n", 2 },
		{ "etmkit-exec 1\nexc call\n", 2 },
		{ "etmkit-exec 1\nts\n", 2 },
		{ "etmkit-exec 1\ngap 1\n", 2 },
		{ "etmkit-exec 1\n0x1g arm e1a00000\n", 2 },
		{ "etmkit-exec 1\n0x100 arm e1a00000 b b\n", 2 },
		{ "etmkit-exec 1\nld 0x100 4\n", 2 },
		{ "etmkit-exec 1\nld 0x100 4 1 2\n", 2 },
		{ "etmkit-exec 1\nst 0x100 3 1\n", 2 },
		{ "etmkit-exec 1\nst 0x100 0 0\n", 2 },
		{ "etmkit-exec 1\nld 0x100 1 0x100\n", 2 },
		{ "etmkit-exec 1\nld 0x100 2 0x10000\n", 2 },
		{ "etmkit-exec 1\nld 0x100 4 0x100000000\n", 2 },
		{ "etmkit-exec 1\nld -1 4 0\n", 2 },
		{ "etmkit-exec 1\nst 0x100 4 -1\n", 2 },
		{ "etmkit-exec 1\nld 0x100 8 0x10000000000000000\n", 2 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = text_file(bad[i].text);
		struct exec_text_reader *rd;
		struct exec_rec r;
		struct exec_diag dg = { 0 };
		int ret;

		assert_int_equal(exec_text_reader_alloc(&rd, f), 0);
		ret = exec_text_next(rd, &r, &dg);
		if (ret != -etmkit_err_format || dg.line != bad[i].line)
			fail_msg("case %zu: ret %d line %llu (%s)", i, ret,
				 (unsigned long long)dg.line, dg.message);
		assert_true(dg.message[0] != 0);
		exec_text_reader_free(rd);
		fclose(f);
	}
}

/* Data transfers: ld/st ADDRESS SIZE VALUE, read and written back. */
static void test_exec_text_data(void **state)
{
	static const char text[] =
		"etmkit-exec 1\n"
		"0x8000 arm e5910000\n"
		"ld 0x20000000 4 0x12345678\n"
		"st 0x20000004 1 255 # decimal\n"
		"ld 0xffffffff00000000 8 0xffffffffffffffff\n"
		"st 0x10 2 0\n";
	static const char *const want[] = {
		NULL,
		"ld 0x20000000 4 0x12345678\n",
		"st 0x20000004 1 0xff\n",
		"ld 0xffffffff00000000 8 0xffffffffffffffff\n",
		"st 0x10 2 0x0\n",
	};
	static const uint8_t sizes[] = { 0, 4, 1, 8, 2 };
	FILE *f = text_file(text);
	struct exec_text_reader *rd;
	struct exec_rec r, back;
	struct exec_diag dg;
	char line[128];
	(void)state;
	assert_int_equal(exec_text_reader_alloc(&rd, f), 0);
	assert_int_equal(exec_text_next(rd, &r, &dg), 1);
	assert_int_equal(r.kind, exec_insn);
	for (size_t i = 1; i < sizeof(want) / sizeof(want[0]); i++) {
		FILE *g;
		struct exec_text_reader *rd2;
		char again[160];

		assert_int_equal(exec_text_next(rd, &r, &dg), 1);
		assert_int_equal(r.kind, exec_data);
		assert_int_equal(r.size, sizes[i]);
		assert_int_equal(r.flags, i % 2 ? 0 : EXEC_D_STORE);
		assert_int_equal(exec_text_format(line, sizeof(line), &r),
				 (int)strlen(want[i]));
		assert_string_equal(line, want[i]);
		/* the line reads back as the same item */
		snprintf(again, sizeof(again), "etmkit-exec 1\n%s", line);
		g = text_file(again);
		assert_int_equal(exec_text_reader_alloc(&rd2, g), 0);
		assert_int_equal(exec_text_next(rd2, &back, &dg), 1);
		assert_memory_equal(&back, &r, sizeof(r));
		exec_text_reader_free(rd2);
		fclose(g);
	}
	assert_int_equal(r.addr, 0x10);
	assert_int_equal(r.value, 0);
	assert_int_equal(exec_text_next(rd, &r, &dg), 0);
	exec_text_reader_free(rd);
	fclose(f);

	/* A value wider than its size, a size the format has not, flags it
	 * does not know: not an item. */
	memset(&r, 0, sizeof(r));
	r.kind = exec_data;
	r.size = 2;
	r.value = 0x10000;
	assert_int_equal(exec_text_format(line, sizeof(line), &r),
			 -etmkit_err_invalid);
	r.value = 0xffff;
	r.size = 3;
	assert_int_equal(exec_text_format(line, sizeof(line), &r),
			 -etmkit_err_invalid);
	r.size = 2;
	r.flags = 2;
	assert_int_equal(exec_text_format(line, sizeof(line), &r),
			 -etmkit_err_invalid);
}

/* A long line is refused, not split into two items. */
static void test_exec_text_long_line(void **state)
{
	char text[2048];
	FILE *f;
	struct exec_text_reader *rd;
	struct exec_rec r;
	struct exec_diag dg = { 0 };
	(void)state;
	strcpy(text, "etmkit-exec 1\n0x100 arm e1a00000 ");
	memset(text + strlen(text), ' ', 1000);
	strcpy(text + strlen(text) - 0, "\n");
	text[sizeof(text) - 1] = 0;
	f = text_file(text);
	assert_int_equal(exec_text_reader_alloc(&rd, f), 0);
	assert_int_equal(exec_text_next(rd, &r, &dg), -etmkit_err_format);
	assert_int_equal(dg.line, 2);
	exec_text_reader_free(rd);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_by_hand),
		cmocka_unit_test(test_frame_delayed_id),
		cmocka_unit_test(test_frame_bad_args),
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(test_exec_text_items),
		cmocka_unit_test(test_exec_text_errors),
		cmocka_unit_test(test_exec_text_data),
		cmocka_unit_test(test_exec_text_long_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
