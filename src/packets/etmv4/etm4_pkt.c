/* ETMv4 / ETE packet decoder (IHI 0064 packet chapter; Arm ARM D4 for ETE;
 * digest etmv4-ete.md sections 2-5 cited below as "digest").
 *
 * Packet parsers are pure: each reads a candidate packet from a byte range
 * and either completes it (returning its length), asks for more bytes
 * (returning 0, nothing changed) or rejects it (returning -length). The
 * decoder state (address history, running timestamp, cycle count
 * threshold, AArch64 flag) changes only once a packet is complete, so a
 * packet cut by the end of a chunk is simply parsed again, whole, when the
 * rest arrives.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv4/etm4_internal.h"
#include "packets/etmv4/etm4_fields.h"
#include "packets/etmv4/etm4_view.h"

_Static_assert(sizeof(struct etm4_tmpl) == 16, "template size");
_Static_assert(offsetof(struct etm4_packet, u) ==
		       offsetof(struct etm4_packet, type) + 8,
	       "one-byte template must cover type..8 bytes of u");
_Static_assert(sizeof(struct etm4_atoms) <= 8, "atoms fit the template");

/* ---- Packet parsers --------------------------------------------------------- */

/* Trace Info (digest 5.2): PLCTL, then the INFO, KEY, SPEC, CYCT and WNDW
 * sections its bits 0-4 name, in that order, each a C7 field of at most 5
 * bytes. Resets the address history, the timestamp reference (OpenCSD,
 * U10) and the cycle count threshold. */
static int parse_trace_info(struct etm4_pkt_decoder *dec, const uint8_t *p,
			    size_t avail, struct etm4_packet *pkt)
{
	struct etm4_trace_info *ti = &pkt->u.tinfo;
	uint32_t sect[5] = { 0 }, plctl = 0;
	unsigned i = 1;
	int c;

	pkt->type = etm4_pkt_trace_info;
	c = read_c7(p + 1, avail - 1, 5, &plctl);
	if (c == 0)
		return 0;
	if (c < 0)
		BAD(1 - c, "Trace Info: PLCTL longer than 5 bytes");
	i += (unsigned)c;
	for (unsigned s = 0; s < 5; s++) {
		if (!(plctl & (1u << s)))
			continue;
		c = read_c7(p + i, avail - i, 5, &sect[s]);
		if (c == 0)
			return 0;
		if (c < 0)
			BAD(i - (unsigned)c, "Trace Info: section longer than 5 bytes");
		i += (unsigned)c;
	}
	ti->plctl = plctl;
	ti->info = sect[0];
	ti->key = sect[1];
	ti->spec = sect[2];
	ti->cyct = sect[3];
	ti->wndw = sect[4];
	memset(dec->hist_addr, 0, sizeof(dec->hist_addr));
	memset(dec->hist_is, 0, sizeof(dec->hist_is)); /* IS0 (U18) */
	dec->ts = 0;
	dec->cyct = ti->cyct;
	return (int)i;
}

/* Timestamp (digest 5.3): the field updates the low bits it carries of the
 * running timestamp; header 0x03 adds a cycle count (C7, at most 3 bytes)
 * masked to the counter size and not offset by CYCT. */
static int parse_timestamp(struct etm4_pkt_decoder *dec, const uint8_t *p,
			   size_t avail, struct etm4_packet *pkt)
{
	struct etm4_timestamp *ts = &pkt->u.ts;
	uint64_t v = 0, m;
	uint32_t cc = 0;
	unsigned bits = 0;
	int i, c;

	pkt->type = etm4_pkt_timestamp;
	i = read_ts(p + 1, avail - 1, &v, &bits);
	if (i == 0)
		return 0;
	i++;
	if (p[0] & 1) {
		c = read_c7(p + i, avail - (size_t)i, 3, &cc);
		if (c == 0)
			return 0;
		if (c < 0)
			BAD(i - c, "Timestamp: cycle count longer than 3 bytes");
		i += c;
	}
	m = mask64(bits);
	dec->ts = (dec->ts & ~m) | (v & m);
	ts->value = dec->ts;
	ts->bits = (uint8_t)bits;
	ts->has_cc = p[0] & 1;
	ts->cc = cc & (uint32_t)mask64(dec->info.cc_bits);
	return i;
}

/* Exception (digest 5.5): byte 1 C|E1|TYPE[4:0]|E0, byte 2 (C = 1)
 * -|-|P|TYPE[9:5]. In ETE, types 0x00 (PE reset) and 0x18 (transaction
 * failure) always take three bytes, whatever C says: OpenCSD's rule, which
 * the captures follow (`06 31 70`, tme_test; U4). */
