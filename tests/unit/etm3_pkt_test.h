/* The scaffolding of the ETMv3 packet decoder tests (test_etm3_pkt*.c):
 * registers, decoding a body after an A-sync into records. */
#ifndef ETMKIT_TEST_ETM3_PKT_H
#define ETMKIT_TEST_ETM3_PKT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm3.h"
#include "packets/etmv3/etm3_internal.h"

/* ETMIDR values: ETMv3.x is major field 2, minor x (IHI 0014Q 3.5.x). */
#define IDR(minor) (0x410cf200u | ((minor) << 4))
#define IDR_ALT(minor) (IDR(minor) | ETM3_ETMIDR_ALT_BRANCH)
#define CR_CA ETM3_ETMCR_CYCLE_ACCURATE
#define CR_DATA (ETM3_ETMCR_DATA_VALUE | ETM3_ETMCR_DATA_ADDR)
#define CCER_TS64 (ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_BINARY | ETM3_ETMCCER_TS_64BIT)

static const uint8_t async6[] = { 0, 0, 0, 0, 0, 0x80 };

#define MAXREC 512
struct run {
	struct etm3_packet p[MAXREC];
	int n;
};

static inline struct etm3_pkt_decoder *mk(uint32_t cr, uint32_t idr, uint32_t ccer)
{
	struct etm3_config cfg;
	struct etm3_pkt_decoder *dec = NULL;

	etm3_config_init(&cfg);
	cfg.etmcr = cr;
	cfg.etmidr = idr;
	cfg.etmccer = ccer;
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
	return dec;
}

static inline void drain(struct etm3_pkt_decoder *dec, struct run *r, size_t batch)
{
	for (;;) {
		int n = etm3_pkt_next(dec, r->p + r->n, batch);

		if (n == -etmkit_err_eos)
			return;
		assert_true(n > 0);
		r->n += n;
		assert_true(r->n + (int)batch <= MAXREC);
	}
}

/* Decode @buf in chunks of @chunk bytes (0: all at once). */
static inline void decode_chunked(uint32_t cr, uint32_t idr, uint32_t ccer,
			   const uint8_t *buf, size_t len, size_t chunk,
			   struct run *r)
{
	struct etm3_pkt_decoder *dec = mk(cr, idr, ccer);
	size_t step = chunk ? chunk : (len ? len : 1);

	memset(r, 0, sizeof(*r));
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;

		assert_int_equal(etm3_pkt_feed(dec, buf + at, n, NULL, at), 0);
		drain(dec, r, 8);
	}
	assert_int_equal(etm3_pkt_finish(dec), 0);
	drain(dec, r, 8);
	etm3_pkt_free(dec);
}

/* Decode A-sync followed by @body; returns the records after the A-sync. */
static inline struct etm3_packet *decode_body(uint32_t cr, uint32_t idr, uint32_t ccer,
				       const uint8_t *body, size_t len,
				       struct run *r)
{
	uint8_t buf[256];

	assert_true(len + sizeof(async6) <= sizeof(buf));
	memcpy(buf, async6, sizeof(async6));
	memcpy(buf + sizeof(async6), body, len);
	decode_chunked(cr, idr, ccer, buf, len + sizeof(async6), 0, r);
	assert_true(r->n >= 1);
	assert_int_equal(r->p[0].type, etm3_pkt_a_sync);
	return &r->p[1];
}

static inline const char *atoms(const struct etm3_packet *p, char *buf)
{
	assert_int_equal(p->type, etm3_pkt_p_header);
	return etm3_atoms_string(&p->u.atoms, buf);
}

/* Two records are the same: common fields, the bytes, and the payload of
 * their type (member by member where the union has padding). */
static inline void assert_same_pkt(const struct etm3_packet *a,
				   const struct etm3_packet *b)
{
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->error, b->error);
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->size, b->size);
	assert_memory_equal(a->raw, b->raw, a->size);
	if (a->error)
		return;
	switch (a->type) {
	case etm3_pkt_p_header:
		assert_memory_equal(&a->u.atoms, &b->u.atoms, sizeof(a->u.atoms));
		break;
	case etm3_pkt_branch_address:
		assert_memory_equal(&a->u.branch, &b->u.branch, sizeof(a->u.branch));
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		assert_memory_equal(&a->u.isync, &b->u.isync, sizeof(a->u.isync));
		break;
	case etm3_pkt_timestamp:
		assert_int_equal(a->u.timestamp.value, b->u.timestamp.value);
		assert_int_equal(a->u.timestamp.bits, b->u.timestamp.bits);
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_data:
	case etm3_pkt_ooo_placeholder:
		assert_int_equal(a->u.data.addr, b->u.data.addr);
		assert_int_equal(a->u.data.value, b->u.data.value);
		assert_int_equal(a->u.data.ooo_match, b->u.data.ooo_match);
		assert_int_equal(a->u.data.pair, b->u.data.pair);
		assert_int_equal(a->u.data.has_addr, b->u.data.has_addr);
		assert_int_equal(a->u.data.placeholder_offset,
				 b->u.data.placeholder_offset);
		break;
	default:
		break;
	}
}

static struct run R; /* large: keep off the stack */

#endif
