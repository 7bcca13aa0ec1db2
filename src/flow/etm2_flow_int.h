/* ETMv2 flow decoder, internal: the decoder's state and what its walk
 * (etm2_flow.c) and its packets (etm2_flow_packets.c) share. Layer 3 of
 * the trace model for ETMv2 and ETMv1 (IHI 0014Q chapters 5 and 6; digest
 * spec/etmv2.md; the protocol as etmkit reads it: docs/etmv2.md). The
 * skeleton every protocol shares is flow_driver.h, the block cache
 * block.h. */
#ifndef ETMKIT_FLOW_ETM2_FLOW_INT_H
#define ETMKIT_FLOW_ETM2_FLOW_INT_H

#include <stddef.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/block.h"
#include "flow/flow_driver.h"

#pragma GCC visibility push(hidden)

#define ETM2_BATCH 64
/* Elements decoded before delivery. */
#define ETM2_QUEUE 256
/* Most elements one record can produce: a TFO's overflow, trace_on,
 * context, the implied instruction (or its no_image) and the next
 * instruction; a phantom status's two instructions, each with a gap or a
 * no_image before it. */
#define ETM2_REC_ELEMS 6

/* The names flow_driver.h's walk macros use (as etm3's and ptm's). */
enum etm2_pos {
	POS_NONE = 0, /* next address unknown */
	POS_ADDR,     /* next address known, block not looked up yet */
	POS_BLOCK     /* next instruction is blk->insn[idx] */
};

/* Whose packets the records after a status are (docs/etmv2.md 7). */
enum etm2_group {
	GRP_NONE = 0, /* no packets placed (IE, IN, TFO, ...) */
	GRP_INSN,     /* DE or DN (and the phantoms' D forms, ETMv1 ID, BE,
			 BD): the instruction's */
	GRP_DW        /* DW: no instruction; a branch address is an
			 exception entry */
};

struct etm2_flow_decoder {
	struct etm2_pkt_decoder *pkt;
	struct etm2_config_info info;
	struct flow_cache cache;

	struct etm2_packet batch[ETM2_BATCH];
	const struct etm2_packet *cur; /* the records read: batch, or recs */
	struct flow_drive drv;   /* flow_driver.h */
	/* Tests: records read from here instead of the packet decoder
	 * (etm2_flow_feed_records()). */
	const struct etm2_packet *recs;
	size_t nrecs;

	/* Where execution is (nothing before a TFO, Q§6.5). */
	uint8_t synced;
	uint8_t pos;             /* enum etm2_pos */
	uint8_t isa;             /* POS_ADDR */
	uint8_t space;           /* IMAGE_SPACE_ANY: ETMv2 traces no
				    security state */
	uint8_t waiting;         /* an executed indirect branch awaits its
				    address */
	uint8_t lost_reported;   /* a gap was reported for statuses since */
	uint64_t addr;           /* POS_ADDR */
	struct flow_block *blk;  /* POS_BLOCK */
	uint32_t idx;
	struct flow_block *link_from;
	uint8_t link_slot;
	uint64_t link_gen;
	struct flow_block *ind_from; /* block.h ind[] */
	uint64_t ind_gen;

	/* The group of the last status (enum etm2_group) and its
	 * instruction, if known. */
	uint8_t grp;
	uint8_t grp_known;
	uint8_t grp_exec;
	uint8_t grp_isa;
	uint32_t grp_flags;      /* INSN_F_* */
	uint64_t grp_addr;
	struct flow_block *grp_blk; /* the block it ended, for ind[] */
	uint64_t grp_gen;

	/* Data (docs/etmv2.md 7): the instruction whose transfers packets
	 * with A = 0 continue, the last executed one, and those of the
	 * outstanding load misses by tag. */
	uint8_t data_valid, last_valid;
	uint64_t data_insn, last_insn;
	struct {
		uint64_t insn;
		uint8_t valid;
	} miss[4];

