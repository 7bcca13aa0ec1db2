/* ETMv3 packet decoder tests: the stream (A-sync search, chunks, partial
 * packets, replay, errors, gaps). Expected values are worked out by hand
 * from ARM IHI 0014Q chapter 7, not by running the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm3_pkt_test.h"

/* ---- Synchronisation ------------------------------------------------------- */

static void test_async_search(void **state)
{
	/* Garbage, then 7 zeros and 0x80: the A-sync is the last five zeros
	 * and 0x80 (offset 5); the garbage and 2 extra zeros are unsynced. */
	static const uint8_t b[] = { 0x12, 0x34, 0x56, 0, 0, 0, 0, 0, 0, 0, 0x80,
				     0x84 };

	(void)state;
	decode_chunked(CR_CA, IDR(5), 0, b, sizeof(b), 0, &R);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.p[0].type, etm3_pkt_unsynced);
	assert_int_equal(R.p[0].offset, 0);
	assert_int_equal(R.p[0].length, 5);
	assert_memory_equal(R.p[0].raw, b, 5);
	assert_int_equal(R.p[1].type, etm3_pkt_a_sync);
	assert_int_equal(R.p[1].offset, 5);
	assert_int_equal(R.p[1].length, 6);
	assert_memory_equal(R.p[1].raw, async6, 6);
	assert_int_equal(R.p[2].type, etm3_pkt_p_header);
	assert_int_equal(R.p[2].offset, 11);
}

static void test_async_while_synced(void **state)
{
	/* Synced, an A-sync with 6 zeros is one packet of 7 bytes; four
	 * zeros and 0x80 is malformed: error, then resync. */
	static const uint8_t b[] = { 0x84, 0, 0, 0, 0, 0, 0, 0x80, 0x84,
				     0, 0, 0, 0, 0x80, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[1].type, etm3_pkt_a_sync);
	assert_int_equal(p[1].offset, 7);
	assert_int_equal(p[1].length, 7);
	assert_int_equal(p[1].error, 0);
	assert_int_equal(p[2].type, etm3_pkt_p_header);
	assert_int_equal(p[3].type, etm3_pkt_a_sync);
	assert_int_equal(p[3].error, -etmkit_err_bad_packet);
	assert_int_equal(p[3].length, 4);
	assert_int_equal(p[4].type, etm3_pkt_unsynced); /* 80 84 */
	assert_int_equal(p[4].length, 2);
	assert_int_equal(R.n, 6);
}

static void test_no_sync_at_all(void **state)
{
	static const uint8_t b[] = { 0x84, 0x84, 0, 0, 0, 0, 0 };

	(void)state;
	decode_chunked(CR_CA, IDR(5), 0, b, sizeof(b), 3, &R);
	assert_int_equal(R.n, 1);
	assert_int_equal(R.p[0].type, etm3_pkt_unsynced);
	assert_int_equal(R.p[0].length, sizeof(b));
}

