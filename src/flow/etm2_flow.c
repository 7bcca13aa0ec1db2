/* ETMv2 flow decoder: capture cycles and the program image to execution
 * elements (IHI 0014Q chapter 6; digest spec/etmv2.md; docs/etmv2.md 7).
 *
 * ETMv2 traces one pipeline status per instruction (Q§6.1): IE and DE an
 * instruction executed, IN and DN one that failed its condition, a
 * phantom status a folded direct branch (taken or not) executed with the
 * instruction after it. The packet decoder (etm2_pkt_*) models the trace
 * FIFO and gives records in status order, each status followed by the
 * packets its cycle placed; the decoder walks the image one instruction
 * per status. A taken direct branch goes to its target; an executed
 * indirect branch's target is the branch address in its group. A TFO
 * (Q§6.5) places the walk: a periodic one stands for an IE of the
 * instruction at its address, the others restart tracing there. ETMv1
 * (chapter 5, docs/etmv2.md 7b) starts at a full branch address instead:
 * etm1_flow.c.
 *
 * Memory is fixed at allocation (the block cache, the output queue):
 * nothing is allocated per cycle, record or instruction.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/etm2_flow_int.h"

/* ---- Set-up ------------------------------------------------------------- */

void etm2_flow_config_init(struct etm2_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm2_config_init(&cfg->etm);
}

void etm2_flow_forget(struct etm2_flow_decoder *d)
{
	d->open = -1;
	d->synced = 0;
	d->pos = POS_NONE;
	d->blk = NULL;
	d->link_from = NULL;
	d->ind_from = NULL;
	d->waiting = 0;
	d->lost_reported = 0;
	d->grp = GRP_NONE;
	d->grp_known = 0;
	d->grp_blk = NULL;
	d->data_valid = d->last_valid = 0;
	memset(d->miss, 0, sizeof(d->miss));
	d->ctx_sent = 0;
	d->prev_valid = 0;
	d->v1_pend = 0;
}

int etm2_flow_alloc(struct etm2_flow_decoder **out,
		    const struct etm2_flow_config *cfg)
{
	struct etm2_flow_decoder *d;
	int err;

	if (!out || !cfg || cfg->size < sizeof(*cfg) ||
	    cfg->etm.size < sizeof(cfg->etm) ||
	    (cfg->flags & ~(uint32_t)ETM2_FLOW_RANGES))
		return -etmkit_err_invalid;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -etmkit_err_nomem;
	err = etm2_config_decode(&cfg->etm, &d->info);
	if (!err)
		err = etm2_pkt_alloc(&d->pkt, &cfg->etm);
	if (!err)
		err = flow_cache_init(&d->cache, cfg->image,
				      cfg->cache_bytes ? cfg->cache_bytes :
							 4u << 20,
				      (uint8_t)(ETMKIT_INSN_EXEC |
						(d->info.cycle_accurate ?
						 ETMKIT_INSN_CYCLES : 0)));
	if (err) {
		etm2_flow_free(d);
		return err;
	}
	d->image_for_context = cfg->image_for_context;
	d->image_ctx = cfg->image_ctx;
	d->ranges = !!(cfg->flags & ETM2_FLOW_RANGES);
	d->space = IMAGE_SPACE_ANY;
	flow_drive_reset(&d->drv);
	d->q = d->q_own;
	etm2_flow_forget(d);
	*out = d;
	return 0;
}

void etm2_flow_free(struct etm2_flow_decoder *d)
{
	if (!d)
		return;
	etm2_pkt_free(d->pkt);
	flow_cache_fini(&d->cache);
	free(d);
}

void etm2_flow_reset(struct etm2_flow_decoder *d)
{
	if (!d)
		return;
	etm2_pkt_reset(d->pkt);
	flow_drive_reset(&d->drv);
	d->recs = NULL;
	d->nrecs = 0;
	d->n = d->delivered = 0;
	d->q = d->q_own;
	etm2_flow_forget(d);
	d->isa = 0;
	d->addr = 0;
	d->idx = 0;
	d->context_id = 0;
	memset(&d->stats, 0, sizeof(d->stats));
	d->blocks_base = d->cache.blocks;
	d->flushes_base = d->cache.flushes;
}

