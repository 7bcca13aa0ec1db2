/* Instruction classifier tests.
 *
 * Every encoding below was assembled by hand from the encoding diagrams of
 * ARM DDI 0406C (A8 instruction pages, B9 system instructions, A9
 * ThumbEE), Arm DDI 0487 (C4.1 encoding tables, C6.2 A64 instruction
 * pages) or the Java VM specification (chapter 6), and every expected
 * target computed by hand from the pseudocode (A32: PC = address + 8; T32:
 * PC = address + 4, BLX: Align(PC, 4); A64: PC = the instruction's
 * address; Jazelle: address of the opcode). Nothing here was copied from
 * the classifier's output.
 */
#include "test_insn.h"

enum { ARM = etmkit_isa_arm, THUMB = etmkit_isa_thumb,
       TEE = etmkit_isa_thumbee, JAZ = etmkit_isa_jazelle };

/* One expected classification. tisa 0: not checked (no target). */
struct tc {
	const char *what;
	int isa;
	uint32_t addr;
	uint32_t w;     /* A32 word, T32 hw1 << 16 | hw2, or 16-bit hw */
	int size;       /* expected size (T32: 2 or 4) */
	uint32_t flags;
	uint32_t target;
	int tisa;
	int cond;
};

static void bytes_of(const struct tc *t, uint8_t *b)
{
	if (t->isa == ARM) {
		b[0] = (uint8_t)t->w;
		b[1] = (uint8_t)(t->w >> 8);
		b[2] = (uint8_t)(t->w >> 16);
		b[3] = (uint8_t)(t->w >> 24);
	} else if (t->size == 2) {
		b[0] = (uint8_t)t->w;
		b[1] = (uint8_t)(t->w >> 8);
	} else {
		b[0] = (uint8_t)(t->w >> 16);
		b[1] = (uint8_t)(t->w >> 24);
		b[2] = (uint8_t)t->w;
		b[3] = (uint8_t)(t->w >> 8);
	}
}

static void check(const struct tc *t, size_t n)
{
	for (size_t i = 0; i < n; i++, t++) {
		struct insn_info info;
		uint8_t b[4];
		int rc;

		bytes_of(t, b);
		rc = insn_decode(&info, (enum etmkit_isa)t->isa, t->addr, b,
				 (size_t)t->size);
		if (rc)
			fail_msg("%s: rc %d", t->what, rc);
		if (info.size != t->size)
			fail_msg("%s: size %u, want %d", t->what, info.size,
				 t->size);
		if (info.flags != t->flags)
			fail_msg("%s: flags %#x, want %#x", t->what,
				 info.flags, t->flags);
		if (info.opcode != t->w)
			fail_msg("%s: opcode %#x", t->what, info.opcode);
		if (info.isa != t->isa)
			fail_msg("%s: isa %u", t->what, info.isa);
		if (info.cond != t->cond)
			fail_msg("%s: cond %u, want %d", t->what, info.cond,
				 t->cond);
		if (t->tisa && (info.target != t->target ||
				info.target_isa != t->tisa))
			fail_msg("%s: target %#llx isa %u, want %#x isa %d",
				 t->what, (unsigned long long)info.target,
				 info.target_isa, t->target, t->tisa);
		if ((t->flags & BR) && !(t->flags & IND) && !t->tisa)
			fail_msg("%s: table lacks the target", t->what);
	}
}


/* ---- A32 ---------------------------------------------------------------- */

