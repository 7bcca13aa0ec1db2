/* Cross-check of the instruction classifier against capstone.
 *
 * Over every 16-bit T32 halfword, millions of random A32 words, 32-bit
 * T32 instructions and A64 words (fixed-seed PRNG), the TC2 Linux kernel
 * image (A32/T32) and every A64 memory dump of the ETMv4 and ETE
 * snapshots, it compares, wherever capstone decodes an instruction: size;
 * whether it may write the PC; the target of a direct branch; call;
 * condition; memory access and its direction; exception generation; ISB;
 * WFI/WFE; for A64 also return and exception return; and that we do not
 * call UNDEFINED what capstone decodes.
 *
 * Capstone 4 (LLVM's ARM tables) is not the architecture: it decodes some
 * ARMv8 and UNPREDICTABLE encodings, its operand access data has gaps, and
 * its A64 tables stop at ARMv8.2 (no pointer authentication, LSE, TME,
 * WFxT, HBC, CMPBR...). Every category of disagreement is an explicit
 * exception below, with the manual section (DDI 0406C for A32/T32, DDI
 * 0487 for A64) that shows our side, matched by a precise predicate and
 * counted. A disagreement no exception explains fails the test and is
 * printed.
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "insn_vs_capstone.h"

/* What is compared (one bit each). */
enum {
	D_SIZE = 1 << 0,
	D_PCW = 1 << 1,    /* writes the PC */
	D_TARGET = 1 << 2, /* direct branch: directness or target */
	D_CALL = 1 << 3,
	D_COND = 1 << 4,
	D_LOAD = 1 << 5,
	D_STORE = 1 << 6,
	D_EXC = 1 << 7,    /* capstone's INT group vs INSN_F_EXCEPTION (A64:
			      also SVC, HVC, SMC, BRK, HLT, both ways) */
	D_UNDEF = 1 << 8,  /* we say UNDEFINED, capstone decodes */
	D_RET = 1 << 9,    /* A64: RETURN vs RET group, EXC_RETURN vs ERET */
	D_ISB = 1 << 10,
	D_WFX = 1 << 11,   /* INSN_F_WFX vs capstone's WFI, WFE */
	D_NKINDS = 12
};

static const char *const kind_name[D_NKINDS] = {
	"size", "pc-write", "direct-target", "call", "cond", "load",
	"store", "exception", "undefined", "return", "isb", "wfx",
};

/* Capstone's view of one instruction. */
struct cs_view {
	bool ok;
	unsigned size;
	bool pcw, direct, call, cond, load, store, intr;
	bool ret, eret, isb, wfx;
	uint64_t target;
	char mnem[32];
	char ops[160];
	unsigned id;
};

/* One comparison. */
struct cmp {
	enum etmkit_isa isa;
	uint64_t addr;
	uint32_t opcode;
	struct insn_info ours;
	struct cs_view cs;
	unsigned diff;
};

static bool has_group(const cs_detail *d, uint8_t g)
{
	for (unsigned i = 0; i < d->groups_count; i++)
		if (d->groups[i] == g)
			return true;
	return false;
}

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Memory direction from capstone's mnemonic: its operand access data is
 * unreliable (STRD reports its memory operand as neither read nor
 * written, VSTR as read), the mnemonics are not. */
static void cs_memory(struct cs_view *v, const cs_insn *in)
{
	const char *m = in->mnemonic;

	if (prefix(m, "pld") || prefix(m, "pli"))
		return;
	if (prefix(m, "swp")) {
		v->load = v->store = true;
		return;
	}
	if (prefix(m, "ld") || prefix(m, "vld") || prefix(m, "fld") || prefix(m, "pop") ||
	    prefix(m, "vpop") || prefix(m, "tbb") || prefix(m, "tbh") ||
	    prefix(m, "rfe"))
		v->load = true;
	if (prefix(m, "st") || prefix(m, "vst") || prefix(m, "fst") || prefix(m, "push") ||
	    prefix(m, "vpush") || prefix(m, "srs"))
		v->store = true;
}

