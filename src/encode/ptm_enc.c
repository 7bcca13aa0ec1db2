/* PTM trace encoder: execution record items to the byte stream a PTM
 * (Program Flow Trace, PFTv1.0 and PFTv1.1) would emit for them (ARM IHI
 * 0035B chapter 4; digest ptm.md).
 *
 * The encoder keeps what a trace unit keeps, and a model of what a
 * decoder knows: the atoms not yet packed, the address reference (the
 * last I-sync, branch address or waypoint update address with its
 * instruction set and state), the last timestamp, where the decoder's
 * walk stands and which instructions past its last waypoint no packet has
 * covered yet, the return stack, and the processor's context. Events
 * between instructions (a branch target, an exception, a context change,
 * a timestamp) are emitted when the next item shows where execution went
 * on, so that a branch packet carries the state its target runs in.
 *
 * Written from the specification's digest (shared/spec/ptm.md); it is the
 * inverse of src/packets/ptm and src/flow/ptm_flow*.c, tested by round
 * trips through them.
 */
#include "ptm_enc_internal.h"

/* ---- Set-up ------------------------------------------------------------- */

void ptm_enc_config_init(struct ptm_enc_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int ptm_enc_alloc(struct ptm_enc **out, const struct ptm_enc_config *cfg,
		  exec_sink_fn sink, void *sink_ctx)
{
	struct ptm_config pc;
	struct ptm_config_info info;
	struct ptm_enc *e;
	int err;

	if (!out || !cfg || !sink || cfg->size < sizeof(*cfg) || cfg->flags)
		return -etmkit_err_invalid;
	*out = NULL;
	ptm_config_init(&pc);
	pc.etmcr = cfg->etmcr;
	pc.etmidr = cfg->etmidr;
	pc.etmccer = cfg->etmccer;
	err = ptm_config_decode(&pc, &info);
	if (err)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -etmkit_err_nomem;
	e->info = info;
	/* ptm_config_decode() says where timestamps can appear; they are
	 * emitted where ETMCR[28] enables them. */
	e->info.timestamps = !!(cfg->etmcr & PTM_ETMCR_TIMESTAMP);
	e->sync_period = cfg->sync_period ? cfg->sync_period
					  : PENC_SYNC_DEFAULT;
	e->out.sink = sink;
	e->out.sink_ctx = sink_ctx;
	e->need_isync = 1;
	e->ref_isa = etmkit_isa_unknown;
	*out = e;
	return 0;
}

void ptm_enc_free(struct ptm_enc *e)
{
	free(e);
}

uint64_t ptm_enc_offset(const struct ptm_enc *e)
{
	return e ? e->out.total : 0;
}

/* ---- The walk ------------------------------------------------------------ */

/* The instructions walked past the last waypoint, covered by a waypoint
 * update to the last of them (4.5 "Waypoint update packet"), so that a
 * packet that does not move the walk (a context ID, an exception, an
 * I-sync) finds it where the record stands. The atoms go first: they
 * take the walk to the waypoint before. */
static void cover(struct ptm_enc *e)
{
	penc_flush_atoms(e);
	if (!e->uncovered)
		return;
	penc_wp_update(e, e->last_addr, e->last_isa);
	e->uncovered = 0;
}

static void rs_push(struct ptm_enc *e, uint32_t addr, uint8_t isa)
{
	if (e->nrs == PENC_RSTACK) {
		memmove(e->rs, e->rs + 1, sizeof(e->rs[0]) * (PENC_RSTACK - 1));
		e->nrs--;
	}
	e->rs[e->nrs].addr = addr;
	e->rs[e->nrs++].isa = isa;
}

/* The branch packet a taken branch is owed, after the atoms before it
 * (4.5.4: the packet is the branch's E atom). */
static void put_pending_branch(struct ptm_enc *e)
{
	if (!e->br_pending)
		return;
	penc_flush_atoms(e);
	penc_branch(e, e->br_addr, e->br_isa, 0, 0, e->br_cyc);
	e->br_pending = 0;
	if (e->excret_pending)
		penc_exc_return(e);
	e->excret_pending = 0;
}

/* Trace stops (a gap, the end): what was traced before is emitted, the
 * walk brought to the last instruction. */
static void put_stop(struct ptm_enc *e)
{
	if (e->need_isync)
		return;
	put_pending_branch(e);
	cover(e);
	if (e->excret_pending)
		penc_exc_return(e);
	e->excret_pending = 0;
}

/* An I-sync at @r (4.5.2) after what is pending; it empties a decoder's
 * return stack, and the model's. */
static void put_isync_at(struct ptm_enc *e, unsigned reason,
			 const struct exec_rec *r)
{
	penc_isync(e, reason, (uint32_t)r->addr, r->isa);
	e->nrs = 0;
	e->exp_valid = 1;
	e->exp_addr = (uint32_t)r->addr;
	e->exp_isa = r->isa;
}

/* Packets owed before instruction @r: sync, the last branch's address,
 * an exception, context and timestamp. */
static void before_insn(struct ptm_enc *e, const struct exec_rec *r)
{
	uint32_t addr = (uint32_t)r->addr;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;

	if (e->need_isync) {
		/* Trace starts at @r: an exception before it was not traced
		 * (its handler is where the I-sync points). */
		e->exc_pending = 0;
		if (!e->started) {
			penc_async(e);
			e->started = 1;
		}
		put_isync_at(e, ptm_reason_trace_on, r);
		e->need_isync = 0;
	} else {
		put_pending_branch(e);
		if (e->exc_pending) {
			/* The walk goes to the preferred return address; the
			 * handler runs with an empty model stack. */
			cover(e);
			penc_branch(e, addr, r->isa, 1, e->exc_kind, e->cyc);
			e->cyc = 0;
			e->exc_pending = 0;
			e->nrs = 0;
			e->exp_valid = 1;
			e->exp_addr = addr;
			e->exp_isa = r->isa;
		}
		if (e->out.total - e->sync_at >= e->sync_period) {
			cover(e);
			penc_async(e);
			put_isync_at(e, ptm_reason_periodic, r);
		} else if (e->pc.ns != e->ref_ns || hyp != e->ref_hyp ||
			   !e->exp_valid || e->exp_addr != addr ||
			   e->exp_isa != r->isa) {
			/* The security state changed without a branch, or the
			 * record went on elsewhere than the trace says: an
			 * I-sync states where and in which state. */
			cover(e);
			put_isync_at(e, ptm_reason_periodic, r);
		}
	}
	if ((e->pc.cid_dirty && e->info.context_id_bytes) ||
	    (e->pc.vmid_dirty && e->info.vmid) ||
	    (e->ts_pending && e->info.timestamps)) {
		cover(e);
		if (e->pc.cid_dirty && e->info.context_id_bytes)
			penc_context_id(e);
		if (e->pc.vmid_dirty && e->info.vmid)
			penc_vmid(e);
		if (e->ts_pending && e->info.timestamps) {
			penc_timestamp(e, e->ts, e->cyc);
			e->cyc = 0;
		}
	}
	e->pc.cid_dirty = e->pc.vmid_dirty = e->ts_pending = 0;
}

static int isa_ok(uint8_t isa)
{
	switch (isa) {
	case etmkit_isa_arm:
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		return 0;
	case etmkit_isa_jazelle: /* I-sync has no J bit (digest 4.2) */
	case etmkit_isa_a64:
	case etmkit_isa_reserved:
		return -etmkit_err_unsupported;
	default:
		return -etmkit_err_invalid;
	}
}

/* A waypoint (4.3): a branch, whether or not it was taken; ISB; DMB and
 * DSB when ETMCCER[24] says so. ENTERX and LEAVEX are none: the walk
 * changes the instruction set at them from their opcode (as
 * src/flow/ptm_flow.c walks them). */
static int is_waypoint(const struct ptm_enc *e, const struct exec_rec *r,
		       uint32_t iflags)
{
	return (r->flags & EXEC_F_BRANCH) || (iflags & INSN_F_ISB) ||
	       (e->info.dmb_waypoint && (iflags & INSN_F_BARRIER));
}

/* A taken branch: its atom, or the branch packet that stands for it
 * (pending until the next item), and the return stack. */
static void put_taken(struct ptm_enc *e, const struct exec_rec *r,
		      uint32_t iflags, uint32_t target, uint8_t tisa)
{
	int indirect = !!(r->flags & EXEC_F_INDIRECT);
	int packet = indirect || e->info.branch_broadcast || tisa != r->isa;

	if (packet && indirect && e->info.return_stack &&
	    !e->info.branch_broadcast && (iflags & INSN_F_RETURN) &&
	    !(iflags & INSN_F_CALL) && e->nrs &&
	    e->rs[e->nrs - 1].addr == target && e->rs[e->nrs - 1].isa == tisa) {
		/* The stack predicts it: the atom alone (ptm.h). */
		e->nrs--;
		packet = 0;
	}
	if (e->info.return_stack && (iflags & INSN_F_CALL))
		rs_push(e, (uint32_t)(r->addr + r->size), r->isa);
	if (packet) {
		e->br_pending = 1;
		e->br_addr = target;
		e->br_isa = tisa;
		e->br_cyc = e->cyc;
	} else {
		penc_atom(e, 0, e->cyc);
	}
	e->cyc = 0;
}

static int put_insn(struct ptm_enc *e, const struct exec_rec *r)
{
	/* N: a waypoint that failed its condition (4.3). A branch that did
	 * not write the PC failed it too, whether or not the record says so
	 * (as in etm3_enc.c). */
	int fail = (r->flags & EXEC_F_COND_FAIL) ||
		   ((r->flags & EXEC_F_BRANCH) && !(r->flags & EXEC_F_TAKEN));
	int taken = !fail && (r->flags & EXEC_F_BRANCH);
	uint8_t tisa = r->target_isa ? r->target_isa : r->isa;
	uint32_t iflags;
	int err = isa_ok(r->isa);

	if (err)
		return err;
	if (!r->size || r->addr > 0xffffffffu)
		return -etmkit_err_invalid;
	if (taken || ((r->flags & EXEC_F_ISA_SWITCH) && r->target_isa)) {
		err = isa_ok(tisa);
		if (err)
			return err;
		if (taken && r->target > 0xffffffffu)
			return -etmkit_err_invalid;
	}
	iflags = enc_insn_flags(r);
	before_insn(e, r);
	e->cyc += (r->flags & EXEC_F_CYCLES) ? r->cycles : 1;
	e->last_addr = (uint32_t)r->addr;
	e->last_isa = r->isa;
	e->exp_valid = 1;
	e->exp_addr = (uint32_t)(r->addr + r->size);
	e->exp_isa = (r->flags & EXEC_F_ISA_SWITCH) && r->target_isa ?
		     r->target_isa : r->isa;
	if (!is_waypoint(e, r, iflags)) {
		e->uncovered++;
		return 0;
	}
	e->uncovered = 0;
	if (taken) {
		e->exp_addr = (uint32_t)r->target;
		e->exp_isa = tisa;
		put_taken(e, r, iflags, e->exp_addr, tisa);
	} else {
		penc_atom(e, fail, e->cyc);
		e->cyc = 0;
	}
	/* 4.5 "Exception return packet": from PFTv1.1, after the waypoint
	 * of an exception return that executed. */
	if (!fail && (iflags & INSN_F_EXC_RETURN) && e->info.minor >= 1) {
		if (e->br_pending) {
			e->excret_pending = 1;
		} else {
			penc_flush_atoms(e);
			penc_exc_return(e);
		}
	}
	return 0;
}

/* Execution went on untraced: what was traced before it is emitted; an
 * exception just taken has no traced handler, so nothing says it; trace
 * restarts with an I-sync (reason "tracing enabled") carrying the gap's
 * length in cycles when the record gives it (0 otherwise). */
static void put_gap(struct ptm_enc *e, const struct exec_rec *r)
{
	put_stop(e);
	e->br_pending = 0;
	e->exc_pending = 0;
	e->need_isync = 1;
	e->exp_valid = 0;
	e->uncovered = 0;
	e->cyc = 0;
	e->gap_cycles = (r->flags & EXEC_F_CYCLES) ? r->cycles : 0;
}

int ptm_enc_put(struct ptm_enc *e, const struct exec_rec *r)
{
	int err = 0;

	if (!e || !r)
		return -etmkit_err_invalid;
	if (e->out.err)
		return e->out.err;
	if (e->finished)
		return -etmkit_err_invalid;
	switch (r->kind) {
	case exec_insn:
		err = put_insn(e, r);
		break;
	case exec_exception:
		if (r->number >= exec_exc_count)
			return -etmkit_err_invalid;
		/* Emitted with the handler's first instruction, or dropped
		 * by a gap. A second one before any instruction replaces the
		 * first, whose handler never ran. */
		e->exc_pending = 1;
		e->exc_kind = (uint8_t)r->number;
		break;
	case exec_gap:
		put_gap(e, r);
		break;
	case exec_context:
		enc_proc_take(&e->pc, r);
		break;
	case exec_timestamp:
		e->ts_pending = 1;
		e->ts = r->value;
		break;
	case exec_data:
		break; /* PTM traces no data */
	default:
		return -etmkit_err_invalid;
	}
	return err ? err : e->out.err;
}

int ptm_enc_finish(struct ptm_enc *e)
{
	if (!e)
		return -etmkit_err_invalid;
	if (e->out.err)
		return e->out.err;
	if (!e->finished)
		put_stop(e);
	e->finished = 1;
	enc_out_drain(&e->out);
	return e->out.err;
}
