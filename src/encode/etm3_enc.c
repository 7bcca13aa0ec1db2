/* ETMv3 trace encoder: execution record items to the byte stream an ETMv3
 * trace unit would emit for them (ARM IHI 0014Q chapter 7).
 *
 * The encoder keeps what a trace unit keeps: the atoms not yet packed
 * into P-headers, the compression references the decoder holds (the last
 * I-sync or branch address with its instruction set and state, the last
 * timestamp, the last data address), the loads whose values are still
 * out (out-of-order data, 7.4.3), and the processor's context. Events
 * between instructions (a branch target, an exception, a context change,
 * a timestamp) are emitted when the next item shows where execution went on, so that a
 * branch packet carries the state its target runs in.
 *
 * Written from the specification and the project's digest
 * (shared/spec/etmv3.md); it is the inverse of src/packets/etmv3 and
 * src/flow/etm3_flow.c, tested by round trips through them.
 */
#include "etm3_enc_internal.h"

/* ---- Set-up ------------------------------------------------------------- */

void etm3_enc_config_init(struct etm3_enc_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int etm3_enc_alloc(struct etm3_enc **out, const struct etm3_enc_config *cfg,
		   exec_sink_fn sink, void *sink_ctx)
{
	struct etm3_config ec;
	struct etm3_config_info info;
	struct etm3_enc *e;
	int err;

	if (!out || !cfg || !sink || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	*out = NULL;
	etm3_config_init(&ec);
	ec.etmcr = cfg->etmcr;
	ec.etmidr = cfg->etmidr;
	ec.etmccer = cfg->etmccer;
	ec.flags = cfg->flags & ~ETM3_ENC_OOO;
	err = etm3_config_decode(&ec, &info);
	if (err)
		return err;
	/* Data-only mode (7.10.5) and ARMv7-M exception numbering are not
	 * encoded. */
	if (info.data_only || info.m_profile)
		return -etmkit_err_unsupported;
	/* Out-of-order data carries a value (7.4.3): value tracing on. */
	if ((cfg->flags & ETM3_ENC_OOO) && !info.data_value)
		return -etmkit_err_bad_config;
	/* Timestamps need ETMv3.5 and ETMCCER[22] (7.7); VMID ETMv3.5. */
	if ((cfg->etmcr & ETM3_ETMCR_TIMESTAMP) && !info.timestamps)
		return -etmkit_err_bad_config;
	if ((cfg->etmcr & ETM3_ETMCR_VMID) && info.minor < 5)
		return -etmkit_err_bad_config;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -etmkit_err_nomem;
	e->info = info;
	if (!(cfg->etmcr & ETM3_ETMCR_TIMESTAMP))
		e->info.timestamps = 0;
	e->vmid_on = !!(cfg->etmcr & ETM3_ETMCR_VMID);
	e->branch_output = !!(cfg->etmcr & ETM3_ETMCR_BRANCH_OUTPUT);
	e->sync_period = cfg->sync_period ? cfg->sync_period : ENC_SYNC_DEFAULT;
	e->data_addr_on = info.data_addr;
	e->data_value_on = info.data_value;
	e->ooo_on = !!(cfg->flags & ETM3_ENC_OOO);
	e->ooo_delay = cfg->ooo_delay ? cfg->ooo_delay : 1;
	e->out.sink = sink;
	e->out.sink_ctx = sink_ctx;
	e->need_isync = 1;
	e->ref_isa = etmkit_isa_unknown;
	*out = e;
	return 0;
}

void etm3_enc_free(struct etm3_enc *e)
{
	free(e);
}

uint64_t etm3_enc_offset(const struct etm3_enc *e)
{
	return e ? e->out.total : 0;
}

/* ---- P-headers (IHI 0014Q 7.3.1) ----------------------------------------- */

struct ph_dp {
	uint8_t cost[ENC_PH_CAP + 1]; /* headers for atoms i..n, 0xff: none */
	uint8_t len[ENC_PH_CAP];      /* atoms of the first header from i */
	uint8_t hdr[ENC_PH_CAP];
};

/* A header of @len atoms that is @hdr could start at @i: keep it if it
 * needs fewer headers to the end, or as few with a longer first one. */
static void ph_try(struct ph_dp *d, unsigned i, unsigned len, uint8_t hdr)
{
	unsigned c = d->cost[i + len];

	if (c == 0xff)
		return;
	c++;
	if (c < d->cost[i] || (c == d->cost[i] && len > d->len[i])) {
		d->cost[i] = (uint8_t)c;
		d->len[i] = (uint8_t)len;
		d->hdr[i] = hdr;
	}
}

static int is_en(uint8_t a)
{
	return a == ENC_E || a == ENC_N;
}

/* Non-cycle-accurate headers at @i (Table 7.2): format 1 b1NEEEE00,
 * 0-15 E then 0-1 N; format 2 b1000FF10, two atoms, bit 3 the first,
 * 1 = N. */
static void ph_plain_at(struct ph_dp *d, const uint8_t *a, unsigned n,
			unsigned i)
{
	unsigned run = 0;

	while (i + run < n && a[i + run] == ENC_E)
		run++;
	for (unsigned k = 1; k <= run && k <= 15; k++)
		ph_try(d, i, k, (uint8_t)(0x80 | k << 2));
	if (run <= 15 && i + run < n) /* then a[i + run] is N */
		ph_try(d, i, run + 1, (uint8_t)(0xc0 | run << 2));
	if (i + 1 < n)
		ph_try(d, i, 2, (uint8_t)(0x82 | (a[i] == ENC_N) << 3 |
					 (a[i + 1] == ENC_N) << 2));
}

/* Cycle-accurate headers at @i (Table 7.3): format 1 b1N0EEE00, 0-7 WE
 * then 0-1 WN (not 0x80); format 2 b1000FF10, W then two atoms; format 3
 * b1E1WWW00, WWW+1 W then 0-1 E; format 4 b10010F10, one atom, ETMv3.3
 * and later. Format 0 (ETMv3.0's single W) is format 3 with one W. */
static void ph_ca_at(const struct etm3_enc *e, struct ph_dp *d,
		     const uint8_t *a, unsigned n, unsigned i)
{
	unsigned wrun = 0, k = 0;

	if (is_en(a[i])) {
		if (e->info.minor >= 3)
			ph_try(d, i, 1, (uint8_t)(0x92 | (a[i] == ENC_N) << 2));
		return;
	}
	if (i + 2 < n && is_en(a[i + 1]) && is_en(a[i + 2]))
		ph_try(d, i, 3, (uint8_t)(0x82 | (a[i + 1] == ENC_N) << 3 |
					 (a[i + 2] == ENC_N) << 2));
	for (;;) {
		unsigned at = i + 2 * k;

		if (at + 1 >= n || a[at] != ENC_W)
			break;
		if (a[at + 1] == ENC_N) {
			ph_try(d, i, 2 * k + 2, (uint8_t)(0xc0 | k << 2));
			break;
		}
		if (a[at + 1] != ENC_E || k == 7)
			break;
		k++;
		ph_try(d, i, 2 * k, (uint8_t)(0x80 | k << 2));
	}
	/* After format 1, so that W E is b10000100 as in Table 7.4. */
	while (i + wrun < n && a[i + wrun] == ENC_W)
		wrun++;
	for (unsigned m = 1; m <= wrun && m <= 8; m++)
		ph_try(d, i, m, (uint8_t)(0xa0 | (m - 1) << 2));
	if (wrun <= 8 && i + wrun < n && a[i + wrun] == ENC_E)
		ph_try(d, i, wrun + 1, (uint8_t)(0xe0 | (wrun - 1) << 2));
}

/* Pack the pending atoms into P-headers, fewest first ("Any P-headers
 * that unpack to the correct set of atoms is permitted", 7.3.1), leaving
 * the last @keep atoms (or fewer) pending for later ones to join. */
static int ph_emit(struct etm3_enc *e, unsigned keep)
{
	struct ph_dp d;
	unsigned n = e->nph, i = 0;

	if (!n)
		return 0;
	d.cost[n] = 0;
	for (unsigned j = n; j-- > 0;) {
		d.cost[j] = 0xff;
		d.len[j] = 0;
		if (e->info.cycle_accurate)
			ph_ca_at(e, &d, e->ph, n, j);
		else
			ph_plain_at(&d, e->ph, n, j);
	}
	if (d.cost[0] == 0xff)
		return -etmkit_err_internal; /* atoms were added with no W */
	while (i < n && n - i > keep) {
		room(e);
		put8(e, d.hdr[i]);
		i += d.len[i];
	}
	memmove(e->ph, e->ph + i, n - i);
	e->nph = n - i;
	return 0;
}

int etm3_flush_atoms(struct etm3_enc *e)
{
	return ph_emit(e, 0);
}

static int add_atom(struct etm3_enc *e, uint8_t atom)
{
	if (e->nph == ENC_PH_CAP) {
		int err = ph_emit(e, ENC_PH_KEEP);

		if (err)
			return err;
	}
	e->ph[e->nph++] = atom;
	return 0;
}

/* ---- Synchronisation (7.10) ----------------------------------------------- */

static void put_async(struct etm3_enc *e)
{
	room(e);
	for (int i = 0; i < 5; i++) /* 7.10.1: five zeros, then 0x80 */
		put8(e, 0x00);
	put8(e, 0x80);
	e->sync_at = e->out.total;
	/* The next timestamp goes in full, for a decoder starting here; so
	 * does the next data address (D-sync after A-sync, 7.10.2, 7.10.6). */
	e->ts_valid = 0;
	e->dref_valid = 0;
}

/* Cycle count field (7.3.4): 7 bits and a continuation bit per byte, the
 * 5th byte holds bits [31:28]. */
static void put_cycles(struct etm3_enc *e, uint32_t v)
{
	for (int k = 0; k < 4; k++) {
		uint8_t b = (uint8_t)((v >> (7 * k)) & 0x7f);

		if (!(v >> (7 * (k + 1)))) {
			put8(e, b);
			return;
		}
		put8(e, (uint8_t)(b | 0x80));
	}
	put8(e, (uint8_t)((v >> 28) & 0x0f));
}

void etm3_put_le(struct etm3_enc *e, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put8(e, (uint8_t)(v >> (8 * i)));
}

static void put_vmid(struct etm3_enc *e)
{
	room(e);
	put8(e, 0x3c); /* 7.3.7 */
	put8(e, e->pc.vmid);
	e->pc.vmid_dirty = 0;
}

/* I-sync at @addr in @isa (7.10.5): header 0x08, or 0x70 and a cycle
 * count for a non-periodic one in cycle-accurate mode ("a cycle count is
 * required for every Non-periodic I-sync packet"); context ID (ETMCR
 * [15:14] bytes); information byte; the address, bit 0 the T bit except
 * in Jazelle state (Table 7.20). */
static void put_isync(struct etm3_enc *e, unsigned reason, uint32_t addr,
		      uint8_t isa)
{
	unsigned j = isa == etmkit_isa_jazelle;
	unsigned t = isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee;
	unsigned alt = isa == etmkit_isa_thumbee;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;

	room(e);
	if (e->info.cycle_accurate && reason != etm3_reason_periodic) {
		put8(e, 0x70);
		put_cycles(e, e->gap_cycles);
	} else {
		put8(e, 0x08);
	}
	e->gap_cycles = 0;
	etm3_put_le(e, e->pc.cid, e->info.context_id_bytes);
	/* Bit 7 0: not LSiP; [6:5] reason (Table 7.21); 4 J; 3 NS; 2 AltISA
	 * (ETMv3.3+); 1 Hyp (ETMv3.5 with the Virtualization Extensions);
	 * bit 0 is set as trace units set it (digest 4.4). */
	put8(e, (uint8_t)(reason << 5 | j << 4 | (e->pc.ns & 1u) << 3 | alt << 2 |
			  hyp << 1 | 1));
	etm3_put_le(e, j ? addr : addr | t, 4);
	e->pc.cid_dirty = 0;
	e->ref_addr = addr;
	e->ref_isa = isa;
	e->ref_altisa = (uint8_t)alt;
	e->ref_ns = e->pc.ns;
	e->ref_hyp = (uint8_t)hyp;
	e->exp_valid = 1;
	e->exp_addr = addr;
	e->exp_isa = isa;
	/* 7.3.7: VMID after each I-sync, before the next P-header. */
	if (e->vmid_on)
		put_vmid(e);
}

/* ---- Branch address packets (7.3.5) ---------------------------------------- */

/* A branch address packet to @addr in @isa, with exception information
 * giving exception @exc (0: none) when @with_exc. The address is sent in
 * as few bytes as carry every bit that differs from the reference; the
 * full five when the instruction set changes (relative to the decoder's
 * reference and to the processor's state before the branch, so that
 * either reading of "current instruction set" decodes it), and exception
 * information bytes when an exception is reported or NS, Hyp or AltISA
 * change (4.5.4): those need a 5-byte address in the original encoding,
 * two bytes or more in the alternative one. */
static void put_branch(struct etm3_enc *e, uint32_t addr, uint8_t isa,
		       int with_exc, uint8_t exc)
{
	unsigned altisa = isa == etmkit_isa_thumbee;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;
	int thumbish = isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee;
	int state = with_exc || e->pc.ns != e->ref_ns || hyp != e->ref_hyp ||
		    (thumbish && e->info.minor >= 3 && altisa != e->ref_altisa);
	int need5 = isa != e->ref_isa || isa != e->last_isa ||
		    (state && !e->info.alt_branch);
	uint8_t out[8];
	unsigned n = enc_branch_addr(out, addr, isa, e->ref_addr, need5,
				     state ? 2 : 1, e->info.alt_branch, state);

	if (state) {
		/* Byte 0: C AltISA Cancel Exception[3:0] NS; byte 1 (when Hyp
		 * is or was set, so that either reading of an absent byte 1
		 * gives the right Hyp): C 0 Hyp Exception[8:4]. */
		int byte1 = hyp || e->ref_hyp;

		out[n++] = (uint8_t)((byte1 ? 0x80 : 0) | altisa << 6 |
				     (exc & 0xfu) << 1 | (e->pc.ns & 1u));
		if (byte1)
			out[n++] = (uint8_t)(hyp << 5);
		e->ref_ns = e->pc.ns;
		e->ref_altisa = (uint8_t)altisa;
		if (byte1)
			e->ref_hyp = (uint8_t)hyp;
	}
	room(e);
	for (unsigned i = 0; i < n; i++)
		put8(e, out[i]);
	e->ref_addr = addr;
	e->ref_isa = isa;
	e->exp_valid = 1;
	e->exp_addr = addr;
	e->exp_isa = isa;
}

/* ---- Other packets ------------------------------------------------------ */

/* Timestamp (7.7.4): header b0100 0R10, then the value (enc_ts_fill(),
 * Gray-coded unless ETMCCER[28], 7.7.3). */
static void put_timestamp(struct etm3_enc *e, uint64_t value)
{
	uint8_t b[9];
	size_t n = enc_ts_fill(b, value, e->info.ts_bits, e->info.ts_binary,
			       &e->ts_valid, &e->ts_ref);

	room(e);
	put8(e, 0x42);
	for (size_t k = 0; k < n; k++)
		put8(e, b[k]);
	e->ts_pending = 0;
}

static void put_context_id(struct etm3_enc *e)
{
	room(e);
	put8(e, 0x6e); /* 7.3.6 */
	etm3_put_le(e, e->pc.cid, e->info.context_id_bytes);
	e->pc.cid_dirty = 0;
}


/* ---- Items ---------------------------------------------------------------- */

static int isa_ok(const struct etm3_enc *e, uint8_t isa)
{
	switch (isa) {
	case etmkit_isa_arm:
	case etmkit_isa_thumb:
	case etmkit_isa_jazelle:
		return 0;
	case etmkit_isa_thumbee:
		/* AltISA, and so ThumbEE, from ETMv3.3 (Table 7.20). */
		return e->info.minor >= 3 ? 0 : -etmkit_err_unsupported;
	case etmkit_isa_a64:
	case etmkit_isa_reserved:
		return -etmkit_err_unsupported;
	default:
		return -etmkit_err_invalid;
	}
}

/* The branch packet a taken branch is owed, after the P-header holding
 * its atom (7.3.5: the branch has its own E atom; the packet follows). */
static int put_pending_branch(struct etm3_enc *e)
{
	int err;

	if (!e->br_pending)
		return 0;
	err = etm3_flush_atoms(e);
	if (err)
		return err;
	put_branch(e, e->br_addr, e->br_isa, 0, 0);
	e->br_pending = 0;
	return 0;
}

/* Packets owed before instruction @r: sync, the last branch's address,
 * an exception, context and timestamp. */
static int before_insn(struct etm3_enc *e, const struct exec_rec *r)
{
	uint32_t addr = (uint32_t)r->addr;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;
	int err;

	if (e->need_isync) {
		/* Trace starts at @r: an exception before it was not traced
		 * (its handler is where the I-sync points). */
		e->exc_pending = 0;
		if (!e->started) {
			put_async(e);
			e->started = 1;
		}
		put_isync(e, etm3_reason_trace_on, addr, r->isa);
		e->need_isync = 0;
	} else {
		err = put_pending_branch(e);
		if (err)
			return err;
		if (e->exc_pending) {
			err = etm3_flush_atoms(e);
			if (err)
				return err;
			put_branch(e, addr, r->isa, 1, enc_exc_number(e->exc_kind));
			e->exc_pending = 0;
		}
		if (e->out.total - e->sync_at >= e->sync_period) {
			err = etm3_flush_atoms(e);
			if (err)
				return err;
			put_async(e);
			put_isync(e, etm3_reason_periodic, addr, r->isa);
		} else if (e->pc.ns != e->ref_ns || hyp != e->ref_hyp ||
			   !e->exp_valid || e->exp_addr != addr ||
			   e->exp_isa != r->isa) {
			/* The security state changed without a branch, or the
			 * record went on elsewhere than the trace says: an
			 * I-sync states where and in which state. */
			err = etm3_flush_atoms(e);
			if (err)
				return err;
			put_isync(e, etm3_reason_periodic, addr, r->isa);
		}
	}
	if ((e->pc.cid_dirty && e->info.context_id_bytes) ||
	    (e->pc.vmid_dirty && e->vmid_on) ||
	    (e->ts_pending && e->info.timestamps)) {
		err = etm3_flush_atoms(e);
		if (err)
			return err;
		if (e->pc.cid_dirty && e->info.context_id_bytes)
			put_context_id(e);
		if (e->pc.vmid_dirty && e->vmid_on)
			put_vmid(e);
		if (e->ts_pending && e->info.timestamps)
			put_timestamp(e, e->ts);
	}
	e->pc.cid_dirty = e->pc.vmid_dirty = e->ts_pending = 0;
	return 0;
}

static int put_insn(struct etm3_enc *e, const struct exec_rec *r)
{
	/* N: the instruction failed its condition (IHI 0014Q 7.3.1). A
	 * branch that did not write the PC failed it too (B<c>, BX<c>, and
	 * CBZ/CBNZ, whose compare is their condition), whether or not the
	 * record says so: a QEMU log in block mode knows only that it was
	 * not taken. */
	int fail = (r->flags & EXEC_F_COND_FAIL) ||
		   ((r->flags & EXEC_F_BRANCH) && !(r->flags & EXEC_F_TAKEN));
	int taken = !fail && (r->flags & EXEC_F_BRANCH);
	uint8_t tisa = r->target_isa ? r->target_isa : r->isa;
	int err = isa_ok(e, r->isa);

	if (err)
		return err;
	if (!r->size || r->addr > 0xffffffffu)
		return -etmkit_err_invalid;
	if (taken || ((r->flags & EXEC_F_ISA_SWITCH) && r->target_isa)) {
		err = isa_ok(e, tisa);
		if (err)
			return err;
		if (taken && r->target > 0xffffffffu)
			return -etmkit_err_invalid;
	}
	err = before_insn(e, r);
	if (!err)
		err = etm3_return_due(e, 0);
	if (err)
		return err;
	if (e->info.cycle_accurate) {
		/* One W per cycle before the instruction's atom: the decoder
		 * charges an instruction the W atoms since the previous one.
		 * Before ETMv3.3 (no format 4) every instruction gets a W of
		 * its own, so that every atom string can be packed. */
		uint32_t w = (r->flags & EXEC_F_CYCLES) ? r->cycles : 1;

		if (!w && e->info.minor < 3)
			w = 1;
		for (uint32_t i = 0; i < w; i++) {
			err = add_atom(e, ENC_W);
			if (err)
				return err;
		}
	}
	err = add_atom(e, fail ? ENC_N : ENC_E);
	if (err)
		return err;
	e->insns++;
	e->d_ok = (e->data_addr_on || e->data_value_on) && etm3_is_data_insn(r, fail);
	e->d_first = 1;
	e->last_isa = r->isa;
	e->exp_valid = 1;
	if (taken) {
		e->exp_addr = (uint32_t)r->target;
		e->exp_isa = tisa;
	} else {
		e->exp_addr = (uint32_t)(r->addr + r->size);
		e->exp_isa = (r->flags & EXEC_F_ISA_SWITCH) && r->target_isa ?
			     r->target_isa : r->isa;
	}
	/* A branch packet follows: indirect branches (the decoder waits for
	 * the address); every taken branch with ETMCR branch output; and
	 * every change of instruction set, BLX (immediate), ENTERX and
	 * LEAVEX too ("state changes ... are indicated by outputting the
	 * destination address", IHI 0014Q 4.5.2, 7.3.5). */
	if ((taken && ((r->flags & EXEC_F_INDIRECT) || e->branch_output)) ||
	    e->exp_isa != r->isa) {
		e->br_pending = 1;
		e->br_addr = e->exp_addr;
		e->br_isa = e->exp_isa;
	}
	return 0;
}

/* Execution went on untraced: what was traced before it is emitted (an
 * indirect branch gets its packet even when its target is not traced,
 * 7.3.5); an exception just taken has no traced handler, so nothing says
 * it; trace restarts with an I-sync (reason "tracing enabled"). */
static int put_gap(struct etm3_enc *e, const struct exec_rec *r)
{
	int err = 0;

	if (!e->need_isync) {
		err = put_pending_branch(e);
		if (!err)
			err = etm3_flush_atoms(e);
	}
	/* Values still out are traced before trace stops (7.4.3: "placed
	 * in the FIFO as soon as it is available"). */
	if (!err)
		err = etm3_return_due(e, 1);
	e->dref_valid = 0;
	e->br_pending = 0;
	e->exc_pending = 0;
	e->need_isync = 1;
	e->exp_valid = 0;
	/* The gap's length for the next I-sync's cycle count (7.3.4), when
	 * the record gives it; 0 says it is unknown. */
	e->gap_cycles = (r->flags & EXEC_F_CYCLES) ? r->cycles : 0;
	return err;
}

int etm3_enc_put(struct etm3_enc *e, const struct exec_rec *r)
{
	if (!e || !r)
		return -etmkit_err_invalid;
	if (e->out.err)
		return e->out.err;
	if (e->finished)
		return -etmkit_err_invalid;
	if (r->kind == exec_data) {
		int err = etm3_put_data(e, r);

		return err ? err : e->out.err;
	}
	switch (r->kind) {
	case exec_insn: {
		int err = put_insn(e, r);

		if (err)
			return err;
		break;
	}
	case exec_exception:
		if (r->number >= exec_exc_count)
			return -etmkit_err_invalid;
		/* Emitted with the handler's first instruction, or dropped
		 * by a gap (4.5.4). A second one before any instruction
		 * replaces the first, whose handler never ran. */
		e->exc_pending = 1;
		e->exc_kind = (uint8_t)r->number;
		break;
	case exec_gap: {
		int err = put_gap(e, r);

		if (err)
			return err;
		break;
	}
	case exec_context:
		enc_proc_take(&e->pc, r);
		break;
	case exec_timestamp:
		e->ts_pending = 1;
		e->ts = r->value;
		break;
	default:
		return -etmkit_err_invalid;
	}
	/* Transfers follow their instruction directly (put_insn sets it). */
	if (r->kind != exec_insn)
		e->d_ok = 0;
	return e->out.err;
}

int etm3_enc_finish(struct etm3_enc *e)
{
	int err = 0;

	if (!e)
		return -etmkit_err_invalid;
	if (e->out.err)
		return e->out.err;
	if (!e->finished && !e->need_isync) {
		err = put_pending_branch(e);
		if (!err)
			err = etm3_flush_atoms(e);
		if (!err)
			err = etm3_return_due(e, 1);
	}
	e->finished = 1;
	drain(e);
	return err ? err : e->out.err;
}
