/* ETMv3 flow decoder: the packets other than P-headers (IHI 0014Q 7.3,
 * 7.4): branch addresses and exceptions, I-syncs (where trace starts and
 * restarts, Table 7.21), context, data, timestamps, errors. The walk of
 * P-header atoms through the image is etm3_flow.c's. */
#include <stddef.h>
#include <string.h>

#include "flow/etm3_flow_int.h"

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

	if (branch_go_only(d, b))
		return;
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
	if (!etm3_flow_resolve(d, offset))
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

/* A packet the packet decoder rejected: trace is lost until the next
 * A-sync and I-sync. */
static void on_error(struct etm3_flow_decoder *d, const struct etm3_packet *p)
{
	struct etmkit_elem *e;

	release(d);
	e = emit(d, etmkit_elem_gap, p->offset);
	flow_packet_loss(e, p->error, p->why);
	etm3_flow_forget(d);
}

void etm3_flow_packet(struct etm3_flow_decoder *d, const struct etm3_packet *p)
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
