/* libFuzzer target: the ETMv2 flow decoder over packet records and a
 * small image. Until the packet decoder (etm2_pkt_*) is merged the
 * records come from the input directly (etm2_flow_feed_records()), as a
 * packet decoder would deliver them: any type, status and fields.
 *
 * Input: 4 header bytes, the image, then records of 8 bytes, or with
 * bit 7 of [0] capture cycles of 4 bytes (struct etm2_cycle: TRACEPKT
 * little-endian, PIPESTAT, flags) through the packet decoder:
 *   [0] ETMCR selector: bit 0 cycle-accurate, bit 1 data address and
 *       value tracing, bits 2-3 context ID size, bit 4 4-bit port (else
 *       8-bit), bit 5 16-bit port, bit 6 FIFO latency 0; bit 7 cycles
 *   [1] records per feed for the chunked decodes (1-64)
 *   [2..3] image length (little-endian, 15 bits, at most what follows;
 *       mapped at 0x8000); bit 15: ETMv1 (docs/etmv2.md 7b)
 *   record: [0] type (mod etm2_pkt_type_count), [1] status (mod
 *   etm2_st_count), [2..5] address or value (little-endian; addresses
 *   folded into 0x7F00-0x8000 + 2 image lengths unless bit 31), [6]
 *   flags: bit 0 Thumb, bit 1 A bit / LSiP / ETMv1 first, bits 2-3 tag
 *   / reason (ETMv1: with bit 6 as bit 2, mod 5), bit 4 error, bit 5
 *   has address / ETMv1 has a reason, bit 6 has value; [7] cycle step.
 *
 * Invariants:
 * - the elements are a function of the records only: one feed drained
 *   with etm2_flow_batch() equals chunked feeds drained with
 *   etm2_flow_next(), field by field, in both forms;
 * - offsets (cycle indexes) never go backwards;
 * - an instruction has a size, an ISA of ETMv2 (A32, T32), exactly one
 *   of E or N, an aligned address, and carries ETMKIT_INSN_CYCLES
 *   exactly when the trace is cycle-accurate;
 * - the decoder's instruction count is the instructions delivered;
 * - without the fast path for runs of IE statuses (etm2_flow.c
 *   ie_run()) the elements are the same, in both forms;
 * - the ranges form says what the per-instruction form says
 *   (tests/etmv2/etm2_ranges_match.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/etm2_flow_int.h" /* etm2_flow_feed_records() */
#include "../tests/elem_same.h"
#include "../tests/etmv2/etm2_ranges_match.h"
#include "ts_elems.h"

#define MAX_RECS 4096
/* decode(): no fast path (etm2_flow_int.h no_fast) */
#define SLOW 0x100u

static void put(struct ts_elems *v, const struct etmkit_elem *e)
{
	v->max = 1u << 20;
	if (ts_elems_put(v, e))
		abort();
}

static void check_elem(const struct etmkit_elem *e, uint64_t *last, int ca)
{
	if (e->offset < *last)
		abort();
	*last = e->offset;
	if (e->kind != etmkit_elem_insn)
		return;
	if (!e->size || (e->isa != etmkit_isa_arm && e->isa != etmkit_isa_thumb))
		abort();
	if (!(e->flags & ETMKIT_INSN_EXEC) == !(e->flags & ETMKIT_INSN_COND_FAIL))
		abort();
	if (e->addr & (e->isa == etmkit_isa_arm ? 3u : 1u))
		abort();
	if (!(e->flags & ETMKIT_INSN_CYCLES) != !ca)
		abort();
}

static void parse(const uint8_t *p, size_t n, uint32_t ilen,
		  struct etm2_packet *r, size_t *nr)
{
	uint64_t cycle = 0;