static void cs_view_of(struct cs_view *v, csh h, const uint8_t *b,
		       size_t n, uint32_t addr)
{
	cs_insn *in;
	size_t c = cs_disasm(h, b, n, addr, 1, &in);
	const cs_detail *d;
	const cs_arm *a;

	memset(v, 0, sizeof(*v));
	if (!c)
		return;
	d = in->detail;
	a = &d->arm;
	v->ok = true;
	v->size = in->size;
	v->id = in->id;
	snprintf(v->mnem, sizeof(v->mnem), "%s", cs_insn_name(h, in->id));
	snprintf(v->ops, sizeof(v->ops), "%s", in->op_str);
	for (unsigned i = 0; i < d->regs_write_count; i++)
		if (d->regs_write[i] == ARM_REG_PC)
			v->pcw = true;
	for (unsigned i = 0; i < a->op_count; i++) {
		const cs_arm_op *op = &a->operands[i];

		if (op->type == ARM_OP_REG && op->reg == ARM_REG_PC &&
		    (op->access & CS_AC_WRITE))
			v->pcw = true;
		if (op->type == ARM_OP_IMM && has_group(d, ARM_GRP_BRANCH_RELATIVE))
			v->target = (uint32_t)op->imm;
	}
	if (has_group(d, ARM_GRP_JUMP) || has_group(d, ARM_GRP_CALL) ||
	    has_group(d, CS_GRP_RET) || has_group(d, CS_GRP_IRET))
		v->pcw = true;
	v->direct = has_group(d, ARM_GRP_BRANCH_RELATIVE);
	v->call = has_group(d, ARM_GRP_CALL);
	v->intr = has_group(d, ARM_GRP_INT);
	v->cond = a->cc != ARM_CC_AL && a->cc != ARM_CC_INVALID;
	v->isb = in->id == ARM_INS_ISB;
	v->wfx = in->id == ARM_INS_WFE || in->id == ARM_INS_WFI;
	cs_memory(v, in);
	cs_free(in, c);
}

/* A64 memory direction from the mnemonic, as for AArch32: LD*, ST*, the
 * read-modify-write atomics (CAS, SWP, LD<op>, ST<op>) both, PRFM none. */
static void cs_memory_a64(struct cs_view *v, const cs_insn *in)
{
	static const char *const rmw[] = {
		"cas", "swp", "ldadd", "ldclr", "ldeor", "ldset", "ldsmax",
		"ldsmin", "ldumax", "ldumin", "stadd", "stclr", "steor",
		"stset", "stsmax", "stsmin", "stumax", "stumin",
	};
	const char *m = in->mnemonic;

	if (prefix(m, "prfm") || prefix(m, "prfum"))
		return;
	for (size_t i = 0; i < sizeof(rmw) / sizeof(rmw[0]); i++)
		if (prefix(m, rmw[i])) {
			v->load = v->store = true;
			return;
		}
	v->load = prefix(m, "ld");
	v->store = prefix(m, "st");
}

static bool writes_reg(const cs_detail *d, uint16_t reg)
{
	for (unsigned i = 0; i < d->regs_write_count; i++)
		if (d->regs_write[i] == reg)
			return true;
	return false;
}

/* Capstone 4's AArch64 back end: branches are in the JUMP group (BL and
 * BLR too, with X30 written), RET in RET; only SVC is in INT, so the
 * exception-generating instructions are also taken by id. */
static void cs_view_a64(struct cs_view *v, csh h, const uint8_t *b,
			uint64_t addr)
{
	cs_insn *in;
	size_t c = cs_disasm(h, b, 4, addr, 1, &in);
	const cs_detail *d;
	const cs_arm64 *a;
	unsigned id;

	memset(v, 0, sizeof(*v));
	if (!c)
		return;
	d = in->detail;
	a = &d->arm64;
	id = in->id;
	v->ok = true;
	v->size = in->size;
	v->id = id;
	snprintf(v->mnem, sizeof(v->mnem), "%s", cs_insn_name(h, id));
	snprintf(v->ops, sizeof(v->ops), "%s", in->op_str);
	for (unsigned i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_IMM)
			v->target = (uint64_t)a->operands[i].imm;
	v->ret = has_group(d, ARM64_GRP_RET);
	v->pcw = v->ret || has_group(d, ARM64_GRP_JUMP) ||
		 has_group(d, ARM64_GRP_CALL);
	v->direct = has_group(d, ARM64_GRP_BRANCH_RELATIVE);
	v->call = v->pcw && writes_reg(d, ARM64_REG_X30);
	v->eret = id == ARM64_INS_ERET;
	v->intr = has_group(d, ARM64_GRP_INT) || id == ARM64_INS_SVC ||
		  id == ARM64_INS_HVC || id == ARM64_INS_SMC ||
		  id == ARM64_INS_BRK || id == ARM64_INS_HLT;
	v->cond = a->cc != ARM64_CC_AL && a->cc != ARM64_CC_INVALID;
	v->isb = id == ARM64_INS_ISB;
	v->wfx = id == ARM64_INS_WFE || id == ARM64_INS_WFI;
	cs_memory_a64(v, in);
	cs_free(in, c);
}

