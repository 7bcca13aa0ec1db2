/* ETMv3 packet decoder (ARM IHI 0014Q chapter 7).
 *
 * Packet parsers are pure: each reads a candidate packet from a byte range
 * and either completes it (returning its length), asks for more bytes
 * (returning 0, nothing changed) or rejects it. Decoder state (the
 * compression references) changes only once a packet is complete, so a
 * packet cut by the end of a chunk is simply parsed again when the rest
 * arrives.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "packets/pkt_fields.h"
#include "packets/etmv3/etm3_internal.h"

_Static_assert(sizeof(struct etm3_ph_tmpl) == 16, "template size");
_Static_assert(offsetof(struct etm3_packet, u) ==
		       offsetof(struct etm3_packet, type) + 8,
	       "P-header template must cover type..u.atoms");

/* ---- Field readers ---------------------------------------------------- */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The 1-5 byte number of cycle counts (IHI 0014Q 7.3.4) and data
 * addresses (7.4.2): bytes 0-3 carry 7 bits each and a continuation bit,
 * the 5th carries bits [31:28] in [3:0]. Returns bytes used or 0; *bits is
 * how many low bits were carried. */
static int read_groups(const uint8_t *p, size_t avail, uint32_t *value,
		       uint8_t *bits)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < 4; k++) {
		NEED(k + 1);
		v |= (uint32_t)(p[k] & 0x7f) << (7 * k);
		if (!(p[k] & 0x80)) {
			*value = v;
			*bits = (uint8_t)(7 * (k + 1));
			return (int)k + 1;
		}
	}
	NEED(5);
	*value = v | (uint32_t)(p[4] & 0x0f) << 28;
	*bits = 32;
	return 5;
}

static int read_cycles(const uint8_t *p, size_t avail, uint32_t *value)
{
	uint8_t bits;

	return read_groups(p, avail, value, &bits);
}

/* Data address: a full 5-byte address also carries the BE-8 flag in bit 4
 * of its last byte (digest etmv3.md 4.12: bit position from OpenCSD,
 * UNCONFIRMED in the spec pages). *be is -1 when not carried. */
static int read_data_addr(const uint8_t *p, size_t avail, uint32_t *value,
			  uint8_t *bits, int *be)
{
	int n = read_groups(p, avail, value, bits);

	*be = n == 5 ? (p[4] >> 4) & 1 : -1;
	return n;
}

/* ---- Branch addresses (IHI 0014Q 7.3.5) ---------------------------------- */

struct branch_ref {
	uint32_t addr;
	uint8_t isa, altisa, ns, hyp;
};

/* Count address bytes: up to five, continuation in bit 7 of the first
 * four. Returns the count or 0 if more bytes are needed. */
static unsigned branch_addr_bytes(const uint8_t *p, size_t avail)
{
	unsigned nb = 1;

	while (nb < 5 && (p[nb - 1] & 0x80)) {
		if (nb + 1 > avail)
			return 0;
		nb++;
	}
	return nb;
}

/* Exception information bytes (digest 4.5.4; Cortex-M3 TRM Figure 14-3):
 * byte 0 C|AltISA|Cancel|Exc[3:0]|NS, byte 1 C|0|Hyp|Exc[8:4], byte 2
 * 0|1|-|Resume[3:0]; bit 6 of the byte after byte 0 tells 1 from 2.
 * Returns bytes used, 0 if more are needed, or -(bytes) when malformed (a
 * byte 2 that continues, or a third byte that is not byte 2). */
static int read_exception_bytes(const struct etm3_pkt_decoder *dec,
				const uint8_t *p, size_t avail,
				struct etm3_branch *br, const char **why)
{
	unsigned i = 0;

	NEED(1);
	br->altisa = (p[0] >> 6) & 1;
	br->cancel = (p[0] >> 5) & 1;
	br->exception = (p[0] >> 1) & 0xf;
	br->ns = p[0] & 1;
	i = 1;
	if (p[0] & 0x80) {
		NEED(2);
		if (!(p[1] & 0x40)) {
			br->exception |= (uint16_t)((p[1] & 0x1f) << 4);
			br->hyp = dec->info.virt_ext ? (p[1] >> 5) & 1 : 0;
			i = 2;
			if (p[1] & 0x80) {
				NEED(3);
				if ((p[2] & 0xc0) != 0x40) {
					*why = "exception information byte 2 expected";
					return -3;
				}
				br->has_resume = 1;
				br->resume = p[2] & 0xf;
				i = 3;
			}
		} else {
			if (p[1] & 0x80) {
				*why = "exception information byte 2 continues";
				return -2;
			}
			br->has_resume = 1;
			br->resume = p[1] & 0xf;
			i = 2;
		}
	}
	br->exc_bytes = (uint8_t)i;
	return (int)i;
}

/* Parse a branch address field (a branch packet, or the compressed address
 * of an LSiP I-sync) against reference @ref. Returns bytes used, 0 if more
 * are needed, or -(bytes) if malformed (*why set). */
