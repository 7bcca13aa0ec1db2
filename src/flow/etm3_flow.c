/* ETMv3 flow decoder: packets and the program image to execution elements.
 *
 * ETMv3 traces one atom per instruction (IHI 0014Q 7.3.1): E, executed
 * and passed its condition; N, failed its condition; in cycle-accurate
 * mode W marks a cycle boundary. The decoder walks the image one
 * instruction per E/N atom. After a taken direct branch it continues at
 * the target the opcode gives; after a taken indirect branch the next
 * address comes in a branch address packet, which follows the P-header
 * holding the branch's atom (7.3.5). Branch packets with exception
 * information report exceptions; their Cancel bit says the last traced
 * instruction did not complete, so the last instruction is delivered only
 * once the next packet that could cancel it has been seen.
 *
 * Cycles (cycle-accurate mode) are charged as Arm DS-5 does: an
 * instruction gets the W atoms seen since the previous instruction's atom,
 * including the W of its own P-header group.
 *
 * Data packets belong to the most recently traced data instruction
 * (7.4.2); out-of-order data to the instruction of its placeholder
 * (7.4.3), matched by the packet decoder.
 */
#include <stddef.h>
#include <stdlib.h>
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
#define FLOW_W_CAP 0xFFFF0000u
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

enum flow_pos {
	POS_NONE = 0, /* next address unknown */
	POS_ADDR,     /* next address known, block not looked up yet */
	POS_BLOCK     /* next instruction is blk->insn[idx] */
};

struct etm3_flow_decoder {
	struct etm3_pkt_decoder *pkt;
	struct etm3_config_info info;
	struct flow_ph ph[256];
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
	 * out by the last etm3_flow_batch(). */
	size_t n, delivered;
	long hold;               /* q[hold] may still be canceled, or -1 */
	long open;               /* ETM3_FLOW_RANGES: q[open] is a range the
				    next instruction may extend, or -1 */
	uint8_t ranges;          /* ETM3_FLOW_RANGES */
	struct etmkit_elem q[FLOW_QUEUE];

	struct etm3_flow_stats stats;
	uint64_t blocks_base, flushes_base; /* the cache's counts at reset */

	etmkit_image_for_context_fn image_for_context; /* flow.h */
	void *image_ctx;
};

/* ---- Set-up ------------------------------------------------------------- */

void etm3_flow_config_init(struct etm3_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm3_config_init(&cfg->etm);
}

static void reset_trace_state(struct etm3_flow_decoder *d)
{
	d->open = -1;
	d->synced = 0;
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->waiting = 0;
	d->lost_reported = 0;
	d->w = 0;
	d->gap_w = 0;
	d->ctx_sent = 0;
	d->vmid_seen = 0;
	d->last_valid = 0;
	d->data_insn_valid = 0;
	memset(d->ooo, 0, sizeof(d->ooo));
}

static void build_ph(struct etm3_flow_decoder *d, const struct etm3_atoms *t)
{
	for (unsigned b = 0; b < 256; b++) {
		struct flow_ph *ph = &d->ph[b];
		unsigned w = 0;

		memset(ph, 0, sizeof(*ph));
		for (unsigned a = 0; a < t[b].count; a++) {
			unsigned k = (t[b].bits >> (2 * a)) & 3;

			if (k == etm3_atom_w) {
				w++; /* at most 8 in a row (format 3) */
				continue;
			}
			ph->item[ph->n++] = (uint8_t)(w << 1 | (k == etm3_atom_e));
			w = 0;
		}
		ph->trail = (uint8_t)w;
	}
}

int etm3_flow_alloc(struct etm3_flow_decoder **out,
		    const struct etm3_flow_config *cfg)
{
	struct etm3_flow_decoder *d;
	struct etm3_config pc;
	int err;

	if (!out || !cfg ||
	    cfg->size < offsetof(struct etm3_flow_config, image_for_context) ||
	    cfg->etm.size < sizeof(cfg->etm))
		return -etmkit_err_invalid;
	*out = NULL;
	pc = cfg->etm;
	pc.flags |= ETM3_CFG_P_HEADER_RUNS;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	err = etm3_config_decode(&pc, &d->info);
	if (!err)
		err = etm3_pkt_alloc(&d->pkt, &pc);
	if (!err)
		err = flow_cache_init(&d->cache, cfg->image,
				      cfg->cache_bytes ? cfg->cache_bytes :
							 4u << 20,
				      (uint8_t)(ETMKIT_INSN_EXEC |
						(d->info.cycle_accurate ?
						 ETMKIT_INSN_CYCLES : 0)));
	if (err) {
		etm3_flow_free(d);
		return err;
	}
	build_ph(d, etm3_pkt_atom_table(d->pkt));
	if (cfg->size >= offsetof(struct etm3_flow_config, flags)) {
		d->image_for_context = cfg->image_for_context;
		d->image_ctx = cfg->image_ctx;
	}
	if (cfg->size >= sizeof(*cfg)) {
		if (cfg->flags & ~(uint32_t)ETM3_FLOW_RANGES) {
			etm3_flow_free(d);
			return -etmkit_err_invalid;
		}
		d->ranges = !!(cfg->flags & ETM3_FLOW_RANGES);
	}
	flow_drive_reset(&d->drv);
	d->hold = -1;
	reset_trace_state(d);
	*out = d;
	return 0;
}

