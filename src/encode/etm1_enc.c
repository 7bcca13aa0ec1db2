/* ETMv1 as an option of the ETMv2 encoder (version 1; docs/etmv2.md 7b,
 * "What the ETMv1 encoder writes"; IHI 0014Q chapter 5): the 3-bit
 * statuses IE, IN, ID, BE and BD, a group per ID/BE/BD in the FIFO that
 * etm2_enc_port.c models for ETMv2 too, the two APO cycles after every
 * BE/BD, TRACESYNC on the first byte of each branch address, and branch
 * addresses with a reason where ETMv2 has TFOs: trace enabled (1) before
 * the first instruction, after a gap, a jump, a context change or an
 * exception entry; restart after overflow (2); periodic (4, on a taken
 * branch). The record
 * items and the held instruction are etm2_enc.c's. */
#include "etm2_enc_internal.h"

#define E1_APO_MAX 14u /* 15 is reserved (Q§5.6.1) */

int e1_check_data(struct etm2_enc *e, const struct exec_rec *r)
{
	if (!e->info.data_addr && !e->info.data_value)
		return 0;
	/* One 4-byte value per ID/BD (docs/etmv2.md 7b, ASSUMED): the
	 * decoder cannot size anything else without the image. */
	if (r->size != 4)
		e->refused = "ETMv1 data trace carries one 4-byte transfer per "
			     "instruction; this one has a transfer of another "
			     "size";
	else if (e->pend.nx)
		e->refused = "ETMv1 data trace carries one 4-byte transfer per "
			     "instruction; this one has several";
	else
		return 0;
	e->refused_addr = e->pend.addr;
	return -etmkit_err_unsupported;
}

const char *etm2_enc_refused(const struct etm2_enc *e, uint64_t *addr)
{
	if (!e || !e->refused)
		return NULL;
	if (addr)
		*addr = e->refused_addr;
	return e->refused;
}

/* A branch address (Q§5.5.4; docs/etmv2.md 7b): bit 0 = Thumb, then 7
 * bits a byte, bit 7 = another byte follows; the 5th byte A[31:28] in
 * [3:0] and the reason in [6:4]. The fewest bytes whose higher bits equal
 * the reference's, 5 when @full. Returns the bytes written. */
static unsigned branch_addr(uint8_t *out, uint32_t addr, uint8_t isa,
			    uint32_t ref, uint8_t ref_isa, int full,
			    unsigned reason)
{
	uint32_t v = (addr & ~1u) | (isa == etmkit_isa_thumb);
	uint32_t r = (ref & ~1u) | (ref_isa == etmkit_isa_thumb);
	unsigned n = 5;

	if (!full)
		for (unsigned k = 1; k <= 4; k++)
			if ((v >> (7 * k)) == (r >> (7 * k))) {
				n = k;
				break;
			}
	for (unsigned k = 0; k < n && k < 4; k++)
		out[k] = (uint8_t)(((v >> (7 * k)) & 0x7f) |
				   (k + 1 < n ? 0x80 : 0));
	if (n == 5)
		out[4] = (uint8_t)((v >> 28) | (reason & 7u) << 4);
	return n;
}

/* The branch address (and, with a reason, the context ID) at the end of
 * @g; *@sync_at gets its first byte's index. */
static void g_branch(const struct etm2_enc *e, struct e2_group *g,
		     int *sync_at, uint32_t addr, uint8_t isa, unsigned reason)
{
	int full = reason || isa != e->ref_isa;

	*sync_at = (int)g->n;
	g->n += branch_addr(g->b + g->n, addr, isa, e->ref_addr, e->ref_isa,
			    full, reason);
	if (reason)
		e2_g_le(g, e->cid, e->info.context_id_bytes);
}

/* A branch address to @addr is in the FIFO: the next is compressed
 * against it; one with a reason is a sync point. */
static void branch_placed(struct etm2_enc *e, uint32_t addr, uint8_t isa,
			  unsigned reason)
{
	e->ref_addr = addr & ~1u;
	e->ref_isa = isa;
	if (reason) {
		e->since_tfo = 0;
		e->st.tfos++;
		e->cid_dirty = 0;
		e->daddr_full = 1;
	}
}

/* The branch status's cycle and its two APO cycles, low bits first
 * (Q§5.6.1). @apo was counted before the cycle (e1_marks_after()). */