	/* Context ID (ETMCR[15:14]). */
	uint8_t ctx_sent;
	uint32_t context_id;

	/* ETMv1 (docs/etmv2.md 7b, etm1_flow.c): a BE/BD status in synced
	 * trace waits for its branch address, whose reason says whether it
	 * was an instruction (0, 4) or a restart (1 to 3), and whether a BE
	 * to a vector stands for no instruction; a BD's data wait with it.
	 * v1_pend: 0 none, 1 the status, 2 and its data. */
	uint8_t v1_pend;
	struct etm2_packet v1_st, v1_data;

	/* Cycle-accurate: the cycle index of the last instruction's status
	 * (or of the TFO that started tracing). */
	uint8_t prev_valid;
	uint64_t prev_cycle;

	/* Output: q[0..n) decoded, of which the first `delivered` were handed
	 * out by the last batch. */
	size_t n, delivered;
	long open;               /* ETM2_FLOW_RANGES: q[open] is a range the
				    next instruction may extend, or -1 */
	uint8_t ranges;
	uint8_t no_fast;         /* tests: every record through on_record(),
				    no ie_run() (etm2_flow.c) */
	struct etmkit_elem *q;
	struct etmkit_elem q_own[ETM2_QUEUE];

	struct etm2_flow_stats stats;
	uint64_t blocks_base, flushes_base;

	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;
};

