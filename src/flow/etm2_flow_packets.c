/* ETMv2 flow decoder: the records other than statuses (docs/etmv2.md 6
 * and 7): TFOs, branch addresses, data and context IDs. */
#include <stddef.h>
#include <string.h>

#include "flow/etm2_flow_int.h"

/* ---- Context ------------------------------------------------------------ */

void etm2_flow_context(struct etm2_flow_decoder *d, uint32_t cid,
		       uint64_t offset)
{
	struct etmkit_elem *e = etm2_emit(d, etmkit_elem_context, offset);

	flow_context_ids(e, 1, cid, 0, 0);
	d->context_id = cid;
	d->ctx_sent = 1;
	if (d->image_for_context)
		FLOW_SWITCH_IMAGE(d, d->image_for_context(d->image_ctx, e),
				  (void)0, d->grp_blk = NULL);
}

/* ---- TFO ---------------------------------------------------------------- */

/* A TFO (Q§6.5, docs/etmv2.md 6): the first the decoder synced at, or one
 * of reason trace enable, overflow or debug exit, (re)starts tracing at
 * its address: trace_on (after an overflow element for an overflow). A
 * periodic TFO in running trace only places the walk; it stands for an
 * IE of the instruction at its address (Q§6.5.1), as a periodic one at
 * sync does after its trace_on. An LSiP TFO implies its load/store
 * multiple instead, and the walk goes on at its next address. */
void etm2_flow_restart(struct etm2_flow_decoder *d, uint64_t offset,
		       uint32_t addr, uint8_t isa, uint8_t reason)
{
	struct etmkit_elem *e;

	if (reason == etm2_reason_overflow)
		etm2_emit(d, etmkit_elem_overflow, offset);
	e = etm2_emit(d, etmkit_elem_trace_on, offset);
	e->addr = addr;
	e->isa = isa;
	/* enum etm2_reason is enum etmkit_trace_on_reason */
	e->u.trace_on.reason = reason;
	etm2_flow_forget(d);
	d->synced = 1;
	/* Cycles count from the restart (docs/etmv2.md 7). */
	d->prev_valid = 1;
	d->prev_cycle = offset;
}

void etm2_flow_tfo(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	const struct etm2_tfo *t = &p->u.tfo;
	uint64_t off = p->cycle;
	int restart = !d->synced || t->first ||
		      t->reason != etm2_reason_periodic;
	uint32_t cycles = 0;

	d->grp = GRP_NONE;
	d->grp_known = 0;
	if (restart)
		etm2_flow_restart(d, off, t->addr, t->isa, t->reason);
	if (d->info.context_id_bytes &&
	    (!d->ctx_sent || t->context_id != d->context_id))
		etm2_flow_context(d, t->context_id, off);
	etm2_go_to(d, t->addr, t->isa);
	if (t->lsip) {
		if (d->info.cycle_accurate)
			cycles = etm2_cycles_at(d, off);
		etm2_flow_insn(d, off, cycles, ETM2_X_EXEC | ETM2_X_IMPLIED);
		etm2_go_to(d, t->next_addr, t->next_isa);
	} else if (t->reason == etm2_reason_periodic) {
		if (d->info.cycle_accurate)
			cycles = etm2_cycles_at(d, off);
		etm2_flow_insn(d, off, cycles, ETM2_X_EXEC);
	}
}

/* ---- Branch addresses ----------------------------------------------------- */

/* An exception entry: a branch address in a DW group (docs/etmv2.md 7;
 * ETMv1: 7b); the preferred return address is where the walk stands. */
void etm2_flow_exception(struct etm2_flow_decoder *d,
			 const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;
	struct etmkit_elem *e = etm2_emit(d, etmkit_elem_exception, p->cycle);
	uint64_t ret;

	e->addr = b->addr;
	e->isa = b->isa;
	e->flags = ETMKIT_EXC_VECTOR;
	e->u.exception.number = etm2_vector_of(b->addr);
	if (etm2_next_addr(d, &ret)) {
		e->flags |= ETMKIT_EXC_RET_ADDR;
		e->u.exception.ret_addr = ret;
	}
	etm2_go_to(d, b->addr, b->isa);
}

/* A data abort on a load or store: a branch address to the data abort
 * vector in the group of an executed load or store that cannot branch
 * (docs/etmv2.md 7, ASSUMED: ETMv1 traces an aborted load/store as a
 * branch with data, Q§5.7.1, and ETMv2's D status carries both). The
 * transfer did not complete: the exception says so (ETMKIT_EXC_CANCEL),
 * and its preferred return address is the load or store. */
static int aborted_transfer(struct etm2_flow_decoder *d,
			    const struct etm2_packet *p)
{
	struct etmkit_elem *e;

	if (!d->grp_exec || (d->grp_flags & INSN_F_BRANCH) ||
	    !(d->grp_flags & (INSN_F_LOAD | INSN_F_STORE)) ||
	    etm2_vector_of(p->u.branch.addr) != 4)
		return 0;
	e = etm2_emit(d, etmkit_elem_exception, p->cycle);
	e->addr = p->u.branch.addr;
	e->isa = p->u.branch.isa;
	e->flags = ETMKIT_EXC_VECTOR | ETMKIT_EXC_CANCEL | ETMKIT_EXC_RET_ADDR;
	e->u.exception.number = 4;
	e->u.exception.ret_addr = d->grp_addr;
	etm2_go_to(d, p->u.branch.addr, p->u.branch.isa);
	d->ind_from = NULL;
	d->ind_gen = flow_cache_generation(&d->cache);
	d->grp_known = 0;
	return 1;
}

