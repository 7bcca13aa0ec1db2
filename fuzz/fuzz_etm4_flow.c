/* libFuzzer target: the ETMv4/ETE flow decoder (packets, speculation and
 * the program walk -> elements).
 *
 * Input: 5 header bytes, then the trace:
 *   [0] bit 0 ETE (else ETMv4); bits 1-3 TRCIDR8.MAXSPEC, one of 0, 1, 2,
 *       3, 4, 6, 16, 255; bit 4 TRCIDR0.COMMOPT; bit 5 return stack
 *       (TRCCONFIGR.RS); bit 6 Q elements (TRCIDR0.QSUPP 3, TRCCONFIGR.QE
 *       3); bit 7 cycle counting (TRCIDR0.TRCCCI, TRCCONFIGR.CCI)
 *   [1] bit 0 TRCIDR0.TSMARK; bit 1 TRCIDR2.WFXMODE; bits 2-3
 *       TRCIDR2.VMIDSIZE 0, 1, 2 or 4 bytes; bit 4 32-bit context IDs
 *       (TRCIDR2.CIDSIZE 4); bit 5 64-bit timestamps (else 48); bit 6
 *       64-bit instruction addresses (TRCIDR2.IASIZE, else 32); bit 7
 *       TRCIDR0.COMMTRANS
 *   [2] bits 0-2 the minor version: ETMv4 4.(n % 7), ETE revision n % 4;
 *       bit 3 the ranges decode (ETM4_FLOW_RANGES) is chunked as below,
 *       else one feed; bit 4 the same for the tally decode
 *       (ETM4_FLOW_TALLY); bit 5 for the traces decode
 *       (ETM4_FLOW_TRACES)
 *   [3] chunk size for the chunked decodes (1-256)
 *   [4] element count per etm4_flow_next() call (1-64)
 *   then the trace bytes. The image is fixed: the A64 program below at
 *   A64_BASE and the T32 one at T32_BASE, both reachable with the short
 *   address packets after a Trace Info (history reset to 0).
 *
 * Invariants (flow.h; spec digest etmv4-ete.md sections 7 and 8):
 * - the elements are a function of the input only: one feed drained with
 *   etm4_flow_batch() equals chunked feeds drained with etm4_flow_next()
 *   and any element count, field by field (elem_same() and the ETMv4
 *   fields it does not compare);
 * - element kinds are in range, offsets inside the trace, and the number
 *   of elements is bounded by the trace's length times what one byte can
 *   make (24 atoms, each at most the image's instructions);
 * - an instruction lies inside the image and is what the image holds
 *   there (size 4 for A64 and A32, 2 or 4 for T32, aligned, the opcode);
 *   its flags are only EXEC, COND_FAIL, P0 and CYCLES, exactly one of
 *   EXEC and COND_FAIL, COND_FAIL only on a P0 instruction (flow.h); an
 *   instruction not flagged P0 followed straight by another is followed
 *   by the next one in memory (an atom's range runs to its P0
 *   instruction, digest 8.2);
 * - the position is not invented (digest 8.2): after a trace_on,
 *   exception, no_image, overflow or gap element, the next instruction
 *   comes from a packet after an address-carrying packet that itself
 *   follows that element's packet, and after a gap of lost packets
 *   (reasons packet and truncated) after a Trace Info too. The packet
 *   offsets come from an etm4_pkt decoder run on the same bytes;
 * - with a transport gap declared halfway, the elements before the gap
 *   element are a prefix of the reference's followed by elements a
 *   Discard releases (timestamps, markers, cycle counts, events,
 *   instrumentation; digest 7.5), and the gap element is there;
 * - stop-on-error output is a prefix of the reference's that ends at a
 *   gap of lost packets (or all of it);
 * - with ETM4_FLOW_RANGES the elements are the reference's with each run
 *   of instructions in an insn_range (elem.h, flow.h): a range expands to
 *   count consecutive insn elements of the reference, each starting where
 *   the one before ended, of the range's packet offset and isa, all but
 *   the last flagged exactly EXEC, the last of the range's flags, size,
 *   opcode and class and ending at its end; a range whose flags are
 *   exactly EXEC is not followed by a range that continues it (same
 *   offset and isa, starting at its end: they should have been one); the
 *   instruction counts of the stats agree with each other and the
 *   elements;
 * - with ETM4_FLOW_TALLY as well, the elements of other kinds are the
 *   ranges decode's, in order, and between two of them the ranges are
 *   the same once each is taken repeats + 1 times (flow.h); only ranges
 *   flagged P0 repeat; the stats count the same instructions;
 * - with ETM4_FLOW_TRACES instead, the elements of other kinds are the
 *   ranges decode's, in order, and between two of them the taken-branch
 *   traces, with their targets and counts, are the same
 *   (tests/branch_traces.h); the stats count the same instructions.
 *
 * FUZZ_ETM4_LAX (environment, comma-separated) turns checks off, to fuzz
 * past a known finding: "flags" (EXEC on every instruction, COND_FAIL
 * only with P0), "pos" (the position rule), "rangep0" (a range's last
 * instruction without the P0 flag the reference's has), "rangesplit" (a
 * range continued by the next one).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"
#include "etmkit/flow.h"
#include "etmkit/insn.h"
#include "../tests/branch_traces.h"
#include "../tests/elem_same.h"
#include "fuzz_flow_drive.h"
#include "ts_elems.h"

#define MAX_ELEMS (1u << 22)
#define HDR 5

#define A64_BASE 0x1000u
#define T32_BASE 0x1800u

/* A64 (llvm-mc -mattr=+tme,+pauth,+wfxt): every kind of P0 instruction
 * (direct, conditional, compare and test branches, BL, BR, BLR, RET,
 * ERET and their pointer-authenticated forms, ISB, WFI/WFE/WFIT/WFET,
 * TSTART), exception-generating ones, loads and stores, and loops. */
