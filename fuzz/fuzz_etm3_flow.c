/* libFuzzer target: the ETMv3 flow decoder (packets + image -> elements).
 *
 * Input: 8 header bytes, then the image, then the trace:
 *   [0] ETMCR selector: bit 0 cycle-accurate, bit 1 data address and value,
 *       bits 2-3 context ID size, bit 4 data-only
 *   [1] ETMIDR selector: bits 0-2 minor version (0-5), bit 3 alternative
 *       branch encoding, bit 4 ARMv7-M, bit 5 Virtualization Extensions,
 *       bit 6 64-bit timestamps
 *   [2] chunk size for the second decode (1-256)
 *   [3] element count per etm3_flow_next() call (1-64)
 *   [4..7] the image's address (little-endian; 0 gives 0xC0008000)
 *   [8..9] image length (little-endian, at most what follows)
 *   then the image bytes, then the trace bytes.
 *
 * Invariants:
 * - the elements are a function of the input only: one feed drained with
 *   etm3_flow_batch() equals chunked feeds drained with etm3_flow_next()
 *   and any element count, field by field;
 * - offsets never go backwards and lie inside the trace;
 * - an instruction has a size, an ISA of ETMv3, exactly one of E, N or
 *   canceled, and (A32/T32) an aligned address;
 * - with a transport gap declared halfway, the elements before the gap
 *   element equal the reference's (the cancel flag of the last
 *   instruction or exception return aside), and the gap element is there;
 * - stop-on-error stops at the first gap of a packet error and its
 *   elements are the reference's up to that gap;
 * - with ETM3_FLOW_RANGES (chunked and drained as above), every range
 *   stands for the reference's instructions, one after another, its
 *   cycles their sum, no range is continued by the next, and the other
 *   elements are the reference's (tests/range_same.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "../tests/elem_same.h"
#include "../tests/range_same.h"
#include "fuzz_flow_drive.h"
#include "ts_elems.h"

#define MAX_ELEMS (1u << 22)

/* Elements collected into a ts_elems list (tests/support), bounded. */
static void put(struct ts_elems *v, const struct etmkit_elem *e)
{
	v->max = MAX_ELEMS;
	if (ts_elems_put(v, e))
		abort(); /* more elements than the input could make */
}

static void check_elem(const struct etmkit_elem *e, uint64_t end)
{
	unsigned st;

	if (e->kind == etmkit_elem_none || e->kind >= etmkit_elem_kind_count)
		abort();
	if (e->offset >= end)
		abort();
	if (e->kind != etmkit_elem_insn)
		return;
	if (!e->size || e->isa == etmkit_isa_unknown || e->isa == etmkit_isa_a64)
		abort();
	st = e->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			 ETMKIT_INSN_CANCEL);
	if (st != ETMKIT_INSN_EXEC && st != ETMKIT_INSN_COND_FAIL &&
	    st != ETMKIT_INSN_CANCEL)
		abort();
	if (e->isa == etmkit_isa_arm && (e->addr & 3))
		abort();
	if ((e->isa == etmkit_isa_thumb || e->isa == etmkit_isa_thumbee) &&
	    (e->addr & 1))
		abort();
}

static void config(const uint8_t *h, struct etm3_flow_config *c,
		   const struct image *img, uint32_t flags)
{
	etm3_flow_config_init(c);
	c->etm.etmcr = ((h[0] & 1) ? ETM3_ETMCR_CYCLE_ACCURATE : 0) |
		       ((h[0] & 2) ? ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE : 0) |
		       ((uint32_t)((h[0] >> 2) & 3) << ETM3_ETMCR_CID_SHIFT) |
		       ((h[0] & 16) ? ETM3_ETMCR_DATA_ONLY : 0);
	c->etm.etmidr = 0x410cf200u | (uint32_t)((h[1] & 7) % 6) << 4 |
			((h[1] & 8) ? ETM3_ETMIDR_ALT_BRANCH : 0);
	c->etm.etmccer = ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_BINARY |
			 ((h[1] & 32) ? ETM3_ETMCCER_VIRT_EXT : 0) |
			 ((h[1] & 64) ? ETM3_ETMCCER_TS_64BIT : 0);
	c->etm.flags = flags | ((h[1] & 16) ? ETM3_CFG_M_PROFILE : 0);
	c->image = img;
	c->cache_bytes = 64 * 1024; /* small: flushes happen */
}

