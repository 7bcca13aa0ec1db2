/* etmkit: instruction classification.
 *
 * Layer: isa (src/isa/), used by the flow layer's walk through the image.
 *
 * Flow reconstruction (layer 3 of the trace model, seed 002 D4.3.1) walks
 * the program image: for every instruction the trace says was executed it
 * must know the instruction's size, whether it can change the flow, and
 * where a direct branch goes. insn_decode() answers that for one
 * instruction of A32, T32, ThumbEE, Jazelle or A64 from its bytes. It does
 * not disassemble (no text): it classifies, exactly and fast, and keeps no
 * state (an IT block's conditions belong to the walker).
 *
 * Instruction memory is little-endian (ARMv7 LE and BE-8 images, AArch64
 * code, which is always little-endian; the legacy BE-32 byte order is not
 * read).
 */
#ifndef ETMKIT_INSN_H
#define ETMKIT_INSN_H

#include "etmkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Flags ---------------------------------------------------------------
 * An instruction "branches" when, executed with its condition passed, it
 * may write the PC. Direct branches (target in the opcode): A32 B, BL,
 * BLX (immediate); T32 B, B<c>, BL, BLX (immediate), CBZ, CBNZ, and the
 * ARMv8.1-M loop branches WLS, WLSTP, LE, LETP; Jazelle
 * goto, goto_w, if<cond>, jsr, jsr_w; A64 B, BL, B.<cond>, BC.<cond>, CBZ,
 * CBNZ, TBZ, TBNZ and the FEAT_CMPBR CB<cc>, CBB<cc>, CBH<cc>. Every other
 * PC write is indirect.
 */
#define INSN_F_BRANCH     (1u << 0)  /* may write the PC */
#define INSN_F_INDIRECT   (1u << 1)  /* with BRANCH: target not in the opcode */
#define INSN_F_CALL       (1u << 2)  /* branch that writes a return address
				        (BL, BLX, HBL, HBLP, jsr; A64 BL,
					BLR, BLRAA, BLRAAZ, BLRAB, BLRABZ) */
#define INSN_F_RETURN     (1u << 3)  /* function return: BX LR, MOV PC,LR,
					POP/LDM SP! with PC, LDR PC,[SP],#4;
					A64 RET, RETAA, RETAB, RETAASPPC,
					RETABSPPC and their register forms
					RETAASPPCR, RETABSPPCR */
#define INSN_F_EXC_RETURN (1u << 4)  /* exception return: SUBS PC,LR,#imm and
					the other S-form PC writes, LDM with
					PC and ^, RFE, ERET; A64 ERET,
					ERETAA, ERETAB, and TEXIT (FEAT_TEV:
					returns from ELR and SPSR as ERET
					does) */
#define INSN_F_COND       (1u << 5)  /* carries a condition other than
					"always" in its encoding (A32 cond,
					T32 B<c>, CBZ/CBNZ, WLS(TP), LE(TP)
					with LR, Jazelle if*; A64
					B.<cond> and BC.<cond> other than AL
					and NV, CBZ, CBNZ, TBZ, TBNZ, CB<cc>);
					the IT state of T32 is the walker's */
#define INSN_F_LOAD       (1u << 6)  /* reads data memory */
#define INSN_F_STORE      (1u << 7)  /* writes data memory */
#define INSN_F_CPRT       (1u << 8)  /* coprocessor register transfer (MRC,
					MCR, MRRC, MCRR, VMOV/VMRS/VMSR
					between core and extension registers):
					traced as data by ETMv3 */
#define INSN_F_EXCEPTION  (1u << 9)  /* generates an exception: SVC, SMC,
					HVC, BKPT, UDF; A64 SVC, HVC, SMC,
					BRK, HLT, UDF */
#define INSN_F_UNDEFINED  (1u << 10) /* not an instruction of the ISA */
#define INSN_F_IT         (1u << 11) /* T32 IT: cond = firstcond, it_mask */
#define INSN_F_ISB        (1u << 12) /* instruction synchronization barrier */
#define INSN_F_ISA_SWITCH (1u << 13) /* changes the instruction set without
					branching: execution continues at the
					next address in target_isa (ENTERX,
					LEAVEX) */
#define INSN_F_WFX        (1u << 14) /* wait for interrupt or event: WFI,
					WFE (A32 and its conditional forms,
					T32 16-bit and .W), A64 WFI, WFE,
					WFIT, WFET (FEAT_WFxT). ETMv4 and ETE
					trace them as P0 instructions when
					TRCIDR2.WFXMODE is 1 */