/* ---- Comparison --------------------------------------------------------- */

static unsigned compare(const struct cmp *c)
{
	const struct insn_info *o = &c->ours;
	const struct cs_view *v = &c->cs;
	unsigned diff = 0;
	bool br = o->flags & INSN_F_BRANCH;
	bool direct = br && !(o->flags & INSN_F_INDIRECT);

	if (o->flags & INSN_F_UNDEFINED)
		return D_UNDEF;
	if (o->size != v->size)
		return D_SIZE;
	if (br != v->pcw)
		diff |= D_PCW;
	if (direct != v->direct || (direct && o->target != v->target))
		diff |= D_TARGET;
	if (!!(o->flags & INSN_F_CALL) != v->call)
		diff |= D_CALL;
	if (!!(o->flags & INSN_F_COND) != v->cond)
		diff |= D_COND;
	if (!!(o->flags & INSN_F_LOAD) != v->load)
		diff |= D_LOAD;
	if (!!(o->flags & INSN_F_STORE) != v->store)
		diff |= D_STORE;
	if (!!(o->flags & INSN_F_ISB) != v->isb)
		diff |= D_ISB;
	if (!!(o->flags & INSN_F_WFX) != v->wfx)
		diff |= D_WFX;
	if (c->isa != etmkit_isa_a64) {
		/* capstone's AArch32 back end has no return group */
		if (v->intr && !(o->flags & INSN_F_EXCEPTION))
			diff |= D_EXC;
		return diff;
	}
	if (!!(o->flags & INSN_F_EXCEPTION) != v->intr)
		diff |= D_EXC;
	if (!!(o->flags & INSN_F_RETURN) != v->ret ||
	    !!(o->flags & INSN_F_EXC_RETURN) != v->eret)
		diff |= D_RET;
	return diff;
}

/* ---- Exceptions ----------------------------------------------------------
 * Each explains one kind of disagreement for one precisely described set
 * of encodings, and says why our classification is the architecture's.
 * Predicates look at the encoding itself (A32 word, or T32 hw1:hw2, or
 * the 16-bit halfword), never at our flags alone.
 */

static uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (uint32_t)((2ull << (hi - lo)) - 1u);
}

static bool a32(const struct cmp *c)
{
	return c->isa == etmkit_isa_arm;
}

static bool t32w(const struct cmp *c)
{
	return c->isa != etmkit_isa_arm && c->ours.size == 4;
}

static bool t16(const struct cmp *c)
{
	return c->isa != etmkit_isa_arm && c->ours.size == 2;
}

