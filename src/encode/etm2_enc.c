/* ETMv2 trace encoder: execution record items to the cycles an ETMv2 trace
 * port would show for them (ARM IHI 0014Q chapter 6; the protocol as
 * docs/etmv2.md fixes it, which the decoder follows too).
 *
 * The pipeline model: one status per instruction cycle, its EXEC_F_CYCLES
 * count n after the status before it (an instruction's, or a TFO's first
 * cycle), a TFO's or DW cycle's among the n - 1 (docs/etmv2.md 7a); the
 * packets an instruction makes (data, a branch address) are its cycle's
 * group in the FIFO (etm2_enc_port.c), which the port drains a byte, two
 * bytes or a nibble a cycle. An instruction is held until the next item shows that
 * its data transfers are complete (and, with ETM2_ENC_PHANTOMS, a folded
 * direct branch until the instruction it executes with). Context changes
 * and exception entries place their packets in a DW cycle before the next
 * instruction; a load miss's data comes in the group of the next cycle
 * that places one. A group that does not fit in the FIFO overflows:
 * tracing stops until the FIFO has drained, and a TFO of reason overflow
 * restarts it at the next instruction.
 */
#include "etm2_enc_internal.h"
#include "packets/etmv2/etm2_names.h"

/* ---- Set-up ------------------------------------------------------------- */

void etm2_enc_config_init(struct etm2_enc_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	etm2_config_init(&cfg->etm);
}

/* The raw PIPESTAT code of each status: the first code the table maps to
 * it. Every status the encoder writes (IE to PNDN) has one. ETMv1's
 * table is fixed (Q Table 5.1; docs/etmv2.md 2): IE ID IN WT BE BD TR
 * TD. */
static int status_codes(struct etm2_enc *e, const struct etm2_config *c,
			unsigned version)
{
	memset(e->code, 0xff, sizeof(e->code));
	if (version == 1) {
		for (unsigned i = 0; i < 8; i++)
			e->code[etm2_pipestat_v1[i]] = (uint8_t)i;
		return 0;
	}
	for (unsigned i = 16; i-- > 0;)
		if (c->pipestat[i] < etm2_st_count)
			e->code[c->pipestat[i]] = (uint8_t)i;
	for (unsigned s = etm2_st_ie; s <= etm2_st_pndn; s++)
		if (e->code[s] == 0xff)
			return -etmkit_err_bad_config;
	return 0;
}

/* ETMv1 (docs/etmv2.md 7b): no 16-bit port (its TRACESYNC rules are
 * lost), FIFO latency 1 (a branch's first byte never leaves in its own
 * cycle, where no APO counts it), no phantoms, no load misses. */
static int v1_config_ok(const struct etm2_enc_config *cfg,
			const struct etm2_config_info *info)
{
	return info->port_width != 16 && cfg->etm.fifo_latency == 1 &&
	       !(cfg->flags & ETM2_ENC_PHANTOMS) && !cfg->miss_every;
}

int etm2_enc_alloc(struct etm2_enc **out, const struct etm2_enc_config *cfg,
		   etm2_cycle_sink_fn sink, void *ctx)
{
	struct etm2_config_info info;
	struct etm2_enc *e;
	int err;

	if (!out || !cfg || !sink || cfg->size < sizeof(*cfg) ||
	    (cfg->flags & ~ETM2_ENC_PHANTOMS))
		return -etmkit_err_invalid;
	*out = NULL;
	err = etm2_config_decode(&cfg->etm, &info);
	if (err)
		return err;
	if ((info.version == 1 && !v1_config_ok(cfg, &info)) ||
	    cfg->etm.port_mode != etm2_port_normal ||
	    cfg->fifo_depth > E2_FIFO_MAX ||
	    (cfg->fifo_depth && cfg->fifo_depth < 16))
		return -etmkit_err_bad_config;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -etmkit_err_nomem;
	err = status_codes(e, &cfg->etm, info.version);
	e->depth = cfg->fifo_depth ? cfg->fifo_depth : E2_FIFO_DEFAULT;
	e->fifo = malloc(e->depth);
	if (info.version == 1)
		e->mark = calloc(e->depth, 1);
	if (err || !e->fifo || (info.version == 1 && !e->mark)) {
		free(e->mark);
		free(e->fifo);
		free(e);
		return err ? err : -etmkit_err_nomem;
	}
	e->info = info;
	e->tfo = cfg->etm.tfo;
	e->latency = cfg->etm.fifo_latency;
	e->phantoms = !!(cfg->flags & ETM2_ENC_PHANTOMS);
	e->sync_period = cfg->sync_period ? cfg->sync_period : E2_SYNC_DEFAULT;
	/* Load misses carry a value: with value tracing only. */
	e->miss_every = info.data_value ? cfg->miss_every : 0;
	e->sink = sink;
	e->ctx = ctx;
	e->need_tfo = 1;
	e->tfo_reason = etm2_reason_trace_on;
	e->ref_isa = etmkit_isa_unknown;
	*out = e;
	return 0;
}