static void test_reserved_header_resync(void **state)
{
	/* 0x10 is reserved (Q Table 7.1 b0001xx00): report, skip to the
	 * next A-sync, report the skipped bytes as one unsynced run. */
	static const uint8_t b[] = { 0x10, 0x84, 0x08, 0, 0, 0, 0, 0, 0x80, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	assert_int_equal(p[0].offset, 6);
	assert_int_equal(p[0].size, 1);
	assert_non_null(p[0].why);
	assert_int_equal(p[1].type, etm3_pkt_unsynced);
	assert_int_equal(p[1].offset, 7);
	assert_int_equal(p[1].length, 2);
	assert_int_equal(p[2].type, etm3_pkt_a_sync);
	assert_int_equal(p[3].type, etm3_pkt_p_header);
}


/* ---- Streaming ------------------------------------------------------------------ */

static const uint8_t stream[] = {
	0x55, 0, 0, 0, 0, 0, 0x80,
	0x70, 0x8f, 0x3c, 0x21, 0x99, 0xf6, 0x04, 0xc0,
	0x84, 0xa0, 0xb7, 0xfd, 0xd6, 0x01, 0x42, 0xbd, 0x9a, 0xc3, 0xce,
	0xaf, 0x90, 0x80, 0x80, 0x00, 0x76, 0x9b, 0xd8, 0x87, 0x80, 0x08,
	0x04, 0x8f, 0x3c, 0, 0, 0, 0, 0, 0x80, 0x88, 0x10, 0x84, 0, 0, 0, 0,
	0, 0x80, 0x08, 0x01, 0x5d, 0x11
};

static void test_chunking_is_invisible(void **state)
{
	static struct run whole;

	(void)state;
	decode_chunked(CR_CA, IDR(5), CCER_TS64, stream, sizeof(stream), 0, &whole);
	/* unsynced, a_sync, i_sync_cycle, 2 p_header, branch, timestamp,
	 * exception_exit, branch, cycle_count, a_sync, p_header, reserved,
	 * unsynced, a_sync, truncated i_sync. */
	assert_int_equal(whole.n, 16);
	assert_int_equal(whole.p[12].type, etm3_pkt_reserved);
	assert_int_equal(whole.p[13].type, etm3_pkt_unsynced);
	assert_int_equal(whole.p[15].type, etm3_pkt_i_sync);
	assert_int_equal(whole.p[15].error, -etmkit_err_truncated);
	for (size_t chunk = 1; chunk < sizeof(stream); chunk++) {
		decode_chunked(CR_CA, IDR(5), CCER_TS64, stream, sizeof(stream),
			       chunk, &R);
		assert_int_equal(R.n, whole.n);
		for (int i = 0; i < R.n; i++) {
			assert_int_equal(R.p[i].type, whole.p[i].type);
			assert_int_equal(R.p[i].offset, whole.p[i].offset);
			assert_int_equal(R.p[i].length, whole.p[i].length);
			assert_int_equal(R.p[i].error, whole.p[i].error);
			assert_memory_equal(R.p[i].raw, whole.p[i].raw, R.p[i].size);
		}
	}
}

static void test_offsets_array_and_batch_of_one(void **state)
{
	/* Bytes at scattered offsets, drained one record at a time (the
	 * unsynced run and the A-sync found together must both come out). */
	static const uint8_t b[] = { 0x55, 0, 0, 0, 0, 0, 0x80, 0x84, 0x08 };
	uint64_t offs[sizeof(b)];
	struct etm3_pkt_decoder *dec = mk(CR_CA, IDR(5), 0);

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		offs[i] = 1000 + 3 * i;
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm3_pkt_feed(dec, b, sizeof(b), offs, 0), 0);
	drain(dec, &R, 1);
	etm3_pkt_finish(dec);
	drain(dec, &R, 1);
	assert_int_equal(R.n, 4);
	assert_int_equal(R.p[0].offset, 1000);
	assert_int_equal(R.p[1].type, etm3_pkt_a_sync);
	assert_int_equal(R.p[1].offset, 1003);
	assert_int_equal(R.p[2].offset, 1021);
	assert_int_equal(R.p[3].offset, 1024);
	assert_int_equal(R.p[3].error, -etmkit_err_truncated);
	etm3_pkt_free(dec);
}

static void test_p_header_runs(void **state)
{
	/* ETM3_CFG_P_HEADER_RUNS: the stream's P-headers come as runs that
	 * point into the input, and expand to the same atoms as one record
	 * per header. */
	static struct run single;
	struct etm3_config cfg;
	struct etm3_pkt_decoder *dec = NULL;
	const struct etm3_atoms *tab;
	int k = 0, runs = 0;

	(void)state;
	decode_chunked(CR_CA, IDR(5), CCER_TS64, stream, sizeof(stream), 0, &single);
	etm3_config_init(&cfg);
	cfg.etmcr = CR_CA;
	cfg.etmidr = IDR(5);
	cfg.etmccer = CCER_TS64;
	cfg.flags = ETM3_CFG_P_HEADER_RUNS;
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
	tab = etm3_pkt_atom_table(dec);
	assert_int_equal(tab[0xc8].count, 6); /* WEWEWN (Example 7.2) */
	assert_int_equal(tab[0x10].count, 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm3_pkt_feed(dec, stream, sizeof(stream), NULL, 100), 0);
	etm3_pkt_finish(dec);
	drain(dec, &R, 4);
	for (int i = 0; i < R.n; i++) {
		const struct etm3_packet *p = &R.p[i];

		if (p->type != etm3_pkt_p_header_run) {
			assert_int_equal(p->type, single.p[k].type);
			assert_int_equal(p->offset, single.p[k].offset + 100);
			k++;
			continue;
		}
		runs++;
		assert_null(p->u.run.offsets);
		for (uint32_t j = 0; j < p->u.run.count; j++, k++) {
			const struct etm3_atoms *a = &tab[p->u.run.headers[j]];

			assert_int_equal(single.p[k].type, etm3_pkt_p_header);
			assert_int_equal(p->offset + j, single.p[k].offset + 100);
			assert_int_equal(a->bits, single.p[k].u.atoms.bits);
			assert_int_equal(a->count, single.p[k].u.atoms.count);
		}
	}
	assert_int_equal(k, single.n);
	assert_int_equal(runs, 2); /* 84 a0, and 88 */
	etm3_pkt_free(dec);
}

