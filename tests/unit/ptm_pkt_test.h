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

/* Whether @a and @b decode to the same values: the members of their
 * type's payload (not the union's bytes: a member smaller than the union
 * leaves the rest as it was). */
static inline int psame_payload(const struct ptm_packet *a,
				const struct ptm_packet *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case ptm_pkt_atom: {
		const struct ptm_atoms *x = &a->u.atoms, *y = &b->u.atoms;

		return x->bits == y->bits && x->count == y->count &&
		       x->has_cycles == y->has_cycles && x->cycles == y->cycles;
	}
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update: {
		const struct ptm_branch *x = &a->u.branch, *y = &b->u.branch;

		return x->addr == y->addr && x->cycles == y->cycles &&
		       x->exception == y->exception &&
		       x->addr_bits == y->addr_bits &&
		       x->addr_bytes == y->addr_bytes && x->isa == y->isa &&
		       x->isa_change == y->isa_change &&
		       x->exc_bytes == y->exc_bytes && x->ns == y->ns &&
		       x->altis == y->altis && x->hyp == y->hyp &&
		       x->has_cycles == y->has_cycles && x->partial == y->partial;
	}
	case ptm_pkt_i_sync: {
		const struct ptm_isync *x = &a->u.isync, *y = &b->u.isync;

		return x->addr == y->addr && x->context_id == y->context_id &&
		       x->cycles == y->cycles &&
		       x->context_id_bytes == y->context_id_bytes &&
		       x->info == y->info && x->reason == y->reason &&
		       x->isa == y->isa && x->ns == y->ns && x->hyp == y->hyp &&
		       x->has_cycles == y->has_cycles;
	}
	case ptm_pkt_timestamp: {
		const struct ptm_timestamp *x = &a->u.timestamp, *y = &b->u.timestamp;

		return x->value == y->value && x->cycles == y->cycles &&
		       x->bits == y->bits && x->clock_change == y->clock_change &&
		       x->has_cycles == y->has_cycles;
	}
	case ptm_pkt_context_id: return a->u.context_id == b->u.context_id;
	case ptm_pkt_vmid: return a->u.vmid == b->u.vmid;
	default: return 1;
	}
}

/* The records of a decode (@recs[0..@n), every byte of @bytes[0..@len) in
 * one of them, in order) against ptm_decode_one(), the general decoder,
 * called on each packet in turn with its own state: the synced fast path
 * and the slow path must decode alike. Returns the packets compared. */
static inline size_t pgeneral_same(uint32_t cr, uint32_t idr, uint32_t ccer,
				   const uint8_t *bytes, size_t len,
				   const struct ptm_packet *recs, size_t n)
{
	struct ptm_pkt_decoder *dec = pmk(cr, idr, ccer);
	size_t pos = 0, compared = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ptm_packet *r = &recs[i];
		struct ptm_packet q;
		int got;

		assert_true(pos + r->length <= len);
		if (r->error) {
			/* An error loses sync and every reference. */
			ptm_reset_state(dec);
		} else if (r->type != ptm_pkt_unsynced && r->type != ptm_pkt_a_sync) {
			memset(&q, 0xa5, sizeof(q));
			got = ptm_decode_one(dec, bytes + pos, len - pos, &q);
			if (got != (int)r->length || q.error || !psame_payload(&q, r))
				fail_msg("record %zu (%s at %zu): the general decoder "
					 "gives %s, length %d", i,
					 ptm_pkt_type_name(r->type), pos,
					 ptm_pkt_type_name(q.type), got);
			assert_memory_equal(q.raw, r->raw, r->size);
			compared++;
		}
		pos += r->length;
	}
	assert_int_equal(pos, len);
	ptm_pkt_free(dec);
	return compared;
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
