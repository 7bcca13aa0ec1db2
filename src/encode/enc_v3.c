/* What the ETMv3 and PTM trace encoders share (enc_v3.h). */
#include "enc_v3.h"

#include "etmkit/insn.h"
#include "packets/pkt_fields.h"

uint32_t enc_insn_flags(const struct exec_rec *r)
{
	struct insn_info ii;
	uint8_t b[4];
	size_t n = exec_insn_bytes(r, b);

	if (!n || insn_decode(&ii, (enum etmkit_isa)r->isa, r->addr, b, n) < 0)
		return 0;
	return ii.flags;
}

void enc_proc_take(struct enc_proc *p, const struct exec_rec *r)
{
	if ((r->flags & EXEC_CTX_CONTEXTID) && (uint32_t)r->value != p->cid) {
		p->cid = (uint32_t)r->value;
		p->cid_dirty = 1;
	}
	if ((r->flags & EXEC_CTX_VMID) && (uint8_t)r->vmid != p->vmid) {
		p->vmid = (uint8_t)r->vmid;
		p->vmid_dirty = 1;
	}
	if (r->flags & EXEC_CTX_EL) {
		p->ns = r->ns ? 1 : 0;
		p->hyp = r->el == 2;
	}
}

/* A debug exception with a traced handler is a BKPT or watchpoint taken
 * to the Prefetch or Data Abort vector (monitor debug mode): reported as
 * a prefetch abort. */
uint8_t enc_exc_number(uint8_t kind)
{
	static const uint8_t num[exec_exc_count] = {
		[exec_exc_reset] = 8,  [exec_exc_undef] = 9,
		[exec_exc_call] = 10,  [exec_exc_pabort] = 11,
		[exec_exc_dabort] = 12, [exec_exc_irq] = 14,
		[exec_exc_fiq] = 15,   [exec_exc_debug] = 11,
	};
	return kind < exec_exc_count ? num[kind] : 0;
}

size_t enc_ts_fill(uint8_t *out, uint64_t value, unsigned bits, int binary,
		   uint8_t *ref_valid, uint64_t *ref)
{
	unsigned last = bits == 64 ? 8 : 6, n = last + 1;
	uint64_t v = bits == 64 ? value : value & ((1ull << 48) - 1);

	if (!binary)
		v ^= v >> 1;
	if (*ref_valid)
		for (unsigned k = 1; k <= last; k++)
			if ((v >> (7 * k)) == (*ref >> (7 * k))) {
				n = k;
				break;
			}
	for (unsigned k = 0; k < n; k++) {
		if (k == last)
			out[k] = (uint8_t)(v >> (7 * k));
		else
			out[k] = (uint8_t)(((v >> (7 * k)) & 0x7f) |
					   (k + 1 < n ? 0x80 : 0));
	}
	*ref = v;
	*ref_valid = 1;
	return n;
}

/* The 5th address byte (digest etmv3.md 4.5.3): b0X001aaa ARM A[31:29],
 * b0X01aaaa Thumb A[31:28], b0X1aaaaa Jazelle A[31:27]. */
static uint8_t fifth_byte(uint8_t isa, uint32_t addr)
{
	switch (isa) {
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee: return (uint8_t)(0x10 | (addr >> 28));
	case etmkit_isa_jazelle: return (uint8_t)(0x20 | (addr >> 27));
	default: return (uint8_t)(0x08 | (addr >> 29));
	}
}

unsigned enc_branch_addr(uint8_t *out, uint32_t addr, uint8_t isa,
			 uint32_t ref, int need5, unsigned min_bytes, int alt,
			 int state)
{
	unsigned shift = branch_isa_shift(isa), nb = 5;
	uint32_t v = addr >> shift;

	if (!need5) {
		for (unsigned k = min_bytes; k <= 4; k++) {
			/* 6 bits in byte 0, 7 in each further one, 6 in
			 * the last of the alternative encoding. */
			unsigned c = 6 + 7 * (k - 1) - (alt && k >= 2) + shift;

			if ((addr >> c) == (ref >> c)) {
				nb = k;
				break;
			}
		}
	}
	out[0] = (uint8_t)(((v & 0x3f) << 1) | 1 | (nb > 1 ? 0x80 : 0));
	v >>= 6;
	for (unsigned k = 1; k < nb; k++) {
		int final = k == nb - 1;

		if (k == 4) {
			out[k] = (uint8_t)(fifth_byte(isa, addr) |
					   (state ? 0x40 : 0));
		} else if (final && alt) {
			out[k] = (uint8_t)((v & 0x3f) | (state ? 0x40 : 0));
			v >>= 6;
		} else {
			out[k] = (uint8_t)((v & 0x7f) | (final ? 0 : 0x80));
			v >>= 7;
		}
	}
	return nb;
}
