/* A64 instruction classification (Arm ARM DDI 0487, chapter C4).
 *
 * The decode follows the manual's encoding tables top-down: C4.1 "A64
 * instruction set encoding" splits on op0 = bit 31 and op1 = bits [28:25];
 * each helper below is one of its sub-tables and names it by title (the
 * C4.1.n numbers change between issues of DDI 0487; the titles do not).
 *
 * A64 has no PC among the general-purpose registers: only the "Branches,
 * Exception Generating and System instructions" group can change the flow,
 * so that group is decoded exactly, unallocated encodings included. The
 * loads and stores get LOAD/STORE from their class's L or opc field; the
 * data-processing groups carry no flag and are not checked for
 * unallocated encodings (their tables grow with every extension, and no
 * encoding in them can branch).
 */
#include <string.h>

#include "isa/insn_internal.h"

/* The @width-bit two's complement field @v sign-extended to 64 bits, as an
 * unsigned pattern so that address arithmetic wraps modulo 2^64. */
static uint64_t a64_sext(uint32_t v, unsigned width)
{
	uint64_t m = 1ull << (width - 1);

	return (((uint64_t)v & ((m << 1) - 1u)) ^ m) - m;
}

/* A branch whose target, @addr plus the word-scaled @width-bit offset in
 * bits [lo + width - 1:lo], is in the opcode. */
static void a64_direct(struct insn_info *info, uint32_t w, uint64_t addr,
		       unsigned lo, unsigned width)
{
	info->flags |= INSN_F_BRANCH;
	info->target = addr + a64_sext(insn_bits(w, lo + width - 1, lo) << 2,
				       width + 2);
	info->target_isa = etmkit_isa_a64;
}

static void a64_undef(struct insn_info *info)
{
	info->flags |= INSN_F_UNDEFINED;
}

/* ---- Branches, Exception Generating and System instructions ----------- */

/* "Conditional branch (immediate)", bits [31:25] = 0101010: B.<cond>
 * (o0, bit 4, = 0) and BC.<cond> (FEAT_HBC, o0 = 1), PC + imm19:'00'; and
 * with o1 (bit 24) = 1 "Miscellaneous branch (immediate)": RETAASPPC,
 * RETABSPPC <label> (FEAT_PAuth_LR; the label locates the signing
 * instruction for the modifier, the target is X30's). ConditionHolds()
 * makes cond 1111 (NV) execute always, like 1110 (AL). */
static void a64_cond_branch(struct insn_info *info, uint32_t w, uint64_t addr)
{
	uint32_t cond = insn_bits(w, 3, 0);

	if (insn_bit(w, 24)) {
		if (insn_bits(w, 23, 22) == 0 && insn_bits(w, 4, 0) == 31)
			info->flags |= INSN_F_BRANCH | INSN_F_INDIRECT |
				       INSN_F_RETURN;
		else
			a64_undef(info);
		return;
	}
	a64_direct(info, w, addr, 5, 19);
	if (cond < INSN_COND_AL) {
		info->flags |= INSN_F_COND;
		info->cond = (uint8_t)cond;
	}
}

/* ---- Encoding tables ----------------------------------------------------
 * Where a class is a list of allocated encodings rather than a tree of
 * fields, it is written as one: rows of (mask, value, flags), one per
 * encoding or family of the class, the mnemonics and their fixed fields
 * beside each row. Rows of a table are disjoint; an encoding matched by
 * none is unallocated (INSN_F_UNDEFINED). Each table is a handful of rows
 * and is read only for its class.
 */
struct a64_row {
	uint32_t mask, value;
	uint32_t flags; /* INSN_F_* of the encodings the row matches */
};

#define A64_ROWS(t) (t), sizeof(t) / sizeof((t)[0])

/* The first row of @rows (@n of them) that matches @w, or NULL. */
static const struct a64_row *a64_match(const struct a64_row *rows, size_t n,
				       uint32_t w)
{
	for (size_t i = 0; i < n; i++)
		if ((w & rows[i].mask) == rows[i].value)
			return &rows[i];
	return NULL;
}

#define B_IND (INSN_F_BRANCH | INSN_F_INDIRECT)