static int parse_exception(struct etm4_pkt_decoder *dec, const uint8_t *p,
			   size_t avail, struct etm4_packet *pkt)
{
	struct etm4_exception *e = &pkt->u.exception;
	unsigned len = 2, low;

	pkt->type = etm4_pkt_exception;
	NEED(2);
	low = (p[1] >> 1) & 0x1f;
	if ((p[1] & 0x80) || (dec->info.ete && (low == 0x00 || low == 0x18)))
		len = 3;
	NEED(len);
	e->type = (uint16_t)low;
	e->pending = 0;
	if (p[1] & 0x80) {
		e->type |= (uint16_t)((p[2] & 0x1f) << 5);
		e->pending = (p[2] >> 5) & 1;
	}
	e->addr_interp = (uint8_t)(((p[1] >> 5) & 2) | (p[1] & 1));
	return (int)len;
}

static void cc_init(struct etm4_packet *pkt, unsigned format)
{
	pkt->type = etm4_pkt_cycle_count;
	memset(&pkt->u.cc, 0, sizeof(pkt->u.cc));
	pkt->u.cc.format = (uint8_t)format;
}

/* Cycle count format 1, 0000 111U (digest 5.8): a commit field (C7, 5
 * bytes) unless COMMOPT, then unless U the count (C7, 3 bytes). */
static int parse_cc1(struct etm4_pkt_decoder *dec, const uint8_t *p,
		     size_t avail, struct etm4_packet *pkt)
{
	struct etm4_cc *cc = &pkt->u.cc;
	unsigned i = 1;
	uint32_t v = 0;
	int c;

	cc_init(pkt, 1);
	if (!dec->info.commopt) {
		c = read_c7(p + 1, avail - 1, 5, &cc->commit);
		if (c == 0)
			return 0;
		if (c < 0)
			BAD(1 - c, "Cycle count format 1: commit longer than 5 bytes");
		cc->has_commit = 1;
		i += (unsigned)c;
	}
	if (p[0] & 1) {
		cc->unknown = 1; /* count 0, as OpenCSD reports it */
		return (int)i;
	}
	c = read_c7(p + i, avail - i, 3, &v);
	if (c == 0)
		return 0;
	if (c < 0)
		BAD(i - (unsigned)c, "Cycle count format 1: count longer than 3 bytes");
	cc->count = (v & (uint32_t)mask64(dec->info.cc_bits)) + dec->cyct;
	return (int)i + c;
}

/* Cycle count format 2, 0000 110F + AAAA BBBB: count BBBB + CYCT; commit
 * (COMMOPT 0) AAAA + 1, or MAXSPEC - 15 + AAAA when F = 1. */
static int parse_cc2(struct etm4_pkt_decoder *dec, const uint8_t *p,
		     size_t avail, struct etm4_packet *pkt)
{
	struct etm4_cc *cc = &pkt->u.cc;
	unsigned a;

	cc_init(pkt, 2);
	NEED(2);
	a = p[1] >> 4;
	cc->count = (p[1] & 0xfu) + dec->cyct;
	if (dec->info.commopt)
		return 2;
	if (p[0] & 1) {
		int64_t commit = (int64_t)dec->info.maxspec - 15 + a;

		if (commit < 0)
			BAD(2, "Cycle count format 2: commit below zero "
			       "(TRCIDR8.MAXSPEC < 15 - AAAA)");
		cc->commit = (uint32_t)commit;
	} else {
		cc->commit = a + 1;
	}
	cc->has_commit = 1;
	return 2;
}

/* Cycle count format 3, 0001 AABB: count BB + CYCT; commit AA + 1. */
static int parse_cc3(struct etm4_pkt_decoder *dec, const uint8_t *p,
		     struct etm4_packet *pkt)
{
	struct etm4_cc *cc = &pkt->u.cc;

	cc_init(pkt, 3);
	cc->count = (p[0] & 3u) + dec->cyct;
	if (!dec->info.commopt) {
		cc->commit = ((p[0] >> 2) & 3u) + 1;
		cc->has_commit = 1;
	}
	return 1;
}

static void spec_init(struct etm4_packet *pkt, uint8_t type, unsigned format)
{
	pkt->type = type;
	memset(&pkt->u.spec, 0, sizeof(pkt->u.spec));
	pkt->u.spec.format = (uint8_t)format;
}

/* Commit (0x2d) and Cancel format 1 (0x2e, 0x2f: M), digest 5.9, 5.10. */
static int parse_commit_cancel(struct etm4_pkt_decoder *dec, const uint8_t *p,
			       size_t avail, struct etm4_packet *pkt)
{
	int c;

	(void)dec;
	if (p[0] == 0x2d) {
		spec_init(pkt, etm4_pkt_commit, 0);
	} else {
		spec_init(pkt, etm4_pkt_cancel, 1);
		pkt->u.spec.mispredict = p[0] & 1;
	}
	c = read_c7(p + 1, avail - 1, 5, &pkt->u.spec.count);
	if (c == 0)
		return 0;
	if (c < 0)
		BAD(1 - c, "Commit/Cancel: count longer than 5 bytes");
	return c + 1;
}

