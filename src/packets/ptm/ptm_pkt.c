/* PTM (PFTv1.0/1.1) packet decoder: the packets (ARM IHI 0035B chapter 4,
 * "Program Flow Trace Protocol"; digest spec/ptm.md sections 2-4).
 *
 * Packet parsers are pure: each reads a candidate packet from a byte range
 * and either completes it (returning its length), asks for more bytes
 * (returning 0, nothing changed) or rejects it. Decoder state (the
 * compression references) changes only once a packet is complete, so a
 * packet cut by the end of a chunk is simply parsed again when the rest
 * arrives.
 */
#include <string.h>

#include "packets/pkt_fields.h"
#include "packets/ptm/ptm_view.h"

/* ---- Branch addresses (IHI 0035B 4.5.4; digest 4.4) ---------------------- */

/* The instruction set after a packet: a Thumb-family set is Thumb or
 * ThumbEE by AltIS (digest 4.4: "AltIS = 1 with a Thumb target ->
 * ThumbEE"). */
static uint8_t with_altis(uint8_t isa, uint8_t altis)
{
	if (isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee)
		return altis ? etmkit_isa_thumbee : etmkit_isa_thumb;
	return isa;
}

/* The address bytes of a branch address packet (from its header) or of a
 * waypoint update (from the byte after its header), merged with the
 * reference: 1-5 bytes, bit 7 of the first four continuing; bits [6:1] of
 * the first byte; seven bits of bytes 2-4 that continue, six of one that
 * ends the address (its bit 6 flags exception bytes); a 5th byte names
 * the instruction set and carries the top bits, its bit 6 flagging
 * exception bytes. A 5th byte of none of the forms b0X001aaa, b0X01aaaa,
 * b0X1aaaaa (digest 4.4) is malformed: bit 7 set, or b0X000xxx (OpenCSD
 * reads both as ARM; no capture has them). Fills @br: addr, addr_bits, addr_bytes, isa_change,
 * partial and isa (the address's set, before AltIS) from the packet; NS,
 * AltIS and Hyp from the decoder's state; the rest 0. Sets *exc_follow.
 * Returns the bytes used, 0 if more are needed, or -(bytes) if
 * malformed. */
static int read_address(const struct ptm_pkt_decoder *dec, const uint8_t *p,
			size_t avail, struct ptm_branch *br,
			unsigned *exc_follow, const char **why)
{
	unsigned nb = 1, bits, shift;
	uint8_t isa = dec->isa;
	uint32_t v;

	NEED(1);
	while (nb < 5 && (p[nb - 1] & 0x80)) {
		NEED(nb + 1);
		nb++;
	}
	/* The state the packet does not change. */
	memset(br, 0, sizeof(*br));
	br->altis = dec->altis;
	br->ns = dec->ns;
	br->hyp = dec->hyp;
	*exc_follow = 0;
	if (nb == 5) {
		if (p[4] & 0x80) {
			*why = "5th address byte has bit 7 set";
			return -5;
		}
		isa = branch_isa_of_5th(p[4]);
		if (isa == etmkit_isa_unknown) {
			*why = "5th address byte names no instruction set";
			return -5;
		}
		br->isa_change = 1;
		*exc_follow = (p[4] >> 6) & 1;
	} else if (nb >= 2) {
		*exc_follow = (p[nb - 1] >> 6) & 1;
	}
	shift = branch_isa_shift(isa);
	v = (p[0] >> 1) & 0x3fu;
	bits = 6;
	for (unsigned k = 1; k < nb && k < 4; k++) {
		v |= (uint32_t)(p[k] & 0x7f) << bits;
		bits += 7;
	}
	if (nb >= 2 && nb < 5) {
		/* The final byte carries six bits. */
		bits--;
		v &= (1u << bits) - 1;
	}
	if (nb == 5) {
		v |= (uint32_t)p[4] << bits; /* shifted out above bit 31 */
		bits = 32 - shift;
	}
	bits += shift;
	br->addr = merge32(dec->addr, v << shift, bits);
	br->addr_bits = (uint8_t)bits;
	br->addr_bytes = (uint8_t)nb;
	br->isa = isa;
	/* Before an I-sync the reference, and so the high bits, are unknown
	 * (digest 5.2): the packet is reported, flagged. */
	br->partial = !dec->isync_seen && bits < 32;
	return (int)nb;
}

