/* Jazelle (Java bytecode) classification.
 *
 * Jazelle DBX executes standard Java bytecodes (The Java Virtual Machine
 * Specification, chapter 6 for each instruction, 7 for the opcode
 * mnemonics); bytecodes the hardware does not execute leave to software
 * handlers, which the trace shows as branches. Operands are big-endian.
 *
 * One table row per opcode gives its length and class; wide,
 * tableswitch and lookupswitch are sized from their operands.
 *
 * Choices (docs/insn.md):
 * - invoke*, athrow, *return, ret and the switches are indirect branches
 *   (their targets come from the trace); jsr, jsr_w and invoke* are
 *   calls; *return and ret (the return from jsr, JVMS 6 "ret") returns;
 * - LOAD/STORE mark heap accesses: array elements, arraylength, fields
 *   and statics. Locals and the operand stack are not marked, although
 *   Jazelle keeps some of them in memory;
 * - 0xba (invokedynamic since Java 7, unused in the Jazelle era), 0xca
 *   breakpoint, 0xfe/0xff impdep1/2 and 0xcb-0xfd are reserved: they must
 *   not appear in class files (JVMS 6.2), so they are UNDEFINED, size 1.
 */
#include <string.h>

#include "isa/insn_internal.h"

enum jaz_kind {
	J_PLAIN,
	J_LOAD,
	J_STORE,
	J_IF,     /* if<cond>, if_icmp<cond>, if_acmp<cond>, ifnull, ifnonnull */
	J_GOTO,   /* goto */
	J_GOTO_W, /* goto_w */
	J_JSR,    /* jsr */
	J_JSR_W,  /* jsr_w */
	J_RET,    /* ret */
	J_RETURN, /* ireturn .. return */
	J_INVOKE, /* invokevirtual, invokespecial, invokestatic,
		     invokeinterface */
	J_ATHROW,
	J_TABLESWITCH,
	J_LOOKUPSWITCH,
	J_WIDE,
	J_RESERVED
};

#define P J_PLAIN
#define L J_LOAD
#define S J_STORE
#define X J_RESERVED

/* Class of each opcode (JVMS chapter 7 order). */
static const uint8_t jaz_kind[256] = {
	/* 0x00 nop .. dconst_1 */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
	/* 0x10 bipush .. lload_1 */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
	/* 0x20 lload_2 .. aload_3, iaload, laload */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, L, L,
	/* 0x30 faload .. saload, istore .. istore_0 .. */
	L, L, L, L, L, L, P, P, P, P, P, P, P, P, P, P,
	/* 0x40 lstore_1 .. astore_3, iastore */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, S,
	/* 0x50 lastore .. sastore, pop .. swap */
	S, S, S, S, S, S, S, P, P, P, P, P, P, P, P, P,
	/* 0x60 arithmetic */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
	/* 0x80 ior .. lxor, iinc, conversions */
	P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
	/* 0x90 d2f .. dcmpg, ifeq .. if_icmpeq */
	P, P, P, P, P, P, P, P, P, J_IF, J_IF, J_IF, J_IF, J_IF, J_IF, J_IF,
	/* 0xa0 if_icmpne .. if_acmpne, goto, jsr, ret, switches, returns */
	J_IF, J_IF, J_IF, J_IF, J_IF, J_IF, J_IF, J_GOTO, J_JSR, J_RET,
	J_TABLESWITCH, J_LOOKUPSWITCH, J_RETURN, J_RETURN, J_RETURN, J_RETURN,
	/* 0xb0 areturn, return, getstatic .. putfield, invoke*, 0xba, new,
	 * newarray, anewarray, arraylength, athrow */
	J_RETURN, J_RETURN, L, S, L, S, J_INVOKE, J_INVOKE, J_INVOKE,
	J_INVOKE, X, P, P, P, L, J_ATHROW,
	/* 0xc0 checkcast, instanceof, monitorenter/exit, wide,
	 * multianewarray, ifnull, ifnonnull, goto_w, jsr_w, breakpoint */
	P, P, P, P, J_WIDE, P, J_IF, J_IF, J_GOTO_W, J_JSR_W, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
};

#undef P
#undef L
#undef S
#undef X

/* Length in bytes of each fixed-length opcode; 0: sized from operands
 * (tableswitch, lookupswitch, wide). Reserved opcodes: 1. */