/* Mispredict 0011 00AA, Cancel format 2 0011 01AA, format 3 0011 1CCA
 * (digest 5.10, 5.11). AA: none, E, E E, N. */
static int parse_spec(const uint8_t *p, struct etm4_packet *pkt)
{
	static const uint8_t aa_bits[4] = { 0, 1, 3, 0 };
	static const uint8_t aa_count[4] = { 0, 1, 2, 1 };
	struct etm4_spec *s = &pkt->u.spec;
	unsigned b = p[0];

	if (b < 0x38) {
		spec_init(pkt, b < 0x34 ? etm4_pkt_mispredict : etm4_pkt_cancel,
			  b < 0x34 ? 0 : 2);
		s->atoms.bits = aa_bits[b & 3];
		s->atoms.count = aa_count[b & 3];
		s->count = b < 0x34 ? 0 : 1;
	} else {
		spec_init(pkt, etm4_pkt_cancel, 3);
		s->atoms.bits = b & 1;
		s->atoms.count = b & 1;
		s->count = ((b >> 1) & 3) + 2;
	}
	s->mispredict = 1;
	return 1;
}

/* Context info byte and its VMID and Context ID (digest 5.18), at p[i].
 * Returns the index after them, 0 if more bytes are needed, or -(index
 * after the info byte) when the packet asks for a field the configuration
 * has no size for. */
static int read_context(const struct etm4_pkt_decoder *dec, const uint8_t *p,
			size_t avail, unsigned i, struct etm4_context *ctx)
{
	unsigned info, vb, cb;

	NEED(i + 1);
	info = p[i++];
	vb = (info & 0x40) ? dec->info.vmid_bytes : 0;
	cb = (info & 0x80) ? dec->info.cid_bytes : 0;
	/* A V or C bit with no size configured: the registers do not
	 * describe this trace (OpenCSD would read no bytes and go on). */
	if (((info & 0x40) && !vb) || ((info & 0x80) && !cb))
		return -(int)i;
	NEED(i + vb + cb);
	ctx->updated = 1;
	ctx->el = info & 3;
	ctx->nse = (info >> 3) & 1;
	ctx->sf = (info >> 4) & 1;
	ctx->ns = (info >> 5) & 1;
	ctx->has_vmid = vb != 0;
	ctx->has_cid = cb != 0;
	ctx->vmid = (uint32_t)le_n(p + i, vb);
	ctx->context_id = (uint32_t)le_n(p + i + vb, cb);
	return (int)(i + vb + cb);
}

static void commit_context(struct etm4_pkt_decoder *dec,
			   const struct etm4_context *ctx)
{
	if (ctx->updated) {
		dec->sf = ctx->sf;
		dec->sf_known = 1;
	}
}

static const char why_ctxt_size[] =
	"Context: V or C bit set but TRCIDR2 gives that field no size";

/* Context 0x80 (unchanged) and 0x81 (digest 5.18). */
static int parse_context(struct etm4_pkt_decoder *dec, const uint8_t *p,
			 size_t avail, struct etm4_packet *pkt)
{
	struct etm4_context *ctx = &pkt->u.context;
	int i;

	pkt->type = etm4_pkt_context;
	memset(ctx, 0, sizeof(*ctx));
	if (p[0] == 0x80)
		return 1;
	i = read_context(dec, p, avail, 1, ctx);
	if (i == 0)
		return 0;
	if (i < 0)
		BAD(-i, why_ctxt_size);
	commit_context(dec, ctx);
	return i;
}

/* Address with Context, 0x82/0x83 (32-bit IS0/IS1), 0x85/0x86 (64-bit),
 * digest 5.20. A 32-bit address here takes its upper half by the context
 * in the same packet (OpenCSD uses the previous context; an AArch32
 * context's address has no upper half either way in the captures). */
static int parse_addr_context(struct etm4_pkt_decoder *dec, const uint8_t *p,
			      size_t avail, struct etm4_packet *pkt)
{
	struct etm4_address *a = &pkt->u.a.addr;
	struct etm4_context *ctx = &pkt->u.a.context;
	unsigned nb = p[0] <= 0x83 ? 4 : 8, is = p[0] == 0x83 || p[0] == 0x86;
	int i;

	pkt->type = etm4_pkt_address_context;
	memset(ctx, 0, sizeof(*ctx));
	NEED(1 + nb);
	i = read_context(dec, p, avail, 1 + nb, ctx);
	if (i == 0)
		return 0;
	if (i < 0)
		BAD(-i, why_ctxt_size);
	read_long(dec, p + 1, is, nb, ctx->sf, a);
	commit_context(dec, ctx);
	push_addr(dec, a);
	return i;
}

