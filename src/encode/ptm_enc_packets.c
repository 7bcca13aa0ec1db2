/* PTM trace encoder: the packets (ARM IHI 0035B 4.5; digest ptm.md 4),
 * each written from the encoder's model of what the decoder knows.
 * Shared state: ptm_enc_internal.h. */
#include "ptm_enc_internal.h"

/* ---- Fields ----------------------------------------------------------------- */

/* Cycle count field (4.4; digest 3): the first byte holds count[3:0] in
 * bits [5:2] and C in bit 6, its other bits are @first's (the atom bits
 * of a cycle-accurate atom header); each further byte 7 bits and C in
 * bit 7; the 5th, count[31:25], is always the last. */
static void put_cycles(struct ptm_enc *e, uint8_t first, uint32_t v)
{
	uint32_t rest = v >> 4;

	penc_put8(e, (uint8_t)(first | (v & 0xf) << 2 | (rest ? 0x40 : 0)));
	for (int k = 0; rest && k < 4; k++) {
		uint8_t b = (uint8_t)(rest & 0x7f);

		rest >>= 7;
		penc_put8(e, (uint8_t)(b | (rest && k < 3 ? 0x80 : 0)));
	}
}

static void put_le(struct ptm_enc *e, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		penc_put8(e, (uint8_t)(v >> (8 * i)));
}

/* ---- Synchronisation (4.5.1, 4.5.2) ------------------------------------------ */

void penc_async(struct ptm_enc *e)
{
	penc_room(e);
	for (int i = 0; i < 5; i++) /* five zeros, then 0x80 */
		penc_put8(e, 0x00);
	penc_put8(e, 0x80);
	e->sync_at = e->out.total;
	/* The next timestamp goes in full, for a decoder starting here. */
	e->ts_valid = 0;
}

/* I-sync at @addr in @isa: header 0x08; the address, bit 0 the T bit;
 * the information byte, [6:5] reason, 3 NS, 2 AltIS, 1 Hyp (with the
 * Virtualization Extensions), bit 0 set as trace units set it (digest
 * 4.2); in cycle-accurate mode a cycle count unless periodic, its first
 * byte's bit 7 set as in the captures (digest 4.2 example); the context
 * ID (ETMCR[15:14] bytes). The VMID follows in its own packet. */
void penc_isync(struct ptm_enc *e, unsigned reason, uint32_t addr,
		uint8_t isa)
{
	unsigned t = isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee;
	unsigned alt = isa == etmkit_isa_thumbee;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;

	penc_room(e);
	penc_put8(e, 0x08);
	put_le(e, addr | t, 4);
	penc_put8(e, (uint8_t)(reason << 5 | (e->pc.ns & 1u) << 3 | alt << 2 |
			       hyp << 1 | 1));
	if (e->info.cycle_accurate && reason != ptm_reason_periodic) {
		put_cycles(e, 0x80, e->gap_cycles);
		e->cyc = 0;
	}
	e->gap_cycles = 0;
	put_le(e, e->pc.cid, e->info.context_id_bytes);
	e->pc.cid_dirty = 0;
	e->ref_addr = addr;
	e->ref_isa = isa;
	e->ref_altis = (uint8_t)alt;
	e->ref_ns = e->pc.ns;
	e->ref_hyp = (uint8_t)hyp;
	e->old_valid = 0;
	if (e->info.vmid)
		penc_vmid(e);
}

/* ---- Addresses (4.5.4, 4.5 "Waypoint update") --------------------------------- */

/* Low address bits below those the first address byte carries. */
static unsigned isa_shift(uint8_t isa)
{
	return isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee ? 1 : 2;
}

static uint8_t base_isa(uint8_t isa)
{
	return isa == etmkit_isa_thumbee ? etmkit_isa_thumb : isa;
}

/* Address bytes (1-4) that carry every bit of @addr that differs from
 * @ref: 6 bits in the first, 7 in each further one, 6 in a last one of
 * two or more (its bit 6 flags exception bytes); 5 when none do. At least
 * @lo. */
