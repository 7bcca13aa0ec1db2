/* PTM flow decoder: PFT packets and the program image to execution
 * elements (IHI 0035B chapter 4; digest ptm.md).
 *
 * PFT traces waypoints, not instructions (IHI 0035B 4.3): an atom says
 * whether the next waypoint passed its condition check (E) or not (N),
 * and the decoder walks the image from where execution stands through
 * the instructions that are no waypoints up to that waypoint. The
 * waypoints are the branches, ISB (as OpenCSD has it, and as the TC2 and
 * Snowball captures need: their atoms line up with the ranges only so),
 * and DMB/DSB when ETMCCER[24] says so (digest section 1). A taken
 * direct branch goes to its target; a taken indirect branch's target
 * comes in a branch address packet, which itself stands for that E atom
 * (4.5.4), or, with the return stack on (ETMCR[29]), from the decoder's
 * model of the trace unit's return stack when an atom comes alone.
 * Exceptions, which are no waypoints, come as branch address packets
 * with exception information, after a waypoint update packet (4.5) that
 * takes the walk up to the last instruction executed before them.
 *
 * Memory is fixed at allocation (the block cache, the output queue): the
 * walk allocates nothing. A walk that would not fit in the queue stops
 * between blocks and goes on at the next batch.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/ptm_flow_int.h"
#include "packets/ptm/ptm_view.h"

/* ---- Set-up ------------------------------------------------------------- */

void ptm_flow_config_init(struct ptm_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	ptm_config_init(&cfg->ptm);
}

void ptm_flow_forget(struct ptm_flow_decoder *d)
{
	d->open = -1;
	d->synced = 0;
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	d->waiting = 0;
	d->lost_reported = 0;
	d->atom_i = 0;
	d->ctx_sent = 0;
	d->vmid_seen = 0;
	ptm_rs_flush(d);
}

int ptm_flow_alloc(struct ptm_flow_decoder **out,
		   const struct ptm_flow_config *cfg)
{
	struct ptm_flow_decoder *d;
	int err;

	if (!out || !cfg ||
	    cfg->size < offsetof(struct ptm_flow_config, image_for_context) ||
	    cfg->ptm.size < sizeof(cfg->ptm) ||
	    (cfg->flags & ~(uint32_t)PTM_FLOW_RANGES))
		return -etmkit_err_invalid;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	err = ptm_config_decode(&cfg->ptm, &d->info);
	if (!err)
		err = ptm_pkt_alloc(&d->pkt, &cfg->ptm);
	if (!err)
		err = flow_cache_init(&d->cache, cfg->image,
				      cfg->cache_bytes ? cfg->cache_bytes :
							 4u << 20,
				      (uint8_t)(ETMKIT_INSN_EXEC |
						(d->info.cycle_accurate ?
						 ETMKIT_INSN_CYCLES : 0)));
	if (err) {
		ptm_flow_free(d);
		return err;
	}
	/* Waypoints (IHI 0035B 4.3; digest ptm.md 1, ETMCCER[24]). A
	 * ThumbEE ENTERX or LEAVEX switches the instruction set without
	 * one: a block ends there, the walk goes on in the other set. */
	d->wp_flags = INSN_F_BRANCH | INSN_F_ISB |
		      (d->info.dmb_waypoint ? INSN_F_BARRIER : 0);
	flow_cache_set_ends(&d->cache, d->wp_flags | INSN_F_ISA_SWITCH);
	if (cfg->size >= offsetof(struct ptm_flow_config, image_ctx) +
				 sizeof(cfg->image_ctx)) {
		d->image_for_context = cfg->image_for_context;
		d->image_ctx = cfg->image_ctx;
	}
	d->ranges = !!(cfg->flags & PTM_FLOW_RANGES);
	d->one_pass = d->ranges;
	flow_drive_reset(&d->drv);
	d->q = d->q_own;
	ptm_flow_forget(d);
	*out = d;
	return 0;
}

void ptm_flow_free(struct ptm_flow_decoder *d)
{
	if (!d)
		return;
	ptm_pkt_free(d->pkt);
	flow_cache_fini(&d->cache);
	free(d);
}

