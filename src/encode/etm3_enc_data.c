/* ETMv3 trace encoder: data packets (ARM IHI 0014Q 7.4): data addresses
 * and values, normal and out-of-order (placeholders and the values
 * returned later, 7.4.3). Shared state: etm3_enc_internal.h. */
#include "etm3_enc_internal.h"

/* ---- Data packets (7.4) ---------------------------------------------------- */

/* SS, the value's size field (Q Table 6.3, unchanged in ETMv3, 7.4.2):
 * leading zero bytes are not traced; 00 is the value 0, no byte. */
static unsigned value_ss(uint32_t v)
{
	return v == 0 ? 0 : v < 0x100 ? 1 : v < 0x10000 ? 2 : 3;
}

static void put_value(struct etm3_enc *e, uint32_t v)
{
	static const uint8_t bytes[4] = { 0, 1, 2, 4 };

	etm3_put_le(e, v, bytes[value_ss(v)]); /* least significant byte first */
}

/* A data address (7.4.2): bytes 0-3 carry 7 bits and a continuation bit,
 * the 5th A[31:28] in [3:0] and the BE-8 flag in bit 4 (digest 4.12; 0:
 * the record is little-endian). Only the low bytes up to the highest
 * that differs from the last data address are sent; all five after sync
 * (D-sync, 7.10.6) or a gap (ETMv2's rule, Q 6.4, kept in ETMv3). */
static void put_data_addr(struct etm3_enc *e, uint32_t a)
{
	unsigned n = 5;

	if (e->dref_valid)
		for (unsigned k = 1; k < 5; k++)
			if ((a >> (7 * k)) == (e->dref >> (7 * k))) {
				n = k;
				break;
			}
	for (unsigned k = 0; k < n && k < 4; k++)
		put8(e, (uint8_t)(((a >> (7 * k)) & 0x7f) |
				  (k + 1 < n ? 0x80 : 0)));
	if (n == 5)
		put8(e, (uint8_t)((a >> 28) & 0x0f));
	e->dref = a;
	e->dref_valid = 1;
}

/* The header's A bit (7.4.2): set on an instruction's first transfer and
 * where the transfers stop being contiguous; the address follows when
 * address tracing is on. */
static unsigned data_a_bit(const struct etm3_enc *e, uint32_t a)
{
	return e->d_first || a != e->d_next;
}

/* Normal data b00A0SS10 [address] [value] (7.4.2) for the 32-bit
 * transfer of @v at @a. */
static void put_normal_data(struct etm3_enc *e, uint32_t a, uint32_t v)
{
	unsigned abit = data_a_bit(e, a);
	unsigned ss = e->data_value_on ? value_ss(v) : 0;

	room(e);
	put8(e, (uint8_t)(0x02 | abit << 5 | ss << 2));
	if (abit && e->data_addr_on)
		put_data_addr(e, a);
	if (e->data_value_on)
		put_value(e, v);
}

/* Out-of-order placeholder b01A1TT00 [address] (7.4.3, seed 004). */
static void put_placeholder(struct etm3_enc *e, uint32_t a, unsigned tag)
{
	unsigned abit = data_a_bit(e, a);

	room(e);
	put8(e, (uint8_t)(0x50 | abit << 5 | tag << 2));
	if (abit && e->data_addr_on)
		put_data_addr(e, a);
}

/* Out-of-order data b0TT0SS00 value, never an address (7.4.3): the value
 * of the oldest pending placeholder, both halves of a 64-bit one
 * consecutively ("in the same cycle"), after the atoms so far. */
static int return_oldest(struct etm3_enc *e)
{
	struct enc_ooo *o = &e->ooo[0];
	int err = etm3_flush_atoms(e);

	if (err)
		return err;
	for (unsigned h = 0; h < o->halves; h++) {
		room(e);
		put8(e, (uint8_t)(o->tag << 5 | value_ss(o->value[h]) << 2));
		put_value(e, o->value[h]);
	}
	memmove(e->ooo, e->ooo + 1, --e->nooo * sizeof(e->ooo[0]));
	return 0;
}

/* Return the values due (@all: every one, before trace stops). */
int etm3_return_due(struct etm3_enc *e, int all)
{
	while (e->nooo && (all || e->ooo[0].due <= e->insns)) {
		int err = return_oldest(e);

		if (err)
			return err;
	}
	return 0;
}

/* A tag no pending placeholder holds, returning the oldest value when
 * all three are taken: a tag is reused only after its data came, so two
 * consecutive placeholders with one tag are only ever a 64-bit value's
 * (7.4.3). */
static int free_tag(struct etm3_enc *e, unsigned *tag)
{
	if (e->nooo == ENC_OOO_TAGS) {
		int err = return_oldest(e);

		if (err)
			return err;
	}
	for (unsigned t = 1; t <= ENC_OOO_TAGS; t++) {
		unsigned used = 0;

		for (unsigned i = 0; i < e->nooo; i++)
			used |= e->ooo[i].tag == t;
		if (!used) {
			*tag = t;
			return 0;
		}
	}
	return -etmkit_err_internal;
}

/* A transfer of the instruction just traced: its packets after the
 * P-header holding the instruction's atom ("a data packet belongs to the
 * most recently traced data instruction", 7.4.2). A 64-bit transfer is
 * two 32-bit ones, the lower address first. A load with ETM3_ENC_OOO
 * gets a placeholder (two with one tag for 64 bits), its value comes
 * later (7.4.3). */
int etm3_put_data(struct etm3_enc *e, const struct exec_rec *r)
{
	unsigned halves = r->size == 8 ? 2 : 1, step = halves == 2 ? 4 : r->size;
	int ooo = e->ooo_on && !(r->flags & EXEC_D_STORE);
	unsigned tag = 0;
	int err;

	if ((r->size != 1 && r->size != 2 && r->size != 4 && r->size != 8) ||
	    (r->size < 8 && r->value >> (8 * r->size)) ||
	    (r->flags & ~EXEC_D_STORE))
		return -etmkit_err_invalid;
	if (!e->data_addr_on && !e->data_value_on)
		return 0; /* not traced (ETMCR[3:2] = 0) */
	if (!e->d_ok || r->addr > 0x100000000ull - r->size)
		return -etmkit_err_invalid;
	err = etm3_flush_atoms(e);
	if (!err && ooo)
		err = free_tag(e, &tag);
	if (err)
		return err;
	for (unsigned h = 0; h < halves; h++) {
		uint32_t a = (uint32_t)r->addr + 4 * h;
		uint32_t v = (uint32_t)(r->value >> (32 * h));

		if (ooo)
			put_placeholder(e, a, tag);
		else
			put_normal_data(e, a, v);
		e->d_first = 0;
		e->d_next = a + step;
	}
	if (ooo) {
		struct enc_ooo *o = &e->ooo[e->nooo++];

		o->tag = (uint8_t)tag;
		o->halves = (uint8_t)halves;
		o->value[0] = (uint32_t)r->value;
		o->value[1] = (uint32_t)(r->value >> 32);
		o->due = e->insns + e->ooo_delay;
	}
	return 0;
}

/* Whether @r is an instruction whose transfers the decoder attributes
 * to it: executed, and a load, store or coprocessor transfer (7.4.2). */
int etm3_is_data_insn(const struct exec_rec *r, int fail)
{
	struct insn_info info;
	uint8_t b[4];
	size_t n = exec_insn_bytes(r, b);

	return !fail && n &&
	       !insn_decode(&info, (enum etmkit_isa)r->isa, r->addr, b, n) &&
	       (info.flags & (INSN_F_LOAD | INSN_F_STORE | INSN_F_CPRT));
}
