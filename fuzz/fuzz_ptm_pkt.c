/* libFuzzer target: the PTM (PFTv1.0/1.1) packet decoder on arbitrary
 * bytes. The first 8 bytes choose the configuration (ETMCR, the PFT minor
 * version, ETMCCER, stop-on-error) and the seed of the chunking; the rest
 * is the trace. The input is decoded twice: once as a reference (one feed,
 * resynchronising, records drained 7 at a time), once in chunks of random
 * sizes, with an offsets array and a random number of records per call.
 * Invariants:
 * - the reference accounts for every byte once, in order: lengths sum to
 *   the input, every record's kept bytes are the input's at its offset;
 *   the decoded fields are in range;
 * - the second decode gives the same records, and with stop-on-error
 *   exactly the reference's records up to its first error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/ptm.h"
#include "fuzz_pkt_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The record's main decoded value, and abort() if a field is out of its
 * range. */
static uint64_t value_of(const struct ptm_packet *q)
{
	switch (q->type) {
	case ptm_pkt_atom:
		if (q->u.atoms.count < 1 || q->u.atoms.count > 5 ||
		    q->u.atoms.bits >> q->u.atoms.count)
			abort();
		return q->u.atoms.bits | (uint64_t)q->u.atoms.count << 8 |
		       (uint64_t)q->u.atoms.cycles << 16;
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update:
		if (q->u.branch.addr_bytes < 1 || q->u.branch.addr_bytes > 5 ||
		    q->u.branch.exc_bytes > 2 || q->u.branch.addr_bits > 32 ||
		    q->u.branch.isa > etmkit_isa_jazelle ||
		    q->u.branch.exception >= 512)
			abort();
		return q->u.branch.addr | (uint64_t)q->u.branch.exception << 32 |
		       (uint64_t)q->u.branch.isa << 48;
	case ptm_pkt_i_sync:
		if (q->u.isync.reason > 3 || q->u.isync.isa > etmkit_isa_thumbee)
			abort();
		return q->u.isync.addr | (uint64_t)q->u.isync.cycles << 32;
	case ptm_pkt_timestamp:
		if (q->u.timestamp.bits > 64)
			abort();
		return q->u.timestamp.value ^ q->u.timestamp.cycles;
	case ptm_pkt_context_id: return q->u.context_id;
	case ptm_pkt_vmid: return q->u.vmid;
	default: return 0;
	}
}

/* A small generator for the chunk sizes and batch sizes. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Decode @data with @cfg; with @seed, in chunks of 1-64 random bytes,
 * each byte's offset given by an offsets array, and 1-8 records per call;
 * without, in one feed. Records into r[]. */
static size_t decode(const struct ptm_config *cfg, const uint8_t *data,
		     size_t size, uint32_t seed, const uint64_t *offs,
		     struct rec *r, size_t cap, int *stopped)
{
	struct ptm_pkt_decoder *dec = NULL;
	struct ptm_packet p[8];
	size_t n = 0, at = 0;

	*stopped = 0;
	if (ptm_pkt_alloc(&dec, cfg) < 0)
		abort();
	for (;;) {
		size_t len = seed ? 1 + next_rand(&seed) % 64 : size;
		int last, got;

		if (len > size - at)
			len = size - at;
		last = at + len >= size;
		if (len && ptm_pkt_feed(dec, data + at, len, seed ? offs + at : NULL,
					at) < 0) {
			*stopped = 1;
			break;
		}
		at += len;
		if (last)
			ptm_pkt_finish(dec);
		for (;;) {
			size_t batch = seed ? 1 + next_rand(&seed) % 8 : 7;

			got = ptm_pkt_next(dec, p, batch);
			if (got <= 0)
				break;
			if ((size_t)got > batch)
				abort();
			for (int i = 0; i < got; i++) {
				const struct ptm_packet *q = &p[i];
				size_t keep = q->size;

				if (q->size > PTM_PKT_MAX_BYTES || !q->length ||
				    q->type >= ptm_pkt_type_count ||
				    q->size != (q->length < PTM_PKT_MAX_BYTES ?
						q->length : PTM_PKT_MAX_BYTES) ||
				    (q->error && !q->why) ||
				    q->offset + keep > size ||
				    memcmp(q->raw, data + q->offset, keep))
					abort();
				put(r, &n, cap, q->offset, q->length, q->type,
				    q->error, q->error ? 0 : value_of(q));
			}
		}
		if (got == -etmkit_err_bad_packet) {
			*stopped = 1;
			break;
		}
		if (got != -etmkit_err_eos)
			abort();
		if (last)
			break;
	}
	ptm_pkt_free(dec);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptm_config cfg, ref;
	struct rec *a, *b;
	uint64_t *offs;
	size_t na, nb, cap;
	uint64_t expect = 0;
	uint32_t seed;
	int stopped;

	if (size < 8)
		return 0;
	ptm_config_init(&cfg);
	cfg.etmcr = rd32(data);
	/* Keep ETMIDR a PFT (ETMIDR[11:8] = 3), minor 0 or 1 (or more). */
	cfg.etmidr = 0x411cf300u | (data[4] & 0xf0u);
	cfg.etmccer = (uint32_t)data[5] << 22;
	cfg.flags = data[6] & PTM_CFG_STOP_ON_ERROR;
	seed = 1u + data[7];
	data += 8;
	size -= 8;
	cap = size + 16;
	a = malloc(cap * sizeof(*a));
	b = malloc(cap * sizeof(*b));
	offs = malloc((size + 1) * sizeof(*offs));
	if (!a || !b || !offs)
		abort();
	for (size_t i = 0; i < size; i++)
		offs[i] = i;
	ref = cfg;
	ref.flags = 0;
	na = decode(&ref, data, size, 0, NULL, a, cap, &stopped);
	for (size_t i = 0; i < na; i++) {
		if (a[i].offset != expect)
			abort();
		expect += a[i].length;
	}
	if (expect != size || stopped)
		abort();
	nb = decode(&cfg, data, size, seed, offs, b, cap, &stopped);
	same_records(a, na, b, nb, !!(cfg.flags & PTM_CFG_STOP_ON_ERROR), stopped);
	free(a);
	free(b);
	free(offs);
	return 0;
}