	*nr = 0;
	for (size_t i = 0; i + 8 <= n && *nr < MAX_RECS; i += 8, p += 8) {
		struct etm2_packet *q = &r[(*nr)++];
		uint32_t v = (uint32_t)p[2] | (uint32_t)p[3] << 8 |
			     (uint32_t)p[4] << 16 | (uint32_t)p[5] << 24;
		uint32_t a = v & 0x80000000u ? v :
			     0x7F00u + v % (0x100u + 2 * ilen + 4);
		uint8_t f = p[6];
		uint8_t isa = (f & 1) ? etmkit_isa_thumb : etmkit_isa_arm;

		memset(q, 0, sizeof(*q));
		cycle += p[7];
		q->cycle = cycle;
		q->type = (uint8_t)(p[0] % etm2_pkt_type_count);
		q->status = (uint8_t)(p[1] % etm2_st_count);
		if (f & 0x10) {
			q->error = p[7] & 1 ? -etmkit_err_truncated :
					      -etmkit_err_bad_packet;
			q->why = "fuzz";
		}
		switch (q->type) {
		case etm2_pkt_tfo:
			q->u.tfo.addr = a & ~1u;
			q->u.tfo.isa = isa;
			q->u.tfo.reason = (uint8_t)((f >> 2) & 3);
			q->u.tfo.lsip = (f >> 1) & 1;
			q->u.tfo.next_addr = (a + 4) & ~1u;
			q->u.tfo.next_isa = isa;
			q->u.tfo.context_id = p[7];
			q->u.tfo.first = *nr == 1;
			break;
		case etm2_pkt_branch_address:
			q->u.branch.addr = a & ~1u;
			q->u.branch.isa = isa;
			/* ETMv1 (docs/etmv2.md 7b): a 5-byte address's reason,
			 * the sync point */
			q->u.branch.has_reason = (f >> 5) & 1;
			q->u.branch.reason =
				(uint8_t)((((f >> 2) & 3) | ((f >> 4) & 4)) % 5);
			q->u.branch.first = (f >> 1) & 1;
			break;
		case etm2_pkt_context_id:
			q->u.context_id = v;
			break;
		default:
			q->u.data.a_bit = (f >> 1) & 1;
			q->u.data.tag = (uint8_t)((f >> 2) & 3);
			q->u.data.has_addr = (f >> 5) & 1;
			q->u.data.addr = v;
			q->u.data.has_value = (f >> 6) & 1;
			q->u.data.value = v;
			q->u.data.value_bytes = (uint8_t)(1u << (p[7] & 3) >> 1);
			break;
		}
	}
}

static struct etm2_cycle cycles[MAX_RECS];
static size_t ncycles;

/* Decode @r[0..nr) (or ncycles cycles, if @r is NULL) in form @flags, fed @chunk records at a time (0: one
 * feed, drained by batches; else by next() of @count). */
static void decode(const struct etm2_flow_config *cfg, uint32_t flags,
		   const struct etm2_packet *r, size_t nr, size_t chunk,
		   size_t count, struct ts_elems *out, uint64_t *insns)
{
	struct etm2_flow_config c = *cfg;
	struct etm2_flow_decoder *d;
	struct etmkit_elem buf[64];
	const struct etmkit_elem *el;
	size_t at = 0;
	int k, fin = 0;

	c.flags = flags & ETM2_FLOW_RANGES;
	if (etm2_flow_alloc(&d, &c))
		abort();
	d->no_fast = !!(flags & SLOW);
	if (!chunk)
		chunk = nr ? nr : 1;
	for (;;) {
		if (at < nr) {
			size_t m = nr - at < chunk ? nr - at : chunk;

			if (r ? etm2_flow_feed_records(d, r + at, m) :
				etm2_flow_feed(d, cycles + at, m, at))
				abort();
			at += m;
		} else if (!fin) {
			etm2_flow_finish(d);
			fin = 1;
		} else {
			break;
		}
		if (chunk == nr || !count) {
			while ((k = etm2_flow_batch(d, &el)) > 0)
				for (int i = 0; i < k; i++)
					put(out, &el[i]);
		} else {
			while ((k = etm2_flow_next(d, buf, count)) > 0)
				for (int i = 0; i < k; i++)
					put(out, &buf[i]);
		}
		if (k != -etmkit_err_eos)
			abort();
	}
	*insns = etm2_flow_get_stats(d)->insns;
	etm2_flow_free(d);
}

