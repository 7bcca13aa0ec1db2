/* libFuzzer target: the trace encoders (etm3_enc_*, ete_enc_*, ptm_enc_*,
 * etm2_enc_*) as the exact inverse of the flow decoders (etm3_flow_*,
 * etm4_flow_*, ptm_flow_*) and, for ETMv2, of the packet decoder
 * (etm2_pkt_*).
 *
 * From the input, deterministically: an encoder configuration, a small
 * code image of real opcodes (generated from a 16-bit seed, as
 * tests/unit/test_ete_enc.c and test_etm3_enc.c generate theirs), and an
 * execution record, a walk over that image that the input steers step by
 * step (the walk ends where the input does). The record is encoded, the
 * trace decoded by the project's flow decoder over the same image, and
 * the decode must give the record back.
 *
 * Input: 12 header bytes, then the walk.
 *   [0] bits 0-1 protocol: 0 ETMv3, 1 ETMv4 on A64 code, 2 ETE on A64,
 *       3 ETMv4 on A32/T32 code; bits 2-3 ETMv3 code: A32 and T32, A32
 *       only, T32 only (3: both); bit 4 ETMv4/ETE: 32-bit instruction
 *       addresses for A32/T32 (TRCIDR2.IASIZE); bit 5 cycle counts in the
 *       record (EXEC_F_CYCLES); bit 6 ETMv4/ETE: ETE_ENC_NO_COMPRESS;
 *       bit 7 ETMv4/ETE: TRCIDR2.WFXMODE
 *   ETMv3 (PTM when [2] bit 7 is set, ETMv2 when [1] bit 7 is: below):
 *   [1] ETMCR: bit 0 cycle-accurate, bits 1-2 context ID size, bit 3
 *       timestamps, bit 4 branch output, bit 5 VMID
 *   [2] ETMIDR: bits 0-2 minor version 3.(n % 6), bit 3 alternative
 *       branch encoding; ETMCCER: bit 4 64-bit timestamps, bit 5 binary
 *       (else Gray) timestamps, bit 6 Virtualization Extensions
 *       (timestamps and VMID are dropped below ETMv3.5)
 *   PTM ([0] bits 0-1 0 and [2] bit 7 set; A32/T32 code as ETMv3's):
 *   [1] ETMCR: bit 0 cycle-accurate, bits 1-2 context ID size, bit 3
 *       timestamps, bit 4 branch broadcast, bit 5 VMID, bit 6 return stack
 *   [2] bit 0 PFTv1.1 (else 1.0); ETMCCER: bit 3 DMB/DSB waypoints, bit 4
 *       64-bit timestamps, bit 5 binary timestamps (both PFTv1.1), bit 6
 *       Virtualization Extensions
 *   ETMv2 ([0] bits 0-1 0, [2] bit 7 clear, [1] bit 7 set; A32/T32 code
 *   as ETMv3's):
 *   [1] ETMCR: bit 0 cycle-accurate, bits 1-2 context ID size, bit 3
 *       data values, bit 4 branch output, bit 5 data addresses; bit 6
 *       phantoms (ETM2_ENC_PHANTOMS)
 *   [2] bits 0-1 port width (4, 8, 16, 8), bit 2 FIFO latency 1, bits
 *       3-5 miss_every, bit 6 the "alt" PIPESTAT table
 *   [3] bit 0 ETMv1 (docs/etmv2.md 7b): a 16-bit port is 8-bit, latency
 *       1, no phantoms, no load misses, no PIPESTAT table
 *   ETMv4/ETE:
 *   [1] bits 0-2 TRCIDR8.MAXSPEC, one of 0, 1, 2, 3, 4, 8, 16, 255;
 *       bits 3-7 spec_depth (modulo MAXSPEC + 1)
 *   [2] bits 0-3 mispredict_every, bits 4-7 cancel_every (0: never;
 *       dropped when MAXSPEC is too small for them)
 *   [3] TRCCONFIGR: bit 0 CCI, bit 1 TS, bit 2 CID, bit 3 VMID, bit 4 BB;
 *       bits 5-7 the ETMv4 minor version 4.(n % 7) / ETE revision n % 4
 *   [4] cc_threshold (n * 16; 255: 4095)
 *   both:
 *   [5] sync_period: 0 the default, else 16 + 8 * n
 *   [6..7] the image's seed
 *   [8] the largest chunk fed to the decoders (1-256)
 *   [9] the chunk sizes' seed
 *   [10] the CoreSight trace ID of the framed decode (0x01-0x6F), and
 *   [11] how many bytes of another source are framed between chunks
 *   then one step of the walk per byte (and the bytes a step takes; 8 KiB
 *   at most are read):
 *   0xE0-0xFF is an event before the step (a gap, an exception with or
 *   without a traced handler and a context change, a context change, a
 *   timestamp, per its low bits), else the step's choices: bit 0 the
 *   condition (taken / passed), bits 1-3 an indirect target (one of three
 *   recent targets, a new one, a far one), bits 4-6 its cycles.
 *
 * Invariants (flow.h, etm3.h and etm4.h encoder sections):
 * - the encoder takes the record (every call returns 0) and says every
 *   item is traceable (ETE: ete_enc_stats.untraceable 0: the walk ends on
 *   a P0 instruction or an exception, and gaps follow one), its byte count
 *   is what the sink received;
 * - the decode, whole and in chunks (sizes from the input), gives the
 *   record's instructions exactly, one for one: address, size, instruction
 *   set, and for ETMv3 E or N (COND_FAIL) and the cycles of a
 *   cycle-accurate trace; the exceptions (ETMv3: the numbers of those with
 *   a traced handler, IHI 0014Q Table 7-12; ETMv4/ETE: each in place, its
 *   type and return address); the timestamps; the context (ETMv3: NS, Hyp
 *   and context ID at each instruction; ETMv4/ETE: the sequence of
 *   EL/NS/CID/VMID); ETE cycle counts (each the cycles of the
 *   instructions since the previous count, as many as the encoder wrote);
 *   no gap, no_image or overflow element, no packet error, no
 *   speculation protocol error;
 * - PTM: the packets, whole and in chunks, read back against the record
 *   (tests/support/ts_ptm_check.h: every waypoint's atom or branch packet,
 *   exceptions, I-syncs, waypoint updates, context, timestamps, cycle
 *   counts); the flow decode (ptm_flow_*), whole and in chunks, gives the
 *   record's instructions (E/N of its waypoints) and exceptions;
 * - ETMv2: the encoder's cycles decoded into packet records, whole and in
 *   chunks of cycles, read back against the record (tests/support/
 *   ts_etm2_check.h: every status, TFO, branch address, data and context
 *   ID packet; the walk meets every instruction), no overflow (a FIFO of
 *   4096 bytes), the encoder's instruction count the decode's; ETMv1 the
 *   same (BE/BD of reasons 1 to 3 restarts, others instructions), but
 *   an overflow may come where an APO would pass 14 (more than 14
 *   branch addresses waiting): then the decode is not read back;
 * - after a CoreSight framing round trip (frame_enc_*, then
 *   deformat_coresight, with bytes of a second source between the
 *   chunks), the deformatter gives each source its bytes back exactly, no
 *   gap, and the decode of the framed stream (fed straight from the
 *   deformatter's callback, with its offsets) gives the record again.
 *
 * FUZZ_ENCODE_DUMP prints the
 * record encoded (text form, docs/exec-record.md) and the trace bytes on
 * stderr.
 *
 * Limits the generator respects (documented encoder limits): ETE/ETMv4
 * instructions after the last P0 element are not traced, so walks end on
 * one and gaps follow one; exceptions follow an instruction (ETMv3: the
 * first item is no exception); no ETE PE reset; no ThumbEE, Jazelle,
 * data trace, return stack.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"
#include "etmkit/transport.h"

#include "ts_out.h"
#include "ts_prog32.h"
#include "ts_etm2_check.h"
#include "ts_ptm_check.h"
#include "ts_rec.h"

#include "fuzz_encode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_encode: invariant broken: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* ---- Small helpers --------------------------------------------------------- */

