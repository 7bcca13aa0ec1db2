/* A32 instruction classification (ARM DDI 0406C chapter A5).
 *
 * The decode follows the manual's tables top-down: A5.1 splits on
 * cond:op1:op, each helper below is one of its sub-tables and names it.
 * Only what flow reconstruction needs is extracted: PC writes, memory
 * accesses, coprocessor transfers, exceptions, undefined encodings.
 *
 * UNPREDICTABLE encodings are classified as their pseudocode would
 * execute: a register field of 15 that the instruction writes (Rd, Rt, a
 * written-back Rn) makes it a branch, since the PC may change.
 */
#include <string.h>

#include "isa/insn_internal.h"


/* Rn written back by a load/store: P == 0 (post-indexed) or W == 1. */
static int a32_wback(uint32_t w)
{
	return !insn_bit(w, 24) || insn_bit(w, 21);
}

/* Data-processing, A5.2.1 (register), A5.2.2 (register-shifted
 * register), A5.2.3 (immediate): op = bits [24:21], S = bit 20. */
static void a32_dp(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 24, 21);
	uint32_t rd = insn_bits(w, 15, 12);
	int imm = insn_bit(w, 25);
	int regshift = !imm && insn_bit(w, 4);

	/* TST, TEQ, CMP, CMN (op 10xx, always S) write no register. */
	if ((op & 0xc) == 0x8 || rd != 15)
		return;
	insn_pc_write(info);
	if (regshift)
		return; /* UNPREDICTABLE; no exception-return form (A5.2.2) */
	if (insn_bit(w, 20)) {
		/* SUBS PC, LR and related instructions, B9.3.20 */
		info->flags |= INSN_F_EXC_RETURN;
		return;
	}
	/* MOV PC, LR: MOV (register) A1, Rm = 14, shift LSL #0 (A8.8.105) */
	if (op == 0xd && !imm && insn_bits(w, 11, 4) == 0 &&
	    insn_bits(w, 3, 0) == 14)
		info->flags |= INSN_F_RETURN;
}

/* Miscellaneous instructions, A5.2.12 (Table A5-14). */
static void a32_misc(struct insn_info *info, uint32_t w)
{
	uint32_t op2 = insn_bits(w, 6, 4);
	uint32_t op = insn_bits(w, 22, 21);
	uint32_t rm = insn_bits(w, 3, 0);

	switch (op2) {
	case 0: /* MRS, MSR, and their banked-register forms (B9.3.9-12) */
		if (!(op & 1))
			insn_writes(info, insn_bits(w, 15, 12));
		return;
	case 1:
		if (op == 1) { /* BX, A8.8.27 */
			insn_pc_write(info);
			if (rm == 14)
				info->flags |= INSN_F_RETURN;
		} else if (op == 3) { /* CLZ */
			insn_writes(info, insn_bits(w, 15, 12));
		} else {
			info->flags |= INSN_F_UNDEFINED;
		}
		return;
	case 2: /* BXJ, A8.8.28 */
	case 3: /* BLX (register), A8.8.26 */
		if (op != 1) {
			info->flags |= INSN_F_UNDEFINED;
			return;
		}
		insn_pc_write(info);
		if (op2 == 3)
			info->flags |= INSN_F_CALL;
		return;
	case 5: /* Saturating addition and subtraction, A5.2.6 */
		insn_writes(info, insn_bits(w, 15, 12));
		return;
	case 6: /* ERET, B9.3.3 */
		if (op == 3)
			info->flags |= INSN_F_BRANCH | INSN_F_INDIRECT |
				       INSN_F_EXC_RETURN;
		else
			info->flags |= INSN_F_UNDEFINED;
		return;
	case 7: /* BKPT (01), HVC (10), SMC (11) */
		info->flags |= op ? INSN_F_EXCEPTION : INSN_F_UNDEFINED;
		return;
	default:
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
}

/* Multiply and multiply accumulate, A5.2.5 (Table A5-6). */
static void a32_mul(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 23, 20);

	if (op == 5 || op == 7) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	insn_writes(info, insn_bits(w, 19, 16));
	/* UMAAL and the long forms also write RdLo */
	if (op == 4 || (op & 8))
		insn_writes(info, insn_bits(w, 15, 12));
}

/* Halfword multiply and multiply accumulate, A5.2.7: Rd in [19:16];
 * SMLAL<x><y> (op1 10) also writes RdLo. */
static void a32_mul_half(struct insn_info *info, uint32_t w)
{
	insn_writes(info, insn_bits(w, 19, 16));
	if (insn_bits(w, 22, 21) == 2)
		insn_writes(info, insn_bits(w, 15, 12));
}