static const uint32_t a64_prog[] = {
	0x91000400, /* 000 add x0, x0, #1 */
	0xb4000040, /* 004 cbz x0, 00c */
	0x540000a1, /* 008 b.ne 01c */
	0x36180041, /* 00c tbz w1, #3, 014 */
	0xb74000e2, /* 010 tbnz x2, #40, 02c */
	0x9400000d, /* 014 bl 048 */
	0xb5ffff43, /* 018 cbnz x3, 000 */
	0xd5033fdf, /* 01c isb */
	0xd503207f, /* 020 wfi */
	0xd503205f, /* 024 wfe */
	0xd61f0080, /* 028 br x4 */
	0xd63f00a0, /* 02c blr x5 */
	0xf9400020, /* 030 ldr x0, [x1] */
	0xd4000001, /* 034 svc #0 */
	0xd5233060, /* 038 tstart x0 */
	0xd5233161, /* 03c ttest x1 */
	0xd503307f, /* 040 tcommit */
	0x1400000a, /* 044 b 06c */
	0xd503201f, /* 048 nop */
	0xf81f0fe0, /* 04c str x0, [sp, #-16]! */
	0xd65f03c0, /* 050 ret */
	0xd65f0bff, /* 054 retaa */
	0xd71f0801, /* 058 braa x0, x1 */
	0xd73f0843, /* 05c blraa x2, x3 */
	0xd69f03e0, /* 060 eret */
	0xd69f0bff, /* 064 eretaa */
	0x17ffffe6, /* 068 b 000 */
	0x91000821, /* 06c add x1, x1, #2 */
	0x54fffec0, /* 070 b.eq 048 */
	0xd4000002, /* 074 hvc #0 */
	0xd4600020, /* 078 tcancel #1 */
	0x54fffece, /* 07c b.al 054 */
	0x94000005, /* 080 bl 094 */
	0xd4200000, /* 084 brk #0 */
	0x00000000, /* 088 udf #0 */
	0xaa0103e0, /* 08c mov x0, x1 */
	0x14000002, /* 090 b 098 */
	0x14000000, /* 094 b 094 (itself) */
	0xd1000400, /* 098 sub x0, x0, #1 */
	0xb5ffffe0, /* 09c cbnz x0, 098 */
	0xd63f03c0, /* 0a0 blr x30 */
	0xd65f0020, /* 0a4 ret x1 */
	0xd5031020, /* 0a8 wfit x0 */
	0xd5031001, /* 0ac wfet x1 */
	0xd503201f, /* 0b0 nop */
	0xd503201f, /* 0b4 nop */
	0xd503201f, /* 0b8 nop: runs off the end */
};

/* T32 (llvm-mc -triple=thumbv8a), as halfwords: 16- and 32-bit branches,
 * CBZ, BL, BLX to A32, BX, BLX register, POP and LDR and MOV to PC, IT
 * blocks, ISB, WFI, WFE.W, SVC, SUBS PC, LR; an A32 BX LR at its end. */
