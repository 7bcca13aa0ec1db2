/* ETMv4/ETE trace encoder: the packets that tell a decoder where the walk
 * is and in what context: addresses and the address history (digest 2.3,
 * 2.4, 5.19, 5.20), context (5.18), Q elements (D4.3.5.4, 5.17),
 * timestamps and synchronization (3, 5.1, 5.2, 5.4). Shared state:
 * ete_enc_internal.h. */
#include "ete_enc_internal.h"

/* ---- Addresses (digest 2.3, 2.4, 5.19, 5.20) -------------------------------- */

static void hist_push(struct ete_enc *e, uint64_t addr, uint8_t is)
{
	e->hist[2] = e->hist[1];
	e->hist[1] = e->hist[0];
	e->hist[0] = addr;
	e->hist_is[2] = e->hist_is[1];
	e->hist_is[1] = e->hist_is[0];
	e->hist_is[0] = is;
	e->hist_ok[2] = e->hist_ok[1];
	e->hist_ok[1] = e->hist_ok[0];
	e->hist_ok[0] = 1;
}

uint8_t ete_is_of(uint8_t isa)
{
	return isa == etmkit_isa_thumb; /* IS1: T32; IS0: A64, A32 */
}

/* A long address field (digest 2.3) of @nb bytes at @p. */
static void put_long(uint8_t *p, uint64_t a, uint8_t is, unsigned nb)
{
	if (is) {
		p[0] = (uint8_t)((a >> 1) & 0x7f);
		p[1] = (uint8_t)(a >> 8);
	} else {
		p[0] = (uint8_t)((a >> 2) & 0x7f);
		p[1] = (uint8_t)((a >> 9) & 0x7f);
	}
	for (unsigned i = 2; i < nb; i++)
		p[i] = (uint8_t)(a >> (8 * i));
}

/* Whether a 32-bit address field gives @a: the decoder takes A[63:32]
 * from history entry 0 when the context is AArch64 (@sf), else zero
 * (digest 2.3, U17; etm4_pkt.c sf_upper()). */
static int long32_ok(const struct ete_enc *e, uint64_t a, int sf)
{
	/* After Trace Info entry 0 is address 0 (digest 2.4). */
	if (sf)
		return (a >> 32) == (e->hist[0] >> 32);
	return (a >> 32) == 0;
}

/* The shortest address packet for @a/@is at @p (digest 5.19); returns its
 * length and sets *@form. */
static size_t addr_packet(const struct ete_enc *e, uint8_t *p, uint64_t a,
			  uint8_t is, unsigned *form)
{
	unsigned lo = is ? 8 : 9; /* bits of the 1-byte short form */
	int full = (e->cfg.flags & ETE_ENC_NO_COMPRESS) != 0;

	for (unsigned k = 0; k < 3 && !full; k++) {
		if (e->hist_ok[k] && e->hist[k] == a && e->hist_is[k] == is) {
			p[0] = (uint8_t)(0x90 + k); /* exact match */
			*form = etm4_addr_exact;
			return 1;
		}
	}
	if (!full && e->hist_ok[0] && (a >> lo) == (e->hist[0] >> lo)) {
		p[0] = is ? 0x96 : 0x95;
		p[1] = (uint8_t)((a >> (is ? 1 : 2)) & 0x7f);
		*form = etm4_addr_short;
		return 2;
	}
	if (!full && e->hist_ok[0] &&
	    (a >> (lo + 8)) == (e->hist[0] >> (lo + 8))) {
		p[0] = is ? 0x96 : 0x95;
		p[1] = (uint8_t)(0x80 | ((a >> (is ? 1 : 2)) & 0x7f));
		p[2] = (uint8_t)(a >> lo);
		*form = etm4_addr_short;
		return 3;
	}
	/* Without compression: long 64, or long 32 for a trace unit with
	 * 32-bit addresses (TRCIDR2.IASIZE), which has no other. */
	if ((!full || !e->info.ia64) && long32_ok(e, a, e->sf_known && e->sf)) {
		p[0] = is ? 0x9b : 0x9a;
		put_long(p + 1, a, is, 4);
		*form = etm4_addr_long32;
		return 5;
	}
	p[0] = is ? 0x9e : 0x9d;
	put_long(p + 1, a, is, 8);
	*form = etm4_addr_long64;
	return 9;
}

