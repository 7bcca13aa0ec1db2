/* A one-line text form of an execution record item, for the QEMU log
 * importer's tests and tests/qemu/qemu_log_cat (not the exec-record text
 * format of docs/exec-record.md, which belongs to exec_text_format):
 *   ctx el=0 ns=1
 *   I <isa> <addr> <opcode> [B] [IND] [FAIL] [T><target> <target isa>]
 *   exc <kind> <addr>
 *   gap
 */
#ifndef ETMKIT_TESTS_QEMU_FMT_H
#define ETMKIT_TESTS_QEMU_FMT_H

#include <stdio.h>
#include <string.h>

#include "etmkit/exec.h"

static inline const char *qfmt_exc(uint32_t n)
{
	static const char *const names[] = { "reset", "undef", "call",
		"pabort", "dabort", "irq", "fiq", "debug" };

	return n < sizeof names / sizeof names[0] ? names[n] : "?";
}

static inline void qfmt_item(char *buf, size_t cap, const struct exec_rec *r)
{
	size_t n = 0;

	switch (r->kind) {
	case exec_insn:
		n = (size_t)snprintf(buf, cap, "I %s %llx %0*x",
				     etmkit_isa_name((enum etmkit_isa)r->isa),
				     (unsigned long long)r->addr,
				     r->size == 2 ? 4 : 8, r->opcode);
		if (n < cap && (r->flags & EXEC_F_BRANCH))
			n += (size_t)snprintf(buf + n, cap - n, " B");
		if (n < cap && (r->flags & EXEC_F_INDIRECT))
			n += (size_t)snprintf(buf + n, cap - n, " IND");
		if (n < cap && (r->flags & EXEC_F_COND_FAIL))
			n += (size_t)snprintf(buf + n, cap - n, " FAIL");
		if (n < cap && (r->flags & EXEC_F_TAKEN))
			snprintf(buf + n, cap - n, " T>%llx %s",
				 (unsigned long long)r->target,
				 etmkit_isa_name((enum etmkit_isa)r->target_isa));
		break;
	case exec_exception:
		snprintf(buf, cap, "exc %s %llx", qfmt_exc(r->number),
			 (unsigned long long)r->addr);
		break;
	case exec_gap:
		snprintf(buf, cap, "gap");
		break;
	case exec_context:
		snprintf(buf, cap, "ctx el=%u ns=%u", r->el, r->ns);
		break;
	case exec_data:
		snprintf(buf, cap, "%s %llx %u %llx",
			 r->flags & EXEC_D_STORE ? "st" : "ld",
			 (unsigned long long)r->addr, r->size,
			 (unsigned long long)r->value);
		break;
	default:
		snprintf(buf, cap, "kind %u", r->kind);
		break;
	}
}

#endif