const struct etm2_flow_stats *
etm2_flow_get_stats(const struct etm2_flow_decoder *d)
{
	return d ? &d->stats : NULL;
}

/* ---- Position ----------------------------------------------------------- */

/* Make POS_ADDR a block: a guess of the indirect branch that came here
 * (block.h), the cache's front, or a lookup. Returns 1, or 0 after
 * reporting no_image (one element: the caller made room). */
static int resolve(struct etm2_flow_decoder *d, uint64_t offset)
{
	uint64_t gen = flow_cache_generation(&d->cache);
	struct flow_block *b = NULL, *f = d->ind_from;
	uint8_t loss = etmkit_loss_misaligned;

	d->ind_from = NULL;
	if (f && d->ind_gen != gen)
		f = NULL;
	if (f)
		b = flow_ind_guess(f, d->addr, d->isa, d->space);
	/* A32 instructions are word-aligned, T32 ones halfword-aligned. */
	if (!b && !(d->addr & (d->isa == etmkit_isa_arm ? 3u : 1u))) {
		b = flow_cache_front(&d->cache, d->addr, d->isa, d->space);
		if (!b)
			b = flow_cache_get(&d->cache, d->addr, d->isa,
					   d->space, &loss);
		if (b && f && flow_cache_generation(&d->cache) == gen)
			flow_ind_note(f, b);
	}
	if (b) {
		FLOW_ENTER_BLOCK(d, b, gen);
		return 1;
	}
	flow_no_image(etm2_emit(d, etmkit_elem_no_image, offset), d->addr,
		      d->isa, loss, d->space);
	d->pos = POS_NONE;
	d->link_from = NULL;
	d->lost_reported = 1;
	return 0;
}

int etm2_flow_resolve(struct etm2_flow_decoder *d, uint64_t offset)
{
	return resolve(d, offset);
}

static void leave_block(struct etm2_flow_decoder *d, struct flow_block *b,
			unsigned slot, uint64_t addr, uint8_t isa)
{
	FLOW_LEAVE_BLOCK(d, b, slot, addr, isa, (void)0);
}

/* Past instruction @i of block @b, which executed (@exec) or not. */
static void advance(struct etm2_flow_decoder *d, struct flow_block *b,
		    uint32_t i, int exec)
{
	uint32_t f = b->insn[i].flags;

	if (i + 1 < b->n) {
		d->idx = i + 1;
		return;
	}
	if (exec && (f & INSN_F_BRANCH)) {
		if (!(f & INSN_F_INDIRECT)) {
			leave_block(d, b, 1, b->target, b->target_isa);
			return;
		}
		/* Its target comes as a branch address in its group. */
		d->pos = POS_NONE;
		d->blk = NULL;
		d->link_from = NULL;
		d->waiting = 1;
		d->lost_reported = 0;
		d->ind_from = b;
		d->ind_gen = flow_cache_generation(&d->cache);
		return;
	}
	if (f & INSN_F_ISA_SWITCH)
		leave_block(d, b, 1, b->target, b->target_isa);
	else
		leave_block(d, b, 0, flow_block_end(b), b->isa);
}

/* ---- Instructions ------------------------------------------------------- */

/* Deliver instruction @fi (of instruction set @isa) as an insn element
 * with @flags and @cycles, or into the open range (ETM2_FLOW_RANGES):
 * a range goes on while each instruction is the next after the one
 * before, executed, and no branch, instruction set switch, status with
 * packets or implied instruction ends it (flow.h). */