void ete_emit_address(struct ete_enc *e, uint64_t a, uint8_t is)
{
	uint8_t p[16];
	unsigned form;
	size_t n = addr_packet(e, p, a, is, &form);

	put_bytes(e, p, n);
	hist_push(e, a, is);
	e->st.addr_forms[form]++;
}

/* The context info byte and its VMID and context ID (digest 5.18) at @p;
 * returns the length. */
static size_t put_ctx_fields(const struct ete_enc *e, uint8_t *p,
			     const struct enc_ctx *c)
{
	size_t n = 1;

	p[0] = (uint8_t)((c->el & 3) | (c->sf ? 0x10 : 0) | (c->ns ? 0x20 : 0) |
			 (e->vmid_on ? 0x40 : 0) | (e->cid_on ? 0x80 : 0));
	if (e->vmid_on)
		for (unsigned i = 0; i < e->info.vmid_bytes; i++)
			p[n++] = (uint8_t)(c->vmid >> (8 * i));
	if (e->cid_on)
		for (unsigned i = 0; i < e->info.cid_bytes; i++)
			p[n++] = (uint8_t)(c->cid >> (8 * i));
	return n;
}

static void context_sent(struct ete_enc *e)
{
	e->sent = e->want;
	e->sent_ok = 1;
	e->sf_known = 1;
	e->sf = e->want.sf;
}

int ete_context_differs(const struct ete_enc *e)
{
	const struct enc_ctx *w = &e->want, *s = &e->sent;

	return !e->sent_ok || w->el != s->el || w->ns != s->ns ||
	       w->sf != s->sf || (e->cid_on && w->cid != s->cid) ||
	       (e->vmid_on && w->vmid != s->vmid);
}

void ete_emit_context(struct ete_enc *e)
{
	uint8_t p[16];
	size_t n;

	p[0] = 0x81;
	n = 1 + put_ctx_fields(e, p + 1, &e->want);
	put_bytes(e, p, n);
	context_sent(e);
}

/* The context and the address @a/@is, in the fewest bytes: a Context
 * packet and a compressed address, or one Address + Context packet
 * (digest 5.20: its 32-bit form takes A[63:32] by its own SF). */
void ete_emit_context_address(struct ete_enc *e, uint64_t a, uint8_t is)
{
	uint8_t p[MAX_PKT];
	unsigned form;
	size_t na = addr_packet(e, p, a, is, &form), n;

	if (na <= 3 && !(e->cfg.flags & ETE_ENC_NO_COMPRESS)) {
		ete_emit_context(e);
		ete_emit_address(e, a, is);
		return;
	}
	if ((!(e->cfg.flags & ETE_ENC_NO_COMPRESS) || !e->info.ia64) &&
	    long32_ok(e, a, e->want.sf)) {
		p[0] = is ? 0x83 : 0x82;
		put_long(p + 1, a, is, 4);
		n = 5;
		form = etm4_addr_long32;
	} else {
		p[0] = is ? 0x86 : 0x85;
		put_long(p + 1, a, is, 8);
		n = 9;
		form = etm4_addr_long64;
	}
	n += put_ctx_fields(e, p + n, &e->want);
	put_bytes(e, p, n);
	context_sent(e);
	hist_push(e, a, is);
	e->st.addr_forms[form]++;
}

/* ---- Q elements (D4.3.5.4, digest 5.17) ------------------------------------ */

