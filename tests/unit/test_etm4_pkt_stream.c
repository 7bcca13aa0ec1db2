/* ETMv4 / ETE packet decoder tests: the stream (A-sync search, chunks,
 * truncation, errors, gaps, the API). Expected values are the digest's
 * (shared spec etmv4-ete.md), not the decoder's output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm4_pkt_test.h"

/* ---- Synchronisation (digest 3, 5.1, 5.12, 5.13) ------------------------- */

static void test_async_search(void **state)
{
	/* Garbage, then 13 zeros and 0x80: the A-sync is the last 11 zeros
	 * and the 0x80 (offset 5); garbage and 2 extra zeros are one
	 * unsynced record. */
	static const uint8_t b[] = { 0x12, 0x9a, 0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0, 0, 0, 0, 0x80, 0x04 };
	struct etm4_config c = ete(0, 0);

	(void)state;
	decode_chunked(&c, b, sizeof(b), 0, &R);
	assert_int_equal(R.n, 3);
	is_pkt(&R.p[0], etm4_pkt_unsynced, 0, 5);
	assert_memory_equal(R.p[0].raw, b, 5);
	is_pkt(&R.p[1], etm4_pkt_a_sync, 5, 12);
	assert_memory_equal(R.p[1].raw, async12, 12);
	is_pkt(&R.p[2], etm4_pkt_trace_on, 17, 1);
	/* Ten zeros and 0x80 are not an A-sync: nothing syncs. */
	decode_chunked(&c, async12 + 1, 11, 0, &R);
	assert_int_equal(R.n, 1);
	is_pkt(&R.p[0], etm4_pkt_unsynced, 0, 11);
}

static void test_async_in_sync(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* A periodic A-sync, Discard, Overflow. */
	p = BODY(c, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x00, 0x03,
		 0x00, 0x05, 0x04);
	assert_int_equal(R.n, 6);
	is_pkt(&p[0], etm4_pkt_trace_on, 12, 1);
	is_pkt(&p[1], etm4_pkt_a_sync, 13, 12);
	is_pkt(&p[2], etm4_pkt_discard, 25, 2);
	assert_int_equal(p[2].raw[1], 0x03);
	is_pkt(&p[3], etm4_pkt_overflow, 27, 2);
	is_pkt(&p[4], etm4_pkt_trace_on, 29, 1);
	/* Ten zeros and 0x80 in sync: malformed; the 0x80 and what follows
	 * are unsynced until the next A-sync. */
	p = BODY(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04);
	assert_int_equal(R.n, 3);
	assert_int_equal(p[0].type, etm4_pkt_a_sync);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 10);
	is_pkt(&p[1], etm4_pkt_unsynced, 22, 2);
	/* 13 zeros and 0x80 in sync: the two extra zeros are malformed, the
	 * A-sync after them is kept. */
	p = BODY(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04);
	assert_int_equal(R.n, 4);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].offset, 12);
	assert_int_equal(p[0].length, 2);
	is_pkt(&p[1], etm4_pkt_a_sync, 14, 12);
	is_pkt(&p[2], etm4_pkt_trace_on, 26, 1);
	/* 00 07 (not Discard, Overflow or A-sync) is malformed (U2). */
	p = BODY(c, 0x00, 0x07, 0x04);
	assert_int_equal(R.n, 3);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].raw[1], 0x07);
	is_pkt(&p[1], etm4_pkt_unsynced, 14, 1);
	/* Zeros followed by 0x03: not a Discard. */
	p = BODY(c, 0x00, 0x00, 0x03);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
	is_pkt(&p[1], etm4_pkt_unsynced, 14, 1);
}

static void test_resync_after_garbage(void **state)
{
	/* A reserved header (0x08), garbage with short zero runs, 12 zeros
	 * and 0x80: one error record, one unsynced record for everything up
	 * to the A-sync's 11 zeros, then decoding goes on. */
	static const uint8_t b[] = { 0x08, 0x9a, 0x00, 0x00, 0x80, 0xff, 0x00,
				     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xf7 };
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	p = body(&c, b, sizeof(b), &R);
	assert_int_equal(R.n, 5);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 1);
	assert_non_null(p[0].why);
	is_pkt(&p[1], etm4_pkt_unsynced, 13, 6);
	is_pkt(&p[2], etm4_pkt_a_sync, 19, 12);
	is_pkt(&p[3], etm4_pkt_atom, 31, 1);
}


/* ---- Chunks, truncation, errors -------------------------------------------- */