/* Address packets: exact match 0x90-0x92, short 0x95/0x96, long 32-bit
 * 0x9a/0x9b, long 64-bit 0x9d/0x9e (digest 5.19); ETE source addresses
 * 0xb0-0xb2, 0xb4/0xb5, 0xb6/0xb7, 0xb8/0xb9 (digest 5.22) use the same
 * history. Every form pushes its address, exact matches included. */
static int parse_address(struct etm4_pkt_decoder *dec, unsigned kind,
			 const uint8_t *p, size_t avail, struct etm4_packet *pkt)
{
	struct etm4_address *a = &pkt->u.a.addr;
	unsigned b = p[0], src = b >= 0xb0;
	int len;

	pkt->type = src ? etm4_pkt_source_address : etm4_pkt_address;
	switch (kind) {
	case ETM4_K_EXACT:
		addr_exact(dec, b & 3, a);
		len = 1;
		break;
	case ETM4_K_SHORT:
		len = read_short(dec, p + 1, avail - 1, src ? b & 1 : b == 0x96, a);
		if (len == 0)
			return 0;
		len++;
		break;
	case ETM4_K_LONG32:
		NEED(5);
		read_long(dec, p + 1, b & 1, 4, sf_upper(dec), a);
		len = 5;
		break;
	default: /* ETM4_K_LONG64 */
		NEED(9);
		read_long(dec, p + 1, src ? b & 1 : b == 0x9e, 8, 0, a);
		len = 9;
		break;
	}
	push_addr(dec, a);
	return len;
}

/* Q, 1010 TTTT (digest 5.17): types 0-2 exact match, 5/6 short, A/B long
 * 32-bit address, then a C7 count (5 bytes); C count only; F neither (the
 * address follows in an address packet for C and F). */
static int parse_q(struct etm4_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, struct etm4_packet *pkt)
{
	struct etm4_q *q = &pkt->u.q;
	unsigned t = p[0] & 0xf, i = 1;
	int c;

	pkt->type = etm4_pkt_q;
	memset(q, 0, sizeof(*q));
	q->qtype = (uint8_t)t;
	switch (t) {
	case 0x0: case 0x1: case 0x2:
		addr_exact(dec, t, &q->addr);
		q->has_addr = 1;
		break;
	case 0x5: case 0x6:
		c = read_short(dec, p + 1, avail - 1, t == 6, &q->addr);
		if (c == 0)
			return 0;
		i += (unsigned)c;
		q->has_addr = 1;
		break;
	case 0xa: case 0xb:
		NEED(5);
		read_long(dec, p + 1, t & 1, 4, sf_upper(dec), &q->addr);
		i = 5;
		q->has_addr = 1;
		break;
	case 0xc:
		q->addr_follows = 1;
		break;
	default: /* 0xf */
		q->addr_follows = 1;
		return 1;
	}
	c = read_c7(p + i, avail - i, 5, &q->count);
	if (c == 0)
		return 0;
	if (c < 0)
		BAD(i - (unsigned)c, "Q: count longer than 5 bytes");
	q->has_count = 1;
	if (q->has_addr)
		push_addr(dec, &q->addr);
	return (int)i + c;
}

/* Instrumentation (ETE 1.3, digest 5.25): header, the EL byte, the TRCIT
 * operand as 8 bytes, least significant first. */
static int parse_ite(const uint8_t *p, size_t avail, struct etm4_packet *pkt)
{
	pkt->type = etm4_pkt_instrumentation;
	NEED(10);
	pkt->u.ite.el = p[1]; /* as carried: EL in bits 1:0 (U20) */
	pkt->u.ite.value = le_n(p + 2, 8);
	return 10;
}

/* ---- ETMv4 conditional and data-sync packets (digest 5.21) -------------- */
/* Fields as carried (OpenCSD parses these without decoding them, U22):
 *   data_sync 0x20-0x2c: num = b2..b0, flags = 1 when unnumbered (0x28+);
 *   cond_instr F1 0x6c: key; F2 0x40-0x42: token = b1..b0; F3 0x6d: num =
 *     NUM, flags = Z;
 *   cond_result F1 0x68-0x6b (two results), 0x6e/0x6f (one): num = results,
 *     flags = CI bits (bit i for result i), key/result and key2/result2;
 *     F2 0x48-0x4e: flags = K, token; F3 0x50-0x5f: 12-bit token; F4
 *     0x44-0x46: token. */

