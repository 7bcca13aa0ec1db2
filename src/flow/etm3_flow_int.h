/* ETMv3 flow decoder, internal: the decoder's state and what its walk of
 * P-header atoms (etm3_flow.c) and its other packets (etm3_flow_packets.c)
 * share: the output queue, the context, the position, instruction
 * elements. Layer 3 of the trace model (seed 002 D4.3.1) for ETMv3 (IHI
 * 0014Q); the skeleton every protocol shares is flow_driver.h. */
#ifndef ETMKIT_FLOW_ETM3_FLOW_INT_H
#define ETMKIT_FLOW_ETM3_FLOW_INT_H

#include <stddef.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/block.h"
#include "flow/flow_driver.h"

#define FLOW_BATCH 64
/* The hot loop's pieces must inline for its state to stay in registers. */
#if defined(__GNUC__)
#define FLOW_INLINE inline __attribute__((always_inline))
#define FLOW_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define FLOW_INLINE inline
#define FLOW_LIKELY(x) (x)
#endif
/* Decoded elements waiting to be delivered. An instruction that may still
 * be canceled is kept back with what follows it until a packet settles it,
 * or until this many elements wait behind it (then it is let go: the
 * exception's cancel flag is then the only record). */
#define FLOW_QUEUE 256
/* W atoms since the last instruction saturate here (elem.h: cycles at or
 * above it mean at least that many): headroom for the W atoms of one
 * P-header on top. */
#define FLOW_W_CAP FLOW_CYCLE_CAP
/* The ranges walk's fast loop (rng_fast_body()) takes at most
 * FLOW_RF_HEADERS headers a call, starting from at most FLOW_W_RF_MAX W
 * atoms: the W atoms it adds (255 a header at most) then stay below
 * FLOW_W_CAP, and its ranges' cycles need no saturation. */
#define FLOW_RF_HEADERS (1u << 16)
#define FLOW_W_RF_MAX (FLOW_W_CAP - (1u << 25))
/* Most elements one packet other than a P-header run can produce
 * (overflow, trace_on, context, LSiP: no_image or insn, then a context
 * for the security state its current address gives). */
#define FLOW_PKT_ELEMS 5

/* A P-header byte as the instructions it traces (IHI 0014Q 7.3.1): n
 * instructions; item i is the number of W atoms before instruction i,
 * shifted left once, plus 1 if it executed (E; else N, condition failed);
 * trail W atoms after the last. Built once from the packet decoder's atom
 * table, so a W atom costs nothing of its own. */
struct flow_ph {
	uint8_t item[16];
	uint8_t n;
	uint8_t trail;
	uint8_t pad[14]; /* 32 bytes: the table is indexed by shifting */
};

/* The same for the ranges walk (ETM3_FLOW_RANGES), which takes a header's
 * runs of E atoms a block at a time: nmask, bit i set when instruction i
 * failed its condition (N), and bit n set (the end); cw[i], the W atoms
 * before instructions 0..i-1; one, set when the header's instructions
 * make one range wherever they lie inside a block (no N before the last),
 * whose last executed if xlast. */
struct flow_rph {
	uint8_t item[16];
	uint8_t n;
	uint8_t trail;
	uint8_t one;
	uint8_t xlast;
	uint32_t nmask;
	uint8_t cw[17];
	uint8_t pad[23]; /* 64 bytes */
};

/* The ranges walk's common headers (rng_fast_body()) packed in one word,
 * so that a header costs one load: trail (bits 0-7), the W atoms before
 * its instructions (cw[n], bits 8-15), !xlast, one, and n from bit 24. A
 * header of W atoms only (IHI 0014Q 7.3.1: format 3 with no E, or
 * format 0's 0x80) is its trail alone: below 1 << FLOW_RF_CW. */
#define FLOW_RF_CW    8
#define FLOW_RF_NLAST (1u << 16) /* the last failed its condition */
#define FLOW_RF_ONE   (1u << 17)
#define FLOW_RF_N     24

