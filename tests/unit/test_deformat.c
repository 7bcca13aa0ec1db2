/* Unit tests of the transport layer: CoreSight frames in memory mode
 * (IDs, data, events, streams cut anywhere, errors), the raw mode, resets
 * and arguments.
 *
 * Every expected output below was worked out by hand from the frame rules
 * in shared/spec/coresight-frames.md (digest §1-3; DDI 0314H 8.12.1,
 * 8.12.4, 9.6.1), never copied from the decoder's output. TPIU syncs are
 * tested in test_deformat_tpiu.c, the real TC2 capture in
 * test_deformat_tc2.c; the fixtures all three use are in
 * deformat_fixture.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"
#include "unit/deformat_fixture.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"

/* ---- Tests */

static void test_worked_example(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[32];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F2, 16);
	d = mk_fed(deformat_coresight, &r, false, in, sizeof(in));
	/* ID 0x11: 41 43 43 44; ID 0x08: 44 45 46 47 48 49 4A 4B 4C, and ID
	 * 0x08 carries into the next frame. */
	x_add(&x, E1, 13, 0);
	x_add_data15(&x, 0x08, D2, 16);
	expect_bytes(&r, &x);
	/* One call per run: 0x11, then 0x08 spanning both frames. */
	assert_int_equal(r.ncalls, 2);
	assert_int_equal(r.calls[0].id, 0x11);
	assert_int_equal(r.calls[0].n, 4);
	assert_int_equal(r.calls[1].id, 0x08);
	assert_int_equal(r.calls[1].n, 24);
	assert_false(r.calls[1].offsets_null);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 2);
	assert_int_equal(st->bytes_in, 32);
	assert_int_equal(st->id_bytes[0x11], 4);
	assert_int_equal(st->id_bytes[0x08], 24);
	assert_int_equal(st->null_bytes, 0);
	assert_int_equal(st->unowned_bytes, 0);
	assert_int_equal(st->errors, 0);
	deformat_free(d);
	rec_fini(&r);
}

static void test_frame_events(void **state)
{
	struct rec r;
	struct deformatter *d;
	uint8_t in[48];

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F3, 16);
	memcpy(in + 32, F5, 16);
	d = mk_fed(deformat_coresight, &r, true, in, sizeof(in));
	assert_int_equal(r.nev, 3);
	assert_int_equal(r.ev[0].kind, deformat_ev_frame);
	assert_int_equal(r.ev[0].offset, 0);
	assert_int_equal(r.ev[0].length, 16);
	assert_memory_equal(r.ev[0].frame, F1, 16);
	assert_int_equal(r.ev[0].nruns, 2);
	expect_run(&r.ev[0], 0, 0x11, 4);
	expect_run(&r.ev[0], 1, 0x08, 9);
	assert_int_equal(r.ev[1].offset, 16);
	assert_memory_equal(r.ev[1].frame, F3, 16);
	assert_int_equal(r.ev[1].nruns, 3);
	expect_run(&r.ev[1], 0, 0x10, 5);
	expect_run(&r.ev[1], 1, 0x20, 4);
	expect_run(&r.ev[1], 2, 0x30, 2);
	assert_int_equal(r.ev[2].offset, 32);
	assert_int_equal(r.ev[2].nruns, 2);
	expect_run(&r.ev[2], 0, 0x00, 7);
	expect_run(&r.ev[2], 1, 0x10, 6);
	/* With an observer: each frame's event, then its data by run (the
	 * null run is not delivered). */
	assert_string_equal(r.log, "FDDFDDDFD");
	deformat_free(d);
	rec_fini(&r);
}

static void test_id_change_mid_frame(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;

	(void)state;
	d = mk_fed(deformat_coresight, &r, false, F3, 16);
	x_add(&x, E3, 11, 0);
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->id_bytes[0x10], 5);
	assert_int_equal(st->id_bytes[0x20], 4);
	assert_int_equal(st->id_bytes[0x30], 2);
	deformat_free(d);
	rec_fini(&r);
}