static const uint16_t t32_prog[] = {
	0x2001,         /* 000 movs r0, #1 */
	0xb120,         /* 002 cbz r0, 00e */
	0xd007,         /* 004 beq 016 */
	0xf000, 0xf808, /* 006 bl 01a */
	0xf000, 0xe822, /* 00a blx 050 (A32) */
	0xf100, 0x0001, /* 00e add.w r0, r0, #1 */
	0xf000, 0xb804, /* 012 b.w 01e */
	0x4770,         /* 016 bx lr */
	0x4798,         /* 018 blx r3 */
	0xb510,         /* 01a push {r4, lr} */
	0xbd10,         /* 01c pop {r4, pc} */
	0xbf08,         /* 01e it eq */
	0x2000,         /* 020 moveq r0, #0 */
	0xbf18,         /* 022 it ne */
	0xf7ff, 0xbff3, /* 024 bne.w 00e */
	0xbf00,         /* 028 nop */
	0xf3bf, 0x8f6f, /* 02a isb sy */
	0xbf30,         /* 02e wfi */
	0xf3af, 0x8002, /* 030 wfe.w */
	0xf8d1, 0xf000, /* 034 ldr.w pc, [r1] */
	0x4697,         /* 038 mov pc, r2 */
	0xdf00,         /* 03a svc #0 */
	0xe7e0,         /* 03c b 000 */
	0xd1ea,         /* 03e bne 016 */
	0xf8d1, 0x0004, /* 040 ldr.w r0, [r1, #4] */
	0xf3de, 0x8f04, /* 044 subs pc, lr, #4 */
	0xbe00,         /* 048 bkpt #0 */
	0xde00,         /* 04a udf #0 */
	0xbf00,         /* 04c nop */
	0xbf00,         /* 04e nop */
	0xff1e, 0xe12f, /* 050 A32: bx lr */
};

#define A64_BYTES (sizeof(a64_prog))
#define T32_BYTES (sizeof(t32_prog))
/* Instructions one atom may walk at most: every halfword of the image. */
#define IMAGE_INSNS ((A64_BYTES + T32_BYTES) / 2)

/* Packet offsets of the reference input, ascending. */
struct offs {
	uint64_t *v;
	size_t n, cap;
};

struct image_bytes {
	uint8_t a64[A64_BYTES];
	uint8_t t32[T32_BYTES];
};

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_etm4_flow: invariant broken: %s\n", what);
	abort();
}

/* As fail(), naming the element. */
static void fail_at(const char *what, const struct etmkit_elem *e)
{
	fprintf(stderr, "fuzz_etm4_flow: at the %s element of offset %llu, "
		"address 0x%llx, flags 0x%x:\n", etmkit_elem_kind_name(e->kind),
		(unsigned long long)e->offset, (unsigned long long)e->addr,
		e->flags);
	fail(what);
}

static int lax(const char *what)
{
	const char *l = getenv("FUZZ_ETM4_LAX");

	return l && strstr(l, what);
}

/* Elements collected into a ts_elems list (tests/support), bounded. */
static void put(struct ts_elems *v, const struct etmkit_elem *e)
{
	v->max = MAX_ELEMS;
	if (ts_elems_put(v, e))
		fail("more elements than the input could make");
}

static void put_off(struct offs *o, uint64_t off)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = realloc(o->v, o->cap * sizeof(*o->v));
		if (!o->v)
			abort();
	}
	o->v[o->n++] = off;
}

/* The first offset of @o above @lo (any, if @lo is NONE) and at most @hi,
 * or NONE. */