/* FEAT_CMPBR compare and branch (Armv9.6; DDI 0602 2024-12 "CB<cc>
 * (register)", "CB<cc> (immediate)", "CBB<cc>", "CBH<cc>"), bits [30:25] =
 * 111010: sf 111010 I cc(3) ... imm9 Rt, PC + imm9:'00'. cc 000 GT, 001 GE
 * (register) or LT (immediate), 010 HI, 011 HS or LO, 110 EQ, 111 NE; cc
 * 100 and 101 are unallocated (LT, LE, LO, LS of two registers are
 * aliases with the registers swapped). Encodings as LLVM's assembler
 * tests give them (cmpbr.s: 74052005 CBGT W5, W5, #-1024, 7405a005
 * CBBGT, 7405e005 CBHGT, 751f9fe5 CBGT W5, #63, ...). */
static const struct a64_row a64_cmpbr_rows[] = {
	/* CB<cc> (register): sf 1110100 cc Rm 00 imm9 Rt */
	{ 0x7f80c000u, 0x74000000u, INSN_F_BRANCH | INSN_F_COND }, /* 0xx */
	{ 0x7fc0c000u, 0x74c00000u, INSN_F_BRANCH | INSN_F_COND }, /* 11x */
	/* CBB<cc>: 0 1110100 cc Rm 10 imm9 Rt (32-bit only) */
	{ 0xff80c000u, 0x74008000u, INSN_F_BRANCH | INSN_F_COND },
	{ 0xffc0c000u, 0x74c08000u, INSN_F_BRANCH | INSN_F_COND },
	/* CBH<cc>: 0 1110100 cc Rm 11 imm9 Rt (32-bit only) */
	{ 0xff80c000u, 0x7400c000u, INSN_F_BRANCH | INSN_F_COND },
	{ 0xffc0c000u, 0x74c0c000u, INSN_F_BRANCH | INSN_F_COND },
	/* CB<cc> (immediate): sf 1110101 cc imm6 0 imm9 Rt */
	{ 0x7f804000u, 0x75000000u, INSN_F_BRANCH | INSN_F_COND },
	{ 0x7fc04000u, 0x75c00000u, INSN_F_BRANCH | INSN_F_COND },
};

static void a64_cmpbr(struct insn_info *info, uint32_t w, uint64_t addr)
{
	if (!a64_match(A64_ROWS(a64_cmpbr_rows), w)) {
		a64_undef(info);
		return;
	}
	a64_direct(info, w, addr, 5, 9);
	info->flags |= INSN_F_COND;
}

/* "Unconditional branch (register)", bits [31:25] = 1101011: opc = bits
 * [24:21], op2 = [20:16] (11111), op3 = [15:10], Rn = [9:5], op4 = [4:0].
 * op3 000000 is the plain form; 00001M the pointer-authenticated one
 * (FEAT_PAuth, M = bit 10 selects key B; FEAT_PAuth_LR's RETAASPPCR,
 * RETABSPPCR <Xm> are RETAA, RETAB with op4 = Xm). TEXIT (FEAT_TEV, opc
 * 0111, op3 00000 NB) returns from a TENTER as ERET does, from ELR and
 * SPSR: an exception return (encoding from LLVM's tev.s: d6ff03e0, NB
 * d6ff07e0). DRPS exists in Debug state only and restores PSTATE from
 * SPSR: a branch, not an exception return. */