static void cond_init(struct etm4_packet *pkt, uint8_t type, unsigned format)
{
	pkt->type = type;
	memset(&pkt->u.cond, 0, sizeof(pkt->u.cond));
	pkt->u.cond.format = (uint8_t)format;
}

static int parse_cond1(const uint8_t *p, struct etm4_packet *pkt)
{
	struct etm4_cond *c = &pkt->u.cond;
	unsigned b = p[0];

	if (b < 0x2d) {
		cond_init(pkt, etm4_pkt_data_sync, 0);
		c->num = b & 7;
		c->flags = b >= 0x28;
	} else if (b < 0x43) {
		cond_init(pkt, etm4_pkt_cond_instr, 2);
		c->token = b & 3;
	} else if (b == 0x43) {
		cond_init(pkt, etm4_pkt_cond_flush, 0);
	} else if (b < 0x47) {
		cond_init(pkt, etm4_pkt_cond_result, 4);
		c->token = b & 3;
	} else {
		cond_init(pkt, etm4_pkt_cond_result, 2);
		c->flags = (b >> 2) & 1;
		c->token = b & 3;
	}
	return 1;
}

/* One result of Conditional Result format 1: RESULT in b3..b0 and KEY[2:0]
 * in b6..b4 of the first byte, then C7 bytes of KEY; at most 6 bytes. */
static int read_cond_result(const uint8_t *p, size_t avail, uint32_t *key,
			    uint8_t *result)
{
	uint32_t k;

	NEED(1);
	*result = p[0] & 0xf;
	k = (p[0] >> 4) & 7;
	for (unsigned i = 0; i < 6; i++) {
		NEED(i + 1);
		if (i)
			k |= (uint32_t)(p[i] & 0x7f) << (3 + 7 * (i - 1));
		if (!(p[i] & 0x80)) {
			*key = k;
			return (int)i + 1;
		}
	}
	return -6;
}

static int parse_cond(unsigned kind, const uint8_t *p, size_t avail,
		      struct etm4_packet *pkt)
{
	struct etm4_cond *c = &pkt->u.cond;
	unsigned i = 1;
	int n;

	switch (kind) {
	case ETM4_K_COND_I1:
		cond_init(pkt, etm4_pkt_cond_instr, 1);
		n = read_c7(p + 1, avail - 1, 5, &c->key);
		if (n == 0)
			return 0;
		if (n < 0)
			BAD(1 - n, "Conditional instruction: key longer than 5 bytes");
		return n + 1;
	case ETM4_K_COND_I3:
		cond_init(pkt, etm4_pkt_cond_instr, 3);
		NEED(2);
		c->num = (p[1] >> 1) & 0x3f;
		c->flags = p[1] & 1;
		return 2;
	case ETM4_K_COND_R3:
		cond_init(pkt, etm4_pkt_cond_result, 3);
		NEED(2);
		c->token = (uint32_t)(p[0] & 0xf) << 8 | p[1];
		return 2;
	default: /* ETM4_K_COND_R1 */
		cond_init(pkt, etm4_pkt_cond_result, 1);
		c->num = (p[0] & 0xfc) == 0x6c ? 1 : 2;
		c->flags = p[0] & (c->num == 2 ? 3 : 1);
		n = read_cond_result(p + 1, avail - 1, &c->key, &c->result);
		if (n == 0)
			return 0;
		if (n < 0)
			BAD(1 - n, "Conditional result: field longer than 6 bytes");
		i += (unsigned)n;
		if (c->num == 2) {
			n = read_cond_result(p + i, avail - i, &c->key2, &c->result2);
			if (n == 0)
				return 0;
			if (n < 0)
				BAD(i - (unsigned)n,
				    "Conditional result: field longer than 6 bytes");
			i += (unsigned)n;
		}
		return (int)i;
	}
}

/* ---- Dispatch ------------------------------------------------------------- */

static int parse_payload(struct etm4_pkt_decoder *dec, unsigned kind,
			 const uint8_t *p, size_t avail, struct etm4_packet *pkt)
{
	switch (kind) {
	case ETM4_K_TINFO: return parse_trace_info(dec, p, avail, pkt);
	case ETM4_K_TS: return parse_timestamp(dec, p, avail, pkt);
	case ETM4_K_EXC: return parse_exception(dec, p, avail, pkt);
	case ETM4_K_CC1: return parse_cc1(dec, p, avail, pkt);
	case ETM4_K_CC2: return parse_cc2(dec, p, avail, pkt);
	case ETM4_K_CC3: return parse_cc3(dec, p, pkt);
	case ETM4_K_COMMIT:
	case ETM4_K_CANCEL1: return parse_commit_cancel(dec, p, avail, pkt);
	case ETM4_K_SPEC: return parse_spec(p, pkt);
	case ETM4_K_CTXT: return parse_context(dec, p, avail, pkt);
	case ETM4_K_ADDR_CTXT: return parse_addr_context(dec, p, avail, pkt);
	case ETM4_K_EXACT:
	case ETM4_K_SHORT:
	case ETM4_K_LONG32:
	case ETM4_K_LONG64: return parse_address(dec, kind, p, avail, pkt);
	case ETM4_K_Q: return parse_q(dec, p, avail, pkt);
	case ETM4_K_ITE: return parse_ite(p, avail, pkt);
	case ETM4_K_COND1: return parse_cond1(p, pkt);
	default: return parse_cond(kind, p, avail, pkt);
	}
}

