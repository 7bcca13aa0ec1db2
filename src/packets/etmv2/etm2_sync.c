/* ETMv2 synchronisation (Q§6.5, docs/etmv2.md 5 and 6): TFO cycles, their
 * values, the first TFO the decoder syncs at, and dropping sync on an
 * error (the decoder then waits for the next TFO). */
#include "packets/etmv2/etm2_internal.h"

/* Remove the records from ring sequence @keep on; the cycles they stood
 * for start the unsynced run (or @next_cycle if none was removed). */
static void drop_from(struct etm2_pkt_decoder *d, uint64_t keep,
		      uint64_t next_cycle)
{
	uint64_t start = next_cycle;

	if (d->ring_tail > keep)
		start = d->ring[keep & (ETM2_RING - 1)].cycle;
	else if (d->wait_open)
		start = d->wait_start;
	if (d->ring_tail > keep)
		d->ring_tail = keep;
	d->wait_open = 0;
	d->state = e2_unsynced;
	d->run_open = 1;
	d->run_start = start;
	etm2_fifo_reset(d);
}

/* The TFO being synced at failed its check: no error, its cycles join
 * an unsynced run and the next TFO is tried (docs/etmv2.md 6). */
static void sync_abandon(struct etm2_pkt_decoder *d)
{
	uint64_t t = d->sync_cycle;

	/* nothing of the TFO's period is parsed yet: the packet queue
	 * holds only records from before it */
	etm2_fifo_reset(d);
	d->ring_tail = d->sync_seq;
	d->wait_open = 0;
	d->state = e2_unsynced;
	d->run_open = 1;
	d->run_start = t;
}

void etm2_sync_error(struct etm2_pkt_decoder *d, const struct etm2_packet *err,
		     uint64_t next_cycle)
{
	const struct etm2_slot *s;

	if (d->state == e2_syncing) {
		sync_abandon(d);
		return;
	}
	s = &d->slots[d->slot_head & (ETM2_RING - 1)];
	/* the error is the last record of its slot; what was queued after
	 * the slot's marker is dropped */
	etm2_q_packet(d, err, 1);
	drop_from(d, s->seq + 1, next_cycle);
}

void etm2_sync_fail(struct etm2_pkt_decoder *d, const char *why, int err,
		    uint64_t cycle, uint64_t next_cycle)
{
	struct etm2_packet e = { 0 };

	if (d->state == e2_syncing) {
		sync_abandon(d);
		return;
	}
	if (d->state == e2_unsynced)
		return;
	e.type = etm2_pkt_unsynced;
	e.error = (int16_t)err;
	e.why = why;
	if (d->slot_head != d->slot_tail) {
		e.cycle = d->slots[d->slot_head & (ETM2_RING - 1)].cycle;
		etm2_sync_error(d, &e, next_cycle);
		return;
	}
	etm2_q_close_wait(d);
	e.cycle = cycle;
	*etm2_q_push(d, e2_ent_rec) = e;
	drop_from(d, d->ring_tail, next_cycle);
}

static void set_value(struct etm2_pkt_decoder *d, unsigned n)
{
	struct etm2_slot *s = &d->slots[(d->slot_tail - 1) & (ETM2_RING - 1)];

	/* the slot pushed last is this TFO's: value cycles carry no FIFO
	 * data and come right after it */
	s->n_tfo = (uint8_t)n;
	s->pos = d->bytes + n;
	if (d->state == e2_syncing && s->seq == d->sync_tfo_seq)
		d->skip = n;
}

void etm2_sync_begin(struct etm2_pkt_decoder *d, uint64_t t)
{
	etm2_q_close_run(d, t);
	etm2_fifo_reset(d);
	d->state = e2_syncing;
	d->sync_seq = d->ring_tail;
	d->sync_cycle = t;
	d->bytes = 0;
	d->data_known = 0;
	d->data_addr = 0;
}

void etm2_sync_tfo_start(struct etm2_pkt_decoder *d, uint64_t t,
			 uint16_t pkt, int trig)
{
	struct etm2_slot *s;
	unsigned w = d->info.port_width;
	int first = 0;

	if (d->state != e2_unsynced && d->nib_pending) {
		/* a TFO is only taken at a byte boundary (docs/etmv2.md 6) */
		etm2_sync_fail(d, "TFO cycle inside a 4-bit byte",
			       -etmkit_err_bad_packet, t, t);
	}
	if (d->state == e2_unsynced) {
		etm2_sync_begin(d, t);
		first = 1;
	}
	if (trig)
		etm2_q_record(d, etm2_pkt_trigger, etm2_st_td, t);
	else
		etm2_q_close_wait(d);
	if (first)
		d->sync_tfo_seq = d->ring_tail;
	s = &d->slots[d->slot_tail++ & (ETM2_RING - 1)];
	s->cycle = t;
	s->seq = d->ring_tail;
	s->tfo = 1;
	s->dn = 0;
	s->v1 = 0;
	s->pos = 0;
	s->n_tfo = 0;
	etm2_q_push(d, e2_ent_tfo)->cycle = t;
	d->tfo_val = 0;
	d->tfo_val_shift = 0;
	if (trig) {
		/* the value follows in the next cycles that are not TR
		 * (docs/etmv2.md 5, ASSUMED) */
		d->tfo_val_left = w == 4 ? 2 : 1;
	} else if (w == 4) {
		/* N[2:0] now, N[6:3] next (docs/etmv2.md 6, ASSUMED) */
		d->tfo_val = (pkt >> 1) & 7;
		d->tfo_val_shift = 3;
		d->tfo_val_left = 1;
	} else {
		set_value(d, (pkt >> 1) & 0x7f);
	}
}

void etm2_sync_tfo_value(struct etm2_pkt_decoder *d, uint64_t t, uint16_t pkt)
{
	if (d->tfo_val_shift == 0) {
		/* first value cycle of a TFO a trigger delayed */
		if (!(pkt & 1)) {
			etm2_sync_fail(d, "TFO value cycle without TRACEPKT[0]",
				       -etmkit_err_bad_packet, t, t);
			return;
		}
		if (d->info.port_width == 4) {
			d->tfo_val = (pkt >> 1) & 7;
			d->tfo_val_shift = 3;
		} else {
			d->tfo_val = (pkt >> 1) & 0x7f;
		}
	} else {
		d->tfo_val |= (uint8_t)((pkt & 0xf) << 3);
	}
	if (--d->tfo_val_left == 0)
		set_value(d, d->tfo_val);
}

void etm2_sync_confirm(struct etm2_pkt_decoder *d)
{
	d->state = e2_synced;
}

void etm2_sync_end(struct etm2_pkt_decoder *d)
{
	uint64_t end = d->last_cycle + 1;

	if (d->state == e2_syncing)
		sync_abandon(d);
	else if (d->state == e2_synced && d->slot_head != d->slot_tail)
		etm2_sync_fail(d, "capture ended before the packets owed",
			       -etmkit_err_truncated, end, end);
	if (d->state == e2_unsynced && d->v1_apo_left && !d->run_open) {
		/* an ETMv1 branch still waiting for its APO */
		d->run_open = 1;
		d->run_start = d->v1_br_cycle;
	}
	etm2_q_close_wait(d);
	if (d->any_input)
		etm2_q_close_run(d, end);
	d->run_open = 0;
	d->state = e2_unsynced;
	etm2_fifo_reset(d);
}