/* The base register Rn is the PC and the encoding writes it back. */
static bool wback_pc(const struct cmp *c)
{
	uint32_t w = c->opcode, hw1 = w >> 16;
	bool pw = !bits(w, 24, 24) || bits(w, 21, 21); /* P == 0 || W == 1 */

	if (a32(c)) {
		if (w >> 28 == 15 && bits(w, 27, 24) == 4) /* Adv. SIMD */
			return !bits(w, 20, 20) && bits(w, 19, 16) == 15 &&
			       bits(w, 3, 0) != 15;
		if (w >> 28 == 15) /* LDC2/STC2 */
			return bits(w, 27, 25) == 6 && bits(w, 21, 21) &&
			       bits(w, 19, 16) == 15;
		if (bits(w, 19, 16) != 15)
			return false;
		if (bits(w, 27, 26) == 1 && !(bits(w, 25, 25) && bits(w, 4, 4)))
			return pw; /* LDR/STR word and byte */
		if (bits(w, 27, 25) == 0 && bits(w, 7, 7) && bits(w, 4, 4) &&
		    bits(w, 6, 5))
			return pw; /* extra load/store */
		if (bits(w, 27, 25) == 4 || bits(w, 27, 25) == 6)
			return bits(w, 21, 21); /* LDM/STM, LDC/STC, VLDM */
		return false;
	}
	if (!t32w(c))
		return false;
	if ((hw1 & 0xff10) == 0xf900) /* Advanced SIMD element/structure */
		return bits(w, 19, 16) == 15 && bits(w, 3, 0) != 15;
	if (bits(w, 19, 16) != 15 || !bits(w, 21, 21))
		return false;
	return (hw1 & 0xfe00) == 0xe800 || /* LDM/STM, LDRD/STRD */
	       (hw1 & 0xee00) == 0xec00;   /* LDC/STC, VLDM/VSTM */
}

static bool mrrc_pc(const struct cmp *c)
{
	uint32_t w = c->opcode;

	if (!(a32(c) ? (w & 0x0ff00000) == 0x0c500000
		     : t32w(c) && (w >> 16 & 0xeff0) == 0xec50))
		return false;
	return bits(w, 15, 12) == 15 || bits(w, 19, 16) == 15;
}

static bool rfe(const struct cmp *c)
{
	uint32_t hw1 = c->opcode >> 16;

	if (a32(c))
		return (c->opcode & 0xfe500000) == 0xf8100000;
	return t32w(c) && ((hw1 & 0xffd0) == 0xe810 ||
			   (hw1 & 0xffd0) == 0xe990);
}

static bool cp10_11_unconditional(const struct cmp *c)
{
	uint32_t w = c->opcode;

	return (a32(c) || t32w(c)) && w >> 28 == 15 &&
	       (bits(w, 27, 25) == 6 || bits(w, 27, 24) == 14) &&
	       (bits(w, 11, 8) & 0xe) == 0xa;
}

static bool armv8_fp(const struct cmp *c)
{
	static const char *const v8[] = {
		"vsel", "vmaxnm", "vminnm", "vrint", "vcvta", "vcvtn",
		"vcvtp", "vcvtm",
	};

	for (size_t i = 0; i < sizeof(v8) / sizeof(v8[0]); i++)
		if (prefix(c->cs.mnem, v8[i]))
			return true;
	return false;
}

static bool hvc_cond(const struct cmp *c)
{
	return a32(c) && (c->opcode & 0x0ff000f0) == 0x01400070 &&
	       c->opcode >> 28 < 14;
}

static bool cbz(const struct cmp *c)
{
	return t16(c) && (c->opcode & 0xf500) == 0xb100;
}

static bool it(const struct cmp *c)
{
	return t16(c) && (c->opcode & 0xff00) == 0xbf00 &&
	       (c->opcode & 0xf);
}

static bool t32_store_unpriv_pc(const struct cmp *c)
{
	uint32_t w = c->opcode;

	return t32w(c) && (w >> 16 & 0xff90) == 0xf800 &&
	       bits(w, 11, 8) == 0xe && bits(w, 15, 12) == 15;
}

/* MRS and MSR (banked register), B9.3.9-10: A32 cccc 0001 0R00 (MRS) or
 * 0R10 (MSR) .... .... ..1. 0000 ...., T32 1111 0011 111R (MRS) or
 * 100R (MSR) .... 10.0 .... ..1. .... */
static bool banked(const struct cmp *c)
{
	uint32_t w = c->opcode, hw1 = w >> 16;

	if (a32(c))
		return (w & 0x0f9002f0) == 0x01000200;
	return t32w(c) && ((hw1 & 0xffe0) == 0xf3e0 ||
			   (hw1 & 0xffe0) == 0xf380) &&
	       (w & 0xd020) == 0x8020;
}

/* ---- A64 (DDI 0487) ---- */

static bool a64(const struct cmp *c)
{
	return c->isa == etmkit_isa_a64;
}