/* Decode the packet at p[0..avail) (p[0] is not 0x00). Returns its length
 * (> 0), 0 when more bytes are needed, or -(length) for a rejected packet
 * (pkt->why set). Fills pkt's type, size, error, length, raw and payload;
 * not offset. */
int etm4_decode_one(struct etm4_pkt_decoder *dec, const uint8_t *p,
		      size_t avail, struct etm4_packet *pkt)
{
	unsigned kind = dec->kind[p[0]];
	unsigned n;
	int len;

	pkt->error = 0;
	pkt->why = NULL;
	if (kind == ETM4_K_TMPL) {
		memcpy(&pkt->type, &dec->tmpl[p[0]], sizeof(dec->tmpl[0]));
		pkt->raw[0] = p[0];
		return 1;
	}
	if (kind == ETM4_K_RESERVED || kind == ETM4_K_EXT) {
		pkt->type = etm4_pkt_reserved;
		pkt->why = dec->why[p[0]];
		len = -1;
	} else {
		len = parse_payload(dec, kind, p, avail, pkt);
		if (len == 0)
			return 0;
	}
	n = (unsigned)(len < 0 ? -len : len);
	pkt->length = n;
	pkt->size = (uint8_t)n;
	/* A fixed-size copy is two vector moves; bytes past the packet are
	 * outside size and never read as packet bytes. */
	if (avail >= ETM4_PKT_MAX_BYTES)
		memcpy(pkt->raw, p, ETM4_PKT_MAX_BYTES);
	else
		memcpy(pkt->raw, p, n);
	if (len < 0)
		pkt->error = -etmkit_err_bad_packet;
	return len;
}

/* Forget every reference: after reset and after losing sync nothing
 * decoded before may be relied on. */
void etm4_reset_state(struct etm4_pkt_decoder *dec)
{
	memset(dec->hist_addr, 0, sizeof(dec->hist_addr));
	memset(dec->hist_is, 0, sizeof(dec->hist_is));
	dec->ts = 0;
	dec->cyct = 0;
	dec->sf = 0;
	dec->sf_known = 0;
}

/* ---- Fast paths --------------------------------------------------------- */
/* The commonest multi-byte packets (digest 9: atoms, then short and long
 * addresses, exact matches and, with cycle counting, formats 2 and 3;
 * exceptions and contexts), decoded in the synced loop when
 * ETM4_FAST_MIN (etm4_fields.h) bytes of input are at hand. Each writes
 * the record etm4_decode_one() would (raw: the packet's bytes, then
 * whatever follows, outside size). */

static inline void fast_head(struct etm4_packet *pkt, size_t pos,
			     uint8_t type, unsigned len, const uint8_t *p)
{
	pkt->offset = pos;
	pkt->type = type;
	pkt->size = (uint8_t)len;
	pkt->error = 0;
	pkt->length = len;
	memcpy(pkt->raw, p, ETM4_FAST_MIN);
}

static inline unsigned fast_short(struct etm4_pkt_decoder *dec,
				  const uint8_t *p, size_t pos,
				  struct etm4_packet *pkt)
{
	unsigned len = short_addr(dec, p, &pkt->u.a.addr);

	push_addr(dec, &pkt->u.a.addr);
	fast_head(pkt, pos, p[0] >= 0xb0 ? etm4_pkt_source_address :
					   etm4_pkt_address, len, p);
	return len;
}

static inline unsigned fast_long32(struct etm4_pkt_decoder *dec,
				   const uint8_t *p, size_t pos,
				   struct etm4_packet *pkt)
{
	unsigned b = p[0];

	read_long(dec, p + 1, b & 1, 4, sf_upper(dec), &pkt->u.a.addr);
	push_addr(dec, &pkt->u.a.addr);
	fast_head(pkt, pos, b >= 0xb0 ? etm4_pkt_source_address : etm4_pkt_address,
		  5, p);
	return 5;
}

