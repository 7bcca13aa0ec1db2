/* ETMv4 / ETE flow decoder, internal: the walk's hot pieces (layer 3 of
 * seed 002 D4.3.1), inline in the atom loops (etm4_walk.c) and in the
 * walk of other queue entries (etm4_walk_entry.c): the position and the
 * return stack, block lookup, instructions and ranges delivered, and the
 * counting of ranges (ETM4_FLOW_TALLY) and branch traces
 * (ETM4_FLOW_TRACES). */
#ifndef ETMKIT_FLOW_ETM4_WALK_INT_H
#define ETMKIT_FLOW_ETM4_WALK_INT_H

#include "flow/etm4_flow_int.h"

/* What this decoder's files share stays inside the library: hidden, so
 * that where a function is defined the compiler may still inline it (the
 * library is position-independent code). */
#pragma GCC visibility push(hidden)

int etm4_no_code(struct etm4_flow_decoder *d, uint64_t offset, uint8_t loss);
void etm4_no_address(struct etm4_flow_decoder *d, uint64_t offset);
int etm4_resolve_lookup(struct etm4_flow_decoder *d, uint64_t offset);
void etm4_run_ranges(struct etm4_flow_decoder *d,
		     const struct etm4_packet *p, uint32_t *ph,
		     uint32_t *pia, uint32_t *pbits, unsigned *pn);
int etm4_ready(struct etm4_flow_decoder *d, uint64_t offset);
int etm4_walk_atom(struct etm4_flow_decoder *d, unsigned taken,
		   uint64_t offset);

/* The instruction set of a target address (digest 5.18): IS 1 T32, IS 0
 * @isa0 (A64 or A32, from the context: isa_of()). */
static inline uint8_t isa_with(unsigned is, uint8_t isa0)
{
	return is ? etmkit_isa_thumb : isa0;
}

static inline uint8_t isa_of(const struct etm4_flow_decoder *d, unsigned is)
{
	return isa_with(is, d->sf ? etmkit_isa_a64 : etmkit_isa_arm);
}

static inline void
go_to(struct etm4_flow_decoder *d, uint64_t addr, uint8_t isa)
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
static inline void
go_to_is(struct etm4_flow_decoder *d, uint64_t addr, unsigned is)
{
	go_to(d, addr, isa_of(d, is));
	d->pos_is = (int8_t)is;
}

/* target_address() with @isa0, isa_of(d, 0), at hand: a loop that
 * reads no Context packet computes it once. */
static inline void target_address_isa0(struct etm4_flow_decoder *d,
				       uint64_t addr, unsigned is,
				       uint8_t isa0)
{
	go_to(d, addr, isa_with(is, isa0));
	d->pos_is = (int8_t)is;
	d->pop_pending = 0;
	d->rs_no_push = 0;
}

/* A Target Address element reached the walk: execution goes on there,
 * and the return stack takes pushes again (digest 7.4). */
static inline void target_address(struct etm4_flow_decoder *d, uint64_t addr,
			   unsigned is)
{
	target_address_isa0(d, addr, is, isa_of(d, 0));
}

static inline void
rs_push(struct etm4_flow_decoder *d, uint64_t addr, uint8_t isa)
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
 * the trace unit's return stack predicted it (digest 7.7). Empty, it
 * leaves the position unknown as after_p0() did (no_addr kept). */
static inline void rs_pop(struct etm4_flow_decoder *d)
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

/* POS_ADDR after an indirect branch: if the address is one of the last
 * two targets of that branch a lookup found (block.h,
 * flow_ind_guess()), make it that block without a lookup. Returns the
 * block, or NULL. */
static inline struct flow_block *ind_guess(struct etm4_flow_decoder *d)
{
	struct flow_block *f = d->ind_from, *g;
	/* One byte each: d->isa was just stored (target_address()), and a
	 * wider load across it would wait for the store to complete. */
	uint8_t isa = d->isa, space = d->space;
	uint64_t addr = d->addr;

	if (!f || d->ind_gen != flow_cache_generation(&d->cache))
		return NULL;
	g = flow_ind_guess(f, addr, isa, space);
	if (!g)
		return NULL;
	d->ind_from = NULL;
	d->link_from = NULL;
	d->blk = g;
	d->idx = 0;
	d->pos = POS_BLOCK;
	return g;
}

/* Block @b, found by a lookup (the cache at generation @gen after it),
 * is where the walk is: the later target guess of the indirect branch
 * that came here, if one did and the cache kept its block (the older
 * guess dropped), and FLOW_ENTER_BLOCK(). The one entry of resolve() and
 * etm4_resolve_lookup(). */
