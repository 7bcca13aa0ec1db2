/* ETMv1 in the ETMv2 flow decoder (IHI 0014Q chapter 5; docs/etmv2.md
 * 7b): what differs from ETMv2's walk (etm2_flow.c, etm2_flow_packets.c).
 *
 * ETMv1 has no TFO: trace starts at a BE or BD whose branch address has
 * 5 bytes and a reason (the packet decoder's `first` record), and once
 * synced the reason of a BE/BD's address says what the status was: 0 or
 * 4 the executed instruction's branch, 1 to 3 a restart that stands for
 * no instruction. The address comes after the status, so a BE/BD in
 * synced trace is held (with a BD's one data packet) until it does.
 * Exceptions have no packet of their own: a BE/BD to a vector.
 */
#include <stddef.h>
#include <string.h>

#include "flow/etm2_flow_int.h"

/* ETMv1 reason codes (Q§5.6.2) as TFO reasons (Q Table 6.7: 1 to 3 the
 * same; 4, the periodic full address of v1.2+, is the periodic one). */
static uint8_t reason_of(const struct etm2_branch *b)
{
	return b->reason == etm1_reason_periodic ?
		       (uint8_t)etm2_reason_periodic : b->reason;
}

void etm1_flow_hold(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	d->v1_st = *p;
	d->v1_pend = 1;
	d->grp = GRP_NONE;
	d->grp_known = 0;
}

void etm1_flow_release(struct etm2_flow_decoder *d)
{
	int data = d->v1_pend == 2;

	d->v1_pend = 0;
	etm2_flow_status(d, &d->v1_st);
	if (data)
		etm2_flow_data(d, &d->v1_data);
}

/* Whether a BE to @b's address is an exception entry that stands for no
 * instruction (docs/etmv2.md 7b, ASSUMED, as OpenOCD): a vector while
 * the instruction at the walk position is no branch, did not abort a
 * load or store (the data abort vector), and is no SVC (the SVC
 * vector): an interrupt, or an instruction that did not complete. */
static int interrupt(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	uint16_t vec = etm2_vector_of(p->u.branch.addr);
	uint32_t f;

	if (d->v1_st.status != etm2_st_be || vec == 0xFFFFu)
		return 0;
	if (d->pos == POS_ADDR && !etm2_flow_resolve(d, p->cycle))
		return 0;
	if (d->pos != POS_BLOCK)
		return 0;
	f = d->blk->insn[d->idx].flags;
	if (f & INSN_F_BRANCH)
		return 0;
	if (vec == 4 && (f & (INSN_F_LOAD | INSN_F_STORE)))
		return 0;
	return !(vec == 2 && (f & INSN_F_EXCEPTION) && !(f & INSN_F_UDF));
}

/* A (re)start: the first full address, or reason 1 to 3 in synced trace
 * (docs/etmv2.md 7b): the held BE/BD stands for no known instruction,
 * and its data go with it. */
static int restart(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;

	if (!b->first &&
	    !(d->synced && b->has_reason &&
	      b->reason >= etm1_reason_trace_on &&
	      b->reason <= etm1_reason_debug_exit))
		return 0;
	d->v1_pend = 0;
	etm2_flow_restart(d, p->cycle, b->addr, b->isa, reason_of(b));
	etm2_go_to(d, b->addr, b->isa);
	return 1;
}

int etm1_flow_held(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	if (!p->error && p->type == etm2_pkt_normal_data && d->v1_pend == 1 &&
	    d->v1_st.status == etm2_st_bd) {
		/* a BD's data come before its address (Q Table 5.2) */
		d->v1_data = *p;
		d->v1_pend = 2;
		return 1;
	}
	if (p->error || p->type != etm2_pkt_branch_address) {
		/* its address did not come: an instruction all the same */
		etm1_flow_release(d);
		return 0;
	}
	if (restart(d, p))
		return 1;
	if (interrupt(d, p)) {
		d->v1_pend = 0;
		etm2_flow_exception(d, p);
		return 1;
	}
	etm1_flow_release(d);
	etm2_flow_branch(d, p);
	return 1;
}

void etm1_flow_branch(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	if (restart(d, p))
		return;
	if (d->synced)
		etm2_flow_branch(d, p);
}

void etm1_flow_context(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	if (!d->synced || (d->ctx_sent && p->u.context_id == d->context_id))
		return;
	etm2_flow_context(d, p->u.context_id, p->cycle);
}