void etm2_enc_free(struct etm2_enc *e)
{
	if (!e)
		return;
	free(e->mark);
	free(e->fifo);
	free(e);
}

const struct etm2_enc_stats *etm2_enc_get_stats(const struct etm2_enc *e)
{
	return e ? &e->st : NULL;
}

/* ---- Groups (docs/etmv2.md 4; Q§6.4, Table 6.2) --------------------------- */

/* A new packet's header: C = 1 on the packet before it (Q§6.4.1). */
static void g_hdr(struct e2_group *g, struct e2_refs *rf, uint8_t h)
{
	if (rf->hdr >= 0)
		g->b[rf->hdr] |= 0x80;
	rf->hdr = (int)g->n;
	g->b[g->n++] = h;
}

/* SS of Table 6.3: 0, 1, 2 or 4 value bytes. */
static unsigned ss_of(uint32_t v)
{
	return v == 0 ? 0 : v < 0x100 ? 1 : v < 0x10000 ? 2 : 3;
}

static unsigned ss_bytes(unsigned ss)
{
	return ss == 3 ? 4 : ss;
}

/* Normal data `C0A0SS10`: [address if A and ETMCR[3]], [value if
 * ETMCR[2]]. */
static void g_normal(struct etm2_enc *e, struct e2_group *g,
		     struct e2_refs *rf, int a, uint32_t addr, uint32_t value)
{
	unsigned ss = e->info.data_value ? ss_of(value) : 0;

	g_hdr(g, rf, (uint8_t)(0x02 | (a ? 0x20 : 0) | ss << 2));
	if (a && e->info.data_addr)
		e2_g_daddr(g, rf, addr);
	e2_g_le(g, value, ss_bytes(ss));
}

/* Load miss data `CTT0SS00` and its value. */
static void g_miss_data(struct e2_group *g, struct e2_refs *rf,
			const struct e2_miss *m)
{
	unsigned ss = ss_of((uint32_t)m->value);

	g_hdr(g, rf, (uint8_t)(m->tag << 5 | ss << 2));
	e2_g_le(g, m->value, ss_bytes(ss));
}

static void g_misses(struct etm2_enc *e, struct e2_group *g,
		     struct e2_refs *rf)
{
	for (unsigned i = 0; i < e->nmiss; i++)
		g_miss_data(g, rf, &e->miss[i]);
}

/* Whether the instruction's one transfer is the miss_every-th load. */
static int is_miss(struct etm2_enc *e, const struct e2_insn *x,
		   const struct e2_refs *rf)
{
	if (!e->miss_every || x->nx != 1 || x->x[0].store ||
	    x->x[0].size > 4 || e->nmiss + rf->nnew >= 4)
		return 0;
	return ++e->loads % e->miss_every == 0;
}

/* An instruction's transfers (docs/etmv2.md 4 and 7): A on the first; a
 * doubleword as two packets, low word first; a load miss as "occurred"
 * `C1A1TT00` [address], its data later. */
static void g_xfers(struct etm2_enc *e, struct e2_group *g,
		    struct e2_refs *rf, const struct e2_insn *x)
{
	if (!e->info.data_addr && !e->info.data_value)
		return;
	if (is_miss(e, x, rf)) {
		struct e2_miss *m = &rf->miss[rf->nnew++];

		m->tag = e->next_tag;
		m->value = x->x[0].value;
		m->size = x->x[0].size;
		e->next_tag = (uint8_t)((e->next_tag + 1) & 3);
		g_hdr(g, rf, (uint8_t)(0x70 | m->tag << 2));
		if (e->info.data_addr)
			e2_g_daddr(g, rf, x->x[0].addr);
		return;
	}
	for (unsigned i = 0; i < x->nx; i++) {
		const struct e2_xfer *t = &x->x[i];

		g_normal(e, g, rf, i == 0, t->addr, (uint32_t)t->value);
		if (t->size == 8)
			g_normal(e, g, rf, 0, 0, (uint32_t)(t->value >> 32));
	}
}

