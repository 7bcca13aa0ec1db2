/* libFuzzer target: the PTM flow decoder (PFT packets + image ->
 * elements).
 *
 * Input: 10 header bytes, then the image, then the trace:
 *   [0] ETMCR selector: bit 0 cycle-accurate, bit 1 branch broadcast,
 *       bits 2-3 context ID size, bit 4 timestamps, bit 5 return stack,
 *       bit 6 VMID
 *   [1] ETMIDR / ETMCCER selector: bit 0 PFTv1.1 (else v1.0), bit 1 DMB
 *       and DSB are waypoints, bit 2 Virtualization Extensions, bit 3
 *       binary timestamps, bit 4 64-bit timestamps
 *   [2] chunk size for the second decode (1-256)
 *   [3] element count per ptm_flow_next() call (1-64)
 *   [4..7] the image's address (little-endian; 0 gives 0xC0008000)
 *   [8..9] image length (little-endian, at most what follows)
 *   then the image bytes, then the trace bytes.
 *
 * Invariants:
 * - the elements are a function of the input only: one feed drained with
 *   ptm_flow_batch() equals chunked feeds drained with ptm_flow_next()
 *   and any element count, field by field;
 * - offsets never go backwards and lie inside the trace;
 * - an instruction has a size, an ISA of PTM (A32, T32, ThumbEE),
 *   exactly one of E or N, an aligned address, and carries
 *   ETMKIT_INSN_CYCLES exactly when the trace is cycle-accurate;
 * - the decoder's instruction count is the instructions delivered;
 * - with a transport gap declared halfway, the elements before the gap
 *   element equal the reference's, and the gap element is there;
 * - stop-on-error stops at the first gap of a packet error and its
 *   elements are the reference's up to that gap;
 * - with PTM_FLOW_RANGES (chunked and drained as above), every range
 *   stands for the reference's instructions, one after another, its
 *   cycles their sum, and the other elements are the reference's
 *   (tests/range_same.h);
 * - PTM_FLOW_RANGES with its one pass (ptm_flow.c view_run(): packets
 *   read from the packet decoder's input) and without it (every packet's
 *   record through fast_run()), chunked as above with a transport gap
 *   halfway: the same elements, offsets and all, and the same
 *   statistics.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/ptm_flow_int.h" /* one_pass */
#include "../tests/elem_same.h"
#include "../tests/range_same.h"
#include "fuzz_flow_drive.h"
#include "ts_elems.h"

#define MAX_ELEMS (1u << 22)

static void put(struct ts_elems *v, const struct etmkit_elem *e)
{
	v->max = MAX_ELEMS;
	if (ts_elems_put(v, e))
		abort(); /* more elements than the input could make */
}

static void check_elem(const struct etmkit_elem *e, uint64_t end, int ca)
{
	unsigned st;

	if (e->kind == etmkit_elem_none || e->kind >= etmkit_elem_kind_count)
		abort();
	if (e->offset >= end)
		abort();
	if (e->kind != etmkit_elem_insn)
		return;
	if (!e->size || (e->isa != etmkit_isa_arm &&
			 e->isa != etmkit_isa_thumb &&
			 e->isa != etmkit_isa_thumbee))
		abort();
	st = e->flags & ~ETMKIT_INSN_CYCLES;
	if (st != ETMKIT_INSN_EXEC && st != ETMKIT_INSN_COND_FAIL)
		abort();
	if (!!(e->flags & ETMKIT_INSN_CYCLES) != ca)
		abort();
	if (e->addr & (e->isa == etmkit_isa_arm ? 3u : 1u))
		abort();
}

static void config(const uint8_t *h, struct ptm_flow_config *c,
		   const struct image *img, uint32_t flags)
{
	ptm_flow_config_init(c);
	c->ptm.etmcr = ((h[0] & 1) ? PTM_ETMCR_CYCLE_ACCURATE : 0) |
		       ((h[0] & 2) ? PTM_ETMCR_BRANCH_BROADCAST : 0) |
		       ((uint32_t)((h[0] >> 2) & 3) << PTM_ETMCR_CID_SHIFT) |
		       ((h[0] & 16) ? PTM_ETMCR_TIMESTAMP : 0) |
		       ((h[0] & 32) ? PTM_ETMCR_RETURN_STACK : 0) |
		       ((h[0] & 64) ? PTM_ETMCR_VMID : 0);
	c->ptm.etmidr = (h[1] & 1) ? 0x411CF312u : 0x411CF301u;
	c->ptm.etmccer = PTM_ETMCCER_TIMESTAMP | PTM_ETMCCER_RETURN_STACK |
			 ((h[1] & 2) ? PTM_ETMCCER_DMB_WAYPOINT : 0) |
			 ((h[1] & 4) ? PTM_ETMCCER_VIRT_EXT : 0) |
			 ((h[1] & 8) ? PTM_ETMCCER_TS_BINARY : 0) |
			 ((h[1] & 16) ? PTM_ETMCCER_TS_64BIT : 0);
	c->ptm.flags = flags;
	c->image = img;
	c->cache_bytes = 64 * 1024; /* small: flushes happen */
}