static const struct tc a32_branches[] = {
	/* B/BL A1: cond 101 L imm24, target PC + imm24:'00' (A8.8.18) */
	{ "B +12", ARM, 0x8000, 0xea000001, 4, BR, 0x800c, ARM, 14 },
	{ "B to self", ARM, 0x8000, 0xeafffffe, 4, BR, 0x8000, ARM, 14 },
	{ "BLEQ -16", ARM, 0x10000, 0x0bfffffc, 4, BR | CALL | COND, 0xfff8,
	  ARM, 0 },
	{ "B wraps below 0", ARM, 0, 0xeafffffb, 4, BR, 0xfffffff4, ARM, 14 },
	{ "B wraps above 4G", ARM, 0xfffffff8, 0xea000002, 4, BR, 0x8, ARM,
	  14 },
	{ "B max forward", ARM, 0, 0xea7fffff, 4, BR, 0x02000004, ARM, 14 },
	/* BLX A2: 1111 101H imm24, Align(PC,4) + imm24:H:'0' (A8.8.25) */
	{ "BLX imm H0", ARM, 0x1000, 0xfa000000, 4, BR | CALL, 0x1008, THUMB,
	  14 },
	{ "BLX imm H1", ARM, 0x1000, 0xfb000000, 4, BR | CALL, 0x100a, THUMB,
	  14 },
	{ "BLX imm -4", ARM, 0x2000, 0xfaffffff, 4, BR | CALL, 0x2004, THUMB,
	  14 },
	{ "BLX imm -4 H1", ARM, 0x2000, 0xfbffffff, 4, BR | CALL, 0x2006,
	  THUMB, 14 },
	/* BX, BLX (register), BXJ (A8.8.27, A8.8.26, A8.8.28) */
	{ "BX LR", ARM, 0, 0xe12fff1e, 4, BR | IND | RET, 0, 0, 14 },
	{ "BXNE LR", ARM, 0, 0x112fff1e, 4, BR | IND | RET | COND, 0, 0, 1 },
	{ "BX R3", ARM, 0, 0xe12fff13, 4, BR | IND, 0, 0, 14 },
	{ "BLX R3", ARM, 0, 0xe12fff33, 4, BR | IND | CALL, 0, 0, 14 },
	{ "BXJ R0", ARM, 0, 0xe12fff20, 4, BR | IND, 0, 0, 14 },
	/* data-processing writing the PC (A8.8.105, B9.3.20) */
	{ "MOV PC, LR", ARM, 0, 0xe1a0f00e, 4, BR | IND | RET, 0, 0, 14 },
	{ "MOV PC, LR, LSL #1", ARM, 0, 0xe1a0f08e, 4, BR | IND, 0, 0, 14 },
	{ "MOV PC, R1", ARM, 0, 0xe1a0f001, 4, BR | IND, 0, 0, 14 },
	{ "MOVS PC, LR", ARM, 0, 0xe1b0f00e, 4, BR | IND | ERET, 0, 0, 14 },
	{ "SUBS PC, LR, #4", ARM, 0, 0xe25ef004, 4, BR | IND | ERET, 0, 0,
	  14 },
	{ "ADD PC, PC, R0, LSL #2", ARM, 0, 0xe08ff100, 4, BR | IND, 0, 0,
	  14 },
	{ "MOV PC, #0x1000", ARM, 0, 0xe3a0fa01, 4, BR | IND, 0, 0, 14 },
	{ "ADD PC, R0, R1, LSL R2 (UNPREDICTABLE)", ARM, 0, 0xe080f211, 4,
	  BR | IND, 0, 0, 14 },
	{ "CMP PC, R0: no write", ARM, 0, 0xe15f0000, 4, 0, 0, 0, 14 },
	{ "ADD R0, PC, #8: reads the PC", ARM, 0, 0xe28f0008, 4, 0, 0, 0,
	  14 },
	/* loads of the PC (A8.8.63, A8.8.131, A8.8.58, B9.3.5) */
	{ "POP {PC} (LDR PC,[SP],#4)", ARM, 0, 0xe49df004, 4,
	  LD | BR | IND | RET, 0, 0, 14 },
	{ "LDR PC, [R0, #4]", ARM, 0, 0xe590f004, 4, LD | BR | IND, 0, 0,
	  14 },
	{ "LDR PC, [SP, #4]: not a pop", ARM, 0, 0xe59df004, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDR R0, [PC, #4]", ARM, 0, 0xe59f0004, 4, LD, 0, 0, 14 },
	{ "LDMIA SP!, {R4, PC}", ARM, 0, 0xe8bd8010, 4, LD | BR | IND | RET,
	  0, 0, 14 },
	{ "LDMIA R0, {R1, PC}", ARM, 0, 0xe8908002, 4, LD | BR | IND, 0, 0,
	  14 },
	/* POP is LDMIA SP! only, and LDR PC, [SP], #4 only (A8.8.131) */
	{ "LDMIB SP!, {R4, PC}: not a pop", ARM, 0, 0xe9bd8010, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDMDB SP!, {R4, PC}: not a pop", ARM, 0, 0xe93d8010, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDR PC, [SP], #8: not a pop", ARM, 0, 0xe49df008, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDMIA SP, {PC}: no writeback", ARM, 0, 0xe89d8000, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDMFD SP!, {PC}^", ARM, 0, 0xe8fd8000, 4, LD | BR | IND | ERET, 0,
	  0, 14 },
	{ "LDM R0, {R0, R1}^ (user registers)", ARM, 0, 0xe8d00003, 4, LD, 0,
	  0, 14 },
	{ "ERET", ARM, 0, 0xe160006e, 4, BR | IND | ERET, 0, 0, 14 },
	{ "RFEIA SP!", ARM, 0, 0xf8bd0a00, 4, LD | BR | IND | ERET, 0, 0,
	  14 },
	/* UNPREDICTABLE PC destinations are still PC writes */
	{ "MUL PC, R1, R2", ARM, 0, 0xe00f0291, 4, BR | IND, 0, 0, 14 },
	{ "LDR R0, [PC, #4]! (writeback to PC)", ARM, 0, 0xe5bf0004, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDRD R14, PC, [R0]", ARM, 0, 0xe1c0e0d0, 4, LD | BR | IND, 0, 0,
	  14 },
};

static const struct tc a32_other[] = {
	/* memory (A8.8.204, A8.8.72, A8.8.210, A8.8.80, A8.8.75, A8.8.212,
	 * A8.8.229, A8.8.128, A8.8.59, A8.8.199, A8.8.332/A8.8.414) */
	{ "STR R0, [R1]", ARM, 0, 0xe5810000, 4, ST, 0, 0, 14 },
	{ "PUSH {R4, LR}", ARM, 0, 0xe92d4010, 4, ST, 0, 0, 14 },
	{ "STM R0, {R1, PC}: stores the PC", ARM, 0, 0xe8808002, 4, ST, 0, 0,
	  14 },
	{ "LDRD R0, R1, [R2]", ARM, 0, 0xe1c200d0, 4, LD, 0, 0, 14 },
	{ "STRD R0, R1, [R2]", ARM, 0, 0xe1c200f0, 4, ST, 0, 0, 14 },
	{ "LDRH R0, [R1]", ARM, 0, 0xe1d100b0, 4, LD, 0, 0, 14 },
	{ "LDRSB R0, [R1]", ARM, 0, 0xe1d100d0, 4, LD, 0, 0, 14 },
	{ "STRH R0, [R1]", ARM, 0, 0xe1c100b0, 4, ST, 0, 0, 14 },
	{ "LDRT R0, [R1], #4", ARM, 0, 0xe4b10004, 4, LD, 0, 0, 14 },
	{ "LDREX R0, [R1]", ARM, 0, 0xe1910f9f, 4, LD, 0, 0, 14 },
	{ "STREX R0, R2, [R1]", ARM, 0, 0xe1810f92, 4, ST, 0, 0, 14 },
	{ "LDREXD R2, R3, [R1]", ARM, 0, 0xe1b12f9f, 4, LD, 0, 0, 14 },
	{ "SWP R0, R1, [R2]", ARM, 0, 0xe1020091, 4, LD | ST, 0, 0, 14 },
	{ "SWPB R0, R1, [R2]", ARM, 0, 0xe1420091, 4, LD | ST, 0, 0, 14 },
	{ "PLD [R0]", ARM, 0, 0xf5d0f000, 4, 0, 0, 0, 14 },
	{ "PLDW [R0]", ARM, 0, 0xf590f000, 4, 0, 0, 0, 14 },
	{ "PLI [R0]", ARM, 0, 0xf4d0f000, 4, 0, 0, 0, 14 },
	{ "LDC p5, c0, [R1]", ARM, 0, 0xed910500, 4, LD, 0, 0, 14 },
	{ "STC p5, c0, [R1]", ARM, 0, 0xed810500, 4, ST, 0, 0, 14 },
	{ "VLDR D0, [R1]", ARM, 0, 0xed910b00, 4, LD, 0, 0, 14 },
	{ "VSTR D0, [R1]", ARM, 0, 0xed810b00, 4, ST, 0, 0, 14 },
	{ "VPUSH {D8}", ARM, 0, 0xed2d8b02, 4, ST, 0, 0, 14 },
	{ "VPOP {D8}", ARM, 0, 0xecbd8b02, 4, LD, 0, 0, 14 },
	{ "VLD1.8 {D0}, [R0]", ARM, 0, 0xf420070f, 4, LD, 0, 0, 14 },
	{ "VST1.8 {D0}, [R0]", ARM, 0, 0xf400070f, 4, ST, 0, 0, 14 },
	{ "VLD4.8 {D0[]-D3[]}, [R0]", ARM, 0, 0xf4a00f0f, 4, LD, 0, 0, 14 },
	{ "SRSDB SP!, #19", ARM, 0, 0xf96d0513, 4, ST, 0, 0, 14 },
	/* coprocessor register transfers (A8.8.108, A8.8.98, A8.8.109,
	 * A8.8.99, A8.8.342-350) */
	{ "MRC p15, 0, R0, c1, c0, 0", ARM, 0, 0xee110f10, 4, CPRT, 0, 0,
	  14 },
	{ "MRC p14, 0, APSR_nzcv, c0, c1, 0", ARM, 0, 0xee10fe11, 4, CPRT, 0,
	  0, 14 },
	{ "MCR p15, 0, R0, c1, c0, 0", ARM, 0, 0xee010f10, 4, CPRT, 0, 0,
	  14 },
	{ "MRRC p15, 0, R0, R1, c2", ARM, 0, 0xec510f02, 4, CPRT, 0, 0, 14 },
	{ "MCRR p15, 0, R0, R1, c2", ARM, 0, 0xec410f02, 4, CPRT, 0, 0, 14 },
	{ "MCR2 p7", ARM, 0, 0xfe010710, 4, CPRT, 0, 0, 14 },
	{ "CDP p5", ARM, 0, 0xee010500, 4, 0, 0, 0, 14 },
	{ "VMOV R0, S0", ARM, 0, 0xee100a10, 4, CPRT, 0, 0, 14 },
	{ "VMOV S0, R0", ARM, 0, 0xee000a10, 4, CPRT, 0, 0, 14 },
	{ "VMRS APSR_nzcv, FPSCR", ARM, 0, 0xeef1fa10, 4, CPRT, 0, 0, 14 },
	{ "VMRS R0, FPSCR", ARM, 0, 0xeef10a10, 4, CPRT, 0, 0, 14 },
	{ "VMSR FPSCR, R0", ARM, 0, 0xeee10a10, 4, CPRT, 0, 0, 14 },
	{ "VMOV R0, R1, D0", ARM, 0, 0xec510b10, 4, CPRT, 0, 0, 14 },
	{ "VMOV.32 R0, D0[0]", ARM, 0, 0xee100b10, 4, CPRT, 0, 0, 14 },
	{ "VDUP.32 D0, R0", ARM, 0, 0xee800b10, 4, CPRT, 0, 0, 14 },
	{ "VADD.F32 S0, S1, S2 (no flags)", ARM, 0, 0xee300a81, 4, 0, 0, 0,
	  14 },
	/* exceptions, barriers, hints */
	{ "SVC #0", ARM, 0, 0xef000000, 4, EXC, 0, 0, 14 },
	{ "SVCNE #0", ARM, 0, 0x1f000000, 4, EXC | COND, 0, 0, 1 },
	{ "BKPT #0", ARM, 0, 0xe1200070, 4, EXC, 0, 0, 14 },
	{ "HVC #0", ARM, 0, 0xe1400070, 4, EXC, 0, 0, 14 },
	{ "SMC #0", ARM, 0, 0xe1600070, 4, EXC, 0, 0, 14 },
	{ "UDF #0", ARM, 0, 0xe7f000f0, 4, UDF, 0, 0, 14 },
	{ "ISB SY", ARM, 0, 0xf57ff06f, 4, ISB, 0, 0, 14 },
	{ "DMB SY", ARM, 0, 0xf57ff05f, 4, BAR, 0, 0, 14 },
	{ "DSB SY", ARM, 0, 0xf57ff04f, 4, BAR, 0, 0, 14 },
	{ "CLREX", ARM, 0, 0xf57ff01f, 4, 0, 0, 0, 14 },
	{ "NOP", ARM, 0, 0xe320f000, 4, 0, 0, 0, 14 },
	/* hints A5.2.11: cccc 0011 0010 0000 1111 0000 op2 (A8.8.424-426) */
	{ "YIELD", ARM, 0, 0xe320f001, 4, 0, 0, 0, 14 },
	{ "WFE", ARM, 0, 0xe320f002, 4, WFX, 0, 0, 14 },
	{ "WFI", ARM, 0, 0xe320f003, 4, WFX, 0, 0, 14 },
	{ "WFINE", ARM, 0, 0x1320f003, 4, WFX | COND, 0, 0, 1 },
	{ "SEV", ARM, 0, 0xe320f004, 4, 0, 0, 0, 14 },
	{ "MSR CPSR_f, #0 is not a hint", ARM, 0, 0xe328f002, 4, 0, 0, 0,
	  14 },
	{ "ADDNE R0, R1, R2", ARM, 0, 0x10810002, 4, COND, 0, 0, 1 },
	{ "ADDGT R0, R1, R2", ARM, 0, 0xc0810002, 4, COND, 0, 0, 12 },
	/* undefined encodings */
	{ "misc op2 100", ARM, 0, 0xe1200040, 4, UND, 0, 0, 14 },
	{ "media signed multiply op1 010", ARM, 0, 0xe7200010, 4, UND, 0, 0,
	  14 },
	{ "unconditional 1111 1111", ARM, 0, 0xff000000, 4, UND, 0, 0, 14 },
	{ "LDC2 p11 (CP10/11 '2' form)", ARM, 0, 0xfd910b00, 4, UND, 0, 0,
	  14 },
	{ "coprocessor op1 00000x", ARM, 0, 0xec000500, 4, UND, 0, 0, 14 },
	{ "VLD1 one register, align 1x", ARM, 0, 0xf420072f, 4, UND, 0, 0,
	  14 },
	{ "VADD.I64 Q0 with odd D register", ARM, 0, 0xf2300841, 4, UND, 0, 0,
	  14 },
};

static void test_a32_branches(void **state)
{
	(void)state;
	check(a32_branches, N(a32_branches));
}

static void test_a32_other(void **state)
{
	(void)state;
	check(a32_other, N(a32_other));
}

/* ---- T32 ---------------------------------------------------------------- */

static const struct tc t32_branches[] = {
	/* B T1: 1101 cond imm8, PC + imm8:'0' (A8.8.18) */
	{ "BEQ +2", THUMB, 0x8000, 0xd001, 2, BR | COND, 0x8006, THUMB, 0 },
	{ "BNE to self", THUMB, 0x8000, 0xd1fe, 2, BR | COND, 0x8000, THUMB,
	  1 },
	{ "BLE -256", THUMB, 0x8000, 0xdd80, 2, BR | COND, 0x7f04, THUMB,
	  13 },
	/* B T2: 11100 imm11 */
	{ "B to self", THUMB, 0x8000, 0xe7fe, 2, BR, 0x8000, THUMB, 14 },
	{ "B +2", THUMB, 0x8000, 0xe001, 2, BR, 0x8006, THUMB, 14 },
	{ "B -2048", THUMB, 0x9000, 0xe400, 2, BR, 0x8804, THUMB, 14 },
	/* CBZ/CBNZ: 1011 op 0 i 1 imm5 Rn, PC + i:imm5:'0' (A8.8.29) */
	{ "CBZ R0, +0", THUMB, 0x8000, 0xb100, 2, BR | COND, 0x8004, THUMB,
	  14 },
	{ "CBNZ R1, +126", THUMB, 0x8000, 0xbbf9, 2, BR | COND, 0x8082,
	  THUMB, 14 },
	/* BL T1 / B T4: S:I1:I2:imm10:imm11:'0', I = NOT(J EOR S) */
	{ "BL +0", THUMB, 0x8000, 0xf000f800, 4, BR | CALL, 0x8004, THUMB,
	  14 },
	{ "BL -4", THUMB, 0x8000, 0xf7fffffe, 4, BR | CALL, 0x8000, THUMB,
	  14 },
	{ "BL +0x400000", THUMB, 0x8000, 0xf000f000, 4, BR | CALL, 0x408004,
	  THUMB, 14 },
	{ "B.W +0", THUMB, 0x8000, 0xf000b800, 4, BR, 0x8004, THUMB, 14 },
	{ "B.W -16M", THUMB, 0x01008000, 0xf4009000, 4, BR, 0x00008004,
	  THUMB, 14 },
	{ "B.W wraps", THUMB, 0x00000010, 0xf7ffbfee, 4, BR, 0xfffffff0,
	  THUMB, 14 },
	/* B T3: S:J2:J1:imm6:imm11:'0' */
	{ "BEQ.W +0", THUMB, 0x8000, 0xf0008000, 4, BR | COND, 0x8004, THUMB,
	  0 },
	{ "BNE.W -4", THUMB, 0x8000, 0xf47faffe, 4, BR | COND, 0x8000, THUMB,
	  1 },
	{ "BGT.W +0x40000", THUMB, 0x8000, 0xf300a000, 4, BR | COND,
	  0x48004, THUMB, 12 },
	/* BLX T2: Align(PC, 4) + S:I1:I2:imm10H:imm10L:'00' */
	{ "BLX +0 at word address", THUMB, 0x8000, 0xf000e800, 4, BR | CALL,
	  0x8004, ARM, 14 },
	{ "BLX +0 at halfword address", THUMB, 0x8002, 0xf000e800, 4,
	  BR | CALL, 0x8004, ARM, 14 },
	{ "BLX +4 at halfword address", THUMB, 0x8002, 0xf000e802, 4,
	  BR | CALL, 0x8008, ARM, 14 },
	{ "BLX -4 at halfword address", THUMB, 0x8002, 0xf7ffeffe, 4,
	  BR | CALL, 0x8000, ARM, 14 },
	/* H = 1 is the Armv8.1-M space (t32_lob below): f000 e801 is VCTP.8
	 * R0; with boff 0 and op 101 it is unallocated there too */
	{ "BLX with H = 1: VCTP.8 R0", THUMB, 0x8000, 0xf000e801, 4, 0, 0, 0,
	  14 },
	{ "BLX with H = 1, unallocated", THUMB, 0x8000, 0xf050c001, 4, UND, 0,
	  0, 14 },
	/* indirect */
	{ "BX LR", THUMB, 0, 0x4770, 2, BR | IND | RET, 0, 0, 14 },
	{ "BX R0", THUMB, 0, 0x4700, 2, BR | IND, 0, 0, 14 },
	{ "BLX R3", THUMB, 0, 0x4798, 2, BR | IND | CALL, 0, 0, 14 },
	{ "MOV PC, LR", THUMB, 0, 0x46f7, 2, BR | IND | RET, 0, 0, 14 },
	{ "MOV PC, R0", THUMB, 0, 0x4687, 2, BR | IND, 0, 0, 14 },
	{ "MOV LR, PC: no write", THUMB, 0, 0x46fe, 2, 0, 0, 0, 14 },
	{ "ADD PC, R0", THUMB, 0, 0x4487, 2, BR | IND, 0, 0, 14 },
	{ "POP {R4, PC}", THUMB, 0, 0xbd10, 2, LD | BR | IND | RET, 0, 0,
	  14 },
	{ "POP {R4}", THUMB, 0, 0xbc10, 2, LD, 0, 0, 14 },
	{ "LDR.W PC, [SP], #4", THUMB, 0, 0xf85dfb04, 4, LD | BR | IND | RET,
	  0, 0, 14 },
	{ "LDR.W PC, [SP, #-4]!: not a pop", THUMB, 0, 0xf85dfd04, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDMIA.W SP!, {R4, PC}", THUMB, 0, 0xe8bd8010, 4,
	  LD | BR | IND | RET, 0, 0, 14 },
	{ "LDMDB R0, {R1, PC}", THUMB, 0, 0xe9108002, 4, LD | BR | IND, 0, 0,
	  14 },
	{ "LDMDB SP!, {R4, PC}: not a pop", THUMB, 0, 0xe93d8010, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "LDR.W PC, [SP], #8: not a pop", THUMB, 0, 0xf85dfb08, 4,
	  LD | BR | IND, 0, 0, 14 },
	/* PKHBT T1 (A8.8.125): S or T (hw2 bit 4) set is UNDEFINED */
	{ "PKHBT R0, R1, R2", THUMB, 0, 0xeac10002, 4, 0, 0, 0, 14 },
	{ "PKH with T = 1", THUMB, 0, 0xeac10012, 4, UND, 0, 0, 14 },
	{ "LDR.W PC, [R0, #4]", THUMB, 0, 0xf8d0f004, 4, LD | BR | IND, 0, 0,
	  14 },
	{ "LDR PC, [PC, #8] (literal)", THUMB, 0, 0xf8dff008, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "TBB [R0, R1]", THUMB, 0, 0xe8d0f001, 4, LD | BR | IND, 0, 0, 14 },
	{ "TBH [PC, R1, LSL #1]", THUMB, 0, 0xe8dff011, 4, LD | BR | IND, 0,
	  0, 14 },
	{ "SUBS PC, LR, #4", THUMB, 0, 0xf3de8f04, 4, BR | IND | ERET, 0, 0,
	  14 },
	{ "ERET", THUMB, 0, 0xf3de8f00, 4, BR | IND | ERET, 0, 0, 14 },
	{ "RFEIA R0", THUMB, 0, 0xe990c000, 4, LD | BR | IND | ERET, 0, 0,
	  14 },
	{ "BXJ R0", THUMB, 0, 0xf3c08f00, 4, BR | IND, 0, 0, 14 },
	/* Rd = 1111 with S = 1 is TST/TEQ/CMN/CMP, not a PC write */
	{ "TST.W R0, #1", THUMB, 0, 0xf0100f01, 4, 0, 0, 0, 14 },
	{ "CMP.W R0, R1", THUMB, 0, 0xebb00f01, 4, 0, 0, 0, 14 },
	{ "ADD.W PC, R0, R1 (UNPREDICTABLE)", THUMB, 0, 0xeb000f01, 4,
	  BR | IND, 0, 0, 14 },
	{ "ORRS.W PC, R0, #1 (UNPREDICTABLE)", THUMB, 0, 0xf0500f01, 4,
	  BR | IND, 0, 0, 14 },
};

static const struct tc t32_other[] = {
	{ "IT EQ", THUMB, 0, 0xbf08, 2, IT, 0, 0, 0 },
	{ "ITTE NE", THUMB, 0, 0xbf1a, 2, IT, 0, 0, 1 },
	{ "NOP (mask 0000 is a hint)", THUMB, 0, 0xbf00, 2, 0, 0, 0, 14 },
	/* 16-bit hints, Table A6-10: 1011 1111 opA 0000 */
	{ "YIELD", THUMB, 0, 0xbf10, 2, 0, 0, 0, 14 },
	{ "WFE", THUMB, 0, 0xbf20, 2, WFX, 0, 0, 14 },
	{ "WFI", THUMB, 0, 0xbf30, 2, WFX, 0, 0, 14 },
	{ "SEV", THUMB, 0, 0xbf40, 2, 0, 0, 0, 14 },
	/* 32-bit hints, Table A6-14: 1111 0011 1010 1111 1000 0000 op2 */
	{ "NOP.W", THUMB, 0, 0xf3af8000, 4, 0, 0, 0, 14 },
	{ "WFE.W", THUMB, 0, 0xf3af8002, 4, WFX, 0, 0, 14 },
	{ "WFI.W", THUMB, 0, 0xf3af8003, 4, WFX, 0, 0, 14 },
	{ "SEV.W", THUMB, 0, 0xf3af8004, 4, 0, 0, 0, 14 },
	{ "SVC #0", THUMB, 0, 0xdf00, 2, EXC, 0, 0, 14 },
	{ "UDF #0", THUMB, 0, 0xde00, 2, UDF, 0, 0, 14 },
	{ "BKPT #0", THUMB, 0, 0xbe00, 2, EXC, 0, 0, 14 },
	{ "UDF.W #0", THUMB, 0, 0xf7f0a000, 4, UDF, 0, 0, 14 },
	{ "SMC #0", THUMB, 0, 0xf7f08000, 4, EXC, 0, 0, 14 },
	{ "HVC #0", THUMB, 0, 0xf7e08000, 4, EXC, 0, 0, 14 },
	{ "ISB SY", THUMB, 0, 0xf3bf8f6f, 4, ISB, 0, 0, 14 },
	{ "DSB SY", THUMB, 0, 0xf3bf8f4f, 4, BAR, 0, 0, 14 },
	{ "DMB ISH", THUMB, 0, 0xf3bf8f5b, 4, BAR, 0, 0, 14 },
	{ "CLREX", THUMB, 0, 0xf3bf8f2f, 4, 0, 0, 0, 14 },
	{ "LDR R0, [R1]", THUMB, 0, 0x6808, 2, LD, 0, 0, 14 },
	{ "STR R0, [R1]", THUMB, 0, 0x6008, 2, ST, 0, 0, 14 },
	{ "LDRSH R0, [R1, R2]", THUMB, 0, 0x5e88, 2, LD, 0, 0, 14 },
	{ "STRB R0, [R1, R2]", THUMB, 0, 0x5488, 2, ST, 0, 0, 14 },
	{ "LDR R0, [PC, #4]", THUMB, 0, 0x4801, 2, LD, 0, 0, 14 },
	{ "LDR R0, [SP, #4]", THUMB, 0, 0x9801, 2, LD, 0, 0, 14 },
	{ "LDM R0!, {R1}", THUMB, 0, 0xc802, 2, LD, 0, 0, 14 },
	{ "STM R0!, {R1}", THUMB, 0, 0xc002, 2, ST, 0, 0, 14 },
	{ "STM R2!, {R0, R2}", THUMB, 0, 0xc205, 2, ST, 0, 0, 14 },
	{ "PUSH {R4, LR}", THUMB, 0, 0xb510, 2, ST, 0, 0, 14 },
	{ "LDRD R2, R3, [R0]", THUMB, 0, 0xe9d02300, 4, LD, 0, 0, 14 },
	{ "STRD R2, R3, [R0]", THUMB, 0, 0xe9c02300, 4, ST, 0, 0, 14 },
	{ "LDREX R0, [R1]", THUMB, 0, 0xe8510f00, 4, LD, 0, 0, 14 },
	{ "STREX R0, R2, [R1]", THUMB, 0, 0xe8412000, 4, ST, 0, 0, 14 },
	{ "LDRB.W R0, [R1, #1]", THUMB, 0, 0xf8910001, 4, LD, 0, 0, 14 },
	{ "STRH.W R0, [R1, #2]", THUMB, 0, 0xf8a10002, 4, ST, 0, 0, 14 },
	{ "PLD [R0, #4]", THUMB, 0, 0xf890f004, 4, 0, 0, 0, 14 },
	{ "PLI [R0, #4]", THUMB, 0, 0xf990f004, 4, 0, 0, 0, 14 },
	{ "LDRB PC, [R0], #1 (UNPREDICTABLE load)", THUMB, 0, 0xf810fb01, 4,
	  LD | BR | IND, 0, 0, 14 },
	{ "VLDR D0, [R1]", THUMB, 0, 0xed910b00, 4, LD, 0, 0, 14 },
	{ "VST1.8 {D0}, [R0]", THUMB, 0, 0xf900070f, 4, ST, 0, 0, 14 },
	{ "MRC p15, 0, R0, c1, c0, 0", THUMB, 0, 0xee110f10, 4, CPRT, 0, 0,
	  14 },
	{ "VMOV R0, S0", THUMB, 0, 0xee100a10, 4, CPRT, 0, 0, 14 },
	{ "MOVW R0, #0", THUMB, 0, 0xf2400000, 4, 0, 0, 0, 14 },
	{ "ENTERX", THUMB, 0, 0xf3bf8f1f, 4, SW, 0, TEE, 14 },
	{ "LEAVEX", THUMB, 0, 0xf3bf8f0f, 4, SW, 0, THUMB, 14 },
	{ "16-bit misc 1000", THUMB, 0, 0xb800, 2, UND, 0, 0, 14 },
	{ "16-bit REV space 10", THUMB, 0, 0xba80, 2, UND, 0, 0, 14 },
	{ "32-bit load 00xx111", THUMB, 0, 0xf8f00000, 4, UND, 0, 0, 14 },
	{ "32-bit dp modified immediate op 0101", THUMB, 0, 0xf0a00000, 4,
	  UND, 0, 0, 14 },
	{ "32-bit misc control op 0111", THUMB, 0, 0xf3bf8f7f, 4, UND, 0, 0,
	  14 },
};

/* Armv8.1-M Low Overhead Branch extension (Arm DDI 0553, "Branch future
 * and low-overhead loops"): 11110 boff(4) op(3) Rn(4) | 11 x 0 imml(1)
 * immh(10) 1. boff = 0: WLS (op 100), WLSTP (op 0 size, Rn != 15), LE
 * (f00f), LETP (f01f), LE without LR (f02f) with hw2[13] 0; DLS, DLSTP,
 * LCTP with hw2 e001, VCTP with e801. imm32 = immh:imml:'0' from PC =
 * address + 4, added by WLS/WLSTP, subtracted by LE/LETP. boff != 0:
 * branch future (BF, BFX, BFL, BFLX, BFCSEL), not a PC write. */
static const struct tc t32_lob[] = {
	/* WLS T1 1111 0000 0100 Rn | 1100 imml immh 1 */
	{ "WLS LR, R4, +4 (capture, 0x1e0c4)", THUMB, 0x1e0c4, 0xf044c003, 4,
	  BR | COND, 0x1e0cc, THUMB, 14 },
	{ "WLS LR, R0, +2 (imml only)", THUMB, 0x8000, 0xf040c801, 4,
	  BR | COND, 0x8006, THUMB, 14 },
	{ "WLS LR, R0, +4094 (max)", THUMB, 0x8000, 0xf040cfff, 4, BR | COND,
	  0x9002, THUMB, 14 },
	{ "WLS wraps above 4G", THUMB, 0xfffffffc, 0xf040c003, 4, BR | COND,
	  0x4, THUMB, 14 },
	/* WLSTP T1 1111 0000 00 size Rn | 1100 ... */
	{ "WLSTP.8 LR, R0, +4", THUMB, 0x8000, 0xf000c003, 4, BR | COND,
	  0x8008, THUMB, 14 },
	{ "WLSTP.64 LR, R3, +8", THUMB, 0x8002, 0xf033c005, 4, BR | COND,
	  0x800e, THUMB, 14 },
	/* LE T1 f00f, LETP f01f, LE T2 (no LR, always branches) f02f */
	{ "LE LR, -20 (capture, 0x1e104)", THUMB, 0x1e104, 0xf00fc00b, 4,
	  BR | COND, 0x1e0f4, THUMB, 14 },
	{ "LE LR, -6 (imml)", THUMB, 0x8000, 0xf00fc803, 4, BR | COND, 0x7ffe,
	  THUMB, 14 },
	{ "LE LR, -4094 (max)", THUMB, 0x8000, 0xf00fcfff, 4, BR | COND,
	  0x7006, THUMB, 14 },
	{ "LE wraps below 0", THUMB, 0x2, 0xf00fc005, 4, BR | COND,
	  0xfffffffe, THUMB, 14 },
	{ "LETP LR, -8", THUMB, 0x8000, 0xf01fc005, 4, BR | COND, 0x7ffc,
	  THUMB, 14 },
	{ "LE -4 (no LR: unconditional)", THUMB, 0x8000, 0xf02fc003, 4, BR,
	  0x8000, THUMB, 14 },
	{ "f03f c001 (LE with both bits): unallocated", THUMB, 0x8000,
	  0xf03fc001, 4, UND, 0, 0, 14 },
	{ "boff 0, op 111, hw2 110x: unallocated", THUMB, 0x8000, 0xf070c001,
	  4, UND, 0, 0, 14 },
	/* not branches */
	{ "DLS LR, R0", THUMB, 0x8000, 0xf040e001, 4, 0, 0, 0, 14 },
	{ "DLS LR, R3 (capture)", THUMB, 0x4f9d3c, 0xf043e001, 4, 0, 0, 0,
	  14 },
	{ "DLSTP.8 LR, R0", THUMB, 0x8000, 0xf000e001, 4, 0, 0, 0, 14 },
	{ "DLSTP.64 LR, R0", THUMB, 0x8000, 0xf030e001, 4, 0, 0, 0, 14 },
	{ "LCTP", THUMB, 0x8000, 0xf00fe001, 4, 0, 0, 0, 14 },
	{ "VCTP.32 R2", THUMB, 0x8000, 0xf022e801, 4, 0, 0, 0, 14 },
	{ "DLS with hw2 e003: unallocated", THUMB, 0x8000, 0xf040e003, 4, UND,
	  0, 0, 14 },
	{ "boff 0, op 101, hw2 e001: unallocated", THUMB, 0x8000, 0xf050e001,
	  4, UND, 0, 0, 14 },
	/* branch future: boff:'0' to the branch point, then the target */
	{ "BF +4, +8", THUMB, 0x8000, 0xf140e005, 4, 0, 0, 0, 14 },
	{ "BF +4, -8", THUMB, 0x8000, 0xf15fe7fd, 4, 0, 0, 0, 14 },
	{ "BFX +4, R3", THUMB, 0x8000, 0xf163e001, 4, 0, 0, 0, 14 },
	{ "BFL +4, +8", THUMB, 0x8000, 0xf100c005, 4, 0, 0, 0, 14 },
	{ "BFL +30, -4", THUMB, 0x8000, 0xf7ffc7ff, 4, 0, 0, 0, 14 },
	{ "BFLX +4, R3", THUMB, 0x8000, 0xf173e001, 4, 0, 0, 0, 14 },
	{ "BFCSEL +4, +8, +6, EQ (cond selects)", THUMB, 0x8000, 0xf100e005,
	  4, 0, 0, 0, 14 },
	/* ThumbEE has no BLX (immediate), nor these */
	{ "WLS in ThumbEE", TEE, 0x8000, 0xf040c003, 4, UND, 0, 0, 14 },
	{ "LE in ThumbEE", TEE, 0x8000, 0xf00fc003, 4, UND, 0, 0, 14 },
};

static void test_t32_lob(void **state)
{
	(void)state;
	check(t32_lob, N(t32_lob));
}

static void test_t32_branches(void **state)
{
	(void)state;
	check(t32_branches, N(t32_branches));
}

static void test_t32_other(void **state)
{
	(void)state;
	check(t32_other, N(t32_other));
}

static void test_t32_it_mask(void **state)
{
	struct insn_info info;
	/* ITTE NE: firstcond 0001, mask 1010 (A8.8.54, Table A8-1) */
	const uint8_t itte[] = { 0x1a, 0xbf };
	/* ITETT GT: firstcond 1100, mask: E 1, T 0, T 0, then 1 -> 1001 */
	const uint8_t itett[] = { 0xc9, 0xbf };

	(void)state;
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, itte, 2), 0);
	assert_int_equal(info.flags, INSN_F_IT);
	assert_int_equal(info.cond, 1);
	assert_int_equal(info.it_mask, 0xa);
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, itett, 2), 0);
	assert_int_equal(info.cond, 12);
	assert_int_equal(info.it_mask, 0x9);
}