/* Byte 14 as an ID: its aux bit is ignored either way, the ID owns the next
 * frame from its byte 0. */
static void test_id_at_byte14(void **state)
{
	unsigned int aux7;

	(void)state;
	for (aux7 = 0; aux7 < 2; aux7++) {
		struct rec r;
		struct deformatter *d;
		struct xlist x = {.n = 0};
		static const uint8_t next[16] = {
			0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x00};
		uint8_t in[32];

		memcpy(in, F4, 16);
		in[15] = (uint8_t)(aux7 << 7);
		memcpy(in + 16, next, 16);
		d = mk_fed(deformat_coresight, &r, false, in, sizeof(in));
		x_add(&x, E4, 13, 0);
		x_add_data15(&x, 0x22, next, 16);
		expect_bytes(&r, &x);
		deformat_free(d);
		rec_fini(&r);
	}
}

/* Flag bytes that are data get bit 0 from the aux byte: all combinations
 * of a single set aux bit, after an ID frame. */
static void test_aux_restores_bit0(void **state)
{
	unsigned int bit;

	(void)state;
	for (bit = 0; bit < 8; bit++) {
		struct rec r;
		struct deformatter *d;
		struct xlist x = {.n = 0};
		uint8_t in[32], want[15];
		unsigned int p;

		memcpy(in, F4, 16); /* leaves ID 0x22 current */
		for (p = 0; p < 15; p++)
			in[16 + p] = (uint8_t)(0x80 + 2 * p);
		in[31] = (uint8_t)(1u << bit);
		for (p = 0; p < 15; p++)
			want[p] = (uint8_t)(0x80 + 2 * p +
					    (p == 2 * bit ? 1 : 0));
		d = mk_fed(deformat_coresight, &r, false, in, sizeof(in));
		x_add(&x, E4, 13, 0);
		x_add_data15(&x, 0x22, want, 16);
		expect_bytes(&r, &x);
		deformat_free(d);
		rec_fini(&r);
	}
}

static void test_null_id_dropped(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;
	size_t i;

	(void)state;
	d = mk_fed(deformat_coresight, &r, false, F5, 16);
	x_add(&x, E5, 6, 0);
	expect_bytes(&r, &x);
	for (i = 0; i < r.ncalls; i++)
		assert_int_not_equal(r.calls[i].id, 0);
	st = deformat_get_stats(d);
	assert_int_equal(st->null_bytes, 7);
	assert_int_equal(st->id_bytes[0], 0);
	assert_int_equal(st->id_bytes[0x10], 6);
	deformat_free(d);
	rec_fini(&r);
}

/* Data before the first ID cannot be attributed (digest §1.2 step 3),
 * including a byte whose delayed-ID aux bit gives it to the "previous" ID
 * when there is none. */
static void test_data_before_first_id(void **state)
{
	static const uint8_t fb[16] = {0x02, 0x03, 0x21, 0x04, 0x06, 0x07,
				       0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
				       0x0E, 0x0F, 0x10, 0x02};
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[32];
	unsigned int p;
	const struct deformat_stats *st;

	(void)state;
	for (p = 0; p < 16; p++)
		in[p] = (uint8_t)(2 * p); /* all data, aux 0x1E: no matter */
	memcpy(in + 16, fb, 16);
	d = mk_fed(deformat_coresight, &r, true, in, sizeof(in));
	/* 0x10 owns bytes 4..14 of frame 2, byte value = offset in frame + 2 */
	for (p = 4; p < 15; p++) {
		struct xbyte e = {0x10, (uint8_t)(p + 2), p};

		x_add(&x, &e, 1, 16);
	}
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->unowned_bytes, 15 + 3);
	assert_int_equal(st->id_bytes[0x10], 11);
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.ev[0].nruns, 1);
	expect_run(&r.ev[0], 0, UNOWNED, 15);
	assert_int_equal(r.ev[1].nruns, 2);
	expect_run(&r.ev[1], 0, UNOWNED, 3);
	expect_run(&r.ev[1], 1, 0x10, 11);
	deformat_free(d);
	rec_fini(&r);
}

