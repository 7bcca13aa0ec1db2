/* A64 instruction classifier tests, and insn_name().
 *
 * As in test_insn.c: every encoding below was assembled by hand from
 * the encoding diagrams of Arm DDI 0487 (C4.1 encoding tables, C6.2 A64
 * instruction pages) and every expected target computed by hand from
 * the pseudocode (PC = the instruction's address). Nothing here was
 * copied from the classifier's output.
 */
#include "test_insn.h"

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
	/* every cc of each FEAT_CMPBR form (cc 000 GT, 001 GE/LT, 010 HI,
	 * 011 HS/LO, 110 EQ, 111 NE), forward and back */
	{ "CBGE X2, X2, -1024", 0x10000, 0xf4222002, BR | COND, 0xfc00, 14 },
	{ "CBHI X5, X5, +1020", 0x1000, 0xf4451fe5, BR | COND, 0x13fc, 14 },
	{ "CBHS W5, W5, +1020", 0x1000, 0x74651fe5, BR | COND, 0x13fc, 14 },
	{ "CBEQ X5, X5, +1020", 0x1000, 0xf4c51fe5, BR | COND, 0x13fc, 14 },
	{ "CBNE W5, W5, -1024", 0x10000, 0x74e52005, BR | COND, 0xfc00, 14 },
	{ "CBBGT W5, W5, -1024", 0x10000, 0x7405a005, BR | COND, 0xfc00,
	  14 },
	{ "CBBNE W5, W5, -1024", 0x10000, 0x74e5a005, BR | COND, 0xfc00,
	  14 },
	{ "CBHGE W5, W5, -1024", 0x10000, 0x7425e005, BR | COND, 0xfc00,
	  14 },
	{ "CBHHI W5, W5, -1024", 0x10000, 0x7445e005, BR | COND, 0xfc00,
	  14 },
	{ "CBGT W5, #63, +1020", 0x1000, 0x751f9fe5, BR | COND, 0x13fc, 14 },
	{ "CBLT X5, #0, -1024", 0x10000, 0xf5202005, BR | COND, 0xfc00, 14 },
	{ "CBHI X5, #63, -1024", 0x10000, 0xf55fa005, BR | COND, 0xfc00,
	  14 },
	{ "CBLO W5, #31, +1020", 0x1000, 0x756f9fe5, BR | COND, 0x13fc, 14 },
	{ "CBEQ X5, #31, -1024", 0x10000, 0xf5cfa005, BR | COND, 0xfc00,
	  14 },
	{ "CBNE W5, #31, +1020", 0x1000, 0x75ef9fe5, BR | COND, 0x13fc, 14 },
	{ "CBEQ wraps below 0", 0, 0xf5cfa005, BR | COND,
	  0xfffffffffffffc00ull, 14 },
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
	/* FEAT_PAuth_LR: RETAASPPCR X2 (RET with op3 000010, Rn 11111, op4
	 * Xm); RETAASPPC <label>: 0101 0101 000 imm16 11111 */
	{ "RETAASPPCR X2", 0, 0xd65f0be2, BR | IND | RET, 0, 14 },
	{ "RETABSPPCR X2", 0, 0xd65f0fe2, BR | IND | RET, 0, 14 },
	{ "RETAASPPCR X30", 0, 0xd65f0bfe, BR | IND | RET, 0, 14 },
	{ "RETABSPPC <label> -4", 0x1000, 0x553fffff, BR | IND | RET, 0, 14 },
	/* FEAT_TEV TEXIT {NB}: 1101011 0111 11111 00000 NB 11111 00000; it
	 * returns as ERET does (ELR, SPSR), so it is an exception return */
	{ "TEXIT", 0, 0xd6ff03e0, BR | IND | ERET, 0, 14 },
	{ "TEXIT NB", 0, 0xd6ff07e0, BR | IND | ERET, 0, 14 },
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
	{ "TEXIT with Rn 0", 0, 0xd6ff0000, UND, 0, 14 },
	{ "TEXIT with op4 00001", 0, 0xd6ff03e1, UND, 0, 14 },
	{ "TEXIT with op3 000010", 0, 0xd6ff0be0, UND, 0, 14 },
	{ "ERETAA with op4 0", 0, 0xd69f0be0, UND, 0, 14 },
	{ "DRPS with op3 000010", 0, 0xd6bf0bff, UND, 0, 14 },
	{ "branch (register) opc 0110", 0, 0xd6df03e0, UND, 0, 14 },
	{ "BRAA with op3 000000", 0, 0xd71f0020, UND, 0, 14 },
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
		{ etmkit_isa_a64, 0xd65f0be2, "retaasppcr" },/* retaasppcr x2 */
		{ etmkit_isa_a64, 0xd65f0fe2, "retabsppcr" },
		{ etmkit_isa_a64, 0xd6ff03e0, "texit" },    /* FEAT_TEV */
		{ etmkit_isa_a64, 0xd6ff07e0, "texit" },    /* texit nb */
		{ etmkit_isa_a64, 0xd6ff0000, NULL },       /* Rn 0 */
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
		cmocka_unit_test(test_a64_direct),
		cmocka_unit_test(test_a64_indirect),
		cmocka_unit_test(test_a64_system),
		cmocka_unit_test(test_a64_memory),
		cmocka_unit_test(test_a64_undefined),
		cmocka_unit_test(test_insn_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
