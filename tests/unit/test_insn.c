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
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/insn.h"

#define BR INSN_F_BRANCH
#define IND INSN_F_INDIRECT
#define CALL INSN_F_CALL
#define RET INSN_F_RETURN
#define ERET INSN_F_EXC_RETURN
#define COND INSN_F_COND
#define LD INSN_F_LOAD
#define ST INSN_F_STORE
#define CPRT INSN_F_CPRT
#define EXC INSN_F_EXCEPTION
#define UND INSN_F_UNDEFINED
#define UDF (INSN_F_EXCEPTION | INSN_F_UDF)
#define IT INSN_F_IT
#define ISB INSN_F_ISB
#define SW INSN_F_ISA_SWITCH
#define WFX INSN_F_WFX
#define TSTART INSN_F_TSTART

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

#define N(a) (sizeof(a) / sizeof((a)[0]))

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
	{ "DMB SY", ARM, 0, 0xf57ff05f, 4, 0, 0, 0, 14 },
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
	{ "DSB SY", THUMB, 0, 0xf3bf8f4f, 4, 0, 0, 0, 14 },
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

/* ---- A64 (DDI 0487) ------------------------------------------------------ */

/* One expected A64 classification: size 4; target checked for direct
 * branches (target_isa A64). */
struct tc64 {
	const char *what;
	uint64_t addr;
	uint32_t w;
	uint32_t flags;
	uint64_t target;
	int cond;
};

static void check64(const struct tc64 *t, size_t n)
{
	for (size_t i = 0; i < n; i++, t++) {
		struct insn_info info;
		uint8_t b[4] = { (uint8_t)t->w, (uint8_t)(t->w >> 8),
				 (uint8_t)(t->w >> 16), (uint8_t)(t->w >> 24) };
		int rc = insn_decode(&info, etmkit_isa_a64, t->addr, b, 4);

		if (rc)
			fail_msg("%s: rc %d", t->what, rc);
		if (info.size != 4 || info.isa != etmkit_isa_a64 ||
		    info.opcode != t->w)
			fail_msg("%s: size %u isa %u opcode %#x", t->what,
				 info.size, info.isa, info.opcode);
		if (info.flags != t->flags)
			fail_msg("%s: flags %#x, want %#x", t->what,
				 info.flags, t->flags);
		if (info.cond != t->cond)
			fail_msg("%s: cond %u, want %d", t->what, info.cond,
				 t->cond);
		if ((t->flags & BR) && !(t->flags & IND) &&
		    (info.target != t->target ||
		     info.target_isa != etmkit_isa_a64))
			fail_msg("%s: target %#llx isa %u, want %#llx",
				 t->what, (unsigned long long)info.target,
				 info.target_isa,
				 (unsigned long long)t->target);
	}
}