/* A branch address, the last packet of its group (docs/etmv2.md 4). */
static void g_branch(struct etm2_enc *e, struct e2_group *g,
		     struct e2_refs *rf, uint32_t addr, uint8_t isa,
		     uint8_t cur_isa)
{
	int need5 = isa != e->ref_isa || isa != cur_isa;

	if (rf->hdr >= 0)
		g->b[rf->hdr] |= 0x80;
	rf->hdr = -1;
	g->n += enc_branch_addr(g->b + g->n, addr, isa, e->ref_addr, need5,
				1, 0, 0);
}

/* ---- Trace stops and restarts ------------------------------------------- */

/* A group did not fit: tracing stops until the FIFO has drained; what
 * was waiting to be traced is lost. */
void e2_overflow(struct etm2_enc *e, unsigned insns)
{
	e->ovf = 1;
	e->st.overflows++;
	e->st.insns_lost += insns;
	e->nmiss = 0;
	e->exc_pending = 0;
	e2_idle(e);
}

/* Load miss data still owed, in a DW cycle of its own (before trace
 * stops). */
static void flush_misses(struct etm2_enc *e)
{
	struct e2_group g;
	struct e2_refs rf;

	if (!e->nmiss || e->need_tfo || e->ovf)
		return;
	g.n = 0;
	e2_refs_init(e, &rf);
	g_misses(e, &g, &rf);
	if (!e2_fits(e, g.n)) {
		e2_overflow(e, 0);
		return;
	}
	e2_cycle(e, etm2_st_dw, &g);
	e2_refs_commit(e, &rf);
}

/* ---- Instructions -------------------------------------------------------- */

void e2_idle_n(struct etm2_enc *e, uint32_t n)
{
	while (n--)
		e2_idle(e);
}

/* Before instruction @first: the TFO it needs, or the DW cycle of an
 * exception entry (a branch address to the handler) or a context change
 * (a context ID packet), which carries load miss data owed. Returns 0,
 * or 1 when trace is stopped by an overflow. */
static int before(struct etm2_enc *e, const struct e2_insn *first)
{
	struct e2_group g;
	struct e2_refs rf;
	int cid = e->cid_dirty && e->info.context_id_bytes;

	if (!e->need_tfo && !e->exc_pending &&
	    (!e->exp_valid || e->exp_addr != first->addr ||
	     e->exp_isa != first->isa)) {
		/* The record went on where the walk does not: a trace-on
		 * TFO says where. */
		flush_misses(e);
		if (e->ovf)
			return 1;
		e->need_tfo = 1;
		e->tfo_reason = etm2_reason_trace_on;
	}
	if (e->need_tfo) {
		e2_drain(e);
		e2_tfo(e, e->tfo_reason, first->addr, first->isa);
		e->need_tfo = 0;
		e->exc_pending = 0;
		e->nmiss = 0;
		return 0;
	}
	if (!e->exc_pending && !cid)
		return 0;
	g.n = 0;
	e2_refs_init(e, &rf);
	g_misses(e, &g, &rf);
	if (cid) {
		g_hdr(&g, &rf, 0x6e);
		e2_g_le(&g, e->cid, e->info.context_id_bytes);
	}
	if (e->exc_pending)
		g_branch(e, &g, &rf, first->addr, first->isa, first->isa);
	if (!e2_fits(e, g.n)) {
		e2_overflow(e, 0);
		return 1;
	}
	e2_cycle(e, etm2_st_dw, &g);
	e2_refs_commit(e, &rf);
	if (e->exc_pending) {
		e->ref_addr = first->addr;
		e->ref_isa = first->isa;
	}
	e->exc_pending = 0;
	e->cid_dirty = 0;
	return 0;
}

/* Instruction @x, after the phantom branch @p when not NULL (Q§6.1.2):
 * its wait cycles, what it needs before it, its status and group. */