static inline unsigned fast_exact(struct etm4_pkt_decoder *dec,
				  const uint8_t *p, size_t pos,
				  struct etm4_packet *pkt)
{
	unsigned b = p[0];

	addr_exact(dec, b & 3, &pkt->u.a.addr);
	push_addr(dec, &pkt->u.a.addr);
	fast_head(pkt, pos, b >= 0xb0 ? etm4_pkt_source_address : etm4_pkt_address,
		  1, p);
	return 1;
}

/* Cycle count formats 2 and 3 (parse_cc2(), parse_cc3()) with the format
 * selected arithmetically: they alternate in no predictable order. */
static inline unsigned fast_cc(struct etm4_pkt_decoder *dec, unsigned kind,
			       const uint8_t *p, size_t pos,
			       struct etm4_packet *pkt)
{
	struct etm4_cc *cc = &pkt->u.cc;
	unsigned f3 = kind == ETM4_K_CC3, a = p[1] >> 4;
	int64_t commit = f3 ? ((p[0] >> 2) & 3) + 1 :
		(p[0] & 1) ? (int64_t)dec->info.maxspec - 15 + a : a + 1;

	if (commit < 0 && !dec->info.commopt)
		return 0; /* F = 1 below zero: etm4_decode_one() reports it */
	cc->count = (f3 ? p[0] & 3u : p[1] & 0xfu) + dec->cyct;
	cc->commit = dec->info.commopt ? 0 : (uint32_t)commit;
	cc->format = (uint8_t)(3 - !f3);
	cc->unknown = 0;
	cc->has_commit = !dec->info.commopt;
	fast_head(pkt, pos, etm4_pkt_cycle_count, 2 - f3, p);
	return 2 - f3;
}

/* The record of a packet another parser read from p[0..16): complete, or
 * 0 when rejected (etm4_decode_one() reports it). */
static inline unsigned fast_other(int len, const uint8_t *p, size_t pos,
				  struct etm4_packet *pkt)
{
	if (len <= 0)
		return 0;
	pkt->offset = pos;
	pkt->size = (uint8_t)len;
	pkt->error = 0;
	pkt->length = (uint32_t)len;
	memcpy(pkt->raw, p, ETM4_FAST_MIN);
	return (unsigned)len;
}

/* A packet other than a one-byte one at buf[pos], synced, into @pkt with
 * offset = pos. Returns its length, or 0 to leave it to next_slow(). */
static unsigned synced_other(struct etm4_pkt_decoder *dec, size_t pos,
			     struct etm4_packet *pkt)
{
	const uint8_t *p = dec->in.buf + pos;
	size_t avail = dec->in.n - pos;
	unsigned k = dec->kind[p[0]];
	int len;

	if (avail >= ETM4_FAST_MIN) {
		/* Tested in the order of their frequency in the captures. */
		if (k == ETM4_K_SHORT)
			return fast_short(dec, p, pos, pkt);
		if (k == ETM4_K_LONG32)
			return fast_long32(dec, p, pos, pkt);
		if (k == ETM4_K_EXACT)
			return fast_exact(dec, p, pos, pkt);
		if (k == ETM4_K_CC3 || k == ETM4_K_CC2) {
			len = (int)fast_cc(dec, k, p, pos, pkt);
			if (len)
				return (unsigned)len;
		}
		if (k == ETM4_K_EXC)
			return fast_other(parse_exception(dec, p, avail, pkt), p, pos, pkt);
		if (k == ETM4_K_CTXT)
			return fast_other(parse_context(dec, p, avail, pkt), p, pos, pkt);
	}
	if (p[0] == 0x00)
		return 0; /* A-sync, discard, overflow: next_slow() */
	len = etm4_decode_one(dec, p, avail, pkt);
	if (len <= 0)
		return 0; /* cut or rejected: next_slow() decodes it again */
	pkt->offset = pos;
	return (unsigned)len;
}

/* ETM4_CFG_ADDR_RUNS: the target address packet at @p (ETM4_FAST_MIN
 * bytes at hand) into the run's next address (etm4_target_address()).
 * Returns its length, or 0 for any other packet. */
static inline unsigned run_address(struct etm4_pkt_decoder *dec,
				   const uint8_t *p)
{
	struct etm4_run_addr *r = &dec->raddr[dec->nraddr];
	unsigned len = etm4_target_address(dec, p, &r->addr);

	if (!len)
		return 0;
	r->length = len;
	dec->nraddr++;
	return len;
}

/* A run record (ETM4_CFG_ATOM_RUNS) from buf[pos]: atom packets and with
 * @addrs target address packets, while they come whole. Returns the
 * position after it (pos itself when the packet there cannot start one). */
