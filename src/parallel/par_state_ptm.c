/* Parallel decode: the PTM flow decoder through struct par_proto, and its
 * state normalised for comparison, as par_state3.c does for ETMv3: every
 * field is compared as it is, but those that cannot change what the
 * decoder delivers from here on (pointers into its own block cache,
 * counters, the input buffer it was last fed, the rotation of its return
 * stack, the place of its queue). A field added later is compared too:
 * at worst a state compares unequal and the join decodes that piece
 * serially.
 *
 * At a cut (A-sync, I-sync: par_cuts.c) the I-sync sets the address, the
 * instruction set, NS and Hyp, and the context ID when it is traced, and
 * empties the return stack (ptm_flow.c: ptm_flow_isync()), so a fresh
 * decoder and the one that ran on from the piece before mostly agree
 * once past it. What survives an I-sync is compared, and then tells them
 * apart until traced again: the VMID (vmid_seen: a fresh decoder reports
 * the first VMID packet as a change), the context ID when it is not
 * traced in I-syncs but by its own packets, and the packet decoder's
 * last timestamp (IHI 0035B 4.5.9: only the bits that changed are sent). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/ptm_flow_int.h"
#include "packets/ptm/ptm_internal.h"
#include "parallel/par_internal.h"
#include "parallel/par_norm.h"

PAR_FLOW_CALLS(ptm, PTM_QUEUE)

static void pp_stats(const void *dec, uint64_t out[PAR_NSTATS])
{
	const struct ptm_flow_stats *s = ptm_flow_get_stats(dec);

	out[0] = s->packets;
	out[1] = s->insns;
	out[2] = s->atoms_lost;
	out[3] = 0;
}

/* The state is normalised in a scratch copy of the decoders (@scratch:
 * only the fields copied there are read), then packed as par_state3.c
 * does: the fixed fields, then the queue's entries in use. Left out: the
 * block cache, the packet batch (drained: nothing in it is read again)
 * and the queue (its pointer, to the decoder's own array or a piece's
 * elements, par_piece.c, and its own array: its entries in use are
 * packed from wherever it is; past them, stale); of the packet decoder,
 * its configuration and header tables (built from the configuration at
 * allocation, the same for both: ptm_config.c). */
struct pp_scratch {
	struct ptm_flow_decoder f;
	struct ptm_pkt_decoder k;
};

static size_t pp_scratch_bytes(void)
{
	return sizeof(struct pp_scratch);
}

/* The largest packed state. */
static size_t pp_snap_bytes(void)
{
	return sizeof(struct pp_scratch) + sizeof(uint64_t);
}

#define OFF(m) offsetof(struct ptm_flow_decoder, m)
#define END(m) (OFF(m) + sizeof(((struct ptm_flow_decoder *)0)->m))
#define KOFF(m) offsetof(struct ptm_pkt_decoder, m)

/* The flow decoder's fields but those left out (see above). */
#define PP_SEGS(X)                                                            \
	X(0, OFF(cache))                                                      \
	X(END(cache), OFF(batch))                                             \
	X(END(batch), OFF(q))                                                 \
	X(END(q_own), sizeof(struct ptm_flow_decoder))

/* Normalise the fields copied to @f (the flow decoder) and @k (its packet
 * decoder) from @d. */
static void pp_norm(const struct ptm_flow_decoder *d,
		    struct ptm_flow_decoder *f, struct ptm_pkt_decoder *k)
{
	unsigned nrs = d->rs_n < PTM_RS ? d->rs_n : PTM_RS;

	f->pkt = NULL;
	f->drv.nbatch = f->drv.ibatch = 0;
	/* ptm_flow_next()'s place in the last batch (flow_driver.h
	 * flow_drive_next()): pp_snap() refused a state with elements
	 * still to hand out there, so what is left is a pointer into the
	 * decoder's own queue. */
	f->drv.next_pos = f->drv.next_n = 0;
	f->drv.next_batch = NULL;
	/* Where the walk is: at POS_BLOCK the instruction's address (@at in
	 * pp_snap()) says it; a block that starts elsewhere holds it at
	 * another index, and blocks are cut where the lookup began. The
	 * block is found again from the address, the same for both. */
	f->blk = NULL;
	f->idx = 0;
	/* Read only at POS_ADDR (resolve(), ptm_go_to() sets both). */
	if (f->pos != POS_ADDR) {
		f->addr = 0;
		f->isa = 0;
	}
	/* The successor a lookup fills in, and the indirect branch whose
	 * guesses a lookup tries first (block.h): where a block is found,
	 * not which one (a guess is a block at the same address, ISA and
	 * space a lookup finds). */
	f->link_from = NULL;
	f->link_slot = 0;
	f->link_gen = 0;
	f->ind_from = NULL;
	f->ind_gen = 0;
	/* The return stack from its top: entries past rs_n are never read
	 * (rs_pop()). An entry's block and its call's block, with their
	 * cache generation, only spare a lookup of its address (rs_pop():
	 * the block where the call falls through starts there). */
	memset(f->rs, 0, sizeof(f->rs));
	for (unsigned i = 0; i < nrs; i++) {
		unsigned t = (d->rs_top + PTM_RS - i) % PTM_RS;

		f->rs[i].addr = d->rs[t].addr;
		f->rs[i].isa = d->rs[t].isa;
	}
	f->rs_top = 0;
	memset(&f->stats, 0, sizeof(f->stats));
	f->blocks_base = f->flushes_base = 0;
	f->image_for_context = NULL;
	f->image_ctx = NULL;
	par_norm_stream(&k->in);
	PAR_NORM_SCAN(k, k->zeros);
}

static long pp_snap(const void *dec, void *scratch, uint8_t *out)
{
	const struct ptm_flow_decoder *d = dec;
	struct pp_scratch *sc = scratch;
	struct ptm_flow_decoder *f = &sc->f;
	struct ptm_pkt_decoder *k = &sc->k;
	uint64_t at = 0;
	uint8_t *o = out;

	/* Drained: every packet read was taken, nothing delivered waits. */
	if (d->drv.ibatch != d->drv.nbatch || d->delivered ||
	    d->drv.next_pos != d->drv.next_n || d->pkt->in.replaying ||
	    d->n > PTM_QUEUE)
		return -1;
#define PP_COPY(from, to) par_seg(f, d, (from), (to));
	PP_SEGS(PP_COPY)
#undef PP_COPY
	par_seg(k, d->pkt, KOFF(in), sizeof(*k));
	if (d->pos == POS_BLOCK)
		at = d->blk->insn[d->idx].addr;
	pp_norm(d, f, k);

	o = par_put(o, &at, sizeof(at));
#define PP_PUT(from, to)                                                      \
	o = par_put(o, (const uint8_t *)f + (from), (to) - (from));
	PP_SEGS(PP_PUT)
#undef PP_PUT
	o = par_put(o, (const uint8_t *)k + KOFF(in), sizeof(*k) - KOFF(in));
	/* The elements decoded and not delivered (a range still open); the
	 * rest of the queue is stale. */
	o = par_put_queue(o, d->q, d->n);
	return (long)(o - out);
}

PAR_PROTO_OF(ptm, pp_stats, pp_scratch_bytes, pp_snap_bytes, pp_snap);
