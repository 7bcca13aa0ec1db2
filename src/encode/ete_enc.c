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
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/insn.h"

#define OUT_CAP (64u * 1024u)
#define ATOM_CAP 128u
#define MAX_PKT 40u /* longest packet written at once: address + context
		       64-bit with VMID and CID is 18 bytes */

/* TRCCONFIGR bits (digest 6.2). */
#define CFGR_INSTP0 (3u << 1)
#define CFGR_BB     (1u << 3)
#define CFGR_CCI    (1u << 4)
#define CFGR_CID    (1u << 6)
#define CFGR_VMID   (1u << 7)
#define CFGR_COND   (7u << 8)
#define CFGR_TS     (1u << 11)
#define CFGR_RS     (1u << 12)
#define CFGR_DA     (1u << 16)
#define CFGR_DV     (1u << 17)
#define CFGR_QE(r)  (((r) >> 13) & 3u)
#define IDR0_QSUPP(r) (((r) >> 15) & 3u)

struct enc_ctx {
	uint8_t el, ns, sf;
	uint32_t vmid;
	uint32_t cid;
};

struct ete_enc {
	struct ete_enc_config cfg;
	struct etm4_config_info info;
	exec_sink_fn sink;
	void *sink_ctx;
	int err;               /* sticky: the sink's error */
	uint8_t finished;

	uint8_t *out;          /* OUT_CAP bytes */
	size_t pos;
	uint64_t sync_mark;    /* stats.bytes at the last resync */
	uint32_t sync_period;

	/* The decoder's packet-layer state (digest 2.3, 2.4, 5.3). */
	uint64_t hist[3];
	uint8_t hist_is[3];
	uint8_t hist_ok[3];    /* entry set by an address since Trace Info */
	uint8_t sf_known, sf;  /* last context packet's SF */
	uint64_t ts_ref;

	/* The walk: where the decoder expects the next instruction. */
	uint8_t started;       /* A-sync + Trace Info sent */
	uint8_t tracing;       /* Trace On sent since the last gap */
	uint8_t pc_known;      /* 0: after an indirect branch, an exception */
	uint8_t range_start;   /* the item before ended an atom's range */
	uint64_t open_insns;   /* instructions since then: no atom covers
				  them yet */
	uint64_t pc;
	uint8_t isa;           /* enum etmkit_isa at pc */

	struct enc_ctx want;   /* the record's context */
	struct enc_ctx sent;   /* the context the decoder was told */
	uint8_t sent_ok;
	uint8_t cid_on, vmid_on, ts_on;

	uint8_t ts_pending;
	uint64_t ts_value;

	/* Speculation (digest 7.2): uncommitted P0 elements traced. */
	uint32_t maxspec;
	uint32_t cap;          /* most uncommitted at once */
	uint64_t uncommitted;
	uint8_t atoms[ATOM_CAP]; /* pending atoms, oldest first, 1 = E */
	unsigned natoms;
	uint64_t atom_seq;     /* atoms of P0 instructions so far */

	/* Cycle counts (TRCCONFIGR.CCI, commit mode 1): the cycles of the
	 * record up to each P0 element not yet committed, oldest first. */
	uint8_t cc_on;
	uint64_t *cyc_at;      /* ring of cyc_cap */
	size_t cyc_cap, cyc_head, cyc_n;
	uint64_t cyc_total;    /* cycles of every instruction put */
	uint64_t cyc_counted;  /* cyc_total at the last Cycle Count */
	uint64_t synth_seq;    /* synthesized corrections so far */

	/* The open Q element (D4.3.5.4): q_count instructions since the
	 * P0 element before it, to its last P0 instruction, after which
	 * execution goes on at q_target in q_isa; q_cyc: cyc_total
	 * there. */
	uint8_t q_open;
	uint8_t q_isa;
	uint8_t range_moved;   /* an address was sent inside the current
				  range (untraceable): no Q counts it */
	uint32_t q_count;
	uint64_t q_target;
	uint64_t q_cyc;
	uint64_t q_seq;        /* P0 instructions that could open a Q */

