/* Unit tests of the transport layer: TPIU frame syncs (FSYNC, HSYNC),
 * alignment, garbage and FF FF runs, streams cut short.
 *
 * Every expected output below was worked out by hand from the frame rules
 * in shared/spec/coresight-frames.md (digest §1-3; DDI 0314H 8.12.1,
 * 8.12.4, 9.6.1), never copied from the decoder's output. Split from
 * test_deformat.c (issue 17); the fixtures are in deformat_fixture.h.
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

/* TPIU: garbage FF FF 34 FF FF 7F FF (near-FSYNCs: a broken FF run, FF FF
 * 7F), then FF FF FF 7F at offset 7 (the FF at 6 is garbage: the sync is
 * the last three FF and the 7F), F1 at 11, two FSYNCs at 27 and 31, F2 at
 * 35, F3 at 51. */
static void tpiu_stream(struct ibuf *in, struct xlist *x)
{
	static const uint8_t garbage[7] = {0xFF, 0xFF, 0x34, 0xFF,
					   0xFF, 0x7F, 0xFF};

	in->n = 0;
	x->n = 0;
	in_add(in, garbage, 7);
	assert_int_equal(in_add(in, FSYNC, 4), 7);
	assert_int_equal(in_add(in, F1, 16), 11);
	in_add(in, FSYNC, 4);
	in_add(in, FSYNC, 4);
	assert_int_equal(in_add(in, F2, 16), 35);
	assert_int_equal(in_add(in, F3, 16), 51);
	x_add(x, E1, 13, 11);
	x_add_data15(x, 0x08, D2, 35);
	x_add(x, E3, 11, 51);
}

static void tpiu_stream_check(const struct rec *r, const struct xlist *x,
			      const struct deformat_stats *st, bool events)
{
	expect_bytes(r, x);
	assert_int_equal(st->skipped, 7);
	assert_int_equal(st->fsyncs, 3);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->bytes_in, 67);
	if (!events)
		return;
	assert_int_equal(r->nev, 7);
	assert_int_equal(r->ev[0].kind, deformat_ev_skipped);
	assert_int_equal(r->ev[0].offset, 0);
	assert_int_equal(r->ev[0].length, 7);
	assert_int_equal(r->ev[1].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[1].offset, 7);
	assert_int_equal(r->ev[1].length, 4);
	assert_int_equal(r->ev[2].kind, deformat_ev_frame);
	assert_int_equal(r->ev[2].offset, 11);
	assert_memory_equal(r->ev[2].frame, F1, 16);
	assert_int_equal(r->ev[3].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[3].offset, 27);
	assert_int_equal(r->ev[4].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[4].offset, 31);
	assert_int_equal(r->ev[5].kind, deformat_ev_frame);
	assert_int_equal(r->ev[5].offset, 35);
	assert_int_equal(r->ev[6].kind, deformat_ev_frame);
	assert_int_equal(r->ev[6].offset, 51);
}

static void test_tpiu_fsync(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;

	(void)state;
	tpiu_stream(&in, &x);
	rec_init(&r, 256);
	d = mk(deformat_tpiu, &r, true);
	feed_all(d, in.b, in.n);
	tpiu_stream_check(&r, &x, deformat_get_stats(d), true);
	deformat_free(d);
	rec_fini(&r);
}

/* Every split point, including inside each FSYNC (straddling feeds). */
static void test_tpiu_splits(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	tpiu_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 3) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_tpiu, &r, true);
			feed3(d, &in, a, b);
			tpiu_stream_check(&r, &x, deformat_get_stats(d), true);
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

/* tpiu-hsync: FSYNC@0, F1 bytes 0..5 at 4..9, HSYNC@10, F1 bytes 6..15 at
 * 12..21, HSYNC@22 between frames, F2@24, FSYNC@40, HSYNC@44, F3@46. */