/* Synchronization primitives, A5.2.10 (Table A5-12). */
static void a32_sync(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 23, 20);
	uint32_t rt = insn_bits(w, 15, 12);

	if ((op & 0xb) == 0) { /* SWP, SWPB, A8.8.229 */
		info->flags |= INSN_F_LOAD | INSN_F_STORE;
		insn_writes(info, rt);
		return;
	}
	if (!(op & 8)) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	/* STREX{,D,B,H} write a status register, LDREX{,D,B,H} Rt; LDREXD
	 * (op 1011) Rt and Rt+1. */
	insn_writes(info, rt);
	if (op & 1) {
		info->flags |= INSN_F_LOAD;
		if (op == 0xb)
			insn_writes(info, rt + 1);
	} else {
		info->flags |= INSN_F_STORE;
	}
}

/* Extra load/store instructions, A5.2.8, and their unprivileged forms,
 * A5.2.9 (P 0, W 1: LDRHT, STRHT, LDRSBT, LDRSHT, and LDRD/STRD whose
 * decode marks that combination UNPREDICTABLE). op2 = bits [6:5]. */
static void a32_extra_ldst(struct insn_info *info, uint32_t w)
{
	uint32_t op2 = insn_bits(w, 6, 5);
	uint32_t rt = insn_bits(w, 15, 12);
	int load = insn_bit(w, 20);

	if (op2 != 1 && !load) {
		/* LDRD (op2 10) and STRD (op2 11), A8.8.72, A8.8.210 */
		if (op2 == 2) {
			info->flags |= INSN_F_LOAD;
			insn_writes(info, rt);
			insn_writes(info, rt + 1);
		} else {
			info->flags |= INSN_F_STORE;
		}
	} else if (load) { /* LDRH, LDRSB, LDRSH */
		info->flags |= INSN_F_LOAD;
		insn_writes(info, rt);
	} else { /* STRH */
		info->flags |= INSN_F_STORE;
	}
	if (a32_wback(w))
		insn_writes(info, insn_bits(w, 19, 16));
}

/* MSR (immediate), and hints, A5.2.11 (Table A5-10): with op (bit 22) 0
 * and op1 (bits [19:16]) 0000, op2 = bits [7:0] selects the hint; WFE
 * (00000010, A8.8.424) and WFI (00000011, A8.8.425) are the ones flow
 * reconstruction sees (ETMv4 WFXMODE traces them as P0 instructions). */
static void a32_hint(struct insn_info *info, uint32_t w)
{
	uint32_t op2 = insn_bits(w, 7, 0);

	if (!insn_bit(w, 22) && insn_bits(w, 19, 16) == 0 &&
	    (op2 == 2 || op2 == 3))
		info->flags |= INSN_F_WFX;
}

/* Data-processing and miscellaneous instructions, A5.2 (Table A5-2): op =
 * bit 25, op1 = bits [24:20], op2 = bits [7:4]. MOVW and MOVT (A8.8.102,
 * A8.8.106) write Rd; MSR (immediate) and hints (A5.2.11) write no
 * register. */
static void a32_dp_misc(struct insn_info *info, uint32_t w)
{
	uint32_t op1 = insn_bits(w, 24, 20);
	uint32_t op2 = insn_bits(w, 7, 4);
	int misc_space = (op1 & 0x19) == 0x10; /* op1 == 10xx0 */

	if (insn_bit(w, 25)) {
		if (!misc_space)
			a32_dp(info, w);
		else if ((op1 & 0x1b) == 0x10) /* MOVW, MOVT */
			insn_writes(info, insn_bits(w, 15, 12));
		else
			a32_hint(info, w);
		return;
	}
	if (!misc_space && (!(op2 & 1) || !(op2 & 8))) {
		a32_dp(info, w); /* register, or register-shifted register */
	} else if (misc_space && !(op2 & 8)) {
		a32_misc(info, w);
	} else if (misc_space && !(op2 & 1)) {
		a32_mul_half(info, w);
	} else if (op2 == 9) {
		if (op1 & 0x10)
			a32_sync(info, w);
		else
			a32_mul(info, w);
	} else {
		a32_extra_ldst(info, w);
	}
}

/* Load/store word and unsigned byte, A5.3 (LDR, LDRB, LDRT, LDRBT, STR,
 * STRB, STRT, STRBT). */
static void a32_ldst(struct insn_info *info, uint32_t w)
{
	uint32_t rn = insn_bits(w, 19, 16);
	uint32_t rt = insn_bits(w, 15, 12);

	if (!insn_bit(w, 20)) {
		info->flags |= INSN_F_STORE;
	} else {
		info->flags |= INSN_F_LOAD;
		insn_writes(info, rt);
		/* POP {PC} is LDR PC, [SP], #4 (A8.8.131 A2): immediate,
		 * post-indexed, added, word, 4. */
		if (rt == 15 && rn == 13 && !insn_bit(w, 25) &&
		    !insn_bit(w, 24) && insn_bit(w, 23) && !insn_bit(w, 22) &&
		    !insn_bit(w, 21) && insn_bits(w, 11, 0) == 4)
			info->flags |= INSN_F_RETURN;
	}
	if (a32_wback(w))
		insn_writes(info, rn);
}