/* Exception information bytes (digest 4.4): byte 0 C|AltIS|-|Exc[3:0]|NS,
 * byte 1 0|-|Hyp|Exc[8:4]. PFT has at most two (IHI 0035B 4.5.4: up to
 * 11 bytes after the header are 4 address, 2 exception and 5 cycle count
 * bytes), so a byte 1 that continues is malformed. Returns the bytes
 * used, 0 if more are needed, or -(bytes). */
static int read_exception(const struct ptm_pkt_decoder *dec, const uint8_t *p,
			  size_t avail, struct ptm_branch *br, const char **why)
{
	NEED(1);
	br->altis = (p[0] >> 6) & 1;
	br->exception = (p[0] >> 1) & 0xf;
	br->ns = p[0] & 1;
	br->exc_bytes = 1;
	if (!(p[0] & 0x80))
		return 1;
	NEED(2);
	if (p[1] & 0x80) {
		*why = "exception information byte 1 continues";
		return -2;
	}
	br->exception |= (uint16_t)((p[1] & 0x1f) << 4);
	/* Hyp exists with the Virtualization Extensions (ETMCCER[26]). */
	br->hyp = dec->info.virt_ext ? (p[1] >> 5) & 1 : 0;
	br->exc_bytes = 2;
	return 2;
}

/* A branch address or waypoint update decoded whole: its instruction set
 * with AltIS applied, and the state it leaves. */
static void commit_branch(struct ptm_pkt_decoder *dec, struct ptm_branch *br)
{
	br->isa = with_altis(br->isa, br->altis);
	dec->addr = br->addr;
	dec->isa = br->isa;
	dec->altis = br->altis;
	dec->ns = br->ns;
	dec->hyp = br->hyp;
}

/* Branch address packet: address, exception bytes, then (cycle-accurate)
 * a cycle count, also after a one-byte address (IHI 0035B 4.5.4). */
static int parse_branch(struct ptm_pkt_decoder *dec, const uint8_t *p,
			size_t avail, struct ptm_packet *pkt)
{
	struct ptm_branch *br = &pkt->u.branch;
	unsigned exc_follow;
	int n, i;

	n = read_address(dec, p, avail, br, &exc_follow, &pkt->why);
	if (n <= 0)
		return n;
	i = n;
	if (exc_follow) {
		int e = read_exception(dec, p + i, avail - (size_t)i, br, &pkt->why);

		if (e <= 0)
			return e ? -i + e : 0;
		i += e;
	}
	if (dec->info.cycle_accurate) {
		int c = ptm_read_cycles(p + i, avail - (size_t)i, &br->cycles);

		if (!c)
			return 0;
		br->has_cycles = 1;
		i += c;
	}
	commit_branch(dec, br);
	return i;
}

/* Waypoint update (IHI 0035B 4.5, "Waypoint update packet"; digest 4.5):
 * address bytes as a branch's, from the byte after the header; no
 * exception bytes and no cycle count.
 *
 * UNCONFIRMED in the digest: after a 5th address byte with bit 6 set,
 * OpenCSD and ptm2human read one more byte, whose bit 6 is AltIS, while
 * IHI 0035B Table 4.1 gives the packet 1-5 payload bytes. We read that
 * byte as they do: it is the only way a waypoint update could carry the
 * Thumb/ThumbEE distinction its 5th byte cannot, and reading it where it
 * is absent would only happen with bit 6 set, which the address format
 * otherwise leaves without meaning. No capture settles it (the four
 * waypoint updates of the Snowball trace are `72 79`, one address byte).
 * Bit 6 of a final 2nd-4th address byte (the exception flag of a branch)
 * is not an address bit and has no meaning here. */