/* Write the open Q element: a P0 element (digest 7.1) for @q_count
 * instructions, with the address of the next one (D4.3.5.4: a Target
 * Address is required after a Q). The address part comes first, then
 * the count as a continuation field (digest 5.17; [CAP:q_elem]
 * aa 34 3f 06 00 03). Types 0-2, 5, 6, 0xA and 0xB are the exact-match,
 * short and long 32-bit address forms of the address packets 0x90-0x92,
 * 0x95, 0x96, 0x9a, 0x9b (digest 5.19), header + 0x10, and push the
 * history alike (digest 2.4). A 64-bit address has no Q form: type 0xC
 * (count only), then the address packet at once, with nothing between:
 * a decoder counts the Q when its address arrives (digest 7.2), so no
 * Commit may come before it, and a Context there would be applied before
 * the Q's instructions (etm4_flow's on_address()). Types 0xF (no count)
 * and counts of the reserved types are not used: without a count the
 * instructions cannot be rebuilt. */
void ete_q_close(struct ete_enc *e)
{
	uint8_t p[24];
	uint8_t is = ete_is_of(e->q_isa);
	unsigned form;
	size_t n;

	e->q_open = 0;
	ete_make_room(e, 1, 0);
	n = addr_packet(e, p, e->q_target, is, &form);
	if (form == etm4_addr_long64) {
		p[0] = 0xac;
		put_bytes(e, p, 1 + put_c7(p + 1, e->q_count));
		ete_emit_address(e, e->q_target, is);
	} else {
		p[0] = (uint8_t)(p[0] + 0x10); /* 0x9N address -> 0xAN Q */
		n += put_c7(p + n, e->q_count);
		put_bytes(e, p, n);
		hist_push(e, e->q_target, is);
	}
	e->st.q_packets[p[0] & 0xf]++;
	ete_cyc_push_at(e, e->q_cyc);
	if (e->maxspec)
		e->uncommitted++;
	else
		ete_cyc_committed(e, 1);
	e->st.p0++;
	ete_settle(e);
}

/* A P0 instruction @r (@branch: a branch; @taken: it was), the last of
 * @n since the P0 element before it, with e->pc, e->isa already where
 * execution goes on: into the open Q element, or opening one at every
 * q_every-th chance. Returns 1 when the Q holds it (no atom), 0 for an
 * atom.
 *
 * The count is of the instructions since the previous P0 element
 * (D4.3.5.4, I XPNWS), so a Q opens only at the start of a range that
 * the decoder walks from its first instruction (no address sent inside
 * it). A Q does not say which way its branches went (digest 5.17): only
 * P0 instructions that are not branches (ISB, TSTART, WFI/WFE) are run
 * over, so that the instructions before its last run straight on, and a
 * taken branch ends it, its address the branch's target. A branch not
 * taken gets its N atom, the Q before it ending at the P0 instruction
 * before: a Q's address at the next instruction would not tell a decoder
 * that the branch was not taken (OpenCSD 1.3 reports every Q range as
 * executed, E). The decoders walk a Q alike: etm4_flow's q_path_known()
 * straight on, OpenCSD 1.3 to the first branch (else I_RANGE_NOPATH). A
 * P0 instruction that changes the instruction set without a branch
 * (EXEC_F_ISA_SWITCH) gets an atom: its target's instruction set is not
 * known here. */
int ete_trace_q(struct ete_enc *e, const struct exec_rec *r, uint64_t n,
		   int branch, int taken)
{
	int sw = (r->flags & EXEC_F_ISA_SWITCH) != 0;

	if (!e->cfg.q_every)
		return 0;
	if (e->q_open && (sw || (branch && !taken) ||
			  n > UINT32_MAX - e->q_count))
		ete_q_close(e);
	if (!e->q_open) {
		if (sw || (branch && !taken) || e->range_moved ||
		    n > UINT32_MAX || ++e->q_seq % e->cfg.q_every)
			return 0;
		ete_flush_atoms(e); /* the atoms before it */
		e->q_open = 1;
		e->q_count = 0;
	}
	e->q_count += (uint32_t)n;
	e->q_target = e->pc;
	e->q_isa = e->isa;
	e->q_cyc = e->cyc_total;
	if (branch || !e->pc_known || e->pc != r->addr + r->size ||
	    e->isa != r->isa) {
		ete_q_close(e);
		e->pc_known = 1; /* the Q's address says where */
	}
	return 1;
}