static const struct tc64 a64_direct[] = {
	/* B, BL: op 00101 imm26, PC + imm26:'00' (C6.2 B, BL) */
	{ "B +0 (to self)", 0x1000, 0x14000000, BR, 0x1000, 14 },
	{ "B -4", 0x1000, 0x17ffffff, BR, 0xffc, 14 },
	{ "BL +4", 0x1000, 0x94000001, BR | CALL, 0x1004, 14 },
	{ "B max forward", 0x1000, 0x15ffffff, BR, 0x8000ffc, 14 },
	{ "B max backward", 0x8001000, 0x16000000, BR, 0x1000, 14 },
	{ "B -8 wraps below 0", 0, 0x17fffffe, BR, 0xfffffffffffffff8ull,
	  14 },
	{ "BL +8 wraps above 2^64", 0xfffffffffffffffcull, 0x94000002,
	  BR | CALL, 0x4, 14 },
	{ "B in the upper half", 0xffffffc000081000ull, 0x14000010, BR,
	  0xffffffc000081040ull, 14 },
	/* B.cond: 0101 0100 imm19 0 cond; BC.cond (FEAT_HBC) o0 = 1 */
	{ "B.EQ +8", 0x1000, 0x54000040, BR | COND, 0x1008, 0 },
	{ "B.NE -4", 0x2000, 0x54ffffe1, BR | COND, 0x1ffc, 1 },
	{ "B.LE max backward", 0x100000, 0x5480000d, BR | COND, 0, 13 },
	{ "B.AL +4: always", 0x1000, 0x5400002e, BR, 0x1004, 14 },
	{ "B.NV +4: always (ConditionHolds)", 0x1000, 0x5400002f, BR,
	  0x1004, 14 },
	{ "BC.EQ +8", 0x1000, 0x54000050, BR | COND, 0x1008, 0 },
	{ "BC.GT -8", 0x1000, 0x54ffffdc, BR | COND, 0xff8, 12 },
	/* CBZ/CBNZ: sf 011010 op imm19 Rt; TBZ/TBNZ: b5 011011 op b40
	 * imm14 Rt */
	{ "CBZ X0, +8", 0x1000, 0xb4000040, BR | COND, 0x1008, 14 },
	{ "CBNZ W1, -8", 0x1000, 0x35ffffc1, BR | COND, 0xff8, 14 },
	{ "TBZ W0, #1, +8", 0x1000, 0x36080040, BR | COND, 0x1008, 14 },
	{ "TBNZ X3, #63, -4", 0x1000, 0xb7ffffe3, BR | COND, 0xffc, 14 },
	{ "TBZ max backward", 0x10000, 0x36040000, BR | COND, 0x8000, 14 },
	/* FEAT_CMPBR: sf 1110100 cc Rm H imm9 Rt (register, CBB H=10,
	 * CBH H=11), sf 1110101 cc imm6 0 imm9 Rt (immediate) */
	{ "CBGT W5, W5, -1024", 0x10000, 0x74052005, BR | COND, 0xfc00,
	  14 },
	{ "CBNE X1, #5, +8", 0x1000, 0xf5e28041, BR | COND, 0x1008, 14 },
	{ "CBBHS W1, W2, -4", 0x1000, 0x7462bfe1, BR | COND, 0xffc, 14 },
	{ "CBHEQ W0, W3, +1020", 0x1000, 0x74c3dfe0, BR | COND, 0x13fc,
	  14 },
};

static const struct tc64 a64_indirect[] = {
	/* Unconditional branch (register): 1101011 opc 11111 op3 Rn op4 */
	{ "BR X16", 0, 0xd61f0200, BR | IND, 0, 14 },
	{ "BLR X1", 0, 0xd63f0020, BR | IND | CALL, 0, 14 },
	{ "RET", 0, 0xd65f03c0, BR | IND | RET, 0, 14 },
	{ "RET X1", 0, 0xd65f0020, BR | IND | RET, 0, 14 },
	{ "ERET", 0, 0xd69f03e0, BR | IND | ERET, 0, 14 },
	{ "DRPS", 0, 0xd6bf03e0, BR | IND, 0, 14 },
	/* FEAT_PAuth: op3 00001M */
	{ "BRAAZ X3", 0, 0xd61f087f, BR | IND, 0, 14 },
	{ "BRABZ X3", 0, 0xd61f0c7f, BR | IND, 0, 14 },
	{ "BLRAAZ X0", 0, 0xd63f081f, BR | IND | CALL, 0, 14 },
	{ "BLRABZ X2", 0, 0xd63f0c5f, BR | IND | CALL, 0, 14 },
	{ "BRAA X1, X2", 0, 0xd71f0822, BR | IND, 0, 14 },
	{ "BRAB X1, SP", 0, 0xd71f0c3f, BR | IND, 0, 14 },
	{ "BLRAA X1, X2", 0, 0xd73f0822, BR | IND | CALL, 0, 14 },
	{ "BLRAB X1, X2", 0, 0xd73f0c22, BR | IND | CALL, 0, 14 },
	{ "RETAA", 0, 0xd65f0bff, BR | IND | RET, 0, 14 },
	{ "RETAB", 0, 0xd65f0fff, BR | IND | RET, 0, 14 },
	{ "ERETAA", 0, 0xd69f0bff, BR | IND | ERET, 0, 14 },
	{ "ERETAB", 0, 0xd69f0fff, BR | IND | ERET, 0, 14 },
	/* FEAT_PAuth_LR: RETAASPPC X2 (RET with op3 000010, Rn 11111, op4
	 * Xm); RETAASPPC <label>: 0101 0101 000 imm16 11111 */
	{ "RETAASPPC X2", 0, 0xd65f0be2, BR | IND | RET, 0, 14 },
	{ "RETABSPPC X2", 0, 0xd65f0fe2, BR | IND | RET, 0, 14 },
	{ "RETAASPPC <label>", 0x1000, 0x5500009f, BR | IND | RET, 0, 14 },
	{ "RETABSPPC <label>", 0x1000, 0x5520009f, BR | IND | RET, 0, 14 },
};

