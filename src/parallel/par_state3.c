/* Parallel decode: the ETMv3 flow decoder through struct par_proto, and
 * its state normalised for comparison (par_internal.h). Normalising is
 * conservative: every field is compared as it is, but those that cannot
 * change what the decoder delivers from here on (pointers into its own
 * block cache, counters, the input buffer it was last fed, the rotation
 * of its queues). A field added later is compared too: at worst a state
 * compares unequal and the join decodes that piece serially. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/etm3_flow_int.h"
#include "packets/etmv3/etm3_internal.h"
#include "parallel/par_internal.h"
#include "parallel/par_norm.h"

PAR_FLOW_CALLS(etm3, FLOW_QUEUE)

static void p3_stats(const void *dec, uint64_t out[PAR_NSTATS])
{
	const struct etm3_flow_stats *s = etm3_flow_get_stats(dec);

	out[0] = s->packets;
	out[1] = s->insns;
	out[2] = s->atoms_lost;
	out[3] = 0;
}

/* The state is normalised in a scratch copy of the decoders (@scratch:
 * only the fields copied there are read), then packed as par_state4.c
 * does: the fixed fields, then the queue's entries in use. Left out: the
 * header tables of both decoders (ph, rph, rfast and rca of the flow
 * decoder, built once from the configuration at allocation, the same for
 * both: etm3_flow.c build_ph(), etm3_config.c), the block cache, the
 * packet batch (drained: nothing in it is read again) and the queue: its
 * pointer (the decoder's own array or a piece's elements, par_piece.c)
 * and its own array (its entries in use are packed from wherever it is;
 * past them, stale). So a snapshot is about 1 KiB, not a 41 KiB copy of
 * the whole decoder, and five of them a piece cost little. */
struct p3_scratch {
	struct etm3_flow_decoder f;
	struct etm3_pkt_decoder k;
};

static size_t p3_scratch_bytes(void)
{
	return sizeof(struct p3_scratch);
}

/* The largest packed state. */
static size_t p3_snap_bytes(void)
{
	return sizeof(struct p3_scratch) + sizeof(uint64_t);
}

#define OFF(m) offsetof(struct etm3_flow_decoder, m)
#define END(m) (OFF(m) + sizeof(((struct etm3_flow_decoder *)0)->m))
#define KOFF(m) offsetof(struct etm3_pkt_decoder, m)

/* The flow decoder's fields but those left out (see above). */
#define P3_SEGS(X)                                                            \
	X(0, OFF(ph))                                                         \
	X(END(rca), OFF(cache))                                                 \
	X(END(cache), OFF(batch))                                             \
	X(END(batch), OFF(q))                                                 \
	X(END(q_own), sizeof(struct etm3_flow_decoder))

/* Normalise the fields copied to @f (the flow decoder) and @k (its
 * packet decoder) from @d. */
static void p3_norm(const struct etm3_flow_decoder *d,
		    struct etm3_flow_decoder *f, struct etm3_pkt_decoder *k)
{
	uint64_t pos;

	f->pkt = NULL;
	f->drv.nbatch = f->drv.ibatch = 0;
	/* etm3_flow_next()'s place in the last batch (flow_driver.h
	 * flow_drive_next()): p3_snap() refused a state with elements
	 * still to hand out there, so what is left is a pointer into the
	 * decoder's own queue. The runner takes elements with
	 * etm3_flow_batch() only, so both are 0 there anyway. */
	f->drv.next_pos = f->drv.next_n = 0;
	f->drv.next_batch = NULL;
	f->blk = NULL;
	f->link_from = NULL;
	f->link_slot = 0;
	f->link_gen = 0;
	f->ind_from = NULL;
	f->ind_gen = 0;
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
	/* Read only at POS_BLOCK, and then the instruction's address (@at in
	 * p3_snap()) says where the walk is: a block that starts elsewhere
	 * holds it at another index. */
	f->idx = 0;
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
}

static long p3_snap(const void *dec, void *scratch, uint8_t *out)
{
	const struct etm3_flow_decoder *d = dec;
	struct p3_scratch *sc = scratch;
	struct etm3_flow_decoder *f = &sc->f;
	struct etm3_pkt_decoder *k = &sc->k;
	uint64_t at = 0;
	uint8_t *o = out;

	/* Drained: every packet read was taken, nothing delivered waits. */
	if (d->drv.ibatch != d->drv.nbatch || d->delivered ||
	    d->drv.next_pos != d->drv.next_n || d->pkt->in.replaying ||
	    d->n > FLOW_QUEUE)
		return -1;
#define P3_COPY(from, to) par_seg(f, d, (from), (to));
	P3_SEGS(P3_COPY)
#undef P3_COPY
	par_seg(k, d->pkt, KOFF(in), sizeof(*k));
	if (d->pos == POS_BLOCK)
		at = d->blk->insn[d->idx].addr;
	p3_norm(d, f, k);

	o = par_put(o, &at, sizeof(at));
#define P3_PUT(from, to)                                                      \
	o = par_put(o, (const uint8_t *)f + (from), (to) - (from));
	P3_SEGS(P3_PUT)
#undef P3_PUT
	o = par_put(o, (const uint8_t *)k + KOFF(in), sizeof(*k) - KOFF(in));
	/* The elements decoded and not delivered (held back for a Cancel)
	 * are compared; the rest of the queue is stale. */
	o = par_put_queue(o, d->q, d->n);
	return (long)(o - out);
}

PAR_PROTO_OF(etm3, p3_stats, p3_scratch_bytes, p3_snap_bytes, p3_snap);