static void test_chunking_is_invisible(void **state)
{
	struct etm4_config c = ete(3, CFGR_CCI | CFGR_QE);
	uint64_t expect = 0;

	(void)state;
	decode_chunked(&c, mixed, sizeof(mixed), 0, &R);
	/* Every byte in exactly one record, in order. */
	for (int i = 0; i < R.n; i++) {
		assert_int_equal(R.p[i].offset, expect);
		expect += R.p[i].length;
	}
	assert_int_equal(expect, sizeof(mixed));
	assert_int_equal(R.p[R.n - 1].error, -etmkit_err_truncated);
	assert_int_equal(R.p[R.n - 1].type, etm4_pkt_address);
	assert_int_equal(R.p[R.n - 1].length, 2);
	for (size_t chunk = 1; chunk <= 17; chunk++) {
		decode_chunked(&c, mixed, sizeof(mixed), chunk, &R2);
		assert_int_equal(R2.n, R.n);
		for (int i = 0; i < R.n; i++)
			assert_same_pkt(&R.p[i], &R2.p[i]);
	}
}

static void test_offsets_array_and_batch_of_one(void **state)
{
	struct etm4_config c = ete(3, CFGR_CCI | CFGR_QE);
	static uint64_t offs[sizeof(mixed)];
	struct etm4_pkt_decoder *dec = mk(&c);

	(void)state;
	for (size_t i = 0; i < sizeof(mixed); i++)
		offs[i] = 1000 + 3 * i;
	decode_chunked(&c, mixed, sizeof(mixed), 0, &R);
	memset(&R2, 0, sizeof(R2));
	assert_int_equal(etm4_pkt_feed(dec, mixed, sizeof(mixed), offs, 0), 0);
	etm4_pkt_finish(dec);
	drain(dec, &R2, 1);
	assert_int_equal(R2.n, R.n);
	for (int i = 0; i < R.n; i++) {
		assert_int_equal(R2.p[i].offset, 1000 + 3 * R.p[i].offset);
		R2.p[i].offset = R.p[i].offset;
		assert_same_pkt(&R.p[i], &R2.p[i]);
	}
	etm4_pkt_free(dec);
}


static void test_truncation(void **state)
{
	struct etm4_config c = ete(0, 0);

	(void)state;
	/* A long address cut by the end of the input; a lone zero. */
	static const uint8_t a[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				     0x9a, 0x4e, 0x4a };
	static const uint8_t z[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				     0x04, 0x00, 0x00 };
	decode_chunked(&c, a, sizeof(a), 2, &R);
	assert_int_equal(R.n, 2);
	assert_int_equal(R.p[1].type, etm4_pkt_address);
	assert_int_equal(R.p[1].error, -etmkit_err_truncated);
	assert_int_equal(R.p[1].offset, 12);
	assert_int_equal(R.p[1].length, 3);
	assert_memory_equal(R.p[1].raw, a + 12, 3);
	decode_chunked(&c, z, sizeof(z), 0, &R);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.p[2].type, etm4_pkt_a_sync);
	assert_int_equal(R.p[2].error, -etmkit_err_truncated);
	assert_int_equal(R.p[2].length, 2);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random streams from packet pieces and noise, random chunks and batch
 * sizes, runs split early: every byte in one record, in order; the same
 * records as one feed. */
static void test_every_byte_accounted(void **state)
{
	static uint8_t buf[4096];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct etm4_config cfgs[4];

	(void)state;
	cfgs[0] = ete(3, CFGR_CCI | CFGR_QE);
	cfgs[1] = ete(0, 0);
	cfgs[2] = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_CCI | CFGR_COND | CFGR_DA);
	cfgs[3] = v4(0, V4_IDR0 & ~IDR0_COMMOPT, CFGR_CCI);
	for (int iter = 0; iter < 300; iter++) {
		size_t len = rnd(&x) % sizeof(buf), chunk = 1 + rnd(&x) % 64;
		struct etm4_config *c = &cfgs[rnd(&x) % 4];
		struct etm4_pkt_decoder *dec;
		uint64_t expect = 0;
		int ri = 0;

		for (size_t i = 0; i < len;) {
			if (rnd(&x) % 4) {
				size_t at = rnd(&x) % sizeof(mixed);
				size_t k = 1 + rnd(&x) % 24;

				for (; k && at < sizeof(mixed) && i < len; k--)
					buf[i++] = mixed[at++];
			} else {
				buf[i++] = (uint8_t)rnd(&x);
			}
		}
		decode_chunked(c, buf, len, 0, &R);
		dec = mk(c);
		if (iter % 4 == 0)
			dec->uns_max = 12 + rnd(&x) % 20;
		for (size_t at = 0; at <= len; at += chunk) {
			size_t n = len - at < chunk ? len - at : chunk;
			int last = at + chunk > len;
			struct etm4_packet p[7];
			int got;
			size_t batch = 1 + rnd(&x) % 7;

			if (n)
				assert_int_equal(etm4_pkt_feed(dec, buf + at, n, NULL, at), 0);
			if (last)
				etm4_pkt_finish(dec);
			while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
				for (int i = 0; i < got; i++) {
					assert_int_equal(p[i].offset, expect);
					assert_true(p[i].length > 0);
					assert_true(p[i].size <= ETM4_PKT_MAX_BYTES);
					assert_true(p[i].type < etm4_pkt_type_count);
					if (p[i].error)
						assert_non_null(p[i].why);
					expect += p[i].length;
					/* Same records as one feed, unless
					 * runs were split early. */
					if (iter % 4) {
						assert_true(ri < R.n);
						assert_same_pkt(&R.p[ri], &p[i]);
					}
					ri++;
				}
			}
			assert_int_equal(got, -etmkit_err_eos);
			if (last)
				break;
		}
		assert_int_equal(expect, len);
		if (iter % 4)
			assert_int_equal(ri, R.n);
		etm4_pkt_free(dec);
	}
}