static int parse_waypoint(struct ptm_pkt_decoder *dec, const uint8_t *p,
			  size_t avail, struct ptm_packet *pkt)
{
	struct ptm_branch *br = &pkt->u.branch;
	unsigned exc_follow;
	int n, i;

	n = read_address(dec, p + 1, avail - 1, br, &exc_follow, &pkt->why);
	if (n <= 0)
		return n ? n - 1 : 0;
	i = 1 + n;
	if (n == 5 && exc_follow) {
		NEED(i + 1);
		br->altis = (p[i] >> 6) & 1;
		br->exc_bytes = 1;
		i++;
	}
	commit_branch(dec, br);
	return i;
}

/* ---- I-sync (IHI 0035B 4.5.2; digest 4.2) -------------------------------- */

/* Header, 4 address bytes (bit 0 the T flag), the information byte, a
 * cycle count (cycle-accurate, reason not periodic), the context ID.
 *
 * Information byte: [6:5] reason, [3] NS, [2] AltIS, [1] Hyp. Bits 7, 4
 * and 0 are UNCONFIRMED in the digest; every I-sync of the captures (TC2,
 * Snowball, tc2-ptm-rstk-t32: 0x01, 0x09, 0x21, 0x29, 0x61) has bit 0 set
 * and bits 7 and 4 clear. They are kept in the raw information byte and
 * not interpreted: neither rejected (a reading of bit 0 as "must be one"
 * has no spec text behind it) nor given a meaning. */
static inline __attribute__((always_inline)) int
parse_isync(struct ptm_pkt_decoder *dec, const uint8_t *p, size_t avail,
	    struct ptm_packet *pkt)
{
	struct ptm_isync *is = &pkt->u.isync;
	unsigned i = 6, cidb = dec->info.context_id_bytes;
	uint32_t a;
	uint8_t altis;

	NEED(6);
	memset(is, 0, sizeof(*is));
	a = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 |
	    (uint32_t)p[4] << 24;
	is->info = p[5];
	is->reason = (is->info >> 5) & 3;
	is->ns = (is->info >> 3) & 1;
	altis = (is->info >> 2) & 1;
	is->hyp = dec->info.virt_ext ? (is->info >> 1) & 1 : 0;
	/* Periodic I-syncs carry no cycle count (IHI 0035B 4.4). From
	 * PFTv1.1 the count of an overflow or debug-exit I-sync is UNKNOWN,
	 * but the field is there. */
	if (dec->info.cycle_accurate && is->reason != ptm_reason_periodic) {
		int c = ptm_read_cycles(p + i, avail - i, &is->cycles);

		if (!c)
			return 0;
		is->has_cycles = 1;
		i += (unsigned)c;
	}
	NEED(i + cidb);
	is->context_id_bytes = (uint8_t)cidb;
	is->context_id = (uint32_t)le_n(p + i, cidb);
	i += cidb;
	/* No J bit: Jazelle state is not expressible here (digest 4.2). */
	is->isa = (a & 1) ? with_altis(etmkit_isa_thumb, altis) : etmkit_isa_arm;
	is->addr = a & ~1u;
	dec->addr = is->addr;
	dec->isa = is->isa;
	dec->altis = altis;
	dec->ns = is->ns;
	dec->hyp = is->hyp;
	dec->isync_seen = 1;
	return (int)i;
}

int ptm_isync_read(struct ptm_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, struct ptm_packet *pkt)
{
	return parse_isync(dec, p, avail, pkt);
}

/* ---- Other packets ------------------------------------------------------- */

/* Atom (IHI 0035B 4.5.3): the header's atoms from the table; with
 * cycle-accurate tracing one atom and a cycle count whose first byte is
 * the header. */