static const uint8_t jaz_len[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
	2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, /* 0x10 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
	1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, /* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x50 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
	1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, /* 0x90 */
	3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 0, 0, 1, 1, 1, 1, /* 0xa0 */
	1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 1, 3, 2, 3, 1, 1, /* 0xb0 */
	3, 3, 1, 1, 0, 4, 3, 3, 5, 5, 1, 1, 1, 1, 1, 1, /* 0xc0 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xd0 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xe0 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xf0 */
};

/* Mnemonics, JVMS chapter 7; NULL for unassigned values. */
static const char *const jaz_name[256] = {
	"nop", "aconst_null", "iconst_m1", "iconst_0", "iconst_1",
	"iconst_2", "iconst_3", "iconst_4", "iconst_5", "lconst_0",
	"lconst_1", "fconst_0", "fconst_1", "fconst_2", "dconst_0",
	"dconst_1", "bipush", "sipush", "ldc", "ldc_w", "ldc2_w", "iload",
	"lload", "fload", "dload", "aload", "iload_0", "iload_1", "iload_2",
	"iload_3", "lload_0", "lload_1", "lload_2", "lload_3", "fload_0",
	"fload_1", "fload_2", "fload_3", "dload_0", "dload_1", "dload_2",
	"dload_3", "aload_0", "aload_1", "aload_2", "aload_3", "iaload",
	"laload", "faload", "daload", "aaload", "baload", "caload", "saload",
	"istore", "lstore", "fstore", "dstore", "astore", "istore_0",
	"istore_1", "istore_2", "istore_3", "lstore_0", "lstore_1",
	"lstore_2", "lstore_3", "fstore_0", "fstore_1", "fstore_2",
	"fstore_3", "dstore_0", "dstore_1", "dstore_2", "dstore_3",
	"astore_0", "astore_1", "astore_2", "astore_3", "iastore", "lastore",
	"fastore", "dastore", "aastore", "bastore", "castore", "sastore",
	"pop", "pop2", "dup", "dup_x1", "dup_x2", "dup2", "dup2_x1",
	"dup2_x2", "swap", "iadd", "ladd", "fadd", "dadd", "isub", "lsub",
	"fsub", "dsub", "imul", "lmul", "fmul", "dmul", "idiv", "ldiv",
	"fdiv", "ddiv", "irem", "lrem", "frem", "drem", "ineg", "lneg",
	"fneg", "dneg", "ishl", "lshl", "ishr", "lshr", "iushr", "lushr",
	"iand", "land", "ior", "lor", "ixor", "lxor", "iinc", "i2l", "i2f",
	"i2d", "l2i", "l2f", "l2d", "f2i", "f2l", "f2d", "d2i", "d2l", "d2f",
	"i2b", "i2c", "i2s", "lcmp", "fcmpl", "fcmpg", "dcmpl", "dcmpg",
	"ifeq", "ifne", "iflt", "ifge", "ifgt", "ifle", "if_icmpeq",
	"if_icmpne", "if_icmplt", "if_icmpge", "if_icmpgt", "if_icmple",
	"if_acmpeq", "if_acmpne", "goto", "jsr", "ret", "tableswitch",
	"lookupswitch", "ireturn", "lreturn", "freturn", "dreturn",
	"areturn", "return", "getstatic", "putstatic", "getfield",
	"putfield", "invokevirtual", "invokespecial", "invokestatic",
	"invokeinterface", NULL, "new", "newarray", "anewarray",
	"arraylength", "athrow", "checkcast", "instanceof", "monitorenter",
	"monitorexit", "wide", "multianewarray", "ifnull", "ifnonnull",
	"goto_w", "jsr_w", "breakpoint",
	[0xfe] = "impdep1", [0xff] = "impdep2",
};

const char *insn_jazelle_mnemonic(uint8_t op)
{
	return jaz_name[op] ? jaz_name[op] : "reserved";
}