/* Parallel addition and subtraction, A5.4.1 and A5.4.2: op1 00 and op2
 * 101, 110 are unallocated. */
static int a32_parallel_ok(uint32_t w)
{
	uint32_t op2 = insn_bits(w, 7, 5);

	return insn_bits(w, 21, 20) != 0 && op2 != 5 && op2 != 6;
}

/* Packing, unpacking, saturation, and reversal, A5.4.3 (Table A5-19),
 * by op1 = bits [22:20] and op2 = bits [7:5]. */
static int a32_pack_ok(uint32_t w)
{
	uint32_t op1 = insn_bits(w, 22, 20);
	uint32_t op2 = insn_bits(w, 7, 5);

	if (!(op2 & 1)) /* PKH (000 xx0), SSAT (01x xx0), USAT (11x xx0) */
		return op1 == 0 || (op1 & 2);
	switch (op1) {
	case 0: /* SXTAB16 (011), SEL (101) */
		return op2 == 3 || op2 == 5;
	case 2: /* SSAT16, SXTAB */
	case 6: /* USAT16, UXTAB */
		return op2 == 1 || op2 == 3;
	case 3: /* REV, SXTAH, REV16 */
	case 7: /* RBIT, UXTAH, REVSH */
		return op2 == 1 || op2 == 3 || op2 == 5;
	case 4: /* UXTAB16 */
		return op2 == 3;
	default:
		return 0;
	}
}

/* Signed multiply, signed and unsigned divide, A5.4.4 (Table A5-20). */
static int a32_smul_ok(uint32_t w)
{
	uint32_t op1 = insn_bits(w, 22, 20);
	uint32_t op2 = insn_bits(w, 7, 5);

	switch (op1) {
	case 0: /* SMLAD, SMLSD */
	case 4: /* SMLALD, SMLSLD */
		return op2 < 4;
	case 1: /* SDIV */
	case 3: /* UDIV */
		return op2 == 0;
	case 5: /* SMMLA (00x), SMMLS (11x) */
		return op2 < 2 || op2 >= 6;
	default:
		return 0;
	}
}

/* Media instructions, A5.4 (Table A5-16). */
static void a32_media(struct insn_info *info, uint32_t w)
{
	uint32_t op1 = insn_bits(w, 24, 20);
	uint32_t op2 = insn_bits(w, 7, 5);
	uint32_t rd = insn_bits(w, 15, 12);
	int ok;

	switch (op1 >> 3) {
	case 0: /* parallel add/sub, signed 000xx, unsigned 001xx */
		ok = a32_parallel_ok(w);
		break;
	case 1:
		ok = a32_pack_ok(w);
		break;
	case 2:
		ok = a32_smul_ok(w);
		rd = insn_bits(w, 19, 16);
		/* SMLALD, SMLSLD also write RdLo in [15:12] */
		if (ok && insn_bits(w, 22, 20) == 4)
			insn_writes(info, insn_bits(w, 15, 12));
		break;
	default:
		if (op1 == 0x1f && op2 == 7) {
			/* UDF, permanently undefined, A8.8.247 */
			info->flags |= INSN_F_EXCEPTION | INSN_F_UDF;
			return;
		}
		if (op1 == 0x18) { /* USAD8, USADA8 */
			ok = op2 == 0;
			rd = insn_bits(w, 19, 16);
		} else if ((op1 & 0x1e) == 0x1c) { /* BFC, BFI */
			ok = (op2 & 3) == 0;
		} else if ((op1 & 0x1e) == 0x1a || (op1 & 0x1e) == 0x1e) {
			ok = (op2 & 3) == 2; /* SBFX, UBFX */
		} else {
			ok = 0;
		}
		break;
	}
	if (!ok) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	insn_writes(info, rd);
}

/* Branch, branch with link, and block data transfer, A5.5. */
static void a32_block(struct insn_info *info, uint32_t w, uint32_t addr)
{
	uint32_t rn = insn_bits(w, 19, 16);
	int load = insn_bit(w, 20);
	int user = insn_bit(w, 22); /* the ^ forms, B9.3.5-6, B9.3.14 */
	int pc = insn_bit(w, 15);

	if (insn_bit(w, 25)) { /* B, BL: A8.8.18, A8.8.25 */
		insn_direct(info, addr + 8 + insn_sext(w << 2, 26),
			    etmkit_isa_arm);
		if (insn_bit(w, 24))
			info->flags |= INSN_F_CALL;
		return;
	}
	info->flags |= load ? INSN_F_LOAD : INSN_F_STORE;
	if (load && pc) {
		insn_pc_write(info);
		if (user) /* LDM (exception return), B9.3.5 */
			info->flags |= INSN_F_EXC_RETURN;
		/* POP is LDMIA SP! (A8.8.131 A1): P = 0, U = 1, W = 1. */
		else if (rn == 13 && insn_bits(w, 24, 23) == 1 &&
			 insn_bit(w, 21))
			info->flags |= INSN_F_RETURN;
	}
	if (insn_bit(w, 21))
		insn_writes(info, rn);
}