/* ---- The configuration ------------------------------------------------------ */

static const uint32_t maxspecs[8] = { 0, 1, 2, 3, 4, 8, 16, 255 };

/* 0, or -1 when the header names no configuration worth a run. */
static int setup_of(const uint8_t *h, struct setup *s)
{
	memset(s, 0, sizeof(*s));
	s->proto = (enum proto)(h[0] & 3);
	s->cycles = (h[0] >> 5) & 1;
	s->chunk_max = (size_t)h[8] + 1;
	s->chunk_seed = h[9];
	s->id = (uint8_t)(1 + h[10] % 0x6f);
	s->junk = h[11];
	if (s->proto == P_ETM3 && (h[2] & 128)) {
		unsigned code = (h[0] >> 2) & 3;
		uint32_t cr = 0, ccer = 0;

		s->proto = P_PTM;
		s->arm = code != 2;
		s->thumb = code != 1;
		if (h[1] & 1)
			cr |= PTM_ETMCR_CYCLE_ACCURATE;
		cr |= (uint32_t)((h[1] >> 1) & 3) << PTM_ETMCR_CID_SHIFT;
		if (h[1] & 8)
			cr |= PTM_ETMCR_TIMESTAMP;
		if (h[1] & 16)
			cr |= PTM_ETMCR_BRANCH_BROADCAST;
		if (h[1] & 32)
			cr |= PTM_ETMCR_VMID;
		if (h[1] & 64)
			cr |= PTM_ETMCR_RETURN_STACK;
		if (h[2] & 1)
			ccer = ((h[2] & 16) ? PTM_ETMCCER_TS_64BIT : 0) |
			       ((h[2] & 32) ? PTM_ETMCCER_TS_BINARY : 0);
		if (h[2] & 64)
			ccer |= PTM_ETMCCER_VIRT_EXT;
		if (h[2] & 8)
			ccer |= PTM_ETMCCER_DMB_WAYPOINT;
		ptm_enc_config_init(&s->cp);
		s->cp.etmcr = cr;
		s->cp.etmidr = (h[2] & 1) ? 0x411cf312u : 0x411cf301u;
		s->cp.etmccer = ccer;
		s->cp.sync_period = h[5] ? 16 + 8u * h[5] : 0;
		/* walk32 reads the context ID size and the Virtualization
		 * Extensions where ETMv3 has them too */
		etm3_enc_config_init(&s->c3);
		s->c3.etmcr = cr;
		s->c3.etmccer = ccer;
		return 0;
	}
	if (s->proto == P_ETM3 && (h[1] & 128)) {
		static const uint8_t widths[4] = { 4, 8, 16, 8 };
		unsigned code = (h[0] >> 2) & 3;
		uint32_t cr = (uint32_t)((h[1] >> 1) & 3) << ETM2_ETMCR_CID_SHIFT;

		s->proto = P_ETM2;
		s->arm = code != 2;
		s->thumb = code != 1;
		if (h[1] & 1)
			cr |= ETM2_ETMCR_CYCLE_ACCURATE;
		if (h[1] & 8)
			cr |= ETM2_ETMCR_DATA_VALUE;
		if (h[1] & 16)
			cr |= ETM2_ETMCR_BRANCH_OUTPUT;
		if (h[1] & 32)
			cr |= ETM2_ETMCR_DATA_ADDR;
		etm2_enc_config_init(&s->c2);
		s->c2.etm.etmcr = cr;
		s->c2.etm.port_width = widths[h[2] & 3];
		s->c2.etm.fifo_latency = (h[2] >> 2) & 1;
		if ((h[2] & 64) && etm2_pipestat_table("alt", s->c2.etm.pipestat))
			abort();
		s->c2.flags = (h[1] & 64) ? ETM2_ENC_PHANTOMS : 0;
		s->c2.miss_every = (h[2] >> 3) & 7;
		s->c2.fifo_depth = 4096;
		s->c2.sync_period = h[5] ? 16 + 8u * h[5] : 0;
		if (h[3] & 1) {
			/* ETMv1: what etm2_enc_alloc() takes of it */
			s->c2.etm.version = 1;
			if (s->c2.etm.port_width == 16)
				s->c2.etm.port_width = 8;
			s->c2.etm.fifo_latency = 1;
			s->c2.flags = 0;
			s->c2.miss_every = 0;
		}
		/* walk32 reads the context ID size where ETMv3 has it */
		etm3_enc_config_init(&s->c3);
		s->c3.etmcr = cr;
		return 0;
	}
	if (s->proto == P_ETM3) {
		unsigned minor = (h[2] & 7) % 6, code = (h[0] >> 2) & 3;
		uint32_t cr = 0, ccer = 0;

		s->arm = code != 2;
		s->thumb = code != 1;
		if (h[1] & 1)
			cr |= ETM3_ETMCR_CYCLE_ACCURATE;
		cr |= (uint32_t)((h[1] >> 1) & 3) << ETM3_ETMCR_CID_SHIFT;
		if (h[1] & 16)
			cr |= ETM3_ETMCR_BRANCH_OUTPUT;
		if (minor == 5) {
			ccer = ETM3_ETMCCER_TIMESTAMP |
			       ((h[2] & 16) ? ETM3_ETMCCER_TS_64BIT : 0) |
			       ((h[2] & 32) ? ETM3_ETMCCER_TS_BINARY : 0) |
			       ((h[2] & 64) ? ETM3_ETMCCER_VIRT_EXT : 0);
			if (h[1] & 8)
				cr |= ETM3_ETMCR_TIMESTAMP;
			if (h[1] & 32)
				cr |= ETM3_ETMCR_VMID;
		}
		etm3_enc_config_init(&s->c3);
		s->c3.etmcr = cr;
		s->c3.etmidr = 0x410cf200u | minor << 4 |
			       ((h[2] & 8) ? ETM3_ETMIDR_ALT_BRANCH : 0);
		s->c3.etmccer = ccer;
		s->c3.sync_period = h[5] ? 16 + 8u * h[5] : 0;
		return 0;
	}
	{
		struct ete_enc_config *c = &s->c4;
		uint32_t ms = maxspecs[h[1] & 7], minor = (h[3] >> 5) & 7;

		s->arm = s->thumb = s->proto == P_ETM4_A32;
		ete_enc_config_init(c);
		if (s->proto == P_ETE) {
			c->etm.trcdevarch = (c->etm.trcdevarch & ~0xf0000u) |
					    (minor % 4) << 16;
		} else {
			c->etm.flags = 0;
			c->etm.trcdevarch = 0;
			c->etm.trcidr0 = 0x28000ea1u;
			c->etm.trcidr1 = 0x4100f403u | (minor % 7) << 4;
			c->etm.trcidr2 = 0x00001088u;
			if (s->proto == P_ETM4_A32 && (h[0] & 16))
				c->etm.trcidr2 = 0x00001084u;
		}
		if (h[0] & 128)
			c->etm.trcidr2 |= 1u << 31;
		else
			c->etm.trcidr2 &= ~(1u << 31);
		c->etm.trcidr8 = ms;
		c->spec_depth = ms ? (h[1] >> 3) % (ms + 1) : 0;
		c->mispredict_every = ms >= 1 ? h[2] & 15 : 0;
		c->cancel_every = ms >= 2 ? h[2] >> 4 : 0;
		c->etm.trcconfigr = ((h[3] & 1) ? 1u << 4 : 0) |
				    ((h[3] & 2) ? 1u << 11 : 0) |
				    ((h[3] & 4) ? 1u << 6 : 0) |
				    ((h[3] & 8) ? 1u << 7 : 0) |
				    ((h[3] & 16) ? 1u << 3 : 0);
		c->cc_threshold = h[4] == 255 ? 4095 : 16u * h[4];
		c->sync_period = h[5] ? 16 + 8u * h[5] : 0;
		c->flags = (h[0] & 64) ? ETE_ENC_NO_COMPRESS : 0;
		return 0;
	}
}