#define NONE UINT64_MAX
static uint64_t first_in(const struct offs *o, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = o->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (lo != NONE && o->v[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < o->n && o->v[a] <= hi ? o->v[a] : NONE;
}

/* 1 if the ETMv4 fields elem_same() leaves out are the same too. */
static int elem4_same(const struct etmkit_elem *a, const struct etmkit_elem *b)
{
	if (!elem_same(a, b, 1))
		return 0;
	switch (a->kind) {
	case etmkit_elem_context:
		return a->u.context.el == b->u.context.el &&
		       a->u.context.aarch64 == b->u.context.aarch64 &&
		       a->u.context.sec == b->u.context.sec;
	case etmkit_elem_event:
		return a->u.event.bits == b->u.event.bits;
	case etmkit_elem_instrumentation:
		return a->u.ite.value == b->u.ite.value &&
		       a->u.ite.el == b->u.ite.el;
	case etmkit_elem_transaction:
		return a->u.txn.what == b->u.txn.what;
	case etmkit_elem_q:
		return a->u.q.target == b->u.q.target &&
		       a->u.q.count == b->u.q.count;
	default:
		return 1;
	}
}

static void image_init(struct image_bytes *ib)
{
	for (size_t i = 0; i < sizeof(a64_prog) / sizeof(a64_prog[0]); i++)
		for (int k = 0; k < 4; k++)
			ib->a64[4 * i + k] = (uint8_t)(a64_prog[i] >> (8 * k));
	for (size_t i = 0; i < sizeof(t32_prog) / sizeof(t32_prog[0]); i++) {
		ib->t32[2 * i] = (uint8_t)t32_prog[i];
		ib->t32[2 * i + 1] = (uint8_t)(t32_prog[i] >> 8);
	}
}

/* The image's bytes at [@addr, @addr + @n), or NULL outside it. */
static const uint8_t *image_at(const struct image_bytes *ib, uint64_t addr,
			       size_t n)
{
	if (addr >= A64_BASE && addr - A64_BASE <= A64_BYTES &&
	    n <= A64_BYTES - (addr - A64_BASE))
		return ib->a64 + (addr - A64_BASE);
	if (addr >= T32_BASE && addr - T32_BASE <= T32_BYTES &&
	    n <= T32_BYTES - (addr - T32_BASE))
		return ib->t32 + (addr - T32_BASE);
	return NULL;
}

static void check_insn(const struct etmkit_elem *e,
		       const struct image_bytes *ib)
{
	const uint8_t *p = image_at(ib, e->addr, e->size);
	uint32_t want;
	unsigned f = e->flags;

	if (!p)
		fail_at("instruction outside the image", e);
	switch (e->isa) {
	case etmkit_isa_a64:
	case etmkit_isa_arm:
		if (e->size != 4 || (e->addr & 3))
			fail_at("A64/A32 instruction size or alignment", e);
		want = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		break;
	case etmkit_isa_thumb:
		if ((e->size != 2 && e->size != 4) || (e->addr & 1))
			fail_at("T32 instruction size or alignment", e);
		want = (uint32_t)p[0] | (uint32_t)p[1] << 8;
		if (e->size == 4)
			want = want << 16 | p[2] | (uint32_t)p[3] << 8;
		break;
	default:
		fail_at("instruction set not ETMv4's", e);
		return;
	}
	if (e->u.insn.opcode != want)
		fail_at("opcode is not the image's", e);
	if (f & ~(unsigned)(ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			    ETMKIT_INSN_P0 | ETMKIT_INSN_CYCLES))
		fail_at("instruction flags other than EXEC, COND_FAIL, P0 "
			"and CYCLES", e);
	/* flow.h: EXEC, or COND_FAIL on a not-taken P0 instruction (which
	 * a source address may pass, without P0). */
	if (!(f & ETMKIT_INSN_EXEC) == !(f & ETMKIT_INSN_COND_FAIL) &&
	    !lax("flags"))
		fail_at("instruction without exactly one of EXEC and COND_FAIL",
			e);
	if ((f & ETMKIT_INSN_COND_FAIL) &&
	    !(e->u.insn.class_flags & (INSN_F_BRANCH | INSN_F_ISB |
				       INSN_F_WFX | INSN_F_TSTART)) &&
	    !lax("flags"))
		fail_at("COND_FAIL on an instruction that is not P0", e);
}

/* What the packet decoder saw in the same bytes. */
struct pkt_view {
	struct offs tinfo;  /* Trace Info packets */
	struct offs addr;   /* packets that carry an address */
	struct offs src;    /* source address packets, */
	struct offs src_at; /* and their addresses */
};

static void packets(const struct etm4_config *c, const uint8_t *t, size_t n,
		    struct pkt_view *v)
{
	struct etm4_pkt_decoder *d;
	struct etm4_packet p[64];
	int k;

	if (etm4_pkt_alloc(&d, c))
		abort();
	if (etm4_pkt_feed(d, t, n, NULL, 0))
		abort();
	for (int pass = 0; pass < 2; pass++) {
		while ((k = etm4_pkt_next(d, p, 64)) > 0) {
			for (int i = 0; i < k; i++) {
				if (p[i].error)
					continue;
				if (p[i].type == etm4_pkt_trace_info)
					put_off(&v->tinfo, p[i].offset);
				if (p[i].type == etm4_pkt_source_address) {
					put_off(&v->src, p[i].offset);
					put_off(&v->src_at, p[i].u.a.addr.addr);
				}
				if (p[i].type == etm4_pkt_address ||
				    p[i].type == etm4_pkt_address_context ||
				    p[i].type == etm4_pkt_source_address ||
				    (p[i].type == etm4_pkt_q &&
				     p[i].u.q.has_addr))
					put_off(&v->addr, p[i].offset);
			}
		}
		if (k != -etmkit_err_eos)
			abort();
		if (!pass && etm4_pkt_finish(d))
			abort();
	}
	etm4_pkt_free(d);
}

/* 1 if @e is the instruction at a source address, delivered by that
 * packet: it ends the element's range whether or not the image has a P0
 * instruction there (the decoder flags it P0 only if it has), and digest
 * 8.2 starts a source address's range at the address itself when the
 * position is past it. */
static int at_source(const struct pkt_view *pv, const struct etmkit_elem *e)
{
	uint64_t o = first_in(&pv->src, e->offset ? e->offset - 1 : NONE,
			      e->offset);
	size_t a = 0, b = pv->src.n;

	if (o == NONE)
		return 0;
	while (a < b) { /* its index */
		size_t m = a + (b - a) / 2;

		if (pv->src.v[m] < o)
			a = m + 1;
		else
			b = m;
	}
	return pv->src_at.v[a] == e->addr;
}

/* The position rule for an instruction from the packet at @o: after the
 * packet at @pos_lost (NONE: known) the position was unknown, and after
 * the one at @sync_lost (NONE: in sync) the packets were lost. */
static void check_position(const struct pkt_view *pv,
			   const struct etmkit_elem *e, uint64_t pos_lost,
			   uint64_t sync_lost)
{
	uint64_t from = pos_lost, o = e->offset;

	if (pos_lost == NONE || lax("pos"))
		return;
	if (sync_lost != NONE) {
		uint64_t ti = first_in(&pv->tinfo, sync_lost, o);

		if (ti == NONE)
			fail_at("instruction after lost packets without a "
				"Trace Info", e);
		if (ti > from)
			from = ti;
	}
	if (first_in(&pv->addr, from, o) == NONE)
		fail_at("instruction after an unknown position without an "
			"address packet", e);
}

/* Element checks on the reference decode of @n trace bytes. */
static void check_elems(const struct ts_elems *r, size_t n,
			const struct image_bytes *ib, const struct pkt_view *pv)
{
	uint64_t pos_lost = NONE, sync_lost = NONE;

	if (r->n > 64 + (uint64_t)n * 24 * (IMAGE_INSNS + 2))
		fail("more elements than the bytes can make");
	for (size_t i = 0; i < r->n; i++) {
		const struct etmkit_elem *e = &r->e[i];

		if (e->kind == etmkit_elem_none ||
		    e->kind >= etmkit_elem_kind_count)
			fail_at("element kind out of range", e);
		if (e->offset >= n)
			fail_at("element offset beyond the trace", e);
		switch (e->kind) {
		case etmkit_elem_insn:
			check_insn(e, ib);
			if (i + 1 < r->n && r->e[i + 1].kind == etmkit_elem_insn &&
			    !(e->flags & ETMKIT_INSN_P0) && !at_source(pv, e) &&
			    (r->e[i + 1].addr != e->addr + e->size ||
			     r->e[i + 1].isa != e->isa))
				fail_at("an instruction that is not P0 is "
					"not followed by the next in memory", e);
			check_position(pv, e, pos_lost, sync_lost);
			pos_lost = sync_lost = NONE;
			break;
		case etmkit_elem_gap:
			if (e->u.loss.reason == etmkit_loss_packet ||
			    e->u.loss.reason == etmkit_loss_truncated)
				sync_lost = e->offset;
			pos_lost = e->offset;
			break;
		case etmkit_elem_overflow:
			sync_lost = e->offset;
			pos_lost = e->offset;
			break;
		case etmkit_elem_trace_on:
		case etmkit_elem_exception:
		case etmkit_elem_no_image:
			pos_lost = e->offset;
			break;
		default:
			break;
		}
	}
}

static const uint32_t maxspec_of[8] = { 0, 1, 2, 3, 4, 6, 16, 255 };
static const uint32_t vmid_of[4] = { 0, 1, 2, 4 };

static void config(const uint8_t *h, struct etm4_flow_config *c,
		   const struct image *img, uint32_t flags)
{
	struct etm4_config *r = &c->etm;
	unsigned ete = h[0] & 1;

	etm4_flow_config_init(c);
	/* digest 6.2: RES1, TRCBB, RETSTACK, four events. */
	r->trcidr0 = 0x1u | 0x20u | 0x200u | 0xC00u |
		     ((h[0] & 0x80) ? 0x80u : 0) |           /* TRCCCI */
		     ((h[0] & 0x40) ? 3u << 15 | 1u << 14 : 0) | /* QSUPP */
		     ((h[1] & 0x01) ? 1u << 23 : 0) |         /* TSMARK */
		     ((h[1] & 0x20) ? 8u << 24 : 6u << 24) |  /* TSSIZE */
		     ((h[0] & 0x10) ? 1u << 29 : 0) |         /* COMMOPT */
		     ((h[1] & 0x80) ? 1u << 30 : 0);          /* COMMTRANS */
	r->trcidr1 = ete ? 0x4100FFF0u : 0x4100F400u | (h[2] & 7) % 7 << 4;
	r->trcidr2 = ((h[1] & 0x40) ? 8u : 4u) |               /* IASIZE */
		     ((h[1] & 0x10) ? 4u << 5 : 0) |           /* CIDSIZE */
		     vmid_of[(h[1] >> 2) & 3] << 10 |          /* VMIDSIZE */
		     8u << 25 |                                /* CCSIZE */
		     ((h[1] & 0x02) ? 1u << 31 : 0);           /* WFXMODE */
	r->trcidr8 = maxspec_of[(h[0] >> 1) & 7];
	r->trcconfigr = 0x1u | ((h[0] & 0x80) ? 1u << 4 : 0) |
			((h[1] & 0x10) ? 1u << 6 : 0) |
			((h[1] & 0x0C) ? 1u << 7 : 0) | 1u << 11 |
			((h[0] & 0x20) ? 1u << 12 : 0) |
			((h[0] & 0x40) ? 3u << 13 : 0);
	r->trcdevarch = ete ? 0x47705A13u | (uint32_t)(h[2] & 3) << 16 : 0;
	r->flags = flags | (ete ? ETM4_CFG_ETE : 0);
	c->image = img;
	c->cache_bytes = 64 * 1024; /* small: flushes happen */
}

FUZZ_FLOW_DRIVE(etm4, fail)

/* Kinds a Discard (and so a transport gap) releases (digest 7.5). */
static int released_by_discard(uint8_t kind)
{
	return kind == etmkit_elem_timestamp ||
	       kind == etmkit_elem_cycle_count ||
	       kind == etmkit_elem_event ||
	       kind == etmkit_elem_instrumentation ||
	       kind == etmkit_elem_ts_marker;
}

static void check_gap(const struct ts_elems *ref, const struct ts_elems *gap)
{
	size_t g = 0, j = 0;

	while (g < gap->n && !(gap->e[g].kind == etmkit_elem_gap &&
			       gap->e[g].u.loss.reason == etmkit_loss_transport))
		g++;
	if (g == gap->n)
		fail("no transport gap element after etm4_flow_gap()");
	while (j < g && j < ref->n && elem4_same(&gap->e[j], &ref->e[j]))
		j++;
	for (; j < g; j++)
		if (!released_by_discard(gap->e[j].kind))
			fail_at("before a transport gap: not the "
				"reference's elements, nor ones a Discard "
				"releases", &gap->e[j]);
}

static void check_stop(const struct ts_elems *ref, const struct ts_elems *stop)
{
	if (stop->n > ref->n)
		fail("stop on error: more elements than the reference");
	for (size_t i = 0; i < stop->n; i++)
		if (!elem4_same(&stop->e[i], &ref->e[i]))
			fail_at("stop on error: not the reference's "
				"elements", &stop->e[i]);
	if (stop->n < ref->n &&
	    (!stop->n || stop->e[stop->n - 1].kind != etmkit_elem_gap ||
	     stop->e[stop->n - 1].u.loss.reason != etmkit_loss_packet))
		fail("stop on error: stopped elsewhere than at a packet gap");
}

/* The range @r against the reference's instructions from @p on (@left of
 * them): what it stands for (elem.h insn_range). */
static void check_range(const struct etmkit_elem *r,
			const struct etmkit_elem *p, size_t left)
{
	uint32_t cnt = r->u.range.count;

	if (!cnt)
		fail_at("ranges: a range of no instructions", r);
	if (r->cycles)
		fail_at("ranges: a range with cycles", r);
	if (cnt > left)
		fail_at("ranges: more instructions than the reference's", r);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct etmkit_elem *q = &p[k];

		if (q->kind != etmkit_elem_insn)
			fail_at("ranges: a range where the reference has "
				"another element", q);
		if (q->offset != r->offset || q->isa != r->isa)
			fail_at("ranges: an instruction of another offset "
				"or isa than its range", q);
		if (q->addr != (k ? p[k - 1].addr + p[k - 1].size : r->addr))
			fail_at("ranges: an instruction not where the one "
				"before it in the range ended", q);
		if (k + 1 < cnt && q->flags != ETMKIT_INSN_EXEC)
			fail_at("ranges: an instruction inside a range not "
				"flagged exactly EXEC in the reference", q);
	}
	p += cnt - 1;
	if ((p->flags != r->flags &&
	     !(p->flags == (r->flags | ETMKIT_INSN_P0) && lax("rangep0"))) ||
	    p->size != r->size ||
	    p->u.insn.opcode != r->u.range.opcode ||
	    p->u.insn.class_flags != r->u.range.class_flags)
		fail_at("ranges: flags, size, opcode or class of the last "
			"instruction not the range's", p);
	if (p->addr + p->size != r->u.range.end)
		fail_at("ranges: the range does not end after its last "
			"instruction", r);
}

/* @rng, decoded with ETM4_FLOW_RANGES (stats: @rng_insns), against the
 * reference @ref (stats: @ref_insns). */
static void check_ranges(const struct ts_elems *ref, uint64_t ref_insns,
			 const struct ts_elems *rng, uint64_t rng_insns)
{
	uint64_t in_ref = 0, in_rng = 0;
	size_t i = 0;

	for (size_t j = 0; j < rng->n; j++) {
		const struct etmkit_elem *r = &rng->e[j], *nx = r + 1;

		if (r->kind == etmkit_elem_insn)
			fail_at("ranges: an insn element", r);
		if (r->kind != etmkit_elem_insn_range) {
			if (i == ref->n || !elem4_same(&ref->e[i], r))
				fail_at("ranges: not the reference's "
					"element", r);
			i++;
			continue;
		}
		if (i == ref->n)
			fail_at("ranges: more instructions than the "
				"reference's", r);
		check_range(r, &ref->e[i], ref->n - i);
		i += r->u.range.count;
		in_rng += r->u.range.count;
		if (r->flags == ETMKIT_INSN_EXEC && j + 1 < rng->n &&
		    nx->kind == etmkit_elem_insn_range &&
		    nx->offset == r->offset && nx->isa == r->isa &&
		    nx->addr == r->u.range.end && !lax("rangesplit"))
			fail_at("ranges: a range continued by the next one "
				"(they should be one)", r);
	}
	if (i != ref->n)
		fail("ranges: fewer elements than the reference's");
	for (i = 0; i < ref->n; i++)
		in_ref += ref->e[i].kind == etmkit_elem_insn;
	if (ref_insns != in_ref || rng_insns != in_rng ||
	    ref_insns != rng_insns)
		fail("ranges: stats insns differ from each other or from "
		     "the instructions delivered");
}

/* Ranges compared by what they say (not their offset). */
static int range_cmp(const void *a, const void *b)
{
	const struct etmkit_elem *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->u.range.end != y->u.range.end)
		return x->u.range.end < y->u.range.end ? -1 : 1;
	if (x->flags != y->flags || x->isa != y->isa)
		return (x->flags << 8 | x->isa) < (y->flags << 8 | y->isa) ?
		       -1 : 1;
	if (x->u.range.count != y->u.range.count)
		return x->u.range.count < y->u.range.count ? -1 : 1;
	if (x->size != y->size || x->u.range.opcode != y->u.range.opcode)
		return x->size < y->size ||
		       (x->size == y->size &&
			x->u.range.opcode < y->u.range.opcode) ? -1 : 1;
	return 0;
}