static void test_t32_truncated(void **state)
{
	struct insn_info info;
	const uint8_t bl[] = { 0x00, 0xf0, 0x00, 0xf8 };
	const uint8_t bx[] = { 0x70, 0x47 };

	(void)state;
	/* bits [15:11] 11110: a 32-bit instruction needs 4 bytes */
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, bl, 2),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, bl, 3),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_thumbee, 0, bl, 2),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, bx, 1),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, bx, 2), 0);
	assert_int_equal(insn_decode(&info, etmkit_isa_arm, 0, bl, 3),
			 -etmkit_err_truncated);
	/* the second halfword of BL (F800) is itself a 32-bit prefix */
	assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, bl + 2, 2),
			 -etmkit_err_truncated);
	/* a 16-bit instruction with more bytes available is 2 bytes */
	{
		const uint8_t two[] = { 0x70, 0x47, 0x00, 0xf0 };

		assert_int_equal(insn_decode(&info, etmkit_isa_thumb, 0, two,
					     4), 0);
		assert_int_equal(info.size, 2);
	}
}

static void test_errors(void **state)
{
	struct insn_info info;
	const uint8_t b[4] = { 0 };

	(void)state;
	assert_int_equal(insn_decode(NULL, etmkit_isa_arm, 0, b, 4),
			 -etmkit_err_invalid);
	assert_int_equal(insn_decode(&info, etmkit_isa_arm, 0, NULL, 4),
			 -etmkit_err_invalid);
	assert_int_equal(insn_decode(&info, etmkit_isa_unknown, 0, b, 4),
			 -etmkit_err_invalid);
	assert_int_equal(insn_decode(&info, etmkit_isa_reserved, 0, b, 4),
			 -etmkit_err_invalid);
	assert_int_equal(insn_decode(&info, etmkit_isa_a64, 0, b, 3),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_a64, 0, NULL, 0),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, b, 0),
			 -etmkit_err_truncated);
	/* addresses are 32-bit: the upper half is ignored, targets wrap */
	{
		const uint8_t bself[] = { 0xfe, 0xff, 0xff, 0xea };

		assert_int_equal(insn_decode(&info, etmkit_isa_arm,
					     0x100008000ull, bself, 4), 0);
		assert_int_equal(info.target, 0x8000);
	}
}