static const struct a64_row a64_branch_reg_rows[] = {
	/* RET Xn: opc 0010, op3 000000, op4 00000 */
	{ 0xfffffc1fu, 0xd65f0000u, B_IND | INSN_F_RETURN },
	/* BLR Xn: opc 0001 */
	{ 0xfffffc1fu, 0xd63f0000u, B_IND | INSN_F_CALL },
	/* BR Xn: opc 0000 */
	{ 0xfffffc1fu, 0xd61f0000u, B_IND },
	/* RETAA, RETAB (op4 11111), RETAASPPCR, RETABSPPCR Xm (op4 = Xm):
	 * opc 0010, op3 00001M, Rn 11111 */
	{ 0xfffffbe0u, 0xd65f0be0u, B_IND | INSN_F_RETURN },
	/* BLRAAZ, BLRABZ Xn: opc 0001, op3 00001M, op4 11111 */
	{ 0xfffff81fu, 0xd63f081fu, B_IND | INSN_F_CALL },
	/* BRAAZ, BRABZ Xn: opc 0000, op3 00001M, op4 11111 */
	{ 0xfffff81fu, 0xd61f081fu, B_IND },
	/* BLRAA, BLRAB Xn, Xm|SP: opc 1001, op3 00001M, op4 = Xm */
	{ 0xfffff800u, 0xd73f0800u, B_IND | INSN_F_CALL },
	/* BRAA, BRAB Xn, Xm|SP: opc 1000, op3 00001M */
	{ 0xfffff800u, 0xd71f0800u, B_IND },
	/* ERET: opc 0100, op3 000000, Rn 11111, op4 00000 */
	{ 0xffffffffu, 0xd69f03e0u, B_IND | INSN_F_EXC_RETURN },
	/* ERETAA, ERETAB: opc 0100, op3 00001M, Rn 11111, op4 11111 */
	{ 0xfffffbffu, 0xd69f0bffu, B_IND | INSN_F_EXC_RETURN },
	/* TEXIT {NB}: opc 0111, op3 00000 NB, Rn 11111, op4 00000 */
	{ 0xfffffbffu, 0xd6ff03e0u, B_IND | INSN_F_EXC_RETURN },
	/* DRPS: opc 0101, op3 000000, Rn 11111, op4 00000 */
	{ 0xffffffffu, 0xd6bf03e0u, B_IND },
};

static void a64_branch_reg(struct insn_info *info, uint32_t w)
{
	const struct a64_row *r = a64_match(A64_ROWS(a64_branch_reg_rows), w);

	info->flags |= r ? r->flags : INSN_F_UNDEFINED;
}

/* "Exception generation", bits [31:24] = 11010100: opc = [23:21], imm16 =
 * [20:5], op2 = [4:2] (000), LL = [1:0]. SVC, HVC, SMC, BRK, HLT generate
 * exceptions; TCANCEL (FEAT_TME) ends a transaction; DCPS1-3 exist in
 * Debug state only, where nothing is traced: allocated, no flag. */
static const struct a64_row a64_exception_rows[] = {
	{ 0xffe0001fu, 0xd4000001u, INSN_F_EXCEPTION }, /* SVC: 000, LL 01 */
	{ 0xffe0001fu, 0xd4000002u, INSN_F_EXCEPTION }, /* HVC: 000, LL 10 */
	{ 0xffe0001fu, 0xd4000003u, INSN_F_EXCEPTION }, /* SMC: 000, LL 11 */
	{ 0xffe0001fu, 0xd4200000u, INSN_F_EXCEPTION }, /* BRK: 001, LL 00 */
	{ 0xffe0001fu, 0xd4400000u, INSN_F_EXCEPTION }, /* HLT: 010, LL 00 */
	{ 0xffe0001fu, 0xd4600000u, 0 },                /* TCANCEL: 011 */
	{ 0xffe0001fu, 0xd4a00001u, 0 },                /* DCPS1: 101, 01 */
	{ 0xffe0001fu, 0xd4a00002u, 0 },                /* DCPS2: 101, 10 */
	{ 0xffe0001fu, 0xd4a00003u, 0 },                /* DCPS3: 101, 11 */
};

static void a64_exception(struct insn_info *info, uint32_t w)
{
	const struct a64_row *r = a64_match(A64_ROWS(a64_exception_rows), w);

	info->flags |= r ? r->flags : INSN_F_UNDEFINED;
}

/* "Barriers", 1101 0101 0000 0011 0011 CRm op2 Rt (Rt 11111): op2 001
 * DSB nXS (FEAT_XS, CRm xx10), 010 CLREX, 011 TCOMMIT (FEAT_TME, CRm
 * 0000), 100 DSB (SSBB, PSSBB), 101 DMB, 110 ISB, 111 SB (FEAT_SB; its
 * CRm is (0)(0)(0)(0): another value is CONSTRAINED UNPREDICTABLE, not
 * UNDEFINED, and is classified as SB). */
static void a64_barrier(struct insn_info *info, uint32_t w)
{
	uint32_t crm = insn_bits(w, 11, 8);
	uint32_t op2 = insn_bits(w, 7, 5);
	int ok;

	switch (op2) {
	case 1:
		ok = (crm & 3) == 2;
		break;
	case 3:
		ok = crm == 0;
		break;
	default:
		ok = op2 != 0;
		break;
	}
	if (!ok || insn_bits(w, 4, 0) != 31)
		a64_undef(info);
	else if (op2 == 6)
		info->flags |= INSN_F_ISB;
}

