/* Coprocessor, floating-point (VFP) and Advanced SIMD classification,
 * shared by A32 and T32 (ARM DDI 0406C A5.6, A6.3.18, chapter A7).
 *
 * Both instruction sets encode these alike: T32 hw1[11:0]:hw2 equals A32
 * bits [27:0] for coprocessor and VFP instructions; Advanced SIMD puts U
 * at bit 28 in T32 and bit 24 in A32, which the T32 caller moves. Every
 * function here takes the A32 layout.
 *
 * Advanced SIMD data-processing matters for flow only through
 * INSN_F_UNDEFINED: its decode follows the A7.4 tables and the UNDEFINED
 * conditions that apply to whole rows (sizes, Q with odd registers).
 */
#include "isa/insn_internal.h"

/* D register numbers' low bits, as A7.4 calls them Vd<0>, Vn<0>, Vm<0>. */
#define VD0(w) insn_bit((w), 12)
#define VN0(w) insn_bit((w), 16)
#define VM0(w) insn_bit((w), 0)

static void undef(struct insn_info *info)
{
	info->flags |= INSN_F_UNDEFINED;
}

/* ---- Coprocessor and VFP transfers ------------------------------------ */

/* Extension register load/store, A7.6: opcode = bits
 * [24:20] = P U D W L, the 64-bit transfers (00x0x) already removed. */
static void vfp_ldst(struct insn_info *info, uint32_t w)
{
	int p = insn_bit(w, 24), u = insn_bit(w, 23), wb = insn_bit(w, 21);

	/* VLDM/VSTM: P 0 U 1 (IA, W either), P 1 U 0 W 1 (DB!);
	 * VLDR/VSTR: P 1 W 0. P U W = 001 and 111 are unallocated. */
	if (p == u && wb) {
		undef(info);
		return;
	}
	info->flags |= insn_bit(w, 20) ? INSN_F_LOAD : INSN_F_STORE;
	if (wb)
		insn_writes(info, insn_bits(w, 19, 16));
}

/* 64-bit transfers between ARM core and extension registers, A7.9:
 * VMOV (two core registers to/from two singles or a doubleword). */
static void vfp_xfer64(struct insn_info *info, uint32_t w)
{
	if ((insn_bits(w, 7, 4) & 0xd) != 1) {
		undef(info);
		return;
	}
	info->flags |= INSN_F_CPRT;
	if (insn_bit(w, 20)) { /* to core: Rt, Rt2 */
		insn_writes(info, insn_bits(w, 15, 12));
		insn_writes(info, insn_bits(w, 19, 16));
	}
}

/* 8, 16, and 32-bit transfer between ARM core and extension registers,
 * A7.8 (Table A7-22): A = bits [23:21], L = bit 20, C = bit 8, B = bits
 * [6:5]. */
static void vfp_xfer32(struct insn_info *info, uint32_t w)
{
	uint32_t a = insn_bits(w, 23, 21);
	uint32_t opc = insn_bits(w, 22, 21) << 2 | insn_bits(w, 6, 5);
	int l = insn_bit(w, 20), c = insn_bit(w, 8);
	int ok;

	if (!c) /* VMOV core <-> single (A 000), VMSR/VMRS (A 111) */
		ok = a == 0 || a == 7;
	else if (!l && !(a & 4)) /* VMOV core to scalar: opc1:opc2 0x10 */
		ok = (opc & 0xb) != 0x2;
	else if (!l) /* VDUP (core): B 0x, B:E != 11, Q with odd Vd */
		ok = !insn_bit(w, 6) && !(insn_bit(w, 22) && insn_bit(w, 5)) &&
		     !(insn_bit(w, 21) && insn_bit(w, 16));
	else /* VMOV scalar to core: U:opc1:opc2 10x00 and x0x10 */
		ok = (insn_bit(w, 23) << 4 | opc) != 0x10 &&
		     (insn_bit(w, 23) << 4 | opc) != 0x14 &&
		     (opc & 0xb) != 0x2;
	if (!ok) {
		undef(info);
		return;
	}
	info->flags |= INSN_F_CPRT;
	/* VMRS APSR_nzcv, FPSCR (Rt 15, reg 0001) writes the flags
	 * (A8.8.348): not a PC write. Other transfers to a core register
	 * with Rt 15, VMRS of another register included, are UNPREDICTABLE
	 * writes of it. */
	if (l && !(a == 7 && !c && insn_bits(w, 19, 16) == 1))
		insn_writes(info, insn_bits(w, 15, 12));
}

