/* ETMv2 FIFO byte source (docs/etmv2.md 3; Q§6.1.6, Q§6.3): which cycles
 * carry FIFO data (etm2_fifo_has(), etm2_internal.h) and which bytes they
 * carry. */
#include "packets/etmv2/etm2_internal.h"

void etm2_fifo_reset(struct etm2_pkt_decoder *d)
{
	d->skip = 0;
	d->nib_pending = 0;
	d->started = 0;
	d->phase = e2_ph_hdr;
	d->slot_head = d->slot_tail = 0;
	d->tfo_val_left = 0;
	d->v1_apo_left = 0;
	d->v1_seek = 0;
	d->nib_sync = 0;
}

/* One FIFO byte, its first part out in cycle @out (ETMv1: TRACESYNC
 * high there: @sync). */
static void take(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out,
		 int sync)
{
	const struct etm2_slot *s;

	if (d->skip) {
		d->skip--;
		d->bytes++;
		return;
	}
	if (d->slot_head == d->slot_tail)
		return; /* not reached: etm2_fifo_has() said a slot is owed */
	s = &d->slots[d->slot_head & (ETM2_RING - 1)];
	if (!d->started) {
		d->started = 1;
		if (s->v1)
			etm1_parse_start(d, s, out);
		else
			etm2_parse_start(d, s, out);
		if (d->state == e2_unsynced)
			return;
	}
	d->bytes++;
	if (s->v1)
		etm1_parse_byte(d, b, out, sync);
	else
		etm2_parse_byte(d, b, out);
}

/* Cycle @t carries FIFO data if the FIFO holds bytes that may leave (the
 * caller has excluded TR, TD and TFO value cycles). */
void etm2_fifo_cycle(struct etm2_pkt_decoder *d, uint64_t t, uint16_t pkt)
{
	if (!etm2_fifo_has(d, t))
		return;
	if (d->info.port_width == 4) {
		/* low nibble first (ASSUMED, as ETMv1 Q§5.2) */
		if (!d->nib_pending) {
			d->nib_pending = 1;
			d->nib = pkt & 0xf;
			d->nib_cycle = t;
			d->nib_sync = d->cyc_sync;
			return;
		}
		d->nib_pending = 0;
		take(d, (uint8_t)(d->nib | (pkt & 0xf) << 4), d->nib_cycle,
		     d->nib_sync);
		return;
	}
	take(d, (uint8_t)pkt, t, d->cyc_sync);
	/* 16-bit: [15:8] when a second byte may leave (Q§6.3) */
	if (d->info.port_width == 16 && d->state != e2_unsynced &&
	    etm2_fifo_has(d, t))
		take(d, (uint8_t)(pkt >> 8), t, 0);
}
