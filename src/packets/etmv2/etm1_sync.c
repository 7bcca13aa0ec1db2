/* ETMv1 status cursor (docs/etmv2.md 7b; Q§5.1, Q§5.3, Q§5.6.1): the
 * 3-bit statuses, the two address packet offset (APO) cycles after every
 * BE/BD, and synchronisation at a branch address: ETMv1 has no TFO. The
 * FIFO byte source, the record queue and dropping sync are ETMv2's
 * (etm2_fifo.c, etm2_queue.c, etm2_sync.c); the bytes are parsed by
 * etm1_parse.c. */
#include "packets/etmv2/etm2_internal.h"

static int is_branch(unsigned st)
{
	return st == etm2_st_be || st == etm2_st_bd;
}

/* The record(s) of a status in cycle @t; ID (with data tracing), BE and
 * BD owe a group (Q Table 5.2). */
static void v1_status(struct etm2_pkt_decoder *d, unsigned st, uint64_t t)
{
	struct etm2_slot *s;

	if (st == etm2_st_wt || st == etm2_st_td) {
		etm2_q_wait(d, t, st == etm2_st_td);
		return;
	}
	etm2_q_record(d, etm2_pkt_status, (uint8_t)st, t);
	if (!is_branch(st) &&
	    !(st == etm2_st_id && (d->info.data_addr || d->info.data_value)))
		return;
	s = &d->slots[d->slot_tail++ & (ETM2_RING - 1)];
	s->cycle = t;
	s->seq = d->ring_tail;
	s->tfo = 0;
	s->dn = 0;
	s->v1 = (uint8_t)st;
	etm2_q_push(d, e2_ent_group)->cycle = t;
	if (is_branch(st)) {
		d->v1_apo_left = 2;
		d->v1_apo = 0;
	}
}

/* A cycle's byte: while syncing, the bytes before the (APO + 1)-th
 * TRACESYNC after the branch belong to earlier groups and are skipped. */
static void v1_bytes(struct etm2_pkt_decoder *d, uint64_t t,
		     const struct etm2_cycle *c)
{
	d->cyc_sync = (uint8_t)(c->flags & ETM2_CYC_TRACESYNC);
	if (d->v1_seek) {
		if (!d->cyc_sync || --d->v1_seek)
			return;
	}
	etm2_fifo_cycle(d, t, c->pkt);
}

/* An APO cycle (synced): no instruction; it carries FIFO bytes unless a
 * trigger stops them. */
static void apo_cycle(struct etm2_pkt_decoder *d, uint64_t t,
		      const struct etm2_cycle *c, int trig)
{
	d->v1_apo_left--;
	if (trig)
		etm2_q_record(d, etm2_pkt_trigger, etm2_st_wt, t);
	etm2_q_wait(d, t, 0);
	if (!trig)
		v1_bytes(d, t, c);
}

static void candidate_drop(struct etm2_pkt_decoder *d)
{
	d->v1_apo_left = 0;
	if (!d->run_open) {
		d->run_open = 1;
		d->run_start = d->v1_br_cycle;
	}
}

/* The candidate's APO is known (its second APO cycle was @t): start
 * syncing at its branch and replay the two APO cycles. */
static void sync_start(struct etm2_pkt_decoder *d)
{
	uint64_t t0 = d->v1_br_cycle;
	unsigned apo = d->v1_apo;

	if (apo == 15) { /* reserved (Q§5.6.1) */
		candidate_drop(d);
		return;
	}
	etm2_sync_begin(d, t0);
	d->br_addr = 0;
	d->br_isa = etmkit_isa_arm;
	if (d->v1_br_trig)
		etm2_q_record(d, etm2_pkt_trigger, d->v1_br_st, t0);
	d->sync_tfo_seq = d->ring_tail;
	v1_status(d, d->v1_br_st, t0);
	d->v1_seek = (uint8_t)(apo + 1);
	for (unsigned i = 0; i < 2; i++) {
		const struct etm2_cycle *c = &d->v1_buf[i];

		d->last_cycle = t0 + 1 + i;
		if (d->state == e2_unsynced) {
			etm1_cycle(d, t0 + 1 + i, c);
			continue;
		}
		apo_cycle(d, t0 + 1 + i, c,
			  d->ps_map[c->ps & 7] == etm2_st_tr);
	}
}