/* VFP data-processing, A7.5 (Tables A7-16, A7-17): opc1 = bits 23, 21,
 * 20 (bit 22 is D), opc2 = bits [19:16], opc3 = bits [7:6]. */
static void vfp_dp(struct insn_info *info, uint32_t w)
{
	uint32_t opc1 = insn_bit(w, 23) << 2 | insn_bits(w, 21, 20);
	uint32_t opc2 = insn_bits(w, 19, 16);
	uint32_t opc3 = insn_bits(w, 7, 6);

	if (opc1 == 4) { /* VDIV (opc3 x0) */
		if (opc3 & 1)
			undef(info);
		return;
	}
	if (opc1 != 7 || !(opc3 & 1))
		return; /* VMLA .. VFMS, VMOV (immediate) */
	switch (opc2) {
	case 0: /* VMOV (register) 01, VABS 11 */
	case 1: /* VNEG, VSQRT */
	case 2: /* VCVTB, VCVTT */
	case 3:
	case 4: /* VCMP, VCMPE */
	case 5:
	case 8: /* VCVT, VCVTR (integer to floating-point) */
	case 10: /* VCVT (fixed-point) */
	case 11:
	case 12: /* VCVT, VCVTR (floating-point to integer) */
	case 13:
	case 14: /* VCVT (fixed-point) */
	case 15:
		return;
	case 7: /* VCVT (double <-> single), opc3 11 only */
		if (opc3 == 3)
			return;
		break;
	default:
		break;
	}
	undef(info);
}

/* Coprocessor instructions, A5.6 (Table A5-22) / A6.3.18,
 * and their unconditional forms in A5.7: op1 = bits [25:20], op = bit 4,
 * coproc = bits [11:8]. */
void insn_copro(struct insn_info *info, uint32_t w, int two)
{
	uint32_t op1 = insn_bits(w, 25, 20);
	uint32_t coproc = insn_bits(w, 11, 8);
	int op = insn_bit(w, 4);

	if ((op1 & 0x3e) == 0) { /* 00000x */
		undef(info);
		return;
	}
	if ((coproc & 0xe) == 0xa) {
		/* CP10 and CP11 are the floating-point and Advanced SIMD
		 * extension space: its instructions all have bit 28 clear,
		 * and the unconditional coprocessor forms on them are not
		 * allocated (A7.1, A7.5-A7.9 encodings). */
		if (two)
			undef(info);
		else if ((op1 & 0x3e) == 0x04) /* 00010x */
			vfp_xfer64(info, w);
		else if (!(op1 & 0x20))
			vfp_ldst(info, w);
		else if (op)
			vfp_xfer32(info, w);
		else
			vfp_dp(info, w);
		return;
	}
	if (!(op1 & 0x20)) {
		if (op1 == 0x04 || op1 == 0x05) { /* MCRR{2}, MRRC{2} */
			info->flags |= INSN_F_CPRT;
			if (op1 & 1) {
				insn_writes(info, insn_bits(w, 15, 12));
				insn_writes(info, insn_bits(w, 19, 16));
			}
			return;
		}
		/* LDC{2}, STC{2}: A8.8.55-57, A8.8.199 */
		info->flags |= (op1 & 1) ? INSN_F_LOAD : INSN_F_STORE;
		if (insn_bit(w, 21))
			insn_writes(info, insn_bits(w, 19, 16));
		return;
	}
	/* op1 10xxxx: CDP{2} (op 0), MCR{2}/MRC{2} (op 1). MRC with Rt 15
	 * sets APSR.NZCV (A8.8.108): not a PC write. */
	if (op)
		info->flags |= INSN_F_CPRT;
}

/* ---- Advanced SIMD data-processing, A7.4 ------------------------------- */

/* Three registers of the same length, A7.4.1 (Table A7-9): A = bits
 * [11:8], B = bit 4, U = bit 24, C = bits [21:20] (size, or op:sz). */
