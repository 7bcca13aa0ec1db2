/* Instruction names for encodings a disassembler may not know.
 *
 * insn_decode() classifies without naming. Listings disassemble with
 * capstone, whose version 4 stops at Armv8.2 and Armv8-M: it rejects
 * instructions the classifier decodes (BC.cond, the pointer
 * authentication branches, UDF, ...). This table names those, so that a
 * listing can say what the classifier took the instruction to be. It is a
 * list of (instruction set, mask, value, name), searched in order: the
 * first entry with (opcode & mask) == value wins, so exact encodings come
 * before the wider patterns that contain them. Names are lowercase
 * mnemonics, without operands; sources are cited per group and in
 * docs/insn.md. The search is linear: callers cache by address.
 */
#include <stddef.h>

#include "isa/insn_internal.h"

struct insn_name_entry {
	uint8_t isa;          /* enum etmkit_isa */
	uint32_t mask, value; /* insn_info.opcode layout */
	const char *name;
};

#define A64(m, v, n) { etmkit_isa_a64, (m), (v), (n) }
#define T32(m, v, n) { etmkit_isa_thumb, (m), (v), (n) }

/* BC.<cond> (FEAT_HBC), "Conditional branch (immediate)" with o0 = 1 */
#define BC(c, n) A64(0xff00001fu, 0x54000010u | (c), "bc." n)
/* CB<cc> (FEAT_CMPBR, register): sf 111010 0 cc Rm 00 imm9 Rt; CBB<cc>
 * bits [15:14] 10, CBH<cc> 11 (a64_cmpbr() in insn_a64.c) */
#define CB_REG(cc, n) \
	A64(0x7fe0c000u, 0x74000000u | (cc) << 21, "cb" n), \
	A64(0x7fe0c000u, 0x74008000u | (cc) << 21, "cbb" n), \
	A64(0x7fe0c000u, 0x7400c000u | (cc) << 21, "cbh" n)
/* CB<cc> (immediate): sf 111010 1 cc imm6 0 imm9 Rt */
#define CB_IMM(cc, n) A64(0x7fe04000u, 0x75000000u | (cc) << 21, "cb" n)
/* FEAT_PAuth (Armv8.3) data-processing (1 source) forms:
 * 1 1 0 11010110 00001 opcode(6) Rn Rd */
#define PAC1(op, n) A64(0xfffffc00u, 0xdac10000u | (op) << 10, n)
#define PAC1Z(op, n) A64(0xffffffe0u, 0xdac103e0u | (op) << 10, n)