/* ---- Decoding and comparing ------------------------------------------------- */

struct cmp {
	const struct want *want;
	int v3, ca;
	const char *pass;   /* which decode, for messages */
	size_t at, nexc, nts;
	/* ETMv3: the context the elements set */
	uint64_t cid;
	uint8_t ns, hyp;
	int cid_on;
	/* ETMv4 */
	uint64_t *ctx;
	size_t nctx, cap_ctx;
	uint64_t cycles, counts;
};

static void cmp_insn(struct cmp *c, const struct etmkit_elem *el)
{
	const struct ev *w;

	if (c->at >= c->want->n || c->want->v[c->at].kind != el->kind)
		fail("%s: element %u at 0x%llx (offset %llu) where the record "
		     "has %s (event %zu of %zu)", c->pass, el->kind,
		     (unsigned long long)el->addr,
		     (unsigned long long)el->offset,
		     c->at < c->want->n ? (c->want->v[c->at].kind ==
					   etmkit_elem_insn ? "an instruction"
					   : "an exception") : "nothing",
		     c->at, c->want->n);
	w = &c->want->v[c->at];
	if (el->kind == etmkit_elem_exception) {
		if (el->u.exception.ret_addr != w->addr ||
		    el->u.exception.number != w->number)
			fail("%s: event %zu: exception type 0x%x return 0x%llx,"
			     " want 0x%x return 0x%llx", c->pass, c->at,
			     el->u.exception.number,
			     (unsigned long long)el->u.exception.ret_addr,
			     w->number, (unsigned long long)w->addr);
		c->at++;
		return;
	}
	if (el->addr != w->addr || el->isa != w->isa || el->size != w->size)
		fail("%s: instruction %zu (offset %llu): 0x%llx isa %u size %u,"
		     " want 0x%llx isa %u size %u", c->pass, c->at,
		     (unsigned long long)el->offset,
		     (unsigned long long)el->addr, el->isa, el->size,
		     (unsigned long long)w->addr, w->isa, w->size);
	if (c->v3) {
		unsigned st = el->flags & (ETMKIT_INSN_EXEC |
					   ETMKIT_INSN_COND_FAIL |
					   ETMKIT_INSN_CANCEL);
		uint64_t ctx = c->ns | (uint64_t)c->hyp << 1 |
			       (c->cid_on ? c->cid << 8 : 0);

		if (st != (w->fail ? ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC))
			fail("%s: instruction %zu at 0x%llx: flags 0x%x, want "
			     "%s", c->pass, c->at,
			     (unsigned long long)w->addr, el->flags,
			     w->fail ? "N" : "E");
		if (c->ca && (!(el->flags & ETMKIT_INSN_CYCLES) ||
			      el->cycles != w->cycles))
			fail("%s: instruction %zu at 0x%llx: cycles %u (flags "
			     "0x%x), want %u", c->pass, c->at,
			     (unsigned long long)w->addr, el->cycles,
			     el->flags, w->cycles);
		if (ctx != w->ctx)
			fail("%s: instruction %zu at 0x%llx: context 0x%llx, "
			     "want 0x%llx (ns | hyp << 1 | cid << 8)", c->pass,
			     c->at, (unsigned long long)w->addr,
			     (unsigned long long)ctx,
			     (unsigned long long)w->ctx);
	} else {
		c->cycles += w->cycles;
	}
	c->at++;
}