static void test_stop_on_error(void **state)
{
	static const uint8_t b[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04,
				     0x84, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0, 0x80, 0x04 };
	static const uint8_t cut[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				       0x9a, 0x01 };
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[8];

	(void)state;
	c.flags |= ETM4_CFG_STOP_ON_ERROR;
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 8), 3);
	assert_int_equal(p[2].type, etm4_pkt_reserved);
	assert_int_equal(p[2].error, -etmkit_err_bad_packet);
	assert_int_equal(etm4_pkt_next(dec, p, 8), -etmkit_err_bad_packet);
	assert_int_equal(etm4_pkt_feed(dec, b, sizeof(b), NULL, 0),
			 -etmkit_err_bad_packet);
	etm4_pkt_reset(dec);
	/* A packet cut by the end of the input does not stop anything. */
	assert_int_equal(etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 8), 2);
	assert_int_equal(p[1].error, -etmkit_err_truncated);
	assert_int_equal(etm4_pkt_next(dec, p, 8), -etmkit_err_eos);
	etm4_pkt_free(dec);
}

static void test_gap(void **state)
{
	static const uint8_t cut[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				       0x04, 0x9a, 0x01 };
	static const uint8_t after[] = { 0x00, 0x00, 0x04 };
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec = mk(&c);

	(void)state;
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_gap(dec), 0);
	assert_int_equal(etm4_pkt_feed(dec, after, sizeof(after), NULL, 100), 0);
	drain(dec, &R, 8);
	etm4_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 4);
	assert_int_equal(R.p[2].type, etm4_pkt_address);
	assert_int_equal(R.p[2].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[2].offset, 13);
	assert_int_equal(R.p[2].length, 2);
	is_pkt(&R.p[3], etm4_pkt_unsynced, 100, 3);
	/* Zeros cut by the loss: an error record; zeros on both sides do
	 * not make an A-sync. */
	etm4_pkt_reset(dec);
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_feed(dec, async12, 5, NULL, 12), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_gap(dec), 0);
	assert_int_equal(etm4_pkt_feed(dec, async12 + 5, 7, NULL, 40), 0);
	drain(dec, &R, 8);
	etm4_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.p[1].type, etm4_pkt_a_sync);
	assert_int_equal(R.p[1].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[1].offset, 12);
	assert_int_equal(R.p[1].length, 5);
	is_pkt(&R.p[2], etm4_pkt_unsynced, 40, 7);
	/* Undrained input is refused. */
	etm4_pkt_reset(dec);
	etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0);
	assert_int_equal(etm4_pkt_gap(dec), -etmkit_err_invalid);
	etm4_pkt_free(dec);
}

static void test_api_errors(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec = NULL;
	struct etm4_packet p;

	(void)state;
	c.trcdevarch = 0x47704a13u;
	assert_int_equal(etm4_pkt_alloc(&dec, &c), -etmkit_err_bad_config);
	assert_null(dec);
	assert_int_equal(etm4_pkt_alloc(NULL, &c), -etmkit_err_invalid);
	c = ete(0, 0);
	c.size = 4;
	assert_int_equal(etm4_pkt_alloc(&dec, &c), -etmkit_err_invalid);
	c = ete(0, 0);
	dec = mk(&c);
	assert_int_equal(etm4_pkt_config(dec)->ete, 1);
	assert_null(etm4_pkt_config(NULL));
	assert_int_equal(etm4_pkt_next(dec, &p, 1), -etmkit_err_eos);
	assert_int_equal(etm4_pkt_next(dec, &p, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_feed(dec, NULL, 3, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), 0);
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_finish(NULL), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_gap(NULL), -etmkit_err_invalid);
	etm4_pkt_free(dec);
	etm4_pkt_free(NULL);
	etm4_pkt_reset(NULL);
	etm4_config_init(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_async_search),
		cmocka_unit_test(test_async_in_sync),
		cmocka_unit_test(test_resync_after_garbage),
		cmocka_unit_test(test_chunking_is_invisible),
		cmocka_unit_test(test_offsets_array_and_batch_of_one),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_every_byte_accounted),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_api_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
