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

#include "flow/etm3_flow_int.h"

/* ---- Set-up ------------------------------------------------------------- */

void etm3_flow_config_init(struct etm3_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm3_config_init(&cfg->etm);
}

void etm3_flow_forget(struct etm3_flow_decoder *d)
{
	d->open = -1;
	d->synced = 0;
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
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

/* struct flow_rca's words: bytes 16..24 of an element, @kind, flags
 * @flags (isa and size 0) and @cycles, in memory order. */
static FLOW_INLINE uint64_t rca_image(uint8_t kind, uint8_t flags,
				      uint32_t cycles)
{
	unsigned char b[8] = { kind, 0, 0, flags };
	uint64_t v;

	memcpy(b + 4, &cycles, 4);
	memcpy(&v, b, 8);
	return v;
}

/* The cycles of such a word. */
static FLOW_INLINE uint32_t rca_w(uint64_t v)
{
	unsigned char b[8];
	uint32_t c;

	memcpy(b, &v, 8);
	memcpy(&c, b + 4, 4);
	return c;
}

/* struct flow_rca's count: u.range.count @n and repeats 0 in memory
 * order, and back (from a sum of them). */
static FLOW_INLINE uint64_t rca_count_image(uint32_t n)
{
	uint32_t f[2] = { n, 0 };
	uint64_t v;

	memcpy(&v, f, 8);
	return v;
}

static FLOW_INLINE uint32_t rca_count(uint64_t v)
{
	uint32_t f[2];

	memcpy(f, &v, 8);
	return f[0];
}

static void build_ph(struct etm3_flow_decoder *d, const struct etm3_atoms *t)
{
	for (unsigned b = 0; b < 256; b++) {
		struct flow_ph *ph = &d->ph[b];
		struct flow_rph *rp = &d->rph[b];
		unsigned w = 0;

		memset(ph, 0, sizeof(*ph));
		memset(rp, 0, sizeof(*rp));
		for (unsigned a = 0; a < t[b].count; a++) {
			unsigned k = (t[b].bits >> (2 * a)) & 3;

			if (k == etm3_atom_w) {
				w++; /* at most 8 in a row (format 3) */
				continue;
			}
			if (k != etm3_atom_e)
				rp->nmask |= 1u << ph->n;
			rp->cw[ph->n + 1] = (uint8_t)(rp->cw[ph->n] + w);
			ph->item[ph->n++] = (uint8_t)(w << 1 | (k == etm3_atom_e));
			w = 0;
		}
		ph->trail = (uint8_t)w;
		memcpy(rp->item, ph->item, sizeof(rp->item));
		rp->n = ph->n;
		rp->trail = ph->trail;
		rp->one = ph->n && !(rp->nmask & ((1u << (ph->n - 1)) - 1));
		rp->xlast = ph->n && !(rp->nmask >> (ph->n - 1));
		rp->nmask |= 1u << ph->n;
		d->rca.span[b] = !rp->n ? 0 :
				 rp->one ? rp->n * sizeof(struct flow_insn) :
					   FLOW_RCA_NOT_ONE;
		d->rca.head[b] = rca_image(etmkit_elem_insn_range -
						   etmkit_elem_insn,
					   rp->n && !rp->xlast, rp->cw[rp->n]);
		d->rca.trail[b] = rca_image(0, 0, rp->trail);
		d->rca.count[b] = rca_count_image(rp->n);
		d->rfast[b] = (uint32_t)rp->trail |
			      (uint32_t)rp->cw[rp->n] << FLOW_RF_CW |
			      (rp->n && !rp->xlast ? FLOW_RF_NLAST : 0) |
			      (rp->one ? FLOW_RF_ONE : 0) |
			      (uint32_t)rp->n << FLOW_RF_N;
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
	d->q = d->q_own;
	d->hold = -1;
	etm3_flow_forget(d);
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
	d->q = d->q_own;
	d->hold = -1;
	etm3_flow_forget(d);
	/* What a loss of sync keeps (the context, the position's leftovers),
	 * as just allocated: a reset decoder is a fresh one (the parallel
	 * decode reuses decoders piece after piece, par_internal.h). */
	d->isa = d->space = 0;
	d->addr = 0;
	d->idx = 0;
	d->ns = d->hyp = 0;
	d->context_id = d->vmid = 0;
	memset(&d->stats, 0, sizeof(d->stats));
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct etm3_flow_stats *
etm3_flow_get_stats(const struct etm3_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Position ----------------------------------------------------------- */

/* POS_ADDR after an indirect branch: if the address is one of the last
 * two targets of that branch a lookup found (block.h, flow_ind_guess())
 * and the cache still holds them (a key has one block in a generation),
 * make it that block without a lookup: 1. Else 0, the branch kept for
 * resolve() to note what its lookup finds. */
static FLOW_INLINE int ind_hit(struct etm3_flow_decoder *d)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	struct flow_block *f = d->ind_from, *b;

	if (!f || d->ind_gen != gen)
		return 0;
	b = flow_ind_guess(f, d->addr, d->isa, d->space);
	if (!b)
		return 0;
	d->ind_from = NULL;
	FLOW_ENTER_BLOCK(d, b, gen);
	return 1;
}

/* Make POS_ADDR a block. Returns 1, or 0 after reporting no_image (one
 * element: the caller made room). */
static int resolve(struct etm3_flow_decoder *d, uint64_t offset)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	uint8_t loss = etmkit_loss_misaligned;
	struct flow_block *b = NULL, *f = d->ind_from;

	if (ind_hit(d))
		return 1;
	d->ind_from = NULL;
	if (f && d->ind_gen != gen)
		f = NULL; /* its block gone */

	/* Instructions are word-aligned in ARM state and halfword-aligned
	 * in Thumb and ThumbEE state (IHI 0014Q Table 7.20): only a damaged
	 * I-sync can name another address. */
	if (!(d->addr & (d->isa == etmkit_isa_arm ? 3u :
			 d->isa == etmkit_isa_jazelle ? 0u : 1u))) {
		/* The cache's front first, inline: what flow_cache_get()
		 * looks at first inside the image's span (block.h). */
		if (!flow_cache_outside(&d->cache, d->addr))
			b = flow_cache_front(&d->cache, d->addr, d->isa,
					     d->space);
		if (!b)
			b = flow_cache_get(&d->cache, d->addr, d->isa,
					   d->space, &loss);
	}

	if (b) {
		if (f && flow_cache_generation(&d->cache) == gen)
			flow_ind_note(f, b);
		FLOW_ENTER_BLOCK(d, b, gen);
		return 1;
	}
	flow_no_image(emit(d, etmkit_elem_no_image, offset), d->addr, d->isa,
		      loss, d->space);
	d->pos = POS_NONE;
	d->link_from = NULL;
	d->lost_reported = 1;
	return 0;
}

/* etm3_flow_int.h (resolve() stays static for the walk). */
int etm3_flow_resolve(struct etm3_flow_decoder *d, uint64_t offset)
{
	return resolve(d, offset);
}

/* After the last instruction of the block: go to successor @slot at
 * @addr. */
static void leave_block(struct etm3_flow_decoder *d, struct flow_block *b,
			unsigned slot, uint64_t addr, uint8_t isa)
{
	FLOW_LEAVE_BLOCK(d, b, slot, addr, isa, (void)0);
}

/* ---- Atoms -------------------------------------------------------------- */

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

/* After a taken indirect branch, the last instruction of block @from:
 * its target comes in a branch packet (7.3.5), looked up from @from's
 * guesses first (resolve()). */
static FLOW_INLINE void wait_for_address(struct etm3_flow_decoder *d,
					 struct flow_block *from)
{
	d->ind_from = from;
	d->ind_gen = flow_cache_generation(&d->cache);
	d->pos = POS_NONE;
	d->blk = NULL;
	d->waiting = 1;
	d->lost_reported = 0;
}

/* After the last instruction of block @b, executed if @exec. */
static void block_end(struct etm3_flow_decoder *d, struct flow_block *b,
		      const struct flow_insn *fi, unsigned exec)
{
	int slot = exit_slot(fi, exec);

	if (slot < 0)
		wait_for_address(d, b);
	else if (slot)
		leave_block(d, b, 1, b->target, b->target_isa);
	else
		leave_block(d, b, 0, flow_block_end(b), b->isa);
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
_Static_assert(etmkit_elem_insn_range > etmkit_elem_insn,
	       "struct flow_rca's head adds to the kind");
_Static_assert(sizeof(struct flow_ph) == 32 && sizeof(struct flow_rph) == 64,
	       "flow_ph and flow_rph are indexed by shifting");

/* ETM3_FLOW_RANGES, data trace off: write range @e of @cnt instructions
 * from @start to @last (failed its condition if @nx, else executed),
 * with the W atoms @w before them, not above FLOW_W_CAP: what
 * put_range() and extend_range() make of them one by one. */
static FLOW_INLINE void write_range_w(struct etmkit_elem *e,
				      const struct flow_insn *start,
				      const struct flow_insn *last, unsigned nx,
				      uint32_t cnt, uint64_t off, uint32_t w)
{
	memcpy(&e->addr, last, 24);
	e->offset = off;
	e->addr = start->addr;
	e->kind = etmkit_elem_insn_range;
	e->flags = (uint8_t)(last->head[3] + nx);
	e->cycles = w;
	e->u.range.end = last->addr + last->head[2];
	e->u.range.count = cnt;
	e->u.range.repeats = 0;
}

/* The same, executed if @x, for any @w: the first's cycles as they are
 * (below 2^32), a sum saturated once a second joins. */
static FLOW_INLINE void write_range(struct etmkit_elem *e,
				    const struct flow_insn *start,
				    const struct flow_insn *last, unsigned x,
				    uint32_t cnt, uint64_t off, uint64_t w)
{
	write_range_w(e, start, last, x ^ 1, cnt, off, (uint32_t)w);
	if (__builtin_expect(w > FLOW_W_CAP, 0) && cnt > 1)
		e->cycles = FLOW_W_CAP;
}


/* The range of rng_fast_body()'s cycle-accurate header byte @k (table
 * @t) at @off: its instructions from @start to @last, which ends at
 * @end, with @wi W atoms before them (as rca.trail[]). What
 * write_range_w() writes, its bytes 16..24 one sum (struct flow_rca). */
static FLOW_INLINE void write_range_rca(struct etmkit_elem *e,
					const struct flow_rca *t, unsigned k,
					const struct flow_insn *start,
					const struct flow_insn *last,
					uint64_t end, uint64_t off, uint64_t wi)
{
	uint64_t h = 0, c = t->count[k];

	memcpy(&h, last->head, 4);
	h += t->head[k] + wi;
	e->offset = off;
	e->addr = start->addr;
	memcpy(&e->kind, &h, 8);
	e->u.range.opcode = last->opcode;
	e->u.range.class_flags = last->flags;
	e->u.range.end = end;
	memcpy(&e->u.range.count, &c, 8);
}

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

/* ETM3_FLOW_RANGES with data trace off: the run walked a range at a
 * time (rng_run()). Its state lives in locals, written back to *d
 * (RNG_SAVE) only around the general step() and block_end(), out of
 * line, and read again after (RNG_LOAD), so that nothing of the hot loop
 * is in memory the element stores might alias. Without cycle-accurate
 * trace (@ca 0) there are no W atoms (IHI 0014Q Table 7.2), so d->w
 * stays 0 and w is 0 throughout. */
#define RNG_LOAD()                                                          \
	do {                                                                \
		b = d->pos == POS_BLOCK ? d->blk : NULL;                    \
		fi = b ? &b->insn[d->idx] : NULL;                           \
		e = &d->q[d->n];                                            \
		open = d->open >= 0 ? &d->q[d->open] : NULL;                \
		e0 = e;                                                     \
		w = ca ? d->w : 0;                                          \
	} while (0)

/* The last range written, before @e: the last instruction traced. */
static FLOW_INLINE void rng_last(struct etm3_flow_decoder *d,
				 const struct etmkit_elem *e)
{
	d->last_addr = e[-1].u.range.end - e[-1].size;
	d->last_valid = 1;
}

/* walk_save() for rng_run()'s locals (@b NULL: d's position set
 * already; @e0, e at the last load; @open, the open range or NULL;
 * @w, saturated here, for cycle-accurate trace, @ca). */
static FLOW_INLINE void rng_save(struct etm3_flow_decoder *d,
				 struct flow_block *b,
				 const struct flow_insn *fi,
				 struct etmkit_elem *e,
				 const struct etmkit_elem *e0,
				 const struct etmkit_elem *open, uint64_t w,
				 const int ca)
{
	if (b) {
		d->blk = b;
		d->pos = POS_BLOCK;
		d->idx = (uint32_t)(fi - b->insn);
	}
	if (e != e0) {
		d->hold = (long)(e - 1 - d->q);
		rng_last(d, e);
	}
	d->open = open ? (long)(open - d->q) : -1;
	d->n = (size_t)(e - d->q);
	if (ca)
		d->w = w > FLOW_W_CAP ? FLOW_W_CAP : (uint32_t)w;
}

#define RNG_SAVE()                                                          \
	do {                                                                \
		rng_save(d, b, fi, e, e0, open, w, ca);                     \
		d->stats.insns += insns;                                    \
		insns = 0;                                                  \
	} while (0)

/* One instruction the general way: item @v of the header at @off (the
 * walk's state is in *d). */
static __attribute__((noinline)) void rng_slow_insn(
	struct etm3_flow_decoder *d, unsigned v, uint64_t off)
{
	d->w += v >> 1;
	step(d, v & 1, off, 1); /* resolves, or loses the atom */
}

/* The walk is at an address (d->pos POS_ADDR): its block, if there is
 * one (resolve()). */
static __attribute__((noinline)) int rng_resolve(struct etm3_flow_decoder *d,
						 uint64_t off)
{
	return resolve(d, off);
}

/* After @last, the last instruction of block @b, executed if @x, with no
 * successor linked: block_end(), which reads nothing else of the walk's
 * state (rng_run() keeps the rest in its locals). */
static __attribute__((noinline)) void rng_slow_exit(
	struct etm3_flow_decoder *d, struct flow_block *b,
	const struct flow_insn *last, unsigned x)
{
	d->idx = (uint32_t)(last - b->insn) + 1;
	block_end(d, b, last, x);
}

/* Block @b left after @last, executed if @x, with no successor linked
 * (rng_fast()'s s->exit): a taken indirect branch waits for its address
 * (IHI 0014Q 7.3.5), else block_end(). */
static FLOW_INLINE void rng_exit(struct etm3_flow_decoder *d,
				 struct flow_block *b,
				 const struct flow_insn *last, unsigned x)
{
	if (exit_slot(last, x) < 0)
		wait_for_address(d, b);
	else
		rng_slow_exit(d, b, last, x);
}

/* The offset of header @hp of a run: @obase plus its address, or the
 * offset table's entry at @obase plus eight times its address
 * (@offs_given; rng_run()'s obase). */
static FLOW_INLINE uint64_t rng_off(uintptr_t obase, const uint8_t *hp,
				   int offs_given)
{
	return offs_given ? *(const uint64_t *)(obase + 8 * (uintptr_t)hp) :
			    (uint64_t)(obase + (uintptr_t)hp);
}

/* Where run @p's header offsets are: obase plus a header's address, or
 * the table's entry at obase plus eight times its address (@offs_given;
 * rng_off()). Unsigned arithmetic, so the wrap is defined. */
static FLOW_INLINE uintptr_t rng_obase(const struct etm3_packet *p,
				       int offs_given)
{
	const struct etm3_p_header_run *r = &p->u.run;

	return offs_given ? (uintptr_t)r->offsets - 8 * (uintptr_t)r->headers :
			    (uintptr_t)(p->offset -
					(uint64_t)(uintptr_t)r->headers);
}

/* rng_run()'s entry into run @p, before its state is loaded. A run after
 * a branch packet (IHI 0014Q 7.3.5) starts at an address: its block is
 * looked up here when the general way would look it up at the run's
 * first header with instructions (the W atoms before it only add to the
 * count, IHI 0014Q 7.3.1, Table 7.3): it fits the queue, no range is
 * open. */
static FLOW_INLINE void rng_front(struct etm3_flow_decoder *d,
				  const struct etm3_packet *p, int offs_given)
{
	const uint8_t *hp = p->u.run.headers + d->run_h;
	const uint8_t *hend = p->u.run.headers + p->u.run.count;

	if (d->pos != POS_ADDR || d->n > FLOW_QUEUE - 32 || d->open >= 0)
		return;
	while (hp < hend && !d->rph[*hp].n)
		hp++;
	if (hp < hend && !ind_hit(d))
		(void)rng_resolve(d, rng_off(rng_obase(p, offs_given), hp,
					     offs_given));
}

/* The walk enters run batch[@i]: none of its headers taken yet. */
static FLOW_INLINE const struct etm3_packet *
rng_enter(struct etm3_flow_decoder *d, int i)
{
	d->drv.ibatch = i;
	d->run_h = d->run_a = 0;
	return &d->batch[i];
}

/* After a taken indirect branch, the last atom of run @p but for W
 * atoms: when the batch's next packets are a branch address that only
 * moves the walk (branch_moves_only()) and a P-header run that
 * rng_chain() would take, and that address is one of the guesses of the
 * branch's block @from (block.h, flow_ind_guess(): what ind_hit() looks
 * at first), the block there. Else NULL. @e: the next free element. */
static FLOW_INLINE struct flow_block *
rng_ind_next(struct etm3_flow_decoder *d, const struct etm3_packet *p,
	     struct flow_block *from, const struct etmkit_elem *e,
	     int offs_given)
{
	int i = d->drv.ibatch;
	const struct etm3_packet *q, *r;

	if (p != &d->batch[i] || i + 2 >= d->drv.nbatch)
		return NULL;
	q = &d->batch[i + 1];
	r = &d->batch[i + 2];
	/* rng_chain()'s tests, in its order. */
	if (q->type != etm3_pkt_branch_address || q->error ||
	    &d->q[FLOW_QUEUE] - e < FLOW_PKT_ELEMS ||
	    !branch_moves_only(d, &q->u.branch) ||
	    r->type != etm3_pkt_p_header_run || r->error ||
	    !r->u.run.offsets != !offs_given)
		return NULL;
	return flow_ind_guess(from, q->u.branch.addr, q->u.branch.isa,
			      d->space);
}

/* rng_ind_next()'s way taken, from run @p: what rng_chain() does for the
 * branch packet (branch_go_only()) and the next run's ind_hit() for its
 * block, but for the walk's state in rng_run()'s locals: the last range
 * written since @e0, if any (@e the next free element), is the last
 * instruction traced. Returns the next run. */
static FLOW_INLINE const struct etm3_packet *
rng_ind_go(struct etm3_flow_decoder *d, const struct etm3_packet *p,
	   const struct etmkit_elem *e, const struct etmkit_elem *e0)
{
	const struct etm3_branch *br = &d->batch[d->drv.ibatch + 1].u.branch;

	if (e != e0)
		rng_last(d, e);
	/* branch_go_only()'s move (its tests were rng_ind_next()'s), then
	 * ind_hit()'s: the guess taken, its block in rng_run()'s locals
	 * (RNG_SAVE makes it d->blk). */
	branch_go(d, br);
	d->ind_from = NULL;
	d->stats.packets += p->u.run.count - d->run_h + 1;
	return rng_enter(d, d->drv.ibatch + 2);
}

/* rng_run()'s state handed to and from rng_fast(). */
struct rng_fast {
	struct flow_block *b;          /* non-NULL */
	const struct flow_insn *fi;
	struct etmkit_elem *e;
	uint64_t w;
	const struct flow_insn *exit; /* set: the last header's range ended
					 at this, the block's last, executed
					 if exit_x, with no successor linked */
	unsigned exit_x;
	unsigned left;                /* rng_nfast(), exit set: the header's
					 atoms after it, or 0 */
	const struct etm3_packet *p;  /* the run: on to the next ones after
					 a taken indirect branch
					 (rng_fast_chain()) */
	struct etmkit_elem *e0;       /* rng_run()'s e0 */
	unsigned saved;               /* rng_fast_next() took the run's end:
					 the walk's state is in *d, from the
					 start of run p (NULL: none next) */
};

static int rng_fast_next(struct etm3_flow_decoder *d, struct rng_fast *s,
			 int offs_given);

/* rng_fast_body(), after a taken indirect branch from block @from, with
 * run s->p done up to @hp (@e the next free element): if that is its
 * end (the branch's atom its last but for W atoms) and rng_ind_next()
 * finds the way to the next run, that way taken (rng_ind_go()), the run
 * in s->p, and the block returned. Else NULL. */
static FLOW_INLINE struct flow_block *
rng_fast_chain(struct etm3_flow_decoder *d, struct rng_fast *s,
	       struct flow_block *from, struct etmkit_elem *e,
	       const uint8_t *hp, int offs_given)
{
	const struct etm3_p_header_run *r = &s->p->u.run;
	struct flow_block *g;

	/* Not rng_fast_body()'s hend: that may stop short of the end. */
	if (hp != r->headers + r->count)
		return NULL;
	g = rng_ind_next(d, s->p, from, e, offs_given);
	if (!g)
		return NULL;
	s->p = rng_ind_go(d, s->p, e, s->e0);
	s->e0 = e;
	return g;
}

/* rng_fast_body()'s cycle-accurate header byte @k at @off, one range
 * of instructions (struct flow_rca) from @fi in block @b that go past
 * its last, bend - 1 (each executed up to there: only the header's last
 * may fail its condition), @wi W atoms before them (as rca.trail[]):
 * when the way out of @b after bend - 1 is a linked successor and the
 * rest of the instructions lie in it short of its last, their ranges at
 * @e as rng_run() writes them (one across the blocks if it goes on,
 * range_goes_on(), else one in each: IHI 0014Q 7.3.1, the W atoms
 * before each instruction charged to its range), and the successor
 * returned. Else NULL, nothing written. */
static FLOW_INLINE struct flow_block *
rng_cross(struct etm3_flow_decoder *d, struct etmkit_elem *e, unsigned k,
	  struct flow_block *b, const struct flow_insn *fi,
	  const struct flow_insn *bend, uint64_t off, uint64_t wi)
{
	const struct flow_rph *rp = &d->rph[k];
	const struct flow_insn *last = bend - 1;
	unsigned m = (unsigned)(bend - fi), rest = rp->n - m;
	int slot = exit_slot(last, 1);
	struct flow_block *nb = slot < 0 ? NULL : b->succ[slot];
	uint32_t w = rca_w(wi);

	if (!nb || rest >= nb->n)
		return NULL;
	if (range_goes_on(last, 1)) {
		write_range_w(e, fi, nb->insn + rest - 1, !rp->xlast, rp->n,
			      off, w + rp->cw[rp->n]);
		return nb;
	}
	write_range_w(e, fi, last, 0, m, off, w + rp->cw[m]);
	write_range_w(e + 1, nb->insn, nb->insn + rest - 1, !rp->xlast, rest,
		      off, (uint32_t)(rp->cw[rp->n] - rp->cw[m]));
	return nb;
}

/* rng_fast_body()'s run s->p from its start: its headers from HP to HEND,
 * OBASE its rng_obase(). */
#define RNG_FAST_RUN(HP, HEND, OBASE)                                       \
	do {                                                                \
		(HP) = s->p->u.run.headers;                                 \
		(HEND) = (HP) + s->p->u.run.count;                          \
		(OBASE) = rng_obase(s->p, offs_given);                      \
	} while (0)

/* rng_fast_body()'s cycle-accurate loop ends here: its state to @s,
 * with @wi (as rca.trail[]) and @ci (the sum of rca.count[]) unpacked;
 * returns @hp. Called at each of its exits (merged into one, the exits'
 * values cost register copies in the loop). */
static FLOW_INLINE const uint8_t *
rca_out(struct etm3_flow_decoder *d, struct rng_fast *s,
	struct flow_block *b, const struct flow_insn *fi,
	struct etmkit_elem *e, uint64_t wi, uint64_t ci, const uint8_t *hp)
{
	d->stats.insns += rca_count(ci);
	s->b = b;
	s->fi = fi;
	s->e = e;
	s->w = rca_w(wi);
	return hp;
}

/* rng_run()'s common headers, in a loop of their own so that its few
 * variables stay in registers (in rng_run() they are spilled around its
 * general cases). Returns the first header from @hp on that it does not
 * take, or, with s->exit set, where a range left its block with no
 * successor linked (the caller goes on with block_end()). Its checks are
 * rng_run()'s: it stops where rng_run() would leave the fast way. After
 * a taken indirect branch that ends the run it may go on over the branch
 * packet into the next run (rng_fast_chain()), and on: it returns in run
 * s->p, the caller's or a later one. Cycle-accurate, at any run's end it
 * goes on to the next as rng_run() would (rng_fast_next()), or returns
 * with s->saved set, the walk's state in *d.
 *
 * Cycle-accurate trace (@ca): headers of W atoms only, and headers whose
 * instructions are one range in block s->b, up to its last instruction
 * at most (then on to a linked successor); s->exit is set after the
 * header whose range left the block and the W-only headers after it. It
 * stops after FLOW_RF_HEADERS headers of a run (s->w is at most
 * FLOW_W_RF_MAX when it is called). A header
 * is read from the words of struct flow_rca: whether it fits the block
 * is one comparison, its range one sum and a few copies
 * (write_range_rca()); its W atoms are kept as that sum's cycles.
 *
 * Without (no W atoms): nearly every header is E atoms and the N that
 * may end them (format 1, IHI 0014Q Table 7.2), taken a block at a time
 * through linked blocks, each block's part one range (a range ends at a
 * taken branch). It stops at a header with no instructions, with an N
 * before the last, or that may not fit the queue. With s->exit set it
 * returns the header after the one whose range left the block if that
 * was its last atom, else (s->left atoms to go) that header itself. */
static FLOW_INLINE const uint8_t *
rng_fast_body(struct etm3_flow_decoder *d, struct rng_fast *s,
	      const uint8_t *hp, const uint8_t *hend, uintptr_t obase,
	      int offs_given, const int ca)
{
	struct flow_block *b = s->b;
	const struct flow_insn *fi = s->fi;
	struct etmkit_elem *e = s->e;
	/* Up to elim any header fits; past it, one fits if two elements per
	 * instruction do before the queue's end, qend (rng_run()'s test,
	 * without its division). */
	struct etmkit_elem *const elim = &d->q[FLOW_QUEUE - 32];
	const uintptr_t qend = (uintptr_t)&d->q[FLOW_QUEUE];
	const uint32_t *const tab = d->rfast;
	uint64_t w = ca ? s->w : 0, insns = 0;

	if (ca) {
		const struct flow_rca *const t = &d->rca;
		const struct flow_insn *bend = b->insn + b->n;
		uint64_t wi = rca_image(0, 0, (uint32_t)w); /* as rca.trail[] */
		uint64_t ci = 0; /* the sum of rca.count[]: insns */

ca_run:
		/* w stays below FLOW_W_CAP: at most FLOW_RF_HEADERS headers
		 * of a run, and a run after the first only after a range
		 * (its W atoms then start from a header's trail). */
		if (hend - hp > FLOW_RF_HEADERS)
			hend = hp + FLOW_RF_HEADERS;
		for (; hp < hend; hp++) {
			unsigned k = *hp;
			uint64_t span = t->span[k];
			const struct flow_insn *after;

			while (!span) {
				/* W atoms only. Below FLOW_W_CAP by
				 * FLOW_RF_HEADERS's bound; a loop of their
				 * own, the most common header. */
				wi += t->trail[k];
				if (++hp == hend)
					goto ca_out;
				k = *hp;
				span = t->span[k];
			}
			if (e > elim &&
			    (uintptr_t)e + 2 * sizeof(*e) * d->rph[k].n > qend)
				goto ca_out;
			/* Past the block's end only if not one range. */
			after = (const void *)((uintptr_t)fi + span);
			if (FLOW_LIKELY(after < bend)) {
				/* One range inside the block, short of its
				 * last instruction: it ends where the next
				 * begins (a block's instructions are
				 * contiguous). */
				write_range_rca(e, t, k, fi, after - 1,
						after->addr,
						rng_off(obase, hp, offs_given),
						wi);
				e++;
				wi = t->trail[k];
				ci += t->count[k];
				fi = after;
				continue;
			}
			if (after != bend) {
				/* One range's instructions past the block's
				 * last: taken on if the rest lie in its
				 * linked successor, short of that one's last
				 * (rng_cross()); else rng_run()'s. */
				struct flow_block *nb;

				if (span == FLOW_RCA_NOT_ONE ||
				    !(nb = rng_cross(d, e, k, b, fi, bend,
						     rng_off(obase, hp,
							     offs_given),
						     wi)))
					goto ca_out;
				e += 1 + !range_goes_on(bend - 1, 1);
				fi = nb->insn + (d->rph[k].n - (bend - fi));
				b = nb;
				bend = nb->insn + nb->n;
				wi = t->trail[k];
				ci += t->count[k];
				continue;
			}
			/* Up to the block's last instruction: then its
			 * linked successor, or the caller's block_end(). */
			write_range_rca(e, t, k, fi, bend - 1, b->range.end,
					rng_off(obase, hp, offs_given), wi);
			e++;
			wi = t->trail[k];
			ci += t->count[k];
			{
				const struct flow_insn *last = bend - 1;
				unsigned x = d->rph[k].xlast;
				int slot = exit_slot(last, x);
				struct flow_block *nb = slot < 0 ? NULL : b->succ[slot];

				if (!nb) {
					/* The W atoms after it count
					 * towards the next instruction,
					 * wherever that is (IHI 0014Q
					 * 7.3.1, Table 7.3). */
					while (++hp < hend && !t->span[*hp])
						wi += t->trail[*hp];
					if (slot < 0 &&
					    (nb = rng_fast_chain(d, s, b, e, hp,
								 offs_given))) {
						RNG_FAST_RUN(hp, hend, obase);
						b = nb;
						fi = nb->insn;
						bend = nb->insn + nb->n;
						goto ca_run;
					}
					s->exit = last;
					s->exit_x = x;
					fi = last;
					goto ca_out;
				}
				b = nb;
				fi = nb->insn;
				bend = nb->insn + nb->n;
			}
		}
ca_out:
		hp = rca_out(d, s, b, fi, e, wi, ci, hp);
		/* At the run's end (not FLOW_RF_HEADERS's), rng_run()'s way
		 * to the next run, out of line; on in that run if it can. */
		if (hp == s->p->u.run.headers + s->p->u.run.count &&
		    rng_fast_next(d, s, offs_given)) {
			b = s->b;
			fi = s->fi;
			e = s->e;
			bend = b->insn + b->n;
			wi = rca_image(0, 0, (uint32_t)s->w);
			ci = 0;
			RNG_FAST_RUN(hp, hend, obase);
			goto ca_run;
		}
		return hp;
	} else {
nca_run:
		for (; hp < hend; hp++) {
			uint32_t v = tab[*hp];
			const struct flow_insn *start = fi, *last;
			struct flow_block *nb;
			unsigned left, cnt = 0, nx = (v >> 16) & 1, x;
			uint64_t off;

			left = v >> FLOW_RF_N;
			if (!(v & FLOW_RF_ONE) ||
			    (e > elim && (uintptr_t)e + 2 * sizeof(*e) * left > qend))
				break;
			off = rng_off(obase, hp, offs_given);
			for (;;) {
				const struct flow_insn *bend = b->insn + b->n;

				if (FLOW_LIKELY(fi + left < bend)) {
					/* The rest, short of the block's last. */
					cnt += left;
					write_range_w(e, start, fi + left - 1, nx, cnt,
						      off, 0);
					e++;
					insns += cnt;
					fi += left;
					left = 0;
					break;
				}
				/* Up to the block's last instruction, whose atom is
				 * an E unless it is the header's last. */
				last = bend - 1;
				left -= (unsigned)(bend - fi);
				cnt += (unsigned)(bend - fi);
				x = left ? 1 : nx ^ 1;
				{
					int slot = exit_slot(last, x);

					nb = slot < 0 ? NULL : b->succ[slot];
				}
				if (left && nb && range_goes_on(last, x)) {
					/* A long block's cut: the range goes on. */
					b = nb;
					fi = nb->insn;
					continue;
				}
				write_range_w(e, start, last, x ^ 1, cnt, off, 0);
				e++;
				insns += cnt;
				if (!nb) {
					if (!left && exit_slot(last, x) < 0 &&
					    (nb = rng_fast_chain(d, s, b, e,
								 hp + 1,
								 offs_given))) {
						RNG_FAST_RUN(hp, hend, obase);
						b = nb;
						fi = nb->insn;
						goto nca_run;
					}
					s->exit = last;
					s->exit_x = x;
					s->left = left;
					fi = last;
					hp += !left;
					goto out;
				}
				b = nb;
				fi = nb->insn;
				if (!left)
					break;
				start = fi;
				cnt = 0;
			}
		}
	}
out:
	d->stats.insns += insns;
	s->b = b;
	s->fi = fi;
	s->e = e;
	if (ca)
		s->w = w;
	return hp;
}

/* rng_fast_body() out of line, a copy for runs with an offset table
 * (deframed input) and one without, for cycle-accurate trace (rng_fast())
 * and not (rng_nfast()). */
#define RNG_FAST_COPY(NAME, OFFS, CA)                                       \
	static __attribute__((noinline)) const uint8_t *NAME(               \
		struct etm3_flow_decoder *d, struct rng_fast *s,            \
		const uint8_t *hp, const uint8_t *hend, uintptr_t obase)    \
	{                                                                   \
		return rng_fast_body(d, s, hp, hend, obase, OFFS, CA);      \
	}
RNG_FAST_COPY(rng_fast_offs, 1, 1)
RNG_FAST_COPY(rng_fast_plain, 0, 1)
RNG_FAST_COPY(rng_nfast_offs, 1, 0)
RNG_FAST_COPY(rng_nfast_plain, 0, 0)

/* After run @p, done: decode()'s loop, for the batch's packets up to the
 * next run, which is returned (the batch's current packet now) if
 * rng_run()'s copy for @offs_given takes it: rng_run() goes on with it,
 * with no return to decode() between runs. Else NULL, and decode() goes
 * on from the batch's current packet, the last one taken here. The
 * tests are decode()'s, in its order, so that a batch ends where
 * decode() would end it. A branch address with no exception
 * information (IHI 0014Q 7.3.5), most packets between runs, is taken
 * here (branch_go_only(), as etm3_flow_packet() takes it). */
static FLOW_INLINE const struct etm3_packet *
rng_chain(struct etm3_flow_decoder *d, const struct etm3_packet *p,
	  int offs_given)
{
	if (p != &d->batch[d->drv.ibatch])
		return NULL; /* expand_one()'s */
	for (;;) {
		int i = d->drv.ibatch + 1;
		const struct etm3_packet *q = &d->batch[i];
		const struct etm3_branch *br = &q->u.branch;

		if (i >= d->drv.nbatch)
			return NULL;
		if (q->type == etm3_pkt_p_header_run && !q->error) {
			if (!d->synced || !q->u.run.offsets != !offs_given)
				return NULL;
			return rng_enter(d, i);
		}
		if (q->type == etm3_pkt_p_header || room(d) < FLOW_PKT_ELEMS)
			return NULL;
		if (q->type == etm3_pkt_branch_address && !q->error &&
		    branch_go_only(d, br))
			d->stats.packets++; /* as etm3_flow_packet() counts */
		else
			etm3_flow_packet(d, q);
		d->drv.ibatch = i;
	}
}

/* Run @p done, the walk's state saved: its headers counted, then
 * rng_chain()'s packets up to the next run, returned if rng_run() takes
 * it, else NULL. */
static FLOW_INLINE const struct etm3_packet *
rng_next_run(struct etm3_flow_decoder *d, const struct etm3_packet *p,
	     int offs_given)
{
	d->stats.packets += p->u.run.count - d->run_h;
	return rng_chain(d, p, offs_given);
}

/* rng_fast_body()'s cycle-accurate loop at the end of run s->p, its
 * state in *s (rca_out()): what rng_run() does there when rng_fast()
 * returns, out of line, so that the loop goes on without returning. The
 * exit s->exit, if set (rng_exit()), the state saved (RNG_SAVE, no range
 * open between runs), the packets up to the next run (rng_next_run())
 * and its front (rng_front()). Returns 1 when
 * rng_run() would call rng_fast() at that run's start: *s is the walk
 * there (s->p the run, s->e0 its first element). Else 0 with s->saved
 * set: rng_run() goes on from *d, at run s->p or, NULL, done. */
static __attribute__((noinline)) int
rng_fast_next(struct etm3_flow_decoder *d, struct rng_fast *s, int offs_given)
{
	const struct etm3_packet *p = s->p;

	if (s->exit)
		rng_exit(d, s->b, s->exit, s->exit_x);
	rng_save(d, s->exit ? NULL : s->b, s->fi, s->e, s->e0, NULL, s->w, 1);
	s->exit = NULL;
	s->saved = 1;
	s->p = p = offs_given ? rng_next_run(d, p, 1) : rng_next_run(d, p, 0);
	if (!p)
		return 0;
	rng_front(d, p, offs_given);
	if (d->pos != POS_BLOCK || d->open >= 0 || d->w > FLOW_W_RF_MAX)
		return 0;
	s->b = d->blk;
	s->fi = &d->blk->insn[d->idx];
	s->e = s->e0 = &d->q[d->n];
	s->w = d->w;
	s->saved = 0;
	return 1;
}

/* walk_run() for ETM3_FLOW_RANGES with data trace off. Each header's
 * instructions a range at a time (its atoms: IHI 0014Q 7.3.1, Tables 7.2
 * and 7.3; spec etmv3.md 4.3; the table struct flow_rph): a run of E
 * atoms (and the N that ends it) is taken a block at a time, since within
 * a block only the last
 * instruction may branch, so the run's instructions up to the block's
 * end are one range whatever their number, written once. Where the walk
 * needs more than a linked block (a lookup, an indirect branch, a range
 * left open by one), an instruction goes the general way (step()). A
 * header that may not fit the queue (two elements per instruction at
 * most) waits, whole, for the next call (d->run_h; the walk's run_a is
 * never set here): the elements are the same, only where one call's
 * batch ends may move. The common headers go through rng_fast() (@ca,
 * cycle-accurate trace: no instructions, or one range inside a linked
 * block) or rng_nfast() (E atoms and a last N, through linked blocks),
 * whose loops keep their state in registers. */
static FLOW_INLINE int rng_run(struct etm3_flow_decoder *d,
			       const struct etm3_packet *p, int offs_given,
			       const int ca)
{
	const struct etm3_p_header_run *r;
	const uint8_t *hdr, *hp, *hend;
	uintptr_t obase; /* rng_obase() */
	struct flow_block *b;
	const struct flow_insn *fi;
	/* e: the next free element; e0, e at RNG_LOAD (e[-1], the last
	 * range written, if e != e0); open: while a header's instructions
	 * are walked the general way, the range the next may extend. */
	struct etmkit_elem *e, *e0, *open;
	uint64_t w; /* saturated at FLOW_W_CAP where used (see below) */
	uint64_t insns = 0; /* instructions since RNG_SAVE */

next_run:
	rng_front(d, p, offs_given);
	RNG_LOAD();
	r = &p->u.run;
	hdr = r->headers;
	hp = hdr + d->run_h;
	hend = hdr + r->count;
	obase = rng_obase(p, offs_given);
headers:
	for (; hp < hend; hp++) {
		const struct flow_rph *ph;
		unsigned n, i = 0;
		uint32_t nm;
		uint64_t off;

		ph = &d->rph[*hp];
		n = ph->n;
		if (FLOW_LIKELY(!n) && !(ca && b && w <= FLOW_W_RF_MAX)) {
			/* Only W atoms, where rng_fast() does not take
			 * them. Saturated at the next header with
			 * instructions (or RNG_SAVE), not here: w is at most
			 * FLOW_W_CAP at every header's start, and adding
			 * trails then saturating once gives what saturating
			 * after each does (a run's count fits 32 bits and a
			 * trail 8 bits: no overflow of 64). */
			if (ca)
				w += ph->trail;
			continue;
		}
		if (ca && w > FLOW_W_CAP)
			w = FLOW_W_CAP;
		if (e > &d->q[FLOW_QUEUE - 32] &&
		    (size_t)(&d->q[FLOW_QUEUE] - e) / 2 < n) {
			open = NULL;
			RNG_SAVE();
			d->stats.packets += (uint32_t)(hp - hdr) - d->run_h;
			d->run_h = (uint32_t)(hp - hdr);
			return 0; /* this header again, after the batch */
		}
		/* A range never spans two packets: every header starts with
		 * none open, so what the fast cases leave in open is never
		 * read (nor d->open between headers), and they leave it. */
		if (FLOW_LIKELY(b && (ph->one || !n)) &&
		    (!ca || (fi + n <= b->insn + b->n &&
			     w <= FLOW_W_RF_MAX))) {
			/* This header (rng_fast() and rng_nfast() make the
			 * same tests, so they take it) and the common ones
			 * after it, up to one they do not take. */
			struct rng_fast fs = { b, fi, e, w, NULL, 0, 0, p, e0,
					       0 };

			if (ca)
				hp = offs_given ?
					rng_fast_offs(d, &fs, hp, hend, obase) :
					rng_fast_plain(d, &fs, hp, hend, obase);
			else
				hp = offs_given ?
					rng_nfast_offs(d, &fs, hp, hend, obase) :
					rng_nfast_plain(d, &fs, hp, hend, obase);
			if (ca && fs.saved) {
				/* rng_fast_next() ended the run and the
				 * loop did not go on: from *d. */
				d->stats.insns += insns;
				insns = 0;
				if (!fs.p)
					return 1;
				p = fs.p;
				goto next_run;
			}
			b = fs.b;
			fi = fs.fi;
			e = fs.e;
			w = fs.w;
			if (fs.p != p) {
				/* It went on to later runs. */
				p = fs.p;
				e0 = fs.e0;
				open = NULL;
				r = &p->u.run;
				hdr = r->headers;
				hend = hdr + r->count;
				obase = rng_obase(p, offs_given);
			}
			if (fs.exit) {
				/* Its range goes on if it can (as below),
				 * from the address block_end() goes to; not
				 * after a taken indirect branch. Nothing
				 * reads the rest of *d before RNG_SAVE. */
				open = exit_slot(fs.exit, fs.exit_x) >= 0 &&
				       range_goes_on(fs.exit, fs.exit_x) ?
					       e - 1 : NULL;
				b = NULL;
				fi = NULL;
				rng_exit(d, fs.b, fs.exit, fs.exit_x);
			}
			if (!ca && fs.left) {
				/* rng_nfast() left the header at hp mid-way:
				 * the rest the general way (below), from
				 * the range if that goes on. */
				ph = &d->rph[*hp];
				n = ph->n;
				i = n - fs.left;
				off = rng_off(obase, hp, offs_given);
				nm = ph->nmask;
				goto rest;
			}
			goto headers; /* hp next, without the loop's step */
		}
		if (ca && FLOW_LIKELY(b && ph->one)) {
			/* The same cases inline (W atoms past
			 * FLOW_W_RF_MAX). */
			const struct flow_insn *last = fi + n - 1;
			const struct flow_insn *bend = b->insn + b->n;
			unsigned trail = ph->trail, x = ph->xlast;
			uint64_t wr = w + ph->cw[n];

			off = rng_off(obase, hp, offs_given);
			if (FLOW_LIKELY(last + 1 < bend)) {
				/* One range inside the block, not up to its
				 * last instruction. */
				write_range(e, fi, last, x, n, off, wr);
				fi += n;
				w = trail;
				d->stats.insns += n;
				e++;
				continue;
			}
			if (last + 1 == bend) {
				/* One range up to the block's last
				 * instruction: then its linked successor,
				 * or block_end(). */
				int slot = exit_slot(last, x);
				struct flow_block *nb =
					slot < 0 ? NULL : b->succ[slot];

				write_range(e, fi, last, x, n, off, wr);
				w = trail;
				d->stats.insns += n;
				e++;
				if (FLOW_LIKELY(nb != NULL)) {
					b = nb;
					fi = nb->insn;
					continue;
				}
				open = range_goes_on(last, x) ? e - 1 : NULL;
				fi = last;
				RNG_SAVE();
				rng_slow_exit(d, b, last, x);
				RNG_LOAD();
				continue;
			}
		}
		off = rng_off(obase, hp, offs_given);
		open = NULL;
		nm = ph->nmask;
rest:
		while (i < n) {
			const struct flow_insn *start, *last;
			struct flow_block *nb;
			unsigned i0 = i, x;
			uint32_t cnt = 0;

			if (!b || open) {
				RNG_SAVE();
				if (!open && d->pos == POS_ADDR &&
				    rng_resolve(d, off)) {
					RNG_LOAD(); /* on a block now */
					if (!i)
						break; /* the header again:
							  the fast way */
					continue;
				}
				rng_slow_insn(d, ph->item[i++], off);
				RNG_LOAD();
				continue;
			}
			start = fi;
			for (;;) {
				unsigned rr = (unsigned)__builtin_ctz(nm >> i);
				unsigned nat = i + rr < n; /* ends in an N */
				unsigned len = rr + nat;
				const struct flow_insn *bend = b->insn + b->n;

				if (fi + len < bend) {
					last = fi + len - 1;
					x = !nat;
					fi += len;
					cnt += len;
					i += len;
					nb = b; /* stays in the block */
					break;
				}
				last = bend - 1;
				x = !(nat && fi + len == bend);
				len = (unsigned)(bend - fi);
				cnt += len;
				i += len;
				{
					int slot = exit_slot(last, x);

					nb = slot < 0 ? NULL : b->succ[slot];
				}
				if (!nb || i >= n || !x ||
				    (last->flags & (INSN_F_BRANCH |
						    INSN_F_ISA_SWITCH)))
					break;
				/* Runs on into the next block (a long
				 * one's cut). */
				b = nb;
				fi = nb->insn;
			}
			write_range(e, start, last, x, cnt, off,
				    ca ? w + ph->cw[i] - ph->cw[i0] : 0);
			w = 0;
			d->stats.insns += cnt;
			open = range_goes_on(last, x) ? e : NULL;
			e++;
			if (nb == b && last != b->insn + b->n - 1)
				continue; /* still inside block b */
			if (nb) {
				b = nb;
				fi = nb->insn;
				continue;
			}
			fi = last;
			RNG_SAVE();
			rng_slow_exit(d, b, last, x);
			RNG_LOAD();
		}
		if (!i) {
			hp--; /* looked up at its start: again, on a block */
			continue;
		}
		if (ca)
			w += ph->trail;
	}
	open = NULL; /* none between headers */
	RNG_SAVE();
	p = rng_next_run(d, p, offs_given);
	if (p)
		goto next_run;
	return 1;
}

/* rng_run() for cycle-accurate trace: headers of at most two
 * instructions, half of them none, come in long runs that rng_fast()
 * takes in a loop of their own; elsewhere (longer headers, often across
 * blocks, that it would take one at a time) the same cases are inline. */
static __attribute__((noinline)) int
rng_run_ca(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	return p->u.run.offsets ? rng_run(d, p, 1, 1) : rng_run(d, p, 0, 1);
}

/* rng_run() without cycle-accurate trace: no W atoms, so none of the
 * loop's cycle counting; the common headers (format 1: E atoms, then an
 * N or none) go through rng_nfast(). */
static __attribute__((noinline)) int
rng_run_nca(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	return p->u.run.offsets ? rng_run(d, p, 1, 0) : rng_run(d, p, 0, 0);
}

/* ETM3_FLOW_RANGES with data trace on: walk_run()'s copies for ranges,
 * kept out of line so that the per-instruction ones stay as they were. */
static __attribute__((noinline)) int
walk_run_ranges(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	return p->u.run.offsets ? walk_run(d, p, 1, 1, 1) :
				  walk_run(d, p, 0, 1, 1);
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
		return data_on ? walk_run_ranges(d, p) :
		       d->info.cycle_accurate ? rng_run_ca(d, p) :
						rng_run_nca(d, p);
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
		etm3_flow_forget(d);
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
			etm3_flow_packet(d, p);
		}
		d->drv.ibatch++;
		d->run_h = d->run_a = 0;
	}
}

void etm3_flow_queue_at(struct etm3_flow_decoder *d, struct etmkit_elem *to)
{
	size_t k = flow_queue_move(&d->q, to ? to : d->q_own, &d->n,
				   &d->delivered);

	if (!k)
		return;
	if (d->hold >= 0)
		d->hold -= (long)k;
	if (d->open >= 0)
		d->open = d->open >= (long)k ? d->open - (long)k : -1;
}

/* Forget the elements the last batch handed out. */
static void drop_delivered(struct etm3_flow_decoder *d)
{
	etm3_flow_queue_at(d, d->q);
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