/* The context changes before @r, not at a P0 instruction, with a Q
 * open: the Q takes the instructions since its last P0 instruction, so
 * that its last one is the last in the old context and the Context
 * element follows it (D4.3.5.4, R LZLDH and the rule after I BTNZC). @r
 * then starts a range. */
void ete_q_to_context(struct ete_enc *e, const struct exec_rec *r)
{
	if (!e->q_open || e->open_insns == 0 ||
	    e->open_insns > UINT32_MAX - e->q_count)
		return;
	e->q_count += (uint32_t)e->open_insns;
	e->q_target = r->addr;
	e->q_isa = r->isa;
	e->q_cyc = e->cyc_total - (r->flags & EXEC_F_CYCLES ? r->cycles : 0);
	e->open_insns = 0;
	e->range_start = 1;
}

/* ---- Synchronization (digest 3, 5.1, 5.2, 5.4) ------------------------------ */

/* Timestamp markers exist from ETE 1.1 (FEAT_ETEv1p1, digest 5.24; the
 * packet decoder also takes them from ETMv4.6): TRCIDR0.TSMARK of an
 * older version is not a licence to emit a header that version lacks. */
static int markers_exist(const struct etm4_config_info *ci)
{
	return ci->ete ? ci->minor >= 1 : ci->minor >= 6;
}

void ete_emit_timestamp(struct ete_enc *e, uint64_t v)
{
	uint8_t p[12];
	unsigned n = 9;

	if (e->info.tsmark && markers_exist(&e->info)) {
		p[0] = 0x88; /* marker first (digest 5.24) */
		put_bytes(e, p, 1);
	}
	/* The fewest bytes whose bits leave the rest of the running value
	 * as it is (digest 2.2, 5.3). */
	for (unsigned k = 1; k <= 8; k++) {
		if (((v ^ e->ts_ref) >> (7 * k)) == 0) {
			n = k;
			break;
		}
	}
	p[0] = 0x02;
	for (unsigned i = 0; i < n; i++) {
		if (i == 8) {
			p[1 + i] = (uint8_t)(v >> 56);
			break;
		}
		p[1 + i] = (uint8_t)(((v >> (7 * i)) & 0x7f) |
				     (i + 1 < n ? 0x80 : 0));
	}
	put_bytes(e, p, 1 + n);
	e->ts_ref = v;
}

/* A-sync and Trace Info: after it, the history is empty and nothing is
 * speculative (everything was committed before). */
void ete_emit_sync(struct ete_enc *e)
{
	static const uint8_t async[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0x80 };
	uint8_t tinfo[8] = { 0x01, 0x00 }; /* PLCTL 0: no sections */
	size_t n = 2;

	ete_flush_atoms(e);
	ete_commit(e, e->uncommitted);
	put_bytes(e, async, sizeof(async));
	if (e->cc_on) {
		/* PLCTL: INFO and CYCT; INFO bit 0, cycle counting */
		tinfo[1] = 0x09;
		tinfo[2] = 0x01;
		n = 3 + put_c7(tinfo + 3, e->cfg.cc_threshold);
	}
	put_bytes(e, tinfo, n);
	memset(e->hist, 0, sizeof(e->hist));
	memset(e->hist_is, 0, sizeof(e->hist_is));
	memset(e->hist_ok, 0, sizeof(e->hist_ok));
	e->ts_ref = 0;
	e->started = 1;
	e->sync_mark = e->st.bytes;
	e->st.syncs++;
}
