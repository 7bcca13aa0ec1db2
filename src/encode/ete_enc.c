/* ETMv4/ETE trace encoder: execution record items in, the packets an
 * ETMv4 (IHI 0064) or ETE (Arm ARM D4, seed 002) trace unit would emit for
 * them out.
 *
 * The encoder keeps a model of what a decoder knows at each point of the
 * stream: the address history (digest 2.4), the running timestamp (5.3),
 * whether the last context packet said AArch64 (for 32-bit addresses,
 * 2.3), the context it was told (5.18), the number of uncommitted P0
 * elements (7.2), and where the program walk stands (the address the next
 * instruction is expected at, or unknown after an untraced indirect
 * branch). Every packet is chosen so that a decoder holding that model
 * reconstructs the record's instructions.
 *
 * Atoms are held back (up to ATOM_CAP) and packed, when another packet
 * must follow them, into the fewest atom packets (formats 1-6, digest
 * 5.14) by a short dynamic programme.
 *
 * With q_every, some runs of instructions go as Q elements (D4.3.5.4,
 * digest 5.17) instead of atoms: a Q is held open like the atoms, grows
 * over P0 instructions that are not branches, and is written at the
 * first taken branch, before a branch not taken (which gets its atom) or
 * before any other packet.
 *
 * Facts from the protocol digest (../shared/spec/etmv4-ete.md, cited as
 * "digest n.m") and seed 002 (Arm ARM D4.3).
 */
#include "ete_enc_internal.h"

/* ---- Items ------------------------------------------------------------------ */

/* Whether the instruction is a P0 instruction of the decoder's walk
 * (digest 8.1): its INSN_F_* among a branch, ISB, TSTART, WFI/WFE when
 * TRCIDR2.WFXMODE; 0 when it is not one. */
static uint32_t p0_flags(const struct ete_enc *e, const struct exec_rec *r)
{
	struct insn_info ii;
	uint8_t b[4];

	if (r->flags & EXEC_F_BRANCH)
		return INSN_F_BRANCH;
	if (r->isa == etmkit_isa_thumb && r->size == 4) {
		b[0] = (uint8_t)(r->opcode >> 16);
		b[1] = (uint8_t)(r->opcode >> 24);
		b[2] = (uint8_t)r->opcode;
		b[3] = (uint8_t)(r->opcode >> 8);
	} else {
		for (unsigned i = 0; i < 4; i++)
			b[i] = (uint8_t)(r->opcode >> (8 * i));
	}
	if (insn_decode(&ii, (enum etmkit_isa)r->isa, r->addr, b, r->size) < 0)
		return 0;
	return ii.flags & (INSN_F_BRANCH | INSN_F_ISB | INSN_F_TSTART |
			   (e->info.wfx_p0 ? INSN_F_WFX : 0));
}