/* ---- ThumbEE (A9) ------------------------------------------------------- */

static const struct tc tee[] = {
	/* HB, HBL: 1100 001 L handler8 (A9.5.2) */
	{ "HB #5", TEE, 0, 0xc205, 2, BR | IND, 0, 0, 14 },
	{ "HBL #200", TEE, 0, 0xc3c8, 2, BR | IND | CALL, 0, 0, 14 },
	/* HBLP: 1100 01 imm5 handler5 (A9.5.3) */
	{ "HBLP #3, #7", TEE, 0, 0xc467, 2, BR | IND | CALL, 0, 0, 14 },
	/* HBP: 1100 0000 imm3 handler5 (A9.5.4) */
	{ "HBP #2, #9", TEE, 0, 0xc049, 2, BR | IND, 0, 0, 14 },
	{ "1100 0001: unallocated", TEE, 0, 0xc100, 2, UND, 0, 0, 14 },
	/* CHKA: 1100 1010 N Rm Rn; branches to IndexCheck only on failure */
	{ "CHKA R1, R2", TEE, 0, 0xca11, 2, 0, 0, 0, 14 },
	/* LDR/STR forms replacing 16-bit LDM */
	{ "LDR R1, [R2, #-8]", TEE, 0, 0xc891, 2, LD, 0, 0, 14 },
	{ "LDR R1, [R9, #16]", TEE, 0, 0xcc21, 2, LD, 0, 0, 14 },
	{ "LDR R1, [R10, #16]", TEE, 0, 0xcb21, 2, LD, 0, 0, 14 },
	{ "STR R1, [R9, #16]", TEE, 0, 0xce21, 2, ST, 0, 0, 14 },
	/* null-checked loads are not branches */
	{ "LDR R0, [R1] (null check)", TEE, 0, 0x6808, 2, LD, 0, 0, 14 },
	/* A9.1: BLX (immediate) is UNDEFINED in ThumbEE */
	{ "BLX imm", TEE, 0x8000, 0xf000e800, 4, UND, 0, 0, 14 },
	{ "BL stays in ThumbEE", TEE, 0x8000, 0xf000f800, 4, BR | CALL,
	  0x8004, TEE, 14 },
	{ "BEQ stays in ThumbEE", TEE, 0x8000, 0xd001, 2, BR | COND, 0x8006,
	  TEE, 0 },
	{ "CBZ stays in ThumbEE", TEE, 0x8000, 0xb100, 2, BR | COND, 0x8004,
	  TEE, 14 },
	{ "BX LR", TEE, 0, 0x4770, 2, BR | IND | RET, 0, 0, 14 },
	{ "POP {PC}", TEE, 0, 0xbd00, 2, LD | BR | IND | RET, 0, 0, 14 },
	{ "ENTERX (no effect in ThumbEE)", TEE, 0, 0xf3bf8f1f, 4, SW, 0, TEE,
	  14 },
	{ "LEAVEX", TEE, 0, 0xf3bf8f0f, 4, SW, 0, THUMB, 14 },
};