static unsigned addr_bytes(uint32_t addr, uint32_t ref, unsigned shift,
			   unsigned lo)
{
	for (unsigned k = lo; k <= 4; k++) {
		unsigned c = 6 + 7 * (k - 1) - (k >= 2) + shift;

		if ((addr >> c) == (ref >> c))
			return k;
	}
	return 5;
}

/* The 5th address byte: b0X001aaa ARM A[31:29], b0X01aaaa Thumb
 * A[31:28] (digest 4.4); X (bit 6) is added by the caller. */
static uint8_t fifth_byte(uint8_t isa, uint32_t addr)
{
	if (isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee)
		return (uint8_t)(0x10 | addr >> 28);
	return (uint8_t)(0x08 | addr >> 29);
}

/* The address bytes of @addr in @isa into @out, @nb of them, the first
 * with bit 0 set; @x: the last byte's exception flag. Returns @nb. */
static unsigned addr_fill(uint8_t *out, uint32_t addr, uint8_t isa,
			  unsigned nb, int x)
{
	uint32_t v = addr >> isa_shift(isa);

	out[0] = (uint8_t)((v & 0x3f) << 1 | 1 | (nb > 1 ? 0x80 : 0));
	v >>= 6;
	for (unsigned k = 1; k < nb; k++) {
		if (k == 4) {
			out[k] = (uint8_t)(fifth_byte(isa, addr) | (x ? 0x40 : 0));
		} else if (k == nb - 1) {
			out[k] = (uint8_t)((v & 0x3f) | (x ? 0x40 : 0));
		} else {
			out[k] = (uint8_t)((v & 0x7f) | 0x80);
			v >>= 7;
		}
	}
	return nb;
}

/* Bytes for @addr in @isa against the decoder's references: all five when
 * the instruction set differs from the reference's or from @walk_isa (the
 * walk's, so that either reading of "unchanged" decodes it); else as few
 * as carry what differs from the reference, and from the one before a
 * waypoint update, so that a decoder that does not take waypoint update
 * addresses as the reference decodes it too. */
static unsigned addr_len(const struct ptm_enc *e, uint32_t addr, uint8_t isa,
			 uint8_t walk_isa, unsigned lo)
{
	unsigned shift = isa_shift(isa), nb;

	/* The 5th byte names ARM or Thumb; AltIS (exception information)
	 * tells ThumbEE from Thumb. */
	if (base_isa(isa) != base_isa(e->ref_isa) ||
	    base_isa(isa) != base_isa(walk_isa))
		return 5;
	nb = addr_bytes(addr, e->ref_addr, shift, lo);
	if (e->old_valid) {
		unsigned nb2 = addr_bytes(addr, e->old_addr, shift, lo);

		if (nb2 > nb)
			nb = nb2;
	}
	return nb;
}

/* A branch address packet to @addr in @isa (4.5.4), with exception
 * information (exception @exc, enum exec_exc, when @with_exc) or, when
 * NS, Hyp or AltIS change, exception information with exception 0; in
 * cycle-accurate mode @cycles follow. Exception bytes need two address
 * bytes or more: byte 0 C AltIS 0 Exception[3:0] NS; byte 1 (when Hyp is
 * or was set, so that either reading of an absent byte 1 gives the right
 * Hyp) 0 0 Hyp Exception[8:4]. */
void penc_branch(struct ptm_enc *e, uint32_t addr, uint8_t isa, int with_exc,
		 uint8_t exc, uint32_t cycles)
{
	unsigned altis = isa == etmkit_isa_thumbee;
	unsigned hyp = e->info.virt_ext ? e->pc.hyp : 0;
	int thumbish = isa == etmkit_isa_thumb || isa == etmkit_isa_thumbee;
	int state = with_exc || e->pc.ns != e->ref_ns || hyp != e->ref_hyp ||
		    (thumbish && altis != e->ref_altis);
	uint8_t out[8], num = with_exc ? enc_exc_number(exc) : 0;
	unsigned n = addr_fill(out, addr, isa,
			       addr_len(e, addr, isa, e->last_isa,
					state ? 2 : 1), state);

	if (state) {
		int byte1 = hyp || e->ref_hyp;

		out[n++] = (uint8_t)((byte1 ? 0x80 : 0) | altis << 6 |
				     (num & 0xfu) << 1 | (e->pc.ns & 1u));
		if (byte1)
			out[n++] = (uint8_t)(hyp << 5 | num >> 4);
		e->ref_ns = e->pc.ns;
		e->ref_altis = (uint8_t)altis;
		if (byte1)
			e->ref_hyp = (uint8_t)hyp;
	}
	penc_room(e);
	for (unsigned i = 0; i < n; i++)
		penc_put8(e, out[i]);
	if (e->info.cycle_accurate)
		put_cycles(e, 0, cycles);
	e->ref_addr = addr;
	e->ref_isa = isa;
	e->old_valid = 0;
}