static void same(const struct ts_elems *a, const struct ts_elems *b)
{
	if (a->n != b->n)
		abort();
	for (size_t i = 0; i < a->n; i++)
		if (!elem_same(&a->e[i], &b->e[i], 1))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct etm2_packet recs[MAX_RECS];
	struct ts_elems ref = { 0 }, alt = { 0 }, rng = { 0 }, rng2 = { 0 };
	struct etm2_flow_config cfg;
	struct image *img = NULL;
	const struct etm2_packet *rp;
	size_t nr, chunk, at = 0;
	uint64_t insns, n_ins = 0, last = 0, dummy;
	uint32_t ilen;
	const char *why;

	if (size < 4)
		return 0;
	ilen = (uint32_t)data[2] | (uint32_t)(data[3] & 0x7f) << 8;
	if (ilen > size - 4)
		ilen = (uint32_t)(size - 4);
	chunk = (size_t)(data[1] % 64) + 1;
	if (image_alloc(&img))
		abort();
	if (ilen && image_add_buffer(img, data + 4, ilen, 0x8000, 0))
		abort();
	etm2_flow_config_init(&cfg);
	cfg.etm.port_width = (data[0] & 0x20) ? 16 : (data[0] & 0x10) ? 4 : 8;
	cfg.etm.fifo_latency = (data[0] & 0x40) ? 0 : 1;
	cfg.etm.version = (data[3] & 0x80) ? 1 : 2;
	if (data[0] & 0x80) {
		/* Cycles: the records are the packet decoder's. */
		const uint8_t *p = data + 4 + ilen;

		ncycles = 0;
		for (size_t i = 0; i + 4 <= size - 4 - ilen &&
				   ncycles < MAX_RECS; i += 4, ncycles++) {
			cycles[ncycles].pkt = (uint16_t)(p[i] | p[i + 1] << 8);
			cycles[ncycles].ps = p[i + 2] & 15;
			cycles[ncycles].flags = p[i + 3] & 1;
		}
		nr = ncycles;
		rp = NULL;
	} else {
		parse(data + 4 + ilen, size - 4 - ilen, ilen, recs, &nr);
		rp = recs;
	}
	cfg.etm.etmcr = ((data[0] & 1) ? ETM2_ETMCR_CYCLE_ACCURATE : 0) |
			((data[0] & 2) ? ETM2_ETMCR_DATA_ADDR |
						 ETM2_ETMCR_DATA_VALUE : 0) |
			((uint32_t)((data[0] >> 2) & 3) << ETM2_ETMCR_CID_SHIFT);
	cfg.image = img;
	cfg.cache_bytes = 64 << 10;

	decode(&cfg, 0, rp, nr, 0, 0, &ref, &insns);
	for (size_t i = 0; i < ref.n; i++) {
		check_elem(&ref.e[i], &last, data[0] & 1);
		n_ins += ref.e[i].kind == etmkit_elem_insn;
	}
	if (n_ins != insns)
		abort();
	decode(&cfg, 0, rp, nr, chunk, (size_t)(data[1] >> 6) * 16 + 1,
	       &alt, &dummy);
	same(&ref, &alt);
	ts_elems_free(&alt);
	decode(&cfg, SLOW, rp, nr, chunk, 3, &alt, &dummy);
	same(&ref, &alt);
	decode(&cfg, ETM2_FLOW_RANGES, rp, nr, 0, 0, &rng, &dummy);
	if (dummy != insns)
		abort();
	decode(&cfg, ETM2_FLOW_RANGES, rp, nr, chunk, 7, &rng2, &dummy);
	same(&rng, &rng2);
	ts_elems_free(&rng2);
	decode(&cfg, ETM2_FLOW_RANGES | SLOW, rp, nr, 0, 0, &rng2, &dummy);
	same(&rng, &rng2);
	why = etm2_ranges_match(ref.e, ref.n, rng.e, rng.n, &at);
	if (why)
		abort();
	ts_elems_free(&ref);
	ts_elems_free(&alt);
	ts_elems_free(&rng);
	ts_elems_free(&rng2);
	image_free(img);
	return 0;
}