/* ptm_reference(), ptm_chunked(): the harness stops with abort(). */
#define FAILP(what) abort()
FUZZ_FLOW_DRIVE(ptm, FAILP)

/* The ranges decode of @t in chunks of @chunk bytes, a transport gap
 * after byte @gap_at, with the one pass on or off, drained @max elements
 * at a time: elements into @out, the statistics into *@st. */
static void ranges_pass(const struct ptm_flow_config *c, int one_pass,
			const uint8_t *t, size_t n, size_t chunk, size_t max,
			size_t gap_at, struct ts_elems *out,
			struct ptm_flow_stats *st)
{
	struct ptm_flow_decoder *d;
	size_t at = 0;

	if (ptm_flow_alloc(&d, c))
		abort();
	d->one_pass = (uint8_t)one_pass;
	for (;;) {
		size_t len = n - at < chunk ? n - at : chunk;

		if (at < gap_at && at + len > gap_at)
			len = gap_at - at;
		if (len && ptm_flow_feed(d, t + at, len, NULL, at))
			abort();
		ptm_drain_next(d, max, out);
		at += len;
		if (at >= n)
			break;
		if (at == gap_at && ptm_flow_gap(d))
			abort();
	}
	if (ptm_flow_finish(d))
		abort();
	ptm_drain_next(d, max, out);
	*st = *ptm_flow_get_stats(d);
	ptm_flow_free(d);
}

static void one_pass_same(const struct ptm_flow_config *c, const uint8_t *t,
			  size_t n, size_t chunk, size_t max, size_t gap_at)
{
	struct ts_elems on = { 0 }, off = { 0 };
	struct ptm_flow_stats son, soff;

	ranges_pass(c, 1, t, n, chunk, max, gap_at, &on, &son);
	ranges_pass(c, 0, t, n, chunk, max, gap_at, &off, &soff);
	if (on.n != off.n || son.packets != soff.packets ||
	    son.insns != soff.insns || son.atoms_lost != soff.atoms_lost ||
	    son.blocks != soff.blocks ||
	    son.cache_flushes != soff.cache_flushes)
		abort();
	for (size_t i = 0; i < on.n; i++)
		if (!elem_same(&on.e[i], &off.e[i], 1))
			abort();
	free(on.e);
	free(off.e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptm_flow_config cfg;
	struct ts_elems ref = { 0 }, got = { 0 }, gap = { 0 }, stop = { 0 };
	struct ts_elems rng = { 0 };
	struct range_diff rd;
	struct fuzz_flow_input in;
	struct image *img;
	uint64_t insns = 0, counted = 0;
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
	ptm_reference(&cfg, t, n, &ref, &insns);
	for (size_t i = 0; i < ref.n; i++) {
		check_elem(&ref.e[i], n, data[0] & 1);
		if (i && ref.e[i].offset < ref.e[i - 1].offset)
			abort();
		counted += ref.e[i].kind == etmkit_elem_insn;
	}
	if (counted != insns)
		abort();
	ptm_chunked(&cfg, t, n, chunk, max, (size_t)-1, &got, NULL);
	if (got.n != ref.n)
		abort();
	for (size_t i = 0; i < ref.n; i++)
		if (!elem_same(&ref.e[i], &got.e[i], 1))
			abort();

	/* The ranges form: the same instructions and elements. */
	cfg.flags = PTM_FLOW_RANGES;
	ptm_chunked(&cfg, t, n, chunk, max, (size_t)-1, &rng, &counted);
	cfg.flags = 0;
	if (counted != insns ||
	    ranges_same(ref.e, ref.n, rng.e, rng.n, img, 0, &rd))
		abort();

	/* The one pass changes nothing: in one feed, in chunks, with a
	 * gap halfway. */
	cfg.flags = PTM_FLOW_RANGES;
	one_pass_same(&cfg, t, n, n ? n : 1, 64, (size_t)-1);
	one_pass_same(&cfg, t, n, chunk, max, n / 2);
	cfg.flags = 0;

	/* A gap halfway: before its gap element, the reference's
	 * elements. */
	if (n > 1) {
		size_t g = 0;

		ptm_chunked(&cfg, t, n, chunk, max, n / 2, &gap, NULL);
		while (g < gap.n && !(gap.e[g].kind == etmkit_elem_gap &&
				      gap.e[g].u.loss.reason == etmkit_loss_transport))
			g++;
		if (g == gap.n || g > ref.n)
			abort();
		for (size_t j = 0; j < g; j++)
			if (!elem_same(&gap.e[j], &ref.e[j], 1))
				abort();
	}

	/* Stop on error: the reference up to its first packet error. */
	config(data, &cfg, img, PTM_CFG_STOP_ON_ERROR);
	ptm_reference(&cfg, t, n, &stop, NULL);
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