#define INSN_F_TSTART     (1u << 15) /* A64 TSTART (FEAT_TME): a P0
					instruction in ETE. TCOMMIT, TCANCEL
					and TTEST carry no flag */
#define INSN_F_UDF        (1u << 16) /* permanently undefined (UDF: A32,
					T32 16- and 32-bit, A64 0x0000xxxx),
					with EXCEPTION: executing it always
					takes the Undefined Instruction
					exception, so it never completes */
#define INSN_F_BARRIER    (1u << 17) /* A32 and T32 DMB, DSB (not the CP15
					forms): waypoints of a PTM whose
					ETMCCER[24] is set (IHI 0035B
					3.16.29) */

/* What insn_decode() reports about one instruction. */
struct insn_info {
	uint64_t target;    /* direct branch: the target address (A64: 64-bit,
			       modulo 2^64; others: modulo 2^32) */
	uint32_t opcode;    /* A32, A64: the word; T32/ThumbEE: the halfword,
			       or first halfword << 16 | second; Jazelle: the
			       first min(size, 4) bytes, first byte highest */
	uint32_t flags;     /* INSN_F_* */
	uint8_t size;       /* bytes: 4 (A32, A64), 2 or 4 (T32), 1..
			       (Jazelle, up to 255; see insn_decode for
			       larger) */
	uint8_t isa;        /* enum etmkit_isa of the instruction */
	uint8_t target_isa; /* direct branch or ISA_SWITCH: the ISA after it */
	uint8_t cond;       /* condition code 0-14 (14 = always); IT: firstcond */
	uint8_t it_mask;    /* IT: the mask field (bits [3:0]) */
};

/* Bytes insn_decode() may need: enough for any instruction's
 * classification (a Jazelle tableswitch header with its padding). */
#define INSN_MAX_BYTES 16

/* Classify the instruction at @addr of instruction set @isa whose bytes
 * (little-endian memory order) start at @bytes, @avail of them readable.
 * Fills *@info and returns 0; or returns -etmkit_err_truncated when @avail
 * is too short to classify it (A32 or A64 with fewer than 4 bytes; a
 * 32-bit T32 instruction with 2 bytes; Jazelle: a wide or switch bytecode
 * whose operands are cut) and -etmkit_err_invalid for NULL arguments or an
 * @isa other than etmkit_isa_arm, _thumb, _thumbee, _jazelle, _a64. An
 * undefined encoding is not an error: it is classified with
 * INSN_F_UNDEFINED and its size. A32, T32, ThumbEE and Jazelle addresses
 * are 32-bit (the upper half of @addr is ignored); A64 addresses are
 * 64-bit.
 * Jazelle tableswitch and lookupswitch report INSN_F_BRANCH|INDIRECT and
 * their length in @info->size, saturated at 255 when longer (their jump
 * tables can be; the target always comes from the trace). */
int insn_decode(struct insn_info *info, enum etmkit_isa isa, uint64_t addr,
		const uint8_t *bytes, size_t avail);

/* The memory bytes of an instruction of @isa, @size bytes, from its
 * insn_info.opcode @opcode: the inverse of that layout (A32, A64 and a
 * 16-bit T32 instruction little-endian; a 32-bit T32 one's first halfword
 * first; Jazelle's first min(@size, 4) bytes, first highest). Writes them
 * to @out and returns how many (what insn_decode() needs to classify it
 * again, except for a Jazelle instruction longer than 4 bytes), or 0 for
 * a size the instruction set cannot have or an unknown @isa. */
size_t insn_opcode_bytes(enum etmkit_isa isa, uint32_t opcode, unsigned size,
			 uint8_t out[4]);

/* The name the classifier gives the instruction @opcode (insn_info.opcode
 * layout) of instruction set @isa, for the encodings of docs/insn.md's
 * name table: the ones capstone 4 does not disassemble (A64 UDF, BC.cond,
 * pointer authentication, TME, WFET/WFIT, FEAT_CMPBR, FEAT_TEV's TEXIT;
 * the Armv8.1-M low-overhead loop instructions). A lowercase mnemonic
 * without operands ("bc.eq", "retaa", "wls"), a static string; NULL for
 * any other opcode or instruction set. It does not check that the encoding is allocated: use
 * it for an instruction insn_decode() did not classify INSN_F_UNDEFINED. */
const char *insn_name(enum etmkit_isa isa, uint32_t opcode);

/* The Java bytecode mnemonic of Jazelle opcode @op ("iload_0", ...), or
 * "reserved" for an unassigned value. Never NULL. */
const char *insn_jazelle_mnemonic(uint8_t op);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_INSN_H */