/* Memory hints, Advanced SIMD instructions, and miscellaneous
 * instructions, A5.7.1 (Table A5-24): op1 = bits [26:20]. */
static void a32_uncond_misc(struct insn_info *info, uint32_t w)
{
	uint32_t op1 = insn_bits(w, 26, 20);
	uint32_t op2 = insn_bits(w, 7, 4);

	if ((op1 & 0x60) == 0x20) {
		insn_simd_dp(info, w);
		return;
	}
	if ((op1 & 0x71) == 0x40) {
		insn_simd_ldst(info, w);
		return;
	}
	if (op1 == 0x10) {
		/* CPS (op2 xx0x, Rn xxx0), SETEND (op2 0000, Rn xxx1) */
		if (insn_bit(w, 16) ? op2 != 0 : (op2 & 2) != 0)
			info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (op1 == 0x57) {
		/* CLREX 0001, DSB 0100, DMB 0101, ISB 0110; the rest of the
		 * row is UNPREDICTABLE, not UNDEFINED. */
		if (op2 == 6)
			info->flags |= INSN_F_ISB;
		else if (op2 == 4 || op2 == 5)
			info->flags |= INSN_F_BARRIER;
		return;
	}
	/* PLI, PLD, PLDW and unallocated hints (immediate forms 10xxxx1,
	 * register forms 11xxxx1 with op2 xxx0); 1010011, 1011x11, 11xxx11
	 * are UNPREDICTABLE. None access data memory architecturally. The
	 * table leaves 100xx11 unallocated. */
	if ((op1 & 0x61) == 0x41) {
		if ((op1 & 0x73) == 0x43)
			info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if ((op1 & 0x61) == 0x61 && !(op2 & 1))
		return;
	info->flags |= INSN_F_UNDEFINED;
}

/* Unconditional instructions, A5.7 (Table A5-23): op1 = bits [27:20]. */
static void a32_uncond(struct insn_info *info, uint32_t w, uint32_t addr)
{
	uint32_t op1 = insn_bits(w, 27, 20);

	if (!(op1 & 0x80)) {
		a32_uncond_misc(info, w);
	} else if ((op1 & 0xe5) == 0x84) { /* SRS, B9.3.16 */
		info->flags |= INSN_F_STORE;
	} else if ((op1 & 0xe5) == 0x81) { /* RFE, B9.3.13 */
		info->flags |= INSN_F_LOAD | INSN_F_BRANCH | INSN_F_INDIRECT |
			       INSN_F_EXC_RETURN;
	} else if ((op1 & 0xe0) == 0xa0) { /* BLX (immediate), A8.8.25 A2 */
		insn_direct(info, addr + 8 + insn_sext((w << 2) |
						       (insn_bit(w, 24) << 1),
						       26),
			    etmkit_isa_thumb);
		info->flags |= INSN_F_CALL;
	} else if ((op1 & 0xf0) == 0xf0 || (op1 & 0xe0) == 0x80) {
		info->flags |= INSN_F_UNDEFINED;
	} else {
		insn_copro(info, w, 1);
	}
}

int insn_decode_a32(struct insn_info *info, uint32_t addr, const uint8_t *b)
{
	uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	uint32_t cond = w >> 28;

	memset(info, 0, sizeof(*info));
	info->opcode = w;
	info->size = 4;
	info->isa = etmkit_isa_arm;
	info->cond = INSN_COND_AL;
	if (cond == 15) {
		a32_uncond(info, w, addr);
		return 0;
	}
	info->cond = (uint8_t)cond;
	if (cond != INSN_COND_AL)
		info->flags |= INSN_F_COND;
	/* A5.1, Table A5-1: op1 = bits [27:25], op = bit 4 */
	switch (insn_bits(w, 27, 25)) {
	case 0:
	case 1:
		a32_dp_misc(info, w);
		break;
	case 2:
		a32_ldst(info, w);
		break;
	case 3:
		if (insn_bit(w, 4))
			a32_media(info, w);
		else
			a32_ldst(info, w);
		break;
	case 4:
	case 5:
		a32_block(info, w, addr);
		break;
	default:
		if (insn_bits(w, 25, 24) == 3) /* SVC, A8.8.228 */
			info->flags |= INSN_F_EXCEPTION;
		else
			insn_copro(info, w, 0);
		break;
	}
	return 0;
}
