/* Instruction classifiers, one per instruction set (internal). */
#ifndef ETMKIT_ISA_INSN_INTERNAL_H
#define ETMKIT_ISA_INSN_INTERNAL_H

#include "etmkit/insn.h"

/* Each fills *info completely (isa included) and returns 0, or returns
 * -etmkit_err_truncated when @avail bytes cannot be classified. A32 is
 * called with at least 4 bytes. AArch32 addresses are 32-bit: targets wrap
 * modulo 2^32. */
int insn_decode_a32(struct insn_info *info, uint32_t addr, const uint8_t *b);
/* T32; @thumbee: decode as ThumbEE (ARM DDI 0406C A9). */
int insn_decode_t32(struct insn_info *info, uint32_t addr, const uint8_t *b,
		    size_t avail, int thumbee);
int insn_decode_jazelle(struct insn_info *info, uint32_t addr,
			const uint8_t *b, size_t avail);
/* A64 (Arm ARM DDI 0487, C4.1), called with at least 4 bytes. Addresses
 * are 64-bit: targets wrap modulo 2^64. */
int insn_decode_a64(struct insn_info *info, uint64_t addr, const uint8_t *b);

/* Shared by A32 and T32, whose coprocessor, floating-point and Advanced
 * SIMD encodings agree bit for bit once the leading nibble is aside
 * (DDI 0406C A5.6 and A6.3.18; A7.4 and A7.7 in their A32 form).
 *
 * insn_copro: @w bits [27:0] hold the instruction in its A32 layout
 * (T32: hw1[11:0]:hw2); @two: the unconditional form (A32 cond 1111, T32
 * bit 28 set: LDC2, MCR2, ...). Not for bits [25:24] == 11 (SVC in A32,
 * Advanced SIMD data-processing in T32): the caller decodes those. */
void insn_copro(struct insn_info *info, uint32_t w, int two);
/* Advanced SIMD data-processing, @w in the A32 form 1111 001U ... */
void insn_simd_dp(struct insn_info *info, uint32_t w);
/* Advanced SIMD element or structure load/store, A32 form 1111 0100 ... */
void insn_simd_ldst(struct insn_info *info, uint32_t w);

/* The "always" condition (DDI 0406C A8.3), for unconditional
 * instructions' insn_info.cond. */
#define INSN_COND_AL 14u

/* Bits [hi:lo] of @v. */
static inline uint32_t insn_bits(uint32_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (uint32_t)((2ull << (hi - lo)) - 1u);
}

static inline uint32_t insn_bit(uint32_t v, unsigned n)
{
	return (v >> n) & 1u;
}

/* The @width-bit two's complement field @v sign-extended to 32 bits, as
 * an unsigned pattern so that address arithmetic wraps modulo 2^32. */
static inline uint32_t insn_sext(uint32_t v, unsigned width)
{
	uint32_t m = 1u << (width - 1);

	return ((v & ((m << 1) - 1u)) ^ m) - m;
}

/* A write to the PC whose target is not in the opcode. */
static inline void insn_pc_write(struct insn_info *info)
{
	info->flags |= INSN_F_BRANCH | INSN_F_INDIRECT;
}

/* @reg (a register number) is written: the PC makes it a branch. Used for
 * UNPREDICTABLE encodings too: "classify as the encoding would execute". */
static inline void insn_writes(struct insn_info *info, uint32_t reg)
{
	if (reg == 15)
		insn_pc_write(info);
}

/* A branch whose target is in the opcode. */
static inline void insn_direct(struct insn_info *info, uint32_t target,
			       enum etmkit_isa isa)
{
	info->flags |= INSN_F_BRANCH;
	info->target = target;
	info->target_isa = (uint8_t)isa;
}

#endif