/* ERET (1101 0110 1001 1111 0000 0011 1110 0000) and DRPS (1101 0110 1011
 * ...): C6.2 ERET branches to ELR_ELx, DRPS leaves Debug state; capstone
 * puts neither in a branch group. */
static bool a64_eret_drps(const struct cmp *c)
{
	return a64(c) && (c->opcode == 0xd69f03e0u || c->opcode == 0xd6bf03e0u);
}

/* BLR: 1101 0110 0011 1111 0000 00 Rn 00000 */
static bool a64_blr(const struct cmp *c)
{
	return a64(c) && (c->opcode & 0xfffffc1fu) == 0xd63f0000u;
}

/* B.NV: 0101 0100 imm19 0 1111 */
static bool a64_b_nv(const struct cmp *c)
{
	return a64(c) && (c->opcode & 0xff00001fu) == 0x5400000fu;
}

/* CBZ, CBNZ (x011 010x) and TBZ, TBNZ (x011 011x) */
static bool a64_cbz_tbz(const struct cmp *c)
{
	return a64(c) && (c->opcode & 0x7c000000u) == 0x34000000u;
}

/* Conditional compare (register, immediate): x x 1 11010010; conditional
 * select: x x x 11010100; floating-point conditional compare and select:
 * x 0 x 11110 type 1 ... with bits [11:10] 01 or 11. */
static bool a64_cond_operand(const struct cmp *c)
{
	uint32_t w = c->opcode;

	return a64(c) && ((w & 0x3fe00000u) == 0x3a400000u ||
			  (w & 0x1fe00000u) == 0x1a800000u ||
			  (w & 0x1f200400u) == 0x1e200400u);
}

/* 1101 0101 00 L 00 ...: op0 (bits [20:19]) 00 of the system space */
static bool a64_sys_op0(const struct cmp *c)
{
	return a64(c) && (c->opcode & 0xffd80000u) == 0xd5000000u;
}

/* WFET, WFIT: 1101 0101 0000 0011 0001 0000 00x Rt */
static bool a64_wfxt(const struct cmp *c)
{
	return a64(c) && (c->opcode & 0xffffffc0u) == 0xd5031000u;
}

struct exception {
	const char *name;
	const char *why;
	unsigned kinds;
	bool (*match)(const struct cmp *c);
	unsigned long count;
};