/* Coresight stream F1 F2 F3 F5 F4 F2 and its data, by hand. */
static void cs_stream(struct ibuf *in, struct xlist *x)
{
	in->n = 0;
	x->n = 0;
	in_add(in, F1, 16);
	in_add(in, F2, 16);
	in_add(in, F3, 16);
	in_add(in, F5, 16);
	in_add(in, F4, 16);
	in_add(in, F2, 16);
	x_add(x, E1, 13, 0);
	x_add_data15(x, 0x08, D2, 16);
	x_add(x, E3, 11, 32);
	x_add(x, E5, 6, 48);
	x_add(x, E4, 13, 64);
	x_add_data15(x, 0x22, D2, 80);
}

static void cs_stream_stats(const struct deformat_stats *st)
{
	assert_int_equal(st->frames, 6);
	assert_int_equal(st->bytes_in, 96);
	assert_int_equal(st->id_bytes[0x08], 24);
	assert_int_equal(st->id_bytes[0x10], 5 + 6 + 13);
	assert_int_equal(st->id_bytes[0x11], 4);
	assert_int_equal(st->id_bytes[0x20], 4);
	assert_int_equal(st->id_bytes[0x22], 15);
	assert_int_equal(st->id_bytes[0x30], 2);
	assert_int_equal(st->null_bytes, 7);
	assert_int_equal(st->unowned_bytes, 0);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->skipped, 0);
}

static void test_coresight_splits(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	cs_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 5) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_coresight, &r, (a + b) & 1);
			feed3(d, &in, a, b);
			expect_bytes(&r, &x);
			cs_stream_stats(deformat_get_stats(d));
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

static void test_coresight_bytewise(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;
	size_t i;

	(void)state;
	cs_stream(&in, &x);
	rec_init(&r, 256);
	d = mk(deformat_coresight, &r, false);
	for (i = 0; i < in.n; i++)
		assert_int_equal(deformat_feed(d, in.b + i, 1), 0);
	assert_int_equal(deformat_feed(d, NULL, 0), 0);
	assert_int_equal(deformat_finish(d), 0);
	expect_bytes(&r, &x);
	cs_stream_stats(deformat_get_stats(d));
	deformat_free(d);
	rec_fini(&r);
}

/* A long run of one ID goes out in several calls, none above the 4096-byte
 * buffer, offsets contiguous. */
static void test_long_run(void **state)
{
	enum { NF = 400 };
	uint8_t *in = calloc(NF, 16);
	struct rec r;
	struct deformatter *d;
	size_t f, i;

	(void)state;
	assert_non_null(in);
	memcpy(in, F4, 16); /* ID 0x22 current afterwards */
	for (f = 1; f < NF; f++)
		for (i = 0; i < 15; i++)
			in[16 * f + i] = (uint8_t)(i & ~1u);
	rec_init(&r, NF * 15);
	d = mk(deformat_coresight, &r, false);
	feed_all(d, in, NF * 16);
	assert_int_equal(r.n, 13 + (NF - 1) * 15);
	assert_true(r.ncalls >= 3);
	assert_true(r.max_call <= 4096);
	for (i = 13; i < r.n; i++) {
		size_t k = i - 13;

		assert_int_equal(r.b[i].id, 0x22);
		assert_int_equal(r.b[i].off, 16 + 16 * (k / 15) + k % 15);
		assert_int_equal(r.b[i].byte, (k % 15) & ~1u);
	}
	deformat_free(d);
	rec_fini(&r);
	free(in);
}

static void test_truncated_coresight(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[21];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F2, 5);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, in, sizeof(in)), 0);
	x_add(&x, E1, 13, 0);
	expect_bytes(&r, &x); /* delivered by the end of the feed */
	assert_int_equal(deformat_finish(d), 0);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->skipped, 5);
	assert_int_equal(st->errors, 1);
	assert_int_equal(r.nev, 2);
	expect_error(&r.ev[1], -etmkit_err_truncated, 16, 5);
	assert_memory_equal(r.ev[1].frame, F2, 5);
	assert_non_null(r.ev[1].message);
	/* A second finish has nothing left to report. */
	assert_int_equal(deformat_finish(d), 0);
	assert_int_equal(st->errors, 1);
	deformat_free(d);
	rec_fini(&r);
}

