/* The scaffolding of the PTM packet decoder tests (test_ptm_pkt*.c):
 * registers, decoding a body after an A-sync into records. */
#ifndef ETMKIT_TEST_PTM_PKT_H
#define ETMKIT_TEST_PTM_PKT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/ptm.h"
#include "packets/ptm/ptm_internal.h"

#define TESTDATA ETMKIT_SHARED_DIR "/testdata"

/* ETMIDR: PFTv1.minor (IHI 0035B 3.16.28: [11:8] = 3), as the TC2 PTM's
 * 0x411cf312 and the Snowball PTM's 0x411cf301. */
#define PIDR(minor) (0x411cf300u | ((uint32_t)(minor) << 4) | 1u)
#define PCR_CA PTM_ETMCR_CYCLE_ACCURATE
#define PCR_CID(sz) ((uint32_t)(sz) << PTM_ETMCR_CID_SHIFT)
/* TC2's ETMCCER: timestamps, return stack, Virtualization Extensions,
 * binary 64-bit timestamps. */
#define PCCER_TC2 0x34c01ac2u

static const uint8_t ptm_async6[] = { 0, 0, 0, 0, 0, 0x80 };

#define PMAXREC 4096
struct prun {
	struct ptm_packet p[PMAXREC];
	int n;
};

static inline struct ptm_pkt_decoder *pmk(uint32_t cr, uint32_t idr, uint32_t ccer)
{
	struct ptm_config cfg;
	struct ptm_pkt_decoder *dec = NULL;

	ptm_config_init(&cfg);
	cfg.etmcr = cr;
	cfg.etmidr = idr;
	cfg.etmccer = ccer;
	assert_int_equal(ptm_pkt_alloc(&dec, &cfg), 0);
	return dec;
}

static inline void pdrain(struct ptm_pkt_decoder *dec, struct prun *r, size_t batch)
{
	for (;;) {
		int n = ptm_pkt_next(dec, r->p + r->n, batch);

		if (n == -etmkit_err_eos || n == -etmkit_err_bad_packet)
			return;
		assert_true(n > 0);
		r->n += n;
		assert_true(r->n + (int)batch <= PMAXREC);
	}
}

/* Decode @buf with @dec in chunks of @chunk bytes (0: all at once),
 * draining @batch records at a time, then finish. */
static inline void pdecode_with(struct ptm_pkt_decoder *dec, const uint8_t *buf,
				size_t len, size_t chunk, size_t batch,
				struct prun *r)
{
	size_t step = chunk ? chunk : (len ? len : 1);

	memset(r, 0, sizeof(*r));
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;

		assert_int_equal(ptm_pkt_feed(dec, buf + at, n, NULL, at), 0);
		pdrain(dec, r, batch);
	}
	assert_int_equal(ptm_pkt_finish(dec), 0);
	pdrain(dec, r, batch);
}

static inline void pdecode_chunked(uint32_t cr, uint32_t idr, uint32_t ccer,
				   const uint8_t *buf, size_t len, size_t chunk,
				   struct prun *r)
{
	struct ptm_pkt_decoder *dec = pmk(cr, idr, ccer);

	pdecode_with(dec, buf, len, chunk, 8, r);
	ptm_pkt_free(dec);
}

/* Decode A-sync followed by @body; returns the records after the A-sync. */
static inline struct ptm_packet *pdecode_body(uint32_t cr, uint32_t idr,
					      uint32_t ccer, const uint8_t *body,
					      size_t len, struct prun *r)
{
	uint8_t buf[512];

	assert_true(len + sizeof(ptm_async6) <= sizeof(buf));
	memcpy(buf, ptm_async6, sizeof(ptm_async6));
	memcpy(buf + sizeof(ptm_async6), body, len);
	pdecode_chunked(cr, idr, ccer, buf, len + sizeof(ptm_async6), 0, r);
	assert_true(r->n >= 1);
	assert_int_equal(r->p[0].type, ptm_pkt_a_sync);
	return &r->p[1];
}

#endif