static inline __attribute__((always_inline)) int
parse_branch_field(const struct etm3_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, const struct branch_ref *ref, int in_lsip,
		   struct etm3_branch *br, const char **why)
{
	unsigned nb, bits, shift, exc_follow = 0;
	uint8_t isa = ref->isa;
	uint32_t v;
	int alt = dec->info.alt_branch;

	memset(br, 0, sizeof(*br));
	NEED(1);
	nb = branch_addr_bytes(p, avail);
	if (!nb)
		return 0;
	br->ns = ref->ns;
	br->hyp = ref->hyp;
	br->altisa = ref->altisa;
	if (nb == 5) {
		uint8_t b5 = p[4];

		if (b5 & 0x80) {
			/* Deprecated original-encoding form with the
			 * exception in the 5th byte, ARM state: cancel in
			 * bit 6, exception code in [5:3] (digest 4.5.3,
			 * from OpenCSD: UNCONFIRMED against Q 7.3.5). */
			if (alt || in_lsip) {
				/* Not in the alternative encoding; and an
				 * LSiP address never uses the exception
				 * form (Q 7.10.5). */
				*why = "5th branch address byte has bit 7 set";
				return -5;
			}
			isa = etmkit_isa_arm;
			br->exc_in_addr = 1;
			br->cancel = (b5 >> 6) & 1;
			br->legacy_exception = (b5 >> 3) & 7;
		} else {
			isa = branch_isa_of_5th(b5);
			if (isa == etmkit_isa_unknown) {
				*why = "5th branch address byte names no instruction set";
				return -5;
			}
			exc_follow = (b5 >> 6) & 1;
		}
		br->isa_change = 1;
	} else if (alt && nb >= 2) {
		/* Alternative encoding: bit 6 of the final byte flags
		 * exception bytes, leaving 6 address bits. */
		exc_follow = (p[nb - 1] >> 6) & 1;
	}
	if (isa == etmkit_isa_thumbee)
		isa = etmkit_isa_thumb;
	shift = branch_isa_shift(isa);
	/* Byte 0 carries 6 bits, bytes 1-3 seven each (Q 7.3.5) ... */
	v = (p[0] >> 1) & 0x3f;
	bits = 6;
	if (nb >= 2) {
		v |= (uint32_t)(p[1] & 0x7f) << 6;
		bits = 13;
	}
	if (nb >= 3) {
		v |= (uint32_t)(p[2] & 0x7f) << 13;
		bits = 20;
	}
	if (nb >= 4) {
		v |= (uint32_t)(p[3] & 0x7f) << 20;
		bits = 27;
	}
	/* ... except a final byte 1-3 in the alternative encoding: six, its
	 * bit 6 being the exception flag. */
	if (alt && nb >= 2 && nb < 5) {
		bits--;
		v &= (1u << bits) - 1;
	}
	if (nb == 5) {
		v |= (uint32_t)p[4] << bits; /* shifted out above bit 31 */
		bits = 32 - shift;
	}
	bits += shift;
	br->addr = merge32(ref->addr, v << shift, bits);
	br->addr_bits = (uint8_t)bits;
	br->addr_bytes = (uint8_t)nb;
	/* Before an I-sync the reference, and so the high bits, are unknown
	 * (digest 5.2): the packet is reported, flagged. */
	br->partial = !dec->isync_seen && bits < 32;
	if (exc_follow) {
		int e = read_exception_bytes(dec, p + nb, avail - nb, br, why);

		if (!e)
			return 0;
		if (e < 0)
			return -(int)nb + e;
		nb += (unsigned)e;
	}
	/* AltISA turns Thumb into ThumbEE from ETMv3.3 (Q Table 7.20). */
	if (isa == etmkit_isa_thumb && br->altisa && dec->info.minor >= 3)
		isa = etmkit_isa_thumbee;
	br->isa = isa;
	return (int)nb;
}

/* A short branch address by where its instruction set puts the bits
 * (branch_isa_shift()) and by its address bytes less one (k): the bits it
 * carries (7k + 6, shifted: at most 29) and their mask. */
static const struct etm3_short_len short_by_len[3] = {
#define SHORT_LEN(s)                                                           \
	{ { 6 + (s), 13 + (s), 20 + (s), 27 + (s) },                         \
	  { (1u << (6 + (s))) - 1, (1u << (13 + (s))) - 1,                   \
	    (1u << (20 + (s))) - 1, (1u << (27 + (s))) - 1 } }
	SHORT_LEN(0), SHORT_LEN(1), SHORT_LEN(2)
#undef SHORT_LEN
};

/* The members of a short branch's record (decode_branch_short()) that the
 * decoder's state gives: its instruction set (as parse_branch_field() makes
 * it of the reference's), NS, AltISA, Hyp, and partial (no I-sync yet; a
 * short branch carries at most 29 address bits); the others 0. Called
 * wherever that state changes. */
