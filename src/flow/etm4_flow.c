/* ETMv4 / ETE flow decoder: packets, speculation resolution and the
 * program walk (seed 002 D4.3.1, layers 1 to 3).
 *
 * Packets become elements in a speculation queue (`spec`), in trace
 * order. P0 elements (atoms, exceptions, Q, source addresses, and
 * Transaction Start where TRCIDR0.COMMTRANS says so) are speculative
 * until committed (D4.3.3): a Commit moves the oldest ones, with the
 * non-P0 elements before them, to the walk queue (`done`), which the
 * walker turns into instructions and events through the image. Cancel
 * removes the newest P0 elements and the address, context and trace-on
 * elements among them, but never timestamps, markers, cycle counts,
 * events or instrumentation (D4.3.7.3, D4.3.8.2, D4.3.9). Mispredict
 * flips the newest atom (D4.3.8.4). Discard and Overflow drop every
 * speculative element (D4.3.8.3, D4.3.10.2).
 *
 * Atoms are kept in runs (up to 32 atoms in one queue entry), so a Commit
 * of n atoms moves a run, not n entries. The walk queue is emptied before
 * the next packet is read, so both queues are bounded by the speculation
 * queue's size; an element that would not fit is a protocol error (a gap).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow/etm4_flow_int.h"
#include "flow/etm4_walk_int.h"
#include "packets/etmv4/etm4_view.h"

/* ---- Set-up ------------------------------------------------------------- */

void etm4_flow_config_init(struct etm4_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm4_config_init(&cfg->etm);
}

static void reset_walk(struct etm4_flow_decoder *d)
{
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	d->atom_started = 0;
	d->pop_pending = 0;
	d->no_addr = 0;
	d->rs_n = 0;
	d->rs_top = 0;
	d->rs_no_push = 0;
}

/* Drop sync: wait for the next Trace Info (digest section 3). */
void etm4_reset_resolution(struct etm4_flow_decoder *d)
{
	d->synced = 0;
	d->pend = d->pend_ctx = 0;
	d->depth = 0;
	d->sh = d->st = 0;
}

static void reset_trace_state(struct etm4_flow_decoder *d)
{
	etm4_reset_resolution(d);
	d->dh = d->dt = 0;
	d->overflowed = 0;
	d->cc_on = 0;
	d->ctx_valid = d->ctx_sent = 0;
	/* Until a context says otherwise, any memory space serves. */
	d->space = IMAGE_SPACE_ANY;
	reset_walk(d);
}

int etm4_flow_alloc(struct etm4_flow_decoder **out,
		    const struct etm4_flow_config *cfg)
{
	struct etm4_flow_decoder *d;
	int err;

	/* A caller built before flags existed passes a smaller size: no
	 * flags. */
	int has_flags = cfg && cfg->size >= offsetof(struct etm4_flow_config,
						    flags) + sizeof(cfg->flags);
	uint32_t flags = has_flags ? cfg->flags : 0;

	if (!out || !cfg ||
	    cfg->size < offsetof(struct etm4_flow_config, flags) ||
	    cfg->etm.size < sizeof(cfg->etm) ||
	    (flags & ~(ETM4_FLOW_RANGES | ETM4_FLOW_TALLY |
		       ETM4_FLOW_TRACES)) ||
	    ((flags & (ETM4_FLOW_TALLY | ETM4_FLOW_TRACES)) &&
	     !(flags & ETM4_FLOW_RANGES)) ||
	    ((flags & ETM4_FLOW_TALLY) && (flags & ETM4_FLOW_TRACES)))
		return -etmkit_err_invalid;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	err = etm4_config_decode(&cfg->etm, &d->info);
	/* Conditional-instruction and data trace add P0 kinds (loads and
	 * stores, conditional instructions) this decoder does not follow. */
	if (!err && (d->info.cond || d->info.data))
		err = -etmkit_err_unsupported;
	if (!err) {
		/* Atom and address packets in runs (ETM4_CFG_ADDR_RUNS):
		 * etm4_atom_run(). */
		struct etm4_config pc = cfg->etm;

		pc.flags |= ETM4_CFG_ADDR_RUNS;
		err = etm4_pkt_alloc(&d->pkt, &pc);
	}
	if (!err)
		err = flow_cache_init(&d->cache, cfg->image,
				      cfg->cache_bytes ? cfg->cache_bytes :
							 4u << 20,
				      ETMKIT_INSN_EXEC);
	if (err) {
		etm4_flow_free(d);
		return err;
	}
	/* P0 instructions (digest 8.1): branches, ISB, WFI/WFE when
	 * TRCIDR2.WFXMODE is set, TSTART (ETE). */
	d->p0_flags = INSN_F_BRANCH | INSN_F_ISB | INSN_F_TSTART |
		      (d->info.wfx_p0 ? INSN_F_WFX : 0);
	flow_cache_set_ends(&d->cache, d->p0_flags);
	d->atoms = etm4_pkt_atom_table(d->pkt);
	d->ranges = !!(flags & ETM4_FLOW_RANGES);
	d->tally = !!(flags & (ETM4_FLOW_TALLY | ETM4_FLOW_TRACES));
	d->traces = !!(flags & ETM4_FLOW_TRACES);
	d->fused = d->ranges && !d->tally && !d->info.maxspec;
	if (cfg->size >= offsetof(struct etm4_flow_config, image_ctx) +
				 sizeof(cfg->image_ctx)) {
		d->image_for_context = cfg->image_for_context;
		d->image_ctx = cfg->image_ctx;
	}
	flow_drive_reset(&d->drv);
	d->out = d->out_own;
	reset_trace_state(d);
	*out = d;
	return 0;
}