static int simd_3same_ok(uint32_t w)
{
	uint32_t a = insn_bits(w, 11, 8);
	uint32_t size = insn_bits(w, 21, 20);
	int b = insn_bit(w, 4), u = insn_bit(w, 24), q = insn_bit(w, 6);
	int odd = q && (VD0(w) || VN0(w) || VM0(w));

	switch (a) {
	case 0: /* VHADD, VQADD */
	case 1: /* VRHADD; logical operations (B 1, any size) */
	case 2: /* VHSUB, VQSUB */
		return !odd && (b || size != 3);
	case 3: /* VCGT, VCGE */
	case 6: /* VMAX, VMIN */
	case 7: /* VABD, VABA */
		return !odd && size != 3;
	case 4: /* VSHL, VQSHL */
	case 5: /* VRSHL, VQRSHL */
		return !odd;
	case 8: /* VADD/VSUB (any size), VTST/VCEQ */
		return !odd && (!b || size != 3);
	case 9: /* VMLA/VMLS; VMUL (polynomial: size 00 only) */
		if (odd || size == 3)
			return 0;
		return !(b && u && size != 0);
	case 10: /* VPMAX, VPMIN */
		return !q && size != 3;
	case 11: /* VQDMULH, VQRDMULH; VPADD (U 0) */
		if (b)
			return !u && !q && size != 3;
		return !odd && size != 0 && size != 3;
	case 12: /* VFMA, VFMS (sz 0) */
		return b && !u && !odd && !(size & 1);
	case 13: /* VADD/VSUB, VPADD/VABD, VMLA/VMLS, VMUL (float) */
		if (size & 1)
			return 0;
		if (!b && u && !(size & 2)) /* VPADD */
			return !q;
		return !odd && !(b && u && (size & 2));
	case 14: /* VCEQ, VCGE, VCGT; VACGE, VACGT (float) */
		if ((size & 1) || odd)
			return 0;
		return b ? u : !(!u && (size & 2));
	default: /* 15: VMAX/VMIN, VPMAX/VPMIN, VRECPS/VRSQRTS (float) */
		if (size & 1)
			return 0;
		if (b)
			return !u && !odd;
		return u ? !q : !odd;
	}
}

/* Three registers of different lengths, A7.4.2 (Table A7-10): A = bits
 * [11:8], size = bits [21:20] (not 11 here). */
static int simd_3diff_ok(uint32_t w)
{
	uint32_t a = insn_bits(w, 11, 8);
	uint32_t size = insn_bits(w, 21, 20);
	int u = insn_bit(w, 24);

	switch (a) {
	case 0: /* VADDL, VADDW */
	case 2: /* VSUBL, VSUBW */
		return !VD0(w);
	case 1:
	case 3:
		return !VD0(w) && !VN0(w);
	case 4: /* VADDHN, VRADDHN */
	case 6: /* VSUBHN, VRSUBHN */
		return !VN0(w) && !VM0(w);
	case 5: /* VABAL */
	case 7: /* VABDL */
	case 8: /* VMLAL */
	case 10: /* VMLSL */
	case 12: /* VMULL (integer) */
		return !VD0(w);
	case 9: /* VQDMLAL */
	case 11: /* VQDMLSL */
	case 13: /* VQDMULL */
		return !u && size != 0 && !VD0(w);
	case 14: /* VMULL (polynomial), size 00 */
		return !u && size == 0 && !VD0(w);
	default:
		return 0;
	}
}

/* Two registers and a scalar, A7.4.3 (Table A7-11): A = bits [11:8],
 * size = bits [21:20] (not 11); the Q forms keep Q at bit 24. */
static int simd_scalar_ok(uint32_t w)
{
	uint32_t a = insn_bits(w, 11, 8);
	uint32_t size = insn_bits(w, 21, 20);
	int q = insn_bit(w, 24);
	int odd = q && (VD0(w) || VN0(w));

	if (size == 0)
		return 0;
	switch (a) {
	case 0: /* VMLA, VMLS (integer) */
	case 4:
	case 8: /* VMUL (integer) */
	case 12: /* VQDMULH */
	case 13: /* VQRDMULH */
		return !odd;
	case 1: /* VMLA, VMLS, VMUL (float): size 10 */
	case 5:
	case 9:
		return !odd && size == 2;
	case 2: /* VMLAL, VMLSL, VMULL */
	case 6:
	case 10:
		return !VD0(w);
	case 3: /* VQDMLAL, VQDMLSL, VQDMULL: U 0 */
	case 7:
	case 11:
		return !q && !VD0(w);
	default:
		return 0;
	}
}

/* Two registers and a shift amount, A7.4.4 (Table A7-12): A = bits
 * [11:8], U = bit 24, B = bit 6 (Q), L = bit 7. */
