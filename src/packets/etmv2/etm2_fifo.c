/* ETMv2 FIFO byte source (docs/etmv2.md 3; Q§6.1.6, Q§6.3): which cycles
 * carry FIFO data and which bytes they carry. The decoder knows the FIFO
 * holds bytes that may leave when bytes before the first TFO packet are
 * still to be skipped, a byte is half out (4-bit), the oldest owed slot
 * has started, or it was placed at least fifo_latency cycles ago. */
#include "packets/etmv2/etm2_internal.h"

int etm2_fifo_has(const struct etm2_pkt_decoder *d, uint64_t t)
{
	if (d->skip || d->nib_pending)
		return 1;
	if (d->slot_head == d->slot_tail)
		return 0;
	if (d->started)
		return 1;
	return d->slots[d->slot_head & (ETM2_RING - 1)].cycle +
		       d->cfg.fifo_latency <= t;
}

void etm2_fifo_reset(struct etm2_pkt_decoder *d)
{
	d->skip = 0;
	d->nib_pending = 0;
	d->started = 0;
	d->phase = e2_ph_hdr;
	d->slot_head = d->slot_tail = 0;
	d->tfo_val_left = 0;
}

/* One FIFO byte, its first part out in cycle @out. */
static void take(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out)
{
	if (d->skip) {
		d->skip--;
		d->bytes++;
		return;
	}
	if (d->slot_head == d->slot_tail)
		return; /* not reached: etm2_fifo_has() said a slot is owed */
	if (!d->started) {
		d->started = 1;
		etm2_parse_start(d, &d->slots[d->slot_head & (ETM2_RING - 1)], out);
		if (d->state == e2_unsynced)
			return;
	}
	d->bytes++;
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
			return;
		}
		d->nib_pending = 0;
		take(d, (uint8_t)(d->nib | (pkt & 0xf) << 4), d->nib_cycle);
		return;
	}
	take(d, (uint8_t)pkt, t);
	/* 16-bit: [15:8] when a second byte may leave (Q§6.3) */
	if (d->info.port_width == 16 && d->state != e2_unsynced &&
	    etm2_fifo_has(d, t))
		take(d, (uint8_t)(pkt >> 8), t);
}