/* Waypoint update (4.5 "Waypoint update packet"; digest 4.5): 0x72, then
 * address bytes as a branch address packet's, bit 0 of the first not an
 * address bit (set, as in the captures), no exception flag (so no AltIS
 * byte: its framing is UNCONFIRMED), no cycle count. Execution reached
 * and executed the instruction at @addr, in the walk's instruction set
 * @isa, without passing a waypoint. */
void penc_wp_update(struct ptm_enc *e, uint32_t addr, uint8_t isa)
{
	uint8_t out[6];
	unsigned n = addr_fill(out, addr, isa, addr_len(e, addr, isa, isa, 1),
			       0);

	penc_room(e);
	penc_put8(e, 0x72);
	for (unsigned i = 0; i < n; i++)
		penc_put8(e, out[i]);
	e->old_valid = 1;
	e->old_addr = e->ref_addr;
	e->ref_addr = addr;
	e->ref_isa = isa;
}

/* ---- Atoms (4.5.3) -------------------------------------------------------------- */

/* The pending atoms in one byte: a marker bit above them, the oldest
 * atom highest, the newest in bit 1; 1 = N. */
void penc_flush_atoms(struct ptm_enc *e)
{
	unsigned n = e->natoms, h = 0x80u | 1u << (n + 1);

	if (!n)
		return;
	for (unsigned i = 0; i < n; i++)
		h |= (unsigned)e->atoms[i] << (n - i);
	penc_room(e);
	penc_put8(e, (uint8_t)h);
	e->natoms = 0;
}

/* One atom, E (@n_atom 0) or N: in cycle-accurate mode a packet of its
 * own, b1Ccccc F0 and more count bytes; else one more of up to five. */
void penc_atom(struct ptm_enc *e, int n_atom, uint32_t cycles)
{
	if (e->info.cycle_accurate) {
		penc_room(e);
		put_cycles(e, (uint8_t)(0x80 | (n_atom ? 2 : 0)), cycles);
		return;
	}
	e->atoms[e->natoms++] = n_atom ? 1 : 0;
	if (e->natoms == 5)
		penc_flush_atoms(e);
}

/* ---- Other packets ---------------------------------------------------------- */

/* Timestamp (4.5.9): header 0x42 (R 0), the value as ETMv3's
 * (enc_ts_fill(): Gray-coded unless ETMCCER[28]); in cycle-accurate mode
 * @cycles follow. */
void penc_timestamp(struct ptm_enc *e, uint64_t value, uint32_t cycles)
{
	uint8_t b[9];
	size_t n = enc_ts_fill(b, value, e->info.ts_bits, e->info.ts_binary,
			       &e->ts_valid, &e->ts_ref);

	penc_room(e);
	penc_put8(e, 0x42);
	for (size_t k = 0; k < n; k++)
		penc_put8(e, b[k]);
	if (e->info.cycle_accurate)
		put_cycles(e, 0, cycles);
}

void penc_context_id(struct ptm_enc *e)
{
	penc_room(e);
	penc_put8(e, 0x6e); /* 4.5.7 */
	put_le(e, e->pc.cid, e->info.context_id_bytes);
	e->pc.cid_dirty = 0;
}

void penc_vmid(struct ptm_enc *e)
{
	penc_room(e);
	penc_put8(e, 0x3c);
	penc_put8(e, e->pc.vmid);
	e->pc.vmid_dirty = 0;
}

void penc_exc_return(struct ptm_enc *e)
{
	penc_room(e);
	penc_put8(e, 0x76);
}