static int simd_shift_ok(uint32_t w)
{
	uint32_t a = insn_bits(w, 11, 8);
	int u = insn_bit(w, 24), b = insn_bit(w, 6), l = insn_bit(w, 7);
	int odd = b && (VD0(w) || VM0(w));

	switch (a) {
	case 0: /* VSHR, VSRA, VRSHR, VRSRA */
	case 1:
	case 2:
	case 3:
	case 5: /* VSHL, VSLI */
	case 7: /* VQSHL */
		return !odd;
	case 4: /* VSRI */
	case 6: /* VQSHLU */
		return u && !odd;
	case 8: /* VSHRN, VRSHRN, VQSHRUN, VQRSHRUN */
	case 9: /* VQSHRN, VQRSHRN */
		return !l && !VM0(w);
	case 10: /* VSHLL, VMOVL */
		return !l && !b && !VD0(w);
	case 14: /* VCVT (floating-point <-> fixed-point): imm6 1xxxxx */
	case 15:
		return !l && !odd && insn_bit(w, 21);
	default:
		return 0;
	}
}

/* One register and a modified immediate, A7.4.6 (Table A7-15). */
static int simd_imm_ok(uint32_t w)
{
	int q = insn_bit(w, 6);

	/* op 1, cmode 1111 is UNDEFINED */
	if (insn_bit(w, 5) && insn_bits(w, 11, 8) == 15)
		return 0;
	return !(q && VD0(w));
}

/* Two registers, miscellaneous, A7.4.5 (Table A7-13): A = bits [17:16],
 * B = bits [10:6], size = bits [19:18]. */
static int simd_misc_ok(uint32_t w)
{
	uint32_t a = insn_bits(w, 17, 16);
	uint32_t b = insn_bits(w, 10, 6);
	uint32_t size = insn_bits(w, 19, 18);
	int q = insn_bit(w, 6);
	int odd = q && (VD0(w) || VM0(w));

	switch (a) {
	case 0:
		switch (b >> 1) {
		case 0: /* VREV64 */
			return !odd && size != 3;
		case 1: /* VREV32 */
			return !odd && size < 2;
		case 2: /* VREV16 */
			return !odd && size == 0;
		case 4: /* VPADDL */
		case 5:
		case 8: /* VCLS */
		case 9: /* VCLZ */
		case 12: /* VPADAL */
		case 13:
		case 14: /* VQABS */
		case 15: /* VQNEG */
			return !odd && size != 3;
		case 10: /* VCNT */
		case 11: /* VMVN */
			return !odd && size == 0;
		default:
			return 0;
		}
	case 1: /* comparisons with zero, VABS, VNEG; bit 10 = F */
		if ((b & 0xe) == 0xa || odd)
			return 0;
		return (b & 0x10) ? size == 2 : size != 3;
	case 2:
		switch (b) {
		case 0: case 1: /* VSWP */
			return !odd && size == 0;
		case 2: case 3: /* VTRN */
			return !odd && size != 3;
		case 4: case 5: /* VUZP */
		case 6: case 7: /* VZIP */
			return !odd && size != 3 && !(size == 2 && !q);
		case 8: /* VMOVN */
		case 9: /* VQMOVUN */
		case 10: case 11: /* VQMOVN */
			return size != 3 && !VM0(w);
		case 12: /* VSHLL */
			return size != 3 && !VD0(w);
		case 24: /* VCVT single to half */
			return size == 1 && !VM0(w);
		case 28: /* VCVT half to single */
			return size == 1 && !VD0(w);
		default:
			return 0;
		}
	default: /* VRECPE, VRSQRTE (10xxx), VCVT (11xxx): size 10 */
		return (b & 0x10) && size == 2 && !odd;
	}
}

/* Advanced SIMD data-processing instructions, A7.4 (Table A7-8):
 * U = bit 24, A = bits [23:19], B = bits [11:8], C = bits [7:4]. */