/* The same headers for rng_fast_body()'s cycle-accurate loop, where a
 * header is W atoms only (IHI 0014Q Table 7.2, format 3 with no E, or
 * format 0's 0x80) or one range of instructions: four words a header
 * byte, each used as it is, so that a header costs no unpacking. head
 * and trail are images of bytes 16..24 of an element (kind, isa, size,
 * flags, then cycles), added to the range's last instruction's head
 * bytes byte field by byte field (no field carries into the next).
 * Arrays, not a struct a byte: a header byte indexes each directly. */
struct flow_rca {
	uint64_t span[256];  /* bytes of insn[] the instructions take: n
				times sizeof(struct flow_insn); 0 for W atoms
				only; FLOW_RCA_NOT_ONE when they are not
				one range (an N before the last), so that
				they never fit a block */
	uint64_t head[256];  /* etmkit_elem_insn_range - etmkit_elem_insn
				(kind), 1 in flags if the last failed its
				condition (ETMKIT_INSN_COND_FAIL), cycles
				the W atoms before the instructions (cw[n]) */
	uint64_t trail[256]; /* cycles: the W atoms after them */
	uint64_t count[256]; /* n: u.range.count, and repeats 0 */
};
#define FLOW_RCA_NOT_ONE ((uint64_t)1 << 40)

enum flow_pos {
	POS_NONE = 0, /* next address unknown */
	POS_ADDR,     /* next address known, block not looked up yet */
	POS_BLOCK     /* next instruction is blk->insn[idx] */
};

struct etm3_flow_decoder {
	struct etm3_pkt_decoder *pkt;
	struct etm3_config_info info;
	struct flow_ph ph[256];
	struct flow_rph rph[256];
	uint32_t rfast[256];     /* FLOW_RF_*: rph[] packed */
	struct flow_rca rca;     /* rph[] for cycle-accurate trace */
	struct flow_cache cache;

	/* Packets read, and where the P-header run at batch[drv.ibatch]
	 * is. */
	struct etm3_packet batch[FLOW_BATCH];
	struct flow_drive drv;   /* flow_driver.h */
	uint32_t run_h, run_a;

	/* Where execution is (IHI 0014Q 7.10.5: nothing before an I-sync). */
	uint8_t synced;          /* an I-sync seen since (re)sync */
	uint8_t pos;             /* enum flow_pos */
	uint8_t isa;             /* POS_ADDR */
	uint8_t space;           /* IMAGE_SPACE_* of the current state */
	uint8_t waiting;         /* a taken indirect branch awaits its address */
	uint8_t lost_reported;   /* a gap was reported for atoms since */
	uint64_t addr;           /* POS_ADDR */
	struct flow_block *blk;  /* POS_BLOCK */
	uint32_t idx;
	/* POS_ADDR reached from blk->succ[slot]: link it when built. */
	struct flow_block *link_from;
	uint8_t link_slot;
	uint64_t link_gen;
	/* The block whose taken indirect branch waits for its address,
	 * at cache generation ind_gen: resolve() looks at its target
	 * guesses first (block.h, flow_ind_guess()), or NULL. */
	struct flow_block *ind_from;
	uint64_t ind_gen;
	uint32_t w;              /* W atoms since the last instruction */
	uint32_t gap_w;          /* w when trace last restarted: part of the
				    gap a cycle count packet then reports */

	/* Context (7.3.6, 7.3.7, 7.10.5). */
	uint8_t ctx_sent;
	uint8_t ns, hyp;
	uint32_t context_id, vmid;
	uint8_t vmid_seen;

	/* For exceptions and data. */
	uint64_t last_addr;      /* the last instruction traced */
	uint8_t last_valid;
	uint64_t data_insn;      /* the last data instruction executed */
	uint8_t data_insn_valid;
	struct {
		uint64_t insn;
		uint8_t valid;
	} ooo[4];                /* out-of-order tag -> its instruction */