static void put_insn(struct etm2_flow_decoder *d, const struct flow_insn *fi,
		     uint8_t isa, uint64_t offset, uint8_t flags,
		     uint32_t cycles, int ends)
{
	struct etmkit_elem *e;

	d->stats.insns++;
	if (!d->ranges) {
		e = &d->q[d->n++];
		memcpy(&e->addr, fi, 24);
		e->offset = offset;
		e->flags = flags;
		e->cycles = cycles;
		return;
	}
	if (d->open >= 0 && d->q[d->open].u.range.end == fi->addr &&
	    d->q[d->open].isa == isa) {
		uint64_t c;

		e = &d->q[d->open];
		e->u.range.count++;
		c = (uint64_t)e->cycles + cycles;
		e->cycles = flow_cycles_cap(c);
	} else {
		e = etm2_emit(d, etmkit_elem_insn_range, offset);
		e->addr = fi->addr;
		e->isa = isa;
		e->cycles = cycles;
		e->u.range.count = 1;
		d->open = (long)(d->n - 1);
	}
	e->flags = flags;
	e->size = fi->head[2];
	e->u.range.opcode = fi->opcode;
	e->u.range.class_flags = fi->flags;
	e->u.range.end = fi->addr + fi->head[2];
	if (ends)
		d->open = -1;
}

/* A status with no known instruction: before a known address, after
 * no_image, after an indirect branch whose address did not come. */
static void lose_status(struct etm2_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e;

	d->stats.statuses_lost++;
	if (!d->synced || !d->waiting || d->lost_reported)
		return;
	e = etm2_emit(d, etmkit_elem_gap, offset);
	e->u.loss.reason = etmkit_loss_no_address;
	e->u.loss.why = "instruction after an indirect branch whose address "
			"was not traced";
	d->lost_reported = 1;
}

int etm2_flow_insn(struct etm2_flow_decoder *d, uint64_t offset,
		   uint32_t cycles, unsigned how)
{
	const struct flow_insn *fi;
	struct flow_block *b;
	uint32_t i, f;
	int exec = !!(how & ETM2_X_EXEC);
	uint8_t flags;

	if (how & ETM2_X_GROUP)
		d->grp_known = 0;
	if (d->pos == POS_NONE) {
		lose_status(d, offset);
		return 0;
	}
	if (d->pos == POS_ADDR && !resolve(d, offset)) {
		d->stats.statuses_lost++;
		return 0;
	}
	b = d->blk;
	i = d->idx;
	fi = &b->insn[i];
	f = fi->flags;
	if ((how & ETM2_X_PHANTOM) &&
	    (f & (INSN_F_BRANCH | INSN_F_INDIRECT)) != INSN_F_BRANCH) {
		/* A phantom is a folded direct branch (Q§6.1.2): the image
		 * has something else there. */
		flow_no_image(etm2_emit(d, etmkit_elem_no_image, offset),
			      fi->addr, b->isa, etmkit_loss_mismatch,
			      d->space);
		d->pos = POS_NONE;
		d->blk = NULL;
		d->link_from = NULL;
		d->waiting = 0;
		d->lost_reported = 1;
		d->stats.statuses_lost++;
		return 0;
	}
	flags = (uint8_t)(d->cache.insn_flags + !exec);
	if (how & ETM2_X_IMPLIED) {
		flags |= ETMKIT_INSN_IMPLIED;
		d->open = -1;
	}
	put_insn(d, fi, b->isa, offset, flags, cycles,
		 !exec || (f & (INSN_F_BRANCH | INSN_F_ISA_SWITCH)) ||
			 (how & (ETM2_X_GROUP | ETM2_X_IMPLIED)));
	if (exec) {
		d->last_valid = 1;
		d->last_insn = fi->addr;
	}
	if (how & ETM2_X_GROUP) {
		d->grp_known = 1;
		d->grp_exec = (uint8_t)exec;
		d->grp_isa = b->isa;
		d->grp_flags = f;
		d->grp_addr = fi->addr;
		d->grp_blk = b;
		d->grp_gen = flow_cache_generation(&d->cache);
	}
	advance(d, b, i, exec);
	return 1;
}

/* A status record (docs/etmv2.md 7): its instruction(s), and whose its
 * group is; with @hold, an ETMv1 BE/BD in synced trace waits for its
 * address instead (docs/etmv2.md 7b). */