/* System instructions with op0 (bits [20:19]) = 00 and L = 0: 1101 0101
 * 0000 0 op1 CRn CRm op2 Rt. "PSTATE" (CRn 0100: MSR (immediate), CFINV,
 * XAFLAG, AXFLAG; which PSTATE fields exist is the implementation's) and,
 * with op1 011, "System instructions with register argument" (CRn 0001:
 * WFET, WFIT, FEAT_WFxT), "Hints" (0010: every CRm:op2 is allocated,
 * unassigned ones execute as NOP; WFE is 0000:010, WFI 0000:011) and
 * "Barriers" (0011). The rest of the space is unallocated. */
static void a64_system_op0(struct insn_info *info, uint32_t w)
{
	uint32_t crn = insn_bits(w, 15, 12);
	uint32_t crm_op2 = insn_bits(w, 11, 5);
	uint32_t rt = insn_bits(w, 4, 0);

	if (crn == 4) {
		if (rt != 31)
			a64_undef(info);
		return;
	}
	if (insn_bits(w, 18, 16) != 3) {
		a64_undef(info);
		return;
	}
	switch (crn) {
	case 1: /* WFET (CRm:op2 0000:000), WFIT (0000:001) */
		if (crm_op2 < 2)
			info->flags |= INSN_F_WFX;
		else
			a64_undef(info);
		return;
	case 2:
		if (rt != 31)
			a64_undef(info);
		else if (crm_op2 == 2 || crm_op2 == 3)
			info->flags |= INSN_F_WFX;
		return;
	case 3:
		a64_barrier(info, w);
		return;
	default:
		a64_undef(info);
		return;
	}
}

/* System group, bits [31:24] = 11010101, by bits [23:19] (op1 [25:12] of
 * the group's table): 0 L op0. op0 01 "System instructions" (SYS, SYSL and
 * their aliases DC, IC, AT, TLBI, ...) and 1x "System register move" (MSR,
 * MRS) are allocated whatever the register: which exist is the
 * implementation's. With op0 00, L = 1 is "System with result": TSTART
 * and TTEST (FEAT_TME) only. Bits [23:22] = 01 hold the 128-bit forms:
 * SYSP (L 0, op0 01; FEAT_SYSINSTR128), MSRR and MRRS (op0 1x;
 * FEAT_SYSREG128). */
static void a64_system(struct insn_info *info, uint32_t w)
{
	uint32_t l = insn_bit(w, 21);
	uint32_t op0 = insn_bits(w, 20, 19);

	if (insn_bit(w, 23)) {
		a64_undef(info);
	} else if (insn_bit(w, 22)) {
		if (!(op0 & 2) && !(op0 == 1 && !l))
			a64_undef(info);
	} else if (op0) {
		return;
	} else if (l) {
		/* TSTART 0xd5233060 | Rt, TTEST 0xd5233160 | Rt */
		if ((w & ~31u) == 0xd5233060u)
			info->flags |= INSN_F_TSTART;
		else if ((w & ~31u) != 0xd5233160u)
			a64_undef(info);
	} else {
		a64_system_op0(info, w);
	}
}

/* "Branches, Exception Generating and System instructions", op1 = 101x:
 * op0 = bits [31:29]. */
static void a64_branch_sys(struct insn_info *info, uint32_t w, uint64_t addr)
{
	switch (insn_bits(w, 31, 29)) {
	case 0: /* "Unconditional branch (immediate)": B, BL; imm26:'00' */
	case 4:
		a64_direct(info, w, addr, 0, 26);
		if (insn_bit(w, 31))
			info->flags |= INSN_F_CALL;
		return;
	case 1: /* "Test and branch (immediate)" (bit 25 = 1): TBZ, TBNZ,
		 * imm14:'00'; "Compare and branch (immediate)": CBZ, CBNZ,
		 * imm19:'00' */
	case 5:
		if (insn_bit(w, 25))
			a64_direct(info, w, addr, 5, 14);
		else
			a64_direct(info, w, addr, 5, 19);
		info->flags |= INSN_F_COND;
		return;
	case 2:
		if (insn_bit(w, 25))
			a64_undef(info);
		else
			a64_cond_branch(info, w, addr);
		return;
	case 6:
		if (insn_bit(w, 25))
			a64_branch_reg(info, w);
		else if (insn_bit(w, 24))
			a64_system(info, w);
		else
			a64_exception(info, w);
		return;
	default: /* 011, 111 */
		a64_cmpbr(info, w, addr);
		return;
	}
}