static size_t make_run(struct etm4_pkt_decoder *dec, size_t pos, int addrs,
		       struct etm4_packet *pkt)
{
	const uint8_t *buf = dec->in.buf;
	const struct etm4_atoms *atoms = dec->atoms;
	size_t n = dec->in.n;
	/* count fits 32 bits, an address packet included */
	size_t lim = n - pos < UINT32_MAX - 16 ? n : pos + UINT32_MAX - 16;
	uint32_t a0 = dec->nraddr;
	size_t end = pos;

	while (end < lim) {
		unsigned len;

		if (atoms[buf[end]].count) {
			end++;
			continue;
		}
		if (!addrs || dec->nraddr == ETM4_RUN_ADDRS ||
		    n - end < ETM4_FAST_MIN)
			break;
		len = run_address(dec, buf + end);
		if (!len)
			break;
		end += len;
	}
	if (end == pos)
		return pos;
	pkt->offset = pos;
	pkt->type = etm4_pkt_atom_run;
	pkt->size = 1;
	pkt->error = 0;
	pkt->length = (uint32_t)(end - pos);
	pkt->raw[0] = buf[pos];
	pkt->u.run.headers = buf + pos;
	pkt->u.run.offsets = dec->in.offs ? dec->in.offs + pos : NULL;
	pkt->u.run.count = (uint32_t)(end - pos);
	pkt->u.run.naddr = dec->nraddr - a0;
	pkt->u.run.addrs = dec->nraddr > a0 ? &dec->raddr[a0] : NULL;
	return end;
}

/* Whether header @b starts a target address packet: an exact match,
 * short, or long one below 0xb0 (etm4_target_address()). */
static inline int target_header(const struct etm4_pkt_decoder *dec,
				unsigned b)
{
	return b < 0xb0 && (unsigned)(dec->kind[b] - ETM4_K_EXACT) <=
				   (unsigned)(ETM4_K_LONG64 - ETM4_K_EXACT);
}

/* The synced path: whole packets as long as they come, one-byte packets
 * from their templates and the commonest others inline (most of a typical
 * stream, digest 9). Anything else (a 0x00 header, a packet cut by the end
 * of the input, an error) is left at dec->in.pos for next_slow(). Records get
 * input positions first, turned into offsets at the end: the loop keeps
 * fewer values live. With @others (a constant), atom and target address
 * packets are left there too (etm4_next_others()). Returns the new count
 * of records in pkts[]. */
static inline __attribute__((always_inline)) size_t
next_synced(struct etm4_pkt_decoder *dec, struct etm4_packet *pkts,
	    size_t out, size_t max, const int others)
{
	const uint8_t *buf = dec->in.buf;
	const struct etm4_tmpl *tmpl = dec->tmpl;
	const struct etm4_atoms *atoms = dec->atoms;
	unsigned flags = dec->cfg.flags;
	int addrs = !!(flags & ETM4_CFG_ADDR_RUNS);
	int runs = addrs || (flags & ETM4_CFG_ATOM_RUNS);
	size_t pos = dec->in.pos, n = dec->in.n, first = out;

	while (out < max && pos < n) {
		uint8_t b = buf[pos];
		struct etm4_packet *pkt = &pkts[out];
		unsigned len;

		/* Atom packets, one byte each (digest 5.14), and target
		 * addresses: one record for the run. */
		if (others && (atoms[b].count || target_header(dec, b)))
			break;
		if (runs && (atoms[b].count ||
			     (addrs && target_header(dec, b)))) {
			size_t end = make_run(dec, pos, addrs, pkt);

			if (end != pos) {
				pos = end;
				out++;
				continue;
			}
		}
		/* Templates have size 1, other headers 0. */
		if (tmpl[b].size) {
			pkt->offset = pos;
			memcpy(&pkt->type, &tmpl[b], sizeof(tmpl[b]));
			pkt->raw[0] = b;
			pos++;
			out++;
			continue;
		}
		len = synced_other(dec, pos, pkt);
		if (!len)
			break;
		pos += len;
		out++;
	}
	if (dec->in.offs) {
		for (size_t i = first; i < out; i++)
			pkts[i].offset = dec->in.offs[pkts[i].offset];
	} else if (dec->in.base) {
		for (size_t i = first; i < out; i++)
			pkts[i].offset += dec->in.base;
	}
	dec->in.pos = pos;
	return out;
}

size_t etm4_next_synced(struct etm4_pkt_decoder *dec,
			struct etm4_packet *pkts, size_t out, size_t max)
{
	return next_synced(dec, pkts, out, max, 0);
}

size_t etm4_next_others(struct etm4_pkt_decoder *dec,
			struct etm4_packet *pkts, size_t max)
{
	return next_synced(dec, pkts, 0, max, 1);
}

