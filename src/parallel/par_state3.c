/* Parallel decode: the ETMv3 flow decoder through struct par_proto, and
 * its state normalised for comparison (par_internal.h). Normalising is
 * conservative: every field is compared as it is, but those that cannot
 * change what the decoder delivers from here on (pointers into its own
 * block cache, counters, the input buffer it was last fed, the rotation
 * of its queues). A field added later is compared too: at worst a state
 * compares unequal and the join decodes that piece serially. */
#include <stdlib.h>
#include <string.h>

#include "flow/etm3_flow_int.h"
#include "packets/etmv3/etm3_internal.h"
#include "parallel/par_internal.h"
#include "parallel/par_norm.h"

static int p3_alloc(void **dec, const void *cfg)
{
	return etm3_flow_alloc((struct etm3_flow_decoder **)dec, cfg);
}

static void p3_free(void *dec)
{
	etm3_flow_free(dec);
}

static int p3_feed(void *dec, const uint8_t *buf, size_t n,
		   const uint64_t *offsets, uint64_t base)
{
	return etm3_flow_feed(dec, buf, n, offsets, base);
}

static int p3_finish(void *dec)
{
	return etm3_flow_finish(dec);
}

static void p3_reset(void *dec)
{
	etm3_flow_reset(dec);
}

static int p3_batch(void *dec, const struct etmkit_elem **elems)
{
	return etm3_flow_batch(dec, elems);
}

static void p3_stats(const void *dec, uint64_t out[PAR_NSTATS])
{
	const struct etm3_flow_stats *s = etm3_flow_get_stats(dec);

	out[0] = s->packets;
	out[1] = s->insns;
	out[2] = s->atoms_lost;
	out[3] = 0;
}

struct p3_snap {
	struct etm3_flow_decoder f;
	struct etm3_pkt_decoder k;
	uint64_t at;             /* the next instruction's address */
};

static size_t p3_scratch_bytes(void)
{
	return 0;
}

static size_t p3_snap_bytes(void)
{
	return sizeof(struct p3_snap);
}

static long p3_snap(const void *dec, void *scratch, uint8_t *out)
{
	const struct etm3_flow_decoder *d = dec;
	struct p3_snap *s = (struct p3_snap *)out;
	struct etm3_flow_decoder *f = &s->f;
	struct etm3_pkt_decoder *k = &s->k;
	uint64_t pos;

	(void)scratch;

	/* Drained: every packet read was taken, nothing delivered waits. */
	if (d->drv.ibatch != d->drv.nbatch || d->delivered || d->pkt->in.replaying)
		return -1;
	memcpy(f, d, sizeof(*f));
	memcpy(k, d->pkt, sizeof(*k));
	s->at = 0;
	if (d->pos == POS_BLOCK)
		s->at = d->blk->insn[d->idx].addr;
	f->pkt = NULL;
	memset(&f->cache, 0, sizeof(f->cache));
	memset(f->batch, 0, sizeof(f->batch));
	f->drv.nbatch = f->drv.ibatch = 0;
	f->drv.next_pos = f->drv.next_n = 0;
	f->drv.next_batch = NULL;
	f->blk = NULL;
	f->link_from = NULL;
	f->link_slot = 0;
	f->link_gen = 0;
	/* The elements decoded and not delivered (held back for a Cancel)
	 * are compared; the rest of the queue is stale. */
	memset(&f->q[d->n], 0, (FLOW_QUEUE - d->n) * sizeof(f->q[0]));
	for (size_t i = 0; i < d->n; i++)
		par_norm_elem(&f->q[i]);
	/* Read only when valid (etm3_flow_packets.c: on_branch, on_data). */
	if (!f->last_valid)
		f->last_addr = 0;
	if (!f->data_insn_valid)
		f->data_insn = 0;
	/* Without data trace no data packet reads them (IHI 0014Q 7.4). */
	if (!d->info.data_addr && !d->info.data_value) {
		f->data_insn = 0;
		f->data_insn_valid = 0;
		memset(f->ooo, 0, sizeof(f->ooo));
	}
	for (unsigned i = 0; i < 4; i++)
		if (!f->ooo[i].valid)
			f->ooo[i].insn = 0;
	if (f->pos != POS_ADDR)
		f->addr = 0;
	memset(&f->stats, 0, sizeof(f->stats));
	f->blocks_base = f->flushes_base = 0;
	/* The packet decoder: its stream position counts bytes since reset,
	 * which differ; distances from the current position do not. */
	/* prev_end is read only after a placeholder (track_placeholder()),
	 * and then as a distance from the current position. */
	pos = d->pkt->in.consumed + d->pkt->in.pos;
	k->prev_end = k->prev_type == etm3_pkt_ooo_placeholder ?
			      d->pkt->prev_end - pos : 0;
	par_norm_stream(&k->in);
	PAR_NORM_SCAN(k, k->zeros);
	return (long)sizeof(*s);
}

const struct par_proto par_proto_etm3 = {
	p3_alloc, p3_free, p3_feed, p3_finish, p3_reset, p3_batch, p3_stats,
	p3_scratch_bytes, p3_snap_bytes, p3_snap
};
