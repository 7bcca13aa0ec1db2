/* T32 and ThumbEE instruction classification (ARM DDI 0406C chapters A6
 * and A9).
 *
 * A6.1: a halfword whose bits [15:11] are 0b11101, 0b11110 or 0b11111
 * starts a 32-bit instruction; any other is a 16-bit instruction. The
 * helpers follow the A6.2 (16-bit) and A6.3 (32-bit) tables, one per
 * table. ThumbEE (A9.1) is T32 with three changes that matter here: the
 * 16-bit LDM/STM encodings hold the ThumbEE-only instructions (handler
 * branches, CHKA, R9/R10-relative and negative-offset loads/stores) and
 * BLX (immediate) is UNDEFINED. Null checks and CHKA branch to a handler
 * only when a check fails; ETMv3 traces that as an exception, number 5
 * "Jazelle/ThumbEE check" (IHI 0014Q Table 7-12), so neither is
 * classified as a branch.
 *
 * The BLX (immediate) encodings with H = 1, UNDEFINED in ARMv7, are read
 * as the Armv8.1-M branch future and low-overhead loop instructions (Arm
 * DDI 0553): WLS, WLSTP, LE and LETP are direct branches.
 *
 * As in A32, UNPREDICTABLE encodings that name the PC as a destination
 * are classified as PC writes. Direct branches other than BLX stay in
 * the instruction set being decoded (T32 or ThumbEE).
 */
#include <string.h>

#include "isa/insn_internal.h"


/* ---- 16-bit encodings, A6.2 -------------------------------------------- */

/* Special data instructions and branch and exchange, A6.2.3. */
static void t16_special(struct insn_info *info, uint32_t hw)
{
	uint32_t opc = insn_bits(hw, 9, 6);
	uint32_t rdn = insn_bit(hw, 7) << 3 | insn_bits(hw, 2, 0);
	uint32_t rm = insn_bits(hw, 6, 3);

	switch (opc >> 2) {
	case 0: /* ADD (register) T2, ADD (SP plus register) */
		insn_writes(info, rdn);
		return;
	case 1: /* CMP (register) T2; 0100 UNPREDICTABLE */
		return;
	case 2: /* MOV (register) T1, A8.8.103 */
		insn_writes(info, rdn);
		if (rdn == 15 && rm == 14)
			info->flags |= INSN_F_RETURN;
		return;
	default: /* BX (110x), BLX (register) (111x) */
		insn_pc_write(info);
		if (opc & 2)
			info->flags |= INSN_F_CALL;
		else if (rm == 14)
			info->flags |= INSN_F_RETURN;
		return;
	}
}

/* Load/store single data item, A6.2.4: opA = bits [15:12]; for 0101
 * opB = bits [11:9] (000-010 store), otherwise bit 11 = L. */
static void t16_ldst(struct insn_info *info, uint32_t hw)
{
	int load = insn_bits(hw, 15, 12) == 5 ? insn_bits(hw, 11, 9) >= 3
					       : insn_bit(hw, 11);

	info->flags |= load ? INSN_F_LOAD : INSN_F_STORE;
}

/* Miscellaneous 16-bit instructions, A6.2.5, by bits
 * [11:8] then [7:5]. */