/* xorshift64: a fixed, portable sequence. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Pieces of real packets, for random streams. */
struct piece {
	uint8_t n, b[9];
};

/* Fill buf[0..len) with pieces (chosen at random) and random bytes: a
 * random byte one time in @one_in. */
static void random_stream(uint8_t *buf, size_t len, const struct piece *pieces,
			  size_t npieces, unsigned one_in, uint64_t *x)
{
	for (size_t i = 0; i < len;) {
		if (rnd(x) % one_in) {
			size_t pc = rnd(x) % npieces;

			for (unsigned k = 0; k < pieces[pc].n && i < len; k++)
				buf[i++] = pieces[pc].b[k];
		} else {
			buf[i++] = (uint8_t)rnd(x);
		}
	}
}

/* Every byte of a raw stream is in exactly one record, in order, whatever
 * the bytes, the configuration and the chunking. Streams are random bytes
 * mixed with pieces of real packets so that sync is found and lost. */
static void test_every_byte_accounted(void **state)
{
	static const struct piece pieces[] = {
		{ 6, { 0, 0, 0, 0, 0, 0x80 } }, { 1, { 0x84 } },
		{ 6, { 0x08, 0x21, 0, 0x10, 0, 0x80 } }, { 4, { 0xb7, 0xfd, 0xd6, 0x01 } },
		{ 3, { 0x42, 0xdf, 0x1e } }, { 2, { 0x2e, 0x05 } }, { 2, { 0x74, 0x20 } },
		{ 5, { 0x2c, 1, 2, 3, 4 } }, { 1, { 0x10 } },
		{ 5, { 0x9b, 0xd8, 0x87, 0x80, 0x08 } }, { 8, { 0, 0, 0, 0, 0, 0, 0, 0 } },
	};
	const size_t npieces = sizeof(pieces) / sizeof(pieces[0]);
	static const uint32_t crs[] = { 0, CR_CA, CR_CA | CR_DATA | (3u << 14),
					CR_DATA | ETM3_ETMCR_DATA_ONLY };
	static const uint32_t idrs[] = { IDR(0), IDR(3), IDR(5), IDR_ALT(4) };
	static uint8_t buf[4096];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		size_t len = rnd(&x) % sizeof(buf), chunk = 1 + rnd(&x) % 64;
		uint32_t flags = (rnd(&x) & 1) ? ETM3_CFG_P_HEADER_RUNS : 0;
		struct etm3_config cfg;
		struct etm3_pkt_decoder *dec = NULL;
		uint64_t expect = 0;

		random_stream(buf, len, pieces, npieces, 3, &x);
		etm3_config_init(&cfg);
		cfg.etmcr = crs[rnd(&x) % 4];
		cfg.etmidr = idrs[rnd(&x) % 4];
		cfg.etmccer = (rnd(&x) & 1) ? CCER_TS64 : 0;
		cfg.flags = flags;
		assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
		/* Sometimes split long runs early, to reach those paths. */
		if (iter % 4 == 0)
			dec->uns_max = 6 + rnd(&x) % 12;
		for (size_t at = 0; at <= len; at += chunk) {
			size_t n = len - at < chunk ? len - at : chunk;
			int last = at + chunk > len;
			struct etm3_packet p[7];
			int got;

			if (n)
				assert_int_equal(etm3_pkt_feed(dec, buf + at, n, NULL, at), 0);
			if (last)
				etm3_pkt_finish(dec);
			while ((got = etm3_pkt_next(dec, p, 7)) > 0) {
				for (int i = 0; i < got; i++) {
					assert_int_equal(p[i].offset, expect);
					assert_true(p[i].length > 0);
					assert_true(p[i].size <= ETM3_PKT_MAX_BYTES);
					expect += p[i].length;
				}
			}
			assert_int_equal(got, -etmkit_err_eos);
			if (last)
				break;
		}
		assert_int_equal(expect, len);
		etm3_pkt_free(dec);
	}
}