static void hsync_stream(struct ibuf *in, struct xlist *x)
{
	uint64_t map[16];
	unsigned int p;

	in->n = 0;
	x->n = 0;
	in_add(in, FSYNC, 4);
	in_add(in, F1, 6);
	assert_int_equal(in_add(in, HSYNC, 2), 10);
	in_add(in, F1 + 6, 10);
	assert_int_equal(in_add(in, HSYNC, 2), 22);
	assert_int_equal(in_add(in, F2, 16), 24);
	assert_int_equal(in_add(in, FSYNC, 4), 40);
	in_add(in, HSYNC, 2);
	assert_int_equal(in_add(in, F3, 16), 46);
	for (p = 0; p < 16; p++)
		map[p] = p < 6 ? 4 + p : 6 + p;
	x_add_mapped(x, E1, 13, map);
	x_add_data15(x, 0x08, D2, 24);
	x_add(x, E3, 11, 46);
}

static void hsync_stream_check(const struct rec *r, const struct xlist *x,
			       const struct deformat_stats *st)
{
	expect_bytes(r, x);
	assert_int_equal(st->hsyncs, 3);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->skipped, 0);
	assert_int_equal(st->errors, 0);
	/* FSYNC, HSYNC-in-frame, frame F1, HSYNC, F2, FSYNC, HSYNC, F3 */
	assert_int_equal(r->nev, 8);
	assert_int_equal(r->ev[0].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[1].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[1].offset, 10);
	assert_int_equal(r->ev[1].length, 2);
	assert_int_equal(r->ev[2].kind, deformat_ev_frame);
	assert_int_equal(r->ev[2].offset, 4);
	assert_int_equal(r->ev[2].length, 18);
	assert_memory_equal(r->ev[2].frame, F1, 16);
	assert_int_equal(r->ev[3].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[3].offset, 22);
	assert_int_equal(r->ev[4].kind, deformat_ev_frame);
	assert_int_equal(r->ev[4].offset, 24);
	assert_int_equal(r->ev[5].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[5].offset, 40);
	assert_int_equal(r->ev[6].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[6].offset, 44);
	assert_int_equal(r->ev[7].kind, deformat_ev_frame);
	assert_int_equal(r->ev[7].offset, 46);
}

static void test_tpiu_hsync(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	hsync_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 7) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_tpiu_hsync, &r, true);
			feed3(d, &in, a, b);
			hsync_stream_check(&r, &x, deformat_get_stats(d));
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

/* In plain tpiu mode FF 7F is not removed: inside a frame it is the ID
 * byte 0xFF, so the frame is bad. */
static void test_tpiu_no_hsync_removal(void **state)
{
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 6);
	in_add(&in, HSYNC, 2);
	in_add(&in, F1 + 6, 10);
	d = mk_fed(deformat_tpiu, &r, true, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->hsyncs, 0);
	assert_int_equal(st->frames, 0);
	assert_int_equal(st->errors, 2); /* bad frame at 4, 2 bytes left */
	assert_int_equal(st->skipped, 16 + 2);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nev, 3);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[1].offset, 4);
	assert_int_equal(r.ev[2].error, -etmkit_err_truncated);
	assert_int_equal(r.ev[2].offset, 20);
	assert_int_equal(r.ev[2].length, 2);
	deformat_free(d);
	rec_fini(&r);
}

/* An FSYNC half-word-aligned inside a frame cuts it short; the FSYNC
 * realigns, and with the cut frame's IDs lost the next frame is unowned. */
static void test_tpiu_fsync_inside_frame(void **state)
{
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 6);
	in_add(&in, FSYNC, 4);
	in_add(&in, F2, 16);
	d = mk_fed(deformat_tpiu, &r, true, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 6);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nev, 4);
	expect_error(&r.ev[1], -etmkit_err_bad_frame, 4, 6);
	assert_memory_equal(r.ev[1].frame, F1, 6);
	assert_int_equal(r.ev[2].kind, deformat_ev_fsync);
	assert_int_equal(r.ev[2].offset, 10);
	assert_int_equal(r.ev[3].kind, deformat_ev_frame);
	assert_int_equal(r.ev[3].offset, 14);
	deformat_free(d);
	rec_fini(&r);
}