void etm4_flow_free(struct etm4_flow_decoder *d)
{
	if (!d)
		return;
	etm4_pkt_free(d->pkt);
	flow_cache_fini(&d->cache);
	free(d);
}

void etm4_flow_reset(struct etm4_flow_decoder *d)
{
	if (!d)
		return;
	etm4_pkt_reset(d->pkt);
	flow_drive_reset(&d->drv);
	d->run_h = d->run_a = 0;
	d->n = d->delivered = 0;
	d->out = d->out_own;
	d->ntally = 0;
	d->last_closed = 0;
	/* Written only when ranges are counted (tally_run(), trace_run()):
	 * otherwise as allocated still, and 14 KiB not cleared again for
	 * every piece of the parallel decode. */
	if (d->tally)
		memset(d->tallies, 0, sizeof(d->tallies));
	memset(&d->tr, 0, sizeof(d->tr));
	reset_trace_state(d);
	/* The context outlives a Trace Info (a Context packet without a
	 * context ID or VMID keeps the one before, D4.3.6.3), not a reset;
	 * nor do the walk's leftovers: as just allocated (the parallel
	 * decode reuses decoders piece after piece, par_internal.h). */
	d->el = d->sf = d->ns = d->nse = 0;
	d->has_cid = d->has_vmid = 0;
	d->cid = d->vmid = 0;
	d->isa = 0;
	d->idx = 0;
	memset(&d->stats, 0, sizeof(d->stats));
	d->streak_addrs = 0;
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct etm4_flow_stats *
etm4_flow_get_stats(const struct etm4_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Output ------------------------------------------------------------- */

/* A range counted in the decoder, delivered: from @start to the P0
 * instruction before @end (@count instructions, the last @size bytes,
 * @opcode, @cls), whose atom was @taken. */
static struct etmkit_elem *counted_range(struct etm4_flow_decoder *d,
					 uint64_t offset, uint64_t start,
					 uint64_t end, uint8_t isa,
					 uint8_t size, unsigned taken,
					 uint32_t opcode, uint32_t cls,
					 uint32_t count)
{
	struct etmkit_elem *e = &d->out[d->n++];

	memset(e, 0, sizeof(*e));
	e->offset = offset;
	e->addr = start;
	e->kind = etmkit_elem_insn_range;
	e->isa = isa;
	e->size = size;
	e->flags = (uint8_t)(ETMKIT_INSN_P0 | (taken ? ETMKIT_INSN_EXEC :
						ETMKIT_INSN_COND_FAIL));
	e->u.range.opcode = opcode;
	e->u.range.class_flags = cls;
	e->u.range.end = end;
	e->u.range.count = count;
	return e;
}

/* ETM4_FLOW_TRACES: deliver the trace counted in @t. */
static void trace_put(struct etm4_flow_decoder *d, struct f4_tally *t)
{
	struct etmkit_elem *e = &d->out[d->n++];

	memset(e, 0, sizeof(*e));
	e->offset = t->offset;
	e->addr = t->start;
	e->kind = etmkit_elem_branch_run;
	e->isa = t->isa;
	e->size = t->size;
	e->flags = ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC;
	e->u.brun.class_flags = t->cls;
	e->u.brun.repeats = t->runs[1] - 1;
	e->u.brun.end = t->end;
	e->u.brun.target = t->target;
	t->runs[1] = 0;                /* free */
}

/* ETM4_FLOW_TALLY: deliver the runs counted in @t. */
void etm4_tally_put(struct etm4_flow_decoder *d, struct f4_tally *t)
{
	if (d->traces) {
		trace_put(d, t);
		return;
	}
	for (int k = 1; k >= 0; k--) {
		struct etmkit_elem *e;

		if (!t->runs[k])
			continue;
		e = counted_range(d, t->offset, t->start, t->end, t->isa,
				  t->size, (unsigned)k, t->opcode, t->cls,
				  t->count);
		e->u.range.repeats = t->runs[k] - 1;
		t->runs[k] = 0;
	}
	t->blk = NULL;
}

/* Deliver every counted range: before an element of another kind, and at
 * the end of a batch. Room: out[] beyond F4_OUT. Ranges may come between: only
 * whole ones are counted, after a range that ended, so none of them
 * continues a range a packet cut. */
void etm4_tally_flush_table(struct etm4_flow_decoder *d)
{
	for (uint32_t i = 0; i < d->ntally; i++)
		etm4_tally_put(d, &d->tallies[d->tally_used[i]]);
	d->ntally = 0;
}

/* Deliver everything counted, and the trace being walked (which ran
 * last: what comes next tells where its taken branch went, or that a cut
 * came first: profile.h). */
void etm4_tally_flush(struct etm4_flow_decoder *d)
{
	struct f4_trace *tr = &d->tr;

	etm4_tally_flush_table(d);
	if (tr->state)
		counted_range(d, tr->offset, tr->start, tr->end, tr->isa,
			      tr->size, tr->taken, tr->opcode, tr->cls,
			      tr->count);
	tr->state = F4_TR_NONE;
}

/* trace_count() when the trace is not in its first slot, or its count
 * is full: counted in its slot, found or taken. When it finds none, everything
 * counted before is delivered first (the order in which traces first
 * ran kept). */
__attribute__((noinline)) void
etm4_trace_insert(struct etm4_flow_decoder *d, uint64_t target)
{
	const struct f4_trace *tr = &d->tr;
	struct f4_tally *t = NULL;
	uint32_t h = trace_hash(tr->start, tr->end, target), i = h;

	for (int k = 0; k < F4_TRACE_PROBES; k++, i = (i + 1) & (F4_TALLY - 1)) {
		t = &d->tallies[i];
		if (!t->runs[1] || (t->start == tr->start && t->end == tr->end &&
				    t->target == target))
			break;
		t = NULL;
	}
	if (!t || t->runs[1] == UINT32_MAX) {
		etm4_tally_flush_table(d);
		i = h;
		t = &d->tallies[i];
	}
	if (!t->runs[1]) {            /* free: taken */
		d->tally_used[d->ntally++] = (uint16_t)i;
		t->start = tr->start;
		t->end = tr->end;
		t->target = target;
		t->offset = tr->offset;
		t->cls = tr->cls;
		t->opcode = tr->opcode;
		t->count = tr->count;
		t->isa = tr->isa;
		t->size = tr->size;
	}
	t->runs[1]++;
}

/* ---- Driving ------------------------------------------------------------ */

/* Where the one pass may take over after the next record (d->fused),
 * one record: a batch would be the
 * packet decoder's own loop's, run records of up to ETM4_RUN_ADDRS
 * addresses each, walked the slower way as far as F4_BATCH records reach
 * (juno_r1_1: up to 30 KB after the Trace Info that syncs, or after a
 * feed that ended inside a packet; the parallel decode starts at a Trace
 * Info and feeds each piece in five parts, par_piece.c). */
static int refill(struct etm4_flow_decoder *d)
{
	return flow_drive_refilled(&d->drv,
				   etm4_pkt_next(d->pkt, d->batch,
						 d->fused ? 1 : F4_BATCH));
}

/* End of the trace: what precedes the first uncommitted P0 element and is
 * never cancelled is delivered; the rest is unknown (digest 7.6). */
static void end_of_trace(struct etm4_flow_decoder *d)
{
	for (uint32_t i = d->sh; i != d->st; i++) {
		struct ent *e = spec_at(d, i);

		if (IS_P0(e->kind))
			break;
		if (IS_KEPT(e->kind))
			*done_push(d) = *e;
	}
	d->sh = d->st = 0;
	d->depth = 0;
	d->pend = d->pend_ctx = 0;
}

static void decode(struct etm4_flow_decoder *d)
{
	d->drv.full = 1;
	if (!etm4_walk(d))
		return;
	if (d->drv.gap_pending) {
		struct etmkit_elem *e;

		etm4_drop_speculative(d);
		if (!etm4_walk(d))
			return;
		e = emit(d, etmkit_elem_gap, d->drv.gap_offset);
		flow_drive_gap_elem(&d->drv, e);
		reset_trace_state(d);
	}
	for (;;) {
		if (d->drv.ibatch >= d->drv.nbatch && d->fused &&
		    !d->drv.stopped) {
			/* The one pass: atoms and target addresses read from
			 * the packet decoder's input, the other packets'
			 * records up to the next of those. */
			int took;

			if (!etm4_fused(d, &took))
				return;
			/* Where the synced fast path stops (a 0x00 header, a
			 * packet cut, an error), the packet decoder's own
			 * loop, for one record. */
			if (took) {
				int k = (int)etm4_next_others(d->pkt, d->batch,
							      F4_BATCH);

				if (!k)
					k = etm4_pkt_next(d->pkt, d->batch, 1);
				flow_drive_refilled(&d->drv, k);
			}
		}
		if (d->drv.ibatch >= d->drv.nbatch &&
		    (d->drv.stopped || !refill(d))) {
			if (d->drv.finishing && !d->drv.stopped) {
				end_of_trace(d);
				if (!etm4_walk(d))
					return;
			}
			d->drv.full = 0;
			return;
		}
		if (d->batch[d->drv.ibatch].type == etm4_pkt_atom_run) {
			if (!etm4_atom_run(d, &d->batch[d->drv.ibatch]))
				return;
			d->drv.ibatch++;
			continue;
		}
		d->stats.packets++;
		etm4_on_packet(d, &d->batch[d->drv.ibatch++]);
		if (d->dt && !etm4_walk(d))
			return;
	}
}

void etm4_flow_queue_at(struct etm4_flow_decoder *d, struct etmkit_elem *to)
{
	flow_queue_move(&d->out, to ? to : d->out_own, &d->n, &d->delivered);
}

static void drop_delivered(struct etm4_flow_decoder *d)
{
	etm4_flow_queue_at(d, d->out);
}

int etm4_flow_batch(struct etm4_flow_decoder *d,
		    const struct etmkit_elem **elems)
{
	if (!d || !elems)
		return -etmkit_err_invalid;
	drop_delivered(d);
	flow_cache_sync(&d->cache);
	decode(d);
	/* At the end of the trace or where an error stopped it, the counted
	 * ranges (before, they wait for more: the input comes in pieces),
	 * unless the last element is a range a packet cut: its rest comes
	 * first, in the next batch. */
	if (tally_waits(d) && (d->drv.finishing || d->drv.stopped) &&
	    !d->drv.full &&
	    (!d->n || range_closed(&d->out[d->n - 1]) ||
	     d->out[d->n - 1].kind != etmkit_elem_insn_range))
		etm4_tally_flush(d);
	if (d->n)
		d->last_closed = (uint8_t)range_closed(&d->out[d->n - 1]);
	d->stats.blocks = d->cache.blocks - d->blocks_base;
	d->stats.cache_flushes = d->cache.flushes - d->flushes_base;
	d->delivered = d->n;
	/* Stopped for room with a range still open: it is kept back, so
	 * that the rest of its packet's instructions extend it. */
	if (d->drv.full && d->n > 1 &&
	    d->out[d->n - 1].kind == etmkit_elem_insn_range &&
	    d->out[d->n - 1].flags == ETMKIT_INSN_EXEC)
		d->delivered = d->n - 1;
	*elems = d->out;
	if (!d->delivered)
		return d->drv.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)d->delivered;
}

/* feed, finish, gap and next: the skeleton's (flow_driver.h). */
FLOW_DRIVE_API(etm4, struct etm4_packet)