static void t16_misc(struct insn_info *info, uint32_t hw, uint32_t addr)
{
	uint32_t op = insn_bits(hw, 11, 8);

	switch (op) {
	case 0: /* ADD, SUB (SP plus/minus immediate) */
	case 2: /* SXTH, SXTB, UXTH, UXTB */
		return;
	case 1: /* CBZ, CBNZ: A8.8.29, forward i:imm5:'0' */
	case 3:
	case 9:
	case 11:
		insn_direct(info, addr + 4 + (insn_bit(hw, 9) << 6 |
					      insn_bits(hw, 7, 3) << 1),
			    (enum etmkit_isa)info->isa);
		info->flags |= INSN_F_COND;
		return;
	case 4: /* PUSH */
	case 5:
		info->flags |= INSN_F_STORE;
		return;
	case 6: /* SETEND (010), CPS (011) */
		if (insn_bits(hw, 7, 6) != 1)
			info->flags |= INSN_F_UNDEFINED;
		return;
	case 10: /* REV, REV16, REVSH; 10 is unallocated */
		if (insn_bits(hw, 7, 6) == 2)
			info->flags |= INSN_F_UNDEFINED;
		return;
	case 12: /* POP, A8.8.131: P (bit 8) loads the PC */
	case 13:
		info->flags |= INSN_F_LOAD;
		if (op & 1)
			info->flags |= INSN_F_BRANCH | INSN_F_INDIRECT |
				       INSN_F_RETURN;
		return;
	case 14: /* BKPT */
		info->flags |= INSN_F_EXCEPTION;
		return;
	case 15: /* IT (mask != 0000), otherwise NOP-compatible hints
		  * (Table A6-10: opA 0010 WFE, 0011 WFI) */
		if (insn_bits(hw, 3, 0)) {
			info->flags |= INSN_F_IT;
			info->cond = (uint8_t)insn_bits(hw, 7, 4);
			info->it_mask = (uint8_t)insn_bits(hw, 3, 0);
		} else if (insn_bits(hw, 7, 5) == 1) {
			info->flags |= INSN_F_WFX;
		}
		return;
	default: /* 0111, 1000 */
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
}

/* Conditional branch, and Supervisor Call, A6.2.6: cond 1110 is UDF,
 * 1111 SVC, the rest B T1 (A8.8.18). */
static void t16_cond_branch(struct insn_info *info, uint32_t hw,
			    uint32_t addr)
{
	uint32_t cond = insn_bits(hw, 11, 8);

	if (cond >= 14) {
		info->flags |= INSN_F_EXCEPTION |
			       (cond == 14 ? INSN_F_UDF : 0u);
		return;
	}
	insn_direct(info, addr + 4 + insn_sext(insn_bits(hw, 7, 0) << 1, 9),
		    (enum etmkit_isa)info->isa);
	info->flags |= INSN_F_COND;
	info->cond = (uint8_t)cond;
}

/* ThumbEE 16-bit instructions in the LDM/STM space (A9.1, A9.5):
 * 1100 0000 HBP, 1100 0001 unallocated, 1100 001L HB/HBL, 1100 01xx
 * HBLP, 1100 100x LDR (negative immediate), 1100 1010 CHKA, 1100 1011
 * LDR [R10], 1100 110x LDR [R9], 1100 111x STR [R9]. Handler branches
 * go to TEEHBR + handler * 32: indirect, since TEEHBR is not in the
 * opcode. */
static void tee_16(struct insn_info *info, uint32_t hw)
{
	uint32_t op = insn_bits(hw, 11, 8);

	switch (op) {
	case 0: /* HBP */
	case 2: /* HB */
		insn_pc_write(info);
		return;
	case 1:
		info->flags |= INSN_F_UNDEFINED;
		return;
	case 3: /* HBL */
	case 4: /* HBLP */
	case 5:
	case 6:
	case 7:
		insn_pc_write(info);
		info->flags |= INSN_F_CALL;
		return;
	case 10: /* CHKA */
		return;
	case 14: /* STR [R9, #imm] */
	case 15:
		info->flags |= INSN_F_STORE;
		return;
	default: /* LDR [Rn, #-imm], [R10, #imm], [R9, #imm] */
		info->flags |= INSN_F_LOAD;
		return;
	}
}

/* 16-bit Thumb instruction encoding, A6.2 (Table A6-1): opcode = bits
 * [15:10]. */
static void t16(struct insn_info *info, uint32_t hw, uint32_t addr,
		int thumbee)
{
	uint32_t op = insn_bits(hw, 15, 10);

	if (op < 0x10 || op == 0x10 || (op & 0x3c) == 0x28) {
		/* shift/add/sub/move/compare, data-processing, ADR, ADD SP:
		 * low registers only */
	} else if (op == 0x11) {
		t16_special(info, hw);
	} else if (op < 0x28) { /* LDR (literal) 01001x, 0101xx-100xxx */
		if ((op & 0x3e) == 0x12)
			info->flags |= INSN_F_LOAD;
		else
			t16_ldst(info, hw);
	} else if ((op & 0x3c) == 0x2c) {
		t16_misc(info, hw, addr);
	} else if ((op & 0x3c) == 0x30) {
		if (thumbee) /* A9.1: LDM/STM are replaced */
			tee_16(info, hw);
		else /* STM (11000x), LDM (11001x): no PC in the list */
			info->flags |= insn_bit(hw, 11) ? INSN_F_LOAD
							: INSN_F_STORE;
	} else if ((op & 0x3c) == 0x34) {
		t16_cond_branch(info, hw, addr);
	} else { /* 11100x: B T2 */
		insn_direct(info, addr + 4 +
				  insn_sext(insn_bits(hw, 10, 0) << 1, 12),
			    (enum etmkit_isa)info->isa);
	}
}

/* ---- 32-bit encodings, A6.3 -------------------------------------------- */

/* Load/store multiple, A6.3.5: op = hw1[8:7], L = hw1[4],
 * W = hw1[5]. SRS and RFE are op 00 and 11. */
static void t32_ldm_stm(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 24, 23);
	uint32_t rn = insn_bits(w, 19, 16);
	int load = insn_bit(w, 20), wback = insn_bit(w, 21);

	if (op == 0 || op == 3) {
		if (load) /* RFE, B9.3.13 */
			info->flags |= INSN_F_LOAD | INSN_F_BRANCH |
				       INSN_F_INDIRECT | INSN_F_EXC_RETURN;
		else /* SRS, B9.3.16 */
			info->flags |= INSN_F_STORE;
		return;
	}
	info->flags |= load ? INSN_F_LOAD : INSN_F_STORE;
	if (load && insn_bit(w, 15)) { /* LDM/LDMDB/POP with the PC */
		insn_pc_write(info);
		/* POP.W is LDM (IA, op 01) SP! (A8.8.131 T2), not LDMDB. */
		if (rn == 13 && wback && op == 1)
			info->flags |= INSN_F_RETURN;
	}
	if (wback)
		insn_writes(info, rn);
}

