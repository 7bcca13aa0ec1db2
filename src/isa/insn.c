/* Instruction classification: dispatch by instruction set. */
#include <string.h>

#include "isa/insn_internal.h"

size_t insn_opcode_bytes(enum etmkit_isa isa, uint32_t opcode, unsigned size,
			 uint8_t out[4])
{
	uint32_t op = opcode;

	switch (isa) {
	case etmkit_isa_jazelle:
		if (size < 1)
			return 0;
		if (size > 4)
			size = 4;
		for (unsigned i = 0; i < size; i++)
			out[i] = (uint8_t)(op >> (8 * (size - 1 - i)));
		return size;
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		if (size == 2) {
			out[0] = (uint8_t)op;
			out[1] = (uint8_t)(op >> 8);
			return 2;
		}
		op = op >> 16 | op << 16; /* first halfword first in memory */
		break;
	case etmkit_isa_arm:
	case etmkit_isa_a64:
		break;
	default:
		return 0;
	}
	if (size != 4)
		return 0;
	for (unsigned i = 0; i < 4; i++)
		out[i] = (uint8_t)(op >> (8 * i));
	return 4;
}

int insn_decode(struct insn_info *info, enum etmkit_isa isa, uint64_t addr,
		const uint8_t *bytes, size_t avail)
{
	if (!info || (!bytes && avail))
		return -etmkit_err_invalid;
	switch (isa) {
	case etmkit_isa_arm:
		if (avail < 4)
			return -etmkit_err_truncated;
		return insn_decode_a32(info, (uint32_t)addr, bytes);
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		return insn_decode_t32(info, (uint32_t)addr, bytes, avail,
				       isa == etmkit_isa_thumbee);
	case etmkit_isa_jazelle:
		return insn_decode_jazelle(info, (uint32_t)addr, bytes, avail);
	case etmkit_isa_a64:
		if (avail < 4)
			return -etmkit_err_truncated;
		return insn_decode_a64(info, addr, bytes);
	default:
		return -etmkit_err_invalid;
	}
}