static void set_short_branch(struct etm3_pkt_decoder *dec)
{
	struct etm3_branch *t = &dec->short_br;
	uint8_t isa = dec->isa == etmkit_isa_thumbee ? etmkit_isa_thumb : dec->isa;

	memset(t, 0, sizeof(*t));
	dec->short_ends = dec->info.alt_branch ? 0 : 0x80808080u;
	dec->short_shift = (uint8_t)branch_isa_shift(isa);
	dec->short_by_len = &short_by_len[dec->short_shift];
	/* AltISA turns Thumb into ThumbEE from ETMv3.3 (Q Table 7.20). */
	if (isa == etmkit_isa_thumb && dec->altisa && dec->info.minor >= 3)
		isa = etmkit_isa_thumbee;
	t->isa = isa;
	t->ns = dec->ns;
	t->altisa = dec->altisa;
	t->hyp = dec->hyp;
	t->partial = !dec->isync_seen;
}

static void commit_branch(struct etm3_pkt_decoder *dec,
			  const struct etm3_branch *br)
{
	dec->addr = br->addr;
	dec->isa = br->isa;
	if (br->exc_bytes) {
		dec->ns = br->ns;
		dec->altisa = br->altisa;
		dec->hyp = br->hyp;
	}
	set_short_branch(dec);
}

static struct branch_ref current_ref(const struct etm3_pkt_decoder *dec)
{
	struct branch_ref r = { dec->addr, dec->isa, dec->altisa, dec->ns,
				dec->hyp };
	return r;
}

static inline __attribute__((always_inline)) int
parse_branch(struct etm3_pkt_decoder *dec, const uint8_t *p, size_t avail,
	     struct etm3_packet *pkt)
{
	struct branch_ref ref = current_ref(dec);
	int len = parse_branch_field(dec, p, avail, &ref, 0, &pkt->u.branch,
				     &pkt->why);

	if (len > 0)
		commit_branch(dec, &pkt->u.branch);
	return len;
}

/* ---- I-sync (IHI 0014Q 7.10.5) ------------------------------------------- */

/* Processor state from J, T and AltISA (Q Table 7.20). */
static uint8_t isync_isa(unsigned j, unsigned t, unsigned alt)
{
	if (j)
		return alt ? etmkit_isa_reserved : etmkit_isa_jazelle;
	if (t)
		return alt ? etmkit_isa_thumbee : etmkit_isa_thumb;
	return alt ? etmkit_isa_reserved : etmkit_isa_arm;
}

static inline __attribute__((always_inline)) int
parse_isync(struct etm3_pkt_decoder *dec, const uint8_t *p, size_t avail,
	    struct etm3_packet *pkt)
{
	struct etm3_isync *is = &pkt->u.isync;
	unsigned i = 1, cidb = dec->info.context_id_bytes;
	unsigned alt = 0;
	uint32_t a;

	memset(is, 0, sizeof(*is));
	if (p[0] == 0x70) {
		int c = read_cycles(p + 1, avail - 1, &is->cycles);

		if (!c)
			return 0;
		i += (unsigned)c;
	}
	NEED(i + cidb + 1);
	is->context_id_bytes = (uint8_t)cidb;
	is->context_id = (uint32_t)le_n(p + i, cidb);
	i += cidb;
	is->info = p[i++];
	is->reason = (is->info >> 5) & 3;
	is->ns = (is->info >> 3) & 1;
	is->hyp = dec->info.virt_ext ? (is->info >> 1) & 1 : 0;
	if (dec->info.data_only) {
		/* Data-only form: information byte, no address. */
		is->data_only = 1;
		is->isa = etmkit_isa_unknown;
		goto commit;
	}
	NEED(i + 4);
	a = le32(p + i);
	i += 4;
	alt = dec->info.minor >= 3 ? (is->info >> 2) & 1 : 0;
	is->isa = isync_isa((is->info >> 4) & 1, a & 1, alt);
	if (is->isa == etmkit_isa_reserved)
		BAD(i, "I-sync names a reserved J/T/AltISA state (Q Table 7.20)");
	/* Bit 0 is the T bit, except in Jazelle state where it is an
	 * address bit. */
	is->addr = is->isa == etmkit_isa_jazelle ? a : a & ~1u;
	if (is->info & 0x80) {
		/* LSiP: the compressed current address follows, encoded as
		 * a branch address relative to the data instruction's. */
		struct branch_ref ref = { is->addr, is->isa, (uint8_t)alt,
					  is->ns, is->hyp };
		int c = parse_branch_field(dec, p + i, avail - i, &ref, 1,
					   &is->lsip_next, &pkt->why);

		if (c == 0)
			return 0;
		if (c < 0)
			return -(int)(i - (unsigned)c);
		is->lsip = 1;
		i += (unsigned)c;
	}
commit:
	dec->context_id = is->context_id;
	dec->ns = is->ns;
	dec->hyp = is->hyp;
	if (!is->data_only) {
		dec->addr = is->addr;
		dec->isa = is->isa;
		dec->altisa = (uint8_t)alt;
		dec->isync_seen = 1;
		/* LSiP: continue at the current instruction, with the state
		 * its information byte gives, if any. */
		if (is->lsip)
			commit_branch(dec, &is->lsip_next);
	}
	set_short_branch(dec);
	/* Pending out-of-order data is lost across an overflow (Q 7.4.3). */
	if (is->reason == etm3_reason_overflow)
		memset(dec->ooo, 0, sizeof(dec->ooo));
	return (int)i;
}