static void cmp_elem(struct cmp *c, const struct etmkit_elem *el)
{
	const struct want *w = c->want;

	switch (el->kind) {
	case etmkit_elem_insn:
		cmp_insn(c, el);
		break;
	case etmkit_elem_exception:
		if (!c->v3) {
			cmp_insn(c, el);
			break;
		}
		if (c->nexc >= w->nexc ||
		    el->u.exception.number != w->exc[c->nexc] ||
		    (el->flags & ETMKIT_EXC_CANCEL))
			fail("%s: exception %zu: number %u flags 0x%x, want %d",
			     c->pass, c->nexc, el->u.exception.number,
			     el->flags, c->nexc < w->nexc ?
			     (int)w->exc[c->nexc] : -1);
		c->nexc++;
		break;
	case etmkit_elem_timestamp:
		if (c->nts >= w->nts || el->u.timestamp.value != w->ts[c->nts])
			fail("%s: timestamp %zu: 0x%llx, want 0x%llx", c->pass,
			     c->nts, (unsigned long long)el->u.timestamp.value,
			     (unsigned long long)(c->nts < w->nts ?
						  w->ts[c->nts] : 0));
		c->nts++;
		break;
	case etmkit_elem_context:
		if (c->v3) {
			if (el->flags & ETMKIT_CTX_CONTEXT_ID)
				c->cid = el->u.context.context_id;
			c->ns = el->u.context.ns;
			c->hyp = el->u.context.hyp;
		} else {
			ctx_add(&c->ctx, &c->nctx, &c->cap_ctx,
				el->u.context.el |
				(uint64_t)el->u.context.ns << 2 |
				(el->flags & ETMKIT_CTX_CONTEXT_ID ?
				 (uint64_t)el->u.context.context_id << 8 : 0) |
				(el->flags & ETMKIT_CTX_VMID ?
				 (uint64_t)el->u.context.vmid << 40 : 0));
		}
		break;
	case etmkit_elem_cycle_count:
		if (c->v3)
			break;
		/* D4.3.7.1: the cycles since the previous count. */
		if (!(el->flags & ETMKIT_CC_UNKNOWN) && el->cycles != c->cycles)
			fail("%s: cycle count %u after event %zu, want %llu",
			     c->pass, el->cycles, c->at,
			     (unsigned long long)c->cycles);
		c->counts++;
		c->cycles = 0;
		break;
	case etmkit_elem_gap:
	case etmkit_elem_no_image:
	case etmkit_elem_overflow:
		fail("%s: %s element (reason %u) at offset %llu after %zu "
		     "events", c->pass, etmkit_elem_kind_name(el->kind),
		     el->u.loss.reason, (unsigned long long)el->offset, c->at);
		break;
	default:
		break;
	}
}