	/* Output: q[0..n) decoded, of which the first `delivered` were handed
	 * out by the last etm3_flow_batch(). q is q_own unless
	 * etm3_flow_queue_at() put it elsewhere (FLOW_QUEUE elements). */
	size_t n, delivered;
	long hold;               /* q[hold] may still be canceled, or -1 */
	long open;               /* ETM3_FLOW_RANGES: q[open] is a range the
				    next instruction may extend, or -1 */
	uint8_t ranges;          /* ETM3_FLOW_RANGES */
	struct etmkit_elem *q;
	struct etmkit_elem q_own[FLOW_QUEUE];

	struct etm3_flow_stats stats;
	uint64_t blocks_base, flushes_base; /* the cache's counts at reset */

	etmkit_image_for_context_fn image_for_context; /* flow.h */
	void *image_ctx;
};

/* ---- Output ------------------------------------------------------------- */

static inline struct etmkit_elem *emit(struct etm3_flow_decoder *d,
				       uint8_t kind, uint64_t offset)
{
	struct etmkit_elem *e = &d->q[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	d->open = -1; /* an element between: the range ends */
	return e;
}

static inline size_t room(const struct etm3_flow_decoder *d)
{
	return FLOW_QUEUE - d->n;
}

/* What follows shows the held element completed. */
static inline void release(struct etm3_flow_decoder *d)
{
	d->hold = -1;
}

/* Read from @img from now on (flow.h, image_for_context): a new image
 * empties the block cache, so a walk inside a block goes on from its
 * address, looked up afresh in @img. */
static inline void switch_image(struct etm3_flow_decoder *d,
				const struct image *img)
{
	FLOW_SWITCH_IMAGE(d, img, (void)0, (void)0);
}

static inline void emit_context(struct etm3_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e = emit(d, etmkit_elem_context, offset);

	e->u.context.ns = d->ns;
	e->u.context.hyp = d->hyp;
	flow_context_ids(e, d->info.context_id_bytes != 0, d->context_id,
			 d->vmid_seen, d->vmid);
	d->ctx_sent = 1;
	if (d->image_for_context)
		switch_image(d, d->image_for_context(d->image_ctx, e));
}

/* Set the context; report it if it changed (or was never reported since
 * trace began). */
static inline void set_context(struct etm3_flow_decoder *d, uint64_t offset,
			uint8_t ns, uint8_t hyp, uint32_t cid)
{
	int changed = !d->ctx_sent || ns != d->ns || hyp != d->hyp ||
		      (d->info.context_id_bytes && cid != d->context_id);

	d->ns = ns;
	d->hyp = hyp;
	if (d->info.context_id_bytes)
		d->context_id = cid;
	d->space = flow_v7_space(ns, hyp);
	if (changed && d->synced)
		emit_context(d, offset);
}

/* ---- Position ----------------------------------------------------------- */

static inline void go_to(struct etm3_flow_decoder *d, uint64_t addr,
			 uint8_t isa)
{
	d->pos = POS_ADDR;
	d->addr = addr;
	d->isa = isa;
	d->blk = NULL;
	d->link_from = NULL;
	d->waiting = 0;
	d->lost_reported = 0;
	d->open = -1;
}

/* The address of the next instruction, if known. */
static inline int next_addr(const struct etm3_flow_decoder *d, uint64_t *addr)
{
	if (d->pos == POS_BLOCK) {
		*addr = d->blk->insn[d->idx].addr;
		return 1;
	}
	if (d->pos == POS_ADDR) {
		*addr = d->addr;
		return 1;
	}
	return 0;
}

/* Whether a branch address packet only moves the walk (IHI 0014Q 7.3.5:
 * no exception information, no cancel; complete, after an I-sync). The
 * common packet between P-header runs: the ranges walk takes it inline
 * (etm3_flow.c rng_chain(), rng_ind_next()), on_branch() first. */
static inline int branch_moves_only(const struct etm3_flow_decoder *d,
				    const struct etm3_branch *b)
{
	return d->synced && !b->partial && !b->cancel && !b->exc_bytes &&
	       !b->exc_in_addr && !b->exception;
}

/* Such a packet: go there and return 1, else 0 (on_branch() does the
 * rest). */
/* The move of branch @b, which branch_moves_only() passed. */
static inline void branch_go(struct etm3_flow_decoder *d,
			     const struct etm3_branch *b)
{
	release(d);
	go_to(d, b->addr, b->isa);
}

static inline int branch_go_only(struct etm3_flow_decoder *d,
				 const struct etm3_branch *b)
{
	if (!branch_moves_only(d, b))
		return 0;
	branch_go(d, b);
	return 1;
}

/* Make POS_ADDR a block. Returns 1, or 0 after reporting no_image (one
 * element: the caller made room). */
int etm3_flow_resolve(struct etm3_flow_decoder *d, uint64_t offset);

/* Forget the trace state: nothing is placed before the next I-sync. */
void etm3_flow_forget(struct etm3_flow_decoder *d);
/* The output queue from now on: FLOW_QUEUE elements at @to (NULL: the
 * decoder's own), what the last batch delivered dropped and the rest
 * moved there. The parallel decode's (par_piece.c): the decoder writes
 * into the piece's elements. */
void etm3_flow_queue_at(struct etm3_flow_decoder *d, struct etmkit_elem *to);

/* A packet other than a P-header (etm3_flow_packets.c); the caller made
 * room for FLOW_PKT_ELEMS elements. */
void etm3_flow_packet(struct etm3_flow_decoder *d,
		      const struct etm3_packet *p);

/* Instructions whose execution data packets belong to (7.4.2). */
#define FLOW_DATA_INSN (INSN_F_LOAD | INSN_F_STORE | INSN_F_CPRT)

/* Fill insn element @e for @fi, traced by an E (@x 1) or N atom of the
 * P-header at @off after @w W atoms: the instruction's template (block.h),
 * then offset and cycles over it. */
static FLOW_INLINE void put_insn(struct etmkit_elem *e,
				 const struct flow_insn *fi, unsigned x,
				 uint64_t off, uint32_t w)
{
	memcpy(&e->addr, fi, 24);
	e->offset = off;
	e->cycles = w;
	e->flags = (uint8_t)(fi->head[3] + (x ^ 1));
}

/* ETM3_FLOW_RANGES: fill @e as a range of @fi alone, as put_insn() fills
 * an insn element (u.range's opcode and class_flags are u.insn's). */
static FLOW_INLINE void put_range(struct etmkit_elem *e,
				  const struct flow_insn *fi, unsigned x,
				  uint64_t off, uint32_t w)
{
	put_insn(e, fi, x, off, w);
	e->kind = etmkit_elem_insn_range;
	e->u.range.end = fi->addr + fi->head[2];
	e->u.range.count = 1;
	e->u.range.repeats = 0;
}

/* ETM3_FLOW_RANGES: instruction @fi, the next after open range @e, joins
 * it: the range takes its flags, size and opcode, and adds its cycles
 * (saturated: elem.h, cycles at or above FLOW_W_CAP mean at least). */
static FLOW_INLINE void extend_range(struct etmkit_elem *e,
				     const struct flow_insn *fi, unsigned x,
				     uint32_t w)
{
	uint64_t c = (uint64_t)e->cycles + w;

	e->flags = (uint8_t)(fi->head[3] + (x ^ 1));
	e->size = fi->head[2];
	e->cycles = c > FLOW_W_CAP ? FLOW_W_CAP : (uint32_t)c;
	e->u.range.opcode = fi->opcode;
	e->u.range.class_flags = fi->flags;
	e->u.range.end = fi->addr + fi->head[2];
	e->u.range.count++;
}

/* Whether the instruction after @fi, executed if @x, may join its range:
 * it is the next in memory (no taken branch or instruction set change)
 * and @fi passed its condition (flow.h: an N atom ends a range). */
static FLOW_INLINE int range_goes_on(const struct flow_insn *fi, unsigned x)
{
	return x && !(fi->flags & (INSN_F_BRANCH | INSN_F_ISA_SWITCH));
}

#endif /* ETMKIT_FLOW_ETM3_FLOW_INT_H */