static inline void status(struct etm2_flow_decoder *d,
			  const struct etm2_packet *p, int hold)
{
	unsigned st = p->status, how;
	uint32_t cycles = 0;

	d->grp = GRP_NONE;
	d->grp_known = 0;
	switch (st) {
	case etm2_st_ie:
		how = ETM2_X_EXEC;
		break;
	case etm2_st_in:
		how = 0;
		break;
	case etm2_st_be: /* ETMv1: branch executed, address follows (once
			    its address said it was one: etm1_flow.c) */
	case etm2_st_bd:
		if (hold && d->synced && d->info.version == 1) {
			etm1_flow_hold(d, p);
			return;
		}
		/* fall through */
	case etm2_st_de:
	case etm2_st_id: /* ETMv1: executed, data (Q§5.1) */
		how = ETM2_X_EXEC | ETM2_X_GROUP;
		break;
	case etm2_st_dn:
		how = ETM2_X_GROUP;
		break;
	case etm2_st_dw:
		d->grp = GRP_DW;
		return;
	case etm2_st_ptie:
	case etm2_st_ptde:
	case etm2_st_ptin:
	case etm2_st_ptdn:
	case etm2_st_pnie:
	case etm2_st_pnde:
	case etm2_st_pnin:
	case etm2_st_pndn:
		how = 0;
		break;
	default:
		return; /* WT, TD, TR: no instruction */
	}
	if (!d->synced) {
		d->stats.statuses_lost++;
		return;
	}
	if (d->info.cycle_accurate)
		cycles = etm2_cycles_at(d, p->cycle);
	if (st >= etm2_st_ptie && st <= etm2_st_pndn) {
		/* The folded branch, then the instruction after it, whose
		 * status is the IE, DE, IN or DN in the prefix's place
		 * (Q§6.1.2; enum order). */
		unsigned second = (st - etm2_st_ptie) & 3u;

		etm2_flow_insn(d, p->cycle, cycles,
			       ETM2_X_PHANTOM |
				       (st < etm2_st_pnie ? ETM2_X_EXEC : 0));
		cycles = 0;
		how = (second == etm2_st_ie || second == etm2_st_de ?
			       ETM2_X_EXEC : 0) |
		      (second == etm2_st_de || second == etm2_st_dn ?
			       ETM2_X_GROUP : 0);
	}
	if (how & ETM2_X_GROUP)
		d->grp = GRP_INSN;
	etm2_flow_insn(d, p->cycle, cycles, how);
}

void etm2_flow_status(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	status(d, p, 0);
}

/* A record the packet decoder rejected: trace is lost until the next
 * TFO. */
static void on_error(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	struct etmkit_elem *e = etm2_emit(d, etmkit_elem_gap, p->cycle);

	flow_packet_loss(e, p->error, p->why);
	if (p->error != -etmkit_err_truncated)
		d->stats.protocol_errors++;
	etm2_flow_forget(d);
}

static void on_record(struct etm2_flow_decoder *d, const struct etm2_packet *p)
{
	if (d->v1_pend && etm1_flow_held(d, p))
		return;
	if (p->error) {
		on_error(d, p);
		return;
	}
	switch (p->type) {
	case etm2_pkt_status:
		status(d, p, 1);
		break;
	case etm2_pkt_tfo:
		etm2_flow_tfo(d, p);
		break;
	case etm2_pkt_trigger:
		etm2_emit(d, etmkit_elem_trigger, p->cycle);
		break;
	case etm2_pkt_branch_address:
		if (d->info.version == 1)
			etm1_flow_branch(d, p);
		else if (d->synced)
			etm2_flow_branch(d, p);
		break;
	case etm2_pkt_normal_data:
	case etm2_pkt_value_not_traced:
	case etm2_pkt_load_miss:
	case etm2_pkt_load_miss_data:
		if (d->synced)
			etm2_flow_data(d, p);
		break;
	case etm2_pkt_context_id:
		if (d->info.version == 1)
			etm1_flow_context(d, p);
		else if (d->synced)
			etm2_flow_context(d, p->u.context_id, p->cycle);
		break;
	default:
		break; /* unsynced and wait runs: nothing executed */
	}
}