/* A flow decoder of either protocol, comparing what it delivers. */
struct dec {
	struct etm3_flow_decoder *d3;
	struct etm4_flow_decoder *d4;
	struct cmp c;
};

static void dec_drain(struct dec *d)
{
	const struct etmkit_elem *el;
	int k;

	for (;;) {
		k = d->d3 ? etm3_flow_batch(d->d3, &el) :
			    etm4_flow_batch(d->d4, &el);
		if (k <= 0)
			break;
		for (int i = 0; i < k; i++)
			cmp_elem(&d->c, &el[i]);
	}
	if (k != -etmkit_err_eos)
		fail("%s: flow decoder returned %d", d->c.pass, k);
}

static void dec_feed(struct dec *d, const uint8_t *b, size_t n,
		     const uint64_t *offs, uint64_t base)
{
	int err = d->d3 ? etm3_flow_feed(d->d3, b, n, offs, base) :
			  etm4_flow_feed(d->d4, b, n, offs, base);

	if (err)
		fail("%s: feed returned %d", d->c.pass, err);
	dec_drain(d);
}

static void dec_init(struct dec *d, const struct setup *su,
		     const struct etm4_config *c4, const struct image *img,
		     const struct want *w, const char *pass)
{
	memset(d, 0, sizeof(*d));
	d->c.want = w;
	d->c.pass = pass;
	if (su->proto == P_ETM3) {
		struct etm3_flow_config fc;

		etm3_flow_config_init(&fc);
		fc.etm.etmcr = su->c3.etmcr;
		fc.etm.etmidr = su->c3.etmidr;
		fc.etm.etmccer = su->c3.etmccer;
		fc.image = img;
		fc.cache_bytes = 64 * 1024; /* small: flushes happen */
		if (etm3_flow_alloc(&d->d3, &fc))
			fail("etm3_flow_alloc refuses the encoder's registers");
		d->c.v3 = 1;
		d->c.ca = !!(su->c3.etmcr & ETM3_ETMCR_CYCLE_ACCURATE);
		d->c.cid_on = !!(su->c3.etmcr & (3u << ETM3_ETMCR_CID_SHIFT));
	} else {
		struct etm4_flow_config fc;

		etm4_flow_config_init(&fc);
		fc.etm = *c4;
		fc.image = img;
		fc.cache_bytes = 64 * 1024;
		if (etm4_flow_alloc(&d->d4, &fc))
			fail("etm4_flow_alloc refuses the encoder's decoder "
			     "configuration");
	}
}