/* An ID byte 0xFF (ID 0x7F) in memory mode: the frame is dropped whole,
 * counted as skipped, and data stays unowned until the next ID. */
static void test_invalid_id_7f(void **state)
{
	static const uint8_t bad[16] = {0x00, 0x01, 0x02, 0x03, 0xFF, 0x05,
					0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
					0x0C, 0x0D, 0x0E, 0x00};
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[64];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F3, 16);
	memcpy(in + 16, bad, 16);
	memcpy(in + 32, F2, 16);
	memcpy(in + 48, F1, 16);
	d = mk_fed(deformat_coresight, &r, true, in, sizeof(in));
	x_add(&x, E3, 11, 0);
	x_add(&x, E1, 13, 48);
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 16);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.nev, 4);
	expect_error(&r.ev[1], -etmkit_err_bad_frame, 16, 16);
	assert_memory_equal(r.ev[1].frame, bad, 16);
	assert_int_equal(r.ev[2].kind, deformat_ev_frame);
	expect_run(&r.ev[2], 0, UNOWNED, 15);
	deformat_free(d);
	rec_fini(&r);
}

/* deformat_none: the caller's bytes, no copy, offsets as base. */
static void test_raw_zero_copy(void **state)
{
	uint8_t a[10], b[5];
	struct rec r;
	struct deformatter *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0xF0 + i);
	rec_init(&r, 64);
	d = mk(deformat_none, &r, true);
	assert_int_equal(deformat_feed(d, a, sizeof(a)), 0);
	assert_int_equal(deformat_feed(d, b, sizeof(b)), 0);
	assert_int_equal(deformat_finish(d), 0);
	assert_int_equal(r.ncalls, 2);
	assert_int_equal(r.calls[0].id, 0x42);
	assert_ptr_equal(r.calls[0].data, a);
	assert_true(r.calls[0].offsets_null);
	assert_int_equal(r.calls[0].base, 0);
	assert_int_equal(r.calls[0].n, 10);
	assert_ptr_equal(r.calls[1].data, b);
	assert_true(r.calls[1].offsets_null);
	assert_int_equal(r.calls[1].base, 10);
	assert_int_equal(r.calls[1].n, 5);
	assert_int_equal(r.nev, 0);
	assert_int_equal(deformat_get_stats(d)->id_bytes[0x42], 15);
	assert_int_equal(deformat_get_stats(d)->bytes_in, 15);
	deformat_free(d);
	rec_fini(&r);
}

static void test_callback_abort(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;

	(void)state;
	cs_stream(&in, &x);
	/* on_data: the first call (ID 0x11's run) stops the feed. */
	rec_init(&r, 256);
	r.data_fail = 1;
	r.data_ret = -42;
	d = mk(deformat_coresight, &r, false);
	assert_int_equal(deformat_feed(d, in.b, in.n), -42);
	assert_int_equal(r.ncalls, 1);
	/* Stopped for good: no more callbacks. */
	assert_int_equal(deformat_feed(d, in.b, in.n), -42);
	assert_int_equal(deformat_finish(d), -42);
	assert_int_equal(r.ncalls, 1);
	deformat_free(d);
	rec_fini(&r);

	/* on_event: the second frame event stops it before its data. */
	rec_init(&r, 256);
	r.ev_fail = 2;
	r.ev_ret = -7;
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, in.b, in.n), -7);
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.n, 13); /* F1's data only */
	deformat_free(d);
	rec_fini(&r);

	/* raw mode */
	rec_init(&r, 256);
	r.data_fail = 1;
	r.data_ret = -3;
	d = mk(deformat_none, &r, false);
	assert_int_equal(deformat_feed(d, in.b, 4), -3);
	assert_int_equal(deformat_feed(d, in.b, 4), -3);
	assert_int_equal(r.ncalls, 1);
	deformat_free(d);
	rec_fini(&r);
}

