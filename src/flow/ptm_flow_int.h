/* PTM flow decoder, internal: the decoder's state and what its walk from
 * waypoint to waypoint (ptm_flow.c) and its other packets
 * (ptm_flow_packets.c) share. Layer 3 of the trace model (seed 002
 * D4.3.1) for PFTv1.0 and PFTv1.1 (IHI 0035B; digest ptm.md); the
 * skeleton every protocol shares is flow_driver.h, the block cache
 * block.h. */
#ifndef ETMKIT_FLOW_PTM_FLOW_INT_H
#define ETMKIT_FLOW_PTM_FLOW_INT_H

#include <stddef.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/block.h"
#include "flow/flow_driver.h"

#pragma GCC visibility push(hidden)

#define PTM_BATCH 64
/* Elements decoded before delivery. */
#define PTM_QUEUE 256
/* Most elements one packet other than an atom's or address's walk can
 * produce: overflow, trace_on, context (I-sync); exception, context
 * (exception branch); cycle_count, timestamp. */
#define PTM_PKT_ELEMS 4
/* Return stack entries of the decoder's model (IHI 0035B "Use of a
 * return stack"; digest ptm.md 4.4: the depth is UNCONFIRMED, and a
 * model deeper than the trace unit's stack is harmless: the trace unit
 * traces the address of every return its own stack cannot give). */
#define PTM_RS 16

/* Cycle counts are 32 bits (IHI 0035B 4.4); an element's saturate at
 * FLOW_CYCLE_CAP (flow_driver.h). */
static inline uint32_t ptm_cycles(uint32_t count)
{
	return flow_cycles_cap(count);
}

/* The names flow_driver.h's walk macros use (as etm3's and etm4's). */
enum ptm_pos {
	POS_NONE = 0, /* next address unknown */
	POS_ADDR,     /* next address known, block not looked up yet */
	POS_BLOCK     /* next instruction is blk->insn[idx] */
};

/* What a walk goes to (ptm_flow_walk()). */
enum ptm_step {
	PTM_STEP_ATOM,   /* an atom packet's atom: to the next waypoint */
	PTM_STEP_BRANCH, /* a branch address packet's implied E atom: to the
			    next waypoint, whose target the packet gives */
	PTM_STEP_WPUP    /* a waypoint update: up to and including the
			    instruction at an address (IHI 0035B 4.5) */
};

struct ptm_flow_decoder {
	struct ptm_pkt_decoder *pkt;
	struct ptm_config_info info;
	struct flow_cache cache;
	uint32_t wp_flags;       /* INSN_F_* of waypoints */

	/* Packets read; the packet at batch[drv.ibatch] is under way: its
	 * atom atom_i next, its walk begun if stepping. */
	struct ptm_packet batch[PTM_BATCH];
	struct flow_drive drv;   /* flow_driver.h */
	uint8_t atom_i;
	uint8_t stepping;        /* the packet's walk is under way (its
				    first part delivered) */

	/* Where execution is (IHI 0035B 4.3: nothing before an I-sync). */
	uint8_t synced;          /* an I-sync seen since (re)sync */
	uint8_t pos;             /* enum ptm_pos */
	uint8_t isa;             /* POS_ADDR */
	uint8_t space;           /* IMAGE_SPACE_* of the current state */
	uint8_t waiting;         /* a taken indirect branch awaits its
				    address */
	uint8_t lost_reported;   /* a gap was reported for atoms since */
	uint64_t addr;           /* POS_ADDR */
	struct flow_block *blk;  /* POS_BLOCK */
	uint32_t idx;
	/* POS_ADDR reached from blk->succ[slot]: link it when built. */
	struct flow_block *link_from;
	uint8_t link_slot;
	uint64_t link_gen;
	/* The block whose taken indirect branch went to the address being
	 * looked up, at cache generation ind_gen (block.h ind[]), or NULL. */
	struct flow_block *ind_from;
	uint64_t ind_gen;

	/* The return stack (ETMCR[29]): rs[rs_top] the latest of rs_n.
	 * Each return address is where its call's block falls through: that
	 * block's successor blk (or, not known yet, the call's block from,
	 * whose successor the lookup fills in), both of cache generation
	 * gen. */
	struct {
		uint64_t addr;
		struct flow_block *blk, *from;
		uint64_t gen;
		uint8_t isa;
	} rs[PTM_RS];
	uint8_t rs_top, rs_n;