/* ---- Other instruction-trace packets ------------------------------------- */

static int parse_cycle_count(struct etm3_pkt_decoder *dec, const uint8_t *p,
			     size_t avail, struct etm3_packet *pkt)
{
	int c;

	(void)dec;
	c = read_cycles(p + 1, avail - 1, &pkt->u.cycles);
	return c ? c + 1 : 0;
}

static int parse_context_id(struct etm3_pkt_decoder *dec, const uint8_t *p,
			    size_t avail, struct etm3_packet *pkt)
{
	unsigned n = dec->info.context_id_bytes; /* Q 7.3.6 */

	NEED(1 + n);
	pkt->u.context_id = (uint32_t)le_n(p + 1, n);
	dec->context_id = pkt->u.context_id;
	return (int)n + 1;
}

static int parse_vmid(struct etm3_pkt_decoder *dec, const uint8_t *p,
		      size_t avail, struct etm3_packet *pkt)
{
	NEED(2); /* Q 7.3.7 */
	pkt->u.vmid = p[1];
	dec->vmid = p[1];
	return 2;
}

/* Timestamp, Q 7.7.4: 7 bits and a continuation bit per byte; the last
 * possible byte (7th for 48-bit, 9th for 64-bit) carries 6 or 8 bits. */
static int parse_timestamp(struct etm3_pkt_decoder *dec, const uint8_t *p,
			   size_t avail, struct etm3_packet *pkt)
{
	unsigned last = dec->info.ts_bits == 64 ? 8 : 6;
	unsigned k, bits = 0;
	uint64_t v = 0, mask;

	for (k = 0; k <= last; k++) {
		uint8_t b;

		NEED(k + 2);
		b = p[k + 1];
		if (k == last) {
			v |= (uint64_t)b << bits;
			bits = dec->info.ts_bits;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << bits;
		bits += 7;
		if (!(b & 0x80))
			break;
	}
	mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	dec->ts_raw = (dec->ts_raw & ~mask) | (v & mask);
	pkt->u.timestamp.bits = (uint8_t)bits;
	pkt->u.timestamp.clock_change = (p[0] >> 2) & 1;
	pkt->u.timestamp.value = dec->info.ts_binary ?
		dec->ts_raw : gray_to_binary(dec->ts_raw);
	return (int)(k < last ? k + 2 : last + 2);
}

/* ---- Data trace (IHI 0014Q 7.4) ------------------------------------------ */

/* Optional data address then optional value, as the header and ETMCR say.
 * Commits the data address reference. */
static int parse_data_fields(struct etm3_pkt_decoder *dec, const uint8_t *p,
			     size_t avail, int has_addr, unsigned vbytes,
			     struct etm3_packet *pkt)
{
	struct etm3_data *d = &pkt->u.data;
	unsigned i = 1;
	uint32_t a = 0;
	int be = -1;

	if (has_addr) {
		int c = read_data_addr(p + 1, avail - 1, &a, &d->addr_bits, &be);

		if (!c)
			return 0;
		i += (unsigned)c;
	}
	NEED(i + vbytes);
	/* Least significant byte first. */
	d->value = (uint32_t)le_n(p + i, vbytes);
	d->size = (uint8_t)vbytes;
	i += vbytes;
	if (has_addr) {
		dec->data_addr = merge32(dec->data_addr, a, d->addr_bits);
		if (be >= 0)
			dec->be = (uint8_t)be;
		d->has_addr = 1;
		d->addr = dec->data_addr;
	}
	d->be = dec->be;
	return (int)i;
}

/* SS field, Q Table 6.3 (unchanged in ETMv3): 0, 1, 2 or 4 value bytes. */
static unsigned ss_bytes(uint8_t hdr)
{
	static const uint8_t n[4] = { 0, 1, 2, 4 };
	return n[(hdr >> 2) & 3];
}

static int parse_normal_data(struct etm3_pkt_decoder *dec, const uint8_t *p,
			     size_t avail, struct etm3_packet *pkt)
{
	int has_addr = (p[0] & 0x20) && dec->info.data_addr; /* A bit */
	unsigned vb = dec->info.data_value ? ss_bytes(p[0]) : 0;

	memset(&pkt->u.data, 0, sizeof(pkt->u.data));
	/* Q Table 6.3 (seed 001), unchanged in ETMv3 (Q Table 7.1): "b00 |
	 * Value = 0, no data bytes follow". SS = 00 is the value 0 with no
	 * value byte, not "no value"; only with value tracing off
	 * (ETMCR[2] = 0) is there no value (digest etmv3.md 4.12). */
	pkt->u.data.has_value = dec->info.data_value;
	pkt->u.data.pair = -1;
	return parse_data_fields(dec, p, avail, has_addr, vb, pkt);
}

static int parse_value_not_traced(struct etm3_pkt_decoder *dec,
				  const uint8_t *p, size_t avail,
				  struct etm3_packet *pkt)
{
	/* b011A1010: the A bit is bit 4 here (Q 7.4, Table 7.1). */
	int has_addr = (p[0] & 0x10) && dec->info.data_addr;

	memset(&pkt->u.data, 0, sizeof(pkt->u.data));
	pkt->u.data.pair = -1;
	return parse_data_fields(dec, p, avail, has_addr, 0, pkt);
}

static int parse_ooo_placeholder(struct etm3_pkt_decoder *dec,
				 const uint8_t *p, size_t avail,
				 struct etm3_packet *pkt)
{
	struct etm3_data *d = &pkt->u.data;
	int has_addr = (p[0] & 0x20) && dec->info.data_addr;

	memset(d, 0, sizeof(*d));
	d->pair = -1;
	d->tag = (p[0] >> 2) & 3;
	return parse_data_fields(dec, p, avail, has_addr, 0, pkt);
}

/* Out-of-order bookkeeping (Q 7.4.3): a placeholder waits for the data
 * packet with its tag; two consecutive placeholders with the same tag are
 * one 64-bit value whose two data packets also come consecutively. */
static void track_placeholder(struct etm3_pkt_decoder *dec,
			      const struct etm3_packet *pkt, uint64_t start,
			      uint64_t end)
{
	const struct etm3_data *d = &pkt->u.data;
	struct etm3_ooo_slot *s = &dec->ooo[d->tag];

	if (dec->prev_type == etm3_pkt_ooo_placeholder &&
	    dec->prev_tag == d->tag && dec->prev_end == start &&
	    s->remaining == 1 && s->halves == 1) {
		s->remaining = 2;
		s->halves = 2;
	} else {
		s->remaining = 1;
		s->halves = 1;
		s->has_addr = d->has_addr;
		s->addr = d->addr;
		s->offset = pkt->offset;
	}
	dec->prev_type = etm3_pkt_ooo_placeholder;
	dec->prev_tag = d->tag;
	dec->prev_end = end;
}

static int parse_ooo_data(struct etm3_pkt_decoder *dec, const uint8_t *p,
			  size_t avail, struct etm3_packet *pkt)
{
	struct etm3_data *d = &pkt->u.data;

	memset(d, 0, sizeof(*d));
	d->pair = -1;
	d->tag = (p[0] >> 5) & 3;
	d->has_value = 1;
	/* Never an address (Q 7.4.3). */
	return parse_data_fields(dec, p, avail, 0, ss_bytes(p[0]), pkt);
}

/* Match out-of-order data to its placeholder; unexpected data (no pending
 * placeholder with its tag) is flagged ooo_match = 0, to be ignored. */
static void match_ooo_data(struct etm3_pkt_decoder *dec,
			   struct etm3_packet *pkt)
{
	struct etm3_data *d = &pkt->u.data;
	struct etm3_ooo_slot *s = &dec->ooo[d->tag];

	if (!s->remaining)
		return;
	d->ooo_match = 1;
	d->pair = s->halves == 2 ? (int8_t)(2 - s->remaining) : -1;
	d->has_addr = s->has_addr;
	d->addr = s->addr;
	d->placeholder_offset = s->offset;
	s->remaining--;
}

/* ---- Dispatch ------------------------------------------------------------- */

/* The payload parser of @type: a direct switch the compiler can inline.
 * Packets without payload are one byte. */
static inline __attribute__((always_inline)) int
parse_payload(unsigned type, struct etm3_pkt_decoder *dec, const uint8_t *p,
	      size_t avail, struct etm3_packet *pkt)
{
	switch (type) {
	case etm3_pkt_branch_address: return parse_branch(dec, p, avail, pkt);
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle: return parse_isync(dec, p, avail, pkt);
	case etm3_pkt_cycle_count: return parse_cycle_count(dec, p, avail, pkt);
	case etm3_pkt_context_id: return parse_context_id(dec, p, avail, pkt);
	case etm3_pkt_vmid: return parse_vmid(dec, p, avail, pkt);
	case etm3_pkt_timestamp: return parse_timestamp(dec, p, avail, pkt);
	case etm3_pkt_normal_data: return parse_normal_data(dec, p, avail, pkt);
	case etm3_pkt_ooo_placeholder:
		return parse_ooo_placeholder(dec, p, avail, pkt);
	case etm3_pkt_ooo_data: return parse_ooo_data(dec, p, avail, pkt);
	case etm3_pkt_value_not_traced:
		return parse_value_not_traced(dec, p, avail, pkt);
	default: return 1;
	}
}

/* etm3_decode_one() of a packet whose header's class (dec->hdr[]) is
 * @type: inlined with a constant @type, the dispatch folds away. */
static inline __attribute__((always_inline)) int
decode_typed(struct etm3_pkt_decoder *dec, const uint8_t *p, size_t avail,
	     struct etm3_packet *pkt, unsigned type)
{
	int len;

	pkt->error = 0;
	pkt->why = NULL;
	if (type & ETM3_HDR_DISABLED) {
		pkt->type = (uint8_t)(type & ~ETM3_HDR_DISABLED);
		pkt->why = pkt->type == etm3_pkt_context_id ?
			"context ID packet while ETMCR[15:14] (ContextIDsize) is 0" :
			"data packet while ETMCR does not enable this data trace";
		len = -1;
	} else if (type == etm3_pkt_reserved) {
		pkt->type = etm3_pkt_reserved;
		pkt->why = "reserved header";
		len = -1;
	} else {
		pkt->type = (uint8_t)type;
		if (type == etm3_pkt_p_header) {
			pkt->u.atoms = dec->ph[p[0]].atoms;
			len = 1;
		} else {
			len = parse_payload(type, dec, p, avail, pkt);
		}
	}
	if (len == 0)
		return 0;
	{
		unsigned n = (unsigned)(len < 0 ? -len : len);

		pkt->length = n;
		pkt->size = (uint8_t)n;
		/* A fixed-size copy is two vector moves; bytes past the
		 * packet are outside size and never read as packet bytes. */
		if (avail >= ETM3_PKT_MAX_BYTES)
			memcpy(pkt->raw, p, ETM3_PKT_MAX_BYTES);
		else
			memcpy(pkt->raw, p, n);
	}
	if (len < 0)
		pkt->error = -etmkit_err_bad_packet;
	return len;
}

/* Decode the packet at p[0..avail) (p[0] is not 0x00). Returns its length
 * (> 0), 0 when more bytes are needed, or -(length) for a rejected packet
 * (pkt->why set). Fills pkt's type, size, raw and payload; not offset. */
int etm3_decode_one(struct etm3_pkt_decoder *dec, const uint8_t *p,
		      size_t avail, struct etm3_packet *pkt)
{
	return decode_typed(dec, p, avail, pkt, dec->hdr[p[0]]);
}

/* A branch address packet of the commonest form, the original encoding's
 * 1-4 address bytes (Q 7.3.5): no 5th byte, so the instruction set stays
 * and no exception information follows. What parse_branch() and
 * decode_typed() make of it, from the first four bytes read as one word
 * and the record's state-given members kept ready (dec->short_br).
 * Returns the length, or 0 if the packet is not of that form, or if fewer
 * than four bytes are left: the general parser takes it. */
static inline __attribute__((always_inline)) int
decode_branch_short(struct etm3_pkt_decoder *dec, const uint8_t *p,
		    size_t avail, struct etm3_packet *pkt)
{
	struct etm3_branch *br = &pkt->u.branch;
	uint32_t w, stop, v, mask;
	unsigned k;

	if (avail < 4)
		return 0;
	w = le32(p);
	/* The bytes that end the address; none (as if a 5th byte followed)
	 * in the alternative encoding, where short_ends is 0. */
	stop = ~w & dec->short_ends;
	if (!stop)
		return 0;
	k = (unsigned)__builtin_ctz(stop) / 8; /* address bytes - 1 */
	/* Byte 0 carries 6 bits, bytes 1-3 seven each; those of the bytes
	 * after the packet are masked off below. */
	v = ((w >> 1) & 0x3fu) | ((w >> 2) & (0x7fu << 6)) |
	    ((w >> 3) & (0x7fu << 13)) | ((w >> 4) & (0x7fu << 20));
	mask = dec->short_by_len->mask[k];
	*br = dec->short_br;
	br->addr = (dec->addr & ~mask) | ((v << dec->short_shift) & mask);
	br->addr_bits = dec->short_by_len->bits[k];
	br->addr_bytes = (uint8_t)(k + 1);
	dec->addr = br->addr;
	dec->isa = br->isa;
	pkt->type = etm3_pkt_branch_address;
	pkt->size = (uint8_t)(k + 1);
	pkt->error = 0;
	pkt->length = k + 1;
	pkt->why = NULL;
	/* Bytes past size are never read as packet bytes. */
	memcpy(pkt->raw, p, 4);
	return (int)k + 1;
}

/* etm3_decode_one() of a branch address packet (dec->hdr[p[0]] is
 * etm3_pkt_branch_address), the commonest after P-headers: its own copy,
 * the short form first, the parser inline. */
static inline __attribute__((always_inline)) int
decode_branch(struct etm3_pkt_decoder *dec, const uint8_t *p, size_t avail,
	      struct etm3_packet *pkt)
{
	int len = decode_branch_short(dec, p, avail, pkt);

	return len ? len :
		decode_typed(dec, p, avail, pkt, etm3_pkt_branch_address);
}

/* etm3_decode_one() of an I-sync (with cycle count: @type), the commonest
 * packet after P-headers and branch addresses in cycle-accurate trace: a
 * copy of its own, the parser inline. */
static inline __attribute__((always_inline)) int
decode_isync(struct etm3_pkt_decoder *dec, const uint8_t *p, size_t avail,
	     struct etm3_packet *pkt, unsigned type)
{
	return type == etm3_pkt_i_sync_cycle ?
		decode_typed(dec, p, avail, pkt, etm3_pkt_i_sync_cycle) :
		decode_typed(dec, p, avail, pkt, etm3_pkt_i_sync);
}

/* Forget every compression reference: after reset and after losing sync,
 * nothing decoded before may be relied on (digest 5.4). */
void etm3_reset_state(struct etm3_pkt_decoder *dec)
{
	dec->addr = 0;
	dec->isa = etmkit_isa_unknown;
	dec->altisa = dec->ns = dec->hyp = 0;
	dec->isync_seen = 0;
	dec->context_id = 0;
	dec->vmid = 0;
	dec->data_addr = 0;
	dec->be = 0;
	dec->ts_raw = 0;
	memset(dec->ooo, 0, sizeof(dec->ooo));
	dec->prev_type = etm3_pkt_unsynced;
	dec->prev_end = ~0ull;
	set_short_branch(dec);
}

void etm3_after_packet(struct etm3_pkt_decoder *dec, struct etm3_packet *pkt,
			 uint64_t start, uint64_t end)
{
	if (pkt->error) {
		etm3_lose_sync(dec);
		dec->prev_type = pkt->type;
		return;
	}
	if (pkt->type == etm3_pkt_ooo_placeholder) {
		track_placeholder(dec, pkt, start, end);
		return;
	}
	if (pkt->type == etm3_pkt_ooo_data)
		match_ooo_data(dec, pkt);
	dec->prev_type = pkt->type;
}

/* The decoder's part of the vector rule of p_header_run_end(), loaded
 * once per etm3_next_synced() call: in locals, the stores into records
 * cannot force it to be reloaded. */
struct ph_scan {
#if defined(__SSE2__)
	__m128i excl;   /* simd_excl16 */
	__m128i last2;  /* simd_last2_16 */
#endif
	int simd;       /* simd_ok */
};

static inline void ph_scan_init(const struct etm3_pkt_decoder *dec,
				struct ph_scan *s)
{
#if defined(__SSE2__)
	s->excl = _mm_loadu_si128((const __m128i *)(const void *)dec->simd_excl16);
	s->last2 = _mm_loadu_si128((const __m128i *)(const void *)dec->simd_last2_16);
#endif
	s->simd = dec->simd_ok;
}

/* The end of the run of valid P-headers starting at buf[pos].
 *
 * With SSE2, 16 bytes at a time: a byte is a P-header if it is
 *   b1xxxxx00 (formats 1 and 3; format 1 only without cycle accuracy),
 *             except 0x80 where that is reserved (Q Table 7.3), or
 *   b1xxxxx10 up to 0x96 where format 4 exists (b10010x10, cycle-accurate
 *             ETMv3.3 and later), else up to 0x8e: formats 2 (b1000xx10)
 *             and 4.
 * etm3_build_tables() checks this rule against the table for all 256
 * bytes and leaves simd_ok clear if they ever differ. */
static inline __attribute__((always_inline)) size_t
p_header_run_end(const struct ph_scan *s, const struct etm3_ph_tmpl *ph,
		 const uint8_t *buf, size_t pos, size_t n)
{
#if defined(__SSE2__)
	if (s->simd) {
		const __m128i m = _mm_set1_epi8((char)0x83);
		const __m128i v13 = _mm_set1_epi8((char)0x80);
		const __m128i v24 = _mm_set1_epi8((char)0x82);

		while (n - pos >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + pos));
			__m128i t = _mm_and_si128(v, m);
			__m128i f13 = _mm_andnot_si128(_mm_cmpeq_epi8(v, s->excl),
						       _mm_cmpeq_epi8(t, v13));
			__m128i f24 = _mm_and_si128(_mm_cmpeq_epi8(t, v24),
				_mm_cmpeq_epi8(_mm_min_epu8(v, s->last2), v));
			__m128i ok = _mm_or_si128(f13, f24);
			unsigned bad = ~(unsigned)_mm_movemask_epi8(ok) & 0xffffu;

			if (bad)
				return pos + (unsigned)__builtin_ctz(bad);
			pos += 16;
		}
	}
