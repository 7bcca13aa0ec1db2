/* The ETMv2 encoder's trace port: the FIFO the statuses place groups in
 * and the port drains (docs/etmv2.md 3; Q§6.1.6, Q§6.3), one struct
 * etm2_cycle per processor cycle, and TFO cycles (docs/etmv2.md 6;
 * Q§6.5). */
#include "etm2_enc_internal.h"

void e2_flush(struct etm2_enc *e)
{
	if (e->nout && !e->err) {
		int r = e->sink(e->ctx, e->out, e->nout);

		if (r)
			e->err = r < 0 ? r : -r;
	}
	e->nout = 0;
}

/* A cycle of raw PIPESTAT @ps; TRACESYNC when its output started a branch
 * address (ETMv1). */
static void put_raw(struct etm2_enc *e, uint8_t ps, uint16_t pkt)
{
	struct etm2_cycle *c;

	if (e->nout == E2_OUT_CYCLES)
		e2_flush(e);
	c = &e->out[e->nout++];
	c->pkt = pkt;
	c->ps = ps;
	c->flags = e->tsync;
	e->tsync = 0;
	e->st.cycles++;
	e->since_tfo++;
}

static void put_cycle(struct etm2_enc *e, unsigned status, uint16_t pkt)
{
	put_raw(e, e->code[status], pkt);
}

/* @b[0..n) into the FIFO; ETMv1: byte @sync_at (or none, -1) starts a
 * branch address, the port raises TRACESYNC when it leaves. */
static void push(struct etm2_enc *e, const uint8_t *b, size_t n, int sync_at)
{
	for (size_t i = 0; i < n; i++)
		e->fifo[(e->head + e->count + i) % e->depth] = b[i];
	if (e->mark) {
		for (size_t i = 0; i < n; i++)
			e->mark[(e->head + e->count + i) % e->depth] =
				(int)i == sync_at;
		e->nmarks += sync_at >= 0;
	}
	e->count += (uint32_t)n;
	e->fresh = (uint32_t)n;
	e->st.bytes += n;
}

/* The head byte starts leaving: TRACESYNC if it starts a branch
 * address (docs/etmv2.md 7b). */
static void leaving(struct etm2_enc *e)
{
	if (e->mark && e->mark[e->head]) {
		e->mark[e->head] = 0;
		e->nmarks--;
		e->tsync = ETM2_CYC_TRACESYNC;
	}
}

static uint8_t pop(struct etm2_enc *e)
{
	uint8_t b = e->fifo[e->head];

	e->head = (e->head + 1) % e->depth;
	e->count--;
	return b;
}

/* Bytes that may leave this cycle: all but those placed in it when the
 * latency is 1 (docs/etmv2.md 3). */
static uint32_t ready(const struct etm2_enc *e)
{
	return e->count - (e->latency ? e->fresh : 0);
}

/* What TRACEPKT carries in a cycle that outputs FIFO data: a byte (8-bit),
 * two when two may leave else one on [7:0] (16-bit, Q§6.3), a nibble, the
 * low one first (4-bit, ASSUMED docs/etmv2.md 3). Sets *@out; 0 when
 * nothing may leave (TRACEPKT junk: 0). */
static int output(struct etm2_enc *e, uint16_t *out)
{
	uint32_t r = ready(e);

	*out = 0;
	if (!r)
		return 0;
	switch (e->info.port_width) {
	case 4:
		if (!e->half) {
			leaving(e);
			*out = e->fifo[e->head] & 0xf;
			e->half = 1;
		} else {
			*out = pop(e) >> 4;
			e->half = 0;
		}
		break;
	case 16:
		*out = pop(e);
		if (r >= 2)
			*out |= (uint16_t)(pop(e) << 8);
		break;
	default:
		leaving(e);
		*out = pop(e);
		break;
	}
	return 1;
}