/* ---- Driving ------------------------------------------------------------ */

static int refill(struct etm2_flow_decoder *d)
{
	int r;

	if (d->recs || d->nrecs) {
		/* Read in place: up to INT_MAX at once (the batch count). */
		size_t k = d->nrecs < 0x40000000u ? d->nrecs : 0x40000000u;

		d->cur = d->recs;
		d->recs += k;
		d->nrecs -= k;
		r = k ? (int)k : -etmkit_err_eos;
	} else {
		d->cur = d->batch;
		r = etm2_pkt_next(d->pkt, d->batch, ETM2_BATCH);
	}
	return flow_drive_refilled(&d->drv, r);
}

/* The common case, read without a call per record: IE statuses (not
 * cycle-accurate) at @p[0..avail) while the walk stands inside a block
 * before its last instruction, so that each executes the next of the
 * block, which is no branch (blocks end at branches: block.h). Delivers
 * them as etm2_flow_insn() would, as many as the queue has room for
 * (ranges: one range). Returns how many records it took (0: none). */
static size_t ie_run(struct etm2_flow_decoder *d, const struct etm2_packet *p,
		     size_t avail)
{
	const struct flow_block *b = d->blk;
	uint32_t i = d->idx, k = 0, max = (uint32_t)(b->n - 1 - i);
	const struct flow_insn *fi;
	struct etmkit_elem *e;

	if (avail < max)
		max = (uint32_t)avail;
	if (!d->ranges && max > ETM2_QUEUE - ETM2_REC_ELEMS - d->n)
		max = (uint32_t)(ETM2_QUEUE - ETM2_REC_ELEMS - d->n);
	while (k < max && p[k].type == etm2_pkt_status &&
	       p[k].status == etm2_st_ie && !p[k].error)
		k++;
	if (!k)
		return 0;
	if (!d->ranges) {
		e = &d->q[d->n];
		for (uint32_t j = 0; j < k; j++, e++) {
			memcpy(&e->addr, &b->insn[i + j], 24);
			e->offset = p[j].cycle;
			e->cycles = 0;
		}
		d->n += k;
	} else {
		/* The first through put_insn() (a new range or not), the
		 * rest extend it: each is the next, executed. */
		fi = &b->insn[i];
		put_insn(d, fi, b->isa, p[0].cycle, d->cache.insn_flags, 0, 0);
		d->stats.insns--;
		e = &d->q[d->open];
		e->u.range.count += k - 1;
		fi = &b->insn[i + k - 1];
		e->size = fi->head[2];
		e->u.range.opcode = fi->opcode;
		e->u.range.class_flags = fi->flags;
		e->u.range.end = fi->addr + fi->head[2];
	}
	d->stats.insns += k;
	d->last_valid = 1;
	d->last_insn = b->insn[i + k - 1].addr;
	d->idx = i + k;
	d->grp = GRP_NONE;
	d->grp_known = 0;
	return k;
}

/* Decode into the queue until it is full or the input is used up. */
static void decode(struct etm2_flow_decoder *d)
{
	d->drv.full = 1;
	if (d->drv.gap_pending) {
		struct etmkit_elem *e;

		if (ETM2_QUEUE - d->n < ETM2_ROOM)
			return;
		if (d->v1_pend)
			etm1_flow_release(d);
		e = etm2_emit(d, etmkit_elem_gap, d->drv.gap_offset);
		flow_drive_gap_elem(&d->drv, e);
		etm2_flow_forget(d);
	}
	for (;;) {
		if (d->drv.ibatch >= d->drv.nbatch &&
		    (d->drv.stopped || !refill(d))) {
			if (d->v1_pend && d->drv.finishing) {
				/* the end: its address never came */
				if (ETM2_QUEUE - d->n < ETM1_HELD_ELEMS)
					return;
				etm1_flow_release(d);
			}
			d->drv.full = 0;
			return;
		}
		if (ETM2_QUEUE - d->n < ETM2_ROOM)
			return;
		if (d->pos == POS_BLOCK && !d->info.cycle_accurate &&
		    !d->no_fast && !d->v1_pend) {
			size_t k = ie_run(d, d->cur + d->drv.ibatch,
					  (size_t)(d->drv.nbatch -
						   d->drv.ibatch));

			if (k) {
				d->drv.ibatch += (int)k;
				d->stats.packets += k;
				continue;
			}
		}
		on_record(d, &d->cur[d->drv.ibatch++]);
		d->stats.packets++;
	}
}