void etm3_flow_free(struct etm3_flow_decoder *d)
{
	if (!d)
		return;
	etm3_pkt_free(d->pkt);
	flow_cache_fini(&d->cache);
	free(d);
}

void etm3_flow_reset(struct etm3_flow_decoder *d)
{
	if (!d)
		return;
	etm3_pkt_reset(d->pkt);
	flow_drive_reset(&d->drv);
	d->run_h = d->run_a = 0;
	d->n = d->delivered = 0;
	d->hold = -1;
	reset_trace_state(d);
	memset(&d->stats, 0, sizeof(d->stats));
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct etm3_flow_stats *
etm3_flow_get_stats(const struct etm3_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Output ------------------------------------------------------------- */

static struct etmkit_elem *emit(struct etm3_flow_decoder *d, uint8_t kind,
				uint64_t offset)
{
	struct etmkit_elem *e = &d->q[d->n++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	d->open = -1; /* an element between: the range ends */
	return e;
}

static size_t room(const struct etm3_flow_decoder *d)
{
	return FLOW_QUEUE - d->n;
}

/* What follows shows the held element completed. */
static void release(struct etm3_flow_decoder *d)
{
	d->hold = -1;
}

/* The memory space the core is in (image.h): ETMv3 knows the security
 * state and, from ETMv3.5, Hyp mode. */
static uint8_t current_space(const struct etm3_flow_decoder *d)
{
	if (!d->ns)
		return IMAGE_SPACE_S;
	return d->hyp ? IMAGE_SPACE_EL2 : IMAGE_SPACE_EL1N;
}

/* Read from @img from now on (flow.h, image_for_context): a new image
 * empties the block cache, so a walk inside a block goes on from its
 * address, looked up afresh in @img. */
static void switch_image(struct etm3_flow_decoder *d, const struct image *img)
{
	if (img == d->cache.image)
		return;
	if (d->pos == POS_BLOCK) {
		d->addr = d->blk->insn[d->idx].addr;
		d->isa = d->blk->isa;
		d->pos = POS_ADDR;
	}
	d->blk = NULL;
	d->link_from = NULL;
	flow_cache_set_image(&d->cache, img);
}

static void emit_context(struct etm3_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e = emit(d, etmkit_elem_context, offset);

	e->u.context.ns = d->ns;
	e->u.context.hyp = d->hyp;
	if (d->info.context_id_bytes) {
		e->flags |= ETMKIT_CTX_CONTEXT_ID;
		e->u.context.context_id = d->context_id;
	}
	if (d->vmid_seen) {
		e->flags |= ETMKIT_CTX_VMID;
		e->u.context.vmid = d->vmid;
	}
	d->ctx_sent = 1;
	if (d->image_for_context)
		switch_image(d, d->image_for_context(d->image_ctx, e));
}

/* Set the context; report it if it changed (or was never reported since
 * trace began). */
static void set_context(struct etm3_flow_decoder *d, uint64_t offset,
			uint8_t ns, uint8_t hyp, uint32_t cid)
{
	int changed = !d->ctx_sent || ns != d->ns || hyp != d->hyp ||
		      (d->info.context_id_bytes && cid != d->context_id);

	d->ns = ns;
	d->hyp = hyp;
	if (d->info.context_id_bytes)
		d->context_id = cid;
	d->space = current_space(d);
	if (changed && d->synced)
		emit_context(d, offset);
}

/* ---- Position ----------------------------------------------------------- */

static void go_to(struct etm3_flow_decoder *d, uint64_t addr, uint8_t isa)
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
static int next_addr(const struct etm3_flow_decoder *d, uint64_t *addr)
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

/* Make POS_ADDR a block. Returns 1, or 0 after reporting no_image (one
 * element: the caller made room). */
static int resolve(struct etm3_flow_decoder *d, uint64_t offset)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	uint8_t loss = etmkit_loss_misaligned;
	struct flow_block *b = NULL;

	/* Instructions are word-aligned in ARM state and halfword-aligned
	 * in Thumb and ThumbEE state (IHI 0014Q Table 7.20): only a damaged
	 * I-sync can name another address. */
	if (!(d->addr & (d->isa == etmkit_isa_arm ? 3u :
			 d->isa == etmkit_isa_jazelle ? 0u : 1u)))
		b = flow_cache_get(&d->cache, d->addr, d->isa, d->space, &loss);

	if (b) {
		if (d->link_from && gen == d->link_gen &&
		    gen == flow_cache_generation(&d->cache))
			d->link_from->succ[d->link_slot] = b;
		d->link_from = NULL;
		d->blk = b;
		d->idx = 0;
		d->pos = POS_BLOCK;
		return 1;
	}
	flow_no_image(emit(d, etmkit_elem_no_image, offset), d->addr, d->isa,
		      loss, d->space);
	d->pos = POS_NONE;
	d->link_from = NULL;
	d->lost_reported = 1;
	return 0;
}

/* After the last instruction of the block: go to successor @slot at
 * @addr. */
static void leave_block(struct etm3_flow_decoder *d, struct flow_block *b,
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
	d->blk = NULL;
	d->link_from = b;
	d->link_slot = (uint8_t)slot;
	d->link_gen = flow_cache_generation(&d->cache);
}

/* ---- Atoms -------------------------------------------------------------- */

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

/* Which way block @b is left after its last instruction @fi, executed if
 * @x: 1, a taken direct branch or instruction set change (to b->target);
 * 0, the next instruction (fall through or failed condition); -1, a taken
 * indirect branch, whose target comes in a branch packet (7.3.5). */
static FLOW_INLINE int exit_slot(const struct flow_insn *fi, unsigned x)
{
	if (!x || !(fi->flags & (INSN_F_BRANCH | INSN_F_ISA_SWITCH)))
		return 0;
	return (fi->flags & INSN_F_INDIRECT) ? -1 : 1;
}

/* An E/N atom whose instruction cannot be known. */
static void lose_atom(struct etm3_flow_decoder *d, uint64_t offset)
{
	d->stats.atoms_lost++;
	d->open = -1;
	d->w = 0;
	/* The atom's instruction came after the held one, which therefore
	 * completed; a Cancel or a data packet that follows refers to the
	 * unknown instruction, not to the last known one. */
	release(d);
	d->last_valid = 0;
	d->data_insn_valid = 0;
	if (d->synced && d->waiting && !d->lost_reported) {
		struct etmkit_elem *e = emit(d, etmkit_elem_gap, offset);

		e->u.loss.reason = etmkit_loss_no_address;
		e->u.loss.why = "atom after an indirect branch whose address "
				"was not traced";
		d->lost_reported = 1;
	}
}

/* After the last instruction of block @b, executed if @exec. */
static void block_end(struct etm3_flow_decoder *d, struct flow_block *b,
		      const struct flow_insn *fi, unsigned exec)
{
	int slot = exit_slot(fi, exec);

	if (slot < 0) {
		d->pos = POS_NONE;
		d->blk = NULL;
		d->waiting = 1;
		d->lost_reported = 0;
	} else if (slot) {
		leave_block(d, b, 1, b->target, b->target_isa);
	} else {
		leave_block(d, b, 0, flow_block_end(b), b->isa);
	}
}

/* ETM3_FLOW_RANGES: step()'s instruction @fi, into the open range or a
 * new one (out of line: step() inlines into the hot loop). */
static __attribute__((noinline)) void
step_range(struct etm3_flow_decoder *d, const struct flow_insn *fi,
	   unsigned exec, uint64_t offset)
{
	if (d->open >= 0) {
		d->hold = d->open;
		extend_range(&d->q[d->open], fi, exec, d->w);
	} else {
		d->hold = (long)d->n;
		put_range(&d->q[d->n++], fi, exec, offset, d->w);
	}
	d->open = range_goes_on(fi, exec) ? d->hold : -1;
}

/* One E (@exec 1) or N atom: the next instruction, with the W atoms in
 * d->w. The caller made room for two elements. */
static inline void step(struct etm3_flow_decoder *d, unsigned exec,
			uint64_t offset, int ranges)
{
	struct flow_block *b;
	const struct flow_insn *fi;

	if (d->pos != POS_BLOCK) {
		if (d->pos == POS_NONE || !resolve(d, offset)) {
			lose_atom(d, offset);
			return;
		}
	}
	b = d->blk;
	fi = &b->insn[d->idx];
	if (ranges) {
		step_range(d, fi, exec, offset);
	} else {
		d->hold = (long)d->n;
		put_insn(&d->q[d->n++], fi, exec, offset, d->w);
	}
	d->stats.insns++;
	d->w = 0;
	d->last_addr = fi->addr;
	d->last_valid = 1;
	if (exec && (fi->flags & FLOW_DATA_INSN)) {
		d->data_insn = fi->addr;
		d->data_insn_valid = 1;
	}
	if (++d->idx >= b->n)
		block_end(d, b, fi, exec); /* only a last instruction branches */
}

/* The walk's hot state, in locals of the hot loop (walk_run()): the
 * queue is inside the decoder, and the byte stores into each element may
 * alias anything, so state kept in *d would be reloaded after every store.
 * It goes back to *d (walk_save()) around the general step() and
 * block_end(), which handle a missing block, an unlinked successor and an
 * indirect branch. Every element the fast path writes is an instruction,
 * so the held one is the last written. */
struct walk {
	struct flow_block *b;         /* NULL unless d->pos is POS_BLOCK */
	const struct flow_insn *fi;   /* the next instruction in b */
	struct etmkit_elem *e;        /* the next free element */
	uint32_t w;
	uint64_t data;                /* data trace on: last data instruction */
	uint8_t data_valid;
};

/* ETM3_FLOW_RANGES: the walk's ranges (the walk functions' @ranges; NULL
 * in the per-instruction copies, where it folds away, leaving struct walk
 * as it was). */
struct walk_ranges {
	struct etmkit_elem *open;     /* the range the next one may extend */
	struct etmkit_elem *last;     /* the last instruction's range */
	uint32_t insns;               /* instructions since walk_load() */
};

static FLOW_INLINE void walk_load(struct etm3_flow_decoder *d, struct walk *k,
				  struct walk_ranges *ranges)
{
	k->b = d->pos == POS_BLOCK ? d->blk : NULL;
	k->fi = k->b ? &k->b->insn[d->idx] : NULL;
	k->e = &d->q[d->n];
	k->w = d->w;
	k->data = d->data_insn;
	k->data_valid = d->data_insn_valid;
	if (ranges) {
		ranges->open = d->open >= 0 ? &d->q[d->open] : NULL;
		ranges->last = NULL;
		ranges->insns = 0;
	}
}

static FLOW_INLINE void walk_save(struct etm3_flow_decoder *d,
				  const struct walk *k,
				  struct walk_ranges *ranges)
{
	size_t n = (size_t)(k->e - d->q);

	if (k->b) {
		d->blk = k->b;
		d->pos = POS_BLOCK;
		d->idx = (uint32_t)(k->fi - k->b->insn);
	}

	if (ranges) {
		/* Ranges: extended, or new since walk_load(). */
		if (ranges->insns) {
			d->stats.insns += ranges->insns;
			d->hold = (long)(ranges->last - d->q);
			d->last_addr = ranges->last->u.range.end -
				       ranges->last->size;
			d->last_valid = 1;
		}
		d->open = ranges->open ? (long)(ranges->open - d->q) : -1;
	} else if (n != d->n) {
		/* d->n is where walk_load() started: the elements since are
		 * instructions. */
		d->stats.insns += n - d->n;
		d->hold = (long)(k->e - 1 - d->q);
		d->last_addr = k->e[-1].addr;
		d->last_valid = 1;
	}
	d->n = n;
	d->w = k->w;
	d->data_insn = k->data;
	d->data_insn_valid = k->data_valid;
}

/* After @fi, the last instruction of k->b, executed if @x: follow a linked
 * successor here, anything else in block_end(). */
static FLOW_INLINE void walk_block_end(struct etm3_flow_decoder *d,
				       struct walk *k,
				       const struct flow_insn *fi, unsigned x,
				       struct walk_ranges *ranges)
{
	int slot = exit_slot(fi, x);
	struct flow_block *nb = slot < 0 ? NULL : k->b->succ[slot];

	if (nb) {
		k->b = nb;
		k->fi = nb->insn;
		return;
	}
	walk_save(d, k, ranges);
	d->idx++;
	block_end(d, k->b, fi, x);
	walk_load(d, k, ranges);
}

/* One E (@x 1) or N atom of the P-header at @off; W atoms in k->w. */
static FLOW_INLINE void walk_insn(struct etm3_flow_decoder *d,
				  struct walk *k, unsigned x, uint64_t off,
				  int data_on, struct walk_ranges *ranges)
{
	const struct flow_insn *fi = k->fi;
	struct etmkit_elem *e = k->e;

	if (!k->b) {
		walk_save(d, k, ranges);
		step(d, x, off, ranges != NULL); /* resolves, or loses
						    the atom */
		walk_load(d, k, ranges);
		return;
	}
	if (ranges) {
		if (ranges->open) {
			e = ranges->open;
			extend_range(e, fi, x, k->w);
		} else {
			k->e = e + 1;
			put_range(e, fi, x, off, k->w);
		}
		ranges->last = e;
		ranges->open = range_goes_on(fi, x) ? e : NULL;
		ranges->insns++;
	} else {
		k->e = e + 1;
		put_insn(e, fi, x, off, k->w);
	}
	k->w = 0;
	if (data_on && x && (fi->flags & FLOW_DATA_INSN)) {
		k->data = fi->addr;
		k->data_valid = 1;
	}
	if (FLOW_LIKELY(!fi->last)) {
		k->fi = fi + 1;
		return;
	}
	walk_block_end(d, k, fi, x, ranges);
}

_Static_assert(ETMKIT_INSN_COND_FAIL == ETMKIT_INSN_EXEC + 1,
	       "put_insn() computes the E/N flag");
_Static_assert(offsetof(struct etmkit_elem, addr) == 8 &&
	       offsetof(struct etmkit_elem, kind) == 16 &&
	       offsetof(struct etmkit_elem, flags) == 19 &&
	       offsetof(struct etmkit_elem, cycles) == 20 &&
	       offsetof(struct etmkit_elem, u.insn.opcode) == 24 &&
	       offsetof(struct etmkit_elem, u.insn.class_flags) == 28 &&
	       offsetof(struct flow_insn, head) == 8 &&
	       offsetof(struct flow_insn, last) == 12 &&
	       offsetof(struct flow_insn, opcode) == 16 &&
	       offsetof(struct flow_insn, flags) == 20 &&
	       sizeof(struct flow_insn) == 24,
	       "a flow_insn is bytes 8..32 of its element");
_Static_assert(sizeof(struct flow_ph) == 32, "flow_ph is indexed by shifting");

/* Instructions i..end of header @ph at @off, one element each at most
 * two (the caller made room). */
static FLOW_INLINE void walk_header(struct etm3_flow_decoder *d,
				    struct walk *k, const struct flow_ph *ph,
				    uint32_t i, uint32_t end, uint64_t off,
				    int data_on, struct walk_ranges *ranges)
{
	for (; i < end; i++) {
		unsigned v = ph->item[i];

		k->w += v >> 1;
		walk_insn(d, k, v & 1, off, data_on, ranges);
	}
}

/* Expand P-header run @p from header run_h, instruction run_a. Returns 1
 * when done, 0 when the queue is full (the position is kept). The hot
 * loop of the decoder, instantiated for runs with and without a per-byte
 * offset table (deframed input or not) and for data trace on or off (the
 * last data instruction is tracked only when data packets can come). */
static FLOW_INLINE int walk_run(struct etm3_flow_decoder *d,
				const struct etm3_packet *p, int offs_given,
				int data_on, int with_ranges)
{
	const struct etm3_p_header_run *r = &p->u.run;
	struct walk_ranges rs;
	struct walk_ranges *ranges = with_ranges ? &rs : NULL;
	const uint8_t *hdr = r->headers;
	const uint8_t *hp = hdr + d->run_h;
	const uint8_t *hend = hdr + r->count;
	/* Loaded once (stores may alias): a header's offset is obase plus
	 * its address when there is no table. */
	const uint64_t obase = p->offset - (uint64_t)(uintptr_t)hdr;
	struct walk k;

	walk_load(d, &k, ranges);
	if (d->run_a) {
		/* The rest of a header the last call stopped in. */
		const struct flow_ph *ph = &d->ph[*hp];

		walk_header(d, &k, ph, d->run_a, ph->n, offs_given ?
			    r->offsets[hp - hdr] : obase + (uint64_t)(uintptr_t)hp,
			    data_on, ranges);
		k.w += ph->trail;
		d->run_a = 0;
		hp++;
	}
	for (; hp < hend; hp++) {
		const struct flow_ph *ph = &d->ph[*hp];
		const uint8_t *it = ph->item;
		unsigned n = ph->n;
		uint64_t off;

		if (FLOW_LIKELY(!n)) {
			/* Only W atoms: half the headers of cycle-accurate
			 * trace (likely: the loop is laid out as a
			 * profile-guided build lays it out). Only a long run of these can approach 2^32
			 * W atoms (an atom restarts the count): saturate. */
			k.w += ph->trail;
			if (k.w > FLOW_W_CAP)
				k.w = FLOW_W_CAP;
			continue;
		}
		off = offs_given ? r->offsets[hp - hdr] :
				   obase + (uint64_t)(uintptr_t)hp;
		if (ranges)
			ranges->open = NULL; /* a range never spans two packets */
		/* Up to the queue's last 32 places a header fits whatever it
		 * holds: 16 instructions of two elements at most. Past them, as
		 * many as fit, and the position is kept. */
		if (k.e > &d->q[FLOW_QUEUE - 32]) {
			uint32_t fit = (uint32_t)((&d->q[FLOW_QUEUE] - k.e) / 2);

			if (fit < n) {
				walk_header(d, &k, ph, 0, fit, off, data_on,
					    ranges);
				walk_save(d, &k, ranges);
				d->stats.packets += (uint32_t)(hp - hdr) - d->run_h;
				d->run_h = (uint32_t)(hp - hdr);
				d->run_a = fit;
				return 0;
			}
		}
		do {
			unsigned v = *it++;

			k.w += v >> 1;
			walk_insn(d, &k, v & 1, off, data_on, ranges);
		} while (--n);
		k.w += ph->trail;
	}
	walk_save(d, &k, ranges);
	d->stats.packets += r->count - d->run_h;
	return 1;
}

/* ETM3_FLOW_RANGES: walk_run()'s copies for ranges, kept out of line so
 * that the per-instruction ones stay as they were. */
static __attribute__((noinline)) int
walk_run_ranges(struct etm3_flow_decoder *d, const struct etm3_packet *p,
		int data_on)
{
	if (data_on)
		return p->u.run.offsets ? walk_run(d, p, 1, 1, 1) :
					  walk_run(d, p, 0, 1, 1);
	return p->u.run.offsets ? walk_run(d, p, 1, 0, 1) :
				  walk_run(d, p, 0, 0, 1);
}

static int expand_run(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	const struct etm3_p_header_run *r = &p->u.run;
	int data_on = d->info.data_addr || d->info.data_value;

	if (!d->synced) {
		/* Nothing to place atoms against before an I-sync. */
		for (uint32_t h = d->run_h; h < r->count; h++)
			d->stats.atoms_lost += d->ph[r->headers[h]].n;
		d->stats.packets += r->count - d->run_h;
		return 1;
	}
	if (d->ranges)
		return walk_run_ranges(d, p, data_on);
	if (data_on)
		return r->offsets ? walk_run(d, p, 1, 1, 0) :
				    walk_run(d, p, 0, 1, 0);
	return r->offsets ? walk_run(d, p, 1, 0, 0) : walk_run(d, p, 0, 0, 0);
}

/* A single P-header record (the packet decoder gives runs, except after
 * its slow path): a run of one. */
static int expand_one(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	struct etm3_packet q;

	q.offset = p->offset;
	q.u.run.headers = &p->raw[0];
	q.u.run.offsets = NULL;
	q.u.run.count = 1;
	return expand_run(d, &q);
}

/* ---- Other packets ------------------------------------------------------ */

/* Cancel the last traced element if it is still held (Q 7.3.5: the
 * instruction did not complete; after an exception-exit packet the cancel
 * applies to the exception return, M3 14.5.2). An instruction that failed
 * its condition did nothing to cancel: it stays as it is (the exception
 * element says cancel). */
static void cancel_last(struct etm3_flow_decoder *d)
{
	struct etmkit_elem *e;

	if (d->hold < 0)
		return;
	e = &d->q[d->hold];
	if (e->kind == etmkit_elem_insn || e->kind == etmkit_elem_insn_range) {
		if (e->flags & ETMKIT_INSN_EXEC)
			e->flags = (uint8_t)((e->flags & ~ETMKIT_INSN_EXEC) |
					     ETMKIT_INSN_CANCEL);
	} else {
		e->flags |= ETMKIT_EXC_CANCEL;
	}
}

static void on_branch(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	const struct etm3_branch *b = &p->u.branch;
	int exception = b->exception || b->exc_in_addr;
	uint64_t ret;
	int has_ret;

	if (!d->synced || b->partial)
		return; /* no I-sync yet: nothing to place it against */
	if (b->cancel)
		cancel_last(d);
	release(d);
	if (b->cancel && d->last_valid) {
		ret = d->last_addr;
		has_ret = 1;
	} else {
		has_ret = next_addr(d, &ret);
	}
	if (exception) {
		struct etmkit_elem *e = emit(d, etmkit_elem_exception, p->offset);

		e->addr = b->addr;
		e->isa = b->isa;
		if (b->exc_in_addr) {
			e->flags |= ETMKIT_EXC_LEGACY;
			e->u.exception.number = b->legacy_exception;
		} else {
			e->u.exception.number = b->exception;
		}
		if (b->cancel)
			e->flags |= ETMKIT_EXC_CANCEL;
		if (d->info.m_profile)
			e->flags |= ETMKIT_EXC_M_PROFILE;
		if (b->has_resume) {
			e->flags |= ETMKIT_EXC_RESUME;
			e->u.exception.resume = b->resume;
		}
		if (has_ret) {
			e->flags |= ETMKIT_EXC_RET_ADDR;
			e->u.exception.ret_addr = ret;
		}
	}
	/* Exception information bytes carry the state after the branch
	 * (7.3.5); without them NS and Hyp stay. */
	if (b->exc_bytes)
		set_context(d, p->offset, b->ns, b->hyp, d->context_id);
	go_to(d, b->addr, b->isa);
}

/* The instruction an LSiP I-sync implies executed (seed 003: as if an E
 * atom were traced for it before the current address). */
static void lsip_insn(struct etm3_flow_decoder *d, const struct etm3_isync *is,
		      uint64_t offset)
{
	struct etmkit_elem *e;
	const struct flow_insn *fi;

	go_to(d, is->addr, is->isa);
	if (!resolve(d, offset))
		return;
	fi = &d->blk->insn[0];
	/* The last instruction traced: a data abort on it comes as a Cancel
	 * (7.3.5), so it is held like an atom's. */
	d->hold = (long)d->n;
	e = &d->q[d->n++];
	memset(e, 0, sizeof(*e));
	if (d->ranges)
		put_range(e, fi, 1, offset, 0); /* a range of its own */
	else
		put_insn(e, fi, 1, offset, 0);
	/* No atom: no cycles of its own. */
	e->flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_IMPLIED;
	d->stats.insns++;
	d->last_addr = is->addr;
	d->last_valid = 1;
	d->data_insn = is->addr;
	d->data_insn_valid = 1;
}

/* A gap's length: the W atoms after the last instruction plus a cycle
 * count, saturated. */
static uint32_t gap_cycles(uint32_t w, uint32_t count)
{
	uint64_t sum = (uint64_t)w + count;

	return sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

static void emit_trace_on(struct etm3_flow_decoder *d,
			  const struct etm3_packet *p)
{
	const struct etm3_isync *is = &p->u.isync;
	struct etmkit_elem *e;

	if (is->reason == etm3_reason_overflow)
		emit(d, etmkit_elem_overflow, p->offset);
	e = emit(d, etmkit_elem_trace_on, p->offset);
	e->u.trace_on.reason = is->reason;
	if (!is->data_only) {
		e->addr = is->addr;
		e->isa = is->isa;
	}
	/* The I-sync's cycle count covers the cycles since the last P-header
	 * (seed 003, I-sync with cycle count); with the W atoms that followed
	 * the last instruction it is the gap since that instruction, as DS-5
	 * reports it. Unknown after an overflow (ETMv3.5). */
	if (p->type == etm3_pkt_i_sync_cycle &&
	    is->reason != etm3_reason_periodic &&
	    is->reason != etm3_reason_overflow) {
		/* A count of 0 is the counter's overflow (and reset) value:
		 * the gap's length is unknown (7.3.4). */
		if (is->cycles) {
			e->flags |= ETMKIT_TRACE_ON_CYCLES;
			e->cycles = gap_cycles(d->gap_w, is->cycles);
		}
		d->gap_w = 0;
	}
}

static void on_isync(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	const struct etm3_isync *is = &p->u.isync;
	int restart = !d->synced || is->reason != etm3_reason_periodic;

	/* A periodic I-sync is a sync point in running trace: it keeps the
	 * held element, as a Cancel after it still refers to the last
	 * instruction traced (7.3.5). */
	if (restart) {
		/* A non-periodic I-sync follows a gap in the trace: the last
		 * element completed, a Cancel or data packet after it cannot
		 * refer to anything before it, and the W atoms since the last
		 * instruction belong to the gap, not to the next one. */
		release(d);
		d->last_valid = 0;
		d->data_insn_valid = 0;
		d->gap_w = d->synced ? d->w : 0;
		d->w = 0;
		d->synced = 1;
		d->ctx_sent = 0;
		emit_trace_on(d, p);
	}
	set_context(d, p->offset, is->ns, is->hyp, is->context_id);
	if (is->data_only)
		return;
	if (is->lsip) {
		lsip_insn(d, is, p->offset);
		/* The 6-byte form of the current address: its information
		 * byte changes the security state (and Hyp) from the data
		 * instruction's to the current one's (7.10.5). */
		if (is->lsip_next.exc_bytes)
			set_context(d, p->offset, is->lsip_next.ns,
				    is->lsip_next.hyp, d->context_id);
		go_to(d, is->lsip_next.addr, is->lsip_next.isa);
	} else {
		go_to(d, is->addr, is->isa);
	}
}

static void on_data(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	const struct etm3_data *dd = &p->u.data;
	struct etmkit_elem *e;
	uint64_t insn = d->data_insn;
	int has_insn = d->data_insn_valid;

	switch (p->type) {
	case etm3_pkt_ooo_placeholder:
		/* The value comes later, in out-of-order data (7.4.3). */
		d->ooo[dd->tag & 3].insn = insn;
		d->ooo[dd->tag & 3].valid = (uint8_t)has_insn;
		return;
	case etm3_pkt_ooo_data:
		if (!dd->ooo_match)
			return; /* no pending placeholder: ignored (7.4.3) */
		insn = d->ooo[dd->tag & 3].insn;
		has_insn = d->ooo[dd->tag & 3].valid;
		break;
	default:
		break;
	}
	e = emit(d, etmkit_elem_data, p->offset);
	if (has_insn) {
		e->flags |= ETMKIT_DATA_INSN;
		e->addr = insn;
	}
	switch (p->type) {
	case etm3_pkt_store_failed:
		e->flags |= ETMKIT_DATA_STORE_FAILED;
		return;
	case etm3_pkt_data_suppressed:
		e->flags |= ETMKIT_DATA_SUPPRESSED;
		return;
	case etm3_pkt_ooo_data:
		e->flags |= ETMKIT_DATA_OOO;
		e->u.data.tag = dd->tag;
		e->u.data.half = (uint8_t)(dd->pair >= 0 ? dd->pair + 1 : 0);
		break;
	default:
		break;
	}
	if (dd->has_addr) {
		e->flags |= ETMKIT_DATA_ADDR;
		e->u.data.data_addr = dd->addr;
		if (dd->be)
			e->flags |= ETMKIT_DATA_BE;
	}
	if (dd->has_value) {
		e->flags |= ETMKIT_DATA_VALUE;
		e->size = dd->size;
		e->u.data.value = dd->value;
	}
}

static enum etmkit_loss loss_of(int error)
{
	if (error == -etmkit_err_truncated)
		return etmkit_loss_truncated;
	if (error == -etmkit_err_bad_frame)
		return etmkit_loss_transport;
	return etmkit_loss_packet;
}

/* A packet the packet decoder rejected: trace is lost until the next
 * A-sync and I-sync. */
static void on_error(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	struct etmkit_elem *e;

	release(d);
	e = emit(d, etmkit_elem_gap, p->offset);
	e->u.loss.reason = (uint8_t)loss_of(p->error);
	e->u.loss.why = p->why;
	reset_trace_state(d);
}

static void on_packet(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	struct etmkit_elem *e;

	d->stats.packets++;
	if (p->error) {
		on_error(d, p);
		return;
	}
	switch (p->type) {
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		on_isync(d, p);
		break;
	case etm3_pkt_branch_address:
		on_branch(d, p);
		break;
	case etm3_pkt_cycle_count:
		/* The gap before the last non-periodic I-sync (7.3.4), counted
		 * from the last instruction as for an I-sync's count. */
		if (d->synced) {
			e = emit(d, etmkit_elem_cycle_count, p->offset);
			if (p->u.cycles)
				e->cycles = gap_cycles(d->gap_w, p->u.cycles);
			else
				e->flags |= ETMKIT_CC_UNKNOWN; /* as for I-sync */
			d->gap_w = 0;
		}
		break;
	case etm3_pkt_timestamp:
		e = emit(d, etmkit_elem_timestamp, p->offset);
		e->u.timestamp.value = p->u.timestamp.value;
		if (p->u.timestamp.clock_change)
			e->flags |= ETMKIT_TS_CLOCK_CHANGE;
		break;
	case etm3_pkt_context_id:
		set_context(d, p->offset, d->ns, d->hyp, p->u.context_id);
		break;
	case etm3_pkt_vmid:
		if (!d->vmid_seen || p->u.vmid != d->vmid) {
			d->vmid = p->u.vmid;
			d->vmid_seen = 1;
			if (d->synced)
				emit_context(d, p->offset);
		}
		break;
	case etm3_pkt_exception_exit:
		/* Right after the return instruction's atom (Q 7.6). */
		if (d->synced) {
			release(d);
			d->hold = (long)d->n;
			emit(d, etmkit_elem_exception_return, p->offset);
		}
		break;
	case etm3_pkt_exception_entry:
		if (d->synced)
			emit(d, etmkit_elem_exception_entry, p->offset);
		break;
	case etm3_pkt_trigger:
		emit(d, etmkit_elem_trigger, p->offset);
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
	case etm3_pkt_store_failed:
	case etm3_pkt_data_suppressed:
		on_data(d, p);
		break;
	default:
		/* a_sync, ignore, unsynced: nothing happened on the core */
		break;
	}
}

/* ---- Driving ------------------------------------------------------------ */

/* Read the next batch of packets. Returns 1, or 0 at the end of input
 * (or when stopped). */
static int refill(struct etm3_flow_decoder *d)
{
	int r = etm3_pkt_next(d->pkt, d->batch, FLOW_BATCH);

	d->run_h = d->run_a = 0;
	return flow_drive_refilled(&d->drv, r);
}

/* Decode into the queue until it is full or the input is used up. */
static void decode(struct etm3_flow_decoder *d)
{
	d->drv.full = 1;
	if (d->drv.gap_pending) {
		struct etmkit_elem *e;

		if (room(d) < FLOW_PKT_ELEMS)
			return;
		release(d);
		e = emit(d, etmkit_elem_gap, d->drv.gap_offset);
		flow_drive_gap_elem(&d->drv, e);
		reset_trace_state(d);
	}
	for (;;) {
		const struct etm3_packet *p;

		if (d->drv.ibatch >= d->drv.nbatch && (d->drv.stopped || !refill(d))) {
			d->drv.full = 0;
			return;
		}
		p = &d->batch[d->drv.ibatch];
		if (p->type == etm3_pkt_p_header_run && !p->error) {
			if (!expand_run(d, p))
				return;
		} else if (p->type == etm3_pkt_p_header && !p->error) {
			if (room(d) < 2 || !expand_one(d, p))
				return;
		} else {
			if (room(d) < FLOW_PKT_ELEMS)
				return;
			on_packet(d, p);
		}
		d->drv.ibatch++;
		d->run_h = d->run_a = 0;
	}
}

/* Forget the elements the last batch handed out. */
static void drop_delivered(struct etm3_flow_decoder *d)
{
	size_t k = flow_drop_delivered(d->q, &d->n, &d->delivered);

	if (!k)
		return;
	if (d->hold >= 0)
		d->hold -= (long)k;
	if (d->open >= 0)
		d->open = d->open >= (long)k ? d->open - (long)k : -1;
}

int etm3_flow_batch(struct etm3_flow_decoder *d,
		    const struct etmkit_elem **elems)
{
	size_t final;

	if (!d || !elems)
		return -etmkit_err_invalid;
	drop_delivered(d);
	flow_cache_sync(&d->cache);
	decode(d);
	d->stats.blocks = d->cache.blocks - d->blocks_base;
	d->stats.cache_flushes = d->cache.flushes - d->flushes_base;
	final = d->n;
	/* The last instruction waits for what follows it, unless nothing
	 * will follow, or the queue is full behind it. */
	if (d->drv.eos && (d->drv.finishing || d->drv.stopped) && !d->drv.full)
		release(d);
	if (d->hold >= 0) {
		/* Full behind the held element: let it go. */
		if (d->hold == 0 && d->drv.full)
			release(d);
		else
			final = (size_t)d->hold;
	}
	d->delivered = final;
	*elems = d->q;
	if (!final)
		return d->drv.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)final;
}

/* feed, finish, gap and next: the skeleton's (flow_driver.h). */
FLOW_DRIVE_API(etm3, struct etm3_packet)