/* Load/store dual, load/store exclusive, table branch, A6.3.6 (Table
 * A6-22): hw1[8:7] = P:U, hw1[5:4] = W:L, op3 = hw2[7:4]. */
static void t32_dual_excl(struct insn_info *info, uint32_t w)
{
	int p = insn_bit(w, 24), u = insn_bit(w, 23), wb = insn_bit(w, 21);
	int load = insn_bit(w, 20);
	uint32_t op3 = insn_bits(w, 7, 4);
	uint32_t rt = insn_bits(w, 15, 12), rt2 = insn_bits(w, 11, 8);

	if (p || wb) { /* LDRD, STRD (immediate, literal) */
		info->flags |= load ? INSN_F_LOAD : INSN_F_STORE;
		if (load) {
			insn_writes(info, rt);
			insn_writes(info, rt2);
		}
		if (wb)
			insn_writes(info, insn_bits(w, 19, 16));
		return;
	}
	if (!u) { /* STREX (status in hw2[11:8]), LDREX */
		info->flags |= load ? INSN_F_LOAD : INSN_F_STORE;
		insn_writes(info, load ? rt : rt2);
		return;
	}
	if (load && op3 < 2) { /* TBB, TBH, A8.8.238 */
		info->flags |= INSN_F_LOAD | INSN_F_BRANCH | INSN_F_INDIRECT;
		return;
	}
	/* STREXB/H/D, LDREXB/H/D: op3 0100, 0101, 0111 */
	if (op3 != 4 && op3 != 5 && op3 != 7) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (load) {
		info->flags |= INSN_F_LOAD;
		insn_writes(info, rt);
		if (op3 == 7)
			insn_writes(info, rt2);
	} else {
		info->flags |= INSN_F_STORE;
		insn_writes(info, insn_bits(w, 3, 0));
	}
}

/* Data-processing (shifted register) A6.3.11 and (modified immediate)
 * A6.3.1, which share op = hw1[8:5]: AND/TST 0000, BIC 0001, ORR/MOV
 * 0010, ORN/MVN 0011, EOR/TEQ 0100, PKH 0110 (register only), ADD/CMN
 * 1000, ADC 1010, SBC 1011, SUB/CMP 1101, RSB 1110. With Rd = 1111 and
 * S = 1, AND, EOR, ADD and SUB are TST, TEQ, CMN, CMP: no write. */