	/* Context (IHI 0035B 4.5.2, 4.5.7, VMID). */
	uint8_t ctx_sent;
	uint8_t ns, hyp;
	uint8_t vmid_seen;
	uint32_t context_id, vmid;

	/* Output: q[0..n) decoded, of which the first `delivered` were handed
	 * out by the last ptm_flow_batch(). q is q_own unless
	 * ptm_flow_queue_at() put it elsewhere (PTM_QUEUE elements). */
	size_t n, delivered;
	long open;               /* PTM_FLOW_RANGES: q[open] is a range the
				    walk goes on extending, or -1 */
	uint8_t ranges;          /* PTM_FLOW_RANGES */
	uint8_t one_pass;        /* ranges: atoms, short branch addresses and
				    I-syncs read from the packet decoder's
				    input (ptm_flow.c view_run()); tests
				    clear it to compare with the records'
				    path */
	struct etmkit_elem *q;
	struct etmkit_elem q_own[PTM_QUEUE];

	struct ptm_flow_stats stats;
	uint64_t blocks_base, flushes_base; /* the cache's counts at reset */

	etmkit_image_for_context_fn image_for_context; /* flow.h */
	void *image_ctx;
};

static inline struct etmkit_elem *ptm_emit(struct ptm_flow_decoder *d,
					   uint8_t kind, uint64_t offset)
{
	struct etmkit_elem *e = &d->q[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	d->open = -1; /* an element between: the range ends */
	return e;
}

static inline size_t ptm_room(const struct ptm_flow_decoder *d)
{
	return PTM_QUEUE - d->n;
}

/* Go on from @addr in @isa (an address packet or I-sync gave it). */
static inline void ptm_go_to(struct ptm_flow_decoder *d, uint64_t addr,
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
static inline int ptm_next_addr(const struct ptm_flow_decoder *d,
				uint64_t *addr)
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

/* Walk the image for packet @p, a step of kind @step (the atom @taken,
 * its cycle count @cycles if @has_cc; a waypoint update's address
 * p->u.branch.addr). Returns 1 when done, 0 when the queue has no room
 * for the next part (the position kept: call again with the same
 * arguments after delivery). */
int ptm_flow_walk(struct ptm_flow_decoder *d, const struct ptm_packet *p,
		  enum ptm_step step, unsigned taken, uint32_t cycles,
		  int has_cc);

/* An atom packet's atoms from atom_i on (the rest after a return of 0):
 * returns 1 when done, 0 when the queue has no room for the next. */
int ptm_flow_atoms(struct ptm_flow_decoder *d, const struct ptm_packet *p);

/* Forget the trace state: nothing is placed before the next I-sync. */
void ptm_flow_forget(struct ptm_flow_decoder *d);

/* The return stack starts empty (I-sync, loss of sync). */
static inline void ptm_rs_flush(struct ptm_flow_decoder *d)
{
	d->rs_n = 0;
	d->rs_top = 0;
}

/* The output queue from now on: PTM_QUEUE elements at @to (NULL: the
 * decoder's own), what the last batch delivered dropped and the rest
 * moved there, as etm3_flow_queue_at(). The parallel decode's
 * (par_piece.c): the decoder writes into the piece's elements. */
void ptm_flow_queue_at(struct ptm_flow_decoder *d, struct etmkit_elem *to);

/* An I-sync packet: trace (re)starts, or goes on, at its address. The
 * caller made room for PTM_PKT_ELEMS elements. */
void ptm_flow_isync(struct ptm_flow_decoder *d, const struct ptm_packet *p);

/* A packet; returns 1 when done with it, 0 when the queue has no room
 * for the rest (call again with it after delivery). The caller made room
 * for PTM_PKT_ELEMS elements. */
int ptm_flow_packet(struct ptm_flow_decoder *d, const struct ptm_packet *p);

#pragma GCC visibility pop

#endif /* ETMKIT_FLOW_PTM_FLOW_INT_H */