/* Decode @buf[0..len) in chunks of @chunk bytes into @out (at most @max
 * records; 0 chunk: all at once, byte i at offset 1000 + 3 * i through an
 * offsets array, so that the offsets path is taken too); runs expanded
 * into one p_header record each, its offset mapped back to the byte's
 * index. Returns the records. */
static int decode_flat(const struct etm3_config *cfg, const uint8_t *buf,
		       size_t len, size_t chunk, struct etm3_packet *out,
		       int max)
{
	static uint64_t offs[4096];
	struct etm3_pkt_decoder *dec = NULL;
	const struct etm3_atoms *tab;
	size_t step = chunk ? chunk : (len ? len : 1);
	int n = 0, run_end = 0; /* the last record was a run */

	assert_true(len <= 4096);
	for (size_t i = 0; i < len; i++)
		offs[i] = 1000 + 3 * i;
	assert_int_equal(etm3_pkt_alloc(&dec, cfg), 0);
	tab = etm3_pkt_atom_table(dec);
	for (size_t at = 0; at <= len; at += step) {
		size_t k = len - at < step ? len - at : step;
		int last = at + step >= len, got;
		struct etm3_packet p[5];

		if (k)
			assert_int_equal(etm3_pkt_feed(dec, buf + at, k,
						       chunk ? NULL : offs + at, at), 0);
		if (last)
			etm3_pkt_finish(dec);
		while ((got = etm3_pkt_next(dec, p, 5)) > 0) {
			for (int i = 0; i < got; i++) {
				const struct etm3_packet *q = &p[i];
				uint64_t off = chunk ? q->offset : (q->offset - 1000) / 3;

				if (q->type != etm3_pkt_p_header_run) {
					run_end = 0;
					assert_true(n < max);
					out[n] = *q;
					out[n].offset = off;
					if (!chunk && q->type == etm3_pkt_ooo_data &&
					    q->u.data.ooo_match)
						out[n].u.data.placeholder_offset =
							(q->u.data.placeholder_offset - 1000) / 3;
					n++;
					continue;
				}
				assert_true(q->u.run.offsets == offs + off);
				/* Runs are whole: one never starts where another
				 * ended. */
				assert_true(n == 0 || out[n - 1].type != etm3_pkt_p_header ||
					    out[n - 1].offset + 1 != off || !run_end);
				run_end = 1;
				for (uint32_t j = 0; j < q->u.run.count; j++) {
					struct etm3_packet *r = &out[n++];

					assert_true(n <= max);
					assert_int_equal(q->u.run.offsets[j], 1000 + 3 * (off + j));
					memset(r, 0, sizeof(*r));
					r->offset = off + j;
					r->type = etm3_pkt_p_header;
					r->size = r->length = 1;
					r->raw[0] = q->u.run.headers[j];
					r->u.atoms = tab[r->raw[0]];
				}
			}
		}
		assert_int_equal(got, -etmkit_err_eos);
		if (last)
			break;
	}
	etm3_pkt_free(dec);
	return n;
}

/* The synced fast path's packets (runs, short branch addresses, I-syncs,
 * offsets given) are the records the general decoder makes of the same
 * bytes fed one at a time (every packet longer than a byte then comes
 * through etm3_decode_one()): random streams of real packet forms and
 * random bytes, in every encoding and version. */
