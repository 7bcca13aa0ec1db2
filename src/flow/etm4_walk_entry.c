/* ETMv4 / ETE flow decoder: the walk of walk-queue entries other than
 * atom runs (layer 3 of seed 002 D4.3.1): exceptions, Q, source
 * addresses, context, transactions and the elements delivered as they
 * are. */
#include <stdint.h>
#include <string.h>

#include "flow/etm4_walk_int.h"

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
	FLOW_SWITCH_IMAGE(d, img, d->pos_is = -1, d->ind_from = NULL);
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
			lose_position(d);
		}
	}
	if (has_addr && d->pos != POS_NONE &&
	    !etm4_walk_until(d, e->a, NULL, WALK_EXC, e->offset))
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
		lose_position(d);
		d->blk = NULL;
		d->link_from = NULL;
	}
	return 1;
}

/* Whether @count instructions from the current position, straight on
 * (the path inside a Q is not traced), end where a Q with target @target
 * says: the last one falls through to it, branches to it directly, or
 * branches indirectly. OpenCSD 1.8.0 makes the same check before listing
 * a Q's instructions (else "I_RANGE_NOPATH"). A branch without a
 * condition before the last cannot be gone through straight on: no such
 * path (OpenCSD walks on through it). A count above the walk budget
 * (F4_WALK_BUDGET) is not checked: no path. So a Q packet costs at most
 * that many instructions' blocks, whatever count it gives (up to
 * 2^32 - 1) and however the check ends. Leaves the position as an
 * address: the walk looks its blocks up again. */
static int q_path_known(struct etm4_flow_decoder *d, uint32_t count,
			uint64_t target)
{
	uint64_t addr;
	uint8_t isa = d->isa;
	const struct flow_insn *last = NULL;
	struct flow_block *b = NULL;

	if (!count || count > F4_WALK_BUDGET || !next_addr(d, &addr))
		return 0;
	if (d->pos == POS_BLOCK)
		isa = d->blk->isa;
	go_to(d, addr, isa);
	while (count) {
		uint8_t loss;
		uint32_t n;

		b = flow_cache_get(&d->cache, addr, isa, d->space, &loss);
		if (!b)
			return 0;
		n = count < b->n ? count : b->n;
		last = &b->insn[n - 1];
		count -= n;
		if (count) {
			if ((last->flags & (INSN_F_BRANCH | INSN_F_COND)) ==
			    INSN_F_BRANCH)
				return 0;
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
			lose_position(d);
	}
	if (has_count && d->pos != POS_NONE) {
		if (!etm4_walk_until(d, 0, &e->b, WALK_Q, e->offset))
			return 0;
	}
	d->atom_started = 0;
	if (has_target)
		go_to_is(d, e->a, (e->x >> 2) & 1);
	else
		lose_position(d);
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
	if (!etm4_walk_until(d, e->a, NULL, WALK_SRC, e->offset))
		return 0;
	if (room(d) < 2)
		return 0;
	d->atom_started = 0;
	if (d->pos == POS_BLOCK && d->blk->insn[d->idx].addr != e->a)
		go_to_is(d, e->a, e->x & 1); /* passed a P0 */
	if (!etm4_ready(d, e->offset)) {
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
int etm4_walk_entry(struct etm4_flow_decoder *d, struct ent *e)
{
	struct etmkit_elem *x;

	switch (e->kind) {
	case K_ATOM:
		if (d->pos == POS_NONE && !d->pop_pending && !d->atom_started &&
		    !d->no_addr) {
			/* Nowhere to walk from: the whole run is lost (the
			 * first atom after an indirect branch whose address
			 * did not come is etm4_walk_atom()'s: its gap). */
			d->stats.atoms_lost += e->n;
			e->n = 0;
			return 1;
		}
		while (e->n) {
			if (!etm4_walk_atom(d, e->b & 1, e->offset))
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
			lose_position(d);
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
		lose_position(d);
		d->blk = NULL;
		flush_rs(d);
		d->ctx_sent = 0; /* report the context again */
		return 1;
	case K_TINFO:
		/* The return stack starts empty, and takes nothing until the
		 * next Target Address (digest 7.4). Atoms lost after it before
		 * an address are lost as after any Trace Info, with no gap
		 * (and so as a decode that starts here loses them: the
		 * parallel decode's pieces, par_state4.c). */
		flush_rs(d);
		d->rs_no_push = 1;
		d->no_addr = 0;
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
		lose_position(d);
		d->blk = NULL;
		flush_rs(d);
		d->ctx_sent = 0;
		return 1;
	case K_OVERFLOW:
		emit(d, etmkit_elem_overflow, e->offset);
		lose_position(d);
		d->blk = NULL;
		flush_rs(d);
		return 1;
	case K_DISCARD:
		lose_position(d);
		d->blk = NULL;
		return 1;
	case K_UNSEEN: /* before the trace: nothing to walk */
	default:
		return 1;
	}
}

/* Walk the walk queue. Returns 1 when it is empty. */
int etm4_walk(struct etm4_flow_decoder *d)
{
	while (d->dh < d->dt) {
		if (room(d) < F4_ROOM || !etm4_walk_entry(d, &d->done[d->dh]))
			return 0;
		d->dh++;
	}
	d->dh = d->dt = 0;
	return 1;
}