static inline struct etmkit_elem *etm2_emit(struct etm2_flow_decoder *d,
					    uint8_t kind, uint64_t offset)
{
	struct etmkit_elem *e = &d->q[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	d->open = -1; /* an element between: the range ends */
	return e;
}

/* Go on from @addr in @isa (a TFO or a branch address gave it). */
static inline void etm2_go_to(struct etm2_flow_decoder *d, uint64_t addr,
			      uint8_t isa)
{
	d->pos = POS_ADDR;
	d->addr = addr;
	d->isa = isa;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	d->waiting = 0;
	d->lost_reported = 0;
}

/* The address of the next instruction, if known. */
static inline int etm2_next_addr(const struct etm2_flow_decoder *d,
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

/* What an instruction status does (etm2_flow_insn()). */
#define ETM2_X_EXEC    0x1u /* executed (else failed its condition) */
#define ETM2_X_PHANTOM 0x2u /* the folded direct branch of a phantom pair */
#define ETM2_X_IMPLIED 0x4u /* an LSiP TFO's load/store multiple */
#define ETM2_X_GROUP   0x8u /* its status placed packets */

/* One instruction at the walk position, delivered at @offset (its status
 * cycle) with @cycles (cycle-accurate), as @how (ETM2_X_*) says; the walk
 * goes on past it. A phantom whose instruction is not a direct branch is
 * no_image (mismatch). Returns 1 when an instruction was delivered, 0
 * when it was lost. The caller made room for 2 elements. */
int etm2_flow_insn(struct etm2_flow_decoder *d, uint64_t offset,
		   uint32_t cycles, unsigned how);

/* Make a POS_ADDR walk position a block (etm2_flow.c). Returns 1, or 0
 * after reporting no_image (one element). */
int etm2_flow_resolve(struct etm2_flow_decoder *d, uint64_t offset);

/* A status record's instruction(s), and whose its group is
 * (docs/etmv2.md 7). */
void etm2_flow_status(struct etm2_flow_decoder *d,
		      const struct etm2_packet *p);

/* Trace (re)starts at @addr in @isa at @offset for @reason (enum
 * etm2_reason): an overflow element for an overflow, trace_on, and
 * everything known forgotten; cycles count from @offset (docs/etmv2.md
 * 6 and 7: a TFO; 7b: an ETMv1 branch address with a reason). Two
 * elements. */
void etm2_flow_restart(struct etm2_flow_decoder *d, uint64_t offset,
		       uint32_t addr, uint8_t isa, uint8_t reason);

/* The ARM exception vector at @addr (docs/etmv2.md 7, ASSUMED: ETMv2
 * traces no exception number): its index, low or high vectors, or
 * 0xFFFF. */
static inline uint16_t etm2_vector_of(uint32_t addr)
{
	uint32_t v = addr >= 0xFFFF0000u ? addr - 0xFFFF0000u : addr;

	return v <= 0x1C && !(v & 3) ? (uint16_t)(v >> 2) : 0xFFFFu;
}

/* An exception entry to branch address @p (ETMKIT_EXC_VECTOR, its vector
 * index); the preferred return address is where the walk stands, and
 * the walk goes on at the address. One element. */
void etm2_flow_exception(struct etm2_flow_decoder *d,
			 const struct etm2_packet *p);

/* A record other than a status; the caller made room for
 * ETM2_REC_ELEMS elements. */
void etm2_flow_tfo(struct etm2_flow_decoder *d, const struct etm2_packet *p);
void etm2_flow_branch(struct etm2_flow_decoder *d,
		      const struct etm2_packet *p);
void etm2_flow_data(struct etm2_flow_decoder *d, const struct etm2_packet *p);
void etm2_flow_context(struct etm2_flow_decoder *d, uint32_t cid,
		       uint64_t offset);

/* Forget the trace state: nothing is placed before the next TFO. */
void etm2_flow_forget(struct etm2_flow_decoder *d);

/* ETMv1 (etm1_flow.c, docs/etmv2.md 7b). A BE/BD status in synced trace
 * (held until its branch address). */
void etm1_flow_hold(struct etm2_flow_decoder *d, const struct etm2_packet *p);
/* A record while a status is held: returns 1 when it was the held
 * status's (its data, or its branch address: handled), else 0 after
 * delivering the held status as an instruction (and its data). The
 * caller made room for ETM1_HELD_ELEMS more elements than the record
 * needs. */
int etm1_flow_held(struct etm2_flow_decoder *d, const struct etm2_packet *p);
/* A branch address with nothing held: the start (`first`), a restart
 * (reason 1 to 3), or as ETMv2's. */
void etm1_flow_branch(struct etm2_flow_decoder *d,
		      const struct etm2_packet *p);
/* A context ID record (after a 5-byte address with a reason): an element
 * when it differs from the last one. */
void etm1_flow_context(struct etm2_flow_decoder *d,
		       const struct etm2_packet *p);
/* The held status, as an instruction (and its data): before a gap or at
 * the end of the input. */
void etm1_flow_release(struct etm2_flow_decoder *d);
/* Elements releasing a held status may take: a no_image or a gap, the
 * instruction, its data. */
#define ETM1_HELD_ELEMS 3
/* Room the queue keeps for the next record (and a held status). */
#define ETM2_ROOM (ETM2_REC_ELEMS + ETM1_HELD_ELEMS)

/* The cycles of an instruction whose status is at cycle @cycle
 * (docs/etmv2.md 7), and that cycle as the previous from now on. */
static inline uint32_t etm2_cycles_at(struct etm2_flow_decoder *d,
				      uint64_t cycle)
{
	uint64_t c = d->prev_valid && cycle > d->prev_cycle ?
			     cycle - d->prev_cycle : 0;

	d->prev_valid = 1;
	d->prev_cycle = cycle;
	return flow_cycles_cap(c);
}

/* Tests: read @n records at @recs (they must stay valid until the
 * batches have taken them) instead of the packet decoder's; with @n 0
 * and @recs NULL, the packet decoder's again. As etm2_flow_feed():
 * returns 0 or -etmkit_err_invalid (input left undrained). */
int etm2_flow_feed_records(struct etm2_flow_decoder *d,
			   const struct etm2_packet *recs, size_t n);

#pragma GCC visibility pop

#endif /* ETMKIT_FLOW_ETM2_FLOW_INT_H */