static void dec_end(struct dec *d)
{
	const struct want *w = d->c.want;

	if (d->d3 ? etm3_flow_finish(d->d3) : etm4_flow_finish(d->d4))
		fail("%s: finish failed", d->c.pass);
	dec_drain(d);
	if (d->c.at != w->n)
		fail("%s: decoded %zu of the record's %zu events", d->c.pass,
		     d->c.at, w->n);
	if (d->c.nts != w->nts)
		fail("%s: %zu timestamps, want %zu", d->c.pass, d->c.nts,
		     w->nts);
	if (d->d3) {
		if (d->c.nexc != w->nexc)
			fail("%s: %zu exceptions, want %zu", d->c.pass,
			     d->c.nexc, w->nexc);
		etm3_flow_free(d->d3);
	} else {
		if (d->c.nctx != w->nctx ||
		    (w->nctx && memcmp(d->c.ctx, w->ctx,
				       w->nctx * sizeof(*w->ctx)))) {
			for (size_t i = 0; i < w->nctx || i < d->c.nctx; i++)
				fprintf(stderr, "context %zu: got 0x%llx want "
					"0x%llx\n", i, i < d->c.nctx ?
					(unsigned long long)d->c.ctx[i] : 0,
					i < w->nctx ?
					(unsigned long long)w->ctx[i] : 0);
			fail("%s: %zu contexts, want %zu, or other values",
			     d->c.pass, d->c.nctx, w->nctx);
		}
		if (d->c.counts != w->ncc)
			fail("%s: %llu cycle counts, want %llu", d->c.pass,
			     (unsigned long long)d->c.counts,
			     (unsigned long long)w->ncc);
		if (etm4_flow_get_stats(d->d4)->protocol_errors)
			fail("%s: speculation protocol errors", d->c.pass);
		etm4_flow_free(d->d4);
	}
	free(d->c.ctx);
}

/* Decode @t whole (@chunk_max 0) or in chunks of 1 to @chunk_max bytes. */
static void decode_check(const struct setup *su, const struct etm4_config *c4,
			 const struct image *img, const struct want *w,
			 const struct ts_out *t, size_t chunk_max, uint32_t seed)
{
	struct dec d;
	size_t at = 0;

	dec_init(&d, su, c4, img, w, chunk_max ? "chunked" : "whole");
	while (at < t->n) {
		size_t n = t->n - at;

		if (chunk_max) {
			seed = seed * 1103515245u + 12345u;
			n = 1 + (seed >> 8) % chunk_max;
			if (n > t->n - at)
				n = t->n - at;
		}
		dec_feed(&d, t->b + at, n, NULL, at);
		at += n;
	}
	dec_end(&d);
}

/* ---- Framing round trip ----------------------------------------------------- */

struct framed {
	struct dec d;
	uint8_t id, other;
	const struct ts_out *trace, *junk;
	size_t at_trace, at_junk;
};

static int frames_sink(void *ctx, const uint8_t *frames, size_t len)
{
	ts_out_put(ctx, frames, len);
	return 0;
}

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	struct framed *f = ctx;
	const struct ts_out *o = id == f->id ? f->trace : f->junk;
	size_t *at = id == f->id ? &f->at_trace : &f->at_junk;

	if (id != f->id && id != f->other)
		fail("framed: data of ID 0x%x, none was framed", id);
	if (n > o->n - *at || memcmp(o->b + *at, data, n))
		fail("framed: ID 0x%x: bytes %zu-%zu are not the ones framed",
		     id, *at, *at + n);
	*at += n;
	if (id == f->id)
		dec_feed(&f->d, data, n, offsets, base);
	return 0;
}

static int on_gap(void *ctx, uint64_t offset)
{
	(void)ctx;
	fail("framed: the deformatter reports a gap at %llu",
	     (unsigned long long)offset);
	return 0;
}

static void framed_check(const struct setup *su, const struct etm4_config *c4,
			 const struct image *img, const struct want *w,
			 const struct ts_out *t, const uint8_t *junk_src,
			 size_t junk_n)
{
	struct frame_enc *fe;
	struct deformatter *df;
	struct deformat_config dc;
	struct ts_out frames = { 0 }, junk = { 0 };
	struct framed f;
	uint8_t other = (uint8_t)(su->id % 0x6f + 1);
	uint32_t seed = su->chunk_seed ^ 0x5a5a;
	size_t at = 0, j = 0;

	memset(&f, 0, sizeof(f));
	if (frame_enc_alloc(&fe, frames_sink, &frames))
		abort();
	while (at < t->n) {
		size_t n;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 8) % (su->chunk_max * 4);
		if (n > t->n - at)
			n = t->n - at;
		if (frame_enc_put(fe, su->id, t->b + at, n))
			fail("frame_enc_put refuses ID 0x%x", su->id);
		at += n;
		if (su->junk && junk_n) {
			size_t k = (seed >> 20) % (su->junk + 1u);

			for (size_t i = 0; i < k; i++) {
				uint8_t b = junk_src[j++ % junk_n];

				ts_out_put(&junk, &b, 1);
				if (frame_enc_put(fe, other, &b, 1))
					fail("frame_enc_put refuses ID 0x%x",
					     other);
			}
		}
	}
	if (frame_enc_finish(fe))
		abort();
	frame_enc_free(fe);
	if (frames.n % 16)
		fail("framed: %zu bytes, not whole frames", frames.n);

	dec_init(&f.d, su, c4, img, w, "framed");
	f.id = su->id;
	f.other = other;
	f.trace = t;
	f.junk = &junk;
	memset(&dc, 0, sizeof(dc));
	dc.size = sizeof(dc);
	dc.mode = deformat_coresight;
	dc.on_data = on_data;
	dc.on_gap = on_gap;
	dc.ctx = &f;
	if (deformat_alloc(&df, &dc))
		abort();
	if (frames.n && deformat_feed(df, frames.b, frames.n))
		fail("framed: deformat_feed failed");
	if (deformat_finish(df))
		fail("framed: deformat_finish failed");
	if (deformat_get_stats(df)->errors)
		fail("framed: deformatter errors");
	deformat_free(df);
	if (f.at_trace != t->n || f.at_junk != junk.n)
		fail("framed: %zu of %zu trace bytes, %zu of %zu other bytes "
		     "back", f.at_trace, t->n, f.at_junk, junk.n);
	dec_end(&f.d);
	free(frames.b);
	free(junk.b);
}