static struct exception exceptions[] = {
	{ "writeback of a PC base",
	  "A8.8.63 LDR (imm) 'wback && n == 15' etc.: UNPREDICTABLE, the "
	  "encoding writes the PC; capstone does not report the base as "
	  "written", D_PCW, wback_pc, 0 },
	{ "MRRC to the PC",
	  "A8.8.109: Rt/Rt2 == 15 UNPREDICTABLE, the encoding writes it; "
	  "capstone marks neither as written", D_PCW, mrrc_pc, 0 },
	{ "RFE",
	  "B9.3.13: RFE loads the PC and CPSR; capstone omits the PC write",
	  D_PCW, rfe, 0 },
	{ "CP10/CP11 unconditional (LDC2, STC2, MCR2, ...)",
	  "A8.8.57 etc., encodings T2/A2: 'if coproc IN \"101x\" then "
	  "UNDEFINED'; capstone decodes them", D_UNDEF,
	  cp10_11_unconditional, 0 },
	{ "ARMv8 floating-point (VSEL, VMAXNM, VRINT, VCVTA...)",
	  "ARMv8 additions; unallocated in ARMv7 (A7.5 Table A7-17, A5.7 "
	  "cond 1111 on CP10/11)", D_UNDEF, armv8_fp, 0 },
	{ "HVC with a condition",
	  "B9.3.4 HVC A1: cond != 1110 UNPREDICTABLE; the encoding's cond "
	  "is not AL, capstone reports AL", D_COND, hvc_cond, 0 },
	{ "CBZ/CBNZ condition",
	  "A8.8.29: branches on a register test; insn.h classes it COND, "
	  "capstone has no condition code for it", D_COND, cbz, 0 },
	{ "IT firstcond",
	  "A8.8.54: IT is not conditional; firstcond is info->cond, "
	  "capstone reports it as the condition code", D_COND, it, 0 },
	{ "T32 STRT/STRBT/STRHT of the PC",
	  "A8.8.214 STRBT T1 't IN {13,15}' UNPREDICTABLE: a store of the "
	  "PC, not a write; capstone marks Rt written", D_PCW,
	  t32_store_unpriv_pc, 0 },
	{ "MRS/MSR (banked register) condition",
	  "B9.3.9-10: the A32 cond field is AL (T32 has none); capstone "
	  "reports another condition code", D_COND, banked, 0 },
	{ "A64 ERET, DRPS",
	  "DDI 0487 C6.2 ERET (branch to ELR_ELx), DRPS (leaves Debug "
	  "state): PC writes; capstone 4 puts them in no branch group",
	  D_PCW, a64_eret_drps, 0 },
	{ "A64 BLR branch-relative",
	  "DDI 0487 C6.2 BLR: the target is Xn; capstone 4 puts BLR in its "
	  "BRANCH_RELATIVE group with no target operand", D_TARGET, a64_blr,
	  0 },
	{ "A64 B.NV",
	  "DDI 0487 ConditionHolds(): cond 111x is always true, NV is not "
	  "a condition; capstone reports cc NV", D_COND, a64_b_nv, 0 },
	{ "A64 condition operands (CSEL, CCMP, FCSEL, FCCMP, ...)",
	  "DDI 0487 C6.2 CSEL, CCMP etc.: the condition selects a result "
	  "or the flags, the instruction always executes; insn.h COND is "
	  "for A64 conditional branches only", D_COND, a64_cond_operand, 0 },
	{ "A64 CBZ/CBNZ/TBZ/TBNZ condition",
	  "DDI 0487 C6.2 CBZ, TBZ: branch on a register test; insn.h "
	  "classes them COND, capstone has no condition code for them",
	  D_COND, a64_cbz_tbz, 0 },
	{ "A64 system op0 00 as MSR/MRS",
	  "DDI 0487 C4.1 'System register move' needs op0 (bits [20:19]) "
	  "1x; op0 00 outside hints, barriers, PSTATE and the FEAT_TME/"
	  "FEAT_WFxT encodings is unallocated; capstone 4 decodes it as "
	  "MSR/MRS S3_<op1>_...", D_UNDEF, a64_sys_op0, 0 },
	{ "A64 WFET/WFIT (FEAT_WFxT) as MSR",
	  "DDI 0487 C4.1 'System instructions with register argument': "
	  "WFET, WFIT (Armv8.7) wait; capstone 4 decodes them as MSR",
	  D_WFX, a64_wfxt, 0 },
};

#define NEXC (sizeof(exceptions) / sizeof(exceptions[0]))

/* ---- Runs ---------------------------------------------------------------- */

#define MAX_SHOW 40

struct stats {
	const char *name;
	unsigned long compared, agreed, explained, unexplained;
	unsigned long cs_rejects, both_undefined;
	unsigned long exc[NEXC];
	bool a64;
};

static unsigned long shown;

static void show(const struct stats *s, const struct cmp *c, unsigned kind)
{
	if (shown++ >= MAX_SHOW)
		return;
	printf("  UNEXPLAINED %s %s: %s %0*x at %#" PRIx64 ": ours flags %#x "
	       "size %u target %#" PRIx64 "; capstone '%s %s' pcw %d direct "
	       "%d target %#" PRIx64 " call %d cond %d load %d store %d int "
	       "%d ret %d eret %d isb %d wfx %d\n",
	       s->name, kind_name[__builtin_ctz(kind)],
	       etmkit_isa_name(c->isa), c->ours.size * 2, c->opcode, c->addr,
	       c->ours.flags, c->ours.size, c->ours.target, c->cs.mnem,
	       c->cs.ops, c->cs.pcw, c->cs.direct, c->cs.target, c->cs.call,
	       c->cs.cond, c->cs.load, c->cs.store, c->cs.intr, c->cs.ret,
	       c->cs.eret, c->cs.isb, c->cs.wfx);
}

/* Classify the instruction at @b both ways and compare. Returns our size
 * (0 when we cannot decode it, which is itself a failure). */