/* A branch address (Q§6.4, docs/etmv2.md 7): where the instruction of
 * its group went (an indirect branch, a load to the PC, or with ETMCR[8]
 * any branch); in a DW group an exception entry; for a load or store, a
 * data abort when it is the data abort vector. One for an instruction
 * that failed its condition (a protocol error) or that cannot branch is
 * no_image (mismatch) at that instruction: the image is not what ran, and
 * the walk goes on at the address. */
void etm2_flow_branch(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;
	struct flow_block *from = NULL;

	if (d->grp == GRP_DW) {
		etm2_flow_exception(d, p);
		return;
	}
	if (d->grp == GRP_INSN && d->grp_known && aborted_transfer(d, p))
		return;
	if (d->info.version == 1 && d->grp == GRP_INSN && d->grp_known &&
	    d->grp_exec && !(d->grp_flags & INSN_F_BRANCH) &&
	    etm2_vector_of(b->addr) != 0xFFFFu) {
		/* ETMv1 (docs/etmv2.md 7b, ASSUMED): an instruction that
		 * executed, then the exception (an SVC; a BD's) */
		etm2_flow_exception(d, p);
		d->grp_known = 0;
		return;
	}
	if (d->grp == GRP_INSN && d->grp_known) {
		if (!d->grp_exec || !(d->grp_flags & INSN_F_BRANCH)) {
			if (!d->grp_exec)
				d->stats.protocol_errors++;
			flow_no_image(etm2_emit(d, etmkit_elem_no_image,
						p->cycle),
				      d->grp_addr, d->grp_isa, etmkit_loss_mismatch,
				      d->space);
		} else if ((d->grp_flags & INSN_F_INDIRECT) &&
			   d->grp_gen == flow_cache_generation(&d->cache)) {
			from = d->grp_blk;
		}
	}
	etm2_go_to(d, b->addr, b->isa);
	d->ind_from = from;
	d->ind_gen = flow_cache_generation(&d->cache);
	d->grp_known = 0; /* one address per group */
}

/* ---- Data --------------------------------------------------------------- */

/* The instruction a data packet with A bit @a belongs to (docs/etmv2.md
 * 7): A = 1 starts the transfers of the group's instruction (in a DW
 * group, of the last executed instruction); A = 0 continues those of the
 * instruction the last A = 1 started (with none since sync, as A = 1),
 * except in the group of a coprocessor register transfer, whose packets
 * never have A. */
static void data_owner(struct etm2_flow_decoder *d, int a)
{
	if (!a && d->grp == GRP_INSN && d->grp_known &&
	    (d->grp_flags & INSN_F_CPRT)) {
		/* CPRT packets never have A (Q§6.4.1): the group's own
		 * MRC/MCR transfer */
		d->data_valid = 1;
		d->data_insn = d->grp_addr;
		return;
	}
	if (!a && d->data_valid)
		return;
	if (d->grp == GRP_INSN) {
		d->data_valid = d->grp_known;
		d->data_insn = d->grp_addr;
	} else {
		d->data_valid = d->last_valid;
		d->data_insn = d->last_insn;
	}
}

void etm2_flow_data(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	const struct etm2_data *dd = &p->u.data;
	struct etmkit_elem *e;
	uint64_t insn;
	int known;

	if (p->type == etm2_pkt_load_miss_data) {
		/* The value of the load miss of its tag (Q§6.4). */
		known = d->miss[dd->tag & 3].valid;
		insn = d->miss[dd->tag & 3].insn;
		d->miss[dd->tag & 3].valid = 0;
	} else {
		data_owner(d, dd->a_bit);
		known = d->data_valid;
		insn = d->data_insn;
		if (p->type == etm2_pkt_load_miss) {
			d->miss[dd->tag & 3].valid = (uint8_t)known;
			d->miss[dd->tag & 3].insn = insn;
			if (!dd->has_addr)
				return; /* nothing to tell yet */
		}
	}
	e = etm2_emit(d, etmkit_elem_data, p->cycle);
	if (known) {
		e->flags |= ETMKIT_DATA_INSN;
		e->addr = insn;
	}
	if (p->type == etm2_pkt_load_miss_data) {
		e->flags |= ETMKIT_DATA_OOO;
		e->u.data.tag = dd->tag;
	} else if (p->type == etm2_pkt_load_miss) {
		e->u.data.tag = dd->tag;
	}
	if (dd->has_addr) {
		e->flags |= ETMKIT_DATA_ADDR;
		e->u.data.data_addr = dd->addr;
	}
	if (dd->has_value) {
		e->flags |= ETMKIT_DATA_VALUE;
		e->size = dd->value_bytes;
		e->u.data.value = dd->value;
	}
}