static void t32_dp(struct insn_info *info, uint32_t w, int imm)
{
	uint32_t op = insn_bits(w, 24, 21);
	uint32_t rd = insn_bits(w, 11, 8);
	int s = insn_bit(w, 20);

	switch (op) {
	case 0: case 4: case 8: case 13:
		if (rd == 15 && s)
			return;
		break;
	case 1: case 2: case 3: case 10: case 11: case 14:
		break;
	case 6: /* PKHBT, PKHTB: A8.8.125 T1, UNDEFINED if S or T (bit 4) */
		if (!imm && !s && !insn_bit(w, 4))
			break;
		/* fall through */
	default:
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	insn_writes(info, rd);
}

/* Data-processing (plain binary immediate), A6.3.3 (Table A6-12): op =
 * hw1[8:4]. ADDW/ADR, MOVW, SUBW/ADR, MOVT, SSAT(16), SBFX, BFI/BFC,
 * USAT(16), UBFX. */
static void t32_dp_plain(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 24, 20);

	switch (op) {
	case 0x00: case 0x04: case 0x0a: case 0x0c:
	case 0x10: case 0x12: case 0x14: case 0x16:
	case 0x18: case 0x1a: case 0x1c:
		insn_writes(info, insn_bits(w, 11, 8));
		return;
	default:
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
}

/* Branches and miscellaneous control, A6.3.4 (Table A6-13) with op =
 * hw1[10:4] = 0111xxx or 1111xxx and op1 = hw2[14:12] = 0x0. */
static void t32_misc_control(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 26, 20);
	uint32_t op1 = insn_bits(w, 14, 12);

	switch (op) {
	case 0x38: /* MSR (register), MSR (banked register) */
	case 0x39:
		return;
	case 0x3a: /* Change Processor State, and hints, A6.3.4 (Table
		    * A6-14): unallocated hints execute as NOPs; op1 000
		    * with op2 00000010 is WFE.W, 00000011 WFI.W */
		if (insn_bits(w, 10, 8) == 0 && insn_bits(w, 7, 1) == 1)
			info->flags |= INSN_F_WFX;
		return;
	case 0x3b: /* Miscellaneous control instructions, Table A6-15 */
		switch (insn_bits(w, 7, 4)) {
		case 0: /* LEAVEX, A9.3.1 */
		case 1: /* ENTERX */
			info->flags |= INSN_F_ISA_SWITCH;
			info->target_isa = insn_bit(w, 4) ? etmkit_isa_thumbee
							  : etmkit_isa_thumb;
			return;
		case 2: /* CLREX */
			return;
		case 4: /* DSB */
		case 5: /* DMB */
			info->flags |= INSN_F_BARRIER;
			return;
		case 6: /* ISB */
			info->flags |= INSN_F_ISB;
			return;
		default:
			info->flags |= INSN_F_UNDEFINED;
			return;
		}
	case 0x3c: /* BXJ, A8.8.28 */
		insn_pc_write(info);
		return;
	case 0x3d: /* SUBS PC, LR, #imm8 and ERET, B9.3.19 */
		info->flags |= INSN_F_BRANCH | INSN_F_INDIRECT |
			       INSN_F_EXC_RETURN;
		return;
	case 0x3e: /* MRS, MRS (banked register) */
	case 0x3f:
		insn_writes(info, insn_bits(w, 11, 8));
		return;
	case 0x7e: /* HVC */
	case 0x7f: /* SMC (op1 000), UDF T2 (op1 010) */
		if (op1 == 0)
			info->flags |= INSN_F_EXCEPTION;
		else if (op == 0x7f && op1 == 2)
			info->flags |= INSN_F_EXCEPTION | INSN_F_UDF;
		else
			info->flags |= INSN_F_UNDEFINED;
		return;
	default:
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
}

/* ---- Armv8.1-M Low Overhead Branch extension (Arm DDI 0553) ------------
 *
 * DDI 0553 "Branch future and low-overhead loops" puts these in the T32
 * encodings of BLX (immediate) T2 with H = 1: hw1 11110 xxxx xxx xxxxx,
 * hw2 11x0 xxxx xxxx xxx1. That space is UNDEFINED in ARMv7-A/R and in
 * the A-profile's AArch32 T32 (DDI 0406C A8.8.25: "H == '1' then
 * UNDEFINED") and in ARMv7-M/ARMv8-M (no BLX (immediate)). insn_decode()
 * has no profile: it always reads the space as Armv8.1-M, which no other
 * profile allocates. hw1[10:7] (boff) selects:
 *
 *   boff != 0   BF, BFX, BFL, BFLX, BFCSEL (branch future): no PC write
 *   boff == 0   the loop instructions, by hw2[13] and op = hw1[6:4]:
 *     hw2 1100 imml immh(10) 1 (imml = hw2[11], immh = hw2[10:1]):
 *       op 100            WLS LR, Rn, #imm     forward if Rn == 0
 *       op 0sz, Rn != 15  WLSTP.<sz> LR, Rn, #imm   (likewise)
 *       hw1 f00f          LE LR, #-imm         back while LR > 1
 *       hw1 f01f          LETP LR, #-imm       back while elements remain
 *       hw1 f02f          LE #-imm             back always (the "loop
 *                                              forever" form, no LR)
 *     hw2 e001: op 100 DLS, op 0sz DLSTP (Rn == 15: LCTP); e801: op 0sz
 *       VCTP (MVE). These only set LR, the loop or predication state.
 *
 * The immediate is ZeroExtend(immh:imml:'0') from the PC (the address +
 * 4): WLS/WLSTP add it, LE/LETP subtract it. Confirmed with LLVM's
 * assembler (llvm-mc -mattr=+lob,+mve: "wls lr, r0, #6" is f040 c803,
 * "le lr, #-20" f00f c00b) and on the Cortex-M55 capture
 * testdata/etmv4/armv8_1m_branches (WLS at 0x1e0c4 goes to 0x1e0cc, LE
 * at 0x1e104 to 0x1e0f4). The rest of boff == 0 is unallocated: LLVM
 * rejects it, except hw1 f03f (an LE with both the "no LR" and the
 * tail-predicated bit), which it reads as an UNPREDICTABLE WLSTP.64 with
 * Rn = PC, a WLS that cannot branch (PC is never 0).
 *
 * Branch future instructions only tell the PE that the instruction at the
 * branch point (PC + boff:'0') is a branch to the given target, so that
 * it may branch there without executing that instruction (from its
 * LO_BRANCH_INFO cache, which it may also discard at any time). The
 * branch point holds a real branch to the same target, classified as what
 * it is. Whether the PE took a branch from the cache shows in no opcode:
 * a decoder that keeps no branch-future state, like this one, is exact
 * only when the trace reports that branch at the branch point's
 * instruction, the way the Cortex-M55 capture reports each loop iteration
 * at its LE (which the loop cache may have skipped). Were it reported at
 * the instruction before the branch point, the walk would run on to the
 * branch point's own branch and spend the atom there: the same target,
 * with the skipped branch listed as executed.
 */

/* The loop immediate, immh:imml:'0' (DDI 0553 WLS, LE). */
static uint32_t lob_imm(uint32_t w)
{
	return insn_bits(w, 10, 1) << 2 | insn_bit(w, 11) << 1;
}

/* Low-overhead loops with boff == 0 (table above). */
static void t32_lob(struct insn_info *info, uint32_t w, uint32_t addr)
{
	uint32_t op = insn_bits(w, 22, 20), rn = insn_bits(w, 19, 16);
	uint32_t pc = addr + 4;
	enum etmkit_isa isa = (enum etmkit_isa)info->isa;

	if (insn_bit(w, 13)) { /* DLS, DLSTP, LCTP, VCTP */
		uint32_t hw2 = insn_bits(w, 15, 0);

		if (!(hw2 == 0xe001 && op <= 4) &&
		    !(hw2 == 0xe801 && op < 4))
			info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (op == 4 || (op < 4 && rn != 15)) { /* WLS, WLSTP */
		insn_direct(info, pc + lob_imm(w), isa);
		info->flags |= INSN_F_COND;
		return;
	}
	if (op >= 3) { /* 101-111; 011 with Rn == 15 */
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	insn_direct(info, pc - lob_imm(w), isa); /* LE, LETP, LE (no LR) */
	if (op != 2)
		info->flags |= INSN_F_COND;
}

/* Branches and miscellaneous control, A6.3.4: B T3/T4, BL, BLX
 * (immediate) (A8.8.18, A8.8.25) and the control space. */
static void t32_branch(struct insn_info *info, uint32_t w, uint32_t addr,
		       int thumbee)
{
	uint32_t op1 = insn_bits(w, 14, 12);
	uint32_t s = insn_bit(w, 26);
	uint32_t i1 = !(insn_bit(w, 13) ^ s), i2 = !(insn_bit(w, 11) ^ s);
	uint32_t imm = s << 24 | i1 << 23 | i2 << 22 |
		       insn_bits(w, 25, 16) << 12 | insn_bits(w, 10, 0) << 1;

	if (!(op1 & 5)) { /* op1 0x0 */
		uint32_t cond = insn_bits(w, 25, 22);

		if ((insn_bits(w, 25, 23)) == 7) {
			t32_misc_control(info, w);
			return;
		}
		/* B T3: S:J2:J1:imm6:imm11:'0' */
		imm = s << 20 | insn_bit(w, 11) << 19 | insn_bit(w, 13) << 18 |
		      insn_bits(w, 21, 16) << 12 | insn_bits(w, 10, 0) << 1;
		insn_direct(info, addr + 4 + insn_sext(imm, 21),
			    (enum etmkit_isa)info->isa);
		info->flags |= INSN_F_COND;
		info->cond = (uint8_t)cond;
		return;
	}
	if (op1 & 1) { /* B T4 (0x1), BL (1x1) */
		insn_direct(info, addr + 4 + insn_sext(imm, 25),
			    (enum etmkit_isa)info->isa);
		if (op1 & 4)
			info->flags |= INSN_F_CALL;
		return;
	}
	/* BLX (immediate) T2: UNDEFINED in ThumbEE; H (hw2[0]) = 1 is the
	 * Armv8.1-M branch future and loop space (above) */
	if (thumbee) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (insn_bit(w, 0)) {
		if (!insn_bits(w, 26, 23))
			t32_lob(info, w, addr);
		/* else branch future: no PC write (above) */
		return;
	}
	insn_direct(info, ((addr + 4) & ~3u) + insn_sext(imm, 25),
		    etmkit_isa_arm);
	info->flags |= INSN_F_CALL;
}

/* The forms of a single-item load/store with op2 = hw2[11:6] when hw1[7]
 * (U, the 12-bit immediate form) is clear, A6.3.7-A6.3.10: 000000
 * register, 1xx1xx pre/post-indexed, 1100xx negative offset, 1110xx
 * unprivileged; the rest (P = W = 0, other 0xxxxx) is UNDEFINED. */
enum t32_form { T32_UNDEF, T32_REG, T32_WBACK, T32_NEG, T32_UNPRIV };

static enum t32_form t32_ldst_form(uint32_t w)
{
	uint32_t op2 = insn_bits(w, 11, 6);

	if (op2 == 0)
		return T32_REG;
	if ((op2 & 0x24) == 0x24)
		return T32_WBACK;
	if ((op2 & 0x3c) == 0x30)
		return T32_NEG;
	if ((op2 & 0x3c) == 0x38)
		return T32_UNPRIV;
	return T32_UNDEF;
}

/* Store single data item, A6.3.10 (Table A6-20): op1 = hw1[7:5]. */
static void t32_store(struct insn_info *info, uint32_t w)
{
	uint32_t op1 = insn_bits(w, 23, 21);
	uint32_t rn = insn_bits(w, 19, 16);
	enum t32_form form = T32_NEG; /* any valid form with no writeback */

	if (op1 == 3 || op1 == 7 || rn == 15) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (!(op1 & 4))
		form = t32_ldst_form(w);
	if (form == T32_UNDEF) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	info->flags |= INSN_F_STORE;
}

/* Loads: byte A6.3.9, halfword A6.3.8, word A6.3.7. hw1[8] = S (signed),
 * hw1[7] = U (12-bit immediate), size = hw1[6:5]. With Rt = 1111 the
 * byte and halfword literal, 12-bit immediate, negative immediate and
 * register forms are PLD, PLDW, PLI or unallocated hints (NOPs): none
 * reads data. Their writeback and unprivileged forms stay loads, with
 * Rt = 15 UNPREDICTABLE (A8.8.68 LDRB (immediate) T3: "t == 15 && W ==
 * '1'"; A8.8.70 LDRBT: "t IN {13,15}"): loads to the PC. */
static void t32_load(struct insn_info *info, uint32_t w)
{
	uint32_t size = insn_bits(w, 22, 21);
	uint32_t rn = insn_bits(w, 19, 16), rt = insn_bits(w, 15, 12);
	int imm12 = insn_bit(w, 23), sign = insn_bit(w, 24);
	enum t32_form form = T32_NEG;

	if (size == 3 || (size == 2 && sign)) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (!imm12 && rn != 15)
		form = t32_ldst_form(w);
	if (form == T32_UNDEF) {
		info->flags |= INSN_F_UNDEFINED;
		return;
	}
	if (rt == 15 && size != 2 && form != T32_WBACK && form != T32_UNPRIV)
		return;
	info->flags |= INSN_F_LOAD;
	insn_writes(info, rt);
	/* POP.W {PC}: LDR PC, [SP], #4, A8.8.131 T3: post-indexed, added,
	 * 4 */
	if (rt == 15 && rn == 13 && form == T32_WBACK &&
	    insn_bits(w, 10, 8) == 3 && insn_bits(w, 7, 0) == 4)
		info->flags |= INSN_F_RETURN;
	if (form == T32_WBACK)
		insn_writes(info, rn);
}

/* Data-processing (register), A6.3.12 (Table A6-24): op1 = hw1[7:4],
 * op2 = hw2[7:4]; hw2[15:12] must be 1111. Includes parallel add/sub
 * (A6.3.13-14) and miscellaneous operations (A6.3.15). */
static int t32_dp_reg_ok(uint32_t w)
{
	uint32_t op1 = insn_bits(w, 23, 20);
	uint32_t op2 = insn_bits(w, 7, 4);

	if (insn_bits(w, 15, 12) != 15)
		return 0;
	if (!(op1 & 8)) {
		if (op2 == 0) /* LSL, LSR, ASR, ROR (register) */
			return 1;
		/* SXTAH .. UXTAB (op1 0000-0101, op2 1xxx) */
		return (op2 & 8) && op1 < 6;
	}
	if (!(op2 & 8)) { /* parallel add/sub, op2 00xx signed, 01xx */
		uint32_t pop1 = op1 & 7;

		return (op2 & 3) != 3 && pop1 != 3 && pop1 != 7;
	}
	if ((op2 & 0xc) != 8 || (op1 & 4)) /* misc: op1 10xx, op2 10xx */
		return 0;
	switch (op1 & 3) {
	case 0: case 1: /* QADD..QDSUB, REV..REVSH */
		return 1;
	default: /* SEL (10 00), CLZ (11 00) */
		return (op2 & 3) == 0;
	}
}

/* Multiply, multiply accumulate, and absolute difference, A6.3.16
 * (Table A6-29): op1 = hw1[6:4], op2 = hw2[5:4]; hw2[7:6] must be 00. */
static int t32_mul_ok(uint32_t w)
{
	uint32_t op1 = insn_bits(w, 22, 20);
	uint32_t op2 = insn_bits(w, 5, 4);

	if (insn_bits(w, 7, 6))
		return 0;
	switch (op1) {
	case 0: /* MLA, MUL, MLS */
		return op2 < 2;
	case 1: /* SMLA<x><y>, SMUL<x><y> */
		return 1;
	case 7: /* USADA8, USAD8 */
		return op2 == 0;
	default: /* SMLAD, SMLAW, SMLSD, SMMLA, SMMLS: op2 0x */
		return op2 < 2;
	}
}

/* Long multiply, long multiply accumulate, and divide, A6.3.17 (Table
 * A6-30): op1 = hw1[6:4], op2 = hw2[7:4]. */
static int t32_mull_ok(uint32_t w)
{
	uint32_t op1 = insn_bits(w, 22, 20);
	uint32_t op2 = insn_bits(w, 7, 4);

	switch (op1) {
	case 0: case 2: /* SMULL, UMULL */
		return op2 == 0;
	case 1: case 3: /* SDIV, UDIV */
		return op2 == 15;
	case 4: /* SMLAL, SMLAL<x><y>, SMLALD */
		return op2 == 0 || (op2 & 0xc) == 8 || (op2 & 0xe) == 0xc;
	case 5: /* SMLSLD */
		return (op2 & 0xe) == 0xc;
	case 6: /* UMLAL, UMAAL */
		return op2 == 0 || op2 == 6;
	default:
		return 0;
	}
}

/* Coprocessor, Advanced SIMD, and floating-point instructions, A6.3.18:
 * op1 = hw1[9:4]; 11xxxx is Advanced SIMD data-processing, given to the
 * shared decoder in its A32 form (U from bit 28 to bit 24). */
static void t32_copro(struct insn_info *info, uint32_t w)
{
	if (insn_bits(w, 25, 24) == 3)
		insn_simd_dp(info, 0xf2000000u | insn_bit(w, 28) << 24 |
				   (w & 0x00ffffffu));
	else
		insn_copro(info, w, (int)insn_bit(w, 28));
}

/* 32-bit Thumb instruction encoding, A6.3 (Table A6-9): op1 = hw1[12:11],
 * op2 = hw1[10:4], op = hw2[15]. */
static void t32(struct insn_info *info, uint32_t w, uint32_t addr,
		int thumbee)
{
	uint32_t op1 = insn_bits(w, 28, 27);
	uint32_t op2 = insn_bits(w, 26, 20);
	int ok = 1;

	if (op1 == 1) {
		if (op2 & 0x40)
			t32_copro(info, w);
		else if (op2 & 0x20)
			t32_dp(info, w, 0);
		else if (op2 & 0x04)
			t32_dual_excl(info, w);
		else
			t32_ldm_stm(info, w);
	} else if (op1 == 2) {
		if (insn_bit(w, 15))
			t32_branch(info, w, addr, thumbee);
		else if (op2 & 0x20)
			t32_dp_plain(info, w);
		else
			t32_dp(info, w, 1);
	} else if (op2 & 0x40) {
		t32_copro(info, w);
	} else if ((op2 & 0x71) == 0x00) { /* 000xxx0 */
		t32_store(info, w);
	} else if ((op2 & 0x71) == 0x10) { /* 001xxx0 */
		insn_simd_ldst(info, 0xf4000000u | (w & 0x00ffffffu));
	} else if ((op2 & 0x67) == 0x07) { /* 00xx111 */
		ok = 0;
	} else if ((op2 & 0x61) == 0x01) { /* 00xxxx1 */
		t32_load(info, w);
	} else if ((op2 & 0x70) == 0x20) {
		ok = t32_dp_reg_ok(w);
		if (ok)
			insn_writes(info, insn_bits(w, 11, 8));
	} else if ((op2 & 0x78) == 0x30) {
		ok = t32_mul_ok(w);
		if (ok)
			insn_writes(info, insn_bits(w, 11, 8));
	} else if ((op2 & 0x78) == 0x38) {
		ok = t32_mull_ok(w);
		if (ok) {
			insn_writes(info, insn_bits(w, 11, 8));
			/* RdLo of the long forms (not SDIV/UDIV) */
			if (insn_bits(w, 7, 4) != 15)
				insn_writes(info, insn_bits(w, 15, 12));
		}
	} else {
		ok = 0; /* not reached: the table is complete */
	}
	if (!ok)
		info->flags |= INSN_F_UNDEFINED;
}

int insn_decode_t32(struct insn_info *info, uint32_t addr, const uint8_t *b,
		    size_t avail, int thumbee)
{
	uint32_t hw1, hw2;

	if (avail < 2)
		return -etmkit_err_truncated;
	hw1 = (uint32_t)b[0] | (uint32_t)b[1] << 8;
	memset(info, 0, sizeof(*info));
	info->isa = (uint8_t)(thumbee ? etmkit_isa_thumbee : etmkit_isa_thumb);
	info->cond = INSN_COND_AL;
	if ((hw1 >> 11) < 0x1d) {
		info->opcode = hw1;
		info->size = 2;
		t16(info, hw1, addr, thumbee);
		return 0;
	}
	if (avail < 4)
		return -etmkit_err_truncated;
	hw2 = (uint32_t)b[2] | (uint32_t)b[3] << 8;
	info->opcode = hw1 << 16 | hw2;
	info->size = 4;
	t32(info, info->opcode, addr, thumbee);
	return 0;
}
