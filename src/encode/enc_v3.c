/* What the ETMv3 and PTM trace encoders share (enc_v3.h). */
#include "enc_v3.h"

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