static void test_fast_path_is_the_general_decoder(void **state)
{
	static const struct piece pieces[] = {
		{ 6, { 0, 0, 0, 0, 0, 0x80 } },
		/* I-syncs: ARM, Thumb, Jazelle, AltISA (ThumbEE from v3.3),
		 * NS, LSiP; with cycle count (0x70). */
		{ 6, { 0x08, 0x21, 0x00, 0x10, 0x00, 0x80 } },
		{ 6, { 0x08, 0x08, 0x01, 0x5d, 0x11, 0x02 } },
		{ 6, { 0x08, 0x10, 0x02, 0x00, 0x10, 0x80 } },
		{ 6, { 0x08, 0x0c, 0x01, 0x00, 0x10, 0x80 } },
		{ 7, { 0x08, 0x88, 0x01, 0x00, 0x10, 0x80, 0x0d } },
		{ 8, { 0x70, 0x8f, 0x3c, 0x21, 0x99, 0xf6, 0x04, 0xc0 } },
		/* Branch addresses: 1-4 bytes, 5 with each state, exception
		 * bytes. */
		{ 1, { 0x17 } }, { 2, { 0xab, 0x16 } }, { 3, { 0xed, 0xa7, 0x04 } },
		{ 4, { 0xb7, 0xfd, 0xd6, 0x01 } }, { 4, { 0xff, 0xff, 0xff, 0x7f } },
		{ 5, { 0x9b, 0xd8, 0x87, 0x80, 0x08 } }, { 5, { 0x81, 0x80, 0x80, 0x80, 0x18 } },
		{ 5, { 0x81, 0x80, 0x80, 0x80, 0x28 } }, { 6, { 0x81, 0x80, 0x80, 0x80, 0x49, 0x43 } },
		{ 4, { 0x83, 0xc1, 0x05, 0x20 } }, { 3, { 0xc1, 0x41, 0x09 } },
		/* P-headers, timestamp, cycle count, context ID, data. */
		{ 4, { 0x84, 0xa0, 0x88, 0x92 } }, { 3, { 0x80, 0x86, 0xbc } },
		{ 3, { 0x42, 0xdf, 0x1e } }, { 3, { 0x04, 0x8f, 0x3c } },
		{ 3, { 0x6e, 0x05, 0x01 } }, { 2, { 0x3c, 0x07 } },
		{ 2, { 0x74, 0x20 } }, { 3, { 0x2e, 0x05, 0x01 } },
		{ 1, { 0x54 } }, { 1, { 0x20 } }, { 2, { 0x24, 0x55 } },
	};
	const size_t npieces = sizeof(pieces) / sizeof(pieces[0]);
	static const uint32_t crs[] = { 0, CR_CA, CR_CA | CR_DATA | (1u << 14),
					CR_DATA | (3u << 14) };
	static const uint32_t idrs[] = { IDR(0), IDR(2), IDR(3), IDR(5),
					 IDR_ALT(4), IDR_ALT(5) };
	static uint8_t buf[2048];
	static struct etm3_packet a[2048], b[2048];
	uint64_t x = 0x2545f4914f6cdd1dull;

	(void)state;
	for (int iter = 0; iter < 300; iter++) {
		size_t len = rnd(&x) % sizeof(buf);
		struct etm3_config cfg;
		int na, nb;

		random_stream(buf, len, pieces, npieces, 8, &x);
		etm3_config_init(&cfg);
		cfg.etmcr = crs[rnd(&x) % 4];
		cfg.etmidr = idrs[rnd(&x) % 6];
		cfg.etmccer = (rnd(&x) & 1) ? CCER_TS64 : 0;
		na = decode_flat(&cfg, buf, len, 1, a, 2048);
		cfg.flags = (rnd(&x) & 1) ? ETM3_CFG_P_HEADER_RUNS : 0;
		nb = decode_flat(&cfg, buf, len, 0, b, 2048);
		assert_int_equal(na, nb);
		for (int i = 0; i < na; i++)
			assert_same_pkt(&a[i], &b[i]);
	}
}

/* The vector P-header rule of the run scan must agree with the header
 * table in every mode and version, or the fast path is off. */
