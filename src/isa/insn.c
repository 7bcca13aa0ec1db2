/* Instruction classification: dispatch by instruction set. */
#include <string.h>

#include "isa/insn_internal.h"

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