static inline void enter_found(struct etm4_flow_decoder *d,
			       struct flow_block *b, uint64_t gen)
{
	struct flow_block *f = d->ind_from;

	if (f && gen == d->ind_gen)
		flow_ind_note(f, b);
	d->ind_from = NULL;
	FLOW_ENTER_BLOCK(d, b, gen);
}

/* The position is unknown, and not for want of an indirect branch's
 * address (after_p0() alone sets POS_NONE with no_addr): the atoms it
 * loses have no gap (etm4_no_address()), as after the Trace Info before
 * any address. */
static inline void lose_position(struct etm4_flow_decoder *d)
{
	d->pos = POS_NONE;
	d->no_addr = 0;
}

/* The position is unknown (etm4_no_code()). */
static inline void forget_position(struct etm4_flow_decoder *d)
{
	lose_position(d);
	d->link_from = NULL;
	d->ind_from = NULL;
}

/* The walk stands where the image has no code (@loss): @e (a no_image
 * element, its kind and offset set) says so, and the position is
 * forgotten (etm4_no_code() and etm4_fused()'s fast case). */
static inline void no_code_in(struct etm4_flow_decoder *d,
			      struct etmkit_elem *e, uint8_t loss)
{
	flow_no_image(e, d->addr, d->isa, loss, d->space);
	forget_position(d);
}

/* Whether POS_ADDR is not aligned for its instruction set (resolve()
 * leaves it to etm4_resolve_lookup()). */
static inline int misaligned(const struct etm4_flow_decoder *d)
{
	return (d->addr & (d->isa == etmkit_isa_thumb ? 1u : 3u)) != 0;
}

/* resolve() at POS_ADDR, aligned, inside the image: the block the
 * cache's front holds there, entered (what etm4_resolve_lookup() would
 * do with it), or NULL (not entered: ask etm4_resolve_lookup()). */
static inline struct flow_block *front_enter(struct etm4_flow_decoder *d)
{
	struct flow_block *b;

	b = flow_cache_front(&d->cache, d->addr, d->isa, d->space);
	if (b)
		enter_found(d, b, flow_cache_generation(&d->cache));
	return b;
}

/* etm4_resolve_lookup(), with an address outside the image (juno_r1_1's
 * commonest case) reported without a lookup, and a block the cache's
 * front holds (tme_test's indirect targets the guess missed) entered
 * without a call: what etm4_resolve_lookup() would do with it. Its
 * ind_guess() would give the same block: a key has one block in a
 * generation. */
static inline int resolve(struct etm4_flow_decoder *d, uint64_t offset)
{
	if (misaligned(d))
		return etm4_resolve_lookup(d, offset);
	if (flow_cache_outside(&d->cache, d->addr))
		return etm4_no_code(d, offset, etmkit_loss_unmapped);
	if (!front_enter(d))
		return etm4_resolve_lookup(d, offset);
	return 1;
}

/* The walk's address, not a traced one: a Context packet must not re-read
 * the instruction set from an older address packet's IS (a BLX immediate
 * has already switched it; Context has no IS), hence pos_is = -1. */
static inline void
leave_block(struct etm4_flow_decoder *d, struct flow_block *b,
	    unsigned slot, uint64_t addr, uint8_t isa)
{
	FLOW_LEAVE_BLOCK(d, b, slot, addr, isa, d->pos_is = -1);
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
		etm4_tally_flush(d);
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
	       INSN_F_BRANCH == 1, "etm4_run_ranges() computes with them");
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
static inline int last_closed(const struct etm4_flow_decoder *d)
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
		etm4_trace_insert(d, target);
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
		etm4_tally_flush(d);
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
			etm4_tally_put(d, t);     /* another range: delivered */
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
	/* Indirect: the address comes next, or the return stack gives it;
	 * if neither does, the first atom lost says so (no_addr). */
	d->pos = POS_NONE;
	d->no_addr = 1;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = b;
	d->ind_gen = flow_cache_generation(&d->cache);
	if (d->info.retstack && !(f & INSN_F_CALL))
		d->pop_pending = 1;
}

/* How etm4_walk_until() treats P0 instructions before its stop. */
enum walk_mode {
	WALK_EXC, /* an exception's range: a P0 instruction ends it */
	WALK_SRC, /* a source address's: P0 instructions before it were not
		     taken (flagged N) */
	WALK_Q    /* a Q's count: the path is untraced, go straight on */
};

/* Most instructions an exception or source address range may span
 * before the decoder gives up on it (the image does not match). */
#define F4_WALK_BUDGET (1u << 16)

int etm4_walk_until(struct etm4_flow_decoder *d, uint64_t stop,
		    uint32_t *left, enum walk_mode mode, uint64_t offset);

#pragma GCC visibility pop

#endif