static void test_thumbee(void **state)
{
	(void)state;
	check(tee, N(tee));
}

/* ---- Jazelle ------------------------------------------------------------ */

struct jc {
	const char *what;
	uint32_t addr;
	uint8_t b[16];
	size_t n;
	int size;
	uint32_t flags;
	uint32_t target; /* checked when BR and not IND */
	uint32_t opcode;
};

static void check_j(const struct jc *t, size_t n)
{
	for (size_t i = 0; i < n; i++, t++) {
		struct insn_info info;
		int rc = insn_decode(&info, etmkit_isa_jazelle, t->addr, t->b,
				     t->n);

		if (rc)
			fail_msg("%s: rc %d", t->what, rc);
		if (info.size != t->size)
			fail_msg("%s: size %u, want %d", t->what, info.size,
				 t->size);
		if (info.flags != t->flags)
			fail_msg("%s: flags %#x, want %#x", t->what,
				 info.flags, t->flags);
		if (info.opcode != t->opcode)
			fail_msg("%s: opcode %#x, want %#x", t->what,
				 info.opcode, t->opcode);
		if (info.isa != etmkit_isa_jazelle || info.cond != 14)
			fail_msg("%s: isa/cond", t->what);
		if ((t->flags & BR) && !(t->flags & IND) &&
		    (info.target != t->target ||
		     info.target_isa != etmkit_isa_jazelle))
			fail_msg("%s: target %#llx, want %#x", t->what,
				 (unsigned long long)info.target, t->target);
	}
}

