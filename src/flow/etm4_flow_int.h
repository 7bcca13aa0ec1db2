/* ETMv4 / ETE flow decoder, internal: the decoder's state and what its
 * set-up and output (etm4_flow.c), its resolution of packets to queue
 * entries (etm4_resolve.c, layer 2 of seed 002 D4.3.1) and its walk
 * through the image (etm4_walk.c, etm4_walk_entry.c, etm4_walk_int.h,
 * layer 3) share: the queues, the output. The skeleton every protocol
 * shares is flow_driver.h. */
#ifndef ETMKIT_FLOW_ETM4_FLOW_INT_H
#define ETMKIT_FLOW_ETM4_FLOW_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/block.h"
#include "flow/flow_driver.h"

/* What this decoder's files share stays inside the library: hidden, so
 * that where a function is defined the compiler may still inline it (the
 * library is position-independent code). */
#pragma GCC visibility push(hidden)

#define F4_BATCH 64
#define F4_OUT 256           /* elements decoded before delivery: 12 KiB,
				which the consumer reads while they are
				still in the L1 data cache */
#define F4_SPEC 4096         /* speculation queue entries (power of 2) */
#define F4_DONE (F4_SPEC + 8)/* walk queue entries */
#define F4_RS 16             /* return stack entries (as OpenCSD) */
#define F4_ROOM 8            /* output room one queue entry may need */
#define F4_TALLY 256         /* ETM4_FLOW_TALLY: ranges counted at once
				(power of 2); 2 elements each kept free */
#define F4_OUT_ROOM (F4_OUT + 2 * F4_TALLY) /* the output queue's size */

#if defined(__GNUC__)
#define F4_LIKELY(x) __builtin_expect(!!(x), 1)
#define F4_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define F4_LIKELY(x) (x)
#define F4_UNLIKELY(x) (x)
#endif

/* Queue entry kinds. P0 kinds first, then the ones Cancel removes, then
 * the ones it never removes. */
enum ent_kind {
	K_DEAD = 0,   /* removed in place */
	K_ATOM,       /* b: atom bits, oldest first (1 = E); n: count */
	K_UNSEEN,     /* b: P0 elements traced before Trace Info (D4.3.4) */
	K_EXC,        /* a: return address; c: type; x: interp | IS << 2 |
			 has address << 3 */
	K_Q,          /* a: target; b: count; x: has count | has target << 1 |
			 IS << 2 */
	K_SRC,        /* a: source address; x: IS */
	K_TSTART_P0,  /* Transaction Start counted as P0 */
	K_ADDR,       /* a: address; x: IS */
	K_CTX,        /* b: context ID; c: VMID; x: see ctx_* below */
	K_TRACE_ON,
	K_TINFO,
	K_EXC_RET,
	K_TSTART,     /* Transaction Start, not P0 */
	K_TCOMMIT,
	K_TFAIL,      /* a: where execution resumes; x: has address */
	K_TS,         /* a: value; x: has cc; b: cc */
	K_CC,         /* b: count; x: unknown */
	K_EVENT,      /* x: bits */
	K_ITE,        /* a: value; x: EL */
	K_MARKER,
	K_GAP,        /* walk queue only: a: why (static string); x: loss */
	K_OVERFLOW,   /* walk queue only */
	K_DISCARD     /* walk queue only: the position becomes unknown */
};
#define IS_P0(k) ((k) >= K_ATOM && (k) <= K_TSTART_P0)
#define IS_KEPT(k) ((k) >= K_TS && (k) <= K_MARKER)

/* K_CTX x bits */
#define CTX_EL_MASK 0x03u
#define CTX_SF      0x04u
#define CTX_NS      0x08u
#define CTX_NSE     0x10u
#define CTX_CID     0x20u
#define CTX_VMID    0x40u

struct ent {
	uint64_t offset;
	uint64_t a;
	uint32_t b, c;
	uint8_t kind, n, x, y;
};

enum f4_pos {
	POS_NONE = 0, /* next address unknown */
	POS_ADDR,     /* next address known, block not looked up yet */
	POS_BLOCK     /* next instruction is blk->insn[idx] */
};

/* ETM4_FLOW_TALLY: a whole-block range counted, not yet delivered. Its
 * element's fields are copied from the block when it is first counted:
 * the block may be gone (cache flushed) by the time it is delivered. */
struct f4_tally {
	const struct flow_block *blk; /* the block counted, while */
	uint64_t gen;             /* the cache's generation is this */
	uint64_t start, end, offset;
	uint32_t opcode, cls, count;
	uint8_t isa, size;
	uint32_t runs[2];         /* [1] taken (EXEC), [0] not (COND_FAIL);
				     ETM4_FLOW_TRACES: [1] the runs */
	uint64_t target;          /* ETM4_FLOW_TRACES: the branch's */
};