	struct ete_enc_stats st;
};

/* ---- Output ----------------------------------------------------------------- */

static int flush_out(struct ete_enc *e)
{
	int err;

	if (e->err)
		return e->err;
	if (e->pos == 0)
		return 0;
	err = e->sink(e->sink_ctx, e->out, e->pos);
	e->pos = 0;
	if (err) {
		e->err = err < 0 ? err : -etmkit_err_io;
		return e->err;
	}
	return 0;
}

/* Room for @n bytes at e->out + e->pos; NULL after a sink error. */
static uint8_t *room(struct ete_enc *e, size_t n)
{
	if (OUT_CAP - e->pos < n && flush_out(e))
		return NULL;
	if (e->err)
		return NULL;
	return e->out + e->pos;
}

static void put_bytes(struct ete_enc *e, const uint8_t *b, size_t n)
{
	uint8_t *p = room(e, n);

	if (!p)
		return;
	memcpy(p, b, n);
	e->pos += n;
	e->st.bytes += n;
}

/* A continuation field (digest 2.1) at @p; returns its length. */
static size_t put_c7(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* ---- Atoms (digest 5.14) ---------------------------------------------------- */

/* The header of an atom packet for @n atoms @a (oldest first, 1 = E), or
 * -1 when no format holds them; *@fmt gets the format. */
static int atom_header(const uint8_t *a, unsigned n, unsigned *fmt)
{
	unsigned bits = 0, lead = 0;

	for (unsigned i = 0; i < n && i < 5; i++)
		bits |= (unsigned)a[i] << i;
	while (lead < n && a[lead])
		lead++;
	if (n >= 4 && n <= 24 && lead >= n - 1) {
		/* Format 6: (CCCCC + 3) E atoms, then E (A = 0) or N. */
		*fmt = 6;
		return (int)(0xc0u | (a[n - 1] ? 0 : 0x20u) | (n - 4));
	}
	switch (n) {
	case 1:
		*fmt = 1;
		return (int)(0xf6u | bits);
	case 2:
		*fmt = 2;
		return (int)(0xd8u | bits);
	case 3:
		*fmt = 3;
		return (int)(0xf8u | bits);
	case 4:
		*fmt = 4;
		switch (bits) {
		case 0xe: return 0xdc; /* N E E E */
		case 0x0: return 0xdd; /* N N N N */
		case 0xa: return 0xde; /* N E N E */
		case 0x5: return 0xdf; /* E N E N */
		}
		return -1;
	case 5:
		*fmt = 5;
		switch (bits) {
		case 0x00: return 0xd5; /* N N N N N */
		case 0x0a: return 0xd6; /* N E N E N */
		case 0x15: return 0xd7; /* E N E N E */
		case 0x1e: return 0xf5; /* N E E E E */
		}
		return -1;
	}
	return -1;
}

/* ---- Cycle counts (digest 5.8; D4.3.7.1) ------------------------------------ */

/* A P0 element traced: the cycles of the record up to its last
 * instruction, @at. */
static void cyc_push_at(struct ete_enc *e, uint64_t at)
{
	if (!e->cc_on || e->cyc_n == e->cyc_cap)
		return; /* not reached: the ring holds every P0 in flight */
	e->cyc_at[(e->cyc_head + e->cyc_n++) % e->cyc_cap] = at;
}

static void cyc_push(struct ete_enc *e)
{
	cyc_push_at(e, e->cyc_total);
}

/* @n P0 elements were committed: a Cycle Count for the cycles up to the
 * last of them since the previous count, when they reach the threshold.
 * Commit mode 1 (TRCIDR0.COMMOPT): the packet carries no commit. */
static void cyc_committed(struct ete_enc *e, uint64_t n)
{
	uint64_t at, count, v, lim;
	uint8_t p[8];
	size_t len;

	if (!e->cc_on || n == 0 || n > e->cyc_n)
		return;
	e->cyc_head = (e->cyc_head + (size_t)n - 1) % e->cyc_cap;
	at = e->cyc_at[e->cyc_head];
	e->cyc_head = (e->cyc_head + 1) % e->cyc_cap;
	e->cyc_n -= (size_t)n;
	count = at - e->cyc_counted;
	if (count < e->cfg.cc_threshold)
		return;
	v = count - e->cfg.cc_threshold;
	/* Format 1 carries at most 3 C7 bytes, masked to the counter
	 * width: a larger count is sent as unknown (U = 1). */
	lim = e->info.cc_bits < 21 ? 1ull << e->info.cc_bits : 1ull << 21;
	if (v >= lim) {
		p[0] = 0x0f;
		len = 1;
	} else if (v <= 3) {
		p[0] = (uint8_t)(0x10 | v);        /* format 3 */
		len = 1;
	} else if (v <= 15) {
		p[0] = 0x0c;                       /* format 2 */
		p[1] = (uint8_t)v;
		len = 2;
	} else {
		p[0] = 0x0e;                       /* format 1 */
		len = 1 + put_c7(p + 1, v);
	}
	put_bytes(e, p, len);
	e->cyc_counted = at;
	e->st.cycle_counts++;
}

static void commit(struct ete_enc *e, uint64_t n)
{
	uint8_t b[8];

	if (n == 0 || e->maxspec == 0)
		return;
	b[0] = 0x2d; /* Commit, digest 5.9 */
	put_bytes(e, b, 1 + put_c7(b + 1, n));
	e->uncommitted -= n;
	e->st.commits++;
	cyc_committed(e, n);
}

/* Commit so that @k more P0 elements fit under the cap, leaving at least
 * @keep of the uncommitted ones. Returns 0, or -1 when that cannot be. */
static int make_room(struct ete_enc *e, uint64_t k, uint64_t keep)
{
	uint64_t c;

	if (e->maxspec == 0)
		return 0;
	if (keep + k > e->cap)
		return -1;
	if (e->uncommitted + k <= e->cap)
		return 0;
	c = e->uncommitted + k - e->cap;
	commit(e, c);
	return 0;
}

/* After a group of P0 packets: with spec_depth 0 under a MAXSPEC, commit
 * them at once. */
static void settle(struct ete_enc *e)
{
	if (e->maxspec && e->cfg.spec_depth == 0)
		commit(e, e->uncommitted);
}

/* Write @n atoms @a as the fewest atom packets of at most @lim atoms
 * each (shortest path over the positions; formats 1-3 hold any atoms). */
static void write_atoms(struct ete_enc *e, const uint8_t *a, unsigned n,
			unsigned lim)
{
	uint8_t cost[ATOM_CAP + 1], take[ATOM_CAP + 1];
	unsigned fmt;

	cost[n] = 0;
	for (unsigned i = n; i-- > 0;) {
		unsigned best = 255, bl = 1;

		for (unsigned k = 1; k <= 24 && i + k <= n && k <= lim; k++) {
			if (k > 3 && atom_header(a + i, k, &fmt) < 0)
				continue;
			if (cost[i + k] + 1u <= best) {
				best = cost[i + k] + 1u;
				bl = k;
			}
		}
		cost[i] = (uint8_t)best;
		take[i] = (uint8_t)bl;
	}
	for (unsigned i = 0; i < n; i += take[i]) {
		uint8_t h;

		make_room(e, take[i], 0);
		h = (uint8_t)atom_header(a + i, take[i], &fmt);
		put_bytes(e, &h, 1);
		e->st.atom_packets[fmt]++;
		if (e->maxspec)
			e->uncommitted += take[i];
		else
			cyc_committed(e, take[i]); /* at once (digest 7.2) */
	}
}

static unsigned atom_limit(const struct ete_enc *e)
{
	return e->maxspec == 0 ? 24 : (e->cap < 24 ? e->cap : 24);
}

/* The pending atoms out, without settling. */
static void flush_atoms_raw(struct ete_enc *e)
{
	if (e->natoms) {
		write_atoms(e, e->atoms, e->natoms, atom_limit(e));
		e->natoms = 0;
	}
}

static void q_close(struct ete_enc *e);

/* Before any other packet: the atoms, or the Q element, it follows. */
static void flush_atoms(struct ete_enc *e)
{
	if (e->natoms) {
		flush_atoms_raw(e);
		settle(e);
	}
	if (e->q_open)
		q_close(e);
}

static void push_atom(struct ete_enc *e, uint8_t a)
{
	if (e->natoms == ATOM_CAP)
		flush_atoms(e);
	e->atoms[e->natoms++] = a;
}

/* Wrong-path atoms for a synthesized cancel: any values (they are never
 * walked), varied so that every atom format gets used. */
static uint8_t wrong_path(const struct ete_enc *e, unsigned i)
{
	return (uint8_t)(((e->synth_seq * 5 + i) * 0x9e3779b9u >> 7) & 1);
}

/* Mispredict (digest 5.11): the atom @a traced first as !@a. */
static int synth_mispredict(struct ete_enc *e, uint8_t a)
{
	uint8_t b;

	if (e->cap < 1)
		return -1;
	if (e->synth_seq & 1) {
		/* !a as the newest atom of an atom packet, then 0x30. */
		push_atom(e, (uint8_t)!a);
		flush_atoms_raw(e);
		b = 0x30;
	} else {
		/* 0x31: append E, flip it to N; 0x33: append N, flip it
		 * to E. */
		flush_atoms_raw(e);
		make_room(e, 1, 0);
		b = a ? 0x33 : 0x31;
		e->uncommitted += 1;
	}
	put_bytes(e, &b, 1);
	settle(e);
	e->st.mispredicts++;
	return 0;
}

/* Cancel (digest 5.10): wrong-path atoms after @a, cancelled; some forms
 * also trace @a wrong and mispredict it. */
static int synth_cancel(struct ete_enc *e, uint8_t a)
{
	unsigned form = (unsigned)(e->synth_seq & 3), x, n = 0, mis;
	uint8_t w[8], b[8];

	if (e->cap < 2)
		return -1;
	switch (form) {
	case 0: /* F1, M = 0: cancel x wrong-path atoms */
		x = 1 + (unsigned)(e->synth_seq / 4 % 5);
		if (x > e->cap)
			x = e->cap;
		break;
	case 1: /* F1, M = 1 */
	case 3: /* F3: cancel CC + 2, the A bit's E atom included */
		x = (form == 3 ? 2 : 1) + (unsigned)(e->synth_seq / 4 % 4);
		if (x > e->cap - 1)
			x = e->cap - 1;
		if (form == 3 && x < 2)
			return -1;
		break;
	default: /* F2: one appended atom cancelled */
		x = 1;
		break;
	}
	mis = form != 0;
	push_atom(e, mis ? (uint8_t)!a : a);
	flush_atoms_raw(e);
	if (make_room(e, x, mis) < 0)
		return -1; /* not reached: x fits by the checks above */
	switch (form) {
	case 0:
	case 1:
		for (unsigned i = 0; i < x; i++)
			w[i] = wrong_path(e, i);
		write_atoms(e, w, x, x);
		b[0] = form ? 0x2f : 0x2e; /* Cancel F1, M */
		n = 1 + put_c7(b + 1, x);
		break;
	case 2: /* 0x35: append E; 0x37: append N; cancel 1, mispredict */
		b[0] = (e->synth_seq / 4) & 1 ? 0x37 : 0x35;
		e->uncommitted += 1;
		n = 1;
		break;
	default: {
		/* 0x38 | CC << 1 | A: A = 1 appends an E atom. */
		unsigned with_a = (unsigned)(e->synth_seq / 4) & 1;

		for (unsigned i = 0; i < x - with_a; i++)
			w[i] = wrong_path(e, i);
		if (x - with_a)
			write_atoms(e, w, x - with_a, x);
		b[0] = (uint8_t)(0x38 | (x - 2) << 1 | with_a);
		e->uncommitted += with_a;
		n = 1;
		break;
	}
	}
	put_bytes(e, b, n);
	e->uncommitted -= x;
	settle(e);
	e->st.cancels++;
	if (mis)
		e->st.mispredicts++;
	return 0;
}

/* The atom of a P0 instruction, or of a synthesized correction. */
static void trace_atom(struct ete_enc *e, uint8_t a)
{
	uint64_t n = ++e->atom_seq;
	const struct ete_enc_config *c = &e->cfg;

	e->st.p0++;
	cyc_push(e);
	if (c->mispredict_every && n % c->mispredict_every == 0 &&
	    synth_mispredict(e, a) == 0) {
		e->synth_seq++;
		return;
	}
	if (c->cancel_every && n % c->cancel_every == 0 &&
	    synth_cancel(e, a) == 0) {
		e->synth_seq++;
		return;
	}
	push_atom(e, a);
}

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

static uint8_t is_of(uint8_t isa)
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

static void emit_address(struct ete_enc *e, uint64_t a, uint8_t is)
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

static int context_differs(const struct ete_enc *e)
{
	const struct enc_ctx *w = &e->want, *s = &e->sent;

	return !e->sent_ok || w->el != s->el || w->ns != s->ns ||
	       w->sf != s->sf || (e->cid_on && w->cid != s->cid) ||
	       (e->vmid_on && w->vmid != s->vmid);
}

static void emit_context(struct ete_enc *e)
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
static void emit_context_address(struct ete_enc *e, uint64_t a, uint8_t is)
{
	uint8_t p[MAX_PKT];
	unsigned form;
	size_t na = addr_packet(e, p, a, is, &form), n;

	if (na <= 3 && !(e->cfg.flags & ETE_ENC_NO_COMPRESS)) {
		emit_context(e);
		emit_address(e, a, is);
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
static void q_close(struct ete_enc *e)
{
	uint8_t p[24];
	uint8_t is = is_of(e->q_isa);
	unsigned form;
	size_t n;

	e->q_open = 0;
	make_room(e, 1, 0);
	n = addr_packet(e, p, e->q_target, is, &form);
	if (form == etm4_addr_long64) {
		p[0] = 0xac;
		put_bytes(e, p, 1 + put_c7(p + 1, e->q_count));
		emit_address(e, e->q_target, is);
	} else {
		p[0] = (uint8_t)(p[0] + 0x10); /* 0x9N address -> 0xAN Q */
		n += put_c7(p + n, e->q_count);
		put_bytes(e, p, n);
		hist_push(e, e->q_target, is);
	}
	e->st.q_packets[p[0] & 0xf]++;
	cyc_push_at(e, e->q_cyc);
	if (e->maxspec)
		e->uncommitted++;
	else
		cyc_committed(e, 1);
	e->st.p0++;
	settle(e);
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
static int trace_q(struct ete_enc *e, const struct exec_rec *r, uint64_t n,
		   int branch, int taken)
{
	int sw = (r->flags & EXEC_F_ISA_SWITCH) != 0;

	if (!e->cfg.q_every)
		return 0;
	if (e->q_open && (sw || (branch && !taken) ||
			  n > UINT32_MAX - e->q_count))
		q_close(e);
	if (!e->q_open) {
		if (sw || (branch && !taken) || e->range_moved ||
		    n > UINT32_MAX || ++e->q_seq % e->cfg.q_every)
			return 0;
		flush_atoms(e); /* the atoms before it */
		e->q_open = 1;
		e->q_count = 0;
	}
	e->q_count += (uint32_t)n;
	e->q_target = e->pc;
	e->q_isa = e->isa;
	e->q_cyc = e->cyc_total;
	if (branch || !e->pc_known || e->pc != r->addr + r->size ||
	    e->isa != r->isa) {
		q_close(e);
		e->pc_known = 1; /* the Q's address says where */
	}
	return 1;
}

/* The context changes before @r, not at a P0 instruction, with a Q
 * open: the Q takes the instructions since its last P0 instruction, so
 * that its last one is the last in the old context and the Context
 * element follows it (D4.3.5.4, R LZLDH and the rule after I BTNZC). @r
 * then starts a range. */
static void q_to_context(struct ete_enc *e, const struct exec_rec *r)
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

static void emit_timestamp(struct ete_enc *e, uint64_t v)
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
static void emit_sync(struct ete_enc *e)
{
	static const uint8_t async[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0x80 };
	uint8_t tinfo[8] = { 0x01, 0x00 }; /* PLCTL 0: no sections */
	size_t n = 2;

	flush_atoms(e);
	commit(e, e->uncommitted);
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
	uint8_t is = is_of(r->isa);
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
			emit_sync(e);
		flush_atoms(e);
		put_bytes(e, &on, 1);
		e->tracing = 1;
		emit_context_address(e, r->addr, is);
		if (e->ts_pending) {
			emit_timestamp(e, e->ts_value);
			e->ts_pending = 0;
		}
	} else if (e->range_start &&
		   e->st.bytes - e->sync_mark >= e->sync_period) {
		/* Periodic resync where an atom's range starts, so that a
		 * decoder starting here misses nothing after it. */
		emit_sync(e);
		emit_context_address(e, r->addr, is);
	} else {
		int moved = !e->pc_known || e->pc != r->addr || e->isa != r->isa;

		if (moved && !e->range_start) {
			e->st.untraceable++;
			e->range_moved = 1;
		}
		if (context_differs(e)) {
			if (!moved)
				q_to_context(e, r);
			flush_atoms(e);
			if (moved)
				emit_context_address(e, r->addr, is);
			else
				emit_context(e);
		} else if (moved) {
			flush_atoms(e);
			emit_address(e, r->addr, is);
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
		if (!trace_q(e, r, n, (p0 & INSN_F_BRANCH) != 0, taken))
			trace_atom(e, (uint8_t)taken);
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
	flush_atoms(e);
	type = exc_type[r->number];
	reset = type == 0 && e->info.ete;
	/* E1:E0 = 0b10 when the decoder does not know where execution
	 * stands (after an untraced indirect branch): the return address
	 * is also the previous P0 element's target; else 0b01, the
	 * instructions up to the return address ran (digest 5.5). */
	interp = e->pc_known ? 1 : 2;
	if (e->pc_known && e->pc != r->addr)
		e->st.untraceable++; /* the walk cannot end at the address */
	make_room(e, 1, 0);
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
		emit_address(e, r->addr, is_of(e->isa));
	cyc_push(e);
	if (e->maxspec)
		e->uncommitted++;
	else
		cyc_committed(e, 1);
	e->st.p0++;
	settle(e);
	/* The handler's first instruction comes as a Target Address. */
	e->pc = r->addr;
	e->pc_known = 0;
	e->range_start = 1;
	e->range_moved = 0;
	e->open_insns = 0; /* the exception's range ends at its address */
	return e->err;
}

static int put_item(struct ete_enc *e, const struct exec_rec *r)
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
		flush_atoms(e);
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
		flush_atoms(e);
		emit_timestamp(e, r->value);
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
	return put_item(e, r);
}

int ete_enc_finish(struct ete_enc *e)
{
	if (!e || e->finished)
		return -etmkit_err_invalid;
	e->finished = 1;
	if (e->err)
		return e->err;
	e->st.untraceable += e->open_insns;
	flush_atoms(e);
	commit(e, e->uncommitted);
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