static const struct tc64 a64_system[] = {
	/* Barriers: 1101 0101 0000 0011 0011 CRm op2 11111 */
	{ "ISB", 0, 0xd5033fdf, ISB, 0, 14 },
	{ "ISB #0", 0, 0xd50330df, ISB, 0, 14 },
	{ "DSB SY", 0, 0xd5033f9f, 0, 0, 14 },
	{ "DMB ISH", 0, 0xd5033bbf, 0, 0, 14 },
	{ "CLREX", 0, 0xd5033f5f, 0, 0, 14 },
	{ "SB", 0, 0xd50330ff, 0, 0, 14 },
	{ "DSB SYnXS", 0, 0xd5033e3f, 0, 0, 14 },
	/* Hints: 1101 0101 0000 0011 0010 CRm op2 11111 */
	{ "NOP", 0, 0xd503201f, 0, 0, 14 },
	{ "YIELD", 0, 0xd503203f, 0, 0, 14 },
	{ "WFE", 0, 0xd503205f, WFX, 0, 14 },
	{ "WFI", 0, 0xd503207f, WFX, 0, 14 },
	{ "SEV", 0, 0xd503209f, 0, 0, 14 },
	{ "PACIASP", 0, 0xd503233f, 0, 0, 14 },
	{ "BTI c", 0, 0xd503245f, 0, 0, 14 },
	{ "hint #127 (unassigned: NOP)", 0, 0xd5032fff, 0, 0, 14 },
	/* FEAT_WFxT: 1101 0101 0000 0011 0001 0000 00x Rd */
	{ "WFET X0", 0, 0xd5031000, WFX, 0, 14 },
	{ "WFIT X1", 0, 0xd5031021, WFX, 0, 14 },
	/* FEAT_TME: TSTART 1101 0101 0010 0011 0011 0000 011 Rt; TTEST
	 * CRm 0001; TCOMMIT a barrier; TCANCEL 1101 0100 011 imm16 00000 */
	{ "TSTART X0", 0, 0xd5233060, TSTART, 0, 14 },
	{ "TSTART X5", 0, 0xd5233065, TSTART, 0, 14 },
	{ "TTEST X0", 0, 0xd5233160, 0, 0, 14 },
	{ "TCOMMIT", 0, 0xd503307f, 0, 0, 14 },
	{ "TCANCEL #1", 0, 0xd4600020, 0, 0, 14 },
	/* Exception generation: 1101 0100 opc imm16 000 LL */
	{ "SVC #0", 0, 0xd4000001, EXC, 0, 14 },
	{ "SVC #0x1234", 0, 0xd4024681, EXC, 0, 14 },
	{ "HVC #0", 0, 0xd4000002, EXC, 0, 14 },
	{ "SMC #0", 0, 0xd4000003, EXC, 0, 14 },
	{ "BRK #0", 0, 0xd4200000, EXC, 0, 14 },
	{ "HLT #0", 0, 0xd4400000, EXC, 0, 14 },
	{ "DCPS1 (Debug state only)", 0, 0xd4a00001, 0, 0, 14 },
	{ "UDF #0", 0, 0x00000000, UDF, 0, 14 },
	{ "UDF #0xffff", 0, 0x0000ffff, UDF, 0, 14 },
	/* System register and SYS space: no flag */
	{ "MRS X0, DAIF", 0, 0xd53b4220, 0, 0, 14 },
	{ "MSR DAIFSet, #2", 0, 0xd50342df, 0, 0, 14 },
	{ "DC ZVA, X0", 0, 0xd50b7420, 0, 0, 14 },
	{ "SYSP #0, C0, C0, #0, X0, X1", 0, 0xd5480000, 0, 0, 14 },
};

