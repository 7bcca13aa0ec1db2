/* ETMv4 / ETE flow decoder: packets, speculation resolution and the
 * program walk (seed 002 D4.3.1, layers 1 to 3).
 *
 * Packets become elements in a speculation queue (`spec`), in trace
 * order. P0 elements (atoms, exceptions, Q, source addresses, and
 * Transaction Start where TRCIDR0.COMMTRANS says so) are speculative
 * until committed (D4.3.3): a Commit moves the oldest ones, with the
 * non-P0 elements before them, to the walk queue (`done`), which the
 * walker turns into instructions and events through the image. Cancel
 * removes the newest P0 elements and the address, context and trace-on
 * elements among them, but never timestamps, markers, cycle counts,
 * events or instrumentation (D4.3.7.3, D4.3.8.2, D4.3.9). Mispredict
 * flips the newest atom (D4.3.8.4). Discard and Overflow drop every
 * speculative element (D4.3.8.3, D4.3.10.2).
 *
 * Atoms are kept in runs (up to 32 atoms in one queue entry), so a Commit
 * of n atoms moves a run, not n entries. The walk queue is emptied before
 * the next packet is read, so both queues are bounded by the speculation
 * queue's size; an element that would not fit is a protocol error (a gap).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/block.h"
#include "flow/flow_driver.h"

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
	uint32_t budget;          /* walk_until(): instructions left */
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
	 * each): written only by tally_flush() */
	struct etmkit_elem out[F4_OUT + 2 * F4_TALLY];

	struct etm4_flow_stats stats;
	uint64_t blocks_base, flushes_base;

	etmkit_image_for_context_fn image_for_context; /* flow.h */
	void *image_ctx;
};

/* ---- Set-up ------------------------------------------------------------- */

void etm4_flow_config_init(struct etm4_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm4_config_init(&cfg->etm);
}

static void reset_walk(struct etm4_flow_decoder *d)
{
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	d->atom_started = 0;
	d->pop_pending = 0;
	d->rs_n = 0;
	d->rs_top = 0;
	d->rs_no_push = 0;
}

/* Drop sync: wait for the next Trace Info (digest section 3). */
static void reset_resolution(struct etm4_flow_decoder *d)
{
	d->synced = 0;
	d->pend = d->pend_ctx = 0;
	d->depth = 0;
	d->sh = d->st = 0;
}

static void reset_trace_state(struct etm4_flow_decoder *d)
{
	reset_resolution(d);
	d->dh = d->dt = 0;
	d->overflowed = 0;
	d->cc_on = 0;
	d->ctx_valid = d->ctx_sent = 0;
	/* Until a context says otherwise, any memory space serves. */
	d->space = IMAGE_SPACE_ANY;
	reset_walk(d);
}

int etm4_flow_alloc(struct etm4_flow_decoder **out,
		    const struct etm4_flow_config *cfg)
{
	struct etm4_flow_decoder *d;
	int err;

	/* A caller built before flags existed passes a smaller size: no
	 * flags. */
	int has_flags = cfg && cfg->size >= offsetof(struct etm4_flow_config,
						    flags) + sizeof(cfg->flags);
	uint32_t flags = has_flags ? cfg->flags : 0;

	if (!out || !cfg ||
	    cfg->size < offsetof(struct etm4_flow_config, flags) ||
	    cfg->etm.size < sizeof(cfg->etm) ||
	    (flags & ~(ETM4_FLOW_RANGES | ETM4_FLOW_TALLY |
		       ETM4_FLOW_TRACES)) ||
	    ((flags & (ETM4_FLOW_TALLY | ETM4_FLOW_TRACES)) &&
	     !(flags & ETM4_FLOW_RANGES)) ||
	    ((flags & ETM4_FLOW_TALLY) && (flags & ETM4_FLOW_TRACES)))
		return -etmkit_err_invalid;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	err = etm4_config_decode(&cfg->etm, &d->info);
	/* Conditional-instruction and data trace add P0 kinds (loads and
	 * stores, conditional instructions) this decoder does not follow. */
	if (!err && (d->info.cond || d->info.data))
		err = -etmkit_err_unsupported;
	if (!err) {
		/* Atom and address packets in runs (ETM4_CFG_ADDR_RUNS):
		 * atom_run(). */
		struct etm4_config pc = cfg->etm;

		pc.flags |= ETM4_CFG_ADDR_RUNS;
		err = etm4_pkt_alloc(&d->pkt, &pc);
	}
	if (!err)
		err = flow_cache_init(&d->cache, cfg->image,
				      cfg->cache_bytes ? cfg->cache_bytes :
							 4u << 20,
				      ETMKIT_INSN_EXEC);
	if (err) {
		etm4_flow_free(d);
		return err;
	}
	/* P0 instructions (digest 8.1): branches, ISB, WFI/WFE when
	 * TRCIDR2.WFXMODE is set, TSTART (ETE). */
	d->p0_flags = INSN_F_BRANCH | INSN_F_ISB | INSN_F_TSTART |
		      (d->info.wfx_p0 ? INSN_F_WFX : 0);
	flow_cache_set_ends(&d->cache, d->p0_flags);
	d->atoms = etm4_pkt_atom_table(d->pkt);
	d->ranges = !!(flags & ETM4_FLOW_RANGES);
	d->tally = !!(flags & (ETM4_FLOW_TALLY | ETM4_FLOW_TRACES));
	d->traces = !!(flags & ETM4_FLOW_TRACES);
	if (cfg->size >= offsetof(struct etm4_flow_config, image_ctx) +
				 sizeof(cfg->image_ctx)) {
		d->image_for_context = cfg->image_for_context;
		d->image_ctx = cfg->image_ctx;
	}
	flow_drive_reset(&d->drv);
	reset_trace_state(d);
	*out = d;
	return 0;
}

void etm4_flow_free(struct etm4_flow_decoder *d)
{
	if (!d)
		return;
	etm4_pkt_free(d->pkt);
	flow_cache_fini(&d->cache);
	free(d);
}