static void emit(struct etm2_enc *e, const struct e2_insn *p,
		 const struct e2_insn *x)
{
	const struct e2_insn *first = p ? p : x;
	unsigned n = p ? 2 : 1, st;
	struct e2_group g;
	struct e2_refs rf;

	/* Cycles since the last status (docs/etmv2.md 7): the record's
	 * count includes the cycles a TFO or a DW cycle takes before it. */
	uint64_t want = 1u + (p ? p->extra : 0) + x->extra;
	int idled = 0;

	if (e->info.version == 1) {
		e1_emit(e, x); /* never a phantom pair: no phantoms */
		return;
	}
	if (e->ovf) {
		/* Waiting for the FIFO to drain: every cycle counts. */
		e2_idle_n(e, (uint32_t)(want - 1));
		idled = 1;
		if (e->count) {
			e->st.insns_lost += n;
			e2_idle(e);
			return;
		}
		e->ovf = 0;
		e->need_tfo = 1;
		e->tfo_reason = etm2_reason_overflow;
	}
	if (before(e, first)) {
		e->st.insns_lost += n;
		return;
	}
	while (!idled && e->st.cycles - e->last_status < want)
		e2_idle(e);
	g.n = 0;
	e2_refs_init(e, &rf);
	g_misses(e, &g, &rf);
	if (x->exec)
		g_xfers(e, &g, &rf, x);
	if (x->exec && x->taken &&
	    (x->indirect || e->info.branch_output || x->tisa != x->isa))
		g_branch(e, &g, &rf, x->target, x->tisa, x->isa);
	st = (x->exec ? 0u : 2u) + (g.n ? 1u : 0u);
	if (p)
		st += p->taken ? etm2_st_ptie : etm2_st_pnie;
	if (st == etm2_st_ie && e->since_tfo >= e->sync_period && !e->half &&
	    e->count <= 127 && e2_fits(e, E2_TFO_MAX) &&
	    (!e->info.cycle_accurate || e->info.port_width != 4 ||
	     e->next_waits)) {
		/* A periodic TFO replaces the IE of the instruction at its
		 * address (Q§6.5.1; docs/etmv2.md 6). Cycle-accurate on a
		 * 4-bit port its second cycle is one before the next
		 * instruction (docs/etmv2.md 7a): only when that one waits. */
		e2_tfo(e, etm2_reason_periodic, x->addr, x->isa);
		e->st.insns++;
		e2_walk_past(e, x);
		return;
	}
	if (!e2_fits(e, g.n)) {
		e2_overflow(e, n);
		return;
	}
	e->last_status = e->st.cycles;
	e2_cycle(e, st, &g);
	e2_refs_commit(e, &rf);
	if (rf.hdr < 0 && g.n) {
		/* It ended with a branch address. */
		e->ref_addr = x->target;
		e->ref_isa = x->tisa;
	}
	e->st.insns += n;
	e2_walk_past(e, x);
}

/* Whether @x is where the walk goes after @p: a phantom pair is a
 * branch and the instruction it leads to. */
static int follows(const struct e2_insn *p, const struct e2_insn *x)
{
	uint32_t next = p->taken ? p->target : p->addr + p->size;

	return x->addr == next && x->isa == (p->taken ? p->tisa : p->next_isa);
}

/* The instruction waiting for its data is complete: emit it, fold it
 * with the phantom branch before it, or keep it as one. */
static void take_pend(struct etm2_enc *e)
{
	if (!e->has_pend)
		return;
	e->has_pend = 0;
	if (e->has_ph && !follows(&e->ph, &e->pend)) {
		e->has_ph = 0;
		emit(e, NULL, &e->ph);
	}
	if (e->has_ph) {
		e->has_ph = 0;
		emit(e, &e->ph, &e->pend);
	} else if (e->pend.foldable) {
		memcpy(&e->ph, &e->pend, offsetof(struct e2_insn, x));
		e->ph.nx = 0;
		e->has_ph = 1;
	} else {
		emit(e, NULL, &e->pend);
	}
}

/* Everything before the next item is emitted. */
static void settle(struct etm2_enc *e)
{
	take_pend(e);
	if (e->has_ph) {
		e->has_ph = 0;
		emit(e, NULL, &e->ph);
	}
}

/* ---- Items ---------------------------------------------------------------- */

static int isa_ok(uint8_t isa)
{
	return isa == etmkit_isa_arm || isa == etmkit_isa_thumb;
}