static const struct insn_name_entry insn_names[] = {
	/* A64 "Reserved": UDF, permanently undefined (DDI 0487 C6.2) */
	A64(0xffff0000u, 0x00000000u, "udf"),
	BC(0x0, "eq"), BC(0x1, "ne"), BC(0x2, "hs"), BC(0x3, "lo"),
	BC(0x4, "mi"), BC(0x5, "pl"), BC(0x6, "vs"), BC(0x7, "vc"),
	BC(0x8, "hi"), BC(0x9, "ls"), BC(0xa, "ge"), BC(0xb, "lt"),
	BC(0xc, "gt"), BC(0xd, "le"), BC(0xe, "al"), BC(0xf, "nv"),
	/* FEAT_PAuth_LR RETAASPPC, RETABSPPC <label> */
	A64(0xffe0001fu, 0x5500001fu, "retaasppc"),
	A64(0xffe0001fu, 0x5520001fu, "retabsppc"),
	/* FEAT_PAuth "Unconditional branch (register)", op3 00001M */
	A64(0xfffffc1fu, 0xd61f081fu, "braaz"),
	A64(0xfffffc1fu, 0xd61f0c1fu, "brabz"),
	A64(0xfffffc1fu, 0xd63f081fu, "blraaz"),
	A64(0xfffffc1fu, 0xd63f0c1fu, "blrabz"),
	A64(0xffffffffu, 0xd65f0bffu, "retaa"),
	A64(0xffffffffu, 0xd65f0fffu, "retab"),
	/* FEAT_PAuth_LR register forms: Rm in [4:0] */
	A64(0xffffffe0u, 0xd65f0be0u, "retaasppcr"),
	A64(0xffffffe0u, 0xd65f0fe0u, "retabsppcr"),
	A64(0xffffffffu, 0xd69f0bffu, "eretaa"),
	A64(0xffffffffu, 0xd69f0fffu, "eretab"),
	/* FEAT_TEV TEXIT {NB}: opc 0111, op3 00000 NB */
	A64(0xfffffbffu, 0xd6ff03e0u, "texit"),
	A64(0xfffffc00u, 0xd71f0800u, "braa"),
	A64(0xfffffc00u, 0xd71f0c00u, "brab"),
	A64(0xfffffc00u, 0xd73f0800u, "blraa"),
	A64(0xfffffc00u, 0xd73f0c00u, "blrab"),
	/* LDRAA, LDRAB: 11111000 M S 1 imm9 W 1 Rn Rt */
	A64(0xffa00400u, 0xf8200400u, "ldraa"),
	A64(0xffa00400u, 0xf8a00400u, "ldrab"),
	/* Data-processing (1 source), FEAT_PAuth; Z forms have Rn 11111 */
	PAC1Z(0x08, "paciza"), PAC1Z(0x09, "pacizb"),
	PAC1Z(0x0a, "pacdza"), PAC1Z(0x0b, "pacdzb"),
	PAC1Z(0x0c, "autiza"), PAC1Z(0x0d, "autizb"),
	PAC1Z(0x0e, "autdza"), PAC1Z(0x0f, "autdzb"),
	PAC1Z(0x10, "xpaci"), PAC1Z(0x11, "xpacd"),
	PAC1(0x00, "pacia"), PAC1(0x01, "pacib"),
	PAC1(0x02, "pacda"), PAC1(0x03, "pacdb"),
	PAC1(0x04, "autia"), PAC1(0x05, "autib"),
	PAC1(0x06, "autda"), PAC1(0x07, "autdb"),
	A64(0xffe0fc00u, 0x9ac03000u, "pacga"),
	/* FEAT_TME */
	A64(0xffffffe0u, 0xd5233060u, "tstart"),
	A64(0xffffffe0u, 0xd5233160u, "ttest"),
	A64(0xffffffffu, 0xd503307fu, "tcommit"),
	A64(0xffe0001fu, 0xd4600000u, "tcancel"),
	/* FEAT_WFxT */
	A64(0xffffffe0u, 0xd5031000u, "wfet"),
	A64(0xffffffe0u, 0xd5031020u, "wfit"),
	/* FEAT_CMPBR (cc 000 GT, 001 GE/LT, 010 HI, 011 HS/LO, 110 EQ,
	 * 111 NE) */
	CB_REG(0, "gt"), CB_REG(1, "ge"), CB_REG(2, "hi"), CB_REG(3, "hs"),
	CB_REG(6, "eq"), CB_REG(7, "ne"),
	CB_IMM(0, "gt"), CB_IMM(1, "lt"), CB_IMM(2, "hi"), CB_IMM(3, "lo"),
	CB_IMM(6, "eq"), CB_IMM(7, "ne"),

	/* T32, Armv8.1-M Low Overhead Branch extension (DDI 0553; the
	 * encodings in insn_t32.c). Loop instructions (boff 0) first. */
	T32(0xfff0f001u, 0xf040c001u, "wls"),
	T32(0xffffffffu, 0xf00fe001u, "lctp"),
	T32(0xfffff001u, 0xf00fc001u, "le"),   /* LE LR */
	T32(0xfffff001u, 0xf01fc001u, "letp"),
	T32(0xfffff001u, 0xf02fc001u, "le"),   /* LE without LR */
	T32(0xfff0f001u, 0xf000c001u, "wlstp.8"),
	T32(0xfff0f001u, 0xf010c001u, "wlstp.16"),
	T32(0xfff0f001u, 0xf020c001u, "wlstp.32"),
	T32(0xfff0f001u, 0xf030c001u, "wlstp.64"),
	T32(0xfff0ffffu, 0xf040e001u, "dls"),
	T32(0xfff0ffffu, 0xf000e001u, "dlstp.8"),
	T32(0xfff0ffffu, 0xf010e001u, "dlstp.16"),
	T32(0xfff0ffffu, 0xf020e001u, "dlstp.32"),
	T32(0xfff0ffffu, 0xf030e001u, "dlstp.64"),
	T32(0xfff0ffffu, 0xf000e801u, "vctp.8"),
	T32(0xfff0ffffu, 0xf010e801u, "vctp.16"),
	T32(0xfff0ffffu, 0xf020e801u, "vctp.32"),
	T32(0xfff0ffffu, 0xf030e801u, "vctp.64"),
};

const char *insn_name(enum etmkit_isa isa, uint32_t opcode)
{
	/* ThumbEE shares T32's 32-bit encodings; the loop space is
	 * UNDEFINED there, which callers see in the class flags. */
	if (isa == etmkit_isa_thumbee)
		isa = etmkit_isa_thumb;
	for (size_t i = 0; i < sizeof(insn_names) / sizeof(insn_names[0]); i++) {
		const struct insn_name_entry *n = &insn_names[i];

		if (n->isa == isa && (opcode & n->mask) == n->value)
			return n->name;
	}
	return NULL;
}
