/* Parallel decode: the ETMv4/ETE flow decoder through struct par_proto,
 * and its state normalised for comparison, as par_state3.c does for
 * ETMv3: pointers into the block cache, counters and the input buffer are
 * left out; the speculation and walk queues and the return stack are
 * compared from their oldest entry, whatever their rotation. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/etm4_flow_int.h"
#include "packets/etmv4/etm4_internal.h"
#include "parallel/par_internal.h"
#include "parallel/par_norm.h"

PAR_FLOW_CALLS(etm4, F4_OUT_ROOM)

static void p4_stats(const void *dec, uint64_t out[PAR_NSTATS])
{
	const struct etm4_flow_stats *s = etm4_flow_get_stats(dec);

	out[0] = s->packets;
	out[1] = s->insns;
	out[2] = s->atoms_lost;
	out[3] = s->protocol_errors;
}

/* The state is normalised in a scratch copy of the decoders (@scratch:
 * only the fields copied there are read), then packed: the fixed
 * fields, then only the entries in use of the big queues, so a snapshot
 * is a few KiB. */
struct p4_scratch {
	struct etm4_flow_decoder f;
	struct etm4_pkt_decoder k;
};

static size_t p4_scratch_bytes(void)
{
	return sizeof(struct p4_scratch);
}

/* The largest packed state. */
static size_t p4_snap_bytes(void)
{
	return sizeof(struct p4_scratch) + sizeof(uint64_t);
}

#define OFF(m) offsetof(struct etm4_flow_decoder, m)
#define END(m) (OFF(m) + sizeof(((struct etm4_flow_decoder *)0)->m))
#define KOFF(m) offsetof(struct etm4_pkt_decoder, m)
#define KEND(m) (KOFF(m) + sizeof(((struct etm4_pkt_decoder *)0)->m))

/* The flow decoder's fields compared, copied and packed by the same
 * list: everything but the block cache, the packet batch, the queues
 * (packed as far as they are in use, below; the output queue's pointer,
 * to its own array or a piece's elements, par_piece.c, with it) and the
 * counted ranges (ETM4_FLOW_TALLY, refused). */
#define P4_SEGS(X)                                                            \
	X(0, OFF(cache))                                                      \
	X(END(cache), OFF(batch))                                             \
	X(END(batch), OFF(spec))                                              \
	X(END(spec), OFF(done))                                               \
	X(END(done), OFF(tallies))                                            \
	X(END(tallies), OFF(out))                                             \
	X(END(out_own), sizeof(struct etm4_flow_decoder))

/* The packet decoder's: all but its tables (from the configuration, the
 * same for both) and this call's run addresses. */
#define P4_KSEGS(X)                                                           \
	X(KOFF(in), KOFF(raddr))                                              \
	X(KEND(nraddr), sizeof(struct etm4_pkt_decoder))

static long p4_snap(const void *dec, void *scratch, uint8_t *out)
{
	const struct etm4_flow_decoder *d = dec;
	struct p4_scratch *sc = scratch;
	struct etm4_flow_decoder *f = &sc->f;
	struct etm4_pkt_decoder *k = &sc->k;
	uint32_t i, nspec = d->st - d->sh, ndone = d->dt - d->dh;
	uint32_t nrs = d->rs_n < F4_RS ? d->rs_n : F4_RS;
	uint64_t at = 0;
	uint8_t *o = out;

	if (d->drv.ibatch != d->drv.nbatch || d->delivered ||
	    d->drv.next_pos != d->drv.next_n || d->pkt->in.replaying ||
	    nspec > F4_SPEC || ndone > F4_DONE || d->dt > F4_DONE ||
	    d->n > F4_OUT)
		return -1;
#define P4_COPY(from, to) par_seg(f, d, (from), (to));
	P4_SEGS(P4_COPY)
#undef P4_COPY
#define P4_KCOPY(from, to) par_seg(k, d->pkt, (from), (to));
	P4_KSEGS(P4_KCOPY)
#undef P4_KCOPY
	if (d->pos == POS_BLOCK)
		at = d->blk->insn[d->idx].addr;
	f->pkt = NULL;
	f->drv.nbatch = f->drv.ibatch = 0;
	/* etm4_flow_next()'s place in the last batch (flow_driver.h
	 * flow_drive_next()): a state with elements still to hand out there
	 * was refused above, so what is left is a pointer into the
	 * decoder's own queue. The runner takes elements with
	 * etm4_flow_batch() only, so both are 0 there anyway. */
	f->drv.next_pos = f->drv.next_n = 0;
	f->drv.next_batch = NULL;
	f->atoms = NULL;
	f->blk = NULL;
	f->link_from = NULL;
	f->link_slot = 0;
	f->link_gen = 0;
	f->ind_from = NULL;
	f->ind_gen = 0;
	/* Read only under their flags (etm4_resolve.c: flush_pend(),
	 * push_pend_ctx(); etm4_walk_entry.c: the budget of a started atom;
	 * flow_driver.h: addr and pos_is at POS_ADDR; etm4_flow_int.h:
	 * no_addr at POS_NONE). */
	if (!f->pend)
		memset(&f->pend_ent, 0, sizeof(f->pend_ent));
	if (!f->pend_ctx)
		memset(&f->pend_ctx_ent, 0, sizeof(f->pend_ctx_ent));
	if (!f->atom_started)
		f->budget = 0;
	if (f->pos != POS_ADDR) {
		f->addr = 0;
		f->pos_is = 0;
	}
	if (f->pos != POS_NONE)
		f->no_addr = 0;
	f->sh = f->dh = 0;
	f->st = nspec;
	f->dt = ndone;
	/* The return stack from its top: entries below rs_n are never
	 * read (rs_pop). */
	memset(f->rs, 0, sizeof(f->rs));
	for (i = 0; i < nrs; i++)
		f->rs[i] = d->rs[(d->rs_top + F4_RS - i) % F4_RS];
	f->rs_top = 0;
	memset(&f->stats, 0, sizeof(f->stats));
	f->blocks_base = f->flushes_base = 0;
	f->streak_addrs = 0;
	f->image_for_context = NULL;
	f->image_ctx = NULL;
	par_norm_stream(&k->in);
	PAR_NORM_SCAN(k, k->zeros);

	o = par_put(o, &at, sizeof(at));
#define P4_PUT(from, to)                                                      \
	o = par_put(o, (const uint8_t *)f + (from), (to) - (from));
	P4_SEGS(P4_PUT)
#undef P4_PUT
#define P4_KPUT(from, to)                                                     \
	o = par_put(o, (const uint8_t *)k + (from), (to) - (from));
	P4_KSEGS(P4_KPUT)
#undef P4_KPUT
	/* The queues from their oldest entry (spec is a ring of F4_SPEC). */
	for (i = 0; i < nspec; i++)
		o = par_put(o, &d->spec[(d->sh + i) & (F4_SPEC - 1)],
			sizeof(d->spec[0]));
	for (i = 0; i < ndone; i++)
		o = par_put(o, &d->done[d->dh + i], sizeof(d->done[0]));
	o = par_put_queue(o, d->out, d->n);
	return (long)(o - out);
}

PAR_PROTO_OF(etm4, p4_stats, p4_scratch_bytes, p4_snap_bytes, p4_snap);