/* Unsynced: look for a BE/BD and read its APO. */
static void unsynced_cycle(struct etm2_pkt_decoder *d, uint64_t t,
			   const struct etm2_cycle *c, unsigned st, int trig)
{
	unsigned eff = trig ? d->ps_map[c->pkt & 7] : st;

	if (d->v1_apo_left && !(!trig && is_branch(st))) {
		unsigned i = 2u - d->v1_apo_left;

		if (!trig && st == etm2_st_td) {
			/* TD never comes in an APO cycle: no branch here */
			candidate_drop(d);
			return;
		}
		d->v1_buf[i] = *c;
		d->v1_apo |= (uint8_t)(((trig ? c->pkt : c->ps) & 3) << (2 * i));
		if (--d->v1_apo_left == 0)
			sync_start(d);
		return;
	}
	if (d->v1_apo_left && !d->run_open) {
		/* a branch in an APO cycle: the earlier one was abandoned */
		d->run_open = 1;
		d->run_start = d->v1_br_cycle;
	}
	if (is_branch(eff) && d->info.port_width != 16) {
		/* 16-bit ports: Q§5.3.1's TRACESYNC rules are lost, no sync */
		d->v1_br_cycle = t;
		d->v1_br_st = (uint8_t)eff;
		d->v1_br_trig = (uint8_t)trig;
		d->v1_apo_left = 2;
		d->v1_apo = 0;
		return;
	}
	d->v1_apo_left = 0;
	if (!d->run_open) {
		d->run_open = 1;
		d->run_start = t;
	}
}

void etm1_cycle(struct etm2_pkt_decoder *d, uint64_t t,
		const struct etm2_cycle *c)
{
	unsigned st = d->ps_map[c->ps & 7];
	int trig = st == etm2_st_tr;
	unsigned eff = trig ? d->ps_map[c->pkt & 7] : st;

	d->last_cycle = t;
	if (d->state == e2_unsynced) {
		unsynced_cycle(d, t, c, st, trig);
		return;
	}
	if (etm2_owed_too_long(d)) {
		etm2_sync_fail(d, "packets owed for too long (record queue full)",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	if (d->v1_apo_left) {
		if (!trig && st == etm2_st_td) {
			etm2_sync_fail(d, "TD in an APO cycle",
				       -etmkit_err_bad_packet, t, t);
			return;
		}
		if (trig || !is_branch(st)) {
			apo_cycle(d, t, c, trig);
			return;
		}
		/* a branch in an APO cycle: the earlier one was abandoned,
		 * its address still comes out (Q§5.6.1) */
		d->v1_apo_left = 0;
	}
	if (trig) {
		/* the packets are delayed one cycle (Q§5.3) */
		etm2_q_record(d, etm2_pkt_trigger, (uint8_t)eff, t);
		v1_status(d, eff, t);
		return;
	}
	/* as ETMv2 (docs/etmv2.md 3); while the branch's address is sought
	 * the FIFO holds bytes of earlier groups */
	if (!d->v1_seek && st == etm2_st_td && etm2_fifo_has(d, t)) {
		etm2_sync_fail(d, "TD while the FIFO holds bytes",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	if (!d->v1_seek && st == etm2_st_wt && !etm2_fifo_has(d, t)) {
		etm2_sync_fail(d, "WT with an empty FIFO",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	v1_status(d, st, t);
	if (st != etm2_st_td)
		v1_bytes(d, t, c);
}