void etm4_flow_reset(struct etm4_flow_decoder *d)
{
	if (!d)
		return;
	etm4_pkt_reset(d->pkt);
	flow_drive_reset(&d->drv);
	d->run_h = d->run_a = 0;
	d->n = d->delivered = 0;
	d->ntally = 0;
	d->last_closed = 0;
	memset(d->tallies, 0, sizeof(d->tallies));
	memset(&d->tr, 0, sizeof(d->tr));
	reset_trace_state(d);
	memset(&d->stats, 0, sizeof(d->stats));
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct etm4_flow_stats *
etm4_flow_get_stats(const struct etm4_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Output ------------------------------------------------------------- */

/* A range counted in the decoder, delivered: from @start to the P0
 * instruction before @end (@count instructions, the last @size bytes,
 * @opcode, @cls), whose atom was @taken. */
static struct etmkit_elem *counted_range(struct etm4_flow_decoder *d,
					 uint64_t offset, uint64_t start,
					 uint64_t end, uint8_t isa,
					 uint8_t size, unsigned taken,
					 uint32_t opcode, uint32_t cls,
					 uint32_t count)
{
	struct etmkit_elem *e = &d->out[d->n++];

	memset(e, 0, sizeof(*e));
	e->offset = offset;
	e->addr = start;
	e->kind = etmkit_elem_insn_range;
	e->isa = isa;
	e->size = size;
	e->flags = (uint8_t)(ETMKIT_INSN_P0 | (taken ? ETMKIT_INSN_EXEC :
						ETMKIT_INSN_COND_FAIL));
	e->u.range.opcode = opcode;
	e->u.range.class_flags = cls;
	e->u.range.end = end;
	e->u.range.count = count;
	return e;
}

/* ETM4_FLOW_TRACES: deliver the trace counted in @t. */
static void trace_put(struct etm4_flow_decoder *d, struct f4_tally *t)
{
	struct etmkit_elem *e = &d->out[d->n++];

	memset(e, 0, sizeof(*e));
	e->offset = t->offset;
	e->addr = t->start;
	e->kind = etmkit_elem_branch_run;
	e->isa = t->isa;
	e->size = t->size;
	e->flags = ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC;
	e->u.brun.class_flags = t->cls;
	e->u.brun.repeats = t->runs[1] - 1;
	e->u.brun.end = t->end;
	e->u.brun.target = t->target;
	t->runs[1] = 0;                /* free */
}

/* ETM4_FLOW_TALLY: deliver the runs counted in @t. */
static void tally_put(struct etm4_flow_decoder *d, struct f4_tally *t)
{
	if (d->traces) {
		trace_put(d, t);
		return;
	}
	for (int k = 1; k >= 0; k--) {
		struct etmkit_elem *e;

		if (!t->runs[k])
			continue;
		e = counted_range(d, t->offset, t->start, t->end, t->isa,
				  t->size, (unsigned)k, t->opcode, t->cls,
				  t->count);
		e->u.range.repeats = t->runs[k] - 1;
		t->runs[k] = 0;
	}
	t->blk = NULL;
}

/* Deliver every counted range: before an element of another kind, and at
 * the end of a batch. Room: out[] beyond F4_OUT. Ranges may come between: only
 * whole ones are counted, after a range that ended, so none of them
 * continues a range a packet cut. */
static void tally_flush_table(struct etm4_flow_decoder *d)
{
	for (uint32_t i = 0; i < d->ntally; i++)
		tally_put(d, &d->tallies[d->tally_used[i]]);
	d->ntally = 0;
}

/* Deliver everything counted, and the trace being walked (which ran
 * last: what comes next tells where its taken branch went, or that a cut
 * came first: profile.h). */
static void tally_flush(struct etm4_flow_decoder *d)
{
	struct f4_trace *tr = &d->tr;

	tally_flush_table(d);
	if (tr->state)
		counted_range(d, tr->offset, tr->start, tr->end, tr->isa,
			      tr->size, tr->taken, tr->opcode, tr->cls,
			      tr->count);
	tr->state = F4_TR_NONE;
}

/* Whether anything counted waits (tally_flush() delivers it). */
static inline int tally_waits(const struct etm4_flow_decoder *d)
{
	return d->ntally || d->tr.state;
}

static struct etmkit_elem *emit(struct etm4_flow_decoder *d, uint8_t kind,
				uint64_t offset)
{
	struct etmkit_elem *e;

	if (tally_waits(d))
		tally_flush(d);
	e = &d->out[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	return e;
}

/* Elements that may still be written. Counted ranges (ETM4_FLOW_TALLY)
 * delivered may go beyond F4_OUT (out[] has room for them all): then
 * there is no room (0 or less) until the batch is delivered. */
static ptrdiff_t room(const struct etm4_flow_decoder *d)
{
	return (ptrdiff_t)F4_OUT - (ptrdiff_t)d->n;
}

/* ---- Queues ------------------------------------------------------------- */

#define SPEC_MASK (F4_SPEC - 1)

static struct ent *spec_at(struct etm4_flow_decoder *d, uint32_t i)
{
	return &d->spec[i & SPEC_MASK];
}

static uint32_t spec_len(const struct etm4_flow_decoder *d)
{
	return d->st - d->sh;
}

/* A resolution error: what is speculative is lost; a gap follows in the
 * walk queue and sync is dropped until the next Trace Info. */
static void protocol_error(struct etm4_flow_decoder *d, uint64_t offset,
			   const char *why);

static struct ent *done_push(struct etm4_flow_decoder *d)
{
	/* The walk queue is emptied before each packet and one packet moves
	 * at most the speculation queue into it, plus a few entries. */
	return &d->done[d->dt++];
}

static struct ent *spec_push(struct etm4_flow_decoder *d, uint8_t kind,
			     uint64_t offset)
{
	struct ent *e;

	if (spec_len(d) >= F4_SPEC - 1) {
		/* Drops sync: nothing is queued until the next Trace Info. */
		protocol_error(d, offset, "speculation queue overrun");
		return NULL;
	}
	e = spec_at(d, d->st++);
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	return e;
}

/* P0 elements entry @e stands for: an atom run's atoms, the unseen ones
 * a Trace Info announced, else 1. */
static uint32_t p0_count(const struct ent *e)
{
	return e->kind == K_ATOM ? e->n : e->kind == K_UNSEEN ? e->b : 1;
}

/* Move the elements a Commit of @n P0 elements resolves: the oldest
 * speculative ones, with the non-P0 elements before each (D4.3.8.1).
 * Returns 0, or -1 if fewer than @n were speculative (all of them are
 * then moved). */
static int commit(struct etm4_flow_decoder *d, uint32_t n)
{
	while (n && d->sh != d->st) {
		struct ent *e = spec_at(d, d->sh);
		uint32_t k;

		if (e->kind == K_DEAD) {
			d->sh++;
			continue;
		}
		if (!IS_P0(e->kind)) {
			*done_push(d) = *e;
			d->sh++;
			continue;
		}
		k = p0_count(e);
		if (k <= n) {
			*done_push(d) = *e;
			d->sh++;
			n -= k;
			d->depth -= k;
			continue;
		}
		/* Split the run: its oldest n elements are committed. */
		struct ent *c = done_push(d);

		*c = *e;
		if (e->kind == K_ATOM) {
			c->n = (uint8_t)n;
			c->b = e->b & ((1u << n) - 1);
			e->b >>= n;
			e->n = (uint8_t)(e->n - n);
		} else {
			c->b = n;
			e->b -= n;
		}
		d->depth -= n;
		n = 0;
	}
	return n ? -1 : 0;
}

/* More than MAXSPEC uncommitted P0 elements: the oldest are committed
 * (digest 7.2; MAXSPEC 0 commits every P0 element at once). */
static void implicit_commit(struct etm4_flow_decoder *d)
{
	if (d->depth > d->info.maxspec)
		commit(d, d->depth - d->info.maxspec);
}

/* Cancel the @n newest P0 elements and the cancellable elements among
 * and after them (D4.3.8.2; digest 7.3). Timestamps, markers, cycle
 * counts, events and instrumentation stay (D4.3.7.3, D4.3.9). Reaching an
 * unseen placeholder removes the Trace Info after it and what followed
 * (D4.3.2.3). Returns 0, or -1 if fewer were there. */
static int cancel(struct etm4_flow_decoder *d, uint32_t n)
{
	uint32_t i = d->st;

	while (n && i != d->sh) {
		struct ent *e = spec_at(d, --i);

		if (e->kind == K_DEAD || IS_KEPT(e->kind))
			continue;
		if (!IS_P0(e->kind)) {
			e->kind = K_DEAD;
			continue;
		}
		uint32_t k = p0_count(e);
		if (k <= n) {
			e->kind = K_DEAD;
			n -= k;
			d->depth -= k;
		} else {
			if (e->kind == K_ATOM) {
				e->n = (uint8_t)(e->n - n);
				e->b &= (1u << e->n) - 1;
			} else {
				e->b -= n;
			}
			d->depth -= n;
			n = 0;
		}
	}
	/* Trim removed entries at the tail. */
	while (d->st != d->sh && spec_at(d, d->st - 1)->kind == K_DEAD)
		d->st--;
	return n ? -1 : 0;
}

/* The newest atom not cancelled was wrong: flip it (D4.3.8.4). Target
 * addresses after it belonged to the wrong path and go too (as OpenCSD
 * does; D4.3.8.4 does not say, digest 7.3). An atom
 * that is not speculative, or a Trace Info placeholder met first, leaves
 * nothing to flip. */
static void mispredict(struct etm4_flow_decoder *d)
{
	uint32_t i = d->st, p0 = 0;

	while (i != d->sh && p0 < d->depth) {
		struct ent *e = spec_at(d, --i);

		if (e->kind == K_ATOM) {
			e->b ^= 1u << (e->n - 1);
			return;
		}
		if (e->kind == K_UNSEEN)
			return;
		if (e->kind == K_ADDR)
			e->kind = K_DEAD;
		else if (IS_P0(e->kind))
			p0++;
	}
}

/* Discard, Overflow, errors: speculative elements are dropped
 * (D4.3.8.3, D4.3.10.2); the ones never cancelled are still delivered
 * (digest 7.5). */
static void drop_speculative(struct etm4_flow_decoder *d)
{
	for (uint32_t i = d->sh; i != d->st; i++) {
		struct ent *e = spec_at(d, i);

		if (IS_KEPT(e->kind))
			*done_push(d) = *e;
	}
	d->sh = d->st = 0;
	d->depth = 0;
	d->pend = d->pend_ctx = 0;
}

/* Trace lost at @offset for @reason (enum etmkit_loss): what is
 * speculative is lost, a gap follows in the walk queue, sync is dropped. */
static void lose(struct etm4_flow_decoder *d, uint64_t offset,
		 const char *why, enum etmkit_loss reason)
{
	struct ent *g;

	drop_speculative(d);
	g = done_push(d);
	memset(g, 0, sizeof(*g));
	g->kind = K_GAP;
	g->offset = offset;
	g->x = reason;
	g->a = (uint64_t)(uintptr_t)why;
	reset_resolution(d);
}

static void protocol_error(struct etm4_flow_decoder *d, uint64_t offset,
			   const char *why)
{
	d->stats.protocol_errors++;
	lose(d, offset, why, etmkit_loss_packet);
}

/* A packet record with an error: the input ending inside a packet is the
 * normal end of a ring buffer (etmkit_loss_truncated), a packet cut by a
 * transport loss is etmkit_loss_transport; the rest are bad packets. */
static void packet_error(struct etm4_flow_decoder *d,
			 const struct etm4_packet *p)
{
	const char *why = p->why ? p->why : "bad packet";

	if (p->error == -etmkit_err_truncated)
		lose(d, p->offset, why, etmkit_loss_truncated);
	else if (p->error == -etmkit_err_bad_frame)
		lose(d, p->offset, why, etmkit_loss_transport);
	else
		protocol_error(d, p->offset, why);
}

/* ---- Packets to queue entries (layer 2) -------------------------------- */

static void add_atoms(struct etm4_flow_decoder *d, uint64_t offset,
		      uint32_t bits, unsigned count)
{
	struct ent *t = d->st != d->sh ? spec_at(d, d->st - 1) : NULL;

	if (!count)
		return;
	d->depth += count;
	if (t && t->kind == K_ATOM && t->n + count <= 32) {
		t->b |= bits << t->n;
		t->n = (uint8_t)(t->n + count);
		return;
	}
	t = spec_push(d, K_ATOM, offset);
	if (!t) {
		d->depth = 0;
		return;
	}
	t->b = bits;
	t->n = (uint8_t)count;
}

static void add_p0(struct etm4_flow_decoder *d, const struct ent *src)
{
	struct ent *e = spec_push(d, src->kind, src->offset);

	if (!e)
		return;
	*e = *src;
	d->depth++;
	implicit_commit(d);
}

static void set_ctx_ent(struct ent *e, const struct etm4_context *c)
{
	e->b = c->context_id;
	e->c = c->vmid;
	e->x = (uint8_t)((c->el & CTX_EL_MASK) | (c->sf ? CTX_SF : 0) |
			 (c->ns ? CTX_NS : 0) | (c->nse ? CTX_NSE : 0) |
			 (c->has_cid ? CTX_CID : 0) |
			 (c->has_vmid ? CTX_VMID : 0));
}

/* The Context held back while an exception or Q waited for its address,
 * into the queue after that element. */
static void push_pend_ctx(struct etm4_flow_decoder *d)
{
	struct ent *e;

	if (!d->pend_ctx)
		return;
	d->pend_ctx = 0;
	e = spec_push(d, K_CTX, d->pend_ctx_ent.offset);
	if (e)
		*e = d->pend_ctx_ent;
}

static void on_context(struct etm4_flow_decoder *d, uint64_t offset,
		       const struct etm4_context *c)
{
	struct ent *e, n;

	if (!c->updated)
		return;
	if (d->pend) {
		/* An exception or Q waits for its address, and the context
		 * may come between (D4.3.5.4): it is the context at that
		 * address, after the element's own instructions, so it
		 * joins the queue after the element. A second one keeps
		 * the first's context ID and VMID unless it has its own. */
		memset(&n, 0, sizeof(n));
		n.kind = K_CTX;
		n.offset = offset;
		set_ctx_ent(&n, c);
		if (d->pend_ctx) {
			const struct ent *o = &d->pend_ctx_ent;

			if (!(n.x & CTX_CID) && (o->x & CTX_CID)) {
				n.b = o->b;
				n.x |= CTX_CID;
			}
			if (!(n.x & CTX_VMID) && (o->x & CTX_VMID)) {
				n.c = o->c;
				n.x |= CTX_VMID;
			}
		}
		d->pend_ctx_ent = n;
		d->pend_ctx = 1;
		return;
	}
	e = spec_push(d, K_CTX, offset);
	if (e)
		set_ctx_ent(e, c);
}

/* An address packet: the address an exception or Q waits for, or a
 * Target Address element (D4.3.6.2). */
static void on_address(struct etm4_flow_decoder *d, uint64_t offset,
		       const struct etm4_address *a)
{
	struct ent *e;

	if (d->pend) {
		struct ent p = d->pend_ent;

		d->pend = 0;
		p.a = a->addr;
		if (p.kind == K_EXC) {
			p.x |= (uint8_t)(a->is << 2 | 8);
		} else if (p.kind == K_Q) {
			p.x |= (uint8_t)(2 | a->is << 2);
		} else { /* K_TFAIL: not P0 */
			e = spec_push(d, K_TFAIL, p.offset);
			if (e) {
				*e = p;
				e->x = (uint8_t)(1 | a->is << 1);
			}
			push_pend_ctx(d);
			goto target;
		}
		add_p0(d, &p);
		push_pend_ctx(d);
		return;
	}
target:
	e = spec_push(d, K_ADDR, offset);
	if (e) {
		e->a = a->addr;
		e->x = a->is;
	}
}

static void on_exception(struct etm4_flow_decoder *d,
			 const struct etm4_packet *p)
{
	struct ent x;

	memset(&x, 0, sizeof(x));
	x.offset = p->offset;
	x.c = p->u.exception.type;
	x.x = p->u.exception.addr_interp & 3;
	if (d->info.ete && p->u.exception.type == 0x18) {
		/* Transaction failure (ETE, digest 5.23): not P0; the
		 * address that follows is where execution resumes. */
		x.kind = K_TFAIL;
	} else {
		x.kind = K_EXC;
		if (d->info.ete && p->u.exception.type == 0) {
			/* ETE PE reset: no address follows (digest 5.5). */
			add_p0(d, &x);
			return;
		}
	}
	d->pend = 1;
	d->pend_ent = x;
}

static void on_q(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	const struct etm4_q *q = &p->u.q;
	struct ent x;

	memset(&x, 0, sizeof(x));
	x.kind = K_Q;
	x.offset = p->offset;
	x.b = q->count;
	x.x = q->has_count ? 1 : 0;
	if (q->has_addr) {
		x.a = q->addr.addr;
		x.x |= (uint8_t)(2 | q->addr.is << 2);
		add_p0(d, &x);
	} else if (q->addr_follows) {
		d->pend = 2;
		d->pend_ent = x;
	} else {
		add_p0(d, &x);
	}
}

static void on_trace_info(struct etm4_flow_decoder *d,
			  const struct etm4_packet *p)
{
	const struct etm4_trace_info *t = &p->u.tinfo;
	struct ent *e;

	d->cc_on = t->info & 1;
	if (!d->synced) {
		/* First Trace Info after sync: SPEC P0 elements traced
		 * before it are still unresolved (D4.3.4); Commit and Cancel
		 * may reach them. */
		d->synced = 1;
		d->sh = d->st = 0;
		d->depth = 0;
		/* They come before the Trace Info: a Cancel reaching them
		 * removes the Trace Info and the context and addresses after
		 * it (D4.3.2.3, IYZPCB). */
		if (t->spec) {
			e = spec_push(d, K_UNSEEN, p->offset);
			if (e) {
				e->b = t->spec;
				d->depth = t->spec;
			}
		}
		spec_push(d, K_TINFO, p->offset);
		return;
	}
	spec_push(d, K_TINFO, p->offset);
}

static void simple(struct etm4_flow_decoder *d, uint8_t kind,
		   const struct etm4_packet *p)
{
	struct ent *e = spec_push(d, kind, p->offset);

	if (!e)
		return;
	switch (kind) {
	case K_TS:
		e->a = p->u.ts.value;
		e->x = p->u.ts.has_cc;
		e->b = p->u.ts.cc;
		break;
	case K_EVENT:
		e->x = p->u.event;
		break;
	case K_ITE:
		e->a = p->u.ite.value;
		e->x = p->u.ite.el;
		break;
	default:
		break;
	}
}

/* Elements that need no sync (D4.3.2.1: events and instrumentation may
 * come before the first Trace Info) go straight to the walk queue. */
static void unsynced_packet(struct etm4_flow_decoder *d,
			    const struct etm4_packet *p)
{
	struct ent *e;

	if (p->type != etm4_pkt_event && p->type != etm4_pkt_instrumentation)
		return;
	e = done_push(d);
	memset(e, 0, sizeof(*e));
	e->offset = p->offset;
	if (p->type == etm4_pkt_event) {
		e->kind = K_EVENT;
		e->x = p->u.event;
	} else {
		e->kind = K_ITE;
		e->a = p->u.ite.value;
		e->x = p->u.ite.el;
	}
}

static void on_cycle_count(struct etm4_flow_decoder *d,
			   const struct etm4_packet *p)
{
	struct ent *e;

	if (p->u.cc.has_commit && commit(d, p->u.cc.commit)) {
		protocol_error(d, p->offset, "commit of more P0 elements "
					     "than are speculative");
		return;
	}
	/* The count belongs to the commit point (D4.3.7.1): the walk queue
	 * ends there. */
	e = done_push(d);
	memset(e, 0, sizeof(*e));
	e->kind = K_CC;
	e->offset = p->offset;
	e->b = p->u.cc.count;
	e->x = p->u.cc.unknown;
}

static void on_spec(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;

	/* Atoms first, then cancel, then mispredict (digest 5.10). */
	add_atoms(d, p->offset, s->atoms.bits, s->atoms.count);
	implicit_commit(d);
	if (p->type == etm4_pkt_cancel && cancel(d, s->count)) {
		protocol_error(d, p->offset, "cancel of more P0 elements "
					     "than are speculative");
		return;
	}
	if (p->type == etm4_pkt_mispredict || s->mispredict)
		mispredict(d);
}

static void on_loss(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	struct ent *e;

	drop_speculative(d);
	if (p->type == etm4_pkt_overflow) {
		e = done_push(d);
		memset(e, 0, sizeof(*e));
		e->kind = K_OVERFLOW;
		e->offset = p->offset;
		d->overflowed = 1;
	} else {
		/* Discard: trace generation became inoperative (D4.3.8.3);
		 * it resumes with a Trace Info, Context and Target Address
		 * (D4.3.2.1), and until then the position is unknown (digest
		 * 8: "Overflow / Discard: PC := unknown"). From the Discard
		 * on: what the walk queue holds before it (a P0 element
		 * flush_pend() committed, the addresses before it) is walked
		 * first. */
		e = done_push(d);
		memset(e, 0, sizeof(*e));
		e->kind = K_DISCARD;
		e->offset = p->offset;
	}
	/* Wait for the next Trace Info (digest 3, item 5). */
	reset_resolution(d);
}

/* An exception or transaction failure waited for its address packet, and
 * another packet came: the element keeps no address. */
static void flush_pend(struct etm4_flow_decoder *d)
{
	struct ent x = d->pend_ent;

	d->pend = 0;
	if (x.kind == K_TFAIL) {
		struct ent *e = spec_push(d, K_TFAIL, x.offset);

		if (e)
			*e = x;
	} else {
		add_p0(d, &x);
	}
	push_pend_ctx(d);
}

static void on_packet(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	if (p->error) {
		if (p->type == etm4_pkt_unsynced)
			return;
		packet_error(d, p);
		return;
	}
	if (!d->synced && p->type != etm4_pkt_trace_info) {
		unsynced_packet(d, p);
		return;
	}
	if (d->pend && p->type != etm4_pkt_context &&
	    p->type != etm4_pkt_address &&
	    p->type != etm4_pkt_address_context)
		flush_pend(d);
	switch ((enum etm4_pkt_type)p->type) {
	case etm4_pkt_trace_info:
		on_trace_info(d, p);
		break;
	case etm4_pkt_trace_on:
		spec_push(d, K_TRACE_ON, p->offset);
		break;
	case etm4_pkt_timestamp:
		simple(d, K_TS, p);
		break;
	case etm4_pkt_ts_marker:
		simple(d, K_MARKER, p);
		break;
	case etm4_pkt_exception:
		on_exception(d, p);
		break;
	case etm4_pkt_exception_return:
		simple(d, K_EXC_RET, p);
		break;
	case etm4_pkt_cycle_count:
		on_cycle_count(d, p);
		break;
	case etm4_pkt_commit:
		if (commit(d, p->u.spec.count))
			protocol_error(d, p->offset, "commit of more P0 "
				       "elements than are speculative");
		break;
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		on_spec(d, p);
		break;
	case etm4_pkt_discard:
	case etm4_pkt_overflow:
		on_loss(d, p);
		break;
	case etm4_pkt_atom:
		add_atoms(d, p->offset, p->u.atoms.bits, p->u.atoms.count);
		implicit_commit(d);
		break;
	case etm4_pkt_q:
		on_q(d, p);
		break;
	case etm4_pkt_context:
		on_context(d, p->offset, &p->u.context);
		break;
	case etm4_pkt_address:
		on_address(d, p->offset, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		on_context(d, p->offset, &p->u.a.context);
		on_address(d, p->offset, &p->u.a.addr);
		break;
	case etm4_pkt_source_address: {
		struct ent x;

		memset(&x, 0, sizeof(x));
		x.kind = K_SRC;
		x.offset = p->offset;
		x.a = p->u.a.addr.addr;
		x.x = p->u.a.addr.is;
		add_p0(d, &x);
		break;
	}
	case etm4_pkt_event:
		simple(d, K_EVENT, p);
		break;
	case etm4_pkt_instrumentation:
		simple(d, K_ITE, p);
		break;
	case etm4_pkt_transaction_start:
		if (d->info.trans_p0) {
			struct ent x;

			memset(&x, 0, sizeof(x));
			x.kind = K_TSTART_P0;
			x.offset = p->offset;
			add_p0(d, &x);
		} else {
			spec_push(d, K_TSTART, p->offset);
		}
		break;
	case etm4_pkt_transaction_commit:
		spec_push(d, K_TCOMMIT, p->offset);
		break;
	default:
		/* A-sync, ignore, function return (a v8-M hint), and the
		 * conditional and data packets alloc refused. */
		break;
	}
}

/* ---- The walk (layer 3) -------------------------------------------------- */

/* The memory space (image.h) of the current exception level and security
 * state. */
static uint8_t current_space(const struct etm4_flow_decoder *d)
{
	unsigned sec = (unsigned)d->nse << 1 | d->ns;

	if (d->el == 3)
		return d->nse ? IMAGE_SPACE_ROOT : IMAGE_SPACE_EL3;
	switch (sec) {
	case 1: /* Non-secure */
		return d->el == 2 ? IMAGE_SPACE_EL2 : IMAGE_SPACE_EL1N;
	case 3: /* Realm */
		return d->el == 2 ? IMAGE_SPACE_EL2R : IMAGE_SPACE_EL1R;
	case 2: /* Root */
		return IMAGE_SPACE_ROOT;
	default:
		return d->el == 2 ? IMAGE_SPACE_EL2S : IMAGE_SPACE_EL1S;
	}
}

/* The instruction set of a target address (digest 5.18). */
static uint8_t isa_of(const struct etm4_flow_decoder *d, unsigned is)
{
	if (is)
		return etmkit_isa_thumb;
	return d->sf ? etmkit_isa_a64 : etmkit_isa_arm;
}

static void go_to(struct etm4_flow_decoder *d, uint64_t addr, uint8_t isa)
{
	d->pos = POS_ADDR;
	d->addr = addr;
	d->isa = isa;
	d->pos_is = -1;
	d->blk = NULL;
	d->link_from = NULL;
}

/* Go to a traced address with instruction-set bit @is: A64 or A32 depends
 * on the context, which may come after the address (a Context element
 * applies to the next instruction executed, D4.3.6.3). */
static void go_to_is(struct etm4_flow_decoder *d, uint64_t addr, unsigned is)
{
	go_to(d, addr, isa_of(d, is));
	d->pos_is = (int8_t)is;
}

/* A Target Address element reached the walk: execution goes on there,
 * and the return stack takes pushes again (digest 7.4). */
static void target_address(struct etm4_flow_decoder *d, uint64_t addr,
			   unsigned is)
{
	go_to_is(d, addr, is);
	d->pop_pending = 0;
	d->rs_no_push = 0;
}

static void rs_push(struct etm4_flow_decoder *d, uint64_t addr, uint8_t isa)
{
	if (d->rs_no_push)
		return;
	d->rs_top = (d->rs_top + 1) % F4_RS;
	d->rs[d->rs_top].addr = addr;
	d->rs[d->rs_top].isa = isa;
	if (d->rs_n < F4_RS)
		d->rs_n++;
}

/* A P0 element after an indirect branch whose address was not traced:
 * the trace unit's return stack predicted it (digest 7.7). */
static void rs_pop(struct etm4_flow_decoder *d)
{
	d->pop_pending = 0;
	if (!d->rs_n) {
		d->pos = POS_NONE;
		return;
	}
	go_to(d, d->rs[d->rs_top].addr, d->rs[d->rs_top].isa);
	d->rs_top = (d->rs_top + F4_RS - 1) % F4_RS;
	d->rs_n--;
}

/* The walk stands where the image has no code (@loss): report no_image
 * and forget the position. Returns 0. */
static int no_code(struct etm4_flow_decoder *d, uint64_t offset, uint8_t loss)
{
	flow_no_image(emit(d, etmkit_elem_no_image, offset), d->addr, d->isa,
		      loss, d->space);
	d->pos = POS_NONE;
	d->link_from = NULL;
	d->ind_from = NULL;
	return 0;
}

/* POS_ADDR after an indirect branch: if the address is the target that
 * branch took last time, make it that block without a lookup. Returns
 * the block, or NULL. */
static inline struct flow_block *ind_guess(struct etm4_flow_decoder *d)
{
	struct flow_block *g;
	/* One byte each: d->isa was just stored (target_address()), and a
	 * wider load across it would wait for the store to complete. */
	uint8_t isa = d->isa, space = d->space;

	if (!d->ind_from || d->ind_gen != flow_cache_generation(&d->cache))
		return NULL;
	g = d->ind_from->ind;
	if (!g || g->range.addr != d->addr || g->isa != isa ||
	    g->space != space)
		return NULL;
	d->ind_from = NULL;
	d->link_from = NULL;
	d->blk = g;
	d->idx = 0;
	d->pos = POS_BLOCK;
	return g;
}

/* Make POS_ADDR a block. Returns 1, or 0 after reporting no_image. */
static int resolve_lookup(struct etm4_flow_decoder *d, uint64_t offset)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	uint8_t loss = etmkit_loss_misaligned;
	struct flow_block *b = NULL;
	uint64_t align = d->isa == etmkit_isa_thumb ? 1u : 3u;

	if (ind_guess(d))
		return 1;
	if (!(d->addr & align))
		b = flow_cache_get(&d->cache, d->addr, d->isa, d->space, &loss);
	if (b) {
		if (d->ind_from && gen == d->ind_gen &&
		    gen == flow_cache_generation(&d->cache))
			d->ind_from->ind = b;
		d->ind_from = NULL;
		if (d->link_from && gen == d->link_gen &&
		    gen == flow_cache_generation(&d->cache))
			d->link_from->succ[d->link_slot] = b;
		d->link_from = NULL;
		d->blk = b;
		d->idx = 0;
		d->pos = POS_BLOCK;
		return 1;
	}
	return no_code(d, offset, loss);
}

/* resolve_lookup(), with an address outside the image (juno_r1_1's
 * commonest case) reported without a lookup. */
static inline int resolve(struct etm4_flow_decoder *d, uint64_t offset)
{
	if (flow_cache_outside(&d->cache, d->addr) &&
	    !(d->addr & (d->isa == etmkit_isa_thumb ? 1u : 3u)))
		return no_code(d, offset, etmkit_loss_unmapped);
	return resolve_lookup(d, offset);
}

static void leave_block(struct etm4_flow_decoder *d, struct flow_block *b,
			unsigned slot, uint64_t addr, uint8_t isa)
{
	struct flow_block *nb = b->succ[slot];

	if (nb) {
		d->blk = nb;
		d->idx = 0;
		return;
	}
	d->pos = POS_ADDR;
	d->addr = addr;
	d->isa = isa;
	/* The walk's address, not a traced one: a Context packet must not
	 * re-read the instruction set from an older address packet's IS
	 * (a BLX immediate has already switched it; Context has no IS). */
	d->pos_is = -1;
	d->blk = NULL;
	d->link_from = b;
	d->link_slot = (uint8_t)slot;
	d->link_gen = flow_cache_generation(&d->cache);
}

/* ETM4_FLOW_RANGES: deliver instructions b->insn[i..j) (j > i) of packet
 * @offset: added to the last element if it is a range they continue (one
 * still open: its last instruction executed and not P0), else as a new
 * range. A caller that knows the last element is no open range passes
 * @may_extend 0: reading back an element just written stalls on store
 * forwarding. Returns the range; its flags are then the last
 * instruction's. */
static inline struct etmkit_elem *put_range(struct etm4_flow_decoder *d,
					    const struct flow_block *b,
					    uint32_t i, uint32_t j,
					    uint64_t offset, int may_extend)
{
	/* ETM4_FLOW_TRACES: what was counted ran before these. */
	if (F4_UNLIKELY(d->traces) && tally_waits(d))
		tally_flush(d);
	/* Every field read before the first store: stores to the element
	 * may alias the block as far as the compiler knows. The block's own
	 * start saves a load of another cache line. */
	const struct flow_insn *last = &b->insn[j - 1];
	uint64_t start = i ? b->insn[i].addr : b->start;
	uint64_t end = last->addr + last->head[2];
	uint32_t opcode = last->opcode, cls = last->flags;
	uint8_t size = last->head[2], isa = b->isa;
	struct etmkit_elem *e = d->n ? &d->out[d->n - 1] : NULL;

	d->stats.insns += j - i;
	if (!may_extend || !e || e->kind != etmkit_elem_insn_range ||
	    e->flags != ETMKIT_INSN_EXEC || e->u.range.end != start ||
	    e->isa != isa || e->offset != offset) {
		e = &d->out[d->n++];
		e->offset = offset;
		e->addr = start;
		e->kind = etmkit_elem_insn_range;
		e->isa = isa;
		e->size = size;
		e->flags = ETMKIT_INSN_EXEC;
		e->cycles = 0;
		e->u.range.opcode = opcode;
		e->u.range.class_flags = cls;
		e->u.range.end = end;
		e->u.range.count = j - i;
		e->u.range.repeats = 0;
		return e;
	}
	e->size = size;
	e->u.range.opcode = opcode;
	e->u.range.class_flags = cls;
	e->u.range.end = end;
	e->u.range.count += j - i;
	return e;
}

_Static_assert(ETMKIT_INSN_COND_FAIL == ETMKIT_INSN_EXEC + 1 &&
	       INSN_F_BRANCH == 1, "run_ranges() computes with them");
_Static_assert(offsetof(struct etmkit_elem, addr) == 8 &&
	       offsetof(struct etmkit_elem, kind) == 16 &&
	       offsetof(struct etmkit_elem, flags) == 19 &&
	       offsetof(struct etmkit_elem, cycles) == 20 &&
	       offsetof(struct etmkit_elem, u.range.opcode) == 24 &&
	       offsetof(struct etmkit_elem, u.range.class_flags) == 28 &&
	       offsetof(struct etmkit_elem, u.range.end) == 32 &&
	       offsetof(struct etmkit_elem, u.range.count) == 40 &&
	       sizeof(struct etmkit_elem) == 48 &&
	       sizeof(struct flow_range) == 40,
	       "struct flow_range is bytes 8..48 of a range element");

/* Deliver instruction @fi, the current one of block d->blk (its
 * template, block.h), executed. Returns its element (or range), whose
 * flags the caller may change. */
static inline struct etmkit_elem *put_insn(struct etm4_flow_decoder *d,
					   const struct flow_insn *fi,
					   uint64_t offset)
{
	struct etmkit_elem *e;

	if (d->ranges)
		return put_range(d, d->blk, (uint32_t)(fi - d->blk->insn),
				 (uint32_t)(fi - d->blk->insn) + 1, offset, 1);
	e = &d->out[d->n++];
	memcpy(&e->addr, fi, 24);
	e->offset = offset;
	e->cycles = 0;
	d->stats.insns++;
	return e;
}

/* Deliver instructions b->insn[i..j) (j > i), executed: the last one's
 * element (or range) is returned, for its flags. @may_extend: as
 * put_range(). */
static inline struct etmkit_elem *put_insns(struct etm4_flow_decoder *d,
					    const struct flow_block *b,
					    uint32_t i, uint32_t j,
					    uint64_t offset, int may_extend)
{
	struct etmkit_elem *e = &d->out[d->n];

	if (d->ranges)
		return put_range(d, b, i, j, offset, may_extend);
	for (uint32_t k = i; k < j; k++, e++) {
		memcpy(&e->addr, &b->insn[k], 24);
		e->offset = offset;
		e->cycles = 0;
	}
	d->n += j - i;
	d->stats.insns += j - i;
	return e - 1;
}

/* Whether @e is a range that ended (P0 or not taken): one a packet cut
 * is continued by the next range. */
static inline int range_closed(const struct etmkit_elem *e)
{
	return (e->kind == etmkit_elem_insn_range &&
		e->flags != ETMKIT_INSN_EXEC) ||
	       e->kind == etmkit_elem_branch_run;
}

/* ETM4_FLOW_TALLY: whether the last element is a range that ended, so
 * that a range counted now starts where execution entered it. */
static int last_closed(const struct etm4_flow_decoder *d)
{
	return d->n ? range_closed(&d->out[d->n - 1]) : d->last_closed;
}

/* trace_run() copies the last instruction's fields at once. */
_Static_assert(offsetof(struct f4_trace, cls) ==
		       offsetof(struct f4_trace, opcode) + 4 &&
	       offsetof(struct f4_trace, end) ==
		       offsetof(struct f4_trace, opcode) + 8 &&
	       offsetof(struct flow_range, class_flags) ==
		       offsetof(struct flow_range, opcode) + 4 &&
	       offsetof(struct flow_range, end) ==
		       offsetof(struct flow_range, opcode) + 8,
	       "f4_trace and flow_range: opcode, class, end");

/* ETM4_FLOW_TRACES: the table's slots for the trace @start..@end to
 * @target are F4_TRACE_PROBES from this one. */
#define F4_TRACE_PROBES 4
static inline uint32_t trace_hash(uint64_t start, uint64_t end,
				  uint64_t target)
{
	uint64_t h = (start >> 2) + (end >> 2) * 3 + (target >> 2) * 5;

	return (uint32_t)(h ^ h >> 8 ^ h >> 16) & (F4_TALLY - 1);
}

/* trace_count() when the trace is not in its first slot, or its count
 * is full: counted in its slot, found or taken. When it finds none, everything
 * counted before is delivered first (the order in which traces first
 * ran kept). */
static __attribute__((noinline)) void
trace_insert(struct etm4_flow_decoder *d, uint64_t target)
{
	const struct f4_trace *tr = &d->tr;
	struct f4_tally *t = NULL;
	uint32_t h = trace_hash(tr->start, tr->end, target), i = h;

	for (int k = 0; k < F4_TRACE_PROBES; k++, i = (i + 1) & (F4_TALLY - 1)) {
		t = &d->tallies[i];
		if (!t->runs[1] || (t->start == tr->start && t->end == tr->end &&
				    t->target == target))
			break;
		t = NULL;
	}
	if (!t || t->runs[1] == UINT32_MAX) {
		tally_flush_table(d);
		i = h;
		t = &d->tallies[i];
	}
	if (!t->runs[1]) {            /* free: taken */
		d->tally_used[d->ntally++] = (uint16_t)i;
		t->start = tr->start;
		t->end = tr->end;
		t->target = target;
		t->offset = tr->offset;
		t->cls = tr->cls;
		t->opcode = tr->opcode;
		t->count = tr->count;
		t->isa = tr->isa;
		t->size = tr->size;
	}
	t->runs[1]++;
}

/* ETM4_FLOW_TRACES: the trace walked (d->tr) ended, its branch taken to
 * @target: counted. */
static inline void trace_count(struct etm4_flow_decoder *d, uint64_t target)
{
	struct f4_trace *tr = &d->tr;
	uint32_t i = trace_hash(tr->start, tr->end, target);
	struct f4_tally *t = &d->tallies[i];

	if (F4_LIKELY(t->runs[1] && t->start == tr->start &&
		      t->end == tr->end && t->target == target &&
		      t->runs[1] != UINT32_MAX))
		t->runs[1]++;
	else
		trace_insert(d, target);
	tr->state = F4_TR_NONE;
}

/* ETM4_FLOW_TRACES: a run of the whole of block @b, which ends in a P0
 * instruction, with atom @taken, from the packet at @offset: it goes on
 * with the trace walked where that one ended, or begins one; a taken
 * branch ends it. */
static inline void trace_run(struct etm4_flow_decoder *d,
			     const struct flow_block *b, unsigned taken,
			     uint64_t offset)
{
	struct f4_trace *tr = &d->tr;
	uint32_t f = b->range.class_flags;

	d->stats.insns += b->n;
	/* An address packet moved the walk: the trace is cut there. */
	if (tr->state == F4_TR_OPEN && F4_UNLIKELY(b->start != tr->end))
		tally_flush(d);
	if (tr->state != F4_TR_OPEN) {
		if (tr->state == F4_TR_PEND) /* its branch came here */
			trace_count(d, b->start);
		tr->state = F4_TR_OPEN;
		tr->start = b->start;
		tr->offset = offset;
		tr->isa = b->isa;
		tr->count = 0;
	}
	tr->count += b->n;
	memcpy(&tr->opcode, &b->range.opcode, 16); /* opcode, cls, end */
	tr->size = b->range.head[2];
	tr->taken = (uint8_t)taken;
	if (taken && (f & INSN_F_BRANCH))
		tr->state = F4_TR_PEND; /* else the next block goes on */
}

/* ETM4_FLOW_TALLY: count a run of the whole of block @b, which ends in a
 * P0 instruction, with atom @taken, from the packet at @offset. The entry
 * is found by the block's address; another range there is delivered to
 * make room (2 elements at most). ETM4_FLOW_TRACES: trace_run(). */
static inline void tally_run(struct etm4_flow_decoder *d,
			     const struct flow_block *b, unsigned taken,
			     uint64_t offset)
{
	uint64_t gen;
	struct f4_tally *t;

	if (d->traces) {
		trace_run(d, b, taken, offset);
		return;
	}
	gen = flow_cache_generation(&d->cache);
	t = &d->tallies[(b->start >> 2 ^ b->start >> 9) & (F4_TALLY - 1)];

	if (F4_UNLIKELY(t->blk != b || t->gen != gen ||
			t->runs[taken] == UINT32_MAX)) {
		const struct flow_insn *last = &b->insn[b->n - 1];

		if (t->blk)
			tally_put(d, t);     /* another range: delivered */
		else
			d->tally_used[d->ntally++] = (uint16_t)(t - d->tallies);
		t->blk = b;
		t->gen = gen;
		t->start = b->start;
		t->end = last->addr + last->head[2];
		t->offset = offset;
		t->opcode = last->opcode;
		t->cls = last->flags;
		t->count = b->n;
		t->isa = b->isa;
		t->size = last->head[2];
	}
	t->runs[taken]++;
	d->stats.insns += b->n;
}

/* After the P0 instruction that ends block @b (the cache ends blocks at
 * them, alloc), with atom @taken. */
static inline void after_p0(struct etm4_flow_decoder *d,
			    struct flow_block *b, unsigned taken)
{
	/* The last instruction's, from the block's first cache line */
	uint32_t f = b->range.class_flags;

	if (!taken || !(f & INSN_F_BRANCH)) {
		/* Not taken, or ISB / WFx / TSTART: the next instruction. */
		leave_block(d, b, 0, flow_block_end(b), b->isa);
		return;
	}
	if ((f & INSN_F_CALL) && d->info.retstack)
		rs_push(d, b->range.end, b->isa); /* after the call */
	if (!(f & INSN_F_INDIRECT)) {
		leave_block(d, b, 1, b->target, b->target_isa);
		return;
	}
	/* Indirect: the address comes next, or the return stack gives it. */
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = b;
	d->ind_gen = flow_cache_generation(&d->cache);
	if (d->info.retstack && !(f & INSN_F_CALL))
		d->pop_pending = 1;
}

/* Position on an instruction: 1, or 0 (unknown or no image: reported). */
static int ready(struct etm4_flow_decoder *d, uint64_t offset)
{
	if (F4_LIKELY(d->pos == POS_BLOCK))
		return 1;
	if (d->pos == POS_NONE)
		return 0;
	return resolve(d, offset);
}

/* Walk one atom: instructions up to and including the next P0
 * instruction, which the atom says was taken (E) or not (N) (D4.3.5.1).
 * Returns 1 when the atom is done, 0 when the output is full (call
 * again). */
static int walk_atom(struct etm4_flow_decoder *d, unsigned taken,
		     uint64_t offset)
{
	if (!d->atom_started) {
		d->atom_started = 1;
		if (d->pop_pending)
			rs_pop(d);
		if (d->pos == POS_NONE) {
			d->stats.atoms_lost++;
			d->atom_started = 0;
			return 1;
		}
	}
	for (;;) {
		struct flow_block *b;
		const struct flow_insn *fi;
		struct etmkit_elem *e;
		uint32_t n, lim;

		if (room(d) < 2)
			return 0;
		if (!ready(d, offset)) {
			d->stats.atoms_lost++;
			d->atom_started = 0;
			return 1;
		}
		b = d->blk;
		n = b->n;
		if (d->tally && !d->idx &&
		    (b->range.class_flags & d->p0_flags) && last_closed(d)) {
			/* The whole block is the atom's range: counted. */
			tally_run(d, b, taken, offset);
			after_p0(d, b, taken);
			d->atom_started = 0;
			return 1;
		}
		/* An element per instruction, or one range for them all. */
		lim = d->ranges ? n : d->idx + (uint32_t)room(d) - 1;
		if (lim > n)
			lim = n;
		/* Only a block's last instruction can be a P0 one (the cache
		 * ends blocks at them, alloc), so the copy loop tests
		 * nothing. */
		e = put_insns(d, b, d->idx, lim, offset, 1);
		if (lim < n) {
			d->idx = lim;
			return 0;
		}
		fi = &b->insn[n - 1];
		if (fi->flags & d->p0_flags) {
			e->flags = (uint8_t)(ETMKIT_INSN_P0 |
				      (taken ? ETMKIT_INSN_EXEC :
					       ETMKIT_INSN_COND_FAIL));
			after_p0(d, b, taken);
			d->atom_started = 0;
			return 1;
		}
		/* The block ended without a P0 instruction (its size limit,
		 * or the end of the mapped bytes): go on after it. */
		leave_block(d, b, 0, flow_block_end(b), b->isa);
	}
}

/* How walk_until() treats P0 instructions before its stop. */
enum walk_mode {
	WALK_EXC, /* an exception's range: a P0 instruction ends it */
	WALK_SRC, /* a source address's: P0 instructions before it were not
		     taken (flagged N) */
	WALK_Q    /* a Q's count: the path is untraced, go straight on */
};

/* Most instructions an exception or source address range may span
 * before the decoder gives up on it (the image does not match). */
#define F4_WALK_BUDGET (1u << 16)

/* Walk while the next instruction is not at @stop (exclusive), or, with
 * @left, until *@left instructions were delivered. Returns 1 when done
 * (or lost: position unknown), 0 when the output is full. */
static int walk_until(struct etm4_flow_decoder *d, uint64_t stop,
		      uint32_t *left, enum walk_mode mode, uint64_t offset)
{
	for (;;) {
		struct flow_block *b;
		const struct flow_insn *fi;
		struct etmkit_elem *e;

		/* A count is done before the next instruction is looked up:
		 * nothing after it is walked (or reported missing). */
		if (left && !*left)
			return 1;
		if (room(d) < 2)
			return 0;
		if (!ready(d, offset))
			return 1;
		b = d->blk;
		fi = &b->insn[d->idx];
		if (!left && fi->addr == stop)
			return 1;
		if (!left && !d->budget--) {
			d->pos = POS_NONE;
			return 1;
		}
		e = put_insn(d, fi, offset);
		/* The last instruction of a Q's count ends its range (flow.h):
		 * flagged as it is delivered, whatever batch it ends. */
		if (left && !--*left)
			e->flags |= ETMKIT_INSN_P0;
		if (fi->flags & d->p0_flags) {
			/* Not taken; a source address's range runs on
			 * through it (D4.3.5.3), so it does not end one. */
			if (mode == WALK_SRC)
				e->flags = ETMKIT_INSN_COND_FAIL;
			leave_block(d, b, 0, flow_block_end(b), b->isa);
			if (mode == WALK_EXC)
				return 1;
			continue;
		}
		if (++d->idx == b->n)
			leave_block(d, b, 0, flow_block_end(b), b->isa);
	}
}

/* The address of the next instruction, if known. */
static int next_addr(const struct etm4_flow_decoder *d, uint64_t *addr)
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

/* Read from @img from now on (flow.h, image_for_context): a new image
 * empties the block cache, so a walk inside a block goes on from its
 * address, looked up afresh in @img. */
static void switch_image(struct etm4_flow_decoder *d, const struct image *img)
{
	if (img == d->cache.image)
		return;
	if (d->pos == POS_BLOCK) {
		d->addr = d->blk->insn[d->idx].addr;
		d->isa = d->blk->isa;
		d->pos = POS_ADDR;
		d->pos_is = -1;
	}
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	flow_cache_set_image(&d->cache, img);
}

static void emit_context(struct etm4_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e = emit(d, etmkit_elem_context, offset);

	e->flags = ETMKIT_CTX_EL;
	e->u.context.el = d->el;
	e->u.context.aarch64 = d->sf;
	e->u.context.ns = d->ns;
	e->u.context.sec = (uint8_t)((d->nse ? 2 : 0) | d->ns);
	flow_context_ids(e, d->has_cid, d->cid, d->has_vmid, d->vmid);
	d->ctx_sent = 1;
	if (d->image_for_context)
		switch_image(d, d->image_for_context(d->image_ctx, e));
}

static void apply_context(struct etm4_flow_decoder *d, const struct ent *c)
{
	uint8_t el = c->x & CTX_EL_MASK, sf = !!(c->x & CTX_SF);
	uint8_t ns = !!(c->x & CTX_NS), nse = !!(c->x & CTX_NSE);
	int changed = !d->ctx_sent || el != d->el || sf != d->sf ||
		      ns != d->ns || nse != d->nse;

	d->el = el;
	d->sf = sf;
	d->ns = ns;
	d->nse = nse;
	if (c->x & CTX_CID) {
		changed |= !d->has_cid || d->cid != c->b;
		d->has_cid = 1;
		d->cid = c->b;
	}
	if (c->x & CTX_VMID) {
		changed |= !d->has_vmid || d->vmid != c->c;
		d->has_vmid = 1;
		d->vmid = c->c;
	}
	d->ctx_valid = 1;
	d->space = current_space(d);
	if (d->pos == POS_ADDR && d->pos_is >= 0)
		d->isa = isa_of(d, (unsigned)d->pos_is);
	if (changed)
		emit_context(d, c->offset);
}

/* An exception (D4.3.5.2, digest 7.8): the instructions before its
 * preferred return address, then the exception. Returns 0 when the
 * output filled first. */
static int walk_exception(struct etm4_flow_decoder *d, struct ent *e)
{
	unsigned interp = e->x & 3, has_addr = (e->x >> 3) & 1;
	struct etmkit_elem *x;
	uint64_t at;

	if (!d->atom_started) {
		d->atom_started = 1;
		d->budget = F4_WALK_BUDGET;
		if (d->pop_pending)
			rs_pop(d);
		if (has_addr && interp == etm4_exc_addr_target) {
			/* The return address is also the previous P0's
			 * target: nothing ran there (digest 5.5). */
			go_to_is(d, e->a, (e->x >> 2) & 1);
		} else if (has_addr && next_addr(d, &at) && at > e->a) {
			/* Execution is already past the return address
			 * (after a Q, whose path is not traced): no range
			 * can end there. */
			d->pos = POS_NONE;
		}
	}
	if (has_addr && d->pos != POS_NONE &&
	    !walk_until(d, e->a, NULL, WALK_EXC, e->offset))
		return 0;
	d->atom_started = 0;
	x = emit(d, etmkit_elem_exception, e->offset);
	x->flags = ETMKIT_EXC_ETM4 | (has_addr ? ETMKIT_EXC_RET_ADDR : 0);
	x->u.exception.number = (uint16_t)e->c;
	x->u.exception.ret_addr = e->a;
	/* The handler's address comes in the next Target Address. Until it
	 * does, execution is taken to resume at the return address, as
	 * OpenCSD 1.8.0 does (ete_spec_2 commits an atom there before a
	 * Discard); D4.3.5.2 and D4.3.6.2 do not say what an atom with no
	 * Target Address after an exception means. UNCONFIRMED. */
	if (has_addr) {
		go_to_is(d, e->a, (e->x >> 2) & 1);
	} else {
		d->pos = POS_NONE;
		d->blk = NULL;
		d->link_from = NULL;
	}
	return 1;
}

/* Whether @count instructions from the current position, straight on
 * (the path inside a Q is not traced), end where a Q with target @target
 * says: the last one falls through to it, branches to it directly, or
 * branches indirectly. OpenCSD 1.8.0 makes the same check before listing
 * a Q's instructions (else "I_RANGE_NOPATH"). Leaves the position as an
 * address: the walk looks its blocks up again. */
static int q_path_known(struct etm4_flow_decoder *d, uint32_t count,
			uint64_t target)
{
	uint64_t addr;
	uint8_t isa = d->isa;
	const struct flow_insn *last = NULL;
	struct flow_block *b = NULL;

	if (!count || !next_addr(d, &addr))
		return 0;
	if (d->pos == POS_BLOCK)
		isa = d->blk->isa;
	go_to(d, addr, isa);
	while (count) {
		uint8_t loss;
		uint32_t i;

		b = flow_cache_get(&d->cache, addr, isa, d->space, &loss);
		if (!b)
			return 0;
		for (i = 0; i < b->n && count; i++, count--)
			last = &b->insn[i];
		if (count) {
			addr = flow_block_end(b);
			if (b->target_isa != isa && (last->flags &
						      INSN_F_ISA_SWITCH))
				return 0;
		}
	}
	if (last->addr + last->head[2] == target)
		return 1;
	if (!(last->flags & INSN_F_BRANCH))
		return 0;
	if (last->flags & INSN_F_INDIRECT)
		return 1;
	/* the last instruction ends its block: b->target is its target */
	return last == &b->insn[b->n - 1] && b->target == target;
}

/* A Q element (D4.3.5.4): count instructions from the current address,
 * path untraced; execution goes on at the target. The instructions are
 * listed when going straight on explains the count (q_path_known());
 * otherwise only the q element says how many ran. */
static int walk_q(struct etm4_flow_decoder *d, struct ent *e)
{
	unsigned has_count = e->x & 1, has_target = (e->x >> 1) & 1;

	if (!d->atom_started) {
		struct etmkit_elem *x;

		d->atom_started = 1;
		if (d->pop_pending)
			rs_pop(d);
		x = emit(d, etmkit_elem_q, e->offset);
		if (!next_addr(d, &x->addr))
			x->addr = 0;
		x->isa = d->pos != POS_NONE ? d->isa : etmkit_isa_unknown;
		if (d->pos == POS_BLOCK)
			x->isa = d->blk->isa;
		x->u.q.target = e->a;
		x->u.q.count = has_count ? e->b : 0;
		if (!has_count || !has_target ||
		    !q_path_known(d, e->b, e->a))
			d->pos = POS_NONE;
	}
	if (has_count && d->pos != POS_NONE) {
		if (!walk_until(d, 0, &e->b, WALK_Q, e->offset))
			return 0;
	}
	d->atom_started = 0;
	if (has_target)
		go_to_is(d, e->a, (e->x >> 2) & 1);
	else
		d->pos = POS_NONE;
	return 1;
}

/* A Source Address element (D4.3.5.3): every instruction up to and
 * including the one at the address ran, P0 instructions before it were
 * not taken, the one at the address was. */
static int walk_source(struct etm4_flow_decoder *d, struct ent *e)
{
	struct flow_block *b;
	const struct flow_insn *fi;
	struct etmkit_elem *x;

	if (!d->atom_started) {
		uint64_t at;

		d->atom_started = 1;
		d->budget = F4_WALK_BUDGET;
		if (d->pop_pending)
			rs_pop(d);
		if (!next_addr(d, &at) || at > e->a)
			go_to_is(d, e->a, e->x & 1);
	}
	if (!walk_until(d, e->a, NULL, WALK_SRC, e->offset))
		return 0;
	if (room(d) < 2)
		return 0;
	d->atom_started = 0;
	if (d->pos == POS_BLOCK && d->blk->insn[d->idx].addr != e->a)
		go_to_is(d, e->a, e->x & 1); /* passed a P0 */
	if (!ready(d, e->offset)) {
		d->stats.atoms_lost++;
		return 1;
	}
	b = d->blk;
	fi = &b->insn[d->idx];
	x = put_insn(d, fi, e->offset);
	/* The range ends at the source address whatever the image holds
	 * there, so that a consumer sees where it ended. */
	x->flags = ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC;
	if (fi->flags & d->p0_flags)
		after_p0(d, b, 1);
	else if (++d->idx == b->n)
		leave_block(d, b, 0, flow_block_end(b), b->isa);
	return 1;
}

static void flush_rs(struct etm4_flow_decoder *d)
{
	d->rs_n = 0;
	d->pop_pending = 0;
}

/* Deliver walk-queue entry @e. Returns 1 when it is used up, 0 when the
 * output filled first. */
static int walk_entry(struct etm4_flow_decoder *d, struct ent *e)
{
	struct etmkit_elem *x;

	switch (e->kind) {
	case K_ATOM:
		if (d->pos == POS_NONE && !d->pop_pending && !d->atom_started) {
			/* Nowhere to walk from: the whole run is lost. */
			d->stats.atoms_lost += e->n;
			e->n = 0;
			return 1;
		}
		while (e->n) {
			if (!walk_atom(d, e->b & 1, e->offset))
				return 0;
			e->b >>= 1;
			e->n--;
		}
		return 1;
	case K_EXC:
		return walk_exception(d, e);
	case K_Q:
		return walk_q(d, e);
	case K_SRC:
		return walk_source(d, e);
	case K_TSTART_P0:
	case K_TSTART:
		x = emit(d, etmkit_elem_transaction, e->offset);
		x->u.txn.what = etmkit_txn_start;
		return 1;
	case K_TCOMMIT:
		x = emit(d, etmkit_elem_transaction, e->offset);
		x->u.txn.what = etmkit_txn_commit;
		return 1;
	case K_TFAIL:
		x = emit(d, etmkit_elem_transaction, e->offset);
		x->u.txn.what = etmkit_txn_fail;
		d->pop_pending = 0;
		if (e->x & 1)
			go_to_is(d, e->a, (e->x >> 1) & 1);
		else
			d->pos = POS_NONE;
		return 1;
	case K_ADDR:
		target_address(d, e->a, e->x & 1);
		return 1;
	case K_CTX:
		apply_context(d, e);
		return 1;
	case K_TRACE_ON:
		x = emit(d, etmkit_elem_trace_on, e->offset);
		x->u.trace_on.reason = d->overflowed ? etmkit_on_overflow :
						       etmkit_on_trace_enable;
		d->overflowed = 0;
		d->pos = POS_NONE;
		d->blk = NULL;
		flush_rs(d);
		d->ctx_sent = 0; /* report the context again */
		return 1;
	case K_TINFO:
		/* The return stack starts empty, and takes nothing until the
		 * next Target Address (digest 7.4). */
		flush_rs(d);
		d->rs_no_push = 1;
		return 1;
	case K_EXC_RET:
		emit(d, etmkit_elem_exception_return, e->offset);
		return 1;
	case K_TS:
		x = emit(d, etmkit_elem_timestamp, e->offset);
		x->u.timestamp.value = e->a;
		return 1;
	case K_CC:
		if (!d->cc_on)
			return 1;
		x = emit(d, etmkit_elem_cycle_count, e->offset);
		x->flags = ETMKIT_CC_COMMIT | (e->x ? ETMKIT_CC_UNKNOWN : 0);
		x->cycles = e->x ? 0 : e->b;
		return 1;
	case K_EVENT:
		x = emit(d, etmkit_elem_event, e->offset);
		x->u.event.bits = e->x;
		return 1;
	case K_ITE:
		x = emit(d, etmkit_elem_instrumentation, e->offset);
		x->u.ite.value = e->a;
		x->u.ite.el = e->x;
		return 1;
	case K_MARKER:
		emit(d, etmkit_elem_ts_marker, e->offset);
		return 1;
	case K_GAP:
		x = emit(d, etmkit_elem_gap, e->offset);
		x->u.loss.reason = e->x;
		x->u.loss.why = (const char *)(uintptr_t)e->a;
		d->pos = POS_NONE;
		d->blk = NULL;
		flush_rs(d);
		d->ctx_sent = 0;
		return 1;
	case K_OVERFLOW:
		emit(d, etmkit_elem_overflow, e->offset);
		d->pos = POS_NONE;
		d->blk = NULL;
		flush_rs(d);
		return 1;
	case K_DISCARD:
		d->pos = POS_NONE;
		d->blk = NULL;
		return 1;
	case K_UNSEEN: /* before the trace: nothing to walk */
	default:
		return 1;
	}
}

/* Walk the walk queue. Returns 1 when it is empty. */
static int walk(struct etm4_flow_decoder *d)
{
	while (d->dh < d->dt) {
		if (room(d) < F4_ROOM || !walk_entry(d, &d->done[d->dh]))
			return 0;
		d->dh++;
	}
	d->dh = d->dt = 0;
	return 1;
}

/* Atoms @bits (@n, the oldest in bit 0) of the packet at @off, to be
 * walked after what the walk queue holds: its last entry. */
static void queue_atoms(struct etm4_flow_decoder *d, uint32_t bits,
			unsigned n, uint64_t off)
{
	struct ent *e = done_push(d);

	memset(e, 0, sizeof(*e));
	e->kind = K_ATOM;
	e->offset = off;
	e->b = bits;
	e->n = (uint8_t)n;
}

/* Atoms @bits (@n, the oldest in bit 0) of the packet at @off, when all
 * of them are committed at once and nothing is queued before them: walked
 * at once, without the queues. *@pclosed: the last element is known not
 * to be an open range (reading it back right after writing it stalls on
 * store forwarding), in and out. Returns 1, or 0 when the output filled
 * (the atoms left are then the walk queue's only entry). @tally:
 * d->tally, a constant in each of walk_atoms_now()'s two copies. */
static inline __attribute__((always_inline)) int
walk_atoms_loop(struct etm4_flow_decoder *d, uint32_t bits, unsigned n,
		uint64_t off, int *pclosed, const int tally)
{
	int closed = *pclosed;
	/* Fixed at alloc: kept in registers (stores to elements may alias
	 * the decoder as far as the compiler knows). */
	const uint32_t p0_flags = d->p0_flags;
	const int ranges = d->ranges;

	while (n) {
		/* The common case in a tight loop: the walk stands at the start
		 * of a block ending in a P0 instruction, with room for all of
		 * it. Anything else is walk_atom()'s (which alone starts an
		 * atom it does not finish). */
		while (n && !d->atom_started) {
			struct flow_block *b, *nb;
			const struct flow_insn *fi;
			struct etmkit_elem *e;
			uint32_t bn, f;
			unsigned taken = bits & 1;

			if (F4_UNLIKELY(d->pos != POS_BLOCK)) {
				/* walk_atom()'s start of an atom. */
				if (d->pop_pending)
					rs_pop(d);
				/* Nowhere to walk from: this atom and the
				 * packet's others are lost. */
				if (d->pos == POS_NONE ||
				    (room(d) >= 2 && !resolve(d, off))) {
					d->stats.atoms_lost += n;
					*pclosed = closed;
					return 1;
				}
				if (d->pos != POS_BLOCK)
					break; /* no room */
			}
			b = d->blk;
			bn = b->n;
			fi = &b->insn[bn - 1];
			f = fi->flags;
			if (d->idx || !(f & p0_flags) || room(d) < bn + 1)
				break;
			if (tally && (closed || last_closed(d))) {
				tally_run(d, b, taken, off);
			} else {
				e = ranges ? put_range(d, b, 0, bn, off,
						       !closed) :
					     put_insns(d, b, 0, bn, off, 1);
				e->flags = (uint8_t)(ETMKIT_INSN_P0 |
					   (taken ? ETMKIT_INSN_EXEC :
						    ETMKIT_INSN_COND_FAIL));
			}
			closed = 1; /* the last element: a closed range (or
				       no_image after it, below) */
			nb = !taken || !(f & INSN_F_BRANCH) ? b->succ[0] :
			     !(f & (INSN_F_INDIRECT | INSN_F_CALL)) ?
			     b->succ[1] : NULL;
			if (nb)
				d->blk = nb;
			else
				after_p0(d, b, taken);
			bits >>= 1;
			n--;
		}
		if (!n)
			break;
		closed = 0;
		if (!walk_atom(d, bits & 1, off)) {
			queue_atoms(d, bits, n, off);
			*pclosed = 0;
			return 0;
		}
		bits >>= 1;
		n--;
	}
	*pclosed = closed;
	return 1;
}

static int walk_atoms_now(struct etm4_flow_decoder *d, uint32_t bits,
			  unsigned n, uint64_t off, int *pclosed)
{
	return d->tally ? walk_atoms_loop(d, bits, n, off, pclosed, 1) :
			  walk_atoms_loop(d, bits, n, off, pclosed, 0);
}

/* Deliver the speculation queue, which holds no P0 element: 1, or 0 when
 * the output filled (the rest waits in the walk queue). */
static int flush_spec(struct etm4_flow_decoder *d)
{
	/* Walked where they are: copying an entry just written stalls on
	 * store forwarding. The walk queue is empty (atom_run()). */
	for (; d->sh != d->st; d->sh++) {
		struct ent *e = spec_at(d, d->sh);

		if (e->kind == K_DEAD)
			continue;
		if (room(d) < F4_ROOM || !walk_entry(d, e))
			break;
	}
	if (d->sh == d->st)
		return 1;
	/* The output filled: the rest waits in the walk queue. */
	for (; d->sh != d->st; d->sh++) {
		struct ent *e = spec_at(d, d->sh);

		if (e->kind != K_DEAD)
			*done_push(d) = *e;
	}
	return 0;
}

/* Whether every P0 element is committed as it comes and nothing waits
 * for an address: synced, MAXSPEC 0 (digest 7.2), nothing speculative,
 * nothing pending. */
static inline int commits_at_once(const struct etm4_flow_decoder *d)
{
	return d->synced && !d->info.maxspec && !d->depth && !d->pend;
}

/* ETM4_FLOW_RANGES, in run_direct()'s state with nothing speculative and
 * the last element no open range: the packets of run record @p from byte
 * *@ph and address *@pia on, while each atom covers a whole block ending
 * in a P0 instruction (an atom is the instructions up to and including
 * the next P0 one, D4.3.5.1) and the output has room. Each atom's element
 * is a copy of its block's range template (block.h); the walk follows the
 * blocks' successor links, and after_p0() where none is known yet; a
 * Target Address is walked at once (run_direct()). Stops at the run's end
 * (*@pn 0) or at an atom packet the general path must go on with:
 * *@ph is then its byte, *@pbits and *@pn its atoms not walked yet.
 * @tally (d->tally, a constant in each of run_ranges()'s two copies): the
 * atoms' ranges are counted (tally_run()), not written. */
static inline __attribute__((always_inline)) void
run_ranges_loop(struct etm4_flow_decoder *d, const struct etm4_packet *p,
		uint32_t *ph, uint32_t *pia, uint32_t *pbits, unsigned *pn,
		const int tally)
{
	/* In locals: stores to elements may alias them as far as the
	 * compiler knows. */
	const struct etm4_atom_run *r = &p->u.run;
	const struct etm4_atoms *tab = d->atoms;
	const uint8_t *hd = r->headers;
	const uint64_t *offs = r->offsets, base = p->offset;
	const struct etm4_run_addr *addrs = r->addrs;
	const uint32_t p0_flags = d->p0_flags, count = r->count;
	struct etmkit_elem *e = &d->out[d->n];
	struct etmkit_elem *const end = &d->out[F4_OUT - 1]; /* room(d) >= 2 */
	uint32_t h = *ph, ia = *pia, bits = 0;
	unsigned n = 0;
	uint64_t insns = 0, packets = 0, lost = 0;
	/* The walk's block while it only follows successor links: the walk
	 * stays at the start of a block, no atom begun (d->blk is set on
	 * leaving); NULL: look at d. */
	struct flow_block *b = NULL;

	for (; h < count; h++, packets++) {
		const struct etm4_atoms *a = &tab[hd[h]];
		uint64_t off;

		if (!a->count) {
			const struct etm4_run_addr *x = &addrs[ia++];

			target_address(d, x->addr.addr, x->addr.is);
			h += x->length - 1;
			/* An atom next (no Context between can change the
			 * instruction set or memory space, D4.3.6.3): the
			 * guess resolve() would take at it, taken now. */
			b = h + 1 < count && tab[hd[h + 1]].count ?
				    ind_guess(d) : NULL;
			continue;
		}
		off = offs ? offs[h] : base + h;
		bits = a->bits;
		for (n = a->count; n; n--, bits >>= 1) {
			struct flow_block *nb;
			unsigned taken = bits & 1, slot;
			uint32_t f;

			if (!b) {
				/* walk_atoms_now()'s start of an atom */
				if (d->atom_started || e >= end)
					goto out;
				if (d->pos != POS_BLOCK) {
					if (d->pop_pending)
						rs_pop(d);
					d->n = (size_t)(e - d->out);
					if (d->pos == POS_NONE ||
					    !resolve(d, off)) {
						/* this atom and the packet's
						 * others are lost */
						e = &d->out[d->n];
						lost += n;
						n = 0;
						break;
					}
				}
				if (d->idx)
					goto out;
				b = d->blk;
			}
			if (e >= end)
				goto out;
			f = b->range.class_flags;
			if (!(f & p0_flags))
				goto out; /* ended by its size or the image */
			if (tally) {
				/* may deliver another range: 2 elements */
				d->n = (size_t)(e - d->out);
				tally_run(d, b, taken, off);
				e = &d->out[d->n];
			} else {
				e->offset = off;
				memcpy(&e->addr, &b->range, sizeof(b->range));
				/* Without a branch on the atom, which follows
				 * no pattern: E is EXEC, N is COND_FAIL =
				 * EXEC + 1. */
				e->flags = (uint8_t)((ETMKIT_INSN_P0 |
						      ETMKIT_INSN_COND_FAIL) -
						     taken);
				e++;
				insns += b->range.count;
			}
			/* Not taken, or no branch: the next instruction
			 * (slot 0); taken: the target (slot 1), unless
			 * indirect or a call; those, and successors not
			 * linked yet, are after_p0()'s. */
			slot = taken & f & INSN_F_BRANCH;
			nb = b->succ[slot];
			if (F4_UNLIKELY(!nb) ||
			    (slot && (f & (INSN_F_INDIRECT | INSN_F_CALL)))) {
				after_p0(d, b, taken);
				nb = NULL;
			}
			b = nb;
		}
	}
out:
	if (b)
		d->blk = b;
	d->n = (size_t)(e - d->out);
	d->stats.insns += insns;
	d->stats.packets += packets;
	d->stats.atoms_lost += lost;
	*ph = h;
	*pia = ia;
	*pbits = bits;
	*pn = n;
}

static void run_ranges(struct etm4_flow_decoder *d,
		       const struct etm4_packet *p, uint32_t *ph,
		       uint32_t *pia, uint32_t *pbits, unsigned *pn)
{
	if (d->tally)
		run_ranges_loop(d, p, ph, pia, pbits, pn, 1);
	else
		run_ranges_loop(d, p, ph, pia, pbits, pn, 0);
}

/* Run record @p from byte *@ph and address *@pia on, in the state where
 * every P0 element is committed as it comes and nothing waits for an
 * address (synced, MAXSPEC 0, depth 0, nothing pending: digest 7.2), which
 * its atoms and addresses leave as it is. Atoms are walked at once
 * (walk_atoms_now()). A Target Address with nothing queued would be the
 * next entry walked, and nothing can remove it first (no P0 element to
 * cancel or mispredict; Discard, Overflow and errors leave the position
 * unknown either way): it is walked at once too. What waits in the
 * speculation queue is not P0 and precedes the next atom: delivered first,
 * as commit() would. Returns 1 at the run's end, 0 when the output
 * filled. */
static int run_direct(struct etm4_flow_decoder *d, const struct etm4_packet *p,
		      uint32_t *ph, uint32_t *pia)
{
	const struct etm4_atom_run *r = &p->u.run;
	const struct etm4_atoms *tab = d->atoms;
	const uint8_t *hd = r->headers;
	uint32_t h = *ph, ia = *pia, count = r->count;
	uint64_t packets = 0, lost = 0;
	int ok = 1;
	/* walk_atoms_now()'s, kept from packet to packet; read back once
	 * per run */
	int closed = !d->n ||
		     d->out[d->n - 1].kind != etmkit_elem_insn_range ||
		     d->out[d->n - 1].flags != ETMKIT_INSN_EXEC;
	uint32_t bits;
	unsigned left;

	while (h < count) {
		const struct etm4_atoms *a = &tab[hd[h]];
		uint64_t off;

		if (d->ranges && closed && d->sh == d->st) {
			run_ranges(d, p, &h, &ia, &bits, &left);
			if (!left)
				break; /* the run's end */
			a = &tab[hd[h]];
		} else {
			bits = a->bits;
			left = a->count;
		}
		packets++;
		/* (offsets only where an element may take them) */
		if (!a->count) {
			const struct etm4_run_addr *x = &r->addrs[ia++];

			h += x->length;
			if (d->sh == d->st) {
				target_address(d, x->addr.addr, x->addr.is);
				continue;
			}
			off = r->offsets ? r->offsets[h - x->length] :
					   p->offset + h - x->length;
			on_address(d, off, &x->addr);
			if (commits_at_once(d))
				continue;
			/* The speculation queue overflowed: sync is lost
			 * (protocol_error()); the rest of the run is not
			 * this loop's, and its gap comes first. */
			ok = !d->dt || walk(d);
			break;
		}
		off = r->offsets ? r->offsets[h] : p->offset + h;
		h++;
		if (d->sh != d->st) {
			closed = 0;
			if (!flush_spec(d)) {
				queue_atoms(d, a->bits, a->count, off);
				ok = 0;
				break;
			}
		}
		if (d->pos == POS_NONE && !d->pop_pending && !d->atom_started) {
			lost += left; /* nowhere to walk from */
			continue;
		}
		if (!walk_atoms_now(d, bits, left, off, &closed)) {
			ok = 0;
			break;
		}
	}
	d->stats.packets += packets;
	d->stats.atoms_lost += lost;
	*ph = h;
	*pia = ia;
	return ok;
}

/* The packet at byte @h (address *@pia if it is one) of run record @p,
 * given to on_packet() as the record it stands for. Returns the byte after
 * it, with *@full set when the output filled. */
static uint32_t run_packet(struct etm4_flow_decoder *d,
			   const struct etm4_packet *p, uint32_t h,
			   uint32_t *pia, int *full)
{
	const struct etm4_atom_run *r = &p->u.run;
	const struct etm4_atoms *a = &d->atoms[r->headers[h]];
	struct etm4_packet q; /* on_packet() reads the fields set here */
	uint32_t next = h + 1;

	q.offset = r->offsets ? r->offsets[h] : p->offset + h;
	q.error = 0;
	if (a->count) {
		q.type = etm4_pkt_atom;
		q.u.atoms = *a;
	} else {
		q.type = etm4_pkt_address;
		q.u.a.addr = r->addrs[*pia].addr;
		next = h + r->addrs[(*pia)++].length;
	}
	d->stats.packets++;
	on_packet(d, &q);
	*full = d->dt && !walk(d);
	return next;
}

/* The packets of run record @p (ETM4_CFG_ADDR_RUNS) from byte d->run_h
 * and address d->run_a on. Returns 1 when the run is done, 0 when the
 * output filled (d->run_h and d->run_a say where to go on). */
static int atom_run(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	uint32_t h = d->run_h, ia = d->run_a;
	int full = 0;

	while (h < p->u.run.count && !full) {
		if (commits_at_once(d))
			full = !run_direct(d, p, &h, &ia);
		else
			h = run_packet(d, p, h, &ia, &full);
	}
	if (full) {
		d->run_h = h;
		d->run_a = ia;
		return 0;
	}
	d->run_h = d->run_a = 0;
	return 1;
}

/* ---- Driving ------------------------------------------------------------ */

static int refill(struct etm4_flow_decoder *d)
{
	return flow_drive_refilled(&d->drv,
				   etm4_pkt_next(d->pkt, d->batch, F4_BATCH));
}

/* End of the trace: what precedes the first uncommitted P0 element and is
 * never cancelled is delivered; the rest is unknown (digest 7.6). */
static void end_of_trace(struct etm4_flow_decoder *d)
{
	for (uint32_t i = d->sh; i != d->st; i++) {
		struct ent *e = spec_at(d, i);

		if (IS_P0(e->kind))
			break;
		if (IS_KEPT(e->kind))
			*done_push(d) = *e;
	}
	d->sh = d->st = 0;
	d->depth = 0;
	d->pend = d->pend_ctx = 0;
}

static void decode(struct etm4_flow_decoder *d)
{
	d->drv.full = 1;
	if (!walk(d))
		return;
	if (d->drv.gap_pending) {
		struct etmkit_elem *e;

		drop_speculative(d);
		if (!walk(d))
			return;
		e = emit(d, etmkit_elem_gap, d->drv.gap_offset);
		flow_drive_gap_elem(&d->drv, e);
		reset_trace_state(d);
	}
	for (;;) {
		if (d->drv.ibatch >= d->drv.nbatch &&
		    (d->drv.stopped || !refill(d))) {
			if (d->drv.finishing && !d->drv.stopped) {
				end_of_trace(d);
				if (!walk(d))
					return;
			}
			d->drv.full = 0;
			return;
		}
		if (d->batch[d->drv.ibatch].type == etm4_pkt_atom_run) {
			if (!atom_run(d, &d->batch[d->drv.ibatch]))
				return;
			d->drv.ibatch++;
			continue;
		}
		d->stats.packets++;
		on_packet(d, &d->batch[d->drv.ibatch++]);
		if (d->dt && !walk(d))
			return;
	}
}

static void drop_delivered(struct etm4_flow_decoder *d)
{
	flow_drop_delivered(d->out, &d->n, &d->delivered);
}

int etm4_flow_batch(struct etm4_flow_decoder *d,
		    const struct etmkit_elem **elems)
{
	if (!d || !elems)
		return -etmkit_err_invalid;
	drop_delivered(d);
	flow_cache_sync(&d->cache);
	decode(d);
	/* At the end of the trace or where an error stopped it, the counted
	 * ranges (before, they wait for more: the input comes in pieces),
	 * unless the last element is a range a packet cut: its rest comes
	 * first, in the next batch. */
	if (tally_waits(d) && (d->drv.finishing || d->drv.stopped) &&
	    !d->drv.full &&
	    (!d->n || range_closed(&d->out[d->n - 1]) ||
	     d->out[d->n - 1].kind != etmkit_elem_insn_range))
		tally_flush(d);
	if (d->n)
		d->last_closed = (uint8_t)range_closed(&d->out[d->n - 1]);
	d->stats.blocks = d->cache.blocks - d->blocks_base;
	d->stats.cache_flushes = d->cache.flushes - d->flushes_base;
	d->delivered = d->n;
	/* Stopped for room with a range still open: it is kept back, so
	 * that the rest of its packet's instructions extend it. */
	if (d->drv.full && d->n > 1 &&
	    d->out[d->n - 1].kind == etmkit_elem_insn_range &&
	    d->out[d->n - 1].flags == ETMKIT_INSN_EXEC)
		d->delivered = d->n - 1;
	*elems = d->out;
	if (!d->delivered)
		return d->drv.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)d->delivered;
}

/* feed, finish, gap and next: the skeleton's (flow_driver.h). */
FLOW_DRIVE_API(etm4, struct etm4_packet)