static int put_insn(struct ete_enc *e, const struct exec_rec *r)
{
	uint8_t is = ete_is_of(r->isa);
	uint64_t n;
	uint32_t p0;
	int taken;

	if ((r->isa != etmkit_isa_a64 && r->isa != etmkit_isa_arm &&
	     r->isa != etmkit_isa_thumb) ||
	    (r->size != 4 && !(r->size == 2 && r->isa == etmkit_isa_thumb)) ||
	    (r->addr & (is ? 1u : 3u)))
		return -etmkit_err_invalid;
	e->st.insns++;
	if (r->flags & EXEC_F_CYCLES)
		e->cyc_total += r->cycles;
	e->want.sf = r->isa == etmkit_isa_a64;
	if (!e->started || !e->tracing) {
		/* Trace starts (D4.3.6.1): Trace On, then a Context and a
		 * Target Address ahead of the first P0 element (digest
		 * 5.4). */
		uint8_t on = 0x04;

		if (!e->started)
			ete_emit_sync(e);
		ete_flush_atoms(e);
		put_bytes(e, &on, 1);
		e->tracing = 1;
		ete_emit_context_address(e, r->addr, is);
		if (e->ts_pending) {
			ete_emit_timestamp(e, e->ts_value);
			e->ts_pending = 0;
		}
	} else if (e->range_start &&
		   e->st.bytes - e->sync_mark >= e->sync_period) {
		/* Periodic resync where an atom's range starts, so that a
		 * decoder starting here misses nothing after it. */
		ete_emit_sync(e);
		ete_emit_context_address(e, r->addr, is);
	} else {
		int moved = !e->pc_known || e->pc != r->addr || e->isa != r->isa;

		if (moved && !e->range_start) {
			e->st.untraceable++;
			e->range_moved = 1;
		}
		if (ete_context_differs(e)) {
			if (!moved)
				ete_q_to_context(e, r);
			ete_flush_atoms(e);
			if (moved)
				ete_emit_context_address(e, r->addr, is);
			else
				ete_emit_context(e);
		} else if (moved) {
			ete_flush_atoms(e);
			ete_emit_address(e, r->addr, is);
		}
	}
	p0 = p0_flags(e, r);
	taken = (r->flags & EXEC_F_BRANCH) ? (r->flags & EXEC_F_TAKEN) != 0
					   : !(r->flags & EXEC_F_COND_FAIL);
	e->pc_known = 1;
	if (p0 && taken && (r->flags & EXEC_F_BRANCH)) {
		e->pc = r->target;
		e->isa = r->target_isa ? r->target_isa : r->isa;
		/* An indirect target comes as an address (with the return
		 * stack off; digest 7.7), every target with branch
		 * broadcast (digest 6.2, TRCCONFIGR.BB). */
		if ((r->flags & EXEC_F_INDIRECT) ||
		    (e->cfg.etm.trcconfigr & CFGR_BB))
			e->pc_known = 0;
	} else {
		e->pc = r->addr + r->size;
		e->isa = r->isa;
		if (r->flags & EXEC_F_ISA_SWITCH)
			e->pc_known = 0;
	}
	n = e->open_insns + 1; /* since the last P0 element */
	e->range_start = p0 != 0;
	e->open_insns = p0 ? 0 : e->open_insns + 1;
	if (p0) {
		if (!ete_trace_q(e, r, n, (p0 & INSN_F_BRANCH) != 0, taken))
			ete_trace_atom(e, (uint8_t)taken);
		e->range_moved = 0;
	}
	return e->err;
}

/* enum exec_exc to the exception packet's TYPE (digest 5.5). */
static const uint16_t exc_type[exec_exc_count] = {
	[exec_exc_reset] = 0x00,  /* PE reset */
	[exec_exc_undef] = 0x03,  /* trap: the UNDEFINED instruction */
	[exec_exc_call] = 0x02,   /* call */
	[exec_exc_pabort] = 0x0b, /* instruction fault */
	[exec_exc_dabort] = 0x0c, /* data fault */
	[exec_exc_irq] = 0x0e,
	[exec_exc_fiq] = 0x0f,
	[exec_exc_debug] = 0x06,  /* instruction debug: breakpoint, BRK */
};

