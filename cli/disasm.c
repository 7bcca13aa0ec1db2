/* etmkit CLI: disassembly text for instruction elements (capstone).
 *
 * Disassembling is slow next to decoding, so the text of each instruction
 * is kept in a direct-mapped cache keyed by address, instruction set and
 * opcode: a loop's body is disassembled once. ThumbEE is disassembled as
 * Thumb (capstone has no ThumbEE); Jazelle gets the bytecode mnemonic.
 *
 * Capstone 4 stops at Armv8.2 and Armv8-M. Where it rejects an instruction
 * that etmkit's classifier decodes (not INSN_F_UNDEFINED), the text is
 * the classifier's name (insn_name(): "bc.eq", "retaa", "wls", ...) with
 * the target of a direct branch; "(undefined)" is kept for what the
 * classifier calls undefined, and "(unknown)" marks an instruction both
 * know too little about to name.
 */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DIS_SLOTS 16384u
#define DIS_TEXT 72

struct dis_slot {
	uint64_t addr;
	uint32_t opcode;
	uint8_t isa, used;
	char text[DIS_TEXT];
};

struct cli_disasm {
	csh arm, thumb, a64;
	struct dis_slot slots[DIS_SLOTS];
};

struct cli_disasm *cli_disasm_alloc(void)
{
	struct cli_disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, &d->arm) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &d->thumb) != CS_ERR_OK) {
		cs_close(&d->arm);
		free(d);
		return NULL;
	}
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->a64) != CS_ERR_OK) {
		cs_close(&d->arm);
		cs_close(&d->thumb);
		free(d);
		return NULL;
	}
	return d;
}

void cli_disasm_free(struct cli_disasm *d)
{
	if (!d)
		return;
	cs_close(&d->arm);
	cs_close(&d->thumb);
	cs_close(&d->a64);
	free(d);
}

/* The text of an instruction capstone rejects, from the classifier. */
static void classifier_text(const struct etmkit_elem *e, const uint8_t *b,
			    size_t n, char *text)
{
	const char *name = insn_name((enum etmkit_isa)e->isa,
				     e->u.insn.opcode);
	struct insn_info ii;

	if (e->u.insn.class_flags & INSN_F_UNDEFINED) {
		snprintf(text, DIS_TEXT, "(undefined)");
		return;
	}
	if (!name) {
		snprintf(text, DIS_TEXT, "(unknown)");
		return;
	}
	if (insn_decode(&ii, (enum etmkit_isa)e->isa, e->addr, b, n) == 0 &&
	    (ii.flags & (INSN_F_BRANCH | INSN_F_INDIRECT)) == INSN_F_BRANCH)
		snprintf(text, DIS_TEXT, "%s #0x%" PRIx64, name, ii.target);
	else
		snprintf(text, DIS_TEXT, "%s", name);
}

static void disassemble(struct cli_disasm *d, const struct etmkit_elem *e,
			char *text)
{
	uint8_t b[4];
	size_t n;
	cs_insn *insn;
	csh h;

	if (e->isa == etmkit_isa_jazelle) {
		snprintf(text, DIS_TEXT, "%s",
			 insn_jazelle_mnemonic((uint8_t)(e->u.insn.opcode >>
				(8 * ((e->size < 4 ? e->size : 4) - 1)))));
		return;
	}
	n = insn_opcode_bytes((enum etmkit_isa)e->isa, e->u.insn.opcode,
			      e->size, b);
	h = e->isa == etmkit_isa_arm ? d->arm :
	    e->isa == etmkit_isa_a64 ? d->a64 : d->thumb;
	if (cs_disasm(h, b, n, e->addr, 1, &insn) == 1) {
		/* Long operand lists are cut to the slot's text. */
		snprintf(text, DIS_TEXT, "%.31s%s%.38s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", insn->op_str);
		cs_free(insn, 1);
	} else {
		classifier_text(e, b, n, text);
	}
}

const char *cli_disasm(struct cli_disasm *d, const struct etmkit_elem *e)
{
	uint64_t k = (e->addr >> 1) ^ e->u.insn.opcode ^ ((uint64_t)e->isa << 7);
	struct dis_slot *s = &d->slots[(k * 0x9e3779b97f4a7c15ull) >> 50];

	if (!s->used || s->addr != e->addr || s->opcode != e->u.insn.opcode ||
	    s->isa != e->isa) {
		disassemble(d, e, s->text);
		s->addr = e->addr;
		s->opcode = e->u.insn.opcode;
		s->isa = e->isa;
		s->used = 1;
	}
	return s->text;
}