/* The ranges of @l from *@i to the next element of another kind, one per
 * run, sorted, in @out (grown as needed); *@i moves there. */
static size_t runs_of(const struct ts_elems *l, size_t *i, struct ts_elems *out)
{
	out->n = 0;
	for (; *i < l->n && l->e[*i].kind == etmkit_elem_insn_range; (*i)++)
		for (uint64_t r = 0; r <= l->e[*i].u.range.repeats; r++) {
			struct etmkit_elem c = l->e[*i];

			if (r && !(c.flags & ETMKIT_INSN_P0))
				fail_at("tally: a range repeats without P0",
					&l->e[*i]);
			c.offset = 0;
			c.u.range.repeats = 0;
			put(out, &c);
		}
	if (out->n)
		qsort(out->e, out->n, sizeof(out->e[0]), range_cmp);
	return out->n;
}

/* @tly, decoded with ETM4_FLOW_RANGES | ETM4_FLOW_TALLY (stats:
 * @tly_insns), against the ranges decode @rng (@rng_insns). */
static void check_tally(const struct ts_elems *rng, uint64_t rng_insns,
			const struct ts_elems *tly, uint64_t tly_insns)
{
	struct ts_elems a = { 0 }, b = { 0 };
	size_t i = 0, j = 0;

	for (;;) {
		size_t na = runs_of(rng, &i, &a), nb = runs_of(tly, &j, &b);

		if (na != nb)
			fail("tally: another number of ranges between two "
			     "other elements");
		for (size_t k = 0; k < na; k++)
			if (range_cmp(&a.e[k], &b.e[k]))
				fail_at("tally: another range", &b.e[k]);
		if (i == rng->n || j == tly->n) {
			if (i != rng->n || j != tly->n)
				fail("tally: another number of elements");
			break;
		}
		if (!elem4_same(&rng->e[i], &tly->e[j]))
			fail_at("tally: not the ranges decode's element",
				&tly->e[j]);
		i++;
		j++;
	}
	if (rng_insns != tly_insns)
		fail("tally: stats insns differ from the ranges decode's");
	free(a.e);
	free(b.e);
}

