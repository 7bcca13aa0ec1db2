/* PTM flow decoder: what each packet does (IHI 0035B 4.5; digest ptm.md
 * 4, 5): atoms and branch addresses walk the image (ptm_flow.c), I-syncs
 * start and restart trace, exceptions, context, timestamps, errors. */
#include <stddef.h>
#include <string.h>

#include "flow/ptm_flow_int.h"

/* ---- Context ------------------------------------------------------------ */

static void switch_image(struct ptm_flow_decoder *d, const struct image *img)
{
	FLOW_SWITCH_IMAGE(d, img, (void)0, d->ind_from = NULL);
}

static inline void emit_context(struct ptm_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e = ptm_emit(d, etmkit_elem_context, offset);

	e->u.context.ns = d->ns;
	e->u.context.hyp = d->hyp;
	flow_context_ids(e, d->info.context_id_bytes != 0, d->context_id,
			 d->vmid_seen, d->vmid);
	d->ctx_sent = 1;
	if (d->image_for_context)
		switch_image(d, d->image_for_context(d->image_ctx, e));
}

/* Security state, Hyp and context ID (@cid, if the trace unit traces one)
 * from now on: a context element if they changed, or if none was
 * delivered since trace (re)started. */
static void set_context(struct ptm_flow_decoder *d, uint64_t offset,
			uint8_t ns, uint8_t hyp, uint32_t cid)
{
	int changed = !d->ctx_sent || ns != d->ns || hyp != d->hyp ||
		      (d->info.context_id_bytes && cid != d->context_id);

	d->ns = ns;
	d->hyp = hyp;
	if (d->info.context_id_bytes)
		d->context_id = cid;
	d->space = flow_v7_space(ns, hyp);
	if (changed && d->synced)
		emit_context(d, offset);
}

/* ---- Packets ------------------------------------------------------------ */

/* A cycle count that traces no waypoint (an exception's, a timestamp's:
 * IHI 0035B 4.4, the cycles since the previous count): a cycle_count
 * element. */
static void loose_cycles(struct ptm_flow_decoder *d, uint64_t offset,
			 uint32_t cycles)
{
	ptm_emit(d, etmkit_elem_cycle_count, offset)->cycles =
		ptm_cycles(cycles);
}

void ptm_flow_isync(struct ptm_flow_decoder *d, const struct ptm_packet *p)
{
	const struct ptm_isync *is = &p->u.isync;

	/* The first I-sync, or one after a gap in the trace (reason other
	 * than periodic, IHI 0035B 4.5.2): trace (re)starts. A periodic
	 * one in running trace only says where execution is. */
	if (!d->synced || is->reason != ptm_reason_periodic) {
		struct etmkit_elem *e;

		if (is->reason == ptm_reason_overflow)
			ptm_emit(d, etmkit_elem_overflow, p->offset);
		e = ptm_emit(d, etmkit_elem_trace_on, p->offset);
		e->u.trace_on.reason = is->reason;
		e->addr = is->addr;
		e->isa = is->isa;
		/* The count covers the gap since the last count; from
		 * PFTv1.1 it is unknown after an overflow or debug state
		 * (IHI 0035B 4.4). */
		if (is->has_cycles &&
		    !(d->info.minor >= 1 &&
		      (is->reason == ptm_reason_overflow ||
		       is->reason == ptm_reason_debug_exit))) {
			e->flags |= ETMKIT_TRACE_ON_CYCLES;
			e->cycles = ptm_cycles(is->cycles);
		}
		d->synced = 1;
		d->ctx_sent = 0;
	}
	/* The return stack starts empty at every I-sync (as OpenCSD; the
	 * tc2-ptm-rstk-t32 capture agrees with DS-5 so). */
	ptm_rs_flush(d);
	set_context(d, p->offset, is->ns, is->hyp,
		    is->context_id_bytes ? is->context_id : d->context_id);
	ptm_go_to(d, is->addr, is->isa);
}

/* An exception (IHI 0035B 4.5.4, exception number not 0): no atom; the
 * walk stands where it stopped (after a waypoint update, past its
 * address), which is the preferred return address (as OpenCSD reports
 * it); execution goes on at the handler. */