static const struct jc jaz[] = {
	{ "nop", 0, { 0x00 }, 1, 1, 0, 0, 0x00 },
	{ "bipush 5", 0, { 0x10, 0x05 }, 2, 2, 0, 0, 0x1005 },
	{ "sipush", 0, { 0x11, 0x01, 0x02 }, 3, 3, 0, 0, 0x110102 },
	{ "ldc_w", 0, { 0x13, 0x00, 0x01 }, 3, 3, 0, 0, 0x130001 },
	{ "iload 1", 0, { 0x15, 0x01 }, 2, 2, 0, 0, 0x1501 },
	{ "iinc 1, -1", 0, { 0x84, 0x01, 0xff }, 3, 3, 0, 0, 0x8401ff },
	{ "multianewarray", 0, { 0xc5, 0x00, 0x01, 0x02 }, 4, 4, 0, 0,
	  0xc5000102 },
	{ "goto +3", 0x1000, { 0xa7, 0x00, 0x03 }, 3, 3, BR, 0x1003,
	  0xa70003 },
	{ "goto -5", 0x1000, { 0xa7, 0xff, 0xfb }, 3, 3, BR, 0x0ffb,
	  0xa7fffb },
	{ "ifeq +16", 0x2000, { 0x99, 0x00, 0x10 }, 3, 3, BR | COND, 0x2010,
	  0x990010 },
	{ "if_acmpne -16", 0x2000, { 0xa6, 0xff, 0xf0 }, 3, 3, BR | COND,
	  0x1ff0, 0xa6fff0 },
	{ "if_icmplt", 0x2000, { 0xa1, 0x00, 0x06 }, 3, 3, BR | COND, 0x2006,
	  0xa10006 },
	{ "ifnull +8", 0x3000, { 0xc6, 0x00, 0x08 }, 3, 3, BR | COND, 0x3008,
	  0xc60008 },
	{ "ifnonnull -3", 0x3000, { 0xc7, 0xff, 0xfd }, 3, 3, BR | COND,
	  0x2ffd, 0xc7fffd },
	{ "goto_w +0x10000", 0x1000, { 0xc8, 0x00, 0x01, 0x00, 0x00 }, 5, 5,
	  BR, 0x11000, 0xc8000100 },
	{ "goto_w -2", 0x1000, { 0xc8, 0xff, 0xff, 0xff, 0xfe }, 5, 5, BR,
	  0x0ffe, 0xc8ffffff },
	{ "goto_w wraps", 0xfffffff0, { 0xc8, 0x00, 0x00, 0x00, 0x20 }, 5, 5,
	  BR, 0x10, 0xc8000000 },
	{ "jsr +5", 0x1000, { 0xa8, 0x00, 0x05 }, 3, 3, BR | CALL, 0x1005,
	  0xa80005 },
	{ "jsr_w +5", 0x1000, { 0xc9, 0x00, 0x00, 0x00, 0x05 }, 5, 5,
	  BR | CALL, 0x1005, 0xc9000000 },
	{ "ret 1", 0, { 0xa9, 0x01 }, 2, 2, BR | IND | RET, 0, 0xa901 },
	{ "ireturn", 0, { 0xac }, 1, 1, BR | IND | RET, 0, 0xac },
	{ "return", 0, { 0xb1 }, 1, 1, BR | IND | RET, 0, 0xb1 },
	{ "athrow", 0, { 0xbf }, 1, 1, BR | IND, 0, 0xbf },
	{ "invokevirtual", 0, { 0xb6, 0x00, 0x01 }, 3, 3, BR | IND | CALL, 0,
	  0xb60001 },
	{ "invokestatic", 0, { 0xb8, 0x00, 0x01 }, 3, 3, BR | IND | CALL, 0,
	  0xb80001 },
	{ "invokeinterface", 0, { 0xb9, 0x00, 0x01, 0x02, 0x00 }, 5, 5,
	  BR | IND | CALL, 0, 0xb9000102 },
	{ "iaload", 0, { 0x2e }, 1, 1, LD, 0, 0x2e },
	{ "saload", 0, { 0x35 }, 1, 1, LD, 0, 0x35 },
	{ "iastore", 0, { 0x4f }, 1, 1, ST, 0, 0x4f },
	{ "sastore", 0, { 0x56 }, 1, 1, ST, 0, 0x56 },
	{ "getstatic", 0, { 0xb2, 0x00, 0x01 }, 3, 3, LD, 0, 0xb20001 },
	{ "putstatic", 0, { 0xb3, 0x00, 0x01 }, 3, 3, ST, 0, 0xb30001 },
	{ "getfield", 0, { 0xb4, 0x00, 0x01 }, 3, 3, LD, 0, 0xb40001 },
	{ "putfield", 0, { 0xb5, 0x00, 0x01 }, 3, 3, ST, 0, 0xb50001 },
	{ "arraylength", 0, { 0xbe }, 1, 1, LD, 0, 0xbe },
	{ "wide iload", 0, { 0xc4, 0x15, 0x01, 0x00 }, 4, 4, 0, 0,
	  0xc4150100 },
	{ "wide astore", 0, { 0xc4, 0x3a, 0x01, 0x00 }, 4, 4, 0, 0,
	  0xc43a0100 },
	{ "wide iinc", 0, { 0xc4, 0x84, 0x00, 0x01, 0x00, 0x05 }, 6, 6, 0, 0,
	  0xc4840001 },
	{ "wide ret", 0, { 0xc4, 0xa9, 0x00, 0x01 }, 4, 4, BR | IND | RET, 0,
	  0xc4a90001 },
	{ "wide nop: not a bytecode", 0, { 0xc4, 0x00 }, 2, 1, UND, 0, 0xc4 },
	{ "0xba (invokedynamic later)", 0, { 0xba, 0, 0, 0, 0 }, 5, 1, UND, 0,
	  0xba },
	{ "breakpoint", 0, { 0xca }, 1, 1, UND, 0, 0xca },
	{ "0xcb", 0, { 0xcb }, 1, 1, UND, 0, 0xcb },
	{ "impdep2", 0, { 0xff }, 1, 1, UND, 0, 0xff },
};