static void test_vector_rule_covers_all_configs(void **state)
{
	(void)state;
	for (unsigned minor = 0; minor <= 5; minor++) {
		for (int ca = 0; ca < 2; ca++) {
			struct etm3_pkt_decoder *dec = mk(ca ? CR_CA : 0, IDR(minor), 0);

			assert_int_equal(dec->simd_ok, 1);
			etm3_pkt_free(dec);
		}
	}
}

static void test_state_dropped_after_error(void **state)
{
	/* Digest 5.4: after an error nothing decoded before is relied on.
	 * I-sync at 0x80001000, placeholder tag 1, reserved 0x10, A-sync,
	 * then a one-byte branch (A[7:2] = 2) and OoO data tag 1: the branch
	 * is partial (no I-sync since the resync) and the data unexpected. */
	static const uint8_t b[] = { 0x08, 0x20, 0x00, 0x10, 0x00, 0x80, 0x74, 0x20,
				     0x10, 0, 0, 0, 0, 0, 0x80, 0x05, 0x2c, 1, 0, 0, 0 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[1].type, etm3_pkt_ooo_placeholder);
	assert_int_equal(p[2].type, etm3_pkt_reserved);
	assert_int_equal(p[3].type, etm3_pkt_a_sync);
	assert_int_equal(p[4].type, etm3_pkt_branch_address);
	assert_true(p[4].u.branch.partial);
	assert_int_equal(p[4].u.branch.addr_bits, 8);
	assert_int_equal(p[5].type, etm3_pkt_ooo_data);
	assert_false(p[5].u.data.ooo_match);
	/* Before any I-sync, too; a 5-byte address is never partial. */
	p = decode_body(0, IDR(5), 0, (const uint8_t[]){ 0x05, 0x9b, 0xd8, 0x87, 0x80, 0x08 },
			6, &R);
	assert_true(p[0].u.branch.partial);
	assert_false(p[1].u.branch.partial);
}


static void test_disabled_packets_keep_their_type(void **state)
{
	/* With no data trace and no context ID configured, these headers are
	 * errors but keep their own type in the report. */
	static const uint8_t hdr[] = { 0x50, 0x62, 0x6a, 0x74, 0x2c, 0x6e };
	static const uint8_t type[] = { etm3_pkt_store_failed, etm3_pkt_data_suppressed,
					etm3_pkt_value_not_traced, etm3_pkt_ooo_placeholder,
					etm3_pkt_ooo_data, etm3_pkt_context_id };

	(void)state;
	for (int i = 0; i < 6; i++) {
		struct etm3_packet *p = decode_body(0, IDR(5), 0, &hdr[i], 1, &R);

		assert_int_equal(p[0].type, type[i]);
		assert_int_equal(p[0].error, -etmkit_err_bad_packet);
		assert_non_null(p[0].why);
	}
	/* Address tracing alone: store failed and OoO data need values. */
	assert_int_equal(decode_body(ETM3_ETMCR_DATA_ADDR, IDR(5), 0, &hdr[0], 1, &R)[0].error,
			 -etmkit_err_bad_packet);
	assert_int_equal(decode_body(ETM3_ETMCR_DATA_ADDR, IDR(5), 0, &hdr[1], 1, &R)[0].error, 0);
}

static void test_async_inside_bad_packet(void **state)
{
	/* Review finding: a branch 81 80 80 80 whose "5th byte" is the first
	 * zero of an A-sync is malformed; the A-sync must still be found. */
	static const uint8_t b[] = { 0x81, 0x80, 0x80, 0x80, 0, 0, 0, 0, 0, 0x80, 0x84 };
	struct etm3_packet *p;

	(void)state;
	for (size_t chunk = 0; chunk < 4; chunk++) {
		uint8_t buf[32];

		memcpy(buf, async6, 6);
		memcpy(buf + 6, b, sizeof(b));
		decode_chunked(CR_CA, IDR(5), 0, buf, 6 + sizeof(b), chunk, &R);
		p = &R.p[1];
		assert_int_equal(p[0].type, etm3_pkt_branch_address);
		assert_int_equal(p[0].error, -etmkit_err_bad_packet);
		assert_int_equal(p[0].length, 4);
		assert_int_equal(p[1].type, etm3_pkt_a_sync);
		assert_int_equal(p[1].offset, 10);
		assert_int_equal(p[2].type, etm3_pkt_p_header);
	}
}