#else
	(void)s;
#endif
	while (pos < n && ph[buf[pos]].type == etm3_pkt_p_header)
		pos++;
	return pos;
}

/* One record per P-header of buf[pos..end) (all valid P-headers) into
 * out[]. Everything it reads lives in locals or behind const pointers, so
 * the byte stores into the records cannot force reloads. */
static void fill_p_headers(const struct etm3_ph_tmpl *ph, const uint8_t *buf,
			   size_t pos, size_t end, const uint64_t *offs,
			   uint64_t base, struct etm3_packet *out)
{
	for (; pos < end; pos++, out++) {
		uint8_t b = buf[pos];

		out->offset = offs ? offs[pos] : base + pos;
		memcpy(&out->type, &ph[b], sizeof(ph[b]));
		out->raw[0] = b;
	}
}

const struct etm3_atoms *etm3_pkt_atom_table(const struct etm3_pkt_decoder *dec)
{
	return dec ? dec->atoms : NULL;
}

/* Input offset of byte @pos: offs[pos] if @offs_given, else base + pos. */
static inline __attribute__((always_inline)) uint64_t
input_off(const uint64_t *offs, uint64_t base, size_t pos, const int offs_given)
{
	return offs_given ? offs[pos] : base + pos;
}

/* One record for the P-headers buf[pos..end): a run (ETM3_CFG_P_HEADER_RUNS)
 * pointing into the input. */