static int parse_atom(struct ptm_pkt_decoder *dec, const uint8_t *p,
		      size_t avail, struct ptm_packet *pkt)
{
	pkt->u.atoms = dec->atoms[p[0]];
	if (!dec->info.cycle_accurate)
		return 1;
	return ptm_read_cycles(p, avail, &pkt->u.atoms.cycles);
}

static int parse_context_id(struct ptm_pkt_decoder *dec, const uint8_t *p,
			    size_t avail, struct ptm_packet *pkt)
{
	unsigned n = dec->info.context_id_bytes; /* 4.5.7 */

	NEED(1 + n);
	pkt->u.context_id = (uint32_t)le_n(p + 1, n);
	return (int)n + 1;
}

static int parse_vmid(const uint8_t *p, size_t avail, struct ptm_packet *pkt)
{
	NEED(2);
	pkt->u.vmid = p[1];
	return 2;
}

/* Timestamp (IHI 0035B 4.5.9; digest 4.9): 7 bits and a continuation bit
 * per byte, the last possible byte (7th of a 48-bit, 9th of a 64-bit
 * timestamp) carrying 6 or 8 bits; only the changed low bits are sent,
 * as traced (binary or Gray code, ETMCCER[28]); then, cycle-accurate, a
 * cycle count. */