void insn_simd_dp(struct insn_info *info, uint32_t w)
{
	uint32_t a = insn_bits(w, 23, 19);
	uint32_t c = insn_bits(w, 7, 4);
	int u = insn_bit(w, 24);
	int ok;

	if (!(a & 0x10)) {
		ok = simd_3same_ok(w);
	} else if (c & 1) {
		/* one register and a modified immediate: A 1x000, C 0xx1 */
		if ((a & 0x17) == 0x10 && !(c & 8))
			ok = simd_imm_ok(w);
		else
			ok = simd_shift_ok(w);
	} else if ((a & 0x16) != 0x16) { /* A 1x0xx, 1x10x */
		ok = (c & 4) ? simd_scalar_ok(w) : simd_3diff_ok(w);
	} else if (!u) { /* VEXT: imm4<3> needs Q; Q with odd registers */
		int q = insn_bit(w, 6);

		ok = !(q ? (VD0(w) || VN0(w) || VM0(w)) : insn_bit(w, 11));
	} else if (!(insn_bit(w, 11))) {
		ok = simd_misc_ok(w);
	} else if (insn_bits(w, 11, 10) == 2) { /* VTBL, VTBX */
		ok = 1;
	} else if (insn_bits(w, 11, 8) == 12 && !(c & 8)) {
		/* VDUP (scalar): imm4 x000 and Q with odd Vd are UNDEFINED */
		ok = (insn_bits(w, 18, 16) != 0) &&
		     !(insn_bit(w, 6) && VD0(w));
	} else {
		ok = 0;
	}
	if (!ok)
		undef(info);
}

/* ---- Advanced SIMD element or structure load/store, A7.7 --------------- */

/* Multiple n-element structures (A 0): type = bits [11:8], size = bits
 * [7:6], align = bits [5:4] (A8.8.316-323). */
static int simd_ldst_multi_ok(uint32_t w)
{
	uint32_t type = insn_bits(w, 11, 8);
	uint32_t size = insn_bits(w, 7, 6);
	uint32_t align = insn_bits(w, 5, 4);

	switch (type) {
	case 7: /* VLD1/VST1, one register */
	case 6: /* three registers */
		return !(align & 2);
	case 10: /* two registers */
		return align != 3;
	case 2: /* four registers */
		return 1;
	case 8: /* VLD2/VST2, one register pair */
	case 9:
		return size != 3 && align != 3;
	case 3: /* two register pairs */
		return size != 3;
	case 4: /* VLD3/VST3 */
	case 5:
		return size != 3 && !(align & 2);
	case 0: /* VLD4/VST4 */
	case 1:
		return size != 3;
	default:
		return 0;
	}
}

/* Single structure to one lane (size = bits [11:10], n-1 = bits [9:8],
 * index_align = bits [7:4]) or, for loads with size 11, to all lanes
 * (size = bits [7:6], a = bit 4): A8.8.317-324. */
static int simd_ldst_single_ok(uint32_t w)
{
	uint32_t size = insn_bits(w, 11, 10);
	uint32_t n = insn_bits(w, 9, 8);
	uint32_t ia = insn_bits(w, 7, 4);

	if (size == 3) {
		uint32_t sz = insn_bits(w, 7, 6);
		int a = insn_bit(w, 4);

		if (!insn_bit(w, 21))
			return 0; /* stores have no all-lanes form */
		switch (n) {
		case 0: return sz != 3 && !(sz == 0 && a);
		case 1: return sz != 3;
		case 2: return sz != 3 && !a;
		default: return !(sz == 3 && !a);
		}
	}
	switch (n) {
	case 0: /* VLD1/VST1 */
		if (size == 0)
			return !(ia & 1);
		if (size == 1)
			return !(ia & 2);
		return !(ia & 4) && ((ia & 3) == 0 || (ia & 3) == 3);
	case 1: /* VLD2/VST2 */
		return !(size == 2 && (ia & 2));
	case 2: /* VLD3/VST3 */
		return size == 2 ? (ia & 3) == 0 : !(ia & 1);
	default: /* VLD4/VST4 */
		return !(size == 2 && (ia & 3) == 3);
	}
}

/* Advanced SIMD element or structure load/store, A7.7 (Table A7-20):
 * A = bit 23, L = bit 21, Rn = bits [19:16], Rm = bits [3:0]; Rm 15 is
 * no writeback, anything else writes Rn back. */
void insn_simd_ldst(struct insn_info *info, uint32_t w)
{
	int ok = insn_bit(w, 23) ? simd_ldst_single_ok(w)
				 : simd_ldst_multi_ok(w);

	if (!ok) {
		undef(info);
		return;
	}
	info->flags |= insn_bit(w, 21) ? INSN_F_LOAD : INSN_F_STORE;
	if (insn_bits(w, 3, 0) != 15)
		insn_writes(info, insn_bits(w, 19, 16));
}