/* FUZZ_ENCODE_DUMP in the environment: the record's first @n items, in
 * the text form (docs/exec-record.md), on stderr. */
static void dump(const struct ts_rec *rc, size_t n)
{
	char line[160];

	if (!getenv("FUZZ_ENCODE_DUMP"))
		return;
	fprintf(stderr, "etmkit-exec 1\n");
	for (size_t i = 0; i < n; i++)
		if (exec_text_format(line, sizeof(line), &rc->r[i]) > 0)
			fprintf(stderr, "%s", line);
}

/* ---- The target ------------------------------------------------------------- */

/* Images are pure functions of (protocol class, seed, code): the last one
 * is kept. */
static struct ts_prog64 P64;
static struct ts_prog32 P32;
static int p64_key = -1, p32_key = -1;

static struct image *image_of(const struct setup *su, unsigned seed)
{
	struct image *img;

	if (image_alloc(&img))
		abort();
	if (su->proto == P_ETM4_A64 || su->proto == P_ETE) {
		int key = (int)seed << 1 | (su->proto == P_ETE);

		if (key != p64_key) {
			prog64_make(&P64, seed * 0x9e3779b97f4a7c15ull + 1,
				    su->proto == P_ETE);
			p64_key = key;
		}
		for (unsigned b = 0; b < TS_PROG64_NBASES; b++)
			if (image_add_buffer(img, P64.bytes, 4ull * P64.n,
					     ts_prog64_bases[b], 0))
				abort();
	} else {
		int key = (int)seed << 2 | su->arm << 1 | su->thumb;

		if (key != p32_key) {
			prog32_make(&P32, seed * 0x9e3779b97f4a7c15ull + 1,
				    su->arm, su->thumb);
			p32_key = key;
		}
		for (unsigned i = 0; i < P32.n; i++)
			if (image_add_buffer(img, P32.r[i].mem, REGION_BYTES,
					     P32.r[i].base, 0))
				abort();
	}
	return img;
}

/* PTM: the walk encoded, the packets read back against it, whole and in
 * chunks. */
static void ptm_run(const struct setup *su, const struct image *img,
		    struct src *in, struct ts_rec *rc)
{
	struct ts_out t = { 0 };
	struct ptm_enc *e;
	char why[256];
	size_t end = walk32(&P32, su, in, rc, 1);
	int err = ptm_enc_alloc(&e, &su->cp, ts_out_sink, &t);

	if (err)
		fail("ptm_enc_alloc: %d for ETMCR 0x%x ETMIDR 0x%x ETMCCER 0x%x",
		     err, su->cp.etmcr, su->cp.etmidr, su->cp.etmccer);
	for (size_t i = 0; i < end; i++)
		if ((err = ptm_enc_put(e, &rc->r[i])) != 0)
			fail("ptm_enc_put: %d at item %zu", err, i);
	if (ptm_enc_finish(e))
		fail("ptm_enc_finish failed");
	if (ptm_enc_offset(e) != t.n)
		fail("ptm_enc_offset %llu, the sink got %zu",
		     (unsigned long long)ptm_enc_offset(e), t.n);
	ptm_enc_free(e);
	dump(rc, end);
	if (ts_ptm_check(&su->cp, t.b, t.n, 0, rc, why, sizeof(why)) ||
	    ts_ptm_check(&su->cp, t.b, t.n, su->chunk_max, rc, why,
			 sizeof(why)) ||
	    ts_ptm_flow_check(&su->cp, img, t.b, t.n, 0, rc, why,
			      sizeof(why)) ||
	    ts_ptm_flow_check(&su->cp, img, t.b, t.n, su->chunk_max, rc, why,
			      sizeof(why)))
		fail("PTM: %s", why);
	free(t.b);
	free(rc->r);
}

/* ETMv2: the walk encoded, the cycles decoded into packet records and
 * read back against it, whole and in chunks. */
static void etm2_run(const struct setup *su, struct src *in,
		     struct ts_rec *rc)
{
	struct ts_cycles cy = { 0 };
	struct etm2_enc *e;
	struct ts_etm2_result res = { 0 };
	const struct etm2_enc_stats *st;
	char why[300];
	size_t end = walk32(&P32, su, in, rc, 1);
	int err = etm2_enc_alloc(&e, &su->c2, ts_cycles_sink, &cy);