static int put_exception(struct ete_enc *e, const struct exec_rec *r)
{
	uint8_t p[4];
	unsigned type, interp;
	int reset;

	if (r->number >= exec_exc_count)
		return -etmkit_err_invalid;
	if (!e->started || !e->tracing) {
		/* Taken in untraced code: nothing tells where. */
		e->st.untraceable++;
		return 0;
	}
	ete_flush_atoms(e);
	type = exc_type[r->number];
	reset = type == 0 && e->info.ete;
	/* E1:E0 = 0b10 when the decoder does not know where execution
	 * stands (after an untraced indirect branch): the return address
	 * is also the previous P0 element's target; else 0b01, the
	 * instructions up to the return address ran (digest 5.5). */
	interp = e->pc_known ? 1 : 2;
	if (e->pc_known && e->pc != r->addr)
		e->st.untraceable++; /* the walk cannot end at the address */
	ete_make_room(e, 1, 0);
	p[0] = (uint8_t)(0x06);
	p[1] = (uint8_t)((interp >> 1) << 6 | (type & 0x1f) << 1 | (interp & 1));
	if (type > 0x1f || reset) {
		/* ETE PE reset: three bytes (digest 5.5, U4); a 3-byte
		 * form is also what the C bit says. */
		p[1] |= 0x80;
		p[2] = (uint8_t)(type >> 5);
		put_bytes(e, p, 3);
	} else {
		put_bytes(e, p, 2);
	}
	if (!reset) /* ETE PE reset has no address (digest 5.5, U5) */
		ete_emit_address(e, r->addr, ete_is_of(e->isa));
	ete_cyc_push(e);
	if (e->maxspec)
		e->uncommitted++;
	else
		ete_cyc_committed(e, 1);
	e->st.p0++;
	ete_settle(e);
	/* The handler's first instruction comes as a Target Address. */
	e->pc = r->addr;
	e->pc_known = 0;
	e->range_start = 1;
	e->range_moved = 0;
	e->open_insns = 0; /* the exception's range ends at its address */
	return e->err;
}

int ete_put_item(struct ete_enc *e, const struct exec_rec *r)
{
	switch (r->kind) {
	case exec_insn:
		return put_insn(e, r);
	case exec_exception:
		return put_exception(e, r);
	case exec_gap:
		/* Instructions after the last P0 element are lost: trace
		 * stops before an atom could cover them. */
		e->st.untraceable += e->open_insns;
		e->open_insns = 0;
		ete_flush_atoms(e);
		e->tracing = 0;
		e->range_start = 1;
		e->range_moved = 0;
		return e->err;
	case exec_context:
		if (r->flags & EXEC_CTX_EL) {
			e->want.el = r->el & 3;
			e->want.ns = r->ns ? 1 : 0;
		}
		if (r->flags & EXEC_CTX_CONTEXTID)
			e->want.cid = (uint32_t)r->value;
		if (r->flags & EXEC_CTX_VMID)
			e->want.vmid = r->vmid;
		return 0;
	case exec_timestamp:
		if (!e->ts_on)
			return 0;
		if (!e->started || !e->tracing) {
			e->ts_pending = 1;
			e->ts_value = r->value;
			return 0;
		}
		ete_flush_atoms(e);
		ete_emit_timestamp(e, r->value);
		return e->err;
	case exec_data:
		return 0; /* data trace is not encoded: data items are ignored */
	}
	return -etmkit_err_invalid;
}

/* ---- API -------------------------------------------------------------------- */

void ete_enc_config_init(struct ete_enc_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm4_config_init(&cfg->etm);
	cfg->etm.flags = ETM4_CFG_ETE;
	cfg->etm.trcdevarch = 0x47705a13;
	cfg->etm.trcidr0 = 0x2801cea1;
	cfg->etm.trcidr1 = 0x4100fff0;
	cfg->etm.trcidr2 = 0xd0001088;
	cfg->el = 1;
	cfg->ns = 1;
}