unsigned one(struct stats *s, csh h, enum etmkit_isa isa,
	     const uint8_t *b, size_t n, uint64_t addr)
{
	struct cmp c;
	bool bad = false, exc_used[NEXC] = { false };

	memset(&c, 0, sizeof(c));
	c.isa = isa;
	c.addr = addr;
	if (insn_decode(&c.ours, isa, addr, b, n)) {
		printf("  FAIL %s: insn_decode failed at %#" PRIx64 "\n",
		       s->name, addr);
		s->unexplained++;
		return 0;
	}
	c.opcode = c.ours.opcode;
	if (isa == etmkit_isa_a64)
		cs_view_a64(&c.cs, h, b, addr);
	else
		cs_view_of(&c.cs, h, b, c.ours.size, (uint32_t)addr);
	if (!c.cs.ok) {
		if (c.ours.flags & INSN_F_UNDEFINED)
			s->both_undefined++;
		else
			s->cs_rejects++;
		return c.ours.size;
	}
	s->compared++;
	c.diff = compare(&c);
	if (!c.diff) {
		s->agreed++;
		return c.ours.size;
	}
	for (unsigned k = 1; k < (1u << D_NKINDS); k <<= 1) {
		size_t e;

		if (!(c.diff & k))
			continue;
		for (e = 0; e < NEXC; e++)
			if ((exceptions[e].kinds & k) && exceptions[e].match(&c))
				break;
		if (e == NEXC) {
			show(s, &c, k);
			bad = true;
		} else {
			exc_used[e] = true;
		}
	}
	if (bad) {
		s->unexplained++;
		return c.ours.size;
	}
	s->explained++;
	for (size_t e = 0; e < NEXC; e++)
		if (exc_used[e]) {
			s->exc[e]++;
			exceptions[e].count++;
		}
	return c.ours.size;
}

static void report(const struct stats *s)
{
	printf("%-22s compared %9lu  agreed %9lu  explained %7lu  "
	       "unexplained %lu\n", s->name, s->compared, s->agreed,
	       s->explained, s->unexplained);
	printf("%-22s (not compared: capstone rejects %lu, %s; both call it "
	       "undefined %lu)\n", "", s->cs_rejects,
	       s->a64 ? "A64 extensions after ARMv8.2, SVE, CONSTRAINED "
			"UNPREDICTABLE forms"
		      : "mostly UNPREDICTABLE should-be bits, A5.1.1/A6.1.1",
	       s->both_undefined);
	for (size_t e = 0; e < NEXC; e++)
		if (s->exc[e])
			printf("%-22s   %7lu  %s\n", "", s->exc[e],
			       exceptions[e].name);
}