static int parse_timestamp(struct ptm_pkt_decoder *dec, const uint8_t *p,
			   size_t avail, struct ptm_packet *pkt)
{
	struct ptm_timestamp *ts = &pkt->u.timestamp;
	unsigned last = dec->info.ts_bits == 64 ? 8 : 6;
	unsigned k, bits = 0, i;
	uint64_t v = 0, mask, raw;

	memset(ts, 0, sizeof(*ts));
	for (k = 0;; k++) {
		uint8_t b;

		NEED(k + 2);
		b = p[k + 1];
		if (k == last) {
			v |= (uint64_t)b << bits; /* above ts_bits: masked below */
			bits = dec->info.ts_bits;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << bits;
		bits += 7;
		if (!(b & 0x80))
			break;
	}
	i = k + 2;
	if (dec->info.cycle_accurate) {
		int c = ptm_read_cycles(p + i, avail - i, &ts->cycles);

		if (!c)
			return 0;
		ts->has_cycles = 1;
		i += (unsigned)c;
	}
	mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	raw = (dec->ts_raw & ~mask) | (v & mask);
	dec->ts_raw = raw;
	ts->bits = (uint8_t)bits;
	ts->clock_change = (p[0] >> 2) & 1;
	ts->value = dec->info.ts_binary ? raw : gray_to_binary(raw);
	return (int)i;
}

/* ---- Dispatch ------------------------------------------------------------- */

/* The payload parser of @type: a direct switch the compiler can inline.
 * Packets without payload are one byte. */
static inline __attribute__((always_inline)) int
parse_payload(unsigned type, struct ptm_pkt_decoder *dec, const uint8_t *p,
	      size_t avail, struct ptm_packet *pkt)
{
	switch (type) {
	case ptm_pkt_atom: return parse_atom(dec, p, avail, pkt);
	case ptm_pkt_branch_address: return parse_branch(dec, p, avail, pkt);
	case ptm_pkt_i_sync: return parse_isync(dec, p, avail, pkt);
	case ptm_pkt_waypoint_update: return parse_waypoint(dec, p, avail, pkt);
	case ptm_pkt_context_id: return parse_context_id(dec, p, avail, pkt);
	case ptm_pkt_vmid: return parse_vmid(p, avail, pkt);
	case ptm_pkt_timestamp: return parse_timestamp(dec, p, avail, pkt);
	default: return 1; /* trigger, exception return, ignore */
	}
}

/* Copy a record's bytes: a fixed-size copy is one vector move; bytes past
 * the packet are outside size and never read as packet bytes. */
static inline __attribute__((always_inline)) void
copy_raw(struct ptm_packet *pkt, const uint8_t *p, size_t avail, unsigned n)
{
	if (avail >= PTM_PKT_MAX_BYTES)
		memcpy(pkt->raw, p, PTM_PKT_MAX_BYTES);
	else
		memcpy(pkt->raw, p, n);
}

/* ptm_decode_one() of a packet whose header's class (dec->hdr[]) is
 * @type: inlined with a constant @type, the dispatch folds away. */
static inline __attribute__((always_inline)) int
decode_typed(struct ptm_pkt_decoder *dec, const uint8_t *p, size_t avail,
	     struct ptm_packet *pkt, unsigned type)
{
	unsigned n;
	int len;

	pkt->error = 0;
	pkt->why = NULL;
	if (type & PTM_HDR_DISABLED) {
		pkt->type = (uint8_t)(type & ~PTM_HDR_DISABLED);
		pkt->why = "context ID packet while ETMCR[15:14] (ContextIDsize) is 0";
		len = -1;
	} else if (type == ptm_pkt_reserved) {
		pkt->type = ptm_pkt_reserved;
		pkt->why = "reserved header";
		len = -1;
	} else {
		pkt->type = (uint8_t)type;
		len = parse_payload(type, dec, p, avail, pkt);
	}
	if (len == 0)
		return 0;
	n = (unsigned)(len < 0 ? -len : len);
	pkt->length = n;
	pkt->size = (uint8_t)(n < PTM_PKT_MAX_BYTES ? n : PTM_PKT_MAX_BYTES);
	copy_raw(pkt, p, avail, pkt->size);
	if (len < 0)
		pkt->error = -etmkit_err_bad_packet;
	return len;
}

int ptm_decode_one(struct ptm_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, struct ptm_packet *pkt)
{
	return decode_typed(dec, p, avail, pkt, dec->hdr[p[0]]);
}

/* ---- The synced fast path ------------------------------------------------- */

/* An atom packet (IHI 0035B 4.5.3), as decode_typed() makes it: the
 * header's atoms from the table, and with cycle-accurate tracing a count
 * whose first byte is the header. Returns the length or 0 if cut. */
static inline __attribute__((always_inline)) int
decode_atom(const struct ptm_pkt_decoder *dec, const uint8_t *p, size_t avail,
	    struct ptm_packet *pkt, const int ca)
{
	uint32_t cycles;
	int len = ptm_atom_len(p, avail, &cycles, ca);

	if (!len)
		return 0;
	pkt->type = ptm_pkt_atom;
	pkt->size = (uint8_t)len;
	pkt->error = 0;
	pkt->length = (uint32_t)len;
	pkt->u.atoms = dec->atoms[p[0]];
	pkt->u.atoms.cycles = cycles;
	copy_raw(pkt, p, avail, (unsigned)len);
	pkt->why = NULL;
	return len;
}

/* A branch address packet of the short form (ptm_branch_short(): 1-4
 * address bytes, no exception bytes), as parse_branch() and
 * decode_typed() make it. Returns the length, or 0 if the packet is not
 * of that form or is cut: the general parser takes it. */
static inline __attribute__((always_inline)) int
decode_branch_short(struct ptm_pkt_decoder *dec, const uint8_t *p,
		    size_t avail, struct ptm_packet *pkt, const int ca)
{
	struct ptm_branch *br = &pkt->u.branch;
	struct ptm_branch_short s;
	int len = ptm_branch_short(dec, p, avail, &s, ca);

	if (!len)
		return 0;
	br->cycles = s.cycles;
	br->has_cycles = (uint8_t)ca;
	br->addr = s.addr;
	br->exception = 0;
	br->addr_bits = s.bits;
	br->addr_bytes = s.bytes;
	br->isa = dec->isa;
	br->isa_change = 0;
	br->exc_bytes = 0;
	br->ns = dec->ns;
	br->altis = dec->altis;
	br->hyp = dec->hyp;
	br->partial = !dec->isync_seen;
	ptm_branch_short_commit(dec, &s);
	pkt->type = ptm_pkt_branch_address;
	pkt->size = (uint8_t)len;
	pkt->error = 0;
	pkt->length = (uint32_t)len;
	copy_raw(pkt, p, avail, (unsigned)len);
	pkt->why = NULL;
	return len;
}

/* Forget every compression reference: after reset and after losing sync,
 * nothing decoded before may be relied on (digest 5). */
void ptm_reset_state(struct ptm_pkt_decoder *dec)
{
	dec->addr = 0;
	dec->isa = etmkit_isa_unknown;
	dec->altis = dec->ns = dec->hyp = 0;
	dec->isync_seen = 0;
	dec->ts_raw = 0;
}

/* The synced path: whole packets, as long as they come. Anything else (an
 * A-sync, a packet cut by the end of the input, an error) is left at
 * dec->in.pos for the loop's slow path. Atoms and short branches, the
 * commonest packets, have paths of their own; @ca and @offs_given are
 * constants in each copy. @others (a constant): stop before atom, branch
 * address and I-sync packets too (ptm_next_others(): the flow's one pass
 * reads those itself). */
static inline __attribute__((always_inline)) size_t
next_synced_loop(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		 size_t out, size_t max, const int ca, const int offs_given,
		 const int others)
{
	const uint8_t *const buf = dec->in.buf;
	const uint64_t *const offs = dec->in.offs;
	const uint64_t base = dec->in.base;
	const size_t n = dec->in.n;
	size_t pos = dec->in.pos;
	struct ptm_packet *pkt = pkts + out, *const pend = pkts + max;

	for (; pkt < pend && pos < n; pkt++) {
		uint8_t b = buf[pos];
		unsigned t = dec->hdr[b];
		int len;

		if (others && (t == ptm_pkt_atom ||
			       t == ptm_pkt_branch_address ||
			       t == ptm_pkt_i_sync))
			break;
		if (t == ptm_pkt_atom) {
			len = decode_atom(dec, buf + pos, n - pos, pkt, ca);
		} else if (t == ptm_pkt_branch_address) {
			len = decode_branch_short(dec, buf + pos, n - pos, pkt, ca);
			if (!len)
				len = decode_typed(dec, buf + pos, n - pos, pkt,
						   ptm_pkt_branch_address);
		} else {
			if (b == 0x00)
				break; /* an A-sync: the slow path */
			/* I-syncs inline: where trace filtering cuts the
			 * trace into short runs, one packet in five
			 * (Snowball). */
			if (t == ptm_pkt_i_sync)
				len = decode_typed(dec, buf + pos, n - pos, pkt,
						   ptm_pkt_i_sync);
			else
				len = ptm_decode_one(dec, buf + pos, n - pos,
						     pkt);
		}
		if (len <= 0)
			break; /* cut or rejected: the slow path */
		pkt->offset = offs_given ? offs[pos] : base + pos;
		pos += (size_t)len;
	}
	dec->in.pos = pos;
	return (size_t)(pkt - pkts);
}

size_t ptm_next_synced(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		       size_t out, size_t max)
{
	int given = dec->in.offs != NULL;

	if (dec->info.cycle_accurate)
		return given ? next_synced_loop(dec, pkts, out, max, 1, 1, 0) :
			       next_synced_loop(dec, pkts, out, max, 1, 0, 0);
	return given ? next_synced_loop(dec, pkts, out, max, 0, 1, 0) :
		       next_synced_loop(dec, pkts, out, max, 0, 0, 0);
}

/* The other packets are rare (I-syncs are the consumer's): one copy, the
 * configuration read in the loop. */
static __attribute__((noinline)) size_t
next_others(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts, size_t max,
	    int ca)
{
	if (dec->in.offs)
		return next_synced_loop(dec, pkts, 0, max, ca, 1, 1);
	return next_synced_loop(dec, pkts, 0, max, ca, 0, 1);
}

size_t ptm_next_others(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		       size_t max)
{
	return next_others(dec, pkts, max, dec->info.cycle_accurate);
}
