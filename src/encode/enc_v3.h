/* What the ETMv3, PTM and ETMv2 trace encoders share (internal): their output
 * buffer, the processor's context as the record sets it, the ARMv7-A/R
 * exception numbers and the timestamp payload, whose encodings PTM took
 * over from ETMv3 (digest ptm.md 6; IHI 0014Q 7.3.5, 7.7.4). Used by
 * etm3_enc*.c and ptm_enc*.c. */
#ifndef ETMKIT_ENCODE_ENC_V3_H
#define ETMKIT_ENCODE_ENC_V3_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/exec.h"

#define ENC_OUT_BYTES (64u * 1024u)

/* Bytes not yet handed to the sink. */
struct enc_out {
	exec_sink_fn sink;
	void *sink_ctx;
	int err;                 /* the sink's error: sticky */
	uint64_t total;          /* bytes emitted */
	size_t pos;              /* bytes in buf */
	uint8_t buf[ENC_OUT_BYTES];
};

static inline void enc_out_drain(struct enc_out *o)
{
	if (o->pos && !o->err) {
		int r = o->sink(o->sink_ctx, o->buf, o->pos);

		if (r)
			o->err = r < 0 ? r : -r;
	}
	o->pos = 0;
}

/* Room for @n more bytes (one packet). */
static inline void enc_out_room(struct enc_out *o, size_t n)
{
	if (o->pos + n > sizeof(o->buf))
		enc_out_drain(o);
}

static inline void enc_out_put8(struct enc_out *o, uint8_t b)
{
	o->buf[o->pos++] = b;
	o->total++;
}

/* The processor's context from the record, and what changed since the
 * trace said it. */
struct enc_proc {
	uint32_t cid;
	uint8_t vmid;
	uint8_t ns, hyp;
	uint8_t cid_dirty, vmid_dirty;
};

/* Take context item @r: the context ID and VMID given (dirty when they
 * change), NS and Hyp (AArch32: Hyp mode is EL2) from its EL fields. */
void enc_proc_take(struct enc_proc *p, const struct exec_rec *r);

/* The exception number of ARMv7-A/R (IHI 0014Q Table 7-12; IHI 0035B
 * Table 5.6 numbers them alike) of enum exec_exc @kind. */
uint8_t enc_exc_number(uint8_t kind);

/* The instruction's insn.h flags (INSN_F_*) from its opcode; 0 when it
 * does not decode. */
uint32_t enc_insn_flags(const struct exec_rec *r);

/* The bytes after a timestamp header (IHI 0014Q 7.7.4, IHI 0035B 4.5.9)
 * for @value into @out (9 bytes room): 7 bits and a continuation bit per
 * byte, the last possible byte (7th of a 48-bit, 9th of a 64-bit
 * timestamp, @bits) 6 or 8 bits; only the bytes up to the highest that
 * changed since *@ref (when *@ref_valid) are sent; Gray-coded unless
 * @binary. Sets *@ref (as coded) and *@ref_valid. Returns the count. */
size_t enc_ts_fill(uint8_t *out, uint64_t value, unsigned bits, int binary,
		   uint8_t *ref_valid, uint64_t *ref);

/* The address bytes of a branch address packet (IHI 0014Q 7.3.5; digest
 * etmv3.md 4.5; ETMv2 takes the original encoding, docs/etmv2.md 4) to
 * @addr in @isa into @out (5 bytes room): as few bytes as carry every
 * bit that differs from @ref, at least @min_bytes (1 or 2), all five when
 * @need5. Byte 0 [6:1] holds the address above branch_isa_shift(); bytes
 * 1 to 3 seven bits each; the 5th the instruction set and the top bits.
 * @alt: ETMv3's alternative encoding (the last byte before the 5th has
 * six bits and bit 6 = @state, exception bytes follow); @state without
 * @alt sets bit 6 of the 5th byte. Returns the count. */
unsigned enc_branch_addr(uint8_t *out, uint32_t addr, uint8_t isa,
			 uint32_t ref, int need5, unsigned min_bytes, int alt,
			 int state);

#endif
