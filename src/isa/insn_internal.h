/* Instruction classifiers, one per instruction set (internal). */
#ifndef ETMKIT_ISA_INSN_INTERNAL_H
#define ETMKIT_ISA_INSN_INTERNAL_H

#include "etmkit/insn.h"

/* Each fills *info completely (isa included) and returns 0, or returns
 * -etmkit_err_truncated when @avail bytes cannot be classified. A32 is
 * called with at least 4 bytes. Addresses are 32-bit: targets wrap modulo
 * 2^32. */
int insn_decode_a32(struct insn_info *info, uint32_t addr, const uint8_t *b);
/* T32; @thumbee: decode as ThumbEE (ARM DDI 0406C A9). */
int insn_decode_t32(struct insn_info *info, uint32_t addr, const uint8_t *b,
		    size_t avail, int thumbee);
int insn_decode_jazelle(struct insn_info *info, uint32_t addr,
			const uint8_t *b, size_t avail);

#endif