static void on_exception(struct ptm_flow_decoder *d,
			 const struct ptm_packet *p)
{
	const struct ptm_branch *b = &p->u.branch;
	struct etmkit_elem *e;
	uint64_t ret;

	if (b->has_cycles)
		loose_cycles(d, p->offset, b->cycles);
	e = ptm_emit(d, etmkit_elem_exception, p->offset);
	e->addr = b->addr;
	e->isa = b->isa;
	e->u.exception.number = b->exception;
	if (ptm_next_addr(d, &ret)) {
		e->flags |= ETMKIT_EXC_RET_ADDR;
		e->u.exception.ret_addr = ret;
	}
}

/* A branch address packet: an exception, or the target of the next
 * waypoint, whose E atom it implies (IHI 0035B 4.5.4). Returns 0 when the
 * walk found no room. */
static int on_branch(struct ptm_flow_decoder *d, const struct ptm_packet *p)
{
	const struct ptm_branch *b = &p->u.branch;

	if (!d->synced || b->partial)
		return 1; /* no I-sync yet: nothing to place it against */
	if (b->exception)
		on_exception(d, p);
	else if (!ptm_flow_walk(d, p, PTM_STEP_BRANCH, 1,
				ptm_cycles(b->cycles), b->has_cycles))
		return 0;
	/* Exception information bytes carry the state after the branch;
	 * without them NS and Hyp stay. */
	if (b->exc_bytes)
		set_context(d, p->offset, b->ns, b->hyp, d->context_id);
	ptm_go_to(d, b->addr, b->isa);
	return 1;
}

static int on_atoms(struct ptm_flow_decoder *d, const struct ptm_packet *p)
{
	if (!d->synced) {
		/* Nothing to place atoms against before an I-sync. */
		d->stats.atoms_lost += p->u.atoms.count;
		return 1;
	}
	return ptm_flow_atoms(d, p);
}

int ptm_flow_packet(struct ptm_flow_decoder *d, const struct ptm_packet *p)
{
	struct etmkit_elem *e;

	if (p->error) {
		/* Trace is lost until the next A-sync and I-sync. */
		e = ptm_emit(d, etmkit_elem_gap, p->offset);
		flow_packet_loss(e, p->error, p->why);
		ptm_flow_forget(d);
		return 1;
	}
	switch (p->type) {
	case ptm_pkt_atom:
		return on_atoms(d, p);
	case ptm_pkt_branch_address:
		return on_branch(d, p);
	case ptm_pkt_waypoint_update:
		/* Execution reached the address without a waypoint
		 * (IHI 0035B 4.5; digest ptm.md 4.5): the instructions up to
		 * and including it ran, as OpenCSD has it. */
		if (!d->synced || p->u.branch.partial)
			return 1;
		return ptm_flow_walk(d, p, PTM_STEP_WPUP, 1, 0, 0);
	case ptm_pkt_i_sync:
		ptm_flow_isync(d, p);
		return 1;
	case ptm_pkt_context_id:
		set_context(d, p->offset, d->ns, d->hyp, p->u.context_id);
		return 1;
	case ptm_pkt_vmid:
		if (!d->vmid_seen || p->u.vmid != d->vmid) {
			d->vmid = p->u.vmid;
			d->vmid_seen = 1;
			if (d->synced)
				emit_context(d, p->offset);
		}
		return 1;
	case ptm_pkt_timestamp:
		if (p->u.timestamp.has_cycles)
			loose_cycles(d, p->offset, p->u.timestamp.cycles);
		e = ptm_emit(d, etmkit_elem_timestamp, p->offset);
		e->u.timestamp.value = p->u.timestamp.value;
		if (p->u.timestamp.clock_change)
			e->flags |= ETMKIT_TS_CLOCK_CHANGE;
		return 1;
	case ptm_pkt_exception_return:
		/* The waypoint before was an exception return (IHI 0035B
		 * 4.5, Exception return packet). */
		if (d->synced)
			ptm_emit(d, etmkit_elem_exception_return, p->offset);
		return 1;
	case ptm_pkt_trigger:
		ptm_emit(d, etmkit_elem_trigger, p->offset);
		return 1;
	default:
		/* a_sync, ignore, unsynced: nothing happened on the core */
		return 1;
	}
}