/* @trc, decoded with ETM4_FLOW_RANGES | ETM4_FLOW_TRACES (stats:
 * @trc_insns), against the ranges decode @rng (@rng_insns). */
static void check_traces(const struct ts_elems *rng, uint64_t rng_insns,
			 const struct ts_elems *trc, uint64_t trc_insns)
{
	struct btraces a = { 0 }, b = { 0 };
	size_t i = 0, j = 0;

	for (;;) {
		if (btraces_segment(rng->e, rng->n, &i, &a) ||
		    btraces_segment(trc->e, trc->n, &j, &b))
			fail("traces: a range that repeats");
		if (!btraces_same(&a, &b))
			fail("traces: other taken-branch traces between two "
			     "other elements");
		if (i == rng->n || j == trc->n) {
			if (i != rng->n || j != trc->n)
				fail("traces: another number of elements");
			break;
		}
		if (!elem4_same(&rng->e[i], &trc->e[j]))
			fail_at("traces: not the ranges decode's element",
				&trc->e[j]);
		i++;
		j++;
	}
	if (rng_insns != trc_insns)
		fail("traces: stats insns differ from the ranges decode's");
	free(a.v);
	free(b.v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etm4_flow_config cfg;
	struct etm4_flow_decoder *probe;
	struct ts_elems ref = { 0 }, got = { 0 }, gap = { 0 }, stop = { 0 };
	struct ts_elems rng = { 0 }, tly = { 0 }, trc = { 0 };
	uint64_t ref_insns, rng_insns, tly_insns, trc_insns;
	struct pkt_view pv;
	struct image_bytes ib;
	struct image *img = NULL;
	size_t chunk, max, n;
	const uint8_t *t;
	int err;

	if (size < HDR)
		return 0;
	t = data + HDR;
	n = size - HDR;
	chunk = (size_t)data[3] + 1;
	max = (size_t)(data[4] % 64) + 1;
	memset(&pv, 0, sizeof(pv));
	image_init(&ib);
	if (image_alloc(&img) ||
	    image_add_buffer(img, ib.a64, sizeof(ib.a64), A64_BASE, 0) ||
	    image_add_buffer(img, ib.t32, sizeof(ib.t32), T32_BASE, 0))
		abort();

	config(data, &cfg, img, 0);
	/* Register combinations the decoder refuses are not inputs. */
	err = etm4_flow_alloc(&probe, &cfg);
	if (err) {
		if (err != -etmkit_err_bad_config &&
		    err != -etmkit_err_unsupported)
			fail("etm4_flow_alloc: unexpected error");
		image_free(img);
		return 0;
	}
	etm4_flow_free(probe);

	etm4_reference(&cfg, t, n, &ref, &ref_insns);
	packets(&cfg.etm, t, n, &pv);
	check_elems(&ref, n, &ib, &pv);

	etm4_chunked(&cfg, t, n, chunk, max, (size_t)-1, &got, NULL);
	if (got.n != ref.n)
		fail("chunked decode: another number of elements");
	for (size_t i = 0; i < ref.n; i++)
		if (!elem4_same(&ref.e[i], &got.e[i]))
			fail_at("chunked decode: another element",
				&got.e[i]);

	if (n > 1) {
		etm4_chunked(&cfg, t, n, chunk, max, n / 2, &gap, NULL);
		check_gap(&ref, &gap);
	}

	cfg.flags = ETM4_FLOW_RANGES;
	if (data[2] & 8)
		etm4_chunked(&cfg, t, n, chunk, max, (size_t)-1, &rng, &rng_insns);
	else
		etm4_reference(&cfg, t, n, &rng, &rng_insns);
	check_ranges(&ref, ref_insns, &rng, rng_insns);

	cfg.flags = ETM4_FLOW_RANGES | ETM4_FLOW_TALLY;
	if (data[2] & 16)
		etm4_chunked(&cfg, t, n, chunk, max, (size_t)-1, &tly, &tly_insns);
	else
		etm4_reference(&cfg, t, n, &tly, &tly_insns);
	check_tally(&rng, rng_insns, &tly, tly_insns);

	cfg.flags = ETM4_FLOW_RANGES | ETM4_FLOW_TRACES;
	if (data[2] & 32)
		etm4_chunked(&cfg, t, n, chunk, max, (size_t)-1, &trc, &trc_insns);
	else
		etm4_reference(&cfg, t, n, &trc, &trc_insns);
	check_traces(&rng, rng_insns, &trc, trc_insns);

	config(data, &cfg, img, ETM4_CFG_STOP_ON_ERROR);
	etm4_reference(&cfg, t, n, &stop, NULL);
	check_stop(&ref, &stop);

	free(ref.e);
	free(got.e);
	free(gap.e);
	free(stop.e);
	free(rng.e);
	free(tly.e);
	free(trc.e);
	free(pv.tinfo.v);
	free(pv.addr.v);
	free(pv.src.v);
	free(pv.src_at.v);
	image_free(img);
	return 0;
}