int ete_enc_alloc(struct ete_enc **out, const struct ete_enc_config *cfg,
		  exec_sink_fn sink, void *sink_ctx)
{
	struct etm4_config_info info;
	struct ete_enc *e;
	uint32_t cr;
	int err;

	if (!out)
		return -etmkit_err_invalid;
	*out = NULL;
	if (!cfg || !sink || cfg->size < sizeof(*cfg) ||
	    cfg->etm.size < sizeof(cfg->etm) ||
	    (cfg->flags & ~ETE_ENC_NO_COMPRESS))
		return -etmkit_err_invalid;
	err = etm4_config_decode(&cfg->etm, &info);
	if (err)
		return err;
	cr = cfg->etm.trcconfigr;
	if (cr & (CFGR_RS | CFGR_INSTP0 | CFGR_DA | CFGR_DV) ||
	    ((cr & CFGR_CCI) && !info.commopt) ||
	    (!info.ete && (cr & CFGR_COND)))
		return -etmkit_err_unsupported;
	if (cfg->spec_depth > info.maxspec || cfg->cc_threshold > 4095 ||
	    ((cr & CFGR_CCI) && info.maxspec > 65536) ||
	    (cfg->mispredict_every && info.maxspec < 1) ||
	    (cfg->cancel_every && info.maxspec < 2))
		return -etmkit_err_bad_config;
	/* Q elements with instruction counts (digest 6, U13: the value
	 * meanings are UNCONFIRMED; OpenCSD reads QSUPP 0b01 as counted Q
	 * only and 0b11 as both, and TRCCONFIGR.QE 0b01 and 0b11 enable
	 * counted Q in the ETMv4 programmers' model: bit 0 set in both). */
	if (cfg->q_every &&
	    (!(IDR0_QSUPP(cfg->etm.trcidr0) & 1) || !(CFGR_QE(cr) & 1)))
		return -etmkit_err_bad_config;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -etmkit_err_nomem;
	e->out = malloc(OUT_CAP);
	if (!e->out) {
		free(e);
		return -etmkit_err_nomem;
	}
	if (cr & CFGR_CCI) {
		/* Every P0 element in flight: uncommitted, pending in
		 * atoms[], and the one being traced. */
		e->cyc_cap = info.maxspec + ATOM_CAP + 2;
		e->cyc_at = malloc(e->cyc_cap * sizeof(*e->cyc_at));
		if (!e->cyc_at) {
			free(e->out);
			free(e);
			return -etmkit_err_nomem;
		}
		e->cc_on = 1;
	}
	e->cfg = *cfg;
	e->cfg.size = sizeof(e->cfg);
	e->info = info;
	e->sink = sink;
	e->sink_ctx = sink_ctx;
	e->sync_period = cfg->sync_period ? cfg->sync_period : 4096;
	e->maxspec = info.maxspec;
	e->cap = cfg->spec_depth ? cfg->spec_depth : info.maxspec;
	e->cid_on = (cr & CFGR_CID) && info.cid_bytes;
	e->vmid_on = (cr & CFGR_VMID) && info.vmid_bytes;
	e->ts_on = (cr & CFGR_TS) && info.ts_bits;
	e->want.el = cfg->el & 3;
	e->want.ns = cfg->ns ? 1 : 0;
	e->want.vmid = cfg->vmid;
	e->want.cid = cfg->context_id;
	e->range_start = 1;
	*out = e;
	return 0;
}

void ete_enc_free(struct ete_enc *e)
{
	if (!e)
		return;
	free(e->cyc_at);
	free(e->out);
	free(e);
}

int ete_enc_put(struct ete_enc *e, const struct exec_rec *r)
{
	if (!e || !r || e->finished)
		return -etmkit_err_invalid;
	if (e->err)
		return e->err;
	return ete_put_item(e, r);
}

int ete_enc_finish(struct ete_enc *e)
{
	if (!e || e->finished)
		return -etmkit_err_invalid;
	e->finished = 1;
	if (e->err)
		return e->err;
	e->st.untraceable += e->open_insns;
	ete_flush_atoms(e);
	ete_commit(e, e->uncommitted);
	return flush_out(e);
}

int ete_enc_decoder_config(const struct ete_enc *e, struct etm4_config *out)
{
	if (!e || !out)
		return -etmkit_err_invalid;
	*out = e->cfg.etm;
	out->size = sizeof(*out);
	return 0;
}

const struct ete_enc_stats *ete_enc_get_stats(const struct ete_enc *e)
{
	return e ? &e->st : NULL;
}