static int put_insn(struct etm2_enc *e, const struct exec_rec *r)
{
	int fail = (r->flags & EXEC_F_COND_FAIL) ||
		   ((r->flags & EXEC_F_BRANCH) && !(r->flags & EXEC_F_TAKEN));
	int taken = !fail && (r->flags & EXEC_F_BRANCH);
	uint8_t tisa = r->target_isa ? r->target_isa : r->isa;
	struct e2_insn *x;

	if (!isa_ok(r->isa) || !r->size || r->addr > 0xffffffffu ||
	    (taken && (!isa_ok(tisa) || r->target > 0xffffffffu)))
		return -etmkit_err_invalid;
	e->next_waits = (r->flags & EXEC_F_CYCLES) && r->cycles > 1;
	take_pend(e);
	e->next_waits = 0;
	x = &e->pend;
	x->addr = (uint32_t)r->addr;
	x->isa = r->isa;
	x->size = r->size;
	x->next_isa = r->isa;
	x->exec = !fail;
	x->taken = (uint8_t)taken;
	x->indirect = !!(r->flags & EXEC_F_INDIRECT);
	x->target = taken ? (uint32_t)r->target : 0;
	x->tisa = taken ? tisa : r->isa;
	x->extra = (r->flags & EXEC_F_CYCLES) && r->cycles > 1 ? r->cycles - 1
							       : 0;
	x->nx = 0;
	/* A direct branch without link that places no packet can be folded
	 * with the instruction after it (Q§6.1.2). */
	x->foldable = e->phantoms && (r->flags & EXEC_F_BRANCH) &&
		      !x->indirect && x->tisa == x->isa &&
		      !e->info.branch_output &&
		      !(enc_insn_flags(r) & INSN_F_CALL);
	e->has_pend = 1;
	return 0;
}

static int put_data(struct etm2_enc *e, const struct exec_rec *r)
{
	struct e2_xfer *t;

	if (!e->has_pend || !e->pend.exec || e->pend.nx == E2_MAX_XFERS)
		return 0;
	if (e->info.version == 1 && e1_check_data(e, r))
		return -etmkit_err_unsupported;
	e->pend.foldable = 0;
	t = &e->pend.x[e->pend.nx++];
	t->addr = (uint32_t)r->addr;
	t->value = r->value;
	t->size = r->size;
	t->store = !!(r->flags & EXEC_D_STORE);
	return 0;
}

/* Execution went on untraced (docs/etmv2.md 3): the FIFO drains (WT),
 * then TD for the rest of the gap (its cycles, at least one); a trace-on
 * TFO restarts at the next instruction (of reason overflow when trace
 * had stopped on an overflow: what was lost is still to be said). */
static void put_gap(struct etm2_enc *e, const struct exec_rec *r)
{
	uint32_t n = (r->flags & EXEC_F_CYCLES) && r->cycles ? r->cycles : 1;

	settle(e);
	flush_misses(e);
	e->trace_off = 1;
	e2_idle_n(e, n);
	e2_drain(e);
	e->trace_off = 0;
	e->tfo_reason = e->ovf || (e->need_tfo &&
				   e->tfo_reason == etm2_reason_overflow)
			? etm2_reason_overflow : etm2_reason_trace_on;
	e->ovf = 0;
	e->exc_pending = 0;
	e->nmiss = 0;
	e->need_tfo = 1;
}

int etm2_enc_put(struct etm2_enc *e, const struct exec_rec *r)
{
	int err = 0;

	if (!e || !r)
		return -etmkit_err_invalid;
	if (e->err)
		return e->err;
	if (e->finished)
		return -etmkit_err_invalid;
	switch (r->kind) {
	case exec_insn:
		err = put_insn(e, r);
		break;
	case exec_data:
		err = put_data(e, r);
		break;
	case exec_exception:
		if (r->number >= exec_exc_count)
			return -etmkit_err_invalid;
		settle(e);
		e->exc_pending = 1;
		break;
	case exec_gap:
		put_gap(e, r);
		break;
	case exec_context:
		settle(e);
		if ((r->flags & EXEC_CTX_CONTEXTID) &&
		    (uint32_t)r->value != e->cid) {
			e->cid = (uint32_t)r->value;
			e->cid_dirty = 1;
		}
		break;
	case exec_timestamp:
		break; /* ETMv2 has no timestamps */
	default:
		return -etmkit_err_invalid;
	}
	return err ? err : e->err;
}

int etm2_enc_finish(struct etm2_enc *e)
{
	if (!e)
		return -etmkit_err_invalid;
	if (!e->finished) {
		settle(e);
		flush_misses(e);
		e2_drain(e);
		e->finished = 1;
	}
	e2_flush(e);
	return e->err;
}