static const struct tc64 a64_memory[] = {
	{ "LDR X0, [X1]", 0, 0xf9400020, LD, 0, 14 },
	{ "STR X0, [X1]", 0, 0xf9000020, ST, 0, 14 },
	{ "LDRSW X0, [X1]", 0, 0xb9800020, LD, 0, 14 },
	{ "STR Q0, [X1]", 0, 0x3d800020, ST, 0, 14 },
	{ "LDR Q0, [X1]", 0, 0x3dc00020, LD, 0, 14 },
	{ "PRFM PLDL1KEEP, [X1]", 0, 0xf9800020, 0, 0, 14 },
	{ "LDR X0, [X1, X2]", 0, 0xf8626820, LD, 0, 14 },
	{ "STRB W0, [X1], #1", 0, 0x38001420, ST, 0, 14 },
	{ "LDP X0, X1, [SP]", 0, 0xa94007e0, LD, 0, 14 },
	{ "STP X29, X30, [SP, #-16]!", 0, 0xa9bf7bfd, ST, 0, 14 },
	{ "LDR X0, <literal>", 0, 0x58000040, LD, 0, 14 },
	{ "PRFM <literal>", 0, 0xd8000040, 0, 0, 14 },
	{ "LDXR X0, [X1]", 0, 0xc85f7c20, LD, 0, 14 },
	{ "STXR W0, X0, [X1]", 0, 0xc8007c20, ST, 0, 14 },
	{ "LDAR X0, [X1]", 0, 0xc8dffc20, LD, 0, 14 },
	{ "STLR X0, [X1]", 0, 0xc89ffc20, ST, 0, 14 },
	{ "CAS X0, X0, [X1]", 0, 0xc8a07c20, LD | ST, 0, 14 },
	{ "LDADD X0, X0, [X1]", 0, 0xf8200020, LD | ST, 0, 14 },
	{ "LDAPR X0, [X1]", 0, 0xf8bfc020, LD, 0, 14 },
	{ "LDRAA X0, [X1]", 0, 0xf8200420, LD, 0, 14 },
	{ "LD1 {V0.16B}, [X0]", 0, 0x4c407000, LD, 0, 14 },
	{ "ST1 {V0.16B}, [X0]", 0, 0x4c007000, ST, 0, 14 },
	{ "ADD X0, X1, X2: none", 0, 0x8b020020, 0, 0, 14 },
};

static const struct tc64 a64_undefined[] = {
	{ "reserved, not UDF", 0, 0x00010000, UND, 0, 14 },
	{ "top-level 0001", 0, 0x02000000, UND, 0, 14 },
	{ "top-level 0011", 0, 0x06000000, UND, 0, 14 },
	{ "BR with op4 00001", 0, 0xd61f0021, UND, 0, 14 },
	{ "branch (register) opc 0011", 0, 0xd67f03e0, UND, 0, 14 },
	{ "branch (register) op2 11110", 0, 0xd61e0020, UND, 0, 14 },
	{ "branch (register) op3 000001", 0, 0xd61f0420, UND, 0, 14 },
	{ "ERET with Rn 0", 0, 0xd69f0000, UND, 0, 14 },
	{ "RET op3 000010 with Rn 0", 0, 0xd65f0800, UND, 0, 14 },
	{ "exception opc 000 LL 00", 0, 0xd4000000, UND, 0, 14 },
	{ "SVC with op2 001", 0, 0xd4000005, UND, 0, 14 },
	{ "exception opc 111", 0, 0xd4e00000, UND, 0, 14 },
	{ "0101 011x", 0, 0x56000000, UND, 0, 14 },
	{ "misc branch opc 010", 0, 0x5540001f, UND, 0, 14 },
	{ "system bit 23", 0, 0xd5800000, UND, 0, 14 },
	{ "hint with Rt 0", 0, 0xd5032000, UND, 0, 14 },
	{ "barrier op2 000", 0, 0xd503301f, UND, 0, 14 },
	{ "TCOMMIT with CRm 1", 0, 0xd503317f, UND, 0, 14 },
	{ "op0 00 CRn 0000", 0, 0xd503001f, UND, 0, 14 },
	{ "op0 00, L 1, not TSTART/TTEST", 0, 0xd5200000, UND, 0, 14 },
	{ "CB<cc> cc 100", 0, 0x74800040, UND, 0, 14 },
	{ "CBH with sf 1", 0, 0xf462ffe1, UND, 0, 14 },
	{ "CB<cc> register H 01", 0, 0x74024040, UND, 0, 14 },
	{ "CB<cc> immediate bit 14", 0, 0xf5e2c041, UND, 0, 14 },
};