void e2_cycle_at(struct etm2_enc *e, unsigned status,
		 const struct e2_group *g, int sync_at)
{
	uint16_t pkt;

	e->fresh = 0;
	if (g && g->n)
		push(e, g->b, g->n, sync_at);
	output(e, &pkt);
	put_cycle(e, status, pkt);
}

void e2_cycle(struct etm2_enc *e, unsigned status, const struct e2_group *g)
{
	e2_cycle_at(e, status, g, -1);
}

void e2_idle(struct etm2_enc *e)
{
	uint16_t pkt;
	int out;

	e->fresh = 0;
	out = output(e, &pkt);
	if (!out && e->info.version == 1 && e->info.cycle_accurate &&
	    !e->trace_off)
		pkt = 1; /* ETMv1 TD: TRACEPKT[0] = TraceEnable (Q§5.10) */
	put_cycle(e, out ? etm2_st_wt : etm2_st_td, pkt);
}

void e1_apo_cycle(struct etm2_enc *e, unsigned bits)
{
	uint16_t pkt;

	e->fresh = 0;
	output(e, &pkt);
	put_raw(e, (uint8_t)(bits & 3u), pkt);
}

unsigned e1_marks_after(const struct etm2_enc *e)
{
	/* the head byte leaves in this cycle when it may (all bytes held
	 * may: the cycle's own group is not placed yet) */
	int leaves = e->count && !e->half && e->mark[e->head];

	return e->nmarks - (unsigned)leaves;
}

void e2_drain(struct etm2_enc *e)
{
	while (e->count)
		e2_idle(e);
}

int e2_fits(const struct etm2_enc *e, size_t n)
{
	return e->count + n <= e->depth;
}

/* The TFO packet (docs/etmv2.md 6): header with the reason, the context
 * ID (ETMCR[15:14] bytes), the instruction address, bit 0 Thumb, least
 * significant byte first. */
static size_t tfo_packet(const struct etm2_enc *e, uint8_t *b, unsigned reason,
			 uint32_t addr, uint8_t isa)
{
	size_t n = 0;
	uint32_t a = (addr & ~1u) | (isa == etmkit_isa_thumb);

	b[n++] = (uint8_t)(e->tfo.normal | (reason & 3u) << e->tfo.rr_shift);
	for (unsigned k = 0; k < e->info.context_id_bytes; k++)
		b[n++] = (uint8_t)(e->cid >> (8 * k));
	for (unsigned k = 0; k < 4; k++)
		b[n++] = (uint8_t)(a >> (8 * k));
	return n;
}

void e2_tfo(struct etm2_enc *e, unsigned reason, uint32_t addr, uint8_t isa)
{
	uint8_t b[E2_TFO_MAX];
	size_t n = tfo_packet(e, b, reason, addr, isa);
	uint32_t v = e->count; /* bytes before the TFO packet: none has
				  started leaving (callers are at a byte
				  boundary) */

	/* The TFO cycle: TD, TRACEPKT[0] = 1, the value on [7:1]; a 4-bit
	 * port: N[2:0] on [3:1], N[6:3] in the next cycle (TD)
	 * (docs/etmv2.md 6, ASSUMED). No FIFO output in either. */
	e->fresh = 0;
	push(e, b, n, -1);
	e->last_status = e->st.cycles;
	if (e->info.port_width == 4) {
		put_cycle(e, etm2_st_td, (uint16_t)(((v & 7u) << 1) | 1u));
		e->fresh = 0;
		put_cycle(e, etm2_st_td, (uint16_t)((v >> 3) & 0xfu));
	} else {
		put_cycle(e, etm2_st_td, (uint16_t)((v << 1) | 1u));
	}
	e->since_tfo = 0;
	e->st.tfos++;
	e->ref_addr = addr & ~1u;
	e->ref_isa = isa;
	e->daddr_full = 1;
	e->exp_valid = 1;
	e->exp_addr = addr & ~1u;
	e->exp_isa = isa;
	e->cid_dirty = 0;
}