void store_le(uint8_t *b, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* xorshift64*, fixed seed: the same samples on every run. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static void run_a32_random(struct stats *s, csh h, unsigned long n)
{
	uint8_t b[4];

	for (unsigned long i = 0; i < n; i++) {
		uint32_t addr = rng() & ~3u;

		store_le(b, rng(), 4);
		one(s, h, etmkit_isa_arm, b, 4, addr);
	}
}

static void run_t16_all(struct stats *s, csh h)
{
	uint8_t b[2];

	for (uint32_t hw = 0; hw < 0x10000; hw++) {
		if ((hw >> 11) >= 0x1d)
			continue;
		store_le(b, hw, 2);
		one(s, h, etmkit_isa_thumb, b, 2, rng() & ~1u);
	}
}

static void run_t32_random(struct stats *s, csh h, unsigned long n)
{
	uint8_t b[4];

	for (unsigned long i = 0; i < n; i++) {
		uint32_t hw1 = (rng() & 0x07ff) | (0x1d + rng() % 3) << 11;
		uint32_t hw2 = rng() & 0xffff;

		store_le(b, hw1, 2);
		store_le(b + 2, hw2, 2);
		one(s, h, etmkit_isa_thumb, b, 4, rng() & ~1u);
	}
}

/* The kernel image: a linear sweep as T32 (it is a Thumb-2 kernel after
 * its first two A32 instructions) and every word as A32. */
#define KERNEL_BASE 0xc0008000u

static int run_kernel(struct stats *st, struct stats *sa, csh ht, csh ha)
{
	const char *path = ETMKIT_SHARED_DIR "/testdata/etmv3/TC2/kernel_dump.bin";
	FILE *f = fopen(path, "rb");
	static uint8_t img[1 << 20];
	size_t len, off;

	if (!f)
		return -1;
	len = fread(img, 1, sizeof(img), f);
	fclose(f);
	for (off = 0; off + 4 <= len; off += 4)
		one(sa, ha, etmkit_isa_arm, img + off, 4, KERNEL_BASE + off);
	for (off = 8; off + 2 <= len;) {
		unsigned n = one(st, ht, etmkit_isa_thumb, img + off,
				 len - off, KERNEL_BASE + (uint32_t)off);

		if (!n)
			break;
		off += n;
	}
	return 0;
}


int main(int argc, char **argv)
{
	static struct stats a32r = { .name = "A32 random" };
	static struct stats t16a = { .name = "T32 16-bit (all)" };
	static struct stats t32r = { .name = "T32 32-bit random" };
	static struct stats kt = { .name = "kernel T32 sweep" };
	static struct stats ka = { .name = "kernel A32 words" };
	static struct stats a64r = { .name = "A64 random", .a64 = true };
	static struct stats a64b = { .name = "A64 branch/system",
				     .a64 = true };
	static struct stats a64i = { .name = "A64 snapshot dumps",
				     .a64 = true };
	static struct stats a64f = { .name = "A64 atom-ending forms",
				     .a64 = true };
	static struct a64_images images;
	/* optional: sample count and seed (defaults fixed, for ctest) */
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 3000000;
	unsigned long bad, total = 0;
	const char *ci = getenv("CI");
	csh ha, ht, h64;
	int have_kernel;

	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &ha) != CS_ERR_OK ||
	    cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &ht) != CS_ERR_OK ||
	    cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h64) != CS_ERR_OK) {
		printf("insn_vs_capstone: cannot open capstone\n");
		return 1;
	}
	if (argc > 2)
		rng_state = strtoull(argv[2], NULL, 0) | 1;
	cs_option(ha, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(ht, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(h64, CS_OPT_DETAIL, CS_OPT_ON);
	run_a32_random(&a32r, ha, n);
	run_t16_all(&t16a, ht);
	run_t32_random(&t32r, ht, n);
	have_kernel = run_kernel(&kt, &ka, ht, ha) == 0;
	run_a64_random(&a64r, h64, n);
	run_a64_branch_sys(&a64b, h64, n);
	run_a64_images(&a64i, h64, &images);
	run_a64_forms(&a64f, h64);
	have_kernel = have_kernel && images.dumps;
	cs_close(&ha);
	cs_close(&ht);
	cs_close(&h64);

	printf("insn_vs_capstone: capstone %d.%d, %lu random words per ISA\n",
	       CS_API_MAJOR, CS_API_MINOR, n);
	report(&a32r);
	report(&t16a);
	report(&t32r);
	if (have_kernel) {
		report(&kt);
		report(&ka);
	}
	report(&a64r);
	report(&a64b);
	printf("%-22s (%lu distinct A64 dumps, %lu bytes)\n", "",
	       images.dumps, images.bytes);
	report(&a64i);
	report(&a64f);
	bad = a32r.unexplained + t16a.unexplained + t32r.unexplained +
	      kt.unexplained + ka.unexplained + a64r.unexplained +
	      a64b.unexplained + a64i.unexplained + a64f.unexplained;
	total = a32r.compared + t16a.compared + t32r.compared + kt.compared +
		ka.compared + a64r.compared + a64b.compared + a64i.compared +
		a64f.compared;
	printf("exceptions (all runs):\n");
	for (size_t e = 0; e < NEXC; e++)
		printf("  %8lu  %s\n            %s\n", exceptions[e].count,
		       exceptions[e].name, exceptions[e].why);
	printf("total compared %lu, unexplained %lu\n", total, bad);
	if (bad)
		return 1;
	if (!have_kernel) {
		printf("insn_vs_capstone: %s/testdata/etmv3/TC2/kernel_dump.bin "
		       "or the A64 snapshot dumps missing\n",
		       ETMKIT_SHARED_DIR);
		return ci && !strcmp(ci, "true") ? 1 : 77;
	}
	return 0;
}