static void test_a64_direct(void **state)
{
	(void)state;
	check64(a64_direct, N(a64_direct));
}

static void test_a64_indirect(void **state)
{
	(void)state;
	check64(a64_indirect, N(a64_indirect));
}

static void test_a64_system(void **state)
{
	(void)state;
	check64(a64_system, N(a64_system));
}

static void test_a64_memory(void **state)
{
	(void)state;
	check64(a64_memory, N(a64_memory));
}

static void test_a64_undefined(void **state)
{
	(void)state;
	check64(a64_undefined, N(a64_undefined));
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

/* insn_name(): encodings worked out from the manuals (the table's
 * sources), cross-checked with llvm-mc 14 (-mattr=+v8.7a,+hbc,+pauth,+tme,
 * +wfxt; thumbv8.1m.main +lob,+mve) where it knows them. */
static void test_insn_name(void **state)
{
	static const struct {
		int isa;
		uint32_t w;
		const char *name; /* NULL: not in the table */
	} t[] = {
		{ etmkit_isa_a64, 0x00000000, "udf" },
		{ etmkit_isa_a64, 0x0000ffff, "udf" },
		{ etmkit_isa_a64, 0x00010000, NULL },       /* reserved */
		{ etmkit_isa_a64, 0x54000070, "bc.eq" },    /* bc.eq #12 */
		{ etmkit_isa_a64, 0x54ffffff, "bc.nv" },
		{ etmkit_isa_a64, 0x5400006b, NULL },       /* b.lt: capstone's */
		{ etmkit_isa_a64, 0xd73f0aea, "blraa" },    /* blraa x23, x10 */
		{ etmkit_isa_a64, 0xd73f0eea, "blrab" },
		{ etmkit_isa_a64, 0xd63f081f, "blraaz" },   /* blraaz x0 */
		{ etmkit_isa_a64, 0xd61f0c3f, "brabz" },    /* brabz x1 */
		{ etmkit_isa_a64, 0xd71f0862, "braa" },     /* braa x3, x2 */
		{ etmkit_isa_a64, 0xd65f0bff, "retaa" },
		{ etmkit_isa_a64, 0xd65f0fff, "retab" },
		{ etmkit_isa_a64, 0xd65f0be2, "retaasppc" },/* retaasppc x2 */
		{ etmkit_isa_a64, 0x5500005f, "retaasppc" },/* <label> */
		{ etmkit_isa_a64, 0xd69f0fff, "eretab" },
		{ etmkit_isa_a64, 0xd65f03c0, NULL },       /* ret */
		{ etmkit_isa_a64, 0xf82006fc, "ldraa" },    /* ldraa x28, [x23] */
		{ etmkit_isa_a64, 0xf8a00efc, "ldrab" },    /* ldrab x28, [x23]! */
		{ etmkit_isa_a64, 0xdac123e0, "paciza" },   /* paciza x0 */
		{ etmkit_isa_a64, 0xdac10020, "pacia" },    /* pacia x0, x1 */
		{ etmkit_isa_a64, 0xdac11420, "autib" },
		{ etmkit_isa_a64, 0xdac147e1, "xpacd" },    /* xpacd x1 */
		{ etmkit_isa_a64, 0x9ac23020, "pacga" },    /* pacga x0, x1, x2 */
		{ etmkit_isa_a64, 0xd5233061, "tstart" },   /* tstart x1 */
		{ etmkit_isa_a64, 0xd503307f, "tcommit" },
		{ etmkit_isa_a64, 0xd4600020, "tcancel" },  /* tcancel #1 */
		{ etmkit_isa_a64, 0xd5031003, "wfet" },     /* wfet x3 */
		{ etmkit_isa_a64, 0xd5031023, "wfit" },
		{ etmkit_isa_a64, 0x74052005, "cbgt" },     /* cbgt w5, w5, #-1024 */
		{ etmkit_isa_a64, 0xf5cfa005, "cbeq" },     /* cbeq x5, #31, ... */
		{ etmkit_isa_a64, 0x7405a005, "cbbgt" },
		{ etmkit_isa_a64, 0x7425e005, "cbhge" },
		{ etmkit_isa_a64, 0x75200005, "cblt" },     /* immediate */
		{ etmkit_isa_a64, 0xd503201f, NULL },       /* nop */
		/* Armv8.1-M (llvm-mc -mattr=+lob,+mve -show-encoding) */
		{ etmkit_isa_thumb, 0xf040c803, "wls" },    /* wls lr, r0, #6 */
		{ etmkit_isa_thumb, 0xf044c003, "wls" },
		{ etmkit_isa_thumb, 0xf001c803, "wlstp.8" },
		{ etmkit_isa_thumb, 0xf021c803, "wlstp.32" },
		{ etmkit_isa_thumb, 0xf00fc00b, "le" },     /* le lr, #-20 */
		{ etmkit_isa_thumb, 0xf01fc00b, "letp" },
		{ etmkit_isa_thumb, 0xf02fc00b, "le" },     /* le #-20 */
		{ etmkit_isa_thumb, 0xf043e001, "dls" },    /* dls lr, r3 */
		{ etmkit_isa_thumb, 0xf013e001, "dlstp.16" },
		{ etmkit_isa_thumb, 0xf00fe001, "lctp" },
		{ etmkit_isa_thumb, 0xf023e801, "vctp.32" },
		{ etmkit_isa_thumbee, 0xf044c003, "wls" },  /* as T32 */
		{ etmkit_isa_thumb, 0xf7f0a000, NULL },     /* udf.w: capstone's */
		{ etmkit_isa_arm, 0x00000000, NULL },       /* andeq */
		{ etmkit_isa_jazelle, 0x00000000, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *n = insn_name((enum etmkit_isa)t[i].isa, t[i].w);

		if (!t[i].name && n)
			fail_msg("%08x: %s, want none", t[i].w, n);
		if (t[i].name && (!n || strcmp(n, t[i].name)))
			fail_msg("%08x: %s, want %s", t[i].w, n ? n : "none",
				 t[i].name);
	}
	/* Every named A64 and T32 encoding is one the classifier decodes
	 * (not UNDEFINED): the name never contradicts the classification. */
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct insn_info info;
		uint8_t b[4];
		uint32_t w = t[i].w;

		if (!t[i].name || t[i].isa == etmkit_isa_thumbee)
			continue;
		if (t[i].isa == etmkit_isa_thumb) {
			b[0] = (uint8_t)(w >> 16);
			b[1] = (uint8_t)(w >> 24);
			b[2] = (uint8_t)w;
			b[3] = (uint8_t)(w >> 8);
		} else {
			b[0] = (uint8_t)w;
			b[1] = (uint8_t)(w >> 8);
			b[2] = (uint8_t)(w >> 16);
			b[3] = (uint8_t)(w >> 24);
		}
		assert_int_equal(insn_decode(&info, (enum etmkit_isa)t[i].isa,
					     0x1000, b, 4), 0);
		if (info.flags & INSN_F_UNDEFINED)
			fail_msg("%08x (%s): classified UNDEFINED", w,
				 t[i].name);
	}
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
		cmocka_unit_test(test_a64_direct),
		cmocka_unit_test(test_a64_indirect),
		cmocka_unit_test(test_a64_system),
		cmocka_unit_test(test_a64_memory),
		cmocka_unit_test(test_a64_undefined),
		cmocka_unit_test(test_thumbee),
		cmocka_unit_test(test_jazelle),
		cmocka_unit_test(test_jazelle_tableswitch),
		cmocka_unit_test(test_jazelle_lookupswitch),
		cmocka_unit_test(test_jazelle_truncated),
		cmocka_unit_test(test_jazelle_mnemonic),
		cmocka_unit_test(test_insn_name),
		cmocka_unit_test(test_opcode_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
