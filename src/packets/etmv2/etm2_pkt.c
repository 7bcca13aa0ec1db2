/* ETMv2 packet decoder: the public API and the status cursor (one call
 * per cycle; docs/etmv2.md 2, 3, 5, 6; etm2_internal.h has the design).
 * ETMv1 (3-bit PIPESTAT, fixed table) has its own status cursor
 * (etm1_sync.c): no TFO, sync at a full branch address (TRACESYNC, APO;
 * docs/etmv2.md 7b). */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv2/etm2_internal.h"
#include "packets/etmv2/etm2_names.h"


static int places_group(unsigned st)
{
	return st == etm2_st_de || st == etm2_st_dn || st == etm2_st_dw ||
	       st == etm2_st_ptde || st == etm2_st_ptdn ||
	       st == etm2_st_pnde || st == etm2_st_pndn;
}

static int is_dn(unsigned st)
{
	return st == etm2_st_dn || st == etm2_st_ptdn || st == etm2_st_pndn;
}

/* The record(s) of a status in cycle @t; a D status owes a group. */
static void status_records(struct etm2_pkt_decoder *d, unsigned st,
			   uint64_t t)
{
	struct etm2_slot *s;

	if (st == etm2_st_wt || st == etm2_st_td) {
		etm2_q_wait(d, t, st == etm2_st_td);
		return;
	}
	etm2_q_record(d, etm2_pkt_status, (uint8_t)st, t);
	if (!places_group(st))
		return;
	s = &d->slots[d->slot_tail++ & (ETM2_RING - 1)];
	s->cycle = t;
	s->seq = d->ring_tail;
	s->tfo = 0;
	s->dn = (uint8_t)is_dn(st);
	s->v1 = 0;
	etm2_q_push(d, e2_ent_group)->cycle = t;
}