/* FF FF inside a frame not followed by FF 7F: a bad frame (ID 0x7F). */
static void test_tpiu_ffff_in_frame(void **state)
{
	struct ibuf in = {.n = 0};
	static const uint8_t ffff[2] = {0xFF, 0xFF};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 4);
	in_add(&in, ffff, 2);
	in_add(&in, F1 + 6, 10);
	in_add(&in, F2, 16); /* unowned: the bad frame's IDs are lost */
	d = mk_fed(deformat_tpiu, &r, true, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 16);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 0);
	expect_error(&r.ev[1], -etmkit_err_bad_frame, 4, 16);
	assert_int_equal(r.ev[1].frame[4], 0xFF);
	assert_int_equal(r.ev[1].frame[5], 0xFF);
	deformat_free(d);
	rec_fini(&r);
}

/* A stray FF FF half-word, then FF FF FF 7F: the FF FF pair is frame
 * content (a bad one), the FSYNC after it cuts that frame. */
static void test_tpiu_ffff_before_fsync(void **state)
{
	static const uint8_t ffff[2] = {0xFF, 0xFF};
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 16);
	assert_int_equal(in_add(&in, ffff, 2), 20);
	assert_int_equal(in_add(&in, FSYNC, 4), 22);
	assert_int_equal(in_add(&in, F2, 16), 26);
	d = mk_fed(deformat_tpiu_hsync, &r, true, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->hsyncs, 0);
	assert_int_equal(st->frames, 2);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 2);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 13);
	assert_int_equal(r.nev, 5);
	expect_error(&r.ev[2], -etmkit_err_bad_frame, 20, 2);
	assert_int_equal(r.ev[3].kind, deformat_ev_fsync);
	assert_int_equal(r.ev[3].offset, 22);
	assert_int_equal(r.ev[4].kind, deformat_ev_frame);
	assert_int_equal(r.ev[4].offset, 26);
	deformat_free(d);
	rec_fini(&r);
}

static void test_tpiu_never_aligned(void **state)
{
	static const uint8_t in[10] = {1, 2, 3, 0xFF, 0xFF, 0xFF, 0x7E,
				       0xFF, 0xFF, 0xFF};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	d = mk_fed(deformat_tpiu_hsync, &r, true, in, sizeof(in));
	st = deformat_get_stats(d);
	assert_int_equal(st->skipped, 10);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->fsyncs, 0);
	assert_int_equal(r.nev, 1);
	assert_int_equal(r.ev[0].kind, deformat_ev_skipped);
	assert_int_equal(r.ev[0].offset, 0);
	assert_int_equal(r.ev[0].length, 10);
	deformat_free(d);
	rec_fini(&r);
}

static void test_truncated_tpiu(void **state)
{
	static const uint8_t tails[2][3] = {{0x21, 0x00, 0x04},
					    {0xFF, 0xFF, 0}};
	static const size_t ntail[2] = {3, 2};
	unsigned int t;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct ibuf in = {.n = 0};
		struct rec r;
		struct deformatter *d;
		const struct deformat_stats *st;

		in_add(&in, FSYNC, 4);
		in_add(&in, F1, 16);
		in_add(&in, tails[t], ntail[t]);
		d = mk_fed(deformat_tpiu, &r, true, in.b, in.n);
		st = deformat_get_stats(d);
		assert_int_equal(st->frames, 1);
		assert_int_equal(st->skipped, ntail[t]);
		assert_int_equal(st->errors, 1);
		assert_int_equal(r.n, 13);
		assert_int_equal(r.nev, 3);
		expect_error(&r.ev[2], -etmkit_err_truncated, 20, ntail[t]);
		deformat_free(d);
		rec_fini(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tpiu_fsync),
		cmocka_unit_test(test_tpiu_splits),
		cmocka_unit_test(test_tpiu_hsync),
		cmocka_unit_test(test_tpiu_no_hsync_removal),
		cmocka_unit_test(test_tpiu_fsync_inside_frame),
		cmocka_unit_test(test_tpiu_ffff_in_frame),
		cmocka_unit_test(test_tpiu_ffff_before_fsync),
		cmocka_unit_test(test_tpiu_never_aligned),
		cmocka_unit_test(test_truncated_tpiu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