static inline __attribute__((always_inline)) void
make_run(const uint8_t *buf, const uint64_t *offs, uint64_t base, size_t pos,
	 size_t end, struct etm3_packet *pkt, const int offs_given)
{
	pkt->offset = input_off(offs, base, pos, offs_given);
	pkt->type = etm3_pkt_p_header_run;
	pkt->size = 1;
	pkt->error = 0;
	pkt->length = (uint32_t)(end - pos);
	pkt->raw[0] = buf[pos];
	pkt->u.run.headers = buf + pos;
	pkt->u.run.offsets = offs_given ? offs + pos : NULL;
	pkt->u.run.count = (uint32_t)(end - pos);
}

/* etm3_next_synced() for one kind of call, inlined with constant flags:
 * P-headers as runs (@runs) or one record each; the input's offsets given
 * (@offs_given) or base + index. What the loop reads of the input and the
 * vector rule stays in locals; the tables are read through dec. */
static inline __attribute__((always_inline)) size_t
next_synced_loop(struct etm3_pkt_decoder *dec, struct etm3_packet *pkts,
		 size_t out, size_t max, const int runs, const int offs_given)
{
	const uint8_t *const buf = dec->in.buf;
	const uint64_t *const offs = offs_given ? dec->in.offs : NULL;
	const uint64_t base = offs_given ? 0 : dec->in.base;
	const size_t n = dec->in.n;
	size_t pos = dec->in.pos;
	struct etm3_packet *pkt = pkts + out, *const pend = pkts + max;
	struct ph_scan scan;

	ph_scan_init(dec, &scan);
	while (pkt < pend && pos < n) {
		uint8_t b = buf[pos];
		unsigned t;
		int len;

		if (dec->ph[b].type == etm3_pkt_p_header) {
			/* Q 7.3.1; buf[pos] is one. */
			size_t end;
			int cut;

			if (!runs) {
				size_t room = (size_t)(pend - pkt);
				size_t lim = n - pos < room ? n : pos + room;

				end = p_header_run_end(&scan, dec->ph, buf, pos + 1, lim);
				fill_p_headers(dec->ph, buf, pos, end, offs, base, pkt);
				pkt += end - pos;
				pos = end;
				dec->prev_type = etm3_pkt_p_header;
				continue;
			}
			end = p_header_run_end(&scan, dec->ph, buf, pos + 1, n);
			/* Runs are capped so count fits 32 bits. */
			cut = end - pos > UINT32_MAX;
			if (cut)
				end = pos + UINT32_MAX;
			make_run(buf, offs, base, pos, end, pkt, offs_given);
			pkt++;
			pos = end;
			dec->prev_type = etm3_pkt_p_header;
			if (pkt >= pend || pos >= n)
				break;
			if (__builtin_expect(cut, 0))
				continue; /* the rest of the P-headers */
			b = buf[pos]; /* not a P-header */
		}
		if (b == 0x00)
			break; /* an A-sync: next_slow() */
		/* A packet decoded whole has its header's type (hdr[]). */
		t = dec->hdr[b];
		if (t == etm3_pkt_branch_address)
			len = decode_branch(dec, buf + pos, n - pos, pkt);
		else if (t == etm3_pkt_i_sync_cycle || t == etm3_pkt_i_sync)
			len = decode_isync(dec, buf + pos, n - pos, pkt, t);
		else
			len = etm3_decode_one(dec, buf + pos, n - pos, pkt);
		if (len <= 0)
			break; /* cut or rejected: next_slow() decodes it again */
		pkt->offset = input_off(offs, base, pos, offs_given);
		if (t == etm3_pkt_ooo_placeholder || t == etm3_pkt_ooo_data)
			etm3_after_packet(dec, pkt, stream_at(dec, pos),
					  stream_at(dec, pos + (size_t)len));
		else
			dec->prev_type = (uint8_t)t;
		pos += (size_t)len;
		pkt++;
	}
	dec->in.pos = pos;
	return (size_t)(pkt - pkts);
}

/* The synced path: P-headers and whole packets, as long as they come.
 * Anything else (an A-sync, a packet cut by the end of the input, an
 * error) is left at dec->in.pos for next_slow(). Returns the new count of
 * records in pkts[]. */
size_t etm3_next_synced(struct etm3_pkt_decoder *dec,
			  struct etm3_packet *pkts, size_t out, size_t max)
{
	int given = dec->in.offs != NULL;

	if (dec->cfg.flags & ETM3_CFG_P_HEADER_RUNS)
		return given ? next_synced_loop(dec, pkts, out, max, 1, 1) :
			       next_synced_loop(dec, pkts, out, max, 1, 0);
	return given ? next_synced_loop(dec, pkts, out, max, 0, 1) :
		       next_synced_loop(dec, pkts, out, max, 0, 0);
}