static void cycle(struct etm2_pkt_decoder *d, uint64_t t,
		  const struct etm2_cycle *c)
{
	unsigned st, trig;

	if (d->info.version == 1) {
		etm1_cycle(d, t, c);
		return;
	}
	st = d->ps_map[c->ps & d->ps_mask];
	trig = st == etm2_st_tr;
	/* TR: the replaced status is on TRACEPKT (Q§6.1.7) */
	unsigned eff = trig ? d->ps_map[c->pkt & d->ps_mask] : st;
	int tfo = eff == etm2_st_td && (trig || (c->pkt & 1));

	d->last_cycle = t;
	if (d->state == e2_unsynced) {
		if (!tfo || d->tfo_val_left) {
			if (!d->run_open) {
				d->run_open = 1;
				d->run_start = t;
			}
			return;
		}
		etm2_sync_tfo_start(d, t, c->pkt, trig);
		return;
	}
	if (etm2_owed_too_long(d)) {
		/* the cycle joins the unsynced run the error starts */
		etm2_sync_fail(d, "packets owed for too long (record queue full)",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	if (trig && eff == etm2_st_tr) {
		/* the replaced status is a real one, never TR (Q§6.1.7) */
		etm2_sync_fail(d, "TR replacing TR", -etmkit_err_bad_packet,
			       t, t);
		return;
	}
	if (d->tfo_val_left) {
		/* value cycles of a TFO: no FIFO data; a TD here belongs
		 * to the TFO */
		if (trig)
			etm2_q_record(d, etm2_pkt_trigger, (uint8_t)eff, t);
		else
			etm2_sync_tfo_value(d, t, c->pkt);
		if (eff != etm2_st_td && d->state != e2_unsynced)
			status_records(d, eff, t);
		return;
	}
	if (tfo) {
		etm2_sync_tfo_start(d, t, c->pkt, trig);
		return;
	}
	if (trig) {
		/* no FIFO output in a TR cycle (Q§6.1.7) */
		etm2_q_record(d, etm2_pkt_trigger, (uint8_t)eff, t);
		status_records(d, eff, t);
		return;
	}
	/* TD: no FIFO output, so the FIFO must be empty; WT: the FIFO is
	 * outputting (docs/etmv2.md 3) */
	if (st == etm2_st_td && etm2_fifo_has(d, t)) {
		etm2_sync_fail(d, "TD while the FIFO holds bytes",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	if (st == etm2_st_wt && !etm2_fifo_has(d, t)) {
		etm2_sync_fail(d, "WT with an empty FIFO",
			       -etmkit_err_bad_packet, t, t);
		return;
	}
	status_records(d, st, t);
	if (st != etm2_st_td)
		etm2_fifo_cycle(d, t, c->pkt);
}

int etm2_pkt_alloc(struct etm2_pkt_decoder **dec,
		   const struct etm2_config *cfg)
{
	struct etm2_pkt_decoder *d;
	struct etm2_config_info info;
	int rc;

	if (!dec || !cfg)
		return -etmkit_err_invalid;
	*dec = NULL;
	rc = etm2_config_decode(cfg, &info);
	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	d->slots = calloc(ETM2_RING, sizeof(*d->slots));
	d->ring = calloc(ETM2_RING, sizeof(*d->ring));
	d->kind = calloc(ETM2_RING, 1);
	if (!d->slots || !d->ring || !d->kind) {
		etm2_pkt_free(d);
		return -etmkit_err_nomem;
	}
	memcpy(&d->cfg, cfg, sizeof(d->cfg));
	d->info = info;
	if (info.version == 1) {
		memcpy(d->ps_map, etm2_pipestat_v1, 8); /* Q Table 5.1 */
		d->ps_mask = 7;
	} else {
		memcpy(d->ps_map, cfg->pipestat, 16);
		d->ps_mask = 15;
	}
	*dec = d;
	return 0;
}

void etm2_pkt_free(struct etm2_pkt_decoder *dec)
{
	if (!dec)
		return;
	free(dec->slots);
	free(dec->ring);
	free(dec->kind);
	free(dec);
}

int etm2_pkt_feed(struct etm2_pkt_decoder *dec,
		  const struct etm2_cycle *cycles, size_t n, uint64_t first)
{
	if (!dec || (!cycles && n))
		return -etmkit_err_invalid;
	if (dec->stopped)
		return -etmkit_err_bad_packet;
	if (dec->pos_in < dec->n_in || dec->finished)
		return -etmkit_err_invalid;
	if (dec->any_input && first != dec->next_index)
		etm2_sync_end(dec); /* a gap: as etm2_pkt_gap() */
	dec->in = cycles;
	dec->n_in = n;
	dec->pos_in = 0;
	dec->first = first;
	dec->next_index = first + n;
	dec->any_input = dec->any_input || n;
	return 0;
}

int etm2_pkt_finish(struct etm2_pkt_decoder *dec)
{
	if (!dec || dec->pos_in < dec->n_in)
		return -etmkit_err_invalid;
	if (!dec->finished)
		etm2_sync_end(dec);
	dec->finished = 1;
	return 0;
}

int etm2_pkt_next(struct etm2_pkt_decoder *dec, struct etm2_packet *pkts,
		  size_t max)
{
	size_t n = 0;

	if (!dec || !pkts || !max)
		return -etmkit_err_invalid;
	if (dec->stopped)
		return -etmkit_err_bad_packet;
	if (max > 1u << 30)
		max = 1u << 30;
	for (;;) {
		size_t end;

		n += etm2_q_deliver(dec, pkts + n, max - n);
		if (n == max || dec->stopped || dec->pos_in == dec->n_in)
			break;
		/* the queues are drained (a delivery that stops short of
		 * @max leaves only records waiting for bytes): a batch fits */
		end = dec->n_in - dec->pos_in > ETM2_BATCH ?
			      dec->pos_in + ETM2_BATCH : dec->n_in;
		for (; dec->pos_in < end; dec->pos_in++)
			cycle(dec, dec->first + dec->pos_in,
			      &dec->in[dec->pos_in]);
	}
	if (dec->pos_in == dec->n_in && n < max && !dec->stopped)
		n += etm2_q_deliver(dec, pkts + n, max - n);
	return n ? (int)n : -etmkit_err_eos;
}

int etm2_pkt_gap(struct etm2_pkt_decoder *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	etm2_sync_end(dec);
	return 0;
}

void etm2_pkt_reset(struct etm2_pkt_decoder *dec)
{
	if (!dec)
		return;
	dec->in = NULL;
	dec->n_in = dec->pos_in = 0;
	dec->finished = dec->stopped = dec->any_input = 0;
	dec->state = e2_unsynced;
	dec->run_open = dec->wait_open = 0;
	dec->ring_head = dec->ring_tail = 0;
	dec->pq_head = dec->pq_tail = 0;
	etm2_fifo_reset(dec);
}

int etm2_pkt_synced(const struct etm2_pkt_decoder *dec)
{
	return dec && dec->state == e2_synced;
}