/* ETM4_FLOW_TRACES: the trace being walked in whole blocks, not counted
 * yet: F4_TR_OPEN, its blocks' atoms so far not taken (or no branch);
 * F4_TR_PEND, ended by a taken branch whose target is where the next
 * block starts (a direct branch's too: a Target Address packet may say
 * otherwise, where the image is not what ran). Copied from the blocks,
 * which a cache flush may free. */
enum { F4_TR_NONE = 0, F4_TR_OPEN, F4_TR_PEND };
struct f4_trace {
	uint8_t state;
	uint8_t isa, size, taken; /* taken: the last block's atom */
	uint32_t count;
	uint32_t opcode, cls;     /* the last instruction's, laid out as */
	uint64_t end;             /* in struct flow_range (one copy) */
	uint64_t start, offset;
};

struct etm4_flow_decoder {
	struct etm4_pkt_decoder *pkt;
	struct etm4_config_info info;
	struct flow_cache cache;
	uint32_t p0_flags;        /* INSN_F_* of P0 instructions */
	uint8_t ranges;           /* ETM4_FLOW_RANGES */
	uint8_t tally;            /* ETM4_FLOW_TALLY or ETM4_FLOW_TRACES */
	uint8_t traces;           /* ETM4_FLOW_TRACES */
	uint8_t fused;            /* the one pass may take over (etm4_fused()):
				     ranges, not counted, MAXSPEC 0 (digest
				     7.2: every P0 element committed as it
				     comes) */
	struct f4_trace tr;

	struct etm4_packet batch[F4_BATCH];
	struct flow_drive drv;    /* flow_driver.h */
	const struct etm4_atoms *atoms; /* the packet decoder's atom table */
	uint32_t run_h;           /* next byte of the run at batch[ibatch]
				     (0: not begun) */
	uint32_t run_a;           /* and its next address */

	/* Resolution (layer 2). */
	uint8_t synced;           /* a Trace Info since sync */
	uint8_t overflowed;       /* the next trace on follows an overflow */
	uint8_t cc_on;            /* Trace Info INFO bit 0 */
	uint8_t pend;             /* 1: an exception, 2: a Q awaits its
				     address packet */
	struct ent pend_ent;
	uint8_t pend_ctx;         /* a Context came while pend: it applies
				     after the pending element */
	struct ent pend_ctx_ent;
	uint32_t depth;           /* uncommitted P0 elements */
	uint32_t sh, st;          /* spec[sh & mask .. st & mask) */
	struct ent spec[F4_SPEC];
	uint32_t dh, dt;          /* done[dh .. dt) */
	struct ent done[F4_DONE];

	/* Walk (layer 3). */
	uint8_t pos, isa, space;
	int8_t pos_is;            /* POS_ADDR from a traced address: its IS
				     bit (the ISA follows the context), or -1 */
	uint8_t atom_started;     /* the head atom's walk has begun */
	uint32_t budget;          /* etm4_walk_until(): instructions left */
	uint64_t addr;
	struct flow_block *blk;
	uint32_t idx;
	struct flow_block *link_from;
	uint8_t link_slot;
	uint64_t link_gen;
	struct flow_block *ind_from; /* the block whose indirect branch was
				     taken last (its ind guesses the target) */
	uint64_t ind_gen;
	uint8_t pop_pending, rs_no_push;
	uint8_t no_addr;          /* read at POS_NONE only (every site that
				     sets it sets this too): the position
				     is unknown for want of an executed
				     indirect branch's address (after_p0()),
				     and no gap has said so yet: the first
				     atom lost does (etm4_no_address()) */
	uint32_t rs_n;            /* entries on the return stack */
	uint32_t rs_top;
	struct {
		uint64_t addr;
		uint8_t isa;
	} rs[F4_RS];
	/* Context (D4.3.6.3). */
	uint8_t ctx_valid, ctx_sent;
	uint8_t el, sf, ns, nse, has_cid, has_vmid;
	uint32_t cid, vmid;

	/* Output. */
	size_t n, delivered;
	uint8_t last_closed;      /* the last element delivered is a range
				     that ended (ETM4_FLOW_TALLY) */
	uint32_t ntally;          /* tally entries in use: */
	uint16_t tally_used[F4_TALLY]; /* their indexes */
	struct f4_tally tallies[F4_TALLY];
	/* F4_OUT, then room for delivering every tally entry (2 elements
	 * each): written only by etm4_tally_flush(). out is out_own unless
	 * etm4_flow_queue_at() put it elsewhere (F4_OUT_ROOM elements). */
	struct etmkit_elem *out;
	struct etmkit_elem out_own[F4_OUT_ROOM];

	struct etm4_flow_stats stats;
	uint64_t blocks_base, flushes_base;
	/* Addresses no_image_streak() took after the one it began at: how
	 * the tests tell it ran (its output is the general path's).
	 * Zeroed in a parallel piece's state, as stats are. */
	uint64_t streak_addrs;

