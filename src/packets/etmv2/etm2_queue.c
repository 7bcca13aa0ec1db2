/* ETMv2 records in status order (docs/etmv2.md 3; etm2_internal.h): a
 * ring of records and markers, and the queue of parsed packets the
 * markers wait for. Wait cycles (WT, TD that is no TFO) collapse into one
 * record per run, unsynced cycles likewise. Nothing here allocates. */
#include <string.h>

#include "packets/etmv2/etm2_internal.h"

void etm2_q_close_wait(struct etm2_pkt_decoder *d)
{
	struct etm2_packet *p;

	if (!d->wait_open)
		return;
	d->wait_open = 0;
	p = etm2_q_push(d, e2_ent_rec);
	p->type = etm2_pkt_wait;
	p->status = d->wait_td ? etm2_st_td : etm2_st_wt;
	p->cycle = d->wait_start;
	p->length = d->wait_wt + d->wait_td;
	p->u.wait.wt = d->wait_wt;
	p->u.wait.td = d->wait_td;
}

void etm2_q_record(struct etm2_pkt_decoder *d, uint8_t type, uint8_t status,
		   uint64_t cycle)
{
	struct etm2_packet *p;

	etm2_q_close_wait(d);
	p = etm2_q_push(d, e2_ent_rec);
	p->type = type;
	p->status = status;
	p->cycle = cycle;
	p->length = 1;
}

void etm2_q_wait(struct etm2_pkt_decoder *d, uint64_t cycle, int td)
{
	if (d->wait_open && d->wait_wt + d->wait_td == UINT32_MAX)
		etm2_q_close_wait(d);
	if (!d->wait_open) {
		d->wait_open = 1;
		d->wait_start = cycle;
		d->wait_wt = d->wait_td = 0;
	}
	if (td)
		d->wait_td++;
	else
		d->wait_wt++;
}

void etm2_q_close_run(struct etm2_pkt_decoder *d, uint64_t end)
{
	if (!d->run_open)
		return;
	d->run_open = 0;
	/* a run longer than 32 bits of cycles is delivered in pieces */
	while (end > d->run_start) {
		uint64_t len = end - d->run_start;
		struct etm2_packet *p = etm2_q_push(d, e2_ent_rec);

		if (len > UINT32_MAX)
			len = UINT32_MAX;
		p->type = etm2_pkt_unsynced;
		p->cycle = d->run_start;
		p->length = (uint32_t)len;
		d->run_start += len;
	}
}

int etm2_q_packet(struct etm2_pkt_decoder *d, const struct etm2_packet *p,
		  int end)
{
	uint32_t i;

	if (d->pq_tail - d->pq_head == ETM2_PQ)
		return -etmkit_err_internal; /* cannot happen: etm2_pkt.c
						parses only while blocked */
	i = d->pq_tail++ & (ETM2_PQ - 1);
	d->pq[i] = *p;
	d->pq_end[i] = (uint8_t)end;
	return 0;
}

/* Copy what can leave, in order, into @out. A marker passes once the
 * last packet of its slot is parsed. */
size_t etm2_q_deliver(struct etm2_pkt_decoder *d, struct etm2_packet *out,
		      size_t max)
{
	size_t n = 0;

	while (n < max && d->ring_head != d->ring_tail) {
		uint64_t i = d->ring_head & (ETM2_RING - 1);
		const struct etm2_packet *p;

		/* a TFO being synced at holds back its own records (its
		 * trigger) until its packet has been checked */
		if (d->state == e2_syncing && d->ring_head >= d->sync_seq)
			break;
		if (d->kind[i] == e2_ent_rec) {
			p = &d->ring[i];
			d->ring_head++;
		} else {
			uint32_t k = d->pq_head & (ETM2_PQ - 1);

			if (d->pq_head == d->pq_tail)
				break;
			p = &d->pq[k];
			d->pq_head++;
			if (d->pq_end[k])
				d->ring_head++;
		}
		out[n++] = *p;
		if (p->error && (d->cfg.flags & ETM2_CFG_STOP_ON_ERROR)) {
			d->stopped = 1;
			break;
		}
	}
	return n;
}