static uint32_t be16(const uint8_t *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* wide (JVMS 6 "wide"): the local-variable loads and stores and ret take
 * a 16-bit index (4 bytes), iinc also a 16-bit constant (6 bytes). Any
 * other opcode after wide is not a bytecode. */
static enum jaz_kind jaz_wide(uint8_t op2, size_t *len)
{
	if ((op2 >= 0x15 && op2 <= 0x19) || (op2 >= 0x36 && op2 <= 0x3a)) {
		*len = 4;
		return J_PLAIN;
	}
	if (op2 == 0xa9) {
		*len = 4;
		return J_RET;
	}
	if (op2 == 0x84) {
		*len = 6;
		return J_PLAIN;
	}
	*len = 1;
	return J_RESERVED;
}

/* tableswitch and lookupswitch (JVMS 6): 0-3 padding bytes so that the
 * operands start at a multiple of 4, then default, low, high and
 * high - low + 1 offsets, or
 * default, npairs and npairs match/offset pairs. Returns the length, 0
 * for a malformed count, or -1 when @avail cuts the header. */
static int64_t jaz_switch(uint32_t addr, const uint8_t *b, size_t avail,
			  int table)
{
	/* The JVMS counts the multiple of 4 from the start of the method's
	 * code, which the trace does not give; the address is used, which
	 * agrees when methods start word-aligned. An assumption, not from a
	 * Jazelle document (docs/insn.md). */
	size_t pad = (4u - ((addr + 1u) & 3u)) & 3u;
	size_t hdr = 1 + pad + (table ? 12u : 8u);
	const uint8_t *ops = b + 1 + pad;
	int64_t n;

	if (avail < hdr)
		return -1;
	if (table)
		n = (int64_t)(int32_t)be32(ops + 8) -
		    (int64_t)(int32_t)be32(ops + 4) + 1;
	else
		n = (int32_t)be32(ops + 4);
	if (n < 0 || (table && n == 0))
		return 0;
	return (int64_t)hdr + n * (table ? 4 : 8);
}

int insn_decode_jazelle(struct insn_info *info, uint32_t addr,
			const uint8_t *b, size_t avail)
{
	enum jaz_kind kind;
	size_t len, i, nop;

	if (avail < 1)
		return -etmkit_err_truncated;
	memset(info, 0, sizeof(*info));
	info->isa = etmkit_isa_jazelle;
	info->cond = INSN_COND_AL;
	kind = jaz_kind[b[0]];
	len = jaz_len[b[0]];
	if (kind == J_WIDE) {
		if (avail < 2)
			return -etmkit_err_truncated;
		kind = jaz_wide(b[1], &len);
	} else if (kind == J_TABLESWITCH || kind == J_LOOKUPSWITCH) {
		int64_t n = jaz_switch(addr, b, avail,
				       kind == J_TABLESWITCH);

		if (n < 0)
			return -etmkit_err_truncated;
		if (n == 0) {
			kind = J_RESERVED;
			len = 1;
		} else {
			len = n > 255 ? 255 : (size_t)n;
		}
	}
	/* The opcode field and branch offsets need the first bytes. */
	nop = len < 4 ? len : 4;
	if (kind == J_GOTO_W || kind == J_JSR_W)
		nop = 5;
	if (avail < nop)
		return -etmkit_err_truncated;
	info->size = (uint8_t)len;
	for (i = 0; i < (len < 4 ? len : 4); i++)
		info->opcode = info->opcode << 8 | b[i];

	switch (kind) {
	case J_LOAD:
		info->flags |= INSN_F_LOAD;
		break;
	case J_STORE:
		info->flags |= INSN_F_STORE;
		break;
	case J_IF:
	case J_GOTO:
	case J_JSR:
		insn_direct(info, addr + insn_sext(be16(b + 1), 16),
			    etmkit_isa_jazelle);
		if (kind == J_IF)
			info->flags |= INSN_F_COND;
		if (kind == J_JSR)
			info->flags |= INSN_F_CALL;
		break;
	case J_GOTO_W:
	case J_JSR_W:
		insn_direct(info, addr + be32(b + 1), etmkit_isa_jazelle);
		if (kind == J_JSR_W)
			info->flags |= INSN_F_CALL;
		break;
	case J_RET:
	case J_RETURN:
		insn_pc_write(info);
		info->flags |= INSN_F_RETURN;
		break;
	case J_INVOKE:
		insn_pc_write(info);
		info->flags |= INSN_F_CALL;
		break;
	case J_ATHROW:
	case J_TABLESWITCH:
	case J_LOOKUPSWITCH:
		insn_pc_write(info);
		break;
	case J_RESERVED:
		info->flags |= INSN_F_UNDEFINED;
		break;
	default:
		break;
	}
	return 0;
}