static void test_jazelle(void **state)
{
	(void)state;
	check_j(jaz, N(jaz));
}

/* tableswitch at each alignment: the operands start at the next multiple
 * of 4 after the opcode (JVMS 6 "tableswitch"). */
static void test_jazelle_tableswitch(void **state)
{
	(void)state;
	for (uint32_t a = 0x100; a < 0x104; a++) {
		size_t pad = (a & 3) == 0 ? 3 : (a & 3) == 1 ? 2
					      : (a & 3) == 2 ? 1 : 0;
		uint8_t b[16] = { 0xaa };
		struct insn_info info;

		/* default 0x10, low 0, high 2: three offsets */
		b[1 + pad + 3] = 0x10;
		b[1 + pad + 11] = 2;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     1 + pad + 11),
				 -etmkit_err_truncated);
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     1 + pad + 12), 0);
		assert_int_equal(info.size, 1 + pad + 12 + 3 * 4);
		assert_int_equal(info.flags, BR | IND);
		assert_int_equal(info.opcode,
				 (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
				 (uint32_t)b[2] << 8 | b[3]);
		/* low -2, high 1: four offsets */
		memset(b + 1 + pad + 4, 0xff, 4);
		b[1 + pad + 7] = 0xfe;
		b[1 + pad + 11] = 1;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.size, 1 + pad + 12 + 4 * 4);
		/* low 0, high 100: 1 + pad + 12 + 404 bytes saturate */
		memset(b + 1 + pad + 4, 0, 4);
		b[1 + pad + 11] = 100;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.size, 255);
		/* high < low is malformed */
		b[1 + pad + 7] = 5;
		b[1 + pad + 11] = 4;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.flags, UND);
		assert_int_equal(info.size, 1);
	}
}