static void test_restart_inside_kept_bytes(void **state)
{
	/* Fuzz finding: an I-sync naming a reserved ISA state (info 0x04,
	 * address 0) is rejected; the A-sync search restarts at its first zero
	 * (index 2), and zeros 2..6 with 0x80 are an A-sync. When the chunk
	 * boundary falls after that zero, the zero was kept from an earlier
	 * chunk and must be scanned again: every chunking must give the
	 * records of the whole decode. */
	static const uint8_t b[] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x04, 0, 0, 0, 0, 0,
				     0x80, 0x84 };
	static struct run whole;

	(void)state;
	decode_chunked(CR_CA, IDR(5), 0, b, sizeof(b), 0, &whole);
	assert_int_equal(whole.n, 4);
	assert_int_equal(whole.p[1].type, etm3_pkt_i_sync);
	assert_int_equal(whole.p[1].length, 2);
	assert_int_equal(whole.p[2].type, etm3_pkt_a_sync);
	assert_int_equal(whole.p[2].offset, 8);
	for (size_t chunk = 1; chunk < sizeof(b); chunk++) {
		decode_chunked(CR_CA, IDR(5), 0, b, sizeof(b), chunk, &R);
		assert_int_equal(R.n, whole.n);
		for (int i = 0; i < R.n; i++) {
			assert_int_equal(R.p[i].type, whole.p[i].type);
			assert_int_equal(R.p[i].offset, whole.p[i].offset);
			assert_int_equal(R.p[i].length, whole.p[i].length);
		}
	}
}

static void test_stop_on_error(void **state)
{
	/* ETM3_CFG_STOP_ON_ERROR: the reserved header is reported, then the
	 * decoder stops (no resync at the A-sync that follows) until reset.
	 * A packet cut by the end of the input does not stop it. */
	static const uint8_t b[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x10, 0,
				     0, 0, 0, 0, 0x80, 0x84 };
	static const uint8_t c[] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x21 };
	struct etm3_config cfg;
	struct etm3_pkt_decoder *dec = NULL;
	struct etm3_packet p[8];

	(void)state;
	etm3_config_init(&cfg);
	cfg.etmcr = CR_CA;
	cfg.etmidr = IDR(5);
	cfg.flags = ETM3_CFG_STOP_ON_ERROR;
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
	assert_int_equal(etm3_pkt_feed(dec, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(etm3_pkt_next(dec, p, 8), 3);
	assert_int_equal(p[2].type, etm3_pkt_reserved);
	assert_int_equal(p[2].error, -etmkit_err_bad_packet);
	assert_int_equal(etm3_pkt_next(dec, p, 8), -etmkit_err_bad_packet);
	assert_int_equal(etm3_pkt_feed(dec, b, sizeof(b), NULL, 0), -etmkit_err_bad_packet);
	etm3_pkt_reset(dec);
	assert_int_equal(etm3_pkt_feed(dec, c, sizeof(c), NULL, 0), 0);
	assert_int_equal(etm3_pkt_finish(dec), 0);
	assert_int_equal(etm3_pkt_next(dec, p, 8), 2);
	assert_int_equal(p[1].error, -etmkit_err_truncated);
	assert_int_equal(etm3_pkt_next(dec, p, 8), -etmkit_err_eos);
	etm3_pkt_free(dec);
}

static void test_gap(void **state)
{
	/* etm3_pkt_gap(): data lost between two feeds. */
	static const uint8_t cut[] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x21, 0x00, 0x10,
				       0x00, 0x80, 0x84, 0x81, 0x82 };
	static const uint8_t after[] = { 0x03, 0x84 };
	static const uint8_t zeros3[] = { 0x55, 0, 0, 0 };
	static const uint8_t zeros2[] = { 0, 0, 0x80, 0, 0, 0, 0, 0, 0x80 };
	struct etm3_pkt_decoder *dec = mk(CR_CA, IDR(5), 0);

	(void)state;
	/* A branch cut by the loss: reported with -etmkit_err_bad_frame; what
	 * follows is not joined to it (unsynced until the next A-sync). */
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm3_pkt_feed(dec, cut, sizeof(cut), NULL, 0), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm3_pkt_gap(dec), 0);
	assert_int_equal(etm3_pkt_feed(dec, after, sizeof(after), NULL, 100), 0);
	drain(dec, &R, 8);
	etm3_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 5);
	assert_int_equal(R.p[2].type, etm3_pkt_p_header);
	assert_int_equal(R.p[3].type, etm3_pkt_branch_address);
	assert_int_equal(R.p[3].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[3].offset, 13);
	assert_int_equal(R.p[3].length, 2);
	assert_int_equal(R.p[4].type, etm3_pkt_unsynced);
	assert_int_equal(R.p[4].offset, 100);
	assert_int_equal(R.p[4].length, 2);
	etm3_pkt_free(dec);
	/* Zeros on both sides of a loss do not make an A-sync: 3 + 2 zeros
	 * then 0x80 stays unsynced; the later 5 zeros and 0x80 sync. */
	dec = mk(CR_CA, IDR(5), 0);
	memset(&R, 0, sizeof(R));
	etm3_pkt_feed(dec, zeros3, sizeof(zeros3), NULL, 0);
	drain(dec, &R, 8);
	etm3_pkt_gap(dec);
	etm3_pkt_feed(dec, zeros2, sizeof(zeros2), NULL, 50);
	drain(dec, &R, 8);
	etm3_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 2);
	assert_int_equal(R.p[0].type, etm3_pkt_unsynced);
	assert_int_equal(R.p[0].length, 7);
	assert_int_equal(R.p[1].type, etm3_pkt_a_sync);
	assert_int_equal(R.p[1].offset, 53);
	etm3_pkt_free(dec);
	/* Undrained input is refused. */
	dec = mk(CR_CA, IDR(5), 0);
	etm3_pkt_feed(dec, zeros3, sizeof(zeros3), NULL, 0);
	assert_int_equal(etm3_pkt_gap(dec), -etmkit_err_invalid);
	etm3_pkt_free(dec);
}