/* etm3_reference(), etm3_chunked(): the harness stops with abort(). */
#define FAIL3(what) abort()
FUZZ_FLOW_DRIVE(etm3, FAIL3)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etm3_flow_config cfg;
	struct ts_elems ref = { 0 }, got = { 0 }, gap = { 0 }, stop = { 0 };
	struct ts_elems rng = { 0 };
	struct range_diff rd;
	struct fuzz_flow_input in;
	struct image *img;
	size_t chunk, max, n;
	const uint8_t *t;

	if (fuzz_flow_input(data, size, &in))
		return 0;
	img = in.img;
	t = in.t;
	n = in.n;
	chunk = in.chunk;
	max = in.max;

	config(data, &cfg, img, 0);
	etm3_reference(&cfg, t, n, &ref, NULL);
	for (size_t i = 0; i < ref.n; i++) {
		check_elem(&ref.e[i], n);
		if (i && ref.e[i].offset < ref.e[i - 1].offset)
			abort();
	}
	etm3_chunked(&cfg, t, n, chunk, max, (size_t)-1, &got, NULL);
	if (got.n != ref.n)
		abort();
	for (size_t i = 0; i < ref.n; i++)
		if (!elem_same(&ref.e[i], &got.e[i], 1))
			abort();

	/* The ranges form: the same instructions and elements. */
	cfg.flags = ETM3_FLOW_RANGES;
	etm3_chunked(&cfg, t, n, chunk, max, (size_t)-1, &rng, NULL);
	cfg.flags = 0;
	if (ranges_same(ref.e, ref.n, rng.e, rng.n, img, 1, &rd))
		abort();

	/* A gap halfway: before its gap element, the same elements as the
	 * reference, but for the last element a cancel could still reach (an
	 * instruction, or an exception return, M3 TRM 14.5.2), which the gap
	 * settles where the reference may see it canceled. */
	if (n > 1) {
		size_t g = 0, last = (size_t)-1;

		etm3_chunked(&cfg, t, n, chunk, max, n / 2, &gap, NULL);
		while (g < gap.n && !(gap.e[g].kind == etmkit_elem_gap &&
				      gap.e[g].u.loss.reason == etmkit_loss_transport))
			g++;
		if (g == gap.n || g > ref.n)
			abort();
		for (size_t j = 0; j < g; j++)
			if (gap.e[j].kind == etmkit_elem_insn ||
			    gap.e[j].kind == etmkit_elem_exception_return)
				last = j;
		for (size_t j = 0; j < g; j++) {
			struct etmkit_elem a = gap.e[j], b = ref.e[j];

			/* Only what a Cancel changes may differ: E becoming
			 * canceled, or an exception return's cancel flag. */
			if (j == last) {
				uint8_t m = a.kind == etmkit_elem_insn ?
						    (uint8_t)(ETMKIT_INSN_EXEC |
							      ETMKIT_INSN_CANCEL) :
						    (uint8_t)ETMKIT_EXC_CANCEL;

				a.flags = (uint8_t)((a.flags & ~m) |
						    (b.flags & m));
			}
			if (!elem_same(&a, &b, 1))
				abort();
		}
	}

	/* Stop on error: the reference up to its first packet error. */
	config(data, &cfg, img, ETM3_CFG_STOP_ON_ERROR);
	etm3_reference(&cfg, t, n, &stop, NULL);
	if (!fuzz_flow_stopped_same(&ref, &stop))
		abort();

	free(ref.e);
	free(got.e);
	free(gap.e);
	free(stop.e);
	free(rng.e);
	image_free(img);
	return 0;
}