/* Forget the elements the last batch handed out. */
static void drop_delivered(struct etm2_flow_decoder *d)
{
	size_t k = flow_queue_move(&d->q, d->q, &d->n, &d->delivered);

	if (d->open >= 0)
		d->open = d->open >= (long)k ? d->open - (long)k : -1;
}

int etm2_flow_batch(struct etm2_flow_decoder *d,
		    const struct etmkit_elem **elems)
{
	if (!d || !elems)
		return -etmkit_err_invalid;
	drop_delivered(d);
	flow_cache_sync(&d->cache);
	decode(d);
	d->stats.blocks = d->cache.blocks - d->blocks_base;
	d->stats.cache_flushes = d->cache.flushes - d->flushes_base;
	d->delivered = d->n;
	/* The open range waits for the next instruction, which may extend
	 * it, until the end of the trace: so that the ranges do not depend
	 * on how the input was fed. */
	if (d->open >= 0 && d->open == (long)d->n - 1 &&
	    !(d->drv.finishing && !d->drv.full))
		d->delivered = d->n - 1;
	*elems = d->q;
	if (!d->delivered)
		return d->drv.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)d->delivered;
}

static int batch_of(void *d, const struct etmkit_elem **elems)
{
	return etm2_flow_batch(d, elems);
}

int etm2_flow_next(struct etm2_flow_decoder *d, struct etmkit_elem *elems,
		   size_t max)
{
	return d ? flow_drive_next(&d->drv, d, batch_of, elems, max) :
		   -etmkit_err_invalid;
}

/* flow_driver.h's FLOW_DRIVE_API, for cycles in place of bytes. */
int etm2_flow_feed(struct etm2_flow_decoder *d,
		   const struct etm2_cycle *cycles, size_t n, uint64_t first)
{
	int err;

	if (!d || flow_drive_busy(&d->drv))
		return -etmkit_err_invalid;
	err = etm2_pkt_feed(d->pkt, cycles, n, first);
	if (!err) {
		flow_drive_fed(&d->drv, n, NULL, first);
		d->stats.cycles += n;
	}
	return err;
}

int etm2_flow_feed_records(struct etm2_flow_decoder *d,
			   const struct etm2_packet *recs, size_t n)
{
	if (!d || flow_drive_busy(&d->drv) || (n && !recs))
		return -etmkit_err_invalid;
	d->recs = recs;
	d->nrecs = n;
	d->drv.eos = 0;
	if (n)
		d->drv.fed_end = recs[n - 1].cycle + 1;
	return 0;
}

int etm2_flow_finish(struct etm2_flow_decoder *d)
{
	if (!d)
		return -etmkit_err_invalid;
	flow_drive_finish(&d->drv);
	return etm2_pkt_finish(d->pkt);
}

int etm2_flow_gap(struct etm2_flow_decoder *d)
{
	struct etm2_packet cut;
	int err;

	if (!d || flow_drive_busy(&d->drv))
		return -etmkit_err_invalid;
	err = etm2_pkt_gap(d->pkt);
	if (err)
		return err;
	memset(&cut, 0, sizeof(cut));
	if (etm2_pkt_next(d->pkt, &cut, 1) != 1)
		cut.error = 0;
	flow_drive_gap(&d->drv, cut.error, cut.cycle, cut.why);
	return 0;
}