static void test_jazelle_lookupswitch(void **state)
{
	(void)state;
	for (uint32_t a = 0x200; a < 0x204; a++) {
		size_t pad = (4 - ((a + 1) & 3)) & 3;
		uint8_t b[16] = { 0xab };
		struct insn_info info;

		/* default, npairs 2 */
		b[1 + pad + 7] = 2;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     1 + pad + 7),
				 -etmkit_err_truncated);
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     1 + pad + 8), 0);
		assert_int_equal(info.size, 1 + pad + 8 + 2 * 8);
		assert_int_equal(info.flags, BR | IND);
		/* npairs 0 */
		b[1 + pad + 7] = 0;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.size, 1 + pad + 8);
		/* npairs 40: 1 + pad + 8 + 320 saturates */
		b[1 + pad + 7] = 40;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.size, 255);
		/* negative npairs is malformed */
		b[1 + pad + 4] = 0x80;
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, a, b,
					     sizeof(b)), 0);
		assert_int_equal(info.flags, UND);
	}
	/* padding by hand, one pair each: the operands start at 0x204 (at
	 * 0x200: three pad bytes, 0x201: two, 0x202: one, 0x203: none) */
	{
		const uint8_t b0[] = { 0xab, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1 };
		const uint8_t b1[] = { 0xab, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1 };
		const uint8_t b2[] = { 0xab, 0, 0, 0, 0, 9, 0, 0, 0, 1 };
		const uint8_t b3[] = { 0xab, 0, 0, 0, 9, 0, 0, 0, 1 };
		struct insn_info info;

		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0x200,
					     b0, sizeof(b0)), 0);
		assert_int_equal(info.size, 12 + 8);
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0x201,
					     b1, sizeof(b1)), 0);
		assert_int_equal(info.size, 11 + 8);
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0x202,
					     b2, sizeof(b2)), 0);
		assert_int_equal(info.size, 10 + 8);
		assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0x203,
					     b3, sizeof(b3)), 0);
		assert_int_equal(info.size, 9 + 8);
	}
}

static void test_jazelle_truncated(void **state)
{
	struct insn_info info;
	const uint8_t wide_iinc[] = { 0xc4, 0x84, 0x00, 0x01, 0x00, 0x05 };
	const uint8_t goto_w[] = { 0xc8, 0x00, 0x01, 0x00, 0x00 };
	const uint8_t gotox[] = { 0xa7, 0x00, 0x03 };

	(void)state;
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, wide_iinc,
				     1), -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, wide_iinc,
				     3), -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, wide_iinc,
				     4), 0);
	assert_int_equal(info.size, 6);
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, goto_w, 4),
			 -etmkit_err_truncated);
	assert_int_equal(insn_decode(&info, etmkit_isa_jazelle, 0, gotox, 2),
			 -etmkit_err_truncated);
}

static void test_jazelle_mnemonic(void **state)
{
	(void)state;
	assert_string_equal(insn_jazelle_mnemonic(0x00), "nop");
	assert_string_equal(insn_jazelle_mnemonic(0x2e), "iaload");
	assert_string_equal(insn_jazelle_mnemonic(0x84), "iinc");
	assert_string_equal(insn_jazelle_mnemonic(0xa7), "goto");
	assert_string_equal(insn_jazelle_mnemonic(0xaa), "tableswitch");
	assert_string_equal(insn_jazelle_mnemonic(0xb9), "invokeinterface");
	assert_string_equal(insn_jazelle_mnemonic(0xba), "reserved");
	assert_string_equal(insn_jazelle_mnemonic(0xbb), "new");
	assert_string_equal(insn_jazelle_mnemonic(0xc4), "wide");
	assert_string_equal(insn_jazelle_mnemonic(0xc9), "jsr_w");
	assert_string_equal(insn_jazelle_mnemonic(0xca), "breakpoint");
	assert_string_equal(insn_jazelle_mnemonic(0xcb), "reserved");
	assert_string_equal(insn_jazelle_mnemonic(0xfd), "reserved");
	assert_string_equal(insn_jazelle_mnemonic(0xfe), "impdep1");
	assert_string_equal(insn_jazelle_mnemonic(0xff), "impdep2");
	for (unsigned op = 0; op < 256; op++)
		assert_non_null(insn_jazelle_mnemonic((uint8_t)op));
}

/* insn_opcode_bytes() gives back the bytes insn_decode() read, from the
 * opcode it reported: A32, A64, 16- and 32-bit T32, ThumbEE, Jazelle. */
static void test_opcode_bytes(void **state)
{
	static const struct {
		enum etmkit_isa isa;
		uint8_t b[4];
		unsigned n;
	} c[] = {
		{ etmkit_isa_arm, { 0x02, 0x00, 0x00, 0xea }, 4 },    /* b */
		{ etmkit_isa_a64, { 0x04, 0x00, 0x00, 0x94 }, 4 },    /* bl */
		{ etmkit_isa_thumb, { 0x70, 0x47 }, 2 },              /* bx lr */
		{ etmkit_isa_thumb, { 0x00, 0xf0, 0x02, 0xf8 }, 4 },  /* bl */
		{ etmkit_isa_thumbee, { 0x00, 0xf0, 0x02, 0xb8 }, 4 },
		{ etmkit_isa_jazelle, { 0xa7, 0x00, 0x10 }, 3 },      /* goto */
		{ etmkit_isa_jazelle, { 0x04 }, 1 },                  /* iconst_1 */
	};
	uint8_t out[4];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct insn_info ii;

		assert_int_equal(insn_decode(&ii, c[i].isa, 0x1000, c[i].b,
					     c[i].n), 0);
		assert_int_equal(ii.size, c[i].n);
		memset(out, 0xee, sizeof(out));
		assert_int_equal(insn_opcode_bytes(c[i].isa, ii.opcode,
						   ii.size, out), c[i].n);
		assert_memory_equal(out, c[i].b, c[i].n);
	}
	/* sizes an instruction set cannot have, an unknown one */
	assert_int_equal(insn_opcode_bytes(etmkit_isa_a64, 0, 2, out), 0);
	assert_int_equal(insn_opcode_bytes(etmkit_isa_thumb, 0, 3, out), 0);
	assert_int_equal(insn_opcode_bytes(etmkit_isa_jazelle, 0, 0, out), 0);
	assert_int_equal(insn_opcode_bytes((enum etmkit_isa)99, 0, 4, out),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a32_branches),
		cmocka_unit_test(test_a32_other),
		cmocka_unit_test(test_t32_branches),
		cmocka_unit_test(test_t32_other),
		cmocka_unit_test(test_t32_lob),
		cmocka_unit_test(test_t32_it_mask),
		cmocka_unit_test(test_t32_truncated),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_thumbee),
		cmocka_unit_test(test_jazelle),
		cmocka_unit_test(test_jazelle_tableswitch),
		cmocka_unit_test(test_jazelle_lookupswitch),
		cmocka_unit_test(test_jazelle_truncated),
		cmocka_unit_test(test_jazelle_mnemonic),
		cmocka_unit_test(test_opcode_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