	etmkit_image_for_context_fn image_for_context; /* flow.h */
	void *image_ctx;
};

/* etm4_flow.c: set-up and output. */
void etm4_reset_resolution(struct etm4_flow_decoder *d);
/* The output queue from now on: F4_OUT_ROOM elements at @to (NULL: the
 * decoder's own), what the last batch delivered dropped and the rest
 * moved there. The parallel decode's (par_piece.c): the decoder writes
 * into the piece's elements. */
void etm4_flow_queue_at(struct etm4_flow_decoder *d, struct etmkit_elem *to);
void etm4_tally_flush(struct etm4_flow_decoder *d);
void etm4_tally_put(struct etm4_flow_decoder *d, struct f4_tally *t);
void etm4_tally_flush_table(struct etm4_flow_decoder *d);
void etm4_trace_insert(struct etm4_flow_decoder *d, uint64_t target);

/* etm4_resolve.c: packets to queue entries (layer 2). */
int etm4_commit(struct etm4_flow_decoder *d, uint32_t n);
int etm4_cancel(struct etm4_flow_decoder *d, uint32_t n);
void etm4_mispredict(struct etm4_flow_decoder *d);
void etm4_drop_speculative(struct etm4_flow_decoder *d);
void etm4_on_address(struct etm4_flow_decoder *d, uint64_t offset,
		     const struct etm4_address *a);
void etm4_on_packet(struct etm4_flow_decoder *d, const struct etm4_packet *p);

/* etm4_walk.c, etm4_walk_entry.c: the walk (layer 3). */
int etm4_walk(struct etm4_flow_decoder *d);
int etm4_walk_entry(struct etm4_flow_decoder *d, struct ent *e);
int etm4_atom_run(struct etm4_flow_decoder *d, const struct etm4_packet *p);
int etm4_fused(struct etm4_flow_decoder *d, int *took);

/* Whether anything counted waits (etm4_tally_flush() delivers it). */
static inline int tally_waits(const struct etm4_flow_decoder *d)
{
	return d->ntally || d->tr.state;
}

/* Element @e of kind @kind from the packet at @offset, its other fields
 * zero. Field by field, not memset(): where the compiler deems the caller
 * cold (juno_r1_1's no_image after every address, issue 18) it clears
 * with a slow string instruction. No field leaves padding (below). */
static inline void elem_init(struct etmkit_elem *e, uint8_t kind,
			     uint64_t offset)
{
	e->offset = offset;
	e->addr = 0;
	e->kind = kind;
	e->isa = 0;
	e->size = 0;
	e->flags = 0;
	e->cycles = 0;
	/* the union's widest member, no padding (below) */
	e->u.brun.class_flags = 0;
	e->u.brun.repeats = 0;
	e->u.brun.end = 0;
	e->u.brun.target = 0;
}

static inline struct etmkit_elem *
emit(struct etm4_flow_decoder *d, uint8_t kind,
     uint64_t offset)
{
	struct etmkit_elem *e;

	if (tally_waits(d))
		etm4_tally_flush(d);
	e = &d->out[d->n++];
	elem_init(e, kind, offset);
	return e;
}

_Static_assert(offsetof(struct etmkit_elem, cycles) == 20 &&
	       offsetof(struct etmkit_elem, u) == 24 &&
	       sizeof(struct etmkit_elem) ==
		       24 + sizeof(((struct etmkit_elem *)0)->u) &&
	       sizeof(((struct etmkit_elem *)0)->u) ==
		       sizeof(((struct etmkit_elem *)0)->u.brun) &&
	       sizeof(((struct etmkit_elem *)0)->u.brun) == 24,
	       "elem_init() clears every byte of an element");

/* Elements that may still be written. Counted ranges (ETM4_FLOW_TALLY)
 * delivered may go beyond F4_OUT (out[] has room for them all): then
 * there is no room (0 or less) until the batch is delivered. */
static inline ptrdiff_t room(const struct etm4_flow_decoder *d)
{
	return (ptrdiff_t)F4_OUT - (ptrdiff_t)d->n;
}

#define SPEC_MASK (F4_SPEC - 1)

static inline struct ent *spec_at(struct etm4_flow_decoder *d, uint32_t i)
{
	return &d->spec[i & SPEC_MASK];
}

static inline uint32_t spec_len(const struct etm4_flow_decoder *d)
{
	return d->st - d->sh;
}

/* A resolution error: what is speculative is lost; a gap follows in the
 * walk queue and sync is dropped until the next Trace Info. */
void etm4_protocol_error(struct etm4_flow_decoder *d, uint64_t offset,
			 const char *why);
static inline struct ent *done_push(struct etm4_flow_decoder *d)
{
	/* The walk queue is emptied before each packet and one packet moves
	 * at most the speculation queue into it, plus a few entries. */
	return &d->done[d->dt++];
}

#pragma GCC visibility pop

#endif