/* ---- Loads and Stores (op1 = x1x0) --------------------------------------
 * Fields of the group's table: op0 = bits [31:28], op1 = bit 26 (V),
 * op2 = bits [24:23], op3 = bits [21:16], op4 = bits [11:10].
 */

/* One register, "Load/store register" in its unscaled, post-indexed,
 * unprivileged, pre-indexed, register-offset and unsigned-immediate forms:
 * size = [31:30], V = 26, opc = [23:22]. opc 00 stores (STR, STRB, STRH,
 * STUR, STTR and the SIMD&FP STR of B, H, S, D), 01 loads; opc 1x loads
 * sign-extending (LDRS*) with V = 0, except size 11 opc 10 (PRFM, PRFUM:
 * no data access) and size 1x opc 11 (unallocated); with V = 1 opc 1x is
 * the 128-bit STR (10) or LDR (11) of Q, size 00 only. */
static void a64_ldst_reg(struct insn_info *info, uint32_t w)
{
	uint32_t size = insn_bits(w, 31, 30);
	uint32_t opc = insn_bits(w, 23, 22);

	if (opc == 0)
		info->flags |= INSN_F_STORE;
	else if (opc == 1)
		info->flags |= INSN_F_LOAD;
	else if (insn_bit(w, 26) && size == 0)
		info->flags |= opc == 2 ? INSN_F_STORE : INSN_F_LOAD;
	else if (!insn_bit(w, 26) && (opc == 2 ? size != 3 : size < 2))
		info->flags |= INSN_F_LOAD;
}

/* "Atomic memory operations", bits [29:27] = 111, bit 21 = 1, op4 = 00:
 * o3 = bit 15, opc = [14:12]. LDADD ... LDUMIN (o3 0) and SWP (o3 1, opc
 * 000) read and write; LDAPR (100, FEAT_LRCPC) and LD64B (101, FEAT_LS64)
 * read; with o3 1 and opc 001-011 size 11 is ST64B, ST64BV0, ST64BV
 * (write), size 0x RCWCLR, RCWSWP, RCWSET (FEAT_THE, read and write). The
 * SIMD&FP (V = 1) forms are not classified. */
static void a64_atomic(struct insn_info *info, uint32_t w)
{
	uint32_t op = insn_bits(w, 15, 12);

	if (insn_bit(w, 26))
		return;
	if (op < 9)
		info->flags |= INSN_F_LOAD | INSN_F_STORE;
	else if (op == 12 || op == 13)
		info->flags |= INSN_F_LOAD;
	else if (op < 12)
		info->flags |= insn_bit(w, 31) ? INSN_F_STORE
					       : INSN_F_LOAD | INSN_F_STORE;
}

/* op0 xx11: the one-register classes. Bit 24 = 1: unsigned immediate;
 * otherwise bit 21 = 0 (by op4: unscaled, post-indexed, unprivileged,
 * pre-indexed) or bit 21 = 1 with op4 00 (atomics), 10 (register offset),
 * x1 ("Load/store register (pac)": LDRAA, LDRAB). */
static void a64_ldst_one(struct insn_info *info, uint32_t w)
{
	if (insn_bit(w, 24) || !insn_bit(w, 21) || insn_bits(w, 11, 10) == 2)
		a64_ldst_reg(info, w);
	else if (insn_bit(w, 10))
		info->flags |= INSN_F_LOAD;
	else
		a64_atomic(info, w);
}

/* op0 xx00, op1 0, bit 24 = 0: "Load/store exclusive pair", "Load/store
 * exclusive register", "Load/store ordered", "Compare and swap (pair)":
 * o2 = bit 23, L = 22, o1 = 21. CAS (o2 1, o1 1) and CASP (o2 0, o1 1,
 * bit 31 0) read and write; the rest load (L 1: LDXR, LDAXR, LDXP, LDAR,
 * LDLAR) or store (STXR, STLXR, STXP, STLR, STLLR). */
static void a64_exclusive(struct insn_info *info, uint32_t w)
{
	if (insn_bit(w, 21) && (insn_bit(w, 23) || !insn_bit(w, 31)))
		info->flags |= INSN_F_LOAD | INSN_F_STORE;
	else
		info->flags |= insn_bit(w, 22) ? INSN_F_LOAD : INSN_F_STORE;
}