void ptm_flow_reset(struct ptm_flow_decoder *d)
{
	if (!d)
		return;
	ptm_pkt_reset(d->pkt);
	flow_drive_reset(&d->drv);
	d->n = d->delivered = 0;
	d->q = d->q_own;
	ptm_flow_forget(d);
	/* What a loss of sync keeps, as just allocated: a reset decoder is
	 * a fresh one. */
	d->isa = d->space = 0;
	d->addr = 0;
	d->idx = 0;
	d->ns = d->hyp = 0;
	d->context_id = d->vmid = 0;
	memset(&d->stats, 0, sizeof(d->stats));
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct ptm_flow_stats *
ptm_flow_get_stats(const struct ptm_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Position ----------------------------------------------------------- */

/* resolve() past the guesses and the front: the cache's lookup, or
 * no_image. Out of line, so that the common cases inline light. */
static __attribute__((noinline)) int resolve_lookup(struct ptm_flow_decoder *d,
						    uint64_t offset,
						    struct flow_block *f,
						    uint64_t gen)
{
	uint8_t loss = etmkit_loss_misaligned;
	struct flow_block *b = NULL;

	if (!(d->addr & (d->isa == etmkit_isa_arm ? 3u : 1u)))
		b = flow_cache_get(&d->cache, d->addr, d->isa, d->space,
				   &loss);
	if (b) {
		if (f && flow_cache_generation(&d->cache) == gen)
			flow_ind_note(f, b);
		FLOW_ENTER_BLOCK(d, b, gen);
		return 1;
	}
	flow_no_image(ptm_emit(d, etmkit_elem_no_image, offset), d->addr,
		      d->isa, loss, d->space);
	d->pos = POS_NONE;
	d->link_from = NULL;
	d->lost_reported = 1;
	return 0;
}

/* Make POS_ADDR a block: one of the guesses of the indirect branch that
 * came here (block.h), the cache's front, or a lookup. Returns 1, or 0
 * after reporting no_image (one element: the caller made room). */
static inline int resolve(struct ptm_flow_decoder *d, uint64_t offset)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	struct flow_block *b = NULL, *f = d->ind_from;

	d->ind_from = NULL;
	if (f && d->ind_gen != gen)
		f = NULL; /* its block gone */
	if (f)
		b = flow_ind_guess(f, d->addr, d->isa, d->space);
	if (b) {
		FLOW_ENTER_BLOCK(d, b, gen);
		return 1;
	}
	/* A32 instructions are word-aligned, T32 and ThumbEE ones
	 * halfword-aligned (IHI 0035B 4.5.4: the address bits a branch
	 * packet leaves out). */
	if (!(d->addr & (d->isa == etmkit_isa_arm ? 3u : 1u)) &&
	    !flow_cache_outside(&d->cache, d->addr))
		b = flow_cache_front(&d->cache, d->addr, d->isa, d->space);
	if (!b)
		return resolve_lookup(d, offset, f, gen);
	if (f)
		flow_ind_note(f, b);
	FLOW_ENTER_BLOCK(d, b, gen);
	return 1;
}

static void leave_block(struct ptm_flow_decoder *d, struct flow_block *b,
			unsigned slot, uint64_t addr, uint8_t isa)
{
	FLOW_LEAVE_BLOCK(d, b, slot, addr, isa, (void)0);
}

/* Past block @b's last instruction without its branch taken: the next
 * instruction, in the other instruction set after ENTERX or LEAVEX. */
static void fall_through(struct ptm_flow_decoder *d, struct flow_block *b)
{
	if (b->insn[b->n - 1].flags & INSN_F_ISA_SWITCH)
		leave_block(d, b, 1, b->target, b->target_isa);
	else
		leave_block(d, b, 0, flow_block_end(b), b->isa);
}

/* ---- Return stack (ETMCR[29]) ------------------------------------------ */

/* The return stack (IHI 0035B 4.13, Use of a return stack): a branch
 * with link that executes (BL, BLX, ThumbEE HBL and HBLP: Table 4.12)
 * pushes its return address, with its instruction set and security
 * state; a full stack drops its oldest entry. An indirect branch that
 * passes its condition code check and whose target, instruction set and
 * security state match the newest entry pops it and is traced by its
 * atom alone; any other indirect branch gets a branch address packet and
 * leaves the stack as it is. The decoder's stack is a model of the trace
 * unit's: pushed and popped exactly when the trace unit's is, so its top
 * is the trace unit's as long as it is at least as deep (PTM_RS). */

/* A taken branch with link, the last instruction of block @b: its
 * return address, the next instruction. */
static void rs_push(struct ptm_flow_decoder *d, struct flow_block *b)
{
	uint8_t t = (uint8_t)((d->rs_top + 1) % PTM_RS);

	d->rs_top = t;
	d->rs[t].addr = flow_block_end(b);
	d->rs[t].isa = b->isa;
	d->rs[t].blk = b->succ[0];
	d->rs[t].from = b;
	d->rs[t].gen = flow_cache_generation(&d->cache);
	if (d->rs_n < PTM_RS)
		d->rs_n++;
}

/* An indirect branch whose E atom came without its address: the trace
 * unit's return stack gave it. Returns 0 when the model's stack is
 * empty (the position is then unknown). Inline: out of line (as GCC
 * left it once the memory space was checked), its calls cost 4% of the
 * ranges decode of tc2-ptm-rstk-t32 (callgrind). */
static inline int rs_pop(struct ptm_flow_decoder *d)
{
	uint8_t t = d->rs_top;
	int same;

	if (!d->rs_n)
		return 0;
	/* The blocks noted at the call only spare a lookup: not once the
	 * cache was emptied, nor in another memory space than the call's
	 * (an exception came between), where a lookup finds another
	 * block. So what is delivered does not depend on what the cache
	 * holds (the parallel decode compares states without them:
	 * par_state_ptm.c). */
	same = d->rs[t].gen == flow_cache_generation(&d->cache) &&
	       d->rs[t].from->space == d->space;
	d->rs_top = (uint8_t)((t + PTM_RS - 1) % PTM_RS);
	d->rs_n--;
	ptm_go_to(d, d->rs[t].addr, d->rs[t].isa);
	if (!same)
		return 1;
	if (d->rs[t].blk) {
		/* The block the call's falls through to, as leave_block()
		 * would find it. */
		d->ind_from = NULL;
		d->blk = d->rs[t].blk;
		d->idx = 0;
		d->pos = POS_BLOCK;
	} else {
		d->link_from = d->rs[t].from;
		d->link_slot = 0;
		d->link_gen = d->rs[t].gen;
	}
	return 1;
}

/* ---- Walk --------------------------------------------------------------- */

/* Deliver instructions b->insn[i..j), executed: an insn element each,
 * or (PTM_FLOW_RANGES) into the open range, else a new one. */
static void put_insns(struct ptm_flow_decoder *d, const struct flow_block *b,
		      uint32_t i, uint32_t j, uint64_t offset)
{
	const struct flow_insn *last = &b->insn[j - 1];
	struct etmkit_elem *e;

	d->stats.insns += j - i;
	if (!d->ranges) {
		e = &d->q[d->n];
		for (uint32_t k = i; k < j; k++, e++) {
			memcpy(&e->addr, &b->insn[k], 24);
			e->offset = offset;
			e->cycles = 0;
		}
		d->n += j - i;
		return;
	}
	if (d->open >= 0) {
		e = &d->q[d->open];
		e->u.range.count += j - i;
	} else {
		d->open = (long)d->n;
		e = &d->q[d->n++];
		memset(e, 0, sizeof(*e));
		e->offset = offset;
		e->addr = b->insn[i].addr;
		e->kind = etmkit_elem_insn_range;
		e->isa = b->isa;
		e->flags = d->cache.insn_flags;
		e->u.range.count = j - i;
	}
	e->size = last->head[2];
	e->u.range.opcode = last->opcode;
	e->u.range.class_flags = last->flags;
	e->u.range.end = last->addr + last->head[2];
}

/* The last element delivered (an instruction, or the open range) ends at
 * a waypoint whose atom was @taken: its flags (COND_FAIL is EXEC + 1,
 * block.h), and the packet's cycle count. The range is closed. */
static void end_at_waypoint(struct ptm_flow_decoder *d, unsigned taken,
			    uint32_t cycles, int has_cc)
{
	struct etmkit_elem *e = d->ranges ? &d->q[d->open] : &d->q[d->n - 1];

	e->flags = (uint8_t)(d->cache.insn_flags + !taken);
	e->cycles = has_cc ? cycles : 0;
	d->open = -1;
}

/* An atom (or a branch packet's implied one) with no known instruction:
 * before a known address, after no_image, after an indirect branch whose
 * address did not come. */
static void lose_atom(struct ptm_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e;

	d->stats.atoms_lost++;
	if (!d->synced || !d->waiting || d->lost_reported)
		return;
	e = ptm_emit(d, etmkit_elem_gap, offset);
	e->u.loss.reason = etmkit_loss_no_address;
	e->u.loss.why = "atom after an indirect branch whose address was not "
			"traced";
	d->lost_reported = 1;
}

/* After waypoint block @b's last instruction, whose atom was @taken, of a
 * step of kind @step. */
static inline void after_waypoint(struct ptm_flow_decoder *d,
				  struct flow_block *b, unsigned taken,
				  enum ptm_step step)
{
	const struct flow_insn *fi = &b->insn[b->n - 1];
	uint32_t f = fi->flags;
	int rs = d->info.return_stack;

	if (!taken || !(f & INSN_F_BRANCH)) {
		fall_through(d, b); /* N, or ISB / DMB / DSB */
		return;
	}
	if (!(f & INSN_F_INDIRECT)) {
		if ((f & INSN_F_CALL) && rs)
			rs_push(d, b);
		leave_block(d, b, 1, b->target, b->target_isa);
		return;
	}
	/* Indirect: its address comes in this branch packet (the stack
	 * left as it is), or (an atom alone, return stack on) from the
	 * return stack, popped (4.13); a BLX <reg> then pushes its own
	 * return, as any branch with link. */
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = b;
	d->ind_gen = flow_cache_generation(&d->cache);
	if (step != PTM_STEP_ATOM || !rs || !rs_pop(d)) {
		d->waiting = 1;
		d->lost_reported = 0;
	}
	if ((f & INSN_F_CALL) && rs)
		rs_push(d, b);
}

/* A waypoint update's walk (IHI 0035B 4.5): where in block @b, from
 * d->idx, the instruction at @addr is; b->n when it is not in it. */
static uint32_t find_addr(const struct flow_block *b, uint32_t i,
			  uint64_t addr)
{
	for (; i < b->n; i++)
		if (b->insn[i].addr == addr)
			return i;
	return b->n;
}

/* A waypoint update the image contradicts (IHI 0035B 4.5: execution went
 * on to its address without reaching a new waypoint): the walk from
 * block @b's instruction @i meets a waypoint first (as it does when the
 * address is behind it). The image is not what ran there: no_image (mismatch)
 * where the walk stood, and the position is lost until the trace gives
 * an address. (OpenCSD walks on through such waypoints as if not taken;
 * an unconditional branch so "not taken" is no execution at all.) */
static void wpup_mismatch(struct ptm_flow_decoder *d,
			  const struct flow_block *b, uint32_t i,
			  uint64_t offset)
{
	d->open = -1;
	flow_no_image(ptm_emit(d, etmkit_elem_no_image, offset),
		      b->insn[i].addr, b->isa, etmkit_loss_mismatch, d->space);
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->lost_reported = 1;
}

int ptm_flow_walk(struct ptm_flow_decoder *d, const struct ptm_packet *p,
		  enum ptm_step step, unsigned taken, uint32_t cycles,
		  int has_cc)
{
	uint64_t offset = p->offset;
	uint64_t target = p->u.branch.addr;

	for (;;) {
		struct flow_block *b;
		uint32_t i, j;
		int stop;

		if (ptm_room(d) < 2)
			return 0;
		if (d->pos == POS_NONE) {
			if (step != PTM_STEP_WPUP)
				lose_atom(d, offset);
			return 1;
		}
		if (d->pos == POS_ADDR && !resolve(d, offset)) {
			if (step != PTM_STEP_WPUP)
				d->stats.atoms_lost++;
			return 1;
		}
		b = d->blk;
		i = d->idx;
		if (step == PTM_STEP_WPUP) {
			j = find_addr(b, i, target);
			stop = j < b->n;
			if (!stop && (b->insn[j - 1].flags & d->wp_flags)) {
				wpup_mismatch(d, b, i, offset);
				return 1;
			}
			j += stop;
		} else {
			j = b->n;
			stop = (b->insn[j - 1].flags & d->wp_flags) != 0;
		}
		if (!d->ranges && ptm_room(d) < j - i + 1)
			return 0;
		put_insns(d, b, i, j, offset);
		if (step == PTM_STEP_WPUP) {
			const struct flow_insn *fi = &b->insn[j - 1];

			if (stop && j < b->n) {
				d->idx = j;
				d->open = -1;
				return 1;
			}
			if (stop || (fi->flags & INSN_F_ISA_SWITCH))
				d->open = -1;
			fall_through(d, b);
			if (stop)
				return 1;
			continue;
		}
		if (!stop) {
			/* Cut by the block's size, or ENTERX / LEAVEX: the
			 * range goes on (in the same instruction set). */
			if (b->insn[j - 1].flags & INSN_F_ISA_SWITCH)
				d->open = -1;
			fall_through(d, b);
			continue;
		}
		end_at_waypoint(d, taken, cycles, has_cc);
		after_waypoint(d, b, taken, step);
		return 1;
	}
}

/* An atom at the start of block @b, which ends at a waypoint, with room
 * for the block: the whole block delivered at once, from its templates
 * (block.h), and the walk moved on. The common case of ptm_flow_walk(),
 * inline in the atoms' loop. */
static inline void atom_block(struct ptm_flow_decoder *d, struct flow_block *b,
			      unsigned taken, uint32_t cycles, uint64_t offset)
{
	struct etmkit_elem *e = &d->q[d->n];
	uint8_t flags = (uint8_t)(d->cache.insn_flags + !taken);

	if (d->ranges) {
		memcpy(&e->addr, &b->range, sizeof(b->range));
		e->offset = offset;
		d->n++;
	} else {
		for (uint32_t k = 0; k < b->n; k++, e++) {
			memcpy(&e->addr, &b->insn[k], 24);
			e->offset = offset;
			e->cycles = 0;
		}
		d->n += b->n;
		e--;
	}
	e->flags = flags;
	e->cycles = cycles;
	d->stats.insns += b->n;
	after_waypoint(d, b, taken, PTM_STEP_ATOM);
}

_Static_assert(offsetof(struct etmkit_elem, addr) == 8 &&
	       offsetof(struct etmkit_elem, u.range.repeats) == 44 &&
	       sizeof(struct etmkit_elem) == 48 &&
	       sizeof(struct flow_range) == 40,
	       "struct flow_range is bytes 8..48 of a range element");

int ptm_flow_atoms(struct ptm_flow_decoder *d, const struct ptm_packet *p)
{
	const struct ptm_atoms *a = &p->u.atoms;
	uint32_t cycles = a->has_cycles ? ptm_cycles(a->cycles) : 0;
	/* Room for a whole block (FLOW_BLOCK_MAX and the end of an IT
	 * block), and then for the slow walk's element. */
	size_t need = d->ranges ? 2 : FLOW_BLOCK_MAX + 8;

	for (; d->atom_i < a->count; d->atom_i++) {
		unsigned taken = !((a->bits >> d->atom_i) & 1);
		struct flow_block *b = d->blk;

		/* Not where a walk stopped for room: its range is open. */
		if (d->pos == POS_BLOCK && !d->idx && d->open < 0 &&
		    ptm_room(d) >= need &&
		    (b->range.class_flags & d->wp_flags)) {
			atom_block(d, b, taken, cycles, p->offset);
			continue;
		}
		if (!ptm_flow_walk(d, p, PTM_STEP_ATOM, taken, cycles,
				   a->has_cycles))
			return 0;
	}
	return 1;
}

/* What fast_run() and view_run() keep in locals while they walk: the
 * queue's count, the instructions delivered, and whether the walk stands
 * at the start of block b (at; else d->pos says where it is, never
 * POS_BLOCK). */
struct run {
	size_t n;
	uint64_t insns;
	struct flow_block *b;
	int at;
	/* d's, read once (the stores to elements might alias them as far
	 * as the compiler knows) */
	struct etmkit_elem *q;
	uint32_t wp;
	uint8_t base;
	uint8_t rs;
};

/* How a step of run_atoms() or run_branch() ended. */
enum run_end {
	RUN_ON,   /* done: on to the next packet */
	RUN_ROOM, /* the queue is full */
	RUN_SLOW  /* the packet (from the atom reached) is the slow path's */
};

/* The run's state from d (the walk at a block's start, or not at a
 * block), and back. */
static inline void run_begin(struct ptm_flow_decoder *d, struct run *r)
{
	r->n = d->n;
	r->insns = 0;
	r->b = d->blk;
	r->at = d->pos == POS_BLOCK && !d->idx;
	r->q = d->q;
	r->wp = d->wp_flags;
	r->base = d->cache.insn_flags;
	r->rs = d->info.return_stack;
}

static inline void run_store(struct ptm_flow_decoder *d, const struct run *r)
{
	if (r->at) {
		d->blk = r->b;
		d->idx = 0;
		d->pos = POS_BLOCK;
	}
	d->n = r->n;
}

/* The run's resolve(): the block entered, or NULL after no_image. */
static inline struct flow_block *run_resolve(struct ptm_flow_decoder *d,
					     struct run *r, uint64_t offset)
{
	int found;

	d->n = r->n;
	found = resolve(d, offset);
	r->n = d->n;
	return found ? d->blk : NULL;
}

/* The atoms of an atom packet at @offset from *@pai to @count (atom i
 * taken if bit i of @bits is clear; each with @cycles), while each finds
 * the walk at the start of a block that ends at its waypoint (looked up
 * if need be): a range copied from the block's template each, the walk
 * going on to the successor the block has linked (a taken direct branch
 * or the next block), where after_waypoint() takes it. Leaves *@pai at
 * the atom it stopped at. */
static inline __attribute__((always_inline)) enum run_end
run_atoms(struct ptm_flow_decoder *d, struct run *r, uint32_t bits,
	  unsigned count, unsigned *pai, uint32_t cycles, uint64_t offset)
{
	const uint32_t wp = r->wp;
	const uint8_t base = r->base;
	const int rs = r->rs;
	struct etmkit_elem *q = r->q;
	struct flow_block *b = r->b;
	int at = r->at;
	size_t n = r->n;
	unsigned ai = *pai;
	enum run_end end = RUN_ON;

	for (; ai < count; ai++) {
		unsigned taken = !((bits >> ai) & 1);
		struct flow_block *next;
		struct etmkit_elem *e;
		uint32_t cls;

		if (n + 2 > PTM_QUEUE) {
			end = RUN_ROOM;
			break;
		}
		if (!at && d->pos == POS_NONE) {
			/* Nowhere to walk from (ptm_flow_walk()). */
			d->n = n;
			lose_atom(d, offset);
			n = d->n;
			continue;
		}
		if (!at) {
			r->n = n;
			b = run_resolve(d, r, offset);
			n = r->n;
			if (!b) {
				/* No image there: the atom is lost. */
				d->stats.atoms_lost++;
				continue;
			}
		}
		at = 1;
		cls = b->range.class_flags;
		if (!(cls & wp)) {
			end = RUN_SLOW;
			break;
		}
		e = &q[n++];
		memcpy(&e->addr, &b->range, sizeof(b->range));
		e->offset = offset;
		e->flags = (uint8_t)(base + !taken);
		e->cycles = cycles;
		r->insns += b->n;
		if (!taken || !(cls & INSN_F_BRANCH))
			next = b->succ[0];
		else if (!(cls & INSN_F_INDIRECT))
			next = b->succ[1];
		else
			next = NULL;
		if (next) {
			if (taken && (cls & INSN_F_CALL) && rs)
				rs_push(d, b);
			b = next;
			continue;
		}
		d->n = n;
		after_waypoint(d, b, taken, PTM_STEP_ATOM);
		at = d->pos == POS_BLOCK;
		b = d->blk;
	}
	r->b = b;
	r->at = at;
	r->n = n;
	*pai = ai;
	return end;
}

/* A branch address packet at @offset that only moves the walk (no
 * exception, no state change): its E atom (IHI 0035B 4.5.4), with
 * @cycles, walked as run_atoms() walks one, if the walk stands at the
 * start of a block ending at its waypoint (looked up if need be); the
 * walk then goes on at @addr in @isa; with nowhere to walk from (no
 * position, or no image there), its atom is lost as ptm_flow_walk() loses
 * it. RUN_SLOW (a block cut by its size, not at a waypoint) leaves the
 * packet whole to the slow path, the walk at that block's start. */
static inline __attribute__((always_inline)) enum run_end
run_branch(struct ptm_flow_decoder *d, struct run *r, uint32_t addr,
	   uint8_t isa, uint32_t cycles, uint64_t offset)
{
	struct flow_block *b = r->b;
	struct etmkit_elem *e;
	uint32_t cls;

	if (r->n + 2 > PTM_QUEUE)
		return RUN_ROOM;
	if (!r->at && d->pos == POS_NONE) {
		/* Nowhere to walk from: its atom is lost (ptm_flow_walk()),
		 * the walk goes on at the address (on_branch()). */
		d->n = r->n;
		lose_atom(d, offset);
		r->n = d->n;
		ptm_go_to(d, addr, isa);
		return RUN_ON;
	}
	if (!r->at && !(b = r->b = run_resolve(d, r, offset))) {
		/* No image there (reported): the atom is lost, as above. */
		lose_atom(d, offset);
		r->n = d->n;
		ptm_go_to(d, addr, isa);
		return RUN_ON;
	}
	r->at = 1;
	cls = b->range.class_flags;
	if (!(cls & r->wp))
		return RUN_SLOW;
	e = &r->q[r->n++];
	memcpy(&e->addr, &b->range, sizeof(b->range));
	e->offset = offset;
	e->flags = r->base;
	e->cycles = cycles;
	r->insns += b->n;
	if ((cls & INSN_F_CALL) && r->rs)
		rs_push(d, b);
	ptm_go_to(d, addr, isa);
	d->ind_from = (cls & INSN_F_INDIRECT) ? b : NULL;
	d->ind_gen = flow_cache_generation(&d->cache);
	r->at = 0;
	return RUN_ON;
}

/* An I-sync in a run, with room for its elements: straight on (between
 * the short runs trace filtering leaves, Snowball), not the slow path's
 * round trip. */
static inline void run_isync(struct ptm_flow_decoder *d, struct run *r,
			     const struct ptm_packet *p)
{
	d->n = r->n;
	ptm_flow_isync(d, p);
	r->n = d->n;
	r->at = 0;
}

/* PTM_FLOW_RANGES: the atom packets and the branch address packets that
 * only move the walk of the batch from drv.ibatch on (atom atom_i first),
 * by run_atoms() and run_branch(), as long as the queue has room. The hot
 * loop of the ranges decode over packet records: its state in locals, no
 * call per atom or packet. A packet of another kind, or one the walk
 * needs more for, goes to ptm_flow_packet() from within the loop (the
 * state stored and taken back), so that an I-sync or a timestamp between
 * runs does not end it. Stops for room, at an error (sync lost), or where
 * a walk stopped inside a block; ptm_flow_packet() goes on from there. */
static void fast_run(struct ptm_flow_decoder *d)
{
	const struct ptm_packet *batch = d->batch;
	const int nbatch = d->drv.nbatch;
	int ib = d->drv.ibatch;
	unsigned ai = d->atom_i;
	struct run r;

	run_begin(d, &r);
	if (d->open >= 0 || (!r.at && d->pos == POS_BLOCK))
		return;
	for (; ib < nbatch; ib++, ai = 0) {
		const struct ptm_packet *p = &batch[ib];
		enum run_end end;

		if (p->error)
			break;
		if (p->type == ptm_pkt_branch_address) {
			const struct ptm_branch *br = &p->u.branch;

			if (br->exception || br->exc_bytes || br->partial)
				goto slow;
			end = run_branch(d, &r, br->addr, br->isa,
					 br->has_cycles ?
						 ptm_cycles(br->cycles) : 0,
					 p->offset);
		} else if (p->type == ptm_pkt_atom) {
			const struct ptm_atoms *a = &p->u.atoms;

			end = run_atoms(d, &r, a->bits, a->count, &ai,
					a->has_cycles ?
						ptm_cycles(a->cycles) : 0,
					p->offset);
		} else if (p->type == ptm_pkt_i_sync &&
			   r.n + PTM_PKT_ELEMS <= PTM_QUEUE) {
			run_isync(d, &r, p);
			continue;
		} else {
			goto slow;
		}
		if (end == RUN_ON)
			continue;
		if (end == RUN_ROOM)
			break;
slow:
		/* The packet (from atom ai) by the slow path, in the loop. */
		if (r.n + PTM_PKT_ELEMS > PTM_QUEUE)
			break;
		run_store(d, &r);
		d->stats.insns += r.insns;
		r.insns = 0;
		d->atom_i = (uint8_t)ai;
		if (!ptm_flow_packet(d, p)) {
			ai = d->atom_i;
			goto moved;
		}
		run_begin(d, &r);
		if (!d->synced || d->open >= 0 ||
		    (!r.at && d->pos == POS_BLOCK)) {
			ib++;
			ai = 0;
			goto moved;
		}
	}
	run_store(d, &r);
moved:
	d->stats.packets += (uint64_t)(ib - d->drv.ibatch);
	d->drv.ibatch = ib;
	d->atom_i = (uint8_t)ai;
	d->stats.insns += r.insns;
}

/* ---- The one pass --------------------------------------------------------- */

/* How view_run() ended. */
enum view_end {
	VIEW_NONE,  /* it did not apply, or the input is read to its end */
	VIEW_OTHER, /* before a packet it does not take: the packet path's */
	VIEW_BATCH, /* a packet it began is in the batch, from atom_i */
	VIEW_FULL   /* the queue is full (maybe with a packet in the batch) */
};

/* The atom packet at p[0..avail) (at @offset), which the one pass began
 * and does not finish: its record, as the packet decoder would give it
 * (an atom packet changes none of its state), alone in the used-up
 * batch, from atom @ai on. */
static void view_record(struct ptm_flow_decoder *d, const uint8_t *p,
			size_t avail, uint64_t offset, unsigned ai)
{
	ptm_decode_one(d->pkt, p, avail, &d->batch[0]);
	d->batch[0].offset = offset;
	flow_drive_refilled(&d->drv, 1);
	d->atom_i = (uint8_t)ai;
}

/* view_run()'s loop over the view @v, cycle-accurate or not (@ca), its
 * input with offsets or not (@offs_given; constants in each copy). */
static inline __attribute__((always_inline)) enum view_end
view_loop(struct ptm_flow_decoder *d, const struct pkt_view *v,
	  const int ca, const int offs_given)
{
	struct ptm_pkt_decoder *pk = d->pkt;
	const uint8_t *const buf = v->buf;
	const uint64_t *const offs = offs_given ? v->offs : NULL;
	const uint64_t obase = v->base;
	const size_t nv = v->n;
	size_t h = v->pos;
	uint64_t packets = 0;
	enum view_end ret = VIEW_OTHER;
	struct run r;

	run_begin(d, &r);
	while (h < nv) {
		const uint8_t c = buf[h];
		const unsigned t = pk->hdr[c];
		const uint64_t off = offs_given ? offs[h] : obase + h;
		enum run_end end;
		int len;

		if (t == ptm_pkt_atom) {
			/* (cycle-accurate, every atom packet has one atom
			 * and a count: ptm_build_tables()) */
			const struct ptm_atoms *a = &pk->atoms[c];
			unsigned ai = 0;
			uint32_t cycles;

			len = ptm_atom_len(buf + h, nv - h, &cycles, ca);
			if (!len)
				break; /* cut: the packet decoder's */
			end = run_atoms(d, &r, a->bits, ca ? 1 : a->count, &ai,
					ca ? ptm_cycles(cycles) : 0, off);
			if (end != RUN_ON) {
				if (end == RUN_ROOM)
					ret = VIEW_FULL;
				if (!ai && end == RUN_ROOM)
					break; /* before the packet */
				view_record(d, buf + h, nv - h, off, ai);
				h += (size_t)len;
				if (end == RUN_SLOW)
					ret = VIEW_BATCH;
				break;
			}
		} else if (t == ptm_pkt_branch_address) {
			struct ptm_branch_short s;

			/* Before an I-sync its address is partial: the packet
			 * path's (on_branch()). */
			if (!pk->isync_seen ||
			    !(len = ptm_branch_short(pk, buf + h, nv - h, &s,
						     ca)))
				break;
			end = run_branch(d, &r, s.addr, pk->isa,
					 ca ? ptm_cycles(s.cycles) : 0, off);
			if (end == RUN_ROOM)
				ret = VIEW_FULL;
			if (end != RUN_ON)
				break; /* before the packet */
			ptm_branch_short_commit(pk, &s);
		} else if (t == ptm_pkt_i_sync) {
			struct ptm_packet p;

			if (r.n + PTM_PKT_ELEMS > PTM_QUEUE) {
				ret = VIEW_FULL;
				break;
			}
			len = ptm_isync_read(pk, buf + h, nv - h, &p);
			if (!len)
				break; /* cut: the packet decoder's */
			p.offset = off;
			run_isync(d, &r, &p);
		} else {
			break;
		}
		h += (size_t)len;
		packets++;
	}
	run_store(d, &r);
	d->stats.insns += r.insns;
	d->stats.packets += packets;
	ptm_pkt_view_done(pk, h);
	if (ret == VIEW_OTHER && h >= nv)
		ret = VIEW_NONE;
	return ret;
}

/* PTM_FLOW_RANGES, the batch used up, in fast_run()'s state: the atom
 * packets, the branch address packets of the short form
 * (ptm_branch_short()) and the I-syncs read straight from the packet
 * decoder's input while it stands at a packet boundary in sync
 * (ptm_view.h), with no record each (issue 19: writing and reading back
 * the records was 41% of Snowball's decode), and walked as fast_run()
 * walks their records: run_atoms(), run_branch(), run_isync(). Stops
 * before any other packet, a packet cut by the end of the input, or one
 * the walk needs the slow path for (a branch packet whole; an atom packet
 * begun goes to the batch as a record, view_record()), and for room. */
static __attribute__((noinline)) enum view_end
view_run(struct ptm_flow_decoder *d)
{
	struct pkt_view v;

	if (d->open >= 0 || (d->pos == POS_BLOCK && d->idx) ||
	    !ptm_pkt_view(d->pkt, &v))
		return VIEW_NONE;
	if (d->info.cycle_accurate)
		return v.offs ? view_loop(d, &v, 1, 1) : view_loop(d, &v, 1, 0);
	return v.offs ? view_loop(d, &v, 0, 1) : view_loop(d, &v, 0, 0);
}

/* ---- Driving ------------------------------------------------------------ */

static int refill(struct ptm_flow_decoder *d)
{
	/* The one pass goes on after the next record, if it can (after a
	 * waypoint update, an exception's branch packet). */
	int max = d->one_pass && d->synced ? 1 : PTM_BATCH;

	d->atom_i = 0;
	return flow_drive_refilled(&d->drv,
				   ptm_pkt_next(d->pkt, d->batch, max));
}

/* After view_run() stopped before a packet it does not take: the records
 * up to the next packet it takes (ptm_next_others()), or else one record
 * (the packet decoder's own loop: an A-sync, a packet cut or bad, a
 * branch packet of another form). */
static void refill_others(struct ptm_flow_decoder *d)
{
	int k = (int)ptm_next_others(d->pkt, d->batch, PTM_BATCH);

	d->atom_i = 0;
	if (!k)
		k = ptm_pkt_next(d->pkt, d->batch, 1);
	flow_drive_refilled(&d->drv, k);
}

/* Decode into the queue until it is full or the input is used up. */
static void decode(struct ptm_flow_decoder *d)
{
	d->drv.full = 1;
	if (d->drv.gap_pending) {
		struct etmkit_elem *e;

		if (ptm_room(d) < PTM_PKT_ELEMS)
			return;
		e = ptm_emit(d, etmkit_elem_gap, d->drv.gap_offset);
		flow_drive_gap_elem(&d->drv, e);
		ptm_flow_forget(d);
	}
	for (;;) {
		if (d->drv.ibatch >= d->drv.nbatch && d->one_pass &&
		    d->synced && !d->drv.stopped) {
			enum view_end v = view_run(d);

			if (v == VIEW_FULL)
				return;
			if (v == VIEW_OTHER)
				refill_others(d);
		}
		if (d->drv.ibatch >= d->drv.nbatch &&
		    (d->drv.stopped || !refill(d))) {
			d->drv.full = 0;
			return;
		}
		if (d->ranges && d->synced) {
			fast_run(d);
			if (d->drv.ibatch >= d->drv.nbatch)
				continue;
		}
		if (ptm_room(d) < PTM_PKT_ELEMS ||
		    !ptm_flow_packet(d, &d->batch[d->drv.ibatch]))
			return;
		d->stats.packets++;
		d->drv.ibatch++;
		d->atom_i = 0;
	}
}

void ptm_flow_queue_at(struct ptm_flow_decoder *d, struct etmkit_elem *to)
{
	size_t k = flow_queue_move(&d->q, to ? to : d->q_own, &d->n,
				   &d->delivered);

	if (d->open >= 0)
		d->open = d->open >= (long)k ? d->open - (long)k : -1;
}

/* Forget the elements the last batch handed out. */
static void drop_delivered(struct ptm_flow_decoder *d)
{
	ptm_flow_queue_at(d, d->q);
}

int ptm_flow_batch(struct ptm_flow_decoder *d,
		   const struct etmkit_elem **elems)
{
	if (!d || !elems)
		return -etmkit_err_invalid;
	drop_delivered(d);
	flow_cache_sync(&d->cache);
	decode(d);
	d->stats.blocks = d->cache.blocks - d->blocks_base;
	d->stats.cache_flushes = d->cache.flushes - d->flushes_base;
	d->delivered = d->n;
	/* Stopped for room inside a walk: its open range is kept back, so
	 * that the rest of the walk extends it. */
	if (d->drv.full && d->n > 1 && d->open == (long)d->n - 1)
		d->delivered = d->n - 1;
	*elems = d->q;
	if (!d->delivered)
		return d->drv.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)d->delivered;
}

/* feed, finish, gap and next: the skeleton's (flow_driver.h). */
FLOW_DRIVE_API(ptm, struct ptm_packet)