	if (err)
		fail("etm2_enc_alloc: %d for ETMCR 0x%x", err, su->c2.etm.etmcr);
	for (size_t i = 0; i < end; i++)
		if ((err = etm2_enc_put(e, &rc->r[i])) != 0)
			fail("etm2_enc_put: %d at item %zu", err, i);
	if (etm2_enc_finish(e))
		fail("etm2_enc_finish failed");
	st = etm2_enc_get_stats(e);
	if (st->cycles != cy.n ||
	    (st->overflows && su->c2.etm.version != 1))
		fail("etm2_enc stats: %llu cycles (the sink got %zu), %llu "
		     "overflows", (unsigned long long)st->cycles, cy.n,
		     (unsigned long long)st->overflows);
	dump(rc, end);
	if (st->overflows) {
		/* ETMv1: an APO past 14 (docs/etmv2.md 7b) */
		etm2_enc_free(e);
		free(cy.c);
		free(rc->r);
		return;
	}
	if (ts_etm2_check(&su->c2.etm, cy.c, cy.n, 0, 0, rc, &res, why,
			  sizeof(why)) ||
	    res.insns != st->insns ||
	    ts_etm2_check(&su->c2.etm, cy.c, cy.n, su->chunk_max, 0, rc, &res,
			  why, sizeof(why)))
		fail("ETMv%u: %s (%llu instructions decoded, %llu encoded)",
		     su->c2.etm.version == 1 ? 1u : 2u, why,
		     (unsigned long long)res.insns,
		     (unsigned long long)st->insns);
	etm2_enc_free(e);
	free(cy.c);
	free(rc->r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct setup su;
	struct src in;
	struct ts_rec rc = { 0 };
	struct ts_out t = { 0 };
	struct want w;
	struct etm4_config c4;
	struct image *img;
	size_t end;
	int err;

	if (size < HDR || setup_of(data, &su))
		return 0;
	in.p = data + HDR;
	in.n = size - HDR < MAX_WALK ? size - HDR : MAX_WALK;
	in.at = 0;
	img = image_of(&su, (unsigned)data[6] | (unsigned)data[7] << 8);
	memset(&w, 0, sizeof(w));
	memset(&c4, 0, sizeof(c4));

	if (su.proto == P_PTM) {
		ptm_run(&su, img, &in, &rc);
		image_free(img);
		return 0;
	}
	if (su.proto == P_ETM2) {
		etm2_run(&su, &in, &rc);
		image_free(img);
		return 0;
	}
	if (su.proto == P_ETM3) {
		struct etm3_enc *e;

		end = walk32(&P32, &su, &in, &rc, 1);
		err = etm3_enc_alloc(&e, &su.c3, ts_out_sink, &t);
		if (err)
			fail("etm3_enc_alloc: %d for ETMCR 0x%x ETMIDR 0x%x "
			     "ETMCCER 0x%x", err, su.c3.etmcr, su.c3.etmidr,
			     su.c3.etmccer);
		for (size_t i = 0; i < end; i++)
			if ((err = etm3_enc_put(e, &rc.r[i])) != 0)
				fail("etm3_enc_put: %d at item %zu", err, i);
		if (etm3_enc_finish(e))
			fail("etm3_enc_finish failed");
		if (etm3_enc_offset(e) != t.n)
			fail("etm3_enc_offset %llu, the sink got %zu",
			     (unsigned long long)etm3_enc_offset(e), t.n);
		etm3_enc_free(e);
		expect3(&su, &rc, &w);
	} else {
		struct ete_enc *e;
		const struct ete_enc_stats *st;

		if (su.proto == P_ETM4_A32)
			end = walk32(&P32, &su, &in, &rc, 0);
		else
			end = walk64(&P64, &su, &in, &rc);
		err = ete_enc_alloc(&e, &su.c4, ts_out_sink, &t);
		if (err)
			fail("ete_enc_alloc: %d", err);
		for (size_t i = 0; i < end; i++)
			if ((err = ete_enc_put(e, &rc.r[i])) != 0)
				fail("ete_enc_put: %d at item %zu", err, i);
		if (ete_enc_finish(e))
			fail("ete_enc_finish failed");
		st = ete_enc_get_stats(e);
		if (st->untraceable)
			fail("ete_enc: %llu items untraceable in a walk made "
			     "to be traceable", (unsigned long long)st->untraceable);
		if (st->bytes != t.n)
			fail("ete_enc stats: %llu bytes, the sink got %zu",
			     (unsigned long long)st->bytes, t.n);
		w.ncc = st->cycle_counts;
		if (ete_enc_decoder_config(e, &c4))
			abort();
		ete_enc_free(e);
		expect4(&su.c4, &rc, end, &w);
	}
	dump(&rc, end);
	if (getenv("FUZZ_ENCODE_DUMP")) {
		fprintf(stderr, "trace (%zu bytes):", t.n);
		for (size_t i = 0; i < t.n; i++)
			fprintf(stderr, " %02x", t.b[i]);
		fprintf(stderr, "\n");
	}
	decode_check(&su, &c4, img, &w, &t, 0, 0);
	decode_check(&su, &c4, img, &w, &t, su.chunk_max, su.chunk_seed);
	framed_check(&su, &c4, img, &w, &t, data, size);

	want_free(&w);
	free(t.b);
	free(rc.r);
	image_free(img);
	return 0;
}