/* deformat_reset(): a new input at a new offset. Frame F1, then half of F1
 * again (a partial frame), a reset to offset 1000, then F2 and F1: the
 * partial frame is dropped unreported, no ID is current after the reset so
 * F2's data (15 bytes of the carried ID 0x08) is not delivered, and F1's
 * bytes come again at 1016 + their place in the frame. */
static void test_reset_new_input(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;

	(void)state;
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, F1, 16), 0);
	assert_int_equal(deformat_feed(d, F1, 8), 0);
	assert_int_equal(deformat_reset(d, 1000), 0);
	assert_int_equal(deformat_feed(d, F2, 16), 0);
	feed_all(d, F1, 16);
	x_add(&x, E1, 13, 0);
	x_add(&x, E1, 13, 1016);
	expect_bytes(&r, &x);
	for (size_t i = 0; i < r.nev; i++)
		assert_int_not_equal(r.ev[i].kind, deformat_ev_error);
	st = deformat_get_stats(d);
	assert_int_equal(st->bytes_in, 56);
	assert_int_equal(deformat_reset(NULL, 0), -etmkit_err_invalid);
	deformat_free(d);
	rec_fini(&r);
}

static void test_alloc_args(void **state)
{
	struct deformat_config cfg;
	struct deformatter *d = NULL;
	struct rec r;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = deformat_coresight;
	cfg.on_data = on_data;
	cfg.ctx = &r;
	assert_int_equal(deformat_alloc(NULL, &cfg), -etmkit_err_invalid);
	assert_int_equal(deformat_alloc(&d, NULL), -etmkit_err_invalid);
	cfg.size = sizeof(cfg) - 1;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.size = sizeof(cfg);
	cfg.on_data = NULL;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.on_data = on_data;
	cfg.mode = (enum deformat_mode)17;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.mode = deformat_none;
	cfg.raw_id = 0x80;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	assert_null(d);
	cfg.raw_id = 0x10;
	assert_int_equal(deformat_alloc(&d, &cfg), 0);
	assert_int_equal(deformat_feed(d, NULL, 3), -etmkit_err_invalid);
	assert_int_equal(deformat_feed(NULL, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(deformat_finish(NULL), -etmkit_err_invalid);
	assert_null(deformat_get_stats(NULL));
	deformat_free(d);
	deformat_free(NULL);
}

static void test_mode_names(void **state)
{
	(void)state;
	assert_string_equal(deformat_mode_name(deformat_none), "none");
	assert_string_equal(deformat_mode_name(deformat_coresight),
			    "coresight");
	assert_string_equal(deformat_mode_name(deformat_tpiu), "tpiu");
	assert_string_equal(deformat_mode_name(deformat_tpiu_hsync),
			    "tpiu-hsync");
	assert_int_equal(deformat_mode_parse("none"), deformat_none);
	assert_int_equal(deformat_mode_parse("coresight"), deformat_coresight);
	assert_int_equal(deformat_mode_parse("tpiu"), deformat_tpiu);
	assert_int_equal(deformat_mode_parse("tpiu-hsync"),
			 deformat_tpiu_hsync);
	assert_int_equal(deformat_mode_parse("TPIU"), -1);
	assert_int_equal(deformat_mode_parse(""), -1);
	assert_int_equal(deformat_mode_parse(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_frame_events),
		cmocka_unit_test(test_id_change_mid_frame),
		cmocka_unit_test(test_id_at_byte14),
		cmocka_unit_test(test_aux_restores_bit0),
		cmocka_unit_test(test_null_id_dropped),
		cmocka_unit_test(test_data_before_first_id),
		cmocka_unit_test(test_coresight_splits),
		cmocka_unit_test(test_coresight_bytewise),
		cmocka_unit_test(test_long_run),
		cmocka_unit_test(test_truncated_coresight),
		cmocka_unit_test(test_invalid_id_7f),
		cmocka_unit_test(test_raw_zero_copy),
		cmocka_unit_test(test_callback_abort),
		cmocka_unit_test(test_alloc_args),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_reset_new_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