/* op0 xx01 with bit 24 = 1: "Load/store memory tags" (11011001, bit 21 =
 * 1; FEAT_MTE: LDG, LDGM load (op2 [11:10] 00, opc odd), STG, STZG, ST2G,
 * STZ2G, STZGM, STGM store), "LDAPR/STLR (unscaled immediate)" (V 0, bit
 * 21 = 0, op4 00; FEAT_LRCPC2: opc 00 stores) and "Memory copy and
 * memory set" (op4 01; FEAT_MOPS: CPYF*, CPY* read and write, SET*, SETG*
 * (op1 [23:22] 11) write). Other forms of the space are not classified. */
static void a64_ldst_01(struct insn_info *info, uint32_t w)
{
	uint32_t op4 = insn_bits(w, 11, 10);

	if (insn_bit(w, 21)) {
		if (insn_bits(w, 31, 26) == 0x36)
			info->flags |= (!op4 && insn_bit(w, 22)) ? INSN_F_LOAD
								 : INSN_F_STORE;
	} else if (op4 == 0 && !insn_bit(w, 26)) {
		info->flags |= insn_bits(w, 23, 22) ? INSN_F_LOAD
						    : INSN_F_STORE;
	} else if (op4 == 1 && insn_bits(w, 31, 30) == 0) {
		info->flags |= insn_bits(w, 23, 22) == 3
				       ? INSN_F_STORE
				       : INSN_F_LOAD | INSN_F_STORE;
	}
}

/* "Loads and Stores", by op0 bits [29:28]. */
static void a64_ldst(struct insn_info *info, uint32_t w)
{
	switch (insn_bits(w, 29, 28)) {
	case 0:
		/* "Advanced SIMD load/store multiple structures" and "single
		 * structure" (op0 0x00, op1 1): L = bit 22 */
		if (insn_bit(w, 26)) {
			if (!insn_bit(w, 31))
				info->flags |= insn_bit(w, 22) ? INSN_F_LOAD
							       : INSN_F_STORE;
		} else if (!insn_bit(w, 24)) {
			a64_exclusive(info, w);
		}
		return;
	case 1:
		/* "Load register (literal)": opc [31:30] 11 with V 0 is
		 * PRFM (literal), with V 1 unallocated */
		if (insn_bit(w, 24))
			a64_ldst_01(info, w);
		else if (insn_bits(w, 31, 30) != 3)
			info->flags |= INSN_F_LOAD;
		return;
	case 2:
		/* "Load/store register pair" (no-allocate, post-indexed,
		 * offset, pre-indexed; STGP): L = bit 22 */
		info->flags |= insn_bit(w, 22) ? INSN_F_LOAD : INSN_F_STORE;
		return;
	default:
		a64_ldst_one(info, w);
		return;
	}
}

/* ---- Top level ---------------------------------------------------------- */

int insn_decode_a64(struct insn_info *info, uint64_t addr, const uint8_t *b)
{
	uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;

	memset(info, 0, sizeof(*info));
	info->opcode = w;
	info->size = 4;
	info->isa = etmkit_isa_a64;
	info->cond = INSN_COND_AL;
	/* C4.1, "A64 instruction set encoding": op1 = bits [28:25] */
	switch (insn_bits(w, 28, 25)) {
	case 0x0:
		/* op0 (bit 31) 0: "Reserved", whose only instruction is UDF
		 * (permanently undefined, bits [31:16] zero); op0 1: SME */
		if (!(w >> 31))
			info->flags |= (w >> 16) ? INSN_F_UNDEFINED
						 : INSN_F_EXCEPTION | INSN_F_UDF;
		return 0;
	case 0x1:
	case 0x3:
		a64_undef(info);
		return 0;
	case 0xa:
	case 0xb:
		a64_branch_sys(info, w, addr);
		return 0;
	case 0x4:
	case 0x6:
	case 0xc:
	case 0xe:
		a64_ldst(info, w);
		return 0;
	default:
		/* 0010 SVE, 100x Data Processing -- Immediate, x101 Data
		 * Processing -- Register, x111 Scalar Floating-Point and
		 * Advanced SIMD: no PC write, no flag */
		return 0;
	}
}