static void test_api_errors(void **state)
{
	struct etm3_config cfg;
	struct etm3_pkt_decoder *dec = NULL;
	struct etm3_packet p;

	(void)state;
	etm3_config_init(&cfg);
	cfg.etmidr = 0x4114f250 & ~0xf00u; /* major field 0: not ETMv3 */
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), -etmkit_err_bad_config);
	assert_null(dec);
	assert_int_equal(etm3_pkt_alloc(NULL, &cfg), -etmkit_err_invalid);
	cfg.size = 4;
	cfg.etmidr = IDR(5);
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), -etmkit_err_invalid);
	dec = mk(0, IDR(5), 0);
	assert_int_equal(etm3_pkt_next(dec, &p, 1), -etmkit_err_eos);
	assert_int_equal(etm3_pkt_next(dec, &p, 0), -etmkit_err_invalid);
	assert_int_equal(etm3_pkt_feed(dec, NULL, 3, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(etm3_pkt_feed(dec, async6, 6, NULL, 0), 0);
	assert_int_equal(etm3_pkt_feed(dec, async6, 6, NULL, 0), -etmkit_err_invalid);
	etm3_pkt_free(dec);
	etm3_pkt_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_async_search),
		cmocka_unit_test(test_async_while_synced),
		cmocka_unit_test(test_no_sync_at_all),
		cmocka_unit_test(test_reserved_header_resync),
		cmocka_unit_test(test_chunking_is_invisible),
		cmocka_unit_test(test_offsets_array_and_batch_of_one),
		cmocka_unit_test(test_p_header_runs),
		cmocka_unit_test(test_every_byte_accounted),
		cmocka_unit_test(test_fast_path_is_the_general_decoder),
		cmocka_unit_test(test_vector_rule_covers_all_configs),
		cmocka_unit_test(test_state_dropped_after_error),
		cmocka_unit_test(test_disabled_packets_keep_their_type),
		cmocka_unit_test(test_async_inside_bad_packet),
		cmocka_unit_test(test_restart_inside_kept_bytes),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_api_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