static void branch_cycles(struct etm2_enc *e, unsigned st,
			  const struct e2_group *g, int sync_at, unsigned apo)
{
	e->last_status = e->st.cycles;
	e2_cycle_at(e, st, g, sync_at);
	e1_apo_cycle(e, apo);
	e1_apo_cycle(e, apo >> 2);
}

/* Trace (re)starts at @x (docs/etmv2.md 7b): the FIFO drains, then a BE
 * of no instruction with @x's 5-byte address and @reason (1 trace
 * enabled, 2 after an overflow), the context ID, its APO cycles. */
static void restart(struct etm2_enc *e, const struct e2_insn *x,
		    unsigned reason)
{
	struct e2_group g;
	int sync_at;

	e2_drain(e);
	g.n = 0;
	g_branch(e, &g, &sync_at, x->addr, x->isa, reason);
	branch_placed(e, x->addr, x->isa, reason);
	branch_cycles(e, etm2_st_be, &g, sync_at, e1_marks_after(e));
	e->exp_valid = 1;
	e->exp_addr = x->addr;
	e->exp_isa = x->isa;
	e->need_tfo = 0;
	e->exc_pending = 0;
	e->cid_dirty = 0;
}

/* Whether trace must restart before @x: the first instruction, after a
 * gap or an overflow, an exception entry, a context change, or where the
 * decoder's walk does not go. */
static int restart_due(const struct etm2_enc *e, const struct e2_insn *x)
{
	return e->need_tfo || e->exc_pending ||
	       (e->cid_dirty && e->info.context_id_bytes) || !e->exp_valid ||
	       e->exp_addr != x->addr || e->exp_isa != x->isa;
}

void e1_emit(struct etm2_enc *e, const struct e2_insn *x)
{
	uint64_t want = 1u + x->extra;
	struct e2_group g;
	struct e2_refs rf;
	int data, br, periodic, sync_at = -1, idled = 0;
	uint32_t to;
	uint8_t tisa;
	unsigned st, apo;

	if (e->ovf) {
		/* Waiting for the FIFO to drain: every cycle counts. */
		e2_idle_n(e, (uint32_t)(want - 1));
		idled = 1;
		if (e->count) {
			e->st.insns_lost++;
			e2_idle(e);
			return;
		}
		e->ovf = 0;
		e->need_tfo = 1;
		e->tfo_reason = etm2_reason_overflow;
	}
	if (restart_due(e, x))
		restart(e, x, e->need_tfo ? e->tfo_reason
					  : etm2_reason_trace_on);
	while (!idled && e->st.cycles - e->last_status < want)
		e2_idle(e);
	g.n = 0;
	e2_refs_init(e, &rf);
	data = x->exec && x->nx && (e->info.data_addr || e->info.data_value);
	br = x->exec && x->taken &&
	     (x->indirect || e->info.branch_output || x->tisa != x->isa);
	/* the next taken branch after the period: a real branch whose
	 * address goes in full (Q§5.6.2) */
	periodic = x->exec && x->taken && e->since_tfo >= e->sync_period;
	if (data) {
		/* the data address, then the 4-byte value (docs/etmv2.md 7b) */
		if (e->info.data_addr)
			e2_g_daddr(&g, &rf, x->x[0].addr);
		if (e->info.data_value)
			e2_g_le(&g, x->x[0].value, 4);
	}
	to = x->taken ? x->target : x->addr + x->size;
	tisa = x->taken ? x->tisa : x->next_isa;
	if (br || periodic)
		g_branch(e, &g, &sync_at, to, tisa,
			 periodic ? etm1_reason_periodic : etm1_reason_normal);
	apo = e1_marks_after(e);
	if (!e2_fits(e, g.n) || (sync_at >= 0 && apo > E1_APO_MAX)) {
		e2_overflow(e, 1);
		return;
	}
	st = !x->exec ? etm2_st_in
	     : br || periodic ? (data ? etm2_st_bd : etm2_st_be)
	     : data ? etm2_st_id : etm2_st_ie;
	if (sync_at >= 0) {
		branch_cycles(e, st, &g, sync_at, apo);
	} else {
		e->last_status = e->st.cycles;
		e2_cycle(e, st, &g);
	}
	e2_refs_commit(e, &rf);
	if (sync_at >= 0)
		branch_placed(e, to, tisa, periodic ? etm1_reason_periodic
						 : etm1_reason_normal);
	e->st.insns++;
	e2_walk_past(e, x);
}
